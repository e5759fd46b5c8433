/* test_cpe.c: DAG validation, Kahn's order and the critical path bound
 * (src/analysis/cpe.c).
 *
 * The CPE of small random DAGs (tasks numbered in random order, many
 * seeds) must equal a brute force that enumerates every path; the returned
 * path must be a real path from a source whose weights sum to the length.
 * Also hand cases (tie-break, fastest resource per type), cycles and bad
 * input.
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

#include "analysis/cpe.h"
#include "test_rng.h"

#define MAXN 12

/* A small DAG as an adjacency matrix, converted to CSR predecessors. */
typedef struct small_dag {
    int n;
    int adj[MAXN][MAXN]; /* adj[p][s]: edge p -> s */
    int64_t off[MAXN + 1];
    int64_t pred[MAXN * MAXN];
} small_dag;

static void to_csr(small_dag *g)
{
    int64_t m = 0;
    g->off[0] = 0;
    for (int s = 0; s < g->n; s++) {
        /* predecessors in descending order, to show order does not matter */
        for (int p = g->n - 1; p >= 0; p--)
            if (g->adj[p][s])
                g->pred[m++] = p;
        g->off[s + 1] = m;
    }
}

static int has_edge(const small_dag *g, int64_t p, int64_t s) { return g->adj[p][s]; }

/* Longest path starting at v, enumerating every path from v. */
static double brute_from(const small_dag *g, const double *w, int v)
{
    double best = 0;
    for (int s = 0; s < g->n; s++)
        if (g->adj[v][s]) {
            double len = brute_from(g, w, s);
            best = len > best ? len : best;
        }
    return w[v] + best;
}

static double brute_cpe(const small_dag *g, const double *w)
{
    double best = 0;
    for (int v = 0; v < g->n; v++) {
        double len = brute_from(g, w, v);
        best = len > best ? len : best;
    }
    return best;
}

static void check_path(const small_dag *g, const ari_cpe_result *res, const double *w)
{
    if (g->n == 0) {
        assert_int_equal(res->path_len, 0);
        return;
    }
    assert_true(res->path_len >= 1);
    double sum = 0;
    for (int64_t i = 0; i < res->path_len; i++) {
        sum += w[res->path[i]];
        if (i > 0)
            assert_true(has_edge(g, res->path[i - 1], res->path[i]));
    }
    assert_int_equal(g->off[res->path[0] + 1] - g->off[res->path[0]], 0); /* a source */
    assert_true(fabs(sum - res->length) <= 1e-12 * (1 + sum));
}

static void test_random_vs_brute_force(void **state)
{
    (void)state;
    int ntrials = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        rng_state = seed * 0x9e3779b97f4a7c15ULL;
        small_dag g = {.n = (int)(rng_uniform() * (MAXN + 1))};
        /* Edges go forward in a random permutation, so index order is not
         * a topological order. */
        int perm[MAXN];
        for (int i = 0; i < g.n; i++)
            perm[i] = i;
        for (int i = g.n - 1; i > 0; i--) {
            int j = (int)(rng_uniform() * (i + 1));
            int t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        double density = rng_uniform() * 0.6;
        for (int i = 0; i < g.n; i++)
            for (int j = i + 1; j < g.n; j++)
                g.adj[perm[i]][perm[j]] = rng_uniform() < density;
        to_csr(&g);

        enum { K = 3, R = 2 };
        int type[MAXN];
        double mean[R * K], w[MAXN];
        for (int k = 0; k < K; k++) {
            mean[k] = rng_uniform() < 0.3 ? NAN : 1 + floor(rng_uniform() * 20);
            mean[K + k] = isnan(mean[k]) ? 0.5 + rng_uniform() * 3 : rng_uniform() < 0.5 ? NAN : rng_uniform() * 25;
        }
        for (int i = 0; i < g.n; i++) {
            type[i] = (int)(rng_uniform() * K);
            double a = mean[type[i]], b = mean[K + type[i]];
            w[i] = isnan(a) ? b : isnan(b) ? a : a < b ? a : b; /* fastest resource */
        }
        ari_cpe_input in = {{g.n, g.off, g.pred}, type, K, R, mean};
        ari_cpe_result res;
        ari_error err = {0};
        if (ari_cpe_compute(&in, &res, &err) != 0)
            fail_msg("seed %llu: %s", (unsigned long long)seed, err.message);
        double want = brute_cpe(&g, w);
        if (!(fabs(res.length - want) <= 1e-12 * (1 + want)))
            fail_msg("seed %llu: cpe %.17g, brute force %.17g", (unsigned long long)seed,
                     res.length, want);
        check_path(&g, &res, w);
        ari_cpe_result_free(&res);
        ntrials++;
    }
    print_message("[  INFO    ] %d random DAGs agree with the brute force\n", ntrials);
}

