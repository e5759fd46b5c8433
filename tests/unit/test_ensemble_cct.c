/* test_ensemble_cct.c: the unified calling context tree of an ensemble
 * (src/analysis/ensemble_cct.c): the spec's Figure 4.2 worked example
 * (spec_callflow.md 2.7: supernodes 40/20/30/35, edges out of LIB1
 * 20/10/35 summing to 65), and two generated members of different topology
 * (an extra MPI wrapper, deeper recursion, 4 ranks against 1): every
 * context kept, the missing ones absent (NAN, never 0), inclusive flow
 * conserved per member and rank; frame identity (kind, file:line,
 * repeated siblings). */
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

#include "analysis/ensemble_cct.h"
#include "test_cct_builder.h"
#include "test_rng.h"

static int64_t find(const ari_ecct *e, const char *path)
{
    for (int64_t i = 0; i < e->nnodes; i++) {
        char *s = ari_ecct_path(e, i);
        int same = strcmp(s, path) == 0;
        free(s);
        if (same)
            return i;
    }
    return -1;
}

/* A supernode's value in one member: the sum of the inclusive values of
 * the contexts named `name` whose parent is named otherwise (its entry
 * functions), NAN when the member has none (element-wise addition with
 * empty + x = x, spec 2.7 step 4). */
static double supernode(const ari_ecct *e, int m, const char *name)
{
    double sum = NAN;
    for (int64_t i = 0; i < e->nnodes; i++) {
        int64_t p = e->parent[i];
        if (strcmp(e->name[i], name) != 0 || (p >= 0 && strcmp(e->name[p], name) == 0))
            continue;
        double v = ari_ecct_value(e, m, i, 0);
        if (!isnan(v))
            sum = isnan(sum) ? v : sum + v;
    }
    return sum;
}

static double max_over_members(const ari_ecct *e, double (*f)(const ari_ecct *, int, const void *),
                               const void *arg)
{
    double best = NAN;
    for (int m = 0; m < e->nmembers; m++) {
        double v = f(e, m, arg);
        if (!isnan(v) && (isnan(best) || v > best))
            best = v;
    }
    return best;
}

static double super_of(const ari_ecct *e, int m, const void *name)
{
    return supernode(e, m, name);
}

static double edge_of(const ari_ecct *e, int m, const void *path)
{
    return ari_ecct_value(e, m, find(e, path), 0);
}

/* The spec's worked example on the unified tree. */
static void test_figure_4_2(void **state)
{
    (void)state;
    static tcct t[3];
    build_fig42(t);
    const ari_cct *members[] = {&t[0].c, &t[1].c, &t[2].c};
    ari_ecct e;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 3, &e, &err), 0);
    assert_int_equal(e.nnodes, 5);
    assert_true(max_over_members(&e, super_of, "LIB1") == 40);
    assert_true(max_over_members(&e, super_of, "LIB2") == 20);
    assert_true(max_over_members(&e, super_of, "LIB3") == 30);
    assert_true(max_over_members(&e, super_of, "LIB4") == 35);
    double e2 = max_over_members(&e, edge_of, "LIB1/LIB2"), e3 = max_over_members(&e, edge_of, "LIB1/LIB3"),
           e4 = max_over_members(&e, edge_of, "LIB1/LIB4");
    assert_true(e2 == 20 && e3 == 10 && e4 == 35);
    assert_true(e2 + e3 + e4 == 65);
    /* LIB4 is absent from run 3 and LIB2, LIB3 from run 2: NAN, never 0 */
    int64_t lib4 = find(&e, "LIB1/LIB4");
    assert_false(ari_ecct_present(&e, 2, lib4));
    assert_true(isnan(ari_ecct_value(&e, 2, lib4, 0)));
    int np;
    assert_null(ari_ecct_ranks(&e, 2, lib4, 0, &np));
    assert_int_equal(np, 0);
    assert_int_equal(e.npresent[lib4], 2);
    assert_int_equal(e.npresent[find(&e, "LIB1")], 3);
    assert_true(isnan(supernode(&e, 1, "LIB3")));
    ari_ecct_free(&e);
}

/* ---- generated members of different topology ---- */

static double rnd(void)
{
    return 1 + 9 * rng_uniform();
}

static void random_exc(tcct *t)
{
    for (int64_t i = 0; i < t->c.nnodes * t->c.nprocs; i++)
        t->exc[i] = rnd();
}

/* main -> solve -> MPI_Allreduce, main -> rec -> rec, main -> io; 4 ranks. */
static void build_a(tcct *t)
{
    tcct_init(t, 4);
    int64_t m = tcct_add(t, -1, "main", 0), s = tcct_add(t, m, "solve", 0);
    tcct_add(t, s, "MPI_Allreduce", 0);
    tcct_add(t, tcct_add(t, m, "rec", 0), "rec", 0);
    tcct_add(t, m, "io", 0);
    random_exc(t);
    fill_inclusive(t);
}

/* main -> solve -> MPI_Allreduce -> PMPI_Allreduce (an extra wrapper),
 * main -> rec -> rec -> rec, no io, main -> setup; one rank. */
static void build_b(tcct *t)
{
    tcct_init(t, 1);
    int64_t m = tcct_add(t, -1, "main", 0), s = tcct_add(t, m, "solve", 0);
    tcct_add(t, tcct_add(t, s, "MPI_Allreduce", 0), "PMPI_Allreduce", 0);
    tcct_add(t, tcct_add(t, tcct_add(t, m, "rec", 0), "rec", 0), "rec", 0);
    tcct_add(t, m, "setup", 0);
    random_exc(t);
    fill_inclusive(t);
}

