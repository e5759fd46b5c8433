/* api_supergraph.c: GET /api/v1/traces/{id}/supergraph, CallFlow's super
 * graph of a profile (src/analysis/supergraph.h): parameters, the JSON of
 * the graph, and with ranks= the two graphs of a rank brush and their
 * difference. Whole results are cached in the database (analysis_cache),
 * keyed by the canonical parameters. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "handlers.h"
#include "module_map_json.h"
#include "params.h"
#include "reply.h"
#include "store/analysis_cache.h"
#include "store/profile_queries.h"
#include "store/supergraph_queries.h"
#include "supergraph_params.h"

#define MAX_LIST 50   /* entry functions and callers listed per node */
/* PostgreSQL sums the per-process values from this many (nodes x
 * processes) on: below, loading them is 15 to 20 times faster (0.5 s
 * against 9.5 s at 4,000 nodes x 250 processes, a loaded machine) and
 * holds about 95 bytes per value, so a request stays under about 400 MB. */
#define SQL_MIN_VALUES 4000000

/* Marks the processes whose rank is in [lo, hi]; 0 if there is one. */
static int mark_ranks(const ari_cct *c, int64_t lo, int64_t hi, unsigned char *mask)
{
    int found = 0;
    for (int p = 0; p < c->nprocs; p++) {
        if (c->proc_rank[p] >= lo && c->proc_rank[p] <= hi) {
            mask[p] = 1;
            found = 1;
        }
    }
    return found ? 0 : -1;
}

/* "0-3,7" (a range list, params.h) -> proc mask over the CCT's processes
 * (by rank); the selection must leave some processes out. */
static int parse_ranks(ari_request *r, const char *text, const ari_cct *c, unsigned char *mask,
                       int *nsel)
{
    ari_int_range *ranges;
    size_t n;
    ari_list_status st = ari_parse_range_list(text, SIZE_MAX, &ranges, &n);
    if (st == ARI_LIST_NOMEM) {
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
        return -1;
    }
    if (st != ARI_LIST_OK) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "ranks must be a list of ranks and ranges, e.g. 0-3,7 (got '%.64s')", text);
        return -1;
    }
    memset(mask, 0, (size_t)c->nprocs);
    for (size_t i = 0; i < n; i++) {
        long lo = (long)ranges[i].lo, hi = (long)ranges[i].hi;
        if (mark_ranks(c, lo, hi, mask) < 0) {
            free(ranges);
            ari_reply_error(r, 400, "invalid_parameter", "ranks: no process has rank %ld%s%.0ld", lo,
                            hi != lo ? " to " : "", hi != lo ? hi : 0);
            return -1;
        }
    }
    free(ranges);
    *nsel = 0;
    for (int p = 0; p < c->nprocs; p++)
        *nsel += mask[p];
    if (*nsel == c->nprocs) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "ranks: the selection must leave some ranks out (it is compared with the rest)");
        return -1;
    }
    return 0;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *histogram_json(const ari_sg_view *v, int64_t j)
{
    json_t *counts = json_array();
    for (int k = 0; k < v->nbins; k++)
        json_array_append_new(counts, json_integer(v->hist[j * v->nbins + k]));
    return json_pack("{s:o, s:o, s:o}", "min", num(v->hist_min[j]), "max", num(v->hist_max[j]),
                     "counts", counts);
}

static json_t *entries_json(const ari_sg_node *n)
{
    json_t *a = json_array();
    for (int64_t k = 0; k < n->nentries && k < MAX_LIST; k++) {
        const ari_sg_entry *e = &n->entries[k];
        json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:I}", "name", e->name, "inclusive",
                                           num(e->inc), "exclusive", num(e->exc), "count",
                                           (json_int_t)e->count));
    }
    return a;
}

static json_t *callers_json(const ari_supergraph *g, const ari_sg_node *n)
{
    json_t *a = json_array();
    for (int64_t k = 0; k < n->ncallers && k < MAX_LIST; k++) {
        const ari_sg_caller *c = &n->callers[k];
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o}", "node", g->nodes[c->node].id,
                                           "node_name", g->nodes[c->node].label, "function",
                                           c->function, "entry", c->entry, "inclusive", num(c->inc)));
    }
    return a;
}

static json_t *edges_json(const ari_supergraph *g, const ari_sg_view *v)
{
    json_t *a = json_array();
    for (int64_t e = 0; e < g->nedges; e++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "source", g->nodes[g->edges[e].source].id,
                                           "target", g->nodes[g->edges[e].target].id, "weight",
                                           num(v->weight[e])));
    return a;
}

