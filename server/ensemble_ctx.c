/* ensemble_ctx.c: one request's ensemble super graph (ensemble_ctx.h). */
#include "ensemble_ctx.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_map_json.h"
#include "params.h"
#include "reply.h"

void esg_ctx_free(esg_ctx *c)
{
    ari_esg_free(&c->s);
    ari_module_map_free(c->map);
    ens_ctx_free(&c->e);
    sg_request_free(&c->q);
    memset(c, 0, sizeof *c);
}

/* metric=: a unified metric name; default ens_default_metric. -1 (400
 * answered) when unknown or when there is no metric. */
static int pick_metric(ari_request *r, esg_ctx *c)
{
    const ari_ecct *e = &c->e.ecct;
    const char *name = c->q.metric;
    int k = name ? ari_ecct_metric_index(e, name) : ens_default_metric(e);
    if (k < 0) {
        char safe[ARI_PRINTABLE_SIZE];
        ari_reply_error(r, 400, "invalid_parameter", "metric '%s' is not a metric of the selected members",
                        ari_printable(name ? name : "", safe));
    }
    c->metric = k;
    return k;
}

/* The stand-in per member (ensemble_supergraph.h) suffices for collapses
 * that are linear in the processes' values. */
static int linear_collapse(ari_collapse how)
{
    return how == ARI_COLLAPSE_MEAN || how == ARI_COLLAPSE_SUM;
}

/* ranks= and detail= belong to a single profile's super graph (a rank
 * brush, one node's processes): say where their ensemble counterparts are
 * rather than ignore them. -1 when answered. */
static int refuse_single_run_params(ari_request *r, const sg_request *q)
{
    if (q->ranks_text) {
        ari_reply_error(r, 400, "invalid_parameter",
                               "ranks= brushes the ranks of one profile; for an ensemble, open a member's "
                               "/traces/{id}/supergraph?ranks=, or read every rank of a node with "
                               "nodes/{node}/histogram?mode=rank");
        return -1;
    }
    if (q->detail) {
        ari_reply_error(r, 400, "invalid_parameter",
                               "detail= is a single-profile parameter; for an ensemble, a node's per-rank "
                               "values are nodes/{node}/histogram?mode=rank and nodes/{node}/boxplots");
        return -1;
    }
    return 0;
}

int esg_ctx_open_with(ari_request *r, esg_ctx *c, int per_rank)
{
    memset(c, 0, sizeof *c);
    if (ari_path_id(r, 0, &c->e.id) < 0 || sg_request_parse(r, &c->q) < 0 ||
        refuse_single_run_params(r, &c->q) < 0)
        return -1;
    per_rank |= !linear_collapse(c->q.collapse);
    c->e.full = per_rank;
    if (ens_ctx_load(r, &c->e) < 0 || pick_metric(r, c) < 0)
        return -1;
    ari_error err = {0};
    int rc = 0;
    if (c->q.map_text && !(c->map = ari_module_map_from_json(c->q.map_text, &err)))
        rc = -1;
    ari_esg_params p = {.metric = c->metric,
                        .per_rank = per_rank,
                        .filter = {c->q.filter_percent / 100.0, c->q.filter_exclusive, c->q.collapse},
                        .sg = {c->q.group_by, c->map, c->q.splits, c->q.nsplits, c->q.collapse}};
    if (rc == 0 && ari_esg_build(&c->e.ecct, &p, &c->s, &err) < 0)
        rc = -1;
    if (rc == 0)
        return 0;
    ari_reply_from_error(r, &err);
    return -1;
}

int esg_ctx_open(ari_request *r, esg_ctx *c)
{
    return esg_ctx_open_with(r, c, 0);
}

int64_t esg_ctx_trace(const esg_ctx *c, int m)
{
    return ens_ctx_run(&c->e, m)->trace_id;
}

