/* gflops_rate.h: GFlop/s over time from the tasks, per group (the API
 * groups by node and resource type, as StarVZ's panel_gflops shows one
 * line per resource of each node; StarPU's own "GFlop/s" variable is
 * sampled at task ends, so it is not used). Each task spreads its GFlop
 * uniformly over its duration [start, end); a zero-duration task puts its
 * GFlop in the step holding its start. The rate of step b of group g is the
 * GFlop falling in the step divided by the step's length in seconds, so
 * the integral of the rate over [t0, t1] equals the GFlop of the tasks
 * inside the window (the part of each task that is inside).
 * Pure: arrays in, arrays out. */
#ifndef ARIADNE_ANALYSIS_GFLOPS_RATE_H
#define ARIADNE_ANALYSIS_GFLOPS_RATE_H

#include <stddef.h>

#include "util/error.h"

/* n tasks: start, end (trace units), gflop (NAN or negative: skipped),
 * group in [0, ngroups) (negative: skipped). Steps as step_buckets.h:
 * width equal steps of [t0, t1]. seconds_per_unit converts trace units to
 * seconds (1e-3 for ms). out[g * width + b] receives GFlop/s; it has room
 * for ngroups * width values. Returns 0, or -1 (err set) on bad arguments. */
int ari_gflops_rate(size_t n, const double *start, const double *end, const double *gflop, const int *group,
                    int ngroups, double t0, double t1, int width, double seconds_per_unit, double *out,
                    ari_error *err);

#endif
