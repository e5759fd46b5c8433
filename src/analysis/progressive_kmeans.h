/* progressive_kmeans.h: progressive time-series clustering within a
 * latency budget (spec_pdes_dmv.md 3.2).
 *
 * Each step gets X (n entities x d: each entity's series so far) and:
 *  1. orders the entities: round-robin over the previous step's clusters
 *     (largest first), each cluster's members shuffled (seeded generator),
 *     one entity per cluster per turn; entities new since the previous step
 *     (or all, at the first step) come after, shuffled too;
 *  2. runs mini-batch k-means (Sculley 2010) on batches of m = k entities in
 *     that order: the first batch initialises the centres (k-means++ on the
 *     batch: k distinct rows give those rows); each batch assigns its points
 *     to the nearest centre, then per point v_c += 1, c = (1 - 1/v_c) c +
 *     x / v_c; until budget_ms has passed or all n are processed;
 *  3. with an unlimited budget (budget_ms <= 0) the whole set is the first
 *     batch: k-means++ over all n entities, then mini-batch passes in the
 *     order (the counts kept) until no label changes in a pass (at most
 *     ARI_PKM_MAX_EPOCHS), then Lloyd iterations from those centres until
 *     no label changes (at most 300); this ARI_PKM_RESTARTS times, keeping
 *     the least within-cluster sum of squares: the result is a fixed point
 *     of full k-means, as analysis/kmeans.h finds it (processed = n);
 *  4. assigns every entity to its nearest centre (ties: lowest index);
 *  5. relabels for consistency with the previous step: contingency table
 *     cnt[current][previous] over the entities having both (in the order of
 *     step 1), current clusters by size descending (ties: lower index),
 *     each mapped greedily to the unused previous label with the highest
 *     count (ties: lower label; no count: the lowest unused label).
 * Deterministic given the seed and the sequence of inputs. Time per step is
 * budget + O(n k d) (step 4); memory O(n + k d).
 *
 * Added beyond the contract: ARI_PKM_MAX_EPOCHS, ARI_PKM_RESTARTS, ari_pkm_reset.
 */
#ifndef ARIADNE_PROGRESSIVE_KMEANS_H
#define ARIADNE_PROGRESSIVE_KMEANS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_PKM_MAX_EPOCHS 100
#define ARI_PKM_RESTARTS 10

typedef struct ari_pkm_result {
    int k;          /* clusters (the k asked for, or fewer when n < k) */
    size_t n, d;
    int *labels;    /* n, in 0..k-1 */
    size_t *sizes;  /* k */
    double *centers; /* k x d row-major */
    size_t processed; /* entities fed to the mini-batches (first pass), <= n */
    double latency_ms;
} ari_pkm_result;

typedef struct ari_pkm ari_pkm; /* keeps the previous labels between time points */

/* k in 1..64 (a step with k > 64 fails with invalid_parameter). NULL when
 * out of memory or k < 1. */
ari_pkm *ari_pkm_new(int k, uint64_t seed);

/* X: n x d row-major, finite (NaN counts as 0). Fills *out (free with
 * ari_pkm_result_free; zeroed first, so a failed call leaves nothing to free).
 * Returns 0, or -1 with err (out_of_memory, invalid_parameter for d = 0 with
 * n > 0). n = 0 gives an empty result (k = 0, non-NULL buffers: free it too). */
int ari_pkm_step(ari_pkm *s, const double *X, size_t n, size_t d, double budget_ms, ari_pkm_result *out,
                 ari_error *err);
void ari_pkm_result_free(ari_pkm_result *r);

/* The order (a permutation of 0..n-1) the last ari_pkm_step used, for the
 * progressive DR; entities beyond that step's n follow in index order. Before
 * any step: 0..n-1. Does not advance the generator. Returns 0, or -1 (out of
 * memory). */
int ari_pkm_order(ari_pkm *s, size_t n, size_t *order);

/* Forgets the previous labels and order (the seed's generator restarts). */
void ari_pkm_reset(ari_pkm *s);
void ari_pkm_free(ari_pkm *s);

#endif
