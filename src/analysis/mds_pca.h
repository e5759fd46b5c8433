/* mds_pca.h: classical (Torgerson) MDS of Euclidean distances computed
 * from the data matrix, without the n x n matrix (spec_pdes_dmv.md 2.4,
 * issue 17): for B = -1/2 J D^2 J with D the Euclidean distances between
 * the rows of X, B = Xc Xc' (Xc: X with each column centred), so the top
 * eigenpairs of B are the principal components of X: coordinate k of
 * point i = Xc[i] . v_k where v_k is the k-th eigenvector of the p x p
 * matrix Xc' Xc, and lambda_k (its eigenvalue) is B's. This equals R's
 * cmdscale(dist(X), k) up to the sign of each axis (rounding aside); the
 * sign is fixed as in mds.h: the coordinate of largest magnitude on each
 * axis is positive. explained[k] = lambda_k / trace(B) (trace = the total
 * sum of squares of Xc = the sum of B's eigenvalues, all >= 0 here); an
 * axis whose eigenvalue is not above 1e-12 of the trace gets 0s, as in
 * mds.h.
 *
 * When p > n the n x n Gram matrix Xc Xc' is decomposed instead (the same
 * answer). The decomposed side, min(n, p), is at most ARI_MDS_PCA_MAX_DIM
 * (GSL's symmetric eigensolver is cubic in it). Time O(n p min(n, p))
 * for the cross-product, on `threads` workers (0: the online CPUs), plus
 * O(min(n, p)^3) for the eigensolver; memory n p (the centred copy) +
 * (threads + 2) min(n, p)^2 doubles.
 */
#ifndef ARIADNE_MDS_PCA_H
#define ARIADNE_MDS_PCA_H

#include "util/error.h"

#define ARI_MDS_PCA_MAX_DIM 2048

/* x: n x p row-major, finite; coords: n*dims (row-major), explained: dims;
 * dims >= 1. Returns 0, or -1 with err: invalid_parameter (bad sizes, a
 * non-finite value), too_large (min(n, p) above ARI_MDS_PCA_MAX_DIM),
 * nomem. */
int ari_mds_pca(const double *x, int n, int p, int dims, int threads, double *coords, double *explained,
                ari_error *err);

#endif
