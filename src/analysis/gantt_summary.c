/* gantt_summary.c: a Gantt row's tasks and states accumulated into time
 * buckets, and a window drawn back from the buckets (gantt_summary.h). */
#include "analysis/gantt_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* ---- the grid ---- */

double ari_gs_bucket_lo(const ari_gs_grid *g, int64_t b)
{
    return b >= g->nbuckets ? g->t1 : g->t0 + (g->t1 - g->t0) * (double)b / (double)g->nbuckets;
}

int64_t ari_gs_bucket_of(const ari_gs_grid *g, double t)
{
    double f = floor((t - g->t0) / (g->t1 - g->t0) * (double)g->nbuckets);
    int64_t b = f < 0 ? 0 : f >= (double)g->nbuckets ? g->nbuckets - 1 : (int64_t)f;
    while (b > 0 && ari_gs_bucket_lo(g, b) > t)
        b--;
    while (b + 1 < g->nbuckets && ari_gs_bucket_lo(g, b + 1) <= t)
        b++;
    return b;
}

int ari_gs_pick_level(const ari_gs_grid *levels, int nlevels, double t0, double t1, int width, double k)
{
    for (int i = 0; i < nlevels; i++) {
        const ari_gs_grid *g = &levels[i];
        /* A window's ends printed with 12 digits (the answers' precision,
         * which the dashboard sends back) may leave the extent by an ulp
         * or so: up to ARI_GS_EXTENT_SLACK of it counts as inside. */
        double slack = (g->t1 - g->t0) * ARI_GS_EXTENT_SLACK;
        if (!(t0 >= g->t0 - slack && t1 <= g->t1 + slack && t1 > t0) || width < 1)
            return -1;
        double per_pixel = (double)g->nbuckets * ((t1 - t0) / (g->t1 - g->t0)) / width;
        if (per_pixel >= k)
            return i;
    }
    return -1;
}

/* ---- accumulating ---- */

int ari_gs_acc_init(ari_gs_acc *acc, ari_gs_grid grid, int nkeys, ari_error *err)
{
    memset(acc, 0, sizeof *acc);
    if (!isfinite(grid.t0) || !isfinite(grid.t1) || !(grid.t0 < grid.t1) || grid.nbuckets < 1 || nkeys < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt summary: bad grid [%g, %g) x %lld", grid.t0,
                             grid.t1, (long long)grid.nbuckets);
    acc->grid = grid;
    acc->nkeys = nkeys;
    size_t nb = (size_t)grid.nbuckets;
    acc->time = calloc(nb * (size_t)nkeys + 1, sizeof *acc->time);
    acc->ntasks = calloc(nb, sizeof *acc->ntasks);
    acc->nstates = calloc(nb, sizeof *acc->nstates);
    if (!acc->time || !acc->ntasks || !acc->nstates) {
        ari_gs_acc_free(acc);
        return ari_error_set(err, ARI_E_NOMEM, "gantt summary: out of memory");
    }
    return 0;
}

void ari_gs_acc_free(ari_gs_acc *acc)
{
    free(acc->time);
    free(acc->ntasks);
    free(acc->nstates);
    memset(acc, 0, sizeof *acc);
}

/* Spreads sign * [s, e) ∩ grid over the buckets of key. */
static void spread(ari_gs_acc *acc, int key, double s, double e, double sign)
{
    const ari_gs_grid *g = &acc->grid;
    if (s < g->t0)
        s = g->t0;
    if (e > g->t1)
        e = g->t1;
    if (!(e > s))
        return;
    for (int64_t b = ari_gs_bucket_of(g, s); b < g->nbuckets; b++) {
        double lo = ari_gs_bucket_lo(g, b), hi = ari_gs_bucket_lo(g, b + 1);
        if (lo >= e)
            break;
        double overlap = (e < hi ? e : hi) - (s > lo ? s : lo);
        if (overlap > 0)
            acc->time[b * acc->nkeys + key] += sign * overlap;
    }
}

void ari_gs_acc_tasks(ari_gs_acc *acc, const double *start, const double *end, const int *type, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(start[i]) || !isfinite(end[i]) || type[i] < 0 || type[i] >= acc->nkeys)
            continue;
        double e = end[i] >= start[i] ? end[i] : start[i];
        if (i + 1 < n && e > start[i + 1]) /* the raw path's clamp (api_gantt.c, collect) */
            e = start[i + 1] > start[i] ? start[i + 1] : start[i];
        acc->ntasks[ari_gs_bucket_of(&acc->grid, start[i])]++;
        spread(acc, type[i], start[i], e, 1);
    }
}

