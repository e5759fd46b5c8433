/* test_outlier_queries.c: src/store/outlier_queries.c (the outlier test
 * pushed down into PostgreSQL) against the in-memory path on the same
 * store (ari_tq_tasks_load + ari_outliers_compute, itself tested against
 * R in test_outliers.c), on a generated trace: large groups with many
 * tied durations, durations whose 10-digit rounding matters, groups of 1,
 * 2 and 3 tasks, a group of equal durations, zero-length and reversed
 * tasks, tasks on unknown or no workers; with and without each filter.
 * Groups must agree bit for bit, and the outlier tasks in order. Needs
 * the CTest fixture `pg` (or ARIADNE_TEST_PG); skipped without one. */
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

#include "analysis/outliers.h"
#include "store/outlier_queries.h"
#include "store/store_internal.h"
#include "test_helpers.h"

typedef struct pg_fixture {
    test_pg_db db;
    ari_store *s;
    int64_t trace;
} pg_fixture;

static void run(ari_store *s, const char *sql, const ari_arg *args, int n)
{
    ari_error err = {0};
    if (ari_store_run(s, sql, args, n, "test insert", &err) < 0)
        fail_msg("%s: %s", sql, err.message);
}

/* A deterministic generator (xorshift), so that a failure repeats. */
static uint64_t rng_state = 88172645463325252ull;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static int64_t task_seq;

static void add_task(pg_fixture *p, const char *type, int64_t worker, int64_t node, double start, double end)
{
    char job[32];
    snprintf(job, sizeof job, "%lld_%lld", (long long)node, (long long)(task_seq++ * 7919 % 100003));
    ari_arg args[] = {ari_arg_int(p->trace), ari_arg_text(job),
                      ari_arg_text(type),    worker ? ari_arg_int(worker) : ari_arg_null(),
                      ari_arg_int(node),     ari_arg_real(start),
                      ari_arg_real(end)};
    run(p->s,
        "INSERT INTO tasks (trace_id, job_id, type, worker_id, node, start, end) VALUES (?1, ?2, ?3, ?4, ?5, "
        "?6, ?7)",
        args, ARI_NARGS(args));
}

static void add_worker(pg_fixture *p, int64_t id, int64_t node, const char *restype, const char *resource)
{
    char name[64];
    snprintf(name, sizeof name, "%lld_%s", (long long)node, resource);
    ari_arg args[] = {ari_arg_int(p->trace), ari_arg_int(id),        ari_arg_int(node),
                      ari_arg_text(restype), ari_arg_text(resource), ari_arg_text(name)};
    run(p->s,
        "INSERT INTO workers (trace_id, container_id, node, resource_type, resource, name) VALUES (?1, ?2, "
        "?3, ?4, ?5, ?6)",
        args, ARI_NARGS(args));
}

static const int64_t cpu_workers[] = {10, 11, 20}, gpu_workers[] = {12, 21};

static int64_t node_of(int64_t worker)
{
    return worker >= 20 ? 1 : 0;
}

