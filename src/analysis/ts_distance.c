/* ts_distance.c: Euclidean, DTW and TWED distances between time series and
 * the threaded n x n matrix of them (the contract is in ts_distance.h). */
#include "analysis/ts_distance.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ari_ts_distance_defaults(ari_ts_distance_opts *o)
{
    memset(o, 0, sizeof *o);
    o->metric = ARI_TS_EUCLID;
    o->step = ARI_DTW_SYMMETRIC1;
    o->window = -1;
    o->nu = 0.001;
    o->lambda = 1;
}

double ari_ts_euclid(const double *a, const double *b, int l)
{
    double s = 0;
    for (int i = 0; i < l; i++) {
        double dv = a[i] - b[i];
        s += dv * dv;
    }
    return sqrt(s);
}

static inline double min2(double a, double b)
{
    return b < a ? b : a;
}

/* One row i (1-based) of the DTW cost matrix over columns jlo..jhi. */
static void dtw_row(double ai, const double *b, const double *prev, double *cur, int jlo, int jhi,
                    ari_dtw_step step)
{
    if (step == ARI_DTW_SYMMETRIC2) {
        for (int j = jlo; j <= jhi; j++) {
            double c = fabs(ai - b[j - 1]);
            cur[j] = min2(min2(prev[j] + c, cur[j - 1] + c), prev[j - 1] + 2 * c);
        }
    } else {
        for (int j = jlo; j <= jhi; j++) {
            double c = fabs(ai - b[j - 1]);
            cur[j] = c + min2(min2(prev[j], cur[j - 1]), prev[j - 1]);
        }
    }
}

/* The columns jlo..jhi of row i (1-based) within the Sakoe-Chiba window
 * (window < 0: none) of a series of lb values. */
static void dtw_band(int i, int window, int lb, int *jlo, int *jhi)
{
    *jlo = 1;
    *jhi = lb;
    if (window >= 0) {
        *jlo = i - window > 1 ? i - window : 1;
        *jhi = i + window < lb ? i + window : lb;
    }
}

