/* critical_path.h: the dynamic (observed) critical path of a task trace,
 * as in the seed paper, section V-B and Fig. 5: "from a task, walk back
 * repeatedly to the predecessor in the DAG that finished last".
 *
 * Rule and tie-break: the step back from task v goes to the predecessor p
 * of v with the largest end[p]; among predecessors with equal end times,
 * the one with the lowest task index. The walk stops at a task without
 * predecessors. Because each task has exactly one such "latest
 * predecessor", the chains from several tasks merge into a forest, which
 * ari_dcp_merge returns as edges (latest pred -> task) with the number of
 * chains going through each.
 *
 * Inputs reuse the DAG of cpe.h (predecessors in CSR form) plus per-task
 * start and end times (any unit; end >= start).
 */
#ifndef ARIADNE_ANALYSIS_CRITICAL_PATH_H
#define ARIADNE_ANALYSIS_CRITICAL_PATH_H

#include <stdint.h>

#include "analysis/cpe.h"
#include "util/error.h"

typedef struct ari_dcp_input {
    ari_dag dag;
    const double *start; /* [ntasks] finite */
    const double *end;   /* [ntasks] finite, >= start */
} ari_dcp_input;

/* Checks the DAG, the times and that end >= start. 0 or -1 with
 * ARI_E_INVALID_PARAMETER. */
int ari_dcp_validate(const ari_dcp_input *in, ari_error *err);

/* The latest-finishing predecessor of task v (rule above), or -1 when v
 * has none. `in` must be validated and 0 <= v < ntasks. */
int64_t ari_dcp_latest_pred(const ari_dcp_input *in, int64_t v);

/* The task that ends last (lowest index on ties), or -1 without tasks. */
int64_t ari_dcp_last_task(const ari_dcp_input *in);

/* The chain from task `from` (or, when from < 0, from ari_dcp_last_task)
 * back to a task without predecessors. *path receives a malloc'd array of
 * *len task indices in time order: the chain's origin first, `from` last
 * (free() it). With no tasks, *path = NULL and *len = 0. Returns 0, or -1
 * with ARI_E_INVALID_PARAMETER (bad input, from >= ntasks, or a cycle met
 * on the walk) or ARI_E_NOMEM. O(chain length x in-degree). */
int ari_dcp_chain(const ari_dcp_input *in, int64_t from, int64_t **path, int64_t *len,
                  ari_error *err);

typedef struct ari_dcp_edge {
    int64_t pred;         /* the latest-finishing predecessor ... */
    int64_t succ;         /* ... of this task */
    int64_t multiplicity; /* how many of the seeds' chains use this edge */
    double gap;           /* start[succ] - end[pred]: the wait on this edge */
} ari_dcp_edge;

typedef struct ari_dcp_merged {
    int64_t *tasks;       /* [ntasks_on] tasks on at least one chain, increasing index */
    int64_t ntasks_on;
    ari_dcp_edge *edges;  /* [nedges] the edges with gap >= min_gap, increasing succ */
    int64_t nedges;
    int64_t nedges_all;   /* edges of the merged chains before the gap filter */
    int64_t nseeds;
} ari_dcp_merged;

/* Merges the chains from every seed task. Every chain is followed to its
 * origin whatever the gaps; min_gap only filters the returned edges, so
 * the analyst sees the waits that matter (pass -INFINITY to keep all).
 * A seed listed twice counts twice in the multiplicities. Returns 0 and
 * fills *out (free with ari_dcp_merged_free), or -1 with
 * ARI_E_INVALID_PARAMETER (bad input, seed out of range, NAN min_gap, a
 * cycle met on a walk) or ARI_E_NOMEM; *out is empty on failure.
 * O(tasks + in-degrees of the visited tasks + seeds). */
int ari_dcp_merge(const ari_dcp_input *in, const int64_t *seeds, int64_t nseeds, double min_gap,
                  ari_dcp_merged *out, ari_error *err);

/* ari_dcp_merge with the seeds being every task i with type[i] == seed_type
 * (as the paper does for every dpotrf). type: [ntasks] ids. */
int ari_dcp_merge_type(const ari_dcp_input *in, const int *type, int seed_type, double min_gap,
                       ari_dcp_merged *out, ari_error *err);

void ari_dcp_merged_free(ari_dcp_merged *m);

/* Reorders m->tasks by start time (ties by index), as the path is shown,
 * and returns the path's length: the last end minus the first start of
 * its tasks (0 without tasks). start and end are the input's. */
double ari_dcp_order_by_start(ari_dcp_merged *m, const double *start, const double *end);

#endif
