/* test_progressive_var.c: the progressive VAR (src/analysis/progressive_var.c).
 * Generated data with a known causal link (x causes y at lag 1, not the
 * reverse; w independent) is compared with R 4 (Rscript) at p = 1 and 2:
 * - coefficients and Sigma_u: lm(Yr ~ Z) on the lagged design, crossprod
 *   of the residuals / (T_eff - k);
 * - Granger: the F of anova(restricted lm, full lm) for each (cause,
 *   effect) equals our F; our p-value is pf(F, p, d (T_eff - k)) (the spec's
 *   df, R's vars::causality for d = 2), compared with that, and anova's
 *   p-value is reported as a check that both agree on the decision;
 * - IR Theta_1 = A_1 t(chol(Sigma_u)) and FEVD at h = 2, hand-computed in R;
 * - AIC (own sample) as ln det(U'U / T_eff) + 2 p d^2 / T_eff.
 * Order selection picks p = 2 on a VAR(2) (R: the AIC argmin over a common
 * sample agrees). The progressive step finds x -> y significant and y -> x
 * not, in both directions; a budgeted step keeps within its budget and
 * carries its sample size; constant and collinear columns are dropped and
 * reported. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/progressive_var.h"
#include "test_helpers.h"
#include "test_rng.h"
#include "util/fs.h"

#define T_CAUSAL 400
#define D3       3

static double gauss(void)
{
    double u = rng_uniform(), v = rng_uniform();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* x_t = 0.5 x_{t-1} + e; y_t = 0.3 y_{t-1} + 0.6 x_{t-1} + e; w_t = 0.4 w_{t-1} - 0.2 w_{t-2} + e.
 * Scaled and shifted so the raw units differ (the fit must not care). */
static void causal_data(double *Y, size_t T)
{
    rng_state = 0x5eed18ULL;
    double x = 0, y = 0, w = 0, w1 = 0;
    for (size_t t = 0; t < T + 50; t++) {
        double nx = 0.5 * x + gauss(), ny = 0.3 * y + 0.6 * x + gauss(), nw = 0.4 * w - 0.2 * w1 + gauss();
        w1 = w;
        x = nx, y = ny, w = nw;
        if (t >= 50) {
            double *r = Y + (t - 50) * D3;
            r[0] = 1000 + 250 * x;
            r[1] = 3 + 0.01 * y;
            r[2] = -7 + w;
        }
    }
}

static const char r_script[] =
    "args <- commandArgs(TRUE)\n"
    "Y <- as.matrix(read.table(args[1]))\n"
    "out <- file(args[2], 'w')\n"
    "put <- function(v) writeLines(sprintf('%.17g', as.vector(v)), out)\n"
    "T <- nrow(Y); d <- ncol(Y)\n"
    "for (p in 1:2) {\n"
    "  Z <- do.call(cbind, lapply(1:p, function(i) Y[(p + 1 - i):(T - i), , drop = FALSE]))\n"
    "  Yr <- Y[(p + 1):T, ]\n"
    "  fit <- lm(Yr ~ Z)\n"
    "  B <- coef(fit); U <- resid(fit); Te <- nrow(Yr); k <- 1 + d * p\n"
    "  Sig <- crossprod(U) / (Te - k)\n"
    "  put(t(B))\n" /* row-major (1+dp) x d */
    "  put(t(Sig))\n"
    "  put(log(det(crossprod(U) / Te)) + 2 * p * d^2 / Te)\n"
    "  for (j in 1:d) for (i in 1:d) if (i != j) {\n" /* cause j -> effect i */
    "    full <- lm(Yr[, i] ~ Z)\n"
    "    red <- lm(Yr[, i] ~ Z[, -((0:(p - 1)) * d + j)])\n"
    "    a <- anova(red, full)\n"
    "    put(c(a$F[2], pf(a$F[2], p, d * (Te - k), lower.tail = FALSE), a$`Pr(>F)`[2]))\n"
    "  }\n"
    "  A <- lapply(1:p, function(i) t(B[(2 + (i - 1) * d):(1 + i * d), ]))\n"
    "  P <- t(chol(Sig))\n"
    "  Th0 <- P; Th1 <- A[[1]] %*% P\n"
    "  num <- Th0^2 + Th1^2\n"
    "  put(t(Th1)); put(t(num / rowSums(num)))\n"
    "}\n"
    "close(out)\n";

