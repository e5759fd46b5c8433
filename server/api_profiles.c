/* api_profiles.c: the call-graph profile endpoints of a trace of kind
 * "profile": the calling context tree with per-node statistics (/cct),
 * the per-process values of one node with a histogram (/nodes/{node}/
 * ranks), the correlation of two metrics over processes (/scatter) and
 * Hatchet's text tree (/tree). The rows come from store/profile_queries.c,
 * the statistics from analysis/profile_stats.c, the text tree from
 * profile_tree_text.c; this file reads parameters, encodes the JSON
 * (reals with 15 significant digits) and maps errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_stats.h"
#include "handlers.h"
#include "params.h"
#include "profile_tree_text.h"
#include "reply.h"
#include "store/profile_queries.h"

/* Maps a query's return code: 1 absent (404), 2 not a profile (409). */
static enum MHD_Result reply_error(ari_request *r, int rc, const ari_error *err)
{
    if (rc == 2)
        return ari_reply_error(r, 409, ARI_E_NOT_A_PROFILE, "%s", err->message);
    return ari_reply_from_error(r, err);
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* NAN (a NULL column) as null, any other value as a real (an infinite
 * one fails, as json_real refuses it). */
static json_t *nan_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* ---- /cct ---- */

static json_t *metrics_json(const ari_profile_summary *p)
{
    json_t *list = json_array();
    for (int i = 0; i < p->nmetrics; i++) {
        const ari_profile_metric_info *m = &p->metrics[i];
        json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:b, s:o, s:b, s:s}", "id", m->id, "name",
            m->name, "unit", m->unit, "inclusive", m->inclusive, "partner",
            m->partner < 0 ? json_null() : json_integer(m->partner), "derived", m->derived, "source", m->source));
    }
    return list;
}

static json_t *node_json(const ari_profile_node_row *n)
{
    return json_pack("{s:I, s:o, s:s, s:s, s:s, s:i, s:s, s:i, s:{}}", "id", (json_int_t)n->id,
                     "parent", n->parent < 0 ? json_null() : json_integer(n->parent), "name", n->name,
                     "module", n->module, "file", n->file, "line", n->line, "kind", n->kind, "depth", n->depth,
                     "metrics");
}

/* The shown nodes, each with the summaries of its metrics. */
static json_t *tree_json(const ari_profile_summary *p, const ari_cct_view *v)
{
    json_t *tree = json_array();
    json_t **by_node = calloc(p->nnodes ? (size_t)p->nnodes : 1, sizeof *by_node);
    if (!tree || !by_node) {
        free(by_node);
        json_decref(tree);
        return NULL;
    }
    for (int64_t i = 0; i < p->nnodes; i++) {
        int64_t id = p->nodes[i].id;
        if (id < 0 || id >= p->nnodes || !v->show[id])
            continue;
        by_node[id] = node_json(&p->nodes[i]);
        json_array_append_new(tree, by_node[id]);
    }
    for (size_t k = 0; k < p->nstats; k++) {
        const ari_profile_stat_row *s = &p->stats[k];
        const ari_profile_metric_info *m = ari_profile_summary_metric(p, s->metric);
        if (s->node < 0 || s->node >= p->nnodes || !by_node[s->node] || !m)
            continue;
        json_object_set_new(json_object_get(by_node[s->node], "metrics"), m->name,
                            json_pack("{s:o, s:o, s:o}", "mean", nan_null(s->mean), "min", nan_null(s->min),
                                      "max", nan_null(s->max)));
    }
    free(by_node);
    return tree;
}

static json_t *cct_json(int64_t id, const ari_profile_summary *p, const ari_cct_view *v, double filter,
                        int64_t depth)
{
    json_t *tree = tree_json(p, v);
    if (!tree)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:I, s:o, s:s, s:f, s:o, s:o, s:o}", "trace_id", (json_int_t)id,
        "nodes", (json_int_t)p->nnodes, "shown", (json_int_t)v->shown, "processes", (json_int_t)p->nprocs,
        "metrics", metrics_json(p), "inclusive_metric", ari_profile_summary_metric(p, p->inclusive)->name,
        "root_inclusive", v->root_total, "filter", filter > 0 ? json_real(filter) : json_null(),
        "depth", depth >= 0 ? json_integer(depth) : json_null(), "tree", tree);
}

