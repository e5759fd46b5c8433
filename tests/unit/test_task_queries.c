/* test_task_queries.c: what the task-trace analyses read from the store
 * (src/store/task_queries.c, src/store/analysis_cache.c), over the
 * hand-made StarPU bundle tests/fixtures/starpu/bundle: the trace and its
 * metadata (and the cached copy), filters, tasks with their contracted
 * dependencies, means, one worker's tasks, the ready series, the row cache
 * with its Idle interval sets, and the analysis cache going with its trace.
 *
 * The bundle (after import): tasks 0_1 dplgsy [-2,-1] and 0_2 dpotrf [0,2]
 * on 0_CPU0, 0_3 dtrsm [2.5,5] on 0_CUDA0_0, 1_4 dgemm [6,9] and 1_5 dgemm
 * [9,9.5] on 1_CPU0; a chain 0_1 -> 0_2 -> 0_3 -> 1_4 -> 1_5; Idle states
 * on 0_CPU0 at [-2.5,-2], [-1,0], [2,9].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>

#include "analysis/bounds.h"
#include "import/import.h"
#include "store/analysis_cache.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "test_helpers.h"

typedef struct fixture {
    char *dir, *db_path, *work;
    ari_store *s;
    int64_t id;
    ari_tq_meta *meta;
} fixture;

/* |a - b| <= eps, with both values in the message otherwise. */
static void assert_near(double a, double b, double eps)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("%.17g is not %.17g (within %g)", a, b, eps);
}

static void exec_sql(fixture *f, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
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
    assert_int_equal(res.ntraces, 1);
    f->id = res.traces[0].id;
    ari_import_result_free(&res);
    free(bundle);
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &f->meta, &err), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ari_rows_flush();
    ari_tq_meta_free(f->meta);
    ari_store_close(f->s);
    ari_remove_tree(f->dir);
    free(f->db_path);
    free(f->work);
    free(f->dir);
    free(f);
    return 0;
}

static void test_trace_and_meta(void **state)
{
    fixture *f = *state;
    ari_tq_trace t;
    ari_error err = {0};
    assert_int_equal(ari_tq_trace_get(f->s, f->id, &t, &err), 0);
    assert_true(t.has_tasks);
    assert_string_equal(t.kind, "tasks");
    assert_string_equal(t.time_unit, "ms");
    ari_tq_trace_free(&t);
    assert_int_equal(ari_tq_trace_get(f->s, 999, &t, &err), 1);

    const ari_tq_meta *m = f->meta;
    assert_int_equal(m->ntypes, 4);
    const char *types[] = {"dgemm", "dplgsy", "dpotrf", "dtrsm"};
    for (int k = 0; k < 4; k++)
        assert_string_equal(m->types[k], types[k]);
    assert_int_equal(m->nrestypes, 2);
    assert_string_equal(m->restypes[0], "CPU");
    assert_string_equal(m->restypes[1], "CUDA");
    assert_int_equal(m->nnodes, 2);
    assert_int_equal(m->nworkers, 3);
    assert_string_equal(m->workers[0].name, "0_CPU0");
    assert_string_equal(m->workers[1].name, "0_CUDA0_0");
    assert_string_equal(m->workers[2].name, "1_CPU0");
    assert_int_equal(m->workers[1].restype, 1);
    assert_int_equal(m->workers[0].ntasks, 2);
    assert_near(m->workers[0].max_duration, 2.0, 1e-12);
    assert_near(m->workers[2].first_start, 6.0, 1e-12);
    assert_int_equal(m->ntasks, 5);
    assert_near(m->extent_start, -2.0, 1e-12);
    assert_near(m->extent_end, 9.5, 1e-12);
    assert_int_equal(ari_tq_type_id(m, "dtrsm"), 3);
    assert_int_equal(ari_tq_type_id(m, "nope"), -1);

    /* the second read comes from the cache and is the same */
    char *cached = NULL;
    assert_int_equal(ari_cache_get(f->s, f->id, "meta", "", &cached, &err), 0);
    free(cached);
    ari_tq_meta *again = NULL;
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &again, &err), 0);
    assert_int_equal(again->nworkers, 3);
    assert_string_equal(again->workers[2].resource, "CPU0");
    assert_near(again->workers[0].max_duration, 2.0, 0);
    assert_near(again->extent_end, 9.5, 0);
    ari_tq_meta_free(again);
}

