/* gflops_rate.c: GFlop/s per time step and group from the tasks (see
 * gflops_rate.h). A task visits only the steps it overlaps. */
#include "analysis/gflops_rate.h"

#include <math.h>

static int step_of(double t, double t0, double dt, int width)
{
    double b = floor((t - t0) / dt);
    if (b < 0)
        return 0;
    return b >= width ? width - 1 : (int)b;
}

/* Adds a task's GFlop share to the steps of its row (out = one group). */
static void spread(double *row, double s, double e, double gf, double t0, double t1, double dt, int width)
{
    if (e <= s) { /* a point: all of it where it happens, if inside */
        if (s >= t0 && s < t1)
            row[step_of(s, t0, dt, width)] += gf;
        return;
    }
    double cs = fmax(s, t0), ce = fmin(e, t1);
    if (!(ce > cs))
        return;
    int first = step_of(cs, t0, dt, width), last = step_of(ce, t0, dt, width);
    for (int b = first; b <= last; b++) {
        double lo = t0 + b * dt, hi = b == width - 1 ? t1 : t0 + (b + 1) * dt;
        double overlap = fmin(ce, hi) - fmax(cs, lo);
        if (overlap > 0)
            row[b] += gf * overlap / (e - s);
    }
}

int ari_gflops_rate(size_t n, const double *start, const double *end, const double *gflop, const int *group,
                    int ngroups, double t0, double t1, int width, double seconds_per_unit, double *out,
                    ari_error *err)
{
    if (width < 1 || ngroups < 0 || !(t1 > t0) || !isfinite(t1 - t0) || !(seconds_per_unit > 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "GFlop/s needs width >= 1, t0 < t1 and a positive time unit");
    double dt = (t1 - t0) / width;
    for (size_t k = 0; k < (size_t)ngroups * (size_t)width; k++)
        out[k] = 0;
    for (size_t i = 0; i < n; i++) {
        if (group[i] < 0 || group[i] >= ngroups || !(gflop[i] >= 0) || !isfinite(gflop[i]) ||
            !isfinite(start[i]) || !isfinite(end[i]))
            continue;
        spread(out + (size_t)group[i] * (size_t)width, start[i], end[i], gflop[i], t0, t1, dt, width);
    }
    for (size_t k = 0; k < (size_t)ngroups * (size_t)width; k++)
        out[k] /= dt * seconds_per_unit;
    return 0;
}