int ari_gs_acc_states(ari_gs_acc *acc, const ari_gantt_state *states, int64_t n, ari_error *err)
{
    int maxdepth = 0;
    for (int64_t i = 0; i < n; i++)
        if (states[i].depth > maxdepth)
            maxdepth = states[i].depth;
    int64_t *latest = malloc(((size_t)maxdepth + 1) * sizeof *latest);
    if (!latest)
        return ari_error_set(err, ARI_E_NOMEM, "gantt summary: out of memory");
    for (int d = 0; d <= maxdepth; d++)
        latest[d] = -1;
    for (int64_t i = 0; i < n; i++) {
        const ari_gantt_state *st = &states[i];
        if (st->value < 0 || st->value >= acc->nkeys || st->depth < 0 || !isfinite(st->start) ||
            !isfinite(st->end))
            continue;
        acc->nstates[ari_gs_bucket_of(&acc->grid, st->start)]++;
        spread(acc, st->value, st->start, st->end, 1);
        int64_t p = st->depth > 0 ? latest[st->depth - 1] : -1;
        if (p >= 0) { /* the child's time is taken from its parent */
            double lo = st->start > states[p].start ? st->start : states[p].start;
            double hi = st->end < states[p].end ? st->end : states[p].end;
            spread(acc, states[p].value, lo, hi, -1);
        }
        latest[st->depth] = i;
    }
    free(latest);
    return 0;
}

int ari_gs_acc_cells(const ari_gs_acc *acc, int64_t b0, int64_t b1, const int64_t *key_out,
                     ari_gs_cell **cells, size_t *n, size_t *cap)
{
    for (int64_t b = b0; b < b1 && b < acc->grid.nbuckets; b++)
        for (int k = 0; k < acc->nkeys; k++) {
            double t = acc->time[b * acc->nkeys + k];
            int64_t key = key_out ? key_out[k] : k;
            if (t == 0 || key < 0)
                continue;
            if (ari_vec_reserve((void **)cells, cap, *n + 1, sizeof **cells) < 0)
                return -1;
            (*cells)[(*n)++] = (ari_gs_cell){.bucket = (int32_t)b, .key = (int32_t)key, .time = t};
        }
    return 0;
}

/* ---- reading ---- */

static double overlap_of(double lo, double hi, double t0, double t1)
{
    double a = lo > t0 ? lo : t0, b = hi < t1 ? hi : t1;
    return b > a ? b - a : 0;
}

void ari_gs_window_times(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const int *keymap,
                         int nmap, double t0, double t1, double *time)
{
    for (int64_t i = 0; i < n; i++) {
        const ari_gs_cell *c = &cells[i];
        int v = c->key >= 0 && c->key < nmap ? keymap[c->key] : -1;
        if (v < 0)
            continue;
        double lo = ari_gs_bucket_lo(g, c->bucket), hi = ari_gs_bucket_lo(g, (int64_t)c->bucket + 1);
        if (lo >= t0 && hi <= t1)
            time[v] += c->time;
        else if (hi > lo)
            time[v] += c->time * overlap_of(lo, hi, t0, t1) / (hi - lo);
    }
}

/* The pixel columns of a window, as gantt_aggregation.c cuts them. */
typedef struct columns {
    double t0, t1;
    int width;
} columns;

static double column_lo(const columns *w, int c)
{
    return c >= w->width ? w->t1 : w->t0 + (w->t1 - w->t0) * c / w->width;
}

static int column_of(const columns *w, double t)
{
    double f = floor((t - w->t0) / (w->t1 - w->t0) * w->width);
    int c = f < 0 ? 0 : f >= w->width ? w->width - 1 : (int)f;
    while (c > 0 && column_lo(w, c) > t)
        c--;
    while (c + 1 < w->width && column_lo(w, c + 1) <= t)
        c++;
    return c;
}

/* The cells being built, merged per (pixel, type); pixels arrive in
 * non-decreasing order. */
