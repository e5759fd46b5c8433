/* event_ctx.h: what every event-trace endpoint (kind "events": OTF2,
 * Projections, HPCToolkit trace.db) shares: opening the trace of the
 * request path with its checks, and answering with "trace_id" and
 * "time_unit". The store connection is the request's (r->db). */
#ifndef ARIADNE_EVENT_CTX_H
#define ARIADNE_EVENT_CTX_H

#include <jansson.h>

#include "server.h"
#include "store/task_queries.h"
#include "util/error.h"

/* Opens the trace of path parameter 0 into *t (id, name, kind, time_unit
 * ("ns" for event traces), time_origin). Returns 0 to go on (close *t with
 * ari_event_trace_close), or -1 after answering: 400 bad id, 404 no such
 * trace, 409 not_event_trace when its kind is not "events", 500 store
 * error. */
int ari_event_trace_open(ari_request *r, ari_tq_trace *t);
void ari_event_trace_close(ari_tq_trace *t);

/* Appends o (taken; NULL when it could not be built) to list: 0, or -1
 * with an out-of-memory error in err. */
int ari_event_append(json_t *list, json_t *o, ari_error *err);
/* Sets err to out of memory; returns -1. */
int ari_event_nomem(ari_error *err);

/* Answers an event analysis and closes *t: doc (taken) with "trace_id"
 * and "time_unit" added, reals at 15 significant digits; when doc is NULL,
 * the error in *err (500 when err is NULL or empty). */
enum MHD_Result ari_event_reply(ari_request *r, ari_tq_trace *t, json_t *doc, const ari_error *err);

#endif
