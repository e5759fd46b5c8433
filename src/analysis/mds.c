/* mds.c: classical multidimensional scaling and min-max scaling (the
 * contract is in mds.h). */
#include "analysis/mds.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ari_minmax_scale(double *x, int n, int p)
{
    for (int j = 0; j < p; j++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            lo = fmin(lo, x[(size_t)i * p + j]);
            hi = fmax(hi, x[(size_t)i * p + j]);
        }
        double span = hi - lo;
        for (int i = 0; i < n; i++) {
            double *v = &x[(size_t)i * p + j];
            *v = span > 0 ? (*v - lo) / span : 0;
        }
    }
}

/* d2 = -1/2 J d2 J in place (n x n, row-major). -1 when out of memory. */
static int double_centre(double *d2, int n)
{
    double *row = calloc((size_t)n, sizeof *row);
    if (!row)
        return -1;
    double total = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < n; k++)
            row[i] += d2[(size_t)i * n + k];
        total += row[i];
        row[i] /= n;
    }
    total /= (double)n * n;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            d2[(size_t)i * n + k] = -0.5 * (d2[(size_t)i * n + k] - row[i] - row[k] + total);
    free(row);
    return 0;
}

/* The sign that makes the largest-magnitude entry of column k positive. */
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

static void fill_coords(const gsl_vector *eval, const gsl_matrix *evec, int n, int dims, double *coords,
                        double *explained)
{
    double positive = 0;
    for (int k = 0; k < n; k++)
        positive += fmax(gsl_vector_get(eval, k), 0);
    for (int k = 0; k < dims; k++) {
        double lambda = k < n ? gsl_vector_get(eval, k) : 0;
        int use = lambda > 1e-12 * positive && positive > 0;
        double scale = use ? sqrt(lambda) * axis_sign(evec, n, k) : 0;
        for (int i = 0; i < n; i++)
            coords[(size_t)i * dims + k] = use ? gsl_matrix_get(evec, i, k) * scale : 0;
        explained[k] = use ? lambda / positive : 0;
    }
}

int ari_mds_squared(double *d2, int n, int dims, double *coords, double *explained, ari_error *err)
{
    gsl_matrix_view b = gsl_matrix_view_array(d2, (size_t)n, (size_t)n);
    gsl_matrix *evec = gsl_matrix_alloc(n, n);
    gsl_vector *eval = gsl_vector_alloc(n);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(n);
    int rc = 0;
    if (!evec || !eval || !w || double_centre(d2, n) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        gsl_eigen_symmv(&b.matrix, eval, evec, w);
        gsl_eigen_symmv_sort(eval, evec, GSL_EIGEN_SORT_VAL_DESC);
        fill_coords(eval, evec, n, dims, coords, explained);
    }
    gsl_eigen_symmv_free(w);
    gsl_vector_free(eval);
    gsl_matrix_free(evec);
    return rc;
}

/* The squared distances between x's rows (n x n, row-major). */
static void squared_distances(const double *x, int n, int p, double *d2)
{
    for (int i = 0; i < n; i++)
        for (int k = i; k < n; k++) {
            double s = 0;
            for (int j = 0; j < p; j++) {
                double d = x[(size_t)i * p + j] - x[(size_t)k * p + j];
                s += d * d;
            }
            d2[(size_t)i * n + k] = s;
            d2[(size_t)k * n + i] = s;
        }
}

static int check_input(const double *x, int n, int p, ari_error *err)
{
    if (n > ARI_MDS_MAX_POINTS)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "MDS of %d points: at most %d", n, ARI_MDS_MAX_POINTS);
    for (size_t i = 0; i < (size_t)n * p; i++)
        if (!isfinite(x[i]))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "MDS feature %zu is not finite", i);
    return 0;
}

int ari_mds_classical(const double *x, int n, int p, int dims, double *coords, double *explained,
                      ari_error *err)
{
    if (check_input(x, n, p, err) < 0)
        return -1;
    memset(explained, 0, (size_t)dims * sizeof *explained);
    if (n <= 1) {
        memset(coords, 0, (size_t)n * dims * sizeof *coords);
        return 0;
    }
    double *d2 = malloc((size_t)n * n * sizeof *d2);
    if (!d2)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    squared_distances(x, n, p, d2);
    int rc = ari_mds_squared(d2, n, dims, coords, explained, err);
    free(d2);
    return rc;
}
