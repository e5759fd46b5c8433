#!/bin/bash
# bench_live_var.sh: the progressive VAR row of Table 6.1 (issue 18): time
# points processed in a 1 s budget out of t = 10,000 at d = 10, 100, 1,000
# (tests/bench/bench_live_var.c, against the thesis's 10,000 / 833 / 35).
#
#   tests/bench/bench_live_var.sh [BUILD_DIR]      (default: build; a Release build for timings)
#   T=10000 BUDGET_MS=1000 DIMS="10 100 1000" tests/bench/bench_live_var.sh build-rel
#
# The helper is compiled here against BUILD_DIR's analysis and util libraries.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ -f "$build/libariadne_analysis.a" ] || { echo "no $build/libariadne_analysis.a: build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -o "$tmp/bench" \
    "$root/tests/bench/bench_live_var.c" "$build/libariadne_analysis.a" "$build/libariadne_util.a" -lgsl -lgslcblas -lglpk -lm -pthread
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
"$tmp/bench" "${T:-10000}" "${BUDGET_MS:-1000}" ${DIMS:-10 100 1000}
