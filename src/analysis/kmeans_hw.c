/* kmeans_hw.c: Hartigan-Wong k-means (AS 136) with seeded random starts
 * run on several threads (the contract is in kmeans_hw.h). The stages
 * follow R's kmns.f: the same arithmetic in the same order, points and
 * steps counted from 1 where the algorithm compares them, clusters from 0. */
#include "analysis/kmeans_hw.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

/* AS 136's BIG, a REAL constant 1.E30 widened to double */
#define HW_BIG ((double)1.0e30f)

/* The working state of one start (AS 136's arrays). */
typedef struct hw_state {
    int m, p, k;
    double *c;   /* k x p centres */
    int *ic1, *ic2, *nc, *ncp, *itran, *live;
    double *an1, *an2, *d, *wss;
    int iter, ifault;
} hw_state;

void ari_kmeans_hw_defaults(ari_kmeans_hw_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nstart = ARI_KMHW_DEFAULT_NSTART;
    o->iter_max = ARI_KMHW_DEFAULT_ITER;
}

static double dist2(const double *a, const double *c, int p)
{
    double s = 0;
    for (int j = 0; j < p; j++) {
        double dv = a[j] - c[j];
        s += dv * dv;
    }
    return s;
}

/* The squared distance, or a value >= bound as soon as the partial sum
 * reaches it (AS 136's early exits). */
static double dist2_bounded(const double *a, const double *c, int p, double bound)
{
    double s = 0;
    for (int j = 0; j < p; j++) {
        double dv = a[j] - c[j];
        s += dv * dv;
        if (s >= bound)
            return s;
    }
    return s;
}

/* Moves point i from cluster l1 to l2, updating the centres and counts. */
static void transfer(hw_state *s, const double *ai, int i, int l1, int l2)
{
    double al1 = s->nc[l1], alw = al1 - 1, al2 = s->nc[l2], alt = al2 + 1;
    double *c1 = s->c + (size_t)l1 * s->p, *c2 = s->c + (size_t)l2 * s->p;
    for (int j = 0; j < s->p; j++) {
        c1[j] = (c1[j] * al1 - ai[j]) / alw;
        c2[j] = (c2[j] * al2 + ai[j]) / alt;
    }
    s->nc[l1]--;
    s->nc[l2]++;
    s->an2[l1] = alw / al1;
    s->an1[l1] = alw > 1 ? alw / (alw - 1) : HW_BIG;
    s->an1[l2] = alt / al2;
    s->an2[l2] = alt / (alt + 1);
    s->ic1[i] = l2;
    s->ic2[i] = l1;
}

/* Each point's two closest centres; the centres become their points' means.
 * Returns -1 if a cluster is empty (AS 136's ifault 1). */
static int initial_assignment(hw_state *s, const double *a)
{
    int m = s->m, p = s->p, k = s->k;
    for (int i = 0; i < m; i++) {
        const double *ai = a + (size_t)i * p;
        double dt1 = dist2(ai, s->c, p), dt2 = dist2(ai, s->c + p, p);
        s->ic1[i] = 0;
        s->ic2[i] = 1;
        if (dt1 > dt2) {
            double t = dt1;
            dt1 = dt2;
            dt2 = t;
            s->ic1[i] = 1;
            s->ic2[i] = 0;
        }
        for (int l = 2; l < k; l++) {
            double db = dist2_bounded(ai, s->c + (size_t)l * p, p, dt2);
            if (db >= dt2)
                continue;
            if (db >= dt1) {
                dt2 = db;
                s->ic2[i] = l;
            } else {
                dt2 = dt1;
                s->ic2[i] = s->ic1[i];
                dt1 = db;
                s->ic1[i] = l;
            }
        }
    }
    memset(s->c, 0, (size_t)k * p * sizeof *s->c);
    memset(s->nc, 0, (size_t)k * sizeof *s->nc);
    for (int i = 0; i < m; i++) {
        int l = s->ic1[i];
        s->nc[l]++;
        for (int j = 0; j < p; j++)
            s->c[(size_t)l * p + j] += a[(size_t)i * p + j];
    }
    for (int l = 0; l < k; l++) {
        if (s->nc[l] == 0)
            return -1;
        double aa = s->nc[l];
        for (int j = 0; j < p; j++)
            s->c[(size_t)l * p + j] /= aa;
        s->an2[l] = aa / (aa + 1);
        s->an1[l] = aa > 1 ? aa / (aa - 1) : HW_BIG;
        s->itran[l] = 1;
        s->ncp[l] = -1;
    }
    return 0;
}

