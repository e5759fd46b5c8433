/* metrics_queries.c: the description, matrices, communication and
 * overview statistics of sampled-metrics traces (see metrics_queries.h). */
#include "store/metrics_queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/metrics_cache.h"
#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/vec.h"

/* ---- description -------------------------------------------------------------------- */

/* 0 for a pdes trace (its stamp: created_at and sha256, into stamp), 1
 * absent, 2 another kind (err says which), -1 error. */
static int trace_kind(ari_store *s, int64_t id, char *stamp, size_t stamp_size, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT kind, format, created_at || ' ' || coalesce(sha256, '') FROM traces WHERE id = ?1", id, err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "trace kind", err);
    if (rc != 0)
        return rc;
    const char *kind = (const char *)ari_col_text(st, 0), *format = (const char *)ari_col_text(st, 1);
    const char *when = (const char *)ari_col_text(st, 2);
    snprintf(stamp, stamp_size, "%s", when ? when : "");
    if (strcmp(kind, "pdes") != 0) {
        ari_error_set(err, "not_pdes", "trace %lld is a %s trace (%s), not a sampled-metrics (pdes) trace", (long long)id,
                      kind, format);
        rc = 2;
    }
    ari_reset(st);
    return rc;
}

static int read_entity(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_mt_entity *e = item;
    e->id = ari_col_int64(st, 0);
    snprintf(e->level, sizeof e->level, "%s", (const char *)ari_col_text(st, 1));
    snprintf(e->name, sizeof e->name, "%s", (const char *)ari_col_text(st, 2));
    e->parent = ari_col_type(st, 3) == ARI_NULL ? -1 : ari_col_int64(st, 3);
    e->has_data = ari_col_int(st, 4);
    return 0;
}

static int read_metric(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_mt_metric *m = item;
    m->id = ari_col_int64(st, 0);
    snprintf(m->name, sizeof m->name, "%s", (const char *)ari_col_text(st, 1));
    snprintf(m->unit, sizeof m->unit, "%s", (const char *)ari_col_text(st, 2));
    m->derived = ari_col_int(st, 3);
    m->attribute = ari_col_int(st, 4);
    return 0;
}

static int load_domains(ari_store *s, ari_mt_info *info, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT domain_id, times FROM mt_domains WHERE trace_id = ?1 ORDER BY domain_id",
                                         info->trace_id, err);
    if (!st)
        return -1;
    int rc, first = 1;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int d = ari_col_int(st, 0);
        size_t bytes = (size_t)ari_col_bytes(st, 1);
        if (d < 0 || d >= ARI_MT_NDOMAINS || info->times[d] || (!first && bytes != info->ntimes * sizeof(double))) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "trace %lld: a corrupt time domain", (long long)info->trace_id);
        }
        if (first) {
            info->key_domain = d;
            info->ntimes = bytes / sizeof(double);
            first = 0;
        }
        if (!(info->times[d] = malloc(bytes ? bytes : 1))) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        if (bytes)
            memcpy(info->times[d], ari_col_blob(st, 1), bytes);
    }
    return ari_store_rows_end(s, st, rc, "time domains", err);
}

static int level_index(const ari_mt_info *info, const char *level)
{
    for (size_t i = 0; i < info->nlevels; i++)
        if (strcmp(info->levels[i], level) == 0)
            return (int)i;
    return -1;
}

/* Levels by depth (root first): entities are stored parents first. */
static void find_levels(ari_mt_info *info)
{
    int deepest = -1;
    for (size_t i = 0; i < info->nentities; i++) {
        const ari_mt_entity *e = &info->entities[i];
        int li = level_index(info, e->level);
        if (li < 0 && info->nlevels < sizeof info->levels / sizeof info->levels[0]) {
            li = (int)info->nlevels++;
            snprintf(info->levels[li], sizeof info->levels[li], "%s", e->level);
        }
        if (e->has_data && li > deepest)
            deepest = li;
    }
    snprintf(info->data_level, sizeof info->data_level, "%s", deepest >= 0 ? info->levels[deepest] : "");
}

