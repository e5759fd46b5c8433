/* test_pam_hclust_cancel.c: the cancel flags of PAM and complete linkage
 * (ari_pam_cancellable, ari_hclust_complete_cancellable; src/analysis/
 * pam.c, hclust.c). On 200 random points in 3-D: a flag left at 0 gives
 * exactly the answer of the calls without a flag (medoids, labels,
 * objectives, swaps; merges, heights, order); a flag set beforehand, or
 * by another thread during a large PAM's SWAP phase, stops them with
 * ARI_E_CANCELLED. Their agreement with R is test_pam.c's and
 * test_hclust.c's. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/hclust.h"
#include "analysis/pam.h"
#include "test_rng.h"

/* n random points in 3-D and their Euclidean distances (n x n). */
static double *random_distances(int n, uint64_t seed)
{
    double *x = malloc((size_t)n * 3 * sizeof *x), *d = malloc((size_t)n * n * sizeof *d);
    assert_non_null(x);
    assert_non_null(d);
    rng_state = seed;
    for (int i = 0; i < n * 3; i++)
        x[i] = rng_uniform();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int c = 0; c < 3; c++)
                s += (x[i * 3 + c] - x[j * 3 + c]) * (x[i * 3 + c] - x[j * 3 + c]);
            d[(size_t)i * n + j] = sqrt(s);
        }
    free(x);
    return d;
}

static void test_pam_flag(void **state)
{
    (void)state;
    const int n = 200, k = 7;
    double *d = random_distances(n, 11);
    ari_error err = {0};
    int flag = 0;
    ari_pam_result *a = ari_pam(d, n, k, &err), *b = ari_pam_cancellable(d, n, k, &flag, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a->swaps > 0);
    assert_int_equal(a->swaps, b->swaps);
    assert_memory_equal(a->medoids, b->medoids, (size_t)k * sizeof *a->medoids);
    assert_memory_equal(a->labels, b->labels, (size_t)n * sizeof *a->labels);
    assert_true(a->objective_build == b->objective_build && a->objective_swap == b->objective_swap);
    ari_pam_free(a);
    ari_pam_free(b);
    flag = 1;
    for (int kk = 1; kk <= 2; kk++) {
        err = (ari_error){0};
        assert_null(ari_pam_cancellable(d, n, kk, &flag, &err));
        assert_string_equal(err.code, ARI_E_CANCELLED);
    }
    free(d);
}

static void test_hclust_flag(void **state)
{
    (void)state;
    const int n = 200;
    double *d = random_distances(n, 12);
    ari_error err = {0};
    int flag = 0;
    ari_hclust_result *a = ari_hclust_complete(d, n, &err),
                      *b = ari_hclust_complete_cancellable(d, n, &flag, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_memory_equal(a->merge, b->merge, (size_t)2 * (n - 1) * sizeof *a->merge);
    assert_memory_equal(a->height, b->height, (size_t)(n - 1) * sizeof *a->height);
    assert_memory_equal(a->order, b->order, (size_t)n * sizeof *a->order);
    ari_hclust_free(a);
    ari_hclust_free(b);
    flag = 1;
    assert_null(ari_hclust_complete_cancellable(d, n, &flag, &err));
    assert_string_equal(err.code, ARI_E_CANCELLED);
    free(d);
}

static void *set_flag_later(void *arg)
{
    usleep(20000);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* 2000 points, k = 40: BUILD and SWAP take seconds; the flag set after
 * 20 ms stops the run. */
static void test_pam_cancelled_while_running(void **state)
{
    (void)state;
    const int n = 2000;
    double *d = random_distances(n, 13);
    int flag = 0;
    pthread_t setter;
    assert_int_equal(pthread_create(&setter, NULL, set_flag_later, &flag), 0);
    ari_error err = {0};
    assert_null(ari_pam_cancellable(d, n, 40, &flag, &err));
    pthread_join(setter, NULL);
    assert_string_equal(err.code, ARI_E_CANCELLED);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pam_flag),
        cmocka_unit_test(test_hclust_flag),
        cmocka_unit_test(test_pam_cancelled_while_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
