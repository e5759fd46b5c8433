/* gantt_aggregation.c: one Gantt row in a time window, as tasks or per-pixel type
 * shares. Tasks are clipped to the window and spread over the columns
 * they cover; since tasks do not overlap, a row emits at most
 * (tasks + width) cells before same-type cells of a column are merged. */
#include "analysis/gantt_aggregation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"
#include "util/lower_bound.h"

/* Finds [first, first + count) of the tasks in the window (see gantt_aggregation.h). */
static void window_range(const ari_gantt_row *row, double t0, double t1, int64_t *first,
                         int64_t *count)
{
    int64_t i = ari_lower_bound(row->end, row->ntasks, t0); /* ends are sorted for a valid row */
    /* Positive-length tasks ending exactly at t0 are outside [t0, t1). */
    while (i < row->ntasks && row->end[i] == t0 && row->start[i] < t0)
        i++;
    int64_t j = i;
    while (j < row->ntasks && row->start[j] < t1)
        j++;
    *first = i;
    *count = j - i;
}

static int check_window_tasks(const ari_gantt_row *row, int64_t first, int64_t count,
                              ari_error *err)
{
    for (int64_t i = first; i < first + count; i++) {
        if (!isfinite(row->start[i]) || !isfinite(row->end[i]) || row->end[i] < row->start[i])
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "gantt: task %lld has invalid times [%g, %g]", (long long)i,
                                 row->start[i], row->end[i]);
        if (row->type[i] < 0 || row->type[i] >= row->ntypes)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "gantt: task %lld has type id %d outside [0, %d)", (long long)i,
                                 row->type[i], row->ntypes);
        if (i + 1 < row->ntasks && row->start[i + 1] < row->end[i])
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "gantt: task %lld starts at %g, before task %lld ends (%g): "
                                 "the row must be sorted and free of overlaps",
                                 (long long)(i + 1), row->start[i + 1], (long long)i,
                                 row->end[i]);
    }
    return 0;
}

static int validate(const ari_gantt_row *row, double t0, double t1, int width, ari_error *err)
{
    if (!row)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: no row");
    if (!isfinite(t0) || !isfinite(t1) || !(t0 < t1))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "gantt: window [%g, %g) must be finite with t0 < t1", t0, t1);
    if (width < 1 || width > ARI_GANTT_MAX_WIDTH)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: width %d outside 1..%d", width,
                             ARI_GANTT_MAX_WIDTH);
    if (row->ntasks < 0 || row->ntypes < 1 ||
        (row->ntasks > 0 && (!row->start || !row->end || !row->type)))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: bad row arrays");
    return 0;
}

/* The accumulation state of the pixel mode. */
typedef struct pixel_acc {
    double t0, t1;
    int width;
    ari_gantt_cell *cells;
    int64_t ncells, cap;
    int *slot_pixel;     /* [ntypes] last pixel where the type got a cell, or -1 */
    int64_t *slot_cell;  /* [ntypes] that cell */
} pixel_acc;

static double pixel_lo(const pixel_acc *a, int c)
{
    return c >= a->width ? a->t1 : a->t0 + (a->t1 - a->t0) * c / a->width;
}

/* Adds `share` of type k to pixel c, merging with the pixel's cell of the
 * same type. Pixels arrive in non-decreasing order. */
static int add_share(pixel_acc *a, int c, int k, double share)
{
    if (a->slot_pixel[k] == c) {
        a->cells[a->slot_cell[k]].share += share;
        return 0;
    }
    if (a->ncells == a->cap) {
        int64_t cap = a->cap * 2;
        ari_gantt_cell *cells = realloc(a->cells, (size_t)cap * sizeof *cells);
        if (!cells)
            return -1;
        a->cells = cells;
        a->cap = cap;
    }
    a->slot_pixel[k] = c;
    a->slot_cell[k] = a->ncells;
    a->cells[a->ncells++] = (ari_gantt_cell){.pixel = c, .type = k, .share = share};
    return 0;
}

