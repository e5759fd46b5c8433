/* api_ensemble_hierarchy.c: GET /api/v1/ensembles/{id}/nodes/{node}/hierarchy,
 * the supernode hierarchy of the ensemble (spec_callflow.md 3.3 item 2,
 * 3.4 /api/node/hierarchy; CallFlow's module_hierarchy): the tree of the
 * call sites of one supernode following their calling context inside it.
 *
 * How: every context (unified CCT node) of the supernode has a component
 * path, the names of its ancestors inside the supernode down to itself
 * (an entry context, whose parent is outside, has a one-name path). The
 * contexts with the same component path are merged into one hierarchy
 * node, as CallFlow merges call sites by component path; the parent of a
 * hierarchy node is the node of the path without its last name, so the
 * result is a tree (no cycle is possible: it is the CCT restricted to the
 * supernode, merged by path). Per member and process, a node's exclusive
 * value is the sum over its contexts, its inclusive value the sum over its
 * contexts that have no ancestor merged into the same node (a supernode
 * entered again lower in the tree is not counted twice); the member's
 * value is the collapse (collapse=, default the mean) over its processes,
 * like the super graph's. A member with none of the node's contexts is
 * absent: null, never 0. The gradients are esg_gradient_json's (spec 2.8).
 * Parameters, loading and the node lookup are the node endpoints'
 * (ensemble_ctx.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

/* The hierarchy of one supernode: nodes numbered parent before child. */
typedef struct hier {
    int64_t n;
    int64_t *parent;    /* [n] -1 for a top call site (an entry of the supernode) */
    int64_t *first;     /* [n] first child, -1 */
    int64_t *next;      /* [n] next sibling, -1 */
    const char **name;  /* [n] borrowed from the unified CCT */
    int *depth;         /* [n] 0 for a top call site */
    int64_t *of;        /* [cct nodes] the hierarchy node of a context, -1 outside */
    unsigned char *dup; /* [cct nodes] an ancestor context is in the same node */
    int nm;
    double *inc, *exc;  /* [n * nm] per member, NAN when absent */
    int64_t top_first;  /* first top call site, -1 */
} hier;

static void hier_free(hier *h)
{
    free(h->parent);
    free(h->first);
    free(h->next);
    free(h->name);
    free(h->depth);
    free(h->of);
    free(h->dup);
    free(h->inc);
    free(h->exc);
    memset(h, 0, sizeof *h);
}

static int hier_alloc(hier *h, int64_t cct_nodes, int nm)
{
    size_t cap = (size_t)cct_nodes + 1;
    memset(h, 0, sizeof *h);
    h->nm = nm;
    h->top_first = -1;
    h->parent = malloc(cap * sizeof *h->parent);
    h->first = malloc(cap * sizeof *h->first);
    h->next = malloc(cap * sizeof *h->next);
    h->name = malloc(cap * sizeof *h->name);
    h->depth = malloc(cap * sizeof *h->depth);
    h->of = malloc(cap * sizeof *h->of);
    h->dup = calloc(cap, 1);
    return h->parent && h->first && h->next && h->name && h->depth && h->of && h->dup ? 0 : -1;
}

/* The child of hierarchy node p (-1: the top) called name, made if new. */
static int64_t child_named(hier *h, int64_t p, const char *name)
{
    int64_t *head = p < 0 ? &h->top_first : &h->first[p], last = -1;
    for (int64_t k = *head; k >= 0; last = k, k = h->next[k])
        if (strcmp(h->name[k], name) == 0)
            return k;
    int64_t k = h->n++;
    h->parent[k] = p;
    h->first[k] = h->next[k] = -1;
    h->name[k] = name;
    h->depth[k] = p < 0 ? 0 : h->depth[p] + 1;
    if (last < 0)
        *head = k;
    else
        h->next[last] = k;
    return k;
}

/* Merges the contexts of supernode j by component path (parents come
 * before children in the unified CCT, so a parent's node exists first). */
static void build_tree(hier *h, const esg_ctx *c, int64_t j)
{
    const ari_supergraph *g = &c->s.g;
    const int64_t *parent = c->e.ecct.parent;
    for (int64_t i = 0; i < g->cct_nodes; i++) {
        h->of[i] = -1;
        if (g->group[i] != j)
            continue;
        int64_t pa = parent[i];
        h->of[i] = child_named(h, pa >= 0 && g->group[pa] == j ? h->of[pa] : -1, c->e.ecct.name[i]);
        for (int64_t a = pa; a >= 0 && !h->dup[i]; a = parent[a])
            h->dup[i] = h->of[a] == h->of[i];
    }
}

