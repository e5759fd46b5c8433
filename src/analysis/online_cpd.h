/* online_cpd.h: online change points of a multivariate stream
 * (spec_pdes_dmv.md 3.1): each time point x_t (over the n entities) is
 * reduced to one value by an incremental PCA with one component (samples =
 * time points, features = entities) fed one point at a time, r_t = (x_t -
 * mu) . v1 after the update, with a cumulative sign s_t = s_{t-1} *
 * sgn(v1_{t-1} . v1_t) (>= 0 counts as +), and s_t r_t goes to the AFF
 * detector (aff_detector.h).
 *
 * Differences from the reference code (spec 7.2), on purpose: every point
 * is fitted (no pairs buffering), the AFF state restarts with the burn-in
 * after a detection, alpha defaults to 0.01 (the thesis). The first point
 * gives r = 0 (no direction yet).
 *
 * Entities may appear later: a push with a larger n grows the IPCA (new
 * entities count as 0 in earlier points); a smaller n treats the missing
 * entities as NaN. NaN -> the entity's previous value, or 0.
 * Deterministic; memory O(n); time O(n) per point.
 *
 * Added beyond the contract: ari_ocpd_set_alpha (the hub's alpha control),
 * ari_ocpd_points; ari_repr_reset. The AFF detector alone is in
 * aff_detector.h (included here).
 */
#ifndef ARIADNE_ONLINE_CPD_H
#define ARIADNE_ONLINE_CPD_H

#include <stddef.h>

#include "analysis/aff_detector.h"

typedef struct ari_ocpd_params {
    double alpha;                  /* 0.01 */
    double eta;                    /* 0.01 */
    int burn_in;                   /* 10 */
    double lambda_min, lambda_max; /* 0.6, 1 */
    double forget;                 /* IPCA forgetting factor f = 1 */
} ari_ocpd_params;

void ari_ocpd_defaults(ari_ocpd_params *p);

typedef struct ari_ocpd ari_ocpd;

/* p may be NULL (defaults). NULL when out of memory. */
ari_ocpd *ari_ocpd_new(const ari_ocpd_params *p, size_t n_entities);

/* Feeds time point x[n]. Sets *value (may be NULL) = s_t r_t and returns 1
 * if a change is declared at this point, 0 if not, -1 on error (out of
 * memory). */
int ari_ocpd_push(ari_ocpd *c, const double *x, size_t n, double *value);

/* The time indices (0-based push count) of the changes so far. */
size_t ari_ocpd_changes(const ari_ocpd *c, const size_t **idx);

size_t ari_ocpd_points(const ari_ocpd *c); /* pushes so far */
void ari_ocpd_set_alpha(ari_ocpd *c, double alpha); /* applies from the next push */
void ari_ocpd_free(ari_ocpd *c);

/* The representative series of one metric (IPCA k = 1 + cumulative sign,
 * as above, without the detector), used by the causality. */
typedef struct ari_repr ari_repr;
ari_repr *ari_repr_new(size_t n);
int ari_repr_push(ari_repr *r, const double *x, size_t n, double *value); /* 0 or -1 */
void ari_repr_reset(ari_repr *r);
void ari_repr_free(ari_repr *r);

#endif
