/* api_ensemble_diff.c: GET /api/v1/ensembles/{id}/diff?baseline=&comparison=
 * &value=exc|inc&bins= (+ the super graph parameters and runs=): the
 * target-target difference on the ensemble super graph (spec_callflow.md
 * 2.9): per node delta = mean_r x_baseline,r - mean_r x_comparison,r
 * (negative: the comparison is slower), the per-rank differences'
 * histogram (summing to the number of processes of the union of both
 * members), and a colour domain symmetric about 0. The formula lives in
 * analysis/ensemble_diff.c, the graph in analysis/ensemble_supergraph.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cct_ops.h"
#include "analysis/ensemble_diff.h"
#include "ensemble_ctx.h"
#include "ensemble_ranks.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

typedef struct diff_req {
    int a, b; /* member indices */
    int exclusive;
    double *d;   /* [match.n] scratch */
    int *counts; /* [bins] scratch */
    ari_ediff_match match;
    ari_store *db;
    ari_error err; /* the first failure reading the ranks */
} diff_req;

/* A member's per-process row of node j (NULL when it lacks the node), read
 * from the store into r (ensemble_ranks.h); -1 with q->err on failure. */
static int row_of(const esg_ctx *c, diff_req *q, int m, int64_t j, esg_ranks *r, const double **row)
{
    *row = NULL;
    if (esg_ranks_load(q->db, c, m, j, r, &q->err) < 0)
        return -1;
    if (r->present)
        *row = q->exclusive ? r->exc : r->inc;
    return 0;
}

static json_t *node_json(const esg_ctx *c, diff_req *q, int64_t j, double *maxabs)
{
    const ari_esg *s = &c->s;
    int nm = s->nmembers, nb = c->q.bins;
    const double *mv = q->exclusive ? s->exc : s->inc;
    double ma = mv[j * nm + q->a], mb = mv[j * nm + q->b], delta = ari_ediff_delta(ma, mb);
    if (isfinite(delta) && fabs(delta) > *maxabs)
        *maxabs = fabs(delta);
    esg_ranks ra, rb;
    const double *xa, *xb;
    int rc = row_of(c, q, q->a, j, &ra, &xa);
    if (rc == 0)
        rc = row_of(c, q, q->b, j, &rb, &xb);
    else
        memset(&rb, 0, sizeof rb);
    if (rc == 0)
        ari_ediff_ranks(&q->match, xa, xb, q->d);
    esg_ranks_free(&ra);
    esg_ranks_free(&rb);
    if (rc < 0)
        return NULL;
    double lo = NAN, hi = NAN;
    memset(q->counts, 0, (size_t)nb * sizeof *q->counts);
    if (q->match.n > 0)
        ari_histogram(q->d, q->match.n, NULL, nb, q->counts, &lo, &hi);
    json_t *counts = json_array();
    for (int k = 0; k < nb; k++)
        json_array_append_new(counts, json_integer(q->counts[k]));
    char key[17];
    esg_node_key(s->g.nodes[j].id, key);
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o}}", "id", s->g.nodes[j].id, "key", key,
                     "name", s->g.nodes[j].label, "delta", ens_num(delta), "mean_baseline", ens_num(ma),
                     "mean_comparison", ens_num(mb), "ranks", "min", ens_num(lo), "max", ens_num(hi),
                     "counts", counts);
}

static json_t *edges_json(const esg_ctx *c)
{
    const ari_esg *s = &c->s;
    json_t *a = json_array();
    for (int64_t x = 0; x < s->g.nedges; x++) {
        ari_esg_range r;
        ari_esg_range_of(s->weight + x * s->nmembers, s->nmembers, 1, &r);
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "source", s->g.nodes[s->g.edges[x].source].id,
                                           "target", s->g.nodes[s->g.edges[x].target].id, "weight",
                                           ens_num(r.max)));
    }
    return a;
}

static json_t *diff_json(const esg_ctx *c, diff_req *q)
{
    json_t *nodes = json_array();
    double m = 0;
    for (int64_t j = 0; j < c->s.g.nnodes; j++) {
        json_t *n = node_json(c, q, j, &m);
        if (!n) {
            json_decref(nodes);
            return NULL;
        }
        json_array_append_new(nodes, n);
    }
    return json_pack(
        "{s:I, s:I, s:I, s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:[f, f]}", "ensemble_id", (json_int_t)c->e.id,
        "baseline", (json_int_t)esg_ctx_trace(c, q->a), "comparison", (json_int_t)esg_ctx_trace(c, q->b),
        "value", q->exclusive ? "exc" : "inc", "metric", c->e.ecct.metrics[c->metric].name, "sign",
        "baseline - comparison: negative = comparison slower (red), positive = faster (green)", "processes",
        q->match.n, "bins", c->q.bins, "nodes", nodes, "edges", edges_json(c), "domain", -m, m);
}

static enum MHD_Result run(ari_request *r, esg_ctx *c, diff_req *q)
{
    static const char *const values[] = {"exc", "inc", NULL};
    const char *v = NULL;
    if (ari_param_choice(r, "value", values, &v) < 0)
        return MHD_YES;
    q->exclusive = !v || strcmp(v, "exc") == 0;
    q->a = esg_ctx_member_param(r, c, "baseline");
    if (q->a == -1)
        return MHD_YES;
    q->b = q->a >= 0 ? esg_ctx_member_param(r, c, "comparison") : -2;
    if (q->b == -1)
        return MHD_YES;
    if (q->a < 0 || q->b < 0)
        return ari_reply_error(r, 400, "invalid_parameter",
                               "baseline and comparison (member trace ids) are required");
    const ari_cct *ca = c->e.ecct.members[q->a].cct, *cb = c->e.ecct.members[q->b].cct;
    ari_error err = {0};
    if (ari_ediff_match_build(ca->proc_rank, ca->proc_thread, ca->nprocs, cb->proc_rank, cb->proc_thread,
                              cb->nprocs, &q->match, &err) < 0)
        return ari_reply_from_error(r, &err);
    q->d = malloc(((size_t)q->match.n + 1) * sizeof *q->d);
    q->counts = malloc((size_t)c->q.bins * sizeof *q->counts);
    if (!q->d || !q->counts)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    q->db = r->db;
    json_t *doc = diff_json(c, q);
    if (!doc && q->err.code[0])
        return ari_reply_from_error(r, &q->err);
    return ari_reply_doc(r, doc, 17);
}

enum MHD_Result api_ensemble_diff(ari_request *r)
{
    esg_ctx c;
    if (esg_ctx_open(r, &c) < 0) {
        esg_ctx_free(&c);
        return MHD_YES;
    }
    diff_req q;
    memset(&q, 0, sizeof q);
    enum MHD_Result res = run(r, &c, &q);
    ari_ediff_match_free(&q.match);
    free(q.d);
    free(q.counts);
    esg_ctx_free(&c);
    return res;
}