double ari_ts_dtw(const double *a, int la, const double *b, int lb, ari_dtw_step step, int window, double *work)
{
    if (window >= 0 && abs(la - lb) > window)
        return INFINITY;
    double *prev = work, *cur = work + lb + 1;
    for (int j = 0; j <= lb; j++)
        prev[j] = INFINITY;
    for (int i = 1; i <= la; i++) {
        int jlo, jhi;
        dtw_band(i, window, lb, &jlo, &jhi);
        cur[0] = INFINITY;
        cur[jlo - 1] = INFINITY;
        if (jhi < lb)
            cur[jhi + 1] = INFINITY;
        if (i == 1) {
            /* g(1,1) = d(1,1) whatever the step pattern */
            cur[1] = fabs(a[0] - b[0]);
            if (jhi >= 2)
                dtw_row(a[0], b, prev, cur, 2, jhi, step);
        } else {
            dtw_row(a[i - 1], b, prev, cur, jlo, jhi, step);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

/* ---- DTW of one series against DTW_LANES others at once ------------------
 * The lanes are independent dependency chains that the CPU overlaps (and
 * the compiler may vectorise); each lane does exactly the arithmetic of
 * ari_ts_dtw, so the values are the same. Layout: cell j of lane q at
 * [j * DTW_LANES + q]. work: 2 (l+1) DTW_LANES + l DTW_LANES doubles. */
#define DTW_LANES 8

static void dtw_lanes_row(double ai, const double *restrict bt, const double *restrict prev, double *restrict cur,
                          int jlo, int jhi, ari_dtw_step step)
{
    double left[DTW_LANES], diag[DTW_LANES];
    for (int q = 0; q < DTW_LANES; q++) {
        left[q] = cur[(jlo - 1) * DTW_LANES + q];
        diag[q] = prev[(jlo - 1) * DTW_LANES + q];
    }
    if (step == ARI_DTW_SYMMETRIC2) {
        for (int j = jlo; j <= jhi; j++)
            for (int q = 0; q < DTW_LANES; q++) {
                double up = prev[j * DTW_LANES + q], c = fabs(ai - bt[(j - 1) * DTW_LANES + q]);
                double v = min2(min2(up + c, left[q] + c), diag[q] + 2 * c);
                cur[j * DTW_LANES + q] = v;
                left[q] = v;
                diag[q] = up;
            }
    } else {
        for (int j = jlo; j <= jhi; j++)
            for (int q = 0; q < DTW_LANES; q++) {
                double up = prev[j * DTW_LANES + q], c = fabs(ai - bt[(j - 1) * DTW_LANES + q]);
                double v = c + min2(min2(up, left[q]), diag[q]);
                cur[j * DTW_LANES + q] = v;
                left[q] = v;
                diag[q] = up;
            }
    }
}

static void set_lanes(double *cell, double v)
{
    for (int q = 0; q < DTW_LANES; q++)
        cell[q] = v;
}

/* out[q] = ari_ts_dtw(a, l, b[q], l, step, window) for the DTW_LANES series b. */
static void dtw_lanes(const double *a, const double *const *b, int l, ari_dtw_step step, int window, double *work,
                      double *out)
{
    double *prev = work, *cur = work + (size_t)(l + 1) * DTW_LANES, *bt = cur + (size_t)(l + 1) * DTW_LANES;
    for (int j = 0; j < l; j++)
        for (int q = 0; q < DTW_LANES; q++)
            bt[j * DTW_LANES + q] = b[q][j];
    for (int j = 0; j <= l; j++)
        set_lanes(prev + j * DTW_LANES, INFINITY);
    for (int i = 1; i <= l; i++) {
        int jlo, jhi;
        dtw_band(i, window, l, &jlo, &jhi);
        set_lanes(cur, INFINITY);
        set_lanes(cur + (jlo - 1) * DTW_LANES, INFINITY);
        if (jhi < l)
            set_lanes(cur + (jhi + 1) * DTW_LANES, INFINITY);
        if (i == 1) {
            for (int q = 0; q < DTW_LANES; q++)
                cur[DTW_LANES + q] = fabs(a[0] - bt[q]);
            if (jhi >= 2)
                dtw_lanes_row(a[0], bt, prev, cur, 2, jhi, step);
        } else {
            dtw_lanes_row(a[i - 1], bt, prev, cur, jlo, jhi, step);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    for (int q = 0; q < DTW_LANES; q++)
        out[q] = prev[l * DTW_LANES + q];
}

double ari_ts_twed(const double *a, const double *ta, int la, const double *b, const double *tb, int lb, double nu,
                   double lambda, double *work)
{
    double *prev = work, *cur = work + lb + 1;
    prev[0] = 0;
    for (int j = 1; j <= lb; j++)
        prev[j] = INFINITY;
    for (int i = 1; i <= la; i++) {
        double ai = a[i - 1], ai1 = i > 1 ? a[i - 2] : 0;
        double ti = ta[i - 1], ti1 = i > 1 ? ta[i - 2] : 0;
        double del_a = fabs(ai - ai1) + nu * (ti - ti1) + lambda;
        cur[0] = INFINITY;
        for (int j = 1; j <= lb; j++) {
            double bj = b[j - 1], bj1 = j > 1 ? b[j - 2] : 0;
            double tj = tb[j - 1], tj1 = j > 1 ? tb[j - 2] : 0;
            double del_b = fabs(bj - bj1) + nu * (tj - tj1) + lambda;
            double match = fabs(ai - bj) + fabs(ai1 - bj1) + nu * (fabs(ti - tj) + fabs(ti1 - tj1));
            cur[j] = min2(min2(prev[j] + del_a, cur[j - 1] + del_b), prev[j - 1] + match);
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

double ari_ts_distance_pair(const double *a, const double *b, int d, int l, const ari_ts_distance_opts *o,
                            const double *tstamps, double *work)
{
    if (o->metric == ARI_TS_EUCLID)
        return ari_ts_euclid(a, b, d * l);
    double s = 0;
    for (int k = 0; k < d; k++) {
        const double *ak = a + (size_t)k * l, *bk = b + (size_t)k * l;
        if (o->metric == ARI_TS_DTW)
            s += ari_ts_dtw(ak, l, bk, l, o->step, o->window, work);
        else
            s += ari_ts_twed(ak, tstamps, l, bk, tstamps, l, o->nu, o->lambda, work);
    }
    return s;
}

/* The distances from row a to DTW_LANES rows b (DTW: all lanes at once,
 * block by block, summed in the order ari_ts_distance_pair sums). */
static void distance_group(const double *a, const double *const *b, int d, int l, const ari_ts_distance_opts *o,
                           const double *tstamps, double *work, double *out)
{
    if (o->metric != ARI_TS_DTW) {
        for (int q = 0; q < DTW_LANES; q++)
            out[q] = ari_ts_distance_pair(a, b[q], d, l, o, tstamps, work);
        return;
    }
    double part[DTW_LANES];
    const double *bk[DTW_LANES];
    for (int q = 0; q < DTW_LANES; q++)
        out[q] = 0;
    for (int k = 0; k < d; k++) {
        for (int q = 0; q < DTW_LANES; q++)
            bk[q] = b[q] + (size_t)k * l;
        dtw_lanes(a + (size_t)k * l, bk, l, o->step, o->window, work, part);
        for (int q = 0; q < DTW_LANES; q++)
            out[q] += part[q];
    }
}

/* ---- the matrix ---------------------------------------------------------- */

typedef struct matrix_job {
    const double *x;
    int n, d, l;
    const ari_ts_distance_opts *o;
    const double *tstamps;
    double *out;
    atomic_int next_row;
    atomic_int stop;
} matrix_job;

typedef struct matrix_worker {
    pthread_t thread;
    matrix_job *job;
    double *work;
} matrix_worker;

static int cancelled(const matrix_job *job)
{
    return job->o->cancel && __atomic_load_n(job->o->cancel, __ATOMIC_RELAXED);
}

/* Rows are taken in order, so the longest (row 0 has n-1 pairs) go first. */
static void *matrix_run(void *arg)
{
    matrix_worker *w = arg;
    matrix_job *job = w->job;
    size_t row_len = (size_t)job->d * job->l;
    for (;;) {
        int i = atomic_fetch_add(&job->next_row, 1);
        if (i >= job->n - 1 || atomic_load(&job->stop))
            break;
        if (cancelled(job)) {
            atomic_store(&job->stop, 1);
            break;
        }
        const double *a = job->x + (size_t)i * row_len;
        double *out_row = job->out + (size_t)i * job->n;
        int j = i + 1;
        for (; j + DTW_LANES <= job->n; j += DTW_LANES) {
            const double *b[DTW_LANES];
            for (int q = 0; q < DTW_LANES; q++)
                b[q] = job->x + (size_t)(j + q) * row_len;
            distance_group(a, b, job->d, job->l, job->o, job->tstamps, w->work, out_row + j);
        }
        for (; j < job->n; j++)
            out_row[j] = ari_ts_distance_pair(a, job->x + (size_t)j * row_len, job->d, job->l, job->o,
                                              job->tstamps, w->work);
        if (job->o->pairs_done)
            __atomic_fetch_add(job->o->pairs_done, (int64_t)(job->n - 1 - i), __ATOMIC_RELAXED);
    }
    return NULL;
}

int ari_ts_thread_count(int threads, int n)
{
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 1 ? (int)(cpus < ARI_TSD_MAX_THREADS ? cpus : ARI_TSD_MAX_THREADS) : 1;
    }
    if (threads > ARI_TSD_MAX_THREADS)
        threads = ARI_TSD_MAX_THREADS;
    int rows = n > 1 ? n - 1 : 1;
    return threads < rows ? threads : rows;
}

static int check_input(const double *x, int n, int d, int l, const ari_ts_distance_opts *o, ari_error *err)
{
    if (n < 0 || d < 1 || l < 1 || (size_t)d * l > (size_t)1 << 30)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "distance matrix: n %d, %d blocks of %d", n, d, l);
    if (o->metric != ARI_TS_EUCLID && o->metric != ARI_TS_DTW && o->metric != ARI_TS_TWED)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "unknown distance %d", (int)o->metric);
    if (o->step != ARI_DTW_SYMMETRIC1 && o->step != ARI_DTW_SYMMETRIC2)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "unknown DTW step pattern %d", (int)o->step);
    if (!isfinite(o->nu) || !isfinite(o->lambda) || o->nu < 0 || o->lambda < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "TWED nu and lambda must be finite and >= 0");
    for (size_t i = 0; i < (size_t)n * d * l; i++)
        if (!isfinite(x[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "series value %zu is not finite", i);
    for (int i = 0; o->time && i < l; i++)
        if (!isfinite(o->time[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "time stamp %d is not finite", i);
    return 0;
}

static void mirror(double *out, int n)
{
    for (int i = 0; i < n; i++) {
        out[(size_t)i * n + i] = 0;
        for (int j = i + 1; j < n; j++)
            out[(size_t)j * n + i] = out[(size_t)i * n + j];
    }
}

static int run_workers(matrix_job *job, int nt, ari_error *err)
{
    matrix_worker *w = calloc((size_t)nt, sizeof *w);
    if (!w)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0, started = 0;
    for (int t = 0; t < nt && rc == 0; t++) {
        w[t].job = job;
        w[t].work = malloc((3 * (size_t)job->l + 2) * DTW_LANES * sizeof *w[t].work);
        if (!w[t].work)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    /* w[0] is this thread; a thread that cannot start leaves its rows to the others */
    for (int t = 1; t < nt && rc == 0 && pthread_create(&w[t].thread, NULL, matrix_run, &w[t]) == 0; t++)
        started = t;
    if (rc == 0)
        matrix_run(&w[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(w[t].thread, NULL);
    for (int t = 0; t < nt; t++)
        free(w[t].work);
    free(w);
    return rc;
}

int ari_ts_distance_matrix(const double *x, int n, int d, int l, const ari_ts_distance_opts *o, double *out,
                           ari_error *err)
{
    if (check_input(x, n, d, l, o, err) < 0)
        return -1;
    if (n == 0)
        return 0;
    double *stamps = NULL;
    if (o->metric == ARI_TS_TWED && !o->time) {
        stamps = malloc((size_t)l * sizeof *stamps);
        if (!stamps)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        for (int i = 0; i < l; i++)
            stamps[i] = i + 1;
    }
    matrix_job job = {.x = x, .n = n, .d = d, .l = l, .o = o, .tstamps = o->time ? o->time : stamps, .out = out};
    atomic_init(&job.next_row, 0);
    atomic_init(&job.stop, 0);
    int rc = run_workers(&job, ari_ts_thread_count(o->threads, n), err);
    free(stamps);
    if (rc < 0)
        return -1;
    if (atomic_load(&job.stop) || cancelled(&job))
        return ari_error_set(err, ARI_E_CANCELLED, "distance matrix cancelled");
    mirror(out, n);
    return 0;
}
