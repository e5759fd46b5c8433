/* online_cpd.c: the representative value of a multivariate stream (IPCA
 * with one component + cumulative sign) and the online change points on it
 * (the contract is in online_cpd.h). */
#include "analysis/online_cpd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/incremental_pca.h"

struct ari_repr {
    ari_ipca *pca;
    size_t n;       /* entities so far */
    double *last;   /* n: each entity's last value (0 before any) */
    double *v_prev; /* n: the component before the update */
    double sign;
};

struct ari_ocpd {
    ari_repr *repr;
    ari_aff *aff;
    size_t points;
    size_t *changes;
    size_t n_changes, cap_changes;
};

void ari_ocpd_defaults(ari_ocpd_params *p)
{
    p->alpha = 0.01;
    p->eta = 0.01;
    p->burn_in = 10;
    p->lambda_min = 0.6;
    p->lambda_max = 1;
    p->forget = 1;
}

static ari_repr *repr_new(size_t n, double forget)
{
    ari_repr *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->sign = 1;
    r->pca = ari_ipca_new(1, n, forget);
    r->last = calloc(n + 1, sizeof *r->last);
    r->v_prev = calloc(n + 1, sizeof *r->v_prev);
    r->n = n;
    if (!r->pca || !r->last || !r->v_prev) {
        ari_repr_free(r);
        return NULL;
    }
    return r;
}

ari_repr *ari_repr_new(size_t n) { return repr_new(n, 1); }

void ari_repr_free(ari_repr *r)
{
    if (!r)
        return;
    ari_ipca_free(r->pca);
    free(r->last);
    free(r->v_prev);
    free(r);
}

void ari_repr_reset(ari_repr *r)
{
    ari_ipca_reset(r->pca);
    memset(r->last, 0, (r->n + 1) * sizeof *r->last);
    r->sign = 1;
}

static int repr_grow(ari_repr *r, size_t n)
{
    if (n <= r->n)
        return 0;
    double *last = realloc(r->last, (n + 1) * sizeof *last);
    if (!last)
        return -1;
    r->last = last;
    double *vp = realloc(r->v_prev, (n + 1) * sizeof *vp);
    if (!vp)
        return -1;
    r->v_prev = vp;
    memset(&r->last[r->n], 0, (n - r->n) * sizeof *last);
    if (ari_ipca_grow(r->pca, n) != 0)
        return -1;
    r->n = n;
    return 0;
}

int ari_repr_push(ari_repr *r, const double *x, size_t n, double *value)
{
    if (repr_grow(r, n) != 0)
        return -1;
    size_t d = r->n;
    for (size_t j = 0; j < n; j++)
        if (!isnan(x[j]))
            r->last[j] = x[j];
    memcpy(r->v_prev, ari_ipca_components(r->pca), d * sizeof *r->v_prev);
    if (ari_ipca_partial_fit(r->pca, r->last, 1, d) != 0)
        return -1;
    const double *v = ari_ipca_components(r->pca);
    double dot = 0;
    for (size_t j = 0; j < d; j++)
        dot += r->v_prev[j] * v[j];
    if (dot < 0)
        r->sign = -r->sign;
    double proj;
    ari_ipca_transform(r->pca, r->last, 1, &proj);
    if (value)
        *value = r->sign * proj;
    return 0;
}

ari_ocpd *ari_ocpd_new(const ari_ocpd_params *p, size_t n_entities)
{
    ari_ocpd_params def;
    if (!p) {
        ari_ocpd_defaults(&def);
        p = &def;
    }
    ari_ocpd *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->repr = repr_new(n_entities, p->forget);
    c->aff = ari_aff_new(p->alpha, p->eta, p->burn_in, p->lambda_min, p->lambda_max);
    if (!c->repr || !c->aff) {
        ari_ocpd_free(c);
        return NULL;
    }
    return c;
}

void ari_ocpd_free(ari_ocpd *c)
{
    if (!c)
        return;
    ari_repr_free(c->repr);
    ari_aff_free(c->aff);
    free(c->changes);
    free(c);
}

int ari_ocpd_push(ari_ocpd *c, const double *x, size_t n, double *value)
{
    double v;
    if (ari_repr_push(c->repr, x, n, &v) != 0)
        return -1;
    if (value)
        *value = v;
    size_t t = c->points++;
    if (!ari_aff_push(c->aff, v, NULL))
        return 0;
    if (c->n_changes == c->cap_changes) {
        size_t cap = c->cap_changes ? 2 * c->cap_changes : 16;
        size_t *ch = realloc(c->changes, cap * sizeof *ch);
        if (!ch)
            return -1;
        c->changes = ch;
        c->cap_changes = cap;
    }
    c->changes[c->n_changes++] = t;
    return 1;
}

size_t ari_ocpd_changes(const ari_ocpd *c, const size_t **idx)
{
    if (idx)
        *idx = c->changes;
    return c->n_changes;
}

size_t ari_ocpd_points(const ari_ocpd *c) { return c->points; }
void ari_ocpd_set_alpha(ari_ocpd *c, double alpha) { ari_aff_set_alpha(c->aff, alpha); }
