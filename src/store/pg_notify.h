/* pg_notify.h: PostgreSQL's LISTEN/NOTIFY for the store's other files
 * (job_queue.c): listening on a channel, notifying one, and waiting a
 * bounded time for a notification on a connection. libpq stays in the
 * store's pg_*.c files. */
#ifndef ARIADNE_PG_NOTIFY_H
#define ARIADNE_PG_NOTIFY_H

#include "store/pg_backend.h"

/* LISTEN / NOTIFY on `channel` (a plain identifier): ARI_OK or an error
 * code, with the connection's error set (ari_pg_errmsg). */
int ari_pg_listen(ari_pg_conn *c, const char *channel);
int ari_pg_notify(ari_pg_conn *c, const char *channel);

/* Waits up to timeout_ms for a notification on a connection that listens:
 * 1 if at least one arrived (all those waiting are consumed), 0 after the
 * timeout, -1 when the connection failed (its error set). */
int ari_pg_wait_notify(ari_pg_conn *c, int timeout_ms);

#endif
