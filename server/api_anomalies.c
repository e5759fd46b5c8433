/* api_anomalies.c: the regression-based anomalies of irregular task-based
 * solvers (analysis/regression.h, analysis/mixture.h):
 *
 *   GET /api/v1/traces/{id}/anomalies?model=&points=&limit=
 *       one model's fit per (resource type, task type[, cluster]) group,
 *       its interval sampled along G, and the tasks with fit/lwr/upr;
 *   GET /api/v1/traces/{id}/models
 *       every model's coefficients, R², MAE, RMSE and anomaly count per
 *       group, and the mixture's BIC choice, for the comparison table.
 *
 * Modelled tasks: GFlop > 0 and a positive duration; when the trace has
 * task types containing "qrt" (qr_mumps), only those (its other tasks
 * reuse the GFlop field for memory sizes). Results are cached per filter
 * and model (ari_analysis_cached). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/mixture.h"
#include "analysis/regression.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"

#define MODEL_FLEXMIX ARI_REG_NMODELS /* the mixture, after the four models */
#define CURVE_POINTS 60
#define DEFAULT_LIMIT 1000
#define MAX_LIMIT 2000000

static const char *const model_choices[] = {"lr", "wlr", "nlr", "lr_log", "flexmix", NULL};

/* The tasks an analysis models, by group r * ntypes + k (or -1). */
typedef struct modelled {
    ari_tq_tasks t;
    double *duration;
    int *group;
    int ngroups;
    size_t count;
} modelled;

static void modelled_free(modelled *m)
{
    ari_tq_tasks_free(&m->t);
    free(m->duration);
    free(m->group);
}

static int qr_mumps_types(const ari_tq_meta *m)
{
    for (int k = 0; k < m->ntypes; k++)
        if (strcasestr(m->types[k], "qrt"))
            return 1;
    return 0;
}

static int load_modelled(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, modelled *out,
                         ari_error *err)
{
    memset(out, 0, sizeof *out);
    const ari_tq_meta *m = ctx->meta;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 0, &out->t, err) < 0)
        return -1;
    size_t n = (size_t)out->t.n;
    out->duration = malloc((n + 1) * sizeof *out->duration);
    out->group = malloc((n + 1) * sizeof *out->group);
    if (!out->duration || !out->group) {
        modelled_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int only_qrt = qr_mumps_types(m);
    out->ngroups = m->ntypes * m->nrestypes;
    for (size_t i = 0; i < n; i++) {
        out->duration[i] = ari_tq_duration(out->t.start[i], out->t.end[i]);
        int ok = ari_reg_usable(out->t.gflop[i], out->duration[i]) &&
                 (!only_qrt || strcasestr(m->types[out->t.type[i]], "qrt"));
        out->group[i] = ok ? out->t.restype[i] * m->ntypes + out->t.type[i] : -1;
        out->count += ok;
    }
    return 0;
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

static void gflop_range(const modelled *md, const size_t *idx, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t j = 0; j < n; j++) {
        double g = md->t.gflop[idx[j]];
        *lo = fmin(*lo, g);
        *hi = fmax(*hi, g);
    }
}

static json_t *group_json(const ari_tq_meta *m, int group, int cluster, const ari_reg_fit *f, double lo,
                          double hi)
{
    json_t *o = fit_json(f);
    json_object_set_new(o, "type", json_string(m->types[group % m->ntypes]));
    json_object_set_new(o, "resource_type", json_string(m->restypes[group / m->ntypes]));
    json_object_set_new(o, "cluster", json_integer(cluster + 1));
    json_object_set_new(o, "gflop_min", ari_json_num(lo));
    json_object_set_new(o, "gflop_max", ari_json_num(hi));
    json_object_set_new(o, "curve", f->fittable ? curve_json(f, lo, hi) : json_null());
    return o;
}

static json_t *task_json(const ari_tq_meta *m, const modelled *md, size_t i, const ari_reg_fit *f, int cluster,
                         int anomaly)
{
    const ari_tq_tasks *t = &md->t;
    double fit, lwr, upr;
    ari_reg_predict(f, t->gflop[i], &fit, &lwr, &upr);
    return json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:o,s:o,s:o,s:i,s:b}", "job_id", ari_tq_job_id(t, i),
                     "type", m->types[t->type[i]], "resource_type", m->restypes[t->restype[i]], "worker",
                     m->workers[t->worker[i]].name, "start", t->start[i], "end", t->end[i], "duration",
                     md->duration[i], "gflop", t->gflop[i], "fit", ari_json_num(fit), "lwr", ari_json_num(lwr),
                     "upr", ari_json_num(upr), "cluster", cluster + 1, "anomaly", anomaly);
}

/* ---- one model over every group ---- */