/* The column holding time t (clamped to the window's columns), corrected
 * for rounding so that pixel_lo(c) <= t < pixel_lo(c + 1) when possible. */
static int pixel_of(const pixel_acc *a, double t)
{
    double f = floor((t - a->t0) / (a->t1 - a->t0) * a->width);
    int c = f < 0 ? 0 : f >= a->width ? a->width - 1 : (int)f;
    while (c > 0 && pixel_lo(a, c) > t)
        c--;
    while (c + 1 < a->width && pixel_lo(a, c + 1) <= t)
        c++;
    return c;
}

/* Spreads the clipped task [s, e) of type k over the columns it covers. */
static int spread_task(pixel_acc *a, double s, double e, int k)
{
    if (!(e > s))
        return 0;
    for (int c = pixel_of(a, s); c < a->width; c++) {
        double lo = pixel_lo(a, c), hi = pixel_lo(a, c + 1);
        if (lo >= e)
            break;
        double overlap = (e < hi ? e : hi) - (s > lo ? s : lo);
        if (overlap > 0 && add_share(a, c, k, overlap / (hi - lo)) != 0)
            return -1;
    }
    return 0;
}

/* Fills pixel_offset and idle from the cells. */
static void finish_pixels(const pixel_acc *a, ari_gantt_result *out)
{
    int64_t j = 0;
    for (int c = 0; c < a->width; c++) {
        out->pixel_offset[c] = j;
        double busy = 0;
        for (; j < a->ncells && a->cells[j].pixel == c; j++) {
            if (a->cells[j].share > 1)
                a->cells[j].share = 1; /* rounding of a fully covered column */
            busy += a->cells[j].share;
        }
        double idle = 1 - busy;
        out->idle[c] = idle < 0 ? 0 : idle > 1 ? 1 : idle;
    }
    out->pixel_offset[a->width] = j;
}

static int aggregate(const ari_gantt_row *row, ari_gantt_result *out)
{
    pixel_acc a = {.t0 = out->t0, .t1 = out->t1, .width = out->width};
    a.cap = out->count + out->width + 16;
    a.cells = malloc((size_t)a.cap * sizeof *a.cells);
    a.slot_pixel = malloc((size_t)row->ntypes * sizeof *a.slot_pixel);
    a.slot_cell = malloc((size_t)row->ntypes * sizeof *a.slot_cell);
    out->pixel_offset = malloc(((size_t)out->width + 1) * sizeof *out->pixel_offset);
    out->idle = malloc((size_t)out->width * sizeof *out->idle);
    int rc = -1;
    if (!a.cells || !a.slot_pixel || !a.slot_cell || !out->pixel_offset || !out->idle)
        goto done;
    for (int k = 0; k < row->ntypes; k++)
        a.slot_pixel[k] = -1;
    for (int64_t i = out->first; i < out->first + out->count; i++) {
        double s = row->start[i] > a.t0 ? row->start[i] : a.t0;
        double e = row->end[i] < a.t1 ? row->end[i] : a.t1;
        if (spread_task(&a, s, e, row->type[i]) != 0)
            goto done;
    }
    finish_pixels(&a, out);
    out->cells = a.cells;
    out->ncells = a.ncells;
    a.cells = NULL;
    rc = 0;
done:
    free(a.cells), free(a.slot_pixel), free(a.slot_cell);
    return rc;
}

int ari_gantt_render_row(const ari_gantt_row *row, double t0, double t1, int width,
                         int64_t max_tasks, ari_gantt_result *out, ari_error *err)
{
    if (!out)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: no result");
    memset(out, 0, sizeof *out);
    if (validate(row, t0, t1, width, err) != 0)
        return -1;
    out->t0 = t0, out->t1 = t1, out->width = width;
    window_range(row, t0, t1, &out->first, &out->count);
    if (check_window_tasks(row, out->first, out->count, err) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    if (max_tasks < 0)
        max_tasks = width / 2;
    if (out->count <= max_tasks) {
        out->mode = ARI_GANTT_TASKS;
        return 0;
    }
    out->mode = ARI_GANTT_PIXELS;
    if (aggregate(row, out) != 0) {
        ari_gantt_result_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "gantt: out of memory");
    }
    return 0;
}

