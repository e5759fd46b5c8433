/* ensemble_stats.c: per-node statistics across ensemble members
 * (ensemble_stats.h). */
#include "analysis/ensemble_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/quantile.h"
#include "util/free_all.h"

static void moments(const double *v, int n, int ddof, ari_sample_stats *out)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    out->mean = sum / (double)n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->variance = n > ddof ? ss / (double)(n - ddof) : NAN;
    out->std = sqrt(out->variance);
}

void ari_sample_stats_compute(const double *x, int n, int ddof, const double *percentiles, int npct,
                              double *scratch, ari_sample_stats *out, double *pct)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]))
            scratch[c++] = x[i];
    out->count = c;
    out->mean = out->median = out->min = out->max = out->std = out->variance = NAN;
    for (int q = 0; q < npct; q++)
        pct[q] = NAN;
    if (c == 0)
        return;
    moments(scratch, c, ddof, out);
    ari_sort_doubles(scratch, (size_t)c);
    out->min = scratch[0];
    out->max = scratch[c - 1];
    out->median = ari_quantile7_sorted(scratch, (size_t)c, 0.5);
    for (int q = 0; q < npct; q++)
        pct[q] = ari_quantile7_sorted(scratch, (size_t)c, percentiles[q] / 100.0);
}

static int check_args(const ari_ecct *e, int metric, int ddof, const double *percentiles, int npct,
                      ari_error *err)
{
    if (metric < 0 || metric >= e->nmetrics)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no metric %d in the ensemble", metric);
    if (ddof != 0 && ddof != 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "ddof must be 0 or 1");
    for (int q = 0; q < npct; q++)
        if (!(percentiles[q] >= 0 && percentiles[q] <= 100))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "percentiles must be in [0, 100]");
    return 0;
}

static int alloc_stats(ari_estats *s, int64_t nn, int nm, int npct)
{
    size_t n1 = nn ? (size_t)nn : 1;
    s->percentiles = malloc((npct ? (size_t)npct : 1) * sizeof *s->percentiles);
    s->present = malloc(n1 * sizeof *s->present);
    s->stats = malloc(n1 * sizeof *s->stats);
    s->pct = malloc(n1 * (npct ? (size_t)npct : 1) * sizeof *s->pct);
    s->values = malloc(n1 * (nm ? (size_t)nm : 1) * sizeof *s->values);
    return s->percentiles && s->present && s->stats && s->pct && s->values ? 0 : -1;
}

int ari_estats_compute(const ari_ecct *e, int metric, int ddof, const double *percentiles, int npct,
                       ari_estats *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_args(e, metric, ddof, percentiles, npct, err) < 0)
        return -1;
    double *scratch = malloc((e->nmembers ? (size_t)e->nmembers : 1) * sizeof *scratch);
    if (!scratch || alloc_stats(out, e->nnodes, e->nmembers, npct) < 0) {
        free(scratch);
        ari_estats_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    out->nnodes = e->nnodes;
    out->nmembers = e->nmembers;
    out->ddof = ddof;
    out->npct = npct;
    if (npct)
        memcpy(out->percentiles, percentiles, (size_t)npct * sizeof *percentiles);
    for (int64_t i = 0; i < e->nnodes; i++) {
        double *row = out->values + i * e->nmembers;
        for (int m = 0; m < e->nmembers; m++)
            row[m] = ari_ecct_value(e, m, i, metric);
        out->present[i] = e->npresent[i];
        ari_sample_stats_compute(row, e->nmembers, ddof, percentiles, npct, scratch, &out->stats[i],
                                 out->pct + i * npct);
    }
    free(scratch);
    return 0;
}

void ari_estats_free(ari_estats *s)
{
    void *ptrs[] = {s->percentiles, s->present, s->stats, s->pct, s->values};
    ari_free_all(ptrs, sizeof ptrs / sizeof ptrs[0]);
    memset(s, 0, sizeof *s);
}
