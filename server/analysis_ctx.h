/* analysis_ctx.h: what the task-trace analysis endpoints share: the
 * opening of a trace for analysis (400 / 404 / 409 no_tasks, with its
 * filters), the analysis cache wrapper, the encoding of answers, and the
 * analyses one endpoint takes from another as C result structs (never as
 * the other's JSON). */
#ifndef ARIADNE_ANALYSIS_CTX_H
#define ARIADNE_ANALYSIS_CTX_H

#include <jansson.h>

#include "analysis/bounds.h"
#include "analysis/outliers.h"
#include "server.h"
#include "store/analysis_cache.h"
#include "store/task_queries.h"
#include "task_filters.h"

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

/* ---- analyses shared between endpoints ----
 * Each fills a result struct, from the analysis cache (the answer's JSON
 * decoded by the owning handler) when the filter has no window, else
 * computed now. Returns 0, or -1 with err set; *out is then safe to free. */
/* api_bounds.c: free with ari_bounds_result_free. */
int ari_bounds_result_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                          ari_bounds_result *out, ari_error *err);
/* api_outliers.c: groups and noutliers only (is_outlier NULL, ntasks 0);
 * free with ari_outlier_result_free. */
int ari_outliers_result_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                            ari_outlier_result *out, ari_error *err);
/* api_outliers.c: the same from a cache entry of the groups alone (faster
 * to read than the whole answer). */
int ari_outlier_groups_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                           ari_outlier_result *out, ari_error *err);

/* ---- the analysis cache ----
 * The cache keeps each answer's JSON (without time_unit) per trace,
 * analysis and canonical parameters: the persisted form, which only the
 * handler that encodes it decodes. Looks a cached result up (filters
 * without a window only), or computes and stores it; returns a new
 * reference, or NULL with err set. */
typedef json_t *(*ari_compute_fn)(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                  const void *extra, ari_error *err);
json_t *ari_analysis_cached(ari_request *r, const ari_actx *ctx, const char *analysis,
                            const ari_task_filter *f, const char *extra_params,
                            ari_compute_fn compute, const void *extra, ari_error *err);

#endif