static json_t *nodes_json(const ari_supergraph *g, const ari_sg_view *v)
{
    json_t *a = json_array();
    for (int64_t j = 0; j < g->nnodes; j++) {
        const ari_sg_node *n = &g->nodes[j];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:o, s:o, s:o, s:o}", "id", n->id,
                              "name", n->label, "module", n->module, "kind", ari_sg_kind_name(n->kind),
                              "level", n->level, "functions", (json_int_t)n->nfunctions,
                              "inclusive", num(v->inc[j]), "exclusive", num(v->exc[j]),
                              "filtered", num(v->filtered[j]), "histogram", histogram_json(v, j));
        json_object_set_new(o, "root_inflow", num(v->root_inflow[j]));
        json_object_set_new(o, "entry_functions", entries_json(n));
        json_object_set_new(o, "entry_function_count", json_integer(n->nentries));
        json_object_set_new(o, "callers", callers_json(g, n));
        json_object_set_new(o, "caller_count", json_integer(n->ncallers));
        json_array_append_new(a, o);
    }
    return a;
}

/* The values-only graph of one side of a brush. */
static json_t *side_json(const ari_supergraph *g, const ari_sg_view *v)
{
    json_t *nodes = json_array();
    for (int64_t j = 0; j < g->nnodes; j++)
        json_array_append_new(nodes, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "id", g->nodes[j].id,
                                               "inclusive", num(v->inc[j]), "exclusive", num(v->exc[j]),
                                               "filtered", num(v->filtered[j]), "root_inflow",
                                               num(v->root_inflow[j]), "histogram", histogram_json(v, j)));
    return json_pack("{s:i, s:o, s:o}", "processes", v->nselected, "nodes", nodes, "edges",
                     edges_json(g, v));
}

static json_t *brush_json(const ari_supergraph *g, const ari_sg_view *sel, const ari_sg_view *rest,
                          const ari_cct *c, const unsigned char *mask)
{
    json_t *ranks = json_array();
    for (int p = 0; p < c->nprocs; p++) {
        if (mask[p] && (p == 0 || !mask[p - 1] || c->proc_rank[p] != c->proc_rank[p - 1]))
            json_array_append_new(ranks, json_integer(c->proc_rank[p]));
    }
    json_t *diff = json_array();
    double m = 0;
    for (int64_t j = 0; j < g->nnodes; j++) {
        double dx = sel->exc[j] - rest->exc[j], di = sel->inc[j] - rest->inc[j];
        m = fabs(dx) > m ? fabs(dx) : m;
        json_array_append_new(diff, json_pack("{s:s, s:o, s:o}", "id", g->nodes[j].id, "exclusive",
                                              num(dx), "inclusive", num(di)));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:[f,f], s:s}", "ranks", ranks, "selected",
                     side_json(g, sel), "rest", side_json(g, rest), "difference", diff, "domain", -m,
                     m, "sign", "selected - rest");
}

/* detail=<id>: one supernode's per-process values, for the histogram
 * view's bins and brushing. */
static json_t *detail_json(ari_request *r, const ari_supergraph *g, const ari_cct *c, const char *id,
                           int *failed)
{
    int64_t j = ari_supergraph_find(g, id);
    if (j < 0) {
        ari_reply_error(r, 400, "invalid_parameter", "detail: no supernode '%.200s' in this super graph", id);
        *failed = 1;
        return NULL;
    }
    json_t *procs = json_array();
    for (int p = 0; p < g->nprocs; p++)
        json_array_append_new(procs, json_pack("{s:i, s:i, s:o, s:o}", "rank", c->proc_rank[p], "thread",
                                               c->proc_thread ? c->proc_thread[p] : 0, "inclusive",
                                               num(g->inc[j * g->nprocs + p]), "exclusive",
                                               num(g->exc[j * g->nprocs + p])));
    return json_pack("{s:s, s:o}", "id", id, "processes", procs);
}

static json_t *metric_json(const ari_cct *c, const ari_cct_times *t, int m)
{
    const ari_cct_metric *mt = &c->metrics[m];
    return json_pack("{s:s, s:s?, s:s?, s:s}", "name", mt->name ? mt->name : "", "inclusive",
                     t->inc_metric >= 0 ? c->metrics[t->inc_metric].name : NULL, "exclusive",
                     t->exc_metric >= 0 ? c->metrics[t->exc_metric].name : NULL, "unit",
                     mt->unit ? mt->unit : "");
}

static json_t *splits_json(const sg_request *q)
{
    json_t *a = json_array();
    for (int i = 0; i < q->nsplits; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "id", q->splits[i].id, "by",
                                           sg_split_by_name(q->splits[i].by)));
    return a;
}

static json_t *metrics_list(const ari_cct *c)
{
    json_t *a = json_array();
    for (int m = 0; m < c->nmetrics; m++)
        json_array_append_new(a, json_pack("{s:s, s:b}", "name", c->metrics[m].name ? c->metrics[m].name : "",
                                           "inclusive", c->metrics[m].inclusive));
    return a;
}

/* ---- the computation ------------------------------------------------------------------ */

