/* api_ensemble_nodes.c: one supernode of the ensemble super graph
 * (spec_callflow.md 2.8, 3.3 items 3 and 5, 3.4):
 *   GET /api/v1/ensembles/{id}/nodes/{node}/histogram?mode=run|rank|callsite&value=inc|exc&bins=
 *   GET /api/v1/ensembles/{id}/nodes/{node}/boxplots?value=&iqr=&target=
 *   GET /api/v1/ensembles/{id}/nodes/{node}/gradients?bins=
 * with the super graph parameters and runs= of /supergraph, which must be
 * the same as the graph's the node was taken from. {node} is the
 * supernode's `key` from /supergraph (16 hex digits of FNV-1a 64 of its
 * id, path-safe) or its id, percent-encoded. Values are the
 * (member, process) values of analysis/ensemble_supergraph.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cct_ops.h"
#include "ensemble_ctx.h"
#include "ensemble_ranks.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

/* Opens the graph and finds the node; -1 when answered. */
static int64_t open_node(ari_request *r, esg_ctx *c)
{
    if (esg_ctx_open(r, c) < 0)
        return -1;
    return esg_ctx_path_node(r, c);
}

/* value=inc|exc (default inc): 1 for exc, 0 inc, -1 answered. */
static int parse_value(ari_request *r)
{
    static const char *const values[] = {"inc", "exc", NULL};
    const char *v = NULL;
    if (ari_param_choice(r, "value", values, &v) < 0)
        return -1;
    return v && strcmp(v, "exc") == 0;
}

/* ---- histogram ---- */

/* One sample of a histogram: a value and the member it belongs to. */
typedef struct sample_set {
    int n;
    double *v;
    int *member;
    int *proc; /* the process (index in its member) or the CCT node, -1 */
} sample_set;

static void samples_free(sample_set *s)
{
    free(s->v);
    free(s->member);
    free(s->proc);
}

static int samples_alloc(sample_set *s, size_t cap)
{
    s->n = 0;
    s->v = malloc((cap + 1) * sizeof *s->v);
    s->member = malloc((cap + 1) * sizeof *s->member);
    s->proc = malloc((cap + 1) * sizeof *s->proc);
    return s->v && s->member && s->proc ? 0 : -1;
}

static void push(sample_set *s, double v, int m, int p)
{
    s->v[s->n] = v;
    s->member[s->n] = m;
    s->proc[s->n++] = p;
}

/* Every member's processes: the size of a rank sample set. */
static size_t all_procs(const esg_ctx *c)
{
    size_t n = 0;
    for (int m = 0; m < c->s.nmembers; m++)
        n += (size_t)c->e.ecct.members[m].cct->nprocs;
    return n;
}

/* mode=run: one per present member; rank: one per (present member,
 * process) from ranks (esg_ranks_load_all); callsite: one per (CCT node of
 * the supernode, present member), the member's collapse over its
 * processes. */
