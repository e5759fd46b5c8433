/* event_chunks.h: the Paje events (instants) of a trace packed in chunks
 * per container (sql/019_event_chunks.sql), as state_chunks.h packs its
 * states: one row of up to ARI_EVENT_CHUNK events instead of one `events`
 * row and B-tree entry each.
 *
 * Written at import instead of `events` rows when the importer asks
 * (ari_trace_writer_pack_events: event traces, whose collectives are
 * hundreds of thousands of instants), read by the readers of such a
 * trace's events (the extents in event_queries.c and
 * event_state_queries.c, through the chunks' t0 and t1;
 * ari_event_chunks_each for the events themselves). Memory while writing:
 * at most ARI_EVENT_CHUNK events a container, ARI_EVENT_PACKER_MAX bytes
 * in all (beyond, every buffer is flushed, making shorter chunks).
 */
#ifndef ARIADNE_EVENT_CHUNKS_H
#define ARIADNE_EVENT_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

#define ARI_EVENT_CHUNK          1024
#define ARI_EVENT_CHUNK_BYTES    (64 << 10) /* a chunk is flushed beyond this */
#define ARI_EVENT_PACKER_MAX     (8 << 20)
#define ARI_EVENT_RECORD_HEAD    28 /* seq, type, value, time, fields_len */
#define ARI_EVENT_MAX_FIELDS_LEN (1 << 20)

typedef struct ari_packed_event {
    int64_t seq, container;
    int32_t type_id, value_id;
    double time;
    const char *fields; /* JSON text, fields_len bytes, not NUL-ended; NULL when none */
    size_t fields_len;
} ari_packed_event;

/* ---- writing ---- */

typedef struct ari_event_packer ari_event_packer;

ari_event_packer *ari_event_packer_new(ari_store *s, int64_t trace_id, ari_error *err);
/* Adds an event (its container must fit in 32 bits; fields NULL: none). */
int ari_event_packer_add(ari_event_packer *p, const ari_packed_event *e, ari_error *err);
/* Writes what is buffered. */
int ari_event_packer_finish(ari_event_packer *p, ari_error *err);
void ari_event_packer_free(ari_event_packer *p);

/* ---- reading ---- */

/* Decodes a chunk's blob (bytes long, n events of container): fn on each
 * event, 0, fn's first non-zero answer, or -1 with err set (ARI_E_DB)
 * when the blob is malformed (a record past its end, n not its count). */
typedef int (*ari_event_chunks_fn)(void *ctx, const ari_packed_event *e);
int ari_event_blob_each(const unsigned char *blob, int64_t bytes, int64_t n, int64_t container,
                        ari_event_chunks_fn fn, void *ctx, ari_error *err);

/* Calls fn on the packed events of the trace with time in [t0, t1], of
 * one container (container > 0) or all, container by container, each in
 * writing order. Returns 0, fn's first non-zero answer, or -1. */
int ari_event_chunks_each(ari_store *s, int64_t trace_id, int64_t container, double t0, double t1,
                          ari_event_chunks_fn fn, void *ctx, ari_error *err);

#endif