static int fit_single(const ari_tq_meta *m, const modelled *md, ari_reg_model model, json_t *groups,
                      json_t *tasks, size_t *count, ari_error *err)
{
    size_t n = (size_t)md->t.n, *start, *order;
    ari_reg_fit *fits = calloc((size_t)md->ngroups + 1, sizeof *fits);
    unsigned char *flag = malloc(n + 1);
    if (!fits || !flag || ari_reg_group_index(n, md->group, md->ngroups, &start, &order, err) < 0) {
        free(fits);
        free(flag);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int rc = ari_reg_classify_groups(model, n, md->group, md->ngroups, md->t.gflop, md->duration, fits, flag, err);
    for (int g = 0; g < md->ngroups && rc == 0; g++) {
        size_t cnt = start[g + 1] - start[g];
        if (cnt == 0)
            continue;
        double lo, hi;
        gflop_range(md, order + start[g], cnt, &lo, &hi);
        json_array_append_new(groups, group_json(m, g, 0, &fits[g], lo, hi));
        *count += fits[g].nanomalies;
        for (size_t j = 0; j < cnt; j++) {
            size_t i = order[start[g] + j];
            json_array_append_new(tasks, task_json(m, md, i, &fits[g], 0, flag[i]));
        }
    }
    free(fits);
    free(flag);
    free(start);
    free(order);
    return rc;
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

/* The mixture of one group: clusters, per-cluster LR_LOG, the two-model
 * rule. Appends one group entry per cluster. */
static int fit_mixture_group(const ari_tq_meta *m, const modelled *md, int g, const size_t *idx, size_t cnt,
                             json_t *groups, json_t *tasks, size_t *count, json_t **mix_out, ari_error *err)
{
    double *gf = malloc((cnt + 1) * sizeof *gf), *du = malloc((cnt + 1) * sizeof *du);
    int *cluster = malloc((cnt + 1) * sizeof *cluster);
    unsigned char *flag = malloc(cnt + 1);
    int rc = 0;
    if (!gf || !du || !cluster || !flag)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t j = 0; j < cnt && rc == 0; j++) {
        gf[j] = md->t.gflop[idx[j]];
        du[j] = md->duration[idx[j]];
    }
    ari_mix_options opt;
    ari_mix_options_default(&opt);
    ari_mix_fit mix;
    ari_reg_fit fits[2];
    if (rc == 0)
        rc = ari_mix_classify(gf, du, cnt, &opt, &mix, fits, cluster, flag, err);
    for (int c = 0; c < 2 && rc == 0; c++) {
        if (c >= mix.k)
            break;
        size_t flagged = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < cnt; j++)
            if (cluster[j] == c) {
                flagged += flag[j];
                lo = fmin(lo, gf[j]);
                hi = fmax(hi, gf[j]);
            }
        fits[c].nanomalies = flagged;
        if (fits[c].n > 0)
            json_array_append_new(groups, group_json(m, g, c, &fits[c], lo, hi));
    }
    for (size_t j = 0; j < cnt && rc == 0; j++) {
        json_array_append_new(tasks, task_json(m, md, idx[j], &fits[cluster[j]], cluster[j], flag[j]));
        *count += flag[j];
    }
    if (rc == 0 && mix_out)
        *mix_out = mixture_json(&mix);
    free(gf);
    free(du);
    free(cluster);
    free(flag);
    return rc;
}

static int fit_mixture(const ari_tq_meta *m, const modelled *md, json_t *groups, json_t *tasks, size_t *count,
                       ari_error *err)
{
    size_t *start, *order;
    if (ari_reg_group_index((size_t)md->t.n, md->group, md->ngroups, &start, &order, err) < 0)
        return -1;
    int rc = 0;
    for (int g = 0; g < md->ngroups && rc == 0; g++) {
        size_t cnt = start[g + 1] - start[g];
        size_t first = json_array_size(groups);
        json_t *mix = NULL;
        if (cnt > 0)
            rc = fit_mixture_group(m, md, g, order + start[g], cnt, groups, tasks, count, &mix, err);
        for (size_t j = first; j < json_array_size(groups); j++)
            json_object_set(json_array_get(groups, j), "mixture", mix);
        json_decref(mix);
    }
    free(start);
    free(order);
    return rc;
}

