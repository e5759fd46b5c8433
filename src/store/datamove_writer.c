/* datamove_writer.c: writing data movement traces (see datamove_writer.h).
 * Gather: events, movements, flows and samples are inserted as they come;
 * tracks, processes, devices and a compact copy of each event's timing are
 * kept in memory. Finish: GPU tracks are settled, then tiles, topology,
 * tracks and the summary are written. Text is stored as valid UTF-8, and
 * the maps are keyed by that stored form of pids, tids and names. The
 * reader hands JSON over as text (args, deviceProperties, trace metadata):
 * it is walked with json_tokens' scanners and stored verbatim, and the
 * summary is written with util/sbuf's JSON appenders, which print numbers
 * as jansson does, so no JSON library is needed here. */
#include "store/datamove_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/datamove.h"
#include "ingest/json_tokens.h"
#include "store/store_text.h"
#include "store/trace_writer_internal.h"
#include "util/alloc.h"
#include "util/free_all.h"
#include "util/sbuf.h"
#include "util/vec.h"

#define MAX_TILE_TRACKS 64 /* further tracks share the last row of tiles */

typedef struct dw_track {
    char *pid, *tid;
    int device;            /* GPU number, -1 for host tracks */
} dw_track;

typedef struct dw_event {  /* timing kept for tiles and the clock */
    double start, dur, bytes;
    int32_t track;
    int16_t pair;          /* movement's (src, dst) in pairs[], -1 if none */
    int8_t category;
} dw_event;

#define MAX_PAIRS 256      /* more (src, dst) pairs: no pair bins, raw queries */

typedef struct dw_pair {
    char src[24], dst[24];
} dw_pair;

typedef struct dw_meta {   /* a top-level key of the trace and its JSON value */
    char *key, *value;
} dw_meta;

typedef struct dw_metric {
    char *name;
    char *component;
} dw_metric;

struct ari_datamove_writer {
    ari_store *store;
    ari_trace_writer *tw;
    int64_t trace_id;
    ari_error error;
    ari_chrome_sink chrome;
    ari_nvsmi_sink nvsmi;

    ari_strmap *track_map;  /* "pid\x1ftid" -> index + 1 */
    dw_track *tracks;
    size_t ntracks, cap_tracks;
    ari_strmap *gpu_pids;   /* pid -> GPU number + 1 (process_labels "GPU n") */
    ari_strmap *names;      /* "p\x1fpid" process names, "t\x1fpid\x1ftid" thread names (malloc'd) */

    dw_event *events;
    size_t nevents, cap_events;
    dw_pair pairs[MAX_PAIRS];
    int npairs, too_many_pairs;
    int64_t movements, flows, samples;
    double bytes_htod, bytes_dtoh, bytes_other, bw_sum;
    int64_t bw_count;

    ari_strmap *metric_map; /* "name\x1fcomponent" -> id + 1 */
    dw_metric *metrics;
    size_t nmetrics, cap_metrics;

    char *devices;          /* deviceProperties: a JSON array, NULL if none */
    dw_meta *meta;          /* traceName, displayTimeUnit, ...: strings and numbers */
    size_t nmeta, cap_meta;
    ari_topology topo;
    int has_topo;
    uint64_t calls;
};

/* ---- helpers -------------------------------------------------------------------- */

static int oom(ari_datamove_writer *dw)
{
    return ari_error_set(&dw->error, ARI_E_NOMEM, "out of memory");
}

static int db_fail(ari_datamove_writer *dw, const char *what)
{
    return ari_store_fail(dw->store, &dw->error, what);
}

static int step_done(ari_datamove_writer *dw, ari_stmt *st, const char *what)
{
    int rc = ari_step(st);
    ari_reset(st);
    return rc == ARI_DONE ? 0 : db_fail(dw, what);
}

static int poll_cancel(ari_datamove_writer *dw)
{
    if (dw->tw && (++dw->calls & 0xfff) == 0 && ari_trace_writer_cancelled(dw->tw)) {
        dw->error = *ari_trace_writer_error(dw->tw);
        return -1;
    }
    return 0;
}

/* pid must be valid UTF-8 (ari_text). */
static int gpu_of_pid(const ari_datamove_writer *dw, const char *pid)
{
    intptr_t v = (intptr_t)ari_strmap_get(dw->gpu_pids, pid, strlen(pid));
    return v ? (int)v - 1 : -1;
}

static int find_track(ari_datamove_writer *dw, const char *pid, const char *tid);

/* The index of the track of (pid, tid), added on first use; -1 on error. */
static int track_of(ari_datamove_writer *dw, const char *pid, const char *tid)
{
    ari_text p, t;
    int rc = ari_text_init(&p, pid);
    if (rc == 0 && (rc = ari_text_init(&t, tid)) == 0) {
        rc = find_track(dw, p.s, t.s);
        ari_text_free(&t);
    } else {
        rc = oom(dw);
    }
    ari_text_free(&p);
    return rc;
}

static int find_track(ari_datamove_writer *dw, const char *pid, const char *tid)
{
    char key[300];
    int n = snprintf(key, sizeof key, "%.140s\x1f%.140s", pid, tid);
    intptr_t v = (intptr_t)ari_strmap_get(dw->track_map, key, (size_t)n);
    if (v)
        return (int)v - 1;
    if (ari_vec_reserve((void **)&dw->tracks, &dw->cap_tracks, dw->ntracks + 1, sizeof *dw->tracks) < 0)
        return oom(dw);
    dw_track *t = &dw->tracks[dw->ntracks];
    t->pid = strdup(pid);
    t->tid = strdup(tid);
    t->device = gpu_of_pid(dw, pid);
    if (!t->pid || !t->tid || !ari_strmap_put(dw->track_map, key, (size_t)n, (void *)(intptr_t)(dw->ntracks + 1))) {
        free(t->pid);
        free(t->tid);
        return oom(dw);
    }
    return (int)dw->ntracks++;
}

