/* chrome_trace.c: the Chrome Trace Event Format reader (see chrome_trace.h).
 * The bytes come from an ari_json_stream (json_tokens.h: a window over
 * ari_input or memory that cuts one value at a time); simple X and instant
 * events are decoded in place with json_tokens' cautious scanners, others
 * with jansson. Then the event logic: slices, B/E matching, counters,
 * metadata and flow binding. Sinks only ever see plain C values and JSON
 * text. */
#include "ingest/chrome_trace.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "ingest/json_tokens.h"
#include "util/free_all.h"
#include "util/strmap.h"
#include "util/vec.h"

#define CT_CHUNK (1u << 20)
#define CT_MAX_VALUE ((size_t)256 << 20) /* largest event or top-level value kept */

/* ---- reader state ------------------------------------------------------------ */

typedef struct ct_be {       /* a buffered B or E event */
    double ts, tts;
    int64_t seq;
    char ph;
    char *name, *cat;
    json_t *args;
    char *bind_id;
    int flow_in, flow_out;
} ct_be;

typedef struct ct_thread {
    char *pid, *tid;
    ct_be *be;
    size_t nbe, cap;
    double last_ts;
    int has_ts;
} ct_thread;

typedef struct ct_rec {      /* a slice, for flow binding */
    int thread;
    double start, end;
    int64_t id;
} ct_rec;

typedef struct ct_end {      /* a flow endpoint */
    double ts;
    int64_t seq;
    int thread;
    char ph;                 /* s, t, f; 'i'/'o' for v2 flow_in/flow_out */
    int enclosing;           /* f with bp "e" */
    int64_t slice;           /* v2: bound already */
    char *id;
} ct_end;

typedef struct ct_reader {
    const char *name;
    const ari_chrome_sink *k;
    const ari_chrome_raw_sink *raw; /* NULL unless ari_chrome_read*_raw */
    ari_chrome_stats st;
    ari_error *err;
    ari_json_stream src;
    ari_strmap *threads;     /* "pid\x1ftid" -> index + 1 */
    ct_thread *th;
    size_t nth, cap_th;
    ct_rec *recs;
    size_t nrecs, cap_recs;
    ct_end *ends;
    size_t nends, cap_ends;
    int64_t next_slice, seq;
} ct_reader;

static int fail(ct_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ct_reader *r, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s: %s", r->name, msg);
}

/* ---- JSON cutting ---------------------------------------------------------------- */

static int peek(ct_reader *r)
{
    return ari_json_stream_peek(&r->src, r->err);
}

static int cut_value(ct_reader *r, size_t *vlen, int discard)
{
    return ari_json_stream_cut(&r->src, vlen, discard, r->err);
}

/* Parses buf[start..start+n) as JSON and consumes it. */
static json_t *load_value(ct_reader *r, size_t n)
{
    json_error_t je;
    ari_json_stream *s = &r->src;
    json_t *v = json_loadb(s->buf + s->start, n, JSON_DECODE_ANY, &je);
    if (!v)
        fail(r, "offset %llu: %s", (unsigned long long)(s->base + s->start + (size_t)(je.position > 0 ? je.position : 0)),
             je.text);
    s->start += n;
    return v;
}

/* Reads a JSON string token (an object key). */
static int read_key(ct_reader *r, char *out, size_t size)
{
    size_t n = 0;
    int rc = cut_value(r, &n, 0);
    if (rc != 0)
        return rc > 0 ? fail(r, "input ends inside the top-level object") : -1;
    if (r->src.buf[r->src.start] != '"')
        return fail(r, "offset %llu: expected a key string", (unsigned long long)(r->src.base + r->src.start));
    json_t *k = load_value(r, n);
    if (!k)
        return -1;
    snprintf(out, size, "%s", json_string_value(k));
    json_decref(k);
    return 0;
}

static int expect(ct_reader *r, char c, const char *what)
{
    int p = peek(r);
    if (p == -2)
        return -1;
    if (p != c)
        return fail(r, "offset %llu: expected %s", (unsigned long long)(r->src.base + r->src.start), what);
    r->src.start++;
    return 0;
}

/* ---- in-place decoding of simple events ---------------------------------------- */

/* The hot path: X and instant events are decoded from the bytes cut_value
 * found, without a JSON tree. The scanner validates as strictly as jansson
 * for what it accepts; whenever it meets something it does not handle
 * (escapes in a needed string, deep nesting, a real pid, flows...) the event
 * goes the general way, which also gives the error messages. */

typedef struct ct_span {
    char *p; /* NULL when the key is absent */
    size_t n;
} ct_span;

