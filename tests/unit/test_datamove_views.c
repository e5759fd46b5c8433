/* test_datamove_views.c: the arithmetic of the data movement endpoints
 * (src/analysis/datamove_views.c) on hand-made inputs: tallies, the
 * component matrix (against a brute-force sum), bandwidths, bytes moved,
 * utilization, the clock's largest sector, series summaries and their
 * order (against a stable sort). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/datamove.h"
#include "analysis/datamove_views.h"
#include "test_rng.h"

static void test_tally(void **state)
{
    (void)state;
    ari_dm_tally t = {0};
    ari_dm_tally_add(&t, 400, 10, 4, 11, 12); /* a quarter inside */
    ari_dm_tally_add(&t, 10, 0, 3, 0, 100);   /* whole */
    assert_int_equal(t.total, 2);
    assert_true(t.bytes == 410);
    assert_true(t.bytes_in_window == 110);
}

static void test_matrix_keys(void **state)
{
    (void)state;
    ari_dm_matrix *m = calloc(1, sizeof *m);
    assert_non_null(m);
    char key[32];
    for (int i = 0; i < ARI_DM_MATRIX_MAX; i++) {
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(ari_dm_matrix_key(m, key), i);
    }
    assert_int_equal(ari_dm_matrix_key(m, "k7"), 7);
    assert_int_equal(ari_dm_matrix_key(m, "one too many"), -1);
    ari_dm_matrix_add(m, "k1", "one too many", 5, 5); /* dropped */
    double total, max;
    ari_dm_matrix_totals(m, &total, &max);
    assert_true(total == 0 && max == 0);
    memset(m, 0, sizeof *m);
    assert_int_equal(ari_dm_matrix_key(m, "a-key-longer-than-23-bytes"), 0);
    assert_string_equal(m->keys[0], "a-key-longer-than-23-by");
    free(m);
}

/* Random pairs added one by one equal a dense sum; totals, bandwidths and
 * bytes moved follow the cells. */
static void test_matrix_brute_force(void **state)
{
    (void)state;
    static const char *names[] = {"host", "gpu0", "gpu1", "gpu2"};
    double bytes[4][4] = {{0}}, busy[4][4] = {{0}};
    ari_dm_matrix *m = calloc(1, sizeof *m);
    assert_non_null(m);
    rng_state = 0xdada;
    for (int k = 0; k < 1000; k++) {
        int a = (int)(rng_uniform() * 4), b = (int)(rng_uniform() * 4);
        double by = floor(rng_uniform() * 1e6), bu = rng_uniform() * 10;
        ari_dm_matrix_add(m, names[a], names[b], by, bu);
        bytes[a][b] += by;
        busy[a][b] += bu;
    }
    assert_int_equal(m->n, 4);
    double total = 0, max = 0;
    for (int i = 0; i < 4; i++) {
        int mi = ari_dm_matrix_key(m, names[i]);
        double moved = 0;
        for (int j = 0; j < 4; j++) {
            int mj = ari_dm_matrix_key(m, names[j]);
            assert_true(m->bytes[mi][mj] == bytes[i][j]);
            assert_true(m->busy[mi][mj] == busy[i][j]);
            assert_true(ari_dm_matrix_bandwidth(m, mi, mj, 1e-6) == bytes[i][j] / (busy[i][j] * 1e-6) / 1e9);
            assert_true(ari_dm_matrix_bandwidth_us(m, mi, mj) == bytes[i][j] / busy[i][j] / 1000.0);
            moved += bytes[i][j] + (i != j ? bytes[j][i] : 0);
        }
        assert_true(ari_dm_matrix_moved(m, names[i]) == moved);
    }
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++) {
            total += m->bytes[i][j];
            max = fmax(max, m->bytes[i][j]);
        }
    double t, x;
    ari_dm_matrix_totals(m, &t, &x);
    assert_true(t == total && x == max);
    assert_true(ari_dm_matrix_moved(m, "") == 0 && ari_dm_matrix_moved(m, "nic") == 0);
    free(m);
}

