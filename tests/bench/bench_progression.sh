#!/usr/bin/env bash
# bench_progression.sh: the per-step modal clustering of the progression
# view (issue 5) on 10,000 nodes over 100 steps, against R's density() on
# the same values, in the same run; R also applies the same local-minimum
# rule so that both cluster counts can be compared.
#
#   tests/bench/bench_progression.sh [BUILD_DIR]      (default: build)
#   NODES=10000 STEPS=100 BANDWIDTH=0.01 RUNS=11 tests/bench/bench_progression.sh
#
# The helper (bench_progression.c) is compiled here against BUILD_DIR's
# libariadne_analysis.a. Target: at least 10 times faster than R's density()
# alone, and under one second. Each side is timed RUNS times and the
# medians are compared: ariadne inside the helper (clock_gettime around the
# clustering of all steps, freeing the results included), R inside R
# (proc.time() around the density() calls of all steps, after start-up and
# after reading the values).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
nodes=${NODES:-10000}
steps=${STEPS:-100}
bw=${BANDWIDTH:-0.01}
runs=${RUNS:-11}
[ -f "$build/libariadne_analysis.a" ] || { echo "no $build/libariadne_analysis.a: build first" >&2; exit 1; }
command -v Rscript >/dev/null || { echo "Rscript missing: apt-get install r-base-core" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -I"$build/gen" -o "$tmp/bench" \
    "$root/tests/bench/bench_progression.c" "$build/libariadne_analysis.a" "$build/libariadne_util.a" -lgsl -lgslcblas -lglpk -lm -pthread
load=$(cut -d' ' -f1-3 /proc/loadavg)
"$tmp/bench" "$nodes" "$steps" "$bw" "$tmp/values.txt" "$runs" > "$tmp/ours.txt"
read -r _ ours_s ours_min ours_max ours_clusters threads < <(grep '^clusters ' "$tmp/ours.txt")
read -r _ one_s one_min one_max _ < <(grep '^clusters1 ' "$tmp/ours.txt")
read -r _ analysis_s tasks < <(grep '^analysis ' "$tmp/ours.txt")

# R: read the same values, then time density() alone, and density() + the
# rule of modal_clusters.h (rle runs, interior runs below both neighbours,
# findInterval(left.open = TRUE)), alternately, RUNS times each.
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
elapsed <- function(f) { t0 <- proc.time()[["elapsed"]]; f(); proc.time()[["elapsed"]] - t0 }
td <- numeric($runs); tc <- numeric($runs)
for (i in 1:$runs) { td[i] <- elapsed(dens); tc[i] <- elapsed(clus) }
cat(sprintf("%.6f %.6f %.6f %.6f %d\n", median(td), min(td), max(td), median(tc), clus()))
EOF
read -r r_s r_min r_max r_full_s r_clusters < <(Rscript --vanilla "$tmp/bench.R")

ratio() { awk -v a="$1" -v r="$2" 'BEGIN { printf "%.1f", r / a }'; }
row() { printf '%-46s %9s s  (%s-%s)\n' "$1" "$2" "$3" "$4"; }
echo "$nodes nodes, $steps steps, bandwidth $bw: medians of $runs runs (min-max); load average before: $load"
row "ariadne, all steps at once, $threads thread(s)" "$ours_s" "$ours_min" "$ours_max"
row "ariadne, all steps at once, 1 thread" "$one_s" "$one_min" "$one_max"
row "R density()" "$r_s" "$r_min" "$r_max"
printf '%-46s %9s s\n' "R density() + the same minimum rule" "$r_full_s"
echo "speedup over R's density(): $(ratio "$ours_s" "$r_s")x ($(ratio "$one_s" "$r_s")x on 1 thread);" \
    "over R doing the same work: $(ratio "$ours_s" "$r_full_s")x"
echo "clusters over all steps: ariadne $ours_clusters, R $r_clusters (must be equal)"
echo "whole progression analysis (metrics, clusters, flows, per-step ABE):" \
    "$nodes nodes, $tasks tasks, $steps steps: $analysis_s s"
[ "$ours_clusters" = "$r_clusters" ] || { echo "MISMATCH: the cluster counts differ" >&2; exit 1; }
met=$(awk -v a="$ours_s" -v r="$r_s" 'BEGIN { print (r >= 10 * a && a < 1) ? "met" : "NOT met" }')
echo "target (at least 10x R's density(), under 1 s): $met"
