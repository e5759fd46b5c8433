/* scaling_model.h: empirical scaling models of a metric against one
 * numeric execution parameter p, after Extra-P (Calotoiu et al., SC'13;
 * github.com/extra-p/extrap, modelers/single_parameter): the single-term
 * performance model normal form
 *
 *     f(p) = c0 + c1 * p^a * log2(p)^b
 *
 * Search space: every (a, b) with a in {0, 1/4, 1/3, 1/2, 2/3, 3/4, 4/5, 1,
 * 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3, 5/2, 8/3, 11/4, 3} and b in {0, 1,
 * 2}, except (0, 0): 59 hypotheses, a superset of the 43 pairs of Extra-P's
 * default building blocks (SingleParameterModeler.
 * create_default_building_blocks with log terms allowed), plus the
 * constant model f(p) = c0 (the mean) as the baseline. As in Extra-P,
 * hypotheses with a log term are used only when every p >= 1, and one whose
 * term p^a log2(p)^b is not finite at some point, or takes one value at
 * every point, is skipped.
 *
 * Points: repeated measurements at one p are averaged first (Extra-P's
 * Measure.MEAN), so the fit is over the distinct p values; at least 3 are
 * needed (else valid = 0).
 *
 * Fit: c0, c1 by ordinary least squares (gsl_fit_linear on x = p^a
 * log2(p)^b). Selection: leave-one-out cross-validation over the distinct
 * points, scored by Extra-P's criterion, the SMAPE (mean over the left-out
 * points of 100 * |f(p) - y| / ((|y| + |f(p)|) / 2), a term counting 0 when
 * y = f(p) = 0); the lowest wins, ties to the earlier hypothesis (the
 * constant first, then a ascending, then b ascending). The reported
 * coefficients are those fitted on all points; rss and r2 = 1 - rss / tss
 * (NAN when tss = 0) too. Extra-P's extra rule dropping a term whose
 * contribution is under 0.05 % is not applied.
 *
 * Growth: f(pmax) / f(pmin) over the measured range (NAN when f(pmin) <= 0);
 * ari_scaling_rank orders nodes worst (largest growth) first.
 */
#ifndef ARIADNE_SCALING_MODEL_H
#define ARIADNE_SCALING_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ari_scaling_fit {
    int valid;        /* 0: fewer than 3 distinct p values */
    int npoints;      /* distinct p values */
    int constant;     /* 1: the constant model won */
    int a_num, a_den; /* a = a_num / a_den (0/1 for the constant) */
    int b;            /* log exponent */
    double a;
    double c0, c1;   /* c1 = 0 for the constant model */
    double cv_smape; /* leave-one-out SMAPE, percent */
    double rss, r2;
    double pmin, pmax, fmin, fmax; /* f at the smallest and largest p */
    double growth;                 /* fmax / fmin, NAN when fmin <= 0 */
} ari_scaling_fit;

/* The number of hypotheses in the search space (59). */
int ari_scaling_hypotheses(void);

/* Fits y against p over the n points where both are finite (repeats
 * averaged). Never fails: too few points give valid = 0, other fields
 * NAN or 0. */
void ari_scaling_fit_points(const double *p, const double *y, int n, ari_scaling_fit *out);

/* The chosen model as text, e.g. "3 + 0.5 * p * log2(p)",
 * "1.2 + 0.03 * p^(1/2) * log2(p)^2", "7.5" (coefficients in %.6g);
 * "" when not valid. Writes at most size bytes (NUL included). */
void ari_scaling_model_text(const ari_scaling_fit *f, char *buf, size_t size);

/* Orders fits[0..n) worst first into order[0..n) (indices) and sets
 * rank[i] (1-based) of fit i: valid fits with a finite growth by growth
 * descending (ties: larger fmax - fmin first, then lower index), then
 * valid ones without a growth, then invalid ones, each by index. */
void ari_scaling_rank(const ari_scaling_fit *fits, int64_t n, int64_t *order, int64_t *rank);

#endif
