/* chrome_slices.h: a generic Chrome / Perfetto JSON trace (no GPU, no data
 * movement) as a timeline of slices in the Paje model, for the Timeline
 * view (issue 14).
 *
 * Which traces: ari_chrome_has_device_content() says whether a trace holds
 * the content the data-movement writer (store/datamove_writer.c) models;
 * those keep importing as data-movement traces. The rule, the same tests
 * as the writer's categories (anything it would not file as plain CPU):
 *  - a top-level "deviceProperties" key (Kineto), or a "process_labels"
 *    metadata event "GPU n";
 *  - an event whose args have an integer "device" or a "cbid" key;
 *  - an event category starting with "gpu_", equal to "kernel", or
 *    containing "memcpy", "memset", "cuda_runtime" or "cuda_driver";
 *  - an event named "Memcpy...", "Memset...", "[CUDA memcpy...",
 *    "[CUDA memset...", or, with no category, "cuda..." / "hip...".
 * (The import also keeps a trace with same-stem companions - nvidia-smi
 * CSV, hwloc XML, lstopo SVG - as data movement: see format_chrome_trace.c.)
 *
 * The model written to an ari_sink:
 *  - container types "Process" (in the root) and "Thread" (in a Process);
 *    one Process container per pid and one Thread per (pid, tid) that has
 *    a slice, an instant or a flow end; named from the process_name /
 *    thread_name metadata events, else "pid N" / "tid N"; ordered by
 *    pid then tid (numerically when both are integers);
 *  - state type "Slice" (in Thread): every complete (X) slice and every
 *    B/E pair the reader matched (chrome_trace.h: LIFO per thread, unclosed
 *    slices end at the thread's last timestamp), value = its name
 *    ("(unnamed)" when empty), field "cat" when the event has one;
 *    depth: see ari_chrome_slice_depths;
 *  - event type "Instant" (in Thread): i / I / R events, value = name;
 *  - link type "Flow" (in the root, Thread to Thread): each flow arrow the
 *    reader resolved (v1 s/t/f and v2 bind ids), value = its flow id, from
 *    the end of the source slice (its start when the target starts before
 *    that end) to the start of the target slice;
 *  - counters (C) and the phases the reader skips are not drawn.
 * Times: the file's µs relative to the first event (the smallest ts of a
 * slice or instant): info->origin. With "displayTimeUnit": "ns" or "ms" the
 * times are scaled to that unit (info->unit), else kept in µs ("us").
 */
#ifndef ARIADNE_CHROME_SLICES_H
#define ARIADNE_CHROME_SLICES_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/chrome_trace.h"
#include "ingest/sink.h"
#include "util/error.h"

typedef struct ari_chrome_slices_info {
    double origin;     /* in the unit below, in the file's clock */
    char unit[4];      /* "us", "ns" or "ms" */
    int64_t processes, threads, slices, instants, flows;
    int max_depth;     /* -1 without slices */
    ari_chrome_stats stats;
} ari_chrome_slices_info;

/* 1 if the trace holds GPU / data-movement content (rule above; the read
 * stops at the first such event), 0 if not, -1 with err set when the file
 * cannot be read as a Chrome trace. */
int ari_chrome_has_device_content(const char *path, const char *name, ari_error *err);
int ari_chrome_buffer_has_device_content(const char *data, size_t len, const char *name, ari_error *err);

/* Reads the trace and writes its slice timeline into out (model above).
 * info may be NULL. Returns 0, -1 with err set, or the sink's error. */
int ari_chrome_slices_read(const char *path, const char *name, const ari_sink *out,
                           ari_chrome_slices_info *info, ari_error *err);
int ari_chrome_slices_read_buffer(const char *data, size_t len, const char *name, const ari_sink *out,
                                  ari_chrome_slices_info *info, ari_error *err);

/* The nesting depth of n slices [start[i], end[i]] of one thread: slices
 * are taken by start, the longer first on a tie, then in index order; a
 * slice's depth is one more than the deepest slice still open at its start
 * (end > start), 0 when none is. For properly nested slices this is the
 * number of enclosing slices; a slice that overlaps another without nesting
 * (invalid in the format, as in speedscope's invalid-x-nesting) goes below
 * it, so no two slices on one row ever overlap. Returns the largest depth
 * (-1 when n is 0), or -2 when out of memory. */
int ari_chrome_slice_depths(const double *start, const double *end, size_t n, int *depth);

#endif
