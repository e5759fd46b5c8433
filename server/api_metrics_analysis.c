/* api_metrics_analysis.c: the analyses of a selection of a sampled-metrics
 * trace (docs/api.md "Analyses of sampled metrics", spec_pdes_dmv.md 2,
 * 4.1):
 *   POST /api/v1/traces/{id}/cluster       k-means, PAM or complete linkage
 *   POST /api/v1/traces/{id}/projection    classical MDS or t-SNE to 2-D
 *   POST /api/v1/traces/{id}/changepoints  E-Divisive over the time points
 * Each reads the selection (metrics_selection.h), estimates its work and
 * answers 200 (cached or cheap) or 202 with a background run
 * (analysis_runs.h). The computations below own their input and run in
 * either thread. A 200 answer is CSV with ?format=csv (csv_reply.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cmdscale.h"
#include "analysis/edivisive.h"
#include "analysis/hclust.h"
#include "analysis/kmeans_hw.h"
#include "analysis/mds_pca.h"
#include "analysis/pam.h"
#include "analysis/ts_distance.h"
#include "analysis/tsne.h"
#include "handlers.h"
#include "metrics_selection.h"
#include "reply.h"

#define MAX_MATRIX_POINTS 8192        /* n x n doubles: 512 MiB */
#define MAX_CPD_SAMPLES 4096
#define CPD_SCRATCH_BYTES (1u << 30)  /* (threads + 1) T^2 doubles */

static const char *const distances[] = {"euclidean", "dtw", "twed", NULL};
static const char *const steps[] = {"symmetric1", "symmetric2", NULL};

/* ---- the input every computation gets ---- */

typedef struct job {
    json_t *head;          /* the result's selection fields */
    double *x;             /* n x (d l) */
    int n, d, l;
    const char *method;    /* static strings */
    ari_ts_distance_opts dist;
    int k, nstart;
    uint64_t seed;
    double perplexity;
    int iterations;
    ari_ed_options ed;
    double *time;          /* l (change points) */
} job;

static void job_free(void *p)
{
    job *j = p;
    json_decref(j->head);
    free(j->x);
    free(j->time);
    free(j);
}

/* Takes the selection's matrix and head into a new job. */
static job *job_new(ari_selection *sel)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->head = ari_sel_result_head(sel);
    j->n = (int)sel->m.n;
    j->d = (int)sel->m.d;
    j->l = (int)sel->m.l;
    j->time = malloc(sel->m.l * sizeof *j->time);
    if (!j->head || !j->time) {
        job_free(j);
        return NULL;
    }
    memcpy(j->time, sel->m.time, sel->m.l * sizeof *j->time);
    j->x = sel->x;
    sel->x = NULL;
    return j;
}

/* job_new with the parameters of par (method, distance, k, nstart, seed,
 * perplexity, iterations, E-Divisive options), or NULL after answering 500. */
static job *job_or_reply(ari_request *r, ari_selection *sel, const job *par)
{
    job *j = job_new(sel);
    if (!j) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    j->method = par->method;
    j->dist = par->dist;
    j->k = par->k;
    j->nstart = par->nstart;
    j->seed = par->seed;
    j->perplexity = par->perplexity;
    j->iterations = par->iterations;
    j->ed = par->ed;
    return j;
}

/* The result text (takes doc). */
static char *finish(json_t *doc, ari_error *err)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    if (!text)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return text;
}

static json_t *int_array(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *real_array(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, isfinite(v[i]) ? json_real(v[i]) : json_null());
    return a;
}

/* The n x n distance matrix of the job's rows (phase "distances"). */
static double *distance_matrix(job *j, ari_run_ctl *ctl, double to, ari_error *err)
{
    double *D = malloc((size_t)j->n * j->n * sizeof *D);
    if (!D) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory for a %d x %d distance matrix", j->n, j->n);
        return NULL;
    }
    ari_ts_distance_opts o = j->dist;
    o.cancel = ari_run_cancel_flag(ctl);
    o.pairs_done = ari_run_counter(ctl);
    ari_run_phase(ctl, "distances", 0, to, (int64_t)j->n * (j->n - 1) / 2);
    if (ari_ts_distance_matrix(j->x, j->n, j->d, j->l, &o, D, err) < 0) {
        free(D);
        return NULL;
    }
    return D;
}

