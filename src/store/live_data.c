/* live_data.c: the in-memory tensor of a live run (see live_data.h).
 * Values: per metric, one row per entity (allocated on its first sample)
 * of (sum, count) cells over the time points, all rows with the same
 * capacity in time; a late point moves the cells after it by one.
 * Communication: per point, the raw rows as given, merged (sorted, rows of
 * one source averaged) on demand and cached until the point changes. */
#include "store/live_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strmap.h"
#include "util/strpool.h"
#include "util/vec.h"

typedef struct ld_entity {
    const char *level, *name;
    int64_t parent;
    int has_data;
    size_t *children;
    size_t nchildren, cap_children;
} ld_entity;

typedef struct ld_row {
    double *sum;
    uint32_t *cnt;
} ld_row;

typedef struct ld_metric {
    const char *name;
    int attribute;
    ld_row *rows;            /* by entity; sum == NULL: no sample yet */
    size_t cap_rows;
} ld_metric;

typedef struct ld_entry {
    int32_t src, dst;
    double count;
} ld_entry;

typedef struct ld_point {
    double key;
    double other[ARI_MT_NDOMAINS];
    int64_t seq;
    ld_entry *raw;           /* as given */
    size_t nraw, cap_raw;
    int32_t *rows;           /* the source of each row given (for the mean) */
    size_t nrows, cap_rows;
    int merged_ok;           /* the cache below is up to date */
    int32_t *msrc, *mdst;
    double *mcount;
    size_t nmerged;
} ld_point;

typedef struct ld_level {
    const char *name;
    int depth, has_data;
} ld_level;

struct ari_live_data {
    ari_strpool *pool;
    ari_strmap *entity_map;  /* "level\x1fname" -> id + 1 */
    ari_strmap *metric_map;  /* name -> id + 1 */
    ld_entity *entities;
    size_t nentities, cap_entities;
    size_t *roots;
    size_t nroots, cap_roots;
    ld_metric *metrics;
    size_t nmetrics, cap_metrics;
    ld_point *points;        /* sorted by key */
    size_t npoints, cap_points;
    double *keys;            /* points[i].key, for ari_live_data_keys */
    size_t cap_keys;
    size_t t_cap;            /* capacity of every value row */
    int64_t rows_allocated;  /* (metric, entity) rows with cells */
    ld_level *levels;        /* root first */
    size_t nlevels, cap_levels;
    const char **level_names;
    size_t cap_level_names;
    int domain;
    int64_t last_seq;
    int has_comm;
};