/* Two metas hold the same values (and none of the same pointers). */
static void assert_same_meta(const ari_tq_meta *a, const ari_tq_meta *b)
{
    assert_int_equal(a->ntypes, b->ntypes);
    for (int k = 0; k < a->ntypes; k++) {
        assert_string_equal(a->types[k], b->types[k]);
        assert_ptr_not_equal(a->types[k], b->types[k]);
    }
    assert_int_equal(a->nrestypes, b->nrestypes);
    for (int k = 0; k < a->nrestypes; k++)
        assert_string_equal(a->restypes[k], b->restypes[k]);
    assert_int_equal(a->nnodes, b->nnodes);
    for (int k = 0; k < a->nnodes; k++)
        assert_int_equal(a->nodes[k], b->nodes[k]);
    assert_int_equal(a->nworkers, b->nworkers);
    for (int i = 0; i < a->nworkers; i++) {
        const ari_tq_worker *x = &a->workers[i], *y = &b->workers[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->node, y->node);
        assert_int_equal(x->restype, y->restype);
        assert_int_equal(x->ntasks, y->ntasks);
        assert_string_equal(x->name, y->name);
        assert_ptr_not_equal(x->name, y->name);
        assert_string_equal(x->resource_type, y->resource_type);
        assert_string_equal(x->resource, y->resource);
        assert_true(x->first_start == y->first_start && x->last_end == y->last_end &&
                    x->max_duration == y->max_duration);
    }
    assert_int_equal(a->ntasks, b->ntasks);
    assert_true(a->extent_start == b->extent_start && a->extent_end == b->extent_end);
}

/* The per-process copies by content key: equal to the stored metadata,
 * each request's own (freeing one leaves the others whole), kept for the
 * key (a changed cache row is not read again) and not taken for another
 * trace's key; more keys than slots evict the oldest. */
static void test_meta_keyed(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    ari_tq_trace t;
    assert_int_equal(ari_tq_trace_get(f->s, f->id, &t, &err), 0);
    ari_tq_meta *a = NULL, *b = NULL;
    assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, t.key, &a, &err), 0);
    assert_same_meta(a, f->meta);
    assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, t.key, &b, &err), 0);
    assert_ptr_not_equal(a, b);
    ari_tq_meta_free(a);
    assert_same_meta(b, f->meta);
    /* the remembered copy answers for the key: the cache row is not read */
    static const char other_meta[] = "{\"types\":[\"t\"],\"restypes\":[\"CPU\"],\"nodes\":[0],"
                                     "\"workers\":[[1,0,\"evicted\",\"CPU\",\"CPU0\",1,0.0,1.0,1.0]]}";
    assert_int_equal(ari_cache_put(f->s, f->id, "meta", "", other_meta), 0);
    ari_tq_meta *c = NULL;
    assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, t.key, &c, &err), 0);
    assert_same_meta(c, b);
    ari_tq_meta_free(c);
    /* a key naming another trace id is not trusted: read from the store */
    char other[200];
    snprintf(other, sizeof other, "%lld/%s", (long long)f->id + 1, "x");
    assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, other, &c, &err), 0);
    assert_string_equal(c->workers[0].name, "evicted");
    ari_tq_meta_free(c);
    /* twenty other keys of the same trace evict the first */
    for (int i = 0; i < 20; i++) {
        char key[200];
        snprintf(key, sizeof key, "%lld/other-%d", (long long)f->id, i);
        assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, key, &c, &err), 0);
        ari_tq_meta_free(c);
    }
    assert_int_equal(ari_tq_meta_get_keyed(f->s, f->id, t.key, &c, &err), 0); /* read from the store again */
    assert_int_equal(c->nworkers, 1);
    assert_string_equal(c->workers[0].name, "evicted");
    ari_tq_meta_free(c);
    ari_tq_meta_free(b);
    ari_tq_trace_free(&t);
}

/* The cached copy is read back exactly (reals of 17 digits through their
 * JSON tokens, escaped strings), and one that is not what the writer
 * wrote is recomputed and replaced. */
