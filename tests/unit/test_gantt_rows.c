/* test_gantt_rows.c: the Gantt rows stored at import (src/store/gantt_rows.c,
 * sql/010_gantt_rows.sql) give the Gantt exactly what the tasks table gives
 * (issue 15). On the StarPU fixture bundle, whose tasks are replaced by
 * random ones (gaps, zero-length tasks, ties on start and end with
 * different types), the row cache is loaded three
 * ways: from the tasks table (a trace imported before sql/010), from the
 * rows that path saved lazily, and from the rows ari_gantt_rows_build
 * stores at import. The arrays must be identical, bit for bit, and so must
 * the pixel mode (ari_gantt_render_row) of random windows and widths: the
 * stored rows are the raw rows, so the tolerance is zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "analysis/gantt_aggregation.h"
#include "import/import.h"
#include "store/analysis_cache.h"
#include "store/gantt_rows.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "test_helpers.h"
#include "util/sbuf.h"

typedef struct fixture {
    char *dir, *db_path, *work;
    ari_store *s;
    int64_t id;
} fixture;

static void exec_sql(fixture *f, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%.200s: %s", sql, msg);
    sqlite3_close(db);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = test_tmpdir();
    assert_true(asprintf(&f->db_path, "%s/t.db", f->dir) > 0);
    assert_true(asprintf(&f->work, "%s/work", f->dir) > 0);
    assert_int_equal(mkdir(f->work, 0700), 0);
    ari_error err = {0};
    f->s = ari_store_open(f->db_path, &err);
    assert_non_null(f->s);
    char *bundle;
    assert_true(asprintf(&bundle, "%s/tests/fixtures/starpu/bundle", test_source_dir()) > 0);
    ari_import_input in = {bundle, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    if (ari_import(f->s, &req, &res, &err) < 0)
        fail_msg("import: %s", err.message);
    f->id = res.traces[0].id;
    ari_import_result_free(&res);
    free(bundle);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ari_rows_flush();
    ari_store_close(f->s);
    ari_remove_tree(f->dir);
    free(f->db_path);
    free(f->work);
    free(f->dir);
    free(f);
    return 0;
}

/* ---- random tasks ---- */

static uint64_t rng_state;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static const char *const type_names[] = {"dgemm", "dpotrf", "dsyrk", "dtrsm", "zeta"};

/* One worker's random tasks, in start order with random gaps (none half
 * the time); one in ten lasts 0, one in ten repeats the previous task's
 * start and end with its own type (a tie that only the type orders). */
static void add_worker_tasks(ari_sbuf *b, int64_t trace_id, int64_t worker, int n, int *job)
{
    double s = uniform() * 10, e = s;
    for (int i = 0; i < n; i++) {
        if (i == 0 || uniform() >= 0.1) {
            s = e + (uniform() < 0.5 ? 0 : uniform() * 3);
            e = s + (uniform() < 0.1 ? 0 : uniform() * 5);
        }
        const char *type = type_names[(int)(uniform() * 5)];
        ari_sbuf_printf(b,
                        "INSERT INTO tasks(trace_id, job_id, type, worker_id, node, start, end)"
                        " VALUES (%lld, 'r%d', '%s', %lld, 0, %.17g, %.17g);\n",
                        (long long)trace_id, (*job)++, type, (long long)worker, s, e);
    }
}

static void randomize_tasks(fixture *f, const ari_tq_meta *meta, uint64_t seed)
{
    rng_state = seed;
    ari_sbuf b = {0};
    ari_sbuf_printf(
        &b, "BEGIN; DELETE FROM deps WHERE trace_id = %lld; DELETE FROM tasks WHERE trace_id = %lld;\n",
        (long long)f->id, (long long)f->id);
    int job = 0;
    for (int i = 0; i < meta->nworkers; i++)
        add_worker_tasks(&b, f->id, meta->workers[i].id, 50 + (int)(uniform() * 2000), &job);
    ari_sbuf_printf(&b,
                    "DELETE FROM analysis_cache WHERE trace_id = %lld;"
                    " DELETE FROM gantt_rows WHERE trace_id = %lld;"
                    " DELETE FROM gantt_row_types WHERE trace_id = %lld; COMMIT;",
                    (long long)f->id, (long long)f->id, (long long)f->id);
    exec_sql(f, ari_sbuf_text(&b));
    ari_sbuf_free(&b);
}

