/* datamove_writer.h: the store's writer for data movement traces (kind
 * 'datamove', sql/006_datamove.sql). It takes a Chrome trace's slices,
 * counters, flows and metadata, nvidia-smi samples and a topology, and:
 *  - puts every event in one of four categories, by its device and context
 *    where the trace says so (an args.device, a GPU process, a cbid or a
 *    cuda_runtime category), by name only as a last resort;
 *  - turns memcpy/memset events into movements (source, destination,
 *    bytes, duration, bandwidth), with the trace's own bandwidth kept;
 *  - at finish, builds the time tiles, the 12-sector clock and the summary,
 *    and a topology from deviceProperties when the trace has none.
 *
 * It runs inside the import's transaction like the other writers. Memory:
 * 40 bytes per event (for the tiles and the clock), plus the tiles.
 */
#ifndef ARIADNE_DATAMOVE_WRITER_H
#define ARIADNE_DATAMOVE_WRITER_H

#include <stdint.h>

#include "ingest/chrome_trace.h"
#include "ingest/hwloc_xml.h"
#include "ingest/nvsmi_csv.h"
#include "store/store.h"
#include "store/trace_writer.h"
#include "util/error.h"

typedef struct ari_datamove_writer ari_datamove_writer;

ari_datamove_writer *ari_datamove_writer_begin(ari_trace_writer *w, ari_error *err);
/* For an existing trace row (tests, tools). */
ari_datamove_writer *ari_datamove_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err);

const ari_chrome_sink *ari_datamove_writer_chrome_sink(ari_datamove_writer *dw);
const ari_nvsmi_sink *ari_datamove_writer_nvsmi_sink(ari_datamove_writer *dw);
/* Sets the topology (copied); the last one given wins. */
int ari_datamove_writer_topology(ari_datamove_writer *dw, const ari_topology *t, ari_error *err);
/* Progress 0..1 within the current file goes to the trace writer. */
void ari_datamove_writer_progress(ari_datamove_writer *dw, double fraction);
const ari_error *ari_datamove_writer_error(const ari_datamove_writer *dw);
int ari_datamove_writer_finish(ari_datamove_writer *dw, ari_error *err);
void ari_datamove_writer_free(ari_datamove_writer *dw);

#endif
