/* elimination_tree.h: the multifrontal elimination tree drawn along time
 * (Miletto's thesis, sections 4.2-4.3; spec_regression_tree.md 2.10-2.20):
 *
 *   - layout: depth from a pre-order DFS (roots at 0, children by node
 *     id: the stored tree keeps no edge-file order); one row per node
 *     that has tasks and is not pruned, ordered by the smallest submission
 *     order of its *qrt tasks (of any task when it has none; the start
 *     time when the trace has no submission order), rows 1..N; a pruned
 *     node (one with a do_subtree task) sits on its parent's row at half
 *     height; nodes without tasks (inside pruned subtrees, the task-less
 *     root) get no row;
 *   - lifespan: first start to last end over all the node's tasks;
 *   - slices of width step from time 0 (the last one ends at the last
 *     task end); per (row, slice) the machine share of the node's compute
 *     tasks (*qrt and do_subtree), 100 * overlap / (step * W), or their
 *     GFlop split in proportion to the time spent in the slice; pruned
 *     children of one parent are aggregated on the parent's row;
 *   - utilisation stacked per node (greedy colour reuse over the nodes'
 *     active slice ranges) and per depth;
 *   - active nodes (+1 at the start of init_front and do_subtree, -1 at
 *     the start of clean_front, split pruned / not pruned) and front
 *     memory (+-1024 GFlop MB at the start of *front* and do_subtree
 *     tasks, as qr_mumps writes the front size in GB in the GFlop field),
 *     raw and as time-weighted means per slice;
 *   - the comparison of two runs over the same tree: faster - slower per
 *     (row, slice), and which cells only one run used.
 *
 * Task kinds are recognised by name, case-insensitively, so that both the
 * StarVZ names (lapack_geqrt, init_front, block_copy, do_subtree) and the
 * StarPU qr_mumps codelets (GEQRT, INIT, ASM, Do_subtree) work.
 */
#ifndef ARIADNE_ANALYSIS_ELIMINATION_TREE_H
#define ARIADNE_ANALYSIS_ELIMINATION_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_ET_MAX_SLICES 100000
#define ARI_ET_NO_ORDER INT64_MIN

typedef enum {
    ARI_ET_OTHER = 0,
    ARI_ET_COMPUTE,     /* *qrt kernels */
    ARI_ET_SUBTREE,     /* do_subtree: a pruned subtree in one task */
    ARI_ET_INIT_FRONT,  /* init_front, INIT */
    ARI_ET_INIT_BLOCK,  /* init_block */
    ARI_ET_CLEAN_FRONT, /* clean_front, CLEAN */
    ARI_ET_CLEAN_BLOCK, /* clean_block */
    ARI_ET_ASSEMBLY     /* block_copy, block_extadd, ASM */
} ari_et_kind;

ari_et_kind ari_et_kind_of(const char *type);
const char *ari_et_kind_name(ari_et_kind k);

typedef struct ari_et_task {
    int64_t anode;        /* tree node; tasks whose node is not in the tree are dropped */
    int kind;             /* ari_et_kind */
    int type;             /* the caller's type id (echoed) */
    double start, end;
    double gflop;         /* NAN when unknown */
    int64_t submit_order; /* ARI_ET_NO_ORDER when unknown */
    unsigned char anomaly;
} ari_et_task;

typedef struct ari_et_input {
    size_t nnodes;
    const int64_t *node;   /* [nnodes] ids, distinct */
    const int64_t *parent; /* [nnodes] parent id, or -1 for a root */
    size_t ntasks;
    const ari_et_task *tasks;
    int workers;           /* W of the tree and node panels (>= 1) */
    int workers_depth;     /* W of the depth panel (CPU and CUDA workers, >= 1) */
} ari_et_input;

typedef enum { ARI_ET_NODE_NONE = 0, ARI_ET_NODE_PRUNED, ARI_ET_NODE_NOT_PRUNED } ari_et_node_type;

typedef struct ari_et_node {
    int64_t id, parent;    /* parent -1 for a root */
    int parent_index;      /* -1 for a root */
    int depth;
    int intermediary;      /* has children */
    int type;              /* ari_et_node_type */
    double position;       /* row 1..N, NAN when not drawn */
    double height;         /* 1, 0.5 for pruned nodes, NAN when not drawn */
    double start, end;     /* lifespan, NAN without tasks */
    double first_compute, last_compute; /* of its *qrt / do_subtree tasks, NAN without */
    int64_t ntasks;
    int64_t key;           /* the row's sort key */
} ari_et_node;

