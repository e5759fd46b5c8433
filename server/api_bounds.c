/* api_bounds.c: GET /api/v1/traces/{id}/bounds: the makespan, the span
 * (last end - first start, what a bound compares with), the area bound
 * (ABE), the critical-path bound (CPE) and the LP's ideal allocation next
 * to the actual one, for the filtered tasks and again per node and, with
 * by=iteration, per iteration; computed by analysis/bounds.h. This file
 * loads the tasks (on PostgreSQL, the per-type statistics are aggregated
 * by the database, store/bounds_queries.h, and only the CPE's DAG is
 * loaded: ari_tq_dag_load), counts the filtered workers, encodes the result (the
 * JSON answer, cached per filter without a window) and decodes a cached
 * answer back into the struct for the other endpoints
 * (ari_bounds_result_get). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bounds.h"
#include "analysis_ctx.h"
#include "store/bounds_queries.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"

_Static_assert(ARI_BOUNDS_NO_ITERATION == ARI_TQ_NO_ITERATION, "one value for 'no iteration'");

/* ---- input ---- */

static void count_workers(const ari_tq_meta *m, const ari_task_filter *f, int node_only,
                          int64_t node, double *workers)
{
    memset(workers, 0, (size_t)m->nrestypes * sizeof *workers);
    for (int i = 0; i < m->nworkers; i++)
        if (ari_task_filter_row(f, &m->workers[i]) && (!node_only || m->workers[i].node == node) &&
            m->workers[i].restype >= 0)
            workers[m->workers[i].restype] += 1;
}

/* The filter's workers, in all (workers) and per listed node (nodes,
 * node_workers); *nnodes of them. Arrays sized by the caller. */
static void scope_workers(const ari_tq_meta *m, const ari_task_filter *f, double *workers, int64_t *nodes,
                          double *node_workers, int *nnodes)
{
    count_workers(m, f, 0, 0, workers);
    *nnodes = 0;
    for (int j = 0; j < m->nnodes; j++) {
        if (!ari_task_filter_node(f, m->nodes[j]))
            continue;
        count_workers(m, f, 1, m->nodes[j], node_workers + (size_t)*nnodes * (size_t)m->nrestypes);
        nodes[(*nnodes)++] = m->nodes[j];
    }
}

/* ---- encoding ---- */

static json_t *allocation_json(const ari_tq_meta *m, const ari_bounds_scope *s)
{
    json_t *list = json_array();
    for (size_t i = 0; i < s->ncells; i++) {
        const ari_bounds_cell *c = &s->cells[i];
        json_array_append_new(list, json_pack("{s:s,s:s,s:o,s:I,s:o,s:I}", "resource_type", m->restypes[c->restype],
                                              "type", m->types[c->type], "ideal", ari_json_num(c->ideal), "actual",
                                              (json_int_t)c->actual, "mean_duration",
                                              ari_json_num(c->mean_duration), "workers", (json_int_t)c->workers));
    }
    return list;
}

static json_t *scope_json(const ari_tq_meta *m, const ari_bounds_scope *s, const char *key)
{
    json_t *doc = json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:o}", "makespan", ari_json_num(s->makespan), "start",
                            ari_json_num(s->start), "span", ari_json_num(s->span), "abe", ari_json_num(s->abe),
                            "cpe", ari_json_num(s->cpe), "tasks", (json_int_t)s->tasks, "workers",
                            (json_int_t)s->workers, "allocation", allocation_json(m, s));
    if (doc && key)
        json_object_set_new(doc, key, json_integer(s->key));
    return doc;
}

static json_t *scopes_json(const ari_tq_meta *m, const ari_bounds_scope *s, size_t n, const char *key)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++) {
        json_t *one = scope_json(m, &s[i], key);
        if (!one || json_array_append_new(list, one) < 0)
            return json_decref(list), NULL;
    }
    return list;
}

