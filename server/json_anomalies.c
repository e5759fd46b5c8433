/* json_anomalies.c: the JSON of the anomalies and models endpoints, and
 * the decoding of a cached anomalies answer back into its struct (see
 * json_anomalies.h). */
#include "json_anomalies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_ctx.h"

#define CURVE_POINTS 60

const char *const ari_anom_model_names[] = {"lr", "wlr", "nlr", "lr_log", "flexmix", NULL};

/* A group's fit; a group that cannot be fitted has "fittable": false, a
 * "reason" and null coefficients, metrics and degrees of freedom. */
static json_t *fit_json(const ari_reg_fit *f)
{
    return json_pack("{s:I,s:b,s:s?,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:I}", "tasks", (json_int_t)f->n,
                     "fittable", f->fittable, "reason", f->reason, "b0", ari_json_num(f->b0), "b1",
                     f->has_slope ? ari_json_num(f->b1) : json_null(), "s", ari_json_num(f->s), "df",
                     f->fittable ? json_integer(f->df) : json_null(), "has_slope", f->has_slope, "r2",
                     ari_json_num(f->r2), "r2_duration", ari_json_num(f->r2_duration), "mae",
                     ari_json_num(f->mae), "rmse", ari_json_num(f->rmse), "anomalies",
                     (json_int_t)f->nanomalies);
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
        json_array_append_new(comps,
                              json_pack("{s:o,s:o,s:o,s:o}", "prior", ari_json_num(mix->comp[j].prior), "b0",
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
    json_object_set_new(o, "curve",
                        e->fit.fittable ? curve_json(&e->fit, e->gflop_min, e->gflop_max) : json_null());
    if (e->has_mixture)
        json_object_set_new(o, "mixture", mixture_json(&e->mixture));
    return o;
}

static json_t *task_json(const ari_tq_meta *m, const ari_tq_tasks *t, const double *duration,
                         const ari_anom_task *a, const ari_reg_fit *f)
{
    size_t i = a->task;
    double fit, lwr, upr;
    ari_reg_predict(f, t->gflop[i], &fit, &lwr, &upr);
    return json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:o,s:o,s:o,s:i,s:b}", "job_id", ari_tq_job_id(t, i),
                     "type", m->types[t->type[i]], "resource_type", m->restypes[t->restype[i]], "worker",
                     m->workers[t->worker[i]].name, "start", t->start[i], "end", t->end[i], "duration",
                     duration[i], "gflop", t->gflop[i], "fit", ari_json_num(fit), "lwr", ari_json_num(lwr),
                     "upr", ari_json_num(upr), "cluster", a->cluster + 1, "anomaly", a->anomaly);
}

json_t *ari_anomalies_json(const ari_tq_meta *m, const ari_tq_tasks *t, const double *duration,
                           const ari_anom_result *res)
{
    json_t *groups = json_array(), *tasks = json_array();
    for (size_t j = 0; j < res->nentries; j++)
        json_array_append_new(groups, group_json(m, &res->entries[j]));
    for (size_t j = 0; j < res->ntasks; j++)
        json_array_append_new(
            tasks, task_json(m, t, duration, &res->tasks[j], &res->entries[res->tasks[j].entry].fit));
    return json_pack("{s:s,s:I,s:I,s:o,s:o}", "model", ari_anom_model_names[res->model], "modelled",
                     (json_int_t)res->modelled, "count", (json_int_t)res->count, "groups", groups, "tasks",
                     tasks);
}

static json_t *best_json(const ari_model_row *row)
{
    const int *b = row->best;
    return json_pack("{s:s,s:s?,s:s?,s:s?}", "scale", "duration", "r2",
                     b[0] < 0 ? NULL : ari_anom_model_names[b[0]], "mae",
                     b[1] < 0 ? NULL : ari_anom_model_names[b[1]], "rmse",
                     b[2] < 0 ? NULL : ari_anom_model_names[b[2]]);
}

static json_t *row_models_json(const ari_model_row *row)
{
    json_t *models = json_object();
    for (int mdl = 0; mdl < ARI_REG_NMODELS; mdl++)
        if (row->single[mdl])
            json_object_set_new(models, ari_anom_model_names[mdl], entry_fit_json(row->single[mdl]));
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

json_t *ari_models_json(const ari_tq_meta *m, const char *time_unit, const ari_anom_result *res,
                        const ari_model_comparison *cmp)
{
    json_t *totals = json_object(), *rows = json_array();
    for (int mdl = 0; mdl < ARI_ANOM_NMODELS; mdl++)
        json_object_set_new(totals, ari_anom_model_names[mdl], json_integer((json_int_t)res[mdl].count));
    for (size_t i = 0; i < cmp->nrows; i++) {
        const ari_model_row *row = &cmp->rows[i];
        json_array_append_new(
            rows, json_pack("{s:s,s:s,s:I,s:o,s:o}", "type", m->types[row->group % m->ntypes],
                            "resource_type", m->restypes[row->group / m->ntypes], "tasks",
                            (json_int_t)row->tasks, "models", row_models_json(row), "best", best_json(row)));
    }
    return json_pack("{s:s,s:s,s:I,s:o,s:o}", "time_unit", time_unit, "default", "lr_log", "modelled",
                     (json_int_t)res[0].modelled, "anomalies", totals, "groups", rows);
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

int ari_anomalies_decode(const ari_tq_meta *m, int model, json_t *doc, ari_anom_result *res)
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
