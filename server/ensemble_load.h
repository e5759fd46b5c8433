/* ensemble_load.h: one request's ensemble, loaded the same way by every
 * ensemble analysis endpoint (api_ensemble_stats.c, api_ensemble_projection.c
 * and, through ensemble_ctx.h, the super graph, node and diff endpoints):
 * the ensemble {id} of the path (store/store_ensembles.c), the members
 * chosen by runs= with their CCTs (store/ensemble_profiles.c) and the
 * unified CCT (analysis/ensemble_cct.c), through the process's cache of
 * loaded ensembles (ensemble_cache.h); plus the small encoders they all
 * share. Errors are answered here (400 runs=, 404 unknown ensemble, 500). */
#ifndef ARIADNE_ENSEMBLE_LOAD_H
#define ARIADNE_ENSEMBLE_LOAD_H

#include <jansson.h>

#include "analysis/ensemble_cct.h"
#include "server.h"
#include "store/ensemble_profiles.h"
#include "store/store_ensembles.h"

typedef struct ens_ctx {
    int64_t id;                 /* the ensemble of the path */
    int full;                   /* set before loading: 1 loads every process's values,
                                 * 0 (default) the members' summaries (node sums and means) */
    ari_ensemble ens;           /* all its members */
    ari_ensemble_profiles prof; /* the selected runs: prof.member[k] indexes ens.members */
    ari_ecct ecct;              /* their unified CCT: member k = selected run k */
    struct ens_cached *cached;  /* prof and ecct are read-only views of this entry
                                 * (ensemble_cache.h), released by ens_ctx_free */
} ens_ctx;

/* Reads the ensemble id (path segment 0) then loads summaries as ens_ctx_load. */
int ens_ctx_open(ari_request *r, ens_ctx *c);
/* With c->id set: reads runs= (member trace ids; all members when absent),
 * loads the ensemble, the selected members' CCTs and the unified CCT. On
 * failure the error is answered, what was loaded freed and -1 returned. */
int ens_ctx_load(ari_request *r, ens_ctx *c);
/* Frees everything and zeroes c: harmless on a zeroed or freed context. */
void ens_ctx_free(ens_ctx *c);
/* The member of selected run k (0 <= k < prof.n). */
const ari_ensemble_member *ens_ctx_run(const ens_ctx *c, int k);
/* The default metric: "time (inc)", else the first inclusive metric, else
 * the first; -1 when the unified CCT has no metric. */
int ens_default_metric(const ari_ecct *e);
/* The selected runs: [{trace_id, name}]. */
json_t *ens_runs_json(const ens_ctx *c);
/* A finite number, else null (absent values are never 0). */
json_t *ens_num(double v);

#endif
