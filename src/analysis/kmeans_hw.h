/* kmeans_hw.h: k-means by Hartigan and Wong (Applied Statistics algorithm
 * AS 136, 1979) with several random starts, as R's
 * kmeans(x, k, nstart = 10, iter.max = 10) (spec_pdes_dmv.md 2.3, issue 17).
 *
 * One start: the k initial centres are k distinct rows of x; each point
 * goes to its nearest centre, the centres move to their points' means,
 * then AS 136 alternates its optimal-transfer stage (each point moves to
 * the cluster that most reduces the within-cluster sum of squares, with
 * the live-set bookkeeping of the paper) and its quick-transfer stage
 * (each point against its second-closest cluster, until nothing moves for
 * n steps, at most 50 n steps) for at most iter_max passes. This follows
 * R's kmns.f step for step, so the same starting centres give R's answer.
 * A start "converges" when an optimal-transfer pass moves no point (or,
 * for k = 2, after the first quick transfer); otherwise `converged` is 0
 * (R warns "did not converge in iter.max iterations"; ifault 2) or the
 * quick-transfer limit was hit (R's ifault 4 warning); the result is
 * used either way, as R does.
 *
 * Starts: `nstart` sets of k rows, drawn (as R does after unique(x)) among
 * the distinct rows of x, each set k distinct ones, by a splitmix64
 * generator started at `seed`; or given by the caller (`init`: nstart*k
 * row indices). All start sets are drawn first and then run on `threads`
 * workers (0: the online CPUs), so the answer does not depend on the
 * thread count. The start with the least total within-cluster sum of
 * squares is kept, the first one on a tie (R's rule).
 *
 * Cancel: when `cancel` is set, a non-zero value there (read atomically;
 * the flag of analysis_runs.h) stops the run before each start and each
 * AS 136 pass, and it returns NULL with ARI_E_CANCELLED. A flag never set
 * changes nothing in the answer.
 *
 * k = 1 puts every point in one cluster. k must be below n and at most the
 * number of distinct rows (R's errors). Labels are 0-based cluster numbers
 * in the order of the start's centres (R's, minus one).
 *
 * Memory: per worker about n (3 ints + 1 double) + 2 k p doubles, plus the
 * n ints of the distinct-row search. Time per start O(iter n k p).
 */
#ifndef ARIADNE_KMEANS_HW_H
#define ARIADNE_KMEANS_HW_H

#include <stdint.h>

#include "util/error.h"

#define ARI_KMHW_DEFAULT_NSTART 10
#define ARI_KMHW_DEFAULT_ITER   10
#define ARI_KMHW_MAX_THREADS    64

typedef struct ari_kmeans_hw_opts {
    int nstart;       /* default 10 */
    int iter_max;     /* default 10 */
    uint64_t seed;
    const int *init;  /* optional: nstart*k 0-based row indices, start s = init[s*k .. s*k+k-1] */
    int threads;      /* 0: the online CPUs */
    const int *cancel; /* optional: non-zero (read atomically) stops with ARI_E_CANCELLED */
} ari_kmeans_hw_opts;

typedef struct ari_kmeans_hw_result {
    int n, k, p;
    int *labels;         /* n */
    double *centers;     /* k*p, row-major */
    double *withinss;    /* k */
    int *sizes;          /* k */
    double tot_withinss; /* sum of withinss */
    double totss;        /* sum of squares about the overall mean */
    int iterations;      /* passes of the kept start (R's iter) */
    int converged;       /* of the kept start */
    int ifault;          /* of the kept start: 0, 2 (iter_max reached) or 4 (quick-transfer limit) */
    int best_start;      /* 0-based */
} ari_kmeans_hw_result;

void ari_kmeans_hw_defaults(ari_kmeans_hw_opts *o);

/* x: n x p row-major, finite. Returns a result (free it with
 * ari_kmeans_hw_free), or NULL with err: invalid_parameter (k < 1, k >= n
 * when k > 1, fewer distinct rows than k, a bad init index or repeated
 * init rows, a non-finite value, nstart or iter_max < 1), nomem, cancelled. */
ari_kmeans_hw_result *ari_kmeans_hw(const double *x, int n, int p, int k, const ari_kmeans_hw_opts *o,
                                    ari_error *err);
void ari_kmeans_hw_free(ari_kmeans_hw_result *r);

#endif
