/* ensemble_ctx.h: one request's ensemble super graph, shared by the
 * ensemble super graph, node and diff endpoints (api_ensemble_supergraph.c,
 * api_ensemble_nodes.c, api_ensemble_diff.c): loads the ensemble and the
 * members chosen by runs=, unifies their CCTs, reads the super graph
 * parameters (supergraph_params.h) and builds analysis/ensemble_supergraph.
 * (api_ensemble_stats.c has its own copy of the loading part; it can move
 * here.) */
#ifndef ARIADNE_ENSEMBLE_CTX_H
#define ARIADNE_ENSEMBLE_CTX_H

#include <jansson.h>

#include "analysis/ensemble_cct.h"
#include "analysis/ensemble_supergraph.h"
#include "server.h"
#include "store/ensemble_profiles.h"
#include "store/store_ensembles.h"
#include "supergraph_params.h"

typedef struct esg_ctx {
    int64_t id;
    ari_ensemble ens;
    ari_ensemble_profiles prof;
    ari_ecct ecct;
    sg_request q;
    int metric; /* unified metric index */
    ari_module_map *map;
    ari_esg s;
} esg_ctx;

/* Everything above from the request; the error answered and -1 on failure.
 * Free with esg_ctx_free in either case. */
int esg_ctx_open(ari_request *r, esg_ctx *c);
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
json_t *esg_num(double v);
/* numpy's bin edges: linspace(min, max, nbins + 1), (min - 0.5, max + 0.5)
 * when max == min; [] when there is no value (min NAN). */
json_t *esg_edges_json(double lo, double hi, int nbins);
json_t *esg_runs_json(const esg_ctx *c);
/* The gradient histogram (spec 2.8) of one value per member (v[m], NAN
 * absent): {min, max, counts, edges (numpy's), run_bin {trace id: bin or
 * null}, bin_runs [[trace ids]]}; NULL when out of memory. */
json_t *esg_gradient_json(const esg_ctx *c, const double *v, int nbins);
/* Answers the document (taking it), or 500 when building it failed. */
enum MHD_Result esg_reply_doc(ari_request *r, json_t *doc);

#endif
