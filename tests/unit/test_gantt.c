/* test_gantt.c: Gantt row level of detail (src/analysis/gantt_aggregation.c).
 *
 * Exact per-pixel shares on hand-made rows, window edges, the switch
 * between the task and pixel modes, random rows checked for share sums
 * (shares + idle = 1 per pixel) and busy-time conservation, the window
 * lookup on a long row, and bad input. Idleness (StarVZ's 1 - task time /
 * window) and the exclusive times of nested runtime states on a small
 * StarPU-like worker stack.
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

#include "analysis/gantt_aggregation.h"
#include "test_rng.h"

/* Row A: one time unit per pixel on [0, 10) with width 10.
 *   task 0 [0, 2.5) type 0; 1 [3, 3.25) type 1; 2 [3.5, 3.75) type 0;
 *   3 [3.75, 4) type 1; 4 [6, 12) type 2. */
static const double a_start[] = {0, 3, 3.5, 3.75, 6};
static const double a_end[] = {2.5, 3.25, 3.75, 4, 12};
static const int a_type[] = {0, 1, 0, 1, 2};
static const ari_gantt_row row_a = {5, a_start, a_end, a_type, 3};

typedef struct cell_want {
    int pixel, type;
    double share;
} cell_want;

static void assert_cells(const ari_gantt_result *r, const cell_want *want, int64_t n,
                         const double *idle)
{
    assert_int_equal(r->mode, ARI_GANTT_PIXELS);
    assert_int_equal(r->ncells, n);
    for (int64_t i = 0; i < n; i++) {
        const ari_gantt_cell *c = &r->cells[i];
        if (c->pixel != want[i].pixel || c->type != want[i].type || c->share != want[i].share)
            fail_msg("cell %lld: pixel %d type %d share %.17g, want %d %d %.17g", (long long)i,
                     c->pixel, c->type, c->share, want[i].pixel, want[i].type, want[i].share);
    }
    for (int c = 0; c < r->width; c++) {
        if (r->idle[c] != idle[c])
            fail_msg("pixel %d: idle %.17g, want %.17g", c, r->idle[c], idle[c]);
        for (int64_t j = r->pixel_offset[c]; j < r->pixel_offset[c + 1]; j++)
            assert_int_equal(r->cells[j].pixel, c);
    }
    assert_int_equal(r->pixel_offset[r->width], r->ncells);
}

static void test_exact_shares(void **state)
{
    (void)state;
    ari_gantt_result r;
    ari_error err = {0};
    /* 5 tasks > max_tasks 4: pixels. Pixel 3 merges tasks 1 and 3 (type 1,
     * first seen in the pixel) and holds task 2 (type 0). */
    assert_int_equal(ari_gantt_render_row(&row_a, 0, 10, 10, 4, &r, &err), 0);
    cell_want want[] = {{0, 0, 1},   {1, 0, 1},   {2, 0, 0.5}, {3, 1, 0.5}, {3, 0, 0.25},
                        {6, 2, 1},   {7, 2, 1},   {8, 2, 1},   {9, 2, 1}};
    double idle[] = {0, 0, 0.5, 0.25, 1, 1, 0, 0, 0, 0};
    assert_cells(&r, want, 9, idle);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.count, 5);
    ari_gantt_result_free(&r);

    /* Clipped window [2, 7) on 5 pixels: task 0 and 4 cut at the edges. */
    assert_int_equal(ari_gantt_render_row(&row_a, 2, 7, 5, 2, &r, &err), 0);
    cell_want want2[] = {{0, 0, 0.5}, {1, 1, 0.5}, {1, 0, 0.25}, {4, 2, 1}};
    double idle2[] = {0.5, 0.25, 1, 1, 0};
    assert_cells(&r, want2, 4, idle2);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.count, 5);
    ari_gantt_result_free(&r);

    /* Pixels of a third: [0.1, 0.9) on [0, 1) with 3 pixels gives
     * 0.7, 1, 0.7 (up to rounding). */
    double s[] = {0.1}, e[] = {0.9};
    int t[] = {0};
    ari_gantt_row row = {1, s, e, t, 1};
    assert_int_equal(ari_gantt_render_row(&row, 0, 1, 3, 0, &r, &err), 0);
    assert_int_equal(r.ncells, 3);
    double shares[] = {0.7, 1, 0.7};
    for (int c = 0; c < 3; c++) {
        assert_true(fabs(r.cells[c].share - shares[c]) < 1e-12);
        assert_true(fabs(r.cells[c].share + r.idle[c] - 1) < 1e-12);
    }
    ari_gantt_result_free(&r);
}

