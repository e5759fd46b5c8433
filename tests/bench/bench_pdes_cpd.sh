#!/usr/bin/env bash
# bench_pdes_cpd.sh: E-Divisive change points on 256 entities x 1,000
# samples and Barnes-Hut t-SNE of 2,000 points (issue 17), next to R on the
# same data in the same run.
#
#   tests/bench/bench_pdes_cpd.sh
#   ENTITIES=256 SAMPLES=1000 POINTS=2000 PERMS=19 tests/bench/bench_pdes_cpd.sh
#
# The helper is tests/tools/bench_pdes_cpd.c, compiled here with -O3 (as a
# Release build) from the sources it needs, so the build type does not
# matter. It generates
# the data (level shifts at 25, 50 and 75 % of the run; 8 Gaussian blobs in
# 10-D), writes it as CSV and times itself; R then reads the same files.
#
# R reference: ecp is not packaged in Debian, so the script carries
# E-Divisive in plain R: D = as.matrix(dist(X))^alpha, each segment's
# search over (tau, kappa) vectorised over kappa with 2-D prefix sums of D
# (O(L^2) per segment, as ecp's C++), bisection with ecp's caching of the
# unchanged segments, and the permutation test (sample() within segments).
# Both sides run the test with a reduced R = PERMS (default 19 instead of
# ecp's 199) so that R's side finishes in a minute or two; the k = 3 search has no
# test and must find the same points on both sides. t-SNE: Rtsne 0.16
# (pca = FALSE, theta 0.5, perplexity 30, 1000 iterations, one thread)
# against ari_tsne_rows with the same parameters on one thread and with the
# default threads (kNN on all cores; the descent too from 8,192 points on;
# the same layout); both layouts are scored by
# 10-NN preservation. Each side is timed inside itself after reading its
# data (proc.time() in R). Target (issue 17): ariadne at least as fast as R
# on every line.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
entities=${ENTITIES:-256}
samples=${SAMPLES:-1000}
points=${POINTS:-2000}
perms=${PERMS:-19}
command -v Rscript >/dev/null || { echo "Rscript missing: apt-get install r-base-core" >&2; exit 1; }
Rscript -e 'library(Rtsne)' >/dev/null 2>&1 || { echo "Rtsne missing: apt-get install r-cran-rtsne" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=$tmp/bench_pdes_cpd
cc -std=c11 -O3 -D_GNU_SOURCE -I"$root/src" -o "$bench" "$root/tests/tools/bench_pdes_cpd.c" \
    "$root/src/analysis/edivisive.c" "$root/src/analysis/tsne.c" "$root/src/util/error.c" -lm -lpthread
"$bench" run "$entities" "$samples" "$points" "$perms" "$tmp" > "$tmp/c.txt"

cat > "$tmp/bench.R" <<RSCRIPT
suppressMessages(library(Rtsne))
X <- as.matrix(read.csv("$tmp/cpd.csv", header = FALSE))
m <- 30; sig <- 0.05; alpha <- 1
# best (tau, kappa) of the block B: c(first index of Y (1-based, ecp), kappa, Q)
split_point <- function(B) {
  L <- nrow(B); best <- c(-1, -1, -Inf)
  if (L < 2 * m) return(best)
  S <- matrix(0, L + 1, L + 1)
  S[-1, -1] <- t(apply(apply(B, 2, cumsum), 1, cumsum))
  blk <- function(r1, r2, c1, c2) S[cbind(r2 + 1, c2 + 1)] - S[cbind(r1, c2 + 1)] - S[cbind(r2 + 1, c1)] + S[cbind(r1, c1)]
  for (tau in m:(L - m)) {
    kap <- (tau + m):L; p <- tau; q <- kap - tau
    wx <- S[tau + 1, tau + 1] / 2
    wy <- blk(tau + 1, kap, tau + 1, kap) / 2
    bt <- blk(1, tau, tau + 1, kap)
    Q <- (2 * bt / (p * q) - 2 * wy / (q * (q - 1)) - 2 * wx / (p * (p - 1))) * p * q / (p + q)
    i <- which.max(Q)
    if (Q[i] > best[3]) best <- c(tau + 1, kap[i], Q[i])
  }
  best
}
seg_best <- function(D, a, b) { r <- split_point(D[a:(b - 1), a:(b - 1), drop = FALSE]); if (r[1] > 0) r[1] <- r[1] + a - 1; r }
edivisive <- function(D, R, k) {
  n <- nrow(D); bounds <- c(1, n + 1); found <- c(); pv <- c()
  cache <- list(seg_best(D, 1, n + 1))
  if (is.null(k)) k <- n
  while (k > 0) {
    qs <- sapply(cache, function(b) b[3]); g <- which.max(qs)
    if (!is.finite(qs[g])) break
    obs <- cache[[g]][3]; cp <- cache[[g]][1]
    if (R > 0) {
      over <- 0
      for (r in 1:R) {
        mx <- -Inf
        for (s in seq_len(length(bounds) - 1)) {
          a <- bounds[s]; b <- bounds[s + 1]
          if (b - a < 2 * m) next
          idx <- if (b - a > 1) sample(a:(b - 1)) else a
          mx <- max(mx, split_point(D[idx, idx, drop = FALSE])[3])
        }
        if (mx >= obs) over <- over + 1
      }
      p <- (1 + over) / (R + 1); pv <- c(pv, p)
      if (p > sig) break
    }
    found <- c(found, cp); k <- k - 1
    bounds <- sort(c(bounds, cp)); g2 <- which(bounds == cp)
    cache <- c(cache[seq_len(g2 - 2)], list(seg_best(D, bounds[g2 - 1], cp), seg_best(D, cp, bounds[g2 + 1])),
               cache[-seq_len(g2 - 1)])
  }
  list(points = sort(found), p = pv)
}
fmt <- function(name, t, r) cat(sprintf("%s %.6f points=%s p=%s\n", name, t, paste(r\$points, collapse = ","),
                                        paste(sprintf("%.3f", r\$p), collapse = ",")))
set.seed(1)
t0 <- proc.time()[["elapsed"]]; D <- as.matrix(dist(X))^alpha; t1 <- proc.time()[["elapsed"]]
cat(sprintf("ed_distances %.6f %d x %d\n", t1 - t0, nrow(D), ncol(D)))
t0 <- proc.time()[["elapsed"]]; r <- edivisive(D, 0, 3); fmt("ed_search_k3", proc.time()[["elapsed"]] - t0, r)
t0 <- proc.time()[["elapsed"]]; r <- edivisive(D, $perms, NULL); fmt("ed_perm", proc.time()[["elapsed"]] - t0, r)
P <- as.matrix(read.csv("$tmp/tsne.csv", header = FALSE))
t0 <- proc.time()[["elapsed"]]
y <- Rtsne(P, dims = 2, perplexity = 30, theta = 0.5, pca = FALSE, max_iter = 1000, check_duplicates = FALSE,
           num_threads = 1)
cat(sprintf("tsne %.6f n=%d kl=%.4f\n", proc.time()[["elapsed"]] - t0, nrow(P), tail(y\$itercosts, 1)))
write.table(y\$Y, "$tmp/tsne_r.csv", sep = ",", row.names = FALSE, col.names = FALSE)
RSCRIPT
Rscript --vanilla "$tmp/bench.R" > "$tmp/r.txt"

field() { awk -v k="$2" '$1 == k { print $'"$3"' }' "$1"; }
np_c=$("$bench" np "$tmp/tsne.csv" "$tmp/tsne_c.csv")
np_r=$("$bench" np "$tmp/tsne.csv" "$tmp/tsne_r.csv")
echo "E-Divisive: $entities entities x $samples samples (alpha 1, min_size 30); t-SNE: $points points in 10-D"
printf '%-34s %10s %10s %8s   %s\n' "" "ariadne s" "R s" "R/ari" "results (ariadne | R)"
fail=0
line() { # label, C key, R key, details
    local c r
    c=$(field "$tmp/c.txt" "$2" 2) r=$(field "$tmp/r.txt" "$3" 2)
    printf '%-34s %10.3f %10.3f %8.1f   %s\n' "$1" "$c" "$r" "$(awk -v c="$c" -v r="$r" 'BEGIN { print r / c }')" "$4"
    awk -v c="$c" -v r="$r" 'BEGIN { exit !(c <= r) }' || { echo "  MISSED: slower than R" >&2; fail=1; }
}
line "distance matrix |x_t - x_s|" ed_distances ed_distances ""
line "search of 3 points (k = 3)" ed_search_k3 ed_search_k3 \
    "$(field "$tmp/c.txt" ed_search_k3 3) | $(field "$tmp/r.txt" ed_search_k3 3)"
line "E-Divisive, R = $perms, 1 thread" ed_perm_1thread ed_perm \
    "$(field "$tmp/c.txt" ed_perm_1thread 3) $(field "$tmp/c.txt" ed_perm_1thread 4) | $(field "$tmp/r.txt" ed_perm 3) $(field "$tmp/r.txt" ed_perm 4)"
line "E-Divisive, R = $perms, all cores" ed_perm_allcores ed_perm ""
printf '%-34s %10.3f %10s %8s   %s\n' "E-Divisive, R = 199, all cores" "$(field "$tmp/c.txt" ed_perm199_allcores 2)" \
    "-" "-" "$(field "$tmp/c.txt" ed_perm199_allcores 3) $(field "$tmp/c.txt" ed_perm199_allcores 4) (R not run)"
line "t-SNE, 1 thread (Rtsne 1 thread)" tsne_1thread tsne \
    "$(field "$tmp/c.txt" tsne_1thread 4) 10-NN kept $np_c | $(field "$tmp/r.txt" tsne 4) 10-NN kept $np_r"
line "t-SNE, default threads (Rtsne 1)" tsne_default tsne ""
[ "$(field "$tmp/c.txt" ed_search_k3 3)" = "$(field "$tmp/r.txt" ed_search_k3 3)" ] ||
    { echo "FAIL: the k = 3 search found other points than R" >&2; fail=1; }
awk -v a="$np_c" -v b="$np_r" 'BEGIN { exit !(a >= b - 0.05) }' ||
    { echo "FAIL: t-SNE keeps fewer neighbours than Rtsne (more than 0.05 below)" >&2; fail=1; }
exit $fail
