/* test_supergraph_queries.c: src/store/supergraph_queries.c (the super
 * graph's per-process sums and the nodes' collapses pushed down into
 * PostgreSQL) against the in-memory path (ari_profile_load +
 * ari_supergraph_build, itself tested in test_supergraph.c), on one
 * generated profile written into an SQLite store and into a PostgreSQL
 * one: 70 nodes in two trees over three modules and a module-less kind
 * (cycles between modules, so duplicates; recursion of names, for the
 * filter), 10 processes, values of many magnitudes and signs, a
 * subnormal, unmeasured cells (NaN), a metric the import derives and one
 * stored with both variants. Every collapse, with and without the filter,
 * grouped by module and by name, with splits: the graphs must agree bit
 * for bit (a zero's sign aside), and the in-memory path must give the
 * same on both backends. Needs the CTest fixture `pg` (or
 * ARIADNE_TEST_PG); skipped without one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "store/profile_queries.h"
#include "store/profile_writer.h"
#include "store/store_internal.h"
#include "store/supergraph_queries.h"
#include "test_helpers.h"

#define NNODES   70
#define NRANKS   5
#define NTHREADS 2

typedef struct fixture {
    test_pg_db db;
    ari_store *pg, *lite;
    char *dir;
    int64_t pg_trace, lite_trace;
} fixture;

/* A deterministic generator (xorshift), so that a failure repeats. */
static uint64_t rng_state;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static const char *const modules[] = {"/usr/lib/libA.so", "/usr/lib/libB.so", "app", ""};
static const char *const names[] = {"main", "solve", "mpi_wait", "kernel", "pack", "io", "loop", "recurse"};

/* A value of metric `which` of cell (node, proc): NAN when unmeasured. */
static double cell_value(int which, int node, int proc)
{
    double u = uniform();
    if (u < 0.15)
        return NAN;
    if (which == 0 && node == 17 && proc == 3)
        return 3e-310; /* a subnormal */
    if (which == 1 && node == 23 && proc == 5)
        return 1.5e300; /* the exponents' ends */
    if (which == 2 && node == 29 && proc == 6)
        return -2.5e-305;
    double v = uniform() * pow(10, (int)(uniform() * 9) - 4);
    return u < 0.2 ? -v : v;
}

/* The profile, written through the import's writer into the trace id of
 * store s: metric "time" exclusive (the import derives "time (inc)"),
 * "bytes (inc)" and "bytes" both given (not consistent with the tree). */
static void write_profile(ari_store *s, int64_t id)
{
    rng_state = 88172645463325252ull;
    ari_error err = {0};
    ari_profile_writer *pw = ari_profile_writer_begin_store(s, id, &err);
    assert_non_null(pw);
    const ari_profile_sink *k = ari_profile_writer_sink(pw);
    int time, binc, bexc, proc[NRANKS * NTHREADS];
    ari_profile_metric m0 = {"time", NULL, "s", 0, NULL};
    ari_profile_metric m1 = {"bytes (inc)", NULL, "B", 1, "bytes"};
    ari_profile_metric m2 = {"bytes", NULL, "B", 0, "bytes (inc)"};
    assert_int_equal(k->on_metric(k->ctx, &m0, &time), 0);
    assert_int_equal(k->on_metric(k->ctx, &m1, &binc), 0);
    assert_int_equal(k->on_metric(k->ctx, &m2, &bexc), 0);
    for (int r = 0; r < NRANKS; r++)
        for (int t = 0; t < NTHREADS; t++)
            assert_int_equal(k->on_proc(k->ctx, r, t, &proc[r * NTHREADS + t]), 0);
    for (int i = 0; i < NNODES; i++) {
        int64_t parent = i < 2   ? -1
                         : i < 8 ? (i % 2)
                                 : (int64_t)(i - 1 - (int)(uniform() * (i < 12 ? i - 1 : 10)));
        int nm = i < 2 ? 0 : 1 + (int)(uniform() * 7);
        ari_profile_node n = {i,
                              parent,
                              names[nm],
                              modules[(int)(uniform() * 4)],
                              i % 3 ? "a.c" : "",
                              i,
                              i % 5 == 4 ? "loop" : "function"};
        assert_int_equal(k->on_node(k->ctx, &n), 0);
        for (int p = 0; p < NRANKS * NTHREADS; p++) {
            int metrics[3] = {time, binc, bexc};
            for (int w = 0; w < 3; w++) {
                double v = cell_value(w, i, p);
                if (!isnan(v))
                    assert_int_equal(k->on_value(k->ctx, metrics[w], i, proc[p], v), 0);
            }
        }
    }
    if (ari_profile_writer_finish(pw, &err) < 0)
        fail_msg("write the profile: %s", err.message);
    ari_profile_writer_free(pw);
}