static int set_name(ari_datamove_writer *dw, const char *key, const char *value)
{
    size_t n = strlen(key);
    free(ari_strmap_remove(dw->names, key, n));
    char *copy = strdup(value);
    if (!copy || !ari_strmap_put(dw->names, key, n, copy)) {
        free(copy);
        return oom(dw);
    }
    return 0;
}

/* ---- categories and movements -------------------------------------------------------- */

static int prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int is_mem_op(const char *name, const char *cat)
{
    return strstr(cat, "memcpy") || strstr(cat, "memset") || prefix(name, "Memcpy") || prefix(name, "Memset") ||
           prefix(name, "[CUDA memcpy") || prefix(name, "[CUDA memset");
}

/* The args the writer reads, taken from the args text in one pass. */
typedef struct dw_args {
    int nonempty;
    int has_device, has_cbid, has_bytes_key, has_bytes, has_corr, has_tb, src_rank, dst_rank;
    long long device, corr, src_dev, dst_dev;
    double bytes, tb;
} dw_args;

static int key_is(const ari_json_member *m, const char *key)
{
    return m->key_len == strlen(key) && memcmp(m->key, key, m->key_len) == 0;
}

/* 1 for a JSON number, with *is_int when it has no fraction or exponent. */
static int member_number(const ari_json_member *m, double *out, int *is_int)
{
    const char *v = m->value;
    if (!(*v == '-' || (*v >= '0' && *v <= '9')))
        return 0;
    *out = strtod(v, NULL);
    *is_int = !memchr(v, '.', m->value_len) && !memchr(v, 'e', m->value_len) && !memchr(v, 'E', m->value_len);
    return 1;
}

/* Rank of key in keys (1 = best), 0 if absent. */
static int key_rank(const ari_json_member *m, const char *const *keys)
{
    for (int i = 0; keys[i]; i++)
        if (key_is(m, keys[i]))
            return i + 1;
    return 0;
}

static void read_args(const ari_chrome_slice *s, dw_args *a)
{
    static const char *const src_keys[] = {"src device", "srcDevice", "src_device", NULL};
    static const char *const dst_keys[] = {"dst device", "dstDevice", "dst_device", NULL};
    memset(a, 0, sizeof *a);
    ari_json_member m;
    size_t pos = 0;
    while (s->args_text && ari_json_member_next(s->args_text, s->args_len, ARI_JSON_CAUTIOUS, &pos, &m)) {
        double v = 0;
        int is_int = 0, num = member_number(&m, &v, &is_int), r;
        a->nonempty = 1;
        if (key_is(&m, "device")) {
            a->has_device = num && is_int;
            a->device = (long long)v;
        } else if (key_is(&m, "cbid")) {
            a->has_cbid = 1;
        } else if (key_is(&m, "bytes")) {
            a->has_bytes_key = 1;
            a->has_bytes = num;
            a->bytes = v;
        } else if (key_is(&m, "correlation")) {
            a->has_corr = num && is_int;
            a->corr = (long long)v;
        } else if (key_is(&m, "memory bandwidth (GB/s)")) {
            a->has_tb = num;
            a->tb = v;
        } else if ((r = key_rank(&m, src_keys)) && num && is_int && (!a->src_rank || r < a->src_rank)) {
            a->src_rank = r;
            a->src_dev = (long long)v;
        } else if ((r = key_rank(&m, dst_keys)) && num && is_int && (!a->dst_rank || r < a->dst_rank)) {
            a->dst_rank = r;
            a->dst_dev = (long long)v;
        }
    }
}

/* The event's GPU, from args.device, else its track's GPU process; -1. */
static int device_of(const ari_datamove_writer *dw, const dw_args *a, int track)
{
    return a->has_device ? (int)a->device : dw->tracks[track].device;
}

/* Device and context first; names only where the trace says nothing else. */
static int category_of(const ari_chrome_slice *s, const dw_args *a, int device)
{
    const char *cat = s->cat, *name = s->name;
    int on_gpu = device >= 0 || prefix(cat, "gpu_") || strcmp(cat, "kernel") == 0;
    if (on_gpu)
        return is_mem_op(name, cat) ? ARI_DM_MOVE : ARI_DM_GPU;
    if (strstr(cat, "cuda_runtime") || strstr(cat, "cuda_driver") || a->has_cbid)
        return ARI_DM_RUNTIME;
    if (strstr(cat, "memcpy") && a->has_bytes_key)
        return ARI_DM_MOVE; /* host-side copies with a byte count */
    if (*cat == '\0' && (prefix(name, "cuda") || prefix(name, "hip")))
        return ARI_DM_RUNTIME; /* host API call, named so and nothing else said */
    return ARI_DM_CPU;
}

/* Source and destination of a copy from its name: "Memcpy HtoD ...". */
static void endpoints(const ari_chrome_slice *s, const dw_args *a, int device, char *src, char *dst, char *kind,
                      size_t size)
{
    int d = device >= 0 ? device : 0;
    const char *n = s->name;
    snprintf(kind, size, "copy");
    snprintf(src, size, "gpu%d", d);
    snprintf(dst, size, "gpu%d", d);
    if (strstr(n, "HtoD") || strstr(n, "Host -> Device") || strstr(n, "HtoA")) {
        snprintf(kind, size, "HtoD");
        snprintf(src, size, "host");
    } else if (strstr(n, "DtoH") || strstr(n, "AtoH")) {
        snprintf(kind, size, "DtoH");
        snprintf(dst, size, "host");
    } else if (strstr(n, "HtoH")) {
        snprintf(kind, size, "HtoH");
        snprintf(src, size, "host");
        snprintf(dst, size, "host");
    } else if (strstr(n, "PtoP") || strstr(n, "Peer")) {
        snprintf(kind, size, "PtoP");
        snprintf(src, size, "gpu%d", a->src_rank ? (int)a->src_dev : d);
        snprintf(dst, size, "gpu%d", a->dst_rank ? (int)a->dst_dev : d);
    } else if (strstr(n, "DtoD")) {
        snprintf(kind, size, "DtoD");
    } else if (strstr(n, "emset") || strstr(s->cat, "memset")) {
        snprintf(kind, size, "memset");
    } else if (device < 0) {
        snprintf(src, size, "host");
        snprintf(dst, size, "host");
    }
}

