/* metrics_writer.c: writing sampled-metrics traces (see metrics_writer.h).
 * Gather: the sink callbacks fill maps and (sum, count) cells in memory.
 * Finish: time points sorted by key, RbPrim derived, then entities,
 * metrics, time domains, value blobs, communication blobs and the summary
 * are written with prepared statements in the caller's transaction. */
#include "store/metrics_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_text.h"
#include "store/trace_writer_internal.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

typedef struct mw_time {
    double key;
    double other[ARI_MT_NDOMAINS];
} mw_time;

typedef struct mw_entity {
    char *level, *name;
    int64_t parent;
    int has_data;
} mw_entity;

typedef struct mw_cells { /* one (metric, entity): cells by raw time index */
    double *sum;
    uint32_t *cnt;
    size_t cap_sum, cap_cnt;
} mw_cells;

typedef struct mw_metric {
    char *name;
    int attribute, derived;
    mw_cells *cells;      /* by entity */
    size_t cap_cells;
} mw_metric;

typedef struct mw_comm {
    int32_t t, src, dst;
    double v;
} mw_comm;

typedef struct mw_row {
    int32_t t, src;
} mw_row;

struct ari_metrics_writer {
    ari_store *store;
    ari_trace_writer *tw;
    int64_t trace_id;
    ari_error error;
    ari_metrics_sink sink;
    int key_domain;            /* -1 until the first time point */

    ari_strmap *time_map;      /* 8 bytes of the key -> index + 1 */
    mw_time *times;
    size_t ntimes, cap_times;
    ari_strmap *entity_map;    /* "level\x1fname" -> index + 1 */
    mw_entity *entities;
    size_t nentities, cap_entities;
    ari_strmap *metric_map;    /* name -> index + 1 */
    mw_metric *metrics;
    size_t nmetrics, cap_metrics;
    int64_t cells;             /* allocated, for the cap */
    mw_comm *comm;
    size_t ncomm, cap_comm;
    mw_row *rows;
    size_t nrows, cap_rows;
    ari_sbuf summary_extra, meta_extra; /* ,"key":value members */
    uint64_t calls;
};

/* ---- errors ------------------------------------------------------------------------- */

static int oom(ari_metrics_writer *mw)
{
    return ari_error_set(&mw->error, ARI_E_NOMEM, "out of memory");
}

static int poll_cancel(ari_metrics_writer *mw)
{
    if (mw->tw && (++mw->calls & 0xfff) == 0 && ari_trace_writer_cancelled(mw->tw)) {
        mw->error = *ari_trace_writer_error(mw->tw);
        return -1;
    }
    return 0;
}

/* ---- sink --------------------------------------------------------------------------- */

static int64_t on_time(void *ctx, int domain, double key, const double *other)
{
    ari_metrics_writer *mw = ctx;
    if (mw->key_domain < 0)
        mw->key_domain = domain;
    if (domain != mw->key_domain)
        return ari_error_set(&mw->error, ARI_E_INVALID_INPUT,
                             "the files of one trace give times in different domains (%s and %s)",
                             ari_mt_domain_names[mw->key_domain], ari_mt_domain_names[domain]);
    if (key == 0)
        key = 0; /* -0 and 0 are one time */
    intptr_t v = (intptr_t)ari_strmap_get(mw->time_map, (const char *)&key, sizeof key);
    size_t i = v ? (size_t)v - 1 : mw->ntimes;
    if (!v) {
        if (mw->ntimes >= INT32_MAX / 2)
            return ari_error_set(&mw->error, ARI_E_TOO_LARGE, "too many time points");
        if (ari_vec_reserve((void **)&mw->times, &mw->cap_times, mw->ntimes + 1, sizeof *mw->times) < 0 ||
            !ari_strmap_put(mw->time_map, (const char *)&key, sizeof key, (void *)(intptr_t)(mw->ntimes + 1)))
            return oom(mw);
        mw->times[i].key = key;
        for (int d = 0; d < ARI_MT_NDOMAINS; d++)
            mw->times[i].other[d] = NAN;
        mw->times[i].other[domain] = key;
        mw->ntimes++;
    }
    for (int d = 0; other && d < ARI_MT_NDOMAINS; d++)
        if (d != domain && isnan(mw->times[i].other[d]))
            mw->times[i].other[d] = other[d];
    return (int64_t)i;
}

