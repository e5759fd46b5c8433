/* progression.h: per-node progression metrics sampled at time steps, their
 * modal clustering per step, the flows of nodes between the clusters of
 * consecutive steps, and the per-step and global area bounds (seed paper
 * 000_164459390ec31c5d, "Visualizing the progression of groups of nodes",
 * section III, Fig. 2-4).
 *
 * Steps. The run spans [t0, t1] = [earliest start, latest end] of the
 * tasks. With S steps of width d = (t1 - t0) / S (or a given width d and
 * S = ceil((t1 - t0) / d)), step s = 1..S covers (t_{s-1}, t_s] with
 * t_s = t0 + s*d, the last one ending exactly at t1 (step 1 also holds
 * tasks ending at t0). The metrics are sampled at t_s: a task counts as
 * completed when end <= t_s.
 *
 * Metrics of node n at time t:
 *   count    (eq. 1)  P = C_n(t) / N_n, completed tasks over the node's tasks;
 *   weighted (eq. 3)  P = sum_t C_{n,t}(t) W_{t,n} / sum_t N_{n,t} W_{t,n}
 *                     with (eq. 2) W_{t,n} = 1 / sum_r 1 / T_{n,t,r}.
 * Eq. 2 has two readings; options.weight picks one:
 *   starvz (default) follows StarVZ's code exactly (R/phase2_progress.R,
 *     function total_tasks_completed_node_het, github.com/schnorr/starvz):
 *     mean = mean(Duration) per (Node, ResourceId, Value), then
 *     time = 1 / sum(1 / mean) per (Node, Value), i.e. r runs over the
 *     individual workers of node n that actually ran type t and T_{n,t,r}
 *     is the mean duration of t on that worker:
 *         W_{t,n} = 1 / sum_{r ran t on n} 1 / mean_{n,t,r}.
 *     Tasks of an unknown worker (worker 0) form one group, as R's NA
 *     ResourceId does.
 *   all_workers: r runs over every worker of the node's resource types that
 *     ran t (every CPU core, every GPU of those types, busy on t or not),
 *     with T the mean over the node's type-t tasks on that resource type:
 *         W_{t,n} = 1 / sum_R workers_{n,R} / mean_{n,t,R}
 *     over the resource types R on which node n ran type t ("how long one
 *     task of type t would take if all the node's resources able to run it
 *     worked on it at once"). A resource type's worker count comes from the
 *     workers table (at least 1 when tasks ran on it); a type whose tasks
 *     have no known resource type uses W = mean duration / node workers (or
 *     / 1).
 * Order: every sum adds its terms in the order of data->tasks (the store
 * loads them by job id, then row), a node's tasks with equal ends
 * included, so the answer is one sequence of additions whatever qsort
 * does with equal keys.
 * Corner cases (both): a mean of 0 makes W = 0 (infinitely fast); a node
 * whose weights all vanish uses eq. 1. Only ratios of weights matter
 * (eq. 3 normalises per node). Both metrics are in [0, 1], never decrease,
 * and are exactly 1 once the node's last task has ended.
 *
 * Clusters: per step, analysis/modal_clusters.h on the nodes' values with
 * bandwidth h. Flows: for steps s and s+1, every (cluster a, cluster b)
 * pair sharing nodes, with those nodes; a flow is a "minority" path when
 * another flow of the same pair of steps has more nodes.
 *
 * Bounds: the ABE (analysis/abe.h) of a set of tasks uses the worker counts
 * of each resource type summed over the nodes analysed and, for every
 * (resource type, task type), the mean duration over the whole run (a pair
 * that never ran is excluded); types that ran on no known resource type
 * are left out of the bound. The global ABE is that of all tasks; step s's
 * ABE is that of the tasks completed in step s; the cumulative ABE of step
 * s is the sum over steps 1..s. With the same means for every step the LP
 * is sub-additive, so the final cumulative ABE is >= the global ABE.
 */