typedef struct sg_state {
    ari_cct cct;
    int have_cct;
    int in_sql;            /* PostgreSQL sums per process (supergraph_queries.h) */
    double *vinc, *vexc;   /* then: each node's collapsed values */
    ari_cct_times t;
    ari_module_map *map;
    unsigned char *keep;
    unsigned char *mask;
    ari_supergraph g;
    ari_sg_view all, sel, rest;
} sg_state;

static void state_free(sg_state *s)
{
    ari_sg_view_free(&s->all);
    ari_sg_view_free(&s->sel);
    ari_sg_view_free(&s->rest);
    ari_supergraph_free(&s->g);
    free(s->keep);
    free(s->mask);
    free(s->vinc);
    free(s->vexc);
    ari_module_map_free(s->map);
    ari_cct_times_free(&s->t);
    if (s->have_cct)
        ari_cct_free(&s->cct);
}

/* The profile: on PostgreSQL, for a profile of SQL_MIN_VALUES values
 * (nodes x processes) or more, its tree without the per-process values,
 * which the super graph then sums in SQL (supergraph_queries.h); else
 * (SQLite, smaller profiles, or a variant of the metric derived per
 * process at query time) every value. *metric: the metric's index, -1
 * when unknown. */
static int load(ari_request *r, int64_t id, const sg_request *q, sg_state *s, int *metric, ari_error *err)
{
    int64_t nnodes = 0, nprocs = 0;
    ari_error ignored = {0}; /* the load below says what is wrong */
    s->in_sql = ari_store_is_pg(r->db) && ari_profile_size(r->db, id, &nnodes, &nprocs, &ignored) == 0 &&
                nnodes * nprocs >= SQL_MIN_VALUES;
    int rc = s->in_sql ? ari_profile_load_summary(r->db, id, &s->cct, err) : ari_profile_load(r->db, id, &s->cct, err);
    if (rc != 0)
        return rc;
    s->have_cct = 1;
    *metric = ari_cct_metric_find(&s->cct, q->metric);
    if (*metric < 0 || !s->in_sql || ari_sgq_times(&s->cct, *metric, &s->t) == 0)
        return 0;
    /* a variant of the metric derived per process: every value */
    ari_cct_free(&s->cct);
    s->have_cct = s->in_sql = 0;
    if ((rc = ari_profile_load(r->db, id, &s->cct, err)) != 0)
        return rc;
    s->have_cct = 1;
    *metric = ari_cct_metric_find(&s->cct, q->metric);
    return 0;
}

/* The filter's keep mask and the graph with its per-process values. */
static int build_graph(ari_request *r, int64_t id, const sg_request *q, sg_state *s, int64_t *kept, ari_error *err)
{
    const ari_cct *c = &s->cct;
    ari_cct_filter f = {q->filter_percent / 100.0, q->filter_exclusive, q->collapse};
    ari_sg_params p = {q->group_by, s->map, q->splits, q->nsplits, q->collapse};
    if (!s->in_sql)
        return ari_cct_filter_mask(c, &s->t, &f, s->keep, kept, err) < 0 ||
                       ari_supergraph_build(c, &s->t, s->keep, &p, &s->g, err) < 0
                   ? -1
                   : 0;
    s->vinc = malloc(((size_t)c->nnodes + 1) * sizeof *s->vinc);
    s->vexc = malloc(((size_t)c->nnodes + 1) * sizeof *s->vexc);
    if (!s->vinc || !s->vexc)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (ari_sgq_collapse(r->db, id, c, &s->t, q->collapse, s->vinc, s->vexc, err) < 0 ||
        ari_cct_filter_mask_collapsed(c, s->vinc, s->vexc, &f, s->keep, kept, err) < 0 ||
        ari_supergraph_build_collapsed(c, s->vinc, s->vexc, s->keep, &p, &s->g, err) < 0)
        return -1;
    return ari_sgq_fill(r->db, id, s->t.inc_metric, &s->g, err);
}

