/* event_writer.h: the store's side of an event trace (kind 'events', issue
 * 19) beyond its Paje rows: one ev_locations row per location
 * (sql/016_events.sql) and the matched messages in chunks of 2,048
 * (message_chunks.h, sql/018), heard from
 * event_paje's observer with the aliases of the Thread containers the
 * trace writer has stored, and at the end the trace's summary and counts
 * (ranks, locations, functions, events as Pipit counts them, messages,
 * what stayed unmatched, the reader's notes).
 *
 * It runs inside the import's transaction, on the trace writer's store,
 * like the other writers. Memory: one chunk of messages (112 KiB).
 */
#ifndef ARIADNE_EVENT_WRITER_H
#define ARIADNE_EVENT_WRITER_H

#include "ingest/event_paje.h"
#include "store/trace_writer.h"
#include "util/error.h"

typedef struct ari_event_writer ari_event_writer;

ari_event_writer *ari_event_writer_begin(ari_trace_writer *w, ari_error *err);
/* The observer to give event_paje (ari_event_paje_observe). */
const ari_event_paje_observer *ari_event_writer_observer(ari_event_writer *ew);
/* The error that made an observer callback fail (code empty if none). */
const ari_error *ari_event_writer_error(const ari_event_writer *ew);
/* Merges the read's report and the reader's notes (a JSON object, may be
 * NULL; left out if it is not valid JSON) into the trace's summary_json
 * and counts_json. */
int ari_event_writer_finish(ari_event_writer *ew, const ari_event_paje_report *rep, const char *notes_json,
                            ari_error *err);
void ari_event_writer_free(ari_event_writer *ew);

#endif