static int64_t new_profile(ari_store *s)
{
    ari_error err = {0};
    ari_arg args[] = {ari_arg_text("generated")};
    if (ari_store_run(s, "INSERT INTO traces (name, kind, format) VALUES (?1, 'profile', 'test')", args, 1,
                      "insert trace", &err) < 0)
        fail_msg("insert trace: %s", err.message);
    int64_t id = ari_store_last_insert_id(s);
    assert_int_equal(ari_store_begin(s, &err), 0);
    write_profile(s, id);
    assert_int_equal(ari_store_commit(s, &err), 0);
    return id;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    if (!test_pg_db_create(&f->db, "ariadne_sgq")) {
        free(f);
        *state = NULL;
        return 0;
    }
    ari_error err = {0};
    char *path;
    f->dir = test_tmpdir();
    assert_true(asprintf(&path, "%s/t.db", f->dir) > 0);
    f->lite = ari_store_open(path, &err);
    free(path);
    f->pg = ari_store_open(f->db.url, &err);
    if (!f->lite || !f->pg)
        fail_msg("open the stores: %s", err.message);
    f->lite_trace = new_profile(f->lite);
    f->pg_trace = new_profile(f->pg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (!f)
        return 0;
    ari_store_close(f->lite);
    ari_store_close(f->pg);
    test_pg_db_drop(&f->db);
    ari_remove_tree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

/* One super graph and what made it. */
typedef struct built {
    ari_cct c;
    ari_cct_times t;
    unsigned char keep[NNODES];
    int64_t kept;
    double vinc[NNODES], vexc[NNODES];
    ari_supergraph g;
} built;

static void built_free(built *b)
{
    ari_supergraph_free(&b->g);
    ari_cct_times_free(&b->t);
    ari_cct_free(&b->c);
}

typedef struct case_params {
    const char *metric;
    ari_collapse collapse;
    double fraction;
    int by_exclusive;
    ari_group_by group_by;
    ari_sg_split splits[2];
    int nsplits;
} case_params;

static void in_memory(ari_store *s, int64_t trace, const case_params *cp, built *b)
{
    ari_error err = {0};
    memset(b, 0, sizeof *b);
    assert_int_equal(ari_profile_load(s, trace, &b->c, &err), 0);
    assert_int_equal(b->c.nnodes, NNODES);
    int m = ari_cct_metric_find(&b->c, cp->metric);
    assert_true(m >= 0);
    assert_int_equal(ari_cct_times_init(&b->t, &b->c, m, &err), 0);
    assert_int_equal(ari_cct_collapse(&b->c, b->t.inc, NULL, cp->collapse, b->vinc, &err), 0);
    assert_int_equal(ari_cct_collapse(&b->c, b->t.exc, NULL, cp->collapse, b->vexc, &err), 0);
    ari_cct_filter f = {cp->fraction, cp->by_exclusive, cp->collapse};
    assert_int_equal(ari_cct_filter_mask(&b->c, &b->t, &f, b->keep, &b->kept, &err), 0);
    ari_sg_params p = {cp->group_by, NULL, cp->splits, cp->nsplits, cp->collapse};
    if (ari_supergraph_build(&b->c, &b->t, b->keep, &p, &b->g, &err) < 0)
        fail_msg("in-memory super graph: %s", err.message);
}

static void in_sql(ari_store *s, int64_t trace, const case_params *cp, built *b)
{
    ari_error err = {0};
    memset(b, 0, sizeof *b);
    assert_int_equal(ari_profile_load_summary(s, trace, &b->c, &err), 0);
    assert_null(b->c.values);
    int m = ari_cct_metric_find(&b->c, cp->metric);
    assert_true(m >= 0);
    assert_int_equal(ari_sgq_times(&b->c, m, &b->t), 0);
    if (ari_sgq_collapse(s, trace, &b->c, &b->t, cp->collapse, b->vinc, b->vexc, &err) < 0)
        fail_msg("collapse in SQL: %s", err.message);
    ari_cct_filter f = {cp->fraction, cp->by_exclusive, cp->collapse};
    assert_int_equal(ari_cct_filter_mask_collapsed(&b->c, b->vinc, b->vexc, &f, b->keep, &b->kept, &err), 0);
    ari_sg_params p = {cp->group_by, NULL, cp->splits, cp->nsplits, cp->collapse};
    if (ari_supergraph_build_collapsed(&b->c, b->vinc, b->vexc, b->keep, &p, &b->g, &err) < 0)
        fail_msg("collapsed super graph: %s", err.message);
    if (ari_sgq_fill(s, trace, b->t.inc_metric, &b->g, &err) < 0)
        fail_msg("sums in SQL: %s", err.message);
}

/* The same double: the same bits, or two zeros. */
static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (a == 0 && b == 0);
}

static void same_values(const char *what, const char *ctx, const double *a, const double *b, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!same(a[k], b[k]))
            fail_msg("%s: %s[%lld] is %.17g in memory, %.17g in SQL", ctx, what, (long long)k, a[k], b[k]);
}

