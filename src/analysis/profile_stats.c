/* profile_stats.c: the /cct view, rank statistics with their histogram
 * and the least-squares fit of the profile endpoints (profile_stats.h). */
#include "analysis/profile_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

int ari_cct_view_compute(int64_t n, const int64_t *parent, const int *depth, const double *incmean,
                         double filter, int max_depth, ari_cct_view *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    char *keep = calloc(n ? (size_t)n : 1, 1);
    if (!keep)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        if (parent[i] < 0)
            out->root_total += incmean[i];
    for (int64_t i = n - 1; i >= 0; i--) {
        if (filter <= 0 || incmean[i] >= filter * out->root_total || keep[i])
            keep[i] = 1;
        if (keep[i] && parent[i] >= 0 && parent[i] < i)
            keep[parent[i]] = 1; /* ancestors stay, so the tree stays connected */
    }
    for (int64_t i = 0; i < n; i++) {
        if (keep[i] && max_depth >= 0 && depth[i] > max_depth)
            keep[i] = 0;
        out->shown += keep[i];
    }
    out->show = keep;
    return 0;
}

void ari_cct_view_free(ari_cct_view *v)
{
    free(v->show);
    memset(v, 0, sizeof *v);
}

/* count, min, max, sum, mean, stddev and imbalance of the non-NAN values. */
static void rank_moments(const double *v, int64_t n, ari_rank_histogram *h)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0, sq = 0;
    int64_t count = 0;
    for (int64_t k = 0; k < n; k++) {
        if (isnan(v[k]))
            continue;
        lo = fmin(lo, v[k]);
        hi = fmax(hi, v[k]);
        sum += v[k];
        sq += v[k] * v[k];
        count++;
    }
    double mean = count ? sum / (double)count : NAN;
    double var = count ? fmax(0, sq / (double)count - mean * mean) : NAN;
    h->count = count;
    h->min = count ? lo : NAN;
    h->max = count ? hi : NAN;
    h->mean = mean;
    h->sum = count ? sum : NAN;
    h->stddev = sqrt(var);
    h->imbalance = count && mean != 0 ? (hi - mean) / mean : NAN;
}

static int bin_of(double v, double lo, double hi, int bins)
{
    int b = hi > lo ? (int)((v - lo) / (hi - lo) * bins) : bins / 2;
    if (b < 0) /* only for an infinite value */
        b = 0;
    return b >= bins ? bins - 1 : b; /* the last bin is closed */
}

/* Counts, then the members of each bin in process order (a counting sort). */
static void rank_bins(const double *v, int64_t n, ari_rank_histogram *h)
{
    int bins = h->bins;
    double lo = h->min, hi = h->max;
    for (int64_t k = 0; k < n; k++)
        if (!isnan(v[k]))
            h->counts[bin_of(v[k], lo, hi, bins)]++;
    h->offset[0] = 0;
    for (int b = 0; b < bins; b++)
        h->offset[b + 1] = h->offset[b] + h->counts[b];
    int64_t *next = h->offset + bins + 1; /* scratch: the write position of each bin */
    memcpy(next, h->offset, (size_t)bins * sizeof *next);
    for (int64_t k = 0; k < n; k++)
        if (!isnan(v[k]))
            h->member[next[bin_of(v[k], lo, hi, bins)]++] = k;
    for (int b = 0; b < bins; b++) {
        int64_t count = h->count;
        h->lo[b] = count && hi > lo ? lo + (hi - lo) * b / bins : (count ? lo : NAN);
        h->hi[b] = count && hi > lo ? lo + (hi - lo) * (b + 1) / bins : (count ? hi : NAN);
    }
}

int ari_rank_histogram_compute(const double *v, int64_t n, int bins, ari_rank_histogram *out,
                               ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (bins < 1 || bins > 1000)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "bins must be in 1..1000");
    rank_moments(v, n, out);
    out->bins = bins;
    out->lo = malloc((size_t)bins * sizeof *out->lo);
    out->hi = malloc((size_t)bins * sizeof *out->hi);
    out->counts = calloc((size_t)bins, sizeof *out->counts);
    out->offset = malloc(((size_t)bins * 2 + 1) * sizeof *out->offset); /* and the scratch */
    out->member = malloc((out->count ? (size_t)out->count : 1) * sizeof *out->member);
    if (!out->lo || !out->hi || !out->counts || !out->offset || !out->member)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    rank_bins(v, n, out);
    return 0;
}

void ari_rank_histogram_free(ari_rank_histogram *h)
{
    void *owned[] = {h->lo, h->hi, h->counts, h->offset, h->member};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(h, 0, sizeof *h);
}

void ari_least_squares(const double *x, const double *y, int64_t np, ari_fit *out)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int64_t n = 0;
    for (int64_t k = 0; k < np; k++) {
        if (isnan(x[k]) || isnan(y[k]))
            continue;
        n++;
        sx += x[k];
        sy += y[k];
    }
    double mx = n ? sx / (double)n : NAN, my = n ? sy / (double)n : NAN;
    for (int64_t k = 0; k < np; k++) { /* centred sums, for accuracy */
        if (isnan(x[k]) || isnan(y[k]))
            continue;
        double dx = x[k] - mx, dy = y[k] - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    out->n = n;
    out->slope = n >= 2 && sxx > 0 ? sxy / sxx : NAN;
    out->intercept = isnan(out->slope) ? NAN : my - out->slope * mx;
    out->r = n >= 2 && sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    out->r2 = out->r * out->r;
}
