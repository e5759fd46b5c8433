/* ensemble_cct.h: the unified calling context tree of an ensemble of
 * profiles (spec_callflow.md section 2.7, step 1: the trie of calling
 * contexts; Ensemble CallFlow's G^{cct_E}).
 *
 * Identity of a frame (spec 2.7 [D]): a node is identified by its parent's
 * context and the frame key (name, kind, and "file:line" when the kind is
 * "loop" or "statement"). The load module is NOT part of the key: a call
 * site keeps the module of the first member that has it (spec 2.7 step 2:
 * one module per call site). Two siblings of one member with the same key
 * are kept apart: the k-th such sibling of a member goes to the k-th
 * unified node with that key, so no context of any member is merged away.
 *
 * Nodes are numbered 0..nnodes-1 with parent[i] < i (-1 for a root), in
 * the order they are first met (member 0's nodes in its own order, then the
 * contexts only later members have). Ids depend on the member set; the
 * context path is the stable identity.
 *
 * Metrics are kept per (member, node, rank) without copying: each member
 * keeps its own ari_cct, and node_of / metric_of map the unified node and
 * metric to the member's. A node absent from a member is absent (NAN from
 * the accessors, never 0). The unified metric list is the union of the
 * members' metric names (first met first); a member without a metric has
 * NAN for it everywhere.
 *
 * Ownership: the member CCTs are borrowed and must outlive the ensemble
 * CCT; names, modules, files and kinds point into them. Everything else is
 * owned and released by ari_ecct_free (also after an error, and on a
 * zeroed struct).
 */
#ifndef ARIADNE_ENSEMBLE_CCT_H
#define ARIADNE_ENSEMBLE_CCT_H

#include <stdint.h>

#include "analysis/cct.h"
#include "util/error.h"

typedef struct ari_ecct_member {
    const ari_cct *cct; /* borrowed */
    int64_t *node_of;   /* [nnodes] the member's node index, -1 when absent */
    int *metric_of;     /* [nmetrics] the member's metric index, -1 when absent */
} ari_ecct_member;

typedef struct ari_ecct {
    int64_t nnodes;
    int64_t *parent;     /* [nnodes] */
    int *depth;          /* [nnodes] 0 for a root */
    const char **name;   /* [nnodes] borrowed */
    const char **module; /* [nnodes] borrowed; "" if unknown */
    const char **file;   /* [nnodes] borrowed; "" if unknown */
    const char **kind;   /* [nnodes] borrowed */
    int *line;           /* [nnodes] */
    int *npresent;       /* [nnodes] members that have the node */
    int nmembers;
    ari_ecct_member *members; /* [nmembers] */
    int nmetrics;
    ari_cct_metric *metrics; /* [nmetrics]; names borrowed; partner in unified indices */
} ari_ecct;

/* Unifies n member CCTs (n >= 0, 0 giving an empty tree; each parent-before-child as cct.h says).
 * 0, or -1 with err (nomem; invalid_input when a member's parent array is
 * not parent-before-child). */
int ari_ecct_build(const ari_cct *const *members, int n, ari_ecct *out, ari_error *err);
void ari_ecct_free(ari_ecct *e);

/* 1 when member m has node i. */
int ari_ecct_present(const ari_ecct *e, int m, int64_t i);
/* The unified metric index of a name, or -1. */
int ari_ecct_metric_index(const ari_ecct *e, const char *name);
/* The per-process values of metric k on node i in member m (*nprocs of
 * them, NAN where unmeasured), or NULL (and *nprocs 0) when the member
 * lacks the node or the metric. Points into the member's CCT. */
const double *ari_ecct_ranks(const ari_ecct *e, int m, int64_t i, int k, int *nprocs);
/* The member's node value: the mean over its measured (not NAN) processes
 * (spec 2.2 / 2.7 step 5: ranks collapse by mean), exactly as the single
 * profile's /cct "mean" (sum in process order, divided by the count). NAN
 * when absent or measured nowhere. */
double ari_ecct_value(const ari_ecct *e, int m, int64_t i, int k);
/* The sum of the member's measured (not NAN) process values of node i: NAN
 * when absent or measured nowhere. Both accessors read node_mean and
 * node_sum when the member's CCT is a summary (cct.h); ari_ecct_ranks then
 * gives NULL. */
double ari_ecct_sum(const ari_ecct *e, int m, int64_t i, int k);
/* The context path of node i: the frame names from the root joined by
 * "/" (a name's own "/" and "\" escaped as "\/" and "\\"). malloc'd; NULL
 * when out of memory. */
char *ari_ecct_path(const ari_ecct *e, int64_t i);

#endif
