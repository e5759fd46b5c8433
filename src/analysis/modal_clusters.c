/* modal_clusters.c: local minima of a density (run-length rule) and the
 * assignment of points to the intervals between them (modal_clusters.h). */
#include "analysis/modal_clusters.h"

#include <stdlib.h>
#include <string.h>

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

/* interval[i] = ari_modal_interval(minima, x[i]) for every point, fast:
 * below[j] counts the minima below grid point j, the point's grid cell
 * gives a first guess, and exact comparisons with the minima settle it. */
static int assign_intervals(const double *x, int nx, const ari_modal *m, int *interval)
{
    const ari_kde *k = &m->density;
    int *below = malloc((size_t)k->n * sizeof *below);
    if (!below)
        return -1;
    for (int j = 0, c = 0; j < k->n; j++) {
        while (c < m->nminima && m->minima[c] < k->x[j])
            c++;
        below[j] = c;
    }
    double step = (k->to - k->from) / (k->n - 1), inv = step > 0 ? 1 / step : 0;
    for (int i = 0; i < nx; i++) {
        double cell = (x[i] - k->from) * inv; /* only a guess: checked below */
        int j = cell < 0 ? 0 : cell > k->n - 1 ? k->n - 1 : (int)cell;
        int c = below[j];
        while (c < m->nminima && m->minima[c] < x[i])
            c++;
        while (c > 0 && m->minima[c - 1] >= x[i])
            c--;
        interval[i] = c;
    }
    free(below);
    return 0;
}

static int fail_nomem(ari_modal *out, ari_error *err)
{
    ari_modal_free(out);
    return ari_error_set(err, ARI_E_NOMEM, "modal clustering: out of memory");
}

/* Renumbers the non-empty intervals 0.. and fills sizes and means. */
static int number_clusters(const double *x, int nx, int *interval, ari_modal *out)
{
    int nint = out->nminima + 1;
    int *rank = calloc((size_t)nint, sizeof *rank);
    if (!rank)
        return -1;
    for (int i = 0; i < nx; i++)
        rank[interval[i]] = 1;
    int k = 0;
    for (int j = 0; j < nint; j++)
        rank[j] = rank[j] ? k++ : -1;
    out->nclusters = k;
    out->mean = calloc((size_t)k, sizeof *out->mean);
    out->size = calloc((size_t)k, sizeof *out->size);
    if (!out->mean || !out->size) {
        free(rank);
        return -1;
    }
    /* Sums in four partial accumulators per cluster: most points fall in
     * one cluster, and one accumulator would chain every addition. */
    double *sum = calloc((size_t)k * 4, sizeof *sum);
    int *count = calloc((size_t)k * 4, sizeof *count);
    if (!sum || !count) {
        free(rank);
        free(sum);
        free(count);
        return -1;
    }
    for (int i = 0; i < nx; i++) {
        int c = rank[interval[i]];
        out->cluster[i] = c;
        count[c * 4 + (i & 3)]++;
        sum[c * 4 + (i & 3)] += x[i];
    }
    for (int c = 0; c < k; c++) {
        out->size[c] = count[c * 4] + count[c * 4 + 1] + count[c * 4 + 2] + count[c * 4 + 3];
        out->mean[c] = ((sum[c * 4] + sum[c * 4 + 1]) + (sum[c * 4 + 2] + sum[c * 4 + 3])) /
                       out->size[c];
    }
    free(rank);
    free(sum);
    free(count);
    return 0;
}

int ari_modal_clusters(const double *x, int nx, double bw, ari_modal *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (ari_kde_density(x, nx, bw, ARI_KDE_DEFAULT_POINTS, ARI_KDE_DEFAULT_CUT, &out->density,
                        err) < 0)
        return -1;
    out->npoints = nx;
    out->minima = malloc((size_t)out->density.n * sizeof *out->minima);
    out->cluster = malloc((size_t)nx * sizeof *out->cluster);
    int *interval = malloc((size_t)nx * sizeof *interval);
    if (!out->minima || !out->cluster || !interval) {
        free(interval);
        return fail_nomem(out, err);
    }
    out->nminima = ari_modal_minima(out->density.x, out->density.y, out->density.n, out->minima);
    if (assign_intervals(x, nx, out, interval) < 0) {
        free(interval);
        return fail_nomem(out, err);
    }
    int rc = number_clusters(x, nx, interval, out);
    free(interval);
    if (rc < 0)
        return fail_nomem(out, err);
    return 0;
}

void ari_modal_free(ari_modal *m)
{
    if (!m)
        return;
    free(m->cluster);
    free(m->mean);
    free(m->size);
    free(m->minima);
    ari_kde_free(&m->density);
    memset(m, 0, sizeof *m);
}
