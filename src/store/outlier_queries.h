/* outlier_queries.h: StarVZ's outlier test (analysis/outliers.h) pushed
 * down into SQL, for the PostgreSQL store (issue 20): the database ranks
 * the filtered tasks' durations per (task type, resource type), keeps the
 * order statistics of R's type-7 quartiles, and returns per group only
 * the count and the quartiles, then only the outlier tasks (duration >
 * Q3 + 1.5 IQR), by start. No task array of the trace is held by the
 * daemon. The answer is the in-memory path's (ari_tq_tasks_load +
 * ari_outliers_compute) exactly: the durations are ari_tq_duration's
 * (rounded to 10 significant digits), the quartiles interpolate as
 * quantile.c does ((1 - h) x_lo + h x_hi, which percentile_cont's
 * x_lo + h (x_hi - x_lo) does not match to the last bit), ties keep the
 * table order (job_id, rowid). The SQL is the shared dialect; it needs
 * window functions and floor/log10/power, which SQLite has only when
 * built with its math functions: the embedded store keeps the in-memory
 * path. */
#ifndef ARIADNE_STORE_OUTLIER_QUERIES_H
#define ARIADNE_STORE_OUTLIER_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/outliers.h"
#include "store/task_queries.h"

/* One outlier task; type, restype and worker are meta ids. */
typedef struct ari_tq_outlier {
    size_t id_off; /* into ids */
    int type, restype, worker;
    double start, end;
} ari_tq_outlier;

typedef struct ari_tq_outliers {
    ari_outlier_result res; /* groups and counts; is_outlier is NULL (ntasks 0) */
    size_t n;               /* == res.noutliers */
    ari_tq_outlier *tasks;  /* [n] by start, ties in table order */
    char *ids;              /* job ids, NUL-separated */
} ari_tq_outliers;

/* The outliers of the tasks of trace_id passing f (NULL: all). Returns 0
 * and fills *out (free with ari_tq_outliers_free), or -1 with err set. */
int ari_tq_outliers_sql(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                        ari_tq_outliers *out, ari_error *err);
void ari_tq_outliers_free(ari_tq_outliers *o);

#endif
