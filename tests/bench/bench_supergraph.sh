#!/usr/bin/env bash
# bench_supergraph.sh: the super-graph benchmark (issue 6). Builds and
# filters CallFlow's super graph (src/analysis/supergraph.c) of a generated
# CCT of NODES nodes measured on RANKS ranks (tests/tools/bench_supergraph.c):
# the 0.1% filter, the grouping into modules with cycle breaking, the
# per-process sums, the collapsed view with per-node histograms, then a rank
# brush (half the ranks against the other half); flow conservation is
# checked on the result. With DB and TRACE set, the CCT is loaded from that
# database (e.g. one imported by tests/bench/bench_profiles.sh) instead.
#
#   tests/bench/bench_supergraph.sh [BUILD_DIR]            (default: build)
#   NODES=100000 RANKS=1024 MODULES=40 tests/bench/bench_supergraph.sh build-sg
#   DB=/tmp/p.db TRACE=1 tests/bench/bench_supergraph.sh build-sg
#
# Target: super graph (filter + build + view) under 1 s for 100,000 nodes on
# 1,024 ranks. Needs about 2 GB of memory at the default size.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
nodes=${NODES:-100000}
ranks=${RANKS:-1024}
modules=${MODULES:-40}
[ -x "$build/bench_supergraph" ] || { echo "no $build/bench_supergraph: build the project first" >&2; exit 1; }
args=(--nodes "$nodes" --ranks "$ranks" --modules "$modules")
[ -n "${DB:-}" ] && args=(--db "$DB" --trace "${TRACE:?TRACE is the profile id in DB}")
out=$("$build/bench_supergraph" "${args[@]}")
echo "$out"
echo "$out" | awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
  END { ok = v["supergraph_s"] < 1 && v["flow"] == "conserved";
        printf "target: super graph %s s (< 1) on %s nodes x %s ranks, flow %s: %s\n",
               v["supergraph_s"], v["nodes"], v["ranks"], v["flow"], ok ? "met" : "NOT met";
        exit ok ? 0 : 1 }'
