/* test_profile_stats.c: the statistics of the profile endpoints
 * (src/analysis/profile_stats.c): the /cct view on a hand-made tree, the
 * rank histogram against a brute-force recount, and the least-squares fit
 * against hand-computed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_stats.h"
#include "test_rng.h"

/* 0 (root, 10) -> 1 (6) -> 3 (0.5)
 *             \-> 2 (1) -> 4 (4)        a second root 5 (2) */
static void test_view(void **state)
{
    (void)state;
    const int64_t parent[] = {-1, 0, 0, 1, 2, -1};
    const int depth[] = {0, 1, 1, 2, 2, 0};
    const double inc[] = {10, 6, 1, 0.5, 4, 2};
    ari_error err = {0};
    ari_cct_view v;
    assert_int_equal(ari_cct_view_compute(6, parent, depth, inc, 0, -1, &v, &err), 0);
    assert_true(v.root_total == 12);
    assert_int_equal(v.shown, 6);
    ari_cct_view_free(&v);
    /* 30% of 12 = 3.6: 0, 1 and 4 pass; 2 stays as 4's parent; 3 and 5 drop */
    assert_int_equal(ari_cct_view_compute(6, parent, depth, inc, 0.3, -1, &v, &err), 0);
    const char want[] = {1, 1, 1, 0, 1, 0};
    assert_memory_equal(v.show, want, 6);
    assert_int_equal(v.shown, 4);
    ari_cct_view_free(&v);
    /* and no deeper than 1 */
    assert_int_equal(ari_cct_view_compute(6, parent, depth, inc, 0.3, 1, &v, &err), 0);
    const char want1[] = {1, 1, 1, 0, 0, 0};
    assert_memory_equal(v.show, want1, 6);
    assert_int_equal(v.shown, 3);
    ari_cct_view_free(&v);
    assert_int_equal(ari_cct_view_compute(0, NULL, NULL, NULL, 0.5, -1, &v, &err), 0);
    assert_int_equal(v.shown, 0);
    ari_cct_view_free(&v);
}

/* Every value's bin recomputed alone, the members in process order. */
static void check_histogram(const double *v, int64_t n, int bins)
{
    ari_error err = {0};
    ari_rank_histogram h;
    assert_int_equal(ari_rank_histogram_compute(v, n, bins, &h, &err), 0);
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t count = 0;
    for (int64_t k = 0; k < n; k++)
        if (!isnan(v[k])) {
            lo = fmin(lo, v[k]);
            hi = fmax(hi, v[k]);
            sum += v[k];
            count++;
        }
    assert_int_equal(h.count, count);
    assert_true(h.min == lo && h.max == hi);
    double mean = sum / (double)count, ss = 0;
    for (int64_t k = 0; k < n; k++)
        if (!isnan(v[k]))
            ss += (v[k] - mean) * (v[k] - mean);
    assert_true(fabs(h.mean - mean) <= 1e-12 * fabs(mean));
    assert_true(fabs(h.stddev - sqrt(ss / (double)count)) <= 1e-6 * (sqrt(ss / (double)count) + 1e-12));
    assert_true(fabs(h.imbalance - (hi - mean) / mean) <= 1e-12);
    int64_t at = 0;
    for (int b = 0; b < bins; b++) {
        double b0 = lo + (hi - lo) * b / bins, b1 = lo + (hi - lo) * (b + 1) / bins;
        assert_true(h.lo[b] == b0 && h.hi[b] == b1);
        int64_t in = 0;
        for (int64_t k = 0; k < n; k++) {
            if (isnan(v[k]))
                continue;
            int kb = (int)((v[k] - lo) / (hi - lo) * bins);
            if (kb == bins)
                kb = bins - 1;
            if (kb != b)
                continue;
            assert_int_equal(h.member[at + in], k);
            in++;
        }
        assert_int_equal(h.counts[b], in);
        assert_int_equal(h.offset[b], at);
        at += in;
    }
    assert_int_equal(at, count);
    ari_rank_histogram_free(&h);
}

static void test_histogram_brute_force(void **state)
{
    (void)state;
    rng_state = 0x5eed1234;
    double v[500];
    for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 500; k++)
            v[k] = rng_uniform() < 0.1 ? NAN : 1 + 100 * rng_uniform();
        check_histogram(v, 500, 1 + round * 7);
    }
    const double edges[] = {0.5, 1, 2, 2, NAN, 0.5}; /* the maximum lands in the closed last bin */
    check_histogram(edges, 6, 3);
}

static void test_histogram_degenerate(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_rank_histogram h;
    const double same[] = {3, NAN, 3, 3};
    assert_int_equal(ari_rank_histogram_compute(same, 4, 5, &h, &err), 0);
    assert_int_equal(h.count, 3);
    assert_int_equal(h.counts[2], 3); /* bins / 2 */
    assert_true(h.lo[0] == 3 && h.hi[4] == 3);
    assert_true(h.stddev == 0 && h.imbalance == 0);
    ari_rank_histogram_free(&h);
    const double none[] = {NAN, NAN};
    assert_int_equal(ari_rank_histogram_compute(none, 2, 2, &h, &err), 0);
    assert_int_equal(h.count, 0);
    assert_true(isnan(h.min) && isnan(h.mean) && isnan(h.sum) && isnan(h.stddev) && isnan(h.imbalance));
    assert_true(isnan(h.lo[0]) && isnan(h.hi[1]) && h.counts[0] == 0 && h.counts[1] == 0);
    ari_rank_histogram_free(&h);
    const double zero[] = {-1, 1};
    assert_int_equal(ari_rank_histogram_compute(zero, 2, 2, &h, &err), 0);
    assert_true(h.mean == 0 && isnan(h.imbalance));
    ari_rank_histogram_free(&h);
    assert_int_equal(ari_rank_histogram_compute(zero, 2, 0, &h, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_rank_histogram_compute(zero, 2, 1001, &h, &err), -1);
    ari_rank_histogram_free(&h);
}

static void test_least_squares(void **state)
{
    (void)state;
    /* (1, 2), (2, 4.5), (3, 5.5): means 2 and 4, sxx 2, sxy 3.5, syy 6.5 */
    const double x[] = {1, NAN, 2, 3, 7}, y[] = {2, 9, 4.5, 5.5, NAN};
    ari_fit f;
    ari_least_squares(x, y, 5, &f);
    assert_int_equal(f.n, 3);
    assert_true(f.slope == 1.75 && f.intercept == 0.5);
    assert_true(fabs(f.r - 3.5 / sqrt(13)) < 1e-15);
    assert_true(fabs(f.r2 - 12.25 / 13) < 1e-15);
    const double cx[] = {2, 2, 2}, cy[] = {1, 2, 3};
    ari_least_squares(cx, cy, 3, &f); /* x does not vary */
    assert_true(isnan(f.slope) && isnan(f.intercept) && isnan(f.r) && isnan(f.r2));
    ari_least_squares(cy, cx, 3, &f); /* y does not: a flat line, no r */
    assert_true(f.slope == 0 && f.intercept == 2 && isnan(f.r));
    ari_least_squares(x, y, 1, &f);
    assert_int_equal(f.n, 1);
    assert_true(isnan(f.slope));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view),
        cmocka_unit_test(test_histogram_brute_force),
        cmocka_unit_test(test_histogram_degenerate),
        cmocka_unit_test(test_least_squares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
