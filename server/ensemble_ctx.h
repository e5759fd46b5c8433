/* ensemble_ctx.h: one request's ensemble super graph, shared by the
 * ensemble super graph, node and diff endpoints (api_ensemble_supergraph.c,
 * api_ensemble_nodes.c, api_ensemble_diff.c): reads the super graph
 * parameters (supergraph_params.h), loads the ensemble, the members chosen
 * by runs= and their unified CCT (ensemble_load.h, the loading every
 * ensemble endpoint shares) and builds analysis/ensemble_supergraph. */
#ifndef ARIADNE_ENSEMBLE_CTX_H
#define ARIADNE_ENSEMBLE_CTX_H

#include <jansson.h>

#include "analysis/ensemble_supergraph.h"
#include "ensemble_load.h"
#include "server.h"
#include "supergraph_params.h"

typedef struct esg_ctx {
    ens_ctx e; /* the ensemble, the selected runs, the unified CCT */
    sg_request q;
    int metric; /* unified metric index */
    ari_module_map *map;
    ari_esg s;
} esg_ctx;

/* Everything above from the request; the error answered and -1 on failure.
 * Free with esg_ctx_free in either case. The graph has one stand-in
 * process per member (ensemble_supergraph.h), built from the members'
 * summaries, unless the collapse is not linear (min, max, median). */
int esg_ctx_open(ari_request *r, esg_ctx *c);
/* The same; per_rank 1 loads every member whole and keeps each process
 * (rank histograms, boxplots, per-rank differences). */
int esg_ctx_open_with(ari_request *r, esg_ctx *c, int per_rank);
void esg_ctx_free(esg_ctx *c);
/* The selected member (index into ecct members) whose trace id is the
 * parameter `name`; -2 when absent; -1 (400 answered) when not a selected member. */
int esg_ctx_member_param(ari_request *r, const esg_ctx *c, const char *name);
int64_t esg_ctx_trace(const esg_ctx *c, int m);
/* The supernode addressed by the path's second segment: its id or its key
 * (esg_node_key); -1 and 404 answered when none. */
int64_t esg_ctx_path_node(ari_request *r, const esg_ctx *c);
/* The 16 hex digits of FNV-1a 64 of a supernode id: a path-safe handle. */
void esg_node_key(const char *id, char out[17]);
/* numpy's bin edges: linspace(min, max, nbins + 1), (min - 0.5, max + 0.5)
 * when max == min; [] when there is no value (min NAN). */
json_t *esg_edges_json(double lo, double hi, int nbins);
/* The gradient histogram (spec 2.8) of one value per member (v[m], NAN
 * absent): {min, max, counts, edges (numpy's), run_bin {trace id: bin or
 * null}, bin_runs [[trace ids]]}; NULL when out of memory. */
json_t *esg_gradient_json(const esg_ctx *c, const double *v, int nbins);
/* One value per member (v[m], NAN absent): [value or null]. */
json_t *esg_values_json(const double *v, int n);
/* {max, min, mean, present, runs: [value or null]} over the present members. */
json_t *esg_stat_json(const double *v, int n);
/* [min, max] over the present values of v[0..n): a colour domain (meta.domain). */
json_t *esg_domain_json(const double *v, int64_t n);

#endif
