/* state_rows.h: level of detail of one timeline row of Paje states (one
 * container and state type, nested states at depth 1, 2, ... inside their
 * parents) for drawing a window [t0, t1) on `width` pixel columns.
 *
 * The rule follows the Gantt's (gantt_aggregation.h): when the row has at
 * most `max_states` states in the window (default: width), they are
 * returned individually (as indices into the caller's array); otherwise
 * the window is cut into `width` equal columns and, for each column and
 * each depth, the share of the column's time covered by each state value
 * is returned. A screen never receives more than O(width x depths) items.
 *
 * A state [s, e] is in the window when it overlaps [t0, t1) with positive
 * length (s < t1 and e > t0), or has zero length and t0 <= s <= t1 (so
 * that the window of the whole trace shows the zero-length states at its
 * end, which Paje writers emit when they close containers).
 * States are in any order; the shares of one (column, depth) add up to
 * at most 1 when the states of one depth do not overlap (Paje's
 * PushState/PopState and SetState make them so), and are clamped to 1
 * otherwise.
 */
#ifndef ARIADNE_ANALYSIS_STATE_ROWS_H
#define ARIADNE_ANALYSIS_STATE_ROWS_H

#include <stdint.h>

#include "analysis/gantt_aggregation.h" /* ari_gantt_state: value, depth, start, end */
#include "util/error.h"

#define ARI_STATE_ROWS_MAX_WIDTH 65536
#define ARI_STATE_ROWS_MAX_DEPTH 1024

typedef enum { ARI_STATE_ROWS_STATES = 1, ARI_STATE_ROWS_PIXELS = 2 } ari_state_rows_mode;

/* One (column, depth, value) cell of the aggregated mode. */
typedef struct ari_state_cell {
    int pixel; /* 0 .. width - 1 */
    int depth;
    int value;
    double share; /* fraction of the column's time, (0, 1] */
} ari_state_cell;

typedef struct ari_state_row_result {
    ari_state_rows_mode mode;
    int64_t count; /* states in the window (both modes) */
    int max_depth; /* deepest depth in the window, -1 when empty */
    int width;
    double t0, t1;
    int64_t *index;        /* [count] indices of the window's states; STATES: by start then depth */
    ari_state_cell *cells; /* PIXELS: sorted by depth, pixel, value */
    int64_t ncells;
} ari_state_row_result;

/* Renders one row of n states (values in [0, nvalues)). max_states < 0
 * selects the default (width). Returns 0 and fills *out (free with
 * ari_state_row_free), or -1 with ARI_E_INVALID_PARAMETER (t0 >= t1 or
 * not finite, width outside 1..ARI_STATE_ROWS_MAX_WIDTH, a window state
 * with bad times, value or depth) or ARI_E_NOMEM. */
int ari_state_row_render(const ari_gantt_state *states, int64_t n, int nvalues, double t0, double t1,
                         int width, int64_t max_states, ari_state_row_result *out, ari_error *err);

void ari_state_row_free(ari_state_row_result *res);

#endif
