/* analysis_ctx.c: opening a task trace for analysis, the analysis
 * cache wrapper and the encoding of analysis answers (see
 * analysis_ctx.h). */
#include "analysis_ctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "reply.h"
#include "time_origin.h"

json_t *ari_json_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

enum MHD_Result ari_reply_analysis(ari_request *r, json_t *body, int digits)
{
    if (!body)
        return ari_reply_error(r, 500, "internal", "could not build the response");
    char *text = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(digits));
    json_decref(body);
    if (!text)
        return ari_reply_error(r, 500, "internal", "could not encode the response");
    enum MHD_Result rc = ari_reply_text_json(r, 200, text);
    free(text);
    return rc;
}

enum MHD_Result ari_actx_reply(ari_request *r, ari_actx *ctx, json_t *doc, const ari_error *err)
{
    enum MHD_Result res;
    if (!doc) {
        res = ari_reply_from_error(r, err);
    } else {
        ari_set_time_origin(doc, ctx->trace.time_origin); /* every task analysis says its origin */
        json_object_set_new(doc, "time_unit", json_string(ctx->trace.time_unit));
        res = ari_reply_analysis(r, doc, 17);
    }
    ari_actx_close(ctx);
    return res;
}

/* ---- opening a trace ---- */

void ari_actx_close(ari_actx *ctx)
{
    ari_tq_trace_free(&ctx->trace);
    ari_tq_meta_free(ctx->meta);
    ari_filter_free(&ctx->filter);
    ctx->meta = NULL;
}

int ari_actx_open_trace(ari_request *r, int64_t id, ari_actx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->filter.start = ctx->filter.end = ctx->filter.min_duration = NAN;
    ari_error err = {0};
    int rc = ari_tq_trace_get(r->db, id, &ctx->trace, &err);
    if (rc != 0) {
        ari_reply_lookup_failed(r, rc, &err, "trace", id);
        return -1;
    }
    if (!ctx->trace.has_tasks) {
        ari_reply_error(r, 409, "no_tasks", "trace %lld (kind %s) has no application tasks: the task "
                        "analyses need a StarPU bundle or a StarVZ CSV set", (long long)id, ctx->trace.kind);
        ari_actx_close(ctx);
        return -1;
    }
    if (ari_tq_meta_get_keyed(r->db, id, ctx->trace.key, &ctx->meta, &err) < 0) {
        ari_reply_from_error(r, &err);
        ari_actx_close(ctx);
        return -1;
    }
    if (ctx->meta->ntasks == 0) {
        ari_reply_error(r, 409, "no_tasks", "trace %lld has no task on a known worker", (long long)id);
        ari_actx_close(ctx);
        return -1;
    }
    return 0;
}

int ari_actx_open(ari_request *r, ari_actx *ctx)
{
    int64_t id;
    memset(ctx, 0, sizeof *ctx);
    if (ari_path_id(r, 0, &id) < 0 || ari_actx_open_trace(r, id, ctx) < 0)
        return -1;
    if (ari_filter_parse(r, &ctx->filter) < 0 ||
        ari_filter_check(r, &ctx->filter, &ctx->meta, 1) < 0) {
        ari_actx_close(ctx);
        return -1;
    }
    return 0;
}

/* ---- the cache wrapper ---- */

json_t *ari_analysis_cached(ari_request *r, const ari_actx *ctx, const char *analysis,
                            const ari_task_filter *f, const char *extra_params,
                            ari_compute_fn compute, const void *extra, ari_error *err)
{
    int cacheable = !ari_filter_has_window(f);
    char *params = NULL;
    if (cacheable) {
        char *canon = ari_filter_canonical(f, 0);
        if (!canon || asprintf(&params, "%s%s%s", canon, *canon && *extra_params ? ";" : "", extra_params) < 0) {
            free(canon);
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
            return NULL;
        }
        free(canon);
        char *text = NULL;
        int rc = ari_cache_get(r->db, ctx->trace.id, analysis, params, &text, err);
        if (rc < 0) {
            free(params);
            return NULL;
        }
        json_t *doc = rc == 0 ? json_loads(text, 0, NULL) : NULL;
        free(text);
        if (doc) {
            free(params);
            return doc;
        }
    }
    json_t *doc = compute(r, ctx, f, extra, err);
    if (doc && cacheable) {
        char *text = json_dumps(doc, JSON_COMPACT);
        if (text)
            ari_cache_put(r->db, ctx->trace.id, analysis, params, text);
        free(text);
    }
    free(params);
    return doc;
}
