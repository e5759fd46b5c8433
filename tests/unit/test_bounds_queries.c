/* test_bounds_queries.c: src/store/bounds_queries.c (the bounds'
 * per-type statistics aggregated by PostgreSQL) and bounds.c's
 * aggregates input, against the in-memory path (ari_tq_tasks_load +
 * ari_bounds_compute from the tasks, itself tested in test_bounds.c), on a
 * small generated trace written to both backends: durations of very
 * different magnitudes (so that the order of the additions shows in the
 * last bits: checked), job ids not in insertion order, tasks without an
 * iteration or on unknown workers, dependencies through a non-task name;
 * with and without each filter, by node and by iteration. Results must
 * agree bit for bit: SQL path = in-memory path on PostgreSQL = in-memory
 * path on SQLite. The PostgreSQL part needs the CTest fixture `pg` (or
 * ARIADNE_TEST_PG); without it the SQLite part runs alone. The SQL path
 * loads only the DAG (ari_tq_dag_load), as api_bounds.c does there. */
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

#include "analysis/bounds.h"
#include "store/bounds_queries.h"
#include "store/store_internal.h"
#include "test_helpers.h"

#define NTASKS 600

typedef struct fixture {
    test_db *lite;   /* SQLite */
    test_pg_db pgdb; /* PostgreSQL, when a cluster is given */
    ari_store *pg;
    int64_t lite_trace, pg_trace;
} fixture;

static void run(ari_store *s, const char *sql, const ari_arg *args, int n)
{
    ari_error err = {0};
    if (ari_store_run(s, sql, args, n, "test insert", &err) < 0)
        fail_msg("%s: %s", sql, err.message);
}

/* A deterministic generator (xorshift), restarted for each store. */
static uint64_t rng_state;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static void add_worker(ari_store *s, int64_t trace, int64_t id, int64_t node, const char *restype,
                       const char *resource)
{
    char name[64];
    snprintf(name, sizeof name, "%lld_%s", (long long)node, resource);
    ari_arg args[] = {ari_arg_int(trace),    ari_arg_int(id),        ari_arg_int(node),
                      ari_arg_text(restype), ari_arg_text(resource), ari_arg_text(name)};
    run(s,
        "INSERT INTO workers (trace_id, container_id, node, resource_type, resource, name) VALUES (?1, ?2, "
        "?3, ?4, ?5, ?6)",
        args, ARI_NARGS(args));
}

static void job_name(char *buf, size_t size, int i)
{
    snprintf(buf, size, "j%05d", (i * 7919) % 100003); /* not in insertion order */
}

static void add_task(ari_store *s, int64_t trace, int i, const char *type, int64_t worker, int64_t node,
                     double start, double end, int64_t iteration)
{
    char job[32];
    job_name(job, sizeof job, i);
    ari_arg args[] = {ari_arg_int(trace), ari_arg_text(job),
                      ari_arg_text(type), worker ? ari_arg_int(worker) : ari_arg_null(),
                      ari_arg_int(node),  ari_arg_real(start),
                      ari_arg_real(end),  iteration >= 0 ? ari_arg_int(iteration) : ari_arg_null()};
    run(s,
        "INSERT INTO tasks (trace_id, job_id, type, worker_id, node, start, end, iteration) VALUES (?1, ?2, "
        "?3, ?4, ?5, ?6, ?7, ?8)",
        args, ARI_NARGS(args));
}

static void add_dep(ari_store *s, int64_t trace, const char *job, const char *on)
{
    ari_arg args[] = {ari_arg_int(trace), ari_arg_text(job), ari_arg_text(on)};
    run(s, "INSERT INTO deps (trace_id, job_id, depends_on) VALUES (?1, ?2, ?3)", args, ARI_NARGS(args));
}

static const int64_t workers[] = {10, 11, 12, 20, 21};

static int64_t node_of(int64_t worker)
{
    return worker >= 20 ? 1 : 0;
}

