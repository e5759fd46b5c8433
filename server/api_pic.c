/* api_pic.c: GET /api/v1/traces/{id}/aggregation and
 * /aggregation/levels: the information-theoretic aggregation (pIC, seed 002)
 * of a trace's hierarchy (store/pic_queries.h) crossed with `slices` equal
 * time slices of a window (analysis/pic_spacetime.h): the best partition
 * for one p, or the p breakpoints where it changes.
 *
 * Cost: one read of the leaves' states in the window, then O(N T^3) for N
 * hierarchy nodes and T slices for one p; the levels carry piecewise-linear
 * functions of p through the same dynamic program, which costs more, so
 * their budget is smaller. Requests beyond the budget are refused with a
 * 400 before any work.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pic_spacetime.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "time_origin.h"
#include "reply.h"
#include "store/pic_queries.h"
#include "store/task_queries.h"

#define DEFAULT_SLICES 10
#define MAX_WORK 4e9        /* N * T^3 / 6, one p */
#define MAX_LEVELS_WORK 5e7 /* N * T^3 / 6, all breakpoints (10,000 leaves x 20 slices: ~4 s) */
#define AGG_DIGITS 12

typedef struct agg_req {
    int64_t id;
    double p;
    int64_t slices;
    double start, end;
    ari_tq_trace trace;
    ari_pq_data data;
    ari_pic_st st;
} agg_req;

static void agg_free(agg_req *q)
{
    ari_pic_st_free(&q->st);
    ari_pq_free(&q->data);
    ari_tq_trace_free(&q->trace);
}

static int read_params(ari_request *r, agg_req *q, int with_p)
{
    if (ari_path_id(r, 0, &q->id) < 0 ||
        (with_p && ari_param_number(r, "p", 0.5, 0, 1, &q->p) < 0) ||
        ari_param_int(r, "slices", DEFAULT_SLICES, 1, ARI_PIC_ST_MAX_SLICES, &q->slices) < 0 ||
        ari_param_number(r, "start", NAN, -DBL_MAX, DBL_MAX, &q->start) < 0 ||
        ari_param_number(r, "end", NAN, -DBL_MAX, DBL_MAX, &q->end) < 0)
        return -1;
    if (!isnan(q->start) && !isnan(q->end) && !(q->end > q->start)) {
        ari_reply_error(r, 400, "invalid_parameter", "end (%g) must be after start (%g)", q->end, q->start);
        return -1;
    }
    return 0;
}

/* Reads the parameters, loads the trace and prepares the program;
 * answers the request itself on failure. */
static int agg_load(ari_request *r, agg_req *q, int with_p)
{
    ari_error err = {0};
    if (read_params(r, q, with_p) < 0)
        return -1;
    int rc = ari_tq_trace_get(r->db, q->id, &q->trace, &err);
    if (rc == 0)
        rc = ari_pq_load(r->db, q->id, q->start, q->end, (int)q->slices, &q->data, &err);
    if (rc == 2) {
        ari_reply_error(r, 409, "no_states", "trace %lld has no states in this window to aggregate",
                        (long long)q->id);
        return -1;
    }
    if (rc != 0) {
        ari_reply_lookup_failed(r, rc, &err, "trace", q->id);
        return -1;
    }
    double t = (double)q->slices, budget = with_p ? MAX_WORK : MAX_LEVELS_WORK;
    if ((double)q->data.n * t * t * t / 6 > budget) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "slices=%lld is too many for a hierarchy of %lld nodes (at most %d%s)", (long long)q->slices,
                        (long long)q->data.n, (int)cbrt(budget * 6 / (double)q->data.n),
                        with_p ? "" : " for the levels");
        return -1;
    }
    if (ari_pic_st_init(&q->st, q->data.n, q->data.parent, (int)q->slices, q->data.nvalues, q->data.v, &err) < 0) {
        ari_reply_from_error(r, &err);
        return -1;
    }
    return 0;
}

/* agg_load, releasing q when it fails. */
static int agg_open(ari_request *r, agg_req *q, int with_p)
{
    if (agg_load(r, q, with_p) == 0)
        return 0;
    agg_free(q);
    return -1;
}

static double slice_time(const agg_req *q, int s)
{
    if (s >= q->data.slices)
        return q->data.end;
    return q->data.start + (q->data.end - q->data.start) * s / q->data.slices;
}

static json_t *node_json(const ari_pq_data *d, const ari_pic_tree *t, int64_t i)
{
    const ari_pq_node *n = &d->nodes[i];
    json_t *o = json_pack("{s:s,s:s,s:I,s:[I,I]}", "name", n->name, "kind", n->kind, "parent",
                          (json_int_t)d->parent[i], "leaves", (json_int_t)t->first_leaf[i],
                          (json_int_t)t->nleaf[i]);
    if (o && n->container_id >= 0)
        json_object_set_new(o, "container_id", json_integer(n->container_id));
    if (o && n->mpi_node >= 0)
        json_object_set_new(o, "node", json_integer(n->mpi_node));
    if (o && n->resource_type)
        json_object_set_new(o, "resource_type", json_string(n->resource_type));
    return o;
}