static json_t *compute_anomalies(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                 const void *extra, ari_error *err)
{
    int model = *(const int *)extra;
    modelled md;
    if (load_modelled(r, ctx, f, &md, err) < 0)
        return NULL;
    json_t *groups = json_array(), *tasks = json_array();
    size_t count = 0;
    int rc = model == MODEL_FLEXMIX ? fit_mixture(ctx->meta, &md, groups, tasks, &count, err)
                                    : fit_single(ctx->meta, &md, (ari_reg_model)model, groups, tasks, &count, err);
    json_t *doc = NULL;
    if (rc == 0)
        doc = json_pack("{s:s,s:I,s:I,s:o,s:o}", "model", model_choices[model], "modelled", (json_int_t)md.count,
                        "count", (json_int_t)count, "groups", groups, "tasks", tasks);
    else {
        json_decref(groups);
        json_decref(tasks);
    }
    modelled_free(&md);
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

/* ---- /models: the comparison table ---- */

static int group_key_equal(json_t *a, json_t *b)
{
    return strcmp(json_string_value(json_object_get(a, "type")), json_string_value(json_object_get(b, "type"))) == 0 &&
           strcmp(json_string_value(json_object_get(a, "resource_type")),
                  json_string_value(json_object_get(b, "resource_type"))) == 0;
}

/* A fit's comparison metrics read back from its cached JSON entry (o may
 * be NULL): what ari_reg_best needs, nothing else. */
static const ari_reg_fit *fit_from_json(json_t *o, ari_reg_fit *f)
{
    if (!o)
        return NULL;
    json_t *v;
    memset(f, 0, sizeof *f);
    f->fittable = json_is_true(json_object_get(o, "fittable"));
    f->r2_duration = json_is_number(v = json_object_get(o, "r2_duration")) ? json_number_value(v) : NAN;
    f->mae = json_is_number(v = json_object_get(o, "mae")) ? json_number_value(v) : NAN;
    f->rmse = json_is_number(v = json_object_get(o, "rmse")) ? json_number_value(v) : NAN;
    return f;
}

/* The best of the four single models of a group per metric, all on the
 * duration scale (ari_reg_best); null for a group that cannot be fitted. */
static json_t *best_json(json_t *models)
{
    ari_reg_fit fits[ARI_REG_NMODELS];
    const ari_reg_fit *ptr[ARI_REG_NMODELS];
    for (int mdl = 0; mdl < ARI_REG_NMODELS; mdl++)
        ptr[mdl] = fit_from_json(json_object_get(models, model_choices[mdl]), &fits[mdl]);
    int r2 = ari_reg_best(ptr, ARI_REG_BY_R2), mae = ari_reg_best(ptr, ARI_REG_BY_MAE),
        rmse = ari_reg_best(ptr, ARI_REG_BY_RMSE);
    return json_pack("{s:s,s:s?,s:s?,s:s?}", "scale", "duration", "r2", r2 < 0 ? NULL : model_choices[r2], "mae",
                     mae < 0 ? NULL : model_choices[mae], "rmse", rmse < 0 ? NULL : model_choices[rmse]);
}

/* Merges the per-model group lists into one entry per group. */
static json_t *merge_models(json_t *const docs[], json_t *totals)
{
    json_t *out = json_array();
    for (int mdl = 0; mdl <= MODEL_FLEXMIX; mdl++) {
        size_t i;
        json_t *g;
        json_object_set(totals, model_choices[mdl], json_object_get(docs[mdl], "count"));
        json_array_foreach(json_object_get(docs[mdl], "groups"), i, g)
        {
            json_t *entry = NULL, *e;
            size_t j;
            json_array_foreach(out, j, e) if (group_key_equal(e, g)) entry = e;
            if (!entry) {
                entry = json_pack("{s:O,s:O,s:O,s:{}}", "type", json_object_get(g, "type"), "resource_type",
                                  json_object_get(g, "resource_type"), "tasks", json_object_get(g, "tasks"),
                                  "models");
                json_array_append_new(out, entry);
            }
            json_t *models = json_object_get(entry, "models");
            json_t *copy = json_deep_copy(g);
            json_object_del(copy, "curve");
            json_object_del(copy, "type");
            json_object_del(copy, "resource_type");
            if (mdl == MODEL_FLEXMIX) {
                json_t *mix = json_object_get(models, "flexmix");
                if (!mix) {
                    mix = json_pack("{s:O,s:[],s:I}", "mixture", json_object_get(g, "mixture"), "clusters", "anomalies",
                                    (json_int_t)0);
                    json_object_set_new(models, "flexmix", mix);
                }
                json_object_del(copy, "mixture");
                json_array_append_new(json_object_get(mix, "clusters"), copy);
                json_object_set_new(mix, "anomalies",
                                    json_integer(json_integer_value(json_object_get(mix, "anomalies")) +
                                                 json_integer_value(json_object_get(g, "anomalies"))));
            } else {
                json_object_set_new(models, model_choices[mdl], copy);
            }
        }
    }
    size_t i;
    json_t *e;
    json_array_foreach(out, i, e) json_object_set_new(e, "best", best_json(json_object_get(e, "models")));
    return out;
}

enum MHD_Result api_models(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *docs[MODEL_FLEXMIX + 1] = {0};
    enum MHD_Result res;
    int ok = 1;
    for (int mdl = 0; mdl <= MODEL_FLEXMIX && ok; mdl++)
        ok = (docs[mdl] = anomalies_get(r, &ctx, &ctx.filter, mdl, &err)) != NULL;
    if (!ok) {
        res = ari_reply_from_error(r, &err);
    } else {
        json_t *totals = json_object();
        json_t *groups = merge_models(docs, totals);
        json_t *doc = json_pack("{s:s,s:s,s:O,s:o,s:o}", "time_unit", ctx.trace.time_unit, "default", "lr_log",
                                "modelled", json_object_get(docs[0], "modelled"), "anomalies", totals, "groups",
                                groups);
        res = ari_reply_analysis(r, doc, 17);
    }
    for (int mdl = 0; mdl <= MODEL_FLEXMIX; mdl++)
        json_decref(docs[mdl]);
    ari_actx_close(&ctx);
    return res;
}
