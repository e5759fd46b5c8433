/* incremental_pca.h: incremental PCA of Ross, Lim, Lin & Yang (2008), as
 * used by the live runs (spec_pdes_dmv.md 3.1 with k = 1 over time points,
 * 3.3 with k = 2 over entities).
 *
 * State after n_A rows: mean mu_A (d), top-k singular values S_A and
 * right singular vectors V_A (k x d) of the centred rows seen so far.
 * A batch B (m x d, mean mu_B) updates it with forgetting factor f:
 *   n  = f n_A + m,  mu = (f n_A mu_A + m mu_B) / n
 *   M  = [ diag(f S_A) V_A ; B - 1 mu_B^T ; sqrt(n_A m / (n_A + m)) (mu_A - mu_B)^T ]
 * and S, V = the top k of the SVD of M. This is the paper's update, not the
 * reference code's (spec 7.1: it collapses diag(S) V into one row). With
 * f = 1 and all rows seen, V and S equal the batch PCA of the rows (the SVD
 * of the centred data), up to the rounding of the updates.
 *
 * The SVD: when M has fewer rows r than d, the r x r Gram matrix M M^T is
 * eigendecomposed (gsl_eigen_symmv) and V = M^T U S^{-1}: O(r^2 d) per
 * batch; else gsl_linalg_SV_decomp of M. Components with a zero singular
 * value (fewer independent rows than k so far) are left zero; on the Gram
 * route a singular value below 3e-7 of the largest counts as zero (the
 * rounding of M M^T is about 1e-16 of the largest eigenvalue).
 * Signs: each component's largest-magnitude loading (the first on a tie)
 * is made positive.
 *
 * Features may be appended (ari_ipca_grow): the new columns start at zero in
 * the mean and in V (as if every row so far had a 0 there).
 * No global state; bounded memory O((k + m) d) per call.
 */
#ifndef ARIADNE_INCREMENTAL_PCA_H
#define ARIADNE_INCREMENTAL_PCA_H

#include <stddef.h>

typedef struct ari_ipca ari_ipca;

/* k >= 1 components, d >= 1 features (d = 0 allowed: grow later), forget f
 * in (0, 1] (<= 0 or > 1: 1). NULL when out of memory or k < 1. */
ari_ipca *ari_ipca_new(int k, size_t d, double forget);

/* Feeds m rows x d (row-major, finite values). d must equal ari_ipca_d (a larger d grows
 * the model first, as ari_ipca_grow). Returns 0, or -1 (out of memory,
 * d smaller than the model's). m = 0 is a no-op. */
int ari_ipca_partial_fit(ari_ipca *p, const double *batch, size_t m, size_t d);

/* Appends features up to d_new (>= the current d). 0, or -1 (out of memory). */
int ari_ipca_grow(ari_ipca *p, size_t d_new);

const double *ari_ipca_components(const ari_ipca *p); /* k x d row-major, sign-fixed */
const double *ari_ipca_mean(const ari_ipca *p);       /* d */
const double *ari_ipca_singular(const ari_ipca *p);   /* k, descending */
size_t ari_ipca_seen(const ari_ipca *p);              /* rows fed (f = 1: their count) */
int ari_ipca_k(const ari_ipca *p);
size_t ari_ipca_d(const ari_ipca *p);

/* out[i][c] = (rows[i] - mean) . V[c]; rows: m x d (d = ari_ipca_d). */
void ari_ipca_transform(const ari_ipca *p, const double *rows, size_t m, double *out);

/* Back to no rows seen (keeps k, d, f). */
void ari_ipca_reset(ari_ipca *p);
void ari_ipca_free(ari_ipca *p);

#endif
