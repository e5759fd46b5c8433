/* edivisive.c: E-Divisive change points (the contract is in edivisive.h):
 * the distance matrix, the O(L^2) split search of one segment, binary
 * bisection and the permutation test on worker threads. */
#include "analysis/edivisive.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS       16
#define PERMS_PER_THREAD  4 /* permutations per thread between progress calls */

/* ---- distances ------------------------------------------------------------ */

static int thread_count(int requested)
{
    if (requested <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        requested = cpus > 1 ? (int)(cpus < MAX_THREADS ? cpus : MAX_THREADS) : 1;
    }
    return requested > MAX_THREADS ? MAX_THREADS : requested;
}

/* Rows of D are computed in bands of ROW_BAND rows, which stay in cache
 * while every entity adds to them (entity-major input: each series is
 * read contiguously); threads take the bands in turn. */
#define ROW_BAND 16

typedef struct dist_job {
    const double *x;
    int T, n, entity_major;
    double alpha;
    double *D;
    atomic_int next_band;
} dist_job;

/* D[t][s] for t in [t0, t1), s > t: the squared distances. */
static void band_squared(const dist_job *j, int t0, int t1)
{
    int T = j->T, n = j->n;
    for (int t = t0; t < t1; t++)
        memset(&j->D[(size_t)t * T + t + 1], 0, (size_t)(T - t - 1) * sizeof *j->D);
    if (!j->entity_major) {
        for (int t = t0; t < t1; t++)
            for (int s = t + 1; s < T; s++) {
                const double *a = &j->x[(size_t)t * n], *b = &j->x[(size_t)s * n];
                double sum = 0;
                for (int e = 0; e < n; e++)
                    sum += (a[e] - b[e]) * (a[e] - b[e]);
                j->D[(size_t)t * T + s] = sum;
            }
        return;
    }
    for (int e = 0; e < n; e++) {
        const double *row = &j->x[(size_t)e * T];
        for (int t = t0; t < t1; t++) {
            double v = row[t], *out = &j->D[(size_t)t * T];
            for (int s = t + 1; s < T; s++)
                out[s] += (v - row[s]) * (v - row[s]);
        }
    }
}

/* Raises rows [t0, t1) to alpha / 2 and mirrors them below the diagonal. */
static void band_power(const dist_job *j, int t0, int t1)
{
    int T = j->T;
    double alpha = j->alpha;
    for (int t = t0; t < t1; t++) {
        j->D[(size_t)t * T + t] = 0;
        for (int s = t + 1; s < T; s++) {
            double d2 = j->D[(size_t)t * T + s];
            double v = alpha == 2 ? d2 : alpha == 1 ? sqrt(d2) : pow(d2, alpha / 2);
            j->D[(size_t)t * T + s] = v;
            j->D[(size_t)s * T + t] = v;
        }
    }
}

static void *dist_run(void *arg)
{
    dist_job *j = arg;
    for (;;) {
        int t0 = ROW_BAND * atomic_fetch_add(&j->next_band, 1);
        if (t0 >= j->T)
            return NULL;
        int t1 = t0 + ROW_BAND < j->T ? t0 + ROW_BAND : j->T;
        band_squared(j, t0, t1);
        band_power(j, t0, t1);
    }
}

int ari_ed_distances(const double *x, int T, int n, int entity_major, double alpha, int threads, double *D,
                     ari_error *err)
{
    if (T < 1 || T > ARI_ED_MAX_SAMPLES || n < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "E-Divisive needs 1 to %d samples and an entity",
                             ARI_ED_MAX_SAMPLES);
    if (!(alpha > 0 && alpha <= 2))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "alpha %g is not in (0, 2]", alpha);
    for (size_t a = 0; a < (size_t)T * n; a++)
        if (!isfinite(x[a]))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "E-Divisive input value %zu is not finite", a);
    dist_job job = {.x = x, .T = T, .n = n, .entity_major = entity_major, .alpha = alpha, .D = D};
    atomic_init(&job.next_band, 0);
    int nt = thread_count(threads), bands = (T + ROW_BAND - 1) / ROW_BAND, started = 1;
    pthread_t th[MAX_THREADS];
    for (int t = 1; t < nt && t < bands && pthread_create(&th[t], NULL, dist_run, &job) == 0; t++)
        started++;
    dist_run(&job);
    for (int t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    return 0;
}

/* ---- the search of one segment ------------------------------------------------ */

typedef struct split {
    int tau, kappa; /* relative to the segment; tau = -1: none */
    double q;
} split;