static int oom(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* ---- life ---------------------------------------------------------------------------- */

ari_live_data *ari_live_data_new(ari_error *err)
{
    ari_live_data *ld = ari_zalloc(sizeof *ld, err);
    if (!ld)
        return NULL;
    ld->domain = -1;
    ld->pool = ari_strpool_new();
    ld->entity_map = ari_strmap_new();
    ld->metric_map = ari_strmap_new();
    if (!ld->pool || !ld->entity_map || !ld->metric_map) {
        ari_live_data_free(ld);
        oom(err);
        return NULL;
    }
    return ld;
}

static void free_merged(ld_point *p)
{
    free(p->msrc);
    free(p->mdst);
    free(p->mcount);
    p->msrc = p->mdst = NULL;
    p->mcount = NULL;
    p->nmerged = 0;
    p->merged_ok = 0;
}

void ari_live_data_free(ari_live_data *ld)
{
    if (!ld)
        return;
    for (size_t i = 0; i < ld->nentities; i++)
        free(ld->entities[i].children);
    for (size_t m = 0; m < ld->nmetrics; m++) {
        for (size_t e = 0; e < ld->metrics[m].cap_rows; e++) {
            free(ld->metrics[m].rows[e].sum);
            free(ld->metrics[m].rows[e].cnt);
        }
        free(ld->metrics[m].rows);
    }
    for (size_t t = 0; t < ld->npoints; t++) {
        free(ld->points[t].raw);
        free(ld->points[t].rows);
        free_merged(&ld->points[t]);
    }
    ari_strpool_free(ld->pool);
    ari_strmap_free(ld->entity_map);
    ari_strmap_free(ld->metric_map);
    free(ld->entities);
    free(ld->roots);
    free(ld->metrics);
    free(ld->points);
    free(ld->keys);
    free(ld->levels);
    free(ld->level_names);
    free(ld);
}

/* ---- entities and metrics ------------------------------------------------------------- */

static size_t entity_key(char *key, size_t size, const char *level, const char *name)
{
    int n = snprintf(key, size, "%s\x1f%s", level, name);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

int64_t ari_live_data_entity_find(const ari_live_data *ld, const char *level, const char *name)
{
    char key[600];
    size_t n = entity_key(key, sizeof key, level, name);
    intptr_t v = (intptr_t)ari_strmap_get(ld->entity_map, key, n);
    return v ? (int64_t)v - 1 : -1;
}

int64_t ari_live_data_metric_find(const ari_live_data *ld, const char *name)
{
    intptr_t v = (intptr_t)ari_strmap_get(ld->metric_map, name, strlen(name));
    return v ? (int64_t)v - 1 : -1;
}

static int note_level(ari_live_data *ld, const char *level, int depth, ari_error *err)
{
    for (size_t i = 0; i < ld->nlevels; i++)
        if (strcmp(ld->levels[i].name, level) == 0)
            return 0;
    if (ari_vec_reserve((void **)&ld->levels, &ld->cap_levels, ld->nlevels + 1, sizeof *ld->levels) < 0 ||
        ari_vec_reserve((void **)&ld->level_names, &ld->cap_level_names, ld->nlevels + 1, sizeof *ld->level_names) < 0)
        return oom(err);
    size_t at = ld->nlevels;
    while (at > 0 && ld->levels[at - 1].depth > depth)
        at--;
    memmove(&ld->levels[at + 1], &ld->levels[at], (ld->nlevels - at) * sizeof *ld->levels);
    ld->levels[at] = (ld_level){level, depth, 0};
    ld->nlevels++;
    for (size_t i = 0; i < ld->nlevels; i++)
        ld->level_names[i] = ld->levels[i].name;
    return 0;
}

static int entity_depth(const ari_live_data *ld, int64_t parent)
{
    int d = 0;
    while (parent >= 0 && d < 1000) {
        parent = ld->entities[parent].parent;
        d++;
    }
    return d;
}

/* The id of (level, name) under parent, added on first use; -1 with err
 * for a known entity given another parent. */
static int64_t add_entity(ari_live_data *ld, const char *level, const char *name, int64_t parent, ari_error *err)
{
    int64_t id = ari_live_data_entity_find(ld, level, name);
    if (id >= 0) {
        if (ld->entities[id].parent != parent)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s %s is under %s in one place and under %s in another",
                                 level, name, parent >= 0 ? ld->entities[parent].name : "nothing",
                                 ld->entities[id].parent >= 0 ? ld->entities[ld->entities[id].parent].name : "nothing");
        return id;
    }
    if (ld->nentities >= ARI_STREAM_MAX_ENTITIES)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %d entities", ARI_STREAM_MAX_ENTITIES);
    char key[600];
    size_t n = entity_key(key, sizeof key, level, name);
    const char *lv = ari_strpool_intern(ld->pool, level, strlen(level));
    const char *nm = ari_strpool_copy(ld->pool, name, strlen(name));
    if (!lv || !nm ||
        ari_vec_reserve((void **)&ld->entities, &ld->cap_entities, ld->nentities + 1, sizeof *ld->entities) < 0)
        return oom(err);
    size_t **kids = parent >= 0 ? &ld->entities[parent].children : &ld->roots;
    size_t *nk = parent >= 0 ? &ld->entities[parent].nchildren : &ld->nroots;
    size_t *ck = parent >= 0 ? &ld->entities[parent].cap_children : &ld->cap_roots;
    if (ari_vec_reserve((void **)kids, ck, *nk + 1, sizeof **kids) < 0 ||
        note_level(ld, lv, entity_depth(ld, parent), err) < 0 ||
        !ari_strmap_put(ld->entity_map, key, n, (void *)(intptr_t)(ld->nentities + 1)))
        return oom(err);
    (*kids)[(*nk)++] = ld->nentities;
    ld->entities[ld->nentities] = (ld_entity){.level = lv, .name = nm, .parent = parent};
    return (int64_t)ld->nentities++;
}

static int64_t add_metric(ari_live_data *ld, const char *name, int attribute, ari_error *err)
{
    int64_t id = ari_live_data_metric_find(ld, name);
    if (id >= 0)
        return id;
    if (ld->nmetrics >= ARI_STREAM_MAX_METRICS)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %d metrics", ARI_STREAM_MAX_METRICS);
    const char *nm = ari_strpool_copy(ld->pool, name, strlen(name));
    if (!nm || ari_vec_reserve((void **)&ld->metrics, &ld->cap_metrics, ld->nmetrics + 1, sizeof *ld->metrics) < 0 ||
        !ari_strmap_put(ld->metric_map, name, strlen(name), (void *)(intptr_t)(ld->nmetrics + 1)))
        return oom(err);
    ld->metrics[ld->nmetrics] = (ld_metric){.name = nm, .attribute = attribute};
    return (int64_t)ld->nmetrics++;
}

/* ---- time points ---------------------------------------------------------------------- */

/* The first index whose key is >= key. */
static size_t lower_bound(const ari_live_data *ld, double key)
{
    size_t lo = 0, hi = ld->npoints;
    if (hi && ld->points[hi - 1].key < key)
        return hi;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ld->points[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t ari_live_data_find_key(const ari_live_data *ld, double key)
{
    size_t i = lower_bound(ld, key);
    return i < ld->npoints && ld->points[i].key == key ? (int64_t)i : -1;
}

/* Grows every value row to hold need points. */
static int grow_time(ari_live_data *ld, size_t need, ari_error *err)
{
    if (need <= ld->t_cap)
        return 0;
    size_t cap = ld->t_cap ? ld->t_cap : 16;
    while (cap < need)
        cap *= 2;
    for (size_t m = 0; m < ld->nmetrics; m++)
        for (size_t e = 0; e < ld->metrics[m].cap_rows; e++) {
            ld_row *r = &ld->metrics[m].rows[e];
            if (!r->sum)
                continue;
            double *s = realloc(r->sum, cap * sizeof *s);
            if (s)
                r->sum = s;
            uint32_t *c = s ? realloc(r->cnt, cap * sizeof *c) : NULL;
            if (!c)
                return oom(err);
            r->cnt = c;
            memset(s + ld->t_cap, 0, (cap - ld->t_cap) * sizeof *s);
            memset(c + ld->t_cap, 0, (cap - ld->t_cap) * sizeof *c);
        }
    ld->t_cap = cap;
    return 0;
}

/* The index of key's point, inserted (cells moved) when new. */
static int64_t point_of(ari_live_data *ld, double key, const double *other, int *is_new, int *late, ari_error *err)
{
    size_t i = lower_bound(ld, key);
    *is_new = *late = 0;
    if (i == ld->npoints || ld->points[i].key != key) {
        if (grow_time(ld, ld->npoints + 1, err) < 0 ||
            ari_vec_reserve((void **)&ld->points, &ld->cap_points, ld->npoints + 1, sizeof *ld->points) < 0 ||
            ari_vec_reserve((void **)&ld->keys, &ld->cap_keys, ld->npoints + 1, sizeof *ld->keys) < 0)
            return oom(err);
        size_t after = ld->npoints - i;
        if (after) {
            for (size_t m = 0; m < ld->nmetrics; m++)
                for (size_t e = 0; e < ld->metrics[m].cap_rows; e++) {
                    ld_row *r = &ld->metrics[m].rows[e];
                    if (!r->sum)
                        continue;
                    memmove(r->sum + i + 1, r->sum + i, after * sizeof *r->sum);
                    memmove(r->cnt + i + 1, r->cnt + i, after * sizeof *r->cnt);
                    r->sum[i] = 0;
                    r->cnt[i] = 0;
                }
            memmove(&ld->points[i + 1], &ld->points[i], after * sizeof *ld->points);
            memmove(&ld->keys[i + 1], &ld->keys[i], after * sizeof *ld->keys);
        }
        memset(&ld->points[i], 0, sizeof ld->points[i]);
        ld->points[i].key = key;
        for (int d = 0; d < ARI_MT_NDOMAINS; d++)
            ld->points[i].other[d] = NAN;
        ld->keys[i] = key;
        ld->npoints++;
        *is_new = 1;
        *late = after > 0;
    }
    for (int d = 0; other && d < ARI_MT_NDOMAINS; d++)
        if (isnan(ld->points[i].other[d]))
            ld->points[i].other[d] = other[d];
    return (int64_t)i;
}

/* ---- values and communication --------------------------------------------------------- */

static ld_row *row_of(ari_live_data *ld, size_t m, size_t e, ari_error *err)
{
    ld_metric *mt = &ld->metrics[m];
    if (ari_vec_reserve_zeroed((void **)&mt->rows, &mt->cap_rows, e + 1, sizeof *mt->rows) < 0)
        return oom(err), NULL;
    ld_row *r = &mt->rows[e];
    if (!r->sum) {
        size_t cap = ld->t_cap ? ld->t_cap : 1;
        r->sum = calloc(cap, sizeof *r->sum);
        r->cnt = calloc(cap, sizeof *r->cnt);
        if (!r->sum || !r->cnt) {
            free(r->sum);
            free(r->cnt);
            r->sum = NULL;
            r->cnt = NULL;
            return oom(err), NULL;
        }
        ld->rows_allocated++;
    }
    return r;
}

static void mark_data(ari_live_data *ld, size_t e)
{
    ld_entity *en = &ld->entities[e];
    if (en->has_data)
        return;
    en->has_data = 1;
    for (size_t i = 0; i < ld->nlevels; i++)
        if (strcmp(ld->levels[i].name, en->level) == 0)
            ld->levels[i].has_data = 1;
}

static int add_value(ari_live_data *ld, size_t m, size_t e, size_t t, double v, ari_error *err)
{
    ld_row *r = row_of(ld, m, e, err);
    if (!r)
        return -1;
    r->sum[t] += v;
    r->cnt[t]++;
    mark_data(ld, e);
    return 0;
}

static int add_comm_row(ari_live_data *ld, size_t t, int32_t src, const int32_t *dst, const double *count, size_t n,
                        ari_error *err)
{
    ld_point *p = &ld->points[t];
    if (ari_vec_reserve((void **)&p->rows, &p->cap_rows, p->nrows + 1, sizeof *p->rows) < 0 ||
        ari_vec_reserve((void **)&p->raw, &p->cap_raw, p->nraw + n, sizeof *p->raw) < 0)
        return oom(err);
    p->rows[p->nrows++] = src;
    for (size_t i = 0; i < n; i++)
        if (count[i] != 0)
            p->raw[p->nraw++] = (ld_entry){src, dst[i], count[i]};
    p->merged_ok = 0;
    ld->has_comm = 1;
    return 0;
}

/* ---- apply ----------------------------------------------------------------------------- */

/* The live ids of the batch's entities and metrics, those not yet known
 * counted (and checked: parents, caps, domains) without changing ld. */
typedef struct plan {
    int64_t *entity;   /* live id, or -1 - (index among the new ones) */
    int64_t *metric;
    size_t new_points;
    int64_t new_rows;
} plan;

static int plan_entities(const ari_live_data *ld, const ari_stream_batch *b, plan *p, ari_error *err)
{
    size_t fresh = 0;
    for (size_t i = 0; i < b->nentities; i++) {
        const ari_stream_entity *be = &b->entities[i];
        int64_t id = ari_live_data_entity_find(ld, be->level, be->name);
        int64_t parent = be->parent >= 0 ? p->entity[be->parent] : -1;
        if (id >= 0 && ld->entities[id].parent != parent)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s %s is under %s in this request and under %s before",
                                 be->level, be->name, be->parent >= 0 ? b->entities[be->parent].name : "nothing",
                                 ld->entities[id].parent >= 0 ? ld->entities[ld->entities[id].parent].name : "nothing");
        p->entity[i] = id >= 0 ? id : -1 - (int64_t)fresh++;
    }
    if (ld->nentities + fresh > ARI_STREAM_MAX_ENTITIES)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %d entities", ARI_STREAM_MAX_ENTITIES);
    return 0;
}

static int plan_metrics(const ari_live_data *ld, const ari_stream_batch *b, plan *p, ari_error *err)
{
    size_t fresh = 0;
    for (size_t i = 0; i < b->nmetrics; i++) {
        int64_t id = ari_live_data_metric_find(ld, b->metrics[i].name);
        p->metric[i] = id >= 0 ? id : -1 - (int64_t)fresh++;
    }
    if (ld->nmetrics + fresh > ARI_STREAM_MAX_METRICS)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %d metrics", ARI_STREAM_MAX_METRICS);
    return 0;
}

static int plan_points(const ari_live_data *ld, const ari_stream_batch *b, plan *p, ari_error *err)
{
    ari_strmap *seen = ari_strmap_new();
    if (!seen)
        return oom(err);
    int domain = ld->domain;
    for (size_t r = 0; r < b->nrecords; r++) {
        const ari_stream_record *rec = &b->records[r];
        if (domain < 0)
            domain = rec->domain;
        if (rec->domain != domain) {
            ari_strmap_free(seen);
            return ari_error_set(err, ARI_E_INVALID_INPUT, "line %llu: a record keyed by %s in a run keyed by %s",
                                 (unsigned long long)rec->line, ari_mt_domain_names[rec->domain],
                                 ari_mt_domain_names[domain]);
        }
        if (ari_live_data_find_key(ld, rec->key) >= 0 || ari_strmap_get(seen, (const char *)&rec->key, sizeof rec->key))
            continue;
        if (!ari_strmap_put(seen, (const char *)&rec->key, sizeof rec->key, (void *)1)) {
            ari_strmap_free(seen);
            return oom(err);
        }
        p->new_points++;
    }
    ari_strmap_free(seen);
    return 0;
}

static int row_exists(const ari_live_data *ld, int64_t m, int64_t e)
{
    return m >= 0 && e >= 0 && (size_t)e < ld->metrics[m].cap_rows && ld->metrics[m].rows[e].sum;
}

static int plan_rows(const ari_live_data *ld, const ari_stream_batch *b, plan *p, ari_error *err)
{
    ari_strmap *seen = ari_strmap_new();
    if (!seen)
        return oom(err);
    for (size_t i = 0; i < b->nvalues; i++) {
        const ari_stream_value *v = &b->values[i];
        if (row_exists(ld, p->metric[v->metric], p->entity[v->entity]))
            continue;
        uint32_t k[2] = {v->metric, v->entity};
        if (ari_strmap_get(seen, (const char *)k, sizeof k))
            continue;
        if (!ari_strmap_put(seen, (const char *)k, sizeof k, (void *)1)) {
            ari_strmap_free(seen);
            return oom(err);
        }
        p->new_rows++;
    }
    ari_strmap_free(seen);
    return 0;
}

static int check_cap(const ari_live_data *ld, const plan *p, ari_error *err)
{
    double cells = (double)(ld->rows_allocated + p->new_rows) * (double)(ld->npoints + p->new_points);
    if (cells > (double)ARI_LIVE_MAX_CELLS)
        return ari_error_set(err, ARI_E_TOO_LARGE,
                             "this run would hold %.0f (metric, entity, time) values: at most %lld in memory", cells,
                             (long long)ARI_LIVE_MAX_CELLS);
    return 0;
}

/* Creates the new entities and metrics of the plan (batch order: parents first). */
static int realise(ari_live_data *ld, const ari_stream_batch *b, plan *p, ari_error *err)
{
    for (size_t i = 0; i < b->nentities; i++) {
        if (p->entity[i] >= 0)
            continue;
        const ari_stream_entity *be = &b->entities[i];
        int64_t id = add_entity(ld, be->level, be->name, be->parent >= 0 ? p->entity[be->parent] : -1, err);
        if (id < 0)
            return -1;
        p->entity[i] = id;
    }
    for (size_t i = 0; i < b->nmetrics; i++)
        if (p->metric[i] < 0 && (p->metric[i] = add_metric(ld, b->metrics[i].name, b->metrics[i].attribute, err)) < 0)
            return -1;
    return 0;
}

static int apply_record(ari_live_data *ld, const ari_stream_batch *b, const plan *p, size_t r, int64_t seq,
                        ari_live_record_result *out, int32_t **dst, size_t *cap_dst, ari_error *err)
{
    const ari_stream_record *rec = &b->records[r];
    int is_new, late;
    int64_t t = point_of(ld, rec->key, rec->other, &is_new, &late, err);
    if (t < 0)
        return -1;
    if (ld->domain < 0)
        ld->domain = rec->domain;
    for (size_t i = rec->value0; i < rec->value0 + rec->nvalues; i++) {
        const ari_stream_value *v = &b->values[i];
        if (add_value(ld, (size_t)p->metric[v->metric], (size_t)p->entity[v->entity], (size_t)t, v->v, err) < 0)
            return -1;
    }
    for (size_t i = rec->row0; i < rec->row0 + rec->nrows; i++) {
        const ari_stream_comm_row *row = &b->rows[i];
        if (ari_vec_reserve((void **)dst, cap_dst, row->nentries + 1, sizeof **dst) < 0)
            return oom(err);
        double *count = malloc((row->nentries + 1) * sizeof *count);
        if (!count)
            return oom(err);
        for (size_t j = 0; j < row->nentries; j++) {
            (*dst)[j] = (int32_t)p->entity[b->comm[row->entry0 + j].dst];
            count[j] = b->comm[row->entry0 + j].count;
        }
        int rc = add_comm_row(ld, (size_t)t, (int32_t)p->entity[row->src], *dst, count, row->nentries, err);
        free(count);
        if (rc < 0)
            return -1;
    }
    ld->points[t].seq = seq;
    ld->last_seq = seq;
    if (out) {
        out->seq = seq;
        out->is_new = is_new;
        out->late = late;
    }
    return 0;
}

int ari_live_data_apply(ari_live_data *ld, const ari_stream_batch *b, int64_t first_seq,
                        ari_live_record_result *out, ari_error *err)
{
    plan p = {0};
    size_t ne = b->nentities ? b->nentities : 1, nm = b->nmetrics ? b->nmetrics : 1;
    p.entity = malloc(ne * sizeof *p.entity);
    p.metric = malloc(nm * sizeof *p.metric);
    int rc = p.entity && p.metric ? 0 : oom(err);
    if (rc == 0)
        rc = plan_entities(ld, b, &p, err);
    if (rc == 0)
        rc = plan_metrics(ld, b, &p, err);
    if (rc == 0)
        rc = plan_points(ld, b, &p, err);
    if (rc == 0)
        rc = plan_rows(ld, b, &p, err);
    if (rc == 0)
        rc = check_cap(ld, &p, err);
    if (rc == 0)
        rc = realise(ld, b, &p, err);
    int64_t seq = first_seq > 0 ? first_seq : ld->last_seq + 1;
    int32_t *dst = NULL;
    size_t cap_dst = 0;
    for (size_t r = 0; rc == 0 && r < b->nrecords; r++)
        rc = apply_record(ld, b, &p, r, seq + (int64_t)r, out ? &out[r] : NULL, &dst, &cap_dst, err);
    /* a late point moves later indices: the index of each record's point
     * right after it is final only once the batch is done for earlier
     * records, so recompute from the keys */
    for (size_t r = 0; rc == 0 && out && r < b->nrecords; r++)
        out[r].t_idx = (size_t)ari_live_data_find_key(ld, b->records[r].key);
    free(dst);
    free(p.entity);
    free(p.metric);
    return rc;
}

/* ---- shape and getters ---------------------------------------------------------------- */

size_t ari_live_data_n_points(const ari_live_data *ld)
{
    return ld->npoints;
}

size_t ari_live_data_n_entities(const ari_live_data *ld)
{
    return ld->nentities;
}

size_t ari_live_data_n_metrics(const ari_live_data *ld)
{
    return ld->nmetrics;
}

int64_t ari_live_data_last_seq(const ari_live_data *ld)
{
    return ld->last_seq;
}

int ari_live_data_domain(const ari_live_data *ld)
{
    return ld->domain;
}

const double *ari_live_data_keys(const ari_live_data *ld)
{
    return ld->keys;
}

double ari_live_data_domain_value(const ari_live_data *ld, size_t t, int d)
{
    return t < ld->npoints && d >= 0 && d < ARI_MT_NDOMAINS ? ld->points[t].other[d] : NAN;
}

int64_t ari_live_data_point_seq(const ari_live_data *ld, size_t t)
{
    return t < ld->npoints ? ld->points[t].seq : 0;
}

const char *ari_live_data_entity_name(const ari_live_data *ld, size_t id)
{
    return id < ld->nentities ? ld->entities[id].name : NULL;
}

const char *ari_live_data_entity_level(const ari_live_data *ld, size_t id)
{
    return id < ld->nentities ? ld->entities[id].level : NULL;
}

int64_t ari_live_data_entity_parent(const ari_live_data *ld, size_t id)
{
    return id < ld->nentities ? ld->entities[id].parent : -1;
}

int ari_live_data_entity_has_data(const ari_live_data *ld, size_t id)
{
    return id < ld->nentities && ld->entities[id].has_data;
}

size_t ari_live_data_children(const ari_live_data *ld, int64_t parent, const size_t **ids)
{
    if (parent < 0) {
        *ids = ld->roots;
        return ld->nroots;
    }
    if ((size_t)parent >= ld->nentities) {
        *ids = NULL;
        return 0;
    }
    *ids = ld->entities[parent].children;
    return ld->entities[parent].nchildren;
}

size_t ari_live_data_level(const ari_live_data *ld, const char *level, size_t *ids, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < ld->nentities; i++)
        if (strcmp(ld->entities[i].level, level) == 0) {
            if (n < cap)
                ids[n] = i;
            n++;
        }
    return n;
}

const char *const *ari_live_data_levels(const ari_live_data *ld, size_t *n)
{
    *n = ld->nlevels;
    return ld->level_names;
}

const char *ari_live_data_leaf_level(const ari_live_data *ld)
{
    for (size_t i = ld->nlevels; i-- > 0;)
        if (ld->levels[i].has_data)
            return ld->levels[i].name;
    return NULL;
}

const char *ari_live_data_metric_name(const ari_live_data *ld, size_t id)
{
    return id < ld->nmetrics ? ld->metrics[id].name : NULL;
}

int ari_live_data_metric_attribute(const ari_live_data *ld, size_t id)
{
    return id < ld->nmetrics && ld->metrics[id].attribute;
}

static const ld_row *row_get(const ari_live_data *ld, size_t metric, size_t entity)
{
    if (metric >= ld->nmetrics || entity >= ld->metrics[metric].cap_rows || !ld->metrics[metric].rows[entity].sum)
        return NULL;
    return &ld->metrics[metric].rows[entity];
}

double ari_live_data_value(const ari_live_data *ld, size_t metric, size_t entity, size_t t)
{
    const ld_row *r = row_get(ld, metric, entity);
    return r && t < ld->npoints && r->cnt[t] ? r->sum[t] / r->cnt[t] : NAN;
}

void ari_live_data_column(const ari_live_data *ld, size_t metric, size_t t, const size_t *ids, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = ari_live_data_value(ld, metric, ids ? ids[i] : i, t);
}

void ari_live_data_series(const ari_live_data *ld, size_t metric, const size_t *ids, size_t n, size_t t0, size_t t1,
                          double *out)
{
    if (t1 > ld->npoints)
        t1 = ld->npoints;
    size_t w = t1 > t0 ? t1 - t0 : 0;
    for (size_t i = 0; i < n; i++) {
        const ld_row *r = row_get(ld, metric, ids ? ids[i] : i);
        for (size_t t = 0; t < w; t++)
            out[i * w + t] = r && r->cnt[t0 + t] ? r->sum[t0 + t] / r->cnt[t0 + t] : NAN;
    }
}

/* ---- communication queries --------------------------------------------------------------- */

static int by_pair(const void *a, const void *b)
{
    const ld_entry *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int by_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* How many rows src had at p (rows sorted); at least 1. */
static size_t rows_of(const ld_point *p, int32_t src)
{
    size_t lo = 0, hi = p->nrows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->rows[mid] < src)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < p->nrows && p->rows[lo + n] == src)
        n++;
    return n ? n : 1;
}

