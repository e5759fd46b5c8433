/* progressive_kmeans.c: mini-batch k-means within a latency budget with
 * cluster labels kept consistent between time points (the contract is in
 * progressive_kmeans.h). */
#include "analysis/progressive_kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

struct ari_pkm {
    int k;
    uint64_t seed, rng;
    int *prev;        /* previous labels */
    size_t prev_n;
    size_t *order;    /* the last step's order */
    size_t order_n;
};

/* splitmix64 */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double next_uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) / 9007199254740992.0; }

static void shuffle(size_t *a, size_t n, uint64_t *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_u64(rng) % i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static inline double val(double x) { return x == x ? x : 0; }

static double dist2(const double *x, const double *c, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++) {
        double e = val(x[j]) - c[j];
        s += e * e;
    }
    return s;
}

static int nearest(const double *x, const double *C, int k, size_t d)
{
    int best = 0;
    double bd = dist2(x, C, d);
    for (int c = 1; c < k; c++) {
        double dd = dist2(x, &C[(size_t)c * d], d);
        if (dd < bd) {
            bd = dd;
            best = c;
        }
    }
    return best;
}

ari_pkm *ari_pkm_new(int k, uint64_t seed)
{
    if (k < 1)
        return NULL;
    ari_pkm *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->k = k;
    s->seed = s->rng = seed;
    return s;
}

void ari_pkm_reset(ari_pkm *s)
{
    free(s->prev);
    free(s->order);
    s->prev = NULL;
    s->order = NULL;
    s->prev_n = s->order_n = 0;
    s->rng = s->seed;
}

void ari_pkm_free(ari_pkm *s)
{
    if (!s)
        return;
    ari_pkm_reset(s);
    free(s);
}

void ari_pkm_result_free(ari_pkm_result *r)
{
    if (!r)
        return;
    free(r->labels);
    free(r->sizes);
    free(r->centers);
    memset(r, 0, sizeof *r);
}

int ari_pkm_order(ari_pkm *s, size_t n, size_t *order)
{
    size_t j = 0;
    for (size_t i = 0; i < s->order_n && j < n; i++)
        if (s->order[i] < n)
            order[j++] = s->order[i];
    for (size_t i = s->order_n; i < n; i++)
        order[j++] = i;
    return 0;
}

/* Step 1 of the header: the round-robin order into order (n). */
static int make_order(ari_pkm *s, size_t n, size_t *order)
{
    size_t kp = 0, known = s->prev_n < n ? s->prev_n : n;
    for (size_t i = 0; i < known; i++)
        if ((size_t)s->prev[i] + 1 > kp)
            kp = (size_t)s->prev[i] + 1;
    size_t *count = calloc(kp + 1, sizeof *count), *start = calloc(kp + 1, sizeof *start);
    size_t *rank = calloc(kp + 1, sizeof *rank), *members = malloc((known + 1) * sizeof *members);
    int rc = -1;
    if (count && start && rank && members) {
        for (size_t i = 0; i < known; i++)
            count[s->prev[i]]++;
        for (size_t c = 0; c < kp; c++) /* clusters by size desc, ties lower first */
            rank[c] = c;
        for (size_t a = 1; a < kp; a++)
            for (size_t b = a; b > 0 && count[rank[b]] > count[rank[b - 1]]; b--) {
                size_t t = rank[b];
                rank[b] = rank[b - 1];
                rank[b - 1] = t;
            }
        for (size_t c = 1; c < kp; c++)
            start[c] = start[c - 1] + count[c - 1];
        size_t *pos = calloc(kp + 1, sizeof *pos);
        if (pos) {
            memcpy(pos, start, kp * sizeof *pos);
            for (size_t i = 0; i < known; i++)
                members[pos[s->prev[i]]++] = i;
            for (size_t c = 0; c < kp; c++)
                shuffle(&members[start[c]], count[c], &s->rng);
            size_t j = 0;
            for (size_t turn = 0; j < known; turn++)
                for (size_t r = 0; r < kp; r++) {
                    size_t c = rank[r];
                    if (turn < count[c])
                        order[j++] = members[start[c] + turn];
                }
            for (size_t i = known; i < n; i++)
                order[i] = i;
            shuffle(&order[known], n - known, &s->rng);
            free(pos);
            rc = 0;
        }
    }
    free(count);
    free(start);
    free(rank);
    free(members);
    return rc;
}

