/* task_filter_sql.h: the task filter (ari_task_filter_pass and
 * ari_overlaps of task_queries.h) as SQL, for the statements that filter a
 * trace's tasks in the database (outlier_queries.c, bounds_queries.c).
 *
 * ARI_TASK_FILTER_WHERE is the WHERE clause over `tasks t` joined to
 * `workers w` (the tasks on known workers): ?1 the trace id, ?2 to ?4 the
 * type, resource-type and node lists as JSON arrays (NULL: any), ?5 the
 * minimum duration, ?6 and ?7 the window (NULL: none). The statement's own
 * parameters come from ?8. */
#ifndef ARIADNE_STORE_TASK_FILTER_SQL_H
#define ARIADNE_STORE_TASK_FILTER_SQL_H

#include <stdint.h>

#include "store/store_internal.h"
#include "store/task_queries.h"
#include "util/error.h"

#define ARI_TASK_FILTER_WHERE                                                                                \
    " WHERE t.trace_id = ?1"                                                                                 \
    " AND (CAST(?2 AS TEXT) IS NULL OR t.type IN (SELECT value FROM json_each(?2)))"                         \
    " AND (CAST(?3 AS TEXT) IS NULL OR w.resource_type IN (SELECT value FROM json_each(?3)))"                \
    " AND (CAST(?4 AS TEXT) IS NULL OR t.node IN (SELECT CAST(value AS INTEGER) FROM json_each(?4)))"        \
    " AND (CAST(?5 AS REAL) IS NULL OR t.end - t.start >= ?5)"                                               \
    " AND (CAST(?6 AS REAL) IS NULL OR CASE WHEN t.end > t.start THEN t.end > ?6 ELSE t.start >= ?6 END)"    \
    " AND (CAST(?7 AS REAL) IS NULL OR t.start < ?7)"

/* The cached statement sql with ?1 to ?7 bound to trace_id and f (NULL:
 * no filter) and ?8 on to extra[0..nextra); NULL with err set. */
ari_stmt *ari_task_filter_bound(ari_store *s, const char *sql, int64_t trace_id, const ari_task_filter *f,
                                const ari_arg *extra, int nextra, ari_error *err);

#endif