static void test_mode_switch_and_edges(void **state)
{
    (void)state;
    ari_gantt_result r;
    ari_error err = {0};
    /* Default rule: at most width / 2 tasks are returned individually. */
    assert_int_equal(ari_gantt_render_row(&row_a, 0, 10, 10, -1, &r, &err), 0);
    assert_int_equal(r.mode, ARI_GANTT_TASKS);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.count, 5);
    assert_null(r.cells);
    ari_gantt_result_free(&r);
    assert_int_equal(ari_gantt_render_row(&row_a, 0, 10, 9, -1, &r, &err), 0);
    assert_int_equal(r.mode, ARI_GANTT_PIXELS); /* 5 > 9 / 2 */
    ari_gantt_result_free(&r);
    assert_int_equal(ari_gantt_render_row(&row_a, 0, 10, 10, 5, &r, &err), 0);
    assert_int_equal(r.mode, ARI_GANTT_TASKS);
    ari_gantt_result_free(&r);

    /* [t0, t1) is half-open: task 0 ends at 2.5, task 4 starts at 6. */
    assert_int_equal(ari_gantt_render_row(&row_a, 2.5, 3, 10, -1, &r, &err), 0);
    assert_int_equal(r.mode, ARI_GANTT_TASKS);
    assert_int_equal(r.count, 0);
    ari_gantt_render_row(&row_a, 4, 6, 10, 0, &r, &err);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.mode, ARI_GANTT_TASKS); /* 0 <= 0 */
    ari_gantt_render_row(&row_a, 3.25, 3.75, 10, -1, &r, &err);
    assert_int_equal(r.first, 2);
    assert_int_equal(r.count, 1);
    ari_gantt_render_row(&row_a, 100, 200, 10, -1, &r, &err);
    assert_int_equal(r.first, 5);
    assert_int_equal(r.count, 0);
    ari_gantt_render_row(&row_a, -5, 0.5, 10, -1, &r, &err);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.count, 1);

    /* A zero-length task belongs to the window holding its instant. */
    double s[] = {1, 2, 2, 3}, e[] = {2, 2, 3, 4};
    int t[] = {0, 1, 0, 0};
    ari_gantt_row row = {4, s, e, t, 2};
    ari_gantt_render_row(&row, 2, 3, 4, -1, &r, &err);
    assert_int_equal(r.first, 1);
    assert_int_equal(r.count, 2);
    ari_gantt_render_row(&row, 0, 2, 4, -1, &r, &err);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.count, 1);
    /* ... and contributes no time to the pixels. */
    assert_int_equal(ari_gantt_render_row(&row, 1.5, 2.5, 2, 0, &r, &err), 0);
    assert_int_equal(r.ncells, 2);
    assert_true(r.cells[0].pixel == 0 && r.cells[0].type == 0 && r.cells[0].share == 1);
    assert_true(r.cells[1].pixel == 1 && r.cells[1].type == 0 && r.cells[1].share == 1);
    ari_gantt_result_free(&r);
}

/* Column c starts at t0 + (t1 - t0) c / width (gantt_aggregation.h's layout). */
static double column_start(double t0, double t1, int width, int c)
{
    return t0 + (t1 - t0) * c / width;
}

/* Times just below a column boundary for which the naive column index
 * floor((t - t0) / (t1 - t0) width) rounds up to the next column: a task
 * [t, boundary) must still land in the column before. */