static int64_t on_entity(void *ctx, const char *level, const char *name, int64_t parent)
{
    ari_metrics_writer *mw = ctx;
    char key[600];
    int n = snprintf(key, sizeof key, "%.63s\x1f%.500s", level, name);
    intptr_t v = (intptr_t)ari_strmap_get(mw->entity_map, key, (size_t)n);
    if (v) {
        mw_entity *e = &mw->entities[v - 1];
        if (e->parent != parent)
            return ari_error_set(&mw->error, ARI_E_INVALID_INPUT, "%s %s is under %s in one place and under %s in another",
                                 level, name, e->parent >= 0 ? mw->entities[e->parent].name : "nothing",
                                 parent >= 0 ? mw->entities[parent].name : "nothing");
        return (int64_t)(v - 1);
    }
    if (mw->nentities >= ARI_MT_MAX_ENTITIES)
        return ari_error_set(&mw->error, ARI_E_TOO_LARGE, "more than %d entities", ARI_MT_MAX_ENTITIES);
    if (ari_vec_reserve((void **)&mw->entities, &mw->cap_entities, mw->nentities + 1, sizeof *mw->entities) < 0)
        return oom(mw);
    mw_entity *e = &mw->entities[mw->nentities];
    memset(e, 0, sizeof *e);
    e->parent = parent;
    e->level = strdup(level);
    e->name = strdup(name);
    if (!e->level || !e->name || !ari_strmap_put(mw->entity_map, key, (size_t)n, (void *)(intptr_t)(mw->nentities + 1))) {
        free(e->level);
        free(e->name);
        return oom(mw);
    }
    return (int64_t)mw->nentities++;
}

static int64_t add_metric(ari_metrics_writer *mw, const char *name, int attribute)
{
    intptr_t v = (intptr_t)ari_strmap_get(mw->metric_map, name, strlen(name));
    if (v)
        return (int64_t)(v - 1);
    if (mw->nmetrics >= ARI_MT_MAX_METRICS)
        return ari_error_set(&mw->error, ARI_E_TOO_LARGE, "more than %d metrics", ARI_MT_MAX_METRICS);
    if (ari_vec_reserve((void **)&mw->metrics, &mw->cap_metrics, mw->nmetrics + 1, sizeof *mw->metrics) < 0)
        return oom(mw);
    mw_metric *m = &mw->metrics[mw->nmetrics];
    memset(m, 0, sizeof *m);
    m->attribute = attribute;
    if (!(m->name = strdup(name)) ||
        !ari_strmap_put(mw->metric_map, name, strlen(name), (void *)(intptr_t)(mw->nmetrics + 1))) {
        free(m->name);
        return oom(mw);
    }
    return (int64_t)mw->nmetrics++;
}

static int64_t on_metric(void *ctx, const char *name, int attribute)
{
    return add_metric(ctx, name, attribute);
}

/* The cells of (metric m, entity e), grown to hold raw time t. */
static mw_cells *cells_for(ari_metrics_writer *mw, mw_metric *m, size_t e, size_t t)
{
    if (ari_vec_reserve_zeroed((void **)&m->cells, &m->cap_cells, e + 1, sizeof *m->cells) < 0)
        return oom(mw), NULL;
    mw_cells *c = &m->cells[e];
    size_t before = c->cap_sum;
    if (ari_vec_reserve_zeroed((void **)&c->sum, &c->cap_sum, t + 1, sizeof *c->sum) < 0 ||
        ari_vec_reserve_zeroed((void **)&c->cnt, &c->cap_cnt, t + 1, sizeof *c->cnt) < 0)
        return oom(mw), NULL;
    mw->cells += (int64_t)(c->cap_sum - before);
    if (mw->cells > ARI_MT_MAX_CELLS)
        return ari_error_set(&mw->error, ARI_E_TOO_LARGE,
                             "more than %lld (metric, entity, time) values: too large for one import",
                             (long long)ARI_MT_MAX_CELLS), NULL;
    return c;
}

static int on_value(void *ctx, int64_t metric, int64_t entity, int64_t time, double v)
{
    ari_metrics_writer *mw = ctx;
    if (metric < 0 || (size_t)metric >= mw->nmetrics || entity < 0 || (size_t)entity >= mw->nentities || time < 0 ||
        (size_t)time >= mw->ntimes)
        return ari_error_set(&mw->error, ARI_E_INVALID_INPUT, "internal error: a sample of unknown handles");
    mw_cells *c = cells_for(mw, &mw->metrics[metric], (size_t)entity, (size_t)time);
    if (!c || poll_cancel(mw) < 0)
        return -1;
    c->sum[time] += v;
    c->cnt[time]++;
    mw->entities[entity].has_data = 1;
    return 0;
}

