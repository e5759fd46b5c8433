/* ensemble_profiles.h: the member profiles of an ensemble, loaded for the
 * ensemble analyses (analysis/ensemble_cct.h): each selected member's CCT
 * in member order, whole (ari_profile_load, with every process's values)
 * when `full`, else as a summary (ari_profile_load_summary: per node sums
 * and means only, what the super graph, gradients and statistics need).
 *
 * runs selects members by trace id (NULL or nruns 0: every member); the
 * selection keeps the ensemble's member order, whatever the order of runs.
 * A run that is not a member is invalid_parameter ("trace N is not a
 * member of ensemble M"). The struct owns the CCTs: release with
 * ari_ensemble_profiles_free (also after an error, and on a zeroed one).
 * Returns 0, or -1 with err (the member's ari_profile_load error).
 */
#ifndef ARIADNE_ENSEMBLE_PROFILES_H
#define ARIADNE_ENSEMBLE_PROFILES_H

#include <stdint.h>

#include "analysis/cct.h"
#include "store/store.h"
#include "store/store_ensembles.h"
#include "util/error.h"

typedef struct ari_ensemble_profiles {
    int n;
    int *member;   /* [n] index into the ensemble's members */
    ari_cct *ccts; /* [n] */
} ari_ensemble_profiles;

int ari_ensemble_profiles_load(ari_store *s, const ari_ensemble *e, const int64_t *runs, int nruns, int full,
                               ari_ensemble_profiles *out, ari_error *err);
/* The same in two steps, so that parts can load on several connections at
 * once: select fills member[] and n (ccts zeroed), load_range loads the
 * selected runs from..to-1 (0, or -1 with err; free the whole in any case). */
int ari_ensemble_profiles_select(const ari_ensemble *e, const int64_t *runs, int nruns,
                                 ari_ensemble_profiles *out, ari_error *err);
int ari_ensemble_profiles_load_range(ari_store *s, const ari_ensemble *e, int full, ari_ensemble_profiles *p,
                                     int from, int to, ari_error *err);
void ari_ensemble_profiles_free(ari_ensemble_profiles *p);

#endif
