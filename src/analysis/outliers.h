/* outliers.h: StarVZ's anomalous-task test (seed paper, section V-A):
 * a task is an outlier when its duration exceeds Q3 + 1.5 IQR of the
 * durations of its (task type, resource type) group, quartiles computed as
 * R's default quantile(type = 7) (see quantile.h).
 *
 * Inputs are plain arrays, one entry per task, so that rows of the task
 * table load directly: a duration, a task-type id and a resource-type id.
 * Groups are indexed r * ntypes + k (resource type r, task type k), the
 * same layout as the mean-duration matrices of abe.h and cpe.h.
 */
#ifndef ARIADNE_ANALYSIS_OUTLIERS_H
#define ARIADNE_ANALYSIS_OUTLIERS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Limits on the number of groups (ntypes * nrestypes). */
#define ARI_OUTLIERS_MAX_GROUPS (1 << 24)

typedef struct ari_outlier_input {
    size_t ntasks;
    const double *duration; /* [ntasks], finite and >= 0 */
    const int *type;        /* [ntasks], task-type id in [0, ntypes) */
    const int *restype;     /* [ntasks], resource-type id in [0, nrestypes) */
    int ntypes;             /* >= 1 */
    int nrestypes;          /* >= 1 */
} ari_outlier_input;

typedef struct ari_outlier_group {
    size_t count;     /* tasks in the group */
    double q1, q3;    /* type-7 quartiles; NAN when count == 0 */
    double iqr;       /* q3 - q1; NAN when count == 0 */
    double threshold; /* q3 + 1.5 iqr; NAN when count == 0 */
    size_t noutliers; /* tasks of the group with duration > threshold */
} ari_outlier_group;

typedef struct ari_outlier_result {
    int ntypes, nrestypes;
    ari_outlier_group *groups;  /* [nrestypes * ntypes], index r * ntypes + k */
    unsigned char *is_outlier;  /* [ntasks]: 1 when duration > its group's threshold */
    size_t ntasks;
    size_t noutliers;           /* total over all groups */
} ari_outlier_result;

/* Computes the per-group quartiles and thresholds and the per-task flags.
 * On success returns 0 and fills *out (free with ari_outlier_result_free).
 * On bad input (NULL arrays with ntasks > 0, ids out of range, negative or
 * non-finite durations, too many groups) returns -1 with
 * ARI_E_INVALID_PARAMETER; out of memory gives ARI_E_NOMEM. *out is left
 * empty (safe to free) on failure. O(n log n) time, O(n + groups) memory. */
int ari_outliers_compute(const ari_outlier_input *in, ari_outlier_result *out, ari_error *err);

void ari_outlier_result_free(ari_outlier_result *res);

/* The outlier tasks' indices by start time (ties by index): a malloc'd
 * array of res->noutliers entries, or NULL when out of memory. start is
 * [res->ntasks]. */
int64_t *ari_outliers_by_start(const ari_outlier_result *res, const double *start);

#endif