/* Member m's values of every hierarchy node; sum: scratch of n * its processes. */
static void member_values(hier *h, const esg_ctx *c, int m, double *sum_inc, double *sum_exc,
                          unsigned char *here, double *scratch)
{
    const ari_esg *s = &c->s;
    int np = s->flat.nprocs, p0 = s->proc_first[m], mp = s->proc_first[m + 1] - p0;
    memset(here, 0, (size_t)h->n);
    for (int64_t k = 0; k < h->n * mp; k++)
        sum_inc[k] = sum_exc[k] = 0;
    for (int64_t i = 0; i < s->g.cct_nodes; i++) {
        int64_t k = h->of[i];
        if (k < 0 || !ari_ecct_present(&c->e.ecct, m, i))
            continue;
        here[k] = 1;
        const double *ri = s->t.inc + i * np + p0, *re = s->t.exc + i * np + p0;
        for (int p = 0; p < mp; p++) {
            sum_exc[k * mp + p] += isnan(re[p]) ? 0 : re[p];
            sum_inc[k * mp + p] += h->dup[i] || isnan(ri[p]) ? 0 : ri[p];
        }
    }
    for (int64_t k = 0; k < h->n; k++) {
        h->inc[k * h->nm + m] = here[k] ? ari_collapse_row(sum_inc + k * mp, mp, NULL, c->q.collapse, scratch) : NAN;
        h->exc[k * h->nm + m] = here[k] ? ari_collapse_row(sum_exc + k * mp, mp, NULL, c->q.collapse, scratch) : NAN;
    }
}

static int compute_values(hier *h, const esg_ctx *c)
{
    const ari_esg *s = &c->s;
    int maxp = 0;
    for (int m = 0; m < h->nm; m++)
        maxp = s->proc_first[m + 1] - s->proc_first[m] > maxp ? s->proc_first[m + 1] - s->proc_first[m] : maxp;
    size_t cells = (size_t)h->n * (size_t)maxp + 1, vals = (size_t)h->n * (size_t)h->nm + 1;
    double *si = malloc(cells * sizeof *si), *se = malloc(cells * sizeof *se);
    double *scratch = malloc(((size_t)maxp + 1) * sizeof *scratch);
    unsigned char *here = malloc((size_t)h->n + 1);
    h->inc = malloc(vals * sizeof *h->inc);
    h->exc = malloc(vals * sizeof *h->exc);
    int rc = si && se && scratch && here && h->inc && h->exc ? 0 : -1;
    for (int m = 0; rc == 0 && m < h->nm; m++)
        member_values(h, c, m, si, se, here, scratch);
    free(si);
    free(se);
    free(scratch);
    free(here);
    return rc;
}

static int hier_build(hier *h, const esg_ctx *c, int64_t j)
{
    if (hier_alloc(h, c->s.g.cct_nodes, c->s.nmembers) < 0)
        return -1;
    build_tree(h, c, j);
    return compute_values(h, c);
}

/* ---- JSON ---- */

/* The component path of node k: names from the top joined by "/" ("/"
 * and "\" in a name escaped as in the unified CCT's context paths). */
static char *path_of(const hier *h, int64_t k)
{
    size_t len = 1;
    for (int64_t a = k; a >= 0; a = h->parent[a])
        len += 2 * strlen(h->name[a]) + 1;
    char *out = malloc(len), *end = out + len - 1;
    if (!out)
        return NULL;
    *end = '\0';
    for (int64_t a = k; a >= 0; a = h->parent[a]) {
        const char *nm = h->name[a];
        for (size_t q = strlen(nm); q-- > 0;) {
            *--end = nm[q];
            if (nm[q] == '/' || nm[q] == '\\')
                *--end = '\\';
        }
        if (h->parent[a] >= 0)
            *--end = '/';
    }
    memmove(out, end, strlen(end) + 1);
    return out;
}

