#!/usr/bin/env bash
# bench_regression.sh: fits the four duration models (LR, WLR, NLR, LR_LOG,
# analysis/regression.h) and classifies 1 million generated tasks in 10
# groups, and runs R's lm + predict(interval = "prediction") for the same
# four models on the same data in the same run; both report their anomaly
# counts, which must agree.
#
#   tests/bench/bench_regression.sh
#   TASKS=1000000 NGROUPS=10 RUNS=5 tests/bench/bench_regression.sh
#
# The helper is tests/tools/bench_regression.c, compiled here with -O2 from
# the two source files it needs (so that the build type does not matter). Each
# side is timed inside itself, after generating or reading the data: the
# helper RUNS times (the median), R once (lm and predict of all groups and
# models, proc.time(), after read.csv and split). Target: at least 10 times
# faster than R.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tasks=${TASKS:-1000000}
groups=${NGROUPS:-10}
runs=${RUNS:-5}
command -v Rscript >/dev/null || { echo "Rscript missing: apt-get install r-base-core" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=$tmp/bench_regression
cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -o "$bench" "$root/tests/tools/bench_regression.c" \
    "$root/src/analysis/regression.c" "$root/src/util/error.c" -lgsl -lgslcblas -lm
c_line=$("$bench" "$tasks" "$groups" "$runs" "$tmp/tasks.csv")
cat > "$tmp/bench.R" <<RSCRIPT
x <- read.csv("$tmp/tasks.csv")
parts <- split(x, x\$group)
counts <- c(lr = 0, wlr = 0, nlr = 0, lr_log = 0)
t0 <- proc.time()[["elapsed"]]
for (s in parts) {
  G <- s\$G; D <- s\$D
  p <- suppressWarnings(predict(lm(D ~ G), interval = "prediction")); counts["lr"] <- counts["lr"] + sum(D > p[, "upr"])
  p <- suppressWarnings(predict(lm(D ~ G, weights = 1/G), interval = "prediction"))
  counts["wlr"] <- counts["wlr"] + sum(D > p[, "upr"])
  p <- suppressWarnings(predict(lm(D ~ I(G^(2/3))), interval = "prediction")); counts["nlr"] <- counts["nlr"] + sum(D > p[, "upr"])
  p <- exp(suppressWarnings(predict(lm(log(D) ~ log(G)), interval = "prediction")))
  counts["lr_log"] <- counts["lr_log"] + sum(D > p[, "upr"])
}
t1 <- proc.time()[["elapsed"]]
cat(sprintf("R %.6f lr=%d wlr=%d nlr=%d lr_log=%d\n", t1 - t0, counts[["lr"]], counts[["wlr"]], counts[["nlr"]], counts[["lr_log"]]))
RSCRIPT
r_line=$(Rscript --vanilla "$tmp/bench.R")
read -r _ c_time c_counts <<<"$(echo "$c_line" | sed 's/^ariadne //' | awk '{t=$1; $1=""; print "x", t, $0}')"
read -r _ r_time r_counts <<<"$(echo "$r_line" | sed 's/^R //' | awk '{t=$1; $1=""; print "x", t, $0}')"
echo "tasks: $tasks in $groups groups, 4 models (fit + 95 % prediction interval + classification)"
printf 'ariadne (median of %d):      %8.3f s   anomalies: %s\n' "$runs" "$c_time" "$c_counts"
printf 'R lm + predict:             %8.3f s   anomalies: %s\n' "$r_time" "$r_counts"
speedup=$(awk -v c="$c_time" -v r="$r_time" 'BEGIN { printf "%.1f", r / c }')
echo "speed-up: ${speedup}x (target: >= 10x)"
[ "$(echo $c_counts)" = "$(echo $r_counts)" ] || { echo "FAIL: the anomaly counts differ from R's" >&2; exit 1; }
awk -v s="$speedup" 'BEGIN { exit !(s >= 10) }' || { echo "FAIL: less than 10 times faster than R" >&2; exit 1; }
