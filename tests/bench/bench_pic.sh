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
# LEVELS=1 also times all the space-time breakpoints (two solves of the
# dynamic program per breakpoint: long at 10,000 x 100; try SLICES=20).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
tool=$build/bench_pic
[ -x "$tool" ] || { echo "no $tool: build first (cmake --build $build --target bench_pic)" >&2; exit 1; }
"$tool" "${PROCS:-1000000}" "${LEAVES:-10000}" "${SLICES:-100}" "${LEVELS:-0}"