/* ---- the three paths ---- */

/* A copy of a row cache entry (the cache hands the same entry to every
 * acquire of a key, so each path's rows are copied out and the entry
 * dropped before the next path loads). */
static ari_rows *copy_rows(const ari_rows *r)
{
    ari_rows *c = calloc(1, sizeof *c);
    c->nrows = r->nrows;
    c->rows = calloc((size_t)r->nrows + 1, sizeof *c->rows);
    for (int i = 0; i < r->nrows; i++) {
        const ari_row_tasks *x = &r->rows[i];
        ari_row_tasks *y = &c->rows[i];
        size_t n = (size_t)x->ntasks;
        *y =
            (ari_row_tasks){x->worker_id, x->ntasks, malloc(n * 8 + 1), malloc(n * 8 + 1), malloc(n * 4 + 1)};
        memcpy(y->start, x->start, n * sizeof *x->start);
        memcpy(y->end, x->end, n * sizeof *x->end);
        memcpy(y->type, x->type, n * sizeof *x->type);
    }
    return c;
}

static void free_rows(ari_rows *c)
{
    for (int i = 0; i < c->nrows; i++) {
        free(c->rows[i].start);
        free(c->rows[i].end);
        free(c->rows[i].type);
    }
    free(c->rows);
    free(c);
}

/* The rows as the row cache loads them now (a copy; free_rows). */
static ari_rows *load(fixture *f, const ari_tq_meta *meta)
{
    ari_tq_trace t;
    ari_error err = {0};
    assert_int_equal(ari_tq_trace_get(f->s, f->id, &t, &err), 0);
    ari_rows_flush();
    ari_rows *rows = ari_rows_acquire(f->s, meta, t.key, &err);
    if (!rows)
        fail_msg("rows: %s", err.message);
    ari_rows *copy = copy_rows(rows);
    ari_rows_release(rows);
    ari_rows_flush();
    ari_tq_trace_free(&t);
    return copy;
}

static int64_t stored_rows(fixture *f)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM gantt_rows", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* n bytes equal at a and b (either may be NULL when n is 0). */
static void assert_same_bytes(const void *a, const void *b, size_t n)
{
    if (n > 0 && memcmp(a, b, n) != 0)
        fail_msg("%zu bytes differ", n);
}

static void assert_same_rows(const ari_rows *a, const ari_rows *b)
{
    assert_int_equal(a->nrows, b->nrows);
    for (int i = 0; i < a->nrows; i++) {
        const ari_row_tasks *x = &a->rows[i], *y = &b->rows[i];
        assert_int_equal(x->worker_id, y->worker_id);
        assert_int_equal(x->ntasks, y->ntasks);
        size_t n = (size_t)x->ntasks;
        assert_same_bytes(x->start, y->start, n * sizeof *x->start);
        assert_same_bytes(x->end, y->end, n * sizeof *x->end);
        assert_same_bytes(x->type, y->type, n * sizeof *x->type);
    }
}

/* Pixel mode of one row in [t0, t1) on width columns, after the clamp the
 * handler applies (an end past the next start is cut there). */
static void render(const ari_row_tasks *row, int ntypes, double t0, double t1, int width,
                   ari_gantt_result *out)
{
    size_t n = (size_t)row->ntasks;
    double *end = malloc((n + 1) * sizeof *end);
    for (size_t i = 0; i < n; i++)
        end[i] = i + 1 < n && row->end[i] > row->start[i + 1] ? row->start[i + 1] : row->end[i];
    ari_gantt_row in = {row->ntasks, row->start, end, row->type, ntypes};
    ari_error err = {0};
    if (ari_gantt_render_row(&in, t0, t1, width, 0, out, &err) < 0)
        fail_msg("render: %s", err.message);
    free(end);
}

