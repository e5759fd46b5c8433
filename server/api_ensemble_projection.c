/* api_ensemble_projection.c: the parameter projection and the metric
 * correlation scatter of an ensemble of profiles (spec_callflow.md 2.10,
 * 3.3 items 4 and 6):
 *   GET /api/v1/ensembles/{id}/projection?k=3&seed=&runs=&metric=
 *   GET /api/v1/ensembles/{id}/scatter?x=&y=&runs=
 * The ensemble, the runs chosen by runs= and their unified CCT come from
 * ensemble_load.h; the features, MDS and k-means come from analysis/mds.c
 * and kmeans.c, the fits from analysis/profile_stats.c (ari_least_squares).
 * This file reads the parameters, builds the feature matrix, encodes the
 * JSON (absent values as null, never 0) and maps errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/kmeans.h"
#include "analysis/mds.h"
#include "analysis/profile_stats.h"
#include "ensemble_load.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

#define DEFAULT_SEED 20150101 /* CallFlow's random_state */

/* The metric named by parameter `param`, or by default ens_default_metric.
 * 400 answered (-1) for an unknown name or no metric at all. */
static int pick_metric(ari_request *r, const ari_ecct *e, const char *param)
{
    const char *name = ari_param(r, param);
    char safe[ARI_PRINTABLE_SIZE];
    int k = name ? ari_ecct_metric_index(e, name) : ens_default_metric(e);
    if (k >= 0)
        return k;
    if (name)
        ari_reply_error(r, 400, "invalid_parameter",
                        "%s: metric '%s' is not a metric of the selected members", param,
                        ari_printable(name, safe));
    else
        ari_reply_error(r, 400, "invalid_parameter", "the selected runs have no metric");
    return -1;
}

static json_t *params_json(const ari_ensemble_member *m)
{
    json_t *o = json_object();
    for (int q = 0; q < m->nparams; q++)
        json_object_set_new(o, m->param_keys[q], json_string(m->param_values[q]));
    return o;
}

/* ---- /projection ---- */

/* The member's value of key as a finite number: 0, or -1 (absent or not
 * a number). */
static int param_number(const ari_ensemble_member *m, const char *key, double *out)
{
    return ari_ensemble_member_number(m, key, out, NULL) == 0 ? 0 : -1;
}

/* The features: call sites whose metric value is finite in every selected
 * run, then every parameter that is a finite number in every selected run. */
typedef struct features {
    int p, nsites, ndropped, nparams, nclock;
    int64_t *sites;    /* [nsites] unified node ids */
    const char **keys; /* [nparams] borrowed */
    const char **clock; /* [nclock] borrowed: numeric parameters left out as timestamps */
    double *x;         /* n x p, row-major, min-max scaled */
} features;

static void features_free(features *f)
{
    free(f->sites);
    free((void *)f->keys);
    free((void *)f->clock);
    free(f->x);
}

static int site_complete(const ari_ecct *e, int64_t i, int metric)
{
    for (int m = 0; m < e->nmembers; m++)
        if (!isfinite(ari_ecct_value(e, m, i, metric)))
            return 0;
    return 1;
}

static int param_complete(const ens_ctx *c, const char *key)
{
    double v;
    for (int k = 0; k < c->prof.n; k++)
        if (param_number(ens_ctx_run(c, k), key, &v) < 0)
            return 0;
    return 1;
}

/* A parameter that says when a run happened (Caliper's launchdate, a
 * timestamp, a start time): numeric, different in every run, and no cause
 * of its performance, it would pull the projection apart by date. Judged
 * by the last dot-separated part of the key. */
static int is_timestamp_key(const char *key)
{
    static const char *const names[] = {"launchdate", "launchtime", "date", "timestamp", "time_stamp",
                                        "starttime", "start_time", "endtime", "end_time", "datetime", NULL};
    const char *last = strrchr(key, '.');
    last = last ? last + 1 : key;
    for (int k = 0; names[k]; k++)
        if (strcasecmp(last, names[k]) == 0)
            return 1;
    size_t n = strlen(last);
    return (n > 4 && strcasecmp(last + n - 4, "date") == 0) || (n > 9 && strcasecmp(last + n - 9, "timestamp") == 0);
}