static int on_comm_row(void *ctx, int64_t time, int64_t src, const int64_t *dst, const double *count, size_t n)
{
    ari_metrics_writer *mw = ctx;
    if (mw->ncomm + n > (size_t)ARI_MT_MAX_COMM)
        return ari_error_set(&mw->error, ARI_E_TOO_LARGE, "more than %lld communication entries",
                             (long long)ARI_MT_MAX_COMM);
    if (ari_vec_reserve((void **)&mw->rows, &mw->cap_rows, mw->nrows + 1, sizeof *mw->rows) < 0 ||
        ari_vec_reserve((void **)&mw->comm, &mw->cap_comm, mw->ncomm + n, sizeof *mw->comm) < 0)
        return oom(mw);
    mw->rows[mw->nrows++] = (mw_row){(int32_t)time, (int32_t)src};
    for (size_t i = 0; i < n; i++)
        mw->comm[mw->ncomm++] = (mw_comm){(int32_t)time, (int32_t)src, (int32_t)dst[i], count[i]};
    return poll_cancel(mw);
}

static void on_progress(void *ctx, double fraction)
{
    ari_metrics_writer *mw = ctx;
    if (mw->tw)
        ari_trace_writer_report(mw->tw, fraction);
}

/* ---- life --------------------------------------------------------------------------- */

ari_metrics_writer *ari_metrics_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_metrics_writer *mw = ari_zalloc(sizeof *mw, err);
    if (!mw)
        return NULL;
    mw->store = s;
    mw->trace_id = trace_id;
    mw->key_domain = -1;
    mw->time_map = ari_strmap_new();
    mw->entity_map = ari_strmap_new();
    mw->metric_map = ari_strmap_new();
    if (!mw->time_map || !mw->entity_map || !mw->metric_map) {
        ari_metrics_writer_free(mw);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    mw->sink = (ari_metrics_sink){mw, on_time, on_entity, on_metric, on_value, on_comm_row, on_progress};
    return mw;
}

ari_metrics_writer *ari_metrics_writer_begin(ari_trace_writer *w, ari_error *err)
{
    ari_metrics_writer *mw = ari_metrics_writer_begin_store(w->store, w->id, err);
    if (mw)
        mw->tw = w;
    return mw;
}

const ari_metrics_sink *ari_metrics_writer_sink(ari_metrics_writer *mw)
{
    return &mw->sink;
}

const ari_error *ari_metrics_writer_error(const ari_metrics_writer *mw)
{
    return &mw->error;
}

int ari_metrics_writer_note(ari_metrics_writer *mw, int summary, const char *key, const char *json_value)
{
    ari_sbuf *b = summary ? &mw->summary_extra : &mw->meta_extra;
    ari_sbuf_add_char(b, ',');
    ari_sbuf_json_string(b, key);
    ari_sbuf_add_char(b, ':');
    ari_sbuf_add_str(b, json_value);
    return ari_sbuf_failed(b) ? oom(mw) : 0;
}

int64_t ari_metrics_writer_count(const ari_metrics_writer *mw, const char *level)
{
    int64_t n = 0;
    for (size_t i = 0; i < mw->nentities; i++)
        n += strcmp(mw->entities[i].level, level) == 0;
    return n;
}

void ari_metrics_writer_free(ari_metrics_writer *mw)
{
    if (!mw)
        return;
    for (size_t i = 0; i < mw->nentities; i++) {
        free(mw->entities[i].level);
        free(mw->entities[i].name);
    }
    for (size_t m = 0; m < mw->nmetrics; m++) {
        for (size_t e = 0; e < mw->metrics[m].cap_cells; e++) {
            free(mw->metrics[m].cells[e].sum);
            free(mw->metrics[m].cells[e].cnt);
        }
        free(mw->metrics[m].cells);
        free(mw->metrics[m].name);
    }
    ari_strmap_free(mw->time_map);
    ari_strmap_free(mw->entity_map);
    ari_strmap_free(mw->metric_map);
    free(mw->times);
    free(mw->entities);
    free(mw->metrics);
    free(mw->comm);
    free(mw->rows);
    ari_sbuf_free(&mw->summary_extra);
    ari_sbuf_free(&mw->meta_extra);
    free(mw);
}

