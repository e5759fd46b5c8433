/* hclust.c: complete-linkage hierarchical clustering with R's merge,
 * height and order conventions, and the cut at k clusters (the contract
 * is in hclust.h). */
#include "analysis/hclust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define HC_INF 1e300 /* hclust.f's INF */

typedef struct hc_work {
    int n;
    double *diss; /* packed upper triangle, row i holds (i, i+1..n-1) */
    int *nn;
    double *disnn;
    unsigned char *alive;
    const int *cancel; /* optional flag (hclust.h) */
} hc_work;

static inline size_t tri(int n, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    return (size_t)i * n - (size_t)i * (i + 1) / 2 + (size_t)(j - i - 1);
}

/* The nearest live cluster to the right of i. */
static void nearest_right(hc_work *w, int i)
{
    double dmin = HC_INF;
    int jm = w->nn[i];
    for (int j = i + 1; j < w->n; j++)
        if (w->alive[j] && w->diss[tri(w->n, i, j)] < dmin) {
            dmin = w->diss[tri(w->n, i, j)];
            jm = j;
        }
    w->nn[i] = jm;
    w->disnn[i] = dmin;
}

/* Merges j2 into i2 (i2 < j2): complete-linkage distances of the union. */
static void merge_into(hc_work *w, int i2, int j2)
{
    double dmin = HC_INF;
    int jj = w->nn[i2];
    for (int k = 0; k < w->n; k++) {
        if (!w->alive[k] || k == i2)
            continue;
        size_t ind1 = tri(w->n, i2, k), ind2 = tri(w->n, j2, k);
        if (w->diss[ind2] > w->diss[ind1])
            w->diss[ind1] = w->diss[ind2];
        if (i2 < k) {
            if (w->diss[ind1] < dmin) {
                dmin = w->diss[ind1];
                jj = k;
            }
        } else if (w->diss[ind1] < w->disnn[k]) {
            w->disnn[k] = w->diss[ind1];
            w->nn[k] = i2;
        }
    }
    w->disnn[i2] = dmin;
    w->nn[i2] = jj;
    for (int i = 0; i < w->n - 1; i++)
        if (w->alive[i] && (w->nn[i] == i2 || w->nn[i] == j2))
            nearest_right(w, i);
}

/* The n-1 merges as pairs of point indices (the lower one names the
 * union) with their heights; -1 when the cancel flag was seen (checked
 * before each merge). */
static int agglomerate(hc_work *w, int *ia, int *ib, double *crit)
{
    int n = w->n;
    for (int i = 0; i < n - 1; i++) {
        w->nn[i] = i + 1;
        nearest_right(w, i);
    }
    for (int s = 0; s < n - 1; s++) {
        if (w->cancel && __atomic_load_n(w->cancel, __ATOMIC_RELAXED))
            return -1;
        double dmin = HC_INF;
        int im = 0, jm = 1;
        for (int i = 0; i < n - 1; i++)
            if (w->alive[i] && w->disnn[i] < dmin) {
                dmin = w->disnn[i];
                im = i;
                jm = w->nn[i];
            }
        int i2 = im < jm ? im : jm, j2 = im < jm ? jm : im;
        ia[s] = i2;
        ib[s] = j2;
        crit[s] = dmin;
        w->alive[j2] = 0;
        merge_into(w, i2, j2);
    }
    return 0;
}

/* R's merge matrix (hcass2): a point as -(i+1), a cluster as its step + 1. */
static void to_merge_matrix(int n, const int *ia, const int *ib, int *merge, int *last)
{
    for (int i = 0; i < n; i++)
        last[i] = -1;
    for (int s = 0; s < n - 1; s++) {
        int a = last[ia[s]] >= 0 ? last[ia[s]] + 1 : -(ia[s] + 1);
        int b = last[ib[s]] >= 0 ? last[ib[s]] + 1 : -(ib[s] + 1);
        if (a > 0 && b < 0) {
            int t = a;
            a = b;
            b = t;
        }
        if (a > 0 && b > 0 && a > b) {
            int t = a;
            a = b;
            b = t;
        }
        merge[2 * s] = a;
        merge[2 * s + 1] = b;
        last[ia[s]] = s;
    }
}