static const char *distance_name(const job *j)
{
    return distances[j->dist.metric];
}

/* ---- cluster ---- */

/* Relabels k-means clusters by first appearance: labels, sizes, centers. */
static void kmeans_json(json_t *doc, const ari_kmeans_hw_result *km)
{
    int *map = malloc((size_t)km->k * sizeof *map), *labels = malloc((size_t)km->n * sizeof *labels);
    int *sizes = calloc((size_t)km->k, sizeof *sizes);
    if (!map || !labels || !sizes) {
        free(map);
        free(labels);
        free(sizes);
        return;
    }
    int next = 0;
    for (int c = 0; c < km->k; c++)
        map[c] = -1;
    for (int i = 0; i < km->n; i++) {
        int c = km->labels[i];
        if (map[c] < 0)
            map[c] = next++;
        labels[i] = map[c];
        sizes[map[c]]++;
    }
    for (int c = 0; c < km->k; c++)
        if (map[c] < 0)
            map[c] = next++; /* an empty cluster (cannot happen after AS 136, kept for safety) */
    json_t *centers = json_array(), *withinss = json_array();
    for (int nc = 0; nc < km->k; nc++)
        for (int c = 0; c < km->k; c++)
            if (map[c] == nc) {
                json_array_append_new(centers, real_array(km->centers + (size_t)c * km->p, km->p));
                json_array_append_new(withinss, json_real(km->withinss[c]));
            }
    json_object_set_new(doc, "labels", int_array(labels, km->n));
    json_object_set_new(doc, "sizes", int_array(sizes, km->k));
    json_object_set_new(doc, "tot_withinss", json_real(km->tot_withinss));
    json_object_set_new(doc, "withinss", withinss);
    json_object_set_new(doc, "totss", json_real(km->totss));
    json_object_set_new(doc, "centers", centers);
    json_object_set_new(doc, "iterations", json_integer(km->iterations));
    json_object_set_new(doc, "converged", json_boolean(km->converged));
    free(map);
    free(labels);
    free(sizes);
}

static int run_kmeans(job *j, json_t *doc, ari_run_ctl *ctl, ari_error *err)
{
    ari_kmeans_hw_opts o;
    ari_kmeans_hw_defaults(&o);
    o.nstart = j->nstart;
    o.seed = j->seed;
    o.cancel = ari_run_cancel_flag(ctl);
    ari_run_phase(ctl, "k-means", 0, 1, 0);
    ari_kmeans_hw_result *km = ari_kmeans_hw(j->x, j->n, j->d * j->l, j->k, &o, err);
    if (!km)
        return -1;
    kmeans_json(doc, km);
    ari_kmeans_hw_free(km);
    return 0;
}

static json_t *sizes_of(const int *labels, int n, int k)
{
    int *sizes = calloc((size_t)k, sizeof *sizes);
    if (!sizes)
        return NULL;
    for (int i = 0; i < n; i++)
        sizes[labels[i]]++;
    json_t *a = int_array(sizes, k);
    free(sizes);
    return a;
}

static int run_pam(job *j, json_t *doc, const double *D, ari_run_ctl *ctl, ari_error *err)
{
    ari_pam_result *pr = ari_pam_cancellable(D, j->n, j->k, ari_run_cancel_flag(ctl), err);
    if (!pr)
        return -1;
    json_t *ids = json_object_get(doc, "entities"), *medoids = json_array();
    for (int c = 0; c < pr->k; c++)
        json_array_append(medoids, json_array_get(ids, (size_t)pr->medoids[c]));
    json_object_set_new(doc, "labels", int_array(pr->labels, pr->n));
    json_object_set_new(doc, "sizes", sizes_of(pr->labels, pr->n, pr->k));
    json_object_set_new(doc, "medoids", medoids);
    json_object_set_new(doc, "objective", json_real(pr->objective_swap));
    ari_pam_free(pr);
    return 0;
}

