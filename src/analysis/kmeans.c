/* kmeans.c: seeded k-means++ and Lloyd's iterations (the contract is in
 * kmeans.h). */
#include "analysis/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double next_uniform(uint64_t *s)
{
    return (double)(next_u64(s) >> 11) / 9007199254740992.0;
}

static double dist2(const double *a, const double *b, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

static int count_distinct(const double *x, int n, int d, int cap)
{
    int distinct = 0;
    for (int i = 0; i < n && distinct < cap; i++) {
        int seen = 0;
        for (int q = 0; q < i && !seen; q++)
            seen = memcmp(&x[(size_t)q * d], &x[(size_t)i * d], (size_t)d * sizeof *x) == 0;
        distinct += !seen;
    }
    return distinct;
}

/* k-means++: centres c (k x d); near[i] the squared distance of point i to
 * its nearest chosen centre (scratch). */
static void seed_centres(const double *x, int n, int d, int k, uint64_t *rng, double *c, double *near)
{
    int first = (int)(next_uniform(rng) * n);
    memcpy(c, &x[(size_t)first * d], (size_t)d * sizeof *c);
    for (int i = 0; i < n; i++)
        near[i] = dist2(&x[(size_t)i * d], c, d);
    for (int m = 1; m < k; m++) {
        double total = 0;
        for (int i = 0; i < n; i++)
            total += near[i];
        double target = next_uniform(rng) * total, acc = 0;
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++) {
            acc += near[i];
            if (near[i] > 0 && acc > target)
                pick = i;
        }
        for (int i = n - 1; pick < 0 && i >= 0; i--) /* rounding at the end */
            if (near[i] > 0)
                pick = i;
        memcpy(&c[(size_t)m * d], &x[(size_t)pick * d], (size_t)d * sizeof *c);
        for (int i = 0; i < n; i++)
            near[i] = fmin(near[i], dist2(&x[(size_t)i * d], &c[(size_t)m * d], d));
    }
}

/* Assigns every point to its nearest centre; returns how many changed. */
static int assign(const double *x, int n, int d, const double *c, int k, int *lab)
{
    int changed = 0;
    for (int i = 0; i < n; i++) {
        int best = 0;
        double bd = dist2(&x[(size_t)i * d], c, d);
        for (int m = 1; m < k; m++) {
            double dd = dist2(&x[(size_t)i * d], &c[(size_t)m * d], d);
            if (dd < bd) {
                bd = dd;
                best = m;
            }
        }
        changed += lab[i] != best;
        lab[i] = best;
    }
    return changed;
}

/* Moves each non-empty cluster's centre to its mean (cnt: k scratch). */
static void update(const double *x, int n, int d, double *c, int k, const int *lab, int *cnt)
{
    memset(cnt, 0, (size_t)k * sizeof *cnt);
    for (int i = 0; i < n; i++)
        cnt[lab[i]]++;
    for (int m = 0; m < k; m++)
        if (cnt[m] > 0)
            memset(&c[(size_t)m * d], 0, (size_t)d * sizeof *c);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++)
            c[(size_t)lab[i] * d + j] += x[(size_t)i * d + j];
    for (int m = 0; m < k; m++)
        for (int j = 0; cnt[m] > 0 && j < d; j++)
            c[(size_t)m * d + j] /= cnt[m];
}

static double wcss_of(const double *x, int n, int d, const double *c, const int *lab)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += dist2(&x[(size_t)i * d], &c[(size_t)lab[i] * d], d);
    return s;
}

/* Renumbers labels by first appearance. */
static void relabel(int *lab, int n, int k, int *map)
{
    for (int m = 0; m < k; m++)
        map[m] = -1;
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (map[lab[i]] < 0)
            map[lab[i]] = next++;
        lab[i] = map[lab[i]];
    }
}

typedef struct km_scratch {
    double *c, *near;
    int *lab, *cnt;
} km_scratch;

/* One restart into s->lab; returns its iterations. */
static int one_run(const double *x, int n, int d, int k, uint64_t *rng, km_scratch *s)
{
    seed_centres(x, n, d, k, rng, s->c, s->near);
    for (int i = 0; i < n; i++)
        s->lab[i] = -1;
    int it = 0;
    while (it < ARI_KMEANS_MAX_ITER && assign(x, n, d, s->c, k, s->lab) > 0) {
        update(x, n, d, s->c, k, s->lab, s->cnt);
        it++;
    }
    return it;
}

static void restarts(const double *x, int n, int d, int k, uint64_t seed, int *labels, ari_kmeans_result *out,
                     km_scratch *s)
{
    uint64_t rng = seed;
    out->wcss = INFINITY;
    for (int r = 0; r < ARI_KMEANS_RESTARTS; r++) {
        int it = one_run(x, n, d, k, &rng, s);
        double w = wcss_of(x, n, d, s->c, s->lab);
        if (w < out->wcss) {
            out->wcss = w;
            out->iterations = it;
            memcpy(labels, s->lab, (size_t)n * sizeof *labels);
        }
    }
    relabel(labels, n, k, s->cnt);
}

int ari_kmeans(const double *x, int n, int d, int k, uint64_t seed, int *labels, ari_kmeans_result *out,
               ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (n <= 0 || k <= 0)
        return 0;
    k = count_distinct(x, n, d, k);
    out->k_used = k;
    km_scratch s = {malloc((size_t)k * d * sizeof *s.c + 1), malloc((size_t)n * sizeof *s.near),
                    malloc((size_t)n * sizeof *s.lab), malloc((size_t)k * sizeof *s.cnt)};
    int rc = 0;
    if (!s.c || !s.near || !s.lab || !s.cnt)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    else
        restarts(x, n, d, k, seed, labels, out, &s);
    free(s.c);
    free(s.near);
    free(s.lab);
    free(s.cnt);
    return rc;
}
