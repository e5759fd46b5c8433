/* event_message_window.h: the messages of an event trace drawn in a
 * timeline window (sent before its end, received after its start), read
 * into memory (only the fields the timeline draws) and counted, listed or
 * bundled in C. It answers exactly what SQLite's count(DISTINCT) and GROUP
 * BY over ev_messages answered, as the streamed versions below (for
 * windows beyond a list: event_queries.h's ari_evq_window_count and
 * ari_evq_window_messages) do.
 *
 * A list holds messages by send time (then seq): either a window's
 * (ari_emw_load) or a whole trace's (ari_emw_load_trace, for a cache that
 * then answers every window with a binary search). Memory: 40 bytes a
 * message, at most `max` messages (beyond, the loaders give up and the
 * caller falls back to SQLite). */
#ifndef ARIADNE_STORE_EVENT_MESSAGE_WINDOW_H
#define ARIADNE_STORE_EVENT_MESSAGE_WINDOW_H

#include <stdint.h>

#include "analysis/event_comm.h" /* ari_ec_message */
#include "store/message_chunks.h"
#include "store/store.h"
#include "util/error.h"

#define ARI_EMW_MAX_MESSAGES (4 << 20)

typedef struct ari_emw_message {
    double send, recv;
    int64_t bytes;
    uint32_t pair; /* index into the list's pairs */
    int32_t src_rank, dst_rank;
} ari_emw_message;

typedef struct ari_emw_list {
    ari_emw_message *msgs; /* by send time, then seq */
    int64_t n;
    int64_t (*pairs)[2]; /* (src_container, dst_container), in order of first message */
    int64_t npairs;
    double span; /* the trace's longest message (recv - send); HUGE_VAL unknown */
} ari_emw_list;

/* Reads the messages of trace id drawn in [t0, t1] (send_time <= t1,
 * recv_time >= t0) at most max of them. 0, 1 when they are more (*l is
 * then empty), or -1 with err set. */
int ari_emw_load(ari_store *s, int64_t id, double t0, double t1, int64_t max, ari_emw_list *l,
                 ari_error *err);
/* Reads every message of trace id, at most max: 0, 1 when more, -1. */
int ari_emw_load_trace(ari_store *s, int64_t id, int64_t max, ari_emw_list *l, ari_error *err);
void ari_emw_free(ari_emw_list *l);
/* The bytes a list holds. */
size_t ari_emw_size(const ari_emw_list *l);

/* The messages of a list drawn in [t0, t1]: list[lo, hi) less those
 * received before t0 (and those of pairs not kept); n of them, between
 * npairs distinct (src, dst). */
typedef struct ari_emw_window {
    const ari_emw_list *list;
    const unsigned char *keep; /* [list->npairs]: 1 for the pairs kept; NULL: all */
    double t0, t1;
    int64_t lo, hi, n, npairs;
} ari_emw_window;

/* The window [t0, t1] of list l, only the messages of the pairs p with
 * keep[p] (keep NULL: all; it must outlive the window). 0, or -1 when out
 * of memory. */
int ari_emw_window_of(const ari_emw_list *l, double t0, double t1, const unsigned char *keep,
                      ari_emw_window *w, ari_error *err);
/* keep[p] for the pairs of l whose two containers are among ids[0, n)
 * (ascending); malloc'd ([npairs], at least 1 byte), NULL when out of
 * memory. */
unsigned char *ari_emw_keep_pairs(const ari_emw_list *l, const int64_t *ids, size_t n);

/* The window's messages one by one by send time (as ari_evq_window_messages
 * unbundled: count 1; tag, comm and the threads are not read: -1, -1, 0,
 * 0). Returns 0 or fn's first non-zero answer. */
typedef int (*ari_emw_fn)(void *ctx, const ari_ec_message *m, int64_t count);
int ari_emw_each(const ari_emw_window *w, ari_emw_fn fn, void *ctx);

/* The bundles of ari_evq_window_messages (bundle = 1): one per (column of
 * `buckets` over [t0, t1], src container, dst container) with its count,
 * summed bytes, smallest ranks and mean send and receive times (summed in
 * send-time order, as SQLite's avg), by count descending then column,
 * src, dst; at most `limit` (0: all). Returns 0, fn's first non-zero
 * answer, or -1 with err set. */
int ari_emw_bundles(const ari_emw_window *w, int buckets, int64_t limit, ari_emw_fn fn, void *ctx,
                    ari_error *err);

/* The same without a list, for any number of messages (message_chunks.h
 * sorts at most a bounded number at a time; memory: the pairs and the
 * bundles): the messages f keeps, counted with their distinct (src, dst)
 * containers, or bundled as ari_emw_bundles does over [t0, t1]. 0, fn's
 * first non-zero answer, or -1 with err set. */
int ari_emw_stream_count(ari_store *s, int64_t id, const ari_mc_filter *f, int64_t *n, int64_t *pairs,
                         ari_error *err);
int ari_emw_stream_bundles(ari_store *s, int64_t id, const ari_mc_filter *f, double t0, double t1, int buckets,
                           int64_t limit, ari_emw_fn fn, void *ctx, ari_error *err);

#endif
