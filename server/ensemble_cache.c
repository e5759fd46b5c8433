/* ensemble_cache.c: the loaded ensembles of this process (ensemble_cache.h):
 * a short list of entries under one mutex, evicted least recently used. */
#include "ensemble_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"

struct ens_cached {
    char *key;
    ari_ensemble_profiles prof;
    ari_ecct ecct;
    size_t bytes;
    int refs;
    int dropped; /* out of the list: freed at its last release */
    uint64_t used;
    ens_cached *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ens_cached *entries;
static size_t budget = (size_t)512 << 20, total;
static uint64_t clock_ticks;

static void entry_free(ens_cached *c)
{
    ari_ecct_free(&c->ecct);
    ari_ensemble_profiles_free(&c->prof);
    free(c->key);
    free(c);
}

/* "f|id stamp|id stamp|...": the selection and what each member is. */
static char *make_key(const ari_ensemble *e, const int64_t *runs, int nruns, int full)
{
    ari_sbuf b = {0};
    ari_sbuf_printf(&b, "%d", full);
    for (int m = 0; m < e->nmembers; m++) {
        int chosen = nruns == 0;
        for (int k = 0; k < nruns && !chosen; k++)
            chosen = runs[k] == e->members[m].trace_id;
        if (chosen)
            ari_sbuf_printf(&b, "|%lld %s", (long long)e->members[m].trace_id, e->members[m].trace_stamp);
    }
    return ari_sbuf_take(&b);
}

/* A rough size: the arrays and strings the entry holds. */
static size_t entry_bytes(const ens_cached *c)
{
    size_t n = (size_t)c->ecct.nnodes * (64 + (size_t)c->ecct.nmembers * 12);
    for (int k = 0; k < c->prof.n; k++) {
        const ari_cct *t = &c->prof.ccts[k];
        size_t per_node = 48 + 40; /* arrays, and strings (interned or not) */
        per_node += (size_t)t->nmetrics * (t->values ? (size_t)t->nprocs * 8 : 16);
        n += (size_t)t->nnodes * per_node + (size_t)t->nprocs * 8;
    }
    return n;
}

/* The second half of the members, loaded on another connection. */
typedef struct half_load {
    ari_store *db;
    const ari_ensemble *e;
    ari_ensemble_profiles *prof;
    int full, from, to, rc;
    ari_error err;
} half_load;

static void *load_half(void *arg)
{
    half_load *h = arg;
    h->rc = ari_ensemble_profiles_load_range(h->db, h->e, h->full, h->prof, h->from, h->to, &h->err);
    return NULL;
}

/* Loads the selected members, the second half on a spare connection of the
 * pool in a thread of its own when one is free at once (two cores read
 * twice as fast: reading is most of a first request's time). */
static int load_members(ari_store *s, ari_dbpool *pool, const ari_ensemble *e, int full,
                        ari_ensemble_profiles *prof, ari_error *err)
{
    int n = prof->n, mid = n / 2;
    ari_store *spare = pool && n >= 16 ? ari_dbpool_try_acquire(pool) : NULL;
    half_load h = {.db = spare, .e = e, .prof = prof, .full = full, .from = mid, .to = n};
    pthread_t thread;
    int threaded = spare && pthread_create(&thread, NULL, load_half, &h) == 0;
    int rc = ari_ensemble_profiles_load_range(s, e, full, prof, 0, threaded ? mid : n, err);
    if (threaded) {
        pthread_join(thread, NULL);
        if (rc == 0 && h.rc != 0) {
            *err = h.err;
            rc = -1;
        }
    }
    if (spare)
        ari_dbpool_release(pool, spare);
    return rc;
}

static int build(ari_store *s, ari_dbpool *pool, const ari_ensemble *e, const int64_t *runs, int nruns, int full,
                 ens_cached *c, ari_error *err)
{
    if (ari_ensemble_profiles_select(e, runs, nruns, &c->prof, err) < 0 ||
        load_members(s, pool, e, full, &c->prof, err) < 0)
        return -1;
    const ari_cct **members = malloc((c->prof.n ? (size_t)c->prof.n : 1) * sizeof *members);
    if (!members)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int k = 0; k < c->prof.n; k++)
        members[k] = &c->prof.ccts[k];
    int rc = ari_ecct_build(members, c->prof.n, &c->ecct, err);
    free((void *)members);
    return rc;
}

/* Unlinks unheld entries, oldest first, until total <= budget. Locked. */
static void evict(void)
{
    while (total > budget) {
        ens_cached **victim = NULL;
        for (ens_cached **p = &entries; *p; p = &(*p)->next)
            if ((*p)->refs == 0 && (!victim || (*p)->used < (*victim)->used))
                victim = p;
        if (!victim)
            return;
        ens_cached *c = *victim;
        *victim = c->next;
        total -= c->bytes;
        entry_free(c);
    }
}

static ens_cached *find(const char *key)
{
    for (ens_cached *c = entries; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

static void share(const ens_cached *c, ari_ensemble_profiles *prof, ari_ecct *ecct)
{
    *prof = c->prof;
    *ecct = c->ecct;
}

ens_cached *ens_cache_acquire(ari_store *s, ari_dbpool *pool, const ari_ensemble *e, const int64_t *runs,
                              int nruns, int full, ari_ensemble_profiles *prof, ari_ecct *ecct, ari_error *err)
{
    char *key = make_key(e, runs, nruns, full);
    if (!key) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&lock);
    ens_cached *c = find(key);
    if (c) {
        c->refs++;
        c->used = ++clock_ticks;
    }
    pthread_mutex_unlock(&lock);
    if (c) {
        free(key);
        share(c, prof, ecct);
        return c;
    }
    /* Loaded outside the lock: two requests may both load; the second
     * to finish keeps its own copy out of the list. */
    c = calloc(1, sizeof *c);
    if (!c || build(s, pool, e, runs, nruns, full, c, err) < 0) {
        if (!c)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(key);
        if (c)
            entry_free(c);
        return NULL;
    }
    c->key = key;
    c->refs = 1;
    c->bytes = entry_bytes(c);
    pthread_mutex_lock(&lock);
    c->used = ++clock_ticks;
    if (c->bytes <= budget && !find(key)) {
        c->next = entries;
        entries = c;
        total += c->bytes;
        evict();
    } else {
        c->dropped = 1;
    }
    pthread_mutex_unlock(&lock);
    share(c, prof, ecct);
    return c;
}

void ens_cache_release(ens_cached *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&lock);
    int last = --c->refs == 0 && c->dropped;
    if (!last && c->refs == 0)
        evict();
    pthread_mutex_unlock(&lock);
    if (last)
        entry_free(c);
}

void ens_cache_set_budget(size_t bytes)
{
    pthread_mutex_lock(&lock);
    budget = bytes;
    evict();
    pthread_mutex_unlock(&lock);
}

void ens_cache_clear(void)
{
    pthread_mutex_lock(&lock);
    size_t keep = budget;
    budget = 0;
    evict();
    budget = keep;
    pthread_mutex_unlock(&lock);
}
