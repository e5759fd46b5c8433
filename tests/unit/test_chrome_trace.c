/* test_chrome_trace.c: the Chrome trace reader against speedscope's
 * snapshot (collapsed stacks and weights per thread), Perfetto's flow
 * pairs and thread times, malformed and truncated input, and the
 * project's own Kineto-style fixture. The shared-data checks are skipped
 * when ../shared/data is absent; the fixtures always run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/chrome_trace.h"
#include "test_helpers.h"

/* ---- a recording sink -------------------------------------------------------------- */

typedef struct rec_slice {
    int64_t id;
    char pid[32], tid[32], name[64];
    char frame[160]; /* speedscope's frame: name (or "(unnamed)") and args */
    double ts, dur, tts, tdur;
    int point;
} rec_slice;

typedef struct rec {
    rec_slice s[4096];
    int n;
    int64_t flow_from[256], flow_to[256];
    int nflows;
    int counters;
    char top_keys[256];
} rec;

static int rec_slice_cb(void *ctx, const ari_chrome_slice *s)
{
    rec *r = ctx;
    if (r->n == 4096)
        return 0;
    rec_slice *o = &r->s[r->n++];
    o->id = s->id;
    snprintf(o->pid, sizeof o->pid, "%s", s->pid);
    snprintf(o->tid, sizeof o->tid, "%s", s->tid);
    snprintf(o->name, sizeof o->name, "%s", s->name);
    char *args = s->args && json_object_size(s->args) ? json_dumps(s->args, JSON_COMPACT) : NULL;
    snprintf(o->frame, sizeof o->frame, "%s%s%s", s->name[0] ? s->name : "(unnamed)", args ? " " : "", args ? args : "");
    free(args);
    o->ts = s->ts;
    o->dur = s->dur;
    o->tts = s->tts;
    o->tdur = s->tdur;
    o->point = s->point;
    return 0;
}

static int rec_flow_cb(void *ctx, const char *id, int64_t from, int64_t to)
{
    rec *r = ctx;
    (void)id;
    if (r->nflows < 256) {
        r->flow_from[r->nflows] = from;
        r->flow_to[r->nflows++] = to;
    }
    return 0;
}

static int rec_counter_cb(void *ctx, const char *pid, const char *name, const char *series, double ts, double v)
{
    (void)pid, (void)name, (void)series, (void)ts, (void)v;
    ((rec *)ctx)->counters++;
    return 0;
}

static int rec_top_cb(void *ctx, const char *key, const json_t *v)
{
    (void)v;
    rec *r = ctx;
    strncat(r->top_keys, key, sizeof r->top_keys - strlen(r->top_keys) - 2);
    strcat(r->top_keys, ",");
    return 0;
}

static int read_file_into(const char *path, rec *r, ari_chrome_stats *st, ari_error *err)
{
    memset(r, 0, sizeof *r);
    ari_chrome_sink k = {r, rec_slice_cb, rec_counter_cb, rec_flow_cb, NULL, rec_top_cb, NULL, 0};
    return ari_chrome_read(path, path, &k, st, err);
}

static const rec_slice *by_id(const rec *r, int64_t id)
{
    for (int i = 0; i < r->n; i++)
        if (r->s[i].id == id)
            return &r->s[i];
    return NULL;
}

static const rec_slice *by_name(const rec *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->s[i].name, name) == 0)
            return &r->s[i];
    return NULL;
}