/* ---- finish: order and derived metrics ------------------------------------------------ */

static int by_key(const void *a, const void *b, void *ctx)
{
    const mw_time *times = ctx;
    double x = times[*(const uint32_t *)a].key, y = times[*(const uint32_t *)b].key;
    return x < y ? -1 : x > y;
}

/* order[k] = raw index of the k-th time point; rank[raw] = k. */
static int time_order(ari_metrics_writer *mw, uint32_t **order, uint32_t **rank)
{
    size_t n = mw->ntimes ? mw->ntimes : 1;
    *order = malloc(n * sizeof **order);
    *rank = malloc(n * sizeof **rank);
    if (!*order || !*rank)
        return oom(mw);
    for (size_t i = 0; i < mw->ntimes; i++)
        (*order)[i] = (uint32_t)i;
    qsort_r(*order, mw->ntimes, sizeof **order, by_key, mw->times);
    for (size_t k = 0; k < mw->ntimes; k++)
        (*rank)[(*order)[k]] = (uint32_t)k;
    return 0;
}

static int64_t metric_index(const ari_metrics_writer *mw, const char *name)
{
    intptr_t v = (intptr_t)ari_strmap_get(mw->metric_map, name, strlen(name));
    return v ? (int64_t)v - 1 : -1;
}

/* The mean of cell t, NaN if it has no sample. */
static double cell_mean(const mw_cells *c, size_t t)
{
    return c && t < c->cap_sum && c->cnt[t] ? c->sum[t] / c->cnt[t] : NAN;
}

static const mw_cells *cells_of(const mw_metric *m, size_t e)
{
    return e < m->cap_cells && m->cells[e].sum ? &m->cells[e] : NULL;
}

/* RbPrim = RbTotal - RbSec where both have a sample (the ROSS server's rule,
 * spec 1.1); replaces any RbPrim a file gave. */
static int derive_rbprim(ari_metrics_writer *mw)
{
    int64_t tot = metric_index(mw, "RbTotal"), sec = metric_index(mw, "RbSec");
    if (tot < 0 || sec < 0)
        return 0;
    int64_t p = add_metric(mw, "RbPrim", 0);
    if (p < 0)
        return -1;
    mw_metric *prim = &mw->metrics[p];
    prim->derived = 1;
    for (size_t e = 0; e < prim->cap_cells; e++) { /* drop what a file gave */
        free(prim->cells[e].sum);
        free(prim->cells[e].cnt);
        memset(&prim->cells[e], 0, sizeof prim->cells[e]);
    }
    for (size_t e = 0; e < mw->nentities; e++) {
        const mw_cells *a = cells_of(&mw->metrics[tot], e), *b = cells_of(&mw->metrics[sec], e);
        for (size_t t = 0; a && b && t < mw->ntimes; t++) {
            double x = cell_mean(a, t), y = cell_mean(b, t);
            if (isnan(x) || isnan(y))
                continue;
            mw_cells *c = cells_for(mw, &mw->metrics[p], e, t);
            if (!c)
                return -1;
            c->sum[t] = x - y;
            c->cnt[t] = 1;
        }
    }
    return 0;
}

/* Entities are stored parents first, then by level, then by name in
 * natural order ("KP 9" before "KP 10"), whatever order the files named
 * them in: old_of[new] and new_of[old]. */
typedef struct entity_sort {
    const ari_metrics_writer *mw;
    const int *depth;
} entity_sort;

static int natural_cmp(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), da = la, db = lb;
    while (da > 0 && a[da - 1] >= '0' && a[da - 1] <= '9')
        da--;
    while (db > 0 && b[db - 1] >= '0' && b[db - 1] <= '9')
        db--;
    if (da == db && strncmp(a, b, da) == 0 && da < la && db < lb && la - da <= 18 && lb - db <= 18) {
        long long x = atoll(a + da), y = atoll(b + db);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return strcmp(a, b);
}

static int by_entity(const void *pa, const void *pb, void *ctx)
{
    const entity_sort *es = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const mw_entity *x = &es->mw->entities[a], *y = &es->mw->entities[b];
    if (es->depth[a] != es->depth[b])
        return es->depth[a] < es->depth[b] ? -1 : 1;
    int c = strcmp(x->level, y->level);
    if (c)
        return c;
    c = natural_cmp(x->name, y->name);
    return c ? c : (a > b) - (a < b);
}