/* The optimal-transfer stage (AS 136.1). */
static void optra(hw_state *s, const double *a, int *indx)
{
    int m = s->m, p = s->p, k = s->k;
    for (int l = 0; l < k; l++)
        if (s->itran[l] == 1)
            s->live[l] = m + 1;
    for (int i = 0; i < m; i++) {
        int pt = i + 1; /* 1-based, as LIVE and NCP count */
        const double *ai = a + (size_t)i * p;
        (*indx)++;
        int l1 = s->ic1[i], l2 = s->ic2[i], ll = l2;
        if (s->nc[l1] != 1) {
            if (s->ncp[l1] != 0)
                s->d[i] = dist2(ai, s->c + (size_t)l1 * p, p) * s->an1[l1];
            double r2 = dist2(ai, s->c + (size_t)l2 * p, p) * s->an2[l2];
            for (int l = 0; l < k; l++) {
                if ((pt >= s->live[l1] && pt >= s->live[l]) || l == l1 || l == ll)
                    continue;
                double rr = r2 / s->an2[l];
                double dc = dist2_bounded(ai, s->c + (size_t)l * p, p, rr);
                if (dc >= rr)
                    continue;
                r2 = dc * s->an2[l];
                l2 = l;
            }
            if (r2 >= s->d[i]) {
                s->ic2[i] = l2;
            } else {
                *indx = 0;
                s->live[l1] = m + pt;
                s->live[l2] = m + pt;
                s->ncp[l1] = pt;
                s->ncp[l2] = pt;
                transfer(s, ai, i, l1, l2);
            }
        }
        if (*indx == m)
            return;
    }
    for (int l = 0; l < k; l++) {
        s->itran[l] = 0;
        s->live[l] -= m;
    }
}

/* The quick-transfer stage (AS 136.2); -1 when it takes max_steps steps. */
static int qtran(hw_state *s, const double *a, int *indx, int max_steps)
{
    int m = s->m, p = s->p, icoun = 0, istep = 0;
    for (;;) {
        for (int i = 0; i < m; i++) {
            const double *ai = a + (size_t)i * p;
            icoun++;
            istep++;
            if (istep >= max_steps)
                return -1;
            int l1 = s->ic1[i], l2 = s->ic2[i];
            if (s->nc[l1] != 1) {
                if (istep <= s->ncp[l1])
                    s->d[i] = dist2(ai, s->c + (size_t)l1 * p, p) * s->an1[l1];
                if (istep < s->ncp[l1] || istep < s->ncp[l2]) {
                    double r2 = s->d[i] / s->an2[l2];
                    double dd = dist2_bounded(ai, s->c + (size_t)l2 * p, p, r2);
                    if (dd < r2) {
                        icoun = 0;
                        *indx = 0;
                        s->itran[l1] = 1;
                        s->itran[l2] = 1;
                        s->ncp[l1] = istep + m;
                        s->ncp[l2] = istep + m;
                        transfer(s, ai, i, l1, l2);
                    }
                }
            }
            if (icoun == m)
                return 0;
        }
    }
}

