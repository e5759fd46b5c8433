/* test_ensemble_supergraph.c: the ensemble super graph
 * (src/analysis/ensemble_supergraph.c) on the spec's Figure 4.2 worked
 * example (spec_callflow.md 2.7: supernodes' max over runs 40/20/30/35,
 * edges out of LIB1 20/10/35 summing to 65): ids shared by every member,
 * absent = NAN, each member's values equal to its own single-run super
 * graph, flow conserved per member; the gradient histogram's numpy rules;
 * the per-rank difference of two members (union of ranks, sign); the
 * stand-in per member against every process (random members with
 * unmeasured processes, absent subtrees, different process counts). */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ensemble_diff.h"
#include "analysis/ensemble_supergraph.h"

#include "test_cct_builder.h"
#include "test_rng.h"

static ari_esg_params default_params(void)
{
    ari_esg_params p;
    memset(&p, 0, sizeof p);
    p.metric = 0;
    p.filter = (ari_cct_filter){0, 0, ARI_COLLAPSE_MEAN};
    p.sg.group_by = ARI_GROUP_MODULE;
    p.sg.collapse = ARI_COLLAPSE_MEAN;
    return p;
}

static double node_max(const ari_esg *s, const char *id, int exc)
{
    int64_t j = ari_supergraph_find(&s->g, id);
    assert_true(j >= 0);
    ari_esg_range r;
    ari_esg_range_of((exc ? s->exc : s->inc) + j * s->nmembers, s->nmembers, 1, &r);
    return r.max;
}

static double edge_max(const ari_esg *s, const char *from, const char *to)
{
    int64_t u = ari_supergraph_find(&s->g, from), v = ari_supergraph_find(&s->g, to);
    for (int64_t x = 0; x < s->g.nedges; x++) {
        if (s->g.edges[x].source == u && s->g.edges[x].target == v) {
            ari_esg_range r;
            ari_esg_range_of(s->weight + x * s->nmembers, s->nmembers, 1, &r);
            return r.max;
        }
    }
    return NAN;
}

/* Member m's values equal its own single-run super graph's, by id. */
static void check_member_matches_single(const ari_esg *s, const ari_cct *c, int m)
{
    ari_cct_times t;
    ari_supergraph g;
    ari_sg_view v;
    ari_error err = {0};
    ari_sg_params p = {ARI_GROUP_MODULE, NULL, NULL, 0, ARI_COLLAPSE_MEAN};
    assert_int_equal(ari_cct_times_init(&t, c, 0, &err), 0);
    assert_int_equal(ari_supergraph_build(c, &t, NULL, &p, &g, &err), 0);
    assert_int_equal(ari_sg_view_compute(&g, NULL, ARI_COLLAPSE_MEAN, 1, &v, &err), 0);
    int present = 0;
    for (int64_t j = 0; j < s->g.nnodes; j++) {
        int64_t k = ari_supergraph_find(&g, s->g.nodes[j].id);
        double x = s->inc[j * s->nmembers + m];
        assert_true(k >= 0 ? fabs(x - v.inc[k]) < 1e-12 : isnan(x));
        present += k >= 0;
    }
    assert_int_equal(present, g.nnodes);
    for (int64_t x = 0; x < s->g.nedges; x++) {
        const char *a = s->g.nodes[s->g.edges[x].source].id, *b = s->g.nodes[s->g.edges[x].target].id;
        double w = s->weight[x * s->nmembers + m], want = NAN;
        for (int64_t y = 0; y < g.nedges; y++)
            if (strcmp(g.nodes[g.edges[y].source].id, a) == 0 &&
                strcmp(g.nodes[g.edges[y].target].id, b) == 0)
                want = v.weight[y];
        assert_true(isnan(want) ? isnan(w) : fabs(w - want) < 1e-12);
    }
    ari_sg_view_free(&v);
    ari_supergraph_free(&g);
    ari_cct_times_free(&t);
}