void ari_gantt_result_free(ari_gantt_result *res)
{
    if (!res)
        return;
    void *owned[] = {res->pixel_offset, res->cells, res->idle};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}

/* ---- idleness and runtime states ---- */

/* Length of [s, e] ∩ [t0, t1], 0 when they do not overlap. */
static double clipped(double s, double e, double t0, double t1)
{
    double lo = s > t0 ? s : t0, hi = e < t1 ? e : t1;
    return hi > lo ? hi - lo : 0;
}

double ari_gantt_task_time(const double *start, const double *end, int64_t n, double t0, double t1)
{
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += clipped(start[i], end[i], t0, t1);
    return sum;
}

double ari_gantt_idle(const double *start, const double *end, int64_t n, double t0, double t1)
{
    if (!isfinite(t0) || !isfinite(t1) || !(t1 > t0))
        return NAN;
    double idle = 1 - ari_gantt_task_time(start, end, n, t0, t1) / (t1 - t0);
    return idle < 0 ? 0 : idle > 1 ? 1 : idle;
}

static int check_state(const ari_gantt_state *states, int64_t i, int nvalues, ari_error *err)
{
    const ari_gantt_state *st = &states[i];
    if (st->value < 0 || st->value >= nvalues || st->depth < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "gantt: state %lld has value %d (of %d) and depth %d", (long long)i, st->value,
                             nvalues, st->depth);
    if (!isfinite(st->start) || !isfinite(st->end) || st->end < st->start)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: state %lld has invalid times [%g, %g]",
                             (long long)i, st->start, st->end);
    if (i > 0 && (states[i - 1].start > st->start ||
                  (states[i - 1].start == st->start && states[i - 1].depth > st->depth)))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "gantt: state %lld is out of order (states go by start, then depth)", (long long)i);
    return 0;
}

int ari_gantt_state_times(const ari_gantt_state *states, int64_t n, double t0, double t1, int nvalues,
                          double *time, ari_error *err)
{
    if (n < 0 || nvalues < 0 || (n > 0 && !states) || (nvalues > 0 && !time))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt: bad state arrays");
    for (int v = 0; v < nvalues; v++)
        time[v] = 0;
    int maxdepth = 0;
    for (int64_t i = 0; i < n; i++) {
        if (check_state(states, i, nvalues, err) != 0)
            return -1;
        if (states[i].depth > maxdepth)
            maxdepth = states[i].depth;
    }
    /* latest[d]: the latest state of depth d so far, or -1 */
    int64_t *latest = malloc(((size_t)maxdepth + 1) * sizeof *latest);
    if (!latest)
        return ari_error_set(err, ARI_E_NOMEM, "gantt: out of memory");
    for (int d = 0; d <= maxdepth; d++)
        latest[d] = -1;
    for (int64_t i = 0; i < n; i++) {
        const ari_gantt_state *st = &states[i];
        time[st->value] += clipped(st->start, st->end, t0, t1);
        int64_t p = st->depth > 0 ? latest[st->depth - 1] : -1;
        if (p >= 0) {
            double lo = st->start > states[p].start ? st->start : states[p].start;
            double hi = st->end < states[p].end ? st->end : states[p].end;
            time[states[p].value] -= clipped(lo, hi, t0, t1);
        }
        latest[st->depth] = i;
    }
    free(latest);
    for (int v = 0; v < nvalues; v++)
        if (time[v] < 0)
            time[v] = 0; /* rounding */
    return 0;
}
