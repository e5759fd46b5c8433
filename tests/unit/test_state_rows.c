/* test_state_rows.c: level of detail of a timeline row of nested Paje
 * states (src/analysis/state_rows.c).
 *
 * Hand values on a small stack (a depth-0 state with two nested ones),
 * the window rule (overlap with positive length, zero-length states in
 * [t0, t1]), the order of the states mode, the switch to pixels, and
 * random rows whose per-(column, depth, value) shares are checked against
 * a brute force that samples each column finely; bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/state_rows.h"
#include "test_rng.h"

/* value 0 "Running" [0, 10) depth 0; nested value 1 [2, 4) and value 2
 * [6, 6.5) at depth 1; value 1 [10, 12) depth 0; a zero-length value 2 at
 * 12; listed out of order on purpose. */
static const ari_gantt_state stack[] = {
    {1, 1, 2, 4}, {0, 0, 0, 10}, {2, 1, 6, 6.5}, {1, 0, 10, 12}, {2, 0, 12, 12},
};

static double share_of(const ari_state_row_result *r, int pixel, int depth, int value)
{
    for (int64_t i = 0; i < r->ncells; i++)
        if (r->cells[i].pixel == pixel && r->cells[i].depth == depth && r->cells[i].value == value)
            return r->cells[i].share;
    return 0;
}

static void test_states_mode(void **unused)
{
    (void)unused;
    ari_state_row_result r;
    ari_error err = {0};
    assert_int_equal(ari_state_row_render(stack, 5, 3, 0, 20, 100, -1, &r, &err), 0);
    assert_int_equal(r.mode, ARI_STATE_ROWS_STATES);
    assert_int_equal(r.count, 5);
    assert_int_equal(r.max_depth, 1);
    const int64_t order[] = {1, 0, 2, 3, 4}; /* by start, then depth */
    for (int i = 0; i < 5; i++)
        assert_int_equal(r.index[i], order[i]);
    ari_state_row_free(&r);
    /* [4, 6): the depth-0 state only (the nested one ends at 4, the next starts at 6) */
    assert_int_equal(ari_state_row_render(stack, 5, 3, 4, 6, 100, -1, &r, &err), 0);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.index[0], 1);
    assert_int_equal(r.max_depth, 0);
    ari_state_row_free(&r);
    /* a zero-length state counts in [12, 13) and at the end of [11, 12], not in [12.5, 13) */
    assert_int_equal(ari_state_row_render(stack, 5, 3, 12, 13, 100, -1, &r, &err), 0);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.index[0], 4);
    ari_state_row_free(&r);
    assert_int_equal(ari_state_row_render(stack, 5, 3, 11, 12, 100, -1, &r, &err), 0);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.index[0], 3);
    assert_int_equal(r.index[1], 4);
    ari_state_row_free(&r);
    assert_int_equal(ari_state_row_render(stack, 5, 3, 12.5, 13, 100, -1, &r, &err), 0);
    assert_int_equal(r.count, 0);
    ari_state_row_free(&r);
    /* an empty window */
    assert_int_equal(ari_state_row_render(stack, 5, 3, 30, 40, 10, -1, &r, &err), 0);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.max_depth, -1);
    ari_state_row_free(&r);
}

static void test_pixels_by_hand(void **unused)
{
    (void)unused;
    ari_state_row_result r;
    ari_error err = {0};
    /* [0, 12) on 6 columns of 2: more than max_states = 2 states */
    assert_int_equal(ari_state_row_render(stack, 5, 3, 0, 12, 6, 2, &r, &err), 0);
    assert_int_equal(r.mode, ARI_STATE_ROWS_PIXELS);
    assert_int_equal(r.count, 5); /* with the zero-length state at 12 */
    for (int c = 0; c < 5; c++)
        assert_float_equal(share_of(&r, c, 0, 0), 1, 1e-12);
    assert_float_equal(share_of(&r, 5, 0, 1), 1, 1e-12);
    assert_float_equal(share_of(&r, 1, 1, 1), 1, 1e-12);    /* [2, 4) */
    assert_float_equal(share_of(&r, 3, 1, 2), 0.25, 1e-12); /* [6, 6.5) in [6, 8) */
    assert_float_equal(share_of(&r, 0, 1, 1), 0, 0);
    assert_int_equal(r.ncells, 8);
    for (int64_t i = 1; i < r.ncells; i++) { /* sorted by depth, pixel, value */
        const ari_state_cell *a = &r.cells[i - 1], *b = &r.cells[i];
        assert_true(
            a->depth < b->depth ||
            (a->depth == b->depth && (a->pixel < b->pixel || (a->pixel == b->pixel && a->value < b->value))));
    }
    ari_state_row_free(&r);
    /* [1, 4) on 2 columns of 1.5: column 0 holds [1, 2.5) */
    assert_int_equal(ari_state_row_render(stack, 5, 3, 1, 4, 2, 0, &r, &err), 0);
    assert_float_equal(share_of(&r, 0, 0, 0), 1, 1e-12);
    assert_float_equal(share_of(&r, 0, 1, 1), 0.5 / 1.5, 1e-12);
    assert_float_equal(share_of(&r, 1, 1, 1), 1, 1e-12);
    ari_state_row_free(&r);
}