typedef struct pixel_acc {
    ari_gantt_cell *cells;
    int64_t ncells;
    size_t cap;
    int *slot_pixel;    /* [ntypes] */
    int64_t *slot_cell; /* [ntypes] */
} pixel_acc;

static int add_share(pixel_acc *a, int c, int k, double share)
{
    if (a->slot_pixel[k] == c) {
        a->cells[a->slot_cell[k]].share += share;
        return 0;
    }
    if (ari_vec_reserve((void **)&a->cells, &a->cap, (size_t)a->ncells + 1, sizeof *a->cells) < 0)
        return -1;
    a->slot_pixel[k] = c;
    a->slot_cell[k] = a->ncells;
    a->cells[a->ncells++] = (ari_gantt_cell){.pixel = c, .type = k, .share = share};
    return 0;
}

/* Spreads the cells [i, j) of one bucket over the columns it covers. */
static int spread_bucket(pixel_acc *a, const columns *w, const ari_gs_grid *g, const ari_gs_cell *cells,
                         int64_t i, int64_t j, const int *keymap, int nmap)
{
    double lo = ari_gs_bucket_lo(g, cells[i].bucket), hi = ari_gs_bucket_lo(g, (int64_t)cells[i].bucket + 1);
    double s = lo > w->t0 ? lo : w->t0, e = hi < w->t1 ? hi : w->t1;
    if (!(e > s) || !(hi > lo))
        return 0;
    for (int c = column_of(w, s); c < w->width; c++) {
        double plo = column_lo(w, c), phi = column_lo(w, c + 1);
        if (plo >= e)
            break;
        double frac = overlap_of(lo, hi, plo, phi) / (hi - lo);
        for (int64_t m = i; frac > 0 && m < j; m++) {
            int k = cells[m].key >= 0 && cells[m].key < nmap ? keymap[cells[m].key] : -1;
            if (k >= 0 && cells[m].time > 0 && add_share(a, c, k, cells[m].time * frac / (phi - plo)) != 0)
                return -1;
        }
    }
    return 0;
}

static void finish_pixels(pixel_acc *a, ari_gantt_result *out)
{
    int64_t j = 0;
    for (int c = 0; c < out->width; c++) {
        out->pixel_offset[c] = j;
        double busy = 0;
        for (; j < a->ncells && a->cells[j].pixel == c; j++) {
            if (a->cells[j].share > 1)
                a->cells[j].share = 1;
            busy += a->cells[j].share;
        }
        double idle = 1 - busy;
        out->idle[c] = idle < 0 ? 0 : idle > 1 ? 1 : idle;
    }
    out->pixel_offset[out->width] = j;
    out->cells = a->cells;
    out->ncells = a->ncells;
    a->cells = NULL;
}

int ari_gs_pixels(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const int *keymap, int nmap,
                  int ntypes, double t0, double t1, int width, ari_gantt_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (!isfinite(t0) || !isfinite(t1) || !(t0 < t1) || width < 1 || width > ARI_GANTT_MAX_WIDTH ||
        ntypes < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt summary: bad window [%g, %g) on %d pixels",
                             t0, t1, width);
    columns w = {t0, t1, width};
    out->t0 = t0, out->t1 = t1, out->width = width;
    pixel_acc a = {0};
    a.slot_pixel = malloc((size_t)ntypes * sizeof *a.slot_pixel);
    a.slot_cell = malloc((size_t)ntypes * sizeof *a.slot_cell);
    out->pixel_offset = malloc(((size_t)width + 1) * sizeof *out->pixel_offset);
    out->idle = malloc((size_t)width * sizeof *out->idle);
    int rc = -1;
    if (!a.slot_pixel || !a.slot_cell || !out->pixel_offset || !out->idle)
        goto done;
    for (int k = 0; k < ntypes; k++)
        a.slot_pixel[k] = -1;
    for (int64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && cells[j].bucket == cells[i].bucket;)
            j++;
        if (spread_bucket(&a, &w, g, cells, i, j, keymap, nmap) != 0)
            goto done;
    }
    finish_pixels(&a, out);
    rc = 0;
done:
    free(a.cells), free(a.slot_pixel), free(a.slot_cell);
    if (rc < 0) {
        ari_gantt_result_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "gantt summary: out of memory");
    }
    out->mode = ARI_GANTT_PIXELS;
    return 0;
}
