/* chrome_slices.c: a generic Chrome trace as a timeline of slices (see
 * chrome_slices.h). The reader's slices, flows and metadata are buffered
 * (names interned), then written per process and thread once the whole
 * file is read: metadata may come after the events, and the origin is the
 * first event of the file. */
#include "ingest/chrome_slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/json_tokens.h"
#include "util/strmap.h"
#include "util/vec.h"

/* ---- the rule: GPU / data-movement content ------------------------------------------ */

/* The sinks stop the read (non-zero) at the first match, noted in *found:
 * the reader turns any sink stop into -1. */
#define FOUND(ctx) (*(int *)(ctx) = 1)

static int prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int key_is(const ari_json_member *m, const char *key)
{
    return m->key_len == strlen(key) && memcmp(m->key, key, m->key_len) == 0;
}

/* args.device as an integer, or args.cbid. */
static int device_args(const char *text, size_t len)
{
    ari_json_member m;
    size_t pos = 0;
    while (text && ari_json_member_next(text, len, 0, &pos, &m)) {
        if (key_is(&m, "cbid"))
            return 1;
        if (key_is(&m, "device") && m.value_len > 0 &&
            (m.value[0] == '-' || (m.value[0] >= '0' && m.value[0] <= '9')) &&
            !memchr(m.value, '.', m.value_len) && !memchr(m.value, 'e', m.value_len) &&
            !memchr(m.value, 'E', m.value_len))
            return 1;
    }
    return 0;
}

static int rule_slice(void *ctx, const ari_chrome_slice *s)
{
    const char *cat = s->cat ? s->cat : "", *name = s->name ? s->name : "";
    if (prefix(cat, "gpu_") || strcmp(cat, "kernel") == 0 || strstr(cat, "memcpy") || strstr(cat, "memset") ||
        strstr(cat, "cuda_runtime") || strstr(cat, "cuda_driver"))
        return FOUND(ctx);
    if (prefix(name, "Memcpy") || prefix(name, "Memset") || prefix(name, "[CUDA memcpy") ||
        prefix(name, "[CUDA memset") || (!*cat && (prefix(name, "cuda") || prefix(name, "hip"))))
        return FOUND(ctx);
    return device_args(s->args_text, s->args_len) ? FOUND(ctx) : 0;
}

static int rule_metadata(void *ctx, const ari_chrome_metadata *m)
{
    int gpu;
    if (m->name && strcmp(m->name, "process_labels") == 0 && m->arg_labels &&
        sscanf(m->arg_labels, "GPU %d", &gpu) == 1)
        return FOUND(ctx);
    return 0;
}

static int rule_top(void *ctx, const char *key, const char *value)
{
    (void)value;
    return strcmp(key, "deviceProperties") == 0 ? FOUND(ctx) : 0;
}

static int rule_answer(int rc, int found, ari_error *err)
{
    if (found) {
        if (err)
            ari_error_clear(err); /* the stop was ours */
        return 1;
    }
    if (rc == 0)
        return 0;
    if (err && !err->code[0])
        ari_error_set(err, ARI_E_INVALID_INPUT, "not a readable Chrome trace");
    return -1;
}

int ari_chrome_has_device_content(const char *path, const char *name, ari_error *err)
{
    int found = 0;
    ari_chrome_sink k = {.ctx = &found, .slice = rule_slice, .metadata = rule_metadata, .top = rule_top};
    int rc = ari_chrome_read(path, name, &k, NULL, err);
    return rule_answer(rc, found, err);
}

int ari_chrome_buffer_has_device_content(const char *data, size_t len, const char *name, ari_error *err)
{
    int found = 0;
    ari_chrome_sink k = {.ctx = &found, .slice = rule_slice, .metadata = rule_metadata, .top = rule_top};
    int rc = ari_chrome_read_buffer(data, len, name, &k, NULL, err);
    return rule_answer(rc, found, err);
}

/* ---- depth ----------------------------------------------------------------------------- */

typedef struct depth_key {
    double start, end;
    size_t index;
} depth_key;

static int by_start(const void *a, const void *b)
{
    const depth_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer first: the parent */
    return x->index < y->index ? -1 : x->index > y->index;
}

