/* test_incremental_pca.c: the Ross et al. incremental PCA
 * (src/analysis/incremental_pca.c). Brute force: random data fed in
 * batches with f = 1 equals the batch PCA (GSL SVD of the centred rows) to
 * 1e-9 in the mean, the singular values and the components (both sign-fixed
 * the same way), through the Gram route (d > rows of M) and the direct SVD
 * (d small); appended features equal the batch PCA of the rows with zeros
 * there. The ROSS sample (entities = rows, the 99 GVT columns = features,
 * batches of 2 in order): |cos| > 0.99 for the first 2 components against
 * the batch PCA for every metric, and against R's prcomp when Rscript is
 * there, with 4 components kept (as the progressive DR does: with only 2
 * kept the truncation at every batch loses the third direction, and
 * NeventProcessed's PC2 comes out at |cos| 0.65; printed for the record). */
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
#include <unistd.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "analysis/incremental_pca.h"
#include "test_ross_sample.h"

/* Batch PCA: mean (d), top k singular values (k) and components (k x d,
 * largest |loading| positive) of x (n x d), by GSL's one-sided Jacobi SVD
 * of the centred rows (works for n < d too). */
static void batch_pca(const double *x, size_t n, size_t d, int k, double *mean, double *sv, double *V)
{
    for (size_t j = 0; j < d; j++) {
        mean[j] = 0;
        for (size_t i = 0; i < n; i++)
            mean[j] += x[i * d + j];
        mean[j] /= (double)n;
    }
    size_t rows = n > d ? n : d; /* pad with zero rows: SV_decomp needs rows >= cols */
    gsl_matrix *A = gsl_matrix_calloc(rows, d), *W = gsl_matrix_alloc(d, d);
    gsl_vector *S = gsl_vector_alloc(d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            gsl_matrix_set(A, i, j, x[i * d + j] - mean[j]);
    gsl_linalg_SV_decomp_jacobi(A, W, S);
    for (int c = 0; c < k; c++) {
        sv[c] = gsl_vector_get(S, (size_t)c);
        size_t best = 0;
        for (size_t j = 0; j < d; j++) {
            V[(size_t)c * d + j] = gsl_matrix_get(W, j, (size_t)c);
            if (fabs(V[(size_t)c * d + j]) > fabs(V[(size_t)c * d + best]))
                best = j;
        }
        if (V[(size_t)c * d + best] < 0)
            for (size_t j = 0; j < d; j++)
                V[(size_t)c * d + j] = -V[(size_t)c * d + j];
    }
    gsl_matrix_free(A);
    gsl_matrix_free(W);
    gsl_vector_free(S);
}

/* n x d random rows of rank `rank` around an offset (rank >= d: full). */
static double *random_matrix(size_t n, size_t d, size_t rank, uint64_t seed)
{
    double *x = malloc(n * d * sizeof *x), *z = malloc(n * rank * sizeof *z), *w = malloc(rank * d * sizeof *w);
    assert_true(x && z && w);
    rng_state = seed;
    for (size_t i = 0; i < n * rank; i++)
        z[i] = rng_uniform() - 0.5;
    for (size_t r = 0; r < rank; r++) /* decreasing spread: distinct singular values */
        for (size_t j = 0; j < d; j++)
            w[r * d + j] = (rng_uniform() - 0.5) * (1 + 4.0 / (1 + (double)r));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            double s = (double)j;
            for (size_t r = 0; r < rank; r++)
                s += z[i * rank + r] * w[r * d + j];
            x[i * d + j] = s;
        }
    free(z);
    free(w);
    return x;
}

/* Feeds x (rank `rank` <= k, so that nothing is truncated) in batches of
 * `batch` rows and compares with the batch PCA: the first `rank`
 * components, and zero singular values beyond. */
