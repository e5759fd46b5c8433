/* gantt_aggregation.h: level-of-detail reduction of one Gantt-chart row (a worker)
 * for drawing a time window [t0, t1) on `width` pixel columns.
 *
 * Rule (documented choice): when the row has at most `max_tasks` tasks in
 * the window (default width / 2, i.e. two pixels per task on average), the
 * tasks are returned individually (as a contiguous index range, since the
 * row is sorted); otherwise the window is cut into `width` equal columns
 * and each column gets the share of its time covered by each task type,
 * plus the idle share (time covered by no task). Either way the output
 * is O(width) and a screen never receives more than it can show.
 *
 * Idleness (ari_gantt_idle) follows StarVZ (R/phase2_metrics.R,
 * calculate_resource_idleness): 1 - (sum of the worker's task durations)
 * / (span), where the span is the window's length, the same for every
 * worker (StarVZ: max(End) - min(Start) of all application tasks); here
 * tasks are clipped to the window. The runtime states of a worker
 * (Sleeping, Idle, Overhead, ...) are reported apart by
 * ari_gantt_state_times as exclusive times: a nested state's time is taken
 * from its parent (Callback inside Overhead counts as Callback only).
 *
 * A task [s, e] is in the window when it overlaps [t0, t1) with positive
 * length (s < t1 and e > t0), or when it has zero length and t0 <= s < t1.
 *
 * The row's tasks must be sorted by start and must not overlap
 * (end[i] <= start[i + 1]); then ends are sorted too and the window's
 * first task is found by binary search. Cost: O(log n + tasks in window +
 * width); only the tasks in the window are checked for order, so callers
 * can pass a whole row or just the rows their index query returned.
 */
#ifndef ARIADNE_ANALYSIS_GANTT_AGGREGATION_H
#define ARIADNE_ANALYSIS_GANTT_AGGREGATION_H

#include <stdint.h>

#include "util/error.h"

#define ARI_GANTT_MAX_WIDTH 65536

typedef struct ari_gantt_row {
    int64_t ntasks;
    const double *start; /* [ntasks] sorted, finite */
    const double *end;   /* [ntasks] end[i] >= start[i], end[i] <= start[i + 1] */
    const int *type;     /* [ntasks] task-type id in [0, ntypes) */
    int ntypes;          /* >= 1 */
} ari_gantt_row;

typedef enum { ARI_GANTT_TASKS = 1, ARI_GANTT_PIXELS = 2 } ari_gantt_mode;

/* One (pixel, task type) cell of the aggregated mode. */
typedef struct ari_gantt_cell {
    int pixel;    /* column, 0 .. width - 1 */
    int type;     /* task type */
    double share; /* fraction of the column's time spent in tasks of this type, (0, 1] */
} ari_gantt_cell;

typedef struct ari_gantt_result {
    ari_gantt_mode mode;
    int64_t first, count;   /* the tasks in the window are [first, first + count) (both modes) */
    int width;
    double t0, t1;
    /* ARI_GANTT_PIXELS only (NULL otherwise): */
    int64_t *pixel_offset;  /* [width + 1]: cells of pixel c are cells[pixel_offset[c] .. [c+1]) */
    ari_gantt_cell *cells;  /* by pixel, then by first appearance of the type in the pixel */
    int64_t ncells;
    double *idle;           /* [width]: 1 - sum of the pixel's shares, in [0, 1] */
} ari_gantt_result;

/* Renders one row. max_tasks < 0 selects the default width / 2; with
 * max_tasks >= 0 tasks mode is used when count <= max_tasks. Returns 0 and
 * fills *out (free with ari_gantt_result_free), or -1 with
 * ARI_E_INVALID_PARAMETER (t0 >= t1 or not finite, width outside
 * 1..ARI_GANTT_MAX_WIDTH, bad arrays, or window tasks unsorted,
 * overlapping, with bad times or type ids) or ARI_E_NOMEM. */
int ari_gantt_render_row(const ari_gantt_row *row, double t0, double t1, int width,
                         int64_t max_tasks, ari_gantt_result *out, ari_error *err);

void ari_gantt_result_free(ari_gantt_result *res);

/* Sum of the durations of tasks [start[i], end[i]] clipped to [t0, t1]
 * (tasks outside count 0, in any order; overlaps are counted twice, as
 * StarVZ's sum(End - Start) does). */
double ari_gantt_task_time(const double *start, const double *end, int64_t n, double t0, double t1);

/* StarVZ's idleness of a worker in [t0, t1): 1 - task time / (t1 - t0),
 * clamped to [0, 1]; NAN when t1 <= t0 or either is not finite. */
double ari_gantt_idle(const double *start, const double *end, int64_t n, double t0, double t1);

/* One Paje state of a worker: value is a dense id in [0, nvalues). */
typedef struct ari_gantt_state {
    int value;
    int depth;          /* nesting level, 0 for the bottom of the stack */
    double start, end;
} ari_gantt_state;

/* Exclusive time of each state value in [t0, t1]: time[v] (caller's array
 * of nvalues, zeroed here) is the clipped duration of the states of value
 * v minus, for each direct child (the latest state of depth - 1 started
 * before it is its parent, as Paje's PushState/PopState make them), the
 * clipped overlap of child and parent; so the times of one properly
 * nested stack add up to its clipped span. A state without a parent
 * overlapping it keeps its whole time. The states must be sorted by start,
 * then depth. Returns 0, or -1 with ARI_E_INVALID_PARAMETER (value id
 * outside [0, nvalues), negative depth, times not finite or end < start,
 * unsorted) or ARI_E_NOMEM. */
int ari_gantt_state_times(const ari_gantt_state *states, int64_t n, double t0, double t1, int nvalues,
                          double *time, ari_error *err);

#endif
