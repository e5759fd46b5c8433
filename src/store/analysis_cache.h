/* analysis_cache.h: the two caches of the task-trace analyses.
 *
 * 1. The database cache (sql/004_analysis.sql): JSON results keyed by
 *    trace, analysis name and canonical parameters. It survives restarts
 *    and goes with its trace (ON DELETE CASCADE). Writing to it is best
 *    effort: a GET must not fail or wait long because an import holds the
 *    write lock, so a failed write is logged and forgotten.
 *
 * 2. The row cache (process memory): for each trace recently drawn, every
 *    worker's tasks (start, end, type id) sorted by start. A Gantt request at any zoom then costs O(log n + tasks in
 *    the window + width) per row instead of re-reading the rows from
 *    SQLite (about 0.4 s per million tasks, measured). Entries are keyed by
 *    (trace id, created_at, sha256), so a deleted trace whose id is reused
 *    never matches, and are evicted least recently used beyond a memory
 *    budget. Entries are shared and reference counted: acquire, use,
 *    release, from any thread.
 */
#ifndef ARIADNE_ANALYSIS_CACHE_H
#define ARIADNE_ANALYSIS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

/* ---- database cache ---- */

/* Stored next to each analysis name ("bounds@2"): raise it when a result's
 * computation or shape changes, so that older entries are never read. */
#define ARI_CACHE_VERSION "1"

/* Returns 0 and the cached JSON text (caller frees), 1 when absent, -1 on
 * error. */
int ari_cache_get(ari_store *s, int64_t trace_id, const char *analysis, const char *params,
                  char **json_out, ari_error *err);
/* Stores (or replaces) a result; never fails the caller (returns 0, or -1
 * after logging when the database refused it). */
int ari_cache_put(ari_store *s, int64_t trace_id, const char *analysis, const char *params,
                  const char *json);

/* ---- row cache ---- */

typedef struct ari_row_tasks {
    int64_t worker_id;   /* containers.id */
    int64_t ntasks;
    double *start, *end; /* sorted by start (then end) */
    int *type;           /* ids into the meta's sorted types */
} ari_row_tasks;

typedef struct ari_rows {
    int64_t trace_id;
    int nrows;
    ari_row_tasks *rows;   /* in the order of meta->workers */
    size_t bytes;
    /* cache bookkeeping (private) */
    char key[160];
    int refs;
    uint64_t last_use;
    struct ari_rows *next;
} ari_rows;

/* The rows of a trace, from the cache or loaded now (tasks of every worker
 * of meta). `key` identifies the trace's content (see above).
 * Returns NULL with err set on failure. Release with ari_rows_release. */
ari_rows *ari_rows_acquire(ari_store *s, const ari_tq_meta *meta, const char *key,
                           ari_error *err);
void ari_rows_release(ari_rows *rows);
/* The memory budget of the row cache in bytes (default 1 GiB). */
void ari_rows_set_budget(size_t bytes);
/* Drops every unused entry (tests). */
void ari_rows_flush(void);

#endif
