/* mixture.c: EM for a mixture of one or two log-log regressions, BIC
 * choice and the two-model anomaly rule (see mixture.h). */
#include "mixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#define MIN_SIGMA 1e-8
#define MIN_POINTS_K2 10

void ari_mix_options_default(ari_mix_options *o)
{
    o->restarts = 10;
    o->seed = 1;
    o->max_iter = 200;
    o->tolerance = 1e-6;
    o->min_prior = 0.05;
}

/* splitmix64: small, seedable, good enough to draw initial partitions. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double log_normal_pdf(double y, double mu, double sigma)
{
    double z = (y - mu) / sigma;
    return -0.5 * z * z - log(sigma) - 0.5 * log(2 * M_PI);
}

/* log sum_j prior_j phi(y; mu_j, sigma_j) for one point; lp[j] receives
 * the terms when not NULL. */
static double point_loglik(double x, double y, const ari_mix_component *comp, int k, double *lp)
{
    double terms[2], top = -INFINITY;
    for (int j = 0; j < k; j++) {
        terms[j] = log(comp[j].prior) + log_normal_pdf(y, comp[j].b0 + comp[j].b1 * x, comp[j].sigma);
        if (terms[j] > top)
            top = terms[j];
    }
    double sum = 0;
    for (int j = 0; j < k; j++)
        sum += exp(terms[j] - top);
    if (lp)
        memcpy(lp, terms, (size_t)k * sizeof *terms);
    return top + log(sum);
}

double ari_mix_loglik(const double *x, const double *y, size_t n, const ari_mix_component *comp, int k)
{
    double ll = 0;
    for (size_t i = 0; i < n; i++)
        ll += point_loglik(x[i], y[i], comp, k, NULL);
    return ll;
}

/* M-step for one component: weighted least squares with weights tau and
 * flexmix's sigma. Without spread in x (weighted), a horizontal line. */
static void m_step_component(const double *x, const double *y, const double *tau, size_t n,
                             ari_mix_component *c)
{
    double sw = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += tau[i];
        sx += tau[i] * x[i];
        sy += tau[i] * y[i];
    }
    double xbar = sx / sw, sxx = 0;
    for (size_t i = 0; i < n; i++)
        sxx += tau[i] * (x[i] - xbar) * (x[i] - xbar);
    if (sw > 0 && sxx > 1e-12 * sw) {
        double cov00, cov01, cov11, chisq;
        gsl_fit_wlinear(x, 1, tau, 1, y, 1, n, &c->b0, &c->b1, &cov00, &cov01, &cov11, &chisq);
    } else {
        c->b0 = sw > 0 ? sy / sw : 0;
        c->b1 = 0;
    }
    double rss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (c->b0 + c->b1 * x[i]);
        rss += tau[i] * r * r;
    }
    double mean_tau = sw / (double)n;
    double s2 = mean_tau > 0 && n > 2 ? rss / mean_tau / (double)(n - 2) : 0;
    c->sigma = s2 > MIN_SIGMA * MIN_SIGMA ? sqrt(s2) : MIN_SIGMA;
    c->prior = mean_tau;
}

/* E-step: posteriors into tau[j * n + i]; returns the log-likelihood. */
static double e_step(const double *x, const double *y, size_t n, const ari_mix_component *comp, int k,
                     double *tau)
{
    double ll = 0, lp[2];
    for (size_t i = 0; i < n; i++) {
        double li = point_loglik(x[i], y[i], comp, k, lp);
        ll += li;
        for (int j = 0; j < k; j++)
            tau[(size_t)j * n + i] = exp(lp[j] - li);
    }
    return ll;
}

/* Drops the components whose prior is below min_prior (never the last). */
static int drop_small(ari_mix_component *comp, int k, double min_prior)
{
    int kept = 0;
    for (int j = 0; j < k; j++)
        if (comp[j].prior >= min_prior || (kept == 0 && j == k - 1))
            comp[kept++] = comp[j];
    double tot = 0;
    for (int j = 0; j < kept; j++)
        tot += comp[j].prior;
    for (int j = 0; j < kept; j++)
        comp[j].prior /= tot;
    return kept;
}

/* One EM run from a random hard partition into k groups. */
static double em_run(const double *x, const double *y, size_t n, int k, const ari_mix_options *opt,
                     uint64_t *rng, double *tau, ari_mix_component *comp, int *kout, int *iters)
{
    for (size_t i = 0; i < n; i++) {
        int c = k == 1 ? 0 : (int)(next_random(rng) % (uint64_t)k);
        for (int j = 0; j < k; j++)
            tau[(size_t)j * n + i] = j == c;
    }
    double ll = -INFINITY;
    int it = 0;
    while (it < opt->max_iter) {
        it++;
        for (int j = 0; j < k; j++)
            m_step_component(x, y, tau + (size_t)j * n, n, &comp[j]);
        k = drop_small(comp, k, opt->min_prior);
        double next = e_step(x, y, n, comp, k, tau);
        int done = isfinite(ll) && fabs(next - ll) <= opt->tolerance * fabs(next);
        ll = next;
        if (done || k == 1)
            break;
    }
    *kout = k;
    *iters = it;
    return ll;
}

/* Orders the components by their fitted y at the mean x. */
static void order_components(ari_mix_component *comp, int k, double xmean)
{
    if (k == 2 && comp[0].b0 + comp[0].b1 * xmean > comp[1].b0 + comp[1].b1 * xmean) {
        ari_mix_component t = comp[0];
        comp[0] = comp[1];
        comp[1] = t;
    }
}

