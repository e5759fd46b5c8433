/* profile_stats.h: the statistics of the profile endpoints, over plain
 * arrays (the store's profile rows): which nodes the /cct view shows, one
 * node's per-process statistics and histogram (/nodes/{node}/ranks), and
 * the least-squares line of two metrics over processes (/scatter).
 *
 * Unlike cct_ops.h, a missing value (NAN: not measured on that process) is
 * left out here, not counted as zero: these describe the measured
 * processes only. The arithmetic is the endpoints' own, operation for
 * operation, so their answers stay the same to the last bit.
 */
#ifndef ARIADNE_PROFILE_STATS_H
#define ARIADNE_PROFILE_STATS_H

#include <stdint.h>

#include "util/error.h"

/* The /cct view over n nodes (parent before child, parent[i] < i, -1 for
 * a root): root_total is the sum of the roots' inclusive means (in node
 * order); a node is kept when filter <= 0, or its inclusive mean is at
 * least filter * root_total, or a descendant is kept (ancestors stay, so
 * the tree stays connected). show[i] = kept and (max_depth < 0 or
 * depth[i] <= max_depth); shown counts them. show is malloc'd (free it
 * with ari_cct_view_free). Returns 0, or -1 (err nomem). */
typedef struct ari_cct_view {
    double root_total;
    char *show;
    int64_t shown;
} ari_cct_view;

int ari_cct_view_compute(int64_t n, const int64_t *parent, const int *depth, const double *incmean,
                         double filter, int max_depth, ari_cct_view *out, ari_error *err);
void ari_cct_view_free(ari_cct_view *v);

/* Statistics of the non-NAN values of n processes and a histogram of
 * `bins` equal-width bins over [min, max]: value v goes to bin
 * (int)((v - min) / (max - min) * bins), the last bin closed; all to bin
 * bins / 2 when min = max. Bin b spans [lo[b], hi[b]] (min and max when
 * min = max; NAN without values). The processes of bin b, in order, are
 * member[offset[b] .. offset[b + 1]). Undefined statistics are NAN:
 * min, max, mean, sum and stddev without values, imbalance
 * ((max - mean) / mean) also when mean = 0. stddev is the population
 * one, from the sums of values and squares. */
typedef struct ari_rank_histogram {
    int64_t count;
    double min, max, mean, sum, stddev, imbalance;
    int bins;
    double *lo, *hi;     /* [bins] */
    int64_t *counts;     /* [bins] */
    int64_t *offset;     /* [bins + 1] */
    int64_t *member;     /* [count] process indices */
} ari_rank_histogram;

/* Returns 0, or -1 with err invalid_parameter ("bins must be in
 * 1..1000") or nomem. Free with ari_rank_histogram_free (also after an
 * error). */
int ari_rank_histogram_compute(const double *v, int64_t n, int bins, ari_rank_histogram *out,
                               ari_error *err);
void ari_rank_histogram_free(ari_rank_histogram *h);

/* The least-squares line y = slope x + intercept over the processes where
 * both x and y are measured (n of them), from centred sums; Pearson's r
 * and r2 = r * r. slope and intercept are NAN unless n >= 2 and x varies;
 * r also needs y to vary. */
typedef struct ari_fit {
    int64_t n;
    double slope, intercept, r, r2;
} ari_fit;

void ari_least_squares(const double *x, const double *y, int64_t np, ari_fit *out);

#endif
