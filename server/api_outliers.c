/* api_outliers.c: GET /api/v1/traces/{id}/outliers: StarVZ's anomalous
 * tasks (analysis/outliers.h): durations above Q3 + 1.5 IQR of their
 * (type, resource type) group. The full result is cached per filter;
 * `limit` only caps the tasks listed in the answer. Other endpoints get
 * the result as a struct (ari_outliers_result_get), decoded here from the
 * cached answer. On PostgreSQL the test runs in the database
 * (store/outlier_queries.h); SQLite keeps the in-memory path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/outliers.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"
#include "store/outlier_queries.h"

#define DEFAULT_LIMIT 1000
#define MAX_LIMIT 1000000

static json_t *groups_json(const ari_tq_meta *m, const ari_outlier_result *res)
{
    json_t *list = json_array();
    for (int k = 0; k < m->ntypes; k++) {
        for (int r = 0; r < m->nrestypes; r++) {
            const ari_outlier_group *g = &res->groups[(size_t)r * (size_t)m->ntypes + (size_t)k];
            if (g->count == 0)
                continue;
            json_array_append_new(list, json_pack("{s:s,s:s,s:I,s:o,s:o,s:o,s:o,s:I}", "type", m->types[k],
                                                  "resource_type", m->restypes[r], "tasks",
                                                  (json_int_t)g->count, "q1", ari_json_num(g->q1), "q3",
                                                  ari_json_num(g->q3), "iqr", ari_json_num(g->iqr),
                                                  "threshold", ari_json_num(g->threshold), "outliers",
                                                  (json_int_t)g->noutliers));
        }
    }
    return list;
}

static json_t *task_json(const ari_tq_meta *m, const char *job_id, int type, int restype, int worker,
                         double start, double end, const ari_outlier_result *res)
{
    size_t cell = (size_t)restype * (size_t)m->ntypes + (size_t)type;
    return json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:o}", "job_id", job_id, "type", m->types[type],
                     "resource_type", m->restypes[restype], "worker", m->workers[worker].name, "start", start,
                     "end", end, "duration", ari_tq_duration(start, end), "threshold",
                     ari_json_num(res->groups[cell].threshold));
}

static json_t *tasks_json(const ari_tq_meta *m, const ari_tq_tasks *t, const ari_outlier_result *res)
{
    int64_t *idx = ari_outliers_by_start(res, t->start);
    if (!idx)
        return NULL;
    json_t *list = json_array();
    for (size_t j = 0; j < res->noutliers; j++) {
        int64_t i = idx[j];
        json_array_append_new(list, task_json(m, ari_tq_job_id(t, i), t->type[i], t->restype[i], t->worker[i],
                                              t->start[i], t->end[i], res));
    }
    free(idx);
    return list;
}

static json_t *outliers_doc(const ari_tq_meta *m, const ari_outlier_result *res, json_t *tasks)
{
    return tasks ? json_pack("{s:I,s:o,s:o}", "count", (json_int_t)res->noutliers, "groups", groups_json(m, res),
                             "tasks", tasks)
                 : NULL;
}

/* PostgreSQL (issue 20): the database ranks the durations and returns the
 * groups and the outlier tasks only (store/outlier_queries.h), the same
 * answer as the in-memory path below without loading the trace's tasks. */
static json_t *compute_outliers_sql(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, ari_error *err)
{
    const ari_tq_meta *m = ctx->meta;
    ari_tq_outliers o;
    if (ari_tq_outliers_sql(r->db, ctx->trace.id, m, f, &o, err) < 0)
        return NULL;
    json_t *list = json_array();
    for (size_t j = 0; list && j < o.n; j++) {
        const ari_tq_outlier *x = &o.tasks[j];
        json_array_append_new(list, task_json(m, o.ids + x->id_off, x->type, x->restype, x->worker, x->start,
                                              x->end, &o.res));
    }
    json_t *doc = outliers_doc(m, &o.res, list);
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_tq_outliers_free(&o);
    return doc;
}

static json_t *compute_outliers(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                const void *extra, ari_error *err)
{
    (void)extra;
    const ari_tq_meta *m = ctx->meta;
    if (ari_store_is_pg(r->db) && m->ntypes > 0 && m->nrestypes > 0)
        return compute_outliers_sql(r, ctx, f, err);
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 0, &t, err) < 0)
        return NULL;
    double *duration = malloc(((size_t)t.n + 1) * sizeof *duration);
    json_t *doc = NULL;
    if (!duration) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        for (int64_t i = 0; i < t.n; i++) {
            duration[i] = ari_tq_duration(t.start[i], t.end[i]);
        }
        ari_outlier_input in = {(size_t)t.n, duration, t.type, t.restype, m->ntypes, m->nrestypes};
        ari_outlier_result res = {0};
        if (ari_outliers_compute(&in, &res, err) == 0) {
            doc = outliers_doc(m, &res, tasks_json(m, &t, &res));
            if (!doc)
                ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        ari_outlier_result_free(&res);
    }
    free(duration);
    ari_tq_tasks_free(&t);
    return doc;
}