typedef struct pkm_run {
    const double *X;
    size_t n, d;
    int k;
    double *C;    /* k x d */
    double *v;    /* k: counts */
    int *lab;     /* n: scratch labels */
} pkm_run;

/* k-means++ on the batch rows into C (near: m scratch). */
static void init_centres(pkm_run *r, const size_t *batch, size_t m, uint64_t *rng, double *near)
{
    size_t d = r->d;
    size_t first = batch[(size_t)(next_uniform(rng) * (double)m)];
    for (size_t j = 0; j < d; j++)
        r->C[j] = val(r->X[first * d + j]);
    for (size_t i = 0; i < m; i++)
        near[i] = dist2(&r->X[batch[i] * d], r->C, d);
    for (int c = 1; c < r->k; c++) {
        double total = 0;
        for (size_t i = 0; i < m; i++)
            total += near[i];
        size_t pick = batch[c % m];
        if (total > 0) {
            double target = next_uniform(rng) * total, acc = 0;
            int found = 0;
            for (size_t i = 0; i < m && !found; i++) {
                acc += near[i];
                if (near[i] > 0 && acc > target) {
                    pick = batch[i];
                    found = 1;
                }
            }
            for (size_t i = m; !found && i-- > 0;)
                if (near[i] > 0) {
                    pick = batch[i];
                    found = 1;
                }
        }
        double *cc = &r->C[(size_t)c * d];
        for (size_t j = 0; j < d; j++)
            cc[j] = val(r->X[pick * d + j]);
        for (size_t i = 0; i < m; i++)
            near[i] = fmin(near[i], dist2(&r->X[batch[i] * d], cc, d));
    }
}

/* One mini-batch step; returns how many labels changed. */
static size_t mini_batch(pkm_run *r, const size_t *batch, size_t m)
{
    size_t d = r->d, changed = 0;
    int near[64];
    for (size_t i = 0; i < m; i++)
        near[i] = nearest(&r->X[batch[i] * d], r->C, r->k, d);
    for (size_t i = 0; i < m; i++) {
        int c = near[i];
        changed += r->lab[batch[i]] != c;
        r->lab[batch[i]] = c;
        r->v[c] += 1;
        double eta = 1 / r->v[c], *cc = &r->C[(size_t)c * d];
        const double *x = &r->X[batch[i] * d];
        for (size_t j = 0; j < d; j++)
            cc[j] += eta * (val(x[j]) - cc[j]);
    }
    return changed;
}

/* Lloyd iterations from C until no label changes (at most 300). */
static int lloyd(pkm_run *r)
{
    size_t d = r->d, k = (size_t)r->k;
    size_t *cnt = calloc(k, sizeof *cnt);
    if (!cnt)
        return -1;
    for (int it = 0; it < 300; it++) {
        size_t changed = 0;
        for (size_t i = 0; i < r->n; i++) {
            int c = nearest(&r->X[i * d], r->C, r->k, d);
            changed += r->lab[i] != c;
            r->lab[i] = c;
        }
        if (changed == 0 && it > 0)
            break;
        memset(cnt, 0, k * sizeof *cnt);
        for (size_t i = 0; i < r->n; i++)
            cnt[r->lab[i]]++;
        for (size_t c = 0; c < k; c++)
            if (cnt[c])
                memset(&r->C[c * d], 0, d * sizeof *r->C);
        for (size_t i = 0; i < r->n; i++)
            for (size_t j = 0; j < d; j++)
                r->C[(size_t)r->lab[i] * d + j] += val(r->X[i * d + j]);
        for (size_t c = 0; c < k; c++)
            for (size_t j = 0; cnt[c] && j < d; j++)
                r->C[c * d + j] /= (double)cnt[c];
    }
    free(cnt);
    return 0;
}

