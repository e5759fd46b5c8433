/* incremental_pca.c: Ross et al. incremental PCA with forgetting factor
 * (the contract is in incremental_pca.h). */
#include "analysis/incremental_pca.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "util/dot.h"

struct ari_ipca {
    int k;
    size_t d;
    double forget;
    double n;      /* effective rows seen (f-discounted) */
    size_t rows;   /* rows fed */
    double *mean;  /* d */
    double *S;     /* k */
    double *V;     /* k x d */
    double *M;     /* scratch: r x d */
    size_t m_cap;  /* doubles in M */
    double *mu_b;  /* scratch: d */
};

ari_ipca *ari_ipca_new(int k, size_t d, double forget)
{
    if (k < 1)
        return NULL;
    ari_ipca *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->k = k;
    p->forget = (forget <= 0 || forget > 1) ? 1.0 : forget;
    p->S = calloc((size_t)k, sizeof *p->S);
    if (!p->S || ari_ipca_grow(p, d) != 0) {
        ari_ipca_free(p);
        return NULL;
    }
    return p;
}

void ari_ipca_free(ari_ipca *p)
{
    if (!p)
        return;
    free(p->mean);
    free(p->S);
    free(p->V);
    free(p->M);
    free(p->mu_b);
    free(p);
}

void ari_ipca_reset(ari_ipca *p)
{
    p->n = 0;
    p->rows = 0;
    memset(p->mean, 0, (p->d ? p->d : 1) * sizeof *p->mean);
    memset(p->S, 0, (size_t)p->k * sizeof *p->S);
    memset(p->V, 0, ((size_t)p->k * p->d + 1) * sizeof *p->V);
}

int ari_ipca_grow(ari_ipca *p, size_t d_new)
{
    if (p->mean && d_new <= p->d)
        return 0;
    size_t d_old = p->mean ? p->d : 0, k = (size_t)p->k;
    if (d_new < d_old)
        d_new = d_old;
    double *mean = realloc(p->mean, (d_new + 1) * sizeof *mean);
    if (!mean)
        return -1;
    p->mean = mean;
    double *mu_b = realloc(p->mu_b, (d_new + 1) * sizeof *mu_b);
    if (!mu_b)
        return -1;
    p->mu_b = mu_b;
    double *V = calloc(k * d_new + 1, sizeof *V);
    if (!V)
        return -1;
    for (size_t c = 0; p->V && c < k; c++)
        memcpy(&V[c * d_new], &p->V[c * d_old], d_old * sizeof *V);
    free(p->V);
    p->V = V;
    memset(&p->mean[d_old], 0, (d_new - d_old + 1) * sizeof *mean);
    p->d = d_new;
    return 0;
}

const double *ari_ipca_components(const ari_ipca *p) { return p->V; }
const double *ari_ipca_mean(const ari_ipca *p) { return p->mean; }
const double *ari_ipca_singular(const ari_ipca *p) { return p->S; }
size_t ari_ipca_seen(const ari_ipca *p) { return p->rows; }
int ari_ipca_k(const ari_ipca *p) { return p->k; }
size_t ari_ipca_d(const ari_ipca *p) { return p->d; }

/* Builds M (see the header) into p->M; returns its row count, or 0 when
 * out of memory. */
static size_t build_m(ari_ipca *p, const double *B, size_t m)
{
    size_t d = p->d, k = (size_t)p->k, r = 0;
    size_t rmax = k + m + 1;
    if (rmax * d > p->m_cap) {
        double *M = realloc(p->M, rmax * d * sizeof *M);
        if (!M)
            return 0;
        p->M = M;
        p->m_cap = rmax * d;
    }
    double *mu_b = p->mu_b;
    memset(mu_b, 0, d * sizeof *mu_b);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < d; j++)
            mu_b[j] += B[i * d + j];
    for (size_t j = 0; j < d; j++)
        mu_b[j] /= (double)m;
    for (size_t c = 0; c < k; c++) {
        double s = p->forget * p->S[c];
        if (!(s > 0))
            continue;
        for (size_t j = 0; j < d; j++)
            p->M[r * d + j] = s * p->V[c * d + j];
        r++;
    }
    for (size_t i = 0; i < m; i++, r++)
        for (size_t j = 0; j < d; j++)
            p->M[r * d + j] = B[i * d + j] - mu_b[j];
    if (p->n > 0) {
        double w = sqrt(p->n * (double)m / (p->n + (double)m));
        for (size_t j = 0; j < d; j++)
            p->M[r * d + j] = w * (p->mean[j] - mu_b[j]);
        r++;
    }
    return r;
}

/* Dot product with four accumulators (no reassociation needed to pipeline). */
/* Columns per block of the Gram and back-projection loops: r rows of a block
 * stay in the L1/L2 cache while every pair is formed. */
#define IPCA_BLOCK 512

/* G (r x r, lower and upper) = M M^T, blockwise over the columns. */
static void gram(const double *M, size_t r, size_t d, gsl_matrix *G)
{
    gsl_matrix_set_zero(G);
    for (size_t j0 = 0; j0 < d; j0 += IPCA_BLOCK) {
        size_t len = d - j0 < IPCA_BLOCK ? d - j0 : IPCA_BLOCK;
        for (size_t a = 0; a < r; a++)
            for (size_t b = 0; b <= a; b++)
                *gsl_matrix_ptr(G, a, b) += ari_dot(&M[a * d + j0], &M[b * d + j0], len);
    }
    for (size_t a = 0; a < r; a++)
        for (size_t b = 0; b < a; b++)
            gsl_matrix_set(G, b, a, gsl_matrix_get(G, a, b));
}

