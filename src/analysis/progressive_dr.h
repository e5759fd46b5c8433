/* progressive_dr.h: progressive 2-D projection of the entities within a
 * latency budget (spec_pdes_dmv.md 3.3).
 *
 * Each step gets X (n entities x d: each entity's series so far; d grows)
 * and fits a fresh incremental PCA (incremental_pca.h, f = 1, keeping
 * ARI_PDR_KEEP = 4 components of which the first 2 are shown: keeping only
 * 2 truncates the third direction at every batch, and on the ROSS sample
 * NeventProcessed's second axis then ends at |cos| 0.65 with the batch
 * PCA, against > 0.99 on every metric with 4) on
 * batches of 2 entities in the given order (3 for an odd remainder: the
 * last batch takes 3 when 3 are left) until budget_ms has passed or all n
 * are fitted, projects all n entities with it, and aligns the layout onto
 * the previous step's by Procrustes (procrustes.h) on the entities both
 * have (the first min(n, previous n) rows: entities keep their index).
 * A budget <= 0 fits all n: the layout is the batch PCA projection up to
 * the sign of each axis (before the alignment).
 * At least one batch is fitted whatever the budget (n >= 2). n = 1: the
 * entity is put at (0, 0). NaN counts as 0.
 *
 * Added beyond the contract: ari_pdr_reset (forget the previous layout).
 */
#ifndef ARIADNE_PROGRESSIVE_DR_H
#define ARIADNE_PROGRESSIVE_DR_H

#include <stddef.h>

#include "util/error.h"

#define ARI_PDR_KEEP 4

typedef struct ari_pdr ari_pdr;

ari_pdr *ari_pdr_new(void); /* NULL when out of memory */

/* X: n x d row-major; order: a permutation of 0..n-1 or NULL (index order);
 * xy: n x 2 out; *processed (may be NULL): entities fitted. Returns 0, or
 * -1 with err (out_of_memory; invalid_parameter for d = 0 with n > 0). */
int ari_pdr_step(ari_pdr *s, const double *X, size_t n, size_t d, const size_t *order, double budget_ms,
                 double *xy, size_t *processed, ari_error *err);

void ari_pdr_reset(ari_pdr *s);
void ari_pdr_free(ari_pdr *s);

#endif