static void same_graph(const char *ctx, const built *x, const built *y)
{
    const ari_supergraph *a = &x->g, *b = &y->g;
    same_values("collapsed inc", ctx, x->vinc, y->vinc, NNODES);
    same_values("collapsed exc", ctx, x->vexc, y->vexc, NNODES);
    assert_int_equal(x->kept, y->kept);
    assert_memory_equal(x->keep, y->keep, NNODES);
    assert_int_equal(a->nnodes, b->nnodes);
    assert_int_equal(a->nedges, b->nedges);
    assert_int_equal(a->nprocs, b->nprocs);
    assert_int_equal(a->duplicates, b->duplicates);
    for (int64_t j = 0; j < a->nnodes; j++) {
        const ari_sg_node *p = &a->nodes[j], *q = &b->nodes[j];
        assert_string_equal(p->id, q->id);
        assert_int_equal(p->level, q->level);
        assert_int_equal(p->nfunctions, q->nfunctions);
        assert_int_equal(p->nentries, q->nentries);
        assert_int_equal(p->ncallers, q->ncallers);
        for (int64_t e = 0; e < p->nentries; e++) {
            assert_string_equal(p->entries[e].name, q->entries[e].name);
            assert_true(same(p->entries[e].inc, q->entries[e].inc) &&
                        same(p->entries[e].exc, q->entries[e].exc));
        }
        for (int64_t e = 0; e < p->ncallers; e++)
            assert_true(p->callers[e].node == q->callers[e].node &&
                        same(p->callers[e].inc, q->callers[e].inc));
    }
    for (int64_t e = 0; e < a->nedges; e++)
        assert_true(a->edges[e].source == b->edges[e].source && a->edges[e].target == b->edges[e].target);
    int64_t nv = a->nnodes * a->nprocs;
    same_values("inc", ctx, a->inc, b->inc, nv);
    same_values("exc", ctx, a->exc, b->exc, nv);
    same_values("filtered", ctx, a->filtered, b->filtered, nv);
    same_values("root_inflow", ctx, a->root_inflow, b->root_inflow, nv);
    same_values("weight", ctx, a->weight, b->weight, a->nedges * a->nprocs);
}

