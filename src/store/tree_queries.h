/* tree_queries.h: what the elimination-tree panels and the regression
 * models read from the store (sql/003_tasks.sql): the atree rows and the
 * tasks with their tree node, submission order, GFlop, type and resource
 * type, restricted by the common filters (task_queries.h). Tasks on an
 * unknown worker are ignored, as in every task analysis.
 */
#ifndef ARIADNE_TREE_QUERIES_H
#define ARIADNE_TREE_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/elimination_tree.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/error.h"

typedef struct ari_tree_data {
    size_t nnodes;
    int64_t *node, *parent;  /* parent -1 for a root */
    size_t ntasks;
    ari_et_task *tasks;      /* type = meta type id; anode -1 when unknown */
    int *restype;            /* [ntasks] meta resource-type ids */
    char *ids;               /* job ids, NUL-separated */
    size_t *id_off;          /* [ntasks] */
    int workers;             /* distinct workers of the loaded tasks */
    int workers_depth;       /* of them, CPU and CUDA workers */
} ari_tree_data;

/* Returns the number of atree rows of a trace (0: none), or -1. */
int64_t ari_tree_count(ari_store *s, int64_t trace_id, ari_error *err);

/* Loads the tree and the filtered tasks. Returns 0 (free with
 * ari_tree_data_free) or -1. */
int ari_tree_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_task_filter *f,
                  ari_tree_data *out, ari_error *err);
void ari_tree_data_free(ari_tree_data *d);

/* The elimination-tree input view of loaded data. */
ari_et_input ari_tree_input(const ari_tree_data *d);

#endif