/* Index of the (src, dst) pair, added if new; -1 past MAX_PAIRS. */
static int pair_of(ari_datamove_writer *dw, const char *src, const char *dst)
{
    for (int i = 0; i < dw->npairs; i++)
        if (strcmp(dw->pairs[i].src, src) == 0 && strcmp(dw->pairs[i].dst, dst) == 0)
            return i;
    if (dw->npairs == MAX_PAIRS) {
        dw->too_many_pairs = 1;
        return -1;
    }
    snprintf(dw->pairs[dw->npairs].src, sizeof dw->pairs[0].src, "%s", src);
    snprintf(dw->pairs[dw->npairs].dst, sizeof dw->pairs[0].dst, "%s", dst);
    return dw->npairs++;
}

static int add_movement(ari_datamove_writer *dw, const ari_chrome_slice *s, const dw_args *a, int device,
                        double *bytes_out, int *pair_out)
{
    *bytes_out = 0;
    *pair_out = -1;
    if (!a->has_bytes || a->bytes < 0)
        return 0; /* a copy the trace gives no size for: an event only */
    double bytes = floor(a->bytes); /* whole bytes, as stored: bins and summary agree with the rows */
    char src[24], dst[24], kind[24];
    endpoints(s, a, device, src, dst, kind, sizeof src);
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_movements(trace_id, event_id, src, dst, kind, bytes, start, dur, bandwidth,"
        " trace_bandwidth) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", &dw->error);
    if (!st)
        return -1;
    ari_bind_int64(st, 1, dw->trace_id);
    ari_bind_int64(st, 2, s->id);
    ari_store_bind_text(st, 3, src, -1);
    ari_store_bind_text(st, 4, dst, -1);
    ari_store_bind_text(st, 5, kind, -1);
    ari_bind_int64(st, 6, (int64_t)bytes);
    ari_bind_double(st, 7, s->ts);
    ari_bind_double(st, 8, s->dur);
    if (s->dur > 0) {
        ari_bind_double(st, 9, bytes / s->dur / 1000.0);
        dw->bw_sum += bytes / s->dur / 1000.0;
        dw->bw_count++;
    } else {
        ari_bind_null(st, 9);
    }
    if (a->has_tb)
        ari_bind_double(st, 10, a->tb);
    else
        ari_bind_null(st, 10);
    if (step_done(dw, st, "insert movement") < 0)
        return -1;
    dw->movements++;
    if (strcmp(kind, "HtoD") == 0)
        dw->bytes_htod += bytes;
    else if (strcmp(kind, "DtoH") == 0)
        dw->bytes_dtoh += bytes;
    else
        dw->bytes_other += bytes;
    *bytes_out = bytes;
    *pair_out = pair_of(dw, src, dst);
    return 0;
}

/* ---- Chrome sink callbacks ------------------------------------------------------------ */

static int insert_event(ari_datamove_writer *dw, const ari_chrome_slice *s, const dw_args *a, int track,
                        int category)
{
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_events(trace_id, event_id, track_id, category, name, cat, start, dur, point,"
        " correlation, args_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", &dw->error);
    if (!st)
        return -1;
    ari_bind_int64(st, 1, dw->trace_id);
    ari_bind_int64(st, 2, s->id);
    ari_bind_int(st, 3, track);
    ari_bind_int(st, 4, category);
    ari_store_bind_text_static(st, 5, s->name, -1);
    ari_store_bind_text_static(st, 6, s->cat, -1);
    ari_bind_double(st, 7, s->ts);
    ari_bind_double(st, 8, s->dur);
    ari_bind_int(st, 9, s->point);
    if (a->has_corr)
        ari_bind_int64(st, 10, a->corr);
    else
        ari_bind_null(st, 10);
    if (a->nonempty) /* the trace's text, valid JSON */
        ari_store_bind_text_static(st, 11, s->args_text, (int)s->args_len);
    else
        ari_bind_null(st, 11);
    return step_done(dw, st, "insert event");
}

static int on_slice(void *ctx, const ari_chrome_slice *s)
{
    ari_datamove_writer *dw = ctx;
    if (poll_cancel(dw) < 0)
        return -1;
    int track = track_of(dw, s->pid, s->tid);
    if (track < 0)
        return -1;
    dw_args a;
    read_args(s, &a);
    int device = device_of(dw, &a, track);
    int category = category_of(s, &a, device);
    double bytes = 0;
    int pair = -1;
    if (insert_event(dw, s, &a, track, category) < 0)
        return -1;
    if (category == ARI_DM_MOVE && add_movement(dw, s, &a, device, &bytes, &pair) < 0)
        return -1;
    if (ari_vec_reserve((void **)&dw->events, &dw->cap_events, dw->nevents + 1, sizeof *dw->events) < 0)
        return oom(dw);
    dw->events[dw->nevents++] = (dw_event){s->ts, s->dur, bytes, track, (int16_t)pair, (int8_t)category};
    return 0;
}

static int find_metric(ari_datamove_writer *dw, const char *name, const char *component, const char *source);

/* The id of a metric, added on first use; -1 on error. */
static int metric_id(ari_datamove_writer *dw, const char *name, const char *component, const char *source)
{
    ari_text n;
    if (ari_text_init(&n, name) < 0)
        return oom(dw);
    int id = find_metric(dw, n.s, component, source);
    ari_text_free(&n);
    return id;
}