int ari_chrome_slice_depths(const double *start, const double *end, size_t n, int *depth)
{
    if (n == 0)
        return -1;
    depth_key *k = malloc(n * sizeof *k);
    size_t *open = malloc(n * sizeof *open); /* indices into k of the slices still open */
    if (!k || !open) {
        free(k);
        free(open);
        return -2;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (depth_key){start[i], end[i] < start[i] ? start[i] : end[i], i};
    qsort(k, n, sizeof *k, by_start);
    size_t nopen = 0;
    int max = -1;
    for (size_t i = 0; i < n; i++) {
        int d = 0;
        size_t kept = 0;
        for (size_t j = 0; j < nopen; j++) {
            const depth_key *o = &k[open[j]];
            if (o->end <= k[i].start)
                continue; /* ended: no longer encloses anything */
            open[kept++] = open[j];
            if (depth[o->index] + 1 > d)
                d = depth[o->index] + 1;
        }
        nopen = kept;
        depth[k[i].index] = d;
        open[nopen++] = i;
        if (d > max)
            max = d;
    }
    free(k);
    free(open);
    return max;
}

/* ---- buffering -------------------------------------------------------------------------- */

typedef struct cs_slice {
    const char *name, *cat; /* interned */
    double ts, end;         /* µs, as in the file */
    size_t thread;
    int point, depth;
} cs_slice;

typedef struct cs_thread {
    const char *pid, *tid; /* interned */
    size_t process;
    double start, end;     /* span of its slices and instants, µs */
    char alias[96];
} cs_thread;

typedef struct cs_process {
    const char *pid;
    char alias[48];
    double start, end;
} cs_process;

typedef struct cs_flow {
    const char *id;
    int64_t from, to;
} cs_flow;

typedef struct cs {
    ari_error *err;
    const ari_sink *out;
    ari_strmap *strings; /* interned text: key -> its own stable copy */
    ari_strmap *threads; /* "pid\x1ftid" -> index + 1 */
    ari_strmap *names;   /* "p\x1fpid" / "t\x1fpid\x1ftid" -> interned name */
    cs_slice *slices;
    size_t nslices, cap_slices;
    cs_thread *th;
    size_t nth, cap_th;
    cs_flow *flows;
    size_t nflows, cap_flows;
    double scale;
    char unit[4];
} cs;

static int oom(cs *c)
{
    return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
}

static const char *intern(cs *c, const char *s)
{
    size_t len = strlen(s);
    const char *k = ari_strmap_get(c->strings, s, len);
    if (k)
        return k;
    k = ari_strmap_put(c->strings, s, len, NULL);
    return k && ari_strmap_put(c->strings, k, len, (void *)k) ? k : NULL;
}

/* The thread of (pid, tid), added on first use; (size_t)-1 when out of memory. */
static size_t thread_of(cs *c, const char *pid, const char *tid)
{
    char key[300];
    int len = snprintf(key, sizeof key, "%.140s\x1f%.140s", pid, tid);
    size_t found = (size_t)(uintptr_t)ari_strmap_get(c->threads, key, (size_t)len);
    if (found)
        return found - 1;
    const char *p = intern(c, pid), *t = intern(c, tid);
    if (!p || !t || ari_vec_reserve((void **)&c->th, &c->cap_th, c->nth + 1, sizeof *c->th) < 0 ||
        !ari_strmap_put(c->threads, key, (size_t)len, (void *)(uintptr_t)(c->nth + 1)))
        return (size_t)-1;
    memset(&c->th[c->nth], 0, sizeof c->th[c->nth]);
    c->th[c->nth].pid = p;
    c->th[c->nth].tid = t;
    return c->nth++;
}

static int on_slice(void *ctx, const ari_chrome_slice *s)
{
    cs *c = ctx;
    if (s->id != (int64_t)c->nslices) /* ids are 0..n-1 in emission order */
        return ari_error_set(c->err, ARI_E_INVALID_INPUT, "slice ids out of order");
    size_t t = thread_of(c, s->pid ? s->pid : "", s->tid ? s->tid : "");
    const char *name = intern(c, s->name && s->name[0] ? s->name : "(unnamed)");
    const char *cat = intern(c, s->cat ? s->cat : "");
    if (t == (size_t)-1 || !name || !cat ||
        ari_vec_reserve((void **)&c->slices, &c->cap_slices, c->nslices + 1, sizeof *c->slices) < 0)
        return oom(c);
    double dur = s->point || !(s->dur > 0) ? 0 : s->dur;
    c->slices[c->nslices++] = (cs_slice){name, cat, s->ts, s->ts + dur, t, s->point, 0};
    return 0;
}

static int on_flow(void *ctx, const char *flow_id, int64_t from, int64_t to)
{
    cs *c = ctx;
    const char *id = intern(c, flow_id ? flow_id : "");
    if (!id || ari_vec_reserve((void **)&c->flows, &c->cap_flows, c->nflows + 1, sizeof *c->flows) < 0)
        return oom(c);
    c->flows[c->nflows++] = (cs_flow){id, from, to};
    return 0;
}

static int on_metadata(void *ctx, const ari_chrome_metadata *m)
{
    cs *c = ctx;
    char key[300];
    int len;
    if (!m->arg_name || !m->arg_name[0] || !m->name)
        return 0;
    if (strcmp(m->name, "process_name") == 0)
        len = snprintf(key, sizeof key, "p\x1f%.140s", m->pid ? m->pid : "");
    else if (strcmp(m->name, "thread_name") == 0)
        len = snprintf(key, sizeof key, "t\x1f%.140s\x1f%.140s", m->pid ? m->pid : "", m->tid ? m->tid : "");
    else
        return 0;
    const char *v = intern(c, m->arg_name);
    return v && ari_strmap_put(c->names, key, (size_t)len, (void *)v) ? 0 : oom(c);
}

static int on_top(void *ctx, const char *key, const char *value)
{
    cs *c = ctx;
    if (strcmp(key, "displayTimeUnit") != 0)
        return 0;
    if (strcmp(value, "\"ns\"") == 0) {
        c->scale = 1000;
        snprintf(c->unit, sizeof c->unit, "ns");
    } else if (strcmp(value, "\"ms\"") == 0) {
        c->scale = 0.001;
        snprintf(c->unit, sizeof c->unit, "ms");
    }
    return 0;
}

static int on_progress(void *ctx, double fraction)
{
    cs *c = ctx;
    if (c->out->on_progress)
        c->out->on_progress(c->out->ctx, fraction, 1);
    return 0;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* Numeric order when both are integers, else byte order. */
static int id_cmp(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    if (*a && *b && !*ea && !*eb && x != y)
        return x < y ? -1 : 1;
    return strcmp(a, b);
}

/* qsort_r comparators (glibc's argument order): imports may run in
 * several threads at once, so no static context. */
static int thread_order(const void *a, const void *b, void *ctx)
{
    const cs_thread *th = ctx;
    const cs_thread *x = &th[*(const size_t *)a], *y = &th[*(const size_t *)b];
    int r = id_cmp(x->pid, y->pid);
    return r ? r : id_cmp(x->tid, y->tid);
}

static int slice_order(const void *a, const void *b, void *ctx)
{
    const cs_slice *sl = ctx;
    const cs_slice *x = &sl[*(const size_t *)a], *y = &sl[*(const size_t *)b];
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static const char *name_of(cs *c, char kind, const char *pid, const char *tid, char *buf, size_t size)
{
    char key[300];
    int len = kind == 'p' ? snprintf(key, sizeof key, "p\x1f%.140s", pid)
                          : snprintf(key, sizeof key, "t\x1f%.140s\x1f%.140s", pid, tid);
    const char *n = ari_strmap_get(c->names, key, (size_t)len);
    if (n)
        return n;
    const char *id = kind == 'p' ? pid : tid;
    snprintf(buf, size, "%s %s", kind == 'p' ? "pid" : "tid", id[0] ? id : "?");
    return buf;
}

static int sink_rc(cs *c, int rc)
{
    if (rc && c->err && !c->err->code[0])
        ari_error_set(c->err, ARI_E_INVALID_INPUT, "the trace could not be written");
    return rc;
}

static int write_types(cs *c)
{
    const ari_type_def types[] = {
        {ARI_NATURE_CONTAINER, "Process", "Process", "0", NULL, NULL, NULL},
        {ARI_NATURE_CONTAINER, "Thread", "Thread", "Process", NULL, NULL, NULL},
        {ARI_NATURE_STATE, "Slice", "Slice", "Thread", NULL, NULL, NULL},
        {ARI_NATURE_EVENT, "Instant", "Instant", "Thread", NULL, NULL, NULL},
        {ARI_NATURE_LINK, "Flow", "Flow", "0", "Thread", "Thread", NULL},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int rc = c->out->on_type(c->out->ctx, &types[i]);
        if (rc)
            return sink_rc(c, rc);
    }
    return 0;
}

/* Depths per thread (slices of one thread are contiguous in order[]). */
static int compute_depths(cs *c, const size_t *order, size_t n, int *max_depth)
{
    double *s = malloc((n ? n : 1) * sizeof *s), *e = malloc((n ? n : 1) * sizeof *e);
    int *d = malloc((n ? n : 1) * sizeof *d);
    int rc = s && e && d ? 0 : oom(c);
    *max_depth = -1;
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i, m = 0;
        for (; j < n && c->slices[order[j]].thread == c->slices[order[i]].thread; j++)
            if (!c->slices[order[j]].point) {
                s[m] = c->slices[order[j]].ts;
                e[m++] = c->slices[order[j]].end;
            }
        int md = ari_chrome_slice_depths(s, e, m, d);
        if (md == -2) {
            rc = oom(c);
            break;
        }
        if (md > *max_depth)
            *max_depth = md;
        m = 0;
        for (size_t k = i; k < j; k++)
            if (!c->slices[order[k]].point)
                c->slices[order[k]].depth = d[m++];
        i = j;
    }
    free(s);
    free(e);
    free(d);
    return rc;
}

static int write_all(cs *c, ari_chrome_slices_info *info)
{
    const ari_sink *o = c->out;
    size_t n = c->nslices;
    double origin = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || c->slices[i].ts < origin)
            origin = c->slices[i].ts;
        if (i == 0 || c->slices[i].end > last)
            last = c->slices[i].end;
    }
    size_t *order = malloc((n ? n : 1) * sizeof *order), *torder = malloc((c->nth ? c->nth : 1) * sizeof *torder);
    cs_process *procs = calloc(c->nth ? c->nth : 1, sizeof *procs);
    size_t nprocs = 0;
    int rc = order && torder && procs ? 0 : oom(c);
    for (size_t i = 0; i < n && rc == 0; i++)
        order[i] = i;
    if (rc == 0) {
        qsort_r(order, n, sizeof *order, slice_order, c->slices); /* by thread, then time */
        rc = compute_depths(c, order, n, &info->max_depth);
    }
    if (rc == 0) {
        qsort_r(order, n, sizeof *order, slice_order, c->slices); /* parents before children at one time */
        for (size_t i = 0; i < c->nth; i++)
            torder[i] = i;
        qsort_r(torder, c->nth, sizeof *torder, thread_order, c->th);
        rc = write_types(c);
    }
    double sc = c->scale;
    /* processes: one per pid, in thread order; span of their slices */
    for (size_t i = 0; i < c->nth && rc == 0; i++) {
        cs_thread *t = &c->th[torder[i]];
        if (nprocs == 0 || strcmp(procs[nprocs - 1].pid, t->pid) != 0) {
            procs[nprocs].pid = t->pid;
            snprintf(procs[nprocs].alias, sizeof procs[nprocs].alias, "p:%.40s", t->pid);
            procs[nprocs].start = 1e300;
            procs[nprocs].end = -1e300;
            nprocs++;
        }
        t->process = nprocs - 1;
        snprintf(t->alias, sizeof t->alias, "t:%.40s:%.40s", t->pid, t->tid);
    }
    for (size_t i = 0; i < c->nth; i++) {
        c->th[i].start = 1e300;
        c->th[i].end = -1e300;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        cs_thread *t = &c->th[c->slices[i].thread];
        if (c->slices[i].ts < t->start)
            t->start = c->slices[i].ts;
        if (c->slices[i].end > t->end)
            t->end = c->slices[i].end;
        cs_process *p = &procs[t->process];
        if (c->slices[i].ts < p->start)
            p->start = c->slices[i].ts;
        if (c->slices[i].end > p->end)
            p->end = c->slices[i].end;
    }
    char buf[64];
    size_t next_thread = 0;
    for (size_t p = 0; p < nprocs && rc == 0; p++) {
        ari_container pc = {procs[p].alias, name_of(c, 'p', procs[p].pid, "", buf, sizeof buf), "Process", "0",
                            (procs[p].start - origin) * sc, (procs[p].end - origin) * sc};
        if (procs[p].start > procs[p].end)
            pc.start = pc.end = 0; /* only flow ends without slices: cannot happen, kept safe */
        rc = o->on_container(o->ctx, &pc);
        for (; next_thread < c->nth && rc == 0 && c->th[torder[next_thread]].process == p; next_thread++) {
            const cs_thread *t = &c->th[torder[next_thread]];
            double t0 = t->start, t1 = t->end;
            if (t0 > t1)
                t0 = t1 = origin;
            ari_container tc = {t->alias, name_of(c, 't', t->pid, t->tid, buf, sizeof buf), "Thread", procs[p].alias,
                                (t0 - origin) * sc, (t1 - origin) * sc};
            rc = o->on_container(o->ctx, &tc);
        }
    }
    for (size_t k = 0; k < n && rc == 0; k++) {
        const cs_slice *s = &c->slices[order[k]];
        const cs_thread *t = &c->th[s->thread];
        ari_field cat = {"cat", s->cat};
        if (s->point) {
            ari_event e = {t->alias, "Instant", s->name, (s->ts - origin) * sc, &cat, s->cat[0] ? 1 : 0};
            rc = o->on_event(o->ctx, &e);
            info->instants++;
        } else {
            ari_state st = {t->alias, "Slice", s->name, (s->ts - origin) * sc, (s->end - origin) * sc, s->depth,
                            &cat, s->cat[0] ? 1 : 0};
            rc = o->on_state(o->ctx, &st);
            info->slices++;
        }
    }
    for (size_t k = 0; k < c->nflows && rc == 0; k++) {
        const cs_flow *f = &c->flows[k];
        if (f->from < 0 || f->to < 0 || (size_t)f->from >= n || (size_t)f->to >= n)
            continue;
        const cs_slice *a = &c->slices[f->from], *b = &c->slices[f->to];
        double start = a->end <= b->ts ? a->end : a->ts;
        ari_link l = {"0", "Flow", f->id, c->th[a->thread].alias, c->th[b->thread].alias, f->id,
                      (start - origin) * sc, (b->ts - origin) * sc, NULL, 0};
        rc = o->on_link(o->ctx, &l);
        info->flows++;
    }
    if (rc == 0 && n && o->on_container_end)
        rc = o->on_container_end(o->ctx, "0", (last - origin) * sc);
    info->origin = origin * sc;
    info->processes = (int64_t)nprocs;
    info->threads = (int64_t)c->nth;
    free(order);
    free(torder);
    free(procs);
    return sink_rc(c, rc);
}

