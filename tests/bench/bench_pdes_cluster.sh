#!/usr/bin/env bash
# bench_pdes_cluster.sh: the time-series clustering analyses of issue 17
# against R on the same generated data in the same run:
#   k-means, 10 starts      16,384 entities x 100 samples   R: kmeans(x, K, nstart = 10)
#   classical MDS (2 axes)  16,384 x 100                    R: prcomp(x, rank. = 2)$x (*)
#   Euclidean matrix        1,024 x 200                     R: dist(x)
#   DTW matrix (symmetric1) 1,024 x 200                     R: a plain double loop (**)
# (*) cmdscale(dist(x)) is O(n^3) and needs the 16,384^2 matrix (2 GB), so R
#     is timed on its prcomp equivalent (the same coordinates up to sign).
# (**) no DTW package in Debian (r-cran-dtw is not packaged): the R reference
#     is the textbook dynamic program in R, timed on R_DTW_PAIRS pairs and
#     extrapolated to the n(n-1)/2 pairs of the matrix (printed as such).
#
#   tests/bench/bench_pdes_cluster.sh
#   N=16384 L=100 DN=1024 DL=200 K=3 RUNS=3 R_DTW_PAIRS=20 tests/bench/bench_pdes_cluster.sh
#
# The helper is tests/tools/bench_pdes_cluster.c, compiled here with -O2 from
# the sources it needs (so that the build type does not matter). Each side is
# timed inside itself after the data are in memory: ariadne the median of
# RUNS, R once (proc.time elapsed). Targets: every ratio (ariadne / R) at most
# 1, k-means and MDS of N entities under 2 s; the script exits 1 on a miss.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${N:-16384}
l=${L:-100}
dn=${DN:-1024}
dl=${DL:-200}
k=${K:-3}
runs=${RUNS:-3}
dtw_pairs=${R_DTW_PAIRS:-20}
command -v Rscript >/dev/null || { echo "Rscript missing: apt-get install r-base-core" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=$tmp/bench_pdes_cluster
cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/src" -o "$bench" "$root/tests/tools/bench_pdes_cluster.c" \
    "$root/src/analysis/kmeans_hw.c" "$root/src/analysis/mds_pca.c" "$root/src/analysis/ts_distance.c" \
    "$root/src/util/error.c" -lgsl -lgslcblas -lm -lpthread
"$bench" gen "$n" "$l" "$tmp/big.bin"
"$bench" gen "$dn" "$dl" "$tmp/small.bin"

cat > "$tmp/bench.R" <<RSCRIPT
rd <- function(path, n, l) matrix(readBin(path, "double", n * l, endian = "little"), nrow = n, byrow = TRUE)
X <- rd("$tmp/big.bin", $n, $l)
S <- rd("$tmp/small.bin", $dn, $dl)
set.seed(1)
t0 <- proc.time()[["elapsed"]]; km <- kmeans(X, $k, nstart = 10); t1 <- proc.time()[["elapsed"]]
cat(sprintf("kmeans %.6f tot.withinss=%.10g iter=%d\n", t1 - t0, km\$tot.withinss, km\$iter))
t0 <- proc.time()[["elapsed"]]; p <- prcomp(X, center = TRUE, scale. = FALSE, rank. = 2); pc <- p\$x; t1 <- proc.time()[["elapsed"]]
ev <- p\$sdev^2; ex <- ev[1:2] / sum(ev)
cat(sprintf("mds %.6f explained=%.6f,%.6f |first|=%.6g,%.6g\n", t1 - t0, ex[1], ex[2], abs(pc[1, 1]), abs(pc[1, 2])))
t0 <- proc.time()[["elapsed"]]; D <- dist(S); t1 <- proc.time()[["elapsed"]]
cat(sprintf("euclid %.6f sum=%.10g d(1,2)=%.10g\n", t1 - t0, 2 * sum(D), D[1]))
dtw1 <- function(a, b) {
  la <- length(a); lb <- length(b)
  g <- matrix(Inf, la + 1, lb + 1); g[1, 1] <- 0
  for (i in 1:la) for (j in 1:lb)
    g[i + 1, j + 1] <- abs(a[i] - b[j]) + min(g[i, j + 1], g[i + 1, j], g[i, j])
  g[la + 1, lb + 1]
}
pairs <- min($dtw_pairs, $dn * ($dn - 1) / 2)
t0 <- proc.time()[["elapsed"]]
first <- dtw1(S[1, ], S[2, ])
for (q in 2:pairs) { i <- 1 + (q %% $dn); j <- 1 + ((q * 7 + 3) %% $dn); if (i != j) dtw1(S[i, ], S[j, ]) else dtw1(S[1, ], S[3, ]) }
t1 <- proc.time()[["elapsed"]]
cat(sprintf("dtw %.6f d(1,2)=%.10g extrapolated from %d pairs\n", (t1 - t0) / pairs * $dn * ($dn - 1) / 2, first, pairs))
RSCRIPT
echo "generated ROSS-like data: $n x $l (k-means, MDS), $dn x $dl (matrices); k = $k; $(nproc) CPUs"
r_out=$(Rscript --vanilla "$tmp/bench.R")
fail=0
line() { # name, ariadne line, R line, label, budget (seconds or empty)
    local c_time r_time ratio
    c_time=$(echo "$2" | awk '{print $2}')
    r_time=$(echo "$3" | awk '{print $2}')
    ratio=$(awk -v c="$c_time" -v r="$r_time" 'BEGIN { printf "%.3g", c / r }')
    printf '%-34s ariadne %9.3f s   R %10.3f s   ratio %6s   %s\n' "$4" "$c_time" "$r_time" "$ratio" "$6"
    printf '    ariadne: %s\n    R:       %s\n' "$(echo "$2" | cut -d' ' -f3-)" "$(echo "$3" | cut -d' ' -f3-)"
    awk -v x="$ratio" 'BEGIN { exit !(x <= 1) }' || { echo "    MISSED: slower than R"; fail=1; }
    if [ -n "$5" ]; then
        awk -v c="$c_time" -v b="$5" 'BEGIN { exit !(c < b) }' || { echo "    MISSED: not under $5 s"; fail=1; }
    fi
}
line kmeans "$("$bench" kmeans "$n" "$l" "$runs" "$k")" "$(echo "$r_out" | grep '^kmeans')" \
    "k-means 10 starts ($n x $l, k=$k)" 2 "R: kmeans(x, $k, nstart = 10)"
line mds "$("$bench" mds "$n" "$l" "$runs")" "$(echo "$r_out" | grep '^mds')" \
    "classical MDS ($n x $l)" 2 "R: prcomp(x, rank. = 2) (cmdscale is O(n^3))"
line euclid "$("$bench" euclid "$dn" "$dl" "$runs")" "$(echo "$r_out" | grep '^euclid')" \
    "Euclidean matrix ($dn x $dl)" "" "R: dist(x)"
line dtw "$("$bench" dtw "$dn" "$dl" 1)" "$(echo "$r_out" | grep '^dtw')" \
    "DTW matrix ($dn x $dl)" "" "R: plain loop, extrapolated"
exit $fail
