/* outlier_queries.c: the outlier test as one SQL statement over the
 * filtered tasks (outlier_queries.h): the groups' counts and quartiles,
 * then the outlier tasks, from the CTEs below; the filter is the one of
 * ari_task_filter_pass, its lists bound as JSON arrays. */
#include "store/outlier_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "store/task_filter_sql.h"
#include "util/vec.h"

/* f: the tasks passing the filter, on known workers (ari_task_filter_pass,
 * ari_overlaps); g: their durations as ari_tq_duration computes them
 * (round(x) is floor(x + 0.5) for the x > 1e8 here; a scale of 10^309 or
 * more is infinite in C, which then keeps d); r: the rank i (from 0) of
 * each duration in its group of n; q: the order statistics that R's type 7
 * reads, x[lo] and x[lo + 1] at lo = floor((n - 1) p); s: the quartiles as
 * quantile.c interpolates them. */
#define OUTLIER_CTES                                                                                         \
    "WITH f AS (SELECT t.job_id AS job_id, t.type AS type, w.resource_type AS restype, t.worker_id AS "      \
    "worker_id,"                                                                                             \
    " t.start AS start, t.end AS fin, t.rowid AS seq, t.end - t.start AS d"                                  \
    " FROM tasks t JOIN workers w ON w.trace_id = t.trace_id AND w.container_id = t.worker_id"               \
    ARI_TASK_FILTER_WHERE "),"                                                                               \
    " g AS (SELECT job_id, type, restype, worker_id, start, fin, seq,"                                       \
    " CASE WHEN d > 0 AND d <= 1.7976931348623157e308 THEN"                                                  \
    " CASE WHEN floor(log10(d)) > -300"                                                                      \
    " THEN floor(d * power(CAST(10 AS REAL), 9 - floor(log10(d))) + 0.5)"                                    \
    " / power(CAST(10 AS REAL), 9 - floor(log10(d)))"                                                        \
    " ELSE d END ELSE CAST(0 AS REAL) END AS dur FROM f),"                                                   \
    " r AS (SELECT type, restype, dur, row_number() OVER (PARTITION BY type, restype ORDER BY dur) - 1 AS "  \
    "i,"                                                                                                     \
    " count(*) OVER (PARTITION BY type, restype) AS n FROM g),"                                              \
    " q AS (SELECT type, restype, n,"                                                                        \
    " max(CASE WHEN i = (n - 1) / 4 THEN dur END) AS a1, max(CASE WHEN i = (n - 1) / 4 + 1 THEN dur END) "   \
    "AS b1,"                                                                                                 \
    " max(CASE WHEN i = 3 * (n - 1) / 4 THEN dur END) AS a3,"                                                \
    " max(CASE WHEN i = 3 * (n - 1) / 4 + 1 THEN dur END) AS b3,"                                            \
    " CAST(n - 1 AS REAL) * 0.25 - (n - 1) / 4 AS h1, CAST(n - 1 AS REAL) * 0.75 - 3 * (n - 1) / 4 AS h3"    \
    " FROM r WHERE i = (n - 1) / 4 OR i = (n - 1) / 4 + 1 OR i = 3 * (n - 1) / 4 OR i = 3 * (n - 1) / 4 + 1" \
    " GROUP BY type, restype, n),"                                                                           \
    " s AS (SELECT type, restype, n,"                                                                        \
    " CASE WHEN h1 > 0 AND b1 <> a1 THEN (1 - h1) * a1 + h1 * b1 ELSE a1 END AS q1,"                         \
    " CASE WHEN h3 > 0 AND b3 <> a3 THEN (1 - h3) * a3 + h3 * b3 ELSE a3 END AS q3 FROM q)"

/* One statement, one scan: the groups (kind 0: type, restype, n, q1, q3)
 * first, then the outlier tasks (kind 1: type, restype, job_id, worker_id,
 * start, end) by start, ties in table order. */
static const char outliers_sql[] = OUTLIER_CTES
    " SELECT 0 AS kind, type, restype, n, q1, q3, NULL AS job_id, NULL AS worker_id, NULL AS start,"
    " NULL AS fin, NULL AS seq FROM s"
    " UNION ALL SELECT 1, g.type, g.restype, NULL, NULL, NULL, g.job_id, g.worker_id, g.start, g.fin, g.seq"
    " FROM g JOIN s ON s.type = g.type AND s.restype = g.restype"
    " WHERE g.dur > s.q3 + 1.5 * (s.q3 - s.q1) ORDER BY 1, 9, 7, 11";

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "outliers: out of memory");
}

