/* test_iterations.c: tasks grouped by iteration (src/analysis/iterations.c)
 * on five hand-made tasks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/iterations.h"

static void test_groups(void **state)
{
    (void)state;
    const int64_t iteration[] = {5, ARI_ITERATIONS_NONE, 2, 5, 2};
    const double start[] = {0, 1, 2, 3, 4}, end[] = {1, 2, 5, 4, 6};
    const int type[] = {0, 1, 1, 0, 0};
    ari_iterations it;
    ari_error err = {0};
    assert_int_equal(ari_iterations_compute(5, iteration, start, end, type, 2, &it, &err), 0);
    assert_int_equal(it.n, 2);
    const ari_iteration *a = &it.items[0], *b = &it.items[1];
    assert_int_equal(a->iteration, 2);
    assert_true(a->start == 2 && a->end == 6);
    assert_int_equal(a->tasks, 2);
    assert_true(a->per_type[0] == 1 && a->per_type[1] == 1);
    assert_int_equal(b->iteration, 5);
    assert_true(b->start == 0 && b->end == 4);
    assert_true(b->per_type[0] == 2 && b->per_type[1] == 0);
    ari_iterations_free(&it);
}

static void test_none(void **state)
{
    (void)state;
    const int64_t iteration[] = {ARI_ITERATIONS_NONE};
    const double start[] = {0}, end[] = {1};
    const int type[] = {0};
    ari_iterations it;
    ari_error err = {0};
    assert_int_equal(ari_iterations_compute(1, iteration, start, end, type, 1, &it, &err), 0);
    assert_int_equal(it.n, 0);
    ari_iterations_free(&it);
    assert_int_equal(ari_iterations_compute(0, iteration, start, end, type, 1, &it, &err), 0);
    assert_int_equal(it.n, 0);
    ari_iterations_free(&it);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
