/* ensemble_stats.h: per-node statistics across the members of an ensemble
 * (Thicket's th.stats: mean, median, min, max, std, variance, percentiles),
 * over the unified CCT (ensemble_cct.h).
 *
 * The value of a member on a node is the member's node value: the mean of
 * the metric over its measured processes (ari_ecct_value; spec 2.2 and
 * 2.7 step 5: ranks collapse by mean). Members that lack the node (or do
 * not measure it anywhere) are left out of that node's statistics: `count`
 * says how many members contributed, `present` how many have the node at
 * all. A statistic that is undefined for the count is NAN (all of them
 * without values; std and variance when count <= ddof).
 *
 * Definitions (checked against R in tests/unit/test_ensemble_stats.c):
 *   mean      sum / count (values summed in member order)
 *   variance  sum (x - mean)^2 / (count - ddof), two-pass. ddof = 1 is the
 *             sample variance (R's var, pandas' default); ddof = 0 the
 *             population one, which is what Thicket's th.stats.std and
 *             th.stats.variance give (they call np.std / np.var on a
 *             Series, and numpy passes its default ddof = 0 on).
 *   std       sqrt(variance)
 *   median, percentiles  R's quantile type 7 = numpy's default "linear"
 *             (Thicket's th.stats.percentiles uses np.percentile);
 *             percentiles are given in [0, 100].
 */
#ifndef ARIADNE_ENSEMBLE_STATS_H
#define ARIADNE_ENSEMBLE_STATS_H

#include <stdint.h>

#include "analysis/ensemble_cct.h"
#include "util/error.h"

/* The statistics of one sample. */
typedef struct ari_sample_stats {
    int count;
    double mean, median, min, max, std, variance;
} ari_sample_stats;

/* Statistics of the non-NAN values among x[0..n) with the given ddof (0 or
 * 1); pct[q] gets percentile percentiles[q] (NAN without values). scratch
 * needs room for n doubles. */
void ari_sample_stats_compute(const double *x, int n, int ddof, const double *percentiles, int npct,
                              double *scratch, ari_sample_stats *out, double *pct);

typedef struct ari_estats {
    int64_t nnodes;
    int nmembers;
    int ddof;
    int npct;
    double *percentiles;     /* [npct] in [0, 100], a copy */
    int *present;            /* [nnodes] members that have the node */
    ari_sample_stats *stats; /* [nnodes] */
    double *pct;             /* [nnodes * npct] */
    double *values;          /* [nnodes * nmembers] member node values, NAN when absent */
} ari_estats;

/* Statistics of unified metric `metric` on every node. percentiles (npct
 * of them, each in [0, 100]) and ddof (0 or 1) are not checked beyond
 * that: out of range is invalid_parameter. 0, or -1 with err. Free with
 * ari_estats_free (also after an error). */
int ari_estats_compute(const ari_ecct *e, int metric, int ddof, const double *percentiles, int npct,
                       ari_estats *out, ari_error *err);
void ari_estats_free(ari_estats *s);

#endif