static void test_figure_4_2(void **state)
{
    (void)state;
    static tcct t[3];
    build_fig42(t);
    const ari_cct *members[] = {&t[0].c, &t[1].c, &t[2].c};
    ari_ecct e;
    ari_esg s;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 3, &e, &err), 0);
    ari_esg_params p = default_params();
    assert_int_equal(ari_esg_build(&e, &p, &s, &err), 0);
    assert_int_equal(s.g.nnodes, 4);
    assert_true(node_max(&s, "LIB1#0", 0) == 40);
    assert_true(node_max(&s, "LIB2#0", 0) == 20);
    assert_true(node_max(&s, "LIB3#0", 0) == 30);
    assert_true(node_max(&s, "LIB4#0", 0) == 35);
    double e2 = edge_max(&s, "LIB1#0", "LIB2#0"), e3 = edge_max(&s, "LIB1#0", "LIB3#0"),
           e4 = edge_max(&s, "LIB1#0", "LIB4#0");
    assert_true(e2 == 20 && e3 == 10 && e4 == 35 && e2 + e3 + e4 == 65);
    /* absent: LIB2, LIB3 in run 2 (index 1), LIB4 in run 3 (index 2); never 0 */
    assert_true(isnan(s.inc[ari_supergraph_find(&s.g, "LIB2#0") * 3 + 1]));
    assert_true(isnan(s.inc[ari_supergraph_find(&s.g, "LIB4#0") * 3 + 2]));
    assert_true(isnan(edge_max(&s, "LIB2#0", "LIB4#0")));
    for (int m = 0; m < 3; m++)
        check_member_matches_single(&s, members[m], m);
    ari_esg_free(&s);
    /* min, max and median are not linear: the stand-ins refuse them, every rank does not */
    p.sg.collapse = ARI_COLLAPSE_MAX;
    assert_int_equal(ari_esg_build(&e, &p, &s, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    ari_esg_free(&s);
    p.per_rank = 1;
    assert_int_equal(ari_esg_build(&e, &p, &s, &err), 0);
    assert_true(node_max(&s, "LIB1#0", 0) == 40);
    ari_esg_free(&s);
    ari_ecct_free(&e);
}

static void test_gradient(void **state)
{
    (void)state;
    double v[] = {1, NAN, 3, 2, 5};
    int counts[4], bin[5];
    double lo, hi;
    ari_esg_gradient(v, 5, 1, 4, counts, bin, &lo, &hi);
    /* numpy: np.histogram([1,3,2,5], 4) -> [2,1,0,1], edges 1,2,3,4,5 */
    assert_true(lo == 1 && hi == 5);
    assert_int_equal(counts[0], 1);
    assert_int_equal(counts[1], 1);
    assert_int_equal(counts[2], 1);
    assert_int_equal(counts[3], 1);
    assert_int_equal(bin[1], -1);
    assert_int_equal(bin[4], 3);
    double same[] = {2, 2};
    ari_esg_gradient(same, 2, 1, 4, counts, bin, &lo, &hi);
    assert_int_equal(counts[2], 2);
    assert_int_equal(bin[0], 2);
}

/* Baseline ranks 0,1,2 against comparison ranks 1,2,3: the union has 4
 * processes, a missing side counts 0, and the sign is baseline - comparison. */
static void test_diff_ranks(void **state)
{
    (void)state;
    int ra[] = {2, 0, 1}, rb[] = {1, 2, 3};
    double xa[] = {12, 10, 11}, xb[] = {12.1, NAN, 5};
    ari_ediff_match m;
    ari_error err = {0};
    assert_int_equal(ari_ediff_match_build(ra, NULL, 3, rb, NULL, 3, &m, &err), 0);
    assert_int_equal(m.n, 4);
    double d[4];
    ari_ediff_ranks(&m, xa, xb, d);
    int want_rank[] = {0, 1, 2, 3};
    double want[] = {10, 11 - 12.1, 12, -5};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(m.rank[k], want_rank[k]);
        assert_true(fabs(d[k] - want[k]) < 1e-12);
    }
    ari_ediff_ranks(&m, NULL, xb, d);
    assert_true(d[0] == 0 && fabs(d[1] + 12.1) < 1e-12);
    int counts[20];
    double lo, hi;
    ari_histogram(d, m.n, NULL, 20, counts, &lo, &hi);
    int sum = 0;
    for (int k = 0; k < 20; k++)
        sum += counts[k];
    assert_int_equal(sum, 4);
    assert_true(ari_ediff_delta(11.5, 12.65) < 0);
    assert_true(ari_ediff_delta(NAN, 0.5) == -0.5);
    assert_true(isnan(ari_ediff_delta(NAN, NAN)));
    ari_ediff_match_free(&m);
}

