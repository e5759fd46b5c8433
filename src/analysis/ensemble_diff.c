/* ensemble_diff.c: the target-target difference (ensemble_diff.h). */
#include "analysis/ensemble_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct proc_key {
    int rank, thread, index;
} proc_key;

static int cmp_key(const void *x, const void *y)
{
    const proc_key *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static proc_key *sorted_keys(const int *rank, const int *thread, int n)
{
    proc_key *k = malloc(((size_t)n + 1) * sizeof *k);
    for (int p = 0; k && p < n; p++)
        k[p] = (proc_key){rank ? rank[p] : p, thread ? thread[p] : 0, p};
    if (k)
        qsort(k, (size_t)n, sizeof *k, cmp_key);
    return k;
}

static void merge(const proc_key *ka, int na, const proc_key *kb, int nb, ari_ediff_match *m)
{
    int i = 0, j = 0;
    m->n = 0;
    while (i < na || j < nb) {
        int c = i >= na   ? 1
                : j >= nb ? -1
                          : (ka[i].rank != kb[j].rank       ? (ka[i].rank < kb[j].rank ? -1 : 1)
                             : ka[i].thread != kb[j].thread ? (ka[i].thread < kb[j].thread ? -1 : 1)
                                                            : 0);
        const proc_key *k = c <= 0 ? &ka[i] : &kb[j];
        m->rank[m->n] = k->rank;
        m->thread[m->n] = k->thread;
        m->a[m->n] = c <= 0 ? ka[i++].index : -1;
        m->b[m->n] = c >= 0 ? kb[j++].index : -1;
        m->n++;
    }
}

int ari_ediff_match_build(const int *rank_a, const int *thread_a, int na, const int *rank_b,
                          const int *thread_b, int nb, ari_ediff_match *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = (size_t)na + (size_t)nb + 1;
    out->a = malloc(cap * sizeof(int));
    out->b = malloc(cap * sizeof(int));
    out->rank = malloc(cap * sizeof(int));
    out->thread = malloc(cap * sizeof(int));
    proc_key *ka = sorted_keys(rank_a, thread_a, na), *kb = sorted_keys(rank_b, thread_b, nb);
    int ok = out->a && out->b && out->rank && out->thread && ka && kb;
    if (ok)
        merge(ka, na, kb, nb, out);
    free(ka);
    free(kb);
    if (ok)
        return 0;
    ari_ediff_match_free(out);
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

void ari_ediff_match_free(ari_ediff_match *m)
{
    free(m->a);
    free(m->b);
    free(m->rank);
    free(m->thread);
    memset(m, 0, sizeof *m);
}

static double at(const double *x, int i)
{
    return x && i >= 0 && !isnan(x[i]) ? x[i] : 0;
}

void ari_ediff_ranks(const ari_ediff_match *m, const double *xa, const double *xb, double *d)
{
    for (int k = 0; k < m->n; k++)
        d[k] = at(xa, m->a[k]) - at(xb, m->b[k]);
}

double ari_ediff_delta(double mean_a, double mean_b)
{
    if (isnan(mean_a) && isnan(mean_b))
        return NAN;
    return (isnan(mean_a) ? 0 : mean_a) - (isnan(mean_b) ? 0 : mean_b);
}