static void assign_clusters(const double *x, const double *y, size_t n, const ari_mix_component *comp,
                            int k, int *cluster)
{
    double lp[2];
    for (size_t i = 0; i < n; i++) {
        point_loglik(x[i], y[i], comp, k, lp);
        cluster[i] = k == 2 && lp[1] > lp[0] ? 1 : 0;
    }
}

int ari_mix_fit_em(const double *x, const double *y, size_t n, const ari_mix_options *opt,
                   ari_mix_fit *out, int *cluster, ari_error *err)
{
    ari_mix_options def;
    if (!opt) {
        ari_mix_options_default(&def);
        opt = &def;
    }
    if (n == 0 || !x || !y)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a mixture needs at least one point");
    if (opt->restarts < 1 || opt->max_iter < 1 || !(opt->tolerance > 0) || !(opt->min_prior >= 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "bad mixture options");
    double *tau = malloc(2 * n * sizeof *tau);
    if (!tau)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    memset(out, 0, sizeof *out);
    uint64_t rng = opt->seed;
    ari_mix_component best[2][2];
    int best_k[2] = {0, 0}, best_it[2] = {0, 0};
    out->loglik[0] = out->loglik[1] = out->bic[0] = out->bic[1] = NAN;
    int kmax = n >= MIN_POINTS_K2 ? 2 : 1;
    for (int k = 1; k <= kmax; k++) {
        int runs = k == 1 ? 1 : opt->restarts;
        for (int r = 0; r < runs; r++) {
            ari_mix_component comp[2];
            int kk, it;
            double ll = em_run(x, y, n, k, opt, &rng, tau, comp, &kk, &it);
            if (isfinite(ll) && (isnan(out->loglik[k - 1]) || ll > out->loglik[k - 1])) {
                out->loglik[k - 1] = ll;
                memcpy(best[k - 1], comp, sizeof comp);
                best_k[k - 1] = kk;
                best_it[k - 1] = it;
            }
        }
        if (!isnan(out->loglik[k - 1])) {
            int p = 3 * best_k[k - 1] + (best_k[k - 1] - 1);
            out->k_fitted[k - 1] = best_k[k - 1];
            out->bic[k - 1] = -2 * out->loglik[k - 1] + p * log((double)n);
        }
    }
    free(tau);
    if (isnan(out->loglik[0]))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "the mixture could not be fitted");
    int pick = !isnan(out->bic[1]) && out->bic[1] < out->bic[0] ? 1 : 0;
    double xmean = 0;
    for (size_t i = 0; i < n; i++)
        xmean += x[i];
    xmean /= (double)n;
    out->k = best_k[pick];
    memcpy(out->comp, best[pick], sizeof out->comp);
    out->iterations = best_it[pick];
    order_components(out->comp, out->k, xmean);
    if (cluster)
        assign_clusters(x, y, n, out->comp, out->k, cluster);
    return 0;
}

/* Refits LR_LOG on the members of cluster c. */
static int refit_cluster(const double *gflop, const double *duration, const int *cluster, size_t n, int c,
                         double *gbuf, double *dbuf, ari_reg_fit *fit, ari_error *err)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (cluster[i] == c) {
            gbuf[m] = gflop[i];
            dbuf[m] = duration[i];
            m++;
        }
    if (m == 0) {
        memset(fit, 0, sizeof *fit);
        fit->model = ARI_REG_LOG;
        fit->df = 0;
        return 0;
    }
    return ari_reg_fit_group(ARI_REG_LOG, gbuf, dbuf, m, fit, err);
}

/* The two-model rule for one task of cluster c. */
static int two_model_anomaly(const ari_reg_fit fits[2], int k, int c, double g, double d)
{
    double fit, lwr, upr;
    ari_reg_predict(&fits[c], g, &fit, &lwr, &upr);
    if (!isnan(upr) && d > upr)
        return 1;
    if (k < 2 || isnan(lwr) || !(d < lwr))
        return 0;
    for (int j = 0; j < 2; j++)
        if (ari_reg_is_anomaly(&fits[j], g, d))
            return 1;
    return 0;
}

int ari_mix_classify(const double *gflop, const double *duration, size_t n,
                     const ari_mix_options *opt, ari_mix_fit *mix, ari_reg_fit fits[2], int *cluster,
                     unsigned char *anomaly, ari_error *err)
{
    if (n == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a mixture needs at least one task");
    double *buf = malloc(4 * n * sizeof *buf);
    if (!buf)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    double *x = buf, *y = buf + n;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!ari_reg_usable(gflop[i], duration[i]))
            rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "task %zu: GFlop and duration must be > 0", i);
        x[i] = log(gflop[i]);
        y[i] = log(duration[i]);
    }
    if (rc == 0)
        rc = ari_mix_fit_em(x, y, n, opt, mix, cluster, err);
    for (int c = 0; c < 2 && rc == 0; c++) {
        if (c < mix->k)
            rc = refit_cluster(gflop, duration, cluster, n, c, buf + 2 * n, buf + 3 * n, &fits[c], err);
        else
            fits[c] = fits[0];
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        anomaly[i] = (unsigned char)two_model_anomaly(fits, mix->k, cluster[i], gflop[i], duration[i]);
    free(buf);
    return rc;
}