/* Scratch of one search, 4 x (L + 1) doubles: for the current tau,
 * bw[kappa] = the within sum of Y = [tau, kappa) and ab[kappa] = the
 * between sum of X and Y; inv[i] = 1 / i and inv_pairs[i] = 1 / (i (i - 1))
 * so that the inner loop does not divide. */
typedef struct sums {
    double *bw, *ab, *inv, *inv_pairs;
} sums;

static sums sums_at(double *scratch, int L)
{
    size_t w = (size_t)L + 1;
    sums z = {scratch, scratch + w, scratch + 2 * w, scratch + 3 * w};
    z.inv[0] = z.inv_pairs[0] = z.inv_pairs[1] = 0;
    for (int i = 1; i <= L; i++) {
        z.inv[i] = 1.0 / i;
        if (i > 1)
            z.inv_pairs[i] = 1.0 / ((double)i * (i - 1));
    }
    return z;
}

/* x_term = 2 within_x / (tau (tau - 1)), fixed for a tau. */
static void consider(split *best, const sums *z, double x_term, int tau, int kappa)
{
    int q = kappa - tau;
    double e = 2 * z->ab[kappa] * z->inv[tau] * z->inv[q] - 2 * z->bw[kappa] * z->inv_pairs[q] - x_term;
    double stat = e * ((double)tau * q) * z->inv[kappa];
    if (stat > best->q)
        *best = (split){tau, kappa, stat};
}

/* The best (tau, kappa) of the L x L block B (leading dimension ld);
 * scratch: 4 x (L + 1) doubles. */
static split block_split(const double *B, size_t ld, int L, int m, double *scratch)
{
    split best = {-1, -1, -INFINITY};
    if (L < 2 * m)
        return best;
    sums z = sums_at(scratch, L);
    double within_x = 0;
    for (int i = 1; i < m; i++)
        for (int k = 0; k < i; k++)
            within_x += B[i * ld + k];
    double x_term = 2 * within_x * z.inv_pairs[m];
    z.bw[m] = z.ab[m] = 0;
    for (int kappa = m + 1; kappa <= L; kappa++) {
        const double *row = &B[(size_t)(kappa - 1) * ld];
        double sb = 0, sa = 0;
        for (int j = m; j < kappa - 1; j++)
            sb += row[j];
        for (int i = 0; i < m; i++)
            sa += row[i];
        z.bw[kappa] = z.bw[kappa - 1] + sb;
        z.ab[kappa] = z.ab[kappa - 1] + sa;
        if (kappa >= 2 * m)
            consider(&best, &z, x_term, m, kappa);
    }
    for (int tau = m + 1; tau + m <= L; tau++) {
        /* sample tau - 1 moves from Y to X */
        const double *row = &B[(size_t)(tau - 1) * ld];
        double add_x = 0, add_y = 0;
        for (int k = 0; k < tau - 1; k++)
            add_x += row[k];
        within_x += add_x;
        x_term = 2 * within_x * z.inv_pairs[tau];
        for (int j = tau; j < tau + m - 1; j++)
            add_y += row[j];
        for (int kappa = tau + m; kappa <= L; kappa++) {
            add_y += row[kappa - 1];
            z.bw[kappa] -= add_y;
            z.ab[kappa] += add_y - add_x;
            consider(&best, &z, x_term, tau, kappa);
        }
    }
    return best;
}

