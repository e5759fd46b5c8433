/* pic_queries.h: what the pIC aggregation (analysis/pic*.h) reads from the
 * store: a trace's hierarchy and, over a window cut into equal slices, the
 * time each leaf spent in each state value during each slice.
 *
 *   - Task traces (rows in `workers`): root > node > resource type >
 *     worker, ordered like the Gantt's rows (node, resource type, resource
 *     name); the leaves are the workers' containers and their Paje states
 *     (task states and runtime states such as Idle).
 *   - Other Paje traces: the container tree, pruned to the containers that
 *     have states in their subtree; a container with both states and
 *     children gets a leaf "(self)" for its own states.
 *
 * Nested states (depth > 0, push/pop) count exclusively: a child's time is
 * taken from its enclosing state's value, so a leaf's values sum to the
 * time its states cover. Values of the same name (in different state
 * types) are one value; values with no time in the window are left out.
 */
#ifndef ARIADNE_PIC_QUERIES_H
#define ARIADNE_PIC_QUERIES_H

#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

typedef struct ari_pq_node {
    char *name;
    const char *kind;      /* "trace", "node", "resource_type", "worker", "container" */
    int64_t container_id;  /* containers.id, or -1 */
    int64_t mpi_node;      /* task traces: the node number, or -1 */
    char *resource_type;   /* task traces: CPU, CUDA, ...; or NULL */
} ari_pq_node;

typedef struct ari_pq_data {
    int64_t n;             /* nodes in preorder (analysis/pic.h) */
    int64_t *parent;
    ari_pq_node *nodes;
    int64_t nleaves;
    int nvalues;
    char **values;         /* sorted by name */
    int slices;
    double start, end;     /* the window */
    double *v;             /* [nleaves][slices][nvalues] */
    int tasks;             /* 1: the worker hierarchy of a task trace */
} ari_pq_data;

/* Loads trace `id` over [start, end] (NAN: the extent of the leaves'
 * states) cut into `slices`. Returns 0, 1 when there is no such trace, 2
 * when it has no states (nothing to aggregate), -1 on error
 * (invalid_parameter for an empty window). */
int ari_pq_load(ari_store *s, int64_t id, double start, double end, int slices, ari_pq_data *out,
                ari_error *err);
void ari_pq_free(ari_pq_data *d);

#endif
