/* state_chunks.h: the states of a container packed in chunks
 * (sql/016_events.sql, state_chunks), so that a timeline window reads the
 * few chunks that overlap it instead of every state that started before
 * its end (a nested call tree keeps `main` open over the whole trace, so
 * the `states` index on start cannot bound such a read).
 *
 * Written at import instead of `states` rows when the importer asks
 * (ari_trace_writer_pack_states: event traces, whose millions of calls
 * would cost a row and an index entry each), read by every reader of
 * such a trace's states: the timeline (state_queries.c), pIC
 * (pic_queries.c), the function analyses and the wait states
 * (event_state_queries.c, event_queries.c). Chunks hold the states in the
 * order they were written; memory while writing: at most
 * ARI_STATE_CHUNK_STATES per container, ARI_STATE_PACKER_MAX in all
 * (beyond it every buffer is flushed, making shorter chunks).
 */
#ifndef ARIADNE_STATE_CHUNKS_H
#define ARIADNE_STATE_CHUNKS_H

#include <stdint.h>

#include "analysis/gantt_aggregation.h" /* ari_gantt_state */
#include "store/store.h"
#include "util/error.h"

#define ARI_STATE_CHUNK_STATES 2048
#define ARI_STATE_PACKER_MAX   (1 << 20)

typedef struct ari_state_packer ari_state_packer;

ari_state_packer *ari_state_packer_new(ari_store *s, int64_t trace_id, ari_error *err);
/* Adds one state of container (id) and state type (id). */
int ari_state_packer_add(ari_state_packer *p, int64_t container, int64_t type, int value, int depth,
                         double start, double end, ari_error *err);
/* Writes what is buffered. */
int ari_state_packer_finish(ari_state_packer *p, ari_error *err);
void ari_state_packer_free(ari_state_packer *p);

/* The states of (container, type) overlapping [t0, t1] (start <= t1 and
 * end >= t0), sorted by (start, depth) when `sorted` (else in the chunks'
 * order), into *out (malloc'ed, *n of them;
 * *max_value the largest value id). Returns 1 if the container has chunks,
 * 0 if it has none (then nothing is read: the caller reads `states`), -1
 * on error. */
int ari_state_chunks_read(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t0, double t1,
                          int sorted, ari_gantt_state **out, int64_t *n, int *max_value, ari_error *err);

/* Calls fn on the states of (container, type) overlapping [t0, t1], in
 * (start, depth) order, holding at most `cap` states in memory (>= 2):
 * a container with more is read in slices of its start times, halved
 * while a slice holds more than cap. Returns 1 when the container has
 * chunks (fn saw them all, or stopped with -1: then -1), 0 when it has
 * none, -1 on error (ARI_E_TOO_LARGE: more than cap states start at one
 * instant). */
typedef int (*ari_state_chunks_fn)(void *ctx, const ari_gantt_state *st, ari_error *err);
int ari_state_chunks_each(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t0, double t1,
                          int64_t cap, ari_state_chunks_fn fn, void *ctx, ari_error *err);

/* What ari_state_chunks_batch says of a container. */
enum {
    ARI_CHUNKS_NONE,  /* it has no chunks: the caller reads `states` */
    ARI_CHUNKS_READ,  /* here are its states (perhaps none in the window) */
    ARI_CHUNKS_LARGE, /* more than cap states: the caller reads it alone */
};
/* Receives containers[i]'s states (malloc'ed, owned by fn from then on;
 * NULL when n is 0) and their largest value id: 0 for the next, 1 to stop
 * there (without error), or -1 with err set. */
typedef int (*ari_state_chunks_batch_fn)(void *ctx, size_t i, int what, ari_gantt_state *st, int64_t n,
                                         int max_value, ari_error *err);
/* ari_state_chunks_read for many containers (distinct or not) at once, in
 * few statements: fn gets each of containers[0, n) in order, with its
 * states of `type` overlapping [t0, t1], sorted by (start, depth) when
 * `sorted` (in the order ari_state_chunks_read gives). At most `cap`
 * states are held at a time: a container with more is handed to fn as
 * ARI_CHUNKS_LARGE, without states. 0 (also when fn stopped with 1), or
 * -1 with err set (fn's -1). */
int ari_state_chunks_batch(ari_store *s, int64_t trace_id, int64_t type, const int64_t *containers, size_t n,
                           double t0, double t1, int sorted, int64_t cap, ari_state_chunks_batch_fn fn, void *ctx,
                           ari_error *err);

/* The innermost state of (container, type) at time t: among the states
 * with start <= t (start < t when `strict`) and end >= t, the latest
 * start, then the deepest. 1 found (*out), 0 none, -1 on error. */
int ari_state_chunks_at(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t, int strict,
                        ari_gantt_state *out, ari_error *err);

/* Sets seen[v] = 1 for every value id v < nseen of the trace's packed
 * states. 0 or -1. */
int ari_state_chunks_values(ari_store *s, int64_t trace_id, unsigned char *seen, int64_t nseen, ari_error *err);

/* Whether the trace keeps its states in chunks: 1, 0 or -1. */
int ari_state_chunks_present(ari_store *s, int64_t trace_id, ari_error *err);

#endif
