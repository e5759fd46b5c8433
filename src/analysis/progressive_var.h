/* progressive_var.h: progressive causality between metrics (spec_pdes_dmv.md
 * 3.4, issue 18): a VAR(p) on d representative series (one per metric),
 * Granger F-tests, orthogonalised impulse responses and the forecast error
 * variance decomposition, fitted on an adaptive number of recent time
 * points so that one step stays within a latency budget.
 *
 * Model: y_t = c + sum_{i<=p} A_i y_{t-i} + u_t, fitted by OLS with a
 * constant on the lagged design (the rows t = p .. T-1 of Y; T_eff = T - p).
 * Internally each series is centred and scaled before the normal equations
 * are solved (Cholesky); coefficients are mapped back exactly, so the
 * results are those of OLS on the raw data (checked against R's lm).
 * - Order: p <= max_p minimising AIC = ln|Sigma_u| + 2 p d^2 / T, every p fitted
 *   on the same rows (t = max_p .. T-1, as R's vars::VARselect), Sigma_u =
 *   U'U / T (ML). max_p is lowered to what the sample allows (T_eff - 1 - d p
 *   >= d + 1) and to ARI_VAR_MAX_COEF regressors. If no order can be fitted
 *   (singular design), p = 1 is used and the result says so.
 * - Granger (cause j -> effect i): Wald F of H0: A_h[i, j] = 0 for h = 1..p in
 *   equation i, F = b' (V_jj)^-1 b / (p s_ii), s_ii = RSS_i / (T_eff - k),
 *   k = 1 + d p. The statistic equals the F of the nested single-equation
 *   models (R: anova(lm restricted, lm full)); the degrees of freedom are the
 *   spec's (p, d (T_eff - k)) (R's vars::causality for d = 2), so the p-value
 *   (gsl_cdf_fdist_Q) is slightly smaller than anova's (p, T_eff - k).
 * - IR: Phi_0 = I, Phi_h = sum_{i=1}^{min(h,p)} Phi_{h-i} A_i, Theta_h = Phi_h P,
 *   P P' = Sigma_u (lower Cholesky; Sigma_u = U'U / (T_eff - k), as vars::irf).
 * - FEVD: omega_jk(h) = sum_{i<h} Theta_i[j,k]^2 / sum_{i<h} sum_l Theta_i[j,l]^2.
 *
 * Progressive step (ari_pvar_step), per the thesis (L1110-1112):
 * the sample is the s most recent time points (the reference code's
 * "reverse" order; indices sorted, i.e. a contiguous recent window), s
 * starting from the previous step's s (s0 = 10 the first time, raised to the
 * smallest sample a VAR(1) of d series needs). After each fit taking t_c ms
 * with t_r ms of the budget t_l left, s <- s sqrt(t_r / t_c) (capped at t),
 * until t_r <= 0, s stops growing, or all t points are used; the last fit is
 * the result. If one fit alone took longer than t_l, the next step starts
 * from s sqrt(t_l / t_c). budget_ms <= 0 means unlimited: all t points.
 * Constant, non-finite or huge (|x| >= 1e150) columns of the sample are
 * dropped before fitting and reported (their rows carry NaN); when the
 * design is still singular, the columns that are linear combinations of the
 * target and the columns before them are dropped too (e.g. the entity
 * means of NetworkSend and NetworkRecv are equal: every message sent is
 * received) and the note says so. A step always makes at least one fit, even when that fit alone takes
 * longer than the budget (a VAR(1) of d series needs 2 d + 3 points; at d =
 * 1,000 that fit takes seconds). Deterministic given its inputs and the
 * sequence of timings (unlimited budget: fully deterministic; the seed is
 * kept for a random selection order and unused by "reverse").
 * Memory: about 3 k^2 + (p + 1)^2 d^2 + 2 s d doubles, with k = 1 + d p <=
 * ARI_VAR_MAX_COEF (under 100 MB).
 *
 * Rows (one per metric j != target): "from" (direction 0): Granger j ->
 * target, ir1 = Theta_1[target, j], vd = omega_{target, j}(2); "to"
 * (direction 1): Granger target -> j, ir1 = Theta_1[j, target], vd =
 * omega_{j, target}(2). significant = p_value < alpha.
 */