typedef struct ari_et_tree {
    size_t nnodes;
    ari_et_node *nodes;    /* in input order */
    int nrows;
    int maxdepth;
    int *task_node;        /* [ntasks] index into nodes, -1 when dropped */
    size_t dropped;        /* tasks whose node is not in the tree */
    double end;            /* last end of the kept tasks (0 without) */
} ari_et_tree;

/* Builds the layout. Returns 0, or -1 with err set (bad ids, a cycle, out
 * of memory). Free with ari_et_tree_free. */
int ari_et_layout(const ari_et_input *in, ari_et_tree *out, ari_error *err);
void ari_et_tree_free(ari_et_tree *t);
/* The index of a node id, or -1. O(n). */
int ari_et_find(const ari_et_tree *t, int64_t id);

typedef enum { ARI_ET_METRIC_TIME = 0, ARI_ET_METRIC_GFLOPS = 1 } ari_et_metric;

typedef struct ari_et_slices {
    double step;
    int n;                 /* slices: [k step, min((k+1) step, end)) */
    double end;
} ari_et_slices;

/* The slicing of [0, tree->end] by step; -1 with err when step is not
 * positive or gives more than ARI_ET_MAX_SLICES slices. */
int ari_et_slicing(const ari_et_tree *t, double step, ari_et_slices *out, ari_error *err);

typedef struct ari_et_cell {
    int node;              /* index into nodes: the node, or the parent of a pruned group */
    int pruned;            /* 1: the pruned children of `node`, half height */
    int slice;
    double x0, x1;         /* the slice clipped to the row's computations */
    double value;          /* % of the machine (time) or GFlop (gflops) */
} ari_et_cell;

/* The tree panel's cells (non-zero only), by row then slice. *cells is
 * malloc'd. Returns 0 or -1. */
int ari_et_cells(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                 ari_et_metric metric, ari_et_cell **cells, size_t *ncells, ari_error *err);

/* Utilisation stacked per node: layer c holds, per slice, the share of
 * the node coloured c there (0 when none). */
typedef struct ari_et_util_nodes {
    int ncolors;
    int nslices;
    double *value;         /* [ncolors * nslices] */
    int *node;             /* [ncolors * nslices] index into nodes, -1 */
} ari_et_util_nodes;

int ari_et_util_by_node(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                        ari_et_util_nodes *out, ari_error *err);
void ari_et_util_nodes_free(ari_et_util_nodes *u);

/* Utilisation per depth 0..maxdepth: value[d * nslices + k]. */
int ari_et_util_by_depth(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                         double **value, ari_error *err);

/* A step function: after event i (at time[i]) the series is value[i]. */
typedef struct ari_et_series {
    size_t n;
    double *time;
    double *value;
} ari_et_series;

/* Active nodes (pruned, not pruned) and front memory (MB). */
typedef struct ari_et_memory {
    ari_et_series active[2]; /* [0] pruned, [1] not pruned */
    ari_et_series memory;
    double peak_mb, peak_time;
    int64_t init_events, subtree_events, clean_events;
} ari_et_memory;

int ari_et_memory_series(const ari_et_input *in, const ari_et_tree *t, ari_et_memory *out,
                         ari_error *err);
void ari_et_memory_free(ari_et_memory *m);
/* The time-weighted mean of a step function per slice (0 before the first
 * event). out is [s->n]. */
void ari_et_series_mean(const ari_et_series *series, const ari_et_slices *s, double *out);

/* One cell of a comparison (by node ids, as both runs share the tree). */
typedef enum { ARI_ET_CONCURRENT = 0, ARI_ET_ONLY_FASTER, ARI_ET_ONLY_SLOWER } ari_et_status;

typedef struct ari_et_diff {
    int64_t node;          /* node id (the parent for a pruned group) */
    int pruned;
    int slice;
    double faster, slower, diff;
    int status;
} ari_et_diff;

/* Joins the cells of two runs (full outer join on node, pruned, slice):
 * diff = faster - slower. *out is malloc'd. */
int ari_et_compare(const ari_et_tree *tf, const ari_et_cell *cf, size_t nf, const ari_et_tree *ts,
                   const ari_et_cell *cs, size_t ns, ari_et_diff **out, size_t *nout, ari_error *err);

#endif
