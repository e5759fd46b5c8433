/* gantt_summary.h: the math of the Gantt's multi-resolution summaries
 * (issue 20; stored by store/gantt_summaries.c): one row's tasks and
 * runtime states accumulated into equal time buckets, and a window drawn
 * from the buckets instead of the raw rows.
 *
 * A grid cuts [t0, t1) into nbuckets equal buckets. Per bucket a row keeps
 * the time covered by each task type (the tasks clamped as the Gantt's raw
 * path clamps them: sorted by start, an end beyond the next start cut to
 * it) and the exclusive time of each state value (as ari_gantt_state_times:
 * a nested state's time is taken from its parent).
 *
 * Reading: a bucket cut by a pixel (or window) edge is split in proportion
 * to the overlap, as if its time were spread evenly over it. Error bound:
 * in a bucket of length L holding time c of one key (c <= L), the part in
 * an overlap of fraction a is between max(0, c - (1 - a) L) and min(c, a L),
 * so the estimate a c is off by at most a (1 - a) L <= L / 4. A pixel
 * covered by K >= 1 buckets (K = bucket count per pixel) has two edge
 * buckets: each type's share of the pixel is exact but for at most
 * 2 * L / 4 / pixel = 1 / (2 K); the idle share likewise. A window's state
 * time of each value is exact but for 1 / (2 K) of the window, K buckets
 * in the window. When every pixel (window) edge falls on a bucket edge the
 * answer is exact (up to rounding). Rows must be properly nested for the
 * state times to equal ari_gantt_state_times' (as Paje's push/pop makes them).
 */
#ifndef ARIADNE_ANALYSIS_GANTT_SUMMARY_H
#define ARIADNE_ANALYSIS_GANTT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/gantt_aggregation.h"
#include "util/error.h"

typedef struct ari_gs_grid {
    double t0, t1;    /* t0 < t1, finite */
    int64_t nbuckets; /* >= 1 */
} ari_gs_grid;

/* One stored cell: the time of `key` (a task type or a state value) in a
 * bucket. Cells of a row are sorted by bucket. */
typedef struct ari_gs_cell {
    int32_t bucket;
    int32_t key;
    double time;
} ari_gs_cell;

/* Dense accumulator of one grid: time[bucket * nkeys + key], and per
 * bucket the tasks and states starting in it. */
typedef struct ari_gs_acc {
    ari_gs_grid grid;
    int nkeys;
    double *time;
    int32_t *ntasks, *nstates;
} ari_gs_acc;

/* Returns 0, or -1 with ARI_E_INVALID_PARAMETER or ARI_E_NOMEM. */
int ari_gs_acc_init(ari_gs_acc *acc, ari_gs_grid grid, int nkeys, ari_error *err);
void ari_gs_acc_free(ari_gs_acc *acc);

/* Adds a row's tasks (sorted by start as the gantt_rows store them; types
 * in [0, nkeys)). Zero-length and out-of-grid tasks add no time. */
void ari_gs_acc_tasks(ari_gs_acc *acc, const double *start, const double *end, const int *type, int64_t n);

/* Adds a row's states (sorted by start, then depth; values in [0, nkeys))
 * as exclusive times. Returns 0, or -1 with ARI_E_NOMEM. */
int ari_gs_acc_states(ari_gs_acc *acc, const ari_gantt_state *states, int64_t n, ari_error *err);

/* Appends the non-zero cells of buckets [b0, b1) of acc to the growing
 * array *cells (*n of *cap), by bucket then key, key k stored as
 * key_out[k] (NULL: k; < 0: left out). Returns 0, or -1 when out of
 * memory. */
int ari_gs_acc_cells(const ari_gs_acc *acc, int64_t b0, int64_t b1, const int64_t *key_out,
                     ari_gs_cell **cells, size_t *n, size_t *cap);

/* The bucket holding t, clamped to [0, nbuckets). */
int64_t ari_gs_bucket_of(const ari_gs_grid *g, double t);
/* The start of bucket b (t1 for b >= nbuckets). */
double ari_gs_bucket_lo(const ari_gs_grid *g, int64_t b);

/* The coarsest of `nlevels` grids (sorted by nbuckets, same extent) with
 * at least k buckets per pixel of [t0, t1) on `width` pixels, or -1 when
 * none has (or the window leaves the grids' extent by more than
 * ARI_GS_EXTENT_SLACK of it: what lies beyond is not in the cells, an
 * error far below a bucket's). */
#define ARI_GS_EXTENT_SLACK 1e-9
int ari_gs_pick_level(const ari_gs_grid *levels, int nlevels, double t0, double t1, int width, double k);

/* Draws [t0, t1) on width pixels from cells (sorted by bucket), keys
 * mapped to type ids by keymap[key] (key outside [0, nmap) or -1: dropped),
 * ntypes type ids: fills *out in ARI_GANTT_PIXELS mode as
 * ari_gantt_render_row does (free with ari_gantt_result_free; first and
 * count are 0). Returns 0 or -1 (ARI_E_INVALID_PARAMETER, ARI_E_NOMEM). */
int ari_gs_pixels(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const int *keymap, int nmap,
                  int ntypes, double t0, double t1, int width, ari_gantt_result *out, ari_error *err);

/* Adds to time[keymap[key]] the time of each cell inside [t0, t1) (edge
 * buckets in proportion); keys outside the map are dropped. Negative
 * totals (rounding) are the caller's to clamp. */
void ari_gs_window_times(const ari_gs_grid *g, const ari_gs_cell *cells, int64_t n, const int *keymap,
                         int nmap, double t0, double t1, double *time);

#endif
