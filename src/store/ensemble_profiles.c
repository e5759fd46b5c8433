/* ensemble_profiles.c: loads the selected members' CCTs of an ensemble
 * (ensemble_profiles.h). */
#include "store/ensemble_profiles.h"

#include <stdlib.h>
#include <string.h>

#include "store/profile_queries.h"

/* Marks the selected members in sel (every one without runs). */
static int select_members(const ari_ensemble *e, const int64_t *runs, int nruns, char *sel, ari_error *err)
{
    memset(sel, nruns > 0 ? 0 : 1, (size_t)e->nmembers);
    for (int k = 0; k < nruns; k++) {
        int found = 0;
        for (int m = 0; m < e->nmembers; m++)
            if (e->members[m].trace_id == runs[k])
                found = sel[m] = 1;
        if (!found)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld is not a member of ensemble %lld",
                                 (long long)runs[k], (long long)e->id);
    }
    return 0;
}

int ari_ensemble_profiles_select(const ari_ensemble *e, const int64_t *runs, int nruns,
                                 ari_ensemble_profiles *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n1 = e->nmembers > 0 ? (size_t)e->nmembers : 1;
    char *sel = malloc(n1);
    out->member = malloc(n1 * sizeof *out->member);
    out->ccts = calloc(n1, sizeof *out->ccts);
    int rc = (!sel || !out->member || !out->ccts) ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = select_members(e, runs, nruns, sel, err);
    for (int m = 0; rc == 0 && m < e->nmembers; m++)
        if (sel[m])
            out->member[out->n++] = m;
    free(sel);
    if (rc != 0)
        ari_ensemble_profiles_free(out);
    return rc == 0 ? 0 : -1;
}

int ari_ensemble_profiles_load_range(ari_store *s, const ari_ensemble *e, int full, ari_ensemble_profiles *p,
                                     int from, int to, ari_error *err)
{
    for (int k = from; k < to && k < p->n; k++) {
        int64_t id = e->members[p->member[k]].trace_id;
        int rc = full ? ari_profile_load(s, id, &p->ccts[k], err) : ari_profile_load_summary(s, id, &p->ccts[k], err);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int ari_ensemble_profiles_load(ari_store *s, const ari_ensemble *e, const int64_t *runs, int nruns, int full,
                               ari_ensemble_profiles *out, ari_error *err)
{
    if (ari_ensemble_profiles_select(e, runs, nruns, out, err) < 0)
        return -1;
    if (ari_ensemble_profiles_load_range(s, e, full, out, 0, out->n, err) < 0) {
        ari_ensemble_profiles_free(out);
        return -1;
    }
    return 0;
}

void ari_ensemble_profiles_free(ari_ensemble_profiles *p)
{
    for (int k = 0; p->ccts && k < p->n; k++)
        ari_cct_free(&p->ccts[k]);
    free(p->ccts);
    free(p->member);
    memset(p, 0, sizeof *p);
}
