#!/usr/bin/env bash
# bench_progression.sh: the per-step modal clustering of the progression
# view (issue 5) on 10,000 nodes over 100 steps, against R's density() on
# the same values, in the same run; R also applies the same local-minimum
# rule so that both cluster counts can be compared.
#
#   tests/bench/bench_progression.sh [BUILD_DIR]      (default: build)
#   NODES=10000 STEPS=100 BANDWIDTH=0.01 tests/bench/bench_progression.sh
#
# The helper (bench_progression.c) is compiled here against BUILD_DIR's
# libariadne_core.a. Target: at least 10 times faster than R's density()
# alone, and under one second.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
nodes=${NODES:-10000}
steps=${STEPS:-100}
bw=${BANDWIDTH:-0.01}
[ -f "$build/libariadne_core.a" ] || { echo "no $build/libariadne_core.a: build first" >&2; exit 1; }
command -v Rscript >/dev/null || { echo "Rscript missing: apt-get install r-base-core" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -I"$build/gen" -o "$tmp/bench" \
    "$root/tests/bench/bench_progression.c" "$build/libariadne_core.a" -lglpk -lm
"$tmp/bench" "$nodes" "$steps" "$bw" "$tmp/values.txt" > "$tmp/ours.txt"
read -r _ ours_s ours_clusters < <(grep '^clusters' "$tmp/ours.txt")
read -r _ analysis_s tasks < <(grep '^analysis' "$tmp/ours.txt")

# R: read the same values, then time density() alone and density() + the
# rule of modal_clusters.h (rle runs, interior runs below both neighbours,
# findInterval(left.open = TRUE)), best of 3 like the helper.
cat > "$tmp/bench.R" <<EOF
rows <- lapply(strsplit(readLines("$tmp/values.txt"), " "), as.numeric)
bw <- $bw
dens <- function() for (x in rows) density(x, bw = bw)
clus <- function() {
  total <- 0
  for (x in rows) {
    d <- density(x, bw = bw)
    r <- rle(d\$y); k <- length(r\$values)
    ends <- cumsum(r\$lengths); starts <- ends - r\$lengths + 1
    mins <- numeric(0)
    if (k >= 3) {
      i <- 2:(k - 1)
      i <- i[r\$values[i] < r\$values[i - 1] & r\$values[i] < r\$values[i + 1]]
      mins <- (d\$x[starts[i]] + d\$x[ends[i]]) / 2
    }
    total <- total + length(unique(findInterval(x, mins, left.open = TRUE)))
  }
  total
}
best <- function(f) min(sapply(1:3, function(i) system.time(f())[["elapsed"]]))
cat(sprintf("%.6f %.6f %d\n", best(dens), best(clus), clus()))
EOF
read -r r_density_s r_full_s r_clusters < <(Rscript --vanilla "$tmp/bench.R")

speedup=$(awk -v a="$ours_s" -v r="$r_density_s" 'BEGIN { printf "%.1f", r / a }')
speedup_full=$(awk -v a="$ours_s" -v r="$r_full_s" 'BEGIN { printf "%.1f", r / a }')
printf '%-7s %-6s %-9s %12s %14s %16s %10s %10s\n' nodes steps bandwidth ariadne_s R_density_s R_density+rule_s speedup clusters
printf '%-7s %-6s %-9s %12s %14s %16s %9sx %10s\n' "$nodes" "$steps" "$bw" "$ours_s" "$r_density_s" \
    "$r_full_s" "$speedup" "$ours_clusters"
echo "speedup = R's density() alone / ariadne's density + minima + assignment ($speedup_full x against R doing the same)."
echo "clusters over all steps: ariadne $ours_clusters, R $r_clusters (must be equal)."
echo "whole progression analysis (metrics, clusters, flows, per-step ABE): $nodes nodes, $tasks tasks, $steps steps: ${analysis_s} s"
[ "$ours_clusters" = "$r_clusters" ] || { echo "MISMATCH: the cluster counts differ" >&2; exit 1; }
