/* test_progression_queries.c: ari_progression_sql (the progression's sums
 * computed by PostgreSQL, src/store/progression_queries.c) against the
 * in-memory path (ari_progression_load + ari_progression, itself tested in
 * test_progression.c) on a small generated trace written to both
 * backends: three nodes, types whose durations differ by orders of
 * magnitude (so that the order of additions shows in the last bits), many
 * tasks sharing an end time, tasks on unknown workers, a task resource
 * type overriding its worker's, zero-length and reversed tasks, a type
 * name with quotes, a backslash, braces and a comma; both
 * metrics, both weights, steps and step widths, a node filter. Every
 * number must agree bit for bit: SQL path = in-memory path on PostgreSQL
 * = in-memory path on SQLite. The PostgreSQL part needs the CTest fixture
 * `pg` (or ARIADNE_TEST_PG); without it the SQLite part runs alone. */
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

#include "analysis/progression.h"
#include "store/progression_queries.h"
#include "store/store_internal.h"
#include "test_helpers.h"

#define NTASKS 700

typedef struct fixture {
    test_db *lite;
    test_pg_db pgdb;
    ari_store *pg;
    int64_t lite_trace, pg_trace;
} fixture;

static void run(ari_store *s, const char *sql, const ari_arg *args, int n)
{
    ari_error err = {0};
    if (ari_store_run(s, sql, args, n, "test insert", &err) < 0)
        fail_msg("%s: %s", sql, err.message);
}

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

static void add_task(ari_store *s, int64_t trace, int i, const char *type, int64_t worker, int64_t node,
                     const char *restype, double start, double end)
{
    char job[32];
    snprintf(job, sizeof job, "%lld_%05d", (long long)node, (i * 7919) % 100003); /* not in insertion order */
    ari_arg args[] = {ari_arg_int(trace),  ari_arg_text(job),
                      ari_arg_text(type),  worker ? ari_arg_int(worker) : ari_arg_null(),
                      ari_arg_int(node),   ari_arg_text(restype),
                      ari_arg_real(start), ari_arg_real(end)};
    run(s,
        "INSERT INTO tasks (trace_id, job_id, type, worker_id, node, resource_type, start, end) VALUES (?1, "
        "?2,"
        " ?3, ?4, ?5, ?6, ?7, ?8)",
        args, ARI_NARGS(args));
}

