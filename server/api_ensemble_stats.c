/* api_ensemble_stats.c: the statistics and scaling endpoints of an
 * ensemble of profiles:
 *   GET /api/v1/ensembles/{id}/stats?metric=&percentiles=&ddof=&runs=
 *   GET /api/v1/ensembles/{id}/scaling?parameter=&metric=&runs=
 * The ensemble, the runs chosen by runs= and their unified CCT come from
 * ensemble_load.h, the statistics and the models from
 * analysis/ensemble_stats.c and scaling_model.c; this file reads the parameters,
 * encodes the JSON (absent values as null, never 0) and maps errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ensemble_stats.h"
#include "analysis/scaling_model.h"
#include "ensemble_load.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

#define MAX_PERCENTILES 20

/* metric=: a name of the unified metrics; default ens_default_metric. 400
 * (answered) for an unknown name; -2 when the ensemble has no metric. */
static int pick_metric(ari_request *r, const ari_ecct *e)
{
    const char *name = ari_param(r, "metric");
    if (name) {
        int k = ari_ecct_metric_index(e, name);
        char safe[ARI_PRINTABLE_SIZE];
        if (k < 0)
            ari_reply_error(r, 400, "invalid_parameter",
                            "metric '%s' is not a metric of the selected members", ari_printable(name, safe));
        return k;
    }
    int k = ens_default_metric(e);
    return k >= 0 ? k : -2;
}

/* What every node of both answers has: id, parent, path, name, module,
 * kind, file, line, depth and the presence count and mask. */
static json_t *node_base_json(const ari_ecct *e, int64_t i)
{
    char *path = ari_ecct_path(e, i);
    json_t *mask = json_array();
    for (int m = 0; m < e->nmembers; m++)
        json_array_append_new(mask, json_boolean(ari_ecct_present(e, m, i)));
    json_t *o =
        json_pack("{s:I, s:o, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o}", "id", (json_int_t)i, "parent",
                  e->parent[i] < 0 ? json_null() : json_integer(e->parent[i]), "path", path ? path : "",
                  "name", e->name[i], "module", e->module[i], "kind", e->kind[i], "file", e->file[i], "line",
                  e->line[i], "depth", e->depth[i], "present", e->npresent[i], "presence", mask);
    free(path);
    return o;
}

static json_t *metric_list_json(const ari_ecct *e)
{
    json_t *a = json_array();
    for (int k = 0; k < e->nmetrics; k++)
        json_array_append_new(a, json_string(e->metrics[k].name));
    return a;
}

/* ---- /stats ---- */

/* percentiles=25,50,75 (the default): 1 to 20 numbers in [0, 100]. */
static int parse_percentiles(ari_request *r, double *pct, int *n)
{
    const char *s = ari_param(r, "percentiles");
    const double def[] = {25, 50, 75};
    *n = 0;
    if (!s) {
        memcpy(pct, def, sizeof def);
        *n = 3;
        return 0;
    }
    for (const char *p = s; *n < MAX_PERCENTILES;) {
        size_t len = strcspn(p, ",");
        char item[72];
        double v;
        if (len == 0 || len >= sizeof item)
            break;
        memcpy(item, p, len);
        item[len] = '\0';
        if (ari_parse_number(item, &v) < 0 || v < 0 || v > 100)
            break;
        pct[(*n)++] = v;
        if (!p[len])
            return 0;
        p += len + 1;
    }
    char safe[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 400, "invalid_parameter",
                    "percentiles must list 1 to %d numbers in [0, 100], got '%s'", MAX_PERCENTILES,
                    ari_printable(s, safe));
    return -1;
}

/* {"25": v, ...}: keys as %g of the percentile. */
static json_t *pct_json(const ari_estats *s, int64_t i)
{
    json_t *o = json_object();
    for (int q = 0; q < s->npct; q++) {
        char key[32];
        snprintf(key, sizeof key, "%g", s->percentiles[q]);
        json_object_set_new(o, key, ens_num(s->pct[i * s->npct + q]));
    }
    return o;
}

static json_t *stats_node_json(const ari_ecct *e, const ari_estats *s, int64_t i)
{
    json_t *o = node_base_json(e, i);
    const ari_sample_stats *st = &s->stats[i];
    json_t *values = json_array();
    for (int m = 0; m < s->nmembers; m++)
        json_array_append_new(values, ens_num(s->values[i * s->nmembers + m]));
    json_t *more =
        json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "count", st->count, "mean",
                  ens_num(st->mean), "median", ens_num(st->median), "min", ens_num(st->min),
                  "max", ens_num(st->max), "std", ens_num(st->std), "variance",
                  ens_num(st->variance), "percentiles", pct_json(s, i), "values", values);
    if (!o || !more || json_object_update(o, more) < 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(more);
    return o;
}