/* The depth of every node, for the view. */
static int *node_depths(const ari_profile_summary *p)
{
    int *depth = malloc((p->nnodes ? (size_t)p->nnodes : 1) * sizeof *depth);
    for (int64_t i = 0; depth && i < p->nnodes; i++)
        depth[i] = p->nodes[i].depth;
    return depth;
}

static int64_t *node_parents(const ari_profile_summary *p)
{
    int64_t *parent = malloc((p->nnodes ? (size_t)p->nnodes : 1) * sizeof *parent);
    for (int64_t i = 0; parent && i < p->nnodes; i++)
        parent[i] = p->nodes[i].parent;
    return parent;
}

/* A number in [min, max]; 400 with this endpoint's wording otherwise. */
static int param_fraction(ari_request *r, const char *name, double def, double min, double max, double *out)
{
    if (ari_param_number_checked(r, name, def, min, max, 0, out) == 0)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in [%g, %g]", name, min, max);
    return -1;
}

enum MHD_Result api_profiles_cct(ari_request *r)
{
    int64_t id, depth;
    double filter;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "depth", -1, -1, 1 << 30, &depth) < 0 ||
        param_fraction(r, "filter", 0, 0, 1, &filter) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_profile_summary p;
    int rc = ari_profile_summary_load(r->db, id, ari_param(r, "metric"), &p, &err);
    if (rc != 0)
        return reply_error(r, rc, &err);
    int64_t *parent = node_parents(&p);
    int *depths = node_depths(&p);
    ari_cct_view v = {0};
    json_t *doc = NULL;
    if (!parent || !depths)
        ari_error_set(&err, ARI_E_NOMEM, "out of memory");
    else if (ari_cct_view_compute(p.nnodes, parent, depths, p.incmean, filter, (int)depth, &v, &err) == 0)
        doc = cct_json(id, &p, &v, filter, depth);
    free(parent);
    free(depths);
    ari_cct_view_free(&v);
    ari_profile_summary_free(&p);
    return err.code[0] ? ari_reply_from_error(r, &err) : ari_reply_doc(r, doc, 15);
}

/* ---- /nodes/{node}/ranks and /scatter ---- */

static json_t *node_info_json(const ari_profile_node_info *n)
{
    if (!n->found)
        return json_null();
    return json_pack("{s:I, s:s, s:s, s:s, s:i, s:s}", "id", (json_int_t)n->row.id, "name", n->row.name,
                     "module", n->row.module, "file", n->row.file, "line", n->row.line, "kind", n->row.kind);
}

static json_t *histogram_json(const ari_profile_node_values *v, const ari_rank_histogram *h)
{
    json_t *hist = json_array();
    for (int b = 0; b < h->bins; b++) {
        json_t *members = json_array();
        for (int64_t k = h->offset[b]; k < h->offset[b + 1]; k++)
            json_array_append_new(members, json_integer(v->rank[h->member[k]]));
        json_array_append_new(hist, json_pack("{s:o, s:o, s:I, s:o}", "lo", real_or_null(h->lo[b]), "hi",
                                              real_or_null(h->hi[b]), "count", (json_int_t)h->counts[b],
                                              "ranks", members));
    }
    return hist;
}

static json_t *node_ranks_json(int64_t id, const ari_profile_node_values *v, const ari_rank_histogram *h)
{
    json_t *ranks = json_array();
    for (int64_t k = 0; k < v->nprocs; k++)
        json_array_append_new(ranks, json_pack("{s:i, s:i, s:o}", "rank", v->rank[k], "thread", v->thread[k],
                                               "value", real_or_null(v->values[k])));
    return json_pack("{s:I, s:o, s:s, s:I, s:{s:I, s:o, s:o, s:o, s:o, s:o, s:o}, s:i, s:o, s:o}",
        "trace_id", (json_int_t)id, "node", node_info_json(&v->node), "metric", v->metric,
        "processes", (json_int_t)v->nprocs, "stats", "count", (json_int_t)h->count, "min", real_or_null(h->min),
        "max", real_or_null(h->max), "mean", real_or_null(h->mean), "sum", real_or_null(h->sum),
        "stddev", real_or_null(h->stddev), "imbalance", real_or_null(h->imbalance),
        "bins", h->bins, "histogram", histogram_json(v, h), "ranks", ranks);
}

/* Path parameter 1: a node id (0, 1, ...); 400 otherwise. */
static int path_node(ari_request *r, int64_t *node)
{
    if (r->nparams > 1 && ari_parse_int64(r->params[1], node) == 0 && *node >= 0)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "node must be a node id (0, 1, ...)");
    return -1;
}

