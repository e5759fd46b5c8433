/* regression.c: the four duration models and R's prediction interval
 * (see regression.h): coefficients and the interval from the centred sums,
 * as R's lm and predict.lm; the t quantile from GSL; groups with a single
 * GFlop value reported as not fittable; the best model on the duration
 * scale. */
#include "regression.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>

#include "util/free_all.h"

static const char *const model_names[ARI_REG_NMODELS] = {"lr", "wlr", "nlr", "lr_log"};

const char *ari_reg_model_name(ari_reg_model m)
{
    return (unsigned)m < ARI_REG_NMODELS ? model_names[m] : "?";
}

int ari_reg_model_parse(const char *name, ari_reg_model *out)
{
    if (!name)
        return -1;
    for (int m = 0; m < ARI_REG_NMODELS; m++) {
        if (strcasecmp(name, model_names[m]) == 0) {
            *out = (ari_reg_model)m;
            return 0;
        }
    }
    if (strcasecmp(name, "log") == 0) {
        *out = ARI_REG_LOG;
        return 0;
    }
    return -1;
}

int ari_reg_usable(double gflop, double duration)
{
    return isfinite(gflop) && isfinite(duration) && gflop > 0 && duration > 0;
}

/* The model's explanatory variable, response and weight for one point. */
static double model_x(ari_reg_model m, double g)
{
    if (m == ARI_REG_NLR)
        return cbrt(g * g); /* G^(2/3), several times faster than pow */
    if (m == ARI_REG_LOG)
        return log(g);
    return g;
}

static double model_y(ari_reg_model m, double d)
{
    return m == ARI_REG_LOG ? log(d) : d;
}

static double model_w(ari_reg_model m, double g)
{
    return m == ARI_REG_WLR ? 1.0 / g : 1.0;
}

/* From the model's scale back to a duration. */
static double back(ari_reg_model m, double v)
{
    return m == ARI_REG_LOG ? exp(v) : v;
}

/* Weighted mean and sum of squares of x (w may be NULL). */
static void centred_sums(const double *x, const double *w, size_t n, double *xbar, double *sxx,
                         double *sw, double *sx2)
{
    double sum = 0, tot = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        sum += wi * x[i];
        tot += wi;
        sq += wi * x[i] * x[i];
    }
    double mean = sum / tot, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        ss += wi * (x[i] - mean) * (x[i] - mean);
    }
    *xbar = mean;
    *sxx = ss;
    *sw = tot;
    *sx2 = sq;
}

/* Coefficients, residual sum of squares and degrees of freedom, from the
 * centred sums (the two-pass algorithm; gsl_fit_linear's running means
 * give the same values but cost a division per point, a quarter of the
 * whole classification time). R drops the slope when x is collinear with
 * the intercept (QR tolerance 1e-7 on the column norm), which is what the
 * relative test on sxx mimics. */
static void fit_coefficients(ari_reg_fit *f, const double *x, const double *y, const double *w,
                             double sx2, double *rss)
{
    size_t n = f->n;
    double sy = 0;
    for (size_t i = 0; i < n; i++)
        sy += (w ? w[i] : 1.0) * y[i];
    double ybar = sy / f->sw;
    if (n >= 2 && f->sxx > 1e-14 * sx2 && f->sxx > 0) {
        double sxy = 0;
        for (size_t i = 0; i < n; i++)
            sxy += (w ? w[i] : 1.0) * (x[i] - f->xbar) * (y[i] - ybar);
        f->has_slope = 1;
        f->b1 = sxy / f->sxx;
        f->b0 = ybar - f->b1 * f->xbar;
        f->df = (int)n - 2;
    } else {
        f->has_slope = 0;
        f->b0 = ybar;
        f->b1 = 0;
        f->df = (int)n - 1;
    }
    double r = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (f->b0 + f->b1 * x[i]);
        r += (w ? w[i] : 1.0) * e * e;
    }
    *rss = r;
}

/* R's summary.lm r.squared: 1 - rss / (weighted) total sum of squares. */
static double r_squared(const double *y, const double *w, size_t n, double sw, double rss)
{
    if (n < 2)
        return NAN;
    double ybar = 0, tss = 0;
    for (size_t i = 0; i < n; i++)
        ybar += (w ? w[i] : 1.0) * y[i];
    ybar /= sw;
    for (size_t i = 0; i < n; i++)
        tss += (w ? w[i] : 1.0) * (y[i] - ybar) * (y[i] - ybar);
    return tss > 0 ? 1.0 - rss / tss : NAN;
}

