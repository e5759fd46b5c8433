/* modal_clusters.h: one-dimensional modal clustering (seed paper, section
 * III-B): a Gaussian kernel density estimate of the points (R's
 * `density(x, bw = h)`, analysis/kde.h) and its local minima; the points
 * between two consecutive minima form one cluster.
 *
 * The rule, exactly (tests/unit/test_kde.c applies the same in R):
 *  - The density y[0..n) on the grid x[0..n) is split into runs of equal
 *    consecutive values (R's rle(y)); so a flat stretch is one run.
 *  - A run that is neither the first nor the last, and whose value is
 *    strictly lower than both neighbouring runs, is a local minimum; its
 *    position is the middle of the run, (x[first] + x[last]) / 2. A flat
 *    bottom is thus one minimum at its middle; a flat stretch that is not
 *    lower than both sides (a shoulder, or a plateau at the top) is none.
 *    The density is clamped at 0 like R, so a gap between far-apart groups
 *    is a zero run: one minimum in its middle (round-off bumps there can add
 *    more minima, but no point lies there, so the clusters do not change).
 *  - With minima m_1 < ... < m_k, point p goes to interval i = number of
 *    minima strictly below p: (m_i, m_{i+1}]. A point exactly at a minimum
 *    therefore joins the cluster on its left (R: findInterval(p, m,
 *    left.open = TRUE)).
 *  - Empty intervals are dropped; the others are numbered 0, 1, ... from
 *    left to right, which is also the order of increasing cluster mean.
 *
 * The assignment needs no search per point: the density's binning tells
 * each point's bin (kde.h, ari_kde_work), bins map to intervals through a
 * table, and only points in a bin that also holds a minimum are compared
 * with the minima. Cluster sums come from the per-bin sums.
 */
#ifndef ARIADNE_ANALYSIS_MODAL_CLUSTERS_H
#define ARIADNE_ANALYSIS_MODAL_CLUSTERS_H

#include "analysis/kde.h"
#include "util/error.h"

typedef struct ari_modal {
    int npoints;
    int *cluster;     /* [npoints] cluster of each input point, 0..nclusters-1 */
    int nclusters;
    double *mean;     /* [nclusters] mean of the cluster's points */
    int *size;        /* [nclusters] number of points */
    int nminima;
    double *minima;   /* [nminima] positions of all local minima, increasing */
    ari_kde density;  /* the density it was cut from (R's defaults: 512 points) */
} ari_modal;

/* Clusters x[0..nx) with bandwidth bw (> 0). Returns 0 and fills *out
 * (free with ari_modal_free), or -1 with err (invalid parameters as
 * ari_kde_density; out of memory). */
int ari_modal_clusters(const double *x, int nx, double bw, ari_modal *out, ari_error *err);

/* Clusters nsets sets of nx values each, set s being x[s*nx .. (s+1)*nx),
 * into *out[s], on up to nthreads threads (0: one per online CPU, at most
 * ARI_MODAL_MAX_THREADS; small inputs use one). Every set's result is the
 * one ari_modal_clusters gives, whatever the number of threads. Returns 0,
 * or -1 with the error of the lowest failing set, all outputs then freed. */
#define ARI_MODAL_MAX_THREADS 8
int ari_modal_clusters_many(const double *x, int nx, int nsets, double bw, int nthreads,
                            ari_modal *const *out, ari_error *err);

/* The number of threads ari_modal_clusters_many uses for these arguments. */
int ari_modal_thread_count(int nx, int nsets, int nthreads);

/* The local minima of y[0..n) at x[0..n) by the rule above; writes at most
 * n positions to minima and returns their number. */
int ari_modal_minima(const double *x, const double *y, int n, double *minima);

/* The interval of point p: the number of minima strictly below p (minima
 * increasing), so a point at a minimum goes left. */
int ari_modal_interval(const double *minima, int nminima, double p);

void ari_modal_free(ari_modal *m);

#endif