/* A random member: up to 40 nodes in 5 modules, 1-8 processes, some
 * values unmeasured (NAN), a random subset of a 40-node program. */
static void random_member(tcct *t, const char *const *names)
{
    static const char *const modules[] = {"A", "B", "C", "D", "E"};
    int np = 1 + (int)(rng_uniform() * 8);
    tcct_init(t, np);
    int64_t at[40];
    for (int k = 0; k < 40; k++) {
        int64_t up = k == 0 ? -2 : at[(int)(rng_uniform() * k)];
        at[k] = -1;
        if (k > 0 && (up < 0 || rng_uniform() < 0.1))
            continue; /* absent here: its parent is, or by chance */
        int64_t i = tcct_add(t, k == 0 ? -1 : up, names[k], 0);
        t->module[i] = modules[(k * 7) % 5];
        for (int p = 0; p < np; p++)
            t->exc[i * np + p] = rng_uniform() < 0.15 ? NAN : rng_uniform() * 10;
        at[k] = i;
    }
    int64_t n = t->c.nnodes;
    for (int64_t i = 0; i < n * np; i++)
        t->inc[i] = isnan(t->exc[i]) ? 0 : t->exc[i];
    for (int64_t i = n - 1; i > 0; i--)
        for (int p = 0; p < np; p++)
            t->inc[t->parent[i] * np + p] += t->inc[i * np + p];
}

static void assert_close_or_nan(double a, double b)
{
    assert_true(isnan(a) ? isnan(b) : fabs(a - b) <= 1e-9 * fmax(1, fabs(b)));
}

/* Every supernode's per-process values of every member, from the rows of
 * its support only (ari_sg_node_ranks: what the rank views read), equal
 * those of the graph revalued on every process. */
static void check_node_ranks(const ari_ecct *e, const ari_esg *b)
{
    int np = b->g.nprocs;
    for (int64_t j = 0; j < b->g.nnodes; j++) {
        int64_t *nodes, n;
        assert_int_equal(ari_sg_node_support(&b->g, e->parent, j, &nodes, &n), 0);
        for (int m = 0; m < e->nmembers; m++) {
            int p0 = b->proc_first[m], mp = b->proc_first[m + 1] - p0;
            double rows[MAXN * MAXP], inc[MAXP], exc[MAXP];
            for (int64_t q = 0; q < n; q++)
                for (int p = 0; p < mp; p++)
                    rows[q * mp + p] = b->t.inc[nodes[q] * np + p0 + p];
            ari_sg_node_ranks(&b->g, e->parent, j, nodes, n, rows, mp, inc, exc);
            for (int p = 0; p < mp; p++) {
                assert_close_or_nan(inc[p], b->g.inc[j * np + p0 + p]);
                assert_close_or_nan(exc[p], b->g.exc[j * np + p0 + p]);
            }
        }
        free(nodes);
    }
}