int ari_ed_best_split(const double *D, int T, int s, int e, int min_size, int *tau, int *kappa, double *q)
{
    int L = e - s;
    if (min_size < 2 || s < 0 || e > T || L < 2 * min_size)
        return 1;
    double *scratch = malloc((size_t)4 * (L + 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    split b = block_split(&D[(size_t)s * T + s], (size_t)T, L, min_size, scratch);
    free(scratch);
    *tau = s + b.tau;
    *kappa = s + b.kappa;
    *q = b.q;
    return 0;
}

/* ---- the permutation test ----------------------------------------------------- */

/* splitmix64's output function. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t next_u64(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ULL;
    return mix64(*s);
}

/* Uniform in [0, bound). */
static int next_below(uint64_t *s, int bound)
{
    return (int)(((next_u64(s) >> 32) * (uint64_t)bound) >> 32);
}

typedef struct perm_job {
    const double *D;
    int T, m, nseg, test;
    const int *bounds; /* nseg + 1 */
    double observed;
    uint64_t seed;
    atomic_int next;
    int last; /* permutations [next, last) of this batch */
} perm_job;

typedef struct perm_worker {
    perm_job *job;
    pthread_t thread;
    double *block, *scratch;
    int *idx;
    int over; /* permuted maxima >= observed */
} perm_worker;

/* The largest Q over the segments after permutation r. */
static double permuted_max(perm_worker *w, int r)
{
    const perm_job *j = w->job;
    uint64_t rng = mix64(j->seed ^ mix64(((uint64_t)j->test << 32) | (uint64_t)r));
    double best = -INFINITY;
    for (int g = 0; g < j->nseg; g++) {
        int a = j->bounds[g], L = j->bounds[g + 1] - a;
        if (L < 2 * j->m)
            continue;
        for (int i = 0; i < L; i++)
            w->idx[i] = a + i;
        for (int i = L - 1; i > 0; i--) {
            int k = next_below(&rng, i + 1), t = w->idx[i];
            w->idx[i] = w->idx[k];
            w->idx[k] = t;
        }
        for (int x = 0; x < L; x++) {
            const double *src = &j->D[(size_t)w->idx[x] * j->T];
            double *dst = &w->block[(size_t)x * L];
            for (int y = 0; y < L; y++)
                dst[y] = src[w->idx[y]];
        }
        split s = block_split(w->block, (size_t)L, L, j->m, w->scratch);
        if (s.q > best)
            best = s.q;
    }
    return best;
}

static void *perm_run(void *arg)
{
    perm_worker *w = arg;
    for (;;) {
        int r = atomic_fetch_add(&w->job->next, 1);
        if (r >= w->job->last)
            break;
        if (permuted_max(w, r) >= w->job->observed)
            w->over++;
    }
    return NULL;
}

static void workers_free(perm_worker *w, int nt)
{
    for (int t = 0; t < nt; t++) {
        free(w[t].block);
        free(w[t].scratch);
        free(w[t].idx);
    }
}

static int workers_alloc(perm_worker *w, int nt, perm_job *job, int T)
{
    for (int t = 0; t < nt; t++) {
        w[t] = (perm_worker){.job = job};
        w[t].block = malloc((size_t)T * T * sizeof *w[t].block);
        w[t].scratch = malloc((size_t)4 * (T + 1) * sizeof *w[t].scratch);
        w[t].idx = malloc((size_t)T * sizeof *w[t].idx);
        if (!w[t].block || !w[t].scratch || !w[t].idx) {
            workers_free(w, t + 1);
            return -1;
        }
    }
    return 0;
}

/* Runs permutations [from, to) on the workers; returns those >= observed. */
static int run_batch(perm_worker *w, int nt, int from, int to)
{
    perm_job *job = w[0].job;
    atomic_store(&job->next, from);
    job->last = to;
    int started = 1, over = 0;
    for (int t = 0; t < nt; t++)
        w[t].over = 0;
    for (int t = 1; t < nt && t < to - from && pthread_create(&w[t].thread, NULL, perm_run, &w[t]) == 0; t++)
        started++;
    perm_run(&w[0]);
    for (int t = 0; t < started; t++) {
        if (t > 0)
            pthread_join(w[t].thread, NULL);
        over += w[t].over;
    }
    return over;
}

/* The p-value of `observed` with the current segments. */
static int permutation_test(perm_worker *w, int nt, const ari_ed_options *o, int found, double *p, ari_error *err)
{
    int over = 0, batch = nt * PERMS_PER_THREAD;
    for (int from = 0; from < o->permutations; from += batch) {
        int to = from + batch < o->permutations ? from + batch : o->permutations;
        over += run_batch(w, nt, from, to);
        if (o->progress && o->progress(o->progress_ctx, found, to, o->permutations))
            return ari_error_set(err, ARI_E_CANCELLED, "E-Divisive cancelled after %d change points", found);
    }
    *p = (1.0 + over) / (o->permutations + 1.0);
    return 0;
}

/* ---- bisection ---------------------------------------------------------------- */

void ari_ed_defaults(ari_ed_options *o)
{
    *o = (ari_ed_options){.alpha = 1, .min_size = 30, .sig_lvl = 0.05, .permutations = 199, .k = -1, .seed = 1};
}

void ari_ed_result_free(ari_ed_result *r)
{
    free(r->found);
    free(r->sorted);
    free(r->stat);
    free(r->p_values);
    *r = (ari_ed_result){.considered_last = -1};
}

/* Segments: bounds[0..nseg] (0, the points ascending, T), the best split of
 * each segment of the unpermuted data. */
typedef struct segments {
    int *bounds, nseg;
    split *best;
    double *scratch; /* 4 x (T + 1) */
} segments;

static void search_segment(segments *sg, const double *D, int T, int g, int m)
{
    int a = sg->bounds[g];
    sg->best[g] = block_split(&D[(size_t)a * T + a], (size_t)T, sg->bounds[g + 1] - a, m, sg->scratch);
}

/* The segment holding the best split (the first on a tie), or -1. */
static int best_segment(const segments *sg)
{
    int g = -1;
    for (int i = 0; i < sg->nseg; i++)
        if (sg->best[i].tau >= 0 && (g < 0 || sg->best[i].q > sg->best[g].q))
            g = i;
    return g;
}

/* Splits segment g at its best tau and searches the two halves. */
static void accept_split(segments *sg, const double *D, int T, int g, int m)
{
    int point = sg->bounds[g] + sg->best[g].tau;
    memmove(&sg->bounds[g + 2], &sg->bounds[g + 1], (size_t)(sg->nseg - g) * sizeof *sg->bounds);
    memmove(&sg->best[g + 1], &sg->best[g], (size_t)(sg->nseg - g) * sizeof *sg->best);
    sg->bounds[g + 1] = point;
    sg->nseg++;
    search_segment(sg, D, T, g, m);
    search_segment(sg, D, T, g + 1, m);
}

static int check(int T, const ari_ed_options *o, ari_error *err)
{
    if (T < 1 || T > ARI_ED_MAX_SAMPLES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "E-Divisive needs 1 to %d samples, not %d",
                             ARI_ED_MAX_SAMPLES, T);
    if (o->min_size < 2)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "min_size must be at least 2");
    if (o->k < 0 && (!(o->sig_lvl > 0 && o->sig_lvl < 1) || o->permutations < 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "sig_lvl must be in (0, 1) and R >= 0");
    return 0;
}

static int bisect(const double *D, int T, const ari_ed_options *o, segments *sg, perm_worker *w, int nt,
                  ari_ed_result *out, ari_error *err)
{
    int m = o->min_size, left = o->k >= 0 ? o->k : T;
    search_segment(sg, D, T, 0, m);
    while (left > 0) {
        int g = best_segment(sg);
        if (g < 0)
            break;
        int point = sg->bounds[g] + sg->best[g].tau;
        double p = NAN;
        out->considered_last = point;
        if (o->k < 0) {
            p = 0;
            perm_job *job = w[0].job;
            job->bounds = sg->bounds;
            job->nseg = sg->nseg;
            job->observed = sg->best[g].q;
            job->test = out->tested;
            if (o->permutations > 0 && permutation_test(w, nt, o, out->count, &p, err) < 0)
                return -1;
        }
        out->p_values[out->tested++] = p;
        if (o->k < 0 && p > o->sig_lvl)
            break;
        out->found[out->count] = point;
        out->stat[out->count++] = sg->best[g].q;
        accept_split(sg, D, T, g, m);
        left--;
    }
    for (int i = 0; i < out->count; i++)
        out->sorted[i] = sg->bounds[i + 1];
    return 0;
}

int ari_edivisive(const double *D, int T, const ari_ed_options *o, ari_ed_result *out, ari_error *err)
{
    *out = (ari_ed_result){.considered_last = -1};
    if (check(T, o, err) < 0)
        return -1;
    int cap = T / o->min_size + 2, nt = o->k < 0 && o->permutations > 0 ? thread_count(o->threads) : 0;
    perm_job job = {.D = D, .T = T, .m = o->min_size, .seed = o->seed};
    perm_worker w[MAX_THREADS];
    segments sg = {.nseg = 1};
    sg.bounds = malloc((size_t)(cap + 1) * sizeof *sg.bounds);
    sg.best = malloc((size_t)cap * sizeof *sg.best);
    sg.scratch = malloc((size_t)4 * (T + 1) * sizeof *sg.scratch);
    out->found = malloc((size_t)cap * sizeof *out->found);
    out->sorted = malloc((size_t)cap * sizeof *out->sorted);
    out->stat = malloc((size_t)cap * sizeof *out->stat);
    out->p_values = malloc((size_t)cap * sizeof *out->p_values);
    int rc = -1;
    if (!sg.bounds || !sg.best || !sg.scratch || !out->found || !out->sorted || !out->stat ||
        !out->p_values || workers_alloc(w, nt, &job, T) < 0) {
        nt = 0;
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        sg.bounds[0] = 0;
        sg.bounds[1] = T;
        rc = bisect(D, T, o, &sg, w, nt, out, err);
    }
    workers_free(w, nt);
    free(sg.bounds);
    free(sg.best);
    free(sg.scratch);
    return rc;
}