static double next_num(FILE *f)
{
    double v;
    assert_int_equal(fscanf(f, "%lf", &v), 1);
    return v;
}

static void near(double got, double want, double rel)
{
    double tol = rel * (fabs(want) > 1 ? fabs(want) : 1);
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, R %.12g", got, want);
}

static void compare_order(FILE *f, const double *Y, int p)
{
    size_t k = 1 + D3 * (size_t)p;
    double coef[(1 + D3 * 2) * D3], sig[D3 * D3], aic, theta[2 * D3 * D3], omega[D3 * D3];
    ari_error err = {0};
    assert_int_equal(ari_var_fit(Y, T_CAUSAL, D3, p, coef, sig, &aic, &err), 0);
    for (size_t i = 0; i < k * D3; i++)
        near(coef[i], next_num(f), 1e-8);
    for (size_t i = 0; i < D3 * D3; i++)
        near(sig[i], next_num(f), 1e-8);
    near(aic, next_num(f), 1e-9);
    for (int cause = 0; cause < D3; cause++)
        for (int effect = 0; effect < D3; effect++) {
            if (cause == effect)
                continue;
            double F, pv = ari_var_granger_p(Y, T_CAUSAL, D3, p, cause, effect, &F);
            double rf = next_num(f), rp = next_num(f), ranova = next_num(f);
            near(F, rf, 1e-7);
            near(pv, rp, 1e-7);
            assert_true(fabs(pv - rp) <= 1e-6 * rp); /* relative too: tiny p-values */
            if (rp < 1e-6 || rp > 0.1)               /* a clear decision: anova's df agree on it */
                assert_true((pv < 0.05) == (ranova < 0.05));
        }
    assert_int_equal(ari_var_irf(coef, sig, D3, p, 1, theta), 0);
    assert_int_equal(ari_var_fevd(theta, D3, 2, omega), 0);
    for (size_t i = 0; i < D3 * D3; i++)
        near(theta[D3 * D3 + i], next_num(f), 1e-7);
    for (size_t i = 0; i < D3 * D3; i++)
        near(omega[i], next_num(f), 1e-7);
}

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    static double Y[T_CAUSAL * D3];
    causal_data(Y, T_CAUSAL);
    char *dir = test_tmpdir(), in[512], out[512];
    snprintf(in, sizeof in, "%s/y.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (size_t t = 0; t < T_CAUSAL; t++)
        fprintf(f, "%.17g %.17g %.17g\n", Y[t * D3], Y[t * D3 + 1], Y[t * D3 + 2]);
    fclose(f);
    f = test_run_r(dir, "var.R", r_script, in, out);
    assert_non_null(f);
    compare_order(f, Y, 1);
    compare_order(f, Y, 2);
    fclose(f);
    ari_remove_tree(dir);
    free(dir);
}

