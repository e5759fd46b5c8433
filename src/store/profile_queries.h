/* profile_queries.h: reading call-graph profiles back from the store
 * (sql/005_profiles.sql): the whole CCT into memory for the analyses
 * (analysis/cct.h), and the rows the profile endpoints need (/cct,
 * /nodes/{node}/ranks, /scatter, /tree) as structs: statistics are in
 * analysis/profile_stats.h, the JSON and Hatchet's text tree in the
 * server (server/json_profile.c). Every struct filled by a _load is
 * released by its _free (also after an error, and on a zeroed struct).
 *
 * Return codes: 0 success; 1 no such trace (err not_found); 2 the trace is
 * not a profile (err "not_a_profile"); -1 any other error (err set:
 * invalid_parameter for a bad metric, node or option, else a database or
 * memory error).
 */
#ifndef ARIADNE_PROFILE_QUERIES_H
#define ARIADNE_PROFILE_QUERIES_H

#include <stdint.h>

#include "analysis/cct.h"
#include "store/store.h"
#include "util/error.h"

#define ARI_E_NOT_A_PROFILE "not_a_profile"

/* Loads the trace's CCT: nodes (parent before child), processes in (rank,
 * thread) order, every metric (derived ones included) and all values.
 * On success *out owns its memory: release it with ari_cct_free. On error
 * *out is left zeroed. */
int ari_profile_load(ari_store *s, int64_t trace_id, ari_cct *out, ari_error *err);
/* The same CCT without per-process values (values NULL): per metric and
 * node the sum and the mean over the measured processes (node_sum,
 * node_mean, cct.h), from profile_node_sums (sql/013) or, for a profile
 * imported before it, from profile_values' vsum and vmean. What an
 * ensemble needs for its super graph, gradients and statistics, at a
 * fraction of the reading. */
int ari_profile_load_summary(ari_store *s, int64_t trace_id, ari_cct *out, ari_error *err);
/* The trace's CCT nodes and processes, counted (0 and 0 for a trace
 * without a profile): 0, or -1 with err set. */
int ari_profile_size(ari_store *s, int64_t trace_id, int64_t *nnodes, int64_t *nprocs, ari_error *err);
/* The per-process values of metric `metric` (an id of the trace) for the
 * nodes nodes[0..n) (a negative id: none) into out[k * nprocs + p], NAN
 * where the node has no row or was not measured: point reads of a few rows
 * of a large profile (an ensemble's rank views). 0, or -1 with err. */
int ari_profile_node_rows(ari_store *s, int64_t trace_id, int metric, const int64_t *nodes, int64_t n,
                          int nprocs, double *out, ari_error *err);
/* Frees what ari_profile_load allocated and zeroes the struct. */
void ari_cct_free(ari_cct *c);

/* The index of a metric by name in a loaded CCT, or -1. */
int ari_cct_metric_index(const ari_cct *c, const char *name);

/* ---- what the profile endpoints read (only the rows they need) ---- */

typedef struct ari_profile_metric_info {
    int id;
    char *name, *unit, *source;
    int inclusive, derived;
    int partner; /* -1: none */
} ari_profile_metric_info;

typedef struct ari_profile_node_row {
    int64_t id;
    int64_t parent; /* -1 for a root */
    char *name, *module, *file, *kind;
    int line, depth;
} ari_profile_node_row;

/* One profile_values row's summary; NAN where the column is NULL. */
typedef struct ari_profile_stat_row {
    int64_t node;
    int metric;
    double mean, min, max;
} ari_profile_stat_row;

/* GET /traces/{id}/cct: the nodes (by id 0..nnodes-1), the metrics, the
 * inclusive mean of every node (0 where absent) for the filter, and the
 * summaries of metric `metric` (NULL: of every metric) ordered by metric
 * then node. The inclusive metric is the profile's inclusive time ("time
 * (inc)", else the first inclusive, else metric 0). */
typedef struct ari_profile_summary {
    int64_t nnodes, nprocs;
    ari_profile_node_row *nodes;
    double *incmean;
    int nmetrics;
    ari_profile_metric_info *metrics;
    int inclusive; /* metric id */
    size_t nstats;
    ari_profile_stat_row *stats;
} ari_profile_summary;

int ari_profile_summary_load(ari_store *s, int64_t trace_id, const char *metric, ari_profile_summary *out,
                             ari_error *err);
void ari_profile_summary_free(ari_profile_summary *p);
/* The metric with that id, or NULL. */
const ari_profile_metric_info *ari_profile_summary_metric(const ari_profile_summary *p, int id);

/* A node's description; found = 0 when the trace has no such node. */
typedef struct ari_profile_node_info {
    int found;
    ari_profile_node_row row;
} ari_profile_node_info;

/* The per-process values of one or two metrics on one node, processes in
 * (rank, thread) order; NAN where the node was not measured. */
typedef struct ari_profile_node_values {
    ari_profile_node_info node;
    char *metric, *metric_y;   /* metric_y, y: scatter only */
    int64_t nprocs;
    int *rank, *thread;
    double *values, *y;
} ari_profile_node_values;

/* GET /traces/{id}/nodes/{node}/ranks: metric NULL picks the inclusive
 * time; err not_found when the trace has no such node, invalid_parameter
 * for an unknown metric. */
int ari_profile_node_values_load(ari_store *s, int64_t trace_id, int64_t node, const char *metric,
                                 ari_profile_node_values *out, ari_error *err);
/* GET /traces/{id}/scatter: metrics x (into values) and y (into y) of a
 * node (node < 0: the first root). x and y are required. */
int ari_profile_scatter_load(ari_store *s, int64_t trace_id, int64_t node, const char *x, const char *y,
                             ari_profile_node_values *out, ari_error *err);
void ari_profile_node_values_free(ari_profile_node_values *v);

/* GET /traces/{id}/tree: every node in id order (depth first) with its
 * parent, depth, name and file, and the value of one metric (NULL: the
 * inclusive time) on the process (rank, thread); NAN where unmeasured.
 * has_files: some node has a file. An unknown process is
 * invalid_parameter. */
typedef struct ari_profile_tree_rows {
    int64_t n;
    ari_profile_node_row *nodes;
    double *value;
    int has_files;
} ari_profile_tree_rows;

int ari_profile_tree_rows_load(ari_store *s, int64_t trace_id, const char *metric, int64_t rank,
                               int64_t thread, ari_profile_tree_rows *out, ari_error *err);
void ari_profile_tree_rows_free(ari_profile_tree_rows *t);

#endif
