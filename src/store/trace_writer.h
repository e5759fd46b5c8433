/* trace_writer.h: writing one trace into the store during an import.
 *
 * The writer inserts the trace row, exposes an ari_sink whose callbacks
 * insert rows with prepared statements, records the source files, and at
 * the end computes the trace's counts and summary. It must be used inside
 * the import's transaction (ari_store_begin): the caller commits or rolls
 * back, so a failed import leaves nothing behind.
 */
#ifndef ARIADNE_TRACE_WRITER_H
#define ARIADNE_TRACE_WRITER_H

#include <stdint.h>

#include "ingest/sink.h"
#include "store/store.h"
#include "util/error.h"

typedef struct ari_trace_writer ari_trace_writer;

typedef struct ari_writer_progress {
    void (*fn)(void *ctx, double fraction, const char *phase);
    void *ctx;
    const volatile int *cancel;
    uint64_t total_bytes; /* of the whole import, for the fraction */
} ari_writer_progress;

ari_trace_writer *ari_trace_writer_begin(ari_store *s, const char *name, const char *kind,
                                         const char *format, const char *time_unit,
                                         const ari_writer_progress *progress,
                                         uint64_t bytes_before, ari_error *err);
int64_t ari_trace_writer_id(const ari_trace_writer *w);
/* The sink a reader writes into. Its callbacks fail with the writer's error
 * (see ari_trace_writer_error) when the database fails or on cancellation. */
const ari_sink *ari_trace_writer_sink(ari_trace_writer *w);
/* Records a source file and announces that a reader starts on it: progress
 * from the sink is then taken as progress through this file. */
int ari_trace_writer_file(ari_trace_writer *w, const char *path, const char *name,
                          const char *role, ari_error *err);
/* The error that made a sink callback fail, if any (code empty if none). */
const ari_error *ari_trace_writer_error(const ari_trace_writer *w);
int ari_trace_writer_set_time_unit(ari_trace_writer *w, const char *unit);
/* Stores the trace's states packed in chunks (state_chunks.h) instead of
 * `states` rows: a timeline window then reads only the chunks it
 * overlaps, and an import of millions of calls writes no row and index
 * entry per call. Call before the first state. 0 or -1 (err). */
int ari_trace_writer_pack_states(ari_trace_writer *w, ari_error *err);
/* Stores the trace's events packed in chunks per container
 * (event_chunks.h) instead of `events` rows (event traces: hundreds of
 * thousands of collectives). Call before the first event. 0 or -1. */
int ari_trace_writer_pack_events(ari_trace_writer *w, ari_error *err);
/* Counts the trace's links without storing them: for importers that keep
 * them in a table of their own (event traces: message_chunks), which the
 * store's link queries read instead. */
void ari_trace_writer_skip_links(ari_trace_writer *w);
/* The same, saying how the unit was decided (stored as the trace's
 * time_unit_source, e.g. "detected: a StarPU paje.trace ...", "set by the
 * user"). A trace whose format never calls this has an empty source, shown
 * by the API as fixed by its format. */
int ari_trace_writer_set_time_unit_from(ari_trace_writer *w, const char *unit, const char *source);
/* Warnings: something the user should know about an import that still
 * succeeded (the trace's `warnings`, a list of {code, message}, shown by
 * GET /traces/{id}, the import job and `ariadned import`). code is a
 * stable snake_case word (e.g. "truncated_line"), message a sentence that
 * names the file and line. Keep to a handful per trace: each one is one
 * UPDATE. Returns 0, or -1 with the writer's error set. */
int ari_trace_writer_warn(ari_trace_writer *w, const char *code, const char *message);
/* The warnings so far as text, one "message (code)" per line ("" if none);
 * valid until the next warning or ari_trace_writer_free. */
const char *ari_trace_writer_warnings(const ari_trace_writer *w);
/* Computes counts and summary and stores them with meta_json (may be NULL). */
int ari_trace_writer_finish(ari_trace_writer *w, const char *meta_json, ari_error *err);
/* Bytes of input consumed, for the next writer of the same import. */
uint64_t ari_trace_writer_bytes_done(const ari_trace_writer *w);
void ari_trace_writer_free(ari_trace_writer *w);

#endif