static int find_metric(ari_datamove_writer *dw, const char *name, const char *component, const char *source)
{
    char key[300];
    int n = snprintf(key, sizeof key, "%.200s\x1f%.60s", name, component);
    intptr_t v = (intptr_t)ari_strmap_get(dw->metric_map, key, (size_t)n);
    if (v)
        return (int)v - 1;
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_metrics(trace_id, metric_id, name, component, source) VALUES (?1, ?2, ?3, ?4, ?5)",
        &dw->error);
    if (!st)
        return -1;
    ari_bind_int64(st, 1, dw->trace_id);
    ari_bind_int64(st, 2, (int64_t)dw->nmetrics);
    ari_store_bind_text(st, 3, name, -1);
    ari_store_bind_text(st, 4, component, -1);
    ari_store_bind_text_static(st, 5, source, -1);
    if (step_done(dw, st, "insert metric") < 0)
        return -1;
    if (!ari_strmap_put(dw->metric_map, key, (size_t)n, (void *)(intptr_t)(dw->nmetrics + 1)))
        return oom(dw);
    return (int)dw->nmetrics++;
}

static int add_sample(ari_datamove_writer *dw, int metric, double ts, double value)
{
    if (poll_cancel(dw) < 0)
        return -1;
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_samples(trace_id, metric_id, ts, value) VALUES (?1, ?2, ?3, ?4)", &dw->error);
    if (!st)
        return -1;
    ari_bind_int64(st, 1, dw->trace_id);
    ari_bind_int(st, 2, metric);
    ari_bind_double(st, 3, ts);
    ari_bind_double(st, 4, value);
    dw->samples++;
    return step_done(dw, st, "insert sample");
}

static int on_counter(void *ctx, const char *pid, const char *name, const char *series, double ts, double value)
{
    ari_datamove_writer *dw = ctx;
    char full[256], comp[24] = "";
    ari_text p;
    snprintf(full, sizeof full, strcmp(series, "value") == 0 ? "%s" : "%s.%s", name, series);
    if (ari_text_init(&p, pid) < 0)
        return oom(dw);
    int gpu = gpu_of_pid(dw, p.s);
    ari_text_free(&p);
    if (gpu >= 0)
        snprintf(comp, sizeof comp, "gpu%d", gpu);
    int m = metric_id(dw, full, comp, "counter");
    return m < 0 ? -1 : add_sample(dw, m, ts, value);
}

static int on_sample(void *ctx, const char *metric, int gpu, double ts, double value)
{
    ari_datamove_writer *dw = ctx;
    char comp[24];
    snprintf(comp, sizeof comp, "gpu%d", gpu);
    int m = metric_id(dw, metric, comp, "nvidia-smi");
    return m < 0 ? -1 : add_sample(dw, m, ts, value);
}

static int on_flow(void *ctx, const char *flow_id, int64_t from, int64_t to)
{
    ari_datamove_writer *dw = ctx;
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_flows(trace_id, flow_id, from_event, to_event) VALUES (?1, ?2, ?3, ?4)", &dw->error);
    if (!st)
        return -1;
    ari_bind_int64(st, 1, dw->trace_id);
    ari_store_bind_text(st, 2, flow_id, -1);
    ari_bind_int64(st, 3, from);
    ari_bind_int64(st, 4, to);
    dw->flows++;
    return step_done(dw, st, "insert flow");
}

static int metadata(ari_datamove_writer *dw, const char *pid, const char *tid, const ari_chrome_metadata *m);

static int on_metadata(void *ctx, const ari_chrome_metadata *m)
{
    ari_datamove_writer *dw = ctx;
    ari_text p, t;
    int rc = ari_text_init(&p, m->pid);
    if (rc == 0 && (rc = ari_text_init(&t, m->tid)) == 0) {
        rc = metadata(dw, p.s, t.s, m);
        ari_text_free(&t);
    } else {
        rc = oom(dw);
    }
    ari_text_free(&p);
    return rc;
}

/* on_metadata, pid and tid valid UTF-8. */
static int metadata(ari_datamove_writer *dw, const char *pid, const char *tid, const ari_chrome_metadata *m)
{
    char key[300];
    const char *value = m->arg_name;
    if (strcmp(m->name, "process_labels") == 0) {
        const char *labels = m->arg_labels;
        int gpu;
        if (labels && sscanf(labels, "GPU %d", &gpu) == 1 && gpu >= 0 &&
            !ari_strmap_put(dw->gpu_pids, pid, strlen(pid), (void *)(intptr_t)(gpu + 1)))
            return oom(dw);
        return 0;
    }
    if (!value)
        return 0;
    if (strcmp(m->name, "process_name") == 0)
        snprintf(key, sizeof key, "p\x1f%.140s", pid);
    else if (strcmp(m->name, "thread_name") == 0)
        snprintf(key, sizeof key, "t\x1f%.140s\x1f%.140s", pid, tid);
    else
        return 0;
    return set_name(dw, key, value);
}

/* Sets key to value (JSON text) in the trace metadata: in place if the key
 * is there already, as a JSON object does. */
static int set_meta(ari_datamove_writer *dw, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return oom(dw);
    for (size_t i = 0; i < dw->nmeta; i++)
        if (strcmp(dw->meta[i].key, key) == 0) {
            free(dw->meta[i].value);
            dw->meta[i].value = v;
            return 0;
        }
    char *k = strdup(key);
    if (!k || ari_vec_reserve((void **)&dw->meta, &dw->cap_meta, dw->nmeta + 1, sizeof *dw->meta) < 0) {
        free(k);
        free(v);
        return oom(dw);
    }
    dw->meta[dw->nmeta++] = (dw_meta){k, v};
    return 0;
}

static int on_top(void *ctx, const char *key, const char *value)
{
    ari_datamove_writer *dw = ctx;
    if (strcmp(key, "deviceProperties") == 0 && value[0] == '[') {
        free(dw->devices);
        dw->devices = strdup(value);
        return dw->devices ? 0 : oom(dw);
    }
    if (value[0] == '"' || value[0] == '-' || (value[0] >= '0' && value[0] <= '9'))
        return set_meta(dw, key, value);
    return 0;
}

static int on_progress(void *ctx, double fraction)
{
    ari_datamove_writer_progress(ctx, fraction);
    return 0;
}

/* ---- life cycle ------------------------------------------------------------------------ */

