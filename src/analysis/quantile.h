/* quantile.h: sample quantiles computed exactly as R's default
 * `quantile(x, p, type = 7)`.
 *
 * Type 7 (Hyndman & Fan): with the sample sorted as x[0] <= ... <= x[n-1],
 * h = (n - 1) p, lo = floor(h), hi = ceil(h) and
 *     Q(p) = x[lo]                              when hi == lo or x[hi] == x[lo]
 *     Q(p) = (1 - g) x[lo] + g x[hi]            otherwise, g = h - lo.
 * The arithmetic follows R's quantile.default() step by step, so results
 * agree with R to the last bit on ordinary samples.
 */
#ifndef ARIADNE_ANALYSIS_QUANTILE_H
#define ARIADNE_ANALYSIS_QUANTILE_H

#include <stddef.h>

/* Q(p) of sorted[0..n); n >= 1 and 0 <= p <= 1 (not checked here: this is
 * the inner routine; callers validate). */
double ari_quantile7_sorted(const double *sorted, size_t n, double p);

/* Sorts x[0..n) ascending in place (NaN-free input). */
void ari_sort_doubles(double *x, size_t n);

#endif