/* Final centres and within-cluster sums of squares, in kmns.f's order. */
static void final_sums(hw_state *s, const double *a)
{
    int m = s->m, p = s->p, k = s->k;
    memset(s->c, 0, (size_t)k * p * sizeof *s->c);
    memset(s->wss, 0, (size_t)k * sizeof *s->wss);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < p; j++)
            s->c[(size_t)s->ic1[i] * p + j] += a[(size_t)i * p + j];
    for (int j = 0; j < p; j++) {
        for (int l = 0; l < k; l++)
            s->c[(size_t)l * p + j] /= (double)s->nc[l];
        for (int i = 0; i < m; i++) {
            double da = a[(size_t)i * p + j] - s->c[(size_t)s->ic1[i] * p + j];
            s->wss[s->ic1[i]] += da * da;
        }
    }
}

static int cancelled(const int *cancel)
{
    return cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED);
}

/* One start from the centres already in s->c (k >= 2, k < m). Returns -1
 * on an empty initial cluster, 1 when cancel was set before a pass. */
static int kmns(hw_state *s, const double *a, int iter_max, const int *cancel)
{
    if (initial_assignment(s, a) < 0)
        return -1;
    int indx = 0, ij, max_steps = s->m < 42949672 ? 50 * s->m : 2147483647;
    s->ifault = 2;
    for (ij = 1; ij <= iter_max; ij++) {
        if (cancelled(cancel))
            return 1;
        optra(s, a, &indx);
        if (indx == s->m) {
            s->ifault = 0;
            break;
        }
        if (qtran(s, a, &indx, max_steps) < 0) {
            s->ifault = 4;
            break;
        }
        if (s->k == 2) {
            s->ifault = 0;
            break;
        }
        memset(s->ncp, 0, (size_t)s->k * sizeof *s->ncp);
    }
    s->iter = ij;
    final_sums(s, a);
    return 0;
}

/* ---- state, starts and workers ------------------------------------------ */

static void state_free(hw_state *s)
{
    free(s->c);
    free(s->ic1);
    free(s->ic2);
    free(s->nc);
    free(s->ncp);
    free(s->itran);
    free(s->live);
    free(s->an1);
    free(s->an2);
    free(s->d);
    free(s->wss);
    memset(s, 0, sizeof *s);
}

static int state_alloc(hw_state *s, int m, int p, int k)
{
    *s = (hw_state){.m = m, .p = p, .k = k};
    s->c = malloc((size_t)k * p * sizeof *s->c);
    s->ic1 = malloc((size_t)m * sizeof *s->ic1);
    s->ic2 = malloc((size_t)m * sizeof *s->ic2);
    s->d = malloc((size_t)m * sizeof *s->d);
    s->nc = malloc((size_t)k * sizeof *s->nc);
    s->ncp = malloc((size_t)k * sizeof *s->ncp);
    s->itran = malloc((size_t)k * sizeof *s->itran);
    s->live = calloc((size_t)k, sizeof *s->live);
    s->an1 = malloc((size_t)k * sizeof *s->an1);
    s->an2 = malloc((size_t)k * sizeof *s->an2);
    s->wss = malloc((size_t)k * sizeof *s->wss);
    if (!s->c || !s->ic1 || !s->ic2 || !s->d || !s->nc || !s->ncp || !s->itran || !s->live || !s->an1 ||
        !s->an2 || !s->wss) {
        state_free(s);
        return -1;
    }
    return 0;
}

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct rows_ctx {
    const double *x;
    int p;
} rows_ctx;

static int rows_equal(const double *a, const double *b, int p)
{
    for (int j = 0; j < p; j++)
        if (a[j] != b[j])
            return 0;
    return 1;
}

static int row_compare(const void *pa, const void *pb, void *ctx)
{
    const double *x = ((const rows_ctx *)ctx)->x;
    int p = ((const rows_ctx *)ctx)->p;
    int ia = *(const int *)pa, ib = *(const int *)pb;
    const double *a = x + (size_t)ia * p, *b = x + (size_t)ib * p;
    for (int j = 0; j < p; j++)
        if (a[j] != b[j])
            return a[j] < b[j] ? -1 : 1;
    return (ia > ib) - (ia < ib);
}