static int entity_order(ari_metrics_writer *mw, uint32_t **old_of, uint32_t **new_of)
{
    size_t n = mw->nentities ? mw->nentities : 1;
    *old_of = malloc(n * sizeof **old_of);
    *new_of = malloc(n * sizeof **new_of);
    int *depth = malloc(n * sizeof *depth);
    if (!*old_of || !*new_of || !depth) {
        free(depth);
        return oom(mw);
    }
    for (size_t i = 0; i < mw->nentities; i++) { /* parents have smaller indices */
        int64_t p = mw->entities[i].parent;
        depth[i] = p >= 0 ? depth[p] + 1 : 0;
        (*old_of)[i] = (uint32_t)i;
    }
    entity_sort es = {mw, depth};
    qsort_r(*old_of, mw->nentities, sizeof **old_of, by_entity, &es);
    for (size_t k = 0; k < mw->nentities; k++)
        (*new_of)[(*old_of)[k]] = (uint32_t)k;
    free(depth);
    return 0;
}

/* ---- finish: writing -------------------------------------------------------------- */

static int step(ari_metrics_writer *mw, ari_stmt *st, const char *what)
{
    int rc = ari_step(st);
    ari_reset(st);
    return rc == ARI_DONE ? 0 : ari_store_fail(mw->store, &mw->error, what);
}

