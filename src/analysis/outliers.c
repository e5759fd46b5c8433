/* outliers.c: per-(type, resource type) Q3 + 1.5 IQR outlier detection.
 *
 * Durations are bucketed by group with a counting sort (one pass to count,
 * one to place), each bucket is sorted, and the type-7 quartiles are read
 * off the sorted buckets. A final pass flags the tasks.
 */
#include "analysis/outliers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/quantile.h"
#include "util/free_all.h"
#include "util/index_sort.h"

static int validate(const ari_outlier_input *in, ari_error *err)
{
    if (!in)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "outliers: no input");
    if (in->ntypes < 1 || in->nrestypes < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "outliers: ntypes (%d) and nrestypes (%d) must be >= 1", in->ntypes,
                             in->nrestypes);
    if ((long long)in->ntypes * in->nrestypes > ARI_OUTLIERS_MAX_GROUPS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "outliers: %d types x %d resource types exceeds %d groups", in->ntypes,
                             in->nrestypes, ARI_OUTLIERS_MAX_GROUPS);
    if (in->ntasks > 0 && (!in->duration || !in->type || !in->restype))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "outliers: missing task arrays");
    for (size_t i = 0; i < in->ntasks; i++) {
        if (in->type[i] < 0 || in->type[i] >= in->ntypes)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "outliers: task %zu has type id %d outside [0, %d)", i,
                                 in->type[i], in->ntypes);
        if (in->restype[i] < 0 || in->restype[i] >= in->nrestypes)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "outliers: task %zu has resource type id %d outside [0, %d)", i,
                                 in->restype[i], in->nrestypes);
        if (!isfinite(in->duration[i]) || in->duration[i] < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "outliers: task %zu has invalid duration %g", i, in->duration[i]);
    }
    return 0;
}

static size_t group_of(const ari_outlier_input *in, size_t i)
{
    return (size_t)in->restype[i] * (size_t)in->ntypes + (size_t)in->type[i];
}

/* Fills groups[g].q1/q3/iqr/threshold from the sorted bucket of each group;
 * start[g] .. start[g + 1] delimits group g in `sorted`. */
static void fill_quartiles(ari_outlier_group *groups, size_t ngroups, const size_t *start,
                           double *sorted)
{
    for (size_t g = 0; g < ngroups; g++) {
        ari_outlier_group *grp = &groups[g];
        grp->count = start[g + 1] - start[g];
        if (grp->count == 0) {
            grp->q1 = grp->q3 = grp->iqr = grp->threshold = NAN;
            continue;
        }
        double *x = sorted + start[g];
        ari_sort_doubles(x, grp->count);
        grp->q1 = ari_quantile7_sorted(x, grp->count, 0.25);
        grp->q3 = ari_quantile7_sorted(x, grp->count, 0.75);
        grp->iqr = grp->q3 - grp->q1;
        grp->threshold = grp->q3 + 1.5 * grp->iqr;
    }
}

int ari_outliers_compute(const ari_outlier_input *in, ari_outlier_result *out, ari_error *err)
{
    if (!out)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "outliers: no result");
    memset(out, 0, sizeof *out);
    if (validate(in, err) != 0)
        return -1;

    size_t ngroups = (size_t)in->ntypes * (size_t)in->nrestypes;
    size_t n = in->ntasks;
    size_t *start = calloc(ngroups + 1, sizeof *start);
    size_t *fill = malloc(ngroups * sizeof *fill);
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    out->groups = calloc(ngroups, sizeof *out->groups);
    out->is_outlier = calloc(n ? n : 1, 1);
    if (!start || !fill || !sorted || !out->groups || !out->is_outlier) {
        free(start), free(fill), free(sorted);
        ari_outlier_result_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "outliers: out of memory (%zu tasks)", n);
    }

    /* Counting sort of the durations by group. */
    for (size_t i = 0; i < n; i++)
        start[group_of(in, i) + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    memcpy(fill, start, ngroups * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        sorted[fill[group_of(in, i)]++] = in->duration[i];

    fill_quartiles(out->groups, ngroups, start, sorted);

    for (size_t i = 0; i < n; i++) {
        ari_outlier_group *grp = &out->groups[group_of(in, i)];
        if (in->duration[i] > grp->threshold) {
            out->is_outlier[i] = 1;
            grp->noutliers++;
            out->noutliers++;
        }
    }
    out->ntypes = in->ntypes;
    out->nrestypes = in->nrestypes;
    out->ntasks = n;
    free(start), free(fill), free(sorted);
    return 0;
}

void ari_outlier_result_free(ari_outlier_result *res)
{
    if (!res)
        return;
    void *owned[] = {res->groups, res->is_outlier};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}

int64_t *ari_outliers_by_start(const ari_outlier_result *res, const double *start)
{
    int64_t *idx = malloc((res->noutliers + 1) * sizeof *idx);
    if (!idx)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < res->ntasks; i++)
        if (res->is_outlier[i])
            idx[n++] = (int64_t)i;
    ari_sort_index_by_double(idx, n, start);
    return idx;
}
