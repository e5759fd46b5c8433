/* state_queries.h: what the timeline of any Paje trace (and of the
 * runtime states of a task trace) reads from the store: the rows (one per
 * container and state type that has states), the states of one row in a
 * window, the names and Paje colours of state values, and the links
 * (MPI communications of StarPU-MPI) in a window.
 *
 * Rows are in depth-first preorder of the container tree (children in id
 * order, i.e. as the trace created them), then by state type id; a row's
 * state type is one whose parent type is the container's type (Paje's
 * rule) and of which the container holds at least one state. Costs: the
 * rows, O(containers x state types of their type) index probes; a row's
 * states, O(states of the row that start before the window's end)
 * through states_by_container (trace_id, container_id, start).
 */
#ifndef ARIADNE_STATE_QUERIES_H
#define ARIADNE_STATE_QUERIES_H

#include <stdint.h>

#include "analysis/gantt_aggregation.h" /* ari_gantt_state */
#include "store/store.h"
#include "util/error.h"

typedef struct ari_sq_row {
    int64_t container_id;
    int64_t type_id; /* the state type (entity_types.id) */
    int level;       /* 1 for a child of the root container "0" */
    char *name;      /* the container's name */
    char *path;      /* names from level 1 down, joined by " / " */
    char *type_name; /* the state type's name */
} ari_sq_row;

typedef struct ari_sq_rows {
    int64_t n;
    ari_sq_row *rows;
    double start, end; /* extent of the containers below the root (NAN when none) */
} ari_sq_rows;

/* The rows of trace `id`, restricted to the containers and state types
 * listed (NULL or 0 items: all). Returns 0, 1 when there is no such
 * trace, -1 on error. Free with ari_sq_rows_free. */
int ari_sq_rows_load(ari_store *s, int64_t id, const int64_t *containers, size_t ncontainers,
                     const int64_t *types, size_t ntypes, ari_sq_rows *out, ari_error *err);
void ari_sq_rows_free(ari_sq_rows *r);

/* Reads the states of rows[0, n) touching [t0, t1] (start <= t1 and
 * end >= t0), row by row, a few rows per statement when they are asked
 * for in increasing order (the rows array must outlive the reader). */
typedef struct ari_sq_reader ari_sq_reader;
ari_sq_reader *ari_sq_reader_new(ari_store *s, int64_t id, const ari_sq_row *rows, int64_t n, double t0, double t1,
                                 ari_error *err);
/* Row i's states: by start then depth from `states`, in no particular
 * order from a trace's state chunks (state_chunks.h); value is names.id.
 * *out is malloc'd (free it); *max_value is the largest value id met (0
 * when none). 0 or -1. */
int ari_sq_reader_row(ari_sq_reader *r, int64_t i, ari_gantt_state **out, int64_t *n, int *max_value,
                      ari_error *err);
void ari_sq_reader_free(ari_sq_reader *r);
/* Holds at most `states` states (and reads a row with more alone) instead
 * of about a million: for the tests. */
void ari_sq_reader_limit(ari_sq_reader *r, int64_t states);

/* The name of value `value_id` (names.id) and the Paje colour of the
 * entity value of that name or alias ("r g b" in [0, 1]; NULL when none
 * is declared). Both malloc'd. 0, 1 when no such name, -1 on error. */
int ari_sq_value(ari_store *s, int64_t id, int64_t value_id, char **name, char **color, ari_error *err);

/* The time origin of the trace: what was subtracted from the file's times
 * (a task trace's `time_origin` in its summary), 0 when none. 0 or -1. */
int ari_sq_time_origin(ari_store *s, int64_t id, double *origin, ari_error *err);

typedef struct ari_sq_end {
    int64_t container_id;
    char *name;        /* the container's name */
    int64_t worker_id; /* workers.container_id when the container is a worker, else -1 */
    int64_t node;      /* the worker's node, else -1 */
} ari_sq_end;

typedef struct ari_sq_link {
    double start, end;
    char *type; /* the link type's name */
    char *value, *key;
    ari_sq_end from, to;
} ari_sq_link;

typedef struct ari_sq_links {
    int64_t n, total;   /* returned, and overlapping the window */
    ari_sq_link *links; /* by start */
} ari_sq_links;

/* The links overlapping [t0, t1] (start < t1 and end >= t0; NAN bounds
 * are open), at most `limit` of them by start. 0, 1 when there is no
 * such trace, -1 on error. */
int ari_sq_links_load(ari_store *s, int64_t id, double t0, double t1, int64_t limit, ari_sq_links *out,
                      ari_error *err);
void ari_sq_links_free(ari_sq_links *l);

#endif
