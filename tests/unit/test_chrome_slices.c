/* test_chrome_slices.c: a generic Chrome trace as a timeline of slices
 * (ingest/chrome_slices.h): the nesting depth against a brute force on
 * random slices (nested trees and overlapping ones), a small hand-made
 * trace (B/E and X mixed, overlapping X on one thread, instants, names from
 * metadata, the origin at the first event), and the rule that keeps GPU /
 * data-movement traces out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/chrome_slices.h"

/* ---- depth ---------------------------------------------------------------------------- */

/* The sort order of the definition, by brute force (selection). */
static void brute_order(const double *s, const double *e, size_t n, size_t *order)
{
    int *used = calloc(n, sizeof *used);
    for (size_t k = 0; k < n; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            if (used[i])
                continue;
            if (best == n || s[i] < s[best] || (s[i] == s[best] && e[i] > e[best]))
                best = i;
        }
        used[best] = 1;
        order[k] = best;
    }
    free(used);
}

/* depth = 1 + the deepest earlier slice still open at the start, by brute force. */
static void brute_depths(const double *s, const double *e, size_t n, int *d)
{
    size_t *order = malloc(n * sizeof *order);
    brute_order(s, e, n, order);
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        d[i] = 0;
        for (size_t j = 0; j < k; j++)
            if (e[order[j]] > s[i] && d[order[j]] + 1 > d[i])
                d[i] = d[order[j]] + 1;
    }
    free(order);
}

/* A random tree of properly nested slices under [lo, hi]. */
static void nested(double lo, double hi, int level, double *s, double *e, int *truth, size_t *n, size_t cap)
{
    double t = lo;
    while (*n < cap && t < hi && rand() % 4) {
        double a = t + (double)(rand() % 4), b = a + (double)(rand() % 20);
        if (b > hi)
            b = hi;
        if (a > b)
            break;
        s[*n] = a;
        e[*n] = b;
        truth[*n] = level;
        (*n)++;
        if (level < 6)
            nested(a, b, level + 1, s, e, truth, n, cap);
        t = b;
    }
}

static void test_depths_nested(void **state)
{
    (void)state;
    srand(14);
    for (int round = 0; round < 200; round++) {
        double s[400], e[400];
        int truth[400], d[400];
        size_t n = 0;
        nested(0, 1000, 0, s, e, truth, &n, 400);
        int max = ari_chrome_slice_depths(s, e, n, d), want = -1;
        for (size_t i = 0; i < n; i++) {
            /* zero-length slices at a parent's end touch, not nest: only check others */
            if (e[i] > s[i])
                assert_int_equal(d[i], truth[i]);
            if (d[i] > want)
                want = d[i];
        }
        assert_int_equal(max, want);
    }
}

static void test_depths_overlapping(void **state)
{
    (void)state;
    srand(1414);
    for (int round = 0; round < 300; round++) {
        size_t n = (size_t)(rand() % 60);
        double s[60], e[60];
        int d[60], b[60];
        for (size_t i = 0; i < n; i++) {
            s[i] = (double)(rand() % 50);
            e[i] = s[i] + (double)(rand() % 15);
        }
        ari_chrome_slice_depths(s, e, n, d);
        brute_depths(s, e, n, b);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(d[i], b[i]);
        /* no two slices of one depth overlap */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (i != j && d[i] == d[j] && s[i] < e[j] && s[j] < e[i])
                    fail_msg("slices %zu and %zu overlap at depth %d", i, j, d[i]);
    }
    assert_int_equal(ari_chrome_slice_depths(NULL, NULL, 0, NULL), -1);
}

/* ---- a recording ari_sink ------------------------------------------------------------- */

typedef struct rec {
    char containers[16][160];
    int ncontainers;
    char states[32][120];
    int nstates;
    char events[8][80];
    int nevents;
    char links[8][120];
    int nlinks;
    double root_end;
} rec;

static int r_type(void *ctx, const ari_type_def *t)
{
    (void)ctx;
    (void)t;
    return 0;
}

static int r_container(void *ctx, const ari_container *c)
{
    rec *r = ctx;
    snprintf(r->containers[r->ncontainers++], 160, "%s|%s|%s|%g-%g", c->alias, c->name, c->parent, c->start, c->end);
    return 0;
}

static int r_container_end(void *ctx, const char *alias, double end)
{
    rec *r = ctx;
    if (strcmp(alias, "0") == 0)
        r->root_end = end;
    return 0;
}

static int r_state(void *ctx, const ari_state *s)
{
    rec *r = ctx;
    snprintf(r->states[r->nstates++], 120, "%s %s %g-%g d%d%s%s", s->container, s->value, s->start, s->end, s->depth,
             s->nfields ? " cat=" : "", s->nfields ? s->fields[0].value : "");
    return 0;
}

static int r_event(void *ctx, const ari_event *e)
{
    rec *r = ctx;
    snprintf(r->events[r->nevents++], 80, "%s %s %g", e->container, e->value, e->time);
    return 0;
}

static int r_link(void *ctx, const ari_link *l)
{
    rec *r = ctx;
    snprintf(r->links[r->nlinks++], 120, "%s>%s %s %g-%g", l->start_container, l->end_container, l->value, l->start,
             l->end);
    return 0;
}

static ari_sink rec_sink(rec *r)
{
    memset(r, 0, sizeof *r);
    return (ari_sink){.ctx = r, .on_type = r_type, .on_container = r_container, .on_container_end = r_container_end,
                      .on_state = r_state, .on_event = r_event, .on_link = r_link};
}

