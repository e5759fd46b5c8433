/* tsne.h: Barnes-Hut t-SNE to two dimensions (van der Maaten 2014), the
 * similarity projection of the PDES views (spec_pdes_dmv.md 2.4).
 *
 * Method, as van der Maaten's bhtsne (which R's Rtsne wraps):
 * - Input similarities: each point's K = floor(3 * perplexity) nearest
 *   neighbours (exact kNN, ties to the lower index), taken either from the
 *   rows of a data matrix (Euclidean) or from a precomputed n x n distance
 *   matrix (the distances of clustering). p_j|i = exp(-beta_i d_ij^2) over
 *   the neighbours, normalised, beta_i found by bisection (at most 200
 *   steps, tolerance 1e-5) so that the entropy is log(perplexity); then
 *   P = (P + P') / sum, sparse.
 * - Output: Y starts as N(0, 1e-4^2) from a splitmix64 generator seeded
 *   by `seed`. Gradient: attraction sum_j P_ij q_ij (y_i - y_j) over the
 *   sparse P, repulsion from a quadtree (cell of half-widths h opened
 *   unless max(h) / |y_i - centre of mass| < theta), divided by the
 *   approximated Z = sum q (bhtsne's gradient, without the factor 4).
 *   Update with gains (+0.2 on a sign change, x0.8 otherwise, floor 0.01),
 *   momentum 0.5 then final_momentum from mom_switch_iter, learning rate
 *   eta; P times `exaggeration` until stop_lying_iter; Y re-centred after
 *   every step.
 * Defaults (ari_tsne_defaults): perplexity 30, theta 0.5, 1000 iterations,
 * learning rate 200, exaggeration 12 for 250 iterations, momentum 0.5 ->
 * 0.8 at 250, seed 1. Rtsne's own defaults also PCA-reduce and normalise
 * the input first; neither changes the kNN nor the calibrated P (beta
 * absorbs the scale), so the two compare on the same data.
 * theta = 0 makes the repulsion exact (the input similarities stay the
 * sparse kNN ones; Rtsne's theta = 0 would use dense P).
 *
 * Same input, options and seed: the same output, bit for bit.
 *
 * Bounds: n <= ARI_TSNE_MAX_POINTS, 3 * perplexity < n (Rtsne's rule,
 * invalid_parameter otherwise), memory O(n K) plus the caller's input;
 * time O(n^2 p) (rows) or O(n^2) (distances) for the kNN, then
 * O(max_iter n log n), spread over `threads` threads (the kNN rows and the
 * forces on each point; the tree is built on one); Z is summed in point
 * order, so the output does not depend on the number of threads. The
 * progress callback, when set, is called with 0 after every 1024 points
 * of the kNN, then every progress_every iterations with the iterations
 * done; a non-zero return stops the run with ARI_E_CANCELLED.
 */
#ifndef ARIADNE_TSNE_H
#define ARIADNE_TSNE_H

#include <stdint.h>

#include "util/error.h"

#define ARI_TSNE_MAX_POINTS 200000

/* Called with the iterations done and the total; non-zero cancels. */
typedef int (*ari_tsne_progress_fn)(void *ctx, int done, int total);

typedef struct ari_tsne_options {
    double perplexity;    /* 30; > 0 */
    double theta;         /* 0.5; in [0, 1] */
    int max_iter;         /* 1000; >= 1 */
    double learning_rate; /* 200; > 0 */
    double exaggeration;  /* 12; >= 1 */
    int stop_lying_iter;  /* 250 */
    int mom_switch_iter;  /* 250 */
    double momentum;      /* 0.5 */
    double final_momentum; /* 0.8 */
    uint64_t seed;        /* 1 */
    int threads;          /* 0: the online cores (at most 16) for the kNN,
                             and for the descent from 8192 points on */
    int progress_every;   /* 50; <= 0 means only during the kNN */
    ari_tsne_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} ari_tsne_options;

typedef struct ari_tsne_result {
    double kl;       /* KL(P || Q) at the end, Q from the Barnes-Hut Z */
    int iterations;  /* iterations run */
} ari_tsne_result;

void ari_tsne_defaults(ari_tsne_options *o);

/* x: n x p row-major, finite. y: n x 2 row-major (caller-allocated).
 * out may be NULL. 0, or -1 with err (invalid_parameter, invalid_input
 * for a non-finite value, nomem, cancelled). */
int ari_tsne_rows(const double *x, int n, int p, const ari_tsne_options *o, double *y, ari_tsne_result *out,
                  ari_error *err);

/* d: n x n row-major distances (finite, >= 0; only the off-diagonal
 * entries are read; need not be symmetric: row i gives i's neighbours). */
int ari_tsne_dist(const double *d, int n, const ari_tsne_options *o, double *y, ari_tsne_result *out,
                  ari_error *err);

#endif
