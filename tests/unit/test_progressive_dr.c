/* test_progressive_dr.c: the progressive 2-D projection
 * (src/analysis/progressive_dr.c). With an unlimited budget the first
 * layout is the batch PCA projection (GSL SVD of the centred rows) up to
 * the sign of each axis, to 1e-9 on low-rank random data and to |cos| >
 * 0.99 per axis on every ROSS metric; a next step (a column appended) is
 * aligned onto the previous layout (Procrustes: the same as aligning the
 * batch projection by hand); the same X again gives the same layout; a
 * given order is used; a tiny budget fits fewer than n. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "analysis/procrustes.h"
#include "analysis/progressive_dr.h"
#include "test_ross_sample.h"

/* The batch PCA scores (n x 2) of x (n x d). */
static void batch_scores(const double *x, size_t n, size_t d, double *xy)
{
    size_t rows = n > d ? n : d;
    gsl_matrix *A = gsl_matrix_calloc(rows, d), *W = gsl_matrix_alloc(d, d);
    gsl_vector *S = gsl_vector_alloc(d);
    double *mean = calloc(d, sizeof *mean);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            mean[j] += x[i * d + j] / (double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            gsl_matrix_set(A, i, j, x[i * d + j] - mean[j]);
    gsl_linalg_SV_decomp_jacobi(A, W, S);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 2; c++) {
            double s = 0;
            for (size_t j = 0; j < d; j++)
                s += (x[i * d + j] - mean[j]) * gsl_matrix_get(W, j, c);
            xy[2 * i + c] = s;
        }
    gsl_matrix_free(A);
    gsl_matrix_free(W);
    gsl_vector_free(S);
    free(mean);
}

/* |cos| between axis c of a and b (n x 2). */
static double axis_cos(const double *a, const double *b, size_t n, int c)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; i++) {
        ab += a[2 * i + c] * b[2 * i + c];
        aa += a[2 * i + c] * a[2 * i + c];
        bb += b[2 * i + c] * b[2 * i + c];
    }
    return fabs(ab) / sqrt(aa * bb);
}

/* Rank-3 data (n x d): rank <= ARI_PDR_KEEP, so the IPCA is exact. */
static double *low_rank(size_t n, size_t d, uint64_t seed)
{
    double *x = malloc(n * d * sizeof *x);
    rng_state = seed;
    double w[3][64];
    for (int r = 0; r < 3; r++)
        for (size_t j = 0; j < d; j++)
            w[r][j] = (rng_uniform() - 0.5) * (4.0 - r);
    for (size_t i = 0; i < n; i++) {
        double z[3] = {rng_uniform() - 0.5, rng_uniform() - 0.5, rng_uniform() - 0.5};
        for (size_t j = 0; j < d; j++)
            x[i * d + j] = (double)j + z[0] * w[0][j] + z[1] * w[1][j] + z[2] * w[2][j];
    }
    return x;
}

static void test_exact_and_aligned(void **state)
{
    (void)state;
    size_t n = 41, d = 30;
    double *x = low_rank(n, d, 3), *xy = malloc(2 * n * sizeof *xy), *ref = malloc(2 * n * sizeof *ref);
    ari_pdr *s = ari_pdr_new();
    ari_error err = {0};
    size_t done;
    /* the first d - 1 columns as a first step: then all d columns */
    double *x0 = malloc(n * (d - 1) * sizeof *x0);
    for (size_t i = 0; i < n; i++)
        memcpy(&x0[i * (d - 1)], &x[i * d], (d - 1) * sizeof *x0);
    assert_int_equal(ari_pdr_step(s, x0, n, d - 1, NULL, 0, xy, &done, &err), 0);
    assert_int_equal(done, n); /* 41: batches of 2 and a last of 3 */
    batch_scores(x0, n, d - 1, ref);
    for (size_t i = 0; i < n; i++) /* up to the sign of each axis */
        for (int c = 0; c < 2; c++) {
            double sg = (ref[c] * xy[c] >= 0) ? 1 : -1;
            assert_true(fabs(sg * ref[2 * i + c] - xy[2 * i + c]) < 1e-9);
        }
    double *prev = malloc(2 * n * sizeof *prev);
    memcpy(prev, xy, 2 * n * sizeof *prev);
    assert_int_equal(ari_pdr_step(s, x, n, d, NULL, 0, xy, &done, &err), 0);
    batch_scores(x, n, d, ref);
    assert_int_equal(ari_procrustes_align(prev, ref, n, n), 0);
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(fabs(ref[i] - xy[i]) < 1e-9);
    /* the same X again: the same layout (aligned onto itself) */
    memcpy(prev, xy, 2 * n * sizeof *prev);
    assert_int_equal(ari_pdr_step(s, x, n, d, NULL, 0, xy, &done, &err), 0);
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(fabs(prev[i] - xy[i]) < 1e-9);
    /* a reversed order: the same exact PCA, so the same aligned layout */
    size_t *order = malloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = n - 1 - i;
    assert_int_equal(ari_pdr_step(s, x, n, d, order, 0, xy, &done, &err), 0);
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(fabs(prev[i] - xy[i]) < 1e-9);
    /* degenerate inputs */
    assert_int_equal(ari_pdr_step(s, x, 1, d, NULL, 0, xy, &done, &err), 0);
    assert_true(xy[0] == 0 && xy[1] == 0 && done == 1);
    assert_int_equal(ari_pdr_step(s, x, 3, 0, NULL, 0, xy, &done, &err), -1);
    ari_pdr_free(s);
    free(x);
    free(x0);
    free(xy);
    free(ref);
    free(prev);
    free(order);
}

static void test_budget(void **state)
{
    (void)state;
    size_t n = 4000, d = 2000;
    double *x = malloc(n * d * sizeof *x), *xy = malloc(2 * n * sizeof *xy);
    rng_state = 17;
    for (size_t i = 0; i < n * d; i++)
        x[i] = rng_uniform();
    ari_pdr *s = ari_pdr_new();
    ari_error err = {0};
    size_t done = 0;
    assert_int_equal(ari_pdr_step(s, x, n, d, NULL, 0.05, xy, &done, &err), 0);
    printf("tiny budget: %zu of %zu fitted\n", done, n);
    assert_true(done >= 2 && done < n);
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(isfinite(xy[i]));
    ari_pdr_free(s);
    free(x);
    free(xy);
}

static void test_ross(void **state)
{
    (void)state;
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    for (int m = 0; m < count; m++) {
        size_t n = (size_t)ms[m].n, d = (size_t)ms[m].l;
        double *xy = malloc(2 * n * sizeof *xy), *ref = malloc(2 * n * sizeof *ref);
        ari_pdr *s = ari_pdr_new();
        ari_error err = {0};
        size_t done;
        assert_int_equal(ari_pdr_step(s, ms[m].x, n, d, NULL, 0, xy, &done, &err), 0);
        assert_int_equal(done, n);
        batch_scores(ms[m].x, n, d, ref);
        double c0 = axis_cos(xy, ref, n, 0), c1 = axis_cos(xy, ref, n, 1);
        printf("%-16s |cos| of the axes with the batch PCA: %.6f %.6f\n", ms[m].name, c0, c1);
        assert_true(c0 > 0.99 && c1 > 0.99);
        ari_pdr_free(s);
        free(xy);
        free(ref);
    }
    ross_free(ms, count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_and_aligned),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_ross),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
