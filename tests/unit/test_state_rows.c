/* test_state_rows.c: level of detail of a timeline row of nested Paje
 * states (src/analysis/state_rows.c).
 *
 * Hand values on a small stack (a depth-0 state with two nested ones),
 * the window rule (overlap with positive length, zero-length states in
 * [t0, t1]), the order of the states mode, the switch to pixels, and
 * random rows whose per-(column, depth, value) shares are checked against
 * a brute force that samples each column finely; random rows (sorted,
 * by end, shuffled, overlapping) whose cells must equal bit for bit those
 * of the plain rule (sort everything, spread, sort the cells, merge); bad
 * input.
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

/* ---- reference: every window state sorted by start, spread in that
 * order, all cells sorted (stably) and merged: the rule the pixels mode
 * must reproduce bit for bit ---- */

typedef struct ref_cell {
    ari_state_cell c;
    int64_t seq; /* spread order */
} ref_cell;

static const ari_gantt_state *ref_states;

static int ref_by_start(const void *a, const void *b)
{
    const ari_gantt_state *x = &ref_states[*(const int64_t *)a], *y = &ref_states[*(const int64_t *)b];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (*(const int64_t *)a > *(const int64_t *)b) - (*(const int64_t *)a < *(const int64_t *)b);
}

static int ref_by_cell(const void *a, const void *b)
{
    const ref_cell *x = a, *y = b;
    if (x->c.depth != y->c.depth)
        return x->c.depth < y->c.depth ? -1 : 1;
    if (x->c.pixel != y->c.pixel)
        return x->c.pixel < y->c.pixel ? -1 : 1;
    if (x->c.value != y->c.value)
        return x->c.value < y->c.value ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int ref_column(double t, double t0, double dt, int width)
{
    double c = floor((t - t0) / dt);
    return c < 0 ? 0 : c >= width ? width - 1 : (int)c;
}

/* The reference cells of n states in [t0, t1) on width columns; *ncells. */
static ref_cell *ref_render(const ari_gantt_state *s, int64_t n, double t0, double t1, int width,
                            int64_t *ncells)
{
    int64_t *ix = malloc((size_t)(n + 1) * sizeof *ix), k = 0;
    assert_non_null(ix);
    for (int64_t i = 0; i < n; i++) {
        int in =
            s[i].end > s[i].start ? s[i].start < t1 && s[i].end > t0 : s[i].start >= t0 && s[i].start <= t1;
        if (in)
            ix[k++] = i;
    }
    ref_states = s;
    qsort(ix, (size_t)k, sizeof *ix, ref_by_start);
    double dt = (t1 - t0) / width;
    ref_cell *cells = malloc(((size_t)k * 2 + (size_t)width * 8 + 1) * sizeof *cells);
    assert_non_null(cells);
    int64_t m = 0;
    for (int64_t i = 0; i < k; i++) {
        const ari_gantt_state *x = &s[ix[i]];
        double a = fmax(x->start, t0), b = fmin(x->end, t1);
        if (!(b > a))
            continue;
        for (int c = ref_column(a, t0, dt, width); c <= ref_column(b, t0, dt, width); c++) {
            double c0 = t0 + c * dt, c1 = c + 1 == width ? t1 : t0 + (c + 1) * dt;
            double t = fmin(b, c1) - fmax(a, c0);
            if (t > 0) {
                cells[m] = (ref_cell){{c, x->depth, x->value, t}, m};
                m++;
            }
        }
    }
    qsort(cells, (size_t)m, sizeof *cells, ref_by_cell);
    int64_t j = 0;
    for (int64_t i = 0; i < m; i++) {
        if (j > 0 && cells[j - 1].c.depth == cells[i].c.depth && cells[j - 1].c.pixel == cells[i].c.pixel &&
            cells[j - 1].c.value == cells[i].c.value)
            cells[j - 1].c.share += cells[i].c.share;
        else
            cells[j++] = cells[i];
    }
    for (int64_t i = 0; i < j; i++) {
        double len = cells[i].c.pixel + 1 == width ? t1 - (t0 + cells[i].c.pixel * dt) : dt;
        cells[i].c.share = fmin(1, cells[i].c.share / len);
    }
    free(ix);
    *ncells = j;
    return cells;
}

/* A random row: `depths` depths of back-to-back or gapped states (some of
 * zero length, some overlapping when `overlap`), many per column, values
 * below nvalues; listed by start, by end (as Paje closes them), or
 * shuffled. */
static int64_t random_row(ari_gantt_state *s, int64_t cap, int depths, int nvalues, int overlap, int order)
{
    int64_t n = 0;
    for (int d = 0; d < depths; d++) {
        double t = rng_uniform() * 2;
        while (n < cap && t < 1000) {
            double len = rng_uniform() < 0.05 ? 0 : rng_uniform() * (rng_uniform() < 0.1 ? 30 : 0.7);
            int v = nvalues > 8 && rng_uniform() < 0.5 ? nvalues - 1 - (int)(rng_uniform() * 4)
                                                       : (int)(rng_uniform() * (nvalues < 8 ? nvalues : 8));
            s[n++] = (ari_gantt_state){v, d, t, t + len};
            t += overlap ? len * rng_uniform() * 1.5 : len + (rng_uniform() < 0.5 ? 0 : rng_uniform() * 0.3);
        }
    }
    if (order == 1) { /* by end, deeper first on ties */
        for (int64_t i = 1; i < n; i++)
            for (int64_t j = i; j > 0 && (s[j - 1].end > s[j].end ||
                                          (s[j - 1].end == s[j].end && s[j - 1].depth < s[j].depth));
                 j--) {
                ari_gantt_state x = s[j];
                s[j] = s[j - 1];
                s[j - 1] = x;
            }
    } else if (order == 2) {
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)(rng_uniform() * (double)(i + 1));
            ari_gantt_state x = s[i];
            s[i] = s[j < i ? j : i];
            s[j < i ? j : i] = x;
        }
    }
    return n;
}

