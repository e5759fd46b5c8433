/* cpe.h: the task DAG in compressed form, its validation and topological
 * order, and the Critical Path Bound Estimation (CPE) of the seed paper
 * (section V-A): "obtained by assigning each task to its faster processing
 * resource and by summing all durations along the DAG".
 *
 * The DAG is given by predecessors in CSR form, which loads straight from a
 * dependency table sorted by successor: the predecessors of task i are
 * pred[pred_offset[i] .. pred_offset[i + 1]). Task indices are 0-based
 * positions in the caller's task arrays; tasks may come in any order.
 *
 * CPE weights each task with min over resource types r of w[r][type],
 * w being the per-(resource type, task type) mean duration matrix laid out
 * as in abe.h (w[r * ntypes + k], NAN when type k never ran on r), and
 * returns the longest weighted path.
 */
#ifndef ARIADNE_ANALYSIS_CPE_H
#define ARIADNE_ANALYSIS_CPE_H

#include <stdint.h>

#include "util/error.h"

#define ARI_DAG_MAX_TASKS ((int64_t)1 << 40)

typedef struct ari_dag {
    int64_t ntasks;
    const int64_t *pred_offset; /* [ntasks + 1]: 0 first, non-decreasing */
    const int64_t *pred;        /* [pred_offset[ntasks]]: indices in [0, ntasks) */
} ari_dag;

/* Checks sizes, offsets and index ranges (not acyclicity). 0 or -1 with
 * ARI_E_INVALID_PARAMETER. O(tasks + edges). */
int ari_dag_validate(const ari_dag *dag, ari_error *err);

/* Writes a topological order (every predecessor before its successors)
 * of a validated DAG into order[ntasks] with Kahn's algorithm; among ready
 * tasks the lowest index goes first in FIFO fashion, so the order is
 * deterministic. Returns 0, or -1 with ARI_E_INVALID_PARAMETER when the
 * graph has a cycle (the message names a task on it), ARI_E_NOMEM when out
 * of memory. O(tasks + edges). */
int ari_dag_topo_order(const ari_dag *dag, int64_t *order, ari_error *err);

typedef struct ari_cpe_input {
    ari_dag dag;
    const int *type;             /* [ntasks] task-type id in [0, ntypes) */
    int ntypes;                  /* >= 1 */
    int nrestypes;               /* >= 1 */
    const double *mean_duration; /* [nrestypes * ntypes]: >= 0, or NAN = unknown */
} ari_cpe_input;

typedef struct ari_cpe_result {
    double length;        /* the CPE: longest path length (0 without tasks) */
    int64_t *path;        /* [path_len] task indices, source first, sink last */
    int64_t path_len;
    double *type_duration; /* [ntypes] min_r w[r][k], NAN when unknown everywhere */
    int *type_restype;     /* [ntypes] the r reaching that minimum (lowest r on ties), -1 */
    int ntypes;
} ari_cpe_result;

/* Computes the CPE. Ties between equally long paths are broken towards the
 * lowest task index (for the sink, then for each predecessor), so the
 * returned path is deterministic. Returns 0 and fills *out (free with
 * ari_cpe_result_free), or -1 with ARI_E_INVALID_PARAMETER (bad DAG,
 * cycle, type id out of range, negative or infinite duration, or a task
 * whose type has no known duration on any resource type) or ARI_E_NOMEM.
 * *out is left empty on failure. O(tasks + edges + types x restypes). */
int ari_cpe_compute(const ari_cpe_input *in, ari_cpe_result *out, ari_error *err);

void ari_cpe_result_free(ari_cpe_result *res);

#endif
