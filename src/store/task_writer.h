/* task_writer.h: the store's task-level sink (ari_task_sink): application
 * tasks, dependencies, data handles, workers and the elimination tree of a
 * trace being written (sql/003_tasks.sql), and the task summary merged into
 * traces.summary_json when the trace is finished. */
#ifndef ARIADNE_TASK_WRITER_H
#define ARIADNE_TASK_WRITER_H

#include "ingest/task_sink.h"
#include "store/trace_writer.h"
#include "util/error.h"

/* The task sink of a writer, created on first use (NULL if out of memory).
 * Container aliases it is given resolve through the writer's Paje sink. */
const ari_task_sink *ari_trace_writer_task_sink(ari_trace_writer *w, ari_error *err);

/* A callback that fails leaves its reason in ari_trace_writer_error(). */

/* Called by the trace sink's finish and free (trace_sink.c). */
int ari_task_writer_finish(ari_trace_writer *w, ari_error *err);
void ari_task_writer_free(ari_trace_writer *w);

#endif
