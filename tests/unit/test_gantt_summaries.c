/* test_gantt_summaries.c: the Gantt's multi-resolution summaries (issue 20;
 * analysis/gantt_summary.c, store/gantt_summaries.c) against the exact
 * paths, ari_gantt_render_row and ari_gantt_state_times:
 *   - random and adversarial rows (long tasks over hundreds of buckets,
 *     zero-length tasks and states, nested states three deep, window edges
 *     inside buckets): exact (1e-9) when pixel edges fall on bucket edges,
 *     else within the header's bound, 1 / (2 K) of a pixel (K buckets per
 *     pixel) and of the window for the states;
 *   - a generated StarPU trace (gen/cholesky_sim.h) imported into SQLite
 *     with every row summarised: the store's readers against the raw rows
 *     (ari_gantt_rows_read, ari_tq_worker_states), the same bounds, and
 *     exact state times for windows too narrow for the levels (read raw
 *     from the row's longest state back); with the default row size the
 *     small trace gets no summaries and readers say 0;
 *   - on PostgreSQL (the CTest fixture `pg`; skipped without it) the same
 *     import gives the same stored blobs, and the readers the same answers.
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
#include "analysis/gantt_summary.h"
#include "gen/cholesky_sim.h"
#include "import/import.h"
#include "store/analysis_cache.h"
#include "store/gantt_rows.h"
#include "store/gantt_summaries.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store/task_queries.h"
#include "test_helpers.h"
#include "util/fs.h"

#define NTYPES 5
#define EPS    1e-9

static uint64_t rng_state;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* ---- random rows ---- */

typedef struct task_row {
    int64_t n;
    double *start, *end;
    int *type;
} task_row;

/* Sorted, non-overlapping tasks over [lo, hi): gaps, one in ten of zero
 * length, one in twenty spanning up to `long_span`. */
static task_row random_tasks(int64_t n, double lo, double hi, double mean, double long_span)
{
    task_row r = {0, malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double)),
                  malloc((size_t)n * sizeof(int))};
    assert_true(r.start && r.end && r.type);
    double t = lo + uniform() * mean;
    for (int64_t i = 0; i < n && t < hi; i++) {
        double u = uniform(), len = u < 0.1 ? 0 : u < 0.15 ? uniform() * long_span : uniform() * mean;
        r.start[r.n] = t;
        r.end[r.n] = t + len < hi ? t + len : hi;
        r.type[r.n] = (int)(uniform() * NTYPES);
        r.n++;
        t = r.end[r.n - 1] + (uniform() < 0.5 ? 0 : uniform() * mean);
    }
    return r;
}

static void free_tasks(task_row *r)
{
    free(r->start), free(r->end), free(r->type);
}

typedef struct state_list {
    ari_gantt_state *v;
    int64_t n, cap;
} state_list;

static void push_state(state_list *l, ari_gantt_state st)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n++] = st;
}

/* Properly nested states in [s, e) at depth d (preorder: by start, then
 * depth), a few zero-length ones, values 0..NTYPES-1. */
static void random_states(state_list *l, double s, double e, int depth, double mean)
{
    double t = s;
    while (t < e) {
        double len = uniform() < 0.05 ? 0 : uniform() * mean * (depth == 0 ? 8 : 1);
        double end = t + len < e ? t + len : e;
        push_state(
            l, (ari_gantt_state){.value = (int)(uniform() * NTYPES), .depth = depth, .start = t, .end = end});
        if (depth < 2 && end > t && uniform() < 0.6)
            random_states(l, t + (end - t) * uniform() * 0.3, end - (end - t) * uniform() * 0.3, depth + 1,
                          mean / 4);
        t = end + (uniform() < 0.5 ? 0 : uniform() * mean);
    }
}

/* ---- exact pixels ---- */

/* shares[c * NTYPES + k] of a result (any mode: tasks mode has none). */
static double *dense_shares(const ari_gantt_result *res, int width, int ntypes)
{
    double *d = calloc((size_t)width * (size_t)ntypes, sizeof *d);
    assert_non_null(d);
    for (int64_t i = 0; res->mode == ARI_GANTT_PIXELS && i < res->ncells; i++)
        d[res->cells[i].pixel * ntypes + res->cells[i].type] += res->cells[i].share;
    return d;
}