int esg_ctx_member_param(ari_request *r, const esg_ctx *c, const char *name)
{
    const char *s = ari_param(r, name);
    if (!s || !*s)
        return -2;
    int64_t id;
    if (ari_parse_int64(s, &id) == 0)
        for (int m = 0; m < c->e.prof.n; m++)
            if (esg_ctx_trace(c, m) == id)
                return m;
    char safe[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 400, "invalid_parameter", "%s: '%s' is not the trace id of a selected member", name,
                    ari_printable(s, safe));
    return -1;
}

void esg_node_key(const char *id, char out[17])
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

int64_t esg_ctx_path_node(ari_request *r, const esg_ctx *c)
{
    const char *want = r->nparams > 1 ? r->params[1] : "";
    for (int64_t j = 0; j < c->s.g.nnodes; j++) {
        char key[17];
        esg_node_key(c->s.g.nodes[j].id, key);
        if (strcmp(key, want) == 0 || strcmp(c->s.g.nodes[j].id, want) == 0)
            return j;
    }
    char safe[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 404, "not_found", "no supernode '%s' in this ensemble super graph",
                    ari_printable(want, safe));
    return -1;
}

json_t *esg_edges_json(double lo, double hi, int nbins)
{
    json_t *a = json_array();
    if (!isfinite(lo) || !isfinite(hi))
        return a;
    double first = lo < hi ? lo : lo - 0.5, last = lo < hi ? hi : hi + 0.5, step = (last - first) / nbins;
    for (int k = 0; k < nbins; k++)
        json_array_append_new(a, json_real(first + k * step));
    json_array_append_new(a, json_real(last));
    return a;
}

/* {min, max, counts, edges, run_bin, bin_runs}: bins over the members. */
json_t *esg_gradient_json(const esg_ctx *c, const double *v, int nbins)
{
    int n = c->s.nmembers;
    int *counts = calloc((size_t)nbins, sizeof *counts), *bin = calloc((size_t)n + 1, sizeof *bin);
    if (!counts || !bin) {
        free(counts);
        free(bin);
        return NULL;
    }
    double lo, hi;
    ari_esg_gradient(v, n, 1, nbins, counts, bin, &lo, &hi);
    json_t *cj = json_array(), *edges = esg_edges_json(lo, hi, nbins), *rb = json_object(),
           *br = json_array();
    for (int k = 0; k < nbins; k++) {
        json_array_append_new(cj, json_integer(counts[k]));
        json_array_append_new(br, json_array());
    }
    for (int m = 0; m < n; m++) {
        char key[24];
        snprintf(key, sizeof key, "%lld", (long long)esg_ctx_trace(c, m));
        json_object_set_new(rb, key, bin[m] >= 0 ? json_integer(bin[m]) : json_null());
        if (bin[m] >= 0)
            json_array_append_new(json_array_get(br, (size_t)bin[m]), json_integer(esg_ctx_trace(c, m)));
    }
    free(counts);
    free(bin);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "min", ens_num(lo), "max", ens_num(hi), "counts", cj,
                     "edges", edges, "run_bin", rb, "bin_runs", br);
}

json_t *esg_values_json(const double *v, int n)
{
    json_t *a = json_array();
    for (int m = 0; m < n; m++)
        json_array_append_new(a, ens_num(v[m]));
    return a;
}

json_t *esg_stat_json(const double *v, int n)
{
    ari_esg_range r;
    ari_esg_range_of(v, n, 1, &r);
    return json_pack("{s:o, s:o, s:o, s:i, s:o}", "max", ens_num(r.max), "min", ens_num(r.min), "mean",
                     ens_num(r.mean), "present", r.npresent, "runs", esg_values_json(v, n));
}

json_t *esg_domain_json(const double *v, int64_t n)
{
    ari_esg_range r;
    ari_esg_range_of(v, (int)n, 1, &r);
    return json_pack("[o, o]", ens_num(r.min), ens_num(r.max));
}
