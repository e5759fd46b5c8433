/* mixture.h: finite mixture of log-log regressions (flexmix's FLXMRglm as
 * StarVZ calls it; spec_regression_tree.md section 2.6) and the two-model
 * anomaly rule.
 *
 * On x = ln G, y = ln D, for k = 1 and k = 2, EM fits
 *   y | c = j ~ N(b0j + b1j x, sj^2),  P(c = j) = pj
 * E-step: posteriors tau_ij; M-step: pj = mean_i tau_ij, (b0j, b1j) by
 * weighted least squares with weights tau_ij, and flexmix's
 *   sj^2 = sum_i tau_ij r_ij^2 / mean_i(tau_ij) / (n - 2).
 * It stops when the relative change of the log-likelihood is below the
 * tolerance (1e-6) or after max_iter (200) iterations; a component whose
 * prior falls below min_prior (0.05) is dropped (k = 2 can collapse to 1).
 * Each k keeps the best log-likelihood over `restarts` random hard
 * initialisations drawn from a generator seeded with `seed`, so results
 * are reproducible. k is chosen by the smallest BIC = -2 logL + p ln n with
 * p = 3k + (k - 1). Each task's cluster is its largest posterior; clusters
 * are numbered by increasing fitted ln D at the mean x (cluster 0 is the
 * fast, "expected" one).
 *
 * The anomaly rule then refits an ordinary LR_LOG (regression.h) on each
 * cluster and flags a task above its own cluster's upper limit; when the
 * group really has two clusters (not when BIC chose one: StarVZ bug B2),
 * a task below its own lower limit is also flagged when it lies above the
 * other cluster's upper limit ("extreme for both models", [T:717]).
 */
#ifndef ARIADNE_ANALYSIS_MIXTURE_H
#define ARIADNE_ANALYSIS_MIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/regression.h"
#include "util/error.h"

typedef struct ari_mix_options {
    int restarts;      /* >= 1; default 10 */
    uint64_t seed;     /* default 1 */
    int max_iter;      /* default 200 */
    double tolerance;  /* default 1e-6 */
    double min_prior;  /* default 0.05 */
} ari_mix_options;

void ari_mix_options_default(ari_mix_options *o);

typedef struct ari_mix_component {
    double prior, b0, b1, sigma; /* EM estimates (log scale) */
} ari_mix_component;

typedef struct ari_mix_fit {
    int k;                       /* the chosen number of components */
    ari_mix_component comp[2];   /* ordered: comp[0] the lower line */
    double loglik[2];            /* best log-likelihood for k = 1, 2 (NAN: not fitted) */
    int k_fitted[2];             /* components left after EM for k = 1, 2 */
    double bic[2];               /* BIC for k = 1, 2 (NAN: not fitted) */
    int iterations;              /* EM iterations of the chosen fit */
} ari_mix_fit;

/* Fits the mixture on (x, y) = (ln G, ln D) of n points; cluster[i]
 * (may be NULL) receives 0 or 1. With fewer than 3 points k = 1 and no EM;
 * k = 2 is tried from 10 points on. Returns 0, or -1 with err set. */
int ari_mix_fit_em(const double *x, const double *y, size_t n, const ari_mix_options *opt,
                   ari_mix_fit *out, int *cluster, ari_error *err);

/* The log-likelihood of (x, y) under the given components (k of them),
 * as EM maximises it. */
double ari_mix_loglik(const double *x, const double *y, size_t n, const ari_mix_component *comp,
                      int k);

/* The mixture's anomalies for one group of n usable tasks: fits the
 * mixture on logs, refits LR_LOG per cluster (fits[0..k-1]), and sets
 * anomaly[i] (0/1) by the two-model rule. Returns 0 or -1. */
int ari_mix_classify(const double *gflop, const double *duration, size_t n,
                     const ari_mix_options *opt, ari_mix_fit *mix, ari_reg_fit fits[2], int *cluster,
                     unsigned char *anomaly, ari_error *err);

#endif