static json_t *bounds_json(const ari_tq_meta *m, const ari_bounds_result *res)
{
    json_t *doc = scope_json(m, &res->all, NULL);
    json_t *nodes = scopes_json(m, res->nodes, res->nnodes, "node");
    json_t *iterations = res->has_iterations ? scopes_json(m, res->iterations, res->niterations, "iteration")
                                             : NULL;
    if (doc && nodes && (!res->has_iterations || iterations)) {
        json_object_set_new(doc, "nodes", nodes);
        if (iterations)
            json_object_set_new(doc, "iterations", iterations);
        return doc;
    }
    json_decref(doc);
    json_decref(nodes);
    json_decref(iterations);
    return NULL;
}

/* ---- decoding a cached answer ---- */

static double num_of(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int cell_of(const ari_tq_meta *m, json_t *o, ari_bounds_cell *c)
{
    c->restype = ari_tq_restype_id(m, json_string_value(json_object_get(o, "resource_type")));
    c->type = ari_tq_type_id(m, json_string_value(json_object_get(o, "type")));
    c->ideal = num_of(json_object_get(o, "ideal"));
    c->actual = json_integer_value(json_object_get(o, "actual"));
    c->mean_duration = num_of(json_object_get(o, "mean_duration"));
    c->workers = json_integer_value(json_object_get(o, "workers"));
    return c->restype >= 0 && c->type >= 0 ? 0 : -1;
}

static int scope_of(const ari_tq_meta *m, json_t *o, const char *key, ari_bounds_scope *s)
{
    memset(s, 0, sizeof *s);
    json_t *cells = json_object_get(o, "allocation");
    if (!json_is_object(o) || !json_is_array(cells) || !json_is_integer(json_object_get(o, "tasks")))
        return -1;
    s->key = key ? json_integer_value(json_object_get(o, key)) : 0;
    s->makespan = num_of(json_object_get(o, "makespan"));
    s->start = num_of(json_object_get(o, "start"));
    s->span = num_of(json_object_get(o, "span"));
    s->abe = num_of(json_object_get(o, "abe"));
    s->cpe = num_of(json_object_get(o, "cpe"));
    s->tasks = json_integer_value(json_object_get(o, "tasks"));
    s->workers = json_integer_value(json_object_get(o, "workers"));
    s->cells = malloc((json_array_size(cells) + 1) * sizeof *s->cells);
    if (!s->cells)
        return -1;
    for (size_t i = 0; i < json_array_size(cells); i++)
        if (cell_of(m, json_array_get(cells, i), &s->cells[s->ncells++]) < 0)
            return -1;
    return 0;
}

static int scopes_of(const ari_tq_meta *m, json_t *list, const char *key, ari_bounds_scope **out, size_t *n)
{
    *out = calloc(json_array_size(list) + 1, sizeof **out);
    if (!*out)
        return -1;
    for (size_t i = 0; i < json_array_size(list); i++)
        if (scope_of(m, json_array_get(list, i), key, &(*out)[(*n)++]) < 0)
            return -1;
    return 0;
}

/* The result of a bounds document; -1 when it is not one (res is then
 * safe to free). */
static int bounds_decode(const ari_tq_meta *m, json_t *doc, ari_bounds_result *res)
{
    memset(res, 0, sizeof *res);
    json_t *iterations = json_object_get(doc, "iterations");
    res->has_iterations = iterations != NULL;
    if (scope_of(m, doc, NULL, &res->all) < 0 ||
        scopes_of(m, json_object_get(doc, "nodes"), "node", &res->nodes, &res->nnodes) < 0)
        return -1;
    return iterations ? scopes_of(m, iterations, "iteration", &res->iterations, &res->niterations) : 0;
}

/* ---- computing ---- */

static ari_bounds_tasks tasks_of(const ari_tq_tasks *t)
{
    return (ari_bounds_tasks){t->n, t->type, t->restype, t->node, t->iteration, t->start, t->end, t->pred_offset,
                              t->pred};
}

static int bounds_compute(const ari_tq_meta *m, const ari_tq_tasks *t, const ari_bounds_aggregates *agg,
                          const ari_task_filter *f, int by_iteration, ari_bounds_result *res, ari_error *err)
{
    size_t nr = (size_t)m->nrestypes + 1;
    double *workers = calloc(nr, sizeof *workers);
    double *node_workers = calloc(nr * ((size_t)m->nnodes + 1), sizeof *node_workers);
    int64_t *nodes = calloc((size_t)m->nnodes + 1, sizeof *nodes);
    int rc = -1;
    if (!workers || !node_workers || !nodes) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        ari_bounds_input in = {tasks_of(t), m->ntypes,   m->nrestypes, workers, 0,
                               nodes,       node_workers, by_iteration, agg};
        scope_workers(m, f, workers, nodes, node_workers, &in.nnodes);
        rc = ari_bounds_compute(&in, res, err);
    }
    free(workers);
    free(node_workers);
    free(nodes);
    return rc;
}

