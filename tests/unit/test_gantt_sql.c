/* test_gantt_sql.c: src/store/gantt_sql.c (the Gantt's per-pixel
 * aggregation in SQL) against the in-memory renderer
 * (ari_gantt_render_row, ari_gantt_idle) on the same tasks, on SQLite and,
 * with the CTest fixture `pg` (or ARIADNE_TEST_PG), on PostgreSQL. Random
 * rows of tasks side by side: short ones many to a pixel, long ones over
 * many pixels, zero-length and reversed ones, tasks starting and ending on
 * pixel edges and at the window's edges; random windows (and windows on
 * task times and pixel edges), widths from 1 to 1500, type filters and
 * min_duration. Same mode and count, same cells in the same order, shares
 * and idle shares within 1e-12 relative. Also: the rows with overlapping
 * tasks are found, and too narrow windows are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/gantt_aggregation.h"
#include "store/gantt_sql.h"
#include "store/store_internal.h"
#include "test_helpers.h"

#define NWORKERS 4
#define MAX_TASKS_PER_ROW 4000

static const char *const type_names[] = {"dgemm", "dpotrf", "dsyrk", "dtrsm"};
#define NTYPES 4

/* One generated task (types by name index). */
typedef struct gtask {
    double start, end;
    int type;
} gtask;

typedef struct fixture {
    ari_store *s;
    char *dir;             /* SQLite */
    test_pg_db db;         /* PostgreSQL */
    int64_t trace;
    gtask *rows[NWORKERS];
    int n[NWORKERS];
    int64_t worker_ids[NWORKERS];
} fixture;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static void run(ari_store *s, const char *sql, const ari_arg *args, int n)
{
    ari_error err = {0};
    if (ari_store_run(s, sql, args, n, "test insert", &err) < 0)
        fail_msg("%s: %s", sql, err.message);
}

static void push(fixture *f, int w, double start, double end, int type)
{
    assert_true(f->n[w] < MAX_TASKS_PER_ROW);
    f->rows[w][f->n[w]++] = (gtask){start, end, type};
}

/* A row of tasks side by side (never overlapping): gaps and lengths at
 * several scales, some on the grid of 1/64 (pixel edges of round
 * windows), zero-length and reversed tasks. */
static void generate_row(fixture *f, int w, int ntasks, double scale)
{
    double t = 0;
    for (int i = 0; i < ntasks; i++) {
        double u = uniform();
        double gap = u < 0.3 ? 0 : u < 0.8 ? scale * uniform() : scale * 20 * uniform();
        double len = uniform() < 0.05 ? scale * 400 * uniform() : scale * uniform();
        if (uniform() < 0.2) { /* on the grid */
            gap = floor(gap * 64) / 64;
            len = ceil(len * 64) / 64;
        }
        t += gap;
        int type = (int)(uniform() * NTYPES);
        double v = uniform();
        if (v < 0.04) {
            push(f, w, t, t, type); /* zero-length */
        } else if (v < 0.06) {
            push(f, w, t, t - scale * uniform(), type); /* reversed: drawn as zero-length */
        } else {
            push(f, w, t, t + len, type);
            t += len;
        }
    }
}

static void generate(fixture *f)
{
    for (int w = 0; w < NWORKERS; w++) {
        f->rows[w] = calloc(MAX_TASKS_PER_ROW, sizeof *f->rows[w]);
        assert_non_null(f->rows[w]);
        f->worker_ids[w] = 10 + w;
    }
    generate_row(f, 0, 3000, 0.01);
    generate_row(f, 1, 1500, 0.05);
    generate_row(f, 2, 400, 0.5);
    /* worker 3: long tasks over many pixels, back to back, on edges */
    push(f, 3, 0, 25, 0);
    push(f, 3, 25, 25, 1);
    push(f, 3, 25, 50, 2);
    push(f, 3, 50.5, 51, 3);
    push(f, 3, 51, 90, 1);
    push(f, 3, 90, 90.015625, 0);
    push(f, 3, 95, 100, 2);
}