/* Leaves left to right: depth first from the last merge, left first. */
static void dendrogram_order(int n, const int *merge, int *order, int *stack)
{
    if (n == 1) {
        order[0] = 0;
        return;
    }
    int top = 0, out = 0;
    stack[top++] = n - 1; /* the last step, 1-based */
    while (top > 0) {
        int e = stack[--top];
        if (e < 0) {
            order[out++] = -e - 1;
            continue;
        }
        stack[top++] = merge[2 * (e - 1) + 1];
        stack[top++] = merge[2 * (e - 1)];
    }
}

void ari_hclust_free(ari_hclust_result *h)
{
    if (!h)
        return;
    free(h->merge);
    free(h->height);
    free(h->order);
    free(h);
}

static int check_input(const double *dist, int n, ari_error *err)
{
    if (n < 1 || n > ARI_HCLUST_MAX_POINTS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "hclust: %d points (1 to %d)", n, ARI_HCLUST_MAX_POINTS);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!isfinite(dist[(size_t)i * n + j]))
                return ari_error_set(err, ARI_E_INVALID_PARAMETER, "hclust: distance (%d, %d) is not finite", i, j);
    return 0;
}

ari_hclust_result *ari_hclust_complete(const double *dist, int n, ari_error *err)
{
    return ari_hclust_complete_cancellable(dist, n, NULL, err);
}

ari_hclust_result *ari_hclust_complete_cancellable(const double *dist, int n, const int *cancel,
                                                   ari_error *err)
{
    if (check_input(dist, n, err) < 0)
        return NULL;
    ari_hclust_result *h = ari_zalloc(sizeof *h, err);
    if (!h)
        return NULL;
    h->n = n;
    size_t pairs = (size_t)n * (n - 1) / 2;
    hc_work w = {.n = n, .cancel = cancel};
    w.diss = malloc((pairs ? pairs : 1) * sizeof *w.diss);
    w.nn = calloc((size_t)n, sizeof *w.nn);
    w.disnn = malloc((size_t)n * sizeof *w.disnn);
    w.alive = malloc((size_t)n);
    int *ia = malloc((size_t)n * sizeof *ia), *ib = malloc((size_t)n * sizeof *ib);
    int *scratch = malloc((size_t)(n + 1) * sizeof *scratch);
    h->merge = malloc((size_t)2 * n * sizeof *h->merge);
    h->height = malloc((size_t)n * sizeof *h->height);
    h->order = malloc((size_t)n * sizeof *h->order);
    if (!w.diss || !w.nn || !w.disnn || !w.alive || !ia || !ib || !scratch || !h->merge || !h->height || !h->order) {
        ari_hclust_free(h);
        h = NULL;
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                w.diss[tri(n, i, j)] = dist[(size_t)i * n + j];
        memset(w.alive, 1, (size_t)n);
        if (agglomerate(&w, ia, ib, h->height) < 0) {
            ari_hclust_free(h);
            h = NULL;
            ari_error_set(err, ARI_E_CANCELLED, "hierarchical clustering cancelled");
        } else {
            to_merge_matrix(n, ia, ib, h->merge, scratch);
            dendrogram_order(n, h->merge, h->order, scratch);
        }
    }
    free(w.diss);
    free(w.nn);
    free(w.disnn);
    free(w.alive);
    free(ia);
    free(ib);
    free(scratch);
    return h;
}

static int find_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

int ari_hclust_cut(const ari_hclust_result *h, int k, int *labels, ari_error *err)
{
    int n = h->n;
    if (k < 1 || k > n)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cut at %d clusters of %d points", k, n);
    int *parent = malloc((size_t)n * sizeof *parent), *rep = malloc((size_t)n * sizeof *rep);
    int *num = malloc((size_t)n * sizeof *num);
    if (!parent || !rep || !num) {
        free(parent);
        free(rep);
        free(num);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        num[i] = -1;
    }
    for (int s = 0; s < n - k; s++) {
        int e[2] = {h->merge[2 * s], h->merge[2 * s + 1]};
        int r[2];
        for (int q = 0; q < 2; q++)
            r[q] = find_root(parent, e[q] < 0 ? -e[q] - 1 : rep[e[q] - 1]);
        parent[r[1]] = r[0];
        rep[s] = r[0];
    }
    int clusters = 0;
    for (int i = 0; i < n; i++) {
        int root = find_root(parent, i);
        if (num[root] < 0)
            num[root] = clusters++;
        labels[i] = num[root];
    }
    free(parent);
    free(rep);
    free(num);
    return 0;
}