static int run_complete(job *j, json_t *doc, const double *D, ari_run_ctl *ctl, ari_error *err)
{
    ari_hclust_result *h = ari_hclust_complete_cancellable(D, j->n, ari_run_cancel_flag(ctl), err);
    int *labels = h ? malloc((size_t)j->n * sizeof *labels) : NULL;
    if (!labels || ari_hclust_cut(h, j->k, labels, err) < 0) {
        if (h && !labels)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(labels);
        ari_hclust_free(h);
        return -1;
    }
    json_t *merge = json_array();
    for (int s = 0; s < j->n - 1; s++)
        json_array_append_new(merge, json_pack("[i,i]", h->merge[2 * s], h->merge[2 * s + 1]));
    json_object_set_new(doc, "labels", int_array(labels, j->n));
    json_object_set_new(doc, "sizes", sizes_of(labels, j->n, j->k));
    json_object_set_new(doc, "dendrogram", json_pack("{s:o,s:o,s:o}", "merge", merge, "height",
                                                     real_array(h->height, j->n - 1), "order",
                                                     int_array(h->order, j->n)));
    free(labels);
    ari_hclust_free(h);
    return 0;
}

static char *cluster_compute(void *input, ari_run_ctl *ctl, ari_error *err)
{
    job *j = input;
    json_t *doc = json_deep_copy(j->head);
    if (!doc) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    json_object_set_new(doc, "method", json_string(j->method));
    json_object_set_new(doc, "distance", json_string(distance_name(j)));
    json_object_set_new(doc, "k", json_integer(j->k));
    int rc;
    if (strcmp(j->method, "kmeans") == 0) {
        json_object_set_new(doc, "nstart", json_integer(j->nstart));
        rc = run_kmeans(j, doc, ctl, err);
    } else {
        double *D = distance_matrix(j, ctl, 0.9, err);
        rc = D ? 0 : -1;
        if (D && ari_run_cancelled(ctl))
            rc = ari_error_set(err, ARI_E_CANCELLED, "cancelled");
        if (rc == 0) {
            ari_run_phase(ctl, j->method, 0.9, 1, 0);
            rc = strcmp(j->method, "pam") == 0 ? run_pam(j, doc, D, ctl, err)
                                               : run_complete(j, doc, D, ctl, err);
        }
        free(D);
    }
    if (rc < 0) {
        json_decref(doc);
        return NULL;
    }
    return finish(doc, err);
}

/* ---- parameters shared by cluster and projection ---- */

/* distance, dtw{step, window}, twed{nu, lambda}: into j and the params. */
static int read_distance(ari_request *r, json_t *body, ari_selection *sel, job *j)
{
    const char *dist, *step;
    int64_t window;
    double nu, lambda;
    json_t *dtw = json_object_get(body, "dtw"), *twed = json_object_get(body, "twed");
    if (ari_sel_choice(r, body, "distance", distances, &dist) < 0 || ari_sel_choice(r, dtw, "step", steps, &step) < 0 ||
        ari_sel_int(r, dtw, "window", -1, -1, 1000000, &window) < 0 ||
        ari_sel_number(r, twed, "nu", 0.001, 0, 1e12, 0, &nu) < 0 ||
        ari_sel_number(r, twed, "lambda", 1, 0, 1e12, 0, &lambda) < 0)
        return -1;
    j->dist.metric = strcmp(dist, "euclidean") == 0 ? ARI_TS_EUCLID : strcmp(dist, "dtw") == 0 ? ARI_TS_DTW : ARI_TS_TWED;
    j->dist.step = strcmp(step, "symmetric1") == 0 ? ARI_DTW_SYMMETRIC1 : ARI_DTW_SYMMETRIC2;
    j->dist.window = (int)window;
    j->dist.nu = nu;
    j->dist.lambda = lambda;
    json_object_set_new(sel->params, "distance", json_string(dist));
    if (j->dist.metric == ARI_TS_DTW)
        json_object_set_new(sel->params, "dtw", json_pack("{s:s,s:I}", "step", step, "window", (json_int_t)window));
    if (j->dist.metric == ARI_TS_TWED)
        json_object_set_new(sel->params, "twed", json_pack("{s:f,s:f}", "nu", nu, "lambda", lambda));
    return 0;
}

