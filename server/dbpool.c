/* dbpool.c: a mutex-and-condition-variable pool of SQLite connections. */
#include "dbpool.h"

#include <pthread.h>
#include <stdlib.h>

struct ari_dbpool {
    pthread_mutex_t mu;
    pthread_cond_t available;
    ari_store **free_list;
    unsigned nfree, size;
    ari_store **all;
};

ari_dbpool *ari_dbpool_open(const char *path, unsigned size, ari_error *err)
{
    ari_dbpool *p = calloc(1, sizeof *p);
    if (!p || !(p->all = calloc(size, sizeof *p->all)) || !(p->free_list = calloc(size, sizeof *p->free_list))) {
        if (p)
            free(p->all);
        free(p);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->available, NULL);
    for (unsigned i = 0; i < size; i++) {
        if (!(p->all[i] = ari_store_open(path, err)) || ari_store_map(p->all[i], err) < 0) {
            if (p->all[i])
                p->size++; /* closed with the others */
            ari_dbpool_close(p);
            return NULL;
        }
        p->size++;
        p->free_list[p->nfree++] = p->all[i];
    }
    return p;
}

ari_store *ari_dbpool_acquire(ari_dbpool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->nfree == 0)
        pthread_cond_wait(&p->available, &p->mu);
    ari_store *s = p->free_list[--p->nfree];
    pthread_mutex_unlock(&p->mu);
    return s;
}

ari_store *ari_dbpool_try_acquire(ari_dbpool *p)
{
    pthread_mutex_lock(&p->mu);
    ari_store *s = p->nfree > 0 ? p->free_list[--p->nfree] : NULL;
    pthread_mutex_unlock(&p->mu);
    return s;
}

void ari_dbpool_release(ari_dbpool *p, ari_store *s)
{
    if (!s)
        return;
    ari_store_settle(s); /* no statement, snapshot or transaction outlives a request */
    pthread_mutex_lock(&p->mu);
    p->free_list[p->nfree++] = s;
    pthread_cond_signal(&p->available);
    pthread_mutex_unlock(&p->mu);
}

void ari_dbpool_close(ari_dbpool *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->size; i++)
        ari_store_close(p->all[i]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->available);
    free(p->all);
    free(p->free_list);
    free(p);
}