/* The same trace on either store: the generator restarts. */
static int64_t generate(ari_store *s)
{
    ari_error err = {0};
    ari_arg name[] = {ari_arg_text("generated")};
    run(s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'tasks', 'test')", name, 1);
    int64_t trace = ari_store_last_insert_id(s);
    assert_true(trace > 0);
    assert_int_equal(ari_store_begin(s, &err), 0);
    add_worker(s, trace, 10, 0, "CPU", "CPU0");
    add_worker(s, trace, 11, 0, "CPU", "CPU1");
    add_worker(s, trace, 12, 0, "CUDA", "CUDA0");
    add_worker(s, trace, 20, 1, "CPU", "CPU0");
    add_worker(s, trace, 21, 1, "CUDA", "CUDA0");
    rng_state = 88172645463325252ull;
    static const char *const types[] = {"dgemm", "dtrsm", "dpotrf"};
    for (int i = 0; i < NTASKS; i++) {
        int64_t w = workers[i % 5];
        /* mostly milliseconds, now and then 1e4 s: sums that depend on
         * the order of their terms */
        double d = uniform() < 0.05 ? 1e4 * (1 + uniform()) : 1e-3 * (1 + uniform()) / 3;
        double start = 100 * uniform();
        int64_t iteration = i % 11 == 0 ? -1 : i % 4;
        add_task(s, trace, i, types[(i / 5) % 3], w, node_of(w), start, start + d, iteration);
    }
    add_task(s, trace, NTASKS, "dgemm", 99, 0, 1.0, 5.0, 1);       /* unknown worker */
    add_task(s, trace, NTASKS + 1, "dgemm", 0, 0, 1.0, 5.0, 1);    /* no worker */
    add_task(s, trace, NTASKS + 2, "dtrsm", 10, 0, 50.0, 50.0, 2); /* zero length */
    /* a chain of dependencies, some through a communication name */
    for (int i = 1; i < NTASKS; i++) {
        char job[32], on[32];
        job_name(job, sizeof job, i);
        if (i % 3 == 0)
            continue;
        job_name(on, sizeof on, i % 7 == 0 ? i / 2 : i - 1);
        if (i % 13 == 0) {
            char comm[32];
            snprintf(comm, sizeof comm, "mpi_comm_%d", i);
            add_dep(s, trace, job, comm);
            add_dep(s, trace, comm, on);
        } else {
            add_dep(s, trace, job, on);
        }
    }
    assert_int_equal(ari_store_commit(s, &err), 0);
    return trace;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    void *lite = NULL;
    test_db_setup(&lite);
    f->lite = lite;
    f->lite_trace = generate(f->lite->s);
    if ((f->pg = test_pg_store_open(&f->pgdb, "ariadne_bounds_q")) != NULL)
        f->pg_trace = generate(f->pg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    void *lite = f->lite;
    test_db_teardown(&lite);
    test_pg_store_close(f->pg, &f->pgdb);
    free(f);
    return 0;
}

/* The bounds of trace on s (api_bounds.c's computation): from the
 * database's aggregates when sql, else from the tasks. */
static void bounds(ari_store *s, int64_t trace, const ari_task_filter *f, int by_iteration, int sql,
                   ari_bounds_result *res)
{
    ari_error err = {0};
    ari_tq_meta *m = NULL;
    if (ari_tq_meta_get(s, trace, &m, &err) < 0)
        fail_msg("meta: %s", err.message);
    ari_bounds_aggregates agg = {0};
    if (sql && ari_bq_aggregates(s, trace, m, f, by_iteration, &agg, &err) < 0)
        fail_msg("aggregates: %s", err.message);
    ari_tq_tasks t; /* the SQL path loads the DAG only, as api_bounds.c does */
    if ((sql ? ari_tq_dag_load(s, trace, m, f, &t, &err) : ari_tq_tasks_load(s, trace, m, f, 1, &t, &err)) <
        0)
        fail_msg("load: %s", err.message);
    size_t nr = (size_t)m->nrestypes;
    double *w = calloc(nr + 1, sizeof *w), *nw = calloc(nr * (size_t)m->nnodes + 1, sizeof *nw);
    assert_true(w && nw);
    for (int i = 0; i < m->nworkers; i++) {
        const ari_tq_worker *x = &m->workers[i];
        if (!ari_task_filter_row(f, x))
            continue;
        w[x->restype] += 1;
        for (int j = 0; j < m->nnodes; j++)
            if (m->nodes[j] == x->node)
                nw[(size_t)j * nr + (size_t)x->restype] += 1;
    }
    ari_bounds_tasks bt = {t.n,     t.type, t.restype,     t.node, t.iteration,
                           t.start, t.end,  t.pred_offset, t.pred};
    if (sql) /* the CPE reads the DAG only: the rest was not loaded */
        assert_true(!t.restype && !t.start && !t.end && !t.ids);
    ari_bounds_input in = {bt, m->ntypes,    m->nrestypes,     w, m->nnodes, m->nodes,
                           nw, by_iteration, sql ? &agg : NULL};
    if (ari_bounds_compute(&in, res, &err) < 0)
        fail_msg("bounds: %s", err.message);
    free(w);
    free(nw);
    ari_tq_tasks_free(&t);
    ari_bounds_aggregates_free(&agg);
    ari_tq_meta_free(m);
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void same_scope(const ari_bounds_scope *a, const ari_bounds_scope *b, const char *what)
{
    if (a->key != b->key || a->tasks != b->tasks || a->workers != b->workers || a->ncells != b->ncells ||
        !same_double(a->makespan, b->makespan) || !same_double(a->start, b->start) ||
        !same_double(a->span, b->span) || !same_double(a->abe, b->abe) || !same_double(a->cpe, b->cpe))
        fail_msg("%s %lld: tasks %lld/%lld, makespan %.17g/%.17g, abe %.17g/%.17g, cpe %.17g/%.17g", what,
                 (long long)a->key, (long long)a->tasks, (long long)b->tasks, a->makespan, b->makespan,
                 a->abe, b->abe, a->cpe, b->cpe);
    for (size_t i = 0; i < a->ncells; i++) {
        const ari_bounds_cell *x = &a->cells[i], *y = &b->cells[i];
        if (x->restype != y->restype || x->type != y->type || x->actual != y->actual ||
            x->workers != y->workers || !same_double(x->ideal, y->ideal) ||
            !same_double(x->mean_duration, y->mean_duration))
            fail_msg("%s %lld, cell %zu: mean %.17g/%.17g, ideal %.17g/%.17g", what, (long long)a->key, i,
                     x->mean_duration, y->mean_duration, x->ideal, y->ideal);
    }
}

static void same_result(const ari_bounds_result *a, const ari_bounds_result *b)
{
    same_scope(&a->all, &b->all, "all");
    assert_int_equal(a->nnodes, b->nnodes);
    for (size_t i = 0; i < a->nnodes; i++)
        same_scope(&a->nodes[i], &b->nodes[i], "node");
    assert_int_equal(a->has_iterations, b->has_iterations);
    assert_int_equal(a->niterations, b->niterations);
    for (size_t i = 0; i < a->niterations; i++)
        same_scope(&a->iterations[i], &b->iterations[i], "iteration");
}

/* Every path on filter f: returns the tasks in all. */
static int64_t compare(fixture *fx, const ari_task_filter *f, int by_iteration)
{
    ari_bounds_result lite, pg_mem, pg_sql;
    bounds(fx->lite->s, fx->lite_trace, f, by_iteration, 0, &lite);
    int64_t n = lite.all.tasks;
    assert_true(n == 0 || (isfinite(lite.all.cpe) && lite.all.cpe > 0 && isfinite(lite.all.abe)));
    if (by_iteration && n > 0)
        assert_true(lite.niterations >= 1);
    if (fx->pg) {
        bounds(fx->pg, fx->pg_trace, f, by_iteration, 0, &pg_mem);
        bounds(fx->pg, fx->pg_trace, f, by_iteration, 1, &pg_sql);
        same_result(&lite, &pg_mem);
        same_result(&pg_mem, &pg_sql);
        ari_bounds_result_free(&pg_mem);
        ari_bounds_result_free(&pg_sql);
    }
    ari_bounds_result_free(&lite);
    return n;
}

static ari_task_filter no_filter(void)
{
    return (ari_task_filter){NULL, 0, NULL, 0, NULL, 0, NAN, NAN, NAN};
}

/* The fixture's sums depend on the order of their terms: a comparison
 * that added in another order than the loader's would fail. */
static void test_order_matters(void **state)
{
    fixture *fx = *state;
    ari_error err = {0};
    ari_tq_meta *m = NULL;
    assert_int_equal(ari_tq_meta_get(fx->lite->s, fx->lite_trace, &m, &err), 0);
    ari_tq_tasks t;
    assert_int_equal(ari_tq_tasks_load(fx->lite->s, fx->lite_trace, m, NULL, 0, &t, &err), 0);
    int differs = 0;
    for (int k = 0; k < m->ntypes; k++) {
        double forward = 0, backward = 0;
        for (int64_t i = 0; i < t.n; i++)
            if (t.type[i] == k && t.restype[i] == 0)
                forward += t.end[i] - t.start[i];
        for (int64_t i = t.n - 1; i >= 0; i--)
            if (t.type[i] == k && t.restype[i] == 0)
                backward += t.end[i] - t.start[i];
        differs += forward != backward;
    }
    assert_true(differs > 0);
    ari_tq_tasks_free(&t);
    ari_tq_meta_free(m);
}

static void test_all_tasks(void **state)
{
    fixture *fx = *state;
    assert_int_equal(compare(fx, NULL, 0), NTASKS + 1);
    ari_task_filter f = no_filter();
    assert_int_equal(compare(fx, &f, 1), NTASKS + 1);
    if (!fx->pg)
        skip();
}

static void test_filters(void **state)
{
    fixture *fx = *state;
    char *types[] = {"dgemm", "dpotrf"};
    char *gpu[] = {"CUDA"};
    int64_t node1[] = {1};
    ari_task_filter f = no_filter();
    f.types = types;
    f.ntypes = 2;
    assert_true(compare(fx, &f, 1) > 0);
    f = no_filter();
    f.resources = gpu;
    f.nresources = 1;
    assert_true(compare(fx, &f, 0) > 0);
    f = no_filter();
    f.nodes = node1;
    f.nnodes = 1;
    assert_true(compare(fx, &f, 1) > 0);
    f = no_filter();
    f.min_duration = 0.0004;
    assert_true(compare(fx, &f, 0) > 0);
    f = no_filter();
    f.start = 30.0;
    f.end = 50.0; /* the zero-length task at 50 is out */
    assert_true(compare(fx, &f, 1) > 0);
    f.types = types;
    f.ntypes = 1;
    f.resources = gpu;
    f.nresources = 1;
    compare(fx, &f, 1);
    f = no_filter();
    f.start = 1e9; /* no task: empty scopes */
    assert_int_equal(compare(fx, &f, 1), 0);
    if (!fx->pg)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_matters),
        cmocka_unit_test(test_all_tasks),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