/* The causal link is found in the right direction only. */
static void test_direction(void **state)
{
    (void)state;
    static double Y[T_CAUSAL * D3];
    causal_data(Y, T_CAUSAL);
    double F;
    assert_true(ari_var_granger_p(Y, T_CAUSAL, D3, 1, 0, 1, &F) < 1e-6); /* x -> y */
    assert_true(ari_var_granger_p(Y, T_CAUSAL, D3, 1, 1, 0, &F) > 0.05); /* y -/-> x */
    ari_pvar_params prm;
    ari_pvar_defaults(&prm);
    prm.budget_ms = 0; /* every point */
    ari_error err = {0};
    for (int dir = 0; dir < 2; dir++) {
        prm.direction = dir;
        ari_pvar *s = ari_pvar_new(&prm);
        assert_non_null(s);
        ari_pvar_result r;
        assert_int_equal(ari_pvar_step(s, Y, T_CAUSAL, D3, 1, &r, &err), 0); /* target y */
        assert_int_equal(r.nrows, 2);
        assert_int_equal(r.rows[0].metric, 0);
        assert_int_equal(r.rows[1].metric, 2);
        assert_int_equal(r.t_used, T_CAUSAL);
        assert_int_equal(r.dropped_constant, 0);
        assert_true(r.p >= 1 && r.p <= 5);
        /* from: x -> y significant; to: y -> x not */
        assert_int_equal(r.rows[0].significant, dir == 0);
        assert_true(isfinite(r.rows[0].p_value) && isfinite(r.rows[0].ir1) && isfinite(r.rows[0].vd));
        assert_true(r.rows[0].vd >= 0 && r.rows[0].vd <= 1);
        /* the same numbers as the pieces at the chosen order */
        double F1, p1 = dir == 0 ? ari_var_granger_p(Y, T_CAUSAL, D3, r.p, 0, 1, &F1)
                                 : ari_var_granger_p(Y, T_CAUSAL, D3, r.p, 1, 0, &F1);
        assert_true(fabs(p1 - r.rows[0].p_value) <= 1e-12 + 1e-9 * p1);
        assert_true(fabs(F1 - r.rows[0].f) <= 1e-9 * F1);
        double coef[(1 + D3 * 5) * D3], sig[D3 * D3], theta[2 * D3 * D3], omega[D3 * D3];
        assert_int_equal(ari_var_fit(Y, T_CAUSAL, D3, r.p, coef, sig, NULL, &err), 0);
        assert_int_equal(ari_var_irf(coef, sig, D3, r.p, 1, theta), 0);
        assert_int_equal(ari_var_fevd(theta, D3, 2, omega), 0);
        double ir = dir == 0 ? theta[D3 * D3 + 1 * D3 + 0] : theta[D3 * D3 + 0 * D3 + 1];
        double vd = dir == 0 ? omega[1 * D3 + 0] : omega[0 * D3 + 1];
        assert_true(fabs(ir - r.rows[0].ir1) <= 1e-9 * fabs(ir) + 1e-15);
        assert_true(fabs(vd - r.rows[0].vd) <= 1e-9);
        ari_pvar_result_free(&r);
        /* target x: from y is not significant; to y is */
        assert_int_equal(ari_pvar_step(s, Y, T_CAUSAL, D3, 0, &r, &err), 0);
        assert_int_equal(r.rows[0].metric, 1);
        assert_int_equal(r.rows[0].significant, dir == 1);
        ari_pvar_result_free(&r);
        ari_pvar_free(s);
    }
}

/* AIC picks the true order of a VAR(2) (and 1 for the VAR(1) part alone). */
static void test_order_selection(void **state)
{
    (void)state;
    enum { T = 600 };
    static double Y[T * 2];
    rng_state = 0x0de2ULL;
    double a = 0, a1 = 0, b = 0, b1 = 0;
    for (int t = 0; t < T + 50; t++) {
        double na = 0.5 * a - 0.45 * a1 + 0.3 * b1 + gauss(), nb = 0.2 * b - 0.5 * b1 + 0.25 * a + gauss();
        a1 = a, b1 = b, a = na, b = nb;
        if (t >= 50) {
            Y[(t - 50) * 2] = a;
            Y[(t - 50) * 2 + 1] = b;
        }
    }
    int p = 0;
    ari_error err = {0};
    assert_int_equal(ari_var_select_order(Y, T, 2, 5, &p, &err), 0);
    assert_int_equal(p, 2);
    static double Y1[T_CAUSAL * D3];
    causal_data(Y1, T_CAUSAL);
    double x[T_CAUSAL * 2];
    for (int t = 0; t < T_CAUSAL; t++) /* x and y only: a VAR(1) */
        x[t * 2] = Y1[t * D3], x[t * 2 + 1] = Y1[t * D3 + 1];
    assert_int_equal(ari_var_select_order(x, T_CAUSAL, 2, 5, &p, &err), 0);
    assert_int_equal(p, 1);
    /* too few points: an error, not a crash */
    assert_int_equal(ari_var_select_order(Y, 5, 2, 5, &p, &err), -1);
    double coef[64], sig[4];
    assert_int_equal(ari_var_fit(Y, 5, 2, 2, coef, sig, NULL, &err), -1);
}

