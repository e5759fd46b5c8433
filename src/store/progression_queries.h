/* progression_queries.h: loads a task trace as per-node task arrays for the
 * progression analysis (analysis/progression.h). */
#ifndef ARIADNE_STORE_PROGRESSION_QUERIES_H
#define ARIADNE_STORE_PROGRESSION_QUERIES_H

#include <stdint.h>

#include "analysis/progression.h"
#include "store/store.h"

#define ARI_PROG_LOAD_NO_TRACE 1
#define ARI_PROG_LOAD_NO_TASKS 2

/* Loads the tasks of trace `id` (node, type, resource type, start, end, worker) and
 * the worker counts per node and resource type. A task's worker is its
 * worker_id (a containers.id; 0 when unknown). Nodes are the distinct
 * task nodes (MPI ranks; 0 on single-node traces), increasing; types and
 * resource types are sorted by name. A task's resource type is its own
 * column or else its worker's. With nnodes_filter > 0, only the listed
 * nodes are kept (a node the trace's tasks do not have is an
 * ARI_E_INVALID_PARAMETER error naming the trace's nodes). The trace's
 * time unit goes to time_unit (caller frees). Returns 0, or
 * ARI_PROG_LOAD_NO_TRACE, ARI_PROG_LOAD_NO_TASKS, or -1 with err. */
int ari_progression_load(ari_store *s, int64_t id, const int *nodes_filter, int nnodes_filter,
                         ari_prog_data *out, char **time_unit, ari_error *err);

#endif