static void test_rounding_at_column_edges(void **state)
{
    (void)state;
    int cases = 0;
    for (int width = 3; width < 200 && cases < 20; width++)
        for (int j = 1; j < 50; j++) {
            double t0 = j * 0.1, t1 = t0 + j * 0.37 + 0.01;
            for (int c = 1; c < width; c++) {
                double b = column_start(t0, t1, width, c), t = nextafter(b, -INFINITY);
                if (floor((t - t0) / (t1 - t0) * width) < c)
                    continue;
                double s[] = {t}, e[] = {b};
                int type[] = {0};
                ari_gantt_row row = {1, s, e, type, 1};
                ari_gantt_result r;
                ari_error err = {0};
                assert_int_equal(ari_gantt_render_row(&row, t0, t1, width, 0, &r, &err), 0);
                if (r.ncells != 1 || r.cells[0].pixel != c - 1 || !(r.cells[0].share > 0))
                    fail_msg("task [%.17g, %.17g) on [%.17g, %.17g) x %d: %lld cells, want one "
                             "in column %d",
                             t, b, t0, t1, width, (long long)r.ncells, c - 1);
                ari_gantt_result_free(&r);
                cases++;
            }
        }
    assert_true(cases > 0);
    print_message("[  INFO    ] %d column-edge rounding cases checked\n", cases);
}

static void test_random_rows(void **state)
{
    (void)state;
    enum { N = 3000, K = 4 };
    double *s = malloc(N * sizeof *s), *e = malloc(N * sizeof *e);
    int *t = malloc(N * sizeof *t);
    for (uint64_t seed = 1; seed <= 200; seed++) {
        rng_state = seed * 0x9e3779b97f4a7c15ULL;
        int n = (int)(rng_uniform() * N);
        double clock = rng_uniform() * 10;
        for (int i = 0; i < n; i++) {
            s[i] = clock + (rng_uniform() < 0.5 ? 0 : rng_uniform() * 3);
            e[i] = s[i] + (rng_uniform() < 0.05 ? 0 : rng_uniform() * rng_uniform() * 5);
            t[i] = (int)(rng_uniform() * K);
            clock = e[i];
        }
        double t0 = rng_uniform() * clock, t1 = t0 + 0.01 + rng_uniform() * (clock - t0 + 1);
        int width = 1 + (int)(rng_uniform() * 500);
        ari_gantt_row row = {n, s, e, t, K};
        ari_gantt_result r;
        ari_error err = {0};
        assert_int_equal(ari_gantt_render_row(&row, t0, t1, width, 0, &r, &err), 0);

        /* The window, by a linear scan. */
        int64_t first = -1, count = 0;
        double busy[K] = {0};
        for (int i = 0; i < n; i++) {
            int in = (s[i] < t1 && e[i] > t0) || (s[i] == e[i] && s[i] >= t0 && s[i] < t1);
            if (in) {
                first = first < 0 ? i : first;
                count++;
                double a = s[i] > t0 ? s[i] : t0, b = e[i] < t1 ? e[i] : t1;
                busy[t[i]] += b - a;
            }
        }
        assert_int_equal(r.count, count);
        if (count)
            assert_int_equal(r.first, first);
        if (count == 0) {
            assert_int_equal(r.mode, ARI_GANTT_TASKS);
            continue;
        }
        assert_int_equal(r.mode, ARI_GANTT_PIXELS);
        assert_true(r.ncells <= count + width);
        double got[K] = {0};
        double px = (t1 - t0) / width;
        for (int c = 0; c < width; c++) {
            double sum = r.idle[c];
            assert_true(r.idle[c] >= 0 && r.idle[c] <= 1);
            for (int64_t j = r.pixel_offset[c]; j < r.pixel_offset[c + 1]; j++) {
                assert_true(r.cells[j].share > 0 && r.cells[j].share <= 1);
                for (int64_t k = r.pixel_offset[c]; k < j; k++)
                    assert_true(r.cells[k].type != r.cells[j].type);
                sum += r.cells[j].share;
                got[r.cells[j].type] += r.cells[j].share * px;
            }
            if (fabs(sum - 1) > 1e-9)
                fail_msg("seed %llu pixel %d: shares + idle = %.17g", (unsigned long long)seed,
                         c, sum);
        }
        for (int k = 0; k < K; k++)
            if (fabs(got[k] - busy[k]) > 1e-9 * (1 + busy[k]))
                fail_msg("seed %llu type %d: %.17g time in pixels, %.17g in tasks",
                         (unsigned long long)seed, k, got[k], busy[k]);
        ari_gantt_result_free(&r);
    }
    free(s), free(e), free(t);
}

