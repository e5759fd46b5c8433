/* json_anomalies.h: the JSON documents of GET /traces/{id}/anomalies and
 * /models (docs/api.md), encoded from analysis/anomalies.h and
 * analysis/model_comparison.h results, and a cached anomalies answer
 * decoded back into its result. The encoders return a new document, or
 * NULL when out of memory. */
#ifndef ARIADNE_JSON_ANOMALIES_H
#define ARIADNE_JSON_ANOMALIES_H

#include <jansson.h>

#include "analysis/anomalies.h"
#include "analysis/model_comparison.h"
#include "store/task_queries.h"

/* The models by index (ari_reg_model, then ARI_ANOM_FLEXMIX) as the API
 * spells them, NULL-terminated. */
extern const char *const ari_anom_model_names[];

/* The anomalies answer: the groups with their fit and curve, and every
 * modelled task of t (duration[i] its duration) with its prediction. */
json_t *ari_anomalies_json(const ari_tq_meta *m, const ari_tq_tasks *t, const double *duration,
                           const ari_anom_result *res);
/* The /models comparison table of the ARI_ANOM_NMODELS results. */
json_t *ari_models_json(const ari_tq_meta *m, const char *time_unit, const ari_anom_result *res,
                        const ari_model_comparison *cmp);
/* A cached anomalies answer (doc) of `model` without its tasks (ntasks 0;
 * the entries' fits have no interval data: enough to compare, not to
 * predict). 0, or -1 when it is not one (res is then safe to free). */
int ari_anomalies_decode(const ari_tq_meta *m, int model, json_t *doc, ari_anom_result *res);

#endif