typedef struct ct_fields {
    ct_span ph, name, cat, pid, tid, ts, dur, tts, tdur, args, other;
} ct_fields;

static ct_span *field_slot(ct_fields *f, const char *k, size_t n)
{
#define CT_KEY(s, slot) if (n == sizeof s - 1 && memcmp(k, s, n) == 0) return &f->slot
    CT_KEY("ph", ph);
    CT_KEY("name", name);
    CT_KEY("cat", cat);
    CT_KEY("pid", pid);
    CT_KEY("tid", tid);
    CT_KEY("ts", ts);
    CT_KEY("dur", dur);
    CT_KEY("tts", tts);
    CT_KEY("tdur", tdur);
    CT_KEY("args", args);
#undef CT_KEY
    if ((n == 7 && memcmp(k, "bind_id", 7) == 0) || (n == 7 && memcmp(k, "flow_in", 7) == 0) ||
        (n == 8 && memcmp(k, "flow_out", 8) == 0))
        return &f->other; /* v2 flows: the general path */
    return NULL;
}

/* Splits the event object buf[0..n) into the fields above. 0, or -1 when
 * the general path must take it. */
static int fast_fields(char *buf, size_t n, ct_fields *f)
{
    const char *end = buf + n, *p = ari_json_skip_ws(buf + 1, end);
    memset(f, 0, sizeof *f);
    if (p < end && *p == '}')
        return 0;
    for (;;) {
        int plain;
        const char *k = p;
        if (p >= end || *p != '"' || !(p = ari_json_skip_string(p, end, ARI_JSON_CAUTIOUS, &plain)) || !plain)
            return -1;
        ct_span *slot = field_slot(f, k + 1, (size_t)(p - k - 2));
        p = ari_json_skip_ws(p, end);
        if (p >= end || *p != ':')
            return -1;
        const char *v = ari_json_skip_ws(p + 1, end);
        if (!(p = ari_json_skip_value(v, end, ARI_JSON_CAUTIOUS)))
            return -1;
        if (slot)
            *slot = (ct_span){(char *)v, (size_t)(p - v)};
        p = ari_json_skip_ws(p, end);
        if (p < end && *p == '}')
            return ari_json_skip_ws(p + 1, end) == end ? 0 : -1;
        if (p >= end || *p != ',')
            return -1;
        p = ari_json_skip_ws(p + 1, end);
    }
}

/* A plain string value as a C string, in place (its closing quote becomes
 * the NUL); "" for other values; NULL if it has escapes. */
static const char *span_text(ct_span v)
{
    if (!v.p || *v.p != '"')
        return "";
    if (memchr(v.p, '\\', v.n))
        return NULL;
    v.p[v.n - 1] = '\0';
    return v.p + 1;
}

/* number_field() on a span: 1 and *out, 0 when absent, -1 otherwise
 * (the general path then reports it). */
static int span_number(ct_span v, double *out)
{
    if (!v.p)
        return 0;
    if (*v.p == '"' || !(*v.p == '-' || (*v.p >= '0' && *v.p <= '9')))
        return -1;
    *out = strtod(v.p, NULL);
    return isfinite(*out) ? 1 : -1;
}

/* id_text() on a span: NULL when only the general path can say. */
static const char *span_id(ct_span v, char *buf, size_t size)
{
    if (!v.p)
        return "";
    if (*v.p == '"')
        return span_text(v);
    if (*v.p == '-' || (*v.p >= '0' && *v.p <= '9')) {
        if (v.n >= size || memchr(v.p, '.', v.n) || memchr(v.p, 'e', v.n) || memchr(v.p, 'E', v.n) ||
            (v.n >= 2 && v.p[0] == '-' && v.p[1] == '0'))
            return NULL;
        memcpy(buf, v.p, v.n);
        buf[v.n] = '\0';
        return buf;
    }
    return *v.p == '{' || *v.p == '[' || *v.p == 't' || *v.p == 'f' || *v.p == 'n' ? "" : NULL;
}

static int span_plain(ct_span v)
{
    return !v.p || *v.p != '"' || !memchr(v.p, '\\', v.n);
}

static int emit_slice(ct_reader *r, int thread, ari_chrome_slice *s, const json_t *args);
static int thread_of(ct_reader *r, const char *pid, const char *tid);
static void saw_time(ct_reader *r, int thread, double t);

/* An X or instant event decoded in place: 0 or the sink's code when done,
 * 1 when the general path must take it (nothing consumed then). */