/* Half-width of the interval on the model's scale at x0 (G for WLR). */
static double half_width(const ari_reg_fit *f, double x0, double gflop)
{
    double s2 = f->s * f->s;
    double se_fit2 = s2 / f->sw;
    if (f->has_slope)
        se_fit2 += s2 * (x0 - f->xbar) * (x0 - f->xbar) / f->sxx;
    /* R's predict on the fitted data: the variance of a new response is
     * inversely proportional to its weight (1/G for WLR). */
    double pred2 = f->model == ARI_REG_WLR ? s2 / model_w(f->model, gflop) : s2;
    return f->t * sqrt(pred2 + se_fit2);
}

/* R², MAE, RMSE on the duration scale and the anomalies (flag may be
 * NULL), from the transformed points (no second transformation per task). */
static void fit_metrics(ari_reg_fit *f, const double *x, const double *y, const double *gflop,
                        const double *duration, unsigned char *flag)
{
    double abs_sum = 0, sq_sum = 0, mean = 0, tss = 0;
    size_t flagged = 0;
    for (size_t i = 0; i < f->n; i++)
        mean += duration[i];
    mean /= (double)f->n;
    for (size_t i = 0; i < f->n; i++)
        tss += (duration[i] - mean) * (duration[i] - mean);
    int has_interval = f->df > 0;
    for (size_t i = 0; i < f->n; i++) {
        double yhat = f->b0 + f->b1 * x[i];
        double e = duration[i] - back(f->model, yhat);
        abs_sum += fabs(e);
        sq_sum += e * e;
        /* D > upr on the model's scale (exp is monotone) */
        int out = has_interval && y[i] > yhat + half_width(f, x[i], gflop[i]);
        flagged += (size_t)out;
        if (flag)
            flag[i] = (unsigned char)out;
    }
    f->mae = abs_sum / (double)f->n;
    f->rmse = sqrt(sq_sum / (double)f->n);
    f->r2_duration = tss > 0 ? 1.0 - sq_sum / tss : NAN;
    f->nanomalies = flagged;
}

/* A group whose G takes one value: nothing to regress, nothing flagged. */
static void mark_unfittable(ari_reg_fit *f, unsigned char *flag)
{
    f->fittable = 0;
    f->reason = ARI_REG_SINGLE_GFLOP;
    f->df = 0;
    f->b0 = f->b1 = f->s = f->t = NAN;
    f->r2 = f->r2_duration = f->mae = f->rmse = NAN;
    f->nanomalies = 0;
    if (flag)
        memset(flag, 0, f->n);
}

int ari_reg_fit_group(ari_reg_model m, const double *gflop, const double *duration, size_t n,
                      ari_reg_fit *out, ari_error *err)
{
    return ari_reg_fit_flags(m, gflop, duration, n, out, NULL, err);
}