/* The group cell of a row's (type, restype) names in columns c, c + 1; -1
 * when the meta does not know them. */
static long cell_of(const ari_tq_meta *m, ari_stmt *st, int c)
{
    int k = ari_tq_type_id(m, (const char *)ari_col_text(st, c));
    int r = ari_tq_restype_id(m, (const char *)ari_col_text(st, c + 1));
    return k < 0 || r < 0 ? -1 : (long)r * m->ntypes + k;
}

static int init_groups(const ari_tq_meta *m, ari_outlier_result *res, ari_error *err)
{
    size_t ngroups = (size_t)m->ntypes * (size_t)m->nrestypes;
    res->groups = calloc(ngroups + 1, sizeof *res->groups);
    if (!res->groups)
        return nomem(err);
    res->ntypes = m->ntypes;
    res->nrestypes = m->nrestypes;
    for (size_t g = 0; g < ngroups; g++)
        res->groups[g].q1 = res->groups[g].q3 = res->groups[g].iqr = res->groups[g].threshold = NAN;
    return 0;
}

/* A kind-0 row: the group's count and quartiles, the threshold as
 * outliers.c derives it. */
static void read_group(ari_stmt *st, ari_outlier_group *g)
{
    g->count = (size_t)ari_col_int64(st, 3);
    g->q1 = ari_col_double(st, 4);
    g->q3 = ari_col_double(st, 5);
    g->iqr = g->q3 - g->q1;
    g->threshold = g->q3 + 1.5 * g->iqr;
}

typedef struct task_reader {
    ari_tq_outliers *o;
    size_t cap, ids_cap, ids_len;
} task_reader;

static int add_task(task_reader *R, const ari_tq_meta *m, ari_stmt *st, long cell)
{
    ari_tq_outliers *o = R->o;
    int wi = ari_col_type(st, 7) == ARI_NULL ? -1 : ari_tq_worker_index(m, ari_col_int64(st, 7));
    if (wi < 0)
        return 0; /* cannot happen: the join keeps known workers */
    const char *job = (const char *)ari_col_text(st, 6);
    size_t len = strlen(job ? job : "");
    if (ari_vec_reserve((void **)&o->tasks, &R->cap, o->n + 1, sizeof *o->tasks) < 0 ||
        ari_vec_reserve((void **)&o->ids, &R->ids_cap, R->ids_len + len + 1, 1) < 0)
        return -1;
    memcpy(o->ids + R->ids_len, job ? job : "", len + 1);
    o->tasks[o->n] = (ari_tq_outlier){R->ids_len, (int)(cell % m->ntypes), (int)(cell / m->ntypes),
                                      wi,         ari_col_double(st, 8),   ari_col_double(st, 9)};
    R->ids_len += len + 1;
    o->n++;
    o->res.groups[cell].noutliers++;
    o->res.noutliers++;
    return 0;
}

static int read_rows(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                     ari_tq_outliers *o, ari_error *err)
{
    ari_stmt *st = ari_task_filter_bound(s, outliers_sql, trace_id, f, NULL, 0, err);
    if (!st)
        return -1;
    task_reader R = {o, 0, 0, 0};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        long c = cell_of(m, st, 1);
        if (c < 0)
            continue;
        if (ari_col_int64(st, 0) == 0) {
            read_group(st, &o->res.groups[c]);
        } else if (add_task(&R, m, st, c) < 0) {
            ari_reset(st);
            return nomem(err);
        }
    }
    return ari_store_rows_end(s, st, rc, "read outliers", err);
}

int ari_tq_outliers_sql(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                        ari_tq_outliers *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (m->ntypes < 1 || m->nrestypes < 1) /* the in-memory path's refusal, word for word */
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "outliers: ntypes (%d) and nrestypes (%d) must be >= 1", m->ntypes,
                             m->nrestypes);
    if ((long long)m->ntypes * m->nrestypes > ARI_OUTLIERS_MAX_GROUPS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "outliers: %d types x %d resource types exceeds %d groups", m->ntypes,
                             m->nrestypes, ARI_OUTLIERS_MAX_GROUPS);
    if (init_groups(m, &out->res, err) < 0 || read_rows(s, trace_id, m, f, out, err) < 0) {
        ari_tq_outliers_free(out);
        return -1;
    }
    return 0;
}

void ari_tq_outliers_free(ari_tq_outliers *o)
{
    if (!o)
        return;
    ari_outlier_result_free(&o->res);
    free(o->tasks);
    free(o->ids);
    memset(o, 0, sizeof *o);
}
