/* mds_pca.c: classical MDS of Euclidean distances through the principal
 * components of the centred data (the contract is in mds_pca.h). */
#include "analysis/mds_pca.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MDS_PCA_MAX_THREADS 64

/* One worker's share of a cross-product: rows [lo, hi) of xc (n x p)
 * summed into the upper triangle of out (p x p): sum_i xc_i' xc_i. */
typedef struct cross_part {
    pthread_t thread;
    const double *xc;
    int p, lo, hi;
    double *out;
} cross_part;

static void *cross_run(void *arg)
{
    cross_part *c = arg;
    int p = c->p;
    memset(c->out, 0, (size_t)p * p * sizeof *c->out);
    for (int i = c->lo; i < c->hi; i++) {
        const double *r = c->xc + (size_t)i * p;
        for (int a = 0; a < p; a++) {
            double ra = r[a];
            double *row = c->out + (size_t)a * p;
            for (int b = a; b < p; b++)
                row[b] += ra * r[b];
        }
    }
    return NULL;
}

static int thread_count(int threads, int n)
{
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 1 ? (int)(cpus < MDS_PCA_MAX_THREADS ? cpus : MDS_PCA_MAX_THREADS) : 1;
    }
    if (threads > MDS_PCA_MAX_THREADS)
        threads = MDS_PCA_MAX_THREADS;
    int by_rows = n / 256 > 1 ? n / 256 : 1; /* no thread for fewer than 256 rows */
    return threads < by_rows ? threads : by_rows;
}

