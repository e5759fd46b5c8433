/* metrics_writer.h: the store's writer for sampled-metrics traces (kind
 * 'pdes', sql/014_metrics.sql). It implements the readers' metrics sink
 * (ingest/metrics_sink.h): entities, metrics and time points are kept in
 * maps, values accumulate as (sum, count) per (metric, entity, time) so
 * that duplicate samples average, communication rows as sparse triples.
 * At finish the time points are sorted by their key, RbPrim is derived as
 * RbTotal - RbSec when both exist (spec 1.1), and everything is written,
 * with the summary, inside the import's transaction.
 *
 * Memory: 12 bytes per (metric, entity, time) cell that a file touches,
 * capped at ARI_MT_MAX_CELLS (too_large beyond), and 24 bytes per
 * non-zero communication entry, capped at ARI_MT_MAX_COMM.
 */
#ifndef ARIADNE_METRICS_WRITER_H
#define ARIADNE_METRICS_WRITER_H

#include <stdint.h>

#include "ingest/metrics_sink.h"
#include "store/store.h"
#include "store/trace_writer.h"
#include "util/error.h"

#define ARI_MT_MAX_CELLS ((int64_t)1 << 28)
#define ARI_MT_MAX_COMM ((int64_t)1 << 27)
#define ARI_MT_MAX_ENTITIES 1000000
#define ARI_MT_MAX_METRICS 4096

typedef struct ari_metrics_writer ari_metrics_writer;

ari_metrics_writer *ari_metrics_writer_begin(ari_trace_writer *w, ari_error *err);
/* For an existing trace row (tests, tools). */
ari_metrics_writer *ari_metrics_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err);

const ari_metrics_sink *ari_metrics_writer_sink(ari_metrics_writer *mw);
/* The error that made a sink callback fail (code empty if none). */
const ari_error *ari_metrics_writer_error(const ari_metrics_writer *mw);
/* Adds "key": json_value to the trace's summary (summary = 1) or meta
 * (summary = 0) at finish; json_value must be valid JSON. */
int ari_metrics_writer_note(ari_metrics_writer *mw, int summary, const char *key, const char *json_value);
/* The number of entities of a level so far (for the formats' checks). */
int64_t ari_metrics_writer_count(const ari_metrics_writer *mw, const char *level);
int ari_metrics_writer_finish(ari_metrics_writer *mw, ari_error *err);
void ari_metrics_writer_free(ari_metrics_writer *mw);

#endif
