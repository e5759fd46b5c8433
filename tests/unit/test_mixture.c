/* test_mixture.c: EM for a mixture of log-log regressions, the BIC choice
 * and the two-model anomaly rule (src/analysis/mixture.c).
 *
 * Generated data with two known regimes (intercepts ln 1 and ln 3, as in
 * spec section 4.4) must give k = 2 with the components recovered and at
 * least 95 % of the points in their own cluster; one regime must give
 * k = 1. The BIC is recomputed here from a log-likelihood written
 * independently of the library, using the returned parameters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mixture.h"

#define N 600

static uint64_t rng = 987654321;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gaussian(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* The mixture log-likelihood, written out without the library. */
static double independent_loglik(const double *x, const double *y, size_t n, const ari_mix_fit *f)
{
    double ll = 0;
    for (size_t i = 0; i < n; i++) {
        double p = 0;
        for (int j = 0; j < f->k; j++) {
            double mu = f->comp[j].b0 + f->comp[j].b1 * x[i], s = f->comp[j].sigma;
            p += f->comp[j].prior * exp(-(y[i] - mu) * (y[i] - mu) / (2 * s * s)) / (s * sqrt(2 * M_PI));
        }
        ll += log(p);
    }
    return ll;
}

static void generate(double *x, double *y, int *truth, int two)
{
    for (int i = 0; i < N; i++) {
        x[i] = log(0.01 + uniform());
        truth[i] = two && i % 3 == 0;
        y[i] = (truth[i] ? log(3.0) : 0) + 2.0 + 0.9 * x[i] + 0.08 * gaussian();
    }
}

static void test_two_regimes(void **state)
{
    (void)state;
    static double x[N], y[N];
    static int truth[N], cluster[N];
    generate(x, y, truth, 1);
    ari_mix_options opt;
    ari_mix_options_default(&opt);
    ari_mix_fit f;
    ari_error err = {0};
    assert_int_equal(ari_mix_fit_em(x, y, N, &opt, &f, cluster, &err), 0);
    assert_int_equal(f.k, 2);
    /* the chosen fit's likelihood, recomputed independently */
    double ll = independent_loglik(x, y, N, &f);
    assert_true(fabs(ll - f.loglik[1]) < 1e-6 * fabs(ll));
    assert_true(fabs(f.bic[1] - (-2 * ll + 7 * log((double)N))) < 1e-6 * fabs(f.bic[1]));
    assert_true(f.bic[1] < f.bic[0]);
    /* the one-component BIC from its own OLS fit */
    assert_true(fabs(f.bic[0] - (-2 * f.loglik[0] + 3 * log((double)N))) < 1e-9 * fabs(f.bic[0]));
    assert_true(fabs(f.comp[0].b0 - 2.0) < 0.05 && fabs(f.comp[1].b0 - (2.0 + log(3.0))) < 0.05);
    assert_true(fabs(f.comp[0].b1 - 0.9) < 0.05 && fabs(f.comp[1].b1 - 0.9) < 0.05);
    assert_true(fabs(f.comp[1].prior - 1.0 / 3) < 0.05);
    int right = 0;
    for (int i = 0; i < N; i++)
        right += cluster[i] == truth[i];
    assert_true(right >= 0.95 * N);
    /* same seed, same answer */
    ari_mix_fit g;
    assert_int_equal(ari_mix_fit_em(x, y, N, &opt, &g, NULL, &err), 0);
    assert_true(g.loglik[1] == f.loglik[1] && g.comp[0].b0 == f.comp[0].b0);
}

static void test_one_regime(void **state)
{
    (void)state;
    static double x[N], y[N];
    static int truth[N], cluster[N];
    generate(x, y, truth, 0);
    ari_mix_fit f;
    ari_error err = {0};
    assert_int_equal(ari_mix_fit_em(x, y, N, NULL, &f, cluster, &err), 0);
    assert_int_equal(f.k, 1);
    assert_true(f.bic[0] <= f.bic[1] || isnan(f.bic[1]));
    double ll = independent_loglik(x, y, N, &f);
    assert_true(fabs(ll - f.loglik[0]) < 1e-6 * fabs(ll));
    for (int i = 0; i < N; i++)
        assert_int_equal(cluster[i], 0);
}

/* Two regimes on the duration scale; the rule flags a point above the top
 * line, not the members of either regime. */
static void test_classify(void **state)
{
    (void)state;
    static double x[N], y[N], g[N], d[N];
    static int truth[N], cluster[N];
    static unsigned char anomaly[N];
    generate(x, y, truth, 1);
    for (int i = 0; i < N; i++) {
        g[i] = exp(x[i]);
        d[i] = exp(y[i]);
    }
    d[5] *= 20; /* far above both regimes */
    ari_mix_fit mix;
    ari_reg_fit fits[2];
    ari_error err = {0};
    assert_int_equal(ari_mix_classify(g, d, N, NULL, &mix, fits, cluster, anomaly, &err), 0);
    assert_int_equal(mix.k, 2);
    assert_true(anomaly[5]);
    int flagged = 0;
    for (int i = 0; i < N; i++)
        flagged += anomaly[i];
    assert_true(flagged < N / 20);
    assert_true(fits[0].n + fits[1].n == N);

    /* errors */
    assert_int_equal(ari_mix_classify(g, d, 0, NULL, &mix, fits, cluster, anomaly, &err), -1);
    g[0] = -1;
    assert_int_equal(ari_mix_classify(g, d, N, NULL, &mix, fits, cluster, anomaly, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_regimes),
        cmocka_unit_test(test_one_regime),
        cmocka_unit_test(test_classify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
