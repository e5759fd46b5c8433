/* test_timeseries.c: sums of step functions per pixel and starving
 * periods (src/analysis/timeseries.c), on two hand-made series:
 * A (node 0) = 1 from 0, 3 from 2; B (node 1) = 2 from 1, 0 from 3;
 * A + B = 1 on [0, 1), 3 on [1, 2), 5 on [2, 3), 3 from 3 on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analysis/timeseries.h"

static const double ta[] = {0, 2}, va[] = {1, 3}, tb[] = {1, 3}, vb[] = {2, 0};
static const ari_ts_series series[] = {{0, 2, ta, va}, {1, 2, tb, vb}};

static void assert_point(const ari_ts_point *p, double t, double lo, double hi, double last)
{
    if (p->t != t || p->min != lo || p->max != hi || p->last != last)
        fail_msg("got [%g, %g, %g, %g], want [%g, %g, %g, %g]", p->t, p->min, p->max, p->last, t, lo, hi, last);
}

static void test_points(void **state)
{
    (void)state;
    ari_ts_point *p;
    size_t n;
    ari_error err = {0};
    assert_int_equal(ari_ts_points(series, 2, NULL, 0, 4, 4, &p, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_point(&p[0], 0, 1, 1, 1);
    assert_point(&p[1], 1, 3, 3, 3);
    assert_point(&p[2], 2, 5, 5, 5);
    assert_point(&p[3], 3, 3, 3, 3);
    free(p);
    /* two pixels: each sees the changes inside it */
    assert_int_equal(ari_ts_points(series, 2, NULL, 0, 4, 2, &p, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_point(&p[0], 0, 1, 3, 3);
    assert_point(&p[1], 2, 3, 5, 3);
    free(p);
}

static void test_points_of_node_and_undefined(void **state)
{
    (void)state;
    ari_ts_point *p;
    size_t n;
    ari_error err = {0};
    const int64_t node = 0;
    assert_int_equal(ari_ts_points(series, 2, &node, 0, 4, 4, &p, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_point(&p[1], 1, 1, 1, 1);
    assert_point(&p[2], 2, 3, 3, 3);
    free(p);
    /* no point before the first change */
    assert_int_equal(ari_ts_points(series, 2, NULL, -2, 2, 2, &p, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_point(&p[0], 0, 1, 3, 3);
    free(p);
}

static void test_starved(void **state)
{
    (void)state;
    ari_ts_period *p;
    size_t n;
    ari_error err = {0};
    assert_int_equal(ari_ts_starved(series, 2, 0, 4, 4, 0.5, &p, &n, &err), 0);
    assert_int_equal(n, 2); /* [0, 1] and [1, 2] merged, then [3, 4] */
    assert_true(p[0].start == 0 && p[0].end == 2 && p[1].start == 3 && p[1].end == 4);
    free(p);
    assert_int_equal(ari_ts_starved(series, 2, 0, 4, 4, 2, &p, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_true(p[0].start == 0 && p[0].end == 4);
    free(p);
    assert_int_equal(ari_ts_starved(series, 2, 0, 4, 1, 0.5, &p, &n, &err), 0);
    assert_int_equal(n, 0); /* never below 1 */
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_points_of_node_and_undefined),
        cmocka_unit_test(test_starved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