/* The same graph, ids and values from the stand-ins as from every process. */
static void test_standin_equals_per_rank(void **state)
{
    (void)state;
    static tcct t[6];
    static char names[40][8];
    const char *name_of[40];
    for (int k = 0; k < 40; k++) {
        snprintf(names[k], sizeof names[k], "f%d", k);
        name_of[k] = names[k];
    }
    rng_state = 7;
    for (int round = 0; round < 20; round++) {
        const ari_cct *members[6];
        for (int m = 0; m < 6; m++) {
            random_member(&t[m], name_of);
            members[m] = &t[m].c;
        }
        ari_ecct e;
        ari_error err = {0};
        assert_int_equal(ari_ecct_build(members, 6, &e, &err), 0);
        for (int how = 0; how < 2; how++) {
            ari_esg_params p = default_params();
            p.sg.collapse = p.filter.collapse = how ? ARI_COLLAPSE_SUM : ARI_COLLAPSE_MEAN;
            ari_esg a, b;
            assert_int_equal(ari_esg_build(&e, &p, &a, &err), 0);
            p.per_rank = 1;
            assert_int_equal(ari_esg_build(&e, &p, &b, &err), 0);
            assert_int_equal(a.g.nnodes, b.g.nnodes);
            assert_int_equal(a.g.nedges, b.g.nedges);
            for (int64_t j = 0; j < a.g.nnodes; j++) {
                assert_string_equal(a.g.nodes[j].id, b.g.nodes[j].id);
                for (int m = 0; m < 6; m++) {
                    assert_close_or_nan(a.inc[j * 6 + m], b.inc[j * 6 + m]);
                    assert_close_or_nan(a.exc[j * 6 + m], b.exc[j * 6 + m]);
                }
            }
            for (int64_t x = 0; x < a.g.nedges * 6; x++)
                assert_close_or_nan(a.weight[x], b.weight[x]);
            check_node_ranks(&e, &b);
            ari_esg_free(&a);
            ari_esg_free(&b);
        }
        ari_ecct_free(&e);
    }
}

/* numpy's bin of x: the k with edges[k] <= x < edges[k + 1] (the last bin
 * closed), edges = linspace(lo, hi, n + 1) computed as numpy does (k * step
 * + lo, the last edge hi itself), found by scanning the edges. */
static int numpy_bin(double x, double lo, double hi, int n)
{
    if (!(hi > lo)) {
        lo -= 0.5;
        hi += 0.5;
    }
    double step = (hi - lo) / n;
    for (int k = 0; k < n; k++) {
        double right = k + 1 == n ? hi : (k + 1) * step + lo;
        if (x < right || k + 1 == n)
            return k;
    }
    return n - 1;
}

/* The bin of every value next to an edge (one ulp either side) is the one
 * numpy's edges give, not only the one the division gives. */
static void test_bins_match_numpy_edges(void **state)
{
    (void)state;
    rng_state = 11;
    int mismatches = 0;
    for (int round = 0; round < 20000; round++) {
        int n = 1 + (int)(rng_uniform() * 30);
        double lo = (rng_uniform() - 0.5) * pow(10, (int)(rng_uniform() * 8) - 4);
        double hi = lo + rng_uniform() * pow(10, (int)(rng_uniform() * 8) - 4);
        int k = (int)(rng_uniform() * (n + 1));
        double edge = k == n ? hi : k * ((hi - lo) / n) + lo;
        double xs[3] = {nextafter(edge, -INFINITY), edge, nextafter(edge, INFINITY)};
        for (int q = 0; q < 3; q++) {
            if (xs[q] < lo || xs[q] > hi)
                continue;
            mismatches += ari_histogram_bin(xs[q], lo, hi, n) != numpy_bin(xs[q], lo, hi, n);
        }
    }
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_4_2),
        cmocka_unit_test(test_gradient),
        cmocka_unit_test(test_diff_ranks),
        cmocka_unit_test(test_standin_equals_per_rank),
        cmocka_unit_test(test_bins_match_numpy_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