static json_t *stats_json(const ens_ctx *c, int metric, const ari_estats *s)
{
    json_t *nodes = json_array(), *pcts = json_array();
    for (int64_t i = 0; i < c->ecct.nnodes; i++)
        json_array_append_new(nodes, stats_node_json(&c->ecct, s, i));
    for (int q = 0; q < s->npct; q++)
        json_array_append_new(pcts, json_real(s->percentiles[q]));
    const ari_cct_metric *m = &c->ecct.metrics[metric];
    return json_pack("{s:I, s:s, s:s, s:s, s:b, s:s, s:i, s:o, s:o, s:o, s:I, s:o}", "ensemble_id",
                     (json_int_t)c->id, "ensemble", c->ens.name, "metric", m->name, "unit",
                     m->unit ? m->unit : "", "inclusive", m->inclusive, "collapse", "mean", "ddof", s->ddof,
                     "percentiles", pcts, "metrics", metric_list_json(&c->ecct), "runs", ens_runs_json(c),
                     "node_count", (json_int_t)c->ecct.nnodes, "nodes", nodes);
}

enum MHD_Result api_ensemble_stats(ari_request *r)
{
    double pct[MAX_PERCENTILES];
    int npct, metric;
    int64_t ddof;
    if (parse_percentiles(r, pct, &npct) < 0 || ari_param_int(r, "ddof", 1, 0, 1, &ddof) < 0)
        return MHD_YES;
    ens_ctx c;
    if (ens_ctx_open(r, &c) < 0)
        return MHD_YES;
    json_t *doc = NULL;
    ari_error err = {0};
    ari_estats s = {0};
    metric = pick_metric(r, &c.ecct);
    if (metric == -2)
        doc = json_pack("{s:I, s:s, s:o, s:o, s:I, s:[]}", "ensemble_id", (json_int_t)c.id, "ensemble",
                        c.ens.name, "metric", json_null(), "runs", ens_runs_json(&c), "node_count", (json_int_t)0,
                        "nodes");
    else if (metric >= 0 && ari_estats_compute(&c.ecct, metric, (int)ddof, pct, npct, &s, &err) == 0)
        doc = stats_json(&c, metric, &s);
    ari_estats_free(&s);
    ens_ctx_free(&c);
    if (metric == -1)
        return MHD_YES;
    return err.code[0] ? ari_reply_from_error(r, &err) : ari_reply_doc(r, doc, 17);
}

/* ---- /scaling ---- */

static int count_distinct(const double *p, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int seen = isnan(p[i]);
        for (int j = 0; j < i && !seen; j++)
            seen = p[j] == p[i];
        d += !seen;
    }
    return d;
}

/* p[k] = selected run k's value of the parameter (NAN without it); 400
 * answered when it is not numeric or has fewer than 3 distinct values. */
static int parameter_values(ari_request *r, const ens_ctx *c, const char *key, double *p)
{
    char safe[ARI_PRINTABLE_SIZE], safe2[ARI_PRINTABLE_SIZE], safe3[ARI_PRINTABLE_SIZE];
    for (int k = 0; k < c->prof.n; k++) {
        const ari_ensemble_member *m = &c->ens.members[c->prof.member[k]];
        const char *text = "";
        int rc = ari_ensemble_member_number(m, key, &p[k], &text);
        if (rc < 0) {
            ari_reply_error(r, 400, "invalid_parameter", "parameter '%s' is not numeric: run '%s' has '%s'",
                            ari_printable(key, safe), ari_printable(m->name, safe2),
                            ari_printable(text, safe3));
            return -1;
        }
        if (rc == 1)
            p[k] = NAN;
    }
    int d = count_distinct(p, c->prof.n);
    if (d >= 3)
        return 0;
    if (d == 0) {
        ari_reply_error(r, 400, "invalid_parameter", "parameter '%s' is not a parameter of the selected runs",
                        ari_printable(key, safe));
        return -1;
    }
    ari_reply_error(r, 400, "invalid_parameter",
                    "parameter '%s' has %d distinct numeric value%s among the selected runs; a scaling model "
                    "needs at least 3",
                    ari_printable(key, safe), d, d == 1 ? "" : "s");
    return -1;
}

static json_t *exponent_json(int num, int den)
{
    char buf[32];
    snprintf(buf, sizeof buf, den == 1 ? "%d" : "%d/%d", num, den);
    return json_string(buf);
}

