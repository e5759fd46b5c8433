/* step_buckets.h: one Paje variable (a step function given as rows
 * [start, end) holding a value, as sql/002_paje.sql stores them) summarised
 * over `width` equal time steps of [t0, t1]: per step the time-weighted
 * mean of the value over the part of the step the rows cover, the min and
 * max of the values in effect during the step, and the covered time.
 * The time panels of the Gantt (memory used per memory node, GPU and MPI
 * transfer bandwidth) use it, as StarVZ's var_integration_segment_chart
 * integrates a variable over each time step (R/phase2_time_integration.R,
 * remyTimeIntegrationPrep: integral over the step / step). Unlike StarVZ,
 * the time the rows do not cover (before a container's first value) is not
 * counted as 0: a step with no covered time has no value (NAN).
 * Pure: arrays in, arrays out. */
#ifndef ARIADNE_ANALYSIS_STEP_BUCKETS_H
#define ARIADNE_ANALYSIS_STEP_BUCKETS_H

#include <stddef.h>

#include "util/error.h"

typedef struct ari_step_bucket {
    double mean;     /* time-weighted over the covered part; NAN if covered == 0 */
    double min, max; /* of the values in effect (for > 0 time) in the step; NAN likewise */
    double covered;  /* time of the step covered by rows, in trace units */
} ari_step_bucket;

/* Rows need not be sorted; rows with end <= start hold no time and are
 * ignored, as are rows with a non-finite value. Step b is
 * [t0 + b*dt, t0 + (b+1)*dt) with dt = (t1 - t0) / width. out has room for
 * width buckets. Returns 0, or -1 (err set) when width < 1 or t1 <= t0. */
int ari_step_buckets(const double *start, const double *end, const double *value, size_t n, double t0,
                     double t1, int width, ari_step_bucket *out, ari_error *err);

#endif
