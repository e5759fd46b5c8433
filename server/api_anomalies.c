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
 * This file loads the tasks, encodes a result (the answer, cached per
 * filter and model by ari_analysis_cached) and decodes a cached answer's
 * groups back into the struct for /models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomalies.h"
#include "analysis/model_comparison.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"

#define CURVE_POINTS 60
#define DEFAULT_LIMIT 1000
#define MAX_LIMIT 2000000

static const char *const model_choices[] = {"lr", "wlr", "nlr", "lr_log", "flexmix", NULL};

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

/* ---- JSON pieces ---- */

/* A group's fit; a group that cannot be fitted has "fittable": false, a
 * "reason" and null coefficients, metrics and degrees of freedom. */
static json_t *fit_json(const ari_reg_fit *f)
{
    return json_pack("{s:I,s:b,s:s?,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:I}", "tasks", (json_int_t)f->n,
                     "fittable", f->fittable, "reason", f->reason, "b0", ari_json_num(f->b0), "b1",
                     f->has_slope ? ari_json_num(f->b1) : json_null(), "s", ari_json_num(f->s), "df",
                     f->fittable ? json_integer(f->df) : json_null(), "has_slope", f->has_slope, "r2",
                     ari_json_num(f->r2), "r2_duration", ari_json_num(f->r2_duration), "mae", ari_json_num(f->mae),
                     "rmse", ari_json_num(f->rmse), "anomalies", (json_int_t)f->nanomalies);
}

/* fit, lwr, upr at CURVE_POINTS values of G, log-spaced over [lo, hi]. */
static json_t *curve_json(const ari_reg_fit *f, double lo, double hi)
{
    json_t *g = json_array(), *fit = json_array(), *lwr = json_array(), *upr = json_array();
    int npts = hi > lo ? CURVE_POINTS : 1;
    for (int j = 0; j < npts; j++) {
        double x = npts == 1 ? lo : exp(log(lo) + (log(hi) - log(lo)) * j / (npts - 1));
        double a, b, c;
        ari_reg_predict(f, x, &a, &b, &c);
        json_array_append_new(g, ari_json_num(x));
        json_array_append_new(fit, ari_json_num(a));
        json_array_append_new(lwr, ari_json_num(b));
        json_array_append_new(upr, ari_json_num(c));
    }
    return json_pack("{s:o,s:o,s:o,s:o}", "gflop", g, "fit", fit, "lwr", lwr, "upr", upr);
}

static json_t *mixture_json(const ari_mix_fit *mix)
{
    json_t *comps = json_array();
    for (int j = 0; j < mix->k; j++)
        json_array_append_new(comps, json_pack("{s:o,s:o,s:o,s:o}", "prior", ari_json_num(mix->comp[j].prior), "b0",
                                               ari_json_num(mix->comp[j].b0), "b1", ari_json_num(mix->comp[j].b1),
                                               "sigma", ari_json_num(mix->comp[j].sigma)));
    return json_pack("{s:i,s:[o,o],s:[o,o],s:o}", "k", mix->k, "bic", ari_json_num(mix->bic[0]),
                     ari_json_num(mix->bic[1]), "loglik", ari_json_num(mix->loglik[0]),
                     ari_json_num(mix->loglik[1]), "components", comps);
}

/* The fit, cluster and G range of an entry (what /models lists). */
static json_t *entry_fit_json(const ari_anom_entry *e)
{
    json_t *o = fit_json(&e->fit);
    json_object_set_new(o, "cluster", json_integer(e->cluster + 1));
    json_object_set_new(o, "gflop_min", ari_json_num(e->gflop_min));
    json_object_set_new(o, "gflop_max", ari_json_num(e->gflop_max));
    return o;
}

static json_t *group_json(const ari_tq_meta *m, const ari_anom_entry *e)
{
    json_t *o = fit_json(&e->fit);
    json_object_set_new(o, "type", json_string(m->types[e->group % m->ntypes]));
    json_object_set_new(o, "resource_type", json_string(m->restypes[e->group / m->ntypes]));
    json_object_set_new(o, "cluster", json_integer(e->cluster + 1));
    json_object_set_new(o, "gflop_min", ari_json_num(e->gflop_min));
    json_object_set_new(o, "gflop_max", ari_json_num(e->gflop_max));
    json_object_set_new(o, "curve", e->fit.fittable ? curve_json(&e->fit, e->gflop_min, e->gflop_max) : json_null());
    if (e->has_mixture)
        json_object_set_new(o, "mixture", mixture_json(&e->mixture));
    return o;
}