/* Pairs x cost of one pair. */
static double matrix_work(const job *j)
{
    double pairs = (double)j->n * (j->n - 1) / 2, l = j->l;
    if (j->dist.metric == ARI_TS_EUCLID)
        return pairs * j->d * l;
    double band = j->dist.window >= 0 && j->dist.window < l ? 2.0 * j->dist.window + 1 : l;
    return pairs * j->d * l * band;
}

static int check_matrix_size(ari_request *r, const job *j)
{
    if (j->n <= MAX_MATRIX_POINTS)
        return 0;
    ari_reply_error(r, 413, ARI_E_TOO_LARGE,
                    "this needs the %d x %d distance matrix: at most %d entities (choose a coarser granularity or "
                    "fewer entities)", j->n, j->n, MAX_MATRIX_POINTS);
    return -1;
}

/* Opens the selection: 1 when it answered (an error). */
static int open_selection(ari_request *r, json_t *body, const ari_body_field *own, ari_selection *sel)
{
    return ari_sel_open(r, body, own, 1, sel) < 0 ? 1 : 0;
}

/* The fields of the analyses over a distance, after their own (method). */
static const ari_body_field distance_fields[] = {
    {"distance", ARI_BODY_STRING, 0, "one of euclidean, dtw, twed"},
    {"dtw", ARI_BODY_OBJECT, 0, "an object {step: symmetric1|symmetric2, window}"},
    {"twed", ARI_BODY_OBJECT, 0, "an object {nu, lambda}"},
    {"seed", ARI_BODY_INTEGER, 0, "an integer >= 0"},
    {NULL, ARI_BODY_STRING, 0, NULL}};

#define MAX_OWN_FIELDS 16

/* open_selection with the fields own (at most MAX_OWN_FIELDS - 5) then
 * distance_fields. */
static int open_distance_selection(ari_request *r, json_t *body, const ari_body_field *own,
                                   ari_selection *sel)
{
    ari_body_field all[MAX_OWN_FIELDS];
    size_t n = 0;
    for (size_t i = 0; own[i].name && n + 5 < MAX_OWN_FIELDS; i++)
        all[n++] = own[i];
    for (size_t i = 0; i < sizeof distance_fields / sizeof distance_fields[0]; i++)
        all[n++] = distance_fields[i];
    return open_selection(r, body, all, sel);
}

enum MHD_Result api_metrics_cluster(ari_request *r)
{
    static const char *const methods[] = {"kmeans", "pam", "complete", NULL};
    static const ari_body_field own[] = {
        {"method", ARI_BODY_STRING, 0, "one of kmeans, pam, complete"},
        {"k", ARI_BODY_INTEGER, 0, "an integer from 1 to the number of entities"},
        {"nstart", ARI_BODY_INTEGER, 0, "an integer in 1..1000"},
        {NULL, ARI_BODY_STRING, 0, NULL}};
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    ari_selection sel;
    job tmp = {0};
    const char *method;
    int64_t k, nstart, seed;
    ari_ts_distance_defaults(&tmp.dist);
    if (open_distance_selection(r, body, own, &sel) ||
        ari_sel_choice(r, body, "method", methods, &method) < 0 || read_distance(r, body, &sel, &tmp) < 0 ||
        ari_sel_int(r, body, "k", 3, 1, 1000000, &k) < 0 || ari_sel_int(r, body, "nstart", 10, 1, 1000, &nstart) < 0 ||
        ari_sel_int(r, body, "seed", 1, 0, INT64_MAX, &seed) < 0)
        goto done;
    if (strcmp(method, "kmeans") == 0 && tmp.dist.metric != ARI_TS_EUCLID) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "distance must be euclidean for method kmeans (its centres are means); use method pam or "
                        "complete for dtw and twed");
        goto done;
    }
    json_object_set_new(sel.params, "method", json_string(method));
    json_object_set_new(sel.params, "k", json_integer(k));
    if (strcmp(method, "kmeans") == 0) {
        json_object_set_new(sel.params, "nstart", json_integer(nstart));
        json_object_set_new(sel.params, "seed", json_integer(seed));
    }
    if (ari_sel_try_cached(r, &sel, "pdes_cluster@1") || ari_sel_load(r, &sel) < 0)
        goto done;
    int n = (int)sel.m.n;
    int64_t kmax = strcmp(method, "complete") == 0 || n == 1 ? n : n - 1;
    if (k > kmax) {
        ari_reply_error(r, 400, "invalid_parameter", "k must be an integer in 1..%lld for method %s on %d entities",
                        (long long)kmax, method, n);
        goto done;
    }
    tmp.method = method;
    tmp.k = (int)k;
    tmp.nstart = (int)nstart;
    tmp.seed = (uint64_t)seed;
    job *j = job_or_reply(r, &sel, &tmp);
    if (!j)
        goto done;
    if (strcmp(method, "kmeans") != 0 && check_matrix_size(r, j) < 0) {
        job_free(j);
        goto done;
    }
    double work = strcmp(method, "kmeans") == 0
                      ? (double)nstart * ARI_KMHW_DEFAULT_ITER * n * (double)k * j->d * j->l
                      : matrix_work(j) + (strcmp(method, "pam") == 0 ? 4.0 * (double)k : 3.0) * n * (double)n;
    ari_sel_answer(r, &sel, "cluster", "pdes_cluster@1", work, cluster_compute, j, job_free);