static int write_entities(ari_metrics_writer *mw, const uint32_t *old_of, const uint32_t *new_of)
{
    ari_stmt *st = ari_store_stmt(mw->store,
        "INSERT INTO mt_entities(trace_id, entity_id, level, name, parent_id, has_data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &mw->error);
    for (size_t i = 0; st && i < mw->nentities; i++) {
        const mw_entity *e = &mw->entities[old_of[i]];
        ari_bind_int64(st, 1, mw->trace_id);
        ari_bind_int64(st, 2, (int64_t)i);
        ari_store_bind_text(st, 3, e->level, -1);
        ari_store_bind_text(st, 4, e->name, -1);
        if (e->parent >= 0)
            ari_bind_int64(st, 5, new_of[e->parent]);
        else
            ari_bind_null(st, 5);
        ari_bind_int(st, 6, e->has_data);
        if (step(mw, st, "store entities") < 0)
            return -1;
    }
    return st ? 0 : -1;
}

/* What the ROSS metrics count, where the name says. */
static const char *unit_of(const char *name)
{
    static const char *const counts[] = {"Nevent", "Rb", "Network", "FcAttempts", "EventTies", "NumGvt", "PqQsize", NULL};
    if (strcmp(name, "VirtualTimeDiff") == 0)
        return "virtual time";
    if (strcmp(name, "RbTime") == 0)
        return "";
    for (int i = 0; counts[i]; i++)
        if (strncmp(name, counts[i], strlen(counts[i])) == 0)
            return "events";
    return "";
}

static int write_metrics(ari_metrics_writer *mw)
{
    ari_stmt *st = ari_store_stmt(mw->store,
        "INSERT INTO mt_metrics(trace_id, metric_id, name, unit, derived, attribute) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &mw->error);
    for (size_t i = 0; st && i < mw->nmetrics; i++) {
        const mw_metric *m = &mw->metrics[i];
        ari_bind_int64(st, 1, mw->trace_id);
        ari_bind_int64(st, 2, (int64_t)i);
        ari_store_bind_text(st, 3, m->name, -1);
        ari_store_bind_text(st, 4, unit_of(m->name), -1);
        ari_bind_int(st, 5, m->derived);
        ari_bind_int(st, 6, m->attribute);
        if (step(mw, st, "store metrics") < 0)
            return -1;
    }
    return st ? 0 : -1;
}

/* A domain is kept when some point has a non-zero value in it (the ROSS
 * sample's VirtualTs and RealTs are all 0: not recorded). */
static int domain_known(const ari_metrics_writer *mw, int d)
{
    if (d == mw->key_domain)
        return 1;
    for (size_t i = 0; i < mw->ntimes; i++)
        if (!isnan(mw->times[i].other[d]) && mw->times[i].other[d] != 0)
            return 1;
    return 0;
}

static int domain_given(const ari_metrics_writer *mw, int d)
{
    for (size_t i = 0; i < mw->ntimes; i++)
        if (!isnan(mw->times[i].other[d]))
            return 1;
    return 0;
}

static int write_blob(ari_metrics_writer *mw, ari_stmt *st, int i, const void *p, size_t bytes)
{
    if (ari_bind_blob(st, i, p, (int64_t)bytes) != ARI_OK)
        return ari_store_fail(mw->store, &mw->error, "bind a blob");
    return 0;
}

static int write_domains(ari_metrics_writer *mw, const uint32_t *order, double *buf)
{
    ari_stmt *st = ari_store_stmt(mw->store,
        "INSERT INTO mt_domains(trace_id, domain_id, name, times) VALUES (?1, ?2, ?3, ?4)", &mw->error);
    for (int d = 0; st && d < ARI_MT_NDOMAINS; d++) {
        if (!domain_known(mw, d))
            continue;
        for (size_t k = 0; k < mw->ntimes; k++)
            buf[k] = mw->times[order[k]].other[d];
        ari_bind_int64(st, 1, mw->trace_id);
        ari_bind_int(st, 2, d);
        ari_store_bind_text(st, 3, ari_mt_domain_names[d], -1);
        if (write_blob(mw, st, 4, buf, mw->ntimes * sizeof *buf) < 0 || step(mw, st, "store time domains") < 0)
            return -1;
    }
    return st ? 0 : -1;
}

static int write_values(ari_metrics_writer *mw, const uint32_t *order, const uint32_t *old_of, double *buf,
                        int64_t *stored)
{
    ari_stmt *st = ari_store_stmt(mw->store,
        "INSERT INTO mt_values(trace_id, metric_id, entity_id, vals) VALUES (?1, ?2, ?3, ?4)", &mw->error);
    for (size_t m = 0; st && m < mw->nmetrics; m++)
        for (size_t e = 0; e < mw->nentities; e++) {
            const mw_cells *c = cells_of(&mw->metrics[m], old_of[e]);
            size_t any = 0;
            for (size_t k = 0; c && k < mw->ntimes; k++)
                any += !isnan(buf[k] = cell_mean(c, order[k]));
            if (!any)
                continue;
            *stored += (int64_t)any;
            ari_bind_int64(st, 1, mw->trace_id);
            ari_bind_int64(st, 2, (int64_t)m);
            ari_bind_int64(st, 3, (int64_t)e);
            if (write_blob(mw, st, 4, buf, mw->ntimes * sizeof *buf) < 0 || step(mw, st, "store values") < 0 ||
                poll_cancel(mw) < 0)
                return -1;
        }
    return st ? 0 : -1;
}

static int by_comm(const void *a, const void *b)
{
    const mw_comm *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int by_row(const void *a, const void *b)
{
    const mw_row *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

/* How many comm rows (src, t) had: rows are sorted. */
static size_t rows_of(const ari_metrics_writer *mw, int32_t t, int32_t src)
{
    size_t lo = 0, hi = mw->nrows;
    mw_row key = {t, src};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_row(&mw->rows[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < mw->nrows && mw->rows[lo + n].t == t && mw->rows[lo + n].src == src)
        n++;
    return n ? n : 1;
}

/* Packs the triples of one time point (comm[from..to), merged) into blob. */
static size_t pack_time(const ari_metrics_writer *mw, size_t from, size_t to, unsigned char *blob)
{
    size_t n = 0;
    for (size_t i = from; i < to;) {
        size_t j = i;
        double sum = 0;
        while (j < to && mw->comm[j].src == mw->comm[i].src && mw->comm[j].dst == mw->comm[i].dst)
            sum += mw->comm[j++].v;
        double mean = sum / (double)rows_of(mw, mw->comm[i].t, mw->comm[i].src);
        int32_t sd[2] = {mw->comm[i].src, mw->comm[i].dst};
        if (mean != 0) {
            memcpy(blob + 16 * n, sd, 8);
            memcpy(blob + 16 * n + 8, &mean, 8);
            n++;
        }
        i = j;
    }
    return n;
}

static int write_comm(ari_metrics_writer *mw, const uint32_t *rank, const uint32_t *new_of)
{
    for (size_t i = 0; i < mw->ncomm; i++) {
        mw->comm[i].t = (int32_t)rank[mw->comm[i].t];
        mw->comm[i].src = (int32_t)new_of[mw->comm[i].src];
        mw->comm[i].dst = (int32_t)new_of[mw->comm[i].dst];
    }
    for (size_t i = 0; i < mw->nrows; i++) {
        mw->rows[i].t = (int32_t)rank[mw->rows[i].t];
        mw->rows[i].src = (int32_t)new_of[mw->rows[i].src];
    }
    if (mw->ncomm == 0)
        return 0;
    qsort(mw->comm, mw->ncomm, sizeof *mw->comm, by_comm);
    qsort(mw->rows, mw->nrows, sizeof *mw->rows, by_row);
    ari_stmt *st = ari_store_stmt(mw->store, "INSERT INTO mt_comm(trace_id, time_idx, triples) VALUES (?1, ?2, ?3)",
                                      &mw->error);
    unsigned char *blob = NULL;
    size_t cap = 0;
    int rc = st ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < mw->ncomm;) {
        size_t j = i;
        while (j < mw->ncomm && mw->comm[j].t == mw->comm[i].t)
            j++;
        if (ari_vec_reserve((void **)&blob, &cap, 16 * (j - i), 1) < 0) {
            rc = oom(mw);
            break;
        }
        size_t n = pack_time(mw, i, j, blob);
        ari_bind_int64(st, 1, mw->trace_id);
        ari_bind_int64(st, 2, mw->comm[i].t);
        rc = write_blob(mw, st, 3, blob, 16 * n);
        if (rc == 0)
            rc = step(mw, st, "store communication");
        i = j;
    }
    free(blob);
    return rc;
}

/* ---- finish: summary ------------------------------------------------------------------- */

/* The levels present, root first ("PE", "KP", ...), and the deepest level with data. */
static void levels_json(ari_sbuf *b, const ari_metrics_writer *mw)
{
    ari_sbuf_add_str(b, ",\"entities\":{");
    ari_strmap *seen = ari_strmap_new();
    int first = 1;
    for (size_t i = 0; seen && i < mw->nentities; i++) {
        const char *lv = mw->entities[i].level;
        if (ari_strmap_get(seen, lv, strlen(lv)))
            continue;
        if (!ari_strmap_put(seen, lv, strlen(lv), (void *)1)) {
            b->failed = 1;
            break;
        }
        if (!first)
            ari_sbuf_add_char(b, ',');
        first = 0;
        ari_sbuf_json_string(b, lv);
        ari_sbuf_printf(b, ":%lld", (long long)ari_metrics_writer_count(mw, lv));
    }
    if (!seen)
        b->failed = 1;
    ari_strmap_free(seen);
    ari_sbuf_add_char(b, '}');
}

static void metrics_json(ari_sbuf *b, const ari_metrics_writer *mw)
{
    ari_sbuf_add_str(b, ",\"metrics\":[");
    for (size_t i = 0; i < mw->nmetrics; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, mw->metrics[i].name);
    }
    ari_sbuf_add_str(b, "],\"derived\":[");
    for (size_t i = 0, n = 0; i < mw->nmetrics; i++)
        if (mw->metrics[i].derived) {
            if (n++)
                ari_sbuf_add_char(b, ',');
            ari_sbuf_json_string(b, mw->metrics[i].name);
        }
    ari_sbuf_add_char(b, ']');
}

static void domains_json(ari_sbuf *b, const ari_metrics_writer *mw, const uint32_t *order)
{
    ari_sbuf_add_str(b, ",\"domains\":[");
    for (int d = 0, n = 0; d < ARI_MT_NDOMAINS; d++)
        if (mw->ntimes && domain_known(mw, d)) {
            if (n++)
                ari_sbuf_add_char(b, ',');
            ari_sbuf_json_string(b, ari_mt_domain_names[d]);
        }
    ari_sbuf_add_str(b, "],\"domains_all_zero\":[");
    for (int d = 0, n = 0; d < ARI_MT_NDOMAINS; d++)
        if (mw->ntimes && !domain_known(mw, d) && domain_given(mw, d)) {
            if (n++)
                ari_sbuf_add_char(b, ',');
            ari_sbuf_json_string(b, ari_mt_domain_names[d]);
        }
    ari_sbuf_add_char(b, ']');
    if (mw->ntimes && mw->key_domain >= 0) {
        ari_sbuf_add_str(b, ",\"time_domain\":");
        ari_sbuf_json_string(b, ari_mt_domain_names[mw->key_domain]);
        ari_sbuf_add_str(b, ",\"start\":");
        ari_sbuf_json_real(b, mw->times[order[0]].key);
        ari_sbuf_add_str(b, ",\"end\":");
        ari_sbuf_json_real(b, mw->times[order[mw->ntimes - 1]].key);
    }
}

static int write_summary(ari_metrics_writer *mw, const uint32_t *order, int64_t values, int64_t comm_points)
{
    ari_sbuf sum = {0}, counts = {0}, meta = {0};
    ari_sbuf_printf(&sum, "{\"time_points\":%zu", mw->ntimes);
    levels_json(&sum, mw);
    metrics_json(&sum, mw);
    domains_json(&sum, mw, order);
    ari_sbuf_printf(&sum, ",\"has_comm\":%s,\"comm_time_points\":%lld", mw->ncomm ? "true" : "false",
                    (long long)comm_points);
    if (mw->summary_extra.len)
        ari_sbuf_add(&sum, ari_sbuf_text(&mw->summary_extra), mw->summary_extra.len);
    ari_sbuf_add_char(&sum, '}');
    ari_sbuf_printf(&counts, "{\"entities\":%zu,\"metrics\":%zu,\"time_points\":%zu,\"values\":%lld}", mw->nentities,
                    mw->nmetrics, mw->ntimes, (long long)values);
    ari_sbuf_add_char(&meta, '{');
    if (mw->meta_extra.len)
        ari_sbuf_add(&meta, ari_sbuf_text(&mw->meta_extra) + 1, mw->meta_extra.len - 1);
    ari_sbuf_add_char(&meta, '}');
    int rc = -1;
    if (sum.failed || counts.failed || meta.failed) {
        oom(mw);
    } else {
        ari_arg args[] = {ari_arg_int(mw->trace_id), ari_arg_raw_text(ari_sbuf_text(&sum)),
                          ari_arg_raw_text(ari_sbuf_text(&counts)), ari_arg_raw_text(ari_sbuf_text(&meta)),
                          ari_arg_text(mw->key_domain == ARI_MT_LASTGVT ? "virtual" : "")};
        rc = ari_store_run(mw->store,
                           "UPDATE traces SET summary_json = json_patch(summary_json, json(?2)),"
                           " counts_json = json_patch(counts_json, json(?3)), meta_json = json_patch(meta_json, json(?4)),"
                           " time_unit = ?5 WHERE id = ?1",
                           args, ARI_NARGS(args), "metrics summary", &mw->error);
    }
    ari_sbuf_free(&sum);
    ari_sbuf_free(&counts);
    ari_sbuf_free(&meta);
    return rc;
}

static int64_t comm_time_points(const ari_metrics_writer *mw)
{
    int64_t n = 0;
    for (size_t i = 0; i < mw->ncomm; i++)
        n += i == 0 || mw->comm[i].t != mw->comm[i - 1].t;
    return n;
}

int ari_metrics_writer_finish(ari_metrics_writer *mw, ari_error *err)
{
    uint32_t *order = NULL, *rank = NULL, *old_of = NULL, *new_of = NULL;
    double *buf = malloc((mw->ntimes ? mw->ntimes : 1) * sizeof *buf);
    int64_t values = 0;
    int rc = mw->error.code[0] ? -1 : 0;
    if (rc == 0 && mw->ntimes == 0)
        rc = ari_error_set(&mw->error, ARI_E_INVALID_INPUT, "no samples: the files hold no time points");
    if (rc == 0 && !buf)
        rc = oom(mw);
    if (rc == 0)
        rc = time_order(mw, &order, &rank);
    if (rc == 0)
        rc = derive_rbprim(mw);
    if (rc == 0)
        rc = entity_order(mw, &old_of, &new_of);
    if (rc == 0)
        rc = write_entities(mw, old_of, new_of);
    if (rc == 0)
        rc = write_metrics(mw);
    if (rc == 0)
        rc = write_domains(mw, order, buf);
    if (rc == 0)
        rc = write_values(mw, order, old_of, buf, &values);
    if (rc == 0)
        rc = write_comm(mw, rank, new_of);
    if (rc == 0)
        rc = write_summary(mw, order, values, comm_time_points(mw));
    if (rc < 0 && err)
        *err = mw->error;
    free(order);
    free(rank);
    free(old_of);
    free(new_of);
    free(buf);
    return rc;
}
