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

#include "analysis/trace_stacks.h"
#include "ingest/chrome_trace.h"
#include "ingest/chrome_trace_hermes.h"
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
    json_t *tree = s->args_text ? json_loadb(s->args_text, s->args_len, 0, NULL) : NULL;
    char *args = tree && json_object_size(tree) ? json_dumps(tree, JSON_COMPACT) : NULL;
    json_decref(tree);
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

static int rec_top_cb(void *ctx, const char *key, const char *v)
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
    ari_chrome_sink k = {r, rec_slice_cb, rec_counter_cb, rec_flow_cb, NULL, rec_top_cb, NULL};
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

/* A raw sink keeping the B/E/X events (per thread, file order), the
 * process and thread names, and the samples of a sampled profile. */
typedef struct raw_ev {
    char pid[32], tid[32];
    char ph;
    char *name, *args;
    double ts, dur;
} raw_ev;

typedef struct raw_rec {
    raw_ev *ev;
    size_t n, cap;
    int first_is_hermes; /* the first element of traceEvents looks like Hermes */
    json_t *names;       /* "p<pid>" -> process name, "t<pid>:<tid>" -> thread name */
    json_t *samples, *frames;
} raw_rec;

static int raw_event_cb(void *ctx, const ari_chrome_raw_event *e)
{
    raw_rec *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        assert_non_null(r->ev);
    }
    raw_ev *o = &r->ev[r->n++];
    snprintf(o->pid, sizeof o->pid, "%s", e->pid);
    snprintf(o->tid, sizeof o->tid, "%s", e->tid);
    o->ph = e->ph;
    o->name = e->name ? strdup(e->name) : NULL;
    /* speedscope tests `if (event.args)`: {} counts, false/0/"" do not */
    int falsy = e->args_text && (!strcmp(e->args_text, "false") || !strcmp(e->args_text, "0") ||
                                 !strcmp(e->args_text, "\"\""));
    o->args = e->args_text && !falsy ? strdup(e->args_text) : NULL;
    o->ts = e->ts;
    o->dur = e->dur;
    if (e->index == 0)
        r->first_is_hermes = ari_trace_args_are_hermes(o->args);
    return 0;
}

static int raw_meta_cb(void *ctx, const ari_chrome_metadata *m)
{
    raw_rec *r = ctx;
    const char *v = m->arg_name, *name = m->name, *pid = m->pid, *tid = m->tid;
    char key[80];
    if (!v || !v[0])
        return 0;
    if (strcmp(name, "process_name") == 0)
        snprintf(key, sizeof key, "p%s", pid);
    else if (strcmp(name, "thread_name") == 0)
        snprintf(key, sizeof key, "t%s:%s", pid, tid);
    else
        return 0;
    json_object_set_new(r->names, key, json_string(v));
    return 0;
}

static int raw_samples_cb(void *ctx, const char *key, const char *text)
{
    raw_rec *r = ctx;
    json_t **slot = strcmp(key, "samples") == 0 ? &r->samples : &r->frames;
    json_decref(*slot);
    *slot = json_loads(text, JSON_DECODE_ANY, NULL);
    return *slot ? 0 : -1;
}

static void raw_free(raw_rec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->ev[i].name);
        free(r->ev[i].args);
    }
    free(r->ev);
    json_decref(r->names);
    json_decref(r->samples);
    json_decref(r->frames);
    memset(r, 0, sizeof *r);
}

static int read_raw(const char *path, raw_rec *r, ari_chrome_stats *st, ari_error *err)
{
    memset(r, 0, sizeof *r);
    r->names = json_object();
    ari_chrome_sink k = {r, NULL, NULL, NULL, raw_meta_cb, NULL, NULL};
    ari_chrome_raw_sink raw = {r, raw_event_cb, raw_samples_cb};
    return ari_chrome_read_raw(path, path, &k, &raw, st, err);
}

/* A thread of the profile: speedscope's sort key "0000000pid:0000000tid". */
typedef struct thread_key {
    char pid[32], tid[32], sort[48];
} thread_key;

static int cmp_thread(const void *a, const void *b)
{
    return strcmp(((const thread_key *)a)->sort, ((const thread_key *)b)->sort);
}

static void add_thread(thread_key *t, int *n, const char *pid, const char *tid)
{
    char p[32], q[32];
    snprintf(p, sizeof p, "%ld", strtol(pid, NULL, 10)); /* speedscope: Number(pid) */
    snprintf(q, sizeof q, "%ld", strtol(tid, NULL, 10));
    for (int i = 0; i < *n; i++)
        if (strcmp(t[i].pid, p) == 0 && strcmp(t[i].tid, q) == 0)
            return;
    snprintf(t[*n].pid, sizeof t[*n].pid, "%s", p);
    snprintf(t[*n].tid, sizeof t[*n].tid, "%s", q);
    snprintf(t[*n].sort, sizeof t[*n].sort, "%010ld:%010ld", strtol(p, NULL, 10), strtol(q, NULL, 10));
    (*n)++;
}