done:
    ari_sel_free(&sel);
    json_decref(body);
    return MHD_YES;
}

/* ---- projection ---- */

static int tsne_progress(void *ctx, int done, int total)
{
    (void)total;
    ari_run_count(ctx, done);
    return ari_run_cancelled(ctx);
}

static int run_mds(job *j, json_t *doc, double *xy, ari_run_ctl *ctl, ari_error *err)
{
    double explained[2];
    int rc;
    if (j->dist.metric == ARI_TS_EUCLID) {
        ari_run_phase(ctl, "mds", 0, 1, 0);
        rc = ari_mds_pca(j->x, j->n, j->d * j->l, 2, 0, xy, explained, err);
    } else {
        double *D = distance_matrix(j, ctl, 0.8, err);
        rc = D ? 0 : -1;
        if (rc == 0) {
            ari_run_phase(ctl, "mds", 0.8, 1, 0);
            rc = ari_cmdscale(D, j->n, 2, xy, explained, err);
        }
        free(D);
    }
    if (rc == 0)
        json_object_set_new(doc, "explained", real_array(explained, 2));
    return rc;
}

static int run_tsne(job *j, json_t *doc, double *xy, ari_run_ctl *ctl, ari_error *err)
{
    ari_tsne_options o;
    ari_tsne_defaults(&o);
    o.perplexity = j->perplexity;
    o.max_iter = j->iterations;
    o.seed = j->seed;
    o.progress = ctl ? tsne_progress : NULL;
    o.progress_ctx = ctl;
    ari_tsne_result out = {0};
    int rc;
    if (j->dist.metric == ARI_TS_EUCLID) {
        ari_run_phase(ctl, "t-SNE", 0, 1, j->iterations);
        rc = ari_tsne_rows(j->x, j->n, j->d * j->l, &o, xy, &out, err);
    } else {
        double *D = distance_matrix(j, ctl, 0.5, err);
        rc = D ? 0 : -1;
        if (rc == 0) {
            ari_run_phase(ctl, "t-SNE", 0.5, 1, j->iterations);
            rc = ari_tsne_dist(D, j->n, &o, xy, &out, err);
        }
        free(D);
    }
    if (rc == 0) {
        json_object_set_new(doc, "kl", json_real(out.kl));
        json_object_set_new(doc, "perplexity", json_real(j->perplexity));
        json_object_set_new(doc, "iterations", json_integer(out.iterations));
    }
    return rc;
}