static int fast_event(ct_reader *r, char *buf, size_t n)
{
    ct_fields f;
    if (fast_fields(buf, n, &f) < 0 || f.other.p || !f.ph.p || f.ph.n != 3 || f.ph.p[0] != '"')
        return 1;
    char ph = f.ph.p[1];
    int point = ph == 'i' || ph == 'I' || ph == 'R';
    if (!point && ph != 'X')
        return 1;
    double ts = 0, dur = 0, tts = NAN, tdur = NAN;
    if (span_number(f.ts, &ts) != 1)
        return 1;
    if (!point) {
        int has_dur = span_number(f.dur, &dur), has_tdur = span_number(f.tdur, &tdur);
        if (has_dur < 0 || has_tdur < 0 || span_number(f.tts, &tts) < 0)
            return 1;
        if (!has_dur)
            dur = has_tdur ? tdur : 0;
        if (dur < 0)
            return 1;
    }
    if (!span_plain(f.name) || !span_plain(f.cat) || !span_plain(f.pid) || !span_plain(f.tid) ||
        (f.args.p && *f.args.p != '{'))
        return 1;
    char pidb[64], tidb[64];
    const char *pid = span_id(f.pid, pidb, sizeof pidb), *tid = span_id(f.tid, tidb, sizeof tidb);
    if (!pid || !tid)
        return 1;
    /* From here on the event is ours: strings are cut in place. */
    r->st.events++;
    int thread = thread_of(r, pid, tid);
    if (thread < 0)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    saw_time(r, thread, ts + dur);
    ari_chrome_slice s = {0, NULL, NULL, span_text(f.name), span_text(f.cat), point, ts, dur, tts, tdur,
                          f.args.p, f.args.n};
    return emit_slice(r, thread, &s, NULL);
}

/* ---- threads, slices and flows ------------------------------------------------ */

static const char *id_text(const json_t *v, char *buf, size_t size)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, size, "%.17g", json_real_value(v));
    else
        buf[0] = '\0';
    return buf;
}

static int thread_of(ct_reader *r, const char *pid, const char *tid)
{
    char key[512];
    int n = snprintf(key, sizeof key, "%s\x1f%s", pid, tid);
    if (n < 0 || (size_t)n >= sizeof key)
        n = (int)sizeof key - 1;
    void *v = ari_strmap_get(r->threads, key, (size_t)n);
    if (v)
        return (int)((intptr_t)v - 1);
    if (ari_vec_reserve((void **)&r->th, &r->cap_th, r->nth + 1, sizeof *r->th) < 0)
        return -1;
    ct_thread *t = &r->th[r->nth];
    memset(t, 0, sizeof *t);
    t->pid = strdup(pid);
    t->tid = strdup(tid);
    if (!t->pid || !t->tid || !ari_strmap_put(r->threads, key, (size_t)n, (void *)(intptr_t)(r->nth + 1))) {
        free(t->pid);
        free(t->tid);
        return -1;
    }
    return (int)r->nth++;
}

static void saw_time(ct_reader *r, int thread, double t)
{
    ct_thread *th = &r->th[thread];
    if (!th->has_ts || t > th->last_ts)
        th->last_ts = t;
    th->has_ts = 1;
}

static int add_end(ct_reader *r, int thread, char ph, double ts, int enclosing, int64_t slice, const char *id)
{
    if (ari_vec_reserve((void **)&r->ends, &r->cap_ends, r->nends + 1, sizeof *r->ends) < 0)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    ct_end *e = &r->ends[r->nends];
    *e = (ct_end){ts, r->seq++, thread, ph, enclosing, slice, strdup(id)};
    if (!e->id)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    r->nends++;
    return 0;
}

/* v2 flows: a slice's bind_id with flow_in / flow_out. */
static int slice_flows(ct_reader *r, int thread, double ts, int64_t slice, const char *bind_id,
                       int flow_in, int flow_out)
{
    if (!bind_id || !*bind_id)
        return 0;
    if (flow_in && add_end(r, thread, 'i', ts, 0, slice, bind_id) < 0)
        return -1;
    if (flow_out && add_end(r, thread, 'o', ts, 0, slice, bind_id) < 0)
        return -1;
    return 0;
}

/* Hands a slice to the sink; args: the event's args (general path), given
 * to the sink as compact JSON text when an object. */