static json_t *compute_bounds(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                              const void *extra, ari_error *err)
{
    int by_iteration = extra && *(const int *)extra;
    /* On PostgreSQL the database sums the durations per group; the tasks'
     * DAG is still loaded (types, nodes, iterations, dependencies), for the
     * CPE: it walks it (bounds_queries.h). */
    ari_bounds_aggregates agg = {0};
    int pg = ari_store_is_pg(r->db);
    if (pg && ari_bq_aggregates(r->db, ctx->trace.id, ctx->meta, f, by_iteration, &agg, err) < 0)
        return NULL;
    ari_tq_tasks t;
    if ((pg ? ari_tq_dag_load(r->db, ctx->trace.id, ctx->meta, f, &t, err)
            : ari_tq_tasks_load(r->db, ctx->trace.id, ctx->meta, f, 1, &t, err)) < 0) {
        ari_bounds_aggregates_free(&agg);
        return NULL;
    }
    ari_bounds_result res;
    json_t *doc = NULL;
    if (bounds_compute(ctx->meta, &t, pg ? &agg : NULL, f, by_iteration, &res, err) == 0) {
        doc = bounds_json(ctx->meta, &res);
        if (!doc)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        ari_bounds_result_free(&res);
    }
    ari_tq_tasks_free(&t);
    ari_bounds_aggregates_free(&agg);
    return doc;
}

/* bounds.v2: the documents gained start and span (older cache entries
 * under "bounds" lack them); by=iteration is cached apart. */
static json_t *bounds_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, int by_iteration,
                          ari_error *err)
{
    static const int no = 0, yes = 1;
    return ari_analysis_cached(r, ctx, "bounds.v2", f, by_iteration ? "by=iteration" : "",
                               compute_bounds, by_iteration ? &yes : &no, err);
}

int ari_bounds_result_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, ari_bounds_result *out,
                          ari_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = bounds_get(r, ctx, f, 0, err);
    if (!doc)
        return -1;
    int rc = bounds_decode(ctx->meta, doc, out);
    json_decref(doc);
    if (rc < 0) { /* an unreadable cache entry: compute afresh */
        ari_bounds_result_free(out);
        static const int no = 0;
        doc = compute_bounds(r, ctx, f, &no, err);
        rc = doc ? bounds_decode(ctx->meta, doc, out) : -1;
        if (doc && rc < 0)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        json_decref(doc);
    }
    return rc;
}

enum MHD_Result api_bounds(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    static const char *const by_choices[] = {"node", "iteration", NULL};
    const char *by = NULL;
    if (ari_param_choice(r, "by", by_choices, &by) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = bounds_get(r, &ctx, &ctx.filter, by && strcmp(by, "iteration") == 0, &err);
    return ari_actx_reply(r, &ctx, doc, &err);
}
