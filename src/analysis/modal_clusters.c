/* modal_clusters.c: local minima of a density (run-length rule), the
 * assignment of points to the intervals between them (modal_clusters.h),
 * and the clustering of many sets of points over a few threads. */
#include "analysis/modal_clusters.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/free_all.h"

int ari_modal_minima(const double *x, const double *y, int n, double *minima)
{
    int count = 0;
    /* Walk the runs of equal values: [prev_first..prev_last] is the run
     * before [first..last]. */
    int first = 0, last = 0;
    while (last + 1 < n && y[last + 1] == y[first])
        last++;
    double prev_value = 0;
    int have_prev = 0;
    while (last + 1 < n) {
        int next_first = last + 1, next_last = next_first;
        while (next_last + 1 < n && y[next_last + 1] == y[next_first])
            next_last++;
        if (have_prev && y[first] < prev_value && y[first] < y[next_first])
            minima[count++] = (x[first] + x[last]) / 2;
        prev_value = y[first];
        have_prev = 1;
        first = next_first;
        last = next_last;
    }
    return count;
}

int ari_modal_interval(const double *minima, int nminima, double p)
{
    int lo = 0, hi = nminima; /* answer in [lo, hi] */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (minima[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Buffers of one thread's clusterings, reused from one set to the next. */
typedef struct modal_work {
    ari_kde_work kde;
    int cap;       /* entries of each array below */
    int *table;    /* [bins] interval of the points of a bin, -1 if a minimum is in it */
    int *rank;     /* [intervals] cluster of an interval, -1 when empty */
    double *count; /* [intervals] points per interval */
    double *offset; /* [intervals] sum of their offsets x - lo (kde.h) */
    double *minima; /* [bins] the minima, before the result gets its own copy */
} modal_work;

static void work_init(modal_work *w)
{
    memset(w, 0, sizeof *w);
    ari_kde_work_init(&w->kde);
}

static void work_free(modal_work *w)
{
    ari_kde_work_free(&w->kde);
    void *owned[] = {w->table, w->rank, w->count, w->offset, w->minima};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(w, 0, sizeof *w);
}

static int work_reserve(modal_work *w, int cap)
{
    if (cap <= w->cap)
        return 0;
    free(w->table);
    free(w->rank);
    free(w->count);
    free(w->offset);
    free(w->minima);
    w->table = malloc((size_t)cap * sizeof *w->table);
    w->rank = malloc((size_t)cap * sizeof *w->rank);
    w->count = malloc((size_t)cap * sizeof *w->count);
    w->offset = malloc((size_t)cap * sizeof *w->offset);
    w->minima = malloc((size_t)cap * sizeof *w->minima);
    w->cap = w->table && w->rank && w->count && w->offset && w->minima ? cap : 0;
    return w->cap ? 0 : -1;
}

/* table[b] for every bin b of the density's grid: the number of minima
 * below every point of bin b, or -1 when a minimum shares the bin. Exact,
 * because the bin of a value is monotone in the value: a minimum in a
 * lower bin is below the point, one in a higher bin above it. */
static void bin_table(const double *minima, int nminima, const ari_kde_work *k, int *table)
{
    int b = 0;
    for (int c = 0; c < nminima; c++) {
        int mb = ari_kde_bin(k, minima[c]); /* -1..n, non-decreasing in c */
        for (; b < mb; b++)
            table[b] = c;
        if (mb >= 0 && mb < k->n) {
            table[mb] = -1;
            b = mb + 1;
        }
    }
    for (; b < k->n; b++)
        table[b] = nminima;
}

/* out->cluster[i] = interval of point i; w->count and w->offset per interval.
 * Points of bins without a minimum take the bin's interval, and their bin
 * sums go to it whole; the others are compared with the minima. */
static void assign_by_bins(const double *x, int nx, modal_work *w, ari_modal *out)
{
    const ari_kde_work *k = &w->kde;
    bin_table(out->minima, out->nminima, k, w->table);
    /* The bins of an interval are consecutive: sum them in locals (adding
     * to w->count[c] bin after bin would wait on the previous store). */
    for (int b = 0; b < k->n;) {
        int c = w->table[b];
        double count = 0, offset = 0;
        for (; b < k->n && w->table[b] == c; b++) {
            count += k->count[b];
            offset += k->offset_sum[b];
        }
        if (c >= 0) {
            w->count[c] += count;
            w->offset[c] += offset;
        }
    }
    for (int i = 0; i < nx; i++) {
        int c = w->table[k->cell[i]];
        if (c < 0) {
            c = ari_modal_interval(out->minima, out->nminima, x[i]);
            w->count[c] += 1;
            w->offset[c] += x[i] - k->lo;
        }
        out->cluster[i] = c;
    }
}

/* The same by a search per point, when the binning was irregular. */
static void assign_by_search(const double *x, int nx, modal_work *w, ari_modal *out)
{
    for (int i = 0; i < nx; i++) {
        int c = ari_modal_interval(out->minima, out->nminima, x[i]);
        w->count[c] += 1;
        w->offset[c] += x[i] - w->kde.lo;
        out->cluster[i] = c;
    }
}

/* Renumbers the non-empty intervals 0.. and fills sizes and means. */
static int number_clusters(int nx, modal_work *w, ari_modal *out)
{
    int nint = out->nminima + 1, k = 0;
    for (int j = 0; j < nint; j++)
        w->rank[j] = w->count[j] > 0 ? k++ : -1;
    out->nclusters = k;
    out->mean = malloc((size_t)k * sizeof *out->mean);
    out->size = malloc((size_t)k * sizeof *out->size);
    if (!out->mean || !out->size)
        return -1;
    for (int j = 0; j < nint; j++)
        if (w->rank[j] >= 0) {
            out->size[w->rank[j]] = (int)w->count[j];
            out->mean[w->rank[j]] = w->kde.lo + w->offset[j] / w->count[j];
        }
    if (k < nint) /* some interval is empty: renumber */
        for (int i = 0; i < nx; i++)
            out->cluster[i] = w->rank[out->cluster[i]];
    return 0;
}

static int fail_nomem(ari_modal *out, ari_error *err)
{
    ari_modal_free(out);
    return ari_error_set(err, ARI_E_NOMEM, "modal clustering: out of memory");
}

/* ari_modal_clusters on w's buffers. */
static int cluster_one(const double *x, int nx, double bw, modal_work *w, ari_modal *out,
                       ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (ari_kde_density_work(x, nx, bw, ARI_KDE_DEFAULT_POINTS, ARI_KDE_DEFAULT_CUT, &w->kde,
                             &out->density, err) < 0)
        return -1;
    out->npoints = nx;
    int cap = (w->kde.n > out->density.n ? w->kde.n : out->density.n) + 1;
    if (work_reserve(w, cap) < 0)
        return fail_nomem(out, err);
    out->nminima = ari_modal_minima(out->density.x, out->density.y, out->density.n, w->minima);
    /* results stay allocated for every step: no larger than needed */
    out->minima = malloc((size_t)(out->nminima > 0 ? out->nminima : 1) * sizeof *out->minima);
    out->cluster = malloc((size_t)nx * sizeof *out->cluster);
    if (!out->minima || !out->cluster)
        return fail_nomem(out, err);
    memcpy(out->minima, w->minima, (size_t)out->nminima * sizeof *out->minima);
    memset(w->count, 0, (size_t)(out->nminima + 1) * sizeof *w->count);
    memset(w->offset, 0, (size_t)(out->nminima + 1) * sizeof *w->offset);
    if (w->kde.irregular)
        assign_by_search(x, nx, w, out);
    else
        assign_by_bins(x, nx, w, out);
    if (number_clusters(nx, w, out) < 0)
        return fail_nomem(out, err);
    return 0;
}

int ari_modal_clusters(const double *x, int nx, double bw, ari_modal *out, ari_error *err)
{
    modal_work w;
    work_init(&w);
    int rc = cluster_one(x, nx, bw, &w, out, err);
    work_free(&w);
    return rc;
}

/* ---- many sets -------------------------------------------------------------------- */

/* Below this many points per thread, fewer threads: starting one costs
 * about as much as clustering that many points. */
#define MIN_POINTS_PER_THREAD 100000

typedef struct batch {
    const double *x;
    int nx, nsets;
    double bw;
    ari_modal *const *out;
    atomic_int next; /* the next set to take */
} batch;

typedef struct worker {
    batch *b;
    pthread_t thread;
    int failed_set; /* the lowest set that failed here, or nsets */
    ari_error err;  /* its error */
} worker;

/* Takes sets one at a time until none is left, so a thread slowed down by
 * other load takes fewer. Each set's result depends on its points only. */
static void *run_worker(void *arg)
{
    worker *wk = arg;
    batch *b = wk->b;
    modal_work w;
    work_init(&w);
    for (;;) {
        int s = atomic_fetch_add(&b->next, 1);
        if (s >= b->nsets)
            break;
        ari_error err = {{0}, {0}};
        if (cluster_one(b->x + (size_t)s * b->nx, b->nx, b->bw, &w, b->out[s], &err) < 0 &&
            s < wk->failed_set) {
            wk->failed_set = s;
            wk->err = err;
        }
    }
    work_free(&w);
    return NULL;
}

int ari_modal_thread_count(int nx, int nsets, int nthreads)
{
    if (nthreads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        long by_size = (long)nx * nsets / MIN_POINTS_PER_THREAD;
        nthreads = cpus > 1 ? (int)(cpus < ARI_MODAL_MAX_THREADS ? cpus : ARI_MODAL_MAX_THREADS) : 1;
        if (by_size < nthreads)
            nthreads = by_size > 1 ? (int)by_size : 1;
    }
    if (nthreads > ARI_MODAL_MAX_THREADS)
        nthreads = ARI_MODAL_MAX_THREADS;
    return nthreads < nsets ? nthreads : nsets;
}

int ari_modal_clusters_many(const double *x, int nx, int nsets, double bw, int nthreads,
                            ari_modal *const *out, ari_error *err)
{
    if (nsets < 0 || (nsets > 0 && !out))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "modal clustering: %d sets", nsets);
    if (nsets == 0)
        return 0;
    batch b = {.x = x, .nx = nx, .nsets = nsets, .bw = bw, .out = out};
    atomic_init(&b.next, 0);
    worker wk[ARI_MODAL_MAX_THREADS];
    int nt = ari_modal_thread_count(nx, nsets, nthreads), started = 1;
    for (int t = 0; t < nt; t++)
        wk[t] = (worker){.b = &b, .failed_set = nsets};
    /* wk[0] is this thread; a thread that cannot start leaves its share to
     * the others */
    for (int t = 1; t < nt && pthread_create(&wk[t].thread, NULL, run_worker, &wk[t]) == 0; t++)
        started++;
    run_worker(&wk[0]);
    int failed = 0;
    for (int t = 0; t < started; t++) {
        if (t > 0)
            pthread_join(wk[t].thread, NULL);
        if (wk[t].failed_set < wk[failed].failed_set)
            failed = t;
    }
    if (wk[failed].failed_set == nsets)
        return 0;
    for (int s = 0; s < nsets; s++)
        ari_modal_free(out[s]);
    if (err)
        *err = wk[failed].err;
    return -1;
}

void ari_modal_free(ari_modal *m)
{
    if (!m)
        return;
    void *owned[] = {m->cluster, m->mean, m->size, m->minima};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    ari_kde_free(&m->density);
    memset(m, 0, sizeof *m);
}