static char *shared_path(const char *rel)
{
    char *p;
    if (asprintf(&p, "%s/../shared/data/%s", test_source_dir(), rel) < 0)
        abort();
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static char *fixture(const char *name)
{
    char *p;
    if (asprintf(&p, "%s/tests/fixtures/datamove/%s", test_source_dir(), name) < 0)
        abort();
    return p;
}

/* ---- collapsed stacks, as speedscope shows them --------------------------------------- */

static int cmp_slice(const void *a, const void *b)
{
    const rec_slice *x = *(rec_slice *const *)a, *y = *(rec_slice *const *)b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->id < y->id ? -1 : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "stack weight\n" lines for one thread: between consecutive slice
 * boundaries, the slices covering the interval (outermost first);
 * consecutive equal stacks merged. */
static void collapse(const rec *r, const char *pid, const char *tid, char *out, size_t size)
{
    const rec_slice *sl[4096];
    double pts[8192];
    int n = 0, np = 0;
    for (int i = 0; i < r->n; i++)
        if (!r->s[i].point && strcmp(r->s[i].pid, pid) == 0 && strcmp(r->s[i].tid, tid) == 0) {
            sl[n++] = &r->s[i];
            pts[np++] = r->s[i].ts;
            pts[np++] = r->s[i].ts + r->s[i].dur;
        }
    qsort(sl, (size_t)n, sizeof *sl, cmp_slice);
    qsort(pts, (size_t)np, sizeof *pts, cmp_double);
    char prev[1024] = "\x01";
    double weight = 0;
    out[0] = '\0';
    for (int p = 0; p + 1 < np; p++) {
        double a = pts[p], b = pts[p + 1];
        if (b <= a)
            continue;
        char stack[1024] = "";
        for (int i = 0; i < n; i++)
            if (sl[i]->ts <= a && sl[i]->ts + sl[i]->dur >= b) {
                size_t used = strlen(stack);
                snprintf(stack + used, sizeof stack - used, "%s%s", used ? ";" : "", sl[i]->frame);
            }
        if (strcmp(stack, prev) != 0) {
            if (prev[0] != '\x01')
                snprintf(out + strlen(out), size - strlen(out), "%s %g\n", prev, weight);
            snprintf(prev, sizeof prev, "%s", stack);
            weight = 0;
        }
        weight += b - a;
    }
    if (prev[0] != '\x01')
        snprintf(out + strlen(out), size - strlen(out), "%s %g\n", prev, weight);
}

/* The oracle's stacks ("alpha;beta 1.00µs") in the same form. */
static void expected_stacks(const json_t *stacks, char *out, size_t size)
{
    size_t i;
    const json_t *v;
    out[0] = '\0';
    json_array_foreach(stacks, i, v) {
        const char *s = json_string_value(v);
        const char *sp = s ? strrchr(s, ' ') : NULL;
        if (!sp)
            continue;
        double w = atof(sp + 1);
        if (strstr(sp, "ms"))
            w *= 1000;
        snprintf(out + strlen(out), size - strlen(out), "%.*s %g\n", (int)(sp - s), s, w);
    }
}

static void ids_of(const char *profile_name, char *pid, char *tid)
{
    const char *p = strstr(profile_name, "pid "), *t = strstr(profile_name, "tid ");
    snprintf(pid, 32, "%ld", p ? strtol(p + 4, NULL, 10) : 0L);
    snprintf(tid, 32, "%ld", t ? strtol(t + 4, NULL, 10) : 0L);
}

/* The speedscope inputs whose stacks this reader reproduces. The others
 * (B/E edge cases where speedscope reorders or drops events by name, and
 * the sample-based hermes profiles) are listed by the test as not covered. */
static const char *const covered[] = {
    "simple.json", "simple-object.json", "simple-partial.json", "simple-partial-trailing-comma.json",
    "simple-partial-whitespace.json", "multiprocess.json", "zero-duration-events.json",
    "too-many-end-events.json", "not-enough-end-events.json", "only-begin-events.json",
    "x-events-matching-end.json", "x-events-matching-start.json", "matching-x.json",
    "end-event-with-empty-stack.json", "must-retain-original-order.json", "out-of-order.json", NULL};

static int is_covered(const char *file)
{
    for (int i = 0; covered[i]; i++)
        if (strcmp(strrchr(file, '/') + 1, covered[i]) == 0)
            return 1;
    return 0;
}

static void test_speedscope_oracle(void **state)
{
    (void)state;
    char *oracle = shared_path("speedscope/trace-event-expected.json");
    if (!oracle) {
        printf("# skipped: ../shared/data/speedscope absent\n");
        return;
    }
    json_t *doc = json_load_file(oracle, 0, NULL);
    assert_non_null(doc);
    const char *key;
    json_t *t;
    int checked = 0, failures = 0;
    static rec r;
    json_object_foreach(doc, key, t) {
        const char *file = json_string_value(json_object_get(t, "sample_file"));
        char rel[300];
        snprintf(rel, sizeof rel, "speedscope/%s", file);
        char *path = shared_path(rel);
        if (!path)
            continue;
        ari_error err = {0};
        ari_chrome_stats st;
        int rc = read_file_into(path, &r, &st, &err);
        int ok = rc == 0;
        size_t i;
        json_t *prof;
        json_array_foreach(json_object_get(t, "profiles"), i, prof) {
            char pid[32], tid[32], got[8192], want[8192];
            ids_of(json_string_value(json_object_get(prof, "profile_name")), pid, tid);
            collapse(&r, pid, tid, got, sizeof got);
            expected_stacks(json_object_get(prof, "stacks"), want, sizeof want);
            if (rc != 0 || strcmp(got, want) != 0)
                ok = 0;
            if (is_covered(path) && (rc != 0 || strcmp(got, want) != 0)) {
                printf("# MISMATCH %s (%s), pid %s tid %s: %s\nwant:\n%sgot:\n%s", file, key, pid, tid, err.message,
                       want, got);
                failures++;
            }
        }
        if (is_covered(path))
            checked++;
        else
            printf("# not covered: %s (%s): %s\n", file, key, ok ? "matches anyway" : "differs");
        free(path);
    }
    json_decref(doc);
    free(oracle);
    assert_int_equal(failures, 0);
    assert_true(checked >= 18);
}

static void test_simple_tdur(void **state)
{
    (void)state;
    char *p = shared_path("speedscope/sample/profiles/trace-event/simple.json");
    if (!p)
        return;
    static rec r;
    ari_error err = {0};
    assert_int_equal(read_file_into(p, &r, NULL, &err), 0);
    const rec_slice *eps = by_name(&r, "epsilon");
    assert_non_null(eps);
    assert_true(eps->dur == 4); /* only tdur: wall duration from it */
    free(p);
}

/* ---- Perfetto flows and thread times -------------------------------------------------- */

static int has_flow(const rec *r, const char *from, const char *to)
{
    for (int i = 0; i < r->nflows; i++) {
        const rec_slice *a = by_id(r, r->flow_from[i]), *b = by_id(r, r->flow_to[i]);
        if (a && b && strcmp(a->name, from) == 0 && strcmp(b->name, to) == 0)
            return 1;
    }
    return 0;
}

static void test_perfetto_flows(void **state)
{
    (void)state;
    static rec r;
    ari_error err = {0};
    char *v1 = shared_path("perfetto/test/trace_processor/diff_tests/parser/parsing/flow_events_json_v1.json");
    char *v2 = shared_path("perfetto/test/trace_processor/diff_tests/parser/parsing/flow_events_json_v2.json");
    if (!v1 || !v2) {
        printf("# skipped: ../shared/data/perfetto absent\n");
        free(v1);
        free(v2);
        return;
    }
    assert_int_equal(read_file_into(v1, &r, NULL, &err), 0);
    assert_int_equal(r.nflows, 3);
    assert_true(has_flow(&r, "SenderB", "Blergh"));
    assert_true(has_flow(&r, "SenderA", "OtherSlice"));
    assert_true(has_flow(&r, "OtherSlice", "SomeSlice"));

    assert_int_equal(read_file_into(v2, &r, NULL, &err), 0);
    assert_int_equal(r.nflows, 4);
    assert_true(has_flow(&r, "SenderB", "Blergh"));
    assert_true(has_flow(&r, "SenderA", "OtherSlice"));
    assert_true(has_flow(&r, "OtherSlice", "SomeSlice"));
    assert_true(has_flow(&r, "OtherSlice", "SomeOtherSlice"));
    struct { const char *name; double tts, tdur; } want[] = {
        {"SenderB", 1000, 5000}, {"Blergh", NAN, NAN}, {"SenderA", 3005000, 7000},
        {"OtherSlice", 3204000, 100000}, {"SomeSlice", 3335000, 340000}, {"SomeOtherSlice", 3335000, 996000},
        {"SomeOtherSliceInstant", NAN, NAN}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const rec_slice *s = by_name(&r, want[i].name);
        assert_non_null(s);
        if (isnan(want[i].tts)) {
            assert_true(isnan(s->tts));
        } else { /* trace_processor stores ns */
            assert_true(fabs(s->tts * 1000 - want[i].tts) < 1e-6);
            assert_true(fabs(s->tdur * 1000 - want[i].tdur) < 1e-6);
        }
    }
    free(v1);
    free(v2);
}

/* ---- malformed and truncated ------------------------------------------------------------- */

static void expect_refused(const char *text, const char *needle)
{
    static rec r;
    memset(&r, 0, sizeof r);
    ari_chrome_sink k = {&r, rec_slice_cb, NULL, NULL, NULL, NULL, NULL, 0};
    ari_error err = {0};
    int rc = ari_chrome_read_buffer(text, strlen(text), "t.json", &k, NULL, &err);
    if (rc == 0 || !strstr(err.message, needle))
        fail_msg("input %s: rc %d, message '%s', wanted '%s'", text, rc, err.message, needle);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_refused("", "empty input");
    expect_refused("hello", "expected '[' or '{'");
    expect_refused("[1, 2]", "expected an event object");
    expect_refused("[{\"ph\":\"X\",\"ts\":1,\"dur\":-5}]", "negative dur");
    expect_refused("[{\"ph\":\"X\",\"name\":\"a\"}]", "missing ts");
    expect_refused("[{\"ph\":\"X\",\"ts\":\"soon\"}]", "ts is not a number");
    expect_refused("[{\"name\":\"a\",\"ts\":1}]", "\"ph\"");
    expect_refused("{\"traceEvents\":[],\"otherData\":{\"a\":1", "ends inside the value");
    expect_refused("{\"other\":1}", "no \"traceEvents\"");
    expect_refused("[{\"ph\":\"X\",\"ts\":1,\"dur\":1}] trailing", "data after");
    expect_refused("[{\"ph\":\"X\",\"ts\":1,\"dur\":1", "ends inside event");
    expect_refused("[{\"ph\":\"X\",\"ts\":1 \"dur\":1}]", "offset");
    char *bad = fixture("bad_syntax.json");
    static rec r;
    ari_error err = {0};
    assert_int_equal(read_file_into(bad, &r, NULL, &err), -1);
    assert_non_null(strstr(err.message, "bad_syntax.json: offset"));
    free(bad);
}

/* Fuzzer finding: flow endpoints in a trace without slices. */
static void test_flows_without_slices(void **state)
{
    (void)state;
    static rec r;
    memset(&r, 0, sizeof r);
    ari_chrome_sink k = {&r, rec_slice_cb, NULL, rec_flow_cb, NULL, NULL, NULL, 0};
    ari_error err = {0};
    const char *text = "[{\"ph\":\"s\",\"id\":1,\"ts\":1},{\"ph\":\"f\",\"id\":1,\"ts\":2}]";
    assert_int_equal(ari_chrome_read_buffer(text, strlen(text), "f.json", &k, NULL, &err), 0);
    assert_int_equal(r.nflows, 0);
}

static void test_truncated(void **state)
{
    (void)state;
    char *p = fixture("truncated.json");
    static rec r;
    ari_chrome_stats st;
    ari_error err = {0};
    assert_int_equal(read_file_into(p, &r, &st, &err), 0);
    assert_int_equal(st.truncated, 1);
    assert_int_equal(st.unclosed, 1);
    const rec_slice *alpha = by_name(&r, "alpha"), *beta = by_name(&r, "beta");
    assert_non_null(alpha);
    assert_non_null(beta);
    assert_true(alpha->dur == 3 && beta->ts == 1 && beta->dur == 2);
    free(p);
}

/* ---- the Kineto fixture ---------------------------------------------------------------- */

static void test_kineto_fixture(void **state)
{
    (void)state;
    char *p = fixture("kineto_small.json");
    static rec r;
    ari_chrome_stats st;
    ari_error err = {0};
    assert_int_equal(read_file_into(p, &r, &st, &err), 0);
    assert_int_equal(st.object_form, 1);
    assert_int_equal(st.slices, 5);
    assert_int_equal(st.metadata, 2);
    assert_int_equal(r.counters, 4);
    assert_int_equal(r.nflows, 1); /* runtime call -> memcpy, by correlation */
    assert_true(has_flow(&r, "cudaMemcpyAsync", "Memcpy HtoD (Pinned -> Device)"));
    assert_non_null(strstr(r.top_keys, "deviceProperties"));
    free(p);
}

/* The array cut in many places must never crash: either an error or a
 * truncated read. */
static void test_every_prefix(void **state)
{
    (void)state;
    const char *text = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[{\"ph\":\"B\",\"name\":\"a\\\"b\",\"ts\":1,\"pid\":1,"
                       "\"tid\":2},{\"ph\":\"E\",\"ts\":4,\"pid\":1,\"tid\":2},{\"ph\":\"C\",\"name\":\"c\",\"ts\":2,"
                       "\"args\":{\"v\":3}}],\"stackFrames\":{\"1\":{\"name\":\"x\"}}}";
    size_t n = strlen(text);
    for (size_t len = 0; len <= n; len++) {
        static rec r;
        memset(&r, 0, sizeof r);
        ari_chrome_sink k = {&r, rec_slice_cb, rec_counter_cb, rec_flow_cb, NULL, rec_top_cb, NULL, 0};
        ari_error err = {0};
        int rc = ari_chrome_read_buffer(text, len, "p.json", &k, NULL, &err);
        if (rc != 0)
            assert_true(err.message[0] != '\0');
        if (len == n) {
            assert_int_equal(rc, 0);
            assert_int_equal(r.n, 1);
            assert_string_equal(r.s[0].name, "a\"b");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_speedscope_oracle), cmocka_unit_test(test_simple_tdur),
        cmocka_unit_test(test_perfetto_flows),    cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncated),         cmocka_unit_test(test_kineto_fixture),
        cmocka_unit_test(test_every_prefix),      cmocka_unit_test(test_flows_without_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