static int int_compare(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* The first occurrence of each distinct row, in row order (R's unique(x)):
 * fills uniq (n ints) and returns how many. */
static int distinct_rows(const double *x, int n, int p, int *uniq, int *scratch)
{
    for (int i = 0; i < n; i++)
        scratch[i] = i;
    rows_ctx ctx = {x, p};
    qsort_r(scratch, (size_t)n, sizeof *scratch, row_compare, &ctx);
    int mm = 0;
    for (int i = 0; i < n; i++) {
        /* equal rows are adjacent, the lowest index first */
        if (i == 0 || !rows_equal(x + (size_t)scratch[i - 1] * p, x + (size_t)scratch[i] * p, p))
            uniq[mm++] = scratch[i];
    }
    qsort(uniq, (size_t)mm, sizeof *uniq, int_compare);
    return mm;
}

/* nstart sets of k distinct rows among the distinct rows of x. */
static int draw_starts(const double *x, int n, int p, int k, const ari_kmeans_hw_opts *o, int *starts,
                       ari_error *err)
{
    int *uniq = malloc((size_t)n * sizeof *uniq), *scratch = malloc((size_t)n * sizeof *scratch);
    if (!uniq || !scratch) {
        free(uniq);
        free(scratch);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int mm = distinct_rows(x, n, p, uniq, scratch), rc = 0;
    if (mm < k) {
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: %d clusters but %d distinct rows", k, mm);
    } else {
        uint64_t rng = o->seed;
        for (int s = 0; s < o->nstart; s++)
            for (int c = 0; c < k; c++) {
                int pick, dup;
                do {
                    pick = (int)((double)(next_u64(&rng) >> 11) / 9007199254740992.0 * mm);
                    dup = 0;
                    for (int q = 0; q < c && !dup; q++)
                        dup = starts[s * k + q] == uniq[pick];
                } while (dup);
                starts[s * k + c] = uniq[pick];
            }
    }
    free(uniq);
    free(scratch);
    return rc;
}

static int check_starts(const double *x, int n, int p, int k, const ari_kmeans_hw_opts *o, ari_error *err)
{
    for (int s = 0; s < o->nstart; s++)
        for (int c = 0; c < k; c++) {
            int r = o->init[s * k + c];
            if (r < 0 || r >= n)
                return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means start %d: row %d out of range", s, r);
            for (int q = 0; q < c; q++)
                if (rows_equal(x + (size_t)r * p, x + (size_t)o->init[s * k + q] * p, p))
                    return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means start %d: repeated centres", s);
        }
    return 0;
}

typedef struct hw_job {
    const double *x;
    int n, p, k, iter_max, nstart;
    const int *starts;
    const int *cancel;
    atomic_int next;
} hw_job;

typedef struct hw_worker {
    pthread_t thread;
    hw_job *job;
    hw_state s;
    int best_start; /* -1: none yet */
    double best_tot;
    int *labels, *sizes, iter, ifault;
    double *centers, *withinss;
    int failed;     /* an empty initial cluster (cannot happen with distinct rows) */
    int stopped;    /* left its starts on the cancel flag */
} hw_worker;

static void keep_if_better(hw_worker *w, int start)
{
    const hw_state *s = &w->s;
    /* summed in long double, as R's sum(): the same partition under other
     * label names then gives the same total, and R's first-start tie rule
     * picks the same start */
    long double acc = 0;
    for (int l = 0; l < s->k; l++)
        acc += s->wss[l];
    double tot = (double)acc;
    if (w->best_start >= 0 && !(tot < w->best_tot))
        return;
    w->best_start = start;
    w->best_tot = tot;
    memcpy(w->labels, s->ic1, (size_t)s->m * sizeof *w->labels);
    memcpy(w->sizes, s->nc, (size_t)s->k * sizeof *w->sizes);
    memcpy(w->centers, s->c, (size_t)s->k * s->p * sizeof *w->centers);
    memcpy(w->withinss, s->wss, (size_t)s->k * sizeof *w->withinss);
    w->iter = s->iter;
    w->ifault = s->ifault;
}

/* Starts are taken in increasing order by each worker, so "better" within
 * a worker and the reduction below keep the first start on a tie. */
static void *hw_run(void *arg)
{
    hw_worker *w = arg;
    hw_job *job = w->job;
    for (;;) {
        int st = atomic_fetch_add(&job->next, 1);
        if (st >= job->nstart)
            break;
        if (cancelled(job->cancel)) {
            w->stopped = 1;
            break;
        }
        for (int c = 0; c < job->k; c++)
            memcpy(w->s.c + (size_t)c * job->p, job->x + (size_t)job->starts[st * job->k + c] * job->p,
                   (size_t)job->p * sizeof *w->s.c);
        int rc = kmns(&w->s, job->x, job->iter_max, job->cancel);
        if (rc > 0) {
            w->stopped = 1;
            break;
        }
        if (rc < 0) {
            w->failed = 1;
            continue;
        }
        keep_if_better(w, st);
    }
    return NULL;
}

static void worker_free(hw_worker *w)
{
    state_free(&w->s);
    free(w->labels);
    free(w->sizes);
    free(w->centers);
    free(w->withinss);
}

static int worker_alloc(hw_worker *w, hw_job *job)
{
    *w = (hw_worker){.job = job, .best_start = -1};
    int n = job->n, k = job->k, p = job->p;
    w->labels = malloc((size_t)n * sizeof *w->labels);
    w->sizes = malloc((size_t)k * sizeof *w->sizes);
    w->centers = malloc((size_t)k * p * sizeof *w->centers);
    w->withinss = malloc((size_t)k * sizeof *w->withinss);
    if (state_alloc(&w->s, n, p, k) < 0 || !w->labels || !w->sizes || !w->centers || !w->withinss) {
        worker_free(w);
        return -1;
    }
    return 0;
}

/* ---- the result ----------------------------------------------------------- */

void ari_kmeans_hw_free(ari_kmeans_hw_result *r)
{
    if (!r)
        return;
    free(r->labels);
    free(r->centers);
    free(r->withinss);
    free(r->sizes);
    free(r);
}

static ari_kmeans_hw_result *result_alloc(int n, int p, int k, ari_error *err)
{
    ari_kmeans_hw_result *r = ari_zalloc(sizeof *r, err);
    if (!r)
        return NULL;
    r->n = n;
    r->p = p;
    r->k = k;
    r->labels = calloc((size_t)n, sizeof *r->labels);
    r->centers = calloc((size_t)k * p, sizeof *r->centers);
    r->withinss = calloc((size_t)k, sizeof *r->withinss);
    r->sizes = calloc((size_t)k, sizeof *r->sizes);
    if (!r->labels || !r->centers || !r->withinss || !r->sizes) {
        ari_kmeans_hw_free(r);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return r;
}

static double total_ss(const double *x, int n, int p, double *mean_out)
{
    double tot = 0;
    for (int j = 0; j < p; j++) {
        double mean = 0;
        for (int i = 0; i < n; i++)
            mean += x[(size_t)i * p + j];
        mean /= n;
        if (mean_out)
            mean_out[j] = mean;
        for (int i = 0; i < n; i++) {
            double dv = x[(size_t)i * p + j] - mean;
            tot += dv * dv;
        }
    }
    return tot;
}

static int check_args(const double *x, int n, int p, int k, const ari_kmeans_hw_opts *o, ari_error *err)
{
    if (n < 1 || p < 1 || k < 1 || (k > 1 && k >= n))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: k = %d for %d rows of %d (need 1 <= k < n)",
                             k, n, p);
    if (o->nstart < 1 || o->iter_max < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: nstart and iter_max must be >= 1");
    if ((size_t)n * p > ((size_t)1 << 40) || (size_t)o->nstart * k > ((size_t)1 << 30))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: input too large");
    for (size_t i = 0; i < (size_t)n * p; i++)
        if (!isfinite(x[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: value %zu is not finite", i);
    return o->init ? check_starts(x, n, p, k, o, err) : 0;
}

static ari_kmeans_hw_result *one_cluster(const double *x, int n, int p, ari_error *err)
{
    ari_kmeans_hw_result *r = result_alloc(n, p, 1, err);
    if (!r)
        return NULL;
    r->totss = r->tot_withinss = r->withinss[0] = total_ss(x, n, p, r->centers);
    r->sizes[0] = n;
    r->iterations = 1;
    r->converged = 1;
    return r;
}

static int thread_count(int threads, int nstart)
{
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 1 ? (int)(cpus < ARI_KMHW_MAX_THREADS ? cpus : ARI_KMHW_MAX_THREADS) : 1;
    }
    if (threads > ARI_KMHW_MAX_THREADS)
        threads = ARI_KMHW_MAX_THREADS;
    return threads < nstart ? threads : nstart;
}

/* Runs the starts on nt workers and moves the best into r. */
static int run_starts(hw_job *job, int nt, ari_kmeans_hw_result *r, ari_error *err)
{
    hw_worker *w = calloc((size_t)nt, sizeof *w);
    if (!w)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0, made = 0, started = 0;
    for (; made < nt && rc == 0; made++)
        if (worker_alloc(&w[made], job) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int t = 1; t < nt && rc == 0 && pthread_create(&w[t].thread, NULL, hw_run, &w[t]) == 0; t++)
        started = t;
    if (rc == 0)
        hw_run(&w[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(w[t].thread, NULL);
    hw_worker *best = NULL;
    for (int t = 0; t < nt && rc == 0; t++)
        if (w[t].stopped)
            rc = ari_error_set(err, ARI_E_CANCELLED, "k-means cancelled");
    for (int t = 0; t < nt && rc == 0; t++) {
        if (w[t].failed)
            rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "k-means: empty cluster after the first assignment");
        if (w[t].best_start >= 0 && (!best || w[t].best_tot < best->best_tot ||
                                     (w[t].best_tot == best->best_tot && w[t].best_start < best->best_start)))
            best = &w[t];
    }
    if (rc == 0 && best) {
        memcpy(r->labels, best->labels, (size_t)job->n * sizeof *r->labels);
        memcpy(r->sizes, best->sizes, (size_t)job->k * sizeof *r->sizes);
        memcpy(r->centers, best->centers, (size_t)job->k * job->p * sizeof *r->centers);
        memcpy(r->withinss, best->withinss, (size_t)job->k * sizeof *r->withinss);
        r->tot_withinss = best->best_tot;
        r->iterations = best->ifault == 2 ? job->iter_max + 1 : best->iter;
        r->ifault = best->ifault;
        r->converged = best->ifault == 0;
        r->best_start = best->best_start;
    }
    for (int t = 0; t < made; t++)
        worker_free(&w[t]);
    free(w);
    return rc;
}

ari_kmeans_hw_result *ari_kmeans_hw(const double *x, int n, int p, int k, const ari_kmeans_hw_opts *o,
                                    ari_error *err)
{
    if (check_args(x, n, p, k, o, err) < 0)
        return NULL;
    if (cancelled(o->cancel)) {
        ari_error_set(err, ARI_E_CANCELLED, "k-means cancelled");
        return NULL;
    }
    if (k == 1)
        return one_cluster(x, n, p, err);
    int *starts = o->init ? NULL : malloc((size_t)o->nstart * k * sizeof *starts);
    if (!o->init && !starts) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    ari_kmeans_hw_result *r = NULL;
    if (o->init || draw_starts(x, n, p, k, o, starts, err) == 0)
        r = result_alloc(n, p, k, err);
    if (r) {
        hw_job job = {.x = x, .n = n, .p = p, .k = k, .iter_max = o->iter_max, .nstart = o->nstart,
                      .starts = o->init ? o->init : starts};
        job.cancel = o->cancel;
        atomic_init(&job.next, 0);
        if (run_starts(&job, thread_count(o->threads, o->nstart), r, err) < 0) {
            ari_kmeans_hw_free(r);
            r = NULL;
        } else {
            r->totss = total_ss(x, n, p, NULL);
        }
    }
    free(starts);
    return r;
}
