/* state_rows.c: one timeline row of Paje states in a time window, as
 * states or per-pixel value shares by depth (see state_rows.h). Each
 * state is clipped to the window and spread over the columns it covers,
 * then cells of the same (depth, column, value) are merged; since the
 * states of one depth do not overlap, a row emits at most (states + width
 * x depths) cells before merging. Only the states mode sorts the states
 * (at most max_states of them). The pixels mode, when each depth's states
 * follow one another in the array (the usual case), spreads them depth
 * by depth and merges each column as it is left (spread_clean);
 * otherwise it spreads them all (sorted by start when a depth's are not
 * in time order) and groups the cells with counting sorts by depth and
 * column (merge_buckets). Both add each cell's pieces in the order of the
 * states' starts, as sorting everything would: the same shares, bit for
 * bit (test_state_rows compares them with that plain rule). */
#include "analysis/state_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* Value ids up to this many merge through a table indexed by value. */
#define MERGE_MAX_VALUES (1 << 20)

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

/* The window's states into out->index, in the order of the array; *sorted
 * says whether, at each depth, they come by increasing start (so that
 * spreading them in this order adds each cell's pieces in time order),
 * *clean whether moreover each starts at or after the end of the one
 * before (so that their cells come by column: spread_clean). */
static int collect_window(const ari_gantt_state *states, int64_t n, int nvalues, ari_state_row_result *out,
                          int *sorted, int *clean, ari_error *err)
{
    size_t cap = 0, k = 0;
    double last[ARI_STATE_ROWS_MAX_DEPTH + 1], last_end[ARI_STATE_ROWS_MAX_DEPTH + 1];
    *sorted = *clean = 1;
    for (int64_t i = 0; i < n; i++) {
        if (!in_window(&states[i], out->t0, out->t1))
            continue;
        if (check_state(&states[i], i, nvalues, err) < 0)
            return -1;
        if (ari_vec_reserve((void **)&out->index, &cap, k + 1, sizeof *out->index) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        out->index[k++] = i;
        int d = states[i].depth;
        for (; out->max_depth < d; out->max_depth++)
            last[out->max_depth + 1] = last_end[out->max_depth + 1] = -INFINITY;
        if (states[i].start < last[d])
            *sorted = 0;
        if (states[i].start < last_end[d])
            *clean = 0;
        last[d] = states[i].start;
        last_end[d] = states[i].end;
    }
    if (!out->index && !(out->index = malloc(sizeof *out->index)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    out->count = (int64_t)k;
    return 0;
}

/* Sorts out->index by start, then depth, then index (the states mode's
 * order). */
static int sort_window(const ari_gantt_state *states, ari_state_row_result *out, ari_error *err)
{
    if (out->count < 2)
        return 0;
    window_state *w = malloc((size_t)out->count * sizeof *w);
    if (!w)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < out->count; i++) {
        const ari_gantt_state *s = &states[out->index[i]];
        w[i] = (window_state){s->start, s->depth, out->index[i]};
    }
    qsort(w, (size_t)out->count, sizeof *w, by_start_depth);
    for (int64_t i = 0; i < out->count; i++)
        out->index[i] = w[i].index;
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
    /* floor(c) clamped to [0, width - 1]: for 0 <= c < width, floor is the
     * truncation (no libm call) */
    double c = (t - t0) / dt;
    return c < 0 ? 0 : c >= width ? width - 1 : (int)c;
}

/* The columns [*first, *last] that state s covers in the window, its
 * clipped times in *a, *b; 0 when it covers none. */
static int columns_of(const ari_gantt_state *s, const ari_state_row_result *out, double dt, double *a,
                      double *b, int *first, int *last)
{
    /* times are finite (check_state): the comparisons are fmax and fmin */
    *a = s->start > out->t0 ? s->start : out->t0;
    *b = s->end < out->t1 ? s->end : out->t1;
    if (!(*b > *a))
        return 0;
    *first = column_of(*a, out->t0, dt, out->width);
    *last = column_of(*b, out->t0, dt, out->width);
    return 1;
}

/* The time of [a, b] in column c. */
static double piece(const ari_state_row_result *out, double dt, double a, double b, int c)
{
    double c0 = out->t0 + c * dt, c1 = c + 1 == out->width ? out->t1 : out->t0 + (c + 1) * dt;
    return (b < c1 ? b : c1) - (a > c0 ? a : c0);
}

/* Spreads one state over the columns it covers (times, not yet shares). */
static int spread(const ari_gantt_state *s, ari_state_row_result *out, size_t *cap)
{
    double dt = (out->t1 - out->t0) / out->width, a, b;
    int first, last;
    if (!columns_of(s, out, dt, &a, &b, &first, &last))
        return 0;
    if (ari_vec_reserve((void **)&out->cells, cap, (size_t)out->ncells + (size_t)(last - first + 1),
                        sizeof *out->cells) < 0)
        return -1;
    for (int c = first; c <= last; c++) {
        double t = piece(out, dt, a, b, c);
        if (t > 0)
            out->cells[out->ncells++] = (ari_state_cell){c, s->depth, s->value, t};
    }
    return 0;
}

/* The column being summed by spread_clean: its distinct values' cells
 * (acc, in order of first piece) and slot[value] = position in acc or -1. */
typedef struct column_sum {
    ari_state_cell *acc;
    size_t nd, cap;
    int *slot;
} column_sum;

static int by_value(const void *a, const void *b);

/* Appends the column's cells by value to out and empties it. */
static int flush_column(column_sum *cs, ari_state_row_result *out, size_t *cap)
{
    if (cs->nd == 0)
        return 0;
    if (ari_vec_reserve((void **)&out->cells, cap, (size_t)out->ncells + cs->nd, sizeof *out->cells) < 0)
        return -1;
    if (cs->nd > 1)
        qsort(cs->acc, cs->nd, sizeof *cs->acc, by_value); /* distinct values: order is total */
    for (size_t i = 0; i < cs->nd; i++) {
        cs->slot[cs->acc[i].value] = -1;
        out->cells[out->ncells++] = cs->acc[i];
    }
    cs->nd = 0;
    return 0;
}

/* Adds a piece of value v to the column's sums. */
static int add_piece(column_sum *cs, int pixel, int depth, int v, double t)
{
    if (cs->slot[v] >= 0) {
        cs->acc[cs->slot[v]].share += t;
        return 0;
    }
    if (ari_vec_reserve((void **)&cs->acc, &cs->cap, cs->nd + 1, sizeof *cs->acc) < 0)
        return -1;
    cs->slot[v] = (int)cs->nd;
    cs->acc[cs->nd++] = (ari_state_cell){pixel, depth, v, t};
    return 0;
}

/* The states of one depth (idx[0, n), clean: each after the one before)
 * spread column by column into out, each column's values merged as it
 * is left: the cells come in (pixel, value) order, each value's pieces
 * added in state order, as merge_buckets would add them. */
static int spread_depth(const ari_gantt_state *states, const int64_t *idx, int64_t n, column_sum *cs,
                        ari_state_row_result *out, size_t *cap)
{
    double dt = (out->t1 - out->t0) / out->width, a, b;
    int cur = -1, first, last;
    for (int64_t i = 0; i < n; i++) {
        const ari_gantt_state *s = &states[idx[i]];
        if (!columns_of(s, out, dt, &a, &b, &first, &last))
            continue;
        for (int c = first; c <= last; c++) {
            double t = piece(out, dt, a, b, c);
            if (!(t > 0))
                continue;
            if (c != cur && flush_column(cs, out, cap) < 0)
                return -1;
            cur = c;
            if (add_piece(cs, c, s->depth, s->value, t) < 0)
                return -1;
        }
    }
    return flush_column(cs, out, cap);
}

/* The pixels mode's cells, merged and in (depth, pixel, value) order,
 * straight from clean states (see collect_window): the window's states
 * split by depth (a stable counting sort of their indices), then each
 * depth spread by spread_depth. O(states + cells + depths + nvalues). */
static int spread_clean(const ari_gantt_state *states, ari_state_row_result *out, int nvalues)
{
    int depths = out->max_depth + 1;
    int64_t *byd = malloc((size_t)(out->count > 0 ? out->count : 1) * sizeof *byd);
    int64_t *from = calloc((size_t)depths + 1, sizeof *from);
    column_sum cs = {NULL, 0, 0, malloc((size_t)(nvalues > 0 ? nvalues : 1) * sizeof(int))};
    int rc = byd && from && cs.slot ? 0 : -1;
    for (int v = 0; rc == 0 && v < nvalues; v++)
        cs.slot[v] = -1;
    if (rc == 0) {
        for (int64_t i = 0; i < out->count; i++)
            from[states[out->index[i]].depth + 1]++;
        for (int d = 0; d < depths; d++)
            from[d + 1] += from[d];
        for (int64_t i = 0; i < out->count; i++)
            byd[from[states[out->index[i]].depth]++] = out->index[i];
        size_t cap = 0; /* from[d] is now where depth d ends */
        for (int d = 0; rc == 0 && d < depths; d++) {
            int64_t begin = d == 0 ? 0 : from[d - 1];
            rc = spread_depth(states, byd + begin, from[d] - begin, &cs, out, &cap);
        }
    }
    free(byd);
    free(from);
    free(cs.acc);
    free(cs.slot);
    return rc;
}

/* Cells in (depth, pixel, value) order, equal ones merged in the order
 * they were spread: the general way, for value ids too large for
 * merge_buckets' table (qsort is glibc's stable merge sort here; the
 * bucket way below does not depend on it). */
static void merge_sorted(ari_state_row_result *out)
{
    qsort(out->cells, (size_t)out->ncells, sizeof *out->cells, by_cell);
    int64_t k = 0;
    for (int64_t i = 0; i < out->ncells; i++) {
        ari_state_cell *c = &out->cells[i];
        if (k > 0 && by_cell(&out->cells[k - 1], c) == 0)
            out->cells[k - 1].share += c->share;
        else
            out->cells[k++] = *c;
    }
    out->ncells = k;
}

/* Stable counting sort of n cells from src into dst by depth (by_depth)
 * or pixel, keys in [0, nkeys); count has nkeys + 1 slots. */
static void distribute(const ari_state_cell *src, ari_state_cell *dst, int64_t n, int64_t *count, int nkeys,
                       int by_depth)
{
    memset(count, 0, ((size_t)nkeys + 1) * sizeof *count);
    for (int64_t i = 0; i < n; i++)
        count[(by_depth ? src[i].depth : src[i].pixel) + 1]++;
    for (int k = 0; k < nkeys; k++)
        count[k + 1] += count[k];
    for (int64_t i = 0; i < n; i++)
        dst[count[by_depth ? src[i].depth : src[i].pixel]++] = src[i];
}

static int by_value(const void *a, const void *b)
{
    const ari_state_cell *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

/* Merges the run cells[i, j) of one (depth, pixel) by value into
 * cells[k, ...) (k <= i), each value's pieces added in run order; acc
 * holds j - i cells, slot[value] is -1 for every value on entry and exit.
 * Returns the new k. */
static int64_t merge_run(ari_state_cell *cells, int64_t i, int64_t j, int64_t k, ari_state_cell *acc,
                         int *slot)
{
    int nd = 0;
    for (int64_t m = i; m < j; m++) {
        int *s = &slot[cells[m].value];
        if (*s < 0) {
            *s = nd;
            acc[nd++] = cells[m];
        } else {
            acc[*s].share += cells[m].share;
        }
    }
    if (nd > 1)
        qsort(acc, (size_t)nd, sizeof *acc, by_value); /* distinct values: order is total */
    for (int d = 0; d < nd; d++) {
        slot[acc[d].value] = -1;
        cells[k++] = acc[d];
    }
    return k;
}

/* Cells in (depth, pixel, value) order, equal ones merged in the order
 * they were spread, without sorting them all: a counting sort by depth,
 * then by pixel within each depth, then a merge by value within each
 * (depth, pixel). O(cells + width x depths + nvalues). */
static int merge_buckets(ari_state_row_result *out, int nvalues)
{
    int64_t n = out->ncells;
    int depths = out->max_depth + 1;
    int nkeys = depths > out->width ? depths : out->width;
    ari_state_cell *tmp = malloc((size_t)n * sizeof *tmp);
    int64_t *count = malloc(((size_t)nkeys + 1) * sizeof *count);
    int *slot = malloc((size_t)(nvalues > 0 ? nvalues : 1) * sizeof *slot);
    if (!tmp || !count || !slot) {
        free(tmp);
        free(count);
        free(slot);
        return -1;
    }
    for (int v = 0; v < nvalues; v++)
        slot[v] = -1;
    distribute(out->cells, tmp, n, count, depths, 1);
    for (int64_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && tmp[hi].depth == tmp[lo].depth; hi++)
            ;
        distribute(tmp + lo, out->cells + lo, hi - lo, count, out->width, 0);
    }
    int64_t k = 0;
    for (int64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && out->cells[j].depth == out->cells[i].depth &&
                        out->cells[j].pixel == out->cells[i].pixel;
             j++)
            ;
        k = merge_run(out->cells, i, j, k, tmp, slot);
    }
    out->ncells = k;
    free(tmp);
    free(count);
    free(slot);
    return 0;
}

static void to_shares(ari_state_row_result *out);

/* Merges equal (depth, pixel, value) cells and turns times into shares.
 * 0, or -1 when out of memory. */
static int merge_cells(ari_state_row_result *out, int nvalues)
{
    if (out->ncells == 0)
        return 0;
    if (nvalues > MERGE_MAX_VALUES)
        merge_sorted(out);
    else if (merge_buckets(out, nvalues) < 0)
        return -1;
    to_shares(out);
    return 0;
}

/* Turns the merged cells' times into shares of their columns. */
static void to_shares(ari_state_row_result *out)
{
    double dt = (out->t1 - out->t0) / out->width;
    for (int64_t i = 0; i < out->ncells; i++) {
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
    int sorted, clean;
    if (collect_window(states, n, nvalues, out, &sorted, &clean, err) < 0) {
        ari_state_row_free(out);
        return -1;
    }
    out->mode =
        out->count <= (max_states < 0 ? width : max_states) ? ARI_STATE_ROWS_STATES : ARI_STATE_ROWS_PIXELS;
    /* The states mode lists them by start; the pixels mode only needs each
     * depth's states in time order (they usually come so). */
    if ((out->mode == ARI_STATE_ROWS_STATES || !sorted) && sort_window(states, out, err) < 0) {
        ari_state_row_free(out);
        return -1;
    }
    if (out->mode == ARI_STATE_ROWS_STATES)
        return 0;
    if (clean && nvalues <= MERGE_MAX_VALUES) { /* the usual case: no cell array to sort */
        if (spread_clean(states, out, nvalues) < 0) {
            ari_state_row_free(out);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        to_shares(out);
        return 0;
    }
    size_t cap = 0;
    for (int64_t i = 0; i < out->count; i++) {
        if (spread(&states[out->index[i]], out, &cap) < 0) {
            ari_state_row_free(out);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    if (merge_cells(out, nvalues) < 0) {
        ari_state_row_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
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
