/* test_event_cct.c: the calling context tree derived from an event trace
 * (ingest/event_cct.h): a hand-built sequence with inclusive and exclusive
 * sums worked out by hand, regions still open closed at their location's
 * last time, flow conservation (inclusive >= the children's, exclusive =
 * inclusive - the children's), the errors of a bad Leave, and on Pipit's
 * ping-pong OTF2 trace (shared data; skipped when absent) main's inclusive
 * time per rank equal to its Leave - Enter seen through the tee. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/event_cct.h"
#include "ingest/event_read.h"
#include "test_event_sink.h"

/* ---- a profile sink that keeps what it is given ---- */

#define PS_NODES 256
#define PS_PROCS 8

typedef struct ps_node {
    int64_t parent;
    char name[64];
    int declared;
} ps_node;

typedef struct psink {
    char metrics[3][32];
    int inclusive[3];
    char partner[3][32];
    int nmetrics;
    int64_t ranks[PS_PROCS], threads[PS_PROCS];
    int nprocs;
    ps_node nodes[PS_NODES];
    int64_t nnodes;
    double v[3][PS_NODES][PS_PROCS];
    int bad;
} psink;

static int ps_metric(void *ctx, const ari_profile_metric *m, int *index)
{
    psink *p = ctx;
    if (p->nmetrics >= 3)
        return p->bad = 1, -1;
    snprintf(p->metrics[p->nmetrics], 32, "%s", m->name);
    snprintf(p->partner[p->nmetrics], 32, "%s", m->partner ? m->partner : "");
    p->inclusive[p->nmetrics] = m->inclusive;
    *index = p->nmetrics++;
    return 0;
}

static int ps_proc(void *ctx, int64_t rank, int64_t thread, int *index)
{
    psink *p = ctx;
    if (p->nprocs >= PS_PROCS)
        return p->bad = 1, -1;
    p->ranks[p->nprocs] = rank;
    p->threads[p->nprocs] = thread;
    *index = p->nprocs++;
    return 0;
}

static int ps_node_cb(void *ctx, const ari_profile_node *n)
{
    psink *p = ctx;
    if (n->id < 0 || n->id >= PS_NODES || n->parent >= n->id || strcmp(n->kind, "function") != 0)
        return p->bad = 1, -1;
    p->nodes[n->id].parent = n->parent;
    p->nodes[n->id].declared = 1;
    snprintf(p->nodes[n->id].name, 64, "%s", n->name);
    if (n->id + 1 > p->nnodes)
        p->nnodes = n->id + 1;
    return 0;
}

static int ps_value(void *ctx, int metric, int64_t node, int proc, double v)
{
    psink *p = ctx;
    if (metric < 0 || metric >= 3 || node < 0 || node >= PS_NODES || proc < 0 || proc >= PS_PROCS)
        return p->bad = 1, -1;
    p->v[metric][node][proc] += v;
    return 0;
}

static ari_profile_sink ps_sink(psink *p)
{
    memset(p, 0, sizeof *p);
    return (ari_profile_sink){
        .ctx = p, .on_metric = ps_metric, .on_proc = ps_proc, .on_node = ps_node_cb, .on_value = ps_value};
}

/* The node at path "a/b/c", or -1. */
static int64_t ps_find(const psink *p, const char *path)
{
    int64_t parent = -1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        int64_t found = -1;
        for (int64_t i = 0; i < p->nnodes && found < 0; i++)
            if (p->nodes[i].declared && p->nodes[i].parent == parent && strcmp(p->nodes[i].name, part) == 0)
                found = i;
        if (found < 0)
            return -1;
        parent = found;
    }
    return parent;
}

static int ps_proc_of(const psink *p, int64_t rank, int64_t thread)
{
    for (int i = 0; i < p->nprocs; i++)
        if (p->ranks[i] == rank && p->threads[i] == thread)
            return i;
    return -1;
}

/* Each node's inclusive >= its children's sum and exclusive = inclusive -
 * that sum, per process. Returns the number of violations. */
