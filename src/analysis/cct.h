/* cct.h: a calling context tree (CCT) in memory, as the profile analyses
 * (filtering, module grouping, super graphs, splits, rank statistics) take
 * it. The store's profile loader fills it from the database; tests build
 * it by hand.
 *
 * Nodes are numbered 0..nnodes-1 with every parent before its children
 * (parent[i] < i), roots having parent -1. A "process" is one (rank,
 * thread) pair of the measurement, numbered 0..nprocs-1; proc_rank and
 * proc_thread say which. Metric m's value on node i for process p is
 * values[m][i * nprocs + p] (NAN when the node was not measured there).
 * Each metric is either inclusive or exclusive; `partner` links the
 * inclusive and exclusive variants of the same quantity (-1 if none).
 *
 * Strings and arrays belong to whoever filled the struct (the loader
 * frees them with ari_cct_free); analyses never modify a CCT.
 */
#ifndef ARIADNE_CCT_H
#define ARIADNE_CCT_H

#include <stdint.h>

typedef struct ari_cct_metric {
    const char *name;   /* e.g. "time (inc)", "time" */
    const char *unit;   /* e.g. "s", "usec", "" */
    int inclusive;      /* 1 inclusive, 0 exclusive */
    int partner;        /* index of the other variant, or -1 */
} ari_cct_metric;

typedef struct ari_cct {
    int64_t nnodes;
    const int64_t *parent;   /* [nnodes]; -1 for a root */
    const char *const *name; /* [nnodes] function or region name */
    const char *const *module; /* [nnodes] load module / library; "" if unknown */
    const char *const *file; /* [nnodes]; "" if unknown */
    const int *line;         /* [nnodes]; 0 if unknown */
    const char *const *kind; /* [nnodes] "function", "loop", "statement", "callsite", "region", ... */

    int nprocs;
    const int *proc_rank;    /* [nprocs] MPI rank */
    const int *proc_thread;  /* [nprocs] thread */

    int nmetrics;
    const ari_cct_metric *metrics;  /* [nmetrics] */
    const double *const *values;    /* [nmetrics][nnodes * nprocs]; NULL in a summary */

    /* A summary (the store's ari_profile_load_summary, for ensembles) has
     * no per-process values but, per metric and node, the sum and the mean
     * of the measured processes' values (NAN when none measured it). NULL
     * in a full CCT. */
    const double *const *node_sum;  /* [nmetrics][nnodes] */
    const double *const *node_mean; /* [nmetrics][nnodes] */

    /* The loader's: when set, the node strings (name, module, file, kind)
     * are in this pool (util/strpool.h) and freed with it, not one by one. */
    void *string_pool;
} ari_cct;

#endif
