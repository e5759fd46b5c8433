/* format_starpu.h: the "starpu" import format (a directory of
 * starpu_fxt_tool output: paje.trace + tasks.rec, with dag.dot, data.rec,
 * atree.dot/atree.csv, tasks_anode.csv, conf.txt when present), and the
 * StarPU conventions shared with the StarVZ CSV format (format_starvz.c):
 * which states are application tasks, the time origin, and readers for the
 * files both formats have (task records, dependencies, handles, tree). */
#ifndef ARIADNE_FORMAT_STARPU_H
#define ARIADNE_FORMAT_STARPU_H

#include <stddef.h>

#include "import/formats.h"
#include "ingest/sink.h"
#include "ingest/task_sink.h"

extern const ari_format ari_format_starpu;

/* StarPU's own worker states (StarVZ's all_starpu_states): never tasks. */
int ari_starpu_is_runtime_state(const char *value);
/* Runtime-internal codelets (_starpu_*, starpu_data_*). */
int ari_starpu_is_internal(const char *name);
/* Matrix-generation kernels (*plgsy, *plrnt) that StarVZ's colour tables
 * mark Use = FALSE: application tasks that do not set the time origin. */
int ari_starpu_is_generation_kernel(const char *type);

/* Removes a compression suffix: "paje.worker_state.csv.gz" -> "paje.worker_state.csv". */
void ari_starpu_plain_name(const char *path, char *out, size_t size);

/* A file a bundle format knows, by its plain name, and its role there; a
 * table of them ends with a NULL name. */
typedef struct ari_bundle_file {
    const char *name;
    int role;
} ari_bundle_file;
/* The role of the file at `path` (compression suffix ignored), or -1. */
int ari_bundle_role(const ari_bundle_file *table, const char *path);

/* A stream of records from a recfile, or from a CSV file with a header row
 * (empty cells are absent fields), as name/value pairs. */
typedef struct ari_records ari_records;
ari_records *ari_records_open(const char *path, const char *name, int csv, ari_error *err);
int ari_records_next(ari_records *r, const ari_field **fields, size_t *n, ari_error *err);
/* "name:line" of the last record, for messages. */
const char *ari_records_where(ari_records *r);
void ari_records_close(ari_records *r);

/* The earliest start of the application task records (tasks.rec or
 * rec.tasks.csv), without generation kernels unless there are only those.
 * Returns 0 with *origin set, or -1 (no application task is an error). */
int ari_starpu_records_origin(const char *path, const char *name, int csv, double *origin,
                              ari_error *err);

/* Completes the stored tasks from task records (submit time, priority,
 * handles, ...) and stores DependsOn; a record whose task was not stored
 * yet is stored from the record itself (worker "<rank>_w<WorkerId>" if
 * such a container exists). Times are shifted by origin. */
int ari_starpu_read_task_records(struct ari_trace_writer *w, const ari_task_sink *ts,
                                 const char *path, const char *name, int csv, double origin,
                                 ari_error *err);

/* data.rec / rec.data_handles.csv. */
int ari_starpu_read_handles(struct ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                            const char *name, int csv, ari_error *err);

/* Dependencies from dag.csv (Dependent,JobId[,Label]) or dag.dot; edges
 * through "mpi_*" nodes are joined into task -> task dependencies. */
int ari_starpu_read_dag(struct ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                        const char *name, int csv, ari_error *err);

/* atree.csv (Node,DependsOn = parent,child) or atree.dot (parent -- child). */
int ari_starpu_read_tree(struct ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                         const char *name, int csv, ari_error *err);

/* tasks_anode.csv (JobId,...,ANode,...,GFlop). */
int ari_starpu_read_anodes(struct ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                           const char *name, ari_error *err);

/* conf.txt ("key value" lines, "end"). */
int ari_starpu_read_conf(struct ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                         const char *name, ari_error *err);

/* A task from the user fields of an application state (JobId, SubmitOrder,
 * GFlop, ...); returns 1 if the state is an application task, else 0. */
int ari_starpu_task_from_fields(const char *value, const ari_field *fields, size_t n,
                                ari_task *t);

/* After a sink callback failed: copies the writer's error into err if it
 * has one; returns -1. */
int ari_starpu_fail(struct ari_trace_writer *w, ari_error *err);

#endif
