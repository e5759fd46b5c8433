/* segment_comm.c: per-segment metric means, mean communication matrices
 * and their KP -> PE aggregation (the contract is in segment_comm.h). */
#include "analysis/segment_comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int check_segments(int T, const ari_segment *seg, int nseg, ari_error *err)
{
    if (T < 0 || nseg < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "segments: %d samples, %d segments", T, nseg);
    for (int g = 0; g < nseg; g++)
        if (seg[g].t0 < 0 || seg[g].t1 <= seg[g].t0 || seg[g].t1 > T)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "segment %d [%d, %d) is empty or outside [0, %d)",
                                 g, seg[g].t0, seg[g].t1, T);
    return 0;
}

int ari_segment_means(const double *x, int n, int T, const ari_segment *seg, int nseg, double *out,
                      ari_error *err)
{
    if (n < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%d entities", n);
    if (check_segments(T, seg, nseg, err) < 0)
        return -1;
    for (int g = 0; g < nseg; g++)
        for (int e = 0; e < n; e++) {
            const double *row = &x[(size_t)e * T];
            double sum = 0;
            int count = 0;
            for (int t = seg[g].t0; t < seg[g].t1; t++)
                if (isfinite(row[t])) {
                    sum += row[t];
                    count++;
                }
            out[(size_t)g * n + e] = count ? sum / count : NAN;
        }
    return 0;
}

static int check_triples(const ari_comm_triple *tr, size_t ntr, int n, int T, ari_error *err)
{
    for (size_t i = 0; i < ntr; i++)
        if (tr[i].t < 0 || tr[i].t >= T || tr[i].src < 0 || tr[i].src >= n || tr[i].dst < 0 ||
            tr[i].dst >= n || !isfinite(tr[i].count))
            return ari_error_set(err, ARI_E_INVALID_INPUT,
                                 "communication triple %zu (t %d, %d -> %d) is outside %d samples x %d entities "
                                 "or its count is not finite",
                                 i, tr[i].t, tr[i].src, tr[i].dst, T, n);
    return 0;
}

/* Adds count / (segment length) to out[g][row][col] of every segment g
 * holding sample t; each segment's matrix is side x side. */
static void spread(const ari_segment *seg, int nseg, int t, int row, int col, double count, int side, double *out)
{
    for (int g = 0; g < nseg; g++)
        if (t >= seg[g].t0 && t < seg[g].t1)
            out[((size_t)g * side + row) * side + col] += count / (seg[g].t1 - seg[g].t0);
}

int ari_segment_comm(const ari_comm_triple *tr, size_t ntr, int n, int T, const ari_segment *seg, int nseg,
                     double *out, ari_error *err)
{
    if (n < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%d entities", n);
    if (check_segments(T, seg, nseg, err) < 0 || check_triples(tr, ntr, n, T, err) < 0)
        return -1;
    memset(out, 0, (size_t)nseg * n * n * sizeof *out);
    for (size_t i = 0; i < ntr; i++)
        spread(seg, nseg, tr[i].t, tr[i].src, tr[i].dst, tr[i].count, n, out);
    return 0;
}

/* members[a] = |a| (a new array of ngroups); NULL with err when out of
 * memory or when a group is out of range. */
static int *group_sizes(const int *group, int n, int ngroups, ari_error *err)
{
    int *members = calloc((size_t)ngroups, sizeof *members);
    if (!members) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (group[k] < 0 || group[k] >= ngroups) {
            ari_error_set(err, ARI_E_INVALID_INPUT, "entity %d is in group %d, not in [0, %d)", k, group[k],
                          ngroups);
            free(members);
            return NULL;
        }
        members[group[k]]++;
    }
    return members;
}

/* Divides row a of each ngroups x ngroups matrix by |a|. */
static void average_rows(double *out, int nmat, int ngroups, const int *members)
{
    for (int g = 0; g < nmat; g++)
        for (int a = 0; a < ngroups; a++)
            for (int b = 0; b < ngroups && members[a] > 0; b++)
                out[((size_t)g * ngroups + a) * ngroups + b] /= members[a];
}

int ari_comm_aggregate(const double *m, int n, const int *group, int ngroups, double *out, ari_error *err)
{
    if (n < 0 || ngroups < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%d entities in %d groups", n, ngroups);
    int *members = group_sizes(group, n, ngroups, err);
    if (!members)
        return -1;
    memset(out, 0, (size_t)ngroups * ngroups * sizeof *out);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            out[(size_t)group[k] * ngroups + group[j]] += m[(size_t)k * n + j];
    average_rows(out, 1, ngroups, members);
    free(members);
    return 0;
}

int ari_segment_comm_grouped(const ari_comm_triple *tr, size_t ntr, int n, int T, const int *group, int ngroups,
                             const ari_segment *seg, int nseg, double *out, ari_error *err)
{
    if (n < 0 || ngroups < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%d entities in %d groups", n, ngroups);
    if (check_segments(T, seg, nseg, err) < 0 || check_triples(tr, ntr, n, T, err) < 0)
        return -1;
    int *members = group_sizes(group, n, ngroups, err);
    if (!members)
        return -1;
    memset(out, 0, (size_t)nseg * ngroups * ngroups * sizeof *out);
    for (size_t i = 0; i < ntr; i++)
        spread(seg, nseg, tr[i].t, group[tr[i].src], group[tr[i].dst], tr[i].count, ngroups, out);
    average_rows(out, nseg, ngroups, members);
    free(members);
    return 0;
}

void ari_comm_direction(const double *m_in, int m, ari_comm_mode mode, double *out)
{
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            double ab = m_in[(size_t)a * m + b], ba = m_in[(size_t)b * m + a];
            double v = ab;
            if (mode == ARI_COMM_RECV)
                v = ba;
            else if (mode == ARI_COMM_SUM)
                v = ab + ba;
            else if (mode == ARI_COMM_MAX)
                v = fmax(ab, ba);
            out[(size_t)a * m + b] = v;
        }
}

void ari_segment_scale(const double *means, size_t count, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (size_t i = 0; i < count; i++)
        if (!isnan(means[i])) {
            *lo = isnan(*lo) || means[i] < *lo ? means[i] : *lo;
            *hi = isnan(*hi) || means[i] > *hi ? means[i] : *hi;
        }
}
