/* supergraph.h: CallFlow's super graph of a CCT (spec_callflow.md 2.4-2.6):
 * CCT nodes grouped into supernodes (by module, function name, file, or a
 * user's module map of regular expressions), kept acyclic by duplicating
 * supernodes, optionally split by entry function, by caller, or into call
 * sites, with per-process metric vectors so that any subset of ranks can
 * be collapsed into its own graph (rank brushing).
 *
 * Metrics (per process r, before any collapse):
 *   exc_r(S) = sum over S's CCT nodes of exc_r(v), where exc_r(v) is taken
 *              as inc_r(v) - sum of its children's inc_r: the profile's
 *              exclusive time when inc = exc + children's inc holds (it
 *              does not in HPCToolkit databases, whose procedures' exclusive
 *              time also holds that of their loops and statements)
 *   inc_r(S) = sum over S's entry nodes e of inc_r(e), an entry node being
 *              a root or a node whose parent is in another supernode
 *   w_r(S->T) = sum of inc_r(e) over T's entry nodes e with parent in S
 *   filtered_r(S) = sum of inc_r(c) over the filtered-away children c of
 *              S's nodes (their time stays in S's inclusive time)
 *   root_inflow_r(S) = sum of inc_r(e) over S's entry nodes that are CCT
 *              roots (the flow from outside the program; a profile may
 *              have several roots)
 * so that, per process and for the mean or sum over processes, every
 * supernode has  incoming + root_inflow = inc  (incoming = inc for all but
 * root supernodes) and  inc - outgoing = exc + filtered  (= exc when
 * nothing is filtered).
 *
 * Supernode ids are stable strings: "<group>#<k>" for the k-th instance of
 * a group (k > 0 are duplicates that break cycles), "<id>-<entry function>"
 * and "<id>-<caller id>" for splits, "<id>=<function>" for call sites.
 */
#ifndef ARIADNE_SUPERGRAPH_H
#define ARIADNE_SUPERGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cct.h"
#include "analysis/cct_ops.h"
#include "util/error.h"

typedef enum ari_group_by {
    ARI_GROUP_MODULE = 0, /* the load module; a node without one takes its nearest
                           * ancestor's (HPCToolkit's loops and statements), else its name */
    ARI_GROUP_NAME,       /* function name: the call graph */
    ARI_GROUP_FILE,       /* source file (the name when unknown) */
    ARI_GROUP_MAP         /* a module map (the load module as above, then the name, when no rule matches) */
} ari_group_by;

typedef enum ari_split_by {
    ARI_SPLIT_ENTRY = 0,  /* one node per entry function name */
    ARI_SPLIT_CALLER,     /* one node per calling supernode */
    ARI_SPLIT_CALLSITE    /* one node per function of the supernode ("expand") */
} ari_split_by;

typedef enum ari_sg_kind {
    ARI_SG_SUPERNODE = 0,
    ARI_SG_SPLIT,
    ARI_SG_DUPLICATE
} ari_sg_kind;

int ari_group_by_parse(const char *s, ari_group_by *out);
int ari_split_by_parse(const char *s, ari_split_by *out);
const char *ari_sg_kind_name(ari_sg_kind k);

/* A module map: ordered rules (module, POSIX extended regex on the function
 * name); the first rule that matches wins. Built rule by rule with
 * ari_module_map_add; the API's JSON form is read in the server
 * (server/module_map_json.h). */
typedef struct ari_module_map ari_module_map;

ari_module_map *ari_module_map_new(void);
int ari_module_map_add(ari_module_map *m, const char *module, const char *regex, ari_error *err);
int ari_module_map_count(const ari_module_map *m);
/* The module of `name`, or NULL when no rule matches. */
const char *ari_module_map_match(const ari_module_map *m, const char *name);
void ari_module_map_free(ari_module_map *m);

typedef struct ari_sg_split {
    const char *id;       /* a supernode id at the time of the split */
    ari_split_by by;
} ari_sg_split;

typedef struct ari_sg_params {
    ari_group_by group_by;
    const ari_module_map *map;   /* for ARI_GROUP_MAP */
    const ari_sg_split *splits;  /* applied in order */
    int nsplits;
    ari_collapse collapse;       /* for the scalar values (ordering, entries, callers) */
} ari_sg_params;

typedef struct ari_sg_entry {
    const char *name;     /* entry function */
    double inc, exc;      /* collapsed over all processes, summed over its instances */
    int64_t count;        /* CCT nodes */
} ari_sg_entry;

typedef struct ari_sg_caller {
    int64_t node;         /* calling supernode */
    const char *function; /* calling function (the CCT parent's name) */
    const char *entry;    /* the entry function it calls */
    double inc;           /* inclusive time of those calls, collapsed */
} ari_sg_caller;

typedef struct ari_sg_node {
    char *id;
    char *label;          /* what to draw: the group name (a module's base name) */
    const char *module;   /* the group key (module, map module, name or file) */
    ari_sg_kind kind;
    int level;            /* longest path from a root */
    int64_t nfunctions;   /* CCT nodes in it */
    int64_t nentries;
    ari_sg_entry *entries;   /* by decreasing inc */
    int64_t ncallers;
    ari_sg_caller *callers;  /* by decreasing inc */
} ari_sg_node;