static int same_thread(const thread_key *t, const char *pid, const char *tid)
{
    return strtol(pid, NULL, 10) == strtol(t->pid, NULL, 10) && strtol(tid, NULL, 10) == strtol(t->tid, NULL, 10);
}

static void profile_name(const raw_rec *r, const thread_key *t, char *out, size_t size)
{
    char pk[80], tk[80];
    snprintf(pk, sizeof pk, "p%.31s", t->pid);
    snprintf(tk, sizeof tk, "t%.31s:%.31s", t->pid, t->tid);
    const char *pn = json_string_value(json_object_get(r->names, pk));
    const char *tn = json_string_value(json_object_get(r->names, tk));
    int n;
    if (pn && tn)
        n = snprintf(out, size, "%s (pid %.31s), %s (tid %.31s)", pn, t->pid, tn, t->tid);
    else if (pn || tn)
        n = snprintf(out, size, "%s (pid %.31s, tid %.31s)", pn ? pn : tn, t->pid, t->tid);
    else
        n = snprintf(out, size, "pid %.31s, tid %.31s", t->pid, t->tid);
    assert_true(n >= 0 && (size_t)n < size);
}

static const char *id_string(const json_t *v, char *buf, size_t size)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    return NULL;
}

/* The stacks of one thread of a sampled profile (speedscope: samples with
 * "sf" ids into stackFrames). */
static int thread_from_samples(const raw_rec *r, const thread_key *t, ari_trace_stacks *out, ari_error *err)
{
    size_t nf = json_object_size(r->frames), ns = 0, i;
    ari_trace_stack_frame *frames = calloc(nf + 1, sizeof *frames);
    ari_trace_sample *samples = calloc(json_array_size(r->samples) + 1, sizeof *samples);
    char (*ids)[32] = calloc(2 * (nf + json_array_size(r->samples)) + 1, sizeof *ids);
    assert_true(frames && samples && ids);
    size_t k = 0, nid = 0;
    const char *key;
    json_t *v;
    json_object_foreach(r->frames, key, v) {
        frames[k].id = key;
        frames[k].name = json_string_value(json_object_get(v, "name"));
        frames[k].category = json_string_value(json_object_get(v, "category"));
        frames[k].parent = id_string(json_object_get(v, "parent"), ids[nid++], sizeof ids[0]);
        k++;
    }
    json_array_foreach(r->samples, i, v) {
        char pb[32], tb[32];
        const char *pid = id_string(json_object_get(v, "pid"), pb, sizeof pb);
        const char *tid = id_string(json_object_get(v, "tid"), tb, sizeof tb);
        if (!pid || !tid || !same_thread(t, pid, tid))
            continue;
        const json_t *ts = json_object_get(v, "ts");
        samples[ns].ts = json_is_string(ts) ? strtod(json_string_value(ts), NULL) : json_number_value(ts);
        samples[ns].sf = id_string(json_object_get(v, "sf"), ids[nid++], sizeof ids[0]);
        ns++;
    }
    int rc = ari_trace_stacks_from_samples(samples, ns, frames, nf, out, err);
    free(frames);
    free(samples);
    free(ids);
    return rc;
}

static int thread_from_events(const raw_rec *r, const thread_key *t, ari_trace_stacks *out, ari_error *err)
{
    ari_trace_event *ev = calloc(r->n + 1, sizeof *ev);
    assert_non_null(ev);
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (same_thread(t, r->ev[i].pid, r->ev[i].tid))
            ev[n++] = (ari_trace_event){r->ev[i].ph, r->ev[i].name, r->ev[i].args, r->ev[i].ts, r->ev[i].dur};
    int rc = ari_trace_stacks_from_events(ev, n, r->first_is_hermes, out, err);
    free(ev);
    return rc;
}

/* Compares one profile with the oracle; returns the number of differences
 * (printed). Sets *stacks_checked when the oracle's stacks were readable
 * (the snapshot extraction mangled those whose frames start with '['). */
