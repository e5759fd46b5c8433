/* task_queries.h: what the task-trace analyses read from the store
 * (sql/003_tasks.sql, sql/002_paje.sql), as plain C arrays:
 *
 *   - the trace itself (exists? kind? has tasks?);
 *   - its metadata: the sorted task types (dense ids 0..K-1, the same for
 *     every request), resource types, nodes, the workers in display order
 *     with their task counts and longest task, the extent of the tasks.
 *     Computed with one grouped scan of the tasks, then kept in the
 *     analysis cache (analysis "meta");
 *   - the tasks passing a filter, with their dependencies as a CSR
 *     predecessor list over the loaded tasks (cpe.h's ari_dag);
 *   - per-(resource type, task type) counts and mean durations;
 *   - the tasks of one worker in a time range (the Gantt's tasks mode);
 *   - the ready / submitted task counts of StarPU's scheduler variables.
 *
 * Dependencies: deps rows name job ids; a name that is not a task of the
 * trace (StarPU's MPI communication nodes, WontUse control tasks) is
 * contracted away, so p -> mpi -> t becomes p -> t. A task of the trace
 * that the filter leaves out cuts the paths through it: an analysis of
 * node 1 sees node 1's internal dependencies only.
 *
 * Tasks whose worker is not a known worker (workers table) are ignored by
 * every analysis: they cannot be placed on a row or a resource type.
 */
#ifndef ARIADNE_TASK_QUERIES_H
#define ARIADNE_TASK_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cpe.h"
#include "analysis/gantt_aggregation.h"
#include "store/store.h"
#include "util/error.h"

#define ARI_TQ_NO_ITERATION INT64_MIN

/* The common filters of the analyses (docs/api.md). Lists are NULL/0 for
 * "any"; numbers NAN for "none". A task passes when its type, its
 * worker's resource type and its node are listed, it overlaps [start, end]
 * (s < end and e > start, or zero-length with start <= s < end) and lasts
 * at least min_duration. */
typedef struct ari_task_filter {
    char **types;
    size_t ntypes;
    char **resources;
    size_t nresources;
    int64_t *nodes;
    size_t nnodes;
    double start, end;
    double min_duration;
} ari_task_filter;

typedef struct ari_tq_trace {
    int64_t id;
    char *name;
    char kind[16];
    char time_unit[16];
    char key[160];  /* "id/created_at/sha256": identifies the content */
    int has_tasks;  /* at least one task */
    double time_origin; /* summary.time_origin: the file's time of 0 (0 when none) */
} ari_tq_trace;

/* Returns 0 and fills *out (free with ari_tq_trace_free), 1 when there is
 * no such trace, -1 on error. */
int ari_tq_trace_get(ari_store *s, int64_t id, ari_tq_trace *out, ari_error *err);
void ari_tq_trace_free(ari_tq_trace *t);

typedef struct ari_tq_worker {
    int64_t id;          /* containers.id */
    int64_t node;
    char *name;          /* 0_CPU3 */
    char *resource_type; /* CPU */
    char *resource;      /* CPU3 */
    int restype;         /* index into meta->restypes */
    int64_t ntasks;
    double first_start, last_end, max_duration; /* 0 without tasks */
} ari_tq_worker;

typedef struct ari_tq_meta {
    int ntypes;
    char **types;          /* sorted by name (strcmp) */
    int nrestypes;
    char **restypes;       /* sorted */
    int nnodes;
    int64_t *nodes;        /* sorted */
    int nworkers;
    ari_tq_worker *workers; /* by node, resource type, resource (digits compared as numbers) */
    int64_t ntasks;        /* tasks on known workers */
    double extent_start, extent_end; /* first start and last end of those tasks */
} ari_tq_meta;

/* The metadata of a trace with tasks, from the analysis cache or computed
 * now (and cached). Returns 0 and *out (free with ari_tq_meta_free), -1 on
 * error. */
int ari_tq_meta_get(ari_store *s, int64_t trace_id, ari_tq_meta **out, ari_error *err);
/* The same for a trace whose content key (ari_tq_trace.key) is known: the
 * parsed metadata of recent traces is kept in memory, per process (the
 * key names the content, which never changes), and *out is a copy. */
int ari_tq_meta_get_keyed(ari_store *s, int64_t trace_id, const char *key, ari_tq_meta **out, ari_error *err);
void ari_tq_meta_free(ari_tq_meta *m);
/* Dense ids by name; -1 when absent. */
int ari_tq_type_id(const ari_tq_meta *m, const char *type);
int ari_tq_restype_id(const ari_tq_meta *m, const char *restype);
int ari_tq_worker_index(const ari_tq_meta *m, int64_t worker_id);

/* Does a task pass the filter? restype: the resource type name of its
 * worker. type: its type name. */
int ari_task_filter_pass(const ari_task_filter *f, const char *type, const char *restype,
                         int64_t node, double start, double end);