/* The largest difference of shares and idle between two renderings. */
static double max_diff(const ari_gantt_result *a, const ari_gantt_result *b, int width, int ntypes)
{
    double *x = dense_shares(a, width, ntypes), *y = dense_shares(b, width, ntypes), worst = 0;
    for (int i = 0; i < width * ntypes; i++)
        worst = fmax(worst, fabs(x[i] - y[i]));
    for (int c = 0; c < width; c++) {
        double ia = a->mode == ARI_GANTT_PIXELS ? a->idle[c] : 1,
               ib = b->mode == ARI_GANTT_PIXELS ? b->idle[c] : 1;
        worst = fmax(worst, fabs(ia - ib));
    }
    free(x), free(y);
    return worst;
}

/* The cells of an accumulator, whole grid. */
static ari_gs_cell *acc_cells(const ari_gs_acc *acc, int64_t *n)
{
    ari_gs_cell *cells = NULL;
    size_t len = 0, cap = 0;
    assert_int_equal(ari_gs_acc_cells(acc, 0, acc->grid.nbuckets, NULL, &cells, &len, &cap), 0);
    *n = (int64_t)len;
    return cells;
}

static const int identity[NTYPES] = {0, 1, 2, 3, 4};

/* Renders [t0, t1) x width from the cells and exactly; returns the
 * largest difference. */
static double pixels_diff(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const task_row *r,
                          double t0, double t1, int width)
{
    ari_error err = {0};
    ari_gantt_result approx, exact;
    assert_int_equal(ari_gs_pixels(g, cells, n, identity, NTYPES, NTYPES, t0, t1, width, &approx, &err), 0);
    ari_gantt_row row = {r->n, r->start, r->end, r->type, NTYPES};
    if (ari_gantt_render_row(&row, t0, t1, width, 0, &exact, &err) != 0)
        fail_msg("render: %s", err.message);
    double d = max_diff(&approx, &exact, width, NTYPES);
    ari_gantt_result_free(&approx);
    ari_gantt_result_free(&exact);
    return d;
}

static void test_pixels_random_rows(void **state)
{
    (void)state;
    rng_state = 11;
    ari_gs_grid g = {0, 1024, 1024}; /* buckets of length 1: edges are exact */
    for (int round = 0; round < 6; round++) {
        task_row r = random_tasks(4000, 0, 1024, 0.4 + round * 0.3, round % 2 ? 300 : 30);
        ari_error err = {0};
        ari_gs_acc acc;
        assert_int_equal(ari_gs_acc_init(&acc, g, NTYPES, &err), 0);
        ari_gs_acc_tasks(&acc, r.start, r.end, r.type, r.n);
        int64_t n;
        ari_gs_cell *cells = acc_cells(&acc, &n);
        /* pixel edges on bucket edges: exact */
        assert_true(pixels_diff(&g, cells, n, &r, 0, 1024, 64) < EPS);
        assert_true(pixels_diff(&g, cells, n, &r, 128, 640, 128) < EPS);
        assert_true(pixels_diff(&g, cells, n, &r, 3, 7, 4) < EPS);
        /* edges inside buckets: within 1 / (2 K) */
        for (int w = 0; w < 40; w++) {
            double t0 = uniform() * 900, t1 = t0 + 8 + uniform() * (1024 - t0 - 8);
            int width = 1 + (int)(uniform() * 200);
            double k = (t1 - t0) / width; /* buckets per pixel */
            if (k < 1)
                continue;
            double d = pixels_diff(&g, cells, n, &r, t0, t1, width);
            if (d > 1 / (2 * k) + EPS)
                fail_msg("window [%g, %g) x %d: off by %g, bound %g", t0, t1, width, d, 1 / (2 * k));
        }
        free(cells);
        ari_gs_acc_free(&acc);
        free_tasks(&r);
    }
}

/* One task over the whole grid, zero-length tasks on bucket edges, a task
 * ending exactly on the window's start: shares are exact on any grid
 * aligned window, and a long task's pixels all read 1. */