static char *projection_compute(void *input, ari_run_ctl *ctl, ari_error *err)
{
    job *j = input;
    json_t *doc = json_deep_copy(j->head);
    double *xy = malloc((size_t)j->n * 2 * sizeof *xy);
    if (!doc || !xy) {
        json_decref(doc);
        free(xy);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    json_object_set_new(doc, "method", json_string(j->method));
    json_object_set_new(doc, "distance", json_string(distance_name(j)));
    int rc = strcmp(j->method, "mds") == 0 ? run_mds(j, doc, xy, ctl, err) : run_tsne(j, doc, xy, ctl, err);
    if (rc == 0) {
        json_t *pts = json_array();
        for (int i = 0; pts && i < j->n; i++)
            json_array_append_new(pts, json_pack("[f,f]", xy[2 * i], xy[2 * i + 1]));
        json_object_set_new(doc, "xy", pts);
    }
    free(xy);
    if (rc < 0) {
        json_decref(doc);
        return NULL;
    }
    return finish(doc, err);
}

enum MHD_Result api_metrics_projection(ari_request *r)
{
    static const char *const methods[] = {"mds", "tsne", NULL};
    static const ari_body_field own[] = {
        {"method", ARI_BODY_STRING, 0, "one of mds, tsne"},
        {"perplexity", ARI_BODY_NUMBER, 0, "a number > 0, below a third of the number of entities"},
        {"iterations", ARI_BODY_INTEGER, 0, "an integer in 1..10000"},
        {NULL, ARI_BODY_STRING, 0, NULL}};
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    ari_selection sel;
    job tmp = {0};
    const char *method;
    int64_t seed, iterations;
    double perplexity;
    ari_ts_distance_defaults(&tmp.dist);
    if (open_distance_selection(r, body, own, &sel) ||
        ari_sel_choice(r, body, "method", methods, &method) < 0 || read_distance(r, body, &sel, &tmp) < 0 ||
        ari_sel_int(r, body, "seed", 1, 0, INT64_MAX, &seed) < 0 ||
        ari_sel_int(r, body, "iterations", 1000, 1, 10000, &iterations) < 0 ||
        ari_sel_number(r, body, "perplexity", 30, 0, 1e6, 1, &perplexity) < 0)
        goto done;
    json_object_set_new(sel.params, "method", json_string(method));
    if (strcmp(method, "tsne") == 0) {
        json_object_set_new(sel.params, "seed", json_integer(seed));
        json_object_set_new(sel.params, "iterations", json_integer(iterations));
        json_object_set_new(sel.params, "perplexity", json_real(perplexity));
    }
    if (ari_sel_try_cached(r, &sel, "pdes_projection@1") || ari_sel_load(r, &sel) < 0)
        goto done;
    int n = (int)sel.m.n;
    if (strcmp(method, "tsne") == 0 && !(3 * perplexity < n)) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "perplexity must be below a third of the number of entities (%d): at most %g", n,
                        ceil((double)n / 3) - 1);
        goto done;
    }
    tmp.method = method;
    tmp.seed = (uint64_t)seed;
    tmp.iterations = (int)iterations;
    tmp.perplexity = perplexity;
    job *j = job_or_reply(r, &sel, &tmp);
    if (!j)
        goto done;
    int p = j->d * j->l, side = n < p ? n : p;
    int mds_euclid = strcmp(method, "mds") == 0 && j->dist.metric == ARI_TS_EUCLID;
    if (mds_euclid && side > ARI_MDS_PCA_MAX_DIM) {
        ari_reply_error(r, 413, ARI_E_TOO_LARGE, "MDS of %d entities x %d values: at most %d of either", n, p,
                        ARI_MDS_PCA_MAX_DIM);
        job_free(j);
        goto done;
    }
    if (!mds_euclid && j->dist.metric != ARI_TS_EUCLID &&
        (check_matrix_size(r, j) < 0 ||
         (strcmp(method, "mds") == 0 && n > ARI_CMDSCALE_MAX_POINTS &&
          ari_reply_error(r, 413, ARI_E_TOO_LARGE, "MDS of %d entities with %s: at most %d", n, distance_name(j),
                          ARI_CMDSCALE_MAX_POINTS)))) {
        job_free(j);
        goto done;
    }
    double work;
    if (mds_euclid)
        work = (double)n * p * side + (double)side * side * side;
    else if (strcmp(method, "mds") == 0)
        work = matrix_work(j) + (double)n * n * n;
    else
        work = (j->dist.metric == ARI_TS_EUCLID ? (double)n * n * p : matrix_work(j)) +
               (double)iterations * n * (log2((double)n) + 1) * 20;
    ari_sel_answer(r, &sel, "projection", "pdes_projection@1", work, projection_compute, j, job_free);