static void store_rows(fixture *f)
{
    ari_error err = {0};
    ari_arg name[] = {ari_arg_text("generated")};
    run(f->s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'tasks', 'test')", name, 1);
    f->trace = ari_store_last_insert_id(f->s);
    assert_true(f->trace > 0);
    assert_int_equal(ari_store_begin(f->s, &err), 0);
    int64_t job = 0;
    for (int w = 0; w < NWORKERS; w++) {
        char res[16], wname[32];
        snprintf(res, sizeof res, "CPU%d", w);
        snprintf(wname, sizeof wname, "0_CPU%d", w);
        ari_arg wa[] = {ari_arg_int(f->trace), ari_arg_int(f->worker_ids[w]), ari_arg_text(res),
                        ari_arg_text(wname)};
        run(f->s,
            "INSERT INTO workers (trace_id, container_id, node, resource_type, resource, name)"
            " VALUES (?1, ?2, 0, 'CPU', ?3, ?4)",
            wa, ARI_NARGS(wa));
        for (int i = 0; i < f->n[w]; i++) {
            char id[32];
            snprintf(id, sizeof id, "0_%lld", (long long)job++);
            const gtask *t = &f->rows[w][i];
            ari_arg ta[] = {ari_arg_int(f->trace), ari_arg_text(id), ari_arg_text(type_names[t->type]),
                            ari_arg_int(f->worker_ids[w]), ari_arg_real(t->start), ari_arg_real(t->end)};
            run(f->s,
                "INSERT INTO tasks (trace_id, job_id, type, worker_id, node, start, end)"
                " VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6)",
                ta, ARI_NARGS(ta));
        }
    }
    assert_int_equal(ari_store_commit(f->s, &err), 0);
}

static int setup_lite(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->dir = test_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/t.db", f->dir);
    ari_error err = {0};
    f->s = ari_store_open(path, &err);
    if (!f->s)
        fail_msg("open %s: %s", path, err.message);
    generate(f);
    store_rows(f);
    *state = f;
    return 0;
}

static int setup_pg(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    if (!(f->s = test_pg_store_open(&f->db, "ariadne_gantt_sql"))) {
        free(f);
        *state = NULL;
        return 0;
    }
    generate(f);
    store_rows(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (!f)
        return 0;
    if (f->dir) {
        ari_store_close(f->s);
        ari_remove_tree(f->dir);
        free(f->dir);
    } else {
        test_pg_store_close(f->s, &f->db);
    }
    for (int w = 0; w < NWORKERS; w++)
        free(f->rows[w]);
    free(f);
    return 0;
}

/* ---- the reference: api_gantt.c's row path over the row's tasks ---- */

static int cmp_task(const void *a, const void *b)
{
    const gtask *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return strcmp(type_names[x->type], type_names[y->type]);
}

typedef struct reference {
    ari_gantt_result res;
    double idle;
    double *start, *end;
    int *type;
} reference;

/* The row's tasks sorted as the row cache holds them, filtered and
 * collected as api_gantt.c does, rendered by ari_gantt_render_row. */
static void render_reference(const fixture *f, int w, const ari_tq_meta *m, const ari_gantt_sql_query *q,
                             int64_t max_tasks, reference *ref)
{
    int n = f->n[w];
    gtask *sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    ref->start = malloc(((size_t)n + 1) * sizeof *ref->start);
    ref->end = malloc(((size_t)n + 1) * sizeof *ref->end);
    ref->type = malloc(((size_t)n + 1) * sizeof *ref->type);
    double *all_s = malloc(((size_t)n + 1) * sizeof *all_s), *all_e = malloc(((size_t)n + 1) * sizeof *all_e);
    assert_true(sorted && ref->start && ref->end && ref->type && all_s && all_e);
    memcpy(sorted, f->rows[w], (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_task);
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        const gtask *t = &sorted[i];
        all_s[i] = t->start, all_e[i] = t->end;
        int type = ari_tq_type_id(m, type_names[t->type]);
        assert_true(type >= 0);
        if ((q->type_ok && !q->type_ok[type]) || !ari_overlaps(t->start, t->end, q->t0, q->t1))
            continue;
        if (!isnan(q->min_duration) && !(t->end - t->start >= q->min_duration))
            continue;
        ref->start[k] = t->start;
        ref->end[k] = t->end >= t->start ? t->end : t->start;
        ref->type[k] = type;
        assert_false(k > 0 && ref->end[k - 1] > ref->start[k]); /* the rows never overlap */
        k++;
    }
    ari_gantt_row row = {k, ref->start, ref->end, ref->type, m->ntypes};
    ari_error err = {0};
    if (ari_gantt_render_row(&row, q->t0, q->t1, q->width, max_tasks, &ref->res, &err) < 0)
        fail_msg("render_row: %s", err.message);
    ref->idle = ari_gantt_idle(all_s, all_e, n, q->t0, q->t1);
    free(sorted);
    free(all_s);
    free(all_e);
}

static void reference_free(reference *ref)
{
    ari_gantt_result_free(&ref->res);
    free(ref->start);
    free(ref->end);
    free(ref->type);
}

static int close_rel(double a, double b, double tol)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * (scale > 1e-300 ? scale : 1e-300) || a == b;
}

