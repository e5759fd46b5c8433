/* live_hub.h: one shared computation per live run (issue 18, contract18
 * section 3). A hub holds the run's in-memory data (store/live_data.h),
 * the online and progressive analyses' states, the shared controls and
 * the SSE feed (live_sse.h); its worker thread turns every arrived record
 * into ONE message, published to every viewer. Hubs are created on first
 * touch (a viewer, a control, an append), loaded from the store (after a
 * restart too: the online states are fed with every stored point and the
 * messages of the last ARI_LIVE_RING points recomposed, so a client that
 * reconnects with Last-Event-ID misses nothing), and freed after
 * ARI_LIVE_IDLE_S without viewers nor appends.
 *
 * Bounds: ARI_LIVE_MAX_HUBS hubs, ARI_LIVE_MAX_REPLAYS replay sessions,
 * ARI_LIVE_MAX_SSE event streams in all. */
#ifndef ARIADNE_LIVE_HUB_H
#define ARIADNE_LIVE_HUB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "store/live_data.h"

#define ARI_LIVE_MAX_HUBS 64
#define ARI_LIVE_MAX_REPLAYS 8
#define ARI_LIVE_MAX_SSE 256
#define ARI_LIVE_MAX_BACKLOG 1024   /* records received and not yet analysed; beyond: 503 backpressure */
#define ARI_LIVE_IDLE_S 600.0
#define ARI_LIVE_MAX_COMM 256       /* rows of a comm_live matrix in a message */
#define ARI_LIVE_MAX_COMM_VIEW 1024 /* rows of a /comm or /comm/diff matrix */

/* ---- called by api_streams.c (H3) ---- */
/* After a committed append: the hub (created if needed) applies the batch. */
void ari_live_hub_appended(ari_server *srv, int64_t trace_id, const struct ari_live_applied *applied);
/* After a close: the viewers get `event: closed`, then their streams end. */
void ari_live_hub_closed(ari_server *srv, int64_t trace_id);
/* Records received but not yet analysed (0 without a hub). */
size_t ari_live_hub_backlog(ari_server *srv, int64_t trace_id);

/* ---- the daemon (cmd_serve.c, http.c) ---- */
typedef struct ari_live_hubs ari_live_hubs;
ari_live_hubs *ari_live_hubs_new(ari_server *srv);
/* Ends every event stream and stops every worker (call before MHD_stop_daemon). */
void ari_live_hubs_shutdown(ari_live_hubs *hs);
void ari_live_hubs_free(ari_live_hubs *hs);

/* ---- the endpoints (api_stream_events.c) ---- */
typedef struct ari_live_hub ari_live_hub;
/* The hub of live run id (created and loaded if needed; waits for the
 * load). 0 and *out (a reference: ari_live_hub_put); 1 not a live run; -1
 * with err (busy: too many hubs; the load's error). */
int ari_live_hub_get(ari_server *srv, ari_store *db, int64_t id, ari_live_hub **out, ari_error *err);
void ari_live_hub_put(ari_live_hub *h);
int ari_live_hub_attach(ari_live_hub *h, struct MHD_Connection *conn, int64_t last_id, struct MHD_Response **resp,
                        ari_error *err);
/* The /state snapshot (a new reference, NULL when out of memory). */
json_t *ari_live_hub_state(ari_live_hub *h, const char *name);
/* Applies a control body; *out the new controls. db: where they are kept. */
int ari_live_hub_control(ari_live_hub *h, ari_store *db, json_t *body, json_t **out, ari_error *err);
/* /comm: t < 0 the latest; level NULL the granularity; group < 0 the whole level. */
json_t *ari_live_hub_comm(ari_live_hub *h, int64_t t, const char *level, int64_t group, ari_error *err);
/* /comm/diff: cps NULL or "all" = every change point, else "a,b,c". */
json_t *ari_live_hub_comm_diff(ari_live_hub *h, int64_t base, const char *cps, const char *level, int64_t group,
                               ari_error *err);
/* A replay of a closed run for one connection at hz points a second. */
int ari_live_replay_attach(ari_server *srv, ari_store *db, int64_t id, double hz, struct MHD_Connection *conn,
                           int64_t last_id, struct MHD_Response **resp, ari_error *err);

#endif
