/* aff_detector.c: Bodenham-Adams adaptive-forgetting-factor mean detector
 * (the contract is in aff_detector.h). */
#include "analysis/aff_detector.h"

#include <math.h>
#include <stdlib.h>

struct ari_aff {
    double alpha, eta, lambda_min, lambda_max;
    int burn_in;
    /* burn-in: Welford running mean and sum of squares */
    int nb;
    double b_mean, b_m2;
    double mu_hat, sigma_hat, scale;
    /* AFF mean */
    double lambda, m, w, u, xbar, xbar_d, omega, delta;
};

static void restart(ari_aff *a)
{
    a->nb = 0;
    a->b_mean = a->b_m2 = 0;
    a->mu_hat = a->sigma_hat = a->scale = 0;
    a->lambda = a->lambda_max;
    a->m = a->w = a->u = a->xbar = a->xbar_d = a->omega = a->delta = 0;
}

ari_aff *ari_aff_new(double alpha, double eta, int burn_in, double lambda_min, double lambda_max)
{
    ari_aff *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->alpha = (alpha > 0 && alpha < 1) ? alpha : 0.01;
    a->eta = (eta >= 0 && isfinite(eta)) ? eta : 0.01;
    a->burn_in = burn_in >= 2 ? burn_in : 10;
    if (!(lambda_min > 0 && lambda_min <= lambda_max && lambda_max <= 1)) {
        lambda_min = 0.6;
        lambda_max = 1;
    }
    a->lambda_min = lambda_min;
    a->lambda_max = lambda_max;
    restart(a);
    return a;
}

void ari_aff_free(ari_aff *a) { free(a); }
void ari_aff_reset(ari_aff *a) { restart(a); }
double ari_aff_lambda(const ari_aff *a) { return a->lambda; }

void ari_aff_set_alpha(ari_aff *a, double alpha)
{
    if (alpha > 0 && alpha < 1)
        a->alpha = alpha;
}

/* One AFF update with x (spec 3.1 order); adapt: whether lambda moves. */
static void aff_update(ari_aff *a, double x, int adapt)
{
    double lam = a->lambda;
    double grad = 2 * (a->xbar - x) * a->xbar_d;
    a->omega = lam * a->omega + a->w;
    a->delta = lam * a->delta + a->m;
    a->m = lam * a->m + x;
    a->w = lam * a->w + 1;
    double r = (a->w - 1) / a->w;
    a->u = r * r * a->u + 1 / (a->w * a->w);
    a->xbar = (1 - 1 / a->w) * a->xbar + x / a->w;
    a->xbar_d = (a->delta - a->xbar * a->omega) / a->w;
    if (adapt) {
        double l = lam - a->eta * a->scale * grad;
        if (!isfinite(l))
            l = a->lambda_min;
        a->lambda = l < a->lambda_min ? a->lambda_min : (l > a->lambda_max ? a->lambda_max : l);
    }
}

static void burn_in_step(ari_aff *a, double x)
{
    a->nb++;
    double dlt = x - a->b_mean;
    a->b_mean += dlt / a->nb;
    a->b_m2 += dlt * (x - a->b_mean);
    if (a->nb == a->burn_in) {
        a->mu_hat = a->b_mean;
        double var = a->b_m2 / (a->nb - 1);
        double floor_sd = 1e-12 * (1 + fabs(a->mu_hat));
        a->sigma_hat = sqrt(var) > floor_sd ? sqrt(var) : floor_sd;
        a->scale = 1 / (a->sigma_hat * a->sigma_hat);
    }
}

int ari_aff_push(ari_aff *a, double x, double *p2)
{
    if (p2)
        *p2 = 1;
    if (isnan(x))
        return 0;
    if (a->nb < a->burn_in) {
        aff_update(a, x, 0);
        burn_in_step(a, x);
        return 0;
    }
    aff_update(a, x, 1);
    double z = (a->xbar - a->mu_hat) / (a->sigma_hat * sqrt(a->u));
    double p = 0.5 * erfc(-z / sqrt(2.0));
    double q = 1 - fabs(1 - 2 * p);
    if (p2)
        *p2 = q;
    if (q < a->alpha) {
        restart(a);
        return 1;
    }
    return 0;
}