static int flow_violations(const psink *p)
{
    int bad = 0;
    for (int64_t n = 0; n < p->nnodes; n++)
        for (int k = 0; k < p->nprocs; k++) {
            double children = 0;
            for (int64_t c = 0; c < p->nnodes; c++)
                if (p->nodes[c].parent == n)
                    children += p->v[0][c][k];
            double inc = p->v[0][n][k], exc = p->v[1][n][k];
            double tol = 1e-9 * (fabs(inc) + 1);
            if (inc + tol < children || fabs(exc - (inc - children)) > tol)
                bad++;
        }
    return bad;
}

/* ---- the hand-built sequence ---- */

static void test_hand_built(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_event_cct *c = ari_event_cct_new(&err);
    assert_non_null(c);
    const ari_event_sink *k = ari_event_cct_tee(c, NULL);
    int64_t p0 = k->process(k->ctx, 0, NULL), p1 = k->process(k->ctx, 1, "rank one");
    assert_true(p0 >= 0 && p1 >= 0 && p0 != p1);
    assert_int_equal(k->process(k->ctx, 0, NULL), p0); /* added on first use only */
    int64_t l0 = k->location(k->ctx, p0, 0, NULL), l1 = k->location(k->ctx, p1, 0, NULL);
    assert_true(l0 >= 0 && l1 >= 0 && l0 != l1);
    int64_t m = k->region(k->ctx, "main", "a.c", 1, "function");
    int64_t foo = k->region(k->ctx, "foo", "a.c", 5, "function");
    int64_t bar = k->region(k->ctx, "bar", "a.c", 9, "function");
    int64_t foo2 = k->region(k->ctx, "foo", "b.c", 5, "function"); /* same name, other file: same node */
    int64_t mpi = k->region(k->ctx, "MPI_Send", NULL, 0, "mpi");
    /* rank 0: main [0,10] { foo [1,6] { bar [2,4] }, foo [7,8], MPI_Send [9,9.5] } */
    assert_int_equal(k->enter(k->ctx, l0, 0, m), 0);
    assert_int_equal(k->enter(k->ctx, l0, 1, foo), 0);
    /* rank 1 interleaves: main [0, ->12] { bar [1,3], foo [4, ->12] } */
    assert_int_equal(k->enter(k->ctx, l1, 0, m), 0);
    assert_int_equal(k->enter(k->ctx, l1, 1, bar), 0);
    assert_int_equal(k->enter(k->ctx, l0, 2, bar), 0);
    assert_int_equal(k->leave(k->ctx, l0, 4, bar), 0);
    assert_int_equal(k->leave(k->ctx, l0, 6, foo), 0);
    assert_int_equal(k->leave(k->ctx, l1, 3, bar), 0);
    assert_int_equal(k->enter(k->ctx, l1, 4, foo), 0);
    assert_int_equal(k->enter(k->ctx, l0, 7, foo2), 0);
    assert_int_equal(k->leave(k->ctx, l0, 8, foo2), 0);
    assert_int_equal(k->enter(k->ctx, l0, 9, mpi), 0);
    assert_int_equal(k->leave(k->ctx, l0, 9.5, mpi), 0);
    assert_int_equal(k->leave(k->ctx, l0, 10, m), 0);
    assert_int_equal(k->instant(k->ctx, l1, 12, "ProgramEnd"), 0);
    assert_string_equal(ari_event_cct_error(c)->code, "");

    psink ps;
    ari_profile_sink out = ps_sink(&ps);
    assert_int_equal(ari_event_cct_write(c, &out, &err), 0);
    assert_int_equal(ps.bad, 0);
    assert_int_equal(ps.nmetrics, 3);
    assert_string_equal(ps.metrics[0], "time (inc)");
    assert_int_equal(ps.inclusive[0], 1);
    assert_string_equal(ps.partner[0], "time");
    assert_string_equal(ps.metrics[1], "time");
    assert_int_equal(ps.inclusive[1], 0);
    assert_string_equal(ps.partner[1], "time (inc)");
    assert_string_equal(ps.metrics[2], "count");
    assert_int_equal(ps.nprocs, 2);
    assert_int_equal(ps.nnodes, 5); /* main, main/foo, main/foo/bar, main/MPI_Send, main/bar (rank 1) */
    int r0 = ps_proc_of(&ps, 0, 0), r1 = ps_proc_of(&ps, 1, 0);
    assert_true(r0 >= 0 && r1 >= 0);
    int64_t n_main = ps_find(&ps, "main"), n_foo = ps_find(&ps, "main/foo"),
            n_bar = ps_find(&ps, "main/foo/bar");
    int64_t n_mpi = ps_find(&ps, "main/MPI_Send"), n_bar1 = ps_find(&ps, "main/bar");
    assert_true(n_main >= 0 && n_foo >= 0 && n_bar >= 0 && n_mpi >= 0 && n_bar1 >= 0);
    /* rank 0 by hand */
    assert_true(ps.v[0][n_main][r0] == 10 && ps.v[1][n_main][r0] == 3.5 && ps.v[2][n_main][r0] == 1);
    assert_true(ps.v[0][n_foo][r0] == 6 && ps.v[1][n_foo][r0] == 4 && ps.v[2][n_foo][r0] == 2);
    assert_true(ps.v[0][n_bar][r0] == 2 && ps.v[1][n_bar][r0] == 2 && ps.v[2][n_bar][r0] == 1);
    assert_true(ps.v[0][n_mpi][r0] == 0.5 && ps.v[1][n_mpi][r0] == 0.5 && ps.v[2][n_mpi][r0] == 1);
    assert_true(ps.v[0][n_bar1][r0] == 0 && ps.v[2][n_bar1][r0] == 0);
    /* rank 1: foo and main still open, closed at its last time 12 */
    assert_true(ps.v[0][n_main][r1] == 12 && ps.v[1][n_main][r1] == 2 && ps.v[2][n_main][r1] == 1);
    assert_true(ps.v[0][n_bar1][r1] == 2 && ps.v[1][n_bar1][r1] == 2);
    assert_true(ps.v[0][n_foo][r1] == 8 && ps.v[1][n_foo][r1] == 8 && ps.v[2][n_foo][r1] == 1);
    assert_int_equal(flow_violations(&ps), 0);
    ari_event_cct_free(c);
}

