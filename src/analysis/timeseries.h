/* timeseries.h: sums of step functions (StarPU's ready and submitted task
 * counts, one step function per container), summarised per pixel, and the
 * periods when a sum stays below a threshold (the starving periods of the
 * /timeseries endpoint). Pure: arrays in, arrays out.
 *
 * A series is a step function: values[j] holds from times[j] (ascending)
 * until the next change. The sum is defined from the first change of any
 * summed series on; a series not yet started counts 0. */
#ifndef ARIADNE_ANALYSIS_TIMESERIES_H
#define ARIADNE_ANALYSIS_TIMESERIES_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct ari_ts_series {
    int64_t node;
    int64_t n;
    const double *times, *values; /* [n] */
} ari_ts_series;

/* One pixel [t, t + dt): the sum at t (after every change at or before t)
 * and its min, max and last value over the changes before t + dt. */
typedef struct ari_ts_point {
    double t, min, max, last;
} ari_ts_point;

typedef struct ari_ts_period {
    double start, end;
} ari_ts_period;

/* The sum of the series of `node` (every series when node is NULL) over
 * width pixels of [t0, t1]: one point per pixel where the sum is defined.
 * *out is malloc'd (*nout points). Returns 0, or -1 (out of memory). */
int ari_ts_points(const ari_ts_series *series, int nseries, const int64_t *node, double t0, double t1,
                  int width, ari_ts_point **out, size_t *nout, ari_error *err);

/* The periods within [t0, t1] when the sum of every series is defined and
 * below threshold, a period merged into the previous one when it starts
 * less than `gap` after that one's end. *out is malloc'd (*nout periods).
 * Returns 0, or -1 (out of memory). */
int ari_ts_starved(const ari_ts_series *series, int nseries, double t0, double t1, double threshold,
                   double gap, ari_ts_period **out, size_t *nout, ari_error *err);

#endif
