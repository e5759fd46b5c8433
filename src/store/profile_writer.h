/* profile_writer.h: the store's ari_profile_sink. It gathers a call-graph
 * profile in memory while a reader streams it (one value array per node
 * and metric, grown as processes appear), then at finish renumbers the
 * nodes depth first, sorts the processes, derives missing inclusive or
 * exclusive metrics, and writes cct_nodes, profile_metrics, profile_procs
 * and one BLOB per (metric, node) (sql/005_profiles.sql), with the profile
 * summary merged into traces.summary_json and its metadata into meta_json.
 *
 * Like the trace writer, it runs inside the import's transaction: the
 * caller commits or rolls back. Memory: the raw values (8 bytes per node,
 * process and metric) plus one dense copy of a metric at a time at finish.
 */
#ifndef ARIADNE_PROFILE_WRITER_H
#define ARIADNE_PROFILE_WRITER_H

#include <stdint.h>

#include "ingest/profile_sink.h"
#include "store/store.h"
#include "store/trace_writer.h"
#include "util/error.h"

typedef struct ari_profile_writer ari_profile_writer;

/* A writer for the profile of the trace being written by w (progress and
 * cancellation go through w). */
ari_profile_writer *ari_profile_writer_begin(ari_trace_writer *w, ari_error *err);
/* A writer for an existing trace row (tests, tools). */
ari_profile_writer *ari_profile_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err);

const ari_profile_sink *ari_profile_writer_sink(ari_profile_writer *pw);
/* The error that made a sink callback fail (code empty if none). */
const ari_error *ari_profile_writer_error(const ari_profile_writer *pw);
/* Validates the tree and writes everything. */
int ari_profile_writer_finish(ari_profile_writer *pw, ari_error *err);
void ari_profile_writer_free(ari_profile_writer *pw);

#endif