int ari_mt_info_load(ari_store *s, int64_t trace_id, ari_mt_info *info, ari_error *err)
{
    memset(info, 0, sizeof *info);
    info->trace_id = trace_id;
    int rc = trace_kind(s, trace_id, info->stamp, sizeof info->stamp, err);
    if (rc != 0)
        return rc;
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT entity_id, level, name, parent_id, has_data FROM mt_entities WHERE trace_id = ?1 ORDER BY entity_id",
        trace_id, err);
    if (!st || ari_store_read_rows(s, st, (void **)&info->entities, &info->nentities, sizeof *info->entities,
                                   read_entity, NULL, "entities", err) < 0)
        goto fail;
    st = ari_store_stmt_id(s,
        "SELECT metric_id, name, unit, derived, attribute FROM mt_metrics WHERE trace_id = ?1 ORDER BY metric_id",
        trace_id, err);
    if (!st || ari_store_read_rows(s, st, (void **)&info->metrics, &info->nmetrics, sizeof *info->metrics, read_metric,
                                   NULL, "metrics", err) < 0)
        goto fail;
    if (load_domains(s, info, err) < 0)
        goto fail;
    for (size_t i = 0; i < info->nentities; i++)
        if (info->entities[i].id != (int64_t)i || info->entities[i].parent >= (int64_t)i) {
            ari_error_set(err, ARI_E_DB, "trace %lld: corrupt entities", (long long)trace_id);
            goto fail;
        }
    find_levels(info);
    return 0;
fail:
    ari_mt_info_free(info);
    return -1;
}

void ari_mt_info_free(ari_mt_info *info)
{
    free(info->entities);
    free(info->metrics);
    for (int d = 0; d < ARI_MT_NDOMAINS; d++)
        free(info->times[d]);
    memset(info, 0, sizeof *info);
}

const ari_mt_metric *ari_mt_info_metric(const ari_mt_info *info, const char *name)
{
    for (size_t i = 0; i < info->nmetrics; i++)
        if (strcmp(info->metrics[i].name, name) == 0)
            return &info->metrics[i];
    return NULL;
}

int ari_mt_info_domain(const ari_mt_info *info, const char *name)
{
    for (int d = 0; d < ARI_MT_NDOMAINS; d++)
        if (info->times[d] && strcmp(ari_mt_domain_names[d], name) == 0)
            return d;
    return -1;
}

int ari_mt_info_has_level(const ari_mt_info *info, const char *level)
{
    return level_index(info, level) >= 0;
}

/* ---- matrices --------------------------------------------------------------------------- */

static int bad_metric(const ari_mt_info *info, const char *name, ari_error *err)
{
    ari_sbuf b = {0};
    for (size_t i = 0; i < info->nmetrics && b.len < 600; i++)
        ari_sbuf_printf(&b, "%s%s", i ? ", " : "", info->metrics[i].name);
    ari_error_set(err, ARI_E_INVALID_PARAMETER, "no metric '%.64s' in trace %lld (it has %s)", name,
                  (long long)info->trace_id, b.len ? ari_sbuf_text(&b) : "none");
    ari_sbuf_free(&b);
    return -1;
}

static int bad_level(const ari_mt_info *info, const char *level, const char *why, ari_error *err)
{
    char list[200] = "";
    size_t used = 0;
    int data = level_index(info, info->data_level);
    for (int i = 0; i <= data && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", info->levels[i]);
    return ari_error_set(err, ARI_E_INVALID_PARAMETER, "granularity '%.32s' %s: trace %lld offers %s", level, why,
                         (long long)info->trace_id, list[0] ? list : "none");
}

/* The time points of the request: indices into the trace's. */
static int pick_times(const ari_mt_info *info, const ari_mt_request *req, ari_mt_matrix *m, ari_error *err)
{
    int d = req->domain < 0 ? info->key_domain : req->domain;
    if (d < 0 || d >= ARI_MT_NDOMAINS || !info->times[d])
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld has no time domain %s", (long long)info->trace_id,
                             d >= 0 && d < ARI_MT_NDOMAINS ? ari_mt_domain_names[d] : "?");
    m->domain = d;
    m->time_idx = malloc((info->ntimes ? info->ntimes : 1) * sizeof *m->time_idx);
    m->time = malloc((info->ntimes ? info->ntimes : 1) * sizeof *m->time);
    if (!m->time_idx || !m->time)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < info->ntimes; i++) {
        double t = info->times[d][i];
        if (isnan(t) || (!isnan(req->t0) && t < req->t0) || (!isnan(req->t1) && t > req->t1))
            continue;
        m->time_idx[m->l] = i;
        m->time[m->l++] = t;
    }
    return 0;
}

