#!/usr/bin/env bash
# bench_live_analyses.sh: the progressive analyses of the live runs (issue
# 18) against the thesis's Table 6.1 (online CPD ms per time point;
# entities processed in 1 s by the progressive clustering and DR).
#
#   tests/bench/bench_live_analyses.sh [BUILD_DIR]      (default: build; use a Release build)
#   POINTS=200 ENT_1E5=1000 ONLY=cpd|cluster|dr tests/bench/bench_live_analyses.sh build-rel
#
# The helper (bench_live_analyses.c) is compiled here with -O2 against
# BUILD_DIR's libariadne_analysis.a. Peak memory: 10,000 x 10,000 doubles
# (800 MB) at t = 1e4, ENT_1E5 x 1e5 doubles at t = 1e5.
# Targets (spec_pdes_dmv.md 5): CPD <= 6.23 ms at n = 1e5; clustering >=
# 3,074 and DR >= 2,396 entities at t = 1e4.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ -f "$build/libariadne_analysis.a" ] || { echo "no $build/libariadne_analysis.a: build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -I"$build/gen" -o "$tmp/bench" \
    "$root/tests/bench/bench_live_analyses.c" "$build/libariadne_analysis.a" "$build/libariadne_util.a" \
    -lgsl -lgslcblas -lglpk -lm -pthread
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/bench" "${POINTS:-200}" "${ENT_1E5:-1000}" "${ONLY:-}"