done:
    ari_sel_free(&sel);
    json_decref(body);
    return MHD_YES;
}

/* ---- change points ---- */

static int ed_progress(void *ctx, int points, int done, int total)
{
    ari_run_ctl *ctl = ctx;
    double from = 0.1 + 0.9 * (1 - pow(0.5, points)), to = 0.1 + 0.9 * (1 - pow(0.5, points + 1));
    char phase[48];
    snprintf(phase, sizeof phase, "permutations (change point %d)", points + 1);
    ari_run_phase(ctl, phase, from, to, total);
    ari_run_count(ctl, done);
    return ari_run_cancelled(ctl);
}

/* "A".."Z", "AA".. */
static void segment_label(int i, char *out)
{
    char tmp[8];
    int n = 0;
    do {
        tmp[n++] = (char)('A' + i % 26);
        i = i / 26 - 1;
    } while (i >= 0 && n < 7);
    for (int k = 0; k < n; k++)
        out[k] = tmp[n - 1 - k];
    out[n] = '\0';
}

static json_t *changepoints_json(const job *j, const ari_ed_result *res)
{
    json_t *doc = json_deep_copy(j->head), *cps = json_array(), *times = json_array(), *ps = json_array(),
           *stats = json_array(), *segs = json_array();
    for (int c = 0; c < res->count; c++) {
        int cp = res->sorted[c], f = 0;
        while (f < res->count && res->found[f] != cp)
            f++;
        json_array_append_new(cps, json_integer(cp));
        json_array_append_new(times, json_real(j->time[cp]));
        json_array_append_new(ps, f < res->tested && isfinite(res->p_values[f]) ? json_real(res->p_values[f])
                                                                                : json_null());
        json_array_append_new(stats, json_real(res->stat[f]));
    }
    for (int s = 0; s <= res->count; s++) {
        int i0 = s == 0 ? 0 : res->sorted[s - 1], i1 = s == res->count ? j->l : res->sorted[s];
        char label[8];
        segment_label(s, label);
        json_array_append_new(segs, json_pack("{s:i,s:i,s:f,s:f,s:s}", "i0", i0, "i1", i1, "t0", j->time[i0], "t1",
                                              j->time[i1 - 1], "label", label));
    }
    json_object_set_new(doc, "change_points", cps);
    json_object_set_new(doc, "times", times);
    json_object_set_new(doc, "p_values", ps);
    json_object_set_new(doc, "statistics", stats);
    json_object_set_new(doc, "segments", segs);
    json_object_set_new(doc, "rejected_p_value", res->tested > res->count && isfinite(res->p_values[res->count])
                                                     ? json_real(res->p_values[res->count]) : json_null());
    json_object_set_new(doc, "sig_lvl", json_real(j->ed.sig_lvl));
    json_object_set_new(doc, "R", json_integer(j->ed.permutations));
    json_object_set_new(doc, "min_size", json_integer(j->ed.min_size));
    json_object_set_new(doc, "alpha", json_real(j->ed.alpha));
    json_object_set_new(doc, "k", j->ed.k >= 0 ? json_integer(j->ed.k) : json_null());
    return doc;
}

/* Threads such that (threads + 1) T^2 doubles fit the scratch budget. */
static int cpd_threads(int T)
{
    double per = (double)T * T * sizeof(double);
    int t = (int)(CPD_SCRATCH_BYTES / per) - 1;
    return t >= 16 || T <= 1024 ? 0 : t < 1 ? 1 : t;
}