static int merge(ld_point *p)
{
    free_merged(p);
    if (p->nraw)
        qsort(p->raw, p->nraw, sizeof *p->raw, by_pair);
    if (p->nrows)
        qsort(p->rows, p->nrows, sizeof *p->rows, by_int32);
    size_t n = p->nraw ? p->nraw : 1;
    p->msrc = malloc(n * sizeof *p->msrc);
    p->mdst = malloc(n * sizeof *p->mdst);
    p->mcount = malloc(n * sizeof *p->mcount);
    if (!p->msrc || !p->mdst || !p->mcount) {
        free_merged(p);
        return -1;
    }
    for (size_t i = 0; i < p->nraw;) {
        size_t j = i;
        double sum = 0;
        while (j < p->nraw && p->raw[j].src == p->raw[i].src && p->raw[j].dst == p->raw[i].dst)
            sum += p->raw[j++].count;
        double mean = sum / (double)rows_of(p, p->raw[i].src);
        if (mean != 0) {
            p->msrc[p->nmerged] = p->raw[i].src;
            p->mdst[p->nmerged] = p->raw[i].dst;
            p->mcount[p->nmerged++] = mean;
        }
        i = j;
    }
    p->merged_ok = 1;
    return 0;
}

size_t ari_live_data_comm(ari_live_data *ld, size_t t, const int32_t **src, const int32_t **dst, const double **count)
{
    *src = *dst = NULL;
    *count = NULL;
    if (t >= ld->npoints)
        return 0;
    ld_point *p = &ld->points[t];
    if (!p->merged_ok && merge(p) < 0)
        return 0;
    *src = p->msrc;
    *dst = p->mdst;
    *count = p->mcount;
    return p->nmerged;
}