static ari_datamove_writer *writer_new(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_datamove_writer *dw = ari_zalloc(sizeof *dw, err);
    if (!dw)
        return NULL;
    dw->store = s;
    dw->trace_id = trace_id;
    dw->track_map = ari_strmap_new();
    dw->gpu_pids = ari_strmap_new();
    dw->names = ari_strmap_new();
    dw->metric_map = ari_strmap_new();
    if (!dw->track_map || !dw->gpu_pids || !dw->names || !dw->metric_map) {
        ari_datamove_writer_free(dw);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    dw->chrome = (ari_chrome_sink){dw, on_slice, on_counter, on_flow, on_metadata, on_top, on_progress};
    dw->nvsmi = (ari_nvsmi_sink){dw, on_sample};
    return dw;
}

ari_datamove_writer *ari_datamove_writer_begin(ari_trace_writer *w, ari_error *err)
{
    ari_datamove_writer *dw = writer_new(w->store, w->id, err);
    if (!dw)
        return NULL;
    dw->tw = w;
    /* A bulk load: a 64 MiB page cache keeps the B-trees' hot pages in
     * memory (the default 2 MiB spills index pages over and over). */
    if (ari_store_exec(w->store, "PRAGMA cache_size = -65536", err) < 0) {
        ari_datamove_writer_free(dw);
        return NULL;
    }
    return dw;
}

ari_datamove_writer *ari_datamove_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err)
{
    return writer_new(s, trace_id, err);
}

const ari_chrome_sink *ari_datamove_writer_chrome_sink(ari_datamove_writer *dw)
{
    return &dw->chrome;
}

const ari_nvsmi_sink *ari_datamove_writer_nvsmi_sink(ari_datamove_writer *dw)
{
    return &dw->nvsmi;
}

const ari_error *ari_datamove_writer_error(const ari_datamove_writer *dw)
{
    return &dw->error;
}

void ari_datamove_writer_progress(ari_datamove_writer *dw, double fraction)
{
    if (dw->tw)
        ari_trace_writer_report(dw->tw, fraction);
}

int ari_datamove_writer_topology(ari_datamove_writer *dw, const ari_topology *t, ari_error *err)
{
    ari_topology_free(&dw->topo);
    for (size_t i = 0; i < t->n; i++) {
        const ari_component *c = &t->comps[i];
        int me = ari_topology_add(&dw->topo, c->parent, c->kind, c->name, c->os_index, c->key, c->attrs_json);
        if (me < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        dw->topo.comps[me].logical_index = c->logical_index;
    }
    dw->has_topo = 1;
    return 0;
}

static void free_name(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    free(value);
}

void ari_datamove_writer_free(ari_datamove_writer *dw)
{
    if (!dw)
        return;
    ari_error ignored;
    if (dw->tw) /* back to SQLite's default page cache */
        ari_store_exec(dw->store, "PRAGMA cache_size = -2000", &ignored);
    for (size_t i = 0; i < dw->ntracks; i++) {
        free(dw->tracks[i].pid);
        free(dw->tracks[i].tid);
    }
    void *owned[] = {dw->tracks, dw->metrics, dw->events};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    if (dw->names)
        ari_strmap_foreach(dw->names, free_name, NULL);
    ari_strmap_free(dw->names);
    ari_strmap_free(dw->track_map);
    ari_strmap_free(dw->gpu_pids);
    ari_strmap_free(dw->metric_map);
    free(dw->devices);
    for (size_t i = 0; i < dw->nmeta; i++) {
        free(dw->meta[i].key);
        free(dw->meta[i].value);
    }
    free(dw->meta);
    ari_topology_free(&dw->topo);
    free(dw);
}

/* ---- finish ------------------------------------------------------------------------------ */

/* Tracks of processes labelled "GPU n" after their events came: their
 * CPU-compute events are GPU work. */
static int settle_gpu_tracks(ari_datamove_writer *dw)
{
    for (size_t t = 0; t < dw->ntracks; t++) {
        if (dw->tracks[t].device >= 0 || gpu_of_pid(dw, dw->tracks[t].pid) < 0)
            continue;
        dw->tracks[t].device = gpu_of_pid(dw, dw->tracks[t].pid);
        ari_stmt *st = ari_store_stmt(dw->store,
            "UPDATE dm_events SET category = 1 WHERE trace_id = ?1 AND track_id = ?2 AND category = 2",
            &dw->error);
        if (!st)
            return -1;
        ari_bind_int64(st, 1, dw->trace_id);
        ari_bind_int64(st, 2, (int64_t)t);
        if (step_done(dw, st, "settle GPU tracks") < 0)
            return -1;
        for (size_t i = 0; i < dw->nevents; i++)
            if (dw->events[i].track == (int32_t)t && dw->events[i].category == ARI_DM_CPU)
                dw->events[i].category = ARI_DM_GPU;
    }
    return 0;
}

static const char *lookup_name(const ari_datamove_writer *dw, const char *key)
{
    return ari_strmap_get(dw->names, key, strlen(key));
}

static int write_tracks(ari_datamove_writer *dw)
{
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_tracks(trace_id, track_id, pid, tid, label, device) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &dw->error);
    if (!st)
        return -1;
    for (size_t i = 0; i < dw->ntracks; i++) {
        const dw_track *t = &dw->tracks[i];
        char pk[200], tk[300], label[300];
        snprintf(pk, sizeof pk, "p\x1f%.140s", t->pid);
        snprintf(tk, sizeof tk, "t\x1f%.140s\x1f%.140s", t->pid, t->tid);
        const char *pn = lookup_name(dw, pk), *tn = lookup_name(dw, tk);
        if (t->device >= 0)
            snprintf(label, sizeof label, "GPU %d / %s", t->device, tn ? tn : t->tid);
        else if (!t->pid[0] && !t->tid[0])
            snprintf(label, sizeof label, "(global)");
        else
            snprintf(label, sizeof label, "%s / %s", pn ? pn : t->pid, tn ? tn : t->tid);
        ari_bind_int64(st, 1, dw->trace_id);
        ari_bind_int64(st, 2, (int64_t)i);
        ari_store_bind_text_static(st, 3, t->pid, -1);
        ari_store_bind_text_static(st, 4, t->tid, -1);
        ari_store_bind_text(st, 5, label, -1);
        if (t->device >= 0)
            ari_bind_int(st, 6, t->device);
        else
            ari_bind_null(st, 6);
        if (step_done(dw, st, "insert track") < 0)
            return -1;
    }
    return 0;
}