typedef struct ari_sg_edge {
    int64_t source, target;
} ari_sg_edge;

typedef struct ari_supergraph {
    int nprocs;
    int64_t nnodes, nedges;
    ari_sg_node *nodes;      /* in topological order */
    ari_sg_edge *edges;      /* sorted by (source, target) */
    double *inc, *exc, *filtered; /* [nnodes * nprocs] */
    double *root_inflow;     /* [nnodes * nprocs]: inc of its root entry nodes */
    double *weight;          /* [nedges * nprocs] */
    int64_t cct_nodes;       /* nodes of the CCT */
    int64_t *group;          /* [cct_nodes]: supernode of each CCT node, -1 filtered */
    int64_t kept;            /* CCT nodes kept by the filter */
    int duplicates;          /* supernodes of kind duplicate (instances > 0) */
    int64_t dropped_edges;   /* last-resort back edges removed (flow lost); normally 0 */
    char **keys;             /* owned group keys (node.module points here) */
    int64_t nkeys;
} ari_supergraph;

/* Builds the super graph of the CCT nodes with keep[i] != 0 (keep NULL:
 * all; a kept node's parent must be kept). An unknown split id is an
 * invalid_parameter error naming it. The graph borrows the CCT's strings
 * (entry and caller names): free it before the CCT. */
int ari_supergraph_build(const ari_cct *c, const ari_cct_times *t, const unsigned char *keep,
                         const ari_sg_params *p, ari_supergraph *out, ari_error *err);
/* The same graph from the values collapsed already (vinc[i], vexc[i]: the
 * collapse p->collapse of node i's inclusive and exclusive times over all
 * processes, as ari_cct_collapse gives them), the CCT's values unread (a
 * summary will do): grouping, ids, edges, levels, entries and callers are
 * ari_supergraph_build's; the per-process arrays (inc, exc, filtered,
 * root_inflow, weight) are allocated and zero, for the caller to fill as
 * fill_metrics would (store/supergraph_queries.h does it in SQL). */
int ari_supergraph_build_collapsed(const ari_cct *c, const double *vinc, const double *vexc,
                                   const unsigned char *keep, const ari_sg_params *p, ari_supergraph *out,
                                   ari_error *err);
void ari_supergraph_free(ari_supergraph *g);
/* The graph's per-process values again, from other processes' times of the
 * same CCT nodes (t over a CCT with the nodes and parents the graph was
 * built on; grouping, ids and edges unchanged): how an ensemble builds its
 * graph on one stand-in per member and then reads every rank (analysis/
 * ensemble_supergraph.h). 0, or -1 with err (the graph unchanged). */
int ari_supergraph_revalue(ari_supergraph *g, const int64_t *parent, const ari_cct_times *t, ari_error *err);
/* The CCT nodes whose inclusive values make supernode j's values: its own
 * and their children (*nodes malloc'd, *n of them, in node order). 0, or -1
 * when out of memory. */
int ari_sg_node_support(const ari_supergraph *g, const int64_t *parent, int64_t j, int64_t **nodes, int64_t *n);
/* Supernode j's per-process inclusive and exclusive times (inc[np],
 * exc[np]) as the graph computes them, from the inclusive rows of its
 * support only (node_inc[k * np + p] for nodes[k]; NAN counts as 0): what a
 * rank view of one node of a large ensemble reads instead of every node. */
void ari_sg_node_ranks(const ari_supergraph *g, const int64_t *parent, int64_t j, const int64_t *nodes, int64_t n,
                       const double *node_inc, int np, double *inc, double *exc);
/* Index of the supernode with this id, or -1. */
int64_t ari_supergraph_find(const ari_supergraph *g, const char *id);

/* The graph's values collapsed over a subset of processes (proc_mask NULL:
 * all), with a histogram of each node's per-process inclusive time. */
typedef struct ari_sg_view {
    int64_t nnodes, nedges;
    int nbins;
    int nselected;            /* processes in the subset */
    double *inc, *exc, *filtered; /* [nnodes] */
    double *root_inflow;      /* [nnodes] */
    double *weight;           /* [nedges] */
    int *hist;                /* [nnodes * nbins] */
    double *hist_min, *hist_max; /* [nnodes] */
} ari_sg_view;

int ari_sg_view_compute(const ari_supergraph *g, const unsigned char *proc_mask, ari_collapse how,
                        int nbins, ari_sg_view *out, ari_error *err);
void ari_sg_view_free(ari_sg_view *v);

/* Checks, on a view, that every node's incoming weight plus its root
 * inflow equals its inclusive value and that inc - outgoing = exc + filtered for every node,
 * within a relative tolerance, and that the graph is acyclic. 0 when all
 * hold; else -1 and a message naming the first violation. */
int ari_sg_check_flow(const ari_supergraph *g, const ari_sg_view *v, double rel_tol, char *msg,
                      size_t msg_size);

#endif