static void test_bad_leave(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_event_cct *c = ari_event_cct_new(&err);
    const ari_event_sink *k = ari_event_cct_tee(c, NULL);
    int64_t l = k->location(k->ctx, k->process(k->ctx, 3, NULL), 0, NULL);
    int64_t a = k->region(k->ctx, "a", NULL, 0, NULL), b = k->region(k->ctx, "b", NULL, 0, NULL);
    assert_int_equal(k->leave(k->ctx, l, 1, a), -1);
    assert_non_null(strstr(ari_event_cct_error(c)->message, "without its Enter"));
    assert_int_equal(k->enter(k->ctx, l, 2, a), 0);
    assert_int_equal(k->leave(k->ctx, l, 3, b), -1);
    assert_non_null(strstr(ari_event_cct_error(c)->message, "while 'a' is open"));
    assert_int_equal(k->enter(k->ctx, 99, 2, a), -1);
    assert_int_equal(k->enter(k->ctx, l, 2, 77), -1);
    assert_int_equal(k->location(k->ctx, 42, 0, NULL), -1);
    ari_event_cct_free(c);
}

/* Depth is bounded: a runaway recursion fails cleanly. */
static void test_depth_bound(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_event_cct *c = ari_event_cct_new(&err);
    const ari_event_sink *k = ari_event_cct_tee(c, NULL);
    int64_t l = k->location(k->ctx, k->process(k->ctx, 0, NULL), 0, NULL);
    int64_t r = k->region(k->ctx, "rec", NULL, 0, NULL);
    int rc = 0, i;
    for (i = 0; i < 100000 && rc == 0; i++)
        rc = k->enter(k->ctx, l, i, r);
    assert_int_equal(rc, -1);
    assert_true(i <= 4097);
    assert_string_equal(ari_event_cct_error(c)->code, ARI_E_TOO_LARGE);
    ari_event_cct_free(c);
}