static void test_pixels_adversarial(void **state)
{
    (void)state;
    double start[] = {0, 1, 1, 5.5, 100, 100, 1000}, end[] = {1, 1, 5.5, 100, 100, 1000, 1024};
    int type[] = {0, 1, 2, 3, 4, 0, 1};
    task_row r = {7, start, end, type};
    ari_gs_grid g = {0, 1024, 1024};
    ari_error err = {0};
    ari_gs_acc acc;
    assert_int_equal(ari_gs_acc_init(&acc, g, NTYPES, &err), 0);
    ari_gs_acc_tasks(&acc, start, end, type, 7);
    int64_t n;
    ari_gs_cell *cells = acc_cells(&acc, &n);
    assert_true(pixels_diff(&g, cells, n, &r, 0, 1024, 1024) < EPS);
    assert_true(pixels_diff(&g, cells, n, &r, 1, 5, 4) < EPS);
    assert_true(pixels_diff(&g, cells, n, &r, 100, 1000, 900) < EPS);
    ari_gantt_result res;
    assert_int_equal(ari_gs_pixels(&g, cells, n, identity, NTYPES, NTYPES, 200, 900, 70, &res, &err), 0);
    for (int c = 0; c < 70; c++) {
        assert_int_equal(res.pixel_offset[c + 1] - res.pixel_offset[c], 1);
        assert_true(fabs(res.cells[res.pixel_offset[c]].share - 1) < EPS);
        assert_true(res.idle[c] < EPS);
    }
    ari_gantt_result_free(&res);
    /* pixel edges inside buckets (2 per pixel): within 1/4 */
    double d = pixels_diff(&g, cells, n, &r, 4.5, 8.5, 2);
    assert_true(d <= 0.25 + EPS);
    free(cells);
    ari_gs_acc_free(&acc);
}

/* Overlapping tasks are clamped as the raw path clamps them (an end
 * beyond the next start is cut to it). */
static void test_pixels_clamp(void **state)
{
    (void)state;
    double start[] = {0, 2, 3}, end[] = {4, 10, 3.5};
    int type[] = {0, 1, 2};
    ari_gs_grid g = {0, 16, 16};
    ari_error err = {0};
    ari_gs_acc acc;
    assert_int_equal(ari_gs_acc_init(&acc, g, NTYPES, &err), 0);
    ari_gs_acc_tasks(&acc, start, end, type, 3);
    double expect_end[] = {2, 3, 3.5};
    double t[NTYPES] = {0};
    int64_t n;
    ari_gs_cell *cells = acc_cells(&acc, &n);
    ari_gs_window_times(&g, cells, n, identity, NTYPES, 0, 16, t);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(t[type[i]] - (expect_end[i] - start[i])) < EPS);
    free(cells);
    ari_gs_acc_free(&acc);
}

static void states_check(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const state_list *l,
                         double t0, double t1, double bound)
{
    ari_error err = {0};
    double exact[NTYPES], approx[NTYPES] = {0};
    assert_int_equal(ari_gantt_state_times(l->v, l->n, t0, t1, NTYPES, exact, &err), 0);
    ari_gs_window_times(g, cells, n, identity, NTYPES, t0, t1, approx);
    for (int v = 0; v < NTYPES; v++)
        if (fabs(fmax(approx[v], 0) - exact[v]) > bound + EPS * (t1 - t0))
            fail_msg("[%g, %g) value %d: %.12g against %.12g (bound %g)", t0, t1, v, approx[v], exact[v],
                     bound);
}

/* A window whose ends were printed with 12 digits (the dashboard sends
 * the extent back so) leaves the extent by an ulp: still drawn from the
 * summaries; one leaving it by a bucket is not. */
static void test_level_at_the_extent(void **state)
{
    (void)state;
    ari_gs_grid levels[2] = {{-7.8846216689999995, 269943.814814422, 1024},
                             {-7.8846216689999995, 269943.814814422, 65536}};
    assert_int_equal(ari_gs_pick_level(levels, 2, -7.884621669, 269943.814814, 1920, 8), 1);
    assert_int_equal(ari_gs_pick_level(levels, 2, -7.884621669, 269943.814815, 100, 8), 0);
    assert_int_equal(ari_gs_pick_level(levels, 2, -7.8846216689999995 - 5, 269943.814814422, 100, 8), -1);
    assert_int_equal(ari_gs_pick_level(levels, 2, 0, 269943.814814422 + 5, 100, 8), -1);
}