static json_t *outliers_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, ari_error *err)
{
    return ari_analysis_cached(r, ctx, "outliers", f, "", compute_outliers, NULL, err);
}

/* ---- decoding a cached answer ---- */

static double num_of(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The groups and count of an outliers document (no per-task flags); -1
 * when it is not one (res is then safe to free). */
static int outliers_decode(const ari_tq_meta *m, json_t *doc, ari_outlier_result *res)
{
    memset(res, 0, sizeof *res);
    json_t *groups = json_object_get(doc, "groups"), *g;
    if (!json_is_array(groups))
        return -1;
    res->ntypes = m->ntypes;
    res->nrestypes = m->nrestypes;
    res->groups = calloc((size_t)m->ntypes * (size_t)m->nrestypes + 1, sizeof *res->groups);
    if (!res->groups)
        return -1;
    for (size_t c = 0; c < (size_t)m->ntypes * (size_t)m->nrestypes; c++)
        res->groups[c].q1 = res->groups[c].q3 = res->groups[c].iqr = res->groups[c].threshold = NAN;
    size_t i;
    json_array_foreach(groups, i, g)
    {
        int k = ari_tq_type_id(m, json_string_value(json_object_get(g, "type")));
        int r = ari_tq_restype_id(m, json_string_value(json_object_get(g, "resource_type")));
        if (k < 0 || r < 0)
            return -1;
        res->groups[(size_t)r * (size_t)m->ntypes + (size_t)k] = (ari_outlier_group){
            (size_t)json_integer_value(json_object_get(g, "tasks")), num_of(json_object_get(g, "q1")),
            num_of(json_object_get(g, "q3")), num_of(json_object_get(g, "iqr")),
            num_of(json_object_get(g, "threshold")), (size_t)json_integer_value(json_object_get(g, "outliers"))};
        res->noutliers += (size_t)json_integer_value(json_object_get(g, "outliers"));
    }
    return 0;
}

/* The document, decoded; when it cannot be (an unreadable cache entry),
 * computed afresh with compute and decoded. */
static int decode_or_compute(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, json_t *doc,
                             ari_compute_fn compute, ari_outlier_result *out, ari_error *err)
{
    int rc = outliers_decode(ctx->meta, doc, out);
    json_decref(doc);
    if (rc < 0) {
        ari_outlier_result_free(out);
        doc = compute(r, ctx, f, NULL, err);
        rc = doc ? outliers_decode(ctx->meta, doc, out) : -1;
        if (doc && rc < 0)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        json_decref(doc);
    }
    return rc;
}

int ari_outliers_result_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                            ari_outlier_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = outliers_get(r, ctx, f, err);
    return doc ? decode_or_compute(r, ctx, f, doc, compute_outliers, out, err) : -1;
}

/* The groups alone, cached apart ("outlier_groups"): the outliers
 * document lists every outlier task and is slow to parse on each request. */
static json_t *compute_groups(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                              ari_error *err)
{
    (void)extra;
    ari_outlier_result res;
    if (ari_outliers_result_get(r, ctx, f, &res, err) < 0)
        return NULL;
    json_t *doc = json_pack("{s:o}", "groups", groups_json(ctx->meta, &res));
    ari_outlier_result_free(&res);
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return doc;
}

int ari_outlier_groups_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                           ari_outlier_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = ari_analysis_cached(r, ctx, "outlier_groups", f, "", compute_groups, NULL, err);
    return doc ? decode_or_compute(r, ctx, f, doc, compute_groups, out, err) : -1;
}

enum MHD_Result api_outliers(ari_request *r)
{
    int64_t limit;
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    if (ari_param_int(r, "limit", DEFAULT_LIMIT, 0, MAX_LIMIT, &limit) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = outliers_get(r, &ctx, &ctx.filter, &err);
    if (doc) {
        json_t *tasks = json_object_get(doc, "tasks");
        while (json_array_size(tasks) > (size_t)limit)
            json_array_remove(tasks, json_array_size(tasks) - 1);
        json_object_set_new(doc, "limit", json_integer(limit));
    }
    return ari_actx_reply(r, &ctx, doc, &err);
}
