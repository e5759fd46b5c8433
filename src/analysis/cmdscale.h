/* cmdscale.h: classical (Torgerson) MDS of a given distance matrix, as R's
 * cmdscale(d, k) (spec_pdes_dmv.md 2.4, issue 17): the projection of
 * series compared by DTW or TWED, whose distances have no feature space.
 *
 * B = -1/2 J D^2 J with J = I - 11'/n; the top `dims` eigenpairs of B
 * (GSL's gsl_eigen_symmv, sorted descending); coordinate k of point i =
 * v_k[i] sqrt(lambda_k) where lambda_k > 1e-12 of the sum of the positive
 * eigenvalues, else 0; the sign of each axis makes its coordinate of
 * largest magnitude positive (as mds.h). explained[k] = lambda_k / (sum of
 * the positive eigenvalues); a non-Euclidean D (DTW) has negative
 * eigenvalues, which are left out of that sum as cmdscale's GOF does for
 * its second measure.
 *
 * d: n x n row-major, symmetric, finite; the diagonal is taken as 0. n <=
 * ARI_CMDSCALE_MAX_POINTS. Memory 2 n^2 doubles; time O(n^3).
 */
#ifndef ARIADNE_CMDSCALE_H
#define ARIADNE_CMDSCALE_H

#include "util/error.h"

#define ARI_CMDSCALE_MAX_POINTS 4096

/* coords: n*dims (row-major), explained: dims. 0, or -1 with err
 * (invalid_parameter: n or dims out of range, a non-finite distance;
 * nomem). */
int ari_cmdscale(const double *d, int n, int dims, double *coords, double *explained, ari_error *err);

#endif
