/* gantt_row_reads.h: the raw tasks (bare, or with their details for the
 * rows drawn task by task) and runtime states of several Gantt rows, each
 * kind read in one statement for all the rows of a request.
 *
 * A Gantt request on PostgreSQL reads some rows from their raw rows: the
 * rows with few tasks in the window (api_gantt.c, RAW_ROW_TASKS) and the
 * runtime states of a window that no summary level draws. Read row by
 * row, those statements run one after the other, so a trace spread over
 * several shards (pg_shards.h) is read one shard at a time; one statement
 * over the rows' workers (`worker_id IN (...)`, literals, which
 * postgres_fdw ships) runs on every shard at once (asynchronous foreign
 * scans), and its rows stream in (ari_stream: one row held at a time).
 * The rows come in no order: each row's are sorted here, into the order
 * the per-row reads give (ari_tq_worker_tasks, ari_tq_worker_states), so
 * that the answers are the same bit for bit. */
#ifndef ARIADNE_STORE_GANTT_ROW_READS_H
#define ARIADNE_STORE_GANTT_ROW_READS_H

#include <stdint.h>

#include "store/analysis_cache.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

/* The tasks of the workers meta->workers[rows[k]] (k < n) starting in
 * [lo[k], hi), into out[k] by start, end and rowid (its arrays allocated
 * even when empty; free with ari_row_reads_free). Tasks of types the meta
 * does not know are left out, as ari_tq_worker_tasks leaves them. Returns
 * 0 or -1 with err set. */
int ari_gantt_read_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                         const double *lo, int n, double hi, ari_row_tasks *out, ari_error *err);
void ari_row_reads_free(ari_row_tasks *r, int n);

/* The tasks of the workers meta->workers[rows[k]] (k < n) starting in
 * [lo[k], hi), with their details: fn(ctx[k], ...) for each, a row's in
 * the order ari_tq_worker_tasks gives them (start, end, rowid), the rows
 * one after the other. Tasks of types the meta does not know are left
 * out. Returns 0, or -1 with err set (fn's non-zero return is out of
 * memory). */
int ari_gantt_read_details(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                           const double *lo, int n, double hi, ari_tq_detail_fn fn, void *const *ctx,
                           ari_error *err);

/* The states of the containers meta->workers[rows[k]] that start in
 * [lo[k], t1) and end after t0 (lo[k] = -INFINITY: every state starting
 * before t1), into out[k] as ari_tq_worker_states gives them over
 * [t0, t1] when lo[k] is low enough (free each with ari_tq_states_free).
 * Returns 0 or -1 with err set. */
int ari_gantt_read_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                          const double *lo, int n, double t0, double t1, ari_tq_states *out, ari_error *err);

#endif
