/* edivisive.h: E-Divisive change points (Matteson & James 2014), as R's
 * ecp::e.divisive, for the segmentation view (spec_pdes_dmv.md 2.5).
 *
 * Observations are the T time points, each a vector over the n entities.
 * D[t][s] = |Z_t - Z_s|^alpha (ari_ed_distances). For a segment, X = its
 * first tau samples and Y the next kappa - tau (p = tau, q = kappa - tau,
 * both >= min_size, Y need not reach the segment's end):
 *   E = 2/(pq) sum_XY D - sum_{X pairs} D / C(p,2) - sum_{Y pairs} D / C(q,2)
 *   Q = pq / (p + q) * E
 * The search of one segment maximises Q over (tau, kappa) in O(L^2) time
 * and O(L) memory (running within and between sums as tau grows, as
 * ecp's splitPointC); ties keep the smallest tau, then kappa. Binary
 * bisection: the next change point is the best split over all current
 * segments (the first segment on a tie). Permutation test: R times,
 * permute the samples within every current segment, search again, count
 * the maxima >= the observed Q; p = (1 + count) / (R + 1); the point is
 * accepted when p <= sig_lvl (ecp stops at p > sig_lvl). With k >= 0,
 * exactly k points are sought with no test (ecp sets R = 0 then; the
 * p-values are NAN). The search stops when no segment holds 2 * min_size
 * samples.
 *
 * One difference from ecp's C++ as published (splitPointC, with int tau
 * and kappa): its factor tau * (kappa - tau) / kappa is an integer
 * division there (truncated); here it is the real pq / (p + q) of the
 * paper, so a near tie between candidates may resolve differently.
 *
 * Convention of the points: 0-based index of the first sample of a new
 * segment, so the segments are [0, c1), [c1, c2), ..., [ck, T). ecp's
 * `estimates` are these + 1 with 1 and T + 1 added; its `order.found`
 * (without 1 and T + 1) is `found` + 1.
 *
 * Permutations use a splitmix64 stream per (seed, test, permutation), so
 * the result does not depend on the number of threads. Time: O(T^2 n) for
 * the distances, O(k (R + 1) T^2) for the search; memory T^2 doubles
 * (the caller's D) plus one T^2 scratch per thread. The progress
 * callback, when set, is called after each batch of permutations; a
 * non-zero return stops with ARI_E_CANCELLED.
 */
#ifndef ARIADNE_EDIVISIVE_H
#define ARIADNE_EDIVISIVE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_ED_MAX_SAMPLES 8192

/* points: change points found so far; done / total: permutations of the
 * current test. Non-zero cancels. */
typedef int (*ari_ed_progress_fn)(void *ctx, int points, int done, int total);

typedef struct ari_ed_options {
    double alpha;    /* 1; in (0, 2] (used by ari_ed_distances) */
    int min_size;    /* 30; >= 2 */
    double sig_lvl;  /* 0.05; in (0, 1) */
    int permutations; /* R = 199; >= 0 (0: no test, p = 0, as ecp) */
    int k;           /* -1: until not significant; >= 0: that many, untested */
    uint64_t seed;   /* 1 */
    int threads;     /* 0: the online cores (at most 16) */
    ari_ed_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} ari_ed_options;

typedef struct ari_ed_result {
    int count;        /* change points accepted */
    int *found;       /* count, in the order found */
    int *sorted;      /* count, ascending */
    double *stat;     /* count: Q of each accepted point, in the order found */
    int tested;       /* permutation tests run: count or count + 1 */
    double *p_values; /* tested (NAN with k >= 0) */
    int considered_last; /* the candidate of the last test, -1 if none */
} ari_ed_result;

void ari_ed_defaults(ari_ed_options *o);

/* D (T x T, caller-allocated) = |x_t - x_s|^alpha. x is time-major (T x n
 * row-major: sample t's entities contiguous) when entity_major is 0, and
 * entity-major (n x T: each entity's series contiguous) otherwise. Values
 * must be finite; T <= ARI_ED_MAX_SAMPLES. threads: 0 = the online cores
 * (at most 16); the result does not depend on it. */
int ari_ed_distances(const double *x, int T, int n, int entity_major, double alpha, int threads, double *D,
                     ari_error *err);

/* The best split of the segment [s, e) of D (T x T): *tau = the first
 * sample of Y (absolute), *kappa = Y's end (absolute, exclusive), *q = its
 * Q. Returns 0, 1 when e - s < 2 * min_size or the segment is outside D
 * (nothing set), -1 when out of memory. */
int ari_ed_best_split(const double *D, int T, int s, int e, int min_size, int *tau, int *kappa, double *q);

/* Change points of D (T x T). out is filled (free with ari_ed_result_free,
 * also after an error). 0, or -1 with err (invalid_parameter, nomem,
 * cancelled). */
int ari_edivisive(const double *D, int T, const ari_ed_options *o, ari_ed_result *out, ari_error *err);

void ari_ed_result_free(ari_ed_result *r);

#endif
