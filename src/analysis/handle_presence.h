/* handle_presence.h: memory used per memory node over time from the data
 * handles present on it, as StarVZ's handles_presence_states
 * (R/phase2_memory.R): on each memory manager, a handle is present from a
 * "data state owner" or "shared" event until the next "data state invalid"
 * event (or the end of the trace); the memory used is the sum of the
 * data.rec sizes of the handles present. StarVZ also drops toggles shorter
 * than 0.001 ms; they are kept here (they hold no time).
 * Pure: arrays in, arrays out. */
#ifndef ARIADNE_ANALYSIS_HANDLE_PRESENCE_H
#define ARIADNE_ANALYSIS_HANDLE_PRESENCE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The step function of one memory node: rows [start[i], end[i]) holding
 * bytes[i] (sorted, contiguous from the node's first event to end_time). */
typedef struct ari_presence_series {
    size_t n;
    double *start, *end, *bytes;
    double peak; /* largest bytes */
} ari_presence_series;

/* n events sorted by (container, handle, time): container in
 * [0, ncontainers), handle a key constant within a (container, handle) run,
 * present 1 (owner/shared) or 0 (invalid), size in bytes (NAN or negative:
 * the event is skipped). out has room for ncontainers series. Returns 0, or
 * -1 (err set) when out of memory or on bad arguments. */
int ari_handle_presence(size_t n, const int *container, const int64_t *handle, const double *time,
                        const unsigned char *present, const double *size, int ncontainers, double end_time,
                        ari_presence_series *out, ari_error *err);
void ari_presence_series_free(ari_presence_series *s, int n);

#endif
