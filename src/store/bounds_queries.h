/* bounds_queries.h: the aggregates of the bounds (analysis/bounds.h's
 * ari_bounds_aggregates) computed by PostgreSQL (issue 20): one statement
 * groups the filtered tasks per (task type, resource type), in all, per
 * node and, on request, per iteration, and returns per group the count,
 * the sum of durations, the first start and the last end. The daemon gets
 * O(groups) rows, not the tasks. The sums are those of bounds.c to the
 * last bit: each is `sum(end - start ORDER BY job_id, rowid)`, the order
 * in which ari_tq_tasks_load hands the tasks to bounds.c, and PostgreSQL's
 * sum(double precision) adds its inputs one by one in that order
 * (float8pl); bounds.c divides as before.
 *
 * The CPE still needs the DAG of the filtered tasks (their types, nodes,
 * iterations and contracted dependencies), which ari_tq_dag_load reads:
 * the bounds' per-type statistics no longer depend on that load, but a
 * bounds request still holds one entry per filtered task (and its job id
 * while the dependencies are read).
 *
 * PostgreSQL only (an aggregate's ORDER BY needs SQLite 3.44); the
 * embedded store computes the same aggregates from the loaded tasks. */
#ifndef ARIADNE_STORE_BOUNDS_QUERIES_H
#define ARIADNE_STORE_BOUNDS_QUERIES_H

#include <stdint.h>

#include "analysis/bounds.h"
#include "store/task_queries.h"

/* The aggregates of the tasks of trace_id passing f (NULL: all) on known
 * workers: all, per node, and per iteration when by_iteration (tasks
 * without one left out). Returns 0 and fills *out (free with
 * ari_bounds_aggregates_free), or -1 with err set. */
int ari_bq_aggregates(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                      int by_iteration, ari_bounds_aggregates *out, ari_error *err);

#endif