/* Constant columns are dropped and reported; too few points give a note. */
static void test_constant_and_short(void **state)
{
    (void)state;
    enum { T = 200, D = 4 };
    static double Y[T * D], Y3[T_CAUSAL * D3];
    causal_data(Y3, T_CAUSAL);
    for (int t = 0; t < T; t++) {
        Y[t * D] = Y3[t * D3];
        Y[t * D + 1] = 42; /* constant */
        Y[t * D + 2] = Y3[t * D3 + 1];
        Y[t * D + 3] = Y3[t * D3 + 2];
    }
    ari_pvar_params prm;
    ari_pvar_defaults(&prm);
    prm.budget_ms = 0;
    ari_pvar *s = ari_pvar_new(&prm);
    ari_pvar_result r;
    ari_error err = {0};
    assert_int_equal(ari_pvar_step(s, Y, T, D, 2, &r, &err), 0);
    assert_int_equal(r.dropped_constant, 1);
    assert_int_equal(r.nrows, 3);
    assert_int_equal(r.rows[1].metric, 1);
    assert_true(isnan(r.rows[1].p_value));
    assert_int_equal(r.rows[0].significant, 1); /* x -> y */
    ari_pvar_result_free(&r);
    /* target constant */
    assert_int_equal(ari_pvar_step(s, Y, T, D, 1, &r, &err), 0);
    assert_int_equal(r.p, 0);
    assert_true(strstr(r.note, "constant") != NULL);
    ari_pvar_result_free(&r);
    /* too few points */
    assert_int_equal(ari_pvar_step(s, Y, 6, D, 2, &r, &err), 0);
    assert_int_equal(r.p, 0);
    assert_true(strstr(r.note, "need") != NULL);
    assert_true(isnan(r.rows[0].p_value));
    ari_pvar_result_free(&r);
    /* bad arguments */
    assert_int_equal(ari_pvar_step(s, Y, T, D, 4, &r, &err), -1);
    /* a linear combination of x and w (as NetworkRecv's entity mean equals
     * NetworkSend's): dropped with a note, the rest still tested */
    for (int t = 0; t < T; t++)
        Y[t * D + 1] = 2 * Y[t * D] - 3 * Y[t * D + 3] + 5;
    assert_int_equal(ari_pvar_step(s, Y, T, D, 2, &r, &err), 0);
    assert_int_equal(r.dropped_constant, 1);
    assert_true(strstr(r.note, "collinear") != NULL);
    assert_true(r.p >= 1);
    assert_true(isnan(r.rows[2].p_value) || isnan(r.rows[1].p_value) || isnan(r.rows[0].p_value));
    int finite = 0;
    for (size_t i = 0; i < r.nrows; i++)
        finite += isfinite(r.rows[i].p_value);
    assert_int_equal(finite, 2);
    ari_pvar_result_free(&r);
    /* values whose variance would overflow: dropped as non-finite */
    for (int t = 0; t < T; t++)
        Y[t * D + 1] = (t % 2 ? 1e300 : -1e300);
    assert_int_equal(ari_pvar_step(s, Y, T, D, 2, &r, &err), 0);
    assert_int_equal(r.dropped_constant, 1);
    assert_true(r.p >= 1);
    assert_true(isnan(r.rows[1].p_value));
    assert_int_equal(r.rows[0].significant, 1);
    ari_pvar_result_free(&r);
    ari_pvar_free(s);
}

/* A budgeted step: the sample starts small, grows within the budget and is
 * carried to the next time point; deterministic content for a given s. */
static void test_budget(void **state)
{
    (void)state;
    enum { T = 20000, D = 8 };
    double *Y = malloc(sizeof(double) * T * D);
    assert_non_null(Y);
    rng_state = 0xb0d9e7ULL;
    double prev[D] = {0};
    for (int t = 0; t < T; t++) {
        for (int c = 0; c < D; c++)
            Y[t * D + c] = 0.4 * prev[c] + (c > 0 ? 0.3 * prev[c - 1] : 0) + gauss();
        for (int c = 0; c < D; c++)
            prev[c] = Y[t * D + c];
    }
    ari_pvar_params prm;
    ari_pvar_defaults(&prm);
    prm.budget_ms = 20;
    ari_pvar *s = ari_pvar_new(&prm);
    ari_pvar_result r;
    ari_error err = {0};
    assert_int_equal(ari_pvar_step(s, Y, T, D, 0, &r, &err), 0);
    assert_true(r.t_used >= 2 * D + 3 && r.t_used <= T);
    assert_true(r.fits >= 1);
    assert_true(r.p >= 1);
    size_t carried = ari_pvar_sample_size(s);
    assert_true(carried >= 2 * D + 3);
    ari_pvar_result_free(&r);
    assert_int_equal(ari_pvar_step(s, Y, T, D, 0, &r, &err), 0);
    assert_true(r.t_used >= carried || r.t_used == T);
    ari_pvar_result_free(&r);
    ari_pvar_free(s);
    free(Y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_with_r),   cmocka_unit_test(test_direction),
        cmocka_unit_test(test_order_selection), cmocka_unit_test(test_constant_and_short),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
