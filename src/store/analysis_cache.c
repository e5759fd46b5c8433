/* analysis_cache.c: the database cache of analysis results (table
 * analysis_cache, sql/004_analysis.sql) and the in-memory row cache of the
 * Gantt chart (see analysis_cache.h). */
#include "store/analysis_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/gantt_rows.h"
#include "store/store_internal.h"
#include "util/log.h"
#include "util/vec.h"

/* How long a cache write may wait for an import's write lock. */
#define CACHE_WRITE_TIMEOUT_MS 200

/* ---- database cache ---- */

/* ?1 trace, ?2 analysis with its version ("bounds@1", in name), ?3 the
 * canonical parameters; bound byte for byte, so distinct keys stay distinct. */
static void cache_key(ari_arg args[3], char name[96], int64_t trace_id, const char *analysis,
                      const char *params)
{
    snprintf(name, 96, "%s@" ARI_CACHE_VERSION, analysis);
    args[0] = ari_arg_int(trace_id);
    args[1] = ari_arg_raw_text(name);
    args[2] = ari_arg_raw_text(params);
}

int ari_cache_get(ari_store *s, int64_t trace_id, const char *analysis, const char *params,
                  char **json_out, ari_error *err)
{
    ari_arg args[3];
    char name[96];
    cache_key(args, name, trace_id, analysis, params);
    ari_stmt *st = ari_store_bound(s,
        "SELECT result_json FROM analysis_cache WHERE trace_id = ?1 AND analysis = ?2 AND params = ?3",
        args, ARI_NARGS(args), err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_cache_put(ari_store *s, int64_t trace_id, const char *analysis, const char *params,
                  const char *json)
{
    ari_error err = {0};
    ari_arg args[4];
    char name[96];
    cache_key(args, name, trace_id, analysis, params);
    args[3] = ari_arg_raw_text(json);
    ari_store_set_busy_timeout(s, CACHE_WRITE_TIMEOUT_MS);
    int rc = ari_store_run(s,
        "INSERT INTO analysis_cache(trace_id, analysis, params, result_json)"
        " SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM traces WHERE id = ?1)"
        " ON CONFLICT (trace_id, analysis, params) DO UPDATE SET result_json = excluded.result_json,"
        " created_at = excluded.created_at",
        args, ARI_NARGS(args), "store in the analysis cache", &err);
    ari_store_set_busy_timeout(s, -1);
    if (rc < 0)
        ari_log(ARI_LOG_INFO, "analysis cache: not stored (%s): %s", analysis, err.message);
    return rc;
}

/* ---- loading a trace's rows ---- */

/* Appends one task to a row (cap: the capacities of its three arrays);
 * -1 when out of memory. */
static int push_task(ari_row_tasks *row, size_t cap[3], double start, double end, int type)
{
    size_t n = (size_t)row->ntasks;
    if (ari_vec_reserve((void **)&row->start, &cap[0], n + 1, sizeof *row->start) < 0 ||
        ari_vec_reserve((void **)&row->end, &cap[1], n + 1, sizeof *row->end) < 0 ||
        ari_vec_reserve((void **)&row->type, &cap[2], n + 1, sizeof *row->type) < 0)
        return -1;
    row->start[n] = start;
    row->end[n] = end;
    row->type[n] = type;
    row->ntasks++;
    return 0;
}

static int load_row_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *meta,
                          ari_row_tasks *row, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(row->worker_id)};
    ari_stmt *st = ari_store_bound(s,
        "SELECT start, end, type FROM tasks WHERE trace_id = ?1 AND worker_id = ?2"
        " ORDER BY start, end, type", args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap[3] = {0, 0, 0};
    const char *last_type = NULL;
    int last_id = -1, rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *type = (const char *)ari_col_text(st, 2);
        if (!last_type || !type || strcmp(type, last_type) != 0) {
            last_id = ari_tq_type_id(meta, type);
            last_type = last_id >= 0 ? meta->types[last_id] : NULL;
        }
        if (last_id >= 0 &&
            push_task(row, cap, ari_col_double(st, 0), ari_col_double(st, 1), last_id) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    return ari_store_rows_end(s, st, rc, "read row tasks", err);
}

static void rows_free(ari_rows *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nrows; i++) {
        free(r->rows[i].start);
        free(r->rows[i].end);
        free(r->rows[i].type);
    }
    free(r->rows);
    free(r);
}

static ari_rows *rows_load(ari_store *s, const ari_tq_meta *meta, int64_t trace_id, ari_error *err)
{
    ari_rows *r = calloc(1, sizeof *r);
    if (!r || !(r->rows = calloc((size_t)meta->nworkers + 1, sizeof *r->rows))) {
        free(r);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    r->trace_id = trace_id;
    r->nrows = meta->nworkers;
    r->bytes = sizeof *r;
    for (int i = 0; i < r->nrows; i++)
        r->rows[i].worker_id = meta->workers[i].id;
    int stored = ari_gantt_rows_read(s, trace_id, meta, r->rows, err);
    for (int i = 0; stored == 1 && i < r->nrows; i++) /* imported before sql/010 */
        if (load_row_tasks(s, trace_id, meta, &r->rows[i], err) < 0)
            stored = -1;
    if (stored < 0) {
        rows_free(r);
        return NULL;
    }
    if (stored == 1)
        ari_gantt_rows_save(s, trace_id, meta, r->rows);
    for (int i = 0; i < r->nrows; i++)
        r->bytes += sizeof r->rows[i] + (size_t)r->rows[i].ntasks * (2 * sizeof(double) + sizeof(int));
    return r;
}

/* ---- the row cache ---- */

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static ari_rows *cache_head;
static size_t cache_bytes;
static size_t cache_budget = (size_t)1 << 30;
static uint64_t cache_clock;

/* Drops unused entries, oldest first, while over budget. Lock held. */
static void evict_locked(size_t budget)
{
    while (cache_bytes > budget) {
        ari_rows **victim = NULL;
        for (ari_rows **p = &cache_head; *p; p = &(*p)->next)
            if ((*p)->refs == 0 && (!victim || (*p)->last_use < (*victim)->last_use))
                victim = p;
        if (!victim)
            return;
        ari_rows *r = *victim;
        *victim = r->next;
        cache_bytes -= r->bytes;
        rows_free(r);
    }
}

static ari_rows *find_locked(const char *key)
{
    for (ari_rows *r = cache_head; r; r = r->next) {
        if (strcmp(r->key, key) == 0) {
            r->refs++;
            r->last_use = ++cache_clock;
            return r;
        }
    }
    return NULL;
}

ari_rows *ari_rows_acquire(ari_store *s, const ari_tq_meta *meta, const char *key, ari_error *err)
{
    pthread_mutex_lock(&cache_mu);
    ari_rows *hit = find_locked(key);
    pthread_mutex_unlock(&cache_mu);
    if (hit)
        return hit;
    int64_t trace_id = strtoll(key, NULL, 10);
    ari_rows *fresh = rows_load(s, meta, trace_id, err);
    if (!fresh)
        return NULL;
    snprintf(fresh->key, sizeof fresh->key, "%s", key);
    pthread_mutex_lock(&cache_mu);
    hit = find_locked(key); /* another request may have loaded it meanwhile */
    if (hit) {
        pthread_mutex_unlock(&cache_mu);
        rows_free(fresh);
        return hit;
    }
    fresh->refs = 1;
    fresh->last_use = ++cache_clock;
    fresh->next = cache_head;
    cache_head = fresh;
    cache_bytes += fresh->bytes;
    evict_locked(cache_budget);
    pthread_mutex_unlock(&cache_mu);
    return fresh;
}

void ari_rows_release(ari_rows *rows)
{
    if (!rows)
        return;
    pthread_mutex_lock(&cache_mu);
    rows->refs--;
    evict_locked(cache_budget);
    pthread_mutex_unlock(&cache_mu);
}

void ari_rows_set_budget(size_t bytes)
{
    pthread_mutex_lock(&cache_mu);
    cache_budget = bytes;
    evict_locked(cache_budget);
    pthread_mutex_unlock(&cache_mu);
}

void ari_rows_flush(void)
{
    pthread_mutex_lock(&cache_mu);
    evict_locked(0);
    pthread_mutex_unlock(&cache_mu);
}