/* worker id: node * 10 + k; k = 0, 1 CPU, 2 CUDA (node 2 has no CUDA) */
static int64_t generate(ari_store *s)
{
    ari_error err = {0};
    ari_arg name[] = {ari_arg_text("generated")};
    run(s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'tasks', 'test')", name, 1);
    int64_t trace = ari_store_last_insert_id(s);
    assert_true(trace > 0);
    assert_int_equal(ari_store_begin(s, &err), 0);
    for (int n = 0; n < 3; n++) {
        add_worker(s, trace, n * 10 + 10, n, "CPU", "CPU0");
        add_worker(s, trace, n * 10 + 11, n, "CPU", "CPU1");
        if (n < 2)
            add_worker(s, trace, n * 10 + 12, n, "CUDA", "CUDA0");
    }
    rng_state = 88172645463325252ull;
    static const char *const types[] = {"dgemm", "dtrsm", "dpotrf", "wait"};
    static const double scale[] = {1e-6, 1.0, 3e3, 0.01};
    for (int i = 0; i < NTASKS; i++) {
        int node = i < 3 ? i : (int)(uniform() * 3), k = (int)(uniform() * (node < 2 ? 3 : 2));
        int type = (int)(uniform() * 4);
        int64_t worker = uniform() < 0.05 ? 0 : uniform() < 0.03 ? 99 : node * 10 + 10 + k;
        const char *restype = uniform() < 0.04 ? "OpenCL" : NULL;
        double end = 1e4 * (1 + (int)(uniform() * 12)); /* 12 end times: ties */
        if (uniform() < 0.3)
            end += 1e4 * uniform();
        double d = scale[type] * (1 + uniform());
        if (uniform() < 0.02)
            d = -d; /* reversed */
        add_task(s, trace, i, types[type], worker, node, restype, end - d, end);
    }
    add_task(s, trace, NTASKS, "dgemm", 10, 0, NULL, 2e4, 2e4); /* zero length */
    /* a type name that an array literal must quote */
    add_task(s, trace, NTASKS + 1, "odd \"type\" \\ {a,b}", 11, 0, NULL, 3e4, 3.5e4);
    add_task(s, trace, NTASKS + 2, "odd \"type\" \\ {a,b}", 21, 1, NULL, 3e4, 3.25e4);
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
    if ((f->pg = test_pg_store_open(&f->pgdb, "ariadne_progression_q")) != NULL)
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

/* One path's answer: the shape (names, nodes) and the result. */
typedef struct answer {
    ari_prog_data d;
    ari_prog_result r;
    int rc;
    char message[1024];
} answer;

static void in_memory(ari_store *s, int64_t trace, const int *nodes, int nnodes, const ari_prog_options *o,
                      answer *a)
{
    char *unit = NULL;
    ari_error err = {0};
    memset(a, 0, sizeof *a);
    a->rc = ari_progression_load(s, trace, nodes, nnodes, &a->d, &unit, &err);
    assert_true(a->rc <= 0);
    if (a->rc == 0)
        a->rc = ari_progression(&a->d, o, &a->r, &err);
    snprintf(a->message, sizeof a->message, "%s", err.message);
    free(unit);
}

static void in_sql(ari_store *s, int64_t trace, const int *nodes, int nnodes, const ari_prog_options *o,
                   answer *a)
{
    char *unit = NULL;
    ari_error err = {0};
    memset(a, 0, sizeof *a);
    a->rc = ari_progression_sql(s, trace, nodes, nnodes, o, &a->d, &a->r, &unit, &err);
    snprintf(a->message, sizeof a->message, "%s", err.message);
    free(unit);
}

static void answer_free(answer *a)
{
    ari_prog_result_free(&a->r);
    ari_prog_data_free(&a->d);
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void same_answer(const answer *a, const answer *b, const char *what)
{
    if (a->rc != b->rc || (a->rc < 0 && strcmp(a->message, b->message) != 0))
        fail_msg("%s: rc %d (%s) / %d (%s)", what, a->rc, a->message, b->rc, b->message);
    if (a->rc < 0)
        return;
    const ari_prog_result *x = &a->r, *y = &b->r;
    assert_int_equal(a->d.nnodes, b->d.nnodes);
    assert_int_equal(a->d.ntypes, b->d.ntypes);
    assert_int_equal(a->d.nrestypes, b->d.nrestypes);
    assert_int_equal(a->d.ntasks, b->d.ntasks);
    for (int n = 0; n < a->d.nnodes; n++)
        assert_int_equal(a->d.node_ids[n], b->d.node_ids[n]);
    for (int t = 0; t < a->d.ntypes; t++)
        assert_string_equal(a->d.type_names[t], b->d.type_names[t]);
    for (int t = 0; t < a->d.nrestypes; t++)
        assert_string_equal(a->d.restype_names[t], b->d.restype_names[t]);
    for (int i = 0; i < a->d.nnodes * a->d.nrestypes; i++)
        assert_int_equal(a->d.workers[i], b->d.workers[i]);
    if (x->nsteps != y->nsteps || !same(x->t0, y->t0) || !same(x->t1, y->t1) ||
        !same(x->global_abe, y->global_abe) || x->nflows != y->nflows)
        fail_msg("%s: steps %d/%d, t0 %.17g/%.17g, abe %.17g/%.17g", what, x->nsteps, y->nsteps, x->t0, y->t0,
                 x->global_abe, y->global_abe);
    for (int i = 0; i < x->nsteps * x->nnodes; i++)
        if (!same(x->values[i], y->values[i]))
            fail_msg("%s: value %d: %.17g / %.17g", what, i, x->values[i], y->values[i]);
    for (int i = 0; i < x->nnodes * x->ntypes; i++)
        if (!same(x->weights[i], y->weights[i]))
            fail_msg("%s: weight %d: %.17g / %.17g", what, i, x->weights[i], y->weights[i]);
    for (int n = 0; n < x->nnodes; n++)
        assert_true(x->node_tasks[n] == y->node_tasks[n] && same(x->last_end[n], y->last_end[n]));
    for (int s = 0; s < x->nsteps; s++) {
        const ari_prog_step *p = &x->steps[s], *q = &y->steps[s];
        if (p->completed != q->completed || !same(p->abe, q->abe) ||
            !same(p->cumulative_abe, q->cumulative_abe) || !same(p->mean_value, q->mean_value) ||
            !same(p->time, q->time) || p->modal.nclusters != q->modal.nclusters)
            fail_msg("%s: step %d: completed %ld/%ld, abe %.17g/%.17g, mean %.17g/%.17g", what, s,
                     p->completed, q->completed, p->abe, q->abe, p->mean_value, q->mean_value);
    }
    for (int f = 0; f < x->nflows; f++)
        assert_true(x->flows[f].count == y->flows[f].count && x->flows[f].from == y->flows[f].from &&
                    x->flows[f].to == y->flows[f].to);
}

static void compare(fixture *fx, const int *nodes, int nnodes, const ari_prog_options *o)
{
    answer lite, mem, sql;
    in_memory(fx->lite->s, fx->lite_trace, nodes, nnodes, o, &lite);
    if (fx->pg) {
        in_memory(fx->pg, fx->pg_trace, nodes, nnodes, o, &mem);
        in_sql(fx->pg, fx->pg_trace, nodes, nnodes, o, &sql);
        same_answer(&lite, &mem, "SQLite / PostgreSQL in memory");
        same_answer(&mem, &sql, "in memory / SQL");
        answer_free(&mem);
        answer_free(&sql);
    }
    answer_free(&lite);
}

static ari_prog_options options(int steps, double width, ari_prog_metric metric, ari_prog_weight weight)
{
    return (ari_prog_options){steps, width, 0.05, metric, weight, 1};
}

static void test_options(void **state)
{
    fixture *fx = *state;
    static const int steps[] = {1, 7, 20, 300};
    for (int i = 0; i < 4; i++)
        for (int m = 0; m < 4; m++)
            compare(fx, NULL, 0,
                    &(ari_prog_options){steps[i], 0, 0.05, m % 2 ? ARI_PROG_COUNT : ARI_PROG_WEIGHTED,
                                        m / 2 ? ARI_PROG_WEIGHT_ALL_WORKERS : ARI_PROG_WEIGHT_STARVZ, 1});
    ari_prog_options o = options(0, 1e4, ARI_PROG_WEIGHTED, ARI_PROG_WEIGHT_STARVZ);
    compare(fx, NULL, 0, &o);
    o.step_width = 1.0; /* more than 1000 steps: the same error */
    compare(fx, NULL, 0, &o);
    if (!fx->pg)
        skip();
}

static void test_node_filter(void **state)
{
    fixture *fx = *state;
    static const int two[] = {2, 0}, missing[] = {1, 7};
    ari_prog_options o = options(12, 0, ARI_PROG_WEIGHTED, ARI_PROG_WEIGHT_ALL_WORKERS);
    compare(fx, two, 2, &o);
    compare(fx, missing, 2, &o);
    o.weight = ARI_PROG_WEIGHT_STARVZ;
    compare(fx, two + 1, 1, &o);
    if (!fx->pg)
        skip();
}

/* The fixture's sums depend on the order of ties: sweeping the tied
 * tasks in reverse changes some value (so a path adding in another
 * order than the loader's would fail above). */
static void test_order_matters(void **state)
{
    fixture *fx = *state;
    answer a;
    ari_prog_options o = options(12, 0, ARI_PROG_WEIGHTED, ARI_PROG_WEIGHT_STARVZ);
    in_memory(fx->lite->s, fx->lite_trace, NULL, 0, &o, &a);
    assert_int_equal(a.rc, 0);
    ari_prog_task *t = a.d.tasks;
    for (long i = 0, j = a.d.ntasks - 1; i < j; i++, j--) {
        ari_prog_task x = t[i];
        t[i] = t[j];
        t[j] = x;
    }
    ari_prog_result r;
    ari_error err = {0};
    assert_int_equal(ari_progression(&a.d, &o, &r, &err), 0);
    int differs = 0;
    for (int i = 0; i < r.nsteps * r.nnodes; i++)
        differs += !same(r.values[i], a.r.values[i]);
    assert_true(differs > 0);
    ari_prog_result_free(&r);
    answer_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_matters),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_node_filter),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
