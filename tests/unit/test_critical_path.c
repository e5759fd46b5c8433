/* test_critical_path.c: dynamic critical paths (src/analysis/critical_path.c).
 *
 * A hand-checked 12-task trace (tests/fixtures/analysis/dcp_small.txt, the
 * expected chains and their reasoning are in its comments), random traces
 * whose merged forests are compared with chains walked one by one, cycles
 * and bad input.
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

#include "analysis/critical_path.h"
#include "test_rng.h"

#define MAXT 64

typedef struct trace {
    int64_t n;
    int type[MAXT];
    double start[MAXT], end[MAXT];
    int npred[MAXT], preds[MAXT][MAXT];
    int64_t off[MAXT + 1], pred[MAXT * MAXT];
} trace;

static void to_csr(trace *t)
{
    t->off[0] = 0;
    for (int64_t i = 0; i < t->n; i++) {
        for (int j = 0; j < t->npred[i]; j++)
            t->pred[t->off[i] + j] = t->preds[i][j];
        t->off[i + 1] = t->off[i] + t->npred[i];
    }
}

static ari_dcp_input input_of(const trace *t)
{
    return (ari_dcp_input){{t->n, t->off, t->pred}, t->start, t->end};
}

static void load_fixture(trace *t)
{
    const char *src = getenv("ARIADNE_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/analysis/dcp_small.txt", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    memset(t, 0, sizeof *t);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int id, type;
        double s, e;
        char preds[256];
        assert_int_equal(sscanf(line, "%d %d %lf %lf %255s", &id, &type, &s, &e, preds), 5);
        assert_true(id >= 0 && id < MAXT);
        t->type[id] = type, t->start[id] = s, t->end[id] = e;
        if (strcmp(preds, "-") != 0)
            for (char *p = strtok(preds, ","); p; p = strtok(NULL, ","))
                t->preds[id][t->npred[id]++] = atoi(p);
        if (id + 1 > t->n)
            t->n = id + 1;
    }
    fclose(f);
    assert_int_equal(t->n, 12);
    to_csr(t);
}

static void assert_path(const int64_t *got, int64_t len, const int64_t *want, int64_t wlen)
{
    if (len != wlen)
        fail_msg("path of %lld tasks, want %lld", (long long)len, (long long)wlen);
    for (int64_t i = 0; i < len; i++)
        if (got[i] != want[i])
            fail_msg("path[%lld] = %lld, want %lld", (long long)i, (long long)got[i],
                     (long long)want[i]);
}

typedef struct edge_want {
    int64_t pred, succ, mult;
    double gap;
} edge_want;

static void assert_merged(const ari_dcp_merged *m, const int64_t *tasks, int64_t ntasks,
                          const edge_want *edges, int64_t nedges, int64_t nall)
{
    assert_path(m->tasks, m->ntasks_on, tasks, ntasks);
    assert_int_equal(m->nedges, nedges);
    assert_int_equal(m->nedges_all, nall);
    for (int64_t i = 0; i < nedges; i++) {
        const ari_dcp_edge *e = &m->edges[i];
        if (e->pred != edges[i].pred || e->succ != edges[i].succ ||
            e->multiplicity != edges[i].mult || e->gap != edges[i].gap)
            fail_msg("edge %lld: %lld->%lld x%lld gap %g, want %lld->%lld x%lld gap %g",
                     (long long)i, (long long)e->pred, (long long)e->succ,
                     (long long)e->multiplicity, e->gap, (long long)edges[i].pred,
                     (long long)edges[i].succ, (long long)edges[i].mult, edges[i].gap);
    }
}

static void test_fixture_chains(void **state)
{
    (void)state;
    trace t;
    load_fixture(&t);
    ari_dcp_input in = input_of(&t);
    ari_error err = {0};
    int64_t *path, len;

    assert_int_equal(ari_dcp_last_task(&in), 9);
    assert_int_equal(ari_dcp_latest_pred(&in, 0), 10); /* tie with 11 */
    assert_int_equal(ari_dcp_latest_pred(&in, 10), -1);

    assert_int_equal(ari_dcp_chain(&in, -1, &path, &len, &err), 0);
    int64_t want_last[] = {10, 0, 1, 3, 6, 7, 8, 9};
    assert_path(path, len, want_last, 8);
    free(path);

    assert_int_equal(ari_dcp_chain(&in, 4, &path, &len, &err), 0);
    int64_t want4[] = {10, 0, 2, 4};
    assert_path(path, len, want4, 4);
    free(path);

    assert_int_equal(ari_dcp_chain(&in, 11, &path, &len, &err), 0);
    assert_int_equal(len, 1);
    assert_int_equal(path[0], 11);
    free(path);
}

