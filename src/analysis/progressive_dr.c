/* progressive_dr.c: incremental PCA over entities within a latency budget,
 * aligned onto the previous layout (the contract is in progressive_dr.h). */
#include "analysis/progressive_dr.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/incremental_pca.h"
#include "analysis/procrustes.h"
#include "util/clock.h"

struct ari_pdr {
    double *prev; /* prev_n x 2 */
    size_t prev_n;
};

ari_pdr *ari_pdr_new(void) { return calloc(1, sizeof(ari_pdr)); }

void ari_pdr_reset(ari_pdr *s)
{
    free(s->prev);
    s->prev = NULL;
    s->prev_n = 0;
}

void ari_pdr_free(ari_pdr *s)
{
    if (!s)
        return;
    ari_pdr_reset(s);
    free(s);
}

static inline double val(double x) { return x == x ? x : 0; }

/* Fits batches of 2 (3 when 3 are left) in order until the deadline (0:
 * none). Returns the entities fitted, or (size_t)-1 when out of memory. */
static size_t fit(ari_ipca *pca, const double *X, size_t n, size_t d, const size_t *order, double deadline,
                  double *buf)
{
    size_t pos = 0;
    while (pos < n) {
        size_t b = n - pos == 3 ? 3 : (n - pos < 2 ? n - pos : 2);
        for (size_t i = 0; i < b; i++) {
            size_t e = order ? order[pos + i] : pos + i;
            const double *x = &X[e * d];
            for (size_t j = 0; j < d; j++)
                buf[i * d + j] = val(x[j]);
        }
        if (ari_ipca_partial_fit(pca, buf, b, d) != 0)
            return (size_t)-1;
        pos += b;
        if (deadline > 0 && ari_now() >= deadline)
            break;
    }
    return pos;
}

/* xy[i] = (X[i] - mean) . V (NaN as 0). */
static void project(const ari_ipca *pca, const double *X, size_t n, size_t d, double *xy)
{
    const double *mu = ari_ipca_mean(pca), *V = ari_ipca_components(pca);
    for (size_t i = 0; i < n; i++) {
        const double *x = &X[i * d];
        double a = 0, b = 0;
        for (size_t j = 0; j < d; j++) {
            double c = val(x[j]) - mu[j];
            a += c * V[j];
            b += c * V[d + j];
        }
        xy[2 * i] = a;
        xy[2 * i + 1] = b;
    }
}

static int remember(ari_pdr *s, const double *xy, size_t n)
{
    double *p = realloc(s->prev, (2 * n + 1) * sizeof *p);
    if (!p)
        return -1;
    memcpy(p, xy, 2 * n * sizeof *p);
    s->prev = p;
    s->prev_n = n;
    return 0;
}

int ari_pdr_step(ari_pdr *s, const double *X, size_t n, size_t d, const size_t *order, double budget_ms,
                 double *xy, size_t *processed, ari_error *err)
{
    double t0 = ari_now();
    if (processed)
        *processed = 0;
    if (n == 0)
        return 0;
    if (d == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progressive DR: no time points");
    if (n == 1) {
        xy[0] = xy[1] = 0;
        if (processed)
            *processed = 1;
        return remember(s, xy, n) == 0 ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_ipca *pca = ari_ipca_new(ARI_PDR_KEEP, d, 1);
    double *buf = malloc(3 * d * sizeof *buf);
    size_t done = (size_t)-1;
    if (pca && buf)
        done = fit(pca, X, n, d, order, budget_ms > 0 ? t0 + budget_ms / 1000 : 0, buf);
    int rc = 0;
    if (done == (size_t)-1) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        project(pca, X, n, d, xy);
        ari_procrustes_align(s->prev, xy, s->prev_n < n ? s->prev_n : n, n);
        if (remember(s, xy, n) != 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (processed)
            *processed = done;
    }
    ari_ipca_free(pca);
    free(buf);
    return rc;
}
