/* dbpool.h: a fixed pool of database connections shared by the HTTP
 * threads; a request borrows one for the time of its handler. */
#ifndef ARIADNE_DBPOOL_H
#define ARIADNE_DBPOOL_H

#include "store/store.h"

typedef struct ari_dbpool ari_dbpool;

ari_dbpool *ari_dbpool_open(const char *path, unsigned size, ari_error *err);
ari_store *ari_dbpool_acquire(ari_dbpool *p);
/* A free connection, or NULL at once when every one is in use (a request
 * that wants a second one for parallel reading must not wait for it). */
ari_store *ari_dbpool_try_acquire(ari_dbpool *p);
void ari_dbpool_release(ari_dbpool *p, ari_store *s);
void ari_dbpool_close(ari_dbpool *p);

#endif