static void test_meta_cache_text(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    const char *text =
        "{\"types\":[\"a\\\"b\",\"c\\u00e9\\n\"],\"restypes\":[\"CPU\"],\"nodes\":[3],\"workers\":"
        "[[42,3,\"w\\\\1\",\"CPU\",\"CPU1\",7,0.10000000000000001,1e+300,5]]}";
    assert_int_equal(ari_cache_put(f->s, f->id, "meta", "", text), 0);
    ari_tq_meta *m = NULL;
    assert_int_equal(ari_tq_meta_get(f->s, f->id, &m, &err), 0);
    assert_int_equal(m->ntypes, 2);
    assert_string_equal(m->types[0], "a\"b");
    assert_string_equal(m->types[1], "c\xc3\xa9\n");
    assert_int_equal(m->nnodes, 1);
    assert_int_equal(m->nodes[0], 3);
    assert_int_equal(m->nworkers, 1);
    assert_int_equal(m->workers[0].id, 42);
    assert_string_equal(m->workers[0].name, "w\\1");
    assert_int_equal(m->workers[0].ntasks, 7);
    assert_true(m->workers[0].first_start == 0.1);
    assert_true(m->workers[0].last_end == 1e300);
    assert_true(m->workers[0].max_duration == 5);
    assert_int_equal(m->workers[0].restype, 0);
    assert_int_equal(m->ntasks, 7);
    ari_tq_meta_free(m);
    const char *bad[] = {"not json", "{\"types\":[1],\"restypes\":[],\"nodes\":[],\"workers\":[]}",
                         "{\"types\":[],\"restypes\":[],\"nodes\":[]}",
                         "{\"types\":[],\"restypes\":[],\"nodes\":[],\"workers\":[[1,2,\"x\"]]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ari_cache_put(f->s, f->id, "meta", "", bad[i]), 0);
        assert_int_equal(ari_tq_meta_get(f->s, f->id, &m, &err), 0);
        assert_int_equal(m->nworkers, 3); /* recomputed */
        ari_tq_meta_free(m);
        char *cached = NULL;
        assert_int_equal(ari_cache_get(f->s, f->id, "meta", "", &cached, &err), 0);
        assert_non_null(strstr(cached, "\"workers\":[["));
        free(cached);
    }
}

static int64_t task_index(const ari_tq_tasks *t, const char *job)
{
    for (int64_t i = 0; i < t->n; i++)
        if (strcmp(ari_tq_job_id(t, i), job) == 0)
            return i;
    return -1;
}

/* The predecessors of job, as a space-separated sorted list. */
static void preds_of(const ari_tq_tasks *t, const char *job, char *out, size_t size)
{
    int64_t v = task_index(t, job);
    assert_true(v >= 0);
    out[0] = '\0';
    const char *names[16];
    int n = 0;
    for (int64_t e = t->pred_offset[v]; e < t->pred_offset[v + 1] && n < 16; e++)
        names[n++] = ari_tq_job_id(t, t->pred[e]);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                const char *x = names[i];
                names[i] = names[j];
                names[j] = x;
            }
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "", names[i]);
}

