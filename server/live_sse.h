/* live_sse.h: the Server-Sent Events side of a live run: a feed is the
 * ring of the last ARI_LIVE_RING messages of one run (each message one
 * ref-counted SSE frame shared by every viewer) and the viewers' sessions.
 *
 * A session is a libmicrohttpd response built on a content-reader callback
 * that never blocks: with nothing to send it suspends its connection
 * (MHD_suspend_connection), and a publication, a keepalive tick or the end
 * resumes it (MHD_resume_connection, always called outside the feed's lock).
 * Each session reads the ring through its own cursor; a session more than
 * ARI_LIVE_CLIENT_QUEUE messages behind (plus the backlog it was given when
 * it connected) is sent `event: resync` and closed. The daemon must run with
 * MHD_ALLOW_SUSPEND_RESUME, and ari_live_feed_end must be called on every
 * feed before MHD_stop_daemon (a suspended connection must not outlive it).
 */
#ifndef ARIADNE_LIVE_SSE_H
#define ARIADNE_LIVE_SSE_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_LIVE_RING 256          /* messages kept for Last-Event-ID resume */
#define ARI_LIVE_RING_BYTES (64u << 20) /* and at most this many bytes of them (the oldest go first) */
#define ARI_LIVE_CLIENT_QUEUE 64   /* unsent messages a slow client may have */
#define ARI_LIVE_KEEPALIVE_S 15.0  /* a ": keepalive" comment after this silence */

/* One SSE frame ("id: N\nevent: E\ndata: {...}\n\n"), shared read-only. */
typedef struct ari_live_msg {
    atomic_int refs;
    int64_t id;      /* the SSE id (a point's arrival seq); -1: none */
    int point;       /* an "event: point": one a client that has its id never gets again */
    size_t len;
    char text[];
} ari_live_msg;

/* A frame of `event` with `data` (one line of JSON) and id (>= 0 to write
 * an id: line). One reference, for the caller. NULL when out of memory. */
ari_live_msg *ari_live_msg_new(const char *event, int64_t id, const char *data, size_t data_len);
void ari_live_msg_ref(ari_live_msg *m);
void ari_live_msg_unref(ari_live_msg *m);

typedef struct ari_live_feed ari_live_feed;

/* sse_count: the daemon-wide count of open sessions, checked against
 * max_sessions at attach. */
ari_live_feed *ari_live_feed_new(atomic_int *sse_count, int max_sessions);
/* Drops the owner's reference; the feed is freed once its last session has
 * closed too. Ends the sessions first if ari_live_feed_end was not called. */
void ari_live_feed_release(ari_live_feed *f);

/* Appends m to the ring (takes a reference of its own) and wakes the
 * sessions waiting for it. */
void ari_live_feed_publish(ari_live_feed *f, ari_live_msg *m);
/* Empties the ring (the hub recomposes it, e.g. after a reload). */
void ari_live_feed_clear(ari_live_feed *f);
/* Sends ": keepalive" to every session silent for ARI_LIVE_KEEPALIVE_S (so
 * that vanished clients are noticed). Call about once a second. */
void ari_live_feed_tick(ari_live_feed *f);
/* Every session sends what it has, then `final` (a frame, may be NULL),
 * then ends; new sessions are refused. */
void ari_live_feed_end(ari_live_feed *f, const char *final);
size_t ari_live_feed_viewers(ari_live_feed *f);
/* The last message whose id is >= 0 (a reference for the caller) or NULL. */
ari_live_msg *ari_live_feed_last(ari_live_feed *f);

/* A new session on conn. last_id >= 0: the ring's messages with an id above
 * it are sent first (event: resync first if some of them have left the
 * ring); last_id < 0: only what is published from now on. *resp is the
 * response to queue (its free callback closes the session). Returns 0, or
 * -1 with err: busy (the session limit) or cancelled (the feed has ended). */
int ari_live_feed_attach(ari_live_feed *f, struct MHD_Connection *conn, int64_t last_id,
                         struct MHD_Response **resp, ari_error *err);

#endif