/* The full context paths of the unified CCT merged into node k. */
static json_t *contexts_json(const hier *h, const esg_ctx *c, int64_t k)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < c->s.g.cct_nodes; i++) {
        if (h->of[i] != k)
            continue;
        char *p = ari_ecct_path(&c->e.ecct, i);
        json_array_append_new(a, p ? json_string(p) : json_null());
        free(p);
    }
    return a;
}

static json_t *target_json(const hier *h, int64_t k, int target)
{
    if (target < 0)
        return json_null();
    double inc = h->inc[k * h->nm + target], exc = h->exc[k * h->nm + target];
    return json_pack("{s:b, s:o, s:o}", "present", !isnan(inc), "inclusive", ens_num(inc), "exclusive",
                     ens_num(exc));
}

static json_t *node_json(const hier *h, const esg_ctx *c, int64_t k, int target)
{
    int nm = h->nm, nb = c->q.bins;
    const double *inc = h->inc + k * nm, *exc = h->exc + k * nm;
    json_t *presence = json_array();
    for (int m = 0; m < nm; m++)
        json_array_append_new(presence, json_boolean(!isnan(inc[m])));
    char *path = path_of(h, k);
    json_t *o = json_pack("{s:I, s:o, s:i, s:s, s:s, s:o, s:o, s:o, s:o}", "id", (json_int_t)k, "parent",
                          h->parent[k] < 0 ? json_null() : json_integer(h->parent[k]), "depth", h->depth[k],
                          "name", h->name[k], "path", path ? path : "", "contexts", contexts_json(h, c, k),
                          "presence", presence, "inclusive", esg_stat_json(inc, nm), "exclusive",
                          esg_stat_json(exc, nm));
    free(path);
    json_object_set_new(o, "inc_max", json_incref(json_object_get(json_object_get(o, "inclusive"), "max")));
    json_object_set_new(o, "exc_max", json_incref(json_object_get(json_object_get(o, "exclusive"), "max")));
    json_object_set_new(o, "gradient",
                        json_pack("{s:o?, s:o?}", "inclusive", esg_gradient_json(c, inc, nb), "exclusive",
                                  esg_gradient_json(c, exc, nb)));
    json_object_set_new(o, "target", target_json(h, k, target));
    return o;
}

static json_t *hierarchy_json(const hier *h, const esg_ctx *c, int64_t j, int target)
{
    const ari_sg_node *sn = &c->s.g.nodes[j];
    int nm = h->nm;
    char key[17];
    esg_node_key(sn->id, key);
    json_t *nodes = json_array();
    for (int64_t k = 0; k < h->n; k++)
        json_array_append_new(nodes, node_json(h, c, k, target));
    ari_esg_range ri, re;
    ari_esg_range_of(c->s.inc + j * nm, nm, 1, &ri);
    ari_esg_range_of(c->s.exc + j * nm, nm, 1, &re);
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:i, s:o, s:o, s:{s:i, s:{s:o, s:o}},"
                     " s:I, s:o}",
                     "ensemble_id", (json_int_t)c->e.id, "id", sn->id, "key", key, "name", sn->label, "module",
                     sn->module, "metric", c->e.ecct.metrics[c->metric].name, "collapse",
                     ari_collapse_name(c->q.collapse), "runs", ens_runs_json(&c->e), "target",
                     target < 0 ? json_null() : json_integer(esg_ctx_trace(c, target)), "bins", c->q.bins,
                     "inc_max", ens_num(ri.max), "exc_max", ens_num(re.max), "meta", "bins", c->q.bins,
                     "domain", "inclusive", esg_domain_json(h->inc, h->n * nm), "exclusive",
                     esg_domain_json(h->exc, h->n * nm), "node_count", (json_int_t)h->n, "nodes", nodes);
}

enum MHD_Result api_ensemble_node_hierarchy(ari_request *r)
{
    esg_ctx c;
    int64_t j = esg_ctx_open(r, &c) < 0 ? -1 : esg_ctx_path_node(r, &c);
    int target = j >= 0 ? esg_ctx_member_param(r, &c, "target") : -1;
    enum MHD_Result res = MHD_YES;
    if (target != -1) {
        hier h;
        if (hier_build(&h, &c, j) < 0)
            res = ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        else
            res = ari_reply_doc(r, hierarchy_json(&h, &c, j, target), 17);
        hier_free(&h);
    }
    esg_ctx_free(&c);
    return res;
}
