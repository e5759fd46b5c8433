/* message_cache.h: the messages of recently drawn event traces, kept in
 * memory by send time (store/event_message_window.h) so that a timeline
 * request finds its window's messages with a binary search instead of
 * reading them from SQLite each time.
 *
 * An entry is keyed by the trace's key (ari_tq_trace.key: id, created_at,
 * sha256): a deleted trace is never answered (the handler finds no trace
 * first) and a re-imported one has another key; stale entries age out.
 * Entries are shared read-only between threads and reference counted; at
 * most MSG_CACHE_ENTRIES traces of at most ARI_EMW_MAX_MESSAGES messages
 * and MSG_CACHE_BUDGET bytes in all, the least recently used dropped once
 * nobody holds them. A trace with more messages is remembered as such
 * (its windows are read from SQLite). */
#ifndef ARIADNE_MESSAGE_CACHE_H
#define ARIADNE_MESSAGE_CACHE_H

#include "store/event_message_window.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

#define MSG_CACHE_ENTRIES 4
#define MSG_CACHE_BUDGET  ((size_t)256 << 20)

typedef struct msg_cached msg_cached;

/* The messages of trace t, loaded (and cached) when absent. 0 with *out
 * (release it with msg_cache_release) and *list (valid until then), 1 when
 * the trace has too many messages to cache, -1 with err set. */
int msg_cache_acquire(ari_store *s, const ari_tq_trace *t, msg_cached **out, const ari_emw_list **list,
                      ari_error *err);
void msg_cache_release(msg_cached *c);
/* Drops every entry nobody holds (tests, shutdown). */
void msg_cache_clear(void);

#endif
