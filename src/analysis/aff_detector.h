/* aff_detector.h: the adaptive-forgetting-factor (AFF) mean detector of
 * Bodenham & Adams (2017) on a scalar stream (spec_pdes_dmv.md 3.1, step 3).
 *
 * Burn-in: the first burn_in observations (after the start or a change)
 * give an unforgotten mean mu^ and variance sigma^2 (scale = 1 / sigma^2);
 * lambda is not adapted then and no change is declared. Afterwards, per
 * observation x, in this order (old values on the right):
 *   L' = 2 (xbar - x) xbar';  Omega = lambda Omega + w;  Delta = lambda Delta + m
 *   m = lambda m + x;  w = lambda w + 1;  u = ((w - 1) / w)^2 u + 1 / w^2
 *   xbar = (1 - 1/w) xbar + x / w;  xbar' = (Delta - xbar Omega) / w
 *   lambda = clip(lambda - eta scale L', lambda_min, lambda_max)
 * and p = Phi((xbar - mu^) / (sigma^ sqrt(u))), p2 = 1 - |1 - 2p|; a change
 * when p2 < alpha. After a change the burn-in restarts AND the AFF state
 * (lambda = 1, m, w, u, xbar, xbar', Omega, Delta) restarts with it (the
 * reference code keeps the AFF state: spec 7.2; here the next segment is
 * judged on its own, so no detection can follow within burn_in points).
 * A burn-in of constant values (sigma^ = 0) uses sigma^ = 1e-12 * (1 +
 * |mu^|), so any later move is a change.
 */
#ifndef ARIADNE_AFF_DETECTOR_H
#define ARIADNE_AFF_DETECTOR_H

typedef struct ari_aff ari_aff;

/* alpha in (0, 1), eta >= 0, burn_in >= 2, 0 < lambda_min <= lambda_max <= 1.
 * Out-of-range values take the defaults (0.01, 0.01, 10, 0.6, 1). NULL when
 * out of memory. */
ari_aff *ari_aff_new(double alpha, double eta, int burn_in, double lambda_min, double lambda_max);

/* Feeds x (a NaN is ignored: returns 0, no state change). Returns 1 if a
 * change is declared at x, else 0. *p2 (may be NULL) gets the two-sided
 * p-value (1 during burn-in). */
int ari_aff_push(ari_aff *a, double x, double *p2);

double ari_aff_lambda(const ari_aff *a);
void ari_aff_set_alpha(ari_aff *a, double alpha);
void ari_aff_reset(ari_aff *a);
void ari_aff_free(ari_aff *a);

#endif