static void check_exact(size_t n, size_t d, int k, size_t rank, size_t batch, uint64_t seed)
{
    double *x = random_matrix(n, d, rank, seed);
    ari_ipca *p = ari_ipca_new(k, d, 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i += batch)
        assert_int_equal(ari_ipca_partial_fit(p, &x[i * d], n - i < batch ? n - i : batch, d), 0);
    assert_int_equal(ari_ipca_seen(p), n);
    double *mean = malloc(d * sizeof *mean), *sv = malloc((size_t)k * sizeof *sv), *V = malloc(k * d * sizeof *V);
    batch_pca(x, n, d, k, mean, sv, V);
    for (size_t j = 0; j < d; j++)
        assert_true(fabs(mean[j] - ari_ipca_mean(p)[j]) < 1e-9);
    for (int c = (int)rank; c < k; c++)
        assert_true(ari_ipca_singular(p)[c] < 1e-9 * (1 + sv[0]) && sv[c] < 1e-9 * (1 + sv[0]));
    for (int c = 0; c < (int)rank; c++) {
        assert_true(fabs(sv[c] - ari_ipca_singular(p)[c]) < 1e-9 * (1 + sv[c]));
        for (size_t j = 0; j < d; j++)
            assert_true(fabs(V[(size_t)c * d + j] - ari_ipca_components(p)[(size_t)c * d + j]) < 1e-9);
    }
    /* transform = centred rows . V */
    double out[8];
    ari_ipca_transform(p, x, 1, out);
    for (int c = 0; c < (int)rank; c++) {
        double s = 0;
        for (size_t j = 0; j < d; j++)
            s += (x[j] - mean[j]) * V[(size_t)c * d + j];
        assert_true(fabs(s - out[c]) < 1e-9);
    }
    ari_ipca_free(p);
    free(x);
    free(mean);
    free(sv);
    free(V);
}

static void test_exact_small(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 5; s++) {
        check_exact(20, 6, 3, 3, 2, 0x1234 + s);   /* M: k + m + 1 = 6 rows = d: direct SVD */
        check_exact(20, 4, 4, 4, 3, 0x2234 + s);   /* full rank, direct */
        check_exact(12, 30, 3, 2, 2, 0x3234 + s);  /* Gram route, rank < k */
        check_exact(40, 50, 4, 4, 5, 0x4234 + s);  /* Gram, larger batches */
        check_exact(9, 7, 1, 1, 1, 0x5234 + s);    /* one row at a time (the CPD's use) */
        check_exact(10, 5, 5, 5, 10, 0x6234 + s);  /* a single batch, full rank */
        check_exact(30, 200, 2, 2, 2, 0x7234 + s); /* the DR's shape: d >> rows of M */
    }
}

static void test_grow(void **state)
{
    (void)state;
    size_t n = 16, d0 = 5, d1 = 9;
    double *x = random_matrix(n, d1, d1, 77);
    for (size_t i = 0; i < n / 2; i++) /* the first half had no values in the new features */
        for (size_t j = d0; j < d1; j++)
            x[i * d1 + j] = 0;
    ari_ipca *p = ari_ipca_new(9, d0, 1); /* full rank: exact */
    double row[16];
    for (size_t i = 0; i < n / 2; i += 2) {
        double b[2 * 5];
        memcpy(b, &x[i * d1], d0 * sizeof *b);
        memcpy(b + d0, &x[(i + 1) * d1], d0 * sizeof *b);
        assert_int_equal(ari_ipca_partial_fit(p, b, 2, d0), 0);
    }
    assert_int_equal(ari_ipca_grow(p, d1), 0);
    assert_int_equal(ari_ipca_d(p), d1);
    for (size_t i = n / 2; i < n; i += 2)
        assert_int_equal(ari_ipca_partial_fit(p, &x[i * d1], 2, d1), 0);
    double mean[9], sv[9], V[81];
    batch_pca(x, n, d1, 9, mean, sv, V);
    for (int c = 0; c < 9; c++)
        for (size_t j = 0; j < d1; j++)
            assert_true(fabs(V[c * 9 + j] - ari_ipca_components(p)[c * 9 + j]) < 1e-9);
    /* a larger d in partial_fit grows too; a smaller one is refused */
    memcpy(row, x, d1 * sizeof *row);
    row[9] = 1;
    assert_int_equal(ari_ipca_partial_fit(p, row, 1, 10), 0);
    assert_int_equal(ari_ipca_d(p), 10);
    assert_int_equal(ari_ipca_partial_fit(p, row, 1, 9), -1);
    ari_ipca_reset(p);
    assert_int_equal(ari_ipca_seen(p), 0);
    assert_true(ari_ipca_singular(p)[0] == 0);
    ari_ipca_free(p);
    free(x);
}