static void test_pixels_match_reference(void **unused)
{
    (void)unused;
    rng_state = 1919;
    enum { CAP = 6000 };
    ari_gantt_state *s = malloc(CAP * sizeof *s);
    assert_non_null(s);
    for (int round = 0; round < 90; round++) {
        int depths = 1 + round % 4, overlap = round % 5 == 4, order = round % 3;
        int nvalues = round % 7 == 6 ? (1 << 20) + 5 : 3 + round % 6; /* the first: merge_sorted's way */
        int64_t n = random_row(s, CAP, depths, nvalues, overlap, order);
        double t0 = rng_uniform() * 300, t1 = t0 + 1 + rng_uniform() * (round % 2 ? 700 : 40);
        if (round % 10 == 0) {
            t0 = 0;
            t1 = 1000;
        }
        int width = 1 + (int)(rng_uniform() * 300);
        ari_state_row_result r;
        ari_error err = {0};
        assert_int_equal(ari_state_row_render(s, n, nvalues, t0, t1, width, 0, &r, &err), 0);
        int64_t m;
        ref_cell *want = ref_render(s, n, t0, t1, width, &m);
        if (r.count == 0) {
            assert_int_equal(m, 0);
        } else {
            assert_int_equal(r.mode, ARI_STATE_ROWS_PIXELS);
            assert_int_equal(r.ncells, m);
            for (int64_t i = 0; i < m; i++) {
                assert_int_equal(r.cells[i].pixel, want[i].c.pixel);
                assert_int_equal(r.cells[i].depth, want[i].c.depth);
                assert_int_equal(r.cells[i].value, want[i].c.value);
                assert_true(r.cells[i].share == want[i].c.share); /* bit for bit */
            }
        }
        free(want);
        ari_state_row_free(&r);
    }
    free(s);
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
        cmocka_unit_test(test_states_mode), cmocka_unit_test(test_pixels_by_hand),
        cmocka_unit_test(test_random_rows), cmocka_unit_test(test_pixels_match_reference),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