static void test_fixture_merged(void **state)
{
    (void)state;
    trace t;
    load_fixture(&t);
    ari_dcp_input in = input_of(&t);
    ari_error err = {0};
    ari_dcp_merged m;

    int64_t potrf_tasks[] = {0, 1, 3, 6, 7, 8, 9, 10};
    /* edges come by increasing succ index */
    edge_want potrf_all[] = {{10, 0, 3, 0}, {0, 1, 2, 0}, {1, 3, 2, 0}, {3, 6, 2, 1},
                             {6, 7, 1, 0},  {7, 8, 1, 0}, {8, 9, 1, 5}};
    assert_int_equal(ari_dcp_merge_type(&in, t.type, 0, -INFINITY, &m, &err), 0);
    assert_int_equal(m.nseeds, 3);
    assert_merged(&m, potrf_tasks, 8, potrf_all, 7, 7);
    ari_dcp_merged_free(&m);

    edge_want gap1[] = {{3, 6, 2, 1}, {8, 9, 1, 5}};
    assert_int_equal(ari_dcp_merge_type(&in, t.type, 0, 1, &m, &err), 0);
    assert_merged(&m, potrf_tasks, 8, gap1, 2, 7);
    ari_dcp_merged_free(&m);

    edge_want gap2[] = {{8, 9, 1, 5}};
    assert_int_equal(ari_dcp_merge_type(&in, t.type, 0, 2, &m, &err), 0);
    assert_merged(&m, potrf_tasks, 8, gap2, 1, 7);
    ari_dcp_merged_free(&m);

    int64_t trsm_tasks[] = {0, 1, 2, 3, 6, 7, 10};
    edge_want trsm[] = {{10, 0, 3, 0}, {0, 1, 2, 0}, {0, 2, 1, 2},
                        {1, 3, 1, 0},  {3, 6, 1, 1}, {6, 7, 1, 0}};
    assert_int_equal(ari_dcp_merge_type(&in, t.type, 1, -INFINITY, &m, &err), 0);
    assert_merged(&m, trsm_tasks, 7, trsm, 6, 6);
    ari_dcp_merged_free(&m);

    /* A type with no task: nothing. */
    assert_int_equal(ari_dcp_merge_type(&in, t.type, 42, -INFINITY, &m, &err), 0);
    assert_int_equal(m.ntasks_on, 0);
    assert_int_equal(m.nedges, 0);
    ari_dcp_merged_free(&m);
}

/* ---- random traces against one-by-one walks --------------------------------------- */

/* Tasks in random index order; predecessors end before their successors
 * start; end times are rounded to integers so that ties are common. */
static void random_trace(trace *t)
{
    memset(t, 0, sizeof *t);
    t->n = 1 + (int64_t)(rng_uniform() * 40);
    int perm[MAXT];
    for (int i = 0; i < t->n; i++)
        perm[i] = i;
    for (int i = (int)t->n - 1; i > 0; i--) {
        int j = (int)(rng_uniform() * (i + 1));
        int x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    double clock = 0;
    for (int pos = 0; pos < t->n; pos++) {
        int v = perm[pos];
        double ready = 0;
        for (int q = 0; q < pos; q++)
            if (rng_uniform() < 0.15) {
                int p = perm[q];
                t->preds[v][t->npred[v]++] = p;
                ready = t->end[p] > ready ? t->end[p] : ready;
            }
        clock += floor(rng_uniform() * 3);
        t->start[v] = (ready > clock ? ready : clock) + floor(rng_uniform() * 3);
        t->end[v] = t->start[v] + floor(1 + rng_uniform() * 4);
        t->type[v] = (int)(rng_uniform() * 3);
    }
    to_csr(t);
}

static void test_random_traces(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rng_state = seed * 0x2545f4914f6cdd1dULL;
        trace t;
        random_trace(&t);
        ari_dcp_input in = input_of(&t);
        ari_error err = {0};
        /* The latest-predecessor rule, checked against its definition. */
        for (int64_t v = 0; v < t.n; v++) {
            int64_t p = ari_dcp_latest_pred(&in, v);
            if (t.npred[v] == 0) {
                assert_int_equal(p, -1);
                continue;
            }
            for (int j = 0; j < t.npred[v]; j++) {
                int q = t.preds[v][j];
                assert_true(t.end[q] < t.end[p] || (t.end[q] == t.end[p] && q >= p));
            }
        }
        /* Multiplicities: count the edges of every seed's full chain. */
        int64_t mult[MAXT] = {0}; /* by succ */
        int64_t seeds[MAXT], nseeds = 0;
        for (int64_t v = 0; v < t.n; v++) {
            if (t.type[v] != 1)
                continue;
            seeds[nseeds++] = v;
            int64_t *path, len;
            assert_int_equal(ari_dcp_chain(&in, v, &path, &len, &err), 0);
            assert_int_equal(path[len - 1], v);
            assert_int_equal(t.npred[path[0]], 0);
            for (int64_t i = 1; i < len; i++) {
                assert_int_equal(ari_dcp_latest_pred(&in, path[i]), path[i - 1]);
                mult[path[i]]++;
            }
            free(path);
        }
        ari_dcp_merged m;
        assert_int_equal(ari_dcp_merge(&in, seeds, nseeds, -INFINITY, &m, &err), 0);
        int64_t sum = 0;
        for (int64_t i = 0; i < m.nedges; i++) {
            assert_int_equal(m.edges[i].multiplicity, mult[m.edges[i].succ]);
            assert_int_equal(m.edges[i].pred, ari_dcp_latest_pred(&in, m.edges[i].succ));
            sum += m.edges[i].multiplicity;
            if (i > 0)
                assert_true(m.edges[i].succ > m.edges[i - 1].succ);
        }
        int64_t want_sum = 0, want_edges = 0;
        for (int64_t v = 0; v < t.n; v++) {
            want_sum += mult[v];
            want_edges += mult[v] > 0;
        }
        assert_int_equal(sum, want_sum);
        assert_int_equal(m.nedges, want_edges);
        ari_dcp_merged_free(&m);
    }
}

