/* test_mds_pca.c: classical MDS through the principal components
 * (src/analysis/mds_pca.c). When R is there, on every metric of the ROSS
 * sample (ARIADNE_SHARED_DATA/ross-sample; generated matrices when it is
 * absent), R's cmdscale(dist(x), k = 2, eig = TRUE) gives the same
 * coordinates up to the sign of each axis (1e-8 of the axis' largest
 * coordinate) and the same explained shares eig[1:2] / sum(pmax(eig, 0))
 * (1e-8). Independently of R: the answer equals the n x n double-centring
 * MDS of analysis/mds.c on random inputs with p < n and p > n (the Gram
 * branch), does not depend on the thread count beyond rounding, keeps the
 * pairwise distances of points that lie in a plane, and refuses
 * non-finite values and sizes past ARI_MDS_PCA_MAX_DIM. */
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

#include "analysis/mds.h"
#include "analysis/mds_pca.h"
#include "test_helpers.h"
#include "test_ross_sample.h"
#include "util/fs.h"

static const char r_script[] =
    "args <- commandArgs(TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "w <- function(v) writeLines(sprintf('%.17g', v), out)\n"
    "repeat {\n"
    "  h <- scan(con, what = integer(), n = 2, quiet = TRUE)\n"
    "  if (length(h) < 2) break\n"
    "  X <- matrix(scan(con, n = h[1] * h[2], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  m <- cmdscale(dist(X), k = 2, eig = TRUE)\n"
    "  w(t(m$points)); w(m$eig[1:3] / sum(pmax(m$eig, 0)))\n"
    "}\n"
    "close(out)\n";

/* Axis k of a equals axis k of b up to sign, within tol of its largest value. */
static double axis_difference(const double *a, const double *b, int n, int dims, int k)
{
    double scale = 0, plus = 0, minus = 0;
    for (int i = 0; i < n; i++) {
        scale = fmax(scale, fabs(b[i * dims + k]));
        plus = fmax(plus, fabs(a[i * dims + k] - b[i * dims + k]));
        minus = fmax(minus, fabs(a[i * dims + k] + b[i * dims + k]));
    }
    return fmin(plus, minus) / fmax(scale, 1e-300);
}

static void test_vs_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    ross_r rx;
    ross_write_all(ross_r_open(&rx), ms, count);
    FILE *r = ross_r_run(&rx, "cmdscale.R", r_script);
    assert_non_null(r);
    for (int m = 0; m < count; m++) {
        int n = ms[m].n;
        double *c = malloc((size_t)n * 2 * sizeof *c), *want = malloc((size_t)n * 2 * sizeof *want), ex[2], wex[3];
        ari_error err = {0};
        assert_int_equal(ari_mds_pca(ms[m].x, n, ms[m].l, 2, 0, c, ex, &err), 0);
        assert_int_equal(ross_read_doubles(r, want, 2 * n), 0);
        assert_int_equal(ross_read_doubles(r, wex, 3), 0);
        double d0 = axis_difference(c, want, n, 2, 0), d1 = axis_difference(c, want, n, 2, 1);
        fprintf(stderr, "%s: axis differences %.2g %.2g, explained %.6f %.6f (R %.6f %.6f, next %.6f)\n",
                ms[m].name, d0, d1, ex[0], ex[1], wex[0], wex[1], wex[2]);
        assert_true(fabs(ex[0] - wex[0]) <= 1e-8 && fabs(ex[1] - wex[1]) <= 1e-8);
        assert_true(d0 <= 1e-8);
        /* the second axis is defined only if its eigenvalue is apart from the third */
        if (wex[1] - wex[2] > 1e-6 * wex[1])
            assert_true(d1 <= 1e-8);
        free(c);
        free(want);
    }
    ross_free(ms, count);
    ross_r_close(&rx, r);
}

static void test_vs_double_centring(void **state)
{
    (void)state;
    rng_state = 0x3d5ULL;
    const int shapes[][2] = {{30, 4}, {50, 12}, {12, 40}, {7, 7}, {2, 5}};
    for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++) {
        int n = shapes[q][0], p = shapes[q][1], dims = 3;
        double *x = malloc((size_t)n * p * sizeof *x);
        for (int i = 0; i < n * p; i++)
            x[i] = 10 * rng_uniform() + (i % p == 0 ? 5 * (i / p % 3) : 0);
        double *a = malloc((size_t)n * dims * sizeof *a), *b = malloc((size_t)n * dims * sizeof *b);
        double ea[3], eb[3];
        ari_error err = {0};
        assert_int_equal(ari_mds_pca(x, n, p, dims, 1, a, ea, &err), 0);
        assert_int_equal(ari_mds_classical(x, n, p, dims, b, eb, &err), 0);
        for (int k = 0; k < dims; k++) {
            assert_true(fabs(ea[k] - eb[k]) <= 1e-10);
            if (eb[k] > 0)
                assert_true(axis_difference(a, b, n, dims, k) <= 1e-8);
        }
        free(x);
        free(a);
        free(b);
    }
}

static void test_threads_plane_errors(void **state)
{
    (void)state;
    enum { N = 3000, P = 6 };
    double *x = malloc((size_t)N * P * sizeof *x), *a = malloc((size_t)N * 2 * sizeof *a);
    double *b = malloc((size_t)N * 2 * sizeof *b), ea[2], eb[2];
    rng_state = 0xbeefULL;
    /* points in a 2-D plane of R^6: MDS keeps every pairwise distance */
    for (int i = 0; i < N; i++) {
        double u = rng_uniform() * 10, v = rng_uniform() * 3;
        for (int j = 0; j < P; j++)
            x[i * P + j] = u * (j % 2 ? 0.5 : -0.5) + v * (j < 3 ? 0.4 : -0.4) + 7;
    }
    ari_error err = {0};
    assert_int_equal(ari_mds_pca(x, N, P, 2, 1, a, ea, &err), 0);
    assert_true(fabs(ea[0] + ea[1] - 1) < 1e-12);
    for (int t = 0; t < 100; t++) {
        int i = (int)(rng_uniform() * N), j = (int)(rng_uniform() * N);
        double dx = 0;
        for (int c = 0; c < P; c++)
            dx += pow(x[i * P + c] - x[j * P + c], 2);
        assert_true(fabs(hypot(a[i * 2] - a[j * 2], a[i * 2 + 1] - a[j * 2 + 1]) - sqrt(dx)) < 1e-9);
    }
    const int threads[] = {0, 2, 5};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(ari_mds_pca(x, N, P, 2, threads[t], b, eb, &err), 0);
        for (int i = 0; i < 2 * N; i++)
            assert_true(fabs(a[i] - b[i]) <= 1e-9 * 10);
    }
    x[7] = INFINITY;
    assert_int_equal(ari_mds_pca(x, N, P, 2, 0, a, ea, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_mds_pca(x, ARI_MDS_PCA_MAX_DIM + 1, ARI_MDS_PCA_MAX_DIM + 1, 2, 0, a, ea, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_int_equal(ari_mds_pca(x, 1, P, 2, 0, a, ea, &err), 0);
    assert_true(a[0] == 0 && a[1] == 0 && ea[0] == 0);
    free(x);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_r),
        cmocka_unit_test(test_vs_double_centring),
        cmocka_unit_test(test_threads_plane_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
