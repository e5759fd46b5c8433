/* datamove_views.c: tallies, matrix, utilization, clock maximum and
 * series order of the data movement endpoints (datamove_views.h). */
#include "analysis/datamove_views.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/datamove.h"

void ari_dm_tally_add(ari_dm_tally *t, double bytes, double start, double dur, double w0, double w1)
{
    t->total++;
    t->bytes += bytes;
    t->bytes_in_window += ari_dm_bytes_in(bytes, start, dur, w0, w1);
}

int ari_dm_matrix_key(ari_dm_matrix *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0)
            return i;
    if (m->n == ARI_DM_MATRIX_MAX)
        return -1;
    snprintf(m->keys[m->n], sizeof m->keys[0], "%s", key);
    return m->n++;
}

void ari_dm_matrix_add(ari_dm_matrix *m, const char *src, const char *dst, double bytes, double busy)
{
    int a = ari_dm_matrix_key(m, src), b = ari_dm_matrix_key(m, dst);
    if (a < 0 || b < 0)
        return;
    m->bytes[a][b] += bytes;
    m->busy[a][b] += busy;
}

void ari_dm_matrix_add_movement(ari_dm_matrix *m, const char *src, const char *dst, double bytes, double start,
                                double dur, double w0, double w1)
{
    ari_dm_matrix_add(m, src, dst, ari_dm_bytes_in(bytes, start, dur, w0, w1),
                      ari_dm_overlap(start, start + dur, w0, w1));
}

void ari_dm_matrix_totals(const ari_dm_matrix *m, double *total, double *max)
{
    *total = 0;
    *max = 0;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++) {
            *total += m->bytes[i][j];
            if (m->bytes[i][j] > *max)
                *max = m->bytes[i][j];
        }
}

double ari_dm_matrix_bandwidth(const ari_dm_matrix *m, int i, int j, double unit_s)
{
    return m->busy[i][j] > 0 ? m->bytes[i][j] / (m->busy[i][j] * unit_s) / 1e9 : NAN;
}

double ari_dm_matrix_bandwidth_us(const ari_dm_matrix *m, int i, int j)
{
    return m->busy[i][j] > 0 ? m->bytes[i][j] / m->busy[i][j] / 1000.0 : NAN;
}

double ari_dm_matrix_moved(const ari_dm_matrix *m, const char *key)
{
    double moved = 0;
    for (int i = 0; i < m->n && key[0]; i++)
        if (strcmp(m->keys[i], key) == 0)
            for (int j = 0; j < m->n; j++)
                moved += m->bytes[i][j] + (i != j ? m->bytes[j][i] : 0);
    return moved;
}

void ari_dm_utilization(const char (*comp)[ARI_DM_KEY_SIZE], const double *busy, int ntracks, double w0,
                        double w1, int *comp_of, double *frac, int *ncomps)
{
    *ncomps = 0;
    for (int t = 0; t < ntracks; t++) {
        int seen = 0;
        for (int c = 0; c < *ncomps && !seen; c++)
            seen = strcmp(comp[comp_of[c]], comp[t]) == 0;
        if (!(busy[t] > 0) || seen)
            continue;
        double sum = 0, n = 0;
        for (int u = t; u < ntracks; u++)
            if (busy[u] > 0 && strcmp(comp[u], comp[t]) == 0) {
                sum += busy[u];
                n++;
            }
        double f = sum / ((w1 - w0) * n);
        comp_of[*ncomps] = t;
        frac[(*ncomps)++] = f > 1 ? 1 : f;
    }
}

double ari_dm_clock_max(const double *sectors, int nsectors, int ncat)
{
    double max = 0;
    for (int i = 0; i < nsectors; i++) {
        double sum = 0;
        for (int c = 0; c < ncat; c++)
            sum += sectors[i * ncat + c];
        if (sum > max)
            max = sum;
    }
    return max;
}

void ari_dm_series_summary(const double *v, size_t k, int64_t n, int max_points, ari_dm_series_stats *out)
{
    out->stride = n > max_points ? (n + max_points - 1) / max_points : 1;
    out->variance = ari_dm_variance(v, k);
    out->min = INFINITY;
    out->max = -INFINITY;
    for (size_t j = 0; j < k; j++) {
        out->min = v[j] < out->min ? v[j] : out->min;
        out->max = v[j] > out->max ? v[j] : out->max;
    }
}

void ari_dm_series_order(const double *variance, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0; b--) {
            double vb = variance[order[b]], va = variance[order[b - 1]];
            vb = isfinite(vb) ? vb : 0;
            va = isfinite(va) ? va : 0;
            if (vb <= va)
                break;
            size_t x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
}