/* ---- Pipit's ping-pong trace through the tee ---- */

#define MAIN "int main(int, char**)"

static char *pingpong(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    char *p;
    if (asprintf(&p, "%s/pipit/pipit/tests/data/ping-pong-otf2/traces.otf2", d ? d : "../shared/data") < 0)
        abort();
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void test_pingpong(void **state)
{
    (void)state;
    char *path = pingpong();
    if (!path)
        skip();
    /* once with NULL next, once in front of a recording sink */
    for (int with_next = 0; with_next < 2; with_next++) {
        ari_error err = {0};
        ari_event_cct *c = ari_event_cct_new(&err);
        tes_sink rec;
        tes_init(&rec);
        ari_event_sink next = tes_sink_of(&rec);
        const ari_event_sink *k = ari_event_cct_tee(c, with_next ? &next : NULL);
        const char *paths[] = {path};
        int rc = ari_event_read(ARI_EVREAD_OTF2, paths, 1, k, &err);
        if (rc != 0)
            fprintf(stderr, "read: %s %s / %s\n", err.code, err.message, ari_event_cct_error(c)->message);
        assert_int_equal(rc, 0);
        psink ps;
        ari_profile_sink out = ps_sink(&ps);
        assert_int_equal(ari_event_cct_write(c, &out, &err), 0);
        assert_int_equal(ps.bad, 0);
        assert_int_equal(ps.nprocs, 2);
        assert_int_equal(flow_violations(&ps), 0);
        int64_t n_main = ps_find(&ps, MAIN);
        assert_true(n_main >= 0);
        assert_true(ps_find(&ps, MAIN "/MPI_Send") >= 0 && ps_find(&ps, MAIN "/MPI_Recv") >= 0 &&
                    ps_find(&ps, MAIN "/MPI_Init") >= 0);
        /* main's Enter and Leave per rank, as Pipit's events table has them
         * (hard-coded from otf2-print of the trace when there is no recorder) */
        for (int64_t rank = 0; rank < 2; rank++) {
            int p = ps_proc_of(&ps, rank, 0);
            assert_true(p >= 0);
            assert_true(ps.v[2][n_main][p] == 1);
            /* otf2-print: main's Leave - Enter in ticks, at 2095197216 ticks/s */
            double ticks =
                rank == 0 ? 7397467395127294.0 - 7397466977683839.0 : 7397467395130552.0 - 7397466977040830.0;
            assert_true(fabs(ps.v[0][n_main][p] - ticks * 1e9 / 2095197216.0) <= 1.0);
            if (!with_next)
                continue;
            double enter = NAN, leave = NAN;
            for (size_t i = 0; i < rec.n_events; i++) {
                const tes_event *e = &rec.events[i];
                if (e->process != rank || strcmp(e->name, MAIN) != 0)
                    continue;
                if (e->type == TES_ENTER)
                    enter = e->time;
                else if (e->type == TES_LEAVE)
                    leave = e->time;
            }
            assert_false(isnan(enter) || isnan(leave));
            assert_true(fabs(ps.v[0][n_main][p] - (leave - enter)) <= 1e-6);
            /* rank's total exclusive time over the tree = main's inclusive */
            double sum = 0;
            for (int64_t n = 0; n < ps.nnodes; n++)
                sum += ps.v[1][n][p];
            assert_true(fabs(sum - (leave - enter)) <= 1e-3);
        }
        if (with_next)
            assert_true(rec.n_events > 100); /* forwarded */
        tes_free(&rec);
        ari_event_cct_free(c);
    }
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_built),
        cmocka_unit_test(test_bad_leave),
        cmocka_unit_test(test_depth_bound),
        cmocka_unit_test(test_pingpong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