static char *member_path(const tcct *t, int64_t j)
{
    char buf[512] = "", tmp[512];
    for (int64_t v = j; v >= 0; v = t->parent[v]) {
        snprintf(tmp, sizeof tmp, "%s%s%s", t->name[v], buf[0] ? "/" : "", buf);
        snprintf(buf, sizeof buf, "%s", tmp);
    }
    return strdup(buf);
}

/* Every member context is a unified node with the same path, mapped back
 * to the member's node, with the member's values. */
static void check_contexts(const ari_ecct *e, const tcct *t, int m)
{
    for (int64_t j = 0; j < t->c.nnodes; j++) {
        char *path = member_path(t, j);
        int64_t i = find(e, path);
        assert_true(i >= 0);
        assert_int_equal(e->members[m].node_of[i], j);
        int np;
        const double *v = ari_ecct_ranks(e, m, i, 1, &np);
        assert_int_equal(np, t->c.nprocs);
        assert_memory_equal(v, t->exc + j * np, (size_t)np * sizeof *v);
        free(path);
    }
}

/* inc = exc + the inclusive values of the children present, per rank. */
static void check_flow(const ari_ecct *e, int m)
{
    int inc = ari_ecct_metric_index(e, "time (inc)"), exc = ari_ecct_metric_index(e, "time");
    for (int64_t i = 0; i < e->nnodes; i++) {
        int np;
        const double *vi = ari_ecct_ranks(e, m, i, inc, &np), *ve = ari_ecct_ranks(e, m, i, exc, &np);
        if (!vi)
            continue;
        for (int p = 0; p < np; p++) {
            double sum = ve[p];
            for (int64_t c = i + 1; c < e->nnodes; c++) {
                int nc;
                const double *vc = e->parent[c] == i ? ari_ecct_ranks(e, m, c, inc, &nc) : NULL;
                sum += vc ? vc[p] : 0;
            }
            assert_true(fabs(sum - vi[p]) <= 1e-12 * vi[p]);
        }
    }
}

static void test_different_topologies(void **state)
{
    (void)state;
    static tcct t[2];
    rng_state = 0x5eed1e55;
    build_a(&t[0]);
    build_b(&t[1]);
    const ari_cct *members[] = {&t[0].c, &t[1].c};
    ari_ecct e;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 2, &e, &err), 0);
    /* the union of contexts: A's 6, plus PMPI_Allreduce, rec/rec/rec, setup */
    assert_int_equal(e.nnodes, 9);
    for (int m = 0; m < 2; m++) {
        check_contexts(&e, &t[m], m);
        check_flow(&e, m);
    }
    const char *only_b[] = {"main/solve/MPI_Allreduce/PMPI_Allreduce", "main/rec/rec/rec", "main/setup"};
    for (int k = 0; k < 3; k++) {
        int64_t i = find(&e, only_b[k]);
        assert_false(ari_ecct_present(&e, 0, i));
        assert_true(isnan(ari_ecct_value(&e, 0, i, 0)));
        assert_int_equal(e.npresent[i], 1);
    }
    int64_t io = find(&e, "main/io");
    assert_true(isnan(ari_ecct_value(&e, 1, io, 0)) && !isnan(ari_ecct_value(&e, 0, io, 0)));
    /* the single-rank member's value is its only rank */
    int64_t root = find(&e, "main");
    assert_true(ari_ecct_value(&e, 1, root, 0) == t[1].inc[0]);
    double mean = (t[0].inc[0] + t[0].inc[1] + t[0].inc[2] + t[0].inc[3]) / 4;
    assert_true(ari_ecct_value(&e, 0, root, 0) == mean);
    ari_ecct_free(&e);
}

/* Loops and statements are told apart by file:line; repeated siblings of
 * one member stay apart; a member without a metric has NAN for it. */
static void test_frame_identity(void **state)
{
    (void)state;
    static tcct t[2];
    for (int m = 0; m < 2; m++) {
        tcct_init(&t[m], 1);
        int64_t r = tcct_add(&t[m], -1, "main", 1);
        tcct_add(&t[m], r, "Loop", 1);
        t[m].kind[1] = "loop";
        t[m].file[1] = "a.c";
        t[m].line[1] = m ? 20 : 10;
        tcct_add(&t[m], r, "f", 1);
        tcct_add(&t[m], r, "f", 2);
        fill_inclusive(&t[m]);
    }
    t[1].c.nmetrics = 1; /* member 1 has no exclusive metric */
    const ari_cct *members[] = {&t[0].c, &t[1].c};
    ari_ecct e;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 2, &e, &err), 0);
    assert_int_equal(e.nnodes, 5); /* main, Loop@10, Loop@20, f, f */
    assert_int_equal(e.nmetrics, 2);
    assert_int_equal(e.metrics[0].partner, 1);
    assert_true(isnan(ari_ecct_value(&e, 1, 0, 1)));
    assert_true(ari_ecct_value(&e, 0, 0, 1) == 1);
    int fs = 0;
    for (int64_t i = 0; i < e.nnodes; i++)
        fs += strcmp(e.name[i], "f") == 0 && e.npresent[i] == 2;
    assert_int_equal(fs, 2);
    ari_ecct_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    static tcct t;
    tcct_init(&t, 1);
    tcct_add(&t, -1, "a", 1);
    tcct_add(&t, 1, "b", 1); /* its own parent: not parent-before-child */
    const ari_cct *members[] = {&t.c};
    ari_ecct e;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 1, &e, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_int_equal(ari_ecct_build(members, 0, &e, &err), 0);
    assert_int_equal(e.nnodes, 0);
    ari_ecct_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_4_2),
        cmocka_unit_test(test_different_topologies),
        cmocka_unit_test(test_frame_identity),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
