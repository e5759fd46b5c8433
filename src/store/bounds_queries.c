/* bounds_queries.c: the bounds' aggregates as one SQL statement over the
 * filtered tasks (bounds_queries.h): per (type, resource type) in all,
 * per node and per iteration, each group's count, ordered sum of
 * durations, first start and last end. The filter is the one of
 * ari_task_filter_pass (as in outlier_queries.c), its lists bound as JSON
 * arrays. */
#include "store/bounds_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "store/task_filter_sql.h"
#include "util/vec.h"

/* f: the tasks passing the filter, on known workers; then one grouping
 * per kind of scope (0 all, 1 node, 2 iteration: ?8 = 1 only), by kind
 * and key. Each sum adds the durations in the loader's order (job_id,
 * rowid). */
static const char aggregates_sql[] =
    "WITH f AS (SELECT t.type AS type, w.resource_type AS restype, t.node AS node, t.iteration AS iteration,"
    " t.start AS start, t.end AS fin, t.job_id AS job_id, t.rowid AS seq"
    " FROM tasks t JOIN workers w ON w.trace_id = t.trace_id AND w.container_id = t.worker_id"
    ARI_TASK_FILTER_WHERE ")"
    " SELECT 0 AS kind, 0 AS k, type, restype, count(*), sum(fin - start ORDER BY job_id, seq), min(start),"
    " max(fin) FROM f GROUP BY type, restype"
    " UNION ALL SELECT 1, node, type, restype, count(*), sum(fin - start ORDER BY job_id, seq), min(start),"
    " max(fin) FROM f GROUP BY node, type, restype"
    " UNION ALL SELECT 2, iteration, type, restype, count(*), sum(fin - start ORDER BY job_id, seq),"
    " min(start), max(fin) FROM f WHERE ?8 = 1 AND iteration IS NOT NULL GROUP BY iteration, type, restype"
    " ORDER BY 1, 2";

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "bounds: out of memory");
}

static int stats_init(ari_bounds_stats *st, int64_t key, size_t cells)
{
    memset(st, 0, sizeof *st);
    st->key = key;
    st->makespan = st->start = NAN;
    st->count = calloc(cells + 1, sizeof *st->count);
    st->sum = calloc(cells + 1, sizeof *st->sum);
    return st->count && st->sum ? 0 : -1;
}

/* The scope a row of kind and key goes to: all, or the last of the node
 * or iteration list (a new one when the key changes: rows come by key). */
typedef struct reader {
    ari_bounds_aggregates *a;
    size_t cells, node_cap, iter_cap;
} reader;

static ari_bounds_stats *scope_of(reader *R, int64_t kind, int64_t key)
{
    if (kind == 0)
        return &R->a->all;
    ari_bounds_stats **list = kind == 1 ? &R->a->nodes : &R->a->iterations;
    size_t *n = kind == 1 ? &R->a->nnodes : &R->a->niterations;
    size_t *cap = kind == 1 ? &R->node_cap : &R->iter_cap;
    if (*n > 0 && (*list)[*n - 1].key == key)
        return &(*list)[*n - 1];
    if (ari_vec_reserve((void **)list, cap, *n + 1, sizeof **list) < 0)
        return NULL;
    ari_bounds_stats *st = &(*list)[(*n)++];
    return stats_init(st, key, R->cells) == 0 ? st : NULL;
}

/* Adds one group: its cell's count and sum (+ 0.0: bounds.c's sum starts
 * from 0, PostgreSQL's from the first value, which differ only for a -0),
 * the scope's task count, first start and last end as bounds.c keeps
 * them. */
static void add_group(ari_bounds_stats *st, size_t cell, ari_stmt *row)
{
    double first = ari_col_double(row, 6), last = ari_col_double(row, 7);
    st->count[cell] = (double)ari_col_int64(row, 4);
    st->sum[cell] = ari_col_double(row, 5) + 0.0;
    st->tasks += ari_col_int64(row, 4);
    if (isnan(st->makespan) || last > st->makespan)
        st->makespan = last;
    if (isnan(st->start) || first < st->start)
        st->start = first;
}

static int read_rows(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                     int by_iteration, reader *R, ari_error *err)
{
    ari_arg by = ari_arg_int(by_iteration ? 1 : 0);
    ari_stmt *st = ari_task_filter_bound(s, aggregates_sql, trace_id, f, &by, 1, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = ari_tq_type_id(m, (const char *)ari_col_text(st, 2));
        int r = ari_tq_restype_id(m, (const char *)ari_col_text(st, 3));
        if (k < 0 || r < 0)
            continue; /* cannot happen: the meta lists every known worker's types */
        ari_bounds_stats *scope = scope_of(R, ari_col_int64(st, 0), ari_col_int64(st, 1));
        if (!scope) {
            ari_reset(st);
            return nomem(err);
        }
        add_group(scope, (size_t)r * (size_t)m->ntypes + (size_t)k, st);
    }
    return ari_store_rows_end(s, st, rc, "read the bounds' aggregates", err);
}

int ari_bq_aggregates(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                      int by_iteration, ari_bounds_aggregates *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    reader R = {out, (size_t)m->ntypes * (size_t)m->nrestypes, 0, 0};
    if (stats_init(&out->all, 0, R.cells) < 0) {
        ari_bounds_aggregates_free(out);
        return nomem(err);
    }
    if (read_rows(s, trace_id, m, f, by_iteration, &R, err) < 0) {
        ari_bounds_aggregates_free(out);
        return -1;
    }
    return 0;
}
