/* ensemble_load.c: one request's ensemble and its unified CCT
 * (ensemble_load.h). */
#include "ensemble_load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble_cache.h"
#include "params.h"
#include "reply.h"

void ens_ctx_free(ens_ctx *c)
{
    ens_cache_release(c->cached); /* prof and ecct are its views */
    ari_ensemble_free(&c->ens);
    memset(c, 0, sizeof *c);
}

/* runs=: a subset of member trace ids; *n = 0 when absent. 400 answered. */
static int parse_runs(ari_request *r, int64_t **ids, int *n)
{
    *ids = NULL;
    *n = 0;
    if (!ari_param(r, "runs"))
        return 0;
    *ids = malloc(ARI_ENSEMBLE_MAX_MEMBERS * sizeof **ids);
    if (!*ids) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    return ari_param_id_list(r, "runs", "trace", 1, ARI_ENSEMBLE_MAX_MEMBERS, *ids, n);
}

int ens_ctx_load(ari_request *r, ens_ctx *c)
{
    int64_t *runs = NULL;
    int nruns;
    if (parse_runs(r, &runs, &nruns) < 0) {
        free(runs);
        return -1;
    }
    ari_error err = {0};
    int rc = ari_ensemble_get(r->db, c->id, &c->ens, &err);
    if (rc == 0 && !(c->cached = ens_cache_acquire(r->db, r->srv->pool, &c->ens, runs, nruns, c->full, &c->prof,
                                                    &c->ecct, &err)))
        rc = -1;
    free(runs);
    if (rc == 0)
        return 0;
    ari_reply_from_error(r, &err);
    ens_ctx_free(c);
    return -1;
}

int ens_ctx_open(ari_request *r, ens_ctx *c)
{
    memset(c, 0, sizeof *c);
    if (ari_path_id(r, 0, &c->id) < 0)
        return -1;
    return ens_ctx_load(r, c);
}

const ari_ensemble_member *ens_ctx_run(const ens_ctx *c, int k)
{
    return &c->ens.members[c->prof.member[k]];
}

int ens_default_metric(const ari_ecct *e)
{
    int k = ari_ecct_metric_index(e, "time (inc)");
    for (int q = 0; k < 0 && q < e->nmetrics; q++)
        if (e->metrics[q].inclusive)
            k = q;
    return k >= 0 ? k : e->nmetrics > 0 ? 0 : -1;
}

json_t *ens_runs_json(const ens_ctx *c)
{
    json_t *a = json_array();
    for (int k = 0; k < c->prof.n; k++) {
        const ari_ensemble_member *m = ens_ctx_run(c, k);
        json_array_append_new(a,
                              json_pack("{s:I, s:s}", "trace_id", (json_int_t)m->trace_id, "name", m->name));
    }
    return a;
}

json_t *ens_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
