/* gantt_summaries.h: multi-resolution summaries of the Gantt chart's rows
 * (issue 20; sql/020_gantt_summaries.sql, math in
 * analysis/gantt_summary.h), written at import and read by GET /gantt
 * for large windows instead of every task and runtime state of a row.
 *
 * Levels: the trace's task extent (meta's extent_start .. extent_end) cut
 * into 2^10, 2^12, 2^14, 2^16 and 2^18 buckets; per worker and level, per
 * bucket: tasks and states starting in it, time per task type, exclusive
 * time per state value; stored in chunks of ARI_GANTT_SUMMARY_CHUNK
 * buckets so that a zoomed window reads the few chunks it overlaps. Only
 * rows with at least ARI_GANTT_SUMMARY_MIN_ROWS tasks or states get
 * summaries (the others are cheap to read raw). Import cost: one read of
 * each such worker's states (index states_by_container) and packed tasks.
 *
 * Precision (see gantt_summary.h for the proof): the level used is the
 * coarsest with at least K buckets per pixel (pixels) or in the window
 * (states), so a type's share of a pixel is exact but for at most
 * 1 / (2 * ARI_GANTT_SUMMARY_PIXEL_K) = 1/16 of the pixel, and a state's
 * share of the window is exact but for 1 / (2 * ARI_GANTT_SUMMARY_STATE_K)
 * = 1/512 of the window; exact when the edges fall on bucket edges.
 *
 * When to use them: the readers decide; a caller just asks and falls
 * back to the raw rows on 0. They answer (return 1) only when the trace
 * has summaries, the row has them (at least ARI_GANTT_SUMMARY_MIN_ROWS
 * tasks or states in all: small rows, hence small traces, keep the exact
 * raw path and its exact answers), the window lies inside the summarised
 * extent and a level has K buckets per pixel (per window for the states).
 * Pixels also need at least ARI_GANTT_SUMMARY_PIXEL_ROWS tasks starting in
 * the window (fewer are cheap to aggregate exactly, in memory or in SQL;
 * more than two per pixel at 1920 px, so such a row is drawn in pixels
 * mode by the exact path too). The states need no
 * such count: the raw read costs every state of the row starting before
 * the window's end (index on start), far more than the summary's chunks,
 * while the summary's error stays under 1/512 of the window. Pixels are
 * the unfiltered row: a caller with a type or duration filter must not
 * ask. Traces imported before sql/020 have no summaries: 0.
 *
 * A window too narrow for the levels (under 1/256 of the extent for the
 * states), or leaving the extent, of a summarised row: the states are
 * read raw but only from t0 - (the row's longest state, stored at import
 * in gantt_summary_rows): every state overlapping the window, and its
 * parent, starts there, so the answer is the raw path's, exactly, without
 * its scan of every state started before t1 (10 to 13 s at the end of the
 * TILES=185 trace for 1/1000 of it).
 *
 * Measured at TILES=185 (10 M states, 1.1 M tasks, 10 workers; a loaded
 * 2-core machine; tests/tools/gantt_summary_bench.c): the state times of
 * the whole trace for every row 72.6 s raw, 0.15 s from the summaries; a
 * tenth 7.0 s, 0.13 s. Pixels from the in-memory rows are exact and as
 * fast (0.1 s for the whole trace): the pixel summaries are for a store
 * that does not hold the rows in memory. The 2^18 level (added after
 * that run) lets a tenth of that trace at 1920 px be drawn from them (it
 * was aggregated in SQL on PostgreSQL: 420 ms); the summaries take 89 MB
 * in PostgreSQL for that trace, against 34 MB with four levels, and the
 * import's peak memory did not change (1.07 GB).
 */
#ifndef ARIADNE_STORE_GANTT_SUMMARIES_H
#define ARIADNE_STORE_GANTT_SUMMARIES_H

#include <stdint.h>

#include "analysis/gantt_aggregation.h"
#include "analysis/gantt_summary.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

#define ARI_GANTT_SUMMARY_MIN_ROWS 20000 /* N: rows with fewer than this many read raw */
#define ARI_GANTT_SUMMARY_PIXEL_ROWS 4096 /* pixels: tasks starting in the window, at least */
#define ARI_GANTT_SUMMARY_PIXEL_K  8     /* buckets per pixel, at least */
#define ARI_GANTT_SUMMARY_STATE_K  256   /* buckets per window for the state shares, at least */
#define ARI_GANTT_SUMMARY_CHUNK    4096  /* buckets per stored row */
#define ARI_GANTT_SUMMARY_LEVELS   5     /* 2^10, 2^12, 2^14, 2^16, 2^18 buckets */

/* Builds the summaries of trace_id (replacing any) from its packed Gantt
 * rows (gantt_rows.h, built first) and its states table, inside the
 * caller's transaction. A trace without tasks, or whose rows are all
 * small, gets none. Returns 0, or -1 with err set. */
int ari_gantt_summaries_build(ari_store *s, int64_t trace_id, ari_error *err);

/* The row of worker_id drawn on [t0, t1) x width from the summaries, as
 * ari_gantt_render_row's pixel mode (out->mode ARI_GANTT_PIXELS, type ids
 * of meta; first and count 0; free with ari_gantt_result_free).
 * Returns 1 (answered), 0 (no summary fits: use the raw rows; *out
 * zeroed), or -1 with err set. */
int ari_gantt_summary_pixels(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                             double t0, double t1, int width, ari_gantt_result *out, ari_error *err);

/* A row's state values with their exclusive times in a window. */
typedef struct ari_gantt_state_totals {
    int nvalues;
    char **names;           /* [nvalues] */
    unsigned char *is_task; /* [nvalues] the value is a task type of meta */
    double *time;           /* [nvalues] exclusive time in the window, >= 0 */
} ari_gantt_state_totals;

/* The exclusive time of each state value of worker_id in [t0, t1), as
 * ari_tq_worker_states + ari_gantt_state_times give it (the share is
 * time / (t1 - t0)): from the summaries, or exactly from the bounded raw
 * read above for a narrow window. Returns 1 (answered; free with
 * ari_gantt_state_totals_free), 0 (use the raw rows; *out zeroed), or -1
 * with err set. */
int ari_gantt_summary_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                             double t0, double t1, ari_gantt_state_totals *out, ari_error *err);
void ari_gantt_state_totals_free(ari_gantt_state_totals *t);
/* ari_gantt_summary_states' two halves, for a caller that reads the raw
 * states of several rows at once (store/gantt_row_reads.h): the answer
 * from the summary cells alone (1, or 0 when no level fits the window or
 * the row has none; -1 with err set), and the lowest start of a state of
 * the row that can reach t0 (t0 - the row's longest state, less rounding):
 * 0 and *lo, 1 when the row has no summary (every earlier state can), -1
 * with err set. */
int ari_gantt_summary_state_cells(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                                  double t0, double t1, ari_gantt_state_totals *out, ari_error *err);
int ari_gantt_summary_states_from(ari_store *s, int64_t trace_id, int64_t worker_id, double t0, double *lo,
                                  ari_error *err);

/* The stored levels, coarsest first: 0 and *n (<= cap), 1 when the trace
 * has none, -1 on error. */
int ari_gantt_summary_levels(ari_store *s, int64_t trace_id, ari_gs_grid *levels, int cap, int *n,
                             ari_error *err);

/* Tests only: the row size above which rows get and use summaries
 * (default ARI_GANTT_SUMMARY_MIN_ROWS, and ARI_GANTT_SUMMARY_PIXEL_ROWS
 * for the pixels); < 0 restores the defaults. */
void ari_gantt_summaries_set_min_rows(int64_t n);

#endif
