/* procrustes.h: aligns a new 2-D layout onto the previous one, for the
 * mental map of the progressive DR (spec_pdes_dmv.md 3.3, L1100).
 *
 * On the first n_common rows (present in both layouts): centre both, scale
 * each by its RMS radius, R = V U^T from the SVD of P~^T Y~ = U S V^T (a
 * rotation or a reflection), then every row of cur (all n_total) becomes
 *   y' = s_P (y - mean_Y) / s_Y R + mean_P.
 * Identical layouts are left unchanged (up to rounding). A degenerate cur
 * (all common rows at one point) or n_common = 0 leaves cur as it is.
 */
#ifndef ARIADNE_PROCRUSTES_H
#define ARIADNE_PROCRUSTES_H

#include <stddef.h>

/* prev: n_common x 2, cur: n_total x 2 (n_common <= n_total), aligned in
 * place. Returns 0, or -1 when n_common > n_total. */
int ari_procrustes_align(const double *prev, double *cur, size_t n_common, size_t n_total);

#endif
