/* mds.h: classical (Torgerson) multidimensional scaling of points given
 * by feature vectors (spec_callflow.md 2.10 [D]), and the min-max scaling
 * of features that the parameter projection applies first.
 *
 * Classical MDS: D2 = the squared Euclidean distances between the n rows
 * of the n x p feature matrix, B = -1/2 J D2 J with J = I - 11'/n (double
 * centring), eigendecomposition of B with GSL's symmetric solver
 * (gsl_eigen_symmv), eigenvalues sorted descending; coordinate k of point
 * i = v_k[i] * sqrt(lambda_k) when lambda_k > 0, else 0. This is R's
 * cmdscale(dist(X), k): coordinates equal up to the sign of each axis. The
 * sign is fixed here so that the coordinate of largest magnitude on each
 * axis is positive (the first one on a tie), hence deterministic.
 * explained[k] = lambda_k / (sum of the positive eigenvalues): the share
 * of the variance each axis carries (0 when every point coincides).
 *
 * Input features must be finite. n = 0 gives nothing; n = 1 gives the
 * origin. Memory: n*n doubles twice, so callers bound n.
 */
#ifndef ARIADNE_MDS_H
#define ARIADNE_MDS_H

#include "util/error.h"

#define ARI_MDS_MAX_POINTS 2000

/* Scales each column j of the row-major n x p matrix x in place to
 * [0, 1]: (x - min_j) / (max_j - min_j); a constant column becomes 0. */
void ari_minmax_scale(double *x, int n, int p);

/* coords: n*dims (row-major, caller-allocated), explained: dims. dims >= 1.
 * 0, or -1 with err (nomem; invalid_input for n > ARI_MDS_MAX_POINTS or a
 * non-finite feature). */
int ari_mds_classical(const double *x, int n, int p, int dims, double *coords, double *explained,
                      ari_error *err);

/* The part of classical MDS shared with ari_cmdscale (cmdscale.h): from the
 * n x n squared distances d2 (row-major, symmetric, finite, n >= 2), which
 * it overwrites with B = -1/2 J d2 J, the eigendecomposition, axis signs
 * and explained shares above. 0, or -1 with err (nomem). */
int ari_mds_squared(double *d2, int n, int dims, double *coords, double *explained, ari_error *err);

#endif
