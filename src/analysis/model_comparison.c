/* model_comparison.c: one row per group over the models' entries, and the
 * best model of each row (see model_comparison.h). */
#include "analysis/model_comparison.h"

#include <stdlib.h>
#include <string.h>

/* The row of group g, appended when new. */
static ari_model_row *row_of(ari_model_comparison *out, const ari_anom_entry *e)
{
    for (size_t i = 0; i < out->nrows; i++)
        if (out->rows[i].group == e->group)
            return &out->rows[i];
    ari_model_row *row = &out->rows[out->nrows++];
    memset(row, 0, sizeof *row);
    row->group = e->group;
    row->tasks = e->fit.n;
    return row;
}

static void add_entry(ari_model_row *row, int model, const ari_anom_entry *e)
{
    if (model != ARI_ANOM_FLEXMIX) {
        row->single[model] = e;
        return;
    }
    if (!row->clusters)
        row->clusters = e;
    row->nclusters++;
    row->mixture_anomalies += e->fit.nanomalies;
}

static void choose_best(ari_model_row *row)
{
    const ari_reg_fit *fits[ARI_REG_NMODELS];
    for (int m = 0; m < ARI_REG_NMODELS; m++)
        fits[m] = row->single[m] ? &row->single[m]->fit : NULL;
    for (int metric = 0; metric < ARI_REG_NMETRICS; metric++)
        row->best[metric] = ari_reg_best(fits, (ari_reg_metric)metric);
}

int ari_models_compare(const ari_anom_result *const results[ARI_ANOM_NMODELS], ari_model_comparison *out,
                       ari_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 1;
    for (int m = 0; m < ARI_ANOM_NMODELS; m++)
        cap += results[m]->nentries;
    out->rows = malloc(cap * sizeof *out->rows);
    if (!out->rows)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int m = 0; m < ARI_ANOM_NMODELS; m++)
        for (size_t i = 0; i < results[m]->nentries; i++)
            add_entry(row_of(out, &results[m]->entries[i]), m, &results[m]->entries[i]);
    for (size_t i = 0; i < out->nrows; i++)
        choose_best(&out->rows[i]);
    return 0;
}

void ari_model_comparison_free(ari_model_comparison *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