#ifndef ARIADNE_ANALYSIS_PROGRESSION_H
#define ARIADNE_ANALYSIS_PROGRESSION_H

#include <stdint.h>

#include "analysis/modal_clusters.h"
#include "util/error.h"

#define ARI_PROG_MAX_STEPS 1000
#define ARI_PROG_MAX_CELLS 2000000 /* steps x nodes */
#define ARI_PROG_DEFAULT_STEPS 20
#define ARI_PROG_DEFAULT_BANDWIDTH 0.01

typedef enum ari_prog_metric {
    ARI_PROG_COUNT = 1,    /* equation (1) */
    ARI_PROG_WEIGHTED = 3  /* equations (2)-(3) */
} ari_prog_metric;

/* One task. node, type and restype are indices into the input's arrays. */
typedef struct ari_prog_task {
    int node;
    int type;
    int restype;   /* -1 when unknown */
    double start, end;
    int64_t worker; /* the worker that ran it (any id > 0, e.g. its container id); 0 when unknown */
} ari_prog_task;

/* The tasks of a run grouped by node (progression_queries.h loads them). */
typedef struct ari_prog_data {
    int nnodes;
    int *node_ids;        /* [nnodes] node (MPI rank) numbers, increasing */
    int ntypes;
    char **type_names;    /* [ntypes] */
    int nrestypes;
    char **restype_names; /* [nrestypes] */
    int *workers;         /* [nnodes * nrestypes] workers per node and resource type */
    long ntasks;
    ari_prog_task *tasks; /* [ntasks] */
} ari_prog_data;

void ari_prog_data_free(ari_prog_data *d);

/* How W_{t,n} of eq. 2 sums over resources (see above). */
typedef enum ari_prog_weight {
    ARI_PROG_WEIGHT_STARVZ = 0,     /* workers that ran t, per-worker means (default) */
    ARI_PROG_WEIGHT_ALL_WORKERS = 1 /* all workers of the resource types that ran t */
} ari_prog_weight;

typedef struct ari_prog_options {
    int steps;            /* S in 1..ARI_PROG_MAX_STEPS; ignored when step_width > 0 */
    double step_width;    /* > 0: steps of this width instead */
    double bandwidth;     /* h > 0 */
    ari_prog_metric metric;
    ari_prog_weight weight; /* eq. 2's reading; 0 = ARI_PROG_WEIGHT_STARVZ */
    int with_bounds;      /* compute the global and per-step ABE */
} ari_prog_options;

typedef struct ari_prog_cluster {
    double mean, min, max;
    int count;
    int *nodes;           /* [count] node indices, increasing */
} ari_prog_cluster;

typedef struct ari_prog_step {
    double start, time;   /* (start, time], sampled at time */
    long completed;       /* tasks completing in this step */
    double mean_value;    /* mean of the nodes' values */
    double abe;           /* ABE of the tasks completed in the step (NAN without bounds) */
    double cumulative_abe;
    ari_modal modal;      /* cluster of each node, minima, density */
    ari_prog_cluster *clusters; /* [modal.nclusters] */
} ari_prog_step;

typedef struct ari_prog_flow {
    int step;             /* from step `step` (0-based) to step + 1 */
    int from, to;         /* cluster indices in those steps */
    int count;
    int *nodes;           /* [count] node indices, increasing */
    int minority;
} ari_prog_flow;

typedef struct ari_prog_result {
    int nnodes, nsteps, ntypes;
    double t0, t1, step_width;
    double *values;       /* [nsteps * nnodes] metric of node n at step s: values[s * nnodes + n] */
    double *weights;      /* [nnodes * ntypes] W_{t,n} (eq. 2), NAN when the node ran no task of t */
    long *node_tasks;     /* [nnodes] N_n */
    double *last_end;     /* [nnodes] end of the node's last task (its metric is 1 from there) */
    ari_prog_step *steps; /* [nsteps] */
    int nflows;
    ari_prog_flow *flows;
    double global_abe;    /* NAN without bounds or when no type can be bounded */
} ari_prog_result;

