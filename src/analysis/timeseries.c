/* timeseries.c: merged step functions, their per-pixel summary and their
 * starving periods (see timeseries.h). */
#include "analysis/timeseries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/compare.h"
#include "util/free_all.h"

/* A change of one part's value. */
typedef struct change {
    double t;
    int part;
    double value;
} change;

static int by_time(const void *a, const void *b)
{
    const change *x = a, *y = b;
    int c = ari_cmp_double(x->t, y->t);
    return c ? c : ari_cmp_i64(x->part, y->part);
}

/* The sum of several step functions, walked in time order. */
typedef struct stepsum {
    change *ch;
    size_t n, next;
    double *cur; /* [nparts] current value of each part */
    int *started;
    int nparts, defined;
    double sum;
} stepsum;

/* The changes of the series of node (all when NULL). */
static int stepsum_init(stepsum *s, const ari_ts_series *series, int nseries, const int64_t *node)
{
    memset(s, 0, sizeof *s);
    size_t total = 0;
    for (int i = 0; i < nseries; i++)
        if (!node || series[i].node == *node)
            total += (size_t)series[i].n;
    s->ch = malloc((total + 1) * sizeof *s->ch);
    s->cur = calloc((size_t)nseries + 1, sizeof *s->cur);
    s->started = calloc((size_t)nseries + 1, sizeof *s->started);
    if (!s->ch || !s->cur || !s->started)
        return -1;
    s->nparts = nseries;
    for (int i = 0; i < nseries; i++) {
        if (node && series[i].node != *node)
            continue;
        for (int64_t j = 0; j < series[i].n; j++)
            s->ch[s->n++] = (change){series[i].times[j], i, series[i].values[j]};
    }
    qsort(s->ch, s->n, sizeof *s->ch, by_time);
    return 0;
}

static void stepsum_free(stepsum *s)
{
    void *owned[] = {s->ch, s->cur, s->started};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* Applies every change at the next change time; returns that time. */
static double stepsum_advance(stepsum *s)
{
    double t = s->ch[s->next].t;
    while (s->next < s->n && s->ch[s->next].t == t) {
        const change *c = &s->ch[s->next++];
        s->sum += c->value - s->cur[c->part];
        s->cur[c->part] = c->value;
        s->started[c->part] = 1;
        s->defined = 1;
    }
    return t;
}

static int has_change_before(const stepsum *s, double t, int inclusive)
{
    return s->next < s->n && (inclusive ? s->ch[s->next].t <= t : s->ch[s->next].t < t);
}

/* [t, min, max, last] per pixel where the sum is defined. */
static size_t points(stepsum *s, double t0, double t1, int width, ari_ts_point *out)
{
    size_t n = 0;
    double dt = (t1 - t0) / width;
    for (int p = 0; p < width; p++) {
        double p0 = t0 + p * dt, p1 = p + 1 == width ? t1 : t0 + (p + 1) * dt;
        while (has_change_before(s, p0, 1))
            stepsum_advance(s);
        double lo = s->sum, hi = s->sum;
        int seen = s->defined;
        while (has_change_before(s, p1, 0)) {
            stepsum_advance(s);
            lo = seen ? fmin(lo, s->sum) : s->sum;
            hi = seen ? fmax(hi, s->sum) : s->sum;
            seen = 1;
        }
        if (seen)
            out[n++] = (ari_ts_point){p0, lo, hi, s->sum};
    }
    return n;
}

int ari_ts_points(const ari_ts_series *series, int nseries, const int64_t *node, double t0, double t1,
                  int width, ari_ts_point **out, size_t *nout, ari_error *err)
{
    stepsum s;
    *out = NULL;
    *nout = 0;
    if (stepsum_init(&s, series, nseries, node) == 0)
        *out = malloc(((size_t)(width > 0 ? width : 0) + 1) * sizeof **out);
    if (*out)
        *nout = points(&s, t0, t1, width, *out);
    stepsum_free(&s);
    return *out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* Appends [a, b] to the periods, merging it with the previous one when
 * they are less than `gap` apart. */
static void add_period(ari_ts_period *list, size_t *n, double a, double b, double gap)
{
    if (*n && a - list[*n - 1].end < gap) {
        list[*n - 1].end = b;
        return;
    }
    list[(*n)++] = (ari_ts_period){a, b};
}

/* Periods in [t0, t1] when the sum is defined and below threshold (at
 * most one per change, plus one). */
static size_t starved(stepsum *s, double t0, double t1, double threshold, double gap, ari_ts_period *out)
{
    size_t n = 0;
    double t = -INFINITY;
    for (;;) {
        double next = s->next < s->n ? s->ch[s->next].t : INFINITY;
        double a = fmax(t, t0), b = fmin(next, t1);
        if (s->defined && s->sum < threshold && b > a)
            add_period(out, &n, a, b, gap);
        if (next >= t1 || s->next >= s->n)
            break;
        t = stepsum_advance(s);
    }
    return n;
}

int ari_ts_starved(const ari_ts_series *series, int nseries, double t0, double t1, double threshold,
                   double gap, ari_ts_period **out, size_t *nout, ari_error *err)
{
    stepsum s;
    *out = NULL;
    *nout = 0;
    if (stepsum_init(&s, series, nseries, NULL) == 0)
        *out = malloc((s.n + 2) * sizeof **out);
    if (*out)
        *nout = starved(&s, t0, t1, threshold, gap, *out);
    stepsum_free(&s);
    return *out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}