static int compare_profile(const char *what, const ari_trace_stacks *got, const json_t *want, int *stacks_checked)
{
    int bad = 0;
    const json_t *stacks = json_object_get(want, "stacks"), *frames = json_object_get(want, "frames");
    size_t i;
    const json_t *v;
    *stacks_checked = 1;
    json_array_foreach(stacks, i, v) {
        const char *s = json_string_value(v), *sp = s ? strrchr(s, ' ') : NULL;
        if (!sp || !strstr(sp, "\xc2\xb5s"))
            *stacks_checked = 0;
    }
    if (*stacks_checked) {
        if (got->nstacks != json_array_size(stacks)) {
            printf("# %s: %zu stacks, oracle has %zu\n", what, got->nstacks, json_array_size(stacks));
            bad++;
        }
        json_array_foreach(stacks, i, v) {
            char mine[4096] = "(none)";
            if (i < got->nstacks)
                snprintf(mine, sizeof mine, "%s %.2f\xc2\xb5s", got->stacks[i].stack, got->stacks[i].weight);
            if (strcmp(mine, json_string_value(v)) != 0) {
                printf("# %s: stack %zu is '%s', oracle '%s'\n", what, i, mine, json_string_value(v));
                bad++;
            }
        }
    }
    if (got->nframes != json_array_size(frames)) {
        printf("# %s: %zu frames, oracle has %zu\n", what, got->nframes, json_array_size(frames));
        bad++;
    }
    json_array_foreach(frames, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        double self = json_number_value(json_object_get(v, "selfWeight"));
        double total = json_number_value(json_object_get(v, "totalWeight"));
        const ari_trace_frame *f = i < got->nframes ? &got->frames[i] : NULL;
        if (!f || !name || strcmp(f->name, name) != 0 || f->self != self || f->total != total) {
            printf("# %s: frame %zu is %s %g/%g, oracle %s %g/%g\n", what, i, f ? f->name : "(none)", f ? f->self : 0,
                   f ? f->total : 0, name ? name : "?", self, total);
            bad++;
        }
    }
    return bad;
}

/* One oracle entry: the file read with the raw sink, one profile per
 * thread (sorted as speedscope sorts them), each compared. */
static int check_entry(const char *key, const json_t *t, const char *path, int *stacks_checked)
{
    static raw_rec r;
    ari_error err = {0};
    ari_chrome_stats st;
    int bad = 0;
    *stacks_checked = 1;
    if (read_raw(path, &r, &st, &err) != 0) {
        printf("# %s: read failed: %s\n", key, err.message);
        raw_free(&r);
        return 1;
    }
    int sampled = st.object_form && r.samples && r.frames;
    thread_key th[64];
    int nth = 0;
    size_t i;
    const json_t *v;
    if (sampled) {
        json_array_foreach(r.samples, i, v) {
            char pb[32], tb[32];
            const char *pid = id_string(json_object_get(v, "pid"), pb, sizeof pb);
            const char *tid = id_string(json_object_get(v, "tid"), tb, sizeof tb);
            if (pid && tid && nth < 64)
                add_thread(th, &nth, pid, tid);
        }
    } else {
        for (size_t e = 0; e < r.n && nth < 64; e++)
            add_thread(th, &nth, r.ev[e].pid, r.ev[e].tid);
    }
    qsort(th, (size_t)nth, sizeof *th, cmp_thread);
    const json_t *profiles = json_object_get(t, "profiles");
    if ((size_t)nth != json_array_size(profiles)) {
        printf("# %s: %d profiles, oracle has %zu\n", key, nth, json_array_size(profiles));
        bad++;
    }
    json_array_foreach(profiles, i, v) {
        if ((int)i >= nth)
            break;
        char name[256], what[512];
        profile_name(&r, &th[i], name, sizeof name);
        snprintf(what, sizeof what, "%s [%s]", key, name);
        const char *want = json_string_value(json_object_get(v, "profile_name"));
        if (!want || strcmp(name, want) != 0) {
            printf("# %s: profile name, oracle '%s'\n", what, want ? want : "?");
            bad++;
        }
        ari_trace_stacks got;
        int rc = sampled ? thread_from_samples(&r, &th[i], &got, &err) : thread_from_events(&r, &th[i], &got, &err);
        int readable = 1;
        if (rc != 0) {
            printf("# %s: %s\n", what, err.message);
            bad++;
        } else {
            bad += compare_profile(what, &got, v, &readable);
        }
        *stacks_checked &= readable;
        ari_trace_stacks_free(&got);
    }
    raw_free(&r);
    return bad;
}