static enum MHD_Result compute(ari_request *r, int64_t id, sg_request *q, sg_state *s, json_t **out)
{
    ari_error err = {0};
    int m = -1;
    int rc = load(r, id, q, s, &m, &err);
    if (rc == 2)
        return ari_reply_error(r, 409, "not_a_profile", "%s", err.message);
    if (rc != 0)
        return ari_reply_lookup_failed(r, rc, &err, "trace", id);
    const ari_cct *c = &s->cct;
    if (m < 0)
        return ari_reply_error(r, 400, "invalid_parameter", "metric: this profile has no metric '%.100s'",
                               q->metric ? q->metric : "");
    if (q->map_text && !(s->map = ari_module_map_from_json(q->map_text, &err)))
        return ari_reply_from_error(r, &err);
    if (!s->in_sql && ari_cct_times_init(&s->t, c, m, &err) < 0)
        return ari_reply_from_error(r, &err);
    s->keep = malloc((size_t)c->nnodes + 1);
    s->mask = malloc((size_t)c->nprocs + 1);
    if (!s->keep || !s->mask)
        return ari_reply_error(r, 500, "out_of_memory", "out of memory");
    int nsel = 0;
    if (q->ranks_text && parse_ranks(r, q->ranks_text, c, s->mask, &nsel) < 0)
        return MHD_YES;
    int64_t kept = 0;
    if (build_graph(r, id, q, s, &kept, &err) < 0 ||
        ari_sg_view_compute(&s->g, NULL, q->collapse, q->bins, &s->all, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *brush = json_null();
    if (q->ranks_text) {
        if (ari_sg_view_compute(&s->g, s->mask, q->collapse, q->bins, &s->sel, &err) < 0)
            return ari_reply_from_error(r, &err);
        for (int i = 0; i < c->nprocs; i++)
            s->mask[i] = !s->mask[i];
        if (ari_sg_view_compute(&s->g, s->mask, q->collapse, q->bins, &s->rest, &err) < 0)
            return ari_reply_from_error(r, &err);
        for (int i = 0; i < c->nprocs; i++)
            s->mask[i] = !s->mask[i];
        brush = brush_json(&s->g, &s->sel, &s->rest, c, s->mask);
    }
    json_t *detail = json_null();
    if (q->detail) {
        int failed = 0;
        detail = detail_json(r, &s->g, c, q->detail, &failed);
        if (failed) {
            json_decref(brush);
            return MHD_YES;
        }
    }
    double root = 0;
    for (int64_t j = 0; j < s->g.nnodes; j++)
        root += s->g.nodes[j].level == 0 ? s->all.inc[j] : 0;
    int nranks = 0;
    for (int i = 0; i < c->nprocs; i++)
        nranks += i == 0 || c->proc_rank[i] != c->proc_rank[i - 1];
    *out = json_pack("{s:I, s:o, s:o, s:s, s:s, s:{s:f, s:s, s:I, s:I}, s:o, s:i, s:i, s:i, s:f,"
                     " s:o, s:o, s:i, s:I, s:o, s:o}",
                     "trace_id", (json_int_t)id, "metric", metric_json(c, &s->t, m), "metrics",
                     metrics_list(c), "group_by", q->group_by_name, "collapse",
                     ari_collapse_name(q->collapse), "filter", "percent", q->filter_percent, "by",
                     q->filter_exclusive ? "exc" : "inc", "kept", (json_int_t)kept, "total",
                     (json_int_t)c->nnodes, "splits", splits_json(q), "processes", c->nprocs, "ranks",
                     nranks, "bins", q->bins, "root_inclusive", root, "nodes", nodes_json(&s->g, &s->all),
                     "edges", edges_json(&s->g, &s->all), "duplicates", s->g.duplicates, "dropped_edges",
                     (json_int_t)s->g.dropped_edges, "brush", brush, "detail", detail);
    if (!*out)
        return ari_reply_error(r, 500, "internal_error", "could not build the response");
    return MHD_YES;
}

/* The canonical parameters: the cache key. */
static char *cache_key(const sg_request *q)
{
    json_t *o = json_pack("{s:s, s:s?, s:s?, s:f, s:b, s:s, s:i, s:o, s:s?, s:s?}", "metric",
                          q->metric ? q->metric : "", "group_by", q->group_by_name, "map", q->map_text,
                          "filter", q->filter_percent, "filter_exc", q->filter_exclusive, "collapse",
                          ari_collapse_name(q->collapse), "bins", q->bins, "split", splits_json(q),
                          "ranks", q->ranks_text, "detail", q->detail);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return s;
}

enum MHD_Result api_supergraph(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    sg_request q;
    if (sg_request_parse(r, &q) < 0) {
        sg_request_free(&q);
        return MHD_YES;
    }
    char *key = cache_key(&q);
    char *cached = NULL;
    ari_error err = {0};
    if (key && ari_cache_get(r->db, id, "supergraph", key, &cached, &err) == 0) {
        enum MHD_Result res = ari_reply_text_json(r, 200, cached);
        free(cached);
        free(key);
        sg_request_free(&q);
        return res;
    }
    sg_state s;
    memset(&s, 0, sizeof s);
    json_t *out = NULL;
    enum MHD_Result res = compute(r, id, &q, &s, &out);
    state_free(&s);
    if (out) {
        char *text = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(12));
        json_decref(out);
        if (text && key)
            ari_cache_put(r->db, id, "supergraph", key, text);
        res = text ? ari_reply_text_json(r, 200, text)
                   : ari_reply_error(r, 500, "out_of_memory", "out of memory");
        free(text);
    }
    free(key);
    sg_request_free(&q);
    return res;
}