static void test_long_row_window(void **state)
{
    (void)state;
    enum { N = 2000000 };
    double *s = malloc(N * sizeof *s), *e = malloc(N * sizeof *e);
    int *t = calloc(N, sizeof *t);
    for (int i = 0; i < N; i++)
        s[i] = i, e[i] = i + 0.5;
    ari_gantt_row row = {N, s, e, t, 1};
    ari_gantt_result r;
    ari_error err = {0};
    assert_int_equal(ari_gantt_render_row(&row, 1234567.25, 1234577, 100, -1, &r, &err), 0);
    assert_int_equal(r.mode, ARI_GANTT_TASKS);
    assert_int_equal(r.first, 1234567);
    assert_int_equal(r.count, 10);
    /* The order is only checked inside the window: an overlap elsewhere
     * goes unseen, one inside is an error. */
    e[10] = 11.5;
    assert_int_equal(ari_gantt_render_row(&row, 1000, 1010, 100, -1, &r, &err), 0);
    ari_error_clear(&err);
    assert_int_equal(ari_gantt_render_row(&row, 0, 20, 100, -1, &r, &err), -1);
    assert_non_null(strstr(err.message, "task 11 starts at 11, before task 10 ends"));
    free(s), free(e), free(t);
}

static void test_errors(void **state)
{
    (void)state;
    ari_gantt_result r;
    ari_error err;
    struct {
        const ari_gantt_row *row;
        double t0, t1;
        int width;
        const char *why;
    } bad[] = {
        {&row_a, 5, 5, 10, "t0 < t1"},
        {&row_a, 6, 5, 10, "t0 < t1"},
        {&row_a, NAN, 5, 10, "finite"},
        {&row_a, 0, INFINITY, 10, "finite"},
        {&row_a, 0, 10, 0, "width 0"},
        {&row_a, 0, 10, ARI_GANTT_MAX_WIDTH + 1, "width"},
        {&(ari_gantt_row){5, a_start, a_end, NULL, 3}, 0, 10, 10, "bad row"},
        {&(ari_gantt_row){5, a_start, a_end, a_type, 0}, 0, 10, 10, "bad row"},
        {&(ari_gantt_row){5, a_start, a_end, a_type, 2}, 0, 10, 10, "type id 2"},
        {&(ari_gantt_row){2, (double[]){0, 1}, (double[]){2, 3}, a_type, 3}, 0, 10, 10,
         "before task 0 ends"},
        {&(ari_gantt_row){2, (double[]){0, 1}, (double[]){0.5, NAN}, a_type, 3}, 0, 10, 10,
         "invalid times"},
        {&(ari_gantt_row){1, (double[]){1}, (double[]){0.5}, a_type, 3}, 0, 10, 10,
         "invalid times"},
        {NULL, 0, 10, 10, "no row"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_gantt_render_row(bad[i].row, bad[i].t0, bad[i].t1, bad[i].width,
                                              -1, &r, &err),
                         -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
        assert_null(r.cells);
    }
    assert_int_equal(ari_gantt_render_row(&row_a, 0, 1, 1, -1, NULL, &err), -1);
}

/* Idleness of row A: tasks cover 2.5 + 0.25 + 0.25 + 0.25 + 6 = 9.25 of
 * [0, 12) -> 1 - 9.25 / 12; of [2, 7): 0.5 + 0.75 + 1 = 2.25 of 5. */
static void test_idle(void **state)
{
    (void)state;
    assert_float_equal(ari_gantt_task_time(a_start, a_end, 5, 0, 12), 9.25, 1e-12);
    assert_float_equal(ari_gantt_idle(a_start, a_end, 5, 0, 12), 1 - 9.25 / 12, 1e-12);
    assert_float_equal(ari_gantt_idle(a_start, a_end, 5, 2, 7), 1 - 2.25 / 5, 1e-12);
    assert_float_equal(ari_gantt_idle(a_start, a_end, 5, 20, 30), 1, 0);    /* no task */
    assert_float_equal(ari_gantt_idle(a_start, a_end, 5, 6.5, 8), 0, 0);    /* inside task 4 */
    assert_float_equal(ari_gantt_idle(a_start, a_end, 0, 0, 1), 1, 0);      /* no tasks at all */
    /* overlapping tasks are summed (StarVZ), then clamped at 0 idle */
    const double os[] = {0, 0}, oe[] = {1, 1};
    assert_float_equal(ari_gantt_task_time(os, oe, 2, 0, 1), 2, 0);
    assert_float_equal(ari_gantt_idle(os, oe, 2, 0, 1), 0, 0);
    assert_true(isnan(ari_gantt_idle(a_start, a_end, 5, 3, 3)));
    assert_true(isnan(ari_gantt_idle(a_start, a_end, 5, 0, INFINITY)));
}

/* A worker's stack (values: 0 Sleeping, 1 Overhead, 2 Callback,
 * 3 Scheduling, 4 dgemm):
 *   Sleeping [0, 4); Overhead [4, 10) holding Callback [5, 8) which holds
 *   Scheduling [6, 7); dgemm [10, 13); Overhead [13, 14) holding
 *   Scheduling [13, 13.5). */
static const ari_gantt_state stack[] = {
    {0, 0, 0, 4},  {1, 0, 4, 10},    {2, 1, 5, 8},    {3, 2, 6, 7},
    {4, 0, 10, 13}, {1, 0, 13, 14}, {3, 1, 13, 13.5},
};

static void test_state_times(void **state)
{
    (void)state;
    ari_error err = {0};
    double t[5];
    assert_int_equal(ari_gantt_state_times(stack, 7, 0, 14, 5, t, &err), 0);
    const double whole[] = {4, 3 + 0.5, 2, 1 + 0.5, 3};
    double sum = 0;
    for (int v = 0; v < 5; v++) {
        assert_float_equal(t[v], whole[v], 1e-12);
        sum += t[v];
    }
    assert_float_equal(sum, 14, 1e-12); /* a full stack adds up to the window */
    /* window [5.5, 13.25): Overhead (4.5 - 2.5) + (0.25 - 0.25), Callback
     * 2.5 - 1, Scheduling 1 + 0.25, dgemm 3: 7.75 in all */
    assert_int_equal(ari_gantt_state_times(stack, 7, 5.5, 13.25, 5, t, &err), 0);
    const double part[] = {0, 2, 1.5, 1.25, 3};
    sum = 0;
    for (int v = 0; v < 5; v++) {
        assert_float_equal(t[v], part[v], 1e-12);
        sum += t[v];
    }
    assert_float_equal(sum, 7.75, 1e-12);
    /* a nested state without an overlapping parent keeps its time */
    const ari_gantt_state orphan[] = {{0, 0, 0, 1}, {1, 1, 2, 3}};
    assert_int_equal(ari_gantt_state_times(orphan, 2, 0, 3, 2, t, &err), 0);
    assert_float_equal(t[0], 1, 0);
    assert_float_equal(t[1], 1, 0);
    /* bad input */
    const ari_gantt_state unsorted[] = {{0, 0, 2, 3}, {1, 0, 1, 2}};
    const ari_gantt_state bad_value[] = {{5, 0, 0, 1}};
    const ari_gantt_state bad_time[] = {{0, 0, 2, 1}};
    const ari_gantt_state child_first[] = {{1, 1, 0, 1}, {0, 0, 0, 2}};
    const struct {
        const ari_gantt_state *s;
        const char *why;
    } bad[] = {{unsorted, "out of order"}, {bad_value, "value 5"}, {bad_time, "invalid times"},
               {child_first, "out of order"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_gantt_state_times(bad[i].s, i == 0 || i == 3 ? 2 : 1, 0, 3, 2, t, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_shares),
        cmocka_unit_test(test_mode_switch_and_edges),
        cmocka_unit_test(test_rounding_at_column_edges),
        cmocka_unit_test(test_random_rows),
        cmocka_unit_test(test_long_row_window),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_idle),
        cmocka_unit_test(test_state_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