/* V[c] = sum_a coef[c][a] M[a] for the k components (coef: k x r), blockwise. */
static void back_project(const double *M, size_t r, size_t d, const double *coef, size_t k, double *V)
{
    memset(V, 0, k * d * sizeof *V);
    for (size_t j0 = 0; j0 < d; j0 += IPCA_BLOCK) {
        size_t len = d - j0 < IPCA_BLOCK ? d - j0 : IPCA_BLOCK;
        for (size_t c = 0; c < k; c++) {
            double *v = &V[c * d + j0];
            for (size_t a = 0; a < r; a++) {
                double u = coef[c * r + a];
                const double *x = &M[a * d + j0];
                if (u != 0)
                    for (size_t j = 0; j < len; j++)
                        v[j] += u * x[j];
            }
        }
    }
}

/* Top singular values/right vectors of M (r x d, r < d) through the Gram
 * matrix M M^T: V = M^T U S^-1. 0, or -1 when out of memory. */
static int svd_gram(ari_ipca *p, size_t r)
{
    size_t d = p->d, k = (size_t)p->k;
    gsl_matrix *G = gsl_matrix_alloc(r, r), *U = gsl_matrix_alloc(r, r);
    gsl_vector *ev = gsl_vector_alloc(r);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(r);
    double *coef = calloc(k * r, sizeof *coef);
    int rc = -1;
    if (G && U && ev && w && coef) {
        gram(p->M, r, d, G);
        gsl_eigen_symmv(G, ev, U, w);
        gsl_eigen_symmv_sort(ev, U, GSL_EIGEN_SORT_VAL_DESC);
        double top = gsl_vector_get(ev, 0);
        for (size_t c = 0; c < k; c++) {
            double lam = c < r ? gsl_vector_get(ev, c) : 0;
            if (!(lam > 1e-13 * top) || !(lam > 0)) { /* below the Gram route's rounding */
                p->S[c] = 0;
                continue;
            }
            p->S[c] = sqrt(lam);
            for (size_t a = 0; a < r; a++)
                coef[c * r + a] = gsl_matrix_get(U, a, c) / p->S[c];
        }
        back_project(p->M, r, d, coef, k, p->V);
        rc = 0;
    }
    gsl_matrix_free(G);
    gsl_matrix_free(U);
    gsl_vector_free(ev);
    if (w)
        gsl_eigen_symmv_free(w);
    free(coef);
    return rc;
}

/* The same by gsl_linalg_SV_decomp on M itself (r >= d). */
static int svd_direct(ari_ipca *p, size_t r)
{
    size_t d = p->d, k = (size_t)p->k;
    gsl_matrix *A = gsl_matrix_alloc(r, d), *W = gsl_matrix_alloc(d, d);
    gsl_vector *S = gsl_vector_alloc(d), *work = gsl_vector_alloc(d);
    int rc = -1;
    if (A && W && S && work) {
        memcpy(A->data, p->M, r * d * sizeof *p->M);
        gsl_linalg_SV_decomp(A, W, S, work);
        double top = gsl_vector_get(S, 0);
        memset(p->V, 0, k * d * sizeof *p->V);
        for (size_t c = 0; c < k; c++) {
            double s = c < d ? gsl_vector_get(S, c) : 0;
            if (!(s > 1e-12 * top) || !(s > 0)) {
                p->S[c] = 0;
                continue;
            }
            p->S[c] = s;
            for (size_t j = 0; j < d; j++)
                p->V[c * d + j] = gsl_matrix_get(W, j, c);
        }
        rc = 0;
    }
    gsl_matrix_free(A);
    gsl_matrix_free(W);
    gsl_vector_free(S);
    gsl_vector_free(work);
    return rc;
}

/* Largest-magnitude loading of each component positive. */
static void fix_signs(ari_ipca *p)
{
    size_t d = p->d;
    for (int c = 0; c < p->k; c++) {
        double *v = &p->V[(size_t)c * d];
        size_t best = 0;
        for (size_t j = 1; j < d; j++)
            if (fabs(v[j]) > fabs(v[best]))
                best = j;
        if (d > 0 && v[best] < 0)
            for (size_t j = 0; j < d; j++)
                v[j] = -v[j];
    }
}

int ari_ipca_partial_fit(ari_ipca *p, const double *batch, size_t m, size_t d)
{
    if (m == 0)
        return 0;
    if (d < p->d || ari_ipca_grow(p, d) != 0)
        return -1;
    if (d == 0) {
        p->rows += m;
        p->n = p->forget * p->n + (double)m;
        return 0;
    }
    size_t r = build_m(p, batch, m);
    if (r == 0)
        return -1;
    int rc = r < d ? svd_gram(p, r) : svd_direct(p, r);
    if (rc != 0)
        return -1;
    fix_signs(p);
    double fn = p->forget * p->n, n = fn + (double)m;
    for (size_t j = 0; j < d; j++)
        p->mean[j] = (fn * p->mean[j] + (double)m * p->mu_b[j]) / n;
    p->n = n;
    p->rows += m;
    return 0;
}

void ari_ipca_transform(const ari_ipca *p, const double *rows, size_t m, double *out)
{
    size_t d = p->d, k = (size_t)p->k;
    for (size_t i = 0; i < m; i++)
        for (size_t c = 0; c < k; c++) {
            const double *x = &rows[i * d], *v = &p->V[c * d];
            double s = 0;
            for (size_t j = 0; j < d; j++)
                s += (x[j] - p->mean[j]) * v[j];
            out[i * k + c] = s;
        }
}
