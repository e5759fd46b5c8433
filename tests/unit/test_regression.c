/* test_regression.c: the four duration models and R's prediction interval
 * (src/analysis/regression.c).
 *
 * The spec's golden vector (section 2.3, computed with R) and R's lm on
 * the same data for the other models are literal expectations that always
 * run; generated groups are compared with Rscript's lm/predict when
 * /usr/bin/Rscript exists (coefficients, interval, R² on the model's scale
 * and on durations). Groups with one GFlop value are not fittable; the
 * best model is chosen on the duration scale.
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
#include <unistd.h>

#include "analysis/regression.h"

#define RSCRIPT "/usr/bin/Rscript"

static const double golden_g[10] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3};
static const double golden_d[10] = {1.1, 2.0, 5.2, 9.8, 21, 19, 20.5, 60, 30, 29};

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) {
        fprintf(stderr, "got %.12g, want %.12g (tolerance %g)\n", got, want, tol);
        fail();
    }
}

static ari_reg_fit fit_golden(ari_reg_model m)
{
    ari_reg_fit f;
    ari_error err = {0};
    assert_int_equal(ari_reg_fit_group(m, golden_g, golden_d, 10, &f, &err), 0);
    return f;
}

static void expect_interval(const ari_reg_fit *f, double g, double fit, double lwr, double upr)
{
    double a, b, c;
    ari_reg_predict(f, g, &a, &b, &c);
    assert_near(a, fit, 1e-6);
    assert_near(b, lwr, 1e-6);
    assert_near(c, upr, 1e-6);
}

/* Spec 2.3: b0 = 4.805475, b1 = 1.035383, s = 0.3647878; only D = 60. */
static void test_golden_log(void **state)
{
    (void)state;
    ari_reg_fit f = fit_golden(ARI_REG_LOG);
    assert_near(f.b0, 4.805475053, 1e-6);
    assert_near(f.b1, 1.035382945, 1e-6);
    assert_near(f.s, 0.3647878407, 1e-6);
    assert_int_equal(f.df, 8);
    assert_near(f.r2, 0.927451986, 1e-8);
    expect_interval(&f, 0.01, 1.038067056, 0.3666021117, 2.939380814);
    expect_interval(&f, 0.2, 23.082863165, 9.4244875818, 56.535548194);
    expect_interval(&f, 0.3, 35.124614257, 14.0369923383, 87.891942732);
    assert_int_equal(f.nanomalies, 1);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ari_reg_is_anomaly(&f, golden_g[i], golden_d[i]), golden_d[i] == 60);
}

/* R: lm(D ~ G), lm(D ~ G, weights = 1/G), lm(D ~ I(G^(2/3))), predict(). */
static void test_golden_other_models(void **state)
{
    (void)state;
    ari_reg_fit lr = fit_golden(ARI_REG_LR);
    assert_near(lr.b0, 1.614763932, 1e-8);
    assert_near(lr.b1, 114.843266254, 1e-7);
    assert_near(lr.s, 13.34049971, 1e-7);
    assert_near(lr.r2, 0.4891389121, 1e-8);
    expect_interval(&lr, 0.01, 2.763196594, -32.472736287, 37.99912948);
    expect_interval(&lr, 0.2, 24.583417183, -7.930680479, 57.09751484);

    ari_reg_fit wlr = fit_golden(ARI_REG_WLR);
    assert_near(wlr.b0, -0.2752648617, 1e-8);
    assert_near(wlr.b1, 126.8054738081, 1e-7);
    assert_near(wlr.s, 29.60872619, 1e-7);
    assert_near(wlr.r2, 0.7153504008, 1e-8);
    expect_interval(&wlr, 0.2, 25.0858298999, -7.359389661, 57.531049461); /* spec: 25.08583, -7.35939, 57.53105 */
    expect_interval(&wlr, 0.01, 0.9927898764, -7.693013186, 9.678592939);

    ari_reg_fit nlr = fit_golden(ARI_REG_NLR);
    assert_near(nlr.b0, -3.71114132, 1e-7);
    assert_near(nlr.b1, 85.80130735, 1e-7);
    assert_near(nlr.s, 13.04610729, 1e-7);
    assert_near(nlr.r2, 0.5114370608, 1e-8);
    expect_interval(&nlr, 0.01, 0.2714025813, -34.895979042, 35.43878420);
    expect_interval(&nlr, 0.2, 25.6324930319, -6.265386055, 57.53037212);

    /* MAE and RMSE on the duration scale, by hand from the predictions */
    double abs_sum = 0, sq = 0;
    ari_reg_fit lg = fit_golden(ARI_REG_LOG);
    for (int i = 0; i < 10; i++) {
        double fit, lwr, upr;
        ari_reg_predict(&lg, golden_g[i], &fit, &lwr, &upr);
        abs_sum += fabs(golden_d[i] - fit);
        sq += (golden_d[i] - fit) * (golden_d[i] - fit);
    }
    assert_near(lg.mae, abs_sum / 10, 1e-12);
    assert_near(lg.rmse, sqrt(sq / 10), 1e-12);
}