/* Every entry of speedscope's trace-event snapshot must be reproduced. */
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
    int entries = 0, reproduced = 0, frames_only = 0;
    json_object_foreach(doc, key, t) {
        const char *file = json_string_value(json_object_get(t, "sample_file"));
        char rel[300];
        snprintf(rel, sizeof rel, "speedscope/%s", file);
        char *path = shared_path(rel);
        entries++;
        if (!path) {
            printf("# not covered: %s (%s): file absent\n", file, key);
            continue;
        }
        int stacks_checked;
        int bad = check_entry(key, t, path, &stacks_checked);
        if (bad)
            printf("# not covered: %s (%s): %d differences\n", file, key, bad);
        else if (!stacks_checked)
            frames_only++, printf("# frames only: %s (%s): the oracle's stacks are unreadable\n", file, key);
        else
            reproduced++;
        free(path);
    }
    printf("# speedscope snapshot: %d of %d entries reproduced (stacks and frames), %d more by frames only\n",
           reproduced, entries, frames_only);
    json_decref(doc);
    free(oracle);
    assert_int_equal(reproduced + frames_only, entries);
}

/* trace_stacks without shared data: nesting, an X with a tie, an E whose
 * name does not match (ignored), a frame left open, and sample errors. */
static void test_trace_stacks_inline(void **state)
{
    (void)state;
    const ari_trace_event ev[] = {
        {'B', "a", NULL, 10, 0},      {'X', "b", "{\"k\":1}", 11, 2}, {'X', "c", NULL, 11, 4},
        {'E', "zzz", NULL, 16, 0},    {'E', "a", "{\"x\":2}", 17, 0}, {'B', "d", NULL, 18, 0},
        {'E', "d", NULL, 20, 0},      {'B', "a", NULL, 21, 0},
    };
    ari_trace_stacks got;
    ari_error err = {0};
    assert_int_equal(ari_trace_stacks_from_events(ev, sizeof ev / sizeof ev[0], 0, &got, &err), 0);
    const char *want[] = {"a", "a;c", "a;c;b {\"k\":1}", "a;c", "a", "", "d", "", "a"};
    const double w[] = {1, 0, 2, 2, 2, 1, 2, 0, 0};
    /* "a;c" is entered before b at 11 (longer first): no time alone, not
     * listed; the gap before the last "a" (open at the very end, so of no
     * length) is not listed either, as in speedscope's dump. */
    size_t k = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (w[i] == 0)
            continue;
        assert_true(k < got.nstacks);
        assert_string_equal(got.stacks[k].stack, want[i]);
        assert_true(got.stacks[k].weight == w[i]);
        k++;
    }
    assert_int_equal(got.nstacks, k);
    assert_int_equal(got.ignored_ends, 1);
    assert_int_equal(got.closed_at_end, 1);
    assert_int_equal(got.nframes, 4); /* a, c, b {...}, d */
    assert_string_equal(got.frames[0].name, "a");
    assert_true(got.frames[0].self == 3 && got.frames[0].total == 7);
    ari_trace_stacks_free(&got);

    const ari_trace_stack_frame fr[] = {{"1", "root", "r", NULL}, {"2", "f", "js", "1"}, {"3", "g", "js", "4"},
                                        {"4", "h", "js", "3"}};
    const ari_trace_sample sa[] = {{0, "1"}, {5, "2"}, {7, "1"}, {9, "2"}};
    assert_int_equal(ari_trace_stacks_from_samples(sa, 4, fr, 4, &got, &err), 0);
    assert_int_equal(got.nstacks, 3);
    assert_string_equal(got.stacks[1].stack, "root;f");
    assert_true(got.stacks[0].weight == 5 && got.stacks[1].weight == 2 && got.stacks[2].weight == 2);
    ari_trace_stacks_free(&got);
    const ari_trace_sample cyc[] = {{0, "3"}, {1, "1"}};
    assert_int_equal(ari_trace_stacks_from_samples(cyc, 2, fr, 4, &got, &err), -1);
    assert_non_null(strstr(err.message, "cycle"));
    ari_trace_stacks_free(&got);
    const ari_trace_sample unknown[] = {{0, "9"}, {1, "1"}};
    assert_int_equal(ari_trace_stacks_from_samples(unknown, 2, fr, 4, &got, &err), -1);
    assert_non_null(strstr(err.message, "unknown stack frame"));
    ari_trace_stacks_free(&got);
    const ari_trace_sample back[] = {{5, "1"}, {1, "1"}};
    assert_int_equal(ari_trace_stacks_from_samples(back, 2, fr, 4, &got, &err), -1);
    ari_trace_stacks_free(&got);
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
    ari_chrome_sink k = {&r, rec_slice_cb, NULL, NULL, NULL, NULL, NULL};
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
    ari_chrome_sink k = {&r, rec_slice_cb, NULL, rec_flow_cb, NULL, NULL, NULL};
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
        ari_chrome_sink k = {&r, rec_slice_cb, rec_counter_cb, rec_flow_cb, NULL, rec_top_cb, NULL};
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
        cmocka_unit_test(test_trace_stacks_inline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