static json_t *task_json(const ari_tq_meta *m, const loaded *l, const ari_anom_task *a, const ari_reg_fit *f)
{
    const ari_tq_tasks *t = &l->t;
    size_t i = a->task;
    double fit, lwr, upr;
    ari_reg_predict(f, t->gflop[i], &fit, &lwr, &upr);
    return json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:o,s:o,s:o,s:i,s:b}", "job_id", ari_tq_job_id(t, i),
                     "type", m->types[t->type[i]], "resource_type", m->restypes[t->restype[i]], "worker",
                     m->workers[t->worker[i]].name, "start", t->start[i], "end", t->end[i], "duration",
                     l->duration[i], "gflop", t->gflop[i], "fit", ari_json_num(fit), "lwr", ari_json_num(lwr),
                     "upr", ari_json_num(upr), "cluster", a->cluster + 1, "anomaly", a->anomaly);
}

static json_t *anomalies_json(const ari_tq_meta *m, const loaded *l, const ari_anom_result *res)
{
    json_t *groups = json_array(), *tasks = json_array();
    for (size_t j = 0; j < res->nentries; j++)
        json_array_append_new(groups, group_json(m, &res->entries[j]));
    for (size_t j = 0; j < res->ntasks; j++)
        json_array_append_new(tasks, task_json(m, l, &res->tasks[j], &res->entries[res->tasks[j].entry].fit));
    return json_pack("{s:s,s:I,s:I,s:o,s:o}", "model", model_choices[res->model], "modelled",
                     (json_int_t)res->modelled, "count", (json_int_t)res->count, "groups", groups, "tasks", tasks);
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
        doc = anomalies_json(m, &l, &res);
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
    if (ari_param_choice(r, "model", model_choices, &name) < 0)
        return -1;
    *model = ARI_REG_LOG;
    for (int i = 0; name && model_choices[i]; i++)
        if (strcmp(name, model_choices[i]) == 0)
            *model = i;
    return 0;
}

static json_t *anomalies_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, int model,
                          ari_error *err)
{
    /* "fit=2": results of the fits with "fittable" and "r2_duration", so that
     * a database cached by an older ariadned is not served stale entries */
    char extra[48];
    snprintf(extra, sizeof extra, "model=%s&fit=2", model_choices[model]);
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
        json_object_set_new(doc, "time_unit", json_string(ctx.trace.time_unit));
        res = ari_reply_analysis(r, doc, 17);
    }
    ari_actx_close(&ctx);
    return res;
}

/* ---- decoding a cached answer's groups ---- */