int ari_reg_fit_flags(ari_reg_model m, const double *gflop, const double *duration, size_t n,
                      ari_reg_fit *out, unsigned char *flag, ari_error *err)
{
    if ((unsigned)m >= ARI_REG_NMODELS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "unknown regression model %d", (int)m);
    if (n == 0 || !gflop || !duration)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a regression group needs at least one task");
    for (size_t i = 0; i < n; i++)
        if (!ari_reg_usable(gflop[i], duration[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "task %zu has GFlop %g and duration %g: both must be finite and > 0", i,
                                 gflop[i], duration[i]);
    double *buf = malloc(3 * n * sizeof *buf);
    if (!buf)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    double *x = buf, *y = buf + n, *w = m == ARI_REG_WLR ? buf + 2 * n : NULL;
    for (size_t i = 0; i < n; i++) {
        x[i] = model_x(m, gflop[i]);
        y[i] = model_y(m, duration[i]);
        if (w)
            w[i] = model_w(m, gflop[i]);
    }
    ari_reg_fit f = {.model = m, .n = n};
    double sx2, rss;
    centred_sums(x, w, n, &f.xbar, &f.sxx, &f.sw, &sx2);
    fit_coefficients(&f, x, y, w, sx2, &rss);
    if (!f.has_slope) {
        mark_unfittable(&f, flag);
        free(buf);
        *out = f;
        return 0;
    }
    f.fittable = 1;
    if (f.df > 0) {
        f.s = sqrt(rss / f.df);
        f.t = gsl_cdf_tdist_Pinv(0.975, (double)f.df);
    } else {
        f.s = NAN;
        f.t = NAN;
    }
    f.r2 = r_squared(y, w, n, f.sw, rss);
    fit_metrics(&f, x, y, gflop, duration, flag);
    free(buf);
    *out = f;
    return 0;
}

void ari_reg_predict(const ari_reg_fit *f, double gflop, double *fit, double *lwr, double *upr)
{
    if (!f->fittable) {
        *fit = *lwr = *upr = NAN;
        return;
    }
    double x0 = model_x(f->model, gflop);
    double yhat = f->b0 + f->b1 * x0;
    *fit = back(f->model, yhat);
    if (f->df <= 0 || !isfinite(x0)) {
        *lwr = *upr = NAN;
        return;
    }
    double half = half_width(f, x0, gflop);
    *lwr = back(f->model, yhat - half);
    *upr = back(f->model, yhat + half);
}

int ari_reg_is_anomaly(const ari_reg_fit *f, double gflop, double duration)
{
    double fit, lwr, upr;
    ari_reg_predict(f, gflop, &fit, &lwr, &upr);
    return !isnan(upr) && duration > upr;
}

/* The metric of one fit, oriented so that larger is better (NAN: none). */
static double score(const ari_reg_fit *f, ari_reg_metric metric)
{
    if (!f || !f->fittable)
        return NAN;
    switch (metric) {
    case ARI_REG_BY_R2:
        return f->r2_duration;
    case ARI_REG_BY_MAE:
        return -f->mae;
    case ARI_REG_BY_RMSE:
        return -f->rmse;
    }
    return NAN;
}

int ari_reg_best(const ari_reg_fit *const fits[ARI_REG_NMODELS], ari_reg_metric metric)
{
    int best = -1;
    double top = -INFINITY;
    for (int m = 0; m < ARI_REG_NMODELS; m++) {
        double v = score(fits[m], metric);
        if (isfinite(v) && (best < 0 || v > top)) {
            best = m;
            top = v;
        }
    }
    return best;
}

int ari_reg_group_index(size_t n, const int *group, int ngroups, size_t **start_out, size_t **order_out,
                        ari_error *err)
{
    size_t *start = calloc((size_t)ngroups + 2, sizeof *start), *order = malloc((n + 1) * sizeof *order);
    size_t *fill = calloc((size_t)ngroups + 1, sizeof *fill);
    if (!start || !order || !fill) {
        free(start);
        free(order);
        free(fill);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (group[i] >= 0 && group[i] < ngroups)
            start[group[i] + 1]++;
    for (int g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    for (size_t i = 0; i < n; i++)
        if (group[i] >= 0 && group[i] < ngroups)
            order[start[group[i]] + fill[group[i]]++] = i;
    free(fill);
    *start_out = start;
    *order_out = order;
    return 0;
}

int ari_reg_classify_groups(ari_reg_model m, size_t n, const int *group, int ngroups, const double *gflop,
                            const double *duration, ari_reg_fit *fits, unsigned char *flag, ari_error *err)
{
    size_t *start, *order;
    if (ari_reg_group_index(n, group, ngroups, &start, &order, err) < 0)
        return -1;
    double *g = malloc((n + 1) * sizeof *g), *d = malloc((n + 1) * sizeof *d);
    unsigned char *gflag = malloc(n + 1);
    int rc = 0;
    if (!g || !d || !gflag)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    memset(flag, 0, n);
    for (int k = 0; k < ngroups && rc == 0; k++) {
        size_t m0 = start[k], cnt = start[k + 1] - start[k];
        memset(&fits[k], 0, sizeof fits[k]);
        fits[k].model = m;
        if (cnt == 0)
            continue;
        for (size_t j = 0; j < cnt; j++) {
            g[j] = gflop[order[m0 + j]];
            d[j] = duration[order[m0 + j]];
        }
        rc = ari_reg_fit_flags(m, g, d, cnt, &fits[k], gflag, err);
        for (size_t j = 0; j < cnt && rc == 0; j++)
            flag[order[m0 + j]] = gflag[j];
    }
    void *owned[] = {g, d, gflag, start, order};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc;
}
