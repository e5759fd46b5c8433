/* gantt_rows.h: the Gantt chart's rows stored with their trace
 * (sql/010_gantt_rows.sql): every worker's tasks (start, end, type) sorted
 * by start, end, type, packed into three BLOBs, so that the row cache
 * (analysis_cache.h) of a trace is read with one indexed lookup per worker
 * instead of a sorted scan of the tasks table (the first Gantt of a
 * million-task trace went from seconds to tens of milliseconds).
 *
 * Written at import (ari_gantt_rows_build, inside the import's transaction)
 * and, for traces imported before sql/010, on their first Gantt
 * (ari_gantt_rows_save, best effort). The packed arrays are those the
 * tasks table gives (same values, same order), so the Gantt's answer does
 * not depend on where its rows came from (tests/unit/test_gantt_rows.c).
 * The BLOBs hold native doubles and int32: a database moves between
 * machines of the same byte order only (as every x86-64 and arm64 one is).
 */
#ifndef ARIADNE_STORE_GANTT_ROWS_H
#define ARIADNE_STORE_GANTT_ROWS_H

#include <stdint.h>

#include "store/analysis_cache.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

/* Reads every task of trace_id that has a worker, sorted by worker, start,
 * end and type, and stores the packed rows (replacing any). Runs inside the
 * caller's transaction. Returns 0, or -1 with err set. */
int ari_gantt_rows_build(ari_store *s, int64_t trace_id, ari_error *err);

/* Fills rows[i] (worker meta->workers[i].id, NULL arrays until read) with
 * the stored packed rows, type numbers mapped to meta's type ids (a task
 * whose type meta lacks is dropped, as the tasks-table path does).
 * Returns 0, 1 when the trace has no stored rows (imported before
 * sql/010), or -1 with err set (rows may then hold arrays to free). */
int ari_gantt_rows_read(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, ari_row_tasks *rows,
                        ari_error *err);

/* Stores rows loaded from the tasks table (types are meta's ids) in its
 * own short transaction; best effort: a database that is busy or refuses
 * is logged and forgotten. */
void ari_gantt_rows_save(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_row_tasks *rows);

/* The rest of what the first Gantt needs, its marks (makespan, ABE, CPE),
 * comes from the analysis layer, which the store may not call: the server
 * registers a step (api_gantt.c) that the task writer runs after
 * ari_gantt_rows_build, inside the import's transaction, on the staged
 * trace. The step should be best effort (a failure fails the import).
 * NULL, the default (tools and tests that link no server), for none. */
typedef int (*ari_gantt_import_step)(ari_store *s, int64_t trace_id, ari_error *err);
void ari_gantt_set_import_step(ari_gantt_import_step step);
/* Runs the registered step, if any; 0 without one. */
int ari_gantt_run_import_step(ari_store *s, int64_t trace_id, ari_error *err);

#endif