static void test_hand_cases(void **state)
{
    (void)state;
    /* Diamond listed in scrambled order: task 3 -> {1, 2} -> 0 with equal
     * weights; the two paths tie and the lower index (1) wins: 3, 1, 0.
     * Type 0 runs in 4 on CPU (restype 0) and 1 on GPU: weight 1. */
    int64_t off[] = {0, 2, 3, 4, 4};
    int64_t pred[] = {2, 1, 3, 3};
    int type[] = {0, 0, 0, 0};
    double mean[] = {4, NAN, 1, NAN}; /* [restype][type], K = 2 */
    ari_cpe_input in = {{4, off, pred}, type, 2, 2, mean};
    ari_cpe_result res;
    ari_error err = {0};
    assert_int_equal(ari_cpe_compute(&in, &res, &err), 0);
    assert_true(res.length == 3);
    assert_int_equal(res.path_len, 3);
    assert_int_equal(res.path[0], 3);
    assert_int_equal(res.path[1], 1);
    assert_int_equal(res.path[2], 0);
    assert_true(res.type_duration[0] == 1 && res.type_restype[0] == 1);
    assert_true(isnan(res.type_duration[1]) && res.type_restype[1] == -1);
    ari_cpe_result_free(&res);

    /* Independent tasks: the longest single task (type 1, 7 on CPU). */
    int64_t off2[] = {0, 0, 0, 0};
    int type2[] = {0, 1, 0};
    double mean2[] = {2, 7, 3, NAN};
    ari_cpe_input in2 = {{3, off2, NULL}, type2, 2, 2, mean2};
    assert_int_equal(ari_cpe_compute(&in2, &res, &err), 0);
    assert_true(res.length == 7);
    assert_int_equal(res.path_len, 1);
    assert_int_equal(res.path[0], 1);
    ari_cpe_result_free(&res);

    /* No tasks. */
    int64_t off0[] = {0};
    ari_cpe_input in0 = {{0, off0, NULL}, NULL, 1, 1, mean};
    assert_int_equal(ari_cpe_compute(&in0, &res, &err), 0);
    assert_true(res.length == 0 && res.path_len == 0);
    ari_cpe_result_free(&res);
}

static void test_topo_order(void **state)
{
    (void)state;
    /* 0 <- 4, 1 <- {0, 3}, 2 <- 1, 3 <- 4, 4 <- nothing */
    int64_t off[] = {0, 1, 3, 4, 5, 5};
    int64_t pred[] = {4, 0, 3, 1, 4};
    ari_dag g = {5, off, pred};
    int64_t order[5];
    ari_error err = {0};
    assert_int_equal(ari_dag_topo_order(&g, order, &err), 0);
    int64_t expect[] = {4, 0, 3, 1, 2}; /* FIFO from the lowest ready index */
    for (int i = 0; i < 5; i++)
        assert_int_equal(order[i], expect[i]);
}

static void test_cycles_and_errors(void **state)
{
    (void)state;
    int type[] = {0, 0, 0};
    double mean[] = {1};
    ari_cpe_result res;
    ari_error err;
    /* 0 <- 2, 1 <- 0, 2 <- 1: a cycle */
    int64_t off[] = {0, 1, 2, 3}, cyc[] = {2, 0, 1};
    ari_cpe_input in = {{3, off, cyc}, type, 1, 1, mean};
    ari_error_clear(&err);
    assert_int_equal(ari_cpe_compute(&in, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_non_null(strstr(err.message, "cycle"));
    assert_null(res.path);
    /* self loop on task 1 */
    int64_t off1[] = {0, 0, 1, 1}, self[] = {1};
    ari_cpe_input in1 = {{3, off1, self}, type, 1, 1, mean};
    assert_int_equal(ari_cpe_compute(&in1, &res, &err), -1);
    assert_non_null(strstr(err.message, "cycle"));

    int64_t okoff[] = {0, 0, 1, 2}, okpred[] = {0, 1};
    struct {
        ari_cpe_input in;
        const char *why;
    } bad[] = {
        {{{3, (int64_t[]){1, 1, 2, 3}, okpred}, type, 1, 1, mean}, "pred_offset[0]"},
        {{{3, (int64_t[]){0, 2, 1, 2}, okpred}, type, 1, 1, mean}, "decreases"},
        {{{3, okoff, (int64_t[]){0, 5}}, type, 1, 1, mean}, "predecessor 5"},
        {{{3, okoff, (int64_t[]){0, -1}}, type, 1, 1, mean}, "predecessor -1"},
        {{{3, okoff, NULL}, type, 1, 1, mean}, "missing pred"},
        {{{-1, okoff, okpred}, type, 1, 1, mean}, "out of range"},
        {{{3, NULL, okpred}, type, 1, 1, mean}, "pred_offset"},
        {{{3, okoff, okpred}, (int[]){0, 1, 0}, 1, 1, mean}, "type id 1"},
        {{{3, okoff, okpred}, type, 0, 1, mean}, "out of range"},
        {{{3, okoff, okpred}, NULL, 1, 1, mean}, "missing input"},
        {{{3, okoff, okpred}, type, 1, 1, (double[]){-2}}, "must be >= 0"},
        {{{3, okoff, okpred}, type, 1, 1, (double[]){INFINITY}}, "must be >= 0"},
        {{{3, okoff, okpred}, (int[]){0, 1, 0}, 2, 1, (double[]){1, NAN}},
         "task 1 has type 1, which has no known duration"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_cpe_compute(&bad[i].in, &res, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
        assert_null(res.path);
        assert_null(res.type_duration);
    }
    assert_int_equal(ari_cpe_compute(NULL, &res, &err), -1);
    assert_int_equal(ari_cpe_compute(&in, NULL, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_vs_brute_force),
        cmocka_unit_test(test_hand_cases),
        cmocka_unit_test(test_topo_order),
        cmocka_unit_test(test_cycles_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
