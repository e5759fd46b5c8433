/* step_buckets.c: a step variable's time-weighted mean, min and max per
 * time step (see step_buckets.h). Each row visits only the steps it
 * overlaps, so rows of one container (which do not overlap) cost
 * O(rows + width). */
#include "analysis/step_buckets.h"

#include <math.h>

/* The step holding time t, clamped to [0, width - 1]. */
static int step_of(double t, double t0, double dt, int width)
{
    double b = floor((t - t0) / dt);
    if (b < 0)
        return 0;
    return b >= width ? width - 1 : (int)b;
}

static void add_row(ari_step_bucket *out, double s, double e, double v, double t0, double dt, int width)
{
    int first = step_of(s, t0, dt, width), last = step_of(e, t0, dt, width);
    for (int b = first; b <= last; b++) {
        double lo = t0 + b * dt, hi = b == width - 1 ? t0 + width * dt : t0 + (b + 1) * dt;
        double overlap = fmin(e, hi) - fmax(s, lo);
        if (!(overlap > 0))
            continue;
        ari_step_bucket *k = &out[b];
        if (k->covered == 0 || v < k->min)
            k->min = v;
        if (k->covered == 0 || v > k->max)
            k->max = v;
        k->mean += v * overlap; /* a sum until the end */
        k->covered += overlap;
    }
}

int ari_step_buckets(const double *start, const double *end, const double *value, size_t n, double t0,
                     double t1, int width, ari_step_bucket *out, ari_error *err)
{
    if (width < 1 || !(t1 > t0) || !isfinite(t1 - t0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "step buckets need width >= 1 and t0 < t1");
    double dt = (t1 - t0) / width;
    for (int b = 0; b < width; b++)
        out[b] = (ari_step_bucket){0, NAN, NAN, 0};
    for (size_t i = 0; i < n; i++) {
        double s = fmax(start[i], t0), e = fmin(end[i], t1);
        if (e > s && isfinite(value[i]))
            add_row(out, s, e, value[i], t0, dt, width);
    }
    for (int b = 0; b < width; b++)
        out[b].mean = out[b].covered > 0 ? out[b].mean / out[b].covered : NAN;
    return 0;
}