static void test_states_random(void **state)
{
    (void)state;
    rng_state = 5;
    ari_gs_grid g = {0, 4096, 4096};
    for (int round = 0; round < 4; round++) {
        state_list l = {0};
        random_states(&l, 0, 4096, 0, 2 + round * 3);
        ari_error err = {0};
        ari_gs_acc acc;
        assert_int_equal(ari_gs_acc_init(&acc, g, NTYPES, &err), 0);
        assert_int_equal(ari_gs_acc_states(&acc, l.v, l.n, &err), 0);
        int64_t n;
        ari_gs_cell *cells = acc_cells(&acc, &n);
        states_check(&g, cells, n, &l, 0, 4096, 0);
        states_check(&g, cells, n, &l, 17, 1800, 0);
        for (int w = 0; w < 50; w++) {
            double t0 = uniform() * 4000, t1 = t0 + 1 + uniform() * (4096 - t0 - 1);
            states_check(&g, cells, n, &l, t0, t1, 0.5); /* two edge buckets of length 1: 1/4 each */
        }
        free(cells);
        ari_gs_acc_free(&acc);
        free(l.v);
    }
}

/* ---- the store ---- */

typedef struct fixture {
    char *dir, *gen, *work, *db_path;
    ari_store *s;
    int64_t id;
} fixture;

static void generate(fixture *f)
{
    assert_true(asprintf(&f->gen, "%s/chol", f->dir) > 0);
    chol_node_cfg cfg[2] = {{3, 1, 1.0}, {2, 1, 1.5}};
    chol_options opt = {
        .out_dir = f->gen, .tiles = 14, .block_size = 960, .nodes = 2, .seed = 3, .node_cfg = cfg};
    chol_summary sum;
    ari_error err = {0};
    if (chol_sim_run(&opt, &sum, &err) < 0)
        fail_msg("generate: %s", err.message);
}

static int64_t import_into(ari_store *s, const char *gen, const char *work)
{
    ari_error err = {0};
    int64_t id = test_import_trace(s, gen, work, &err);
    if (id < 0)
        fail_msg("import: %s", err.message);
    return id;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->dir = test_tmpdir();
    assert_true(asprintf(&f->db_path, "%s/t.db", f->dir) > 0);
    assert_true(asprintf(&f->work, "%s/work", f->dir) > 0);
    assert_int_equal(mkdir(f->work, 0700), 0);
    generate(f);
    ari_error err = {0};
    f->s = ari_store_open(f->db_path, &err);
    assert_non_null(f->s);
    ari_gantt_summaries_set_min_rows(0); /* every row summarised and read from its summary */
    f->id = import_into(f->s, f->gen, f->work);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ari_gantt_summaries_set_min_rows(-1);
    ari_rows_flush();
    ari_store_close(f->s);
    ari_remove_tree(f->dir);
    free(f->db_path), free(f->work), free(f->gen), free(f->dir);
    free(f);
    return 0;
}

/* The buckets per pixel of the level the readers pick. */
static double buckets_per_pixel(ari_store *s, int64_t id, double t0, double t1, int width, double k)
{
    ari_gs_grid levels[8];
    int n;
    ari_error err = {0};
    assert_int_equal(ari_gantt_summary_levels(s, id, levels, 8, &n, &err), 0);
    int l = ari_gs_pick_level(levels, n, t0, t1, width, k);
    assert_true(l >= 0);
    return (double)levels[l].nbuckets * (t1 - t0) / (levels[l].t1 - levels[l].t0) / width;
}

/* One worker's row as the raw Gantt path sees it (api_gantt.c's collect
 * without filters: ends clamped to the next start). */