static void generate(pg_fixture *p)
{
    add_worker(p, 10, 0, "CPU", "CPU0");
    add_worker(p, 11, 0, "CPU", "CPU1");
    add_worker(p, 12, 0, "CUDA", "CUDA0");
    add_worker(p, 20, 1, "CPU", "CPU0");
    add_worker(p, 21, 1, "CUDA", "CUDA0");
    /* Large groups: durations from a few values (ties), with noise in the
     * 11th digit (the rounding merges them) and a tail of long tasks. */
    static const double base[] = {0.001, 0.0015, 0.002, 0.0031, 0.05};
    for (int i = 0; i < 1200; i++) {
        int gpu = i % 3 == 0;
        int64_t w = gpu ? gpu_workers[i % 2] : cpu_workers[i % 3];
        const char *type = i % 2 ? "dgemm" : "dtrsm";
        double d = base[(int)(uniform() * 4)] * (gpu ? 0.25 : 1);
        if (uniform() < 0.03)
            d *= 10 + 50 * uniform();
        if (uniform() < 0.2)
            d *= 1 + 1e-12 * uniform();
        double start = 1000 * uniform();
        add_task(p, type, w, node_of(w), start, start + d);
    }
    /* Groups of distinct durations whose quartiles fall between two of
     * them (n - 1 not a multiple of 4): the interpolation's rounding shows
     * ((1 - h) a + h b is not a + h (b - a) to the last bit). */
    static const int64_t all_workers[] = {10, 11, 20, 12, 21};
    static const char *const noisy[] = {"noisy0", "noisy1", "noisy2", "noisy3", "noisy4", "noisy5"};
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < 40 + 7 * k; i++) {
            int64_t w = all_workers[i % 5];
            double start = 1000 * uniform();
            add_task(p, noisy[k], w, node_of(w), start, start + 0.001 + 0.01 * uniform());
        }
    }
    /* Tiny groups (1, 2, 3 tasks), one of equal durations, one with a
     * zero-length and a reversed task, and ties on start. */
    add_task(p, "one", 10, 0, 5.0, 5.25);
    add_task(p, "two", 11, 0, 6.0, 6.5);
    add_task(p, "two", 20, 1, 6.0, 7.0);
    add_task(p, "three", 12, 0, 7.0, 7.1);
    add_task(p, "three", 21, 1, 7.0, 9.0);
    add_task(p, "three", 12, 0, 7.5, 7.6);
    for (int i = 0; i < 7; i++)
        add_task(p, "same", cpu_workers[i % 3], node_of(cpu_workers[i % 3]), 8.0 + i, 8.5 + i);
    add_task(p, "odd", 10, 0, 9.0, 9.0);
    add_task(p, "odd", 10, 0, 9.0, 8.0);
    for (int i = 0; i < 5; i++)
        add_task(p, "odd", 11, 0, 3.0, 3.0 + 0.001 * (i + 1));
    add_task(p, "odd", 11, 0, 3.0, 4.0);
    add_task(p, "odd", 11, 0, 3.0, 4.0);
    /* Not on a known worker: ignored by both paths. */
    add_task(p, "dgemm", 99, 0, 1.0, 100.0);
    add_task(p, "dgemm", 0, 0, 1.0, 100.0);
}

static int setup(void **state)
{
    pg_fixture *p = calloc(1, sizeof *p);
    assert_non_null(p);
    if (!(p->s = test_pg_store_open(&p->db, "ariadne_outliers"))) {
        free(p);
        *state = NULL;
        return 0;
    }
    ari_error err = {0};
    ari_arg none[] = {ari_arg_text("generated")};
    run(p->s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'tasks', 'test')", none, 1);
    p->trace = ari_store_last_insert_id(p->s);
    assert_true(p->trace > 0);
    assert_int_equal(ari_store_begin(p->s, &err), 0);
    generate(p);
    assert_int_equal(ari_store_commit(p->s, &err), 0);
    *state = p;
    return 0;
}

