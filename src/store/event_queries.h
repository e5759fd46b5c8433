/* event_queries.h: what the communication analyses of an event trace
 * (kind "events") read from the store: its locations (ev_locations), its
 * matched messages (message_chunks.h), streamed one by one, the extent
 * of its events, and for the wait states the Function state (Paje state
 * type alias "F") in which each side of a message happened. Nothing here
 * holds all messages in memory (those read in send order are sorted at
 * most 512 Ki at a time): callbacks get one message at a time (return
 * non-zero from one to stop: the call then returns that value). Times in
 * the trace's unit (ns). */
#ifndef ARIADNE_EVENT_QUERIES_H
#define ARIADNE_EVENT_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/event_comm.h"
#include "store/store.h"
#include "util/error.h"

typedef struct ari_evq_location {
    int64_t container_id, process_id;
    int32_t rank, thread;
} ari_evq_location;

/* The locations by rank then thread, *out malloc'd (NULL when none). 0 or
 * -1. */
int ari_evq_locations(ari_store *s, int64_t id, ari_evq_location **out, size_t *n, ari_error *err);
/* The distinct ranks, ascending, *out malloc'd. 0 or -1. */
int ari_evq_ranks(ari_store *s, int64_t id, int32_t **out, int *n, ari_error *err);

/* The extent of the trace's events: the earliest state start, instant or
 * send, and the latest event of any location (its Thread container's end).
 * *lo = *hi = NAN when the trace has none. 0 or -1. */
int ari_evq_extent(ari_store *s, int64_t id, double *lo, double *hi, ari_error *err);

/* The message sides the import left unmatched (summary_json's
 * unmatched_sends and unmatched_receives; 0 when absent). 0 or -1. */
int ari_evq_unmatched(ari_store *s, int64_t id, int64_t *sends, int64_t *receives, ari_error *err);

/* ---- messages ---- */

typedef int (*ari_evq_message_fn)(void *ctx, const ari_ec_message *m);

/* The number of messages sent in [t0, t1] (NAN bounds are open). */
int ari_evq_message_count(ari_store *s, int64_t id, double t0, double t1, int64_t *n, ari_error *err);
/* The messages sent in [t0, t1], by send time (then receive time), from
 * `offset`, at most `limit` (< 0: all). 0, -1, or fn's non-zero value. */
int ari_evq_messages(ari_store *s, int64_t id, double t0, double t1, int64_t offset, int64_t limit,
                     ari_evq_message_fn fn, void *ctx, ari_error *err);

/* Each message's (sender rank, receiver rank, bytes, 1), in no set
 * order, for the caller to sum. */
typedef int (*ari_evq_pair_fn)(void *ctx, int32_t src, int32_t dst, int64_t bytes, int64_t count);
int ari_evq_pairs(ari_store *s, int64_t id, ari_evq_pair_fn fn, void *ctx, ari_error *err);

/* The smallest and largest message size and the number of messages
 * (*n = 0: no message, min and max NAN). 0 or -1. */
int ari_evq_size_range(ari_store *s, int64_t id, double *min, double *max, int64_t *n, ari_error *err);
/* Each distinct message size with the number of messages of that size. */
typedef int (*ari_evq_value_fn)(void *ctx, double value, double weight);
int ari_evq_sizes(ari_store *s, int64_t id, ari_evq_value_fn fn, void *ctx, ari_error *err);
/* Each message's send (side 0) or receive (side 1) time with its bytes. */
int ari_evq_side_times(ari_store *s, int64_t id, int side, ari_evq_value_fn fn, void *ctx, ari_error *err);

/* ---- wait states ---- */

/* Every message with the Function states its send and its receive happened
 * in (the innermost one containing the time on the side's location; at a
 * boundary the send takes the state that starts there, the receive the one
 * that ends there). The calls' names live until fn returns. */
typedef int (*ari_evq_calls_fn)(void *ctx, const ari_ec_message *m, const ari_ec_call *send,
                                const ari_ec_call *recv);
int ari_evq_message_calls(ari_store *s, int64_t id, ari_evq_calls_fn fn, void *ctx, ari_error *err);

/* ---- the timeline ---- */

/* The messages drawn in [t0, t1]: sent before t1 and received after t0;
 * *pairs: the distinct (sending, receiving) containers among them. */
int ari_evq_window_count(ari_store *s, int64_t id, double t0, double t1, int64_t *n, int64_t *pairs,
                         ari_error *err);
/* Those messages one by one (by send time), or bundled per (src, dst,
 * send time bucket: `buckets` equal ones over [t0, t1], clamped to the
 * window): then m carries the bundle's mean send and receive times, summed
 * bytes, and *count its messages; bundles come largest first. At most
 * `limit` entries (0: all). */
typedef int (*ari_evq_bundle_fn)(void *ctx, const ari_ec_message *m, int64_t count);
int ari_evq_window_messages(ari_store *s, int64_t id, double t0, double t1, int bundle, int buckets,
                            int64_t limit, ari_evq_bundle_fn fn, void *ctx, ari_error *err);

/* The trace's longest message (receive time - send time, from its summary),
 * HUGE_VAL when unknown: the messages drawn in a window [t0, t1] were all
 * sent in [t0 - span, t1]. 0 or -1. */
int ari_evq_max_span(ari_store *s, int64_t id, double *span, ari_error *err);

#endif