static void clamp_row(ari_row_tasks *r)
{
    for (int64_t i = 0; i < r->ntasks; i++) {
        if (r->end[i] < r->start[i])
            r->end[i] = r->start[i];
        if (i > 0 && r->end[i - 1] > r->start[i])
            r->end[i - 1] = r->start[i];
    }
}

static void check_worker_pixels(fixture *f, const ari_tq_meta *m, const ari_row_tasks *row, double t0,
                                double t1, int width, double bound)
{
    ari_error err = {0};
    ari_gantt_result approx, exact;
    int rc = ari_gantt_summary_pixels(f->s, f->id, m, row->worker_id, t0, t1, width, &approx, &err);
    assert_int_equal(rc, 1);
    ari_gantt_row in = {row->ntasks, row->start, row->end, row->type, m->ntypes};
    if (ari_gantt_render_row(&in, t0, t1, width, 0, &exact, &err) != 0)
        fail_msg("render: %s", err.message);
    double d = max_diff(&approx, &exact, width, m->ntypes);
    if (d > bound + EPS)
        fail_msg("worker %lld [%g, %g) x %d: off by %g, bound %g", (long long)row->worker_id, t0, t1, width,
                 d, bound);
    ari_gantt_result_free(&approx);
    ari_gantt_result_free(&exact);
}

static void check_worker_states(fixture *f, const ari_tq_meta *m, int64_t worker, double t0, double t1,
                                double bound)
{
    ari_error err = {0};
    ari_gantt_state_totals approx;
    assert_int_equal(ari_gantt_summary_states(f->s, f->id, m, worker, t0, t1, &approx, &err), 1);
    ari_tq_states st;
    assert_int_equal(ari_tq_worker_states(f->s, f->id, m, worker, t0, t1, &st, &err), 0);
    double *exact = calloc((size_t)st.nvalues + 1, sizeof *exact);
    assert_int_equal(ari_gantt_state_times(st.states, st.n, t0, t1, st.nvalues, exact, &err), 0);
    for (int v = 0; v < st.nvalues; v++) { /* every exact value is there, and agrees */
        double a = 0;
        for (int u = 0; u < approx.nvalues; u++)
            if (strcmp(approx.names[u], st.names[v]) == 0) {
                a = approx.time[u];
                assert_int_equal(approx.is_task[u], st.is_task[v]);
            }
        if (fabs(a - exact[v]) > bound + EPS * (t1 - t0))
            fail_msg("worker %lld %s [%g, %g): %.12g against %.12g (bound %g)", (long long)worker,
                     st.names[v], t0, t1, a, exact[v], bound);
    }
    for (int u = 0; u < approx.nvalues; u++) { /* and no value the raw path lacks has time */
        int found = 0;
        for (int v = 0; v < st.nvalues; v++)
            found |= strcmp(approx.names[u], st.names[v]) == 0;
        assert_true(found || approx.time[u] <= bound + EPS * (t1 - t0));
    }
    free(exact);
    ari_tq_states_free(&st);
    ari_gantt_state_totals_free(&approx);
}