static void span(const ari_datamove_writer *dw, double *t0, double *t1)
{
    *t0 = INFINITY;
    *t1 = -INFINITY;
    for (size_t i = 0; i < dw->nevents; i++) {
        const dw_event *e = &dw->events[i];
        if (e->start < *t0)
            *t0 = e->start;
        if (e->start + e->dur > *t1)
            *t1 = e->start + e->dur;
    }
    if (dw->nevents == 0)
        *t0 = *t1 = 0;
}

static int write_tiles(ari_datamove_writer *dw, double t0, double t1)
{
    if (dw->nevents == 0)
        return 0;
    int ntr = dw->ntracks < MAX_TILE_TRACKS ? (int)dw->ntracks : MAX_TILE_TRACKS;
    ari_dm_tiles tiles;
    if (ari_dm_tiles_init(&tiles, t0, t1, ntr) < 0)
        return oom(dw);
    for (size_t i = 0; i < dw->nevents; i++) {
        const dw_event *e = &dw->events[i];
        int tr = e->track < ntr ? e->track : ntr - 1;
        ari_dm_tiles_add(&tiles, tr, e->category, e->start, e->dur, e->bytes);
    }
    ari_dm_tiles_build(&tiles);
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_tiles(trace_id, level, bin, track_id, category, count, busy, bytes)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &dw->error);
    int rc = st ? 0 : -1;
    for (int l = 0; l < tiles.levels && rc == 0; l++)
        for (int tr = 0; tr < ntr && rc == 0; tr++)
            for (int c = 0; c < ARI_DM_NCAT && rc == 0; c++)
                for (int b = 0; b < (1 << l) && rc == 0; b++) {
                    size_t cell = ari_dm_tiles_cell(&tiles, l, tr, c, b);
                    if (tiles.count[cell] == 0 && tiles.busy[cell] == 0)
                        continue;
                    ari_bind_int64(st, 1, dw->trace_id);
                    ari_bind_int(st, 2, l);
                    ari_bind_int(st, 3, b);
                    ari_bind_int(st, 4, tr);
                    ari_bind_int(st, 5, c);
                    ari_bind_int64(st, 6, tiles.count[cell]);
                    ari_bind_double(st, 7, tiles.busy[cell]);
                    ari_bind_double(st, 8, tiles.bytes[cell]);
                    rc = step_done(dw, st, "insert tile");
                }
    ari_dm_tiles_free(&tiles);
    return rc;
}

/* Adds a movement to the pair bins: its bytes as whole parts, each the
 * bytes moved by the bin's end minus those moved by its start
 * (ari_dm_bytes_before, all in its start's bin when it has no duration),
 * so its parts sum to exactly its bytes; busy = overlap. Bin edges are
 * ari_dm_bin_edge's, the ones the queries cut windows at; the first and
 * last bins reach out to infinity. */
static void pair_bins_add(double *bytes, double *busy, int np, double t0, double t1, const dw_event *e)
{
    long nbins = ARI_DM_PAIR_BINS, first = ari_dm_bin_of(t0, t1, nbins, e->start);
    if (e->dur <= 0) {
        bytes[first * np + e->pair] += e->bytes;
        return;
    }
    long last = ari_dm_bin_of(t0, t1, nbins, e->start + e->dur);
    for (long b = first; b <= last; b++) {
        double b0 = b == 0 ? -INFINITY : ari_dm_bin_edge(t0, t1, b, nbins);
        double b1 = b == nbins - 1 ? INFINITY : ari_dm_bin_edge(t0, t1, b + 1, nbins);
        bytes[b * np + e->pair] += ari_dm_bytes_in(e->bytes, e->start, e->dur, b0, b1);
        busy[b * np + e->pair] += ari_dm_overlap(e->start, e->start + e->dur, b0, b1);
    }
}

static int write_pair_bins(ari_datamove_writer *dw, double t0, double t1)
{
    int np = dw->npairs;
    if (np == 0 || dw->too_many_pairs || !(t1 > t0))
        return 0;
    double *bytes = calloc((size_t)ARI_DM_PAIR_BINS * (size_t)np, sizeof *bytes);
    double *busy = calloc((size_t)ARI_DM_PAIR_BINS * (size_t)np, sizeof *busy);
    if (!bytes || !busy) {
        free(bytes);
        free(busy);
        return oom(dw);
    }
    for (size_t i = 0; i < dw->nevents; i++)
        if (dw->events[i].pair >= 0)
            pair_bins_add(bytes, busy, np, t0, t1, &dw->events[i]);
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_pair_bins(trace_id, bin, src, dst, bytes, busy) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &dw->error);
    int rc = st ? 0 : -1;
    for (long b = 0; b < ARI_DM_PAIR_BINS && rc == 0; b++)
        for (int p = 0; p < np && rc == 0; p++) {
            size_t cell = (size_t)b * (size_t)np + (size_t)p;
            if (bytes[cell] == 0 && busy[cell] == 0)
                continue;
            ari_bind_int64(st, 1, dw->trace_id);
            ari_bind_int64(st, 2, b);
            ari_store_bind_text_static(st, 3, dw->pairs[p].src, -1);
            ari_store_bind_text_static(st, 4, dw->pairs[p].dst, -1);
            ari_bind_double(st, 5, bytes[cell]);
            ari_bind_double(st, 6, busy[cell]);
            rc = step_done(dw, st, "insert pair bin");
        }
    free(bytes);
    free(busy);
    return rc;
}

/* The number of elements of the JSON array text (NULL: 0). */
static int device_count(const char *devices)
{
    int n = 0;
    size_t pos = 0, len;
    const char *v;
    while (devices && ari_json_element_next(devices, strlen(devices), 0, &pos, &v, &len))
        n++;
    return n;
}