static int emit_slice(ct_reader *r, int thread, ari_chrome_slice *s, const json_t *args)
{
    s->id = r->next_slice++;
    s->pid = r->th[thread].pid;
    s->tid = r->th[thread].tid;
    if (!s->point) {
        if (ari_vec_reserve((void **)&r->recs, &r->cap_recs, r->nrecs + 1, sizeof *r->recs) < 0)
            return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
        r->recs[r->nrecs++] = (ct_rec){thread, s->ts, s->ts + s->dur, s->id};
        r->st.slices++;
    } else {
        r->st.instants++;
    }
    if (!r->k->slice)
        return 0;
    if (!args)
        return r->k->slice(r->k->ctx, s);
    char *text = json_is_object(args) ? json_dumps(args, JSON_COMPACT) : NULL;
    if (json_is_object(args) && !text)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    s->args_text = text;
    s->args_len = text ? strlen(text) : 0;
    int rc = r->k->slice(r->k->ctx, s);
    free(text);
    return rc;
}

/* ---- one event ---------------------------------------------------------------------- */

/* 1 and *out for a number (or a numeric string, which some tracers write),
 * 0 when absent, -1 otherwise. */
static int number_field(const json_t *ev, const char *key, double *out)
{
    const json_t *v = json_object_get(ev, key);
    if (!v)
        return 0;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        *out = strtod(s, &end);
        return end != s && *end == '\0' && isfinite(*out) ? 1 : -1;
    }
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return isfinite(*out) ? 1 : -1;
}

static const char *str_field(const json_t *ev, const char *key)
{
    const char *s = json_string_value(json_object_get(ev, key));
    return s ? s : "";
}

static int bool_field(const json_t *ev, const char *key)
{
    return json_is_true(json_object_get(ev, key));
}

