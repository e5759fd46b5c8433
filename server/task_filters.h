/* task_filters.h: the common filters of the task-trace analysis
 * endpoints (docs/api.md, "Task-trace analyses"): types, resources, nodes,
 * start, end, min_duration parsed from the query string and checked
 * against the trace, and their canonical form (the analysis cache key);
 * the trace list of /compare.
 * Functions taking an ari_request answer it themselves on a bad value and
 * return -1. */
#ifndef ARIADNE_TASK_FILTERS_H
#define ARIADNE_TASK_FILTERS_H

#include "server.h"
#include "store/task_queries.h"

/* Limits on the lists of a filter. */
#define ARI_FILTER_MAX_ITEMS 1000
#define ARI_FILTER_MAX_ITEM_LEN 200

/* Parses the filter parameters (syntax and ranges only). On success *f
 * holds malloc'd lists (free with ari_filter_free). */
int ari_filter_parse(ari_request *r, ari_task_filter *f);
void ari_filter_free(ari_task_filter *f);
/* At most this many traces are checked by ari_filter_check (the rest are
 * ignored). */
#define ARI_COMPARE_MAX_METAS 16

/* Checks every listed name against the traces' metadata (valid when any
 * of them has it); answers 400 invalid_parameter naming the parameter, the
 * value, a name differing only in case if there is one, and the first 8
 * distinct known values, e.g. "types has an unknown task type 'GEMM' (did
 * you mean 'gemm'?); known: gemm, potrf, syrk, trsm"; for nodes "nodes
 * has an unknown node 9; known: 0, 1 and 2 more". */
int ari_filter_check(ari_request *r, const ari_task_filter *f, ari_tq_meta *const *metas, int n);
/* The same check of one task type name given in the parameter `param`
 * (e.g. critical-path's type=): 0, or -1 after answering 400. */
int ari_filter_check_type(ari_request *r, const char *param, const char *name, ari_tq_meta *const *metas,
                          int n);
/* The canonical form: sorted, deduplicated lists and %.17g numbers, e.g.
 * "types=dgemm,dtrsm;nodes=1;min_duration=2". with_window 0 leaves start
 * and end out. malloc'd; NULL when out of memory. */
char *ari_filter_canonical(const ari_task_filter *f, int with_window);
/* Does the filter have a time window? */
int ari_filter_has_window(const ari_task_filter *f);
/* A copy of f without its window (shares f's lists: do not free it). */
ari_task_filter ari_filter_without_window(const ari_task_filter *f);

/* The "traces" parameter: min to max distinct positive trace ids,
 * comma-separated, into ids[max] (*n of them); answers 400 when it is
 * missing or is not such a list. */
int ari_param_trace_ids(ari_request *r, int min, int max, int64_t *ids, int *n);

#endif