int ari_live_data_has_comm(const ari_live_data *ld)
{
    return ld->has_comm;
}

/* ---- the metrics sink ---------------------------------------------------------------------- */

struct ari_live_sink {
    ari_live_data *ld;
    ari_metrics_sink sink;
    ari_error error;
    double *keys;            /* by time handle */
    size_t nkeys, cap_keys;
    int32_t *dst;
    size_t cap_dst;
};

static int64_t sink_time(void *ctx, int domain, double key, const double *other)
{
    ari_live_sink *s = ctx;
    ari_live_data *ld = s->ld;
    if (ld->domain >= 0 && ld->domain != domain)
        return ari_error_set(&s->error, ARI_E_INVALID_INPUT, "times in two domains (%s and %s)",
                             ari_mt_domain_names[ld->domain], ari_mt_domain_names[domain]);
    if (key == 0)
        key = 0;
    double o[ARI_MT_NDOMAINS];
    for (int d = 0; d < ARI_MT_NDOMAINS; d++)
        o[d] = other ? other[d] : NAN;
    o[domain] = key;
    int is_new, late;
    int64_t t = point_of(ld, key, o, &is_new, &late, &s->error);
    if (t < 0)
        return -1;
    if (is_new)
        ld->points[t].seq = ++ld->last_seq;
    ld->domain = domain;
    if (ari_vec_reserve((void **)&s->keys, &s->cap_keys, s->nkeys + 1, sizeof *s->keys) < 0)
        return oom(&s->error);
    s->keys[s->nkeys] = key;
    return (int64_t)s->nkeys++;
}