/* Computes everything for data (ntasks >= 1, every node with >= 1 task).
 * Returns 0 and fills *out (free with ari_prog_result_free), or -1 with
 * ARI_E_INVALID_PARAMETER (bad options, e.g. a width giving more than
 * ARI_PROG_MAX_STEPS steps, or inconsistent data), ARI_E_NOMEM, or an
 * error of the ABE solver. */
int ari_progression(const ari_prog_data *data, const ari_prog_options *opt, ari_prog_result *out,
                    ari_error *err);

void ari_prog_result_free(ari_prog_result *r);

/* ---- the same computation from sums over groups of tasks ----
 * Everything above reads the tasks only through the sums below, in two
 * rounds: the totals (independent of the options), then, once the step
 * times and the weights are known, the sweep. ari_progression computes
 * both from data->tasks; a store may compute them in SQL instead
 * (store/progression_queries.h) and call ari_progression_sums, which
 * gives the same result to the last bit when its sums add the same terms
 * in the same order (see "Order"). */

/* The tasks of one (node, type, worker): the StarVZ weights' groups. */
typedef struct ari_prog_group {
    int node, type;
    int64_t worker;
    long count;
    double sum; /* durations (0 when end <= start) added in input order */
} ari_prog_group;

typedef struct ari_prog_totals {
    double start, end;   /* earliest start and latest end of the tasks */
    long *node_tasks;    /* [nnodes] N_n */
    double *last_end;    /* [nnodes] latest end of the node's tasks */
    long ngroups;
    ari_prog_group *groups; /* by (node, type, worker) */
    /* durations per (node, type, resource type), slot nrestypes = unknown:
     * [(node * ntypes + type) * (nrestypes + 1) + restype], input order */
    double *rsum;
    long *rcount;
    /* durations per (resource type, type) over every node, known resource
     * types only: [restype * ntypes + type], input order (the bounds' means) */
    double *bsum;
    long *bcount;
} ari_prog_totals;

void ari_prog_totals_free(ari_prog_totals *t);

/* The sweep of the tasks over the step times. */
typedef struct ari_prog_sweep {
    double *total;    /* [nnodes] sum of weights[node * ntypes + type] over the node's tasks, input order */
    long *count;      /* [nsteps * nnodes] tasks of node n completing in step s ([s * nnodes + n]) */
    double *running;  /* [nsteps * nnodes] the node's running sum of weights, its tasks taken by (end,
                       * input order), at its last task completing in step s; any value when none */
    long *type_count; /* [nsteps * ntypes] tasks of each type completing in step s */
} ari_prog_sweep;

/* Fills *out (arrays allocated by the caller, zeroed) for step times
 * times[nsteps] (a task completes in the first step s with end <=
 * times[s]) and weights[nnodes * ntypes]. Returns 0 or -1 with err set. */
typedef int (*ari_prog_sweep_fn)(void *ctx, const double *times, int nsteps, const double *weights,
                                 ari_prog_sweep *out, ari_error *err);

/* ari_progression from sums: shape gives the nodes, names, workers and
 * ntasks (its tasks are not read: NULL), totals the first round, sweep
 * (with ctx) the second. */
int ari_progression_sums(const ari_prog_data *shape, const ari_prog_totals *totals, ari_prog_sweep_fn sweep,
                         void *ctx, const ari_prog_options *opt, ari_prog_result *out, ari_error *err);

/* The weights W_{t,n} of eq. 2 under `mode` for every node and type
 * ([nnodes * ntypes], NAN for types a node never ran). Exposed for the tests. */
int ari_prog_weights(const ari_prog_data *data, ari_prog_weight mode, double *weights,
                     ari_error *err);

#endif