/* The common head of both documents: window, values, hierarchy. */
static json_t *doc_head(const agg_req *q)
{
    const ari_pq_data *d = &q->data;
    json_t *values = json_array(), *nodes = json_array(), *leaves = json_array();
    for (int k = 0; k < d->nvalues; k++)
        json_array_append_new(values, json_string(d->values[k]));
    for (int64_t i = 0; i < d->n; i++)
        json_array_append_new(nodes, node_json(d, &q->st.tree, i));
    for (int64_t e = 0; e < q->st.tree.nleaves; e++)
        json_array_append_new(leaves, json_integer(q->st.tree.leaf_node[e]));
    return json_pack("{s:s,s:f,s:f,s:I,s:s,s:o,s:o,s:o}", "time_unit", q->trace.time_unit, "start", d->start, "end",
                     d->end, "slices", (json_int_t)d->slices, "hierarchy_kind", d->tasks ? "workers" : "containers",
                     "values", values, "hierarchy", nodes, "leaves", leaves);
}

static json_t *block_json(const agg_req *q, const ari_pic_block *b, double *tmp)
{
    const ari_pic_tree *t = &q->st.tree;
    ari_pic_st_values(&q->st, b->node, b->t0, b->t1, tmp);
    double sum = 0;
    for (int k = 0; k < q->st.K; k++)
        sum += tmp[k];
    json_t *props = json_array();
    for (int k = 0; k < q->st.K; k++)
        json_array_append_new(props, json_real(sum > 0 ? tmp[k] / sum : 0));
    int64_t top = ari_pic_tree_top(t, b->node);
    return json_pack("{s:I,s:s,s:[I,I],s:[i,i],s:f,s:f,s:o,s:f,s:f,s:f}", "node", (json_int_t)top, "name",
                     q->data.nodes[top].name, "leaves", (json_int_t)t->first_leaf[b->node],
                     (json_int_t)t->nleaf[b->node], "slices", b->t0, b->t1, "start", slice_time(q, b->t0), "end",
                     slice_time(q, b->t1 + 1), "proportions", props, "time", sum * q->st.total, "gain", b->gain,
                     "loss", b->loss);
}

enum MHD_Result api_aggregation(ari_request *r)
{
    agg_req q = {0};
    if (agg_open(r, &q, 1) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_pic_partition part;
    if (ari_pic_st_best(&q.st, q.p, &part, &err) < 0) {
        agg_free(&q);
        return ari_reply_from_error(r, &err);
    }
    double *tmp = malloc(((size_t)q.st.K + 1) * sizeof *tmp);
    json_t *doc = tmp ? doc_head(&q) : NULL, *aggs = json_array();
    for (int64_t i = 0; doc && i < part.n; i++)
        json_array_append_new(aggs, block_json(&q, &part.blocks[i], tmp));
    enum MHD_Result res;
    if (!doc) {
        json_decref(aggs);
        res = ari_reply_error(r, 500, "out_of_memory", "out of memory");
    } else {
        json_object_set_new(doc, "p", json_real(q.p));
        json_object_set_new(doc, "gain", json_real(part.gain));
        json_object_set_new(doc, "loss", json_real(part.loss));
        json_object_set_new(doc, "pic", json_real(q.p * part.gain - (1 - q.p) * part.loss));
        json_object_set_new(doc, "count", json_integer(part.n));
        json_object_set_new(doc, "aggregates", aggs);
        res = ari_reply_analysis(r, ari_with_time_origin(r, q.id, doc), AGG_DIGITS);
    }
    free(tmp);
    ari_pic_partition_free(&part);
    agg_free(&q);
    return res;
}

enum MHD_Result api_aggregation_levels(ari_request *r)
{
    agg_req q = {0};
    if (agg_open(r, &q, 0) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_pic_level *lv;
    int64_t n;
    if (ari_pic_st_levels(&q.st, &lv, &n, &err) < 0) {
        agg_free(&q);
        if (strcmp(err.code, ARI_E_TOO_LARGE) == 0) /* the input's fault, not a body size: 400 */
            return ari_reply_error(r, 400, "invalid_parameter", "%s; use fewer slices", err.message);
        return ari_reply_from_error(r, &err);
    }
    json_t *doc = doc_head(&q), *levels = json_array();
    for (int64_t j = 0; j < n; j++) {
        double to = j + 1 < n ? lv[j + 1].p : 1.0;
        double mid = j == 0 ? (n > 1 ? to / 2 : 0.5) : (lv[j].p + to) / 2;
        json_array_append_new(levels, json_pack("{s:f,s:f,s:f,s:I,s:f,s:f}", "p_from", lv[j].p, "p_to", to, "p", mid,
                                                "count", (json_int_t)lv[j].count, "gain", lv[j].gain, "loss",
                                                lv[j].loss));
    }
    enum MHD_Result res;
    if (!doc) {
        json_decref(levels);
        res = ari_reply_error(r, 500, "out_of_memory", "out of memory");
    } else {
        json_object_set_new(doc, "levels", levels);
        res = ari_reply_analysis(r, ari_with_time_origin(r, q.id, doc), AGG_DIGITS);
    }
    free(lv);
    agg_free(&q);
    return res;
}
