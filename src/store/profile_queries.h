/* profile_queries.h: reading call-graph profiles back from the store
 * (sql/005_profiles.sql): the whole CCT into memory for the analyses
 * (analysis/cct.h), and the JSON documents of the profile endpoints
 * (/cct, /nodes/{node}/ranks, /scatter, /tree), which read only the rows
 * they need.
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
/* Frees what ari_profile_load allocated and zeroes the struct. */
void ari_cct_free(ari_cct *c);

/* The index of a metric by name in a loaded CCT, or -1. */
int ari_cct_metric_index(const ari_cct *c, const char *name);

/* GET /traces/{id}/cct: {"trace_id", "nodes": n, "processes", "metrics":
 * [{id, name, unit, inclusive, partner, derived}], "root_inclusive",
 * "filter", "tree": [{id, parent, name, module, file, line, kind, depth,
 * "metrics": {name: {mean, min, max}}}]}. metric (NULL: all) limits the
 * metrics listed per node; depth (< 0: all) drops deeper nodes; filter
 * (<= 0: none) keeps the nodes whose inclusive mean is at least that
 * fraction of the roots' inclusive mean, and their ancestors. */
int ari_profile_cct_json(ari_store *s, int64_t trace_id, const char *metric, int depth,
                         double filter, char **json_out, ari_error *err);

/* GET /traces/{id}/nodes/{node}/ranks: the per-process values of one
 * node ({rank, thread, value}), their statistics and a histogram of `bins`
 * equal-width bins over [min, max] (last bin closed; all in the middle bin
 * when min = max) with the ranks in each bin. */
int ari_profile_node_ranks_json(ari_store *s, int64_t trace_id, int64_t node, const char *metric,
                                int bins, char **json_out, ari_error *err);

/* GET /traces/{id}/scatter: metrics x and y over the processes of a node
 * (node < 0: the first root), the least-squares line y = slope x +
 * intercept, Pearson's r and r^2 (null when undefined). */
int ari_profile_scatter_json(ari_store *s, int64_t trace_id, int64_t node, const char *x,
                             const char *y, char **json_out, ari_error *err);

/* GET /traces/{id}/tree: the text of Hatchet's GraphFrame.tree() for one
 * metric (NULL: the profile's inclusive time) on one process (rank,
 * thread): "<value> <name>[ <file>]" per node with box-drawing indents,
 * values printed with `precision` decimals. *text_out is malloc'd. */
int ari_profile_tree_text(ari_store *s, int64_t trace_id, const char *metric, int precision,
                          int64_t rank, int64_t thread, char **text_out, ari_error *err);

#endif
