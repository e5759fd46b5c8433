/* ts_distance.h: distances between time series of sampled metrics
 * (spec_pdes_dmv.md 2.1-2.2, issue 17): Euclidean, dynamic time warping
 * (DTW) and the time warp edit distance (TWED, Marteau 2009), one pair at
 * a time or as the full n x n matrix computed on all cores.
 *
 * Euclidean: sqrt(sum (a_i - b_i)^2), summed in index order (so equal to
 * R's dist(x) on the same numbers).
 *
 * DTW with the local cost d(i,j) = |a_i - b_j| and g(1,1) = d(1,1) (R's dtw
 * package: the first cell is the local cost whatever the step pattern):
 *   symmetric1 (the spec's recursion):
 *     g(i,j) = d(i,j) + min(g(i-1,j), g(i,j-1), g(i-1,j-1))
 *   symmetric2 (R dtw's default: the diagonal step counts twice):
 *     g(i,j) = min(g(i-1,j) + d, g(i,j-1) + d, g(i-1,j-1) + 2 d)
 * distance = g(la, lb), not normalised. A Sakoe-Chiba window w >= 0 keeps
 * the cells with |i - j| <= w (dtw's sakoeChibaWindow); where no path
 * fits (|la - lb| > w) the distance is +infinity. w < 0: no window.
 *
 * TWED with time stamps ta, tb, a_0 = b_0 = 0 and t_0 = 0 (the spec's 2.2):
 *   D(0,0) = 0, D(i,0) = D(0,j) = +inf,
 *   D(i,j) = min(D(i-1,j) + |a_i - a_{i-1}| + nu (ta_i - ta_{i-1}) + lambda,
 *                D(i,j-1) + |b_j - b_{j-1}| + nu (tb_j - tb_{j-1}) + lambda,
 *                D(i-1,j-1) + |a_i - b_j| + |a_{i-1} - b_{j-1}|
 *                           + nu (|ta_i - tb_j| + |ta_{i-1} - tb_{j-1}|))
 * distance = D(la, lb). Defaults nu = 0.001, lambda = 1 (spec: proposed).
 *
 * Multivariate series (spec 2.1): a row of the data matrix is d metric
 * blocks of l samples each (row length d*l, block b = columns b*l ..
 * b*l+l-1, each metric already scaled by the caller). Euclidean is taken
 * on the whole row (the concatenation); DTW and TWED are summed over the
 * blocks, each block against the same block of the other row.
 *
 * The matrix: out[i*n+j] = out[j*n+i] = distance(row i, row j), zero
 * diagonal, rows handed out to `threads` workers (0: the online CPUs, at
 * most ARI_TSD_MAX_THREADS) as they finish. Every pair is computed by the
 * same code in the same order whatever the thread count, so the matrix
 * does not depend on it. Time O(n^2 d l) for Euclidean, O(n^2 d l^2) for
 * the elastic ones (l w with a window); memory: the caller's n*n doubles
 * plus 2(l+1) doubles per thread. Input values and time stamps must be
 * finite (checked).
 */
#ifndef ARIADNE_TS_DISTANCE_H
#define ARIADNE_TS_DISTANCE_H

#include <stdint.h>

#include "util/error.h"

#define ARI_TSD_MAX_THREADS 256

typedef enum ari_ts_metric { ARI_TS_EUCLID = 0, ARI_TS_DTW = 1, ARI_TS_TWED = 2 } ari_ts_metric;
typedef enum ari_dtw_step { ARI_DTW_SYMMETRIC1 = 0, ARI_DTW_SYMMETRIC2 = 1 } ari_dtw_step;

typedef struct ari_ts_distance_opts {
    ari_ts_metric metric;
    ari_dtw_step step;  /* DTW step pattern (default symmetric1) */
    int window;         /* DTW Sakoe-Chiba half width; < 0: none (default) */
    double nu, lambda;  /* TWED stiffness and deletion penalty (0.001, 1) */
    const double *time; /* TWED: l time stamps shared by every row and block; NULL: 1, 2, ..., l */
    int threads;        /* matrix workers; 0: the online CPUs */
    const int *cancel;  /* optional: non-zero (read atomically) stops the matrix with ARI_E_CANCELLED */
    int64_t *pairs_done; /* optional progress: pairs computed so far, added to atomically */
} ari_ts_distance_opts;

/* Euclidean, DTW symmetric1, no window, nu 0.001, lambda 1, all CPUs. */
void ari_ts_distance_defaults(ari_ts_distance_opts *o);

double ari_ts_euclid(const double *a, const double *b, int l);
/* work: 2*(lb+1) doubles. la, lb >= 1. */
double ari_ts_dtw(const double *a, int la, const double *b, int lb, ari_dtw_step step, int window, double *work);
/* ta, tb: la and lb time stamps (non-decreasing for the usual meaning);
 * work: 2*(lb+1) doubles. la, lb >= 1. */
double ari_ts_twed(const double *a, const double *ta, int la, const double *b, const double *tb, int lb, double nu,
                   double lambda, double *work);

/* The distance between two rows of d blocks of l samples (see above);
 * work: 2*(l+1) doubles; tstamps: l time stamps (TWED; the caller passes
 * 1..l when it has none). */
double ari_ts_distance_pair(const double *a, const double *b, int d, int l, const ari_ts_distance_opts *o,
                            const double *tstamps, double *work);

/* x: n rows of d*l values (row-major); out: n*n doubles. Returns 0, or -1
 * with err: invalid_parameter (n < 0, d < 1, l < 1, an unknown metric or
 * step, a non-finite value or time stamp), nomem, cancelled. */
int ari_ts_distance_matrix(const double *x, int n, int d, int l, const ari_ts_distance_opts *o, double *out,
                           ari_error *err);

/* The worker count a matrix of n rows would use with `threads`. */
int ari_ts_thread_count(int threads, int n);

#endif