static void assert_same_pixels(const ari_rows *a, const ari_rows *b, const ari_tq_meta *meta)
{
    for (int k = 0; k < 20; k++) {
        double t0 = meta->extent_start + uniform() * (meta->extent_end - meta->extent_start) * 0.9;
        double t1 = t0 + (meta->extent_end - t0) * (0.001 + uniform());
        int width = 1 + (int)(uniform() * 1920);
        for (int i = 0; i < a->nrows; i++) {
            ari_gantt_result x = {0}, y = {0};
            render(&a->rows[i], meta->ntypes, t0, t1, width, &x);
            render(&b->rows[i], meta->ntypes, t0, t1, width, &y);
            assert_int_equal(x.mode, y.mode);
            assert_int_equal(x.ncells, y.ncells);
            assert_int_equal(x.first, y.first);
            assert_int_equal(x.count, y.count);
            assert_same_bytes(x.cells, y.cells, (size_t)x.ncells * sizeof *x.cells);
            if (x.mode == ARI_GANTT_PIXELS)
                assert_same_bytes(x.idle, y.idle, (size_t)width * sizeof *x.idle);
            ari_gantt_result_free(&x);
            ari_gantt_result_free(&y);
        }
    }
}

/* The fixture's own import stored its rows: they are what the tasks give. */
static void test_import_stores_rows(void **state)
{
    fixture *f = *state;
    ari_tq_meta *meta;
    ari_error err = {0};
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &meta, &err), 0);
    assert_int_equal(stored_rows(f), 3);
    ari_rows *imported = load(f, meta);
    exec_sql(f, "DELETE FROM gantt_rows; DELETE FROM gantt_row_types;");
    ari_rows *raw = load(f, meta);
    assert_same_rows(imported, raw);
    assert_int_equal(raw->rows[0].ntasks, 2);
    assert_int_equal(raw->rows[0].type[1], ari_tq_type_id(meta, "dpotrf"));
    free_rows(imported);
    free_rows(raw);
    ari_tq_meta_free(meta);
}

static void test_random_traces(void **state)
{
    fixture *f = *state;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        ari_tq_meta *meta;
        ari_error err = {0};
        assert_int_equal(ari_tq_meta_get(f->s, f->id, &meta, &err), 0);
        randomize_tasks(f, meta, seed);
        ari_tq_meta_free(meta);
        assert_int_equal(ari_tq_meta_get(f->s, f->id, &meta, &err), 0);
        assert_int_equal(stored_rows(f), 0);
        ari_rows *raw = load(f, meta); /* from the tasks table, then saved */
        assert_int_equal(stored_rows(f), meta->nworkers);
        ari_rows *lazy = load(f, meta);
        exec_sql(f, "DELETE FROM gantt_rows; DELETE FROM gantt_row_types;");
        assert_int_equal(ari_store_begin(f->s, &err), 0);
        assert_int_equal(ari_gantt_rows_build(f->s, f->id, &err), 0);
        assert_int_equal(ari_store_commit(f->s, &err), 0);
        ari_rows *built = load(f, meta);
        assert_same_rows(raw, lazy);
        assert_same_rows(raw, built);
        assert_same_pixels(raw, built, meta);
        free_rows(raw);
        free_rows(lazy);
        free_rows(built);
        ari_tq_meta_free(meta);
    }
}

/* A damaged row is an error, not a crash or a wrong chart. */
static void test_damaged_row(void **state)
{
    fixture *f = *state;
    ari_tq_meta *meta;
    ari_error err = {0};
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &meta, &err), 0);
    exec_sql(f, "UPDATE gantt_rows SET ntasks = ntasks + 1");
    ari_tq_trace t;
    assert_int_equal(ari_tq_trace_get(f->s, f->id, &t, &err), 0);
    ari_rows_flush();
    assert_null(ari_rows_acquire(f->s, meta, t.key, &err));
    assert_string_equal(err.code, ARI_E_DB);
    ari_tq_trace_free(&t);
    ari_tq_meta_free(meta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_import_stores_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_traces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_row, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