static void choose_features(const ens_ctx *c, int metric, const char **all, int nall, features *f)
{
    for (int64_t i = 0; i < c->ecct.nnodes; i++) {
        if (site_complete(&c->ecct, i, metric))
            f->sites[f->nsites++] = i;
        else
            f->ndropped++;
    }
    for (int q = 0; q < nall; q++) {
        if (!param_complete(c, all[q]))
            continue;
        if (is_timestamp_key(all[q]))
            f->clock[f->nclock++] = all[q];
        else
            f->keys[f->nparams++] = all[q];
    }
    f->p = f->nsites + f->nparams;
}

static void fill_features(const ens_ctx *c, int metric, features *f)
{
    int n = c->prof.n;
    for (int k = 0; k < n; k++) {
        double *row = &f->x[(size_t)k * f->p];
        for (int s = 0; s < f->nsites; s++)
            row[s] = ari_ecct_value(&c->ecct, k, f->sites[s], metric);
        for (int q = 0; q < f->nparams; q++)
            param_number(ens_ctx_run(c, k), f->keys[q], &row[f->nsites + q]);
    }
    ari_minmax_scale(f->x, n, f->p);
}

static int build_features(const ens_ctx *c, int metric, features *f, ari_error *err)
{
    memset(f, 0, sizeof *f);
    const char **all = NULL;
    int nall = 0;
    if (ari_ensemble_param_keys(&c->ens, &all, &nall, err) < 0)
        return -1;
    f->sites = malloc((c->ecct.nnodes ? (size_t)c->ecct.nnodes : 1) * sizeof *f->sites);
    f->keys = malloc((nall ? (size_t)nall : 1) * sizeof *f->keys);
    f->clock = malloc((nall ? (size_t)nall : 1) * sizeof *f->clock);
    int rc = f->sites && f->keys && f->clock ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        choose_features(c, metric, all, nall, f);
    free((void *)all);
    f->x = rc == 0 ? malloc(((size_t)c->prof.n * f->p + 1) * sizeof *f->x) : NULL;
    if (rc == 0 && !f->x)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        fill_features(c, metric, f);
    return rc;
}

typedef struct projection {
    double coords[2 * ARI_MDS_MAX_POINTS], explained[2];
    int labels[ARI_MDS_MAX_POINTS];
    ari_kmeans_result km;
} projection;

static json_t *projection_runs_json(const ens_ctx *c, const projection *pr)
{
    json_t *a = json_array();
    for (int k = 0; k < c->prof.n; k++) {
        const ari_ensemble_member *m = ens_ctx_run(c, k);
        json_array_append_new(a,
                              json_pack("{s:I, s:s, s:f, s:f, s:i, s:o}", "trace_id", (json_int_t)m->trace_id,
                                        "name", m->name, "x", pr->coords[2 * k], "y", pr->coords[2 * k + 1],
                                        "cluster", pr->labels[k], "parameters", params_json(m)));
    }
    return a;
}

static json_t *axes_json(const projection *pr)
{
    json_t *a = json_array();
    for (int q = 0; q < 2; q++) {
        char label[64];
        snprintf(label, sizeof label, "MDS %d (%.0f%% of variance)", q + 1, 100 * pr->explained[q]);
        json_array_append_new(a, json_pack("{s:s, s:f, s:s}", "name", q ? "MDS 2" : "MDS 1", "explained",
                                           pr->explained[q], "label", label));
    }
    return a;
}

