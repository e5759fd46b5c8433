/* handle_presence.c: memory used per memory node from the presence of its
 * data handles (see handle_presence.h). */
#include "analysis/handle_presence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct delta {
    double t, bytes;
} delta;

static int by_time(const void *a, const void *b)
{
    double x = ((const delta *)a)->t, y = ((const delta *)b)->t;
    return (x > y) - (x < y);
}

void ari_presence_series_free(ari_presence_series *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        free(s[i].start);
        free(s[i].end);
        free(s[i].bytes);
        memset(&s[i], 0, sizeof s[i]);
    }
}

/* The +size / -size changes of events [lo, hi) (one container). */
static size_t changes(const int64_t *handle, const double *time, const unsigned char *present,
                      const double *size, size_t lo, size_t hi, delta *d)
{
    size_t nd = 0;
    int in = 0;
    for (size_t i = lo; i < hi; i++) {
        if (i > lo && handle[i] != handle[i - 1])
            in = 0;
        if (isnan(size[i]) || size[i] < 0 || !isfinite(time[i]))
            continue;
        if (present[i] != in)
            d[nd++] = (delta){time[i], present[i] ? size[i] : -size[i]};
        in = present[i];
    }
    return nd;
}

/* Cumulative sum of sorted changes into rows up to end_time. */
static int to_rows(const delta *d, size_t nd, double end_time, ari_presence_series *s)
{
    s->start = malloc((nd + 1) * sizeof *s->start);
    s->end = malloc((nd + 1) * sizeof *s->end);
    s->bytes = malloc((nd + 1) * sizeof *s->bytes);
    if (!s->start || !s->end || !s->bytes)
        return -1;
    double cur = 0;
    for (size_t i = 0; i < nd; i++) {
        cur += d[i].bytes;
        if (i + 1 < nd && d[i + 1].t == d[i].t)
            continue; /* simultaneous changes: one row */
        double e = i + 1 < nd ? d[i + 1].t : fmax(end_time, d[i].t);
        s->start[s->n] = d[i].t;
        s->end[s->n] = e;
        s->bytes[s->n++] = cur;
        if (cur > s->peak)
            s->peak = cur;
    }
    return 0;
}

int ari_handle_presence(size_t n, const int *container, const int64_t *handle, const double *time,
                        const unsigned char *present, const double *size, int ncontainers, double end_time,
                        ari_presence_series *out, ari_error *err)
{
    if (ncontainers < 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "ncontainers must be >= 0");
    memset(out, 0, (size_t)ncontainers * sizeof *out);
    delta *d = malloc((n + 1) * sizeof *d);
    if (!d)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
        for (hi = lo; hi < n && container[hi] == container[lo]; hi++)
            ;
        if (container[lo] < 0 || container[lo] >= ncontainers)
            continue;
        size_t nd = changes(handle, time, present, size, lo, hi, d);
        qsort(d, nd, sizeof *d, by_time); /* not stable: equal times merge into one row */
        rc = to_rows(d, nd, end_time, &out[container[lo]]);
    }
    free(d);
    if (rc < 0) {
        ari_presence_series_free(out, ncontainers);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}