static json_t *scaling_node_json(const ari_ecct *e, const ari_scaling_fit *f, int64_t i, int64_t rank)
{
    json_t *o = node_base_json(e, i);
    char text[160];
    ari_scaling_model_text(f, text, sizeof text);
    json_t *more =
        json_pack("{s:i, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "points",
                  f->npoints, "model", f->valid ? json_string(text) : json_null(), "constant", f->constant,
                  "a", f->valid ? exponent_json(f->a_num, f->a_den) : json_null(), "a_value",
                  ens_num(f->valid ? f->a : NAN), "b", f->valid ? json_integer(f->b) : json_null(), "c0",
                  ens_num(f->c0), "c1", ens_num(f->c1), "cv_smape", ens_num(f->cv_smape), "r2",
                  ens_num(f->r2), "rss", ens_num(f->rss), "f_min", ens_num(f->fmin), "f_max",
                  ens_num(f->fmax), "growth", ens_num(f->growth), "rank", (json_int_t)rank);
    if (!o || !more || json_object_update(o, more) < 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(more);
    return o;
}

/* Fits every node: y = the run's node value of the metric, x = p. */
static void fit_nodes(const ari_ecct *e, int metric, const double *p, double *y, ari_scaling_fit *fits)
{
    for (int64_t i = 0; i < e->nnodes; i++) {
        for (int m = 0; m < e->nmembers; m++)
            y[m] = ari_ecct_value(e, m, i, metric);
        ari_scaling_fit_points(p, y, e->nmembers, &fits[i]);
    }
}

static json_t *search_space_json(void)
{
    return json_pack("{s:s, s:[ssssssssssssssssssss], s:[iii], s:i, s:s, s:s}", "form",
                     "c0 + c1 * p^a * log2(p)^b", "a", "0", "1/4", "1/3", "1/2", "2/3", "3/4", "4/5", "1",
                     "5/4", "4/3", "3/2", "5/3", "7/4", "2", "9/4", "7/3", "5/2", "8/3", "11/4", "3", "b", 0,
                     1, 2, "hypotheses", ari_scaling_hypotheses(), "baseline", "constant (mean)", "criterion",
                     "leave-one-out SMAPE (percent)");
}

static json_t *scaling_json(const ens_ctx *c, const char *key, int metric, const double *p,
                            const ari_scaling_fit *fits, const int64_t *order, const int64_t *rank)
{
    json_t *nodes = json_array(), *ranking = json_array(), *runs = ens_runs_json(c);
    for (int64_t i = 0; i < c->ecct.nnodes; i++) {
        json_array_append_new(nodes, scaling_node_json(&c->ecct, &fits[i], i, rank[i]));
        json_array_append_new(ranking, json_integer(order[i]));
    }
    for (int k = 0; k < c->prof.n; k++)
        json_object_set_new(json_array_get(runs, (size_t)k), "value", ens_num(p[k]));
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:o, s:o}", "ensemble_id", (json_int_t)c->id,
                     "ensemble", c->ens.name, "parameter", key, "metric", c->ecct.metrics[metric].name,
                     "collapse", "mean", "search_space", search_space_json(), "runs", runs, "node_count",
                     (json_int_t)c->ecct.nnodes, "ranking", ranking, "nodes", nodes);
}

static json_t *scaling_doc(const ens_ctx *c, const char *key, int metric, const double *p)
{
    size_t nn = c->ecct.nnodes ? (size_t)c->ecct.nnodes : 1, nm = c->prof.n ? (size_t)c->prof.n : 1;
    ari_scaling_fit *fits = malloc(nn * sizeof *fits);
    int64_t *order = malloc(nn * sizeof *order), *rank = malloc(nn * sizeof *rank);
    double *y = malloc(nm * sizeof *y);
    json_t *doc = NULL;
    if (fits && order && rank && y) {
        fit_nodes(&c->ecct, metric, p, y, fits);
        ari_scaling_rank(fits, c->ecct.nnodes, order, rank);
        doc = scaling_json(c, key, metric, p, fits, order, rank);
    }
    free(fits);
    free(order);
    free(rank);
    free(y);
    return doc;
}

enum MHD_Result api_ensemble_scaling(ari_request *r)
{
    const char *key = ari_param(r, "parameter");
    if (!key || !*key)
        return ari_reply_error(r, 400, "invalid_parameter",
                               "parameter is required: a numeric execution parameter of the ensemble's runs");
    ens_ctx c;
    if (ens_ctx_open(r, &c) < 0)
        return MHD_YES;
    double *p = malloc((c.prof.n ? (size_t)c.prof.n : 1) * sizeof *p);
    int metric = pick_metric(r, &c.ecct);
    json_t *doc = NULL;
    int answered = metric == -1;
    if (!answered && metric == -2) {
        ari_reply_error(r, 400, "invalid_parameter", "the selected runs have no metric");
        answered = 1;
    }
    if (!answered && (!p || parameter_values(r, &c, key, p) < 0))
        answered = p != NULL;
    if (!answered && p)
        doc = scaling_doc(&c, key, metric, p);
    free(p);
    ens_ctx_free(&c);
    return answered ? MHD_YES : ari_reply_doc(r, doc, 17);
}