static json_t *features_json(const features *f)
{
    json_t *keys = json_array(), *clock = json_array();
    for (int q = 0; q < f->nparams; q++)
        json_array_append_new(keys, json_string(f->keys[q]));
    for (int q = 0; q < f->nclock; q++)
        json_array_append_new(clock, json_string(f->clock[q]));
    return json_pack("{s:i, s:i, s:i, s:o, s:o, s:s}", "count", f->p, "call_sites", f->nsites,
                     "call_sites_dropped", f->ndropped, "parameters", keys, "timestamps_excluded", clock,
                     "scaling", "min-max to [0, 1]");
}

static json_t *method_json(int64_t seed)
{
    return json_pack("{s:s, s:s, s:I, s:i, s:s}", "projection",
                     "classical (Torgerson) MDS of the min-max-scaled features", "clustering",
                     "k-means on the 2-D coordinates: k-means++ seeding (splitmix64 from the seed), Lloyd "
                     "iterations, best of the restarts by within-cluster sum of squares",
                     "seed", (json_int_t)seed, "restarts", ARI_KMEANS_RESTARTS, "cluster_numbering",
                     "by first appearance in run order");
}

static json_t *projection_json(const ens_ctx *c, int metric, int64_t k, int64_t seed, const features *f,
                               const projection *pr)
{
    return json_pack("{s:I, s:s, s:s, s:I, s:i, s:f, s:o, s:o, s:o, s:o}", "ensemble_id", (json_int_t)c->id,
                     "ensemble", c->ens.name, "metric", c->ecct.metrics[metric].name, "k", (json_int_t)k,
                     "clusters", pr->km.k_used, "wcss", pr->km.wcss, "axes", axes_json(pr), "features",
                     features_json(f), "method", method_json(seed), "runs", projection_runs_json(c, pr));
}

