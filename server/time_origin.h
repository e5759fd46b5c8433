/* time_origin.h: every time-based answer of a trace says its time origin
 * (issue 14, docs/api.md "Time origin"): `time_origin` is where the
 * answer's 0 lies in the file's clock, in the trace's unit. Task traces
 * (StarPU, StarVZ) are stored relative to the first application task's
 * start (summary.time_origin); plain Paje traces have origin 0. The data
 * movement endpoints set their own (server/json_datamove.c). */
#ifndef ARIADNE_TIME_ORIGIN_H
#define ARIADNE_TIME_ORIGIN_H

#include <jansson.h>
#include <stdint.h>

#include "handlers.h"

/* Adds "time_origin" (summary.time_origin of trace id, 0 when none) to
 * doc unless it has one; returns doc. NULL stays NULL; doc is returned
 * unchanged when the origin cannot be read (the answer is still right,
 * it only lacks the note). */
json_t *ari_with_time_origin(ari_request *r, int64_t id, json_t *doc);
/* The same with the origin already known (a trace opened for analysis
 * carries it: ari_tq_trace.time_origin), without reading the trace again. */
json_t *ari_set_time_origin(json_t *doc, double origin);

#endif