static void test_cycles_and_errors(void **state)
{
    (void)state;
    /* 0 <- 1, 1 <- 0 (a cycle), 2 <- 1 */
    int64_t off[] = {0, 1, 2, 3}, pred[] = {1, 0, 1};
    double start[] = {0, 1, 2}, end[] = {1, 2, 3};
    ari_dcp_input in = {{3, off, pred}, start, end};
    ari_error err;
    int64_t *path = (int64_t *)&err, len = 7;
    ari_error_clear(&err);
    assert_int_equal(ari_dcp_chain(&in, 2, &path, &len, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_non_null(strstr(err.message, "cycle"));
    assert_null(path);
    assert_int_equal(len, 0);

    ari_dcp_merged m;
    int64_t seeds[] = {2};
    ari_error_clear(&err);
    assert_int_equal(ari_dcp_merge(&in, seeds, 1, -INFINITY, &m, &err), -1);
    assert_non_null(strstr(err.message, "cycle"));
    assert_null(m.tasks);

    /* A cycle away from the seeds does not matter: 3 <- nothing. */
    int64_t off2[] = {0, 1, 2, 2}, pred2[] = {1, 0};
    ari_dcp_input in2 = {{3, off2, pred2}, start, end};
    int64_t seed2[] = {2};
    assert_int_equal(ari_dcp_merge(&in2, seed2, 1, -INFINITY, &m, &err), 0);
    assert_int_equal(m.ntasks_on, 1);
    ari_dcp_merged_free(&m);

    struct {
        ari_dcp_input in;
        const char *why;
    } bad[] = {
        {{{3, off2, pred2}, (double[]){0, NAN, 0}, end}, "invalid times"},
        {{{3, off2, pred2}, start, (double[]){1, 0.5, 3}}, "task 1 has invalid times"},
        {{{3, off2, pred2}, NULL, end}, "missing start"},
        {{{3, off2, (int64_t[]){1, 3}}, start, end}, "predecessor 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_dcp_chain(&bad[i].in, 0, &path, &len, &err), -1);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
        assert_int_equal(ari_dcp_merge(&bad[i].in, seed2, 1, 0, &m, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    }
    ari_error_clear(&err);
    assert_int_equal(ari_dcp_chain(&in2, 3, &path, &len, &err), -1);
    assert_non_null(strstr(err.message, "task 3 outside"));
    assert_int_equal(ari_dcp_merge(&in2, (int64_t[]){5}, 1, 0, &m, &err), -1);
    assert_non_null(strstr(err.message, "seed task 5"));
    assert_int_equal(ari_dcp_merge(&in2, seed2, 1, NAN, &m, &err), -1);
    assert_non_null(strstr(err.message, "NaN"));
    assert_int_equal(ari_dcp_merge(&in2, NULL, 1, 0, &m, &err), -1);
    assert_int_equal(ari_dcp_merge_type(&in2, NULL, 0, 0, &m, &err), -1);
    assert_int_equal(ari_dcp_chain(NULL, 0, &path, &len, &err), -1);

    /* No tasks. */
    int64_t off0[] = {0};
    ari_dcp_input empty = {{0, off0, NULL}, NULL, NULL};
    assert_int_equal(ari_dcp_chain(&empty, -1, &path, &len, &err), 0);
    assert_null(path);
    assert_int_equal(len, 0);
}

/* The path's tasks by start time (ties by index) and its length. */
static void test_order_by_start(void **state)
{
    (void)state;
    const double start[] = {5, 1, 3, 1}, end[] = {9, 2, 4, 12};
    int64_t tasks[] = {0, 1, 2, 3};
    ari_dcp_merged m = {tasks, 4, NULL, 0, 0, 1};
    double length = ari_dcp_order_by_start(&m, start, end);
    assert_true(length == 12 - 1);
    assert_true(tasks[0] == 1 && tasks[1] == 3 && tasks[2] == 2 && tasks[3] == 0);
    m.ntasks_on = 0;
    assert_true(ari_dcp_order_by_start(&m, start, end) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_chains),
        cmocka_unit_test(test_fixture_merged),
        cmocka_unit_test(test_random_traces),
        cmocka_unit_test(test_cycles_and_errors),
        cmocka_unit_test(test_order_by_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