enum MHD_Result api_profiles_node_ranks(ari_request *r)
{
    int64_t id, bins, node;
    if (ari_path_id(r, 0, &id) < 0 || path_node(r, &node) < 0 || ari_param_int(r, "bins", 20, 1, 1000, &bins) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_profile_node_values v;
    int rc = ari_profile_node_values_load(r->db, id, node, ari_param(r, "metric"), &v, &err);
    if (rc != 0)
        return reply_error(r, rc, &err);
    ari_rank_histogram h;
    json_t *doc = NULL;
    if (ari_rank_histogram_compute(v.values, v.nprocs, (int)bins, &h, &err) == 0)
        doc = node_ranks_json(id, &v, &h);
    ari_rank_histogram_free(&h);
    ari_profile_node_values_free(&v);
    return err.code[0] ? ari_reply_from_error(r, &err) : ari_reply_doc(r, doc, 15);
}

static json_t *scatter_json(int64_t id, const ari_profile_node_values *v, const ari_fit *fit)
{
    json_t *points = json_array();
    for (int64_t k = 0; k < v->nprocs; k++)
        if (!isnan(v->values[k]) && !isnan(v->y[k]))
            json_array_append_new(points, json_pack("{s:i, s:i, s:f, s:f}", "rank", v->rank[k], "thread",
                                                    v->thread[k], "x", v->values[k], "y", v->y[k]));
    return json_pack("{s:I, s:o, s:s, s:s, s:I, s:o, s:{s:o, s:o, s:o, s:o}}", "trace_id", (json_int_t)id,
        "node", node_info_json(&v->node), "x", v->metric, "y", v->metric_y, "n", (json_int_t)fit->n,
        "points", points, "fit", "slope", real_or_null(fit->slope), "intercept", real_or_null(fit->intercept),
        "r", real_or_null(fit->r), "r2", real_or_null(fit->r2));
}

enum MHD_Result api_profiles_scatter(ari_request *r)
{
    int64_t id, node;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "node", -1, -1, INT64_MAX, &node) < 0)
        return MHD_YES;
    const char *x = ari_param(r, "x"), *y = ari_param(r, "y");
    if (!x || !*x || !y || !*y)
        return ari_reply_error(r, 400, "invalid_parameter", "x and y (metric names) are required");
    ari_error err = {0};
    ari_profile_node_values v;
    int rc = ari_profile_scatter_load(r->db, id, node, x, y, &v, &err);
    if (rc != 0)
        return reply_error(r, rc, &err);
    ari_fit fit;
    ari_least_squares(v.values, v.y, v.nprocs, &fit);
    json_t *doc = scatter_json(id, &v, &fit);
    ari_profile_node_values_free(&v);
    return ari_reply_doc(r, doc, 15);
}

static const char *const tree_formats[] = {"text", "json", NULL};

enum MHD_Result api_profiles_tree(ari_request *r)
{
    int64_t id, precision, rank, thread;
    const char *format;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "precision", 3, 0, 17, &precision) < 0 ||
        ari_param_int(r, "rank", 0, 0, INT64_MAX, &rank) < 0 ||
        ari_param_int(r, "thread", 0, 0, INT64_MAX, &thread) < 0 ||
        ari_param_choice(r, "format", tree_formats, &format) < 0)
        return MHD_YES;
    char *text = NULL;
    ari_error err = {0};
    ari_profile_tree_rows rows;
    int rc = ari_profile_tree_rows_load(r->db, id, ari_param(r, "metric"), rank, thread, &rows, &err);
    if (rc != 0)
        return reply_error(r, rc, &err);
    rc = ari_profile_tree_text(&rows, (int)precision, &text, &err);
    ari_profile_tree_rows_free(&rows);
    if (rc != 0)
        return reply_error(r, rc, &err);
    if (format && strcmp(format, "json") == 0) {
        json_t *doc = json_pack("{s:I, s:s?, s:I, s:I, s:I, s:s}", "trace_id", (json_int_t)id,
                                "metric", ari_param(r, "metric"), "precision", (json_int_t)precision,
                                "rank", (json_int_t)rank, "thread", (json_int_t)thread, "text", text);
        free(text);
        return ari_reply_json(r, 200, doc);
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return ari_reply_error(r, 500, "internal", "out of memory");
    }
    MHD_add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return ari_queue(r, 200, resp);
}
