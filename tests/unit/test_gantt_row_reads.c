/* test_gantt_row_reads.c: store/gantt_row_reads.c, the Gantt's reads of
 * several rows in one statement, against the per-row reads they replace
 * (ari_tq_worker_tasks, with or without the tasks' details, and
 * ari_tq_worker_states): on a generated StarPU trace
 * (gen/cholesky_sim.h) imported into SQLite and, with the CTest fixture
 * `pg`, into PostgreSQL, for random windows and random sets of rows, each
 * with its own lower bound (some without one): the same tasks and states
 * in the same order, bit for bit; no rows, and rows without tasks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/cholesky_sim.h"
#include "import/import.h"
#include "store/gantt_row_reads.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "test_helpers.h"
#include "util/fs.h"

typedef struct fixture {
    char *dir, *gen, *work;
    ari_store *lite, *pg;
    test_pg_db db;
    int64_t lite_id, pg_id;
} fixture;

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
    assert_true(asprintf(&f->gen, "%s/chol", f->dir) > 0);
    assert_true(asprintf(&f->work, "%s/work", f->dir) > 0);
    assert_int_equal(mkdir(f->work, 0700), 0);
    chol_node_cfg cfg[2] = {{3, 1, 1.0}, {2, 1, 1.5}};
    chol_options opt = {
        .out_dir = f->gen, .tiles = 12, .block_size = 960, .nodes = 2, .seed = 5, .node_cfg = cfg};
    chol_summary sum;
    ari_error err = {0};
    if (chol_sim_run(&opt, &sum, &err) < 0)
        fail_msg("generate: %s", err.message);
    char *path;
    assert_true(asprintf(&path, "%s/t.db", f->dir) > 0);
    f->lite = ari_store_open(path, &err);
    free(path);
    assert_non_null(f->lite);
    f->lite_id = import_into(f->lite, f->gen, f->work);
    f->pg = test_pg_store_open(&f->db, "ariadne_row_reads");
    if (f->pg)
        f->pg_id = import_into(f->pg, f->gen, f->work);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ari_store_close(f->lite);
    test_pg_store_close(f->pg, &f->db);
    ari_remove_tree(f->dir);
    free(f->gen), free(f->work), free(f->dir);
    free(f);
    return 0;
}

/* ---- the per-row reads ---- */

typedef struct row_copy {
    ari_row_tasks r;
    size_t cap;
} row_copy;

static int keep_task(void *arg, const char *job_id, int type, double start, double end, double gflop,
                     int64_t iteration)
{
    (void)job_id, (void)gflop, (void)iteration;
    row_copy *c = arg;
    if ((size_t)c->r.ntasks == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->r.start = realloc(c->r.start, c->cap * sizeof *c->r.start);
        c->r.end = realloc(c->r.end, c->cap * sizeof *c->r.end);
        c->r.type = realloc(c->r.type, c->cap * sizeof *c->r.type);
        assert_true(c->r.start && c->r.end && c->r.type);
    }
    c->r.start[c->r.ntasks] = start;
    c->r.end[c->r.ntasks] = end;
    c->r.type[c->r.ntasks++] = type;
    return 0;
}

static void same_tasks(ari_store *s, int64_t id, const ari_tq_meta *m, int worker, double lo, double hi,
                       const ari_row_tasks *got)
{
    row_copy c = {{0}, 0};
    ari_error err = {0};
    assert_int_equal(ari_tq_worker_tasks(s, id, m, m->workers[worker].id, lo, hi, keep_task, &c, &err), 0);
    assert_int_equal(got->worker_id, m->workers[worker].id);
    assert_int_equal(got->ntasks, c.r.ntasks);
    assert_non_null(got->start);
    for (int64_t i = 0; i < c.r.ntasks; i++) {
        assert_true(got->start[i] == c.r.start[i]);
        assert_true(got->end[i] == c.r.end[i]);
        assert_int_equal(got->type[i], c.r.type[i]);
    }
    free(c.r.start), free(c.r.end), free(c.r.type);
}

/* A row's tasks with their details as text, every double exact (%a). */
typedef struct detail_text {
    char *text;
    size_t len;
} detail_text;