/* The last element of deviceProperties whose "id" is g (a missing or
 * non-integer id counts as 0); NULL if none. */
static const char *device_props(const char *devices, int g, size_t *len)
{
    const char *found = NULL, *v, *id;
    size_t pos = 0, n, idn;
    while (devices && ari_json_element_next(devices, strlen(devices), 0, &pos, &v, &n)) {
        int64_t num = 0;
        if (ari_json_member_get(v, n, "id", &id, &idn) && !ari_json_integer(id, idn, &num))
            num = 0;
        if (num == g) {
            found = v;
            *len = n;
        }
    }
    return found;
}

/* A synthetic GPU's name and attributes (JSON) from its deviceProperties. */
static void gpu_attrs(const char *dev, size_t len, char *name, size_t size, ari_sbuf *a)
{
    const char *v;
    size_t n;
    ari_sbuf_add_str(a, "{\"synthetic\":true");
    if (dev && ari_json_member_get(dev, len, "name", &v, &n) && *v == '"') {
        char *text = malloc(n);
        if (text && ari_json_string_decode(v, n, text, n) == 0)
            snprintf(name, size, "%s", text);
        else
            a->failed = 1;
        free(text);
    }
    if (dev && ari_json_member_get(dev, len, "totalGlobalMem", &v, &n)) {
        ari_sbuf_add_str(a, ",\"local_memory\":");
        ari_sbuf_add(a, v, n);
    }
    if (dev && ari_json_member_get(dev, len, "numSms", &v, &n)) {
        ari_sbuf_add_str(a, ",\"numSms\":");
        ari_sbuf_add(a, v, n);
    }
    ari_sbuf_add_char(a, '}');
}

/* GPUs the trace knows (deviceProperties, tracks) but the topology lacks
 * are added under the machine, marked synthetic. */
static int complete_topology(ari_datamove_writer *dw)
{
    if (dw->topo.n == 0) {
        char attrs[160];
        snprintf(attrs, sizeof attrs, "{\"synthetic\":true,\"note\":\"no topology in the trace\"}");
        if (ari_topology_add(&dw->topo, -1, "Machine", "Machine", 0, "host", attrs) < 0)
            return oom(dw);
    }
    int ngpu = device_count(dw->devices);
    for (size_t t = 0; t < dw->ntracks; t++)
        if (dw->tracks[t].device + 1 > ngpu && dw->tracks[t].device < 64)
            ngpu = dw->tracks[t].device + 1;
    if (ari_topology_find_key(&dw->topo, "host") < 0)
        snprintf(dw->topo.comps[0].key, sizeof dw->topo.comps[0].key, "host");
    for (int g = 0; g < ngpu; g++) {
        char key[24], name[128] = "GPU";
        snprintf(key, sizeof key, "gpu%d", g);
        if (ari_topology_find_key(&dw->topo, key) >= 0)
            continue;
        size_t len = 0;
        const char *dev = device_props(dw->devices, g, &len);
        ari_sbuf a = {0};
        gpu_attrs(dev, len, name, sizeof name, &a);
        int me = ari_sbuf_failed(&a) ? -1 : ari_topology_add(&dw->topo, 0, "GPU", name, g, key, ari_sbuf_text(&a));
        ari_sbuf_free(&a);
        if (me < 0)
            return oom(dw);
    }
    return 0;
}

static int write_topology(ari_datamove_writer *dw)
{
    if (complete_topology(dw) < 0)
        return -1;
    ari_stmt *st = ari_store_stmt(dw->store,
        "INSERT INTO dm_components(trace_id, comp_id, parent_id, kind, name, os_index, logical_index, key,"
        " attrs_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &dw->error);
    if (!st)
        return -1;
    for (size_t i = 0; i < dw->topo.n; i++) {
        const ari_component *c = &dw->topo.comps[i];
        ari_bind_int64(st, 1, dw->trace_id);
        ari_bind_int64(st, 2, (int64_t)i);
        if (c->parent >= 0)
            ari_bind_int(st, 3, c->parent);
        else
            ari_bind_null(st, 3);
        ari_store_bind_text_static(st, 4, c->kind, -1);
        ari_store_bind_text_static(st, 5, c->name, -1);
        if (c->os_index >= 0)
            ari_bind_int64(st, 6, c->os_index);
        else
            ari_bind_null(st, 6);
        if (c->logical_index >= 0)
            ari_bind_int64(st, 7, c->logical_index);
        else
            ari_bind_null(st, 7);
        ari_store_bind_text_static(st, 8, c->key, -1);
        ari_store_bind_text_static(st, 9, c->attrs_json, -1);
        if (step_done(dw, st, "insert component") < 0)
            return -1;
    }
    return 0;
}

/* {"cat":seconds, ...} for one row of per-category values. */
static void category_json(ari_sbuf *b, const double *v)
{
    ari_sbuf_add_char(b, '{');
    for (int c = 0; c < ARI_DM_NCAT; c++) {
        if (c)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, ari_dm_category_name(c));
        ari_sbuf_add_char(b, ':');
        ari_sbuf_json_real(b, v[c]);
    }
    ari_sbuf_add_char(b, '}');
}

/* The clock of the summary; adds each category's busy time to busy. */
static void clock_json(ari_sbuf *b, const ari_datamove_writer *dw, double t0, double t1, double *busy)
{
    double width = ari_dm_sector_width(t1 - t0, ARI_DM_CLOCK_SECTORS);
    double sectors[ARI_DM_CLOCK_SECTORS * ARI_DM_NCAT] = {0};
    for (size_t i = 0; i < dw->nevents; i++) {
        const dw_event *e = &dw->events[i];
        ari_dm_clock_add(sectors, ARI_DM_CLOCK_SECTORS, 0, width, e->category, e->start - t0, e->dur); /* from the origin */
        busy[e->category] += e->dur;
    }
    /* times from the run's start, as every datamove answer (issue 14) */
    ari_sbuf_add_str(b, "{\"start\":0,\"time_origin\":");
    ari_sbuf_json_real(b, t0);
    ari_sbuf_add_str(b, ",\"sector_width\":");
    ari_sbuf_json_real(b, width);
    ari_sbuf_printf(b, ",\"sectors\":%d,\"values\":[", ARI_DM_CLOCK_SECTORS);
    for (int s = 0; s < ARI_DM_CLOCK_SECTORS; s++) {
        if (s)
            ari_sbuf_add_char(b, ',');
        category_json(b, &sectors[s * ARI_DM_NCAT]);
    }
    ari_sbuf_add_str(b, "]}");
}