static void test_tasks_and_deps(void **state)
{
    fixture *f = *state;
    ari_tq_tasks t;
    ari_error err = {0};
    char preds[256];
    assert_int_equal(ari_tq_tasks_load(f->s, f->id, f->meta, NULL, 1, &t, &err), 0);
    assert_int_equal(t.n, 5);
    assert_int_equal(ari_dag_validate(&(ari_dag){t.n, t.pred_offset, t.pred}, &err), 0);
    preds_of(&t, "1_4", preds, sizeof preds);
    assert_string_equal(preds, "0_3");
    preds_of(&t, "0_1", preds, sizeof preds);
    assert_string_equal(preds, "");
    int64_t i = task_index(&t, "1_5");
    assert_int_equal(t.node[i], 1);
    assert_string_equal(f->meta->types[t.type[i]], "dgemm");
    assert_string_equal(f->meta->restypes[t.restype[i]], "CPU");
    assert_int_equal(t.iteration[i], 1);
    double *count, *mean;
    ari_bounds_tasks bt = {t.n, t.type, t.restype, t.node, t.iteration, t.start, t.end, NULL, NULL};
    int K = f->meta->ntypes;
    assert_int_equal(ari_bounds_means(&bt, K, f->meta->nrestypes, NULL, &count, &mean, &err), 0);
    assert_near(count[0 * K + 0], 2, 0);        /* CPU dgemm */
    assert_near(mean[0 * K + 0], 1.75, 1e-12);
    assert_near(mean[1 * K + 3], 2.5, 1e-12);   /* CUDA dtrsm */
    assert_true(isnan(mean[1 * K + 0]));                 /* CUDA dgemm never ran */
    free(count);
    free(mean);
    ari_tq_tasks_free(&t);

    /* node 1 only: its internal dependency; the path from node 0 is cut */
    int64_t node1 = 1;
    ari_task_filter nf = {.nodes = &node1, .nnodes = 1, .start = NAN, .end = NAN, .min_duration = NAN};
    assert_int_equal(ari_tq_tasks_load(f->s, f->id, f->meta, &nf, 1, &t, &err), 0);
    assert_int_equal(t.n, 2);
    preds_of(&t, "1_4", preds, sizeof preds);
    assert_string_equal(preds, "");
    preds_of(&t, "1_5", preds, sizeof preds);
    assert_string_equal(preds, "1_4");
    ari_tq_tasks_free(&t);

    /* types and a window: 0_2 [0,2] and 1_4 [6,9] overlap [1,7] */
    char *types[] = {"dgemm", "dpotrf"};
    ari_task_filter tf = {.types = types, .ntypes = 2, .start = 1, .end = 7, .min_duration = NAN};
    assert_int_equal(ari_tq_tasks_load(f->s, f->id, f->meta, &tf, 0, &t, &err), 0);
    assert_int_equal(t.n, 2);
    assert_true(task_index(&t, "0_2") >= 0 && task_index(&t, "1_4") >= 0);
    ari_tq_tasks_free(&t);
    char *cuda[] = {"CUDA"};
    ari_task_filter mf = {.resources = cuda, .nresources = 1, .start = NAN, .end = NAN, .min_duration = 2.5};
    assert_int_equal(ari_tq_tasks_load(f->s, f->id, f->meta, &mf, 0, &t, &err), 0);
    assert_int_equal(t.n, 1);
    assert_string_equal(ari_tq_job_id(&t, 0), "0_3");
    ari_tq_tasks_free(&t);
}

static void test_contraction(void **state)
{
    fixture *f = *state;
    char sql[512];
    /* 0_1 -> mpi_a -> mpi_b -> 1_5, with a cycle mpi_b -> mpi_a among non-tasks */
    snprintf(sql, sizeof sql,
             "INSERT INTO deps(trace_id, job_id, depends_on) VALUES (%lld, '1_5', 'mpi_b'),"
             " (%lld, 'mpi_b', 'mpi_a'), (%lld, 'mpi_a', 'mpi_b'), (%lld, 'mpi_a', '0_1');",
             (long long)f->id, (long long)f->id, (long long)f->id, (long long)f->id);
    exec_sql(f, sql);
    ari_tq_tasks t;
    ari_error err = {0};
    char preds[256];
    assert_int_equal(ari_tq_tasks_load(f->s, f->id, f->meta, NULL, 1, &t, &err), 0);
    preds_of(&t, "1_5", preds, sizeof preds);
    assert_string_equal(preds, "0_1 1_4");
    ari_tq_tasks_free(&t);
}

static int collect_job(void *ctx, const char *job_id, int type, double start, double end, double gflop,
                       int64_t iteration)
{
    (void)type, (void)start, (void)end, (void)gflop, (void)iteration;
    char *out = ctx;
    snprintf(out + strlen(out), 64, "%s%s", *out ? " " : "", job_id);
    return 0;
}