#ifndef ARIADNE_PROGRESSIVE_VAR_H
#define ARIADNE_PROGRESSIVE_VAR_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_VAR_MAX_P    5    /* the spec's order bound */
#define ARI_VAR_MAX_COEF 1024 /* regressors per equation (1 + d p) at most: bounds memory (below 100 MB) */

typedef struct ari_pvar_params {
    int max_p;        /* 5 */
    int s0;           /* 10 */
    double budget_ms; /* 100 */
    double alpha;     /* 0.05 */
    int direction;    /* 0 from (others -> target), 1 to (target -> others) */
    uint64_t seed;
} ari_pvar_params;

void ari_pvar_defaults(ari_pvar_params *p);

typedef struct ari_pvar_row {
    int metric;                 /* column index in Y */
    double p_value, f, ir1, vd; /* NaN when the metric was dropped or no VAR could be fitted */
    int significant;
} ari_pvar_row;

typedef struct ari_pvar_result {
    int p;         /* order used (0 when no VAR could be fitted) */
    size_t t_used; /* time points of the last fit (the sample s) */
    int target;
    size_t nrows;
    ari_pvar_row *rows;
    double latency_ms;
    int dropped_constant; /* columns dropped (constant, non-finite or collinear in the sample) */
    /* Additions to the contract: */
    int order_fallback; /* 1 when order selection failed and p = 1 was used */
    int fits;           /* VAR fits made in this step (adaptive sample growth) */
    char note[160];     /* "" or why the result is partial (too few points, target constant, ...) */
} ari_pvar_result;

typedef struct ari_pvar ari_pvar; /* keeps s between time points (adaptive sample size) */

/* NULL params: defaults. NULL on out of memory. */
ari_pvar *ari_pvar_new(const ari_pvar_params *p);
/* Y: t x d row-major (d representative series), target in [0, d). Fills *out
 * (free with ari_pvar_result_free). A sample too small for any VAR is not an
 * error: out->p = 0, rows with NaN, out->note says why. -1 with err on bad
 * arguments or out of memory. */
int ari_pvar_step(ari_pvar *s, const double *Y, size_t t, size_t d, int target, ari_pvar_result *out,
                  ari_error *err);
/* Changes budget/alpha/direction/max_p between steps (s is kept). */
void ari_pvar_set_params(ari_pvar *s, const ari_pvar_params *p);
size_t ari_pvar_sample_size(const ari_pvar *s);
void ari_pvar_result_free(ari_pvar_result *r);
void ari_pvar_free(ari_pvar *s);

/* The pieces, exposed for tests. Y is t x d row-major, every column finite
 * and not constant (the caller drops the others).
 * ari_var_fit: coef (1 + d p) x d row-major: row 0 the constant, then rows
 * 1 + (i-1) d + c = A_i[., c]^T, i.e. coef[(1 + (i-1) d + c) * d + r] = A_i[r][c]
 * (column r = equation r, as R's coef(lm(Y ~ Z))). sigma_u: d x d,
 * U'U / (T_eff - k) (may be NULL). aic: ln|U'U / T_eff| + 2 p d^2 / T_eff
 * (may be NULL). -1 with err (invalid_parameter: too few points; invalid_input:
 * singular design). */
int ari_var_fit(const double *Y, size_t t, size_t d, int p, double *coef, double *sigma_u, double *aic,
                ari_error *err);
int ari_var_select_order(const double *Y, size_t t, size_t d, int max_p, int *p, ari_error *err);
/* p-value of "cause Granger-causes effect" in a VAR(p) (NaN if it cannot be
 * fitted); *f (may be NULL) the F statistic. */
double ari_var_granger_p(const double *Y, size_t t, size_t d, int p, int cause, int effect, double *f);
/* theta: (horizon + 1) x d x d, theta[(h * d + r) * d + c] = Theta_h[r][c].
 * 0, or -1 when Sigma_u is not positive definite. */
int ari_var_irf(const double *coef, const double *sigma_u, size_t d, int p, int horizon, double *theta);
/* omega[j * d + k] = omega_jk(h), h >= 1, theta from ari_var_irf with horizon >= h - 1. */
int ari_var_fevd(const double *theta, size_t d, int h, double *omega);

#endif