/* Does a worker (row) pass the filter's resources and nodes? */
int ari_task_filter_row(const ari_task_filter *f, const ari_tq_worker *w);
/* Does the filter keep this node (f->nodes NULL: every node)? */
int ari_task_filter_node(const ari_task_filter *f, int64_t node);
/* Does [start, end] overlap the window [t0, t1) (the Gantt rule)? */
int ari_overlaps(double start, double end, double t0, double t1);

typedef struct ari_tq_tasks {
    int64_t n;
    int *type;          /* meta type ids */
    int *restype;       /* meta restype ids (of the worker) */
    int *worker;        /* index into meta->workers */
    int64_t *node;
    double *start, *end;
    double *gflop;      /* NAN when unknown */
    int64_t *iteration; /* ARI_TQ_NO_ITERATION when unknown */
    char *ids;          /* job ids, NUL-separated */
    size_t *id_off;     /* [n] offsets into ids */
    /* with_deps only: predecessors (CSR), see the header comment */
    int64_t *pred_offset; /* [n + 1] */
    int64_t *pred;
} ari_tq_tasks;

/* Loads the tasks that pass f (NULL: all), in table order, and their
 * dependencies when with_deps. Returns 0 and fills *out (free with
 * ari_tq_tasks_free), -1 on error. */
int ari_tq_tasks_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta,
                      const ari_task_filter *f, int with_deps, ari_tq_tasks *out, ari_error *err);
/* ari_tq_tasks_load with its dependencies, keeping only what a walk of
 * the DAG reads (the bounds' CPE on PostgreSQL, whose other inputs the
 * database aggregates): type, node, iteration and the predecessors; the
 * other columns, ids and id_off are NULL. */
int ari_tq_dag_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_task_filter *f,
                    ari_tq_tasks *out, ari_error *err);
void ari_tq_tasks_free(ari_tq_tasks *t);
const char *ari_tq_job_id(const ari_tq_tasks *t, int64_t i);
/* The loaded DAG (with_deps). */
ari_dag ari_tq_dag(const ari_tq_tasks *t);

/* A task's duration for comparisons between tasks (outliers): end - start
 * (0 if negative) rounded to 10 significant digits, so that the rounding
 * of times shifted by the origin does not tell equal durations apart
 * (StarPU's nanosecond resolution fits in 10 digits up to 10 s in ms). */
double ari_tq_duration(double start, double end);

/* Calls fn for each task of one worker starting in [lo, hi), by start:
 * the Gantt's tasks mode (index tasks_by_worker). type is the meta id.
 * fn returns 0 to go on. Returns 0 or -1. */
typedef int (*ari_tq_detail_fn)(void *ctx, const char *job_id, int type, double start, double end,
                                double gflop, int64_t iteration);
int ari_tq_worker_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                        double lo, double hi, ari_tq_detail_fn fn, void *ctx, ari_error *err);

/* The Paje states of one worker (its container) overlapping [t0, t1]
 * (start < t1 and end > t0), by start then depth, for the runtime states
 * of the Gantt (Sleeping, Idle, Overhead, ...). Values are dense ids into
 * names (the state names met, in order of first appearance); is_task[v]
 * tells a value that is a task type of meta. */
typedef struct ari_tq_states {
    int64_t n;
    ari_gantt_state *states;
    int nvalues;
    char **names;           /* [nvalues] */
    unsigned char *is_task; /* [nvalues] */
} ari_tq_states;

/* Returns 0 and fills *out (free with ari_tq_states_free), -1 on error. */
int ari_tq_worker_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                         double t0, double t1, ari_tq_states *out, ari_error *err);
void ari_tq_states_free(ari_tq_states *st);
/* Fills out->names and out->is_task (out->nvalues of them) from the names
 * whose ids (names.id) are ids[0..nvalues): 0, or -1 with err set. */
int ari_tq_states_names(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int64_t *ids,
                        ari_tq_states *out, ari_error *err);

/* One container's step function of a scheduler variable: values[i] holds
 * from times[i] until times[i + 1] (the last until its end). */
typedef struct ari_tq_series {
    int64_t container_id;
    int64_t node;      /* from the container name's "N_" prefix, else 0 */
    int64_t n;
    double *times, *values;
} ari_tq_series;

typedef enum { ARI_TQ_READY = 0, ARI_TQ_SUBMITTED = 1 } ari_tq_variable;

/* The ready or submitted task counts of every container carrying them
 * (StarPU's "Number of Ready Tasks" / "Number of Submitted Uncompleted
 * Tasks", aliases nready / nsubmitted), restricted to the filter's nodes,
 * from the value in effect at t0 up to the last change before t1.
 * *out is malloc'd [*n] (free with ari_tq_series_free). Returns 0 or -1. */
int ari_tq_series_load(ari_store *s, int64_t trace_id, ari_tq_variable which,
                       const ari_task_filter *f, double t0, double t1, ari_tq_series **out,
                       int *n, ari_error *err);
void ari_tq_series_free(ari_tq_series *series, int n);

/* The node number of a container name ("1_CPU3" -> 1, "CPU3" -> 0). */
int64_t ari_tq_node_of_name(const char *name);

#endif