static void test_worker_tasks_and_series(void **state)
{
    fixture *f = *state;
    char jobs[256] = "";
    ari_error err = {0};
    assert_int_equal(ari_tq_worker_tasks(f->s, f->id, f->meta, f->meta->workers[2].id, 5, 9.5, collect_job, jobs,
                                         &err), 0);
    assert_string_equal(jobs, "1_4 1_5");
    jobs[0] = '\0';
    assert_int_equal(ari_tq_worker_tasks(f->s, f->id, f->meta, f->meta->workers[2].id, 6.5, 9, collect_job, jobs,
                                         &err), 0);
    assert_string_equal(jobs, "");

    ari_tq_series *series;
    int n;
    ari_task_filter none = {.start = NAN, .end = NAN, .min_duration = NAN};
    assert_int_equal(ari_tq_series_load(f->s, f->id, ARI_TQ_READY, &none, 0, 10, &series, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(series[0].node, 0);
    assert_int_equal(series[0].n, 2); /* the value in effect at 0 (set at -1), then the change at 1 */
    assert_near(series[0].times[0], -1, 0);
    assert_near(series[0].values[0], 1, 0);
    assert_near(series[0].values[1], 0, 0);
    ari_tq_series_free(series, n);
    int64_t node1 = 1;
    ari_task_filter nf = {.nodes = &node1, .nnodes = 1, .start = NAN, .end = NAN, .min_duration = NAN};
    assert_int_equal(ari_tq_series_load(f->s, f->id, ARI_TQ_READY, &nf, 0, 10, &series, &n, &err), 0);
    assert_int_equal(n, 0);
    ari_tq_series_free(series, n);
    assert_int_equal(ari_tq_node_of_name("1_CPU3"), 1);
    assert_int_equal(ari_tq_node_of_name("CPU3"), 0);
    assert_int_equal(ari_tq_node_of_name("12_scheduler"), 12);
    assert_int_equal(ari_tq_node_of_name("123"), 0);
    assert_near(ari_tq_duration(610.98830799999996, 646.25052800000003), 35.26222, 0);
    assert_near(ari_tq_duration(5, 4), 0, 0);
}

static void test_rows_cache(void **state)
{
    fixture *f = *state;
    ari_tq_trace t;
    ari_error err = {0};
    assert_int_equal(ari_tq_trace_get(f->s, f->id, &t, &err), 0);
    ari_rows *rows = ari_rows_acquire(f->s, f->meta, t.key, &err);
    assert_non_null(rows);
    ari_rows *again = ari_rows_acquire(f->s, f->meta, t.key, &err);
    assert_ptr_equal(rows, again);
    ari_rows_release(again);
    assert_int_equal(rows->nrows, 3);
    const ari_row_tasks *r0 = &rows->rows[0];
    assert_int_equal(r0->ntasks, 2);
    assert_near(r0->start[1], 0, 0);
    assert_int_equal(r0->type[1], ari_tq_type_id(f->meta, "dpotrf"));
    ari_rows_release(rows);
    /* a budget of 0 evicts it once released: the next acquire loads anew */
    ari_rows_set_budget(0);
    ari_rows *fresh = ari_rows_acquire(f->s, f->meta, t.key, &err);
    assert_non_null(fresh);
    assert_int_equal(fresh->rows[2].ntasks, 2);
    ari_rows_release(fresh);
    ari_rows_set_budget((size_t)1 << 30);
    ari_tq_trace_free(&t);
}

static void test_cache_goes_with_trace(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    char *text = NULL;
    assert_int_equal(ari_cache_put(f->s, f->id, "bounds", "nodes=1", "{\"abe\":1}"), 0);
    assert_int_equal(ari_cache_get(f->s, f->id, "bounds", "nodes=1", &text, &err), 0);
    assert_string_equal(text, "{\"abe\":1}");
    free(text);
    assert_int_equal(ari_cache_get(f->s, f->id, "bounds", "nodes=0", &text, &err), 1);
    assert_int_equal(ari_cache_put(f->s, 4242, "bounds", "", "{}"), 0); /* no such trace: not stored */
    assert_int_equal(ari_cache_get(f->s, 4242, "bounds", "", &text, &err), 1);
    assert_int_equal(ari_traces_delete(f->s, f->id, &err), 0);
    assert_int_equal(ari_cache_get(f->s, f->id, "bounds", "nodes=1", &text, &err), 1);
    assert_int_equal(ari_cache_get(f->s, f->id, "meta", "", &text, &err), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trace_and_meta, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_cache_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_keyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tasks_and_deps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contraction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_worker_tasks_and_series, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_goes_with_trace, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
