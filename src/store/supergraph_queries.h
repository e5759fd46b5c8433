/* supergraph_queries.h: CallFlow's super graph of a stored profile
 * (analysis/supergraph.h) with its per-process aggregation pushed down
 * into PostgreSQL (issue 20), so that the daemon never holds a profile's
 * nodes x processes values, only the tree (ari_profile_load_summary), one
 * collapsed value per node and metric, and per supernode and per edge one
 * vector of the processes' sums.
 *
 * The split of the work: the structure of the graph (grouping, instances,
 * splits, cycles, order, entries and callers) is decided in C on the
 * tree and on each node's values collapsed over all processes
 * (ari_supergraph_build_collapsed); the collapses come from the stored
 * node sums (sum, mean) or from SQL (min, max, median). The per-process
 * sums of fill_metrics (supernodes' inclusive, exclusive, filtered and
 * root inflow, edges' weights) are then one SQL statement over the
 * profile_values BLOBs: each value decoded from its 8 little-endian bytes
 * exactly (sign, exponent, mantissa; NaN and infinities kept), every term
 * of fill_metrics made from cct_nodes and the node -> supernode map, and
 * each (target, process) summed in fill_metrics' order with
 * sum(... ORDER BY node, term): float addition in the same order from the
 * same doubles, so the graph is the in-memory path's (ari_profile_load +
 * ari_supergraph_build) bit for bit, up to the sign of a zero. The
 * daemon reads back one row per supernode and edge kind, the processes'
 * values as one bytea of big-endian float8 (float8send).
 *
 * PostgreSQL only: the SQL decodes BLOBs with get_byte and sums in order
 * with an ordered aggregate, which SQLite's embedded store does without
 * (it keeps the in-memory path, whose memory it holds anyway). */
#ifndef ARIADNE_STORE_SUPERGRAPH_QUERIES_H
#define ARIADNE_STORE_SUPERGRAPH_QUERIES_H

#include <stdint.h>

#include "analysis/cct.h"
#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "store/store.h"
#include "util/error.h"

/* The stored metrics of metric's inclusive and exclusive variants, as
 * ari_cct_times_init picks them, into t (values NULL: nothing is read).
 * 0 when both are stored; 1 when one would be derived from the tree, per
 * process, at query time: then the caller takes the in-memory path. */
int ari_sgq_times(const ari_cct *c, int metric, ari_cct_times *t);

/* vinc[i] and vexc[i] (c->nnodes each): node i's values of t's two
 * metrics collapsed by `how` over all processes, NAN counting as 0, as
 * ari_cct_collapse gives them: sum and mean from the summary's node sums
 * (c is ari_profile_load_summary's), min, max and median in SQL. 0, or -1
 * with err set. */
int ari_sgq_collapse(ari_store *s, int64_t trace_id, const ari_cct *c, const ari_cct_times *t,
                     ari_collapse how, double *vinc, double *vexc, ari_error *err);

/* Fills the per-process arrays of g (ari_supergraph_build_collapsed on the
 * trace's tree, so g->group maps its CCT nodes) with fill_metrics' sums of
 * the stored values of metric inc_metric, computed in SQL. 0, or -1 with
 * err set (g's arrays then partly filled). */
int ari_sgq_fill(ari_store *s, int64_t trace_id, int inc_metric, ari_supergraph *g, ari_error *err);

#endif