static void test_matrix_movement_and_idle_cells(void **state)
{
    (void)state;
    ari_dm_matrix *m = calloc(1, sizeof *m);
    assert_non_null(m);
    /* 400 B over [10, 14), window [11, 12): 100 B, busy 1 */
    ari_dm_matrix_add_movement(m, "host", "gpu0", 400, 10, 4, 11, 12);
    assert_true(m->bytes[0][1] == 100 && m->busy[0][1] == 1);
    assert_true(ari_dm_matrix_bandwidth(m, 0, 1, 1e-6) == 100 / 1e-6 / 1e9);
    assert_true(isnan(ari_dm_matrix_bandwidth(m, 1, 0, 1e-6)));
    assert_true(isnan(ari_dm_matrix_bandwidth_us(m, 0, 0)));
    free(m);
}

static void test_utilization(void **state)
{
    (void)state;
    const char comp[6][ARI_DM_KEY_SIZE] = {"host", "gpu0", "host", "gpu1", "gpu0", "gpu2"};
    const double busy[6] = {10, 0, 30, 50, 20, 150};
    int comp_of[6], n;
    double frac[6];
    ari_dm_utilization(comp, busy, 6, 0, 100, comp_of, frac, &n);
    /* in the order of the first busy track: host (0), gpu1 (3), gpu0 (4), gpu2 (5) */
    assert_int_equal(n, 4);
    const int want_of[] = {0, 3, 4, 5};
    const double want[] = {(10.0 + 30) / (100 * 2.0), 0.5, 0.2, 1};
    for (int c = 0; c < n; c++) {
        assert_int_equal(comp_of[c], want_of[c]);
        assert_true(frac[c] == want[c]);
    }
    ari_dm_utilization(comp, busy, 0, 0, 100, comp_of, frac, &n);
    assert_int_equal(n, 0);
}

static void test_clock_max(void **state)
{
    (void)state;
    const double sec[3 * ARI_DM_NCAT] = {1, 2, 3, 4, 5, 5, 5, 5, 0, 0, 0, 1};
    assert_true(ari_dm_clock_max(sec, 3, ARI_DM_NCAT) == 20);
    assert_true(ari_dm_clock_max(sec, 0, ARI_DM_NCAT) == 0);
}

static void test_series_summary(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3, 4, -2};
    ari_dm_series_stats s;
    ari_dm_series_summary(v, 5, 5, 1000, &s);
    assert_true(s.stride == 1 && s.min == -2 && s.max == 4);
    assert_true(s.variance == ari_dm_variance(v, 5));
    ari_dm_series_summary(v, 5, 2001, 1000, &s); /* ceil(2001 / 1000) */
    assert_int_equal(s.stride, 3);
    ari_dm_series_summary(v, 5, 2000, 1000, &s);
    assert_int_equal(s.stride, 2);
    ari_dm_series_summary(v, 0, 0, 2, &s);
    assert_true(s.variance == 0 && s.min == INFINITY && s.max == -INFINITY && s.stride == 1);
}

typedef struct keyed {
    double v;
    size_t i;
} keyed;

static int by_variance_desc(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void test_series_order(void **state)
{
    (void)state;
    rng_state = 0x0123;
    double var[200];
    size_t order[200];
    keyed ref[200];
    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < 200; i++) {
            double u = rng_uniform();
            var[i] = u < 0.05 ? NAN : u < 0.1 ? INFINITY : floor(u * 20); /* many ties */
            ref[i].v = isfinite(var[i]) ? var[i] : 0;
            ref[i].i = i;
        }
        ari_dm_series_order(var, 200, order);
        qsort(ref, 200, sizeof *ref, by_variance_desc);
        for (size_t i = 0; i < 200; i++)
            assert_int_equal(order[i], ref[i].i);
    }
    ari_dm_series_order(var, 0, order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tally),
        cmocka_unit_test(test_matrix_keys),
        cmocka_unit_test(test_matrix_brute_force),
        cmocka_unit_test(test_matrix_movement_and_idle_cells),
        cmocka_unit_test(test_utilization),
        cmocka_unit_test(test_clock_max),
        cmocka_unit_test(test_series_summary),
        cmocka_unit_test(test_series_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