static void check_case(fixture *f, const case_params *cp)
{
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s collapse %s filter %g%s group %d splits %d", cp->metric,
             ari_collapse_name(cp->collapse), cp->fraction, cp->by_exclusive ? " exc" : "", (int)cp->group_by,
             cp->nsplits);
    built lite, mem, sql;
    in_memory(f->lite, f->lite_trace, cp, &lite);
    in_memory(f->pg, f->pg_trace, cp, &mem);
    in_sql(f->pg, f->pg_trace, cp, &sql);
    same_graph(ctx, &lite, &mem);
    same_graph(ctx, &mem, &sql);
    built_free(&lite);
    built_free(&mem);
    built_free(&sql);
}

/* Every collapse, unfiltered and filtered by the inclusive share, on the
 * derived pair and on the stored one. */
static void test_collapses(void **state)
{
    fixture *f = *state;
    if (!f)
        skip();
    const char *metrics[] = {"time (inc)", "bytes (inc)", "time"};
    for (int m = 0; m < 3; m++)
        for (int how = ARI_COLLAPSE_MEAN; how <= ARI_COLLAPSE_MEDIAN; how++)
            for (int filt = 0; filt < 2; filt++) {
                case_params cp = {metrics[m], (ari_collapse)how, filt ? 0.05 : 0, 0, ARI_GROUP_MODULE, {{0}},
                                  0};
                check_case(f, &cp);
            }
}

/* Grouped by name, filtered by the exclusive share; and splits of the
 * largest supernode by entry function, by caller and into call sites. */
static void test_groupings_and_splits(void **state)
{
    fixture *f = *state;
    if (!f)
        skip();
    case_params by_name = {"time (inc)", ARI_COLLAPSE_MEAN, 0.02, 1, ARI_GROUP_NAME, {{0}}, 0};
    check_case(f, &by_name);
    built b;
    case_params plain = {"time (inc)", ARI_COLLAPSE_SUM, 0, 0, ARI_GROUP_MODULE, {{0}}, 0};
    in_memory(f->pg, f->pg_trace, &plain, &b);
    assert_true(b.g.nnodes > 3 && b.g.duplicates > 0); /* the fixture has module cycles */
    char *first = strdup(b.g.nodes[0].id), *second = strdup(b.g.nodes[1].id);
    built_free(&b);
    for (int by = ARI_SPLIT_ENTRY; by <= ARI_SPLIT_CALLSITE; by++) {
        case_params cp = {"time (inc)",
                          ARI_COLLAPSE_MEDIAN,
                          0.01,
                          0,
                          ARI_GROUP_MODULE,
                          {{first, (ari_split_by)by}, {second, ARI_SPLIT_CALLER}},
                          2};
        check_case(f, &cp);
    }
    free(first);
    free(second);
}

/* The embedded store says a derived variant needs the in-memory path only
 * when a metric's partner is missing: here none is. */
static void test_times(void **state)
{
    fixture *f = *state;
    if (!f)
        skip();
    ari_error err = {0};
    ari_cct c;
    assert_int_equal(ari_profile_load_summary(f->pg, f->pg_trace, &c, &err), 0);
    for (int m = 0; m < c.nmetrics; m++) {
        ari_cct_times t;
        assert_int_equal(ari_sgq_times(&c, m, &t), 0);
        assert_int_equal(c.metrics[t.inc_metric].inclusive, 1);
        assert_int_equal(c.metrics[t.exc_metric].inclusive, 0);
    }
    ari_cct_metric *ms = (ari_cct_metric *)c.metrics;
    int saved = ms[0].partner;
    ms[0].partner = -1;
    ari_cct_times t;
    assert_int_equal(ari_sgq_times(&c, 0, &t), 1);
    ms[0].partner = saved;
    ari_cct_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collapses),
        cmocka_unit_test(test_groupings_and_splits),
        cmocka_unit_test(test_times),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
