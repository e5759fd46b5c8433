/* message_cache.c: the process's cache of event traces' messages for the
 * timeline (see message_cache.h): a small array of entries under one
 * mutex; loading happens outside it (two threads may load the same trace
 * at once: the second to finish uses the first's entry). */
#include "message_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct msg_cached {
    char key[160];
    ari_emw_list list;
    int too_large; /* more than ARI_EMW_MAX_MESSAGES: nothing kept */
    int refs;
    int cached; /* in the table (else freed at its last release) */
    uint64_t used;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static msg_cached *table[MSG_CACHE_ENTRIES];
static uint64_t clock_now;

static void entry_free(msg_cached *c)
{
    ari_emw_free(&c->list);
    free(c);
}

/* The entry of key, held; NULL when absent. Under mu. */
static msg_cached *find(const char *key)
{
    for (int i = 0; i < MSG_CACHE_ENTRIES; i++) {
        if (table[i] && strcmp(table[i]->key, key) == 0) {
            table[i]->refs++;
            table[i]->used = ++clock_now;
            return table[i];
        }
    }
    return NULL;
}

static size_t held_bytes(void)
{
    size_t b = 0;
    for (int i = 0; i < MSG_CACHE_ENTRIES; i++)
        if (table[i])
            b += ari_emw_size(&table[i]->list);
    return b;
}

/* Drops the least recently used entry nobody holds: 0, or -1 when none. */
static int drop_one(void)
{
    int victim = -1;
    for (int i = 0; i < MSG_CACHE_ENTRIES; i++)
        if (table[i] && table[i]->refs == 0 && (victim < 0 || table[i]->used < table[victim]->used))
            victim = i;
    if (victim < 0)
        return -1;
    entry_free(table[victim]);
    table[victim] = NULL;
    return 0;
}

/* Puts c (held once) in the table when room can be made; otherwise it
 * stays private and is freed at its release. Under mu. */
static void insert(msg_cached *c)
{
    size_t size = ari_emw_size(&c->list);
    if (size > MSG_CACHE_BUDGET)
        return;
    while (held_bytes() + size > MSG_CACHE_BUDGET)
        if (drop_one() < 0)
            return;
    int slot = -1;
    for (int i = 0; i < MSG_CACHE_ENTRIES && slot < 0; i++)
        if (!table[i])
            slot = i;
    if (slot < 0 && drop_one() == 0)
        for (int i = 0; i < MSG_CACHE_ENTRIES && slot < 0; i++)
            if (!table[i])
                slot = i;
    if (slot < 0)
        return;
    c->cached = 1;
    c->used = ++clock_now;
    table[slot] = c;
}

/* A new entry for t read from s, held once; NULL with err set. */
static msg_cached *load(ari_store *s, const ari_tq_trace *t, ari_error *err)
{
    msg_cached *c = calloc(1, sizeof *c);
    if (!c) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(c->key, sizeof c->key, "%s", t->key);
    c->refs = 1;
    int rc = ari_emw_load_trace(s, t->id, ARI_EMW_MAX_MESSAGES, &c->list, err);
    if (rc < 0) {
        free(c);
        return NULL;
    }
    c->too_large = rc == 1;
    return c;
}

int msg_cache_acquire(ari_store *s, const ari_tq_trace *t, msg_cached **out, const ari_emw_list **list,
                      ari_error *err)
{
    pthread_mutex_lock(&mu);
    msg_cached *c = find(t->key);
    pthread_mutex_unlock(&mu);
    if (!c) {
        msg_cached *mine = load(s, t, err);
        if (!mine)
            return -1;
        pthread_mutex_lock(&mu);
        c = find(t->key);
        if (!c) {
            c = mine;
            insert(c);
        }
        pthread_mutex_unlock(&mu);
        if (c != mine)
            entry_free(mine);
    }
    if (c->too_large) {
        msg_cache_release(c);
        return 1;
    }
    *out = c;
    *list = &c->list;
    return 0;
}

void msg_cache_release(msg_cached *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&mu);
    int last = --c->refs == 0 && !c->cached;
    pthread_mutex_unlock(&mu);
    if (last)
        entry_free(c);
}

void msg_cache_clear(void)
{
    pthread_mutex_lock(&mu);
    for (int i = 0; i < MSG_CACHE_ENTRIES; i++) {
        if (table[i] && table[i]->refs == 0) {
            entry_free(table[i]);
            table[i] = NULL;
        }
    }
    pthread_mutex_unlock(&mu);
}