static void test_store_against_raw(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    ari_tq_meta *m;
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &m, &err), 0);
    ari_row_tasks *rows = calloc((size_t)m->nworkers, sizeof *rows);
    for (int i = 0; i < m->nworkers; i++)
        rows[i].worker_id = m->workers[i].id;
    assert_int_equal(ari_gantt_rows_read(f->s, f->id, m, rows, &err), 0);
    double e0 = m->extent_start, e1 = m->extent_end, span = e1 - e0;
    rng_state = 99;
    int states_seen = 0;
    for (int i = 0; i < m->nworkers; i++) {
        clamp_row(&rows[i]);
        /* the whole trace on 64 pixels: 16 buckets of 2^10 per pixel, edges shared: exact */
        check_worker_pixels(f, m, &rows[i], e0, e1, 64, 0);
        for (int w = 0; w < 10; w++) {
            double t0 = e0 + uniform() * span * 0.7, t1 = t0 + span * (0.05 + uniform() * 0.25);
            int width = 10 + (int)(uniform() * 500);
            double k = buckets_per_pixel(f->s, f->id, t0, t1, width, ARI_GANTT_SUMMARY_PIXEL_K);
            check_worker_pixels(f, m, &rows[i], t0, t1, width, 1 / (2 * k));
            double ks = buckets_per_pixel(f->s, f->id, t0, t1, 1, ARI_GANTT_SUMMARY_STATE_K);
            check_worker_states(f, m, rows[i].worker_id, t0, t1, (t1 - t0) / (2 * ks));
        }
        check_worker_states(f, m, rows[i].worker_id, e0, e1, 0);
        ari_tq_states st;
        assert_int_equal(ari_tq_worker_states(f->s, f->id, m, rows[i].worker_id, e0, e1, &st, &err), 0);
        states_seen += st.n > 0;
        ari_tq_states_free(&st);
    }
    assert_true(states_seen > 0);
    /* out of the extent, or a window too narrow for any level: 0, use raw */
    ari_gantt_result res;
    assert_int_equal(ari_gantt_summary_pixels(f->s, f->id, m, rows[0].worker_id, e0 - 1, e1, 100, &res, &err),
                     0);
    assert_int_equal(
        ari_gantt_summary_pixels(f->s, f->id, m, rows[0].worker_id, e0, e0 + span / 1e4, 100, &res, &err), 0);
    /* the states of such windows are exact, read raw from the row's longest state back */
    for (int i = 0; i < m->nworkers; i++) {
        check_worker_states(f, m, rows[i].worker_id, e0, e0 + span / 1e5, 0);
        check_worker_states(f, m, rows[i].worker_id, e0 + span * 0.5, e0 + span * 0.5003, 0);
        check_worker_states(f, m, rows[i].worker_id, e1 - span / 3000, e1, 0);
        check_worker_states(f, m, rows[i].worker_id, e0 - 1, e1 + 1, 0);
    }
    for (int i = 0; i < m->nworkers; i++)
        free(rows[i].start), free(rows[i].end), free(rows[i].type);
    free(rows);
    ari_tq_meta_free(m);
}

/* With the default row size this small trace has no summaries: the
 * readers say 0 (as for a trace imported before sql/020). */
static void test_small_rows_read_raw(void **state)
{
    fixture *f = *state;
    ari_gantt_summaries_set_min_rows(-1);
    int64_t id = import_into(f->s, f->gen, f->work);
    ari_gantt_summaries_set_min_rows(0);
    ari_error err = {0};
    ari_tq_meta *m;
    assert_int_equal(ari_tq_meta_get(f->s, id, &m, &err), 0);
    ari_gs_grid levels[8];
    int n;
    assert_int_equal(ari_gantt_summary_levels(f->s, id, levels, 8, &n, &err), 1);
    ari_gantt_result res;
    assert_int_equal(ari_gantt_summary_pixels(f->s, id, m, m->workers[0].id, m->extent_start, m->extent_end,
                                              64, &res, &err),
                     0);
    ari_gantt_state_totals tot;
    assert_int_equal(
        ari_gantt_summary_states(f->s, id, m, m->workers[0].id, m->extent_start, m->extent_end, &tot, &err),
        0);
    ari_tq_meta_free(m);
    /* the first trace has summaries (built with N = 0): with N = 20,000
     * its pixels are read raw (fewer tasks in the window), its states
     * still come from the summaries */
    ari_gantt_summaries_set_min_rows(-1);
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &m, &err), 0);
    assert_int_equal(ari_gantt_summary_pixels(f->s, f->id, m, m->workers[0].id, m->extent_start,
                                              m->extent_end, 64, &res, &err),
                     0);
    assert_int_equal(ari_gantt_summary_states(f->s, f->id, m, m->workers[0].id, m->extent_start,
                                              m->extent_end, &tot, &err),
                     1);
    ari_gantt_state_totals_free(&tot);
    ari_gantt_summaries_set_min_rows(0);
    ari_tq_meta_free(m);
}

/* ---- PostgreSQL: the same blobs ---- */