static double wcss_of(const pkm_run *r)
{
    double s = 0;
    for (size_t i = 0; i < r->n; i++)
        s += dist2(&r->X[i * r->d], &r->C[(size_t)r->lab[i] * r->d], r->d);
    return s;
}

/* One pass of mini-batches over the order; returns the labels changed. */
static size_t pass(pkm_run *r, const size_t *order)
{
    size_t m = (size_t)r->k, changed = 0;
    for (size_t pos = 0; pos < r->n; pos += m)
        changed += mini_batch(r, &order[pos], r->n - pos < m ? r->n - pos : m);
    return changed;
}

/* The unlimited budget: ARI_KMEANS_RESTARTS times k-means++ over all the
 * entities, mini-batch passes until no label changes, Lloyd; keeps the
 * centres of the least within-cluster sum of squares (the first on a tie).
 * 0, or -1 when out of memory. */
static int fit_full(pkm_run *r, const size_t *order, uint64_t *rng)
{
    size_t kd = (size_t)r->k * r->d;
    double *near = malloc(r->n * sizeof *near), *best = malloc(kd * sizeof *best + 1), best_w = INFINITY;
    int rc = near && best ? 0 : -1;
    for (int rs = 0; rc == 0 && rs < ARI_PKM_RESTARTS; rs++) {
        for (size_t i = 0; i < r->n; i++)
            r->lab[i] = -1;
        memset(r->v, 0, (size_t)r->k * sizeof *r->v);
        init_centres(r, order, r->n, rng, near);
        for (int e = 0; e < ARI_PKM_MAX_EPOCHS && pass(r, order) > 0; e++)
            ;
        rc = lloyd(r);
        double w = wcss_of(r);
        if (rc == 0 && w < best_w) {
            best_w = w;
            memcpy(best, r->C, kd * sizeof *best);
        }
    }
    if (rc == 0)
        memcpy(r->C, best, kd * sizeof *best);
    free(near);
    free(best);
    return rc;
}

/* Batches in order from a k-means++ start on the first batch until the
 * deadline or all are processed (deadline > 0), else fit_full. Returns
 * processed, or (size_t)-1 when out of memory. */
static size_t fit(pkm_run *r, const size_t *order, double deadline, uint64_t *rng)
{
    size_t m = (size_t)r->k, processed = 0;
    if (deadline <= 0)
        return fit_full(r, order, rng) == 0 ? r->n : (size_t)-1;
    for (size_t i = 0; i < r->n; i++)
        r->lab[i] = -1;
    double near[64];
    init_centres(r, order, m < r->n ? m : r->n, rng, near);
    for (size_t pos = 0; pos < r->n; pos += m) {
        size_t b = r->n - pos < m ? r->n - pos : m;
        mini_batch(r, &order[pos], b);
        processed = pos + b;
        if (ari_now() >= deadline)
            break;
    }
    return processed;
}

/* Step 5: map[current] = final label, from the contingency table against
 * the previous labels over the entities both have, in order. */
static int relabel_map(const ari_pkm *s, const size_t *order, size_t n, const int *lab, int k, const size_t *sizes,
                       int *map)
{
    size_t kk = (size_t)k;
    size_t *cnt = calloc(kk * kk, sizeof *cnt);
    int *cur = malloc(kk * sizeof *cur), *used = calloc(kk, sizeof *used);
    if (!cnt || !cur || !used) {
        free(cnt);
        free(cur);
        free(used);
        return -1;
    }
    for (size_t p = 0; p < n; p++) {
        size_t i = order[p];
        if (i < s->prev_n && s->prev[i] >= 0 && s->prev[i] < k)
            cnt[(size_t)lab[i] * kk + (size_t)s->prev[i]]++;
    }
    for (int c = 0; c < k; c++)
        cur[c] = c;
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && sizes[cur[b]] > sizes[cur[b - 1]]; b--) {
            int t = cur[b];
            cur[b] = cur[b - 1];
            cur[b - 1] = t;
        }
    for (int r = 0; r < k; r++) {
        int c = cur[r], best = -1;
        for (int q = 0; q < k; q++)
            if (!used[q] && cnt[(size_t)c * kk + (size_t)q] > 0 &&
                (best < 0 || cnt[(size_t)c * kk + (size_t)q] > cnt[(size_t)c * kk + (size_t)best]))
                best = q;
        for (int q = 0; q < k && best < 0; q++)
            if (!used[q])
                best = q;
        used[best] = 1;
        map[c] = best;
    }
    free(cnt);
    free(cur);
    free(used);
    return 0;
}

