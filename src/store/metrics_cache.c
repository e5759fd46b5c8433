/* metrics_cache.c: the process's cache of pdes metric rows
 * (metrics_cache.h): a short list under one mutex, least recently used
 * first out. */
#include "store/metrics_cache.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

struct ari_mt_rows {
    char key[160];
    double *values;
    size_t bytes;
    int refs;
    int kept; /* in the list; else freed at its last release */
    uint64_t used;
    ari_mt_rows *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ari_mt_rows *entries;
static size_t budget = (size_t)512 << 20, total;
static uint64_t ticks;

static void entry_free(ari_mt_rows *r)
{
    free(r->values);
    free(r);
}

/* Drops unheld entries, oldest first, until total <= budget. Locked. */
static void evict(void)
{
    while (total > budget) {
        ari_mt_rows **victim = NULL;
        for (ari_mt_rows **p = &entries; *p; p = &(*p)->next)
            if ((*p)->refs == 0 && (!victim || (*p)->used < (*victim)->used))
                victim = p;
        if (!victim)
            return;
        ari_mt_rows *r = *victim;
        *victim = r->next;
        total -= r->bytes;
        entry_free(r);
    }
}

int ari_mt_rows_scan(ari_store *s, int64_t trace_id, int64_t metric_id, size_t ntimes, ari_mt_row_fn fn, void *ctx,
                     ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(metric_id)};
    ari_stmt *st = ari_store_bound(s, "SELECT entity_id, vals FROM mt_values WHERE trace_id = ?1 AND metric_id = ?2",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t e = ari_col_int64(st, 0);
        int bad = (size_t)ari_col_bytes(st, 1) != ntimes * sizeof(double);
        if (bad)
            ari_error_set(err, ARI_E_DB, "trace %lld: corrupt values", (long long)trace_id);
        if (bad || fn(ctx, e, ari_col_blob(st, 1), err) < 0) {
            ari_reset(st);
            return -1;
        }
    }
    return ari_store_rows_end(s, st, rc, "values", err);
}

/* The cache's reading: a row into its place; an entity out of range is corrupt. */
typedef struct rows_target {
    double *values;
    size_t nentities, ntimes;
    int64_t trace_id;
} rows_target;

static int put_row(void *ctx, int64_t e, const double *row, ari_error *err)
{
    rows_target *t = ctx;
    if (e < 0 || (size_t)e >= t->nentities)
        return ari_error_set(err, ARI_E_DB, "trace %lld: corrupt values", (long long)t->trace_id);
    memcpy(t->values + (size_t)e * t->ntimes, row, t->ntimes * sizeof(double));
    return 0;
}

/* The stored rows into values (NaN-filled first). */
static int read_rows(ari_store *s, int64_t trace_id, int64_t metric_id, size_t nentities, size_t ntimes,
                     double *values, ari_error *err)
{
    for (size_t k = 0; k < nentities * ntimes; k++)
        values[k] = NAN;
    rows_target t = {values, nentities, ntimes, trace_id};
    return ari_mt_rows_scan(s, trace_id, metric_id, ntimes, put_row, &t, err);
}

static ari_mt_rows *find(const char *key)
{
    for (ari_mt_rows *r = entries; r; r = r->next)
        if (strcmp(r->key, key) == 0)
            return r;
    return NULL;
}

ari_mt_rows *ari_mt_rows_acquire(ari_store *s, int64_t trace_id, const char *stamp, int64_t metric_id,
                                 size_t nentities, size_t ntimes, ari_error *err)
{
    char key[160];
    snprintf(key, sizeof key, "%lld|%s|%lld", (long long)trace_id, stamp, (long long)metric_id);
    size_t bytes = nentities * ntimes * sizeof(double);
    pthread_mutex_lock(&lock);
    ari_mt_rows *r = find(key);
    if (r) {
        r->refs++;
        r->used = ++ticks;
    }
    int fits = bytes <= budget;
    pthread_mutex_unlock(&lock);
    if (r || !fits)
        return r;
    /* read outside the lock: two requests may both read; the second to
     * finish keeps its copy out of the list */
    r = calloc(1, sizeof *r);
    if (r)
        r->values = malloc(bytes ? bytes : 1);
    if (!r || !r->values) {
        if (r)
            entry_free(r);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    if (read_rows(s, trace_id, metric_id, nentities, ntimes, r->values, err) < 0) {
        entry_free(r);
        return NULL;
    }
    snprintf(r->key, sizeof r->key, "%s", key);
    r->bytes = bytes;
    r->refs = 1;
    pthread_mutex_lock(&lock);
    r->used = ++ticks;
    if (!find(key)) {
        r->kept = 1;
        r->next = entries;
        entries = r;
        total += bytes;
        evict();
    }
    pthread_mutex_unlock(&lock);
    return r;
}

const double *ari_mt_rows_values(const ari_mt_rows *r)
{
    return r->values;
}

void ari_mt_rows_release(ari_mt_rows *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&lock);
    int last = --r->refs == 0 && !r->kept;
    if (r->refs == 0 && r->kept)
        evict();
    pthread_mutex_unlock(&lock);
    if (last)
        entry_free(r);
}

void ari_mt_rows_set_budget(size_t bytes)
{
    pthread_mutex_lock(&lock);
    budget = bytes;
    evict();
    pthread_mutex_unlock(&lock);
}