/* Steps both statements in lock step: same rows, same values. */
static int64_t same_rows(ari_stmt *a, ari_stmt *b, int ncols)
{
    int64_t rows = 0;
    for (;;) {
        int ra = ari_step(a), rb = ari_step(b);
        assert_int_equal(ra, rb);
        if (ra != ARI_ROW)
            break;
        rows++;
        for (int c = 0; c < ncols; c++) {
            assert_int_equal(ari_col_type(a, c), ari_col_type(b, c));
            if (ari_col_type(a, c) != ARI_BLOB) {
                assert_true(ari_col_double(a, c) == ari_col_double(b, c));
                continue;
            }
            int bytes = ari_col_bytes(a, c);
            assert_int_equal(bytes, ari_col_bytes(b, c));
            if (bytes > 0)
                assert_memory_equal(ari_col_blob(a, c), ari_col_blob(b, c), (size_t)bytes);
        }
    }
    return rows;
}

static void test_postgresql_round_trip(void **state)
{
    fixture *f = *state;
    test_pg_db db;
    if (!test_pg_db_create(&db, "ariadne_summaries"))
        skip();
    const char *url = db.url;
    ari_error err = {0};
    ari_store *pg = ari_store_open(url, &err);
    if (!pg)
        fail_msg("open %s: %s", url, err.message);
    int64_t id = import_into(pg, f->gen, f->work);
    static const char *const queries[] = {
        "SELECT level, nbuckets, t0, t1 FROM gantt_summary_levels WHERE trace_id = ?1 ORDER BY level",
        "SELECT worker_id, level, chunk, counts, tasks, states FROM gantt_summaries WHERE trace_id = ?1"
        " ORDER BY worker_id, level, chunk"};
    int ncols[] = {4, 6};
    for (int q = 0; q < 2; q++) {
        ari_stmt *a = ari_store_prepare(f->s, queries[q], &err), *b = ari_store_prepare(pg, queries[q], &err);
        assert_true(a && b);
        assert_int_equal(ari_store_bind_args(f->s, a, (ari_arg[]){ari_arg_int(f->id)}, 1, &err), 0);
        assert_int_equal(ari_store_bind_args(pg, b, (ari_arg[]){ari_arg_int(id)}, 1, &err), 0);
        assert_true(same_rows(a, b, ncols[q]) > 0);
        ari_stmt_finalize(a);
        ari_stmt_finalize(b);
    }
    /* and the readers answer alike */
    ari_tq_meta *m;
    assert_int_equal(ari_tq_meta_get(pg, id, &m, &err), 0);
    for (int i = 0; i < m->nworkers; i++) {
        ari_gantt_result x, y;
        assert_int_equal(ari_gantt_summary_pixels(f->s, f->id, m, m->workers[i].id, m->extent_start,
                                                  m->extent_end, 300, &x, &err),
                         1);
        assert_int_equal(ari_gantt_summary_pixels(pg, id, m, m->workers[i].id, m->extent_start, m->extent_end,
                                                  300, &y, &err),
                         1);
        assert_true(max_diff(&x, &y, 300, m->ntypes) == 0);
        ari_gantt_result_free(&x);
        ari_gantt_result_free(&y);
        ari_gantt_state_totals sx, sy;
        int rx = ari_gantt_summary_states(f->s, f->id, m, m->workers[i].id, m->extent_start, m->extent_end,
                                          &sx, &err);
        int ry =
            ari_gantt_summary_states(pg, id, m, m->workers[i].id, m->extent_start, m->extent_end, &sy, &err);
        assert_int_equal(rx, ry);
        assert_int_equal(sx.nvalues, sy.nvalues);
        for (int v = 0; v < sx.nvalues; v++) {
            assert_string_equal(sx.names[v], sy.names[v]);
            assert_true(sx.time[v] == sy.time[v]);
        }
        ari_gantt_state_totals_free(&sx);
        ari_gantt_state_totals_free(&sy);
    }
    ari_tq_meta_free(m);
    ari_store_close(pg);
    test_pg_db_drop(&db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pixels_random_rows),
        cmocka_unit_test(test_pixels_adversarial),
        cmocka_unit_test(test_pixels_clamp),
        cmocka_unit_test(test_level_at_the_extent),
        cmocka_unit_test(test_states_random),
        cmocka_unit_test_setup_teardown(test_store_against_raw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_rows_read_raw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_postgresql_round_trip, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