static char *changepoints_compute(void *input, ari_run_ctl *ctl, ari_error *err)
{
    job *j = input;
    int T = j->l;
    double *D = malloc((size_t)T * T * sizeof *D);
    if (!D) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory for a %d x %d distance matrix", T, T);
        return NULL;
    }
    ari_run_phase(ctl, "distances", 0, 0.1, 0);
    ari_ed_options o = j->ed;
    o.threads = cpd_threads(T);
    o.progress = ctl ? ed_progress : NULL;
    o.progress_ctx = ctl;
    ari_ed_result res = {0};
    char *text = NULL;
    if (ari_ed_distances(j->x, T, j->n * j->d, 1, o.alpha, o.threads, D, err) == 0 &&
        ari_edivisive(D, T, &o, &res, err) == 0)
        text = finish(changepoints_json(j, &res), err);
    else if (ari_run_cancelled(ctl))
        ari_error_set(err, ARI_E_CANCELLED, "cancelled");
    ari_ed_result_free(&res);
    free(D);
    return text;
}

enum MHD_Result api_metrics_changepoints(ari_request *r)
{
    static const ari_body_field own[] = {
        {"sig_lvl", ARI_BODY_NUMBER, 0, "a number in (0, 1)"},
        {"R", ARI_BODY_INTEGER, 0, "an integer in 0..9999"},
        {"min_size", ARI_BODY_INTEGER, 0, "an integer >= 2"},
        {"alpha", ARI_BODY_NUMBER, 0, "a number in (0, 2]"},
        {"k", ARI_BODY_INTEGER, 0, "null or an integer >= 0"},
        {"seed", ARI_BODY_INTEGER, 0, "an integer >= 0"},
        {NULL, ARI_BODY_STRING, 0, NULL}};
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    ari_selection sel;
    ari_ed_options o;
    ari_ed_defaults(&o);
    int64_t R, min_size, k, seed;
    if (open_selection(r, body, own, &sel) || ari_sel_number(r, body, "sig_lvl", 0.05, 0, 1, 1, &o.sig_lvl) < 0 ||
        ari_sel_int(r, body, "R", 199, 0, 9999, &R) < 0 ||
        ari_sel_int(r, body, "min_size", 30, 2, MAX_CPD_SAMPLES, &min_size) < 0 ||
        ari_sel_number(r, body, "alpha", 1, 0, 2, 1, &o.alpha) < 0 ||
        ari_sel_int(r, body, "k", -1, 0, MAX_CPD_SAMPLES, &k) < 0 ||
        ari_sel_int(r, body, "seed", 1, 0, INT64_MAX, &seed) < 0)
        goto done;
    if (o.sig_lvl >= 1) {
        ari_reply_error(r, 400, "invalid_parameter", "sig_lvl must be a number in (0, 1)");
        goto done;
    }
    o.permutations = (int)R;
    o.min_size = (int)min_size;
    o.k = (int)k;
    o.seed = (uint64_t)seed;
    json_t *p = sel.params;
    json_object_set_new(p, "sig_lvl", json_real(o.sig_lvl));
    json_object_set_new(p, "R", json_integer(R));
    json_object_set_new(p, "min_size", json_integer(min_size));
    json_object_set_new(p, "alpha", json_real(o.alpha));
    json_object_set_new(p, "k", k >= 0 ? json_integer(k) : json_null());
    json_object_set_new(p, "seed", json_integer(seed));
    if (ari_sel_try_cached(r, &sel, "pdes_changepoints@1") || ari_sel_load(r, &sel) < 0)
        goto done;
    int T = (int)sel.m.l;
    if (T > MAX_CPD_SAMPLES) {
        ari_reply_error(r, 413, ARI_E_TOO_LARGE, "change points of %d time points: at most %d (narrow t0..t1)", T,
                        MAX_CPD_SAMPLES);
        goto done;
    }
    job par = {.ed = o};
    ari_ts_distance_defaults(&par.dist);
    job *j = job_or_reply(r, &sel, &par);
    if (!j)
        goto done;
    double tests = k >= 0 ? (double)k + 1 : 4;
    double work = (double)T * T * j->n * j->d + (k >= 0 ? 1.0 : (double)R + 1) * tests * T * T;
    ari_sel_answer(r, &sel, "changepoints", "pdes_changepoints@1", work, changepoints_compute, j, job_free);
done:
    ari_sel_free(&sel);
    json_decref(body);
    return MHD_YES;
}
