/* conn_guard.h: deadlines for an idle connection and for a request's head,
 * which a slow client (slowloris) cannot push back. See conn_guard.c. */
#ifndef ARIADNE_CONN_GUARD_H
#define ARIADNE_CONN_GUARD_H

#include <microhttpd.h>

#include "util/error.h"

typedef struct ari_conn_guard ari_conn_guard;

/* Starts the reaper thread. A connection that sends no request line for
 * `idle_timeout` seconds after it opened or after its last response
 * (keep-alive), or whose request head is not complete `header_timeout`
 * seconds after its request line, is shut down. */
ari_conn_guard *ari_conn_guard_start(double header_timeout, double idle_timeout, ari_error *err);
/* Stops the reaper and frees the guard; call after MHD_stop_daemon. */
void ari_conn_guard_stop(ari_conn_guard *g);

/* The MHD_OPTION_NOTIFY_CONNECTION callback; cls is the guard. */
void ari_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode code);
/* The MHD_OPTION_URI_LOG_CALLBACK: a request line has come. Returns NULL
 * (no request state yet). */
void *ari_conn_guard_request_line(void *cls, const char *uri, struct MHD_Connection *conn);
/* The access handler's first call for a request: its headers are in. */
void ari_conn_guard_headers_received(struct MHD_Connection *conn);
/* A request completed (MHD_OPTION_NOTIFY_COMPLETED): the connection is
 * idle until the next request line. */
void ari_conn_guard_request_done(struct MHD_Connection *conn);

#endif