static int64_t sink_entity(void *ctx, const char *level, const char *name, int64_t parent)
{
    ari_live_sink *s = ctx;
    return add_entity(s->ld, level, name, parent, &s->error);
}

static int64_t sink_metric(void *ctx, const char *name, int attribute)
{
    ari_live_sink *s = ctx;
    return add_metric(s->ld, name, attribute, &s->error);
}

static int64_t sink_index(ari_live_sink *s, int64_t time)
{
    if (time < 0 || (size_t)time >= s->nkeys)
        return ari_error_set(&s->error, ARI_E_INVALID_INPUT, "internal error: an unknown time handle");
    return ari_live_data_find_key(s->ld, s->keys[time]);
}

static int sink_value(void *ctx, int64_t metric, int64_t entity, int64_t time, double v)
{
    ari_live_sink *s = ctx;
    ari_live_data *ld = s->ld;
    int64_t t = sink_index(s, time);
    if (t < 0 || metric < 0 || (size_t)metric >= ld->nmetrics || entity < 0 || (size_t)entity >= ld->nentities)
        return ari_error_set(&s->error, ARI_E_INVALID_INPUT, "internal error: a sample of unknown handles");
    if (!row_exists(ld, metric, entity) && (double)(ld->rows_allocated + 1) * (double)ld->npoints > ARI_LIVE_MAX_CELLS)
        return ari_error_set(&s->error, ARI_E_TOO_LARGE, "more than %lld (metric, entity, time) values in memory",
                             (long long)ARI_LIVE_MAX_CELLS);
    return add_value(ld, (size_t)metric, (size_t)entity, (size_t)t, v, &s->error);
}