static int64_t cells_checked, rows_checked, pixel_rows;

static void compare_row(const fixture *f, const ari_gantt_sql_result *r, int w, const ari_tq_meta *m,
                        const ari_gantt_sql_query *q, int64_t max_tasks)
{
    reference ref;
    render_reference(f, w, m, q, max_tasks, &ref);
    int wi = ari_tq_worker_index(m, f->worker_ids[w]);
    ari_gantt_result got;
    ari_error err = {0};
    int rc = ari_gantt_sql_render(r, wi, max_tasks, &got, &err);
    if (rc != 0)
        fail_msg("sql render worker %d window [%.17g, %.17g) width %d: rc %d %s", w, q->t0, q->t1, q->width, rc,
                 err.message);
    const char *where = "";
    char buf[200];
    snprintf(buf, sizeof buf, "worker %d window [%.17g, %.17g) width %d", w, q->t0, q->t1, q->width);
    where = buf;
    if (!(fabs(ari_gantt_sql_idle(r, wi) - ref.idle) <= 1e-12)) /* in [0, 1]: absolute */
        fail_msg("%s: idle %.17g, expected %.17g", where, ari_gantt_sql_idle(r, wi), ref.idle);
    if (got.mode != ref.res.mode || got.count != ref.res.count)
        fail_msg("%s: mode %d count %lld, expected mode %d count %lld", where, got.mode, (long long)got.count,
                 ref.res.mode, (long long)ref.res.count);
    rows_checked++;
    if (got.mode == ARI_GANTT_PIXELS) {
        pixel_rows++;
        if (got.ncells != ref.res.ncells)
            fail_msg("%s: %lld cells, expected %lld", where, (long long)got.ncells, (long long)ref.res.ncells);
        for (int64_t c = 0; c < got.ncells; c++) {
            const ari_gantt_cell *a = &got.cells[c], *b = &ref.res.cells[c];
            if (a->pixel != b->pixel || a->type != b->type || !close_rel(a->share, b->share, 1e-12))
                fail_msg("%s: cell %lld (%d, %d, %.17g), expected (%d, %d, %.17g)", where, (long long)c, a->pixel,
                         a->type, a->share, b->pixel, b->type, b->share);
        }
        for (int p = 0; p <= q->width; p++)
            assert_int_equal(got.pixel_offset[p], ref.res.pixel_offset[p]);
        for (int p = 0; p < q->width; p++)
            if (!(fabs(got.idle[p] - ref.res.idle[p]) <= 1e-12))
                fail_msg("%s: idle of pixel %d %.17g, expected %.17g", where, p, got.idle[p], ref.res.idle[p]);
        cells_checked += got.ncells;
    }
    ari_gantt_result_free(&got);
    reference_free(&ref);
}