static void test_degenerate_and_forget(void **state)
{
    (void)state;
    ari_ipca *p = ari_ipca_new(2, 3, 1);
    const double one[3] = {1, 2, 3};
    assert_int_equal(ari_ipca_partial_fit(p, one, 1, 3), 0); /* one row: no direction */
    assert_true(ari_ipca_singular(p)[0] == 0 && ari_ipca_components(p)[0] == 0);
    const double two[3] = {3, 2, 1};
    assert_int_equal(ari_ipca_partial_fit(p, two, 1, 3), 0); /* the difference, normalised */
    const double *v = ari_ipca_components(p);
    assert_true(fabs(v[0] - 1 / sqrt(2)) < 1e-12 && fabs(v[1]) < 1e-12 && fabs(v[2] + 1 / sqrt(2)) < 1e-12);
    assert_true(fabs(ari_ipca_singular(p)[0] - 2) < 1e-12); /* sqrt(1/2) |(-2, 0, 2)| */
    assert_true(ari_ipca_singular(p)[1] == 0);
    ari_ipca_free(p);
    assert_null(ari_ipca_new(0, 3, 1));
    /* f < 1: unit components, effective count below the rows fed */
    double *x = random_matrix(30, 4, 4, 5);
    p = ari_ipca_new(2, 4, 0.9);
    for (size_t i = 0; i < 30; i += 2)
        assert_int_equal(ari_ipca_partial_fit(p, &x[i * 4], 2, 4), 0);
    for (int c = 0; c < 2; c++) {
        double s = 0;
        for (int j = 0; j < 4; j++)
            s += ari_ipca_components(p)[c * 4 + j] * ari_ipca_components(p)[c * 4 + j];
        assert_true(fabs(s - 1) < 1e-9);
    }
    ari_ipca_free(p);
    free(x);
}

/* |cos| between row c of a and b (length d). */
static double abs_cos(const double *a, const double *b, size_t d)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t j = 0; j < d; j++) {
        ab += a[j] * b[j];
        aa += a[j] * a[j];
        bb += b[j] * b[j];
    }
    return fabs(ab) / sqrt(aa * bb);
}

static const char r_prcomp[] =
    "a <- commandArgs(TRUE)\n"
    "con <- file(a[1], 'r')\n"
    "out <- file(a[2], 'w')\n"
    "while (length(h <- scan(con, nlines = 1, quiet = TRUE)) == 2) {\n"
    "  x <- matrix(scan(con, nlines = h[1], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  r <- prcomp(x, center = TRUE, scale. = FALSE)\n"
    "  cat(sprintf('%.17g', r$rotation[, 1:2]), '\\n', file = out)\n"
    "}\n"
    "close(out)\n";

static void test_ross(void **state)
{
    (void)state;
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    int have_r = access(TEST_RSCRIPT, X_OK) == 0;
    ross_r rx = {0};
    if (have_r)
        ross_write_all(ross_r_open(&rx), ms, count);
    FILE *rf = have_r ? ross_r_run(&rx, "prcomp.R", r_prcomp) : NULL;
    if (have_r)
        assert_non_null(rf);
    for (int m = 0; m < count; m++) {
        size_t n = (size_t)ms[m].n, d = (size_t)ms[m].l;
        ari_ipca *p = ari_ipca_new(4, d, 1), *p2 = ari_ipca_new(2, d, 1);
        size_t i = 0;
        while (i < n) { /* batches of 2, 3 for an odd remainder */
            size_t b = n - i == 3 ? 3 : 2;
            assert_int_equal(ari_ipca_partial_fit(p, &ms[m].x[i * d], b, d), 0);
            assert_int_equal(ari_ipca_partial_fit(p2, &ms[m].x[i * d], b, d), 0);
            i += b;
        }
        double *mean = malloc(d * sizeof *mean), sv[2], *V = malloc(2 * d * sizeof *V), *R = malloc(2 * d * sizeof *R);
        batch_pca(ms[m].x, n, d, 2, mean, sv, V);
        if (rf)
            assert_int_equal(ross_read_doubles(rf, R, (int)(2 * d)), 0); /* R: column-major d x 2 */
        for (int c = 0; c < 2; c++) {
            double cg = abs_cos(&V[c * d], &ari_ipca_components(p)[c * d], d);
            printf("%-16s PC%d |cos| vs GSL %.6f (2 kept: %.6f)", ms[m].name, c + 1, cg,
                   abs_cos(&V[c * d], &ari_ipca_components(p2)[c * d], d));
            assert_true(cg > 0.99);
            if (rf) {
                double cr = abs_cos(&R[c * d], &ari_ipca_components(p)[c * d], d);
                printf("  vs R prcomp %.6f", cr);
                assert_true(cr > 0.99);
            }
            printf("\n");
        }
        ari_ipca_free(p);
        ari_ipca_free(p2);
        free(mean);
        free(V);
        free(R);
    }
    if (have_r)
        ross_r_close(&rx, rf);
    ross_free(ms, count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_small),
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_degenerate_and_forget),
        cmocka_unit_test(test_ross),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