static int collect(const esg_ctx *c, int64_t j, const char *mode, int exc, const esg_ranks *ranks,
                   sample_set *s)
{
    const ari_esg *g = &c->s;
    int nm = g->nmembers, np = g->flat.nprocs;
    if (samples_alloc(s, all_procs(c) + (size_t)nm * (size_t)g->g.cct_nodes) < 0)
        return -1;
    const double *mv = exc ? g->exc : g->inc;
    double *scratch = malloc(((size_t)np + 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    for (int m = 0; m < nm; m++) {
        if (isnan(mv[j * nm + m]))
            continue;
        int p0 = g->proc_first[m], p1 = g->proc_first[m + 1];
        if (strcmp(mode, "run") == 0)
            push(s, mv[j * nm + m], m, -1);
        for (int p = 0; ranks && strcmp(mode, "rank") == 0 && p < ranks[m].np; p++)
            push(s, (exc ? ranks[m].exc : ranks[m].inc)[p], m, p);
        for (int64_t i = 0; strcmp(mode, "callsite") == 0 && i < g->g.cct_nodes; i++) {
            if (g->g.group[i] != j || !ari_ecct_present(&c->e.ecct, m, i))
                continue;
            const double *row = (exc ? g->t.exc : g->t.inc) + i * np + p0;
            push(s, ari_collapse_row(row, p1 - p0, NULL, c->q.collapse, scratch), m, (int)i);
        }
    }
    free(scratch);
    return 0;
}

static json_t *counts_of(const sample_set *s, int target, double lo, double hi, int nbins)
{
    int *counts = calloc((size_t)nbins, sizeof *counts);
    if (!counts)
        return NULL;
    for (int k = 0; k < s->n; k++)
        if (target < 0 || s->member[k] == target)
            counts[ari_histogram_bin(s->v[k], lo, hi, nbins)]++;
    json_t *a = json_array();
    for (int k = 0; k < nbins; k++)
        json_array_append_new(a, json_integer(counts[k]));
    free(counts);
    return a;
}

static json_t *histogram_json(const esg_ctx *c, int64_t j, const char *mode, int exc, int target,
                              const sample_set *s)
{
    int nb = c->q.bins;
    double lo = NAN, hi = NAN;
    for (int k = 0; k < s->n; k++) {
        lo = k == 0 || s->v[k] < lo ? s->v[k] : lo;
        hi = k == 0 || s->v[k] > hi ? s->v[k] : hi;
    }
    json_t *edges = esg_edges_json(lo, hi, nb);
    char key[17];
    esg_node_key(c->s.g.nodes[j].id, key);
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "id", c->s.g.nodes[j].id,
                     "key", key, "mode", mode, "value", exc ? "exc" : "inc", "bins", nb, "samples", s->n,
                     "min", ens_num(lo), "max", ens_num(hi), "edges", edges, "counts",
                     s->n ? counts_of(s, -1, lo, hi, nb) : json_array(), "target_counts",
                     target >= 0 && s->n ? counts_of(s, target, lo, hi, nb) : json_null());
}

enum MHD_Result api_ensemble_node_histogram(ari_request *r)
{
    esg_ctx c;
    int64_t j = open_node(r, &c);
    static const char *const modes[] = {"run", "rank", "callsite", NULL};
    const char *mode = NULL;
    int exc = j >= 0 ? parse_value(r) : -1;
    int target = exc >= 0 ? esg_ctx_member_param(r, &c, "target") : -1;
    enum MHD_Result res = MHD_YES;
    if (target != -1 && ari_param_choice(r, "mode", modes, &mode) == 0) {
        mode = mode ? mode : "rank";
        ari_error err = {0};
        esg_ranks *ranks = strcmp(mode, "rank") == 0 ? esg_ranks_load_all(r->db, &c, j, &err) : NULL;
        sample_set s;
        memset(&s, 0, sizeof s);
        if (strcmp(mode, "rank") == 0 && !ranks)
            res = ari_reply_from_error(r, &err);
        else if (collect(&c, j, mode, exc, ranks, &s) < 0)
            res = ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        else
            res = ari_reply_doc(r, histogram_json(&c, j, mode, exc, target, &s), 17);
        samples_free(&s);
        esg_ranks_free_all(ranks, c.s.nmembers);
    }
    esg_ctx_free(&c);
    return res;
}

/* ---- gradients ---- */

enum MHD_Result api_ensemble_node_gradients(ari_request *r)
{
    esg_ctx c;
    int64_t j = open_node(r, &c);
    enum MHD_Result res = MHD_YES;
    if (j >= 0) {
        int nm = c.s.nmembers;
        char key[17];
        esg_node_key(c.s.g.nodes[j].id, key);
        json_t *means = json_object();
        for (int m = 0; m < nm; m++) {
            char t[24];
            snprintf(t, sizeof t, "%lld", (long long)esg_ctx_trace(&c, m));
            json_object_set_new(means, t,
                                json_pack("{s:o, s:o}", "inclusive", ens_num(c.s.inc[j * nm + m]),
                                          "exclusive", ens_num(c.s.exc[j * nm + m])));
        }
        res = ari_reply_doc(
            r, json_pack("{s:s, s:s, s:i, s:o?, s:o?, s:o}", "id", c.s.g.nodes[j].id, "key", key, "bins",
                         c.q.bins, "inclusive", esg_gradient_json(&c, c.s.inc + j * nm, c.q.bins),
                         "exclusive", esg_gradient_json(&c, c.s.exc + j * nm, c.q.bins), "run_means", means),
            17);
    }
    esg_ctx_free(&c);
    return res;
}

/* ---- boxplots ---- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* numpy's default (linear) quantile of sorted v[0..n). */
static double quantile(const double *v, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* The values of call site `name` (CCT nodes of supernode j so named) per
 * (member, process) of the members (only `only` when >= 0) that have it:
 * the sum over its instances (for inc, those not called by the same name
 * inside the supernode: no double counting of recursion), from the
 * members' rows of j's support (ranks: esg_ranks_load_all). */
static int callsite_values(const esg_ctx *c, int64_t j, const char *name, int exc, int only,
                           const esg_ranks *ranks, sample_set *s)
{
    const ari_esg *g = &c->s;
    if (samples_alloc(s, all_procs(c)) < 0)
        return -1;
    for (int m = 0; m < g->nmembers; m++) {
        const esg_ranks *r = &ranks[m];
        if ((only >= 0 && m != only) || !r->present)
            continue;
        int any = 0;
        for (int p = 0; p < r->np; p++)
            s->v[s->n + p] = 0;
        for (int64_t q = 0; q < r->n; q++) {
            int64_t i = r->nodes[q], pa = c->e.ecct.parent[i];
            if (g->g.group[i] != j || strcmp(c->e.ecct.name[i], name) != 0 || !ari_ecct_present(&c->e.ecct, m, i))
                continue;
            any = 1;
            if (!exc && pa >= 0 && g->g.group[pa] == j && strcmp(c->e.ecct.name[pa], name) == 0)
                continue;
            const double *row = (exc ? r->node_exc : r->node_inc) + q * r->np;
            for (int p = 0; p < r->np; p++)
                s->v[s->n + p] += isnan(row[p]) ? 0 : row[p];
        }
        for (int p = 0; any && p < r->np; p++) {
            s->member[s->n] = m;
            s->proc[s->n++] = p;
        }
    }
    return 0;
}

static json_t *outliers_json(const esg_ctx *c, const sample_set *s, double lo, double hi)
{
    json_t *vals = json_array(), *ranks = json_array(), *runs = json_array();
    for (int k = 0; k < s->n; k++) {
        if (s->v[k] >= lo && s->v[k] <= hi)
            continue;
        const ari_cct *mc = c->e.ecct.members[s->member[k]].cct;
        json_array_append_new(vals, json_real(s->v[k]));
        json_array_append_new(ranks, json_integer(mc->proc_rank ? mc->proc_rank[s->proc[k]] : s->proc[k]));
        json_array_append_new(runs, json_integer(esg_ctx_trace(c, s->member[k])));
    }
    return json_pack("{s:o, s:o, s:o}", "values", vals, "ranks", ranks, "runs", runs);
}

/* {q[5], outliers {values, ranks, runs}, min, median, max, mean, var, imb}; null when empty. */
static json_t *box_json(const esg_ctx *c, const sample_set *s, double iqr_scale)
{
    if (s->n == 0)
        return json_null();
    double *v = malloc((size_t)s->n * sizeof *v), sum = 0, ss = 0;
    if (!v)
        return NULL;
    memcpy(v, s->v, (size_t)s->n * sizeof *v);
    qsort(v, (size_t)s->n, sizeof *v, cmp_double);
    double q[5] = {v[0], quantile(v, s->n, 0.25), quantile(v, s->n, 0.5), quantile(v, s->n, 0.75),
                   v[s->n - 1]};
    free(v);
    for (int k = 0; k < s->n; k++)
        sum += s->v[k];
    double mean = sum / s->n, iqr = q[3] - q[1];
    for (int k = 0; k < s->n; k++)
        ss += (s->v[k] - mean) * (s->v[k] - mean);
    double imb = fabs(mean) > 1e-300 ? (q[4] - mean) / mean : q[4];
    return json_pack("{s:[f,f,f,f,f], s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:i}", "q", q[0], q[1], q[2], q[3],
                     q[4], "outliers", outliers_json(c, s, q[1] - iqr_scale * iqr, q[3] + iqr_scale * iqr),
                     "min", q[0], "median", q[2], "max", q[4], "mean", mean, "var", ss / s->n, "imb", imb,
                     "count", s->n);
}

static json_t *callsite_json(const esg_ctx *c, int64_t j, const char *name, int exc, int target, double iqr,
                             const esg_ranks *ranks)
{
    sample_set all, tgt;
    memset(&all, 0, sizeof all);
    memset(&tgt, 0, sizeof tgt);
    json_t *o = NULL;
    if (callsite_values(c, j, name, exc, -1, ranks, &all) == 0 &&
        (target < 0 || callsite_values(c, j, name, exc, target, ranks, &tgt) == 0))
        o = json_pack("{s:s, s:o?, s:o?}", "name", name, "ensemble", box_json(c, &all, iqr), "target",
                      target < 0 ? json_null() : box_json(c, &tgt, iqr));
    samples_free(&all);
    samples_free(&tgt);
    return o;
}

static double box_max(json_t *o)
{
    json_t *q = json_object_get(json_object_get(o, "ensemble"), "q");
    return q ? json_real_value(json_array_get(q, 4)) : -INFINITY;
}

static int cmp_box(const void *x, const void *y)
{
    double a = box_max(*(json_t *const *)x), b = box_max(*(json_t *const *)y);
    return (a < b) - (a > b);
}

/* One entry per distinct function name of the supernode, by decreasing max. */
static json_t *callsites_json(const esg_ctx *c, int64_t j, int exc, int target, double iqr,
                              const esg_ranks *ranks)
{
    int64_t n = c->s.g.cct_nodes, k = 0;
    json_t **items = malloc(((size_t)n + 1) * sizeof *items);
    if (!items)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        int seen = c->s.g.group[i] != j;
        for (int64_t h = 0; !seen && h < i; h++)
            seen = c->s.g.group[h] == j && strcmp(c->e.ecct.name[h], c->e.ecct.name[i]) == 0;
        if (!seen && (items[k] = callsite_json(c, j, c->e.ecct.name[i], exc, target, iqr, ranks)))
            k++;
    }
    qsort(items, (size_t)k, sizeof *items, cmp_box);
    json_t *a = json_array();
    for (int64_t i = 0; i < k; i++)
        json_array_append_new(a, items[i]);
    free(items);
    return a;
}

enum MHD_Result api_ensemble_node_boxplots(ari_request *r)
{
    esg_ctx c;
    int64_t j = open_node(r, &c);
    int exc = j >= 0 ? parse_value(r) : -1;
    int target = exc >= 0 ? esg_ctx_member_param(r, &c, "target") : -1;
    double iqr = 1.5;
    enum MHD_Result res = MHD_YES;
    if (target != -1 && ari_param_number_checked(r, "iqr", 1.5, 0, 100, 0, &iqr) < 0)
        res = ari_reply_error(r, 400, "invalid_parameter", "iqr must be a number in [0, 100]");
    else if (target != -1) {
        ari_error err = {0};
        esg_ranks *ranks = esg_ranks_load_all(r->db, &c, j, &err);
        char key[17];
        esg_node_key(c.s.g.nodes[j].id, key);
        if (!ranks)
            res = ari_reply_from_error(r, &err);
        else
            res = ari_reply_doc(r, json_pack("{s:s, s:s, s:s, s:f, s:o, s:o?}", "id", c.s.g.nodes[j].id, "key",
                                             key, "value", exc ? "exc" : "inc", "iqr", iqr, "target",
                                             target < 0 ? json_null() : json_integer(esg_ctx_trace(&c, target)),
                                             "callsites", callsites_json(&c, j, exc, target, iqr, ranks)),
                                17);
        esg_ranks_free_all(ranks, c.s.nmembers);
    }
    esg_ctx_free(&c);
    return res;
}