static int sink_comm_row(void *ctx, int64_t time, int64_t src, const int64_t *dst, const double *count, size_t n)
{
    ari_live_sink *s = ctx;
    int64_t t = sink_index(s, time);
    if (t < 0)
        return -1;
    if (ari_vec_reserve((void **)&s->dst, &s->cap_dst, n + 1, sizeof *s->dst) < 0)
        return oom(&s->error);
    for (size_t i = 0; i < n; i++)
        s->dst[i] = (int32_t)dst[i];
    return add_comm_row(s->ld, (size_t)t, (int32_t)src, s->dst, count, n, &s->error);
}

ari_live_sink *ari_live_sink_new(ari_live_data *ld, ari_error *err)
{
    ari_live_sink *s = ari_zalloc(sizeof *s, err);
    if (!s)
        return NULL;
    s->ld = ld;
    s->sink = (ari_metrics_sink){s, sink_time, sink_entity, sink_metric, sink_value, sink_comm_row, NULL};
    return s;
}

const ari_metrics_sink *ari_live_sink_sink(ari_live_sink *s)
{
    return &s->sink;
}

const ari_error *ari_live_sink_error(const ari_live_sink *s)
{
    return &s->error;
}

void ari_live_sink_free(ari_live_sink *s)
{
    if (!s)
        return;
    free(s->keys);
    free(s->dst);
    free(s);
}