static void compare_window(const fixture *f, const ari_tq_meta *m, ari_gantt_sql_query *q, int64_t max_tasks)
{
    if (!ari_gantt_sql_exact(q->t0, q->t1, q->width))
        return;
    ari_gantt_sql_result r;
    ari_error err = {0};
    if (ari_gantt_sql_run(f->s, f->trace, m, q, &r, &err) < 0)
        fail_msg("gantt sql: %s", err.message);
    for (int w = 0; w < NWORKERS; w++)
        compare_row(f, &r, w, m, q, max_tasks);
    ari_gantt_sql_result_free(&r);
}

/* A time of the trace where something happens: a task's start or end. */
static double task_time(const fixture *f)
{
    int w = (int)(uniform() * NWORKERS);
    const gtask *t = &f->rows[w][(int)(uniform() * f->n[w])];
    return uniform() < 0.5 ? t->start : t->end;
}

static void check_windows(fixture *f)
{
    ari_error err = {0};
    ari_tq_meta *m = NULL;
    if (ari_tq_meta_get(f->s, f->trace, &m, &err) < 0)
        fail_msg("meta: %s", err.message);
    assert_int_equal(m->ntypes, NTYPES);
    static const int widths[] = {1, 2, 7, 37, 200, 640, 1000, 1500};
    unsigned char some[NTYPES] = {1, 0, 1, 0};
    for (int iter = 0; iter < 120; iter++) {
        ari_gantt_sql_query q = {.min_duration = NAN, .width = widths[iter % 8]};
        double a, b;
        switch (iter % 4) {
        case 0: /* the extent */
            a = m->extent_start, b = m->extent_end;
            break;
        case 1: /* edges on task times */
            a = task_time(f), b = task_time(f);
            break;
        case 2: /* round windows: pixel edges on the grid */
            a = floor(uniform() * 64), b = a + ldexp(1, (int)(uniform() * 7));
            break;
        default: /* anywhere, tiny to large */
            a = m->extent_start + uniform() * (m->extent_end - m->extent_start);
            b = a + (m->extent_end - m->extent_start) * pow(10, -4 * uniform());
            break;
        }
        q.t0 = a < b ? a : b, q.t1 = a < b ? b : a;
        if (!(q.t1 > q.t0))
            q.t1 = q.t0 + 1;
        if (iter % 5 == 1)
            q.type_ok = some;
        if (iter % 7 == 2)
            q.min_duration = 0.01 * uniform();
        if (iter % 11 == 3)
            q.min_duration = 0;
        compare_window(f, m, &q, iter % 3 == 0 ? 0 : -1);
    }
    ari_tq_meta_free(m);
}

static void check_overlaps_and_exactness(fixture *f)
{
    ari_error err = {0};
    ari_tq_meta *m = NULL;
    if (ari_tq_meta_get(f->s, f->trace, &m, &err) < 0)
        fail_msg("meta: %s", err.message);
    unsigned char flags[NWORKERS + 1];
    assert_int_equal(ari_gantt_sql_overlaps(f->s, f->trace, m, flags, &err), 0);
    for (int i = 0; i < m->nworkers; i++)
        assert_int_equal(flags[i], 0);
    /* an overlap inside one pixel on worker 2, found on the next trace
     * (the flags are cached per trace) */
    assert_int_equal(ari_gantt_sql_exact(1e9, 1e9 + 1e-3, 1000), 0);
    assert_int_equal(ari_gantt_sql_exact(0, 1, 1000), 1);
    assert_int_equal(ari_gantt_sql_exact(1, 1, 10), 0);
    assert_int_equal(ari_gantt_sql_exact(-1e308, 1e3, 1000), 0); /* the pixel edges would overflow */
    ari_tq_meta_free(m);
}