/* xc' xc (p x p, symmetric) into m; -1 on out of memory. */
static int cross_product(const double *xc, int n, int p, int threads, gsl_matrix *m)
{
    int nt = thread_count(threads, n);
    cross_part *parts = calloc((size_t)nt, sizeof *parts);
    double *bufs = malloc((size_t)nt * p * p * sizeof *bufs);
    if (!parts || !bufs) {
        free(parts);
        free(bufs);
        return -1;
    }
    for (int t = 0; t < nt; t++)
        parts[t] = (cross_part){.xc = xc, .p = p, .lo = (int)((long)n * t / nt), .hi = (int)((long)n * (t + 1) / nt),
                                .out = bufs + (size_t)t * p * p};
    int started = 0;
    for (int t = 1; t < nt && pthread_create(&parts[t].thread, NULL, cross_run, &parts[t]) == 0; t++)
        started = t;
    for (int t = started + 1; t < nt; t++) /* threads that could not start: done here */
        cross_run(&parts[t]);
    cross_run(&parts[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(parts[t].thread, NULL);
    for (int a = 0; a < p; a++)
        for (int b = a; b < p; b++) {
            double s = 0;
            for (int t = 0; t < nt; t++)
                s += bufs[(size_t)t * p * p + (size_t)a * p + b];
            gsl_matrix_set(m, a, b, s);
            gsl_matrix_set(m, b, a, s);
        }
    free(parts);
    free(bufs);
    return 0;
}

/* Xc Xc' (n x n) into m. */
static void gram(const double *xc, int n, int p, gsl_matrix *m)
{
    for (int i = 0; i < n; i++)
        for (int k = i; k < n; k++) {
            double s = 0;
            for (int j = 0; j < p; j++)
                s += xc[(size_t)i * p + j] * xc[(size_t)k * p + j];
            gsl_matrix_set(m, i, k, s);
            gsl_matrix_set(m, k, i, s);
        }
}

/* Axis k's raw coordinates of every point into coords (column k). */
static void raw_axis(const double *xc, int n, int p, int by_cov, const gsl_matrix *evec, double lambda, int k,
                     int dims, double *coords)
{
    for (int i = 0; i < n; i++) {
        double v = 0;
        if (by_cov) {
            for (int j = 0; j < p; j++)
                v += xc[(size_t)i * p + j] * gsl_matrix_get(evec, j, k);
        } else {
            v = gsl_matrix_get(evec, i, k) * sqrt(lambda);
        }
        coords[(size_t)i * dims + k] = v;
    }
}

/* Makes the largest-magnitude coordinate of axis k positive. */
static void fix_sign(double *coords, int n, int dims, int k)
{
    double best = 0;
    for (int i = 0; i < n; i++) {
        double e = coords[(size_t)i * dims + k];
        if (fabs(e) > fabs(best) + 1e-12 * fabs(best))
            best = e;
    }
    if (best < 0)
        for (int i = 0; i < n; i++)
            coords[(size_t)i * dims + k] = -coords[(size_t)i * dims + k];
}

static void fill_coords(const double *xc, int n, int p, int by_cov, const gsl_vector *eval, const gsl_matrix *evec,
                        double trace, int dims, double *coords, double *explained)
{
    int m = by_cov ? p : n;
    for (int k = 0; k < dims; k++) {
        double lambda = k < m ? gsl_vector_get(eval, k) : 0;
        int use = trace > 0 && lambda > 1e-12 * trace;
        explained[k] = use ? lambda / trace : 0;
        if (!use) {
            for (int i = 0; i < n; i++)
                coords[(size_t)i * dims + k] = 0;
            continue;
        }
        raw_axis(xc, n, p, by_cov, evec, lambda, k, dims, coords);
        fix_sign(coords, n, dims, k);
    }
}

static int check_input(const double *x, int n, int p, int dims, ari_error *err)
{
    if (n < 0 || p < 1 || dims < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "MDS: %d points of %d values, %d axes", n, p, dims);
    if ((n < p ? n : p) > ARI_MDS_PCA_MAX_DIM)
        return ari_error_set(err, ARI_E_TOO_LARGE, "MDS of %d points of %d values: min(n, p) above %d", n, p,
                             ARI_MDS_PCA_MAX_DIM);
    for (size_t i = 0; i < (size_t)n * p; i++)
        if (!isfinite(x[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "MDS: value %zu is not finite", i);
    return 0;
}

/* The centred copy of x and its total sum of squares. */
static double *centred(const double *x, int n, int p, double *trace)
{
    double *xc = malloc((size_t)n * p * sizeof *xc), *mean = calloc((size_t)p, sizeof *mean);
    if (!xc || !mean) {
        free(xc);
        free(mean);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
            mean[j] += x[(size_t)i * p + j];
    for (int j = 0; j < p; j++)
        mean[j] /= n;
    *trace = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++) {
            double v = x[(size_t)i * p + j] - mean[j];
            xc[(size_t)i * p + j] = v;
            *trace += v * v;
        }
    free(mean);
    return xc;
}

int ari_mds_pca(const double *x, int n, int p, int dims, int threads, double *coords, double *explained,
                ari_error *err)
{
    if (check_input(x, n, p, dims, err) < 0)
        return -1;
    memset(explained, 0, (size_t)dims * sizeof *explained);
    memset(coords, 0, (size_t)n * dims * sizeof *coords);
    if (n <= 1)
        return 0;
    double trace;
    double *xc = centred(x, n, p, &trace);
    int by_cov = p <= n, m = by_cov ? p : n, rc = 0;
    gsl_matrix *a = gsl_matrix_alloc(m, m), *evec = gsl_matrix_alloc(m, m);
    gsl_vector *eval = gsl_vector_alloc(m);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(m);
    if (!xc || !a || !evec || !eval || !w || (by_cov && cross_product(xc, n, p, threads, a) < 0)) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        if (!by_cov)
            gram(xc, n, p, a);
        gsl_eigen_symmv(a, eval, evec, w);
        gsl_eigen_symmv_sort(eval, evec, GSL_EIGEN_SORT_VAL_DESC);
        fill_coords(xc, n, p, by_cov, eval, evec, trace, dims, coords, explained);
    }
    gsl_eigen_symmv_free(w);
    gsl_vector_free(eval);
    gsl_matrix_free(evec);
    gsl_matrix_free(a);
    free(xc);
    return rc;
}