typedef int (*read_fn)(void *arg, const ari_chrome_sink *k, ari_chrome_stats *st, ari_error *err);

static int run(read_fn fn, void *arg, const ari_sink *out, ari_chrome_slices_info *info, ari_error *err)
{
    ari_chrome_slices_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    info->max_depth = -1;
    cs c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.out = out;
    c.scale = 1;
    snprintf(c.unit, sizeof c.unit, "us");
    c.strings = ari_strmap_new();
    c.threads = ari_strmap_new();
    c.names = ari_strmap_new();
    int rc;
    if (!c.strings || !c.threads || !c.names) {
        rc = oom(&c);
    } else {
        ari_chrome_sink k = {.ctx = &c, .slice = on_slice, .flow = on_flow, .metadata = on_metadata,
                             .top = on_top, .progress = on_progress};
        rc = fn(arg, &k, &info->stats, err);
        snprintf(info->unit, sizeof info->unit, "%s", c.unit);
        if (rc == 0)
            rc = write_all(&c, info);
    }
    free(c.slices);
    free(c.th);
    free(c.flows);
    ari_strmap_free(c.strings);
    ari_strmap_free(c.threads);
    ari_strmap_free(c.names);
    return rc;
}

typedef struct file_arg {
    const char *path, *name;
} file_arg;

static int read_file(void *arg, const ari_chrome_sink *k, ari_chrome_stats *st, ari_error *err)
{
    const file_arg *f = arg;
    return ari_chrome_read(f->path, f->name, k, st, err);
}

typedef struct buffer_arg {
    const char *data, *name;
    size_t len;
} buffer_arg;

static int read_buffer(void *arg, const ari_chrome_sink *k, ari_chrome_stats *st, ari_error *err)
{
    const buffer_arg *b = arg;
    return ari_chrome_read_buffer(b->data, b->len, b->name, k, st, err);
}

int ari_chrome_slices_read(const char *path, const char *name, const ari_sink *out,
                           ari_chrome_slices_info *info, ari_error *err)
{
    file_arg f = {path, name};
    return run(read_file, &f, out, info, err);
}

int ari_chrome_slices_read_buffer(const char *data, size_t len, const char *name, const ari_sink *out,
                                  ari_chrome_slices_info *info, ari_error *err)
{
    buffer_arg b = {data, name, len};
    return run(read_buffer, &b, out, info, err);
}