/* A group with one GFlop value cannot be fitted by any model: no
 * coefficients, metrics or interval, and nothing flagged even for a huge
 * duration (R would fit the mean and flag it). */
static void test_single_gflop(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_reg_fit f;
    double g[4] = {0.25, 0.25, 0.25, 0.25}, d[4] = {2, 3, 4, 1e6}, fit, lwr, upr;
    unsigned char flag[4] = {1, 1, 1, 1};
    for (int m = 0; m < ARI_REG_NMODELS; m++) {
        assert_int_equal(ari_reg_fit_flags((ari_reg_model)m, g, d, 4, &f, flag, &err), 0);
        assert_false(f.fittable);
        assert_string_equal(f.reason, ARI_REG_SINGLE_GFLOP);
        assert_int_equal(f.n, 4);
        assert_int_equal(f.nanomalies, 0);
        assert_true(isnan(f.b0) && isnan(f.r2) && isnan(f.r2_duration) && isnan(f.mae) && isnan(f.rmse));
        for (int i = 0; i < 4; i++)
            assert_int_equal(flag[i], 0);
        ari_reg_predict(&f, 0.25, &fit, &lwr, &upr);
        assert_true(isnan(fit) && isnan(lwr) && isnan(upr));
        assert_false(ari_reg_is_anomaly(&f, 0.25, 1e9));
    }
    /* one task is a single GFlop value too */
    assert_int_equal(ari_reg_fit_group(ARI_REG_LR, g, d, 1, &f, &err), 0);
    assert_false(f.fittable);
    /* a group of such tasks among fittable ones: only the fittable one flags */
    double gg[14], dd[14];
    int group[14];
    for (int i = 0; i < 10; i++) {
        gg[i] = golden_g[i];
        dd[i] = golden_d[i];
        group[i] = 0;
    }
    for (int i = 0; i < 4; i++) {
        gg[10 + i] = g[i];
        dd[10 + i] = d[i];
        group[10 + i] = 1;
    }
    ari_reg_fit fits[2];
    unsigned char fl[14];
    assert_int_equal(ari_reg_classify_groups(ARI_REG_LOG, 14, group, 2, gg, dd, fits, fl, &err), 0);
    assert_true(fits[0].fittable);
    assert_null(fits[0].reason);
    assert_int_equal(fits[0].nanomalies, 1);
    assert_false(fits[1].fittable);
    for (int i = 0; i < 14; i++)
        assert_int_equal(fl[i], i == 7);
}

/* n <= 2 with a slope has no residual degree of freedom: NaN interval,
 * nothing flagged. */
