/* bounds.h: the performance bounds of a set of tasks (the /bounds
 * endpoint, docs/api.md): the makespan, the first start and the span, the
 * area bound (ABE, abe.h), the critical-path bound (CPE, cpe.h) and the
 * LP's ideal allocation next to the actual one; for all the tasks, per
 * node (the node's tasks, workers and internal dependencies) and, on
 * request, per iteration (the iteration's tasks and internal
 * dependencies, all the workers). Pure: arrays in, a result struct out.
 *
 * Cells are laid out restype * ntypes + type, as in abe.h. An LP or CPE
 * failure is not an error: the bound is NAN (logged at info level). */
#ifndef ARIADNE_ANALYSIS_BOUNDS_H
#define ARIADNE_ANALYSIS_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A task without an iteration (the same value as the store's). */
#define ARI_BOUNDS_NO_ITERATION INT64_MIN

/* The tasks, as parallel arrays of n entries (none is modified). */
typedef struct ari_bounds_tasks {
    int64_t n;
    const int *type;          /* [n] in [0, ntypes) */
    const int *restype;       /* [n] in [0, nrestypes): the worker's */
    const int64_t *node;      /* [n] */
    const int64_t *iteration; /* [n] or ARI_BOUNDS_NO_ITERATION; read only by_iteration */
    const double *start, *end;
    const int64_t *pred_offset; /* [n + 1] predecessors, CSR over the tasks */
    const int64_t *pred;
} ari_bounds_tasks;

/* The aggregates of one scope's tasks: all that its makespan, start, ABE
 * and allocation read (the CPE reads the DAG). ari_bounds_compute makes
 * them from the tasks; a store may compute them in SQL instead
 * (store/bounds_queries.h) and hand them over in ari_bounds_input.agg. */
typedef struct ari_bounds_stats {
    int64_t key;      /* the node or the iteration (0 for all) */
    int64_t tasks;
    double makespan;  /* last end; NAN without tasks */
    double start;     /* first start; NAN without tasks */
    double *count;    /* [nrestypes * ntypes] tasks per cell */
    double *sum;      /* [nrestypes * ntypes] end - start added from 0 in task (table) order */
} ari_bounds_stats;

typedef struct ari_bounds_aggregates {
    ari_bounds_stats all;
    size_t nnodes;
    ari_bounds_stats *nodes;      /* the nodes with tasks, by key */
    size_t niterations;
    ari_bounds_stats *iterations; /* the iterations with tasks, by key (by_iteration only) */
} ari_bounds_aggregates;

void ari_bounds_aggregates_free(ari_bounds_aggregates *a);

typedef struct ari_bounds_input {
    ari_bounds_tasks tasks;
    int ntypes, nrestypes;
    const double *workers;      /* [nrestypes] rows of each resource type (all nodes) */
    int nnodes;
    const int64_t *nodes;       /* [nnodes] the nodes to report, in order */
    const double *node_workers; /* [nnodes * nrestypes] rows per node and resource type */
    int by_iteration;           /* also compute the iterations */
    /* NULL: the aggregates come from the tasks. Else from here, and the
     * tasks are read for the CPE only: their type, node, iteration and
     * predecessors (restype, start and end may be NULL). */
    const ari_bounds_aggregates *agg;
} ari_bounds_input;

/* One (resource type, task type) cell of the allocation. */
typedef struct ari_bounds_cell {
    int restype, type;
    double ideal;         /* the LP's allocation; NAN without an LP solution */
    int64_t actual;       /* tasks of the type that ran on the resource type */
    double mean_duration; /* NAN when none ran there */
    int64_t workers;      /* rows of the resource type in the scope */
} ari_bounds_cell;

/* The bounds of one scope (all, a node or an iteration). */
typedef struct ari_bounds_scope {
    int64_t key;     /* the node or the iteration (0 for all) */
    double makespan; /* last end; NAN without tasks */
    double start;    /* first start; NAN without tasks */
    double span;     /* makespan - start */
    double abe;      /* 0 without tasks, NAN when the LP failed */
    double cpe;      /* 0 without tasks, NAN when the CPE failed */
    int64_t tasks, workers;
    size_t ncells;
    ari_bounds_cell *cells; /* the cells with tasks or an ideal > 1e-9, by restype then type */
} ari_bounds_scope;

typedef struct ari_bounds_result {
    ari_bounds_scope all;
    size_t nnodes;
    ari_bounds_scope *nodes;      /* nodes with tasks or workers */
    int has_iterations;           /* by_iteration was asked */
    size_t niterations;
    ari_bounds_scope *iterations; /* by iteration number */
} ari_bounds_result;

/* Computes the bounds. Returns 0 and fills *out (free with
 * ari_bounds_result_free), or -1 with err set (out of memory); *out is
 * then empty. */
int ari_bounds_compute(const ari_bounds_input *in, ari_bounds_result *out, ari_error *err);
void ari_bounds_result_free(ari_bounds_result *res);
void ari_bounds_scope_free(ari_bounds_scope *s);

/* Counts n[c] and mean durations w[c] (NAN where no task ran) of the tasks
 * i with keep[i] (keep NULL: all), c = restype * ntypes + type. *count_out
 * and *mean_out are malloc'd [nrestypes * ntypes]. Returns 0 or -1. */
int ari_bounds_means(const ari_bounds_tasks *t, int ntypes, int nrestypes, const unsigned char *keep,
                     double **count_out, double **mean_out, ari_error *err);

#endif
