/* api_anomalies.c: the regression-based anomalies of irregular task-based
 * solvers (computed by analysis/anomalies.h, compared by
 * analysis/model_comparison.h):
 *
 *   GET /api/v1/traces/{id}/anomalies?model=&points=&limit=
 *       one model's fit per (resource type, task type[, cluster]) group,
 *       its interval sampled along G, and the tasks with fit/lwr/upr;
 *   GET /api/v1/traces/{id}/models
 *       every model's coefficients, R², MAE, RMSE and anomaly count per
 *       group, and the mixture's BIC choice, for the comparison table.
 *
 * This file loads the tasks and computes a result (the answer, cached per
 * filter and model by ari_analysis_cached); json_anomalies.h encodes it
 * and decodes a cached answer's groups back into the struct for /models. */
#include <stdlib.h>
#include <string.h>

#include "analysis/anomalies.h"
#include "analysis/model_comparison.h"
#include "analysis_ctx.h"
#include "handlers.h"
#include "json_anomalies.h"
#include "params.h"
#include "reply.h"
#include "time_origin.h"

#define DEFAULT_LIMIT 1000
#define MAX_LIMIT 2000000

/* The loaded tasks and their durations. */
typedef struct loaded {
    ari_tq_tasks t;
    double *duration;
} loaded;

static int load_tasks(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, loaded *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (ari_tq_tasks_load(r->db, ctx->trace.id, ctx->meta, f, 0, &out->t, err) < 0)
        return -1;
    out->duration = malloc(((size_t)out->t.n + 1) * sizeof *out->duration);
    if (!out->duration) {
        ari_tq_tasks_free(&out->t);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < out->t.n; i++)
        out->duration[i] = ari_tq_duration(out->t.start[i], out->t.end[i]);
    return 0;
}

static void loaded_free(loaded *l)
{
    ari_tq_tasks_free(&l->t);
    free(l->duration);
}

static json_t *compute_anomalies(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                 const void *extra, ari_error *err)
{
    const ari_tq_meta *m = ctx->meta;
    loaded l;
    if (load_tasks(r, ctx, f, &l, err) < 0)
        return NULL;
    ari_anom_input in = {(size_t)l.t.n, l.t.type, l.t.restype, l.t.gflop, l.duration, m->ntypes, m->nrestypes,
                         (const char *const *)m->types};
    ari_anom_result res;
    json_t *doc = NULL;
    if (ari_anomalies_compute(&in, *(const int *)extra, &res, err) == 0) {
        doc = ari_anomalies_json(m, &l.t, l.duration, &res);
        if (!doc)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        ari_anom_result_free(&res);
    }
    loaded_free(&l);
    return doc;
}

/* The model index of a model name (default lr_log). */
static int parse_model(ari_request *r, int *model)
{
    const char *name;
    if (ari_param_choice(r, "model", ari_anom_model_names, &name) < 0)
        return -1;
    *model = ARI_REG_LOG;
    for (int i = 0; name && ari_anom_model_names[i]; i++)
        if (strcmp(name, ari_anom_model_names[i]) == 0)
            *model = i;
    return 0;
}

static json_t *anomalies_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, int model,
                          ari_error *err)
{
    /* "fit=2": results of the fits with "fittable" and "r2_duration", so that
     * a database cached by an older ariadned is not served stale entries */
    char extra[48];
    snprintf(extra, sizeof extra, "model=%s&fit=2", ari_anom_model_names[model]);
    return ari_analysis_cached(r, ctx, "anomalies", f, extra, compute_anomalies, &model, err);
}

/* Keeps the anomalies only (points=anomalies), by start, then caps. */
static void trim_tasks(json_t *doc, int all, int64_t limit)
{
    json_t *tasks = json_object_get(doc, "tasks"), *kept = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(tasks, i, t)
    {
        if ((int64_t)json_array_size(kept) >= limit)
            break;
        if (all || json_is_true(json_object_get(t, "anomaly")))
            json_array_append(kept, t);
    }
    json_object_set_new(doc, "tasks", kept);
}

enum MHD_Result api_anomalies(ari_request *r)
{
    static const char *const points_choices[] = {"anomalies", "all", NULL};
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    int model;
    int64_t limit;
    const char *points;
    if (parse_model(r, &model) < 0 || ari_param_choice(r, "points", points_choices, &points) < 0 ||
        ari_param_int(r, "limit", DEFAULT_LIMIT, 0, MAX_LIMIT, &limit) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = anomalies_get(r, &ctx, &ctx.filter, model, &err);
    enum MHD_Result res;
    if (!doc) {
        res = ari_reply_from_error(r, &err);
    } else {
        trim_tasks(doc, points && strcmp(points, "all") == 0, limit);
        json_object_set_new(doc, "points", json_string(points ? points : "anomalies"));
        json_object_set_new(doc, "limit", json_integer(limit));
        ari_set_time_origin(doc, ctx.trace.time_origin);
        json_object_set_new(doc, "time_unit", json_string(ctx.trace.time_unit));
        res = ari_reply_analysis(r, doc, 17);
    }
    ari_actx_close(&ctx);
    return res;
}

/* The groups of one model's answer, decoded; computed afresh when the
 * cache entry cannot be decoded. */
static int anomalies_result_get(ari_request *r, const ari_actx *ctx, int model, ari_anom_result *out,
                                ari_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = anomalies_get(r, ctx, &ctx->filter, model, err);
    if (!doc)
        return -1;
    int rc = ari_anomalies_decode(ctx->meta, model, doc, out);
    json_decref(doc);
    if (rc < 0) {
        ari_anom_result_free(out);
        doc = compute_anomalies(r, ctx, &ctx->filter, &model, err);
        rc = doc ? ari_anomalies_decode(ctx->meta, model, doc, out) : -1;
        if (doc && rc < 0)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        json_decref(doc);
    }
    return rc;
}

enum MHD_Result api_models(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_anom_result res[ARI_ANOM_NMODELS] = {0};
    const ari_anom_result *ptr[ARI_ANOM_NMODELS];
    int ok = 1;
    for (int mdl = 0; mdl < ARI_ANOM_NMODELS && ok; mdl++) {
        ok = anomalies_result_get(r, &ctx, mdl, &res[mdl], &err) == 0;
        ptr[mdl] = &res[mdl];
    }
    ari_model_comparison cmp = {0};
    enum MHD_Result rc;
    if (ok && ari_models_compare(ptr, &cmp, &err) == 0)
        rc = ari_reply_analysis(r, ari_models_json(ctx.meta, ctx.trace.time_unit, res, &cmp), 17);
    else
        rc = ari_reply_from_error(r, &err);
    ari_model_comparison_free(&cmp);
    for (int mdl = 0; mdl < ARI_ANOM_NMODELS; mdl++)
        ari_anom_result_free(&res[mdl]);
    ari_actx_close(&ctx);
    return rc;
}
