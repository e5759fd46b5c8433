/* cmdscale.c: classical MDS of a distance matrix (contract in cmdscale.h). */
#include "analysis/cmdscale.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* b = -1/2 J D^2 J. */
static int double_centre(const double *d, int n, gsl_matrix *b)
{
    double *mean = calloc((size_t)n, sizeof *mean);
    if (!mean)
        return -1;
    double total = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double v = i == k ? 0 : d[(size_t)i * n + k];
            gsl_matrix_set(b, i, k, v * v);
            mean[i] += v * v;
        }
    for (int i = 0; i < n; i++) {
        total += mean[i];
        mean[i] /= n;
    }
    total /= (double)n * n;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            gsl_matrix_set(b, i, k, -0.5 * (gsl_matrix_get(b, i, k) - mean[i] - mean[k] + total));
    free(mean);
    return 0;
}

static double axis_sign(const gsl_matrix *v, int n, int k)
{
    double best = 0;
    for (int i = 0; i < n; i++) {
        double e = gsl_matrix_get(v, i, k);
        if (fabs(e) > fabs(best) + 1e-12 * fabs(best))
            best = e;
    }
    return best < 0 ? -1 : 1;
}

static void fill(const gsl_vector *eval, const gsl_matrix *evec, int n, int dims, double *coords, double *explained)
{
    double positive = 0;
    for (int k = 0; k < n; k++)
        positive += fmax(gsl_vector_get(eval, k), 0);
    for (int k = 0; k < dims; k++) {
        double lambda = k < n ? gsl_vector_get(eval, k) : 0;
        int use = positive > 0 && lambda > 1e-12 * positive;
        double scale = use ? sqrt(lambda) * axis_sign(evec, n, k) : 0;
        for (int i = 0; i < n; i++)
            coords[(size_t)i * dims + k] = use ? gsl_matrix_get(evec, i, k) * scale : 0;
        explained[k] = use ? lambda / positive : 0;
    }
}

int ari_cmdscale(const double *d, int n, int dims, double *coords, double *explained, ari_error *err)
{
    if (n < 0 || n > ARI_CMDSCALE_MAX_POINTS || dims < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "classical MDS of %d points to %d axes: 0..%d points, 1 axis or more",
                             n, dims, ARI_CMDSCALE_MAX_POINTS);
    for (size_t i = 0; i < (size_t)n * n; i++)
        if (!isfinite(d[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "distance %zu is not finite", i);
    memset(explained, 0, (size_t)dims * sizeof *explained);
    if (n <= 1) {
        memset(coords, 0, (size_t)(n > 0 ? n : 0) * dims * sizeof *coords);
        return 0;
    }
    gsl_matrix *b = gsl_matrix_alloc(n, n), *evec = gsl_matrix_alloc(n, n);
    gsl_vector *eval = gsl_vector_alloc(n);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(n);
    int rc = 0;
    if (!b || !evec || !eval || !w || double_centre(d, n, b) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        gsl_eigen_symmv(b, eval, evec, w);
        gsl_eigen_symmv_sort(eval, evec, GSL_EIGEN_SORT_VAL_DESC);
        fill(eval, evec, n, dims, coords, explained);
    }
    gsl_eigen_symmv_free(w);
    gsl_vector_free(eval);
    gsl_matrix_free(evec);
    gsl_matrix_free(b);
    return rc;
}
