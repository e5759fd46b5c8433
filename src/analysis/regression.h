/* regression.h: task-duration models of irregular task-based solvers
 * (Miletto's MSc thesis, ch. 4; spec_regression_tree.md sections 2.2-2.5):
 * per (task type, resource type, cluster) group, the duration D (ms) is
 * regressed on the task's theoretical cost G (GFlop) by one of
 *
 *   LR      D = b0 + b1 G                 ordinary least squares
 *   WLR     D = b0 + b1 G, weights 1/G    weighted least squares
 *   NLR     D = b0 + b1 G^(2/3)           OLS on a transformed predictor
 *   LR_LOG  ln D = b0 + b1 ln G           OLS on logs, back-transformed
 *
 * and the 95 % prediction interval is exactly R's
 * predict(lm(...), interval = "prediction"): se_pred^2 = s^2 + se_fit^2,
 * t with the residual degrees of freedom. For the weighted fit the variance
 * of a new response is s^2 / w = s^2 G, as R's predict() on the fitted
 * data ("prediction variance inversely proportional to weights used for
 * fitting"): that is how the tasks are classified, and it is what the
 * spec's golden WLR interval (fit 25.08583, lwr -7.35939, upr 57.53105 at
 * G = 0.2) holds, although the spec's text says "constant" (R's choice
 * only for newdata without weights). Edge cases follow R: without a
 * residual degree of freedom (n = 1, or n = 2 with distinct G) the
 * interval is NaN and nothing is flagged; when every x is equal R drops
 * the slope, so the fit is the (weighted) mean with n - 1 degrees of
 * freedom. A task is an anomaly when its duration is strictly above the
 * upper limit at its own G.
 *
 * Groups that cannot be fitted: when every task of a group has the same G
 * (R would drop the slope and "fit" the mean duration), duration cannot be
 * regressed on G at all, so the fit is reported as not fittable (reason
 * "single_gflop"): no coefficients, no metrics, no interval, and no task of
 * the group is flagged. The real StarPU Cholesky and LU runs are made of
 * such groups (one GFlop value per task type).
 *
 * Coefficients come from the centred sums (x̄, Sxx, Sxy: the two-pass
 * algorithm of gsl_fit_linear without its per-point divisions); the t
 * quantile from GSL (gsl_cdf_tdist_Pinv).
 *
 * Metrics for the model comparison: r2 is R's summary(lm)$r.squared (on
 * the model's scale: logs for LR_LOG, weighted for WLR), so it cannot rank
 * models against each other; r2_duration, mae and rmse are computed for
 * every model on the original duration scale, unweighted (LR_LOG
 * back-transformed with exp, i.e. the geometric mean), as the spec assumes
 * (section 7, D2): r2_duration = 1 - sum (D - fit)^2 / sum (D - mean D)^2.
 * The best model (ari_reg_best) is chosen on these duration-scale metrics
 * only, among the fittable fits.
 */
#ifndef ARIADNE_ANALYSIS_REGRESSION_H
#define ARIADNE_ANALYSIS_REGRESSION_H

#include <stddef.h>

#include "util/error.h"

typedef enum {
    ARI_REG_LR = 0,
    ARI_REG_WLR = 1,
    ARI_REG_NLR = 2,
    ARI_REG_LOG = 3,
    ARI_REG_NMODELS = 4
} ari_reg_model;

/* "lr", "wlr", "nlr", "lr_log". */
const char *ari_reg_model_name(ari_reg_model m);
/* Parses a model name (case-insensitive; "log" is an alias of lr_log).
 * Returns 0, or -1 for an unknown name. */
int ari_reg_model_parse(const char *name, ari_reg_model *out);

/* A fitted group model. Coefficients are on the model's scale. */
/* Why a group cannot be fitted (ari_reg_fit.reason). */
#define ARI_REG_SINGLE_GFLOP "single_gflop"

typedef struct ari_reg_fit {
    ari_reg_model model;
    size_t n;
    int fittable;       /* 0: no regression on G is possible (see reason) */
    const char *reason; /* NULL when fittable, else a static code such as ARI_REG_SINGLE_GFLOP */
    int has_slope;   /* 0 when every x is equal (R's NA slope) */
    int df;          /* residual degrees of freedom; <= 0: no interval */
    double b0, b1;   /* b1 is 0 without a slope */
    double s;        /* residual standard error (sigma); NAN when df <= 0 */
    double t;        /* t quantile 0.975 with df; NAN when df <= 0 */
    double xbar;     /* (weighted) mean of x */
    double sxx;      /* (weighted) sum of squares of x about xbar */
    double sw;       /* sum of the weights (n when unweighted) */
    double r2;       /* on the model's scale; NAN when undefined (constant y, not fittable) */
    double r2_duration; /* on the duration scale, unweighted; NAN when undefined */
    double mae, rmse;   /* on the duration scale; NAN when not fittable */
    size_t nanomalies;
} ari_reg_fit;

/* Does the model accept this task? G > 0 and D > 0 for every model (the
 * log model needs both; the spec restricts all to G > 0), both finite. */
int ari_reg_usable(double gflop, double duration);

/* Fits one group of n usable points (G, D). Counts the anomalies among
 * them. Returns 0, or -1 with err set (n == 0, an unusable point, out of
 * memory). */
int ari_reg_fit_group(ari_reg_model m, const double *gflop, const double *duration, size_t n,
                      ari_reg_fit *out, ari_error *err);

/* The same, and flag[i] (0/1, may be NULL) for each point above its upper
 * limit (one pass, no second transformation). */
int ari_reg_fit_flags(ari_reg_model m, const double *gflop, const double *duration, size_t n,
                      ari_reg_fit *out, unsigned char *flag, ari_error *err);

/* The prediction at G on the duration scale: fit, lwr and upr (NAN when the
 * fit has no interval; all three NAN when the group is not fittable). */
void ari_reg_predict(const ari_reg_fit *f, double gflop, double *fit, double *lwr, double *upr);

/* Is D an anomaly for this fit (D > upr at G; never when upr is NAN)? */
int ari_reg_is_anomaly(const ari_reg_fit *f, double gflop, double duration);

/* The comparison metrics of ari_reg_best, all on the duration scale. */
typedef enum { ARI_REG_BY_R2 = 0, ARI_REG_BY_MAE = 1, ARI_REG_BY_RMSE = 2 } ari_reg_metric;

/* The best of the four models of one group by one metric: the highest
 * r2_duration, the lowest mae or the lowest rmse among the fittable fits
 * with a finite value (fits[m] may be NULL for a model not computed); the
 * first model wins a tie. Returns the model, or -1 when none qualifies. */
int ari_reg_best(const ari_reg_fit *const fits[ARI_REG_NMODELS], ari_reg_metric metric);

/* Groups of tasks: group[i] in [0, ngroups), or -1 for a task that no
 * model covers. Sorts the tasks of each group into order[] (offsets in
 * start[g]..start[g + 1]); both malloc'd. Returns 0 or -1. */
int ari_reg_group_index(size_t n, const int *group, int ngroups, size_t **start, size_t **order,
                        ari_error *err);

/* Fits model m on every group (fits[g].n == 0 for an empty group) and sets
 * flag[i] for each task above its group's upper limit (0 for tasks of no
 * group). Returns 0 or -1 with err set. */
int ari_reg_classify_groups(ari_reg_model m, size_t n, const int *group, int ngroups, const double *gflop,
                            const double *duration, ari_reg_fit *fits, unsigned char *flag, ari_error *err);

#endif
