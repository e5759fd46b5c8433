/* progression_queries.h: loads a task trace as per-node task arrays for the
 * progression analysis (analysis/progression.h), or, on PostgreSQL, has
 * the database compute the sums that the analysis reads. */
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

/* The progression of trace `id` on PostgreSQL (issue 20): the database
 * computes the sums that analysis/progression.c reads (ari_prog_totals,
 * then the sweep over the steps, with the weights bound as parameters),
 * each adding its terms in the order ari_progression_load reads the tasks
 * (job_id, rowid), so the result is ari_progression's on the loaded tasks
 * to the last bit; the daemon holds O(nodes x (types x workers + steps))
 * numbers, not the tasks. *shape gets the nodes, names and worker counts
 * (no tasks) for the answer; free it with ari_prog_data_free and *res
 * with ari_prog_result_free. Returns 0, ARI_PROG_LOAD_NO_TRACE,
 * ARI_PROG_LOAD_NO_TASKS, or -1 with err (the analysis's errors too).
 * PostgreSQL only (ordered aggregates, arrays, width_bucket). */
int ari_progression_sql(ari_store *s, int64_t id, const int *nodes_filter, int nnodes_filter,
                        const ari_prog_options *opt, ari_prog_data *shape, ari_prog_result *res, char **time_unit,
                        ari_error *err);

#endif