static int teardown(void **state)
{
    pg_fixture *p = *state;
    if (!p)
        return 0;
    test_pg_store_close(p->s, &p->db);
    free(p);
    return 0;
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Both paths on filter f; returns the number of outliers (checked equal). */
static size_t compare(pg_fixture *p, const ari_task_filter *f)
{
    ari_error err = {0};
    ari_tq_meta *m = NULL;
    if (ari_tq_meta_get(p->s, p->trace, &m, &err) < 0)
        fail_msg("meta: %s", err.message);
    ari_tq_tasks t;
    if (ari_tq_tasks_load(p->s, p->trace, m, f, 0, &t, &err) < 0)
        fail_msg("load: %s", err.message);
    double *d = malloc(((size_t)t.n + 1) * sizeof *d);
    assert_non_null(d);
    for (int64_t i = 0; i < t.n; i++)
        d[i] = ari_tq_duration(t.start[i], t.end[i]);
    ari_outlier_input in = {(size_t)t.n, d, t.type, t.restype, m->ntypes, m->nrestypes};
    ari_outlier_result mem;
    if (ari_outliers_compute(&in, &mem, &err) < 0)
        fail_msg("in memory: %s", err.message);
    ari_tq_outliers sql;
    if (ari_tq_outliers_sql(p->s, p->trace, m, f, &sql, &err) < 0)
        fail_msg("sql: %s", err.message);

    size_t ngroups = (size_t)m->ntypes * (size_t)m->nrestypes;
    for (size_t g = 0; g < ngroups; g++) {
        const ari_outlier_group *a = &mem.groups[g], *b = &sql.res.groups[g];
        if (a->count != b->count || !same_double(a->q1, b->q1) || !same_double(a->q3, b->q3) ||
            !same_double(a->iqr, b->iqr) || !same_double(a->threshold, b->threshold) ||
            a->noutliers != b->noutliers)
            fail_msg(
                "group %s/%s: in memory n=%zu q1=%.17g q3=%.17g out=%zu, sql n=%zu q1=%.17g q3=%.17g out=%zu",
                m->types[g % (size_t)m->ntypes], m->restypes[g / (size_t)m->ntypes], a->count, a->q1, a->q3,
                a->noutliers, b->count, b->q1, b->q3, b->noutliers);
    }
    assert_int_equal(mem.noutliers, sql.res.noutliers);
    assert_int_equal(sql.n, sql.res.noutliers);
    int64_t *idx = ari_outliers_by_start(&mem, t.start);
    assert_non_null(idx);
    for (size_t j = 0; j < mem.noutliers; j++) {
        int64_t i = idx[j];
        const ari_tq_outlier *x = &sql.tasks[j];
        assert_string_equal(ari_tq_job_id(&t, i), sql.ids + x->id_off);
        assert_int_equal(t.type[i], x->type);
        assert_int_equal(t.restype[i], x->restype);
        assert_int_equal(t.worker[i], x->worker);
        assert_true(same_double(t.start[i], x->start) && same_double(t.end[i], x->end));
    }
    size_t n = mem.noutliers;
    free(idx);
    free(d);
    ari_outlier_result_free(&mem);
    ari_tq_outliers_free(&sql);
    ari_tq_tasks_free(&t);
    ari_tq_meta_free(m);
    return n;
}

static ari_task_filter no_filter(void)
{
    return (ari_task_filter){NULL, 0, NULL, 0, NULL, 0, NAN, NAN, NAN};
}

static void test_all_tasks(void **state)
{
    pg_fixture *p = *state;
    if (!p)
        skip();
    assert_true(compare(p, NULL) > 10);
    ari_task_filter f = no_filter();
    assert_true(compare(p, &f) > 10);
}

static void test_tiny_groups_and_ties(void **state)
{
    pg_fixture *p = *state;
    if (!p)
        skip();
    char *types[] = {"one", "two", "three", "same", "odd"};
    ari_task_filter f = no_filter();
    f.types = types;
    f.ntypes = 5;
    /* "odd": 9 durations on CPU, 0 0 .001 .002 .003 .004 .005 1 1 (q1 .001,
     * q3 .005, threshold .011): the two 1 s tasks are outliers; the tiny
     * groups and "same" have none. */
    assert_int_equal(compare(p, &f), 2);
}

static void test_filters(void **state)
{
    pg_fixture *p = *state;
    if (!p)
        skip();
    char *types[] = {"dgemm", "three"};
    char *gpu[] = {"CUDA"};
    int64_t node1[] = {1};
    ari_task_filter f = no_filter();
    f.types = types;
    f.ntypes = 2;
    compare(p, &f);
    f = no_filter();
    f.resources = gpu;
    f.nresources = 1;
    compare(p, &f);
    f = no_filter();
    f.nodes = node1;
    f.nnodes = 1;
    compare(p, &f);
    f = no_filter();
    f.min_duration = 0.0015;
    compare(p, &f);
    f = no_filter();
    f.start = 3.0;
    f.end = 500.0;
    compare(p, &f);
    f = no_filter();
    f.end = 9.0; /* the zero-length task at 9 is out, [3, 3.001] in */
    compare(p, &f);
    f.types = types;
    f.ntypes = 2;
    f.resources = gpu;
    f.nresources = 1;
    f.start = 200;
    f.end = 800;
    compare(p, &f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_tasks),
        cmocka_unit_test(test_tiny_groups_and_ties),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
