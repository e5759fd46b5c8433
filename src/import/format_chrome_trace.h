/* format_chrome_trace.h: import formats of Chrome traces and data movement
 * traces (kind 'datamove'; generic Chrome traces: see chrome_slices below):
 *  - chrome_trace: a Chrome trace JSON (Kineto, DMTracker, Perfetto, ...)
 *    with its companions in the same directory: "<run>.csv" nvidia-smi
 *    samples, "<run>.xml" hwloc topology, "<run>.svg" lstopo picture, and
 *    the directory's shared "topology*.xml" / "topology*.svg" files, which
 *    every run of the directory uses (the SVGs are kept as source files
 *    only: a picture has no tree to read);
 *  - hwloc_xml: a topology alone (`lstopo --of xml`), as a trace with no
 *    events, to draw a machine or to give runs a topology.
 */
#ifndef ARIADNE_FORMAT_CHROME_TRACE_H
#define ARIADNE_FORMAT_CHROME_TRACE_H

#include "import/formats.h"

extern const ari_format ari_format_chrome_trace;
/* A Chrome trace without GPU / data-movement content and without
 * companions (rule in ingest/chrome_slices.h): kind 'tasks', a timeline of
 * its slices by process and thread, for the Timeline view. */
extern const ari_format ari_format_chrome_slices;
extern const ari_format ari_format_hwloc_xml;

#endif
