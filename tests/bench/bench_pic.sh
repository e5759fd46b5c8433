#!/usr/bin/env bash
# bench_pic.sh: the pIC aggregation (issue 9): the time to compute the
# measures and all the p breakpoints, and the best partition for one p, on
# the 1,000,000-process hierarchy (10 sites > 100 clusters > 1,000
# machines > processes; target: under one second for one p), and the
# space-time version on 10,000 leaves by 100 slices.
#
#   tests/bench/bench_pic.sh [BUILD_DIR]             (default: build)
#   PROCS=1000000 LEAVES=10000 SLICES=100 LEVELS=1 tests/bench/bench_pic.sh
#
# LEVELS=1 also times all the space-time breakpoints (one pass of the
# program on piecewise-linear functions of p: about 4 s at 10,000 x 20,
# refused as too large at 10,000 x 100); LEVELS=2 adds the re-solving
# reference (two solves per breakpoint: half a minute at 1,000 x 20) and
# checks every level by a solve at its midpoint.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
tool=$build/bench_pic
[ -x "$tool" ] || { echo "no $tool: build first (cmake --build $build --target bench_pic)" >&2; exit 1; }
"$tool" "${PROCS:-1000000}" "${LEAVES:-10000}" "${SLICES:-100}" "${LEVELS:-0}"