/* The rows: entity ids of the level, all or the requested ones. */
static int pick_entities(const ari_mt_info *info, const ari_mt_request *req, const char *level, ari_mt_matrix *m,
                         ari_error *err)
{
    size_t cap = req->entities ? req->nentities : info->nentities;
    if (!(m->entity_ids = malloc((cap ? cap : 1) * sizeof *m->entity_ids)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (!req->entities) {
        for (size_t i = 0; i < info->nentities; i++)
            if (strcmp(info->entities[i].level, level) == 0)
                m->entity_ids[m->n++] = (int64_t)i;
        return 0;
    }
    for (size_t i = 0; i < req->nentities; i++) {
        int64_t id = req->entities[i];
        if (id < 0 || (size_t)id >= info->nentities || strcmp(info->entities[id].level, level) != 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "entity %lld is not a %s of trace %lld", (long long)id,
                                 level, (long long)info->trace_id);
        m->entity_ids[m->n++] = id;
    }
    return 0;
}

/* row_of[e] = the row a data entity contributes to, -1 if none. */
static int rows_of_entities(const ari_mt_info *info, const ari_mt_matrix *m, int32_t **row_of, ari_error *err)
{
    int32_t *rows = malloc((info->nentities ? info->nentities : 1) * sizeof *rows);
    int32_t *target = malloc((info->nentities ? info->nentities : 1) * sizeof *target);
    if (!rows || !target) {
        free(rows);
        free(target);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < info->nentities; i++)
        target[i] = -1;
    for (size_t r = 0; r < m->n; r++)
        target[m->entity_ids[r]] = (int32_t)r;
    for (size_t i = 0; i < info->nentities; i++) {
        rows[i] = -1;
        if (strcmp(info->entities[i].level, info->data_level) != 0)
            continue;
        for (int64_t a = (int64_t)i; a >= 0 && rows[i] < 0; a = info->entities[a].parent)
            rows[i] = target[a];
    }
    free(target);
    *row_of = rows;
    return 0;
}

/* Adds one entity's stored row (v over the trace's time points, maybe
 * unaligned) into the sums and counts of its matrix row. */
static void add_entity(const ari_mt_matrix *m, const double *v, size_t row, double *sum, uint32_t *cnt)
{
    size_t base = row * m->l;
    for (size_t j = 0; j < m->l; j++) {
        double x;
        memcpy(&x, &v[m->time_idx[j]], sizeof x); /* a blob need not be aligned */
        if (!isnan(x)) {
            sum[base + j] += x;
            cnt[base + j]++;
        }
    }
}

/* The metric's rows from the process's cache (metrics_cache.h): 0 and
 * *rows to release, 1 when the cache does not keep it (too large), -1 with
 * err. */
static int cached_rows(ari_store *s, const ari_mt_info *info, int64_t metric_id, ari_mt_rows **rows, ari_error *err)
{
    ari_error e = {0};
    *rows = ari_mt_rows_acquire(s, info->trace_id, info->stamp, metric_id, info->nentities, info->ntimes, &e);
    if (*rows)
        return 0;
    if (!e.code[0])
        return 1;
    *err = e;
    return -1;
}

/* The same from the process's cache of the metric's rows (metrics_cache.h):
 * 0, 1 when the cache does not keep it (too large), -1 with err. */
static int accumulate_cached(ari_store *s, const ari_mt_info *info, int64_t metric_id, const int32_t *row_of,
                             const ari_mt_matrix *m, double *sum, uint32_t *cnt, ari_error *err)
{
    ari_mt_rows *rows;
    int rc = cached_rows(s, info, metric_id, &rows, err);
    if (rc != 0)
        return rc;
    const double *v = ari_mt_rows_values(rows);
    for (size_t i = 0; i < info->nentities; i++)
        if (row_of[i] >= 0)
            add_entity(m, v + i * info->ntimes, (size_t)row_of[i], sum, cnt);
    ari_mt_rows_release(rows);
    return 0;
}

/* Sums and counts of a matrix, filled row by row (ari_mt_rows_scan). */
typedef struct sums_target {
    const ari_mt_info *info;
    const int32_t *row_of;
    const ari_mt_matrix *m;
    double *sum;
    uint32_t *cnt;
} sums_target;

static int add_scanned(void *ctx, int64_t e, const double *row, ari_error *err)
{
    (void)err;
    sums_target *t = ctx;
    if (e >= 0 && (size_t)e < t->info->nentities && t->row_of[e] >= 0)
        add_entity(t->m, row, (size_t)t->row_of[e], t->sum, t->cnt);
    return 0;
}

/* Adds metric k's stored rows into the sums and counts: from the cache, or
 * read as they come for a metric too large to keep. */
static int accumulate(ari_store *s, const ari_mt_info *info, int64_t metric_id, const int32_t *row_of,
                      ari_mt_matrix *m, double *sum, uint32_t *cnt, ari_error *err)
{
    int cached = accumulate_cached(s, info, metric_id, row_of, m, sum, cnt, err);
    if (cached <= 0)
        return cached;
    sums_target t = {info, row_of, m, sum, cnt};
    return ari_mt_rows_scan(s, info->trace_id, metric_id, info->ntimes, add_scanned, &t, err);
}

/* At the data level a matrix row is one stored row: copied from the cache
 * without sums. 0, 1 when the cache does not keep the metric, -1 with err. */
static int copy_cached(ari_store *s, const ari_mt_info *info, int64_t metric_id, const ari_mt_matrix *m, double *out,
                       ari_error *err)
{
    ari_mt_rows *rows;
    int rc = cached_rows(s, info, metric_id, &rows, err);
    if (rc != 0)
        return rc;
    const double *v = ari_mt_rows_values(rows);
    for (size_t r = 0; r < m->n; r++) {
        const double *src = v + (size_t)m->entity_ids[r] * info->ntimes;
        for (size_t j = 0; j < m->l; j++)
            out[r * m->l + j] = src[m->time_idx[j]];
    }
    ari_mt_rows_release(rows);
    return 0;
}

static int load_metric(ari_store *s, const ari_mt_info *info, int64_t metric_id, const int32_t *row_of,
                       ari_mt_matrix *m, double *out, ari_error *err)
{
    if (strcmp(m->level, info->data_level) == 0) {
        int rc = copy_cached(s, info, metric_id, m, out, err);
        if (rc <= 0)
            return rc;
    }
    size_t cells = m->n * m->l;
    double *sum = calloc(cells ? cells : 1, sizeof *sum);
    uint32_t *cnt = calloc(cells ? cells : 1, sizeof *cnt);
    int rc = sum && cnt ? accumulate(s, info, metric_id, row_of, m, sum, cnt, err)
                        : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < cells; i++)
        out[i] = cnt[i] ? sum[i] / cnt[i] : NAN;
    free(sum);
    free(cnt);
    return rc;
}

/* Bucket b of l columns cut into nb: columns [b l / nb, (b + 1) l / nb). */
static size_t bucket_start(size_t b, size_t l, size_t nb)
{
    return b * l / nb;
}

/* The buckets' times (the mean of their times) and first time points; m->l
 * becomes nb. */
static void bucket_times(ari_mt_matrix *m, size_t nb)
{
    size_t l = m->l;
    for (size_t b = 0; b < nb; b++) {
        size_t j0 = bucket_start(b, l, nb), j1 = bucket_start(b + 1, l, nb);
        double t = 0;
        for (size_t j = j0; j < j1; j++)
            t += m->time[j];
        m->time[b] = t / (double)(j1 - j0);
        m->time_idx[b] = m->time_idx[j0];
    }
    m->l = nb;
}

/* The means of nb buckets of one row of l columns (src[col(j)]: the
 * column's sample), NaN for a bucket without one. */
static void bucket_row(const double *src, const size_t *cols, size_t l, size_t nb, double *dst)
{
    for (size_t b = 0; b < nb; b++) {
        double sum = 0;
        size_t count = 0;
        for (size_t j = bucket_start(b, l, nb); j < bucket_start(b + 1, l, nb); j++) {
            double x = src[cols ? cols[j] : j];
            if (!isnan(x)) {
                sum += x;
                count++;
            }
        }
        dst[b] = count ? sum / (double)count : NAN;
    }
}

void ari_mt_matrix_downsample(ari_mt_matrix *m, size_t max_points)
{
    if (max_points == 0 || m->l <= max_points)
        return;
    size_t nb = max_points, l = m->l;
    for (size_t row = 0; row < m->d * m->n; row++) /* in place: bucket b only reads columns >= b */
        bucket_row(m->values + row * l, NULL, l, nb, m->values + row * nb);
    bucket_times(m, nb);
}

/* The data level in nb buckets straight from the cached rows, each bucket's
 * mean taken while copying (no full-width matrix): 0; 1 when a metric is not
 * in the cache (the caller reads the full width and downsamples); -1 with
 * err. Fills m->values (d x n x nb) and the buckets' times. */
static int load_bucketed(ari_store *s, const ari_mt_info *info, const int64_t *ids, ari_mt_matrix *m, size_t nb,
                         ari_error *err)
{
    size_t cells = m->d * m->n * nb;
    if (!(m->values = malloc((cells > 0 ? cells : 1) * sizeof *m->values)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t k = 0; k < m->d; k++) {
        ari_mt_rows *rows;
        int rc = cached_rows(s, info, ids[k], &rows, err);
        if (rc != 0) {
            free(m->values);
            m->values = NULL;
            return rc;
        }
        const double *v = ari_mt_rows_values(rows);
        for (size_t r = 0; r < m->n; r++)
            bucket_row(v + (size_t)m->entity_ids[r] * info->ntimes, m->time_idx, m->l, nb,
                       m->values + (k * m->n + r) * nb);
        ari_mt_rows_release(rows);
    }
    bucket_times(m, nb);
    return 0;
}

#define MAX_MATRIX_CELLS ((size_t)1 << 29)

int ari_mt_matrix_load(ari_store *s, const ari_mt_info *info, const ari_mt_request *req, ari_mt_matrix *m,
                       ari_error *err)
{
    memset(m, 0, sizeof *m);
    const char *level = req->level ? req->level : info->data_level;
    int li = level_index(info, level), data = level_index(info, info->data_level);
    int64_t *ids = calloc(req->nmetrics ? req->nmetrics : 1, sizeof *ids);
    int32_t *row_of = NULL;
    int rc = ids ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t k = 0; rc == 0 && k < req->nmetrics; k++) {
        const ari_mt_metric *mt = ari_mt_info_metric(info, req->metrics[k]);
        rc = mt ? 0 : bad_metric(info, req->metrics[k], err);
        if (mt)
            ids[k] = mt->id;
    }
    if (rc == 0 && li < 0)
        rc = bad_level(info, level, "is not a level of this trace", err);
    if (rc == 0 && li > data)
        rc = bad_level(info, level, "is finer than the data (no values at that level)", err);
    snprintf(m->level, sizeof m->level, "%s", level);
    if (rc == 0)
        rc = pick_times(info, req, m, err);
    if (rc == 0)
        rc = pick_entities(info, req, level, m, err);
    m->d = req->nmetrics;
    if (rc == 0 && m->n * m->l * (m->d ? m->d : 1) > MAX_MATRIX_CELLS)
        rc = ari_error_set(err, ARI_E_TOO_LARGE, "%zu x %zu x %zu values: ask for fewer entities, metrics or time points",
                           m->d, m->n, m->l);
    size_t nb = req->max_points && m->l > req->max_points ? req->max_points : 0;
    int full = 1; /* the full width is to read (then downsampled when nb) */
    if (rc == 0 && nb && li == data) {
        int b = load_bucketed(s, info, ids, m, nb, err);
        full = b == 1;
        rc = b < 0 ? -1 : 0;
    }
    size_t total = m->d * m->n * m->l;
    if (rc == 0 && full && !(m->values = malloc((total > 0 ? total : 1) * sizeof *m->values)))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0 && full)
        rc = rows_of_entities(info, m, &row_of, err);
    for (size_t k = 0; rc == 0 && full && k < m->d; k++)
        rc = load_metric(s, info, ids[k], row_of, m, m->values + k * m->n * m->l, err);
    if (rc == 0 && full)
        ari_mt_matrix_downsample(m, nb);
    free(ids);
    free(row_of);
    if (rc < 0)
        ari_mt_matrix_free(m);
    return rc;
}