static double num_of(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int fit_of(json_t *o, ari_reg_fit *f)
{
    json_t *reason = json_object_get(o, "reason");
    memset(f, 0, sizeof *f);
    f->n = (size_t)json_integer_value(json_object_get(o, "tasks"));
    f->fittable = json_is_true(json_object_get(o, "fittable"));
    f->reason = json_is_string(reason) ? ARI_REG_SINGLE_GFLOP : NULL; /* "reason": null when fittable */
    f->has_slope = json_is_true(json_object_get(o, "has_slope"));
    f->df = (int)json_integer_value(json_object_get(o, "df"));
    f->b0 = num_of(json_object_get(o, "b0"));
    f->b1 = f->has_slope ? num_of(json_object_get(o, "b1")) : 0;
    f->s = num_of(json_object_get(o, "s"));
    f->t = f->xbar = f->sxx = f->sw = NAN;
    f->r2 = num_of(json_object_get(o, "r2"));
    f->r2_duration = num_of(json_object_get(o, "r2_duration"));
    f->mae = num_of(json_object_get(o, "mae"));
    f->rmse = num_of(json_object_get(o, "rmse"));
    f->nanomalies = (size_t)json_integer_value(json_object_get(o, "anomalies"));
    return !json_is_string(reason) || strcmp(json_string_value(reason), ARI_REG_SINGLE_GFLOP) == 0 ? 0 : -1;
}

static int mixture_of(json_t *o, ari_mix_fit *mix)
{
    json_t *comps = json_object_get(o, "components");
    memset(mix, 0, sizeof *mix);
    mix->k = (int)json_integer_value(json_object_get(o, "k"));
    if (mix->k < 0 || mix->k > 2 || json_array_size(comps) != (size_t)mix->k)
        return -1;
    for (int j = 0; j < 2; j++) {
        mix->bic[j] = num_of(json_array_get(json_object_get(o, "bic"), (size_t)j));
        mix->loglik[j] = num_of(json_array_get(json_object_get(o, "loglik"), (size_t)j));
    }
    for (int j = 0; j < mix->k; j++) {
        json_t *c = json_array_get(comps, (size_t)j);
        mix->comp[j] = (ari_mix_component){.prior = num_of(json_object_get(c, "prior")),
                                           .b0 = num_of(json_object_get(c, "b0")),
                                           .b1 = num_of(json_object_get(c, "b1")),
                                           .sigma = num_of(json_object_get(c, "sigma"))};
    }
    return 0;
}

static int entry_of(const ari_tq_meta *m, json_t *o, ari_anom_entry *e)
{
    memset(e, 0, sizeof *e);
    int k = ari_tq_type_id(m, json_string_value(json_object_get(o, "type")));
    int r = ari_tq_restype_id(m, json_string_value(json_object_get(o, "resource_type")));
    json_t *mix = json_object_get(o, "mixture");
    e->group = r * m->ntypes + k;
    e->cluster = (int)json_integer_value(json_object_get(o, "cluster")) - 1;
    e->gflop_min = num_of(json_object_get(o, "gflop_min"));
    e->gflop_max = num_of(json_object_get(o, "gflop_max"));
    e->has_mixture = mix != NULL;
    if (k < 0 || r < 0 || fit_of(o, &e->fit) < 0 || (mix && mixture_of(mix, &e->mixture) < 0))
        return -1;
    return 0;
}

/* A cached answer without its tasks (ntasks 0; the entries' fits have no
 * interval data: enough to compare, not to predict). -1 when it is not
 * one (res is then safe to free). */
static int anomalies_decode(const ari_tq_meta *m, int model, json_t *doc, ari_anom_result *res)
{
    json_t *groups = json_object_get(doc, "groups");
    memset(res, 0, sizeof *res);
    res->model = model;
    res->modelled = (size_t)json_integer_value(json_object_get(doc, "modelled"));
    res->count = (size_t)json_integer_value(json_object_get(doc, "count"));
    res->entries = malloc((json_array_size(groups) + 1) * sizeof *res->entries);
    if (!res->entries || !json_is_array(groups))
        return -1;
    for (size_t i = 0; i < json_array_size(groups); i++)
        if (entry_of(m, json_array_get(groups, i), &res->entries[res->nentries++]) < 0)
            return -1;
    return 0;
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
    int rc = anomalies_decode(ctx->meta, model, doc, out);
    json_decref(doc);
    if (rc < 0) {
        ari_anom_result_free(out);
        doc = compute_anomalies(r, ctx, &ctx->filter, &model, err);
        rc = doc ? anomalies_decode(ctx->meta, model, doc, out) : -1;
        if (doc && rc < 0)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        json_decref(doc);
    }
    return rc;
}

/* ---- /models: the comparison table ---- */

static json_t *best_json(const ari_model_row *row)
{
    const int *b = row->best;
    return json_pack("{s:s,s:s?,s:s?,s:s?}", "scale", "duration", "r2", b[0] < 0 ? NULL : model_choices[b[0]], "mae",
                     b[1] < 0 ? NULL : model_choices[b[1]], "rmse", b[2] < 0 ? NULL : model_choices[b[2]]);
}

static json_t *row_models_json(const ari_model_row *row)
{
    json_t *models = json_object();
    for (int mdl = 0; mdl < ARI_REG_NMODELS; mdl++)
        if (row->single[mdl])
            json_object_set_new(models, model_choices[mdl], entry_fit_json(row->single[mdl]));
    if (row->nclusters > 0) {
        json_t *clusters = json_array();
        for (size_t c = 0; c < row->nclusters; c++)
            json_array_append_new(clusters, entry_fit_json(&row->clusters[c]));
        json_object_set_new(models, "flexmix",
                            json_pack("{s:o,s:o,s:I}", "mixture", mixture_json(&row->clusters[0].mixture),
                                      "clusters", clusters, "anomalies", (json_int_t)row->mixture_anomalies));
    }
    return models;
}

static json_t *models_json(const ari_actx *ctx, const ari_anom_result *res, const ari_model_comparison *cmp)
{
    const ari_tq_meta *m = ctx->meta;
    json_t *totals = json_object(), *rows = json_array();
    for (int mdl = 0; mdl < ARI_ANOM_NMODELS; mdl++)
        json_object_set_new(totals, model_choices[mdl], json_integer((json_int_t)res[mdl].count));
    for (size_t i = 0; i < cmp->nrows; i++) {
        const ari_model_row *row = &cmp->rows[i];
        json_array_append_new(rows, json_pack("{s:s,s:s,s:I,s:o,s:o}", "type", m->types[row->group % m->ntypes],
                                              "resource_type", m->restypes[row->group / m->ntypes], "tasks",
                                              (json_int_t)row->tasks, "models", row_models_json(row), "best",
                                              best_json(row)));
    }
    return json_pack("{s:s,s:s,s:I,s:o,s:o}", "time_unit", ctx->trace.time_unit, "default", "lr_log", "modelled",
                     (json_int_t)res[0].modelled, "anomalies", totals, "groups", rows);
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
        rc = ari_reply_analysis(r, models_json(&ctx, res, &cmp), 17);
    else
        rc = ari_reply_from_error(r, &err);
    ari_model_comparison_free(&cmp);
    for (int mdl = 0; mdl < ARI_ANOM_NMODELS; mdl++)
        ari_anom_result_free(&res[mdl]);
    ari_actx_close(&ctx);
    return rc;
}