static void add_overlap_trace(fixture *f)
{
    ari_error err = {0};
    ari_arg name[] = {ari_arg_text("overlaps")};
    run(f->s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'tasks', 'test')", name, 1);
    int64_t trace = ari_store_last_insert_id(f->s);
    for (int w = 0; w < 2; w++) {
        char res[16];
        snprintf(res, sizeof res, "CPU%d", w);
        ari_arg wa[] = {ari_arg_int(trace), ari_arg_int(100 + w), ari_arg_text(res), ari_arg_text(res)};
        run(f->s,
            "INSERT INTO workers (trace_id, container_id, node, resource_type, resource, name)"
            " VALUES (?1, ?2, 0, 'CPU', ?3, ?4)",
            wa, ARI_NARGS(wa));
    }
    static const double tasks[][3] = {{100, 0, 1}, {100, 1, 2}, {100, 2, 2}, {101, 0, 1}, {101, 0.5, 0.75}};
    for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
        char id[16];
        snprintf(id, sizeof id, "o%zu", i);
        ari_arg ta[] = {ari_arg_int(trace), ari_arg_text(id), ari_arg_int((int64_t)tasks[i][0]),
                        ari_arg_real(tasks[i][1]), ari_arg_real(tasks[i][2])};
        run(f->s,
            "INSERT INTO tasks (trace_id, job_id, type, worker_id, node, start, end)"
            " VALUES (?1, ?2, 'x', ?3, 0, ?4, ?5)",
            ta, ARI_NARGS(ta));
    }
    ari_tq_meta *m = NULL;
    if (ari_tq_meta_get(f->s, trace, &m, &err) < 0)
        fail_msg("meta: %s", err.message);
    unsigned char flags[3];
    assert_int_equal(ari_gantt_sql_overlaps(f->s, trace, m, flags, &err), 0);
    assert_int_equal(flags[ari_tq_worker_index(m, 100)], 0);
    assert_int_equal(flags[ari_tq_worker_index(m, 101)], 1);
    /* again, from the cache */
    assert_int_equal(ari_gantt_sql_overlaps(f->s, trace, m, flags, &err), 0);
    assert_int_equal(flags[ari_tq_worker_index(m, 100)], 0);
    assert_int_equal(flags[ari_tq_worker_index(m, 101)], 1);
    ari_tq_meta_free(m);
}

static void test_gantt_sql(void **state)
{
    fixture *f = *state;
    if (!f) {
        skip();
        return;
    }
    cells_checked = rows_checked = pixel_rows = 0;
    check_windows(f);
    check_overlaps_and_exactness(f);
    add_overlap_trace(f);
    print_message("%s: %lld rows (%lld in pixels mode), %lld cells compared\n",
                  ari_store_is_pg(f->s) ? "postgresql" : "sqlite", (long long)rows_checked,
                  (long long)pixel_rows, (long long)cells_checked);
    assert_true(pixel_rows > 100 && cells_checked > 10000);
}

static void test_pg_text(void **state)
{
    (void)state;
    static const int64_t ids[] = {11, 13};
    char *text = ari_gantt_sql_text(ids, 2);
    assert_non_null(text);
    assert_non_null(strstr(text, "GROUP BY trace_id, worker_id, type, cs, ce"));
    assert_non_null(strstr(text, "worker_id IN (11,13)"));
    assert_non_null(strstr(text, "$9"));
    assert_null(strstr(text, "?"));
    /* what postgres_fdw does not ship (see gantt_sql.c) */
    assert_null(strstr(text, "OVER"));
    assert_null(strstr(text, "least"));
    assert_null(strstr(text, "greatest"));
    assert_null(strstr(text, "[]"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gantt_sql, setup_lite, teardown),
        cmocka_unit_test_setup_teardown(test_gantt_sql, setup_pg, teardown),
        cmocka_unit_test(test_pg_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
