/* ensemble_ranks.c: one supernode's per-rank values, member by member
 * (ensemble_ranks.h). */
#include "ensemble_ranks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/profile_queries.h"

void esg_ranks_free(esg_ranks *r)
{
    free(r->inc);
    free(r->exc);
    free(r->nodes);
    free(r->node_inc);
    free(r->node_exc);
    memset(r, 0, sizeof *r);
}

/* The unified metrics of the graph's inclusive and exclusive times: the
 * chosen metric and its partner (ari_cct_times' rule); -1 when missing. */
static void time_metrics(const esg_ctx *c, int *inc, int *exc)
{
    const ari_ecct *e = &c->e.ecct;
    int k = c->metric, kp = e->metrics[k].partner;
    if (kp >= 0 && e->metrics[kp].inclusive == e->metrics[k].inclusive)
        kp = -1;
    *inc = e->metrics[k].inclusive ? k : kp;
    *exc = e->metrics[k].inclusive ? kp : k;
}

/* Rows of unified metric k for the support, through the member's ids. */
static int member_rows(ari_store *s, const esg_ctx *c, int m, int k, const esg_ranks *r, double *out,
                       ari_error *err)
{
    const ari_ecct_member *em = &c->e.ecct.members[m];
    int64_t *own = malloc(((size_t)r->n + 1) * sizeof *own);
    if (!own)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int64_t q = 0; q < r->n; q++)
        own[q] = em->node_of[r->nodes[q]];
    int metric = em->metric_of[k];
    int rc = 0;
    if (metric < 0)
        for (int64_t q = 0; q < r->n * r->np; q++)
            out[q] = NAN;
    else
        rc = ari_profile_node_rows(s, esg_ctx_trace(c, m), metric, own, r->n, r->np, out, err);
    free(own);
    return rc;
}

/* An inclusive metric without an exclusive partner: the exclusive rows of
 * j's nodes as ari_cct_times derives them (inclusive minus the children's,
 * an unmeasured child counting 0); the support holds every child of j's
 * nodes. The other support rows stay NAN (not used). */
static void derive_exclusive(const esg_ctx *c, int64_t j, esg_ranks *r)
{
    int np = r->np;
    for (int64_t q = 0; q < r->n; q++)
        for (int p = 0; p < np; p++)
            r->node_exc[q * np + p] = c->s.g.group[r->nodes[q]] == j ? r->node_inc[q * np + p] : NAN;
    for (int64_t q = 0; q < r->n; q++) {
        int64_t pa = c->e.ecct.parent[r->nodes[q]], k = q;
        while (pa >= 0 && k > 0 && r->nodes[k] != pa)
            k--; /* the parent's row: nodes are in node order, parents first */
        if (pa < 0 || r->nodes[k] != pa || c->s.g.group[pa] != j)
            continue;
        for (int p = 0; p < np; p++) {
            double *dst = &r->node_exc[k * np + p], x = r->node_inc[q * np + p];
            if (!isnan(*dst) && !isnan(x))
                *dst -= x;
        }
    }
}

int esg_ranks_load(ari_store *s, const esg_ctx *c, int m, int64_t j, esg_ranks *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int kinc, kexc;
    time_metrics(c, &kinc, &kexc);
    if (kinc < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "metric '%s' is exclusive without an inclusive partner: the rank views need "
                             "inclusive values (choose an inclusive metric=)",
                             c->e.ecct.metrics[c->metric].name);
    out->present = !isnan(c->s.inc[j * c->s.nmembers + m]);
    if (!out->present)
        return 0;
    out->np = c->e.ecct.members[m].cct->nprocs;
    if (ari_sg_node_support(&c->s.g, c->e.ecct.parent, j, &out->nodes, &out->n) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t cells = (size_t)out->n * (size_t)out->np + 1, np1 = (size_t)out->np + 1;
    out->node_inc = malloc(cells * sizeof(double));
    out->node_exc = malloc(cells * sizeof(double));
    out->inc = malloc(np1 * sizeof(double));
    out->exc = malloc(np1 * sizeof(double));
    if (!out->node_inc || !out->node_exc || !out->inc || !out->exc)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (member_rows(s, c, m, kinc, out, out->node_inc, err) < 0 ||
        (kexc >= 0 && member_rows(s, c, m, kexc, out, out->node_exc, err) < 0))
        return -1;
    if (kexc < 0)
        derive_exclusive(c, j, out);
    ari_sg_node_ranks(&c->s.g, c->e.ecct.parent, j, out->nodes, out->n, out->node_inc, out->np, out->inc,
                      out->exc);
    return 0;
}

void esg_ranks_free_all(esg_ranks *all, int n)
{
    for (int m = 0; all && m < n; m++)
        esg_ranks_free(&all[m]);
    free(all);
}

esg_ranks *esg_ranks_load_all(ari_store *s, const esg_ctx *c, int64_t j, ari_error *err)
{
    int n = c->s.nmembers;
    esg_ranks *all = calloc((size_t)n + 1, sizeof *all);
    if (!all) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    for (int m = 0; m < n; m++)
        if (esg_ranks_load(s, c, m, j, &all[m], err) < 0) {
            esg_ranks_free_all(all, n);
            return NULL;
        }
    return all;
}
