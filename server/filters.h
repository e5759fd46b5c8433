/* filters.h: what the task-trace analysis endpoints share (docs/api.md,
 * "Task-trace analyses"): the common filters (types, resources, nodes,
 * start, end, min_duration) parsed from the query string and checked
 * against the trace, their canonical form (the analysis cache key), the
 * opening of a trace for analysis (400 / 404 / 409 no_tasks), number
 * parameters, and the cached analyses that several endpoints reuse
 * (the Gantt's marks come from bounds, compare uses bounds and outliers).
 *
 * Functions taking an ari_request answer the request themselves on a bad
 * value and return -1, so a handler just returns MHD_YES.
 */
#ifndef ARIADNE_FILTERS_H
#define ARIADNE_FILTERS_H

#include <jansson.h>

#include "server.h"
#include "store/analysis_cache.h"
#include "store/task_queries.h"

/* Limits on the lists of a filter. */
#define ARI_FILTER_MAX_ITEMS 1000
#define ARI_FILTER_MAX_ITEM_LEN 200

/* Parses the filter parameters (syntax and ranges only). On success *f
 * holds malloc'd lists (free with ari_filter_free). */
int ari_filter_parse(ari_request *r, ari_task_filter *f);
void ari_filter_free(ari_task_filter *f);
/* Checks every listed name against the traces' metadata (valid when any
 * of them has it); answers 400 invalid_parameter listing the valid ones. */
int ari_filter_check(ari_request *r, const ari_task_filter *f, ari_tq_meta *const *metas, int n);
/* The canonical form: sorted, deduplicated lists and %.17g numbers, e.g.
 * "types=dgemm,dtrsm;nodes=1;min_duration=2". with_window 0 leaves start
 * and end out. malloc'd; NULL when out of memory. */
char *ari_filter_canonical(const ari_task_filter *f, int with_window);
/* Does the filter have a time window? */
int ari_filter_has_window(const ari_task_filter *f);
/* A copy of f without its window (shares f's lists: do not free it). */
ari_task_filter ari_filter_without_window(const ari_task_filter *f);

/* A caller's value made safe to quote in an error message: at most 64
 * characters, bytes outside printable ASCII as '?' (a JSON message must be
 * valid UTF-8). Returns buf, which needs ARI_PRINTABLE_SIZE bytes. */
#define ARI_PRINTABLE_SIZE 72
const char *ari_printable(const char *s, char *buf);

/* A number parameter: finite, in [min, max]; def when absent. */
int ari_param_number(ari_request *r, const char *name, double def, double min, double max,
                     double *out);

/* A trace opened for analysis. */
typedef struct ari_actx {
    ari_tq_trace trace;
    ari_tq_meta *meta;
    ari_task_filter filter;
} ari_actx;

/* Opens the trace of path parameter 0 and parses and checks the filters.
 * Answers 400 (bad id or filter), 404 (no trace) or 409 no_tasks. */
int ari_actx_open(ari_request *r, ari_actx *ctx);
/* The same for one trace id, without filters (compare). */
int ari_actx_open_trace(ari_request *r, int64_t id, ari_actx *ctx);
void ari_actx_close(ari_actx *ctx);

/* Replies a JSON document with numbers at `digits` significant digits
 * (steals body). */
enum MHD_Result ari_reply_analysis(ari_request *r, json_t *body, int digits);
/* Answers an analysis of ctx's trace and closes ctx: the document (steals
 * it) with the trace's time unit, or, when doc is NULL, the error. */
enum MHD_Result ari_actx_reply(ari_request *r, ari_actx *ctx, json_t *doc, const ari_error *err);
/* A JSON number, or null when x is not finite (jansson refuses NaN). */
json_t *ari_json_num(double x);

/* ---- cached analyses shared between endpoints ----
 * Each returns a new reference to the result document (without
 * time_unit), from the analysis cache when the filter has no window, or
 * NULL with err set. */
json_t *ari_bounds_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                       ari_error *err);   /* api_bounds.c */
json_t *ari_outliers_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                         ari_error *err); /* api_outliers.c */
/* Looks a cached result up, or computes and stores it. */
typedef json_t *(*ari_compute_fn)(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                  const void *extra, ari_error *err);
json_t *ari_analysis_cached(ari_request *r, const ari_actx *ctx, const char *analysis,
                            const ari_task_filter *f, const char *extra_params,
                            ari_compute_fn compute, const void *extra, ari_error *err);

#endif