void ari_mt_matrix_free(ari_mt_matrix *m)
{
    free(m->entity_ids);
    free(m->time_idx);
    free(m->time);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* ---- communication ----------------------------------------------------------------------- */

static int comm_grow(ari_mt_comm *c, size_t need, size_t *cap)
{
    size_t c1 = *cap, c2 = *cap, c3 = *cap, c4 = *cap;
    if (ari_vec_reserve((void **)&c->time_idx, &c1, need, sizeof *c->time_idx) < 0 ||
        ari_vec_reserve((void **)&c->src, &c2, need, sizeof *c->src) < 0 ||
        ari_vec_reserve((void **)&c->dst, &c3, need, sizeof *c->dst) < 0 ||
        ari_vec_reserve((void **)&c->count, &c4, need, sizeof *c->count) < 0)
        return -1;
    *cap = c1;
    return 0;
}

int ari_mt_comm_load(ari_store *s, int64_t trace_id, size_t i0, size_t i1, ari_mt_comm *c, ari_error *err)
{
    memset(c, 0, sizeof *c);
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int((int64_t)i0), ari_arg_int((int64_t)i1)};
    ari_stmt *st = ari_store_bound(s,
        "SELECT time_idx, triples FROM mt_comm WHERE trace_id = ?1 AND time_idx >= ?2 AND time_idx < ?3 ORDER BY time_idx",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const unsigned char *b = ari_col_blob(st, 1);
        size_t n = (size_t)ari_col_bytes(st, 1) / 16;
        if (comm_grow(c, c->n + n, &cap) < 0) {
            ari_reset(st);
            ari_mt_comm_free(c);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            int32_t sd[2];
            memcpy(sd, b + 16 * i, 8);
            memcpy(&c->count[c->n], b + 16 * i + 8, 8);
            c->time_idx[c->n] = (uint32_t)ari_col_int64(st, 0);
            c->src[c->n] = sd[0];
            c->dst[c->n++] = sd[1];
        }
    }
    if (ari_store_rows_end(s, st, rc, "communication", err) < 0) {
        ari_mt_comm_free(c);
        return -1;
    }
    return 0;
}

void ari_mt_comm_free(ari_mt_comm *c)
{
    free(c->time_idx);
    free(c->src);
    free(c->dst);
    free(c->count);
    memset(c, 0, sizeof *c);
}

/* ---- overview ------------------------------------------------------------------------------ */

void ari_mt_overview(const ari_mt_matrix *m, size_t k, ari_mt_stat stat, double *out)
{
    const double *v = m->values + k * m->n * m->l;
    for (size_t j = 0; j < m->l; j++) {
        double max = -INFINITY, sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < m->n; i++) {
            double x = v[i * m->l + j];
            if (isnan(x))
                continue;
            n++;
            sum += x;
            if (x > max)
                max = x;
        }
        double mean = n ? sum / (double)n : NAN, ss = 0;
        if (stat == ARI_MT_STAT_STD)
            for (size_t i = 0; i < m->n; i++) {
                double x = v[i * m->l + j];
                if (!isnan(x))
                    ss += (x - mean) * (x - mean);
            }
        out[j] = stat == ARI_MT_STAT_MAX ? (n ? max : NAN) : stat == ARI_MT_STAT_MEAN ? mean
                 : n >= 2 ? sqrt(ss / (double)(n - 1)) : NAN;
    }
}
