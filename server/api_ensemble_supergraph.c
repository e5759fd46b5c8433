/* api_ensemble_supergraph.c: GET /api/v1/ensembles/{id}/supergraph, the
 * ensemble super graph (spec_callflow.md 2.7-2.9, 3.3 item 1): the
 * parameters of the single-run super graph (supergraph_params.h) plus
 * runs= and target=; per node the values of every member (null when
 * absent), min/max/mean across members, the gradient histograms of inc and
 * exc over members with run -> bin and bin -> runs, and the target's
 * values; per edge the ensemble weight (max across members, Figure 4.2),
 * min, mean, per-member weights and the target's weight. The computation
 * is analysis/ensemble_supergraph.c; loading is ensemble_ctx.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

static json_t *node_json(const esg_ctx *c, int64_t j, int target)
{
    const ari_sg_node *n = &c->s.g.nodes[j];
    int nm = c->s.nmembers, nb = c->q.bins;
    const double *inc = c->s.inc + j * nm, *exc = c->s.exc + j * nm;
    char key[17];
    esg_node_key(n->id, key);
    json_t *presence = json_array();
    for (int m = 0; m < nm; m++)
        json_array_append_new(presence, json_boolean(!isnan(inc[m])));
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o, s:o, s:o}", "id", n->id, "key", key,
                          "name", n->label, "module", n->module, "kind", ari_sg_kind_name(n->kind), "level",
                          n->level, "functions", (json_int_t)n->nfunctions, "presence", presence, "inclusive",
                          esg_stat_json(inc, nm), "exclusive", esg_stat_json(exc, nm));
    /* spec 3.3's names: inc_max (bar height), exc_max (border colour) */
    json_object_set_new(o, "inc_max", json_incref(json_object_get(json_object_get(o, "inclusive"), "max")));
    json_object_set_new(o, "exc_max", json_incref(json_object_get(json_object_get(o, "exclusive"), "max")));
    json_object_set_new(o, "gradient",
                        json_pack("{s:o?, s:o?}", "inclusive", esg_gradient_json(c, inc, nb), "exclusive",
                                  esg_gradient_json(c, exc, nb)));
    json_object_set_new(o, "target",
                        target < 0 ? json_null()
                                   : json_pack("{s:o, s:o}", "inclusive", ens_num(inc[target]), "exclusive",
                                               ens_num(exc[target])));
    return o;
}

static json_t *edge_json(const esg_ctx *c, int64_t x, int target)
{
    const ari_supergraph *g = &c->s.g;
    int nm = c->s.nmembers;
    const double *w = c->s.weight + x * nm;
    ari_esg_range r;
    ari_esg_range_of(w, nm, 1, &r);
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:i, s:o, s:o}", "source", g->nodes[g->edges[x].source].id,
                     "target", g->nodes[g->edges[x].target].id, "weight", ens_num(r.max), "weight_min",
                     ens_num(r.min), "weight_mean", ens_num(r.mean), "present", r.npresent, "runs",
                     esg_values_json(w, nm), "target_weight", target < 0 ? json_null() : ens_num(w[target]));
}

static json_t *graph_json(const esg_ctx *c, int target)
{
    const ari_esg *s = &c->s;
    json_t *nodes = json_array(), *edges = json_array();
    for (int64_t j = 0; j < s->g.nnodes; j++)
        json_array_append_new(nodes, node_json(c, j, target));
    for (int64_t x = 0; x < s->g.nedges; x++)
        json_array_append_new(edges, edge_json(c, x, target));
    int64_t nv = s->g.nnodes * s->nmembers;
    return json_pack(
        "{s:I, s:o, s:s, s:s, s:s, s:{s:f, s:s, s:I, s:I}, s:o, s:o, s:o, s:i,"
        " s:{s:i, s:{s:o, s:o}}, s:i}",
        "ensemble_id", (json_int_t)c->e.id, "runs", ens_runs_json(&c->e), "metric", c->e.ecct.metrics[c->metric].name,
        "group_by", c->q.group_by_name, "collapse", ari_collapse_name(c->q.collapse), "filter", "percent",
        c->q.filter_percent, "by", c->q.filter_exclusive ? "exc" : "inc", "kept", (json_int_t)s->kept,
        "total", (json_int_t)c->e.ecct.nnodes, "target",
        target < 0 ? json_null() : json_integer(esg_ctx_trace(c, target)), "nodes", nodes, "edges", edges,
        "bins", c->q.bins, "meta", "bins", c->q.bins, "domain", "inclusive", esg_domain_json(s->inc, nv),
        "exclusive", esg_domain_json(s->exc, nv), "duplicates", s->g.duplicates);
}

enum MHD_Result api_ensemble_supergraph(ari_request *r)
{
    esg_ctx c;
    if (esg_ctx_open(r, &c) < 0) {
        esg_ctx_free(&c);
        return MHD_YES;
    }
    int target = esg_ctx_member_param(r, &c, "target");
    enum MHD_Result res = MHD_YES;
    if (target != -1)
        res = ari_reply_doc(r, graph_json(&c, target), 17);
    esg_ctx_free(&c);
    return res;
}
