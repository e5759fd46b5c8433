/* state_rows.c: one timeline row of Paje states in a time window, as
 * states or per-pixel value shares by depth (see state_rows.h). Each
 * state is clipped to the window and spread over the columns it covers,
 * then cells of the same (depth, column, value) are merged; since the
 * states of one depth do not overlap, a row emits at most (states + width
 * x depths) cells before merging. */
#include "analysis/state_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

typedef struct window_state {
    double start;
    int depth;
    int64_t index;
} window_state;

static int by_start_depth(const void *a, const void *b)
{
    const window_state *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int in_window(const ari_gantt_state *s, double t0, double t1)
{
    if (s->end > s->start)
        return s->start < t1 && s->end > t0;
    return s->start >= t0 && s->start <= t1;
}

static int check_state(const ari_gantt_state *s, int64_t i, int nvalues, ari_error *err)
{
    if (!isfinite(s->start) || !isfinite(s->end) || s->end < s->start)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "state_rows: state %lld has invalid times [%g, %g]", (long long)i, s->start,
                             s->end);
    if (s->value < 0 || s->value >= nvalues)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "state_rows: state %lld has value id %d outside [0, %d)", (long long)i, s->value,
                             nvalues);
    if (s->depth < 0 || s->depth > ARI_STATE_ROWS_MAX_DEPTH)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "state_rows: state %lld has depth %d outside [0, %d]", (long long)i, s->depth,
                             ARI_STATE_ROWS_MAX_DEPTH);
    return 0;
}

/* The window's states sorted by start then depth into out->index. */
static int collect_window(const ari_gantt_state *states, int64_t n, int nvalues, ari_state_row_result *out,
                          ari_error *err)
{
    window_state *w = NULL;
    size_t cap = 0, k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!in_window(&states[i], out->t0, out->t1))
            continue;
        if (check_state(&states[i], i, nvalues, err) < 0) {
            free(w);
            return -1;
        }
        if (ari_vec_reserve((void **)&w, &cap, k + 1, sizeof *w) < 0) {
            free(w);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        w[k++] = (window_state){states[i].start, states[i].depth, i};
        if (states[i].depth > out->max_depth)
            out->max_depth = states[i].depth;
    }
    if (k > 0)
        qsort(w, k, sizeof *w, by_start_depth);
    out->index = malloc((k ? k : 1) * sizeof *out->index);
    if (!out->index) {
        free(w);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < k; i++)
        out->index[i] = w[i].index;
    out->count = (int64_t)k;
    free(w);
    return 0;
}

static int by_cell(const void *a, const void *b)
{
    const ari_state_cell *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->pixel != y->pixel)
        return x->pixel < y->pixel ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

static int column_of(double t, double t0, double dt, int width)
{
    double c = floor((t - t0) / dt);
    return c < 0 ? 0 : c >= width ? width - 1 : (int)c;
}

/* Spreads one state over the columns it covers (times, not yet shares). */
static int spread(const ari_gantt_state *s, ari_state_row_result *out, size_t *cap)
{
    double dt = (out->t1 - out->t0) / out->width;
    double a = fmax(s->start, out->t0), b = fmin(s->end, out->t1);
    if (!(b > a))
        return 0;
    for (int c = column_of(a, out->t0, dt, out->width); c <= column_of(b, out->t0, dt, out->width); c++) {
        double c0 = out->t0 + c * dt, c1 = c + 1 == out->width ? out->t1 : out->t0 + (c + 1) * dt;
        double t = fmin(b, c1) - fmax(a, c0);
        if (!(t > 0))
            continue;
        if (ari_vec_reserve((void **)&out->cells, cap, (size_t)out->ncells + 1, sizeof *out->cells) < 0)
            return -1;
        out->cells[out->ncells++] = (ari_state_cell){c, s->depth, s->value, t};
    }
    return 0;
}

/* Merges equal (depth, pixel, value) cells and turns times into shares. */
static void merge_cells(ari_state_row_result *out)
{
    if (out->ncells == 0)
        return;
    qsort(out->cells, (size_t)out->ncells, sizeof *out->cells, by_cell);
    double dt = (out->t1 - out->t0) / out->width;
    int64_t k = 0;
    for (int64_t i = 0; i < out->ncells; i++) {
        ari_state_cell *c = &out->cells[i];
        if (k > 0 && by_cell(&out->cells[k - 1], c) == 0)
            out->cells[k - 1].share += c->share;
        else
            out->cells[k++] = *c;
    }
    out->ncells = k;
    for (int64_t i = 0; i < k; i++) {
        double len =
            out->cells[i].pixel + 1 == out->width ? out->t1 - (out->t0 + out->cells[i].pixel * dt) : dt;
        out->cells[i].share = fmin(1, out->cells[i].share / len);
    }
}

int ari_state_row_render(const ari_gantt_state *states, int64_t n, int nvalues, double t0, double t1,
                         int width, int64_t max_states, ari_state_row_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->max_depth = -1;
    if (!isfinite(t0) || !isfinite(t1) || !(t1 > t0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "state_rows: the window [%g, %g] is empty", t0,
                             t1);
    if (width < 1 || width > ARI_STATE_ROWS_MAX_WIDTH)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "state_rows: width %d outside 1..%d", width,
                             ARI_STATE_ROWS_MAX_WIDTH);
    if (n < 0 || (n > 0 && !states) || nvalues < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "state_rows: bad arrays");
    out->t0 = t0;
    out->t1 = t1;
    out->width = width;
    if (collect_window(states, n, nvalues, out, err) < 0)
        return -1;
    out->mode =
        out->count <= (max_states < 0 ? width : max_states) ? ARI_STATE_ROWS_STATES : ARI_STATE_ROWS_PIXELS;
    if (out->mode == ARI_STATE_ROWS_STATES)
        return 0;
    size_t cap = 0;
    for (int64_t i = 0; i < out->count; i++) {
        if (spread(&states[out->index[i]], out, &cap) < 0) {
            ari_state_row_free(out);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    merge_cells(out);
    return 0;
}

void ari_state_row_free(ari_state_row_result *res)
{
    free(res->index);
    free(res->cells);
    res->index = NULL;
    res->cells = NULL;
    res->count = res->ncells = 0;
}