/* Appends ,"key":value for a real. */
static void real_member(ari_sbuf *b, const char *key, double v)
{
    ari_sbuf_printf(b, ",\"%s\":", key);
    ari_sbuf_json_real(b, v);
}

/* The summary object (the same bytes jansson's compact dump gave). */
static void summary_json(ari_sbuf *b, const ari_datamove_writer *dw, double t0, double t1)
{
    double busy[ARI_DM_NCAT] = {0}, max_dur = 0;
    for (size_t i = 0; i < dw->nevents; i++)
        if (dw->events[i].dur > max_dur)
            max_dur = dw->events[i].dur;
    ari_sbuf clock = {0};
    clock_json(&clock, dw, t0, t1, busy);
    int ngpus = 0;
    for (size_t i = 0; i < dw->topo.n; i++)
        ngpus += strcmp(dw->topo.comps[i].kind, "GPU") == 0 && dw->topo.comps[i].key[0];
    ari_sbuf_add_str(b, "{\"start\":");
    ari_sbuf_json_real(b, t0);
    real_member(b, "end", t1);
    real_member(b, "duration", t1 - t0);
    ari_sbuf_printf(b, ",\"time_unit\":\"us\",\"events\":%lld,\"movements\":%lld,\"flows\":%lld,\"samples\":%lld",
                    (long long)dw->nevents, (long long)dw->movements, (long long)dw->flows, (long long)dw->samples);
    real_member(b, "bytes_htod", dw->bytes_htod);
    real_member(b, "bytes_dtoh", dw->bytes_dtoh);
    real_member(b, "bytes_other", dw->bytes_other);
    if (dw->bw_count)
        real_member(b, "avg_bandwidth_gbs", dw->bw_sum / (double)dw->bw_count);
    else
        ari_sbuf_add_str(b, ",\"avg_bandwidth_gbs\":null");
    ari_sbuf_add_str(b, ",\"category_time\":");
    category_json(b, busy);
    ari_sbuf_add_str(b, ",\"clock\":");
    ari_sbuf_add(b, ari_sbuf_text(&clock), clock.len);
    b->failed |= clock.failed;
    ari_sbuf_free(&clock);
    ari_sbuf_printf(b, ",\"gpus\":%d,\"devices\":%s", ngpus, dw->devices ? dw->devices : "[]");
    real_member(b, "max_dur", max_dur);
    ari_sbuf_printf(b, ",\"pair_bins\":%d}", dw->npairs && !dw->too_many_pairs && t1 > t0 ? ARI_DM_PAIR_BINS : 0);
}

static void counts_json(ari_sbuf *b, const ari_datamove_writer *dw)
{
    ari_sbuf_printf(b, "{\"events\":%lld,\"movements\":%lld,\"flows\":%lld,\"samples\":%lld,\"tracks\":%lld,"
                    "\"components\":%lld}", (long long)dw->nevents, (long long)dw->movements, (long long)dw->flows,
                    (long long)dw->samples, (long long)dw->ntracks, (long long)dw->topo.n);
}

static void meta_json(ari_sbuf *b, const ari_datamove_writer *dw)
{
    ari_sbuf_add_char(b, '{');
    for (size_t i = 0; i < dw->nmeta; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, dw->meta[i].key);
        ari_sbuf_add_char(b, ':');
        ari_sbuf_add_str(b, dw->meta[i].value);
    }
    ari_sbuf_add_char(b, '}');
}

static int write_summary(ari_datamove_writer *dw, double t0, double t1)
{
    ari_sbuf sum = {0}, counts = {0}, meta = {0};
    summary_json(&sum, dw, t0, t1);
    counts_json(&counts, dw);
    meta_json(&meta, dw);
    int rc = -1;
    int ok = !sum.failed && !counts.failed && !meta.failed;
    ari_stmt *st = ok ? ari_store_stmt(dw->store,
        "UPDATE traces SET summary_json = json_patch(summary_json, ?2),"
        " counts_json = json_patch(counts_json, ?3), meta_json = json_patch(meta_json, ?4),"
        " time_unit = 'us' WHERE id = ?1", &dw->error) : NULL;
    if (st) {
        ari_bind_int64(st, 1, dw->trace_id);
        ari_store_bind_text_static(st, 2, ari_sbuf_text(&sum), -1);
        ari_store_bind_text_static(st, 3, ari_sbuf_text(&counts), -1);
        ari_store_bind_text_static(st, 4, ari_sbuf_text(&meta), -1);
        rc = step_done(dw, st, "datamove summary");
    } else if (!ok) {
        oom(dw);
    }
    ari_sbuf_free(&sum);
    ari_sbuf_free(&counts);
    ari_sbuf_free(&meta);
    return rc;
}

int ari_datamove_writer_finish(ari_datamove_writer *dw, ari_error *err)
{
    if (dw->error.code[0]) {
        *err = dw->error;
        return -1;
    }
    double t0, t1;
    span(dw, &t0, &t1);
    int rc = settle_gpu_tracks(dw);
    if (rc == 0)
        rc = write_tracks(dw);
    if (rc == 0)
        rc = write_tiles(dw, t0, t1);
    if (rc == 0)
        rc = write_pair_bins(dw, t0, t1);
    if (rc == 0)
        rc = write_topology(dw);
    if (rc == 0)
        rc = write_summary(dw, t0, t1);
    if (rc < 0 && err)
        *err = dw->error;
    return rc;
}