static int keep_detail(void *arg, const char *job_id, int type, double start, double end, double gflop,
                       int64_t iteration)
{
    detail_text *t = arg;
    char line[400];
    int n = snprintf(line, sizeof line, "%s|%d|%a|%a|%a|%lld;", job_id, type, start, end, gflop,
                     (long long)iteration);
    assert_true(n > 0 && (size_t)n < sizeof line);
    t->text = realloc(t->text, t->len + (size_t)n + 1);
    assert_non_null(t->text);
    memcpy(t->text + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
    return 0;
}

/* The batch's tasks with their details, against the per-row reads'. */
static void same_details(ari_store *s, int64_t id, const ari_tq_meta *m, const int *rows, const double *lo,
                         int n, double hi)
{
    detail_text *got = calloc((size_t)n + 1, sizeof *got);
    void **ctx = calloc((size_t)n + 1, sizeof *ctx);
    for (int k = 0; k < n; k++)
        ctx[k] = &got[k];
    ari_error err = {0};
    assert_int_equal(ari_gantt_read_details(s, id, m, rows, lo, n, hi, keep_detail, ctx, &err), 0);
    for (int k = 0; k < n; k++) {
        detail_text want = {0};
        assert_int_equal(
            ari_tq_worker_tasks(s, id, m, m->workers[rows[k]].id, lo[k], hi, keep_detail, &want, &err), 0);
        assert_string_equal(got[k].text ? got[k].text : "", want.text ? want.text : "");
        free(want.text);
        free(got[k].text);
    }
    free(got);
    free(ctx);
}

/* The per-row read's states from lo on, against the batch's. */
static void same_states(ari_store *s, int64_t id, const ari_tq_meta *m, int worker, double lo, double t0,
                        double t1, const ari_tq_states *got)
{
    ari_tq_states want;
    ari_error err = {0};
    assert_int_equal(ari_tq_worker_states(s, id, m, m->workers[worker].id, t0, t1, &want, &err), 0);
    int64_t n = 0;
    int *seen = calloc((size_t)want.nvalues + 1, sizeof *seen); /* want's value -> got's + 1 */
    for (int64_t i = 0; i < want.n; i++) {
        const ari_gantt_state *w = &want.states[i];
        if (w->start < lo)
            continue;
        assert_true(n < got->n);
        const ari_gantt_state *g = &got->states[n++];
        assert_true(g->start == w->start && g->end == w->end);
        assert_int_equal(g->depth, w->depth);
        if (!seen[w->value])
            seen[w->value] = g->value + 1;
        assert_int_equal(seen[w->value], g->value + 1);
        assert_string_equal(got->names[g->value], want.names[w->value]);
        assert_int_equal(got->is_task[g->value], want.is_task[w->value]);
    }
    assert_int_equal(n, got->n);
    free(seen);
    ari_tq_states_free(&want);
}

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void check_store(ari_store *s, int64_t id)
{
    ari_tq_meta *m;
    ari_error err = {0};
    assert_int_equal(ari_tq_meta_get(s, id, &m, &err), 0);
    assert_true(m->nworkers >= 4);
    double span = m->extent_end - m->extent_start;
    int *rows = malloc((size_t)m->nworkers * sizeof *rows);
    double *lo = malloc((size_t)m->nworkers * sizeof *lo);
    ari_row_tasks *tasks = calloc((size_t)m->nworkers, sizeof *tasks);
    ari_tq_states *states = calloc((size_t)m->nworkers, sizeof *states);
    for (int round = 0; round < 40; round++) {
        double t0 = m->extent_start + span * uniform() * 0.9;
        double t1 = round % 5 == 0 ? m->extent_end : t0 + span * (0.001 + uniform() * 0.3);
        int n = 0;
        for (int i = 0; i < m->nworkers; i++) {
            if (round % 7 != 0 && uniform() < 0.4)
                continue;
            rows[n] = i;
            lo[n++] = uniform() < 0.3 ? -INFINITY : t0 - span * uniform() * 0.05;
        }
        assert_int_equal(ari_gantt_read_tasks(s, id, m, rows, lo, n, t1, tasks, &err), 0);
        assert_int_equal(ari_gantt_read_states(s, id, m, rows, lo, n, t0, t1, states, &err), 0);
        same_details(s, id, m, rows, lo, n, t1);
        for (int k = 0; k < n; k++) {
            same_tasks(s, id, m, rows[k], lo[k], t1, &tasks[k]);
            same_states(s, id, m, rows[k], lo[k], t0, t1, &states[k]);
            ari_tq_states_free(&states[k]);
        }
        ari_row_reads_free(tasks, n);
    }
    /* no rows; a window before every task */
    assert_int_equal(ari_gantt_read_tasks(s, id, m, rows, lo, 0, m->extent_end, tasks, &err), 0);
    rows[0] = 0, lo[0] = m->extent_start - 10;
    assert_int_equal(ari_gantt_read_tasks(s, id, m, rows, lo, 1, m->extent_start - 5, tasks, &err), 0);
    assert_int_equal(tasks[0].ntasks, 0);
    assert_non_null(tasks[0].start);
    ari_row_reads_free(tasks, 1);
    free(rows), free(lo), free(tasks), free(states);
    ari_tq_meta_free(m);
}

static void test_sqlite(void **state)
{
    fixture *f = *state;
    check_store(f->lite, f->lite_id);
}

static void test_postgresql(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    check_store(f->pg, f->pg_id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlite),
        cmocka_unit_test(test_postgresql),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