/* Brute force: the time of value v at depth d in [a, b), by sampling. */
static double sampled(const ari_gantt_state *s, int n, int depth, int value, double a, double b)
{
    const int steps = 2000;
    double t = 0, h = (b - a) / steps;
    for (int k = 0; k < steps; k++) {
        double x = a + (k + 0.5) * h;
        for (int i = 0; i < n; i++)
            if (s[i].depth == depth && s[i].value == value && s[i].start <= x && x < s[i].end)
                t += h;
    }
    return t / (b - a);
}

static void test_random_rows(void **unused)
{
    (void)unused;
    rng_state = 14;
    for (int round = 0; round < 20; round++) {
        ari_gantt_state s[120];
        int n = 0;
        for (int depth = 0; depth < 3; depth++) { /* non-overlapping states per depth */
            double t = rng_uniform() * 3;
            while (n < 120 && t < 100) {
                double len = 0.05 + rng_uniform() * 4;
                s[n++] = (ari_gantt_state){(int)(rng_uniform() * 4), depth, t, t + len};
                t += len + rng_uniform() * 2;
            }
        }
        double t0 = rng_uniform() * 20, t1 = t0 + 10 + rng_uniform() * 70;
        int width = 7 + round;
        ari_state_row_result r;
        ari_error err = {0};
        assert_int_equal(ari_state_row_render(s, n, 4, t0, t1, width, 0, &r, &err), 0);
        assert_int_equal(r.mode, ARI_STATE_ROWS_PIXELS);
        double dt = (t1 - t0) / width;
        for (int c = 0; c < width; c++)
            for (int d = 0; d < 3; d++)
                for (int v = 0; v < 4; v++) {
                    double want = sampled(s, n, d, v, t0 + c * dt, t0 + (c + 1) * dt);
                    assert_float_equal(share_of(&r, c, d, v), want, 2e-3);
                }
        ari_state_row_free(&r);
    }
}

static void test_errors(void **unused)
{
    (void)unused;
    ari_state_row_result r;
    ari_error err = {0};
    assert_int_equal(ari_state_row_render(stack, 5, 3, 1, 1, 10, -1, &r, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_state_row_render(stack, 5, 3, 0, 1, 0, -1, &r, &err), -1);
    assert_int_equal(ari_state_row_render(stack, 5, 3, 0, NAN, 10, -1, &r, &err), -1);
    assert_int_equal(ari_state_row_render(stack, 5, 2, 0, 20, 10, -1, &r, &err), -1); /* value 2 >= 2 */
    assert_non_null(strstr(err.message, "value id"));
    const ari_gantt_state bad[] = {{0, -1, 0, 1}};
    assert_int_equal(ari_state_row_render(bad, 1, 1, 0, 2, 10, -1, &r, &err), -1);
    assert_non_null(strstr(err.message, "depth"));
    const ari_gantt_state backwards[] = {{0, 0, 3, 1}};
    assert_int_equal(ari_state_row_render(backwards, 1, 1, 0, 5, 10, -1, &r, &err), -1);
    /* states outside the window are not checked */
    const ari_gantt_state outside[] = {{9, 0, 50, 60}};
    assert_int_equal(ari_state_row_render(outside, 1, 1, 0, 5, 10, -1, &r, &err), 0);
    ari_state_row_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_states_mode),
        cmocka_unit_test(test_pixels_by_hand),
        cmocka_unit_test(test_random_rows),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
