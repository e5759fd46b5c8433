/* test_procrustes.c: the similarity Procrustes alignment of 2-D layouts
 * (src/analysis/procrustes.c). Identical layouts are left as they are; a
 * known rotation + uniform scaling + translation (with and without a
 * reflection) of a random layout is undone to 1e-9, including for rows
 * beyond the common ones; degenerate inputs leave the layout unchanged. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <string.h>

#include "analysis/procrustes.h"
#include "test_rng.h"

#define N 40

static void random_layout(double *p, size_t n, uint64_t seed)
{
    rng_state = seed;
    for (size_t i = 0; i < 2 * n; i++)
        p[i] = 10 * rng_uniform() - 5;
}

static void test_identity(void **state)
{
    (void)state;
    double p[2 * N], c[2 * N];
    random_layout(p, N, 11);
    memcpy(c, p, sizeof c);
    assert_int_equal(ari_procrustes_align(p, c, N, N), 0);
    for (size_t i = 0; i < 2 * N; i++)
        assert_true(fabs(c[i] - p[i]) < 1e-9);
}

/* cur = s * P * Q + t, Q a rotation by theta (then a reflection of the
 * first axis when reflect); the alignment must give back P. Only the
 * first n_common rows are used for the fit. */
static void check_known(double theta, double s, double tx, double ty, int reflect, size_t n_common, uint64_t seed)
{
    double p[2 * N], c[2 * N];
    random_layout(p, N, seed);
    double q00 = cos(theta), q01 = sin(theta), q10 = -sin(theta), q11 = cos(theta);
    if (reflect) {
        q00 = -q00;
        q10 = -q10;
    }
    for (size_t i = 0; i < N; i++) {
        double x = p[2 * i], y = p[2 * i + 1];
        c[2 * i] = s * (x * q00 + y * q10) + tx;
        c[2 * i + 1] = s * (x * q01 + y * q11) + ty;
    }
    assert_int_equal(ari_procrustes_align(p, c, n_common, N), 0);
    for (size_t i = 0; i < 2 * N; i++)
        assert_true(fabs(c[i] - p[i]) < 1e-9);
}

static void test_known_transforms(void **state)
{
    (void)state;
    for (uint64_t k = 0; k < 20; k++) {
        double theta = 0.3 * (double)k;
        check_known(theta, 0.5 + 0.2 * (double)k, 3 - (double)k, 1e3 * (double)k, 0, N, 100 + k);
        check_known(theta, 2.5, -7, 4, 1, N, 200 + k);
        check_known(theta, 0.01, 0, 0, (int)(k & 1), 5, 300 + k); /* fitted on 5, applied to all */
    }
}

static void test_degenerate(void **state)
{
    (void)state;
    double p[2 * N], c[2 * N], keep[2 * N];
    random_layout(p, N, 5);
    random_layout(c, N, 6);
    memcpy(keep, c, sizeof c);
    assert_int_equal(ari_procrustes_align(p, c, 0, N), 0); /* nothing in common */
    assert_memory_equal(c, keep, sizeof c);
    for (size_t i = 0; i < 2 * N; i++) /* all at one point */
        c[i] = keep[i] = 3;
    assert_int_equal(ari_procrustes_align(p, c, N, N), 0);
    assert_memory_equal(c, keep, sizeof c);
    assert_int_equal(ari_procrustes_align(p, c, N + 1, N), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_known_transforms),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
