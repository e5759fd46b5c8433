/* gantt_sql.h: the Gantt's per-pixel aggregation computed by the database
 * (issue 20: "pushed down as SQL aggregations per container and pixel"),
 * so that a daemon on PostgreSQL never loads a trace's rows to draw it.
 *
 * One statement over `tasks` for every worker shown, a plain GROUP BY
 * (trace_id, worker_id, type, cs, ce) where cs and ce are the pixels of a
 * task's clipped start and end, computed in SQL exactly as
 * analysis/gantt_aggregation.c computes them (the truncated position in
 * pixels, corrected by one step against the pixel edges t0 + (t1 - t0) *
 * c / width for the tasks within a thousandth of a pixel of one). Only
 * immutable built-in operators and functions (CASE, trunc, round, abs) and
 * count/sum/min/max with FILTER: postgres_fdw ships it whole to the shard
 * that holds the trace (checked: "Foreign Scan ... Aggregate on" a foreign
 * partition; ari_gantt_sql_text gives the text to EXPLAIN, and gantt_sql.c
 * says what the text avoids for that).
 * Per group: the filtered tasks in the window (tasks vs pixels mode), the
 * tasks drawn, their summed length, first start and last end, and the
 * clipped time of all the worker's tasks (its idleness). C then spreads
 * the groups over the pixels: a group inside one pixel adds its summed
 * length; a task over several pixels (alone in its group when the row's
 * tasks do not overlap) adds partials at its first and last pixel and a
 * full pixel to each pixel between.
 *
 * What differs from the in-memory path (gantt_aggregation.h on the row
 * cache), and when a caller must use that path instead:
 *  - a pixel's share of tasks inside it is (sum of lengths) / pixel,
 *    not the sum of (length / pixel) in task order, and the busy time is
 *    summed in another order: equal to about 1e-15 relative (an idle share
 *    may be 1e-16 instead of 0), same cells, same order;
 *  - a row whose tasks overlap (the in-memory path clamps a task's end to
 *    the next one's start): ari_gantt_sql_render returns 1 when it sees
 *    it (a group of several tasks over several pixels); overlaps inside
 *    one pixel are not seen, ari_gantt_sql_overlaps names such rows;
 *  - windows so narrow that a pixel is a few ulps wide
 *    (ari_gantt_sql_exact returns 0): the one-step correction of the
 *    pixel estimate is then not enough.
 * Cost: the database scans the tasks starting in [t0 - longest task, t1)
 * through tasks_by_worker; the daemon holds the groups: O(types x width)
 * per worker at most, whatever the trace's size. */
#ifndef ARIADNE_GANTT_SQL_H
#define ARIADNE_GANTT_SQL_H

#include <stdint.h>

#include "analysis/gantt_aggregation.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

/* One (type, first pixel, last pixel) group of a worker's tasks. */
typedef struct ari_gantt_sql_group {
    int type;            /* meta type id */
    int first, last;     /* cs, ce: pixels of the clipped start and end (drawn tasks) */
    int64_t nwindow;     /* filtered tasks in the window */
    int64_t ndrawn;      /* filtered tasks of positive clipped length */
    double length;       /* their summed clipped length */
    double min_start;    /* their first clipped start */
    double max_end;      /* their last clipped end */
} ari_gantt_sql_group;

typedef struct ari_gantt_sql_row {
    int64_t nwindow;     /* filtered tasks in the window (the type filter applied) */
    double busy;         /* clipped time of all the worker's tasks (StarVZ's idleness) */
    int64_t ngroups;
    ari_gantt_sql_group *groups; /* of the filter's types */
} ari_gantt_sql_row;

typedef struct ari_gantt_sql_query {
    double t0, t1;                /* the window [t0, t1), t0 < t1, finite */
    int width;                    /* 1 .. ARI_GANTT_MAX_WIDTH */
    double min_duration;          /* NAN: none */
    const unsigned char *type_ok; /* [meta->ntypes]: the filter's types; NULL: all */
    const unsigned char *shown;   /* [meta->nworkers]: the rows asked for; NULL: all */
} ari_gantt_sql_query;

typedef struct ari_gantt_sql_result {
    double t0, t1;
    int width;
    int nrows;
    ari_gantt_sql_row *rows;      /* [meta->nworkers], in meta's order (empty when not shown) */
} ari_gantt_sql_result;

/* 1 when the window's pixels are wide enough for the SQL's pixel
 * arithmetic to be exact (each at least 2^16 ulps of the window's times, and
 * the span times width + 1 finite: PostgreSQL refuses an overflow),
 * 0 when the caller must draw from the rows themselves. */
int ari_gantt_sql_exact(double t0, double t1, int width);

/* Runs the aggregation (one statement, every shown worker). Returns 0 and
 * fills *out (free with ari_gantt_sql_result_free), or -1 with err set. */
int ari_gantt_sql_run(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_gantt_sql_query *q,
                      ari_gantt_sql_result *out, ari_error *err);
void ari_gantt_sql_result_free(ari_gantt_sql_result *r);

/* StarVZ's idleness of row i in the window (ari_gantt_idle's value). */
double ari_gantt_sql_idle(const ari_gantt_sql_result *r, int i);

/* Row i as ari_gantt_render_row would render it: tasks mode (only mode,
 * first = 0 and count set) when its tasks in the window are at most
 * max_tasks (< 0: width / 2), else pixels mode with the cells by pixel,
 * then by first appearance of the type in the pixel, and the idle share of
 * each pixel. Returns 0 and *out (free with ari_gantt_result_free), 1 when
 * the row's tasks overlap (render it from its tasks), -1 with err set. */
int ari_gantt_sql_render(const ari_gantt_sql_result *r, int i, int64_t max_tasks, ari_gantt_result *out,
                         ari_error *err);

/* Which workers' tasks overlap (a task ending after the next one starts,
 * in the row's order): overlaps[i] for meta->workers[i]. Computed once per
 * trace (a window function over its tasks, which postgres_fdw does not
 * push down) and kept in the analysis cache ("gantt_overlaps"). Returns 0
 * or -1 with err set. */
int ari_gantt_sql_overlaps(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, unsigned char *overlaps,
                           ari_error *err);

/* The statement's text as PostgreSQL receives it for these workers ($1
 * trace id, $2 t0, $3 t1, $4 width as a double, $5 the lowest start read
 * (t0 - the longest task), $6 min_duration or NULL, $7 width / (t1 - t0),
 * $8 t1 - t0, $9 width - 1), for EXPLAIN (VERBOSE) in the sharding tests.
 * Malloc'd (caller frees); NULL when out of memory. */
char *ari_gantt_sql_text(const int64_t *worker_ids, int n);

#endif