static json_t *projection_doc(const ens_ctx *c, int metric, int64_t k, int64_t seed, ari_error *err)
{
    features f = {0};
    projection *pr = calloc(1, sizeof *pr);
    json_t *doc = NULL;
    int rc = pr ? build_features(c, metric, &f, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = ari_mds_classical(f.x, c->prof.n, f.p, 2, pr->coords, pr->explained, err);
    if (rc == 0)
        rc = ari_kmeans(pr->coords, c->prof.n, 2, (int)k, (uint64_t)seed, pr->labels, &pr->km, err);
    if (rc == 0)
        doc = projection_json(c, metric, k, seed, &f, pr);
    features_free(&f);
    free(pr);
    return doc;
}

enum MHD_Result api_ensemble_projection(ari_request *r)
{
    int64_t k, seed;
    if (ari_param_int(r, "k", 3, 1, 20, &k) < 0 ||
        ari_param_int(r, "seed", DEFAULT_SEED, 0, INT64_MAX, &seed) < 0)
        return MHD_YES;
    ens_ctx c;
    if (ens_ctx_open(r, &c) < 0)
        return MHD_YES;
    if (c.prof.n > ARI_MDS_MAX_POINTS) {
        ens_ctx_free(&c);
        return ari_reply_error(
            r, 400, "invalid_parameter",
            "a projection takes at most %d runs; choose fewer with runs=", ARI_MDS_MAX_POINTS);
    }
    int metric = pick_metric(r, &c.ecct, "metric");
    if (metric < 0) {
        ens_ctx_free(&c);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = projection_doc(&c, metric, k, seed, &err);
    ens_ctx_free(&c);
    return err.code[0] ? ari_reply_from_error(r, &err) : ari_reply_doc(r, doc, 17);
}

/* ---- /scatter ---- */

/* y defaults to the partner of x (the exclusive variant of an inclusive
 * metric), else x itself. */
static int pick_y(ari_request *r, const ari_ecct *e, int x)
{
    if (ari_param(r, "y"))
        return pick_metric(r, e, "y");
    return e->metrics[x].partner >= 0 ? e->metrics[x].partner : x;
}

static json_t *fit_json(const ari_fit *f)
{
    return json_pack("{s:I, s:o, s:o, s:o, s:o}", "n", (json_int_t)f->n, "r", ens_num(f->r), "r2",
                     ens_num(f->r2), "slope", ens_num(f->slope), "intercept",
                     ens_num(f->intercept));
}

/* One node's row: identity and the fit across the runs (one point per run
 * where both metrics are measured). xs, ys: scratch of nmembers. */
static json_t *scatter_node_json(const ari_ecct *e, int64_t i, int mx, int my, double *xs, double *ys)
{
    for (int m = 0; m < e->nmembers; m++) {
        xs[m] = ari_ecct_value(e, m, i, mx);
        ys[m] = ari_ecct_value(e, m, i, my);
    }
    ari_fit f;
    ari_least_squares(xs, ys, e->nmembers, &f);
    char *path = ari_ecct_path(e, i);
    json_t *o =
        json_pack("{s:I, s:s, s:s, s:s, s:i, s:o}", "id", (json_int_t)i, "path", path ? path : "", "name",
                  e->name[i], "module", e->module[i], "present", e->npresent[i], "fit", fit_json(&f));
    free(path);
    return o;
}

/* Every (node, run) with both values finite, in node then run order;
 * xs, ys get the same points for the overall fit (*np of them). */
static json_t *points_json(const ens_ctx *c, int mx, int my, double *xs, double *ys, int64_t *np)
{
    json_t *a = json_array();
    *np = 0;
    for (int64_t i = 0; i < c->ecct.nnodes; i++)
        for (int m = 0; m < c->ecct.nmembers; m++) {
            double x = ari_ecct_value(&c->ecct, m, i, mx), y = ari_ecct_value(&c->ecct, m, i, my);
            if (!isfinite(x) || !isfinite(y))
                continue;
            xs[*np] = x;
            ys[(*np)++] = y;
            json_array_append_new(a, json_pack("{s:I, s:i, s:I, s:f, s:f}", "node", (json_int_t)i, "run", m,
                                               "trace_id", (json_int_t)ens_ctx_run(c, m)->trace_id, "x", x,
                                               "y", y));
        }
    return a;
}

static json_t *axis_json(const ari_cct_metric *m)
{
    return json_pack("{s:s, s:s, s:b}", "metric", m->name, "unit", m->unit ? m->unit : "", "inclusive",
                     m->inclusive);
}

static json_t *scatter_doc(const ens_ctx *c, int mx, int my)
{
    size_t cap = (size_t)c->ecct.nnodes * (size_t)c->ecct.nmembers + 1;
    double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
    json_t *doc = NULL;
    if (xs && ys) {
        json_t *nodes = json_array();
        for (int64_t i = 0; i < c->ecct.nnodes; i++)
            json_array_append_new(nodes, scatter_node_json(&c->ecct, i, mx, my, xs, ys));
        int64_t np;
        json_t *points = points_json(c, mx, my, xs, ys, &np);
        ari_fit all;
        ari_least_squares(xs, ys, np, &all);
        doc = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:I, s:o, s:o}", "ensemble_id", (json_int_t)c->id,
                        "ensemble", c->ens.name, "x", axis_json(&c->ecct.metrics[mx]), "y",
                        axis_json(&c->ecct.metrics[my]), "runs", ens_runs_json(c), "overall",
                        fit_json(&all), "node_count", (json_int_t)c->ecct.nnodes, "nodes", nodes, "points",
                        points);
    }
    free(xs);
    free(ys);
    return doc;
}

enum MHD_Result api_ensemble_scatter(ari_request *r)
{
    ens_ctx c;
    if (ens_ctx_open(r, &c) < 0)
        return MHD_YES;
    int mx = pick_metric(r, &c.ecct, "x");
    int my = mx >= 0 ? pick_y(r, &c.ecct, mx) : -1;
    json_t *doc = my >= 0 ? scatter_doc(&c, mx, my) : NULL;
    ens_ctx_free(&c);
    return my < 0 ? MHD_YES : ari_reply_doc(r, doc, 17);
}
