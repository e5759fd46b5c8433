/* task_sink.h: the task-level interface between the task-based readers
 * (format_starpu.c, format_starvz.c) and the store (store/task_writer.c),
 * in the spirit of sink.h: readers call the callbacks, never SQLite.
 *
 * The Paje-level entities of the same trace (containers, states, ...) go
 * through the ordinary ari_sink first; the task sink refers to containers
 * by the alias the Paje sink was given. Times are already shifted by the
 * origin the reader announced with on_origin. Strings are only valid
 * during the call. Callbacks return 0 to go on, non-zero to abort.
 */
#ifndef ARIADNE_TASK_SINK_H
#define ARIADNE_TASK_SINK_H

#include <stdint.h>

#define ARI_UNSET_INT INT64_MIN /* an absent integer field */

/* An application task as Paje (or StarVZ's worker_state) shows it. NULL
 * strings and ARI_UNSET_INT / NaN numbers are absent values. */
typedef struct ari_task {
    const char *job_id;
    const char *type;
    const char *worker;  /* container alias of the worker, or NULL */
    int64_t node;        /* ARI_UNSET_INT: the worker's node */
    double start, end;
    int64_t submit_order;
    const char *tag;
    double gflop;
    int64_t iteration, subiteration;
    const char *params;
    const char *footprint;
    int64_t size, x, y;
} ari_task;

/* What tasks.rec (or rec.tasks.csv) adds to a task, matched by job_id. */
typedef struct ari_task_info {
    const char *job_id;
    double submit_time;
    int64_t priority, memory_node, worker_rank;
    const char *model, *handles, *modes;
    const char *tag, *params, *footprint; /* used when the task lacks them */
    double gflop;
} ari_task_info;

typedef struct ari_data_handle {
    const char *handle;
    int64_t home_node, mpi_rank;
    const char *name;
    int64_t size;
    const char *description, *coordinates;
    int64_t mpi_owner, mpi_tag;
} ari_data_handle;

typedef struct ari_task_sink {
    void *ctx;
    /* The time origin subtracted from every time (ms), before any task. */
    int (*on_origin)(void *ctx, double origin);
    /* The trace has an elimination tree: tasks get anode from their Tag. */
    int (*on_has_tree)(void *ctx);
    /* A container that executes tasks; node and resource type come from
     * its name ("0_CPU3", "CUDA0_0"). */
    int (*on_worker)(void *ctx, const char *alias, const char *name);
    int (*on_task)(void *ctx, const ari_task *t);
    /* Sets *matched to 1 if a task with that job id was stored before. */
    int (*on_task_info)(void *ctx, const ari_task_info *info, int *matched);
    /* job_id depends on depends_on; label may be NULL. Duplicates are ignored. */
    int (*on_dep)(void *ctx, const char *job_id, const char *depends_on, const char *label);
    int (*on_handle)(void *ctx, const ari_data_handle *h);
    /* An elimination-tree node and its parent (ARI_UNSET_INT for none). */
    int (*on_tree_node)(void *ctx, int64_t node, int64_t parent, const char *label);
    /* Joins a task to a tree node (tasks_anode.csv); gflop NaN if absent. */
    int (*on_task_anode)(void *ctx, const char *job_id, int64_t anode, double gflop);
    /* A run parameter (conf.txt), kept in the summary. */
    int (*on_config)(void *ctx, const char *key, const char *value);
} ari_task_sink;

#endif