/* B/E and X mixed on thread 1:2, x2 overlapping x1 without nesting, an
 * instant, a flow to another process's thread (no metadata there). */
static const char HAND[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"app\"}},"
    "{\"ph\":\"B\",\"name\":\"outer\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":100},"
    "{\"ph\":\"X\",\"name\":\"x1\",\"pid\":1,\"tid\":2,\"ts\":110,\"dur\":20},"
    "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":115},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":125},"
    "{\"ph\":\"X\",\"name\":\"x2\",\"pid\":1,\"tid\":2,\"ts\":120,\"dur\":30},"
    "{\"ph\":\"X\",\"name\":\"x3\",\"pid\":1,\"tid\":2,\"ts\":160,\"dur\":5},"
    "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":2,\"ts\":135,\"s\":\"t\"},"
    "{\"ph\":\"s\",\"id\":7,\"name\":\"f\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":162},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":200},"
    "{\"ph\":\"X\",\"name\":\"other\",\"pid\":2,\"tid\":3,\"ts\":170,\"dur\":10},"
    "{\"ph\":\"f\",\"id\":7,\"name\":\"f\",\"cat\":\"c\",\"pid\":2,\"tid\":3,\"ts\":170,\"bp\":\"e\"},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}}"
    "]}";

static int has(char (*list)[120], int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], want) == 0)
            return 1;
    return 0;
}

static void test_hand_trace(void **state)
{
    (void)state;
    rec r;
    ari_sink k = rec_sink(&r);
    ari_chrome_slices_info info;
    ari_error err = {0};
    assert_int_equal(ari_chrome_slices_read_buffer(HAND, sizeof HAND - 1, "hand.json", &k, &info, &err), 0);
    assert_true(info.origin == 100);
    assert_string_equal(info.unit, "us");
    assert_int_equal(info.slices, 6);
    assert_int_equal(info.instants, 1);
    assert_int_equal(info.flows, 1);
    assert_int_equal(info.processes, 2);
    assert_int_equal(info.threads, 2);
    /* outer 0-100 encloses x1 (d1) > inner (d2); x2 starts inside inner and
     * overlaps x1 without nesting: below both (d3); x3 after x1 and x2 end:
     * only outer is open (d1) */
    assert_int_equal(info.max_depth, 3);
    assert_int_equal(r.nstates, 6);
    assert_true(has(r.states, r.nstates, "t:1:2 outer 0-100 d0 cat=c"));
    assert_true(has(r.states, r.nstates, "t:1:2 x1 10-30 d1"));
    assert_true(has(r.states, r.nstates, "t:1:2 inner 15-25 d2"));
    assert_true(has(r.states, r.nstates, "t:1:2 x2 20-50 d3"));
    assert_true(has(r.states, r.nstates, "t:1:2 x3 60-65 d1"));
    assert_true(has(r.states, r.nstates, "t:2:3 other 70-80 d0"));
    /* states come by thread and time, parents first */
    assert_string_equal(r.states[0], "t:1:2 outer 0-100 d0 cat=c");
    assert_int_equal(r.ncontainers, 4);
    assert_string_equal(r.containers[0], "p:1|app|0|0-100");
    assert_string_equal(r.containers[1], "t:1:2|main|p:1|0-100");
    assert_string_equal(r.containers[2], "p:2|pid 2|0|70-80");
    assert_string_equal(r.containers[3], "t:2:3|tid 3|p:2|70-80");
    assert_int_equal(r.nevents, 1);
    assert_string_equal(r.events[0], "t:1:2 mark 35");
    assert_int_equal(r.nlinks, 1);
    assert_string_equal(r.links[0], "t:1:2>t:2:3 7 65-70"); /* from x3's end to other's start */
    assert_true(r.root_end == 100);
}

static void test_display_unit(void **state)
{
    (void)state;
    static const char ns[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
                             "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":2.5,\"dur\":1.5}]}";
    rec r;
    ari_sink k = rec_sink(&r);
    ari_chrome_slices_info info;
    ari_error err = {0};
    assert_int_equal(ari_chrome_slices_read_buffer(ns, sizeof ns - 1, "ns.json", &k, &info, &err), 0);
    assert_string_equal(info.unit, "ns");
    assert_true(info.origin == 2500);
    assert_string_equal(r.states[0], "t:1:1 a 0-1500 d0");
}

/* ---- the rule ------------------------------------------------------------------------- */

static int rule(const char *json)
{
    ari_error err = {0};
    return ari_chrome_buffer_has_device_content(json, strlen(json), "rule.json", &err);
}

static void test_rule(void **state)
{
    (void)state;
    assert_int_equal(rule(HAND), 0);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"gpu_memcpy\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"Memcpy HtoD\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"cudaish\",\"cat\":\"app\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]"), 0);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"device\":0}}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"device\":\"cpu\"}}]"), 0);
    assert_int_equal(rule("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"cbid\":211}}]"), 1);
    assert_int_equal(rule("[{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"args\":{\"labels\":\"GPU 0\"}}]"), 1);
    assert_int_equal(rule("{\"deviceProperties\":[],\"traceEvents\":[]}"), 1);
    assert_int_equal(rule("{\"traceEvents\":[{\"ph\":\"X\""), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depths_nested), cmocka_unit_test(test_depths_overlapping),
        cmocka_unit_test(test_hand_trace),    cmocka_unit_test(test_display_unit),
        cmocka_unit_test(test_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