static int on_counter(ct_reader *r, const json_t *ev, const char *pid, double ts)
{
    const char *key;
    const json_t *v;
    json_t *args = json_object_get(ev, "args");
    json_object_foreach(args, key, v) {
        if (!json_is_number(v))
            continue;
        r->st.counters++;
        if (r->k->counter) {
            int rc = r->k->counter(r->k->ctx, pid, str_field(ev, "name"), key, ts, json_number_value(v));
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int buffer_be(ct_reader *r, int thread, const json_t *ev, char ph, double ts)
{
    ct_thread *t = &r->th[thread];
    if (ari_vec_reserve((void **)&t->be, &t->cap, t->nbe + 1, sizeof *t->be) < 0)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    ct_be *b = &t->be[t->nbe];
    memset(b, 0, sizeof *b);
    b->ts = ts;
    b->tts = NAN;
    number_field(ev, "tts", &b->tts);
    b->seq = r->seq++;
    b->ph = ph;
    b->name = strdup(str_field(ev, "name"));
    b->cat = strdup(str_field(ev, "cat"));
    json_t *args = json_object_get(ev, "args");
    b->args = args ? json_incref(args) : NULL;
    char idbuf[64];
    const json_t *bind = json_object_get(ev, "bind_id");
    if (bind)
        b->bind_id = strdup(id_text(bind, idbuf, sizeof idbuf));
    b->flow_in = bool_field(ev, "flow_in");
    b->flow_out = bool_field(ev, "flow_out");
    if (!b->name || !b->cat || (bind && !b->bind_id))
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    t->nbe++;
    return 0;
}

static int emit_raw(ct_reader *r, const json_t *ev, const char *pid, const char *tid, char ph, double ts,
                    double dur);

static int on_complete(ct_reader *r, int thread, const json_t *ev, double ts, int point, const char *pid,
                       const char *tid)
{
    double dur = 0, tts = NAN, tdur = NAN;
    if (!point) {
        int has_dur = number_field(ev, "dur", &dur);
        int has_tdur = number_field(ev, "tdur", &tdur);
        if (has_dur < 0 || has_tdur < 0)
            return fail(r, "event %lld: dur or tdur is not a number", (long long)r->st.events - 1);
        if (!has_dur)
            dur = has_tdur ? tdur : 0; /* speedscope: a tdur-only X lasts tdur */
        if (dur < 0)
            return fail(r, "event %lld: negative dur", (long long)r->st.events - 1);
        if (number_field(ev, "tts", &tts) < 0)
            return fail(r, "event %lld: tts is not a number", (long long)r->st.events - 1);
    }
    if (!point) {
        int rc = emit_raw(r, ev, pid, tid, 'X', ts, dur);
        if (rc)
            return rc;
    }
    saw_time(r, thread, ts + dur);
    ari_chrome_slice s = {0, NULL, NULL, str_field(ev, "name"), str_field(ev, "cat"), point, ts, dur,
                          tts, tdur, NULL, 0};
    int rc = emit_slice(r, thread, &s, json_object_get(ev, "args"));
    if (rc)
        return rc;
    char idbuf[64];
    const json_t *bind = json_object_get(ev, "bind_id");
    if (!point && bind)
        return slice_flows(r, thread, ts, s.id, id_text(bind, idbuf, sizeof idbuf),
                           bool_field(ev, "flow_in"), bool_field(ev, "flow_out"));
    return 0;
}

/* Hands a B, E or X event to a raw_event sink, as written. */
static int emit_raw(ct_reader *r, const json_t *ev, const char *pid, const char *tid, char ph, double ts,
                    double dur)
{
    if (!r->raw || !r->raw->event)
        return 0;
    const json_t *args = json_object_get(ev, "args");
    char *text = args && !json_is_null(args) ? json_dumps(args, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (args && !json_is_null(args) && !text)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    ari_chrome_raw_event e = {r->st.events - 1, pid, tid, ph, json_string_value(json_object_get(ev, "name")),
                              text, ts, dur};
    int rc = r->raw->event(r->raw->ctx, &e);
    free(text);
    return rc;
}

/* An M event: its args' "name" and "labels" strings, and the args as
 * compact JSON. */
static int on_metadata(ct_reader *r, const json_t *ev, const char *pid, const char *tid)
{
    const json_t *args = json_object_get(ev, "args");
    char *text = args ? json_dumps(args, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (args && !text)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    ari_chrome_metadata m = {pid, tid, str_field(ev, "name"), json_string_value(json_object_get(args, "name")),
                             json_string_value(json_object_get(args, "labels")), text};
    int rc = r->k->metadata(r->k->ctx, &m);
    free(text);
    return rc;
}

static int on_event(ct_reader *r, const json_t *ev)
{
    r->st.events++;
    if (!json_is_object(ev))
        return fail(r, "event %lld is not an object", (long long)r->st.events - 1);
    const char *ph = json_string_value(json_object_get(ev, "ph"));
    if (!ph || !ph[0] || ph[1])
        return fail(r, "event %lld: missing or bad \"ph\"", (long long)r->st.events - 1);
    char pidb[64], tidb[64];
    const char *pid = id_text(json_object_get(ev, "pid"), pidb, sizeof pidb);
    const char *tid = id_text(json_object_get(ev, "tid"), tidb, sizeof tidb);
    double ts = 0;
    int has_ts = number_field(ev, "ts", &ts);
    if (has_ts < 0)
        return fail(r, "event %lld: ts is not a number", (long long)r->st.events - 1);
    if (ph[0] == 'M') {
        r->st.metadata++;
        if (!r->k->metadata)
            return 0;
        return on_metadata(r, ev, pid, tid);
    }
    if (!strchr("XBEiIRCstf", ph[0])) {
        r->st.skipped++;
        return 0;
    }
    if (!has_ts)
        return fail(r, "event %lld (ph %s): missing ts", (long long)r->st.events - 1, ph);
    if (ph[0] == 'C')
        return on_counter(r, ev, pid, ts);
    int thread = thread_of(r, pid, tid);
    if (thread < 0)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    switch (ph[0]) {
    case 'X':
        return on_complete(r, thread, ev, ts, 0, pid, tid);
    case 'i': case 'I': case 'R':
        return on_complete(r, thread, ev, ts, 1, pid, tid);
    case 'B': case 'E': {
        saw_time(r, thread, ts);
        int rc = emit_raw(r, ev, pid, tid, ph[0], ts, 0);
        return rc ? rc : buffer_be(r, thread, ev, ph[0], ts);
    }
    default: { /* s, t, f */
        char idbuf[64];
        const json_t *id = json_object_get(ev, "id");
        if (!id)
            id = json_object_get(json_object_get(ev, "id2"), "global");
        if (!id)
            id = json_object_get(json_object_get(ev, "id2"), "local");
        const char *bp = str_field(ev, "bp");
        return add_end(r, thread, ph[0], ts, ph[0] != 'f' || strcmp(bp, "e") == 0, -1,
                       id_text(id, idbuf, sizeof idbuf));
    }
    }
}

/* ---- end of input: B/E matching and flows ------------------------------------ */

static int compare_be(const void *a, const void *b)
{
    const ct_be *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int close_be(ct_reader *r, int thread, const ct_be *b, double end, double end_tts, const json_t *end_args)
{
    json_t *args = b->args ? json_deep_copy(b->args) : NULL;
    if (end_args && json_is_object(end_args)) {
        if (!args)
            args = json_object();
        json_object_update(args, (json_t *)end_args);
    }
    ari_chrome_slice s = {0, NULL, NULL, b->name, b->cat, 0, b->ts, end - b->ts, b->tts,
                          isnan(b->tts) || isnan(end_tts) ? NAN : end_tts - b->tts, NULL, 0};
    int rc = emit_slice(r, thread, &s, args);
    if (rc == 0)
        rc = slice_flows(r, thread, b->ts, s.id, b->bind_id, b->flow_in, b->flow_out);
    json_decref(args);
    return rc;
}

/* 1 if an open slice on the stack has this name. */
static int open_named(const ct_thread *t, const size_t *stack, size_t depth, const char *name)
{
    for (size_t d = depth; d-- > 0;)
        if (strcmp(t->be[stack[d]].name, name) == 0)
            return 1;
    return 0;
}

/* A B of this name at the same time later in the (sorted) list, not yet
 * used: an E written before its B at one timestamp (a zero-length slice). */
static size_t later_begin(const ct_thread *t, size_t i, const unsigned char *used)
{
    for (size_t j = i + 1; j < t->nbe && t->be[j].ts == t->be[i].ts; j++)
        if (!used[j] && t->be[j].ph == 'B' && strcmp(t->be[j].name, t->be[i].name) == 0)
            return j;
    return 0;
}

/* B/E matching as speedscope does it: in time order (file order at equal
 * times); an E closes the innermost open slice, unless it names a slice
 * that is not open: then it closes a B of that name at the same time
 * written after it, or is dropped (counted as unmatched). */
static int match_thread(ct_reader *r, int thread)
{
    ct_thread *t = &r->th[thread];
    if (t->nbe == 0)
        return 0;
    qsort(t->be, t->nbe, sizeof *t->be, compare_be);
    size_t *stack = malloc(t->nbe * sizeof *stack), depth = 0;
    unsigned char *used = calloc(t->nbe, 1);
    if (!stack || !used) {
        free(stack);
        free(used);
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < t->nbe && rc == 0; i++) {
        const ct_be *b = &t->be[i];
        if (used[i])
            continue;
        if (b->ph == 'B') {
            stack[depth++] = i;
            continue;
        }
        if (b->name[0] && !open_named(t, stack, depth, b->name)) {
            size_t j = later_begin(t, i, used);
            if (j) {
                used[j] = 1;
                rc = close_be(r, thread, &t->be[j], b->ts, b->tts, b->args);
            } else {
                r->st.unmatched_end++;
            }
            continue;
        }
        if (depth == 0) {
            r->st.unmatched_end++;
            continue;
        }
        depth--;
        rc = close_be(r, thread, &t->be[stack[depth]], b->ts, b->tts, b->args);
    }
    while (depth > 0 && rc == 0) { /* unclosed: end at the thread's last time */
        depth--;
        r->st.unclosed++;
        rc = close_be(r, thread, &t->be[stack[depth]], t->last_ts, NAN, NULL);
    }
    free(stack);
    free(used);
    return rc;
}

static int compare_rec(const void *a, const void *b)
{
    const ct_rec *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread - y->thread;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int compare_end(const void *a, const void *b)
{
    const ct_end *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The slice an endpoint binds to: the innermost slice of its thread open
 * at ts (enclosing), or the first one starting at or after ts (next). */
static int64_t bind_slice(const ct_reader *r, const ct_end *e)
{
    size_t lo = 0, hi = r->nrecs; /* first rec with (thread, start) > (e->thread, ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ct_rec *m = &r->recs[mid];
        if (m->thread < e->thread || (m->thread == e->thread && m->start <= e->ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!e->enclosing) {
        for (size_t i = lo; i > 0 && r->recs[i - 1].thread == e->thread && r->recs[i - 1].start == e->ts; i--)
            lo = i - 1; /* a slice starting exactly at ts is "next" */
        return lo < r->nrecs && r->recs[lo].thread == e->thread ? r->recs[lo].id : -1;
    }
    for (size_t i = lo; i > 0 && r->recs[i - 1].thread == e->thread; i--) {
        const ct_rec *c = &r->recs[i - 1];
        if (c->start <= e->ts && e->ts <= c->end)
            return c->id;
    }
    return -1;
}

static int emit_flow(ct_reader *r, const char *id, int64_t from, int64_t to)
{
    if (from < 0 || to < 0 || from == to)
        return 0;
    r->st.flows++;
    return r->k->flow ? r->k->flow(r->k->ctx, id, from, to) : 0;
}

static int resolve_flows(ct_reader *r)
{
    if (r->nends == 0)
        return 0;
    if (r->nrecs > 0)
        qsort(r->recs, r->nrecs, sizeof *r->recs, compare_rec);
    qsort(r->ends, r->nends, sizeof *r->ends, compare_end);
    ari_strmap *v1 = ari_strmap_new(), *v2 = ari_strmap_new(); /* id -> slice + 1 */
    if (!v1 || !v2) {
        ari_strmap_free(v1);
        ari_strmap_free(v2);
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < r->nends && rc == 0; i++) {
        const ct_end *e = &r->ends[i];
        size_t n = strlen(e->id);
        if (e->ph == 'i' || e->ph == 'o') {
            ari_strmap *m = v2;
            intptr_t out = (intptr_t)ari_strmap_get(m, e->id, n);
            if (e->ph == 'i' && out)
                rc = emit_flow(r, e->id, (int64_t)out - 1, e->slice);
            else if (e->ph == 'o' && !ari_strmap_put(m, e->id, n, (void *)(intptr_t)(e->slice + 1)))
                rc = ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
            continue;
        }
        int64_t slice = bind_slice(r, e);
        intptr_t prev = (intptr_t)ari_strmap_get(v1, e->id, n);
        if (e->ph != 's' && prev)
            rc = emit_flow(r, e->id, (int64_t)prev - 1, slice);
        if (e->ph == 'f')
            ari_strmap_remove(v1, e->id, n);
        else if (slice >= 0 && !ari_strmap_put(v1, e->id, n, (void *)(intptr_t)(slice + 1)))
            rc = ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    }
    ari_strmap_free(v1);
    ari_strmap_free(v2);
    return rc;
}

static int finish(ct_reader *r)
{
    for (size_t t = 0; t < r->nth; t++) {
        int rc = match_thread(r, (int)t);
        if (rc)
            return rc;
    }
    return resolve_flows(r);
}

/* ---- top level ------------------------------------------------------------------------ */

static int progress(ct_reader *r)
{
    if (!r->k->progress || (r->st.events & 0xffff) != 0)
        return 0;
    uint64_t done = ari_json_stream_done(&r->src), total = ari_json_stream_total(&r->src);
    return r->k->progress(r->k->ctx, total ? (double)done / (double)total : 0);
}

/* Reads the elements of the traceEvents array (after its "["). */
static int read_events(ct_reader *r)
{
    for (;;) {
        int c = peek(r);
        if (c == -2)
            return -1;
        if (c == -1) {
            r->st.truncated = 1; /* tolerated: a tracer died before "]" */
            return 0;
        }
        if (c == ']') {
            r->src.start++;
            return 0;
        }
        if (c == ',') {
            r->src.start++;
            continue;
        }
        if (c != '{')
            return fail(r, "offset %llu: expected an event object", (unsigned long long)(r->src.base + r->src.start));
        size_t n = 0;
        int rc = cut_value(r, &n, 0);
        if (rc > 0)
            return fail(r, "input ends inside event %lld", (long long)r->st.events);
        if (rc < 0)
            return -1;
        if (!r->raw && (rc = fast_event(r, r->src.buf + r->src.start, n)) != 1) {
            r->src.start += n;
            if (rc == 0)
                rc = progress(r);
            if (rc)
                return rc;
            continue;
        }
        json_t *ev = load_value(r, n);
        if (!ev)
            return -1;
        rc = on_event(r, ev);
        json_decref(ev);
        if (rc == 0)
            rc = progress(r);
        if (rc)
            return rc;
    }
}

static int interesting_key(const char *key)
{
    static const char *const keys[] = {"deviceProperties", "displayTimeUnit", "traceName", "schemaVersion",
                                       "distributedInfo", "otherData", "metadata", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

static int read_object(ct_reader *r)
{
    r->st.object_form = 1;
    int seen_events = 0;
    for (;;) {
        int c = peek(r);
        if (c == -2)
            return -1;
        if (c == '}') {
            r->src.start++;
            break;
        }
        if (c == ',') {
            r->src.start++;
            continue;
        }
        if (c == -1) {
            if (seen_events && r->st.truncated)
                break;
            return fail(r, "input ends inside the top-level object");
        }
        char key[128];
        if (read_key(r, key, sizeof key) < 0 || expect(r, ':', "':' after a key") < 0)
            return -1;
        if (strcmp(key, "traceEvents") == 0) {
            if (expect(r, '[', "'[' to open traceEvents") < 0)
                return -1;
            seen_events = 1;
            int rc = read_events(r);
            if (rc)
                return rc;
            continue;
        }
        if (peek(r) < 0)
            return fail(r, "input ends after key \"%s\"", key);
        size_t n = 0;
        int sampled = r->raw && r->raw->samples && (strcmp(key, "samples") == 0 || strcmp(key, "stackFrames") == 0);
        int keep = sampled || (interesting_key(key) && r->k->top);
        int rc = cut_value(r, &n, !keep);
        if (rc)
            return rc > 0 ? fail(r, "input ends inside the value of \"%s\"", key) : -1;
        if (!keep) {
            r->src.start += n;
            continue;
        }
        json_t *v = load_value(r, n);
        if (!v)
            return -1;
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(v);
        if (!text)
            return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
        rc = sampled ? r->raw->samples(r->raw->ctx, key, text) : r->k->top(r->k->ctx, key, text);
        free(text);
        if (rc)
            return rc;
    }
    if (!seen_events)
        return fail(r, "no \"traceEvents\" array in the object");
    int c = peek(r);
    if (c == -2)
        return -1;
    return c == -1 ? 0 : fail(r, "offset %llu: data after the top-level object", (unsigned long long)(r->src.base + r->src.start));
}

static int read_all(ct_reader *r)
{
    int c = peek(r);
    if (c == -2)
        return -1;
    if (c == -1)
        return fail(r, "empty input, not a Chrome trace");
    int rc;
    if (c == '[') {
        r->src.start++;
        rc = read_events(r);
        if (rc == 0 && !r->st.truncated) {
            int after = peek(r);
            if (after == -2)
                return -1;
            if (after != -1)
                return fail(r, "offset %llu: data after the event array", (unsigned long long)(r->src.base + r->src.start));
        }
    } else if (c == '{') {
        r->src.start++;
        rc = read_object(r);
    } else {
        return fail(r, "not a Chrome trace: expected '[' or '{' at the start");
    }
    return rc ? rc : finish(r);
}

static void reader_free(ct_reader *r)
{
    for (size_t t = 0; t < r->nth; t++) {
        for (size_t i = 0; i < r->th[t].nbe; i++) {
            ct_be *b = &r->th[t].be[i];
            void *owned[] = {b->name, b->cat, b->bind_id};
            ari_free_all(owned, sizeof owned / sizeof owned[0]);
            json_decref(b->args);
        }
        void *owned[] = {r->th[t].be, r->th[t].pid, r->th[t].tid};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    for (size_t i = 0; i < r->nends; i++)
        free(r->ends[i].id);
    void *owned[] = {r->th, r->recs, r->ends};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    ari_json_stream_free(&r->src);
    ari_strmap_free(r->threads);
}

static int run(ct_reader *r, ari_chrome_stats *st)
{
    r->threads = ari_strmap_new();
    int rc = r->threads ? read_all(r) : ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    if (st)
        *st = r->st;
    reader_free(r);
    return rc ? -1 : 0;
}

int ari_chrome_read_buffer(const char *data, size_t len, const char *name, const ari_chrome_sink *k,
                           ari_chrome_stats *st, ari_error *err)
{
    return ari_chrome_read_buffer_raw(data, len, name, k, NULL, st, err);
}

int ari_chrome_read_buffer_raw(const char *data, size_t len, const char *name, const ari_chrome_sink *k,
                               const ari_chrome_raw_sink *raw, ari_chrome_stats *st, ari_error *err)
{
    ct_reader r;
    memset(&r, 0, sizeof r);
    r.name = name ? name : "trace";
    r.k = k;
    r.raw = raw;
    r.err = err;
    ari_json_stream_init(&r.src, NULL, data, len, r.name, CT_MAX_VALUE);
    return run(&r, st);
}

int ari_chrome_read(const char *path, const char *name, const ari_chrome_sink *k, ari_chrome_stats *st,
                    ari_error *err)
{
    return ari_chrome_read_raw(path, name, k, NULL, st, err);
}

int ari_chrome_read_raw(const char *path, const char *name, const ari_chrome_sink *k, const ari_chrome_raw_sink *raw,
                        ari_chrome_stats *st, ari_error *err)
{
    ct_reader r;
    memset(&r, 0, sizeof r);
    r.name = name ? name : path;
    r.k = k;
    r.raw = raw;
    r.err = err;
    ari_input *in = ari_input_open(path, r.name, err);
    if (!in)
        return -1;
    ari_json_stream_init(&r.src, in, NULL, 0, r.name, CT_MAX_VALUE);
    int rc = run(&r, st);
    ari_input_close(in);
    return rc;
}

int ari_chrome_probe(const char *head, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)head[0] == 0xef && (unsigned char)head[1] == 0xbb)
        i = 3;
    while (i < n && ari_json_is_ws(head[i]))
        i++;
    if (i >= n || (head[i] != '[' && head[i] != '{'))
        return 0;
    if (memmem(head, n, "\"traceEvents\"", 13))
        return 1;
    return head[i] == '[' && memmem(head, n, "\"ph\"", 4) != NULL;
}