static void test_edge_cases(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_reg_fit f;

    double g2[2] = {1, 2}, d2[2] = {2, 3}, fit, lwr, upr;
    assert_int_equal(ari_reg_fit_group(ARI_REG_LOG, g2, d2, 2, &f, &err), 0);
    ari_reg_predict(&f, 1, &fit, &lwr, &upr);
    assert_near(fit, 2, 1e-12);
    assert_true(isnan(lwr) && isnan(upr));
    assert_int_equal(f.nanomalies, 0);
    assert_false(ari_reg_is_anomaly(&f, 1, 1e9));

    assert_true(f.fittable);

    double bad[2] = {0, 1};
    assert_int_equal(ari_reg_fit_group(ARI_REG_LOG, bad, d2, 2, &f, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_reg_fit_group(ARI_REG_LR, g2, d2, 0, &f, &err), -1);

    ari_reg_model m;
    assert_int_equal(ari_reg_model_parse("LR_LOG", &m), 0);
    assert_int_equal(m, ARI_REG_LOG);
    assert_int_equal(ari_reg_model_parse("wlr", &m), 0);
    assert_int_equal(m, ARI_REG_WLR);
    assert_int_equal(ari_reg_model_parse("cubic", &m), -1);
}

/* The best model is chosen on the duration scale: a log-log fit whose R²
 * on logs is the highest does not win when its R² on durations is lower;
 * groups that cannot be fitted and missing models never win. */
static void test_best(void **state)
{
    (void)state;
    ari_reg_fit lr = {.model = ARI_REG_LR, .fittable = 1, .r2 = 0.90, .r2_duration = 0.90, .mae = 2.0, .rmse = 3.0};
    ari_reg_fit wlr = {.model = ARI_REG_WLR, .fittable = 1, .r2 = 0.95, .r2_duration = 0.85, .mae = 1.5, .rmse = 3.5};
    ari_reg_fit log_ = {.model = ARI_REG_LOG, .fittable = 1, .r2 = 0.99, .r2_duration = 0.80, .mae = 1.8, .rmse = 2.5};
    ari_reg_fit nlr = {.model = ARI_REG_NLR, .fittable = 0, .r2 = NAN, .r2_duration = NAN, .mae = NAN, .rmse = NAN};
    const ari_reg_fit *fits[ARI_REG_NMODELS] = {&lr, &wlr, &nlr, &log_};
    assert_int_equal(ari_reg_best(fits, ARI_REG_BY_R2), ARI_REG_LR);
    assert_int_equal(ari_reg_best(fits, ARI_REG_BY_MAE), ARI_REG_WLR);
    assert_int_equal(ari_reg_best(fits, ARI_REG_BY_RMSE), ARI_REG_LOG);
    nlr = (ari_reg_fit){.model = ARI_REG_NLR, .fittable = 1, .r2_duration = 0.97, .mae = 9, .rmse = 9};
    assert_int_equal(ari_reg_best(fits, ARI_REG_BY_R2), ARI_REG_NLR);
    fits[ARI_REG_NLR] = NULL;
    assert_int_equal(ari_reg_best(fits, ARI_REG_BY_R2), ARI_REG_LR);
    const ari_reg_fit *none[ARI_REG_NMODELS] = {NULL, NULL, NULL, NULL};
    assert_int_equal(ari_reg_best(none, ARI_REG_BY_MAE), -1);

    /* r2_duration of the golden fits, against its definition */
    for (int m = 0; m < ARI_REG_NMODELS; m++) {
        ari_reg_fit f = fit_golden((ari_reg_model)m);
        double mean = 0, tss = 0, rss = 0, fit, lwr, upr;
        for (int i = 0; i < 10; i++)
            mean += golden_d[i] / 10;
        for (int i = 0; i < 10; i++) {
            ari_reg_predict(&f, golden_g[i], &fit, &lwr, &upr);
            rss += (golden_d[i] - fit) * (golden_d[i] - fit);
            tss += (golden_d[i] - mean) * (golden_d[i] - mean);
        }
        assert_near(f.r2_duration, 1 - rss / tss, 1e-12);
        if (m == ARI_REG_LR)
            assert_near(f.r2_duration, f.r2, 1e-12); /* unweighted, untransformed: R's r.squared */
    }
}

/* Grouped classification: each group gets its own model. */
static void test_groups(void **state)
{
    (void)state;
    double g[20], d[20];
    int group[20];
    for (int i = 0; i < 10; i++) {
        g[i] = golden_g[i];
        d[i] = golden_d[i];
        group[i] = 1;
        g[10 + i] = golden_g[i];
        d[10 + i] = golden_d[i] * 3;
        group[10 + i] = i == 0 ? -1 : 0;
    }
    ari_reg_fit fits[3];
    unsigned char flag[20];
    ari_error err = {0};
    assert_int_equal(ari_reg_classify_groups(ARI_REG_LOG, 20, group, 3, g, d, fits, flag, &err), 0);
    assert_int_equal(fits[1].n, 10);
    assert_int_equal(fits[0].n, 9);
    assert_int_equal(fits[2].n, 0);
    assert_int_equal(fits[1].nanomalies, 1);
    assert_true(flag[7]);
    assert_false(flag[10]);
    assert_near(fits[1].b0, 4.805475053, 1e-6);
}

/* ---- against Rscript ---- */

static uint64_t rng = 12345;

static double uniform(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_against_r(void **state)
{
    (void)state;
    if (access(RSCRIPT, X_OK) != 0) {
        fprintf(stderr, "skipped: %s not found\n", RSCRIPT);
        skip();
    }
    enum { N = 300 };
    static double g[N], d[N];
    char dir[] = "/tmp/ariadne-reg-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char data[256], script[256], out[256], cmd[1024];
    snprintf(data, sizeof data, "%s/data.csv", dir);
    snprintf(script, sizeof script, "%s/fit.R", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    FILE *f = fopen(data, "w");
    assert_non_null(f);
    fprintf(f, "G,D\n");
    for (int i = 0; i < N; i++) {
        g[i] = i % 7 == 0 ? 0.5 : 0.001 + uniform();
        d[i] = 3 * pow(g[i], 0.9) * exp(0.3 * (uniform() - 0.5)) + (i % 41 == 0 ? 10 : 0);
        fprintf(f, "%.17g,%.17g\n", g[i], d[i]);
    }
    fclose(f);
    f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "x <- read.csv('%s')\nG <- x$G; D <- x$D\n"
               "ms <- list(lm(D ~ G), lm(D ~ G, weights = 1/G), lm(D ~ I(G^(2/3))), lm(log(D) ~ log(G)))\n"
               "rows <- NULL\n"
               "for (k in 1:4) { m <- ms[[k]]; p <- suppressWarnings(predict(m, interval = 'prediction'))\n"
               "  if (k == 4) p <- exp(p)\n"
               "  rows <- rbind(rows, cbind(k, 1:length(G), p, coef(m)[1], coef(m)[2], summary(m)$sigma,"
               " summary(m)$r.squared, 1 - sum((D - p[, 1])^2) / sum((D - mean(D))^2))) }\n"
               "write.table(format(rows, digits = 17), '%s', sep = ',', row.names = FALSE, col.names = FALSE,"
               " quote = FALSE)\n",
            data, out);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s --vanilla %s >/dev/null 2>&1", RSCRIPT, script);
    assert_int_equal(system(cmd), 0);
    ari_reg_fit fits[4];
    ari_error err = {0};
    for (int m = 0; m < 4; m++)
        assert_int_equal(ari_reg_fit_group((ari_reg_model)m, g, d, N, &fits[m], &err), 0);
    f = fopen(out, "r");
    assert_non_null(f);
    int rows = 0;
    double kd, id, fit, lwr, upr, b0, b1, s, r2, r2d;
    while (fscanf(f, " %lf , %lf , %lf , %lf , %lf , %lf , %lf , %lf , %lf , %lf", &kd, &id, &fit, &lwr, &upr, &b0, &b1,
                  &s, &r2, &r2d) == 10) {
        int k = (int)kd, i = (int)id;
        const ari_reg_fit *ft = &fits[k - 1];
        double a, b, c;
        ari_reg_predict(ft, g[i - 1], &a, &b, &c);
        double tol = 1e-9 * (1 + fabs(upr));
        assert_near(a, fit, tol);
        assert_near(b, lwr, tol);
        assert_near(c, upr, tol);
        assert_near(ft->b0, b0, 1e-9 * (1 + fabs(b0)));
        assert_near(ft->b1, b1, 1e-9 * (1 + fabs(b1)));
        assert_near(ft->s, s, 1e-9 * (1 + s));
        assert_near(ft->r2, r2, 1e-9);
        assert_near(ft->r2_duration, r2d, 1e-9);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 4 * N);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_log),
        cmocka_unit_test(test_golden_other_models),
        cmocka_unit_test(test_single_gflop),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_best),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_against_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