/* Steps 4-5 and the result. */
static int finish(ari_pkm *s, pkm_run *r, const size_t *order, ari_pkm_result *out)
{
    size_t n = r->n, d = r->d, k = (size_t)r->k;
    out->labels = malloc(n * sizeof *out->labels);
    out->sizes = calloc(k, sizeof *out->sizes);
    out->centers = malloc(k * d * sizeof *out->centers + 1);
    size_t *sz = calloc(k, sizeof *sz);
    int *map = malloc(k * sizeof *map);
    int rc = -1;
    if (out->labels && out->sizes && out->centers && sz && map) {
        for (size_t i = 0; i < n; i++) {
            r->lab[i] = nearest(&r->X[i * d], r->C, r->k, d);
            sz[r->lab[i]]++;
        }
        if (relabel_map(s, order, n, r->lab, r->k, sz, map) == 0) {
            for (size_t i = 0; i < n; i++)
                out->labels[i] = map[r->lab[i]];
            for (size_t c = 0; c < k; c++) {
                out->sizes[map[c]] = sz[c];
                memcpy(&out->centers[(size_t)map[c] * d], &r->C[c * d], d * sizeof *r->C);
            }
            rc = 0;
        }
    }
    free(sz);
    free(map);
    return rc;
}

/* Keeps the labels and the order for the next step. */
static int remember(ari_pkm *s, const ari_pkm_result *out, size_t *order)
{
    int *prev = realloc(s->prev, (out->n + 1) * sizeof *prev);
    if (!prev)
        return -1;
    s->prev = prev;
    memcpy(prev, out->labels, out->n * sizeof *prev);
    s->prev_n = out->n;
    free(s->order);
    s->order = order;
    s->order_n = out->n;
    return 0;
}

int ari_pkm_step(ari_pkm *s, const double *X, size_t n, size_t d, double budget_ms, ari_pkm_result *out,
                 ari_error *err)
{
    double t0 = ari_now();
    memset(out, 0, sizeof *out);
    if (n == 0) { /* empty, but with buffers, so that callers may copy 0 bytes from them */
        out->labels = malloc(sizeof *out->labels);
        out->sizes = malloc(sizeof *out->sizes);
        out->centers = malloc(sizeof *out->centers);
        if (!out->labels || !out->sizes || !out->centers) {
            ari_pkm_result_free(out);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        return 0;
    }
    if (d == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progressive k-means: no time points");
    int k = (size_t)s->k < n ? s->k : (int)n;
    if (k > 64)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progressive k-means: k %d > 64", k);
    size_t *order = malloc(n * sizeof *order);
    pkm_run r = {X, n, d, k, malloc((size_t)k * d * sizeof *r.C + 1), calloc((size_t)k, sizeof *r.v),
                 malloc(n * sizeof *r.lab)};
    int rc = -1;
    if (order && r.C && r.v && r.lab && make_order(s, n, order) == 0) {
        double deadline = budget_ms > 0 ? t0 + budget_ms / 1000 : 0;
        size_t processed = fit(&r, order, deadline, &s->rng);
        out->k = k;
        out->n = n;
        out->d = d;
        out->processed = processed;
        if (processed != (size_t)-1 && finish(s, &r, order, out) == 0 && remember(s, out, order) == 0) {
            order = NULL;
            rc = 0;
        }
    }
    free(order);
    free(r.C);
    free(r.v);
    free(r.lab);
    if (rc != 0) {
        ari_pkm_result_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    out->latency_ms = (ari_now() - t0) * 1000;
    return 0;
}
