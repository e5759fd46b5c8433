/* pam.h: partitioning around medoids (k-medoids) on a distance matrix:
 * BUILD then SWAP, as R's cluster::pam(diss, k) with its defaults
 * (pamonce = FALSE) (spec_pdes_dmv.md 2.3, issue 17).
 *
 * BUILD picks k medoids one at a time: each time the non-medoid i that
 * maximises sum_j max(D_j - d(i,j), 0), where D_j is the distance from j
 * to its nearest medoid so far (1.1 max(d) + 1 before the first one); the
 * last such i on a tie, as cluster's C code does. SWAP then repeatedly
 * makes the swap (medoid i, non-medoid h) of least total change
 *   T_ih = sum_j [ d(i,j) == D_j ? min(E_j, d(h,j)) - D_j
 *                                : min(d(h,j) - D_j, 0) ]
 * (E_j the distance to the second-nearest medoid; h then i in index order,
 * the first minimum kept) while it lowers the total by more than
 * 16 DBL_EPSILON |total|, at most ARI_PAM_MAX_SWAPS times. Each point then
 * goes to its nearest medoid (the lowest-index medoid on a tie) and
 * clusters are numbered by first appearance: point 0 is in cluster 0, and
 * so on (cluster::pam's clustering, minus one). medoids[c] is the medoid of
 * cluster c. objective_* are the mean distance to the medoid after BUILD
 * and after SWAP (cluster::pam's objective).
 *
 * dist: n x n row-major, symmetric, finite, >= 0; the diagonal is taken as
 * 0. 1 <= k <= n - 1 (cluster::pam's rule; k = 1 does no swap). Time
 * O(k n^2) for BUILD and O(k (n - k) n) per swap; memory O(n) beyond the
 * caller's matrix.
 */
#ifndef ARIADNE_PAM_H
#define ARIADNE_PAM_H

#include "util/error.h"

#define ARI_PAM_MAX_SWAPS 100000

typedef struct ari_pam_result {
    int n, k;
    int *medoids;            /* k row indices, 0-based, in cluster order */
    int *labels;             /* n cluster numbers, 0-based */
    double objective_build;  /* mean distance to the nearest medoid after BUILD */
    double objective_swap;   /* ... after SWAP */
    int swaps;
} ari_pam_result;

/* Returns the result (free with ari_pam_free), or NULL with err:
 * invalid_parameter (k out of range, a negative or non-finite distance),
 * nomem. */
ari_pam_result *ari_pam(const double *dist, int n, int k, ari_error *err);
/* ari_pam with a cancel flag (NULL: none): a non-zero value there (read
 * atomically; analysis_runs.h) stops SWAP at its next candidate, and it
 * returns NULL with ARI_E_CANCELLED. A flag never set gives ari_pam's
 * answer. */
ari_pam_result *ari_pam_cancellable(const double *dist, int n, int k, const int *cancel, ari_error *err);
void ari_pam_free(ari_pam_result *r);

#endif
