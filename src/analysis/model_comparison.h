/* model_comparison.h: the comparison table of the regression models (the
 * /models endpoint): the entries of the four single models and of the
 * mixture (anomalies.h) merged into one row per (resource type, task
 * type) group, with each row's best single model per metric
 * (ari_reg_best, duration-scale metrics). Pure; the rows point into the
 * results they were built from. */
#ifndef ARIADNE_ANALYSIS_MODEL_COMPARISON_H
#define ARIADNE_ANALYSIS_MODEL_COMPARISON_H

#include <stddef.h>

#include "analysis/anomalies.h"
#include "util/error.h"

#define ARI_REG_NMETRICS 3

typedef struct ari_model_row {
    int group;    /* restype * ntypes + type */
    size_t tasks; /* fit.n of the row's first entry (model order) */
    const ari_anom_entry *single[ARI_REG_NMODELS]; /* NULL: no entry of that model */
    const ari_anom_entry *clusters; /* the mixture's entries of the group, nclusters in a row */
    size_t nclusters;
    size_t mixture_anomalies;       /* sum over the clusters */
    int best[ARI_REG_NMETRICS];     /* ari_reg_model per ari_reg_metric; -1: none qualifies */
} ari_model_row;

typedef struct ari_model_comparison {
    size_t nrows;
    ari_model_row *rows; /* by first appearance: model order, then entry order */
} ari_model_comparison;

/* Merges results[m] (m = ari_reg_model, then ARI_ANOM_FLEXMIX; entries of
 * one group consecutive in each). Returns 0 and fills *out (free with
 * ari_model_comparison_free), or -1 (out of memory). */
int ari_models_compare(const ari_anom_result *const results[ARI_ANOM_NMODELS], ari_model_comparison *out,
                       ari_error *err);
void ari_model_comparison_free(ari_model_comparison *c);

#endif
