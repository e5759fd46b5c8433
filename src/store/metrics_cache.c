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

/* The stored rows into values (NaN-filled first). */
static int read_rows(ari_store *s, int64_t trace_id, int64_t metric_id, size_t nentities, size_t ntimes,
                     double *values, ari_error *err)
{
    for (size_t k = 0; k < nentities * ntimes; k++)
        values[k] = NAN;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(metric_id)};
    sqlite3_stmt *st = ari_store_bound(s, "SELECT entity_id, vals FROM mt_values WHERE trace_id = ?1 AND metric_id = ?2",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t e = sqlite3_column_int64(st, 0);
        if ((size_t)sqlite3_column_bytes(st, 1) != ntimes * sizeof(double) || e < 0 || (size_t)e >= nentities) {
            sqlite3_reset(st);
            return ari_error_set(err, ARI_E_DB, "trace %lld: corrupt values", (long long)trace_id);
        }
        memcpy(values + (size_t)e * ntimes, sqlite3_column_blob(st, 1), ntimes * sizeof(double));
    }
    return ari_store_rows_end(s, st, rc, "values", err);
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
