/* test_scaling_model.c: Extra-P-style scaling models
 * (src/analysis/scaling_model.c): the exact model t(p) = 3 + 0.5 p log2(p)
 * on p = 8..512 comes back as a = 1, b = 1, c0 = 3, c1 = 0.5 (1e-6
 * relative); constant data gives the constant model; repeats are averaged;
 * fewer than 3 distinct p values is not a model; the ranking puts the
 * fastest growth first. When /usr/bin/Rscript exists, noisy cases are
 * checked against R 4: R searches the same hypotheses by leave-one-out
 * SMAPE itself, and lm() gives c0, c1 and R^2 for the chosen exponents. */
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

#include "analysis/scaling_model.h"
#include "test_helpers.h"
#include "util/fs.h"
#include "test_rng.h"


static int rel_close(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want);
}

static void test_exact_plogp(void **state)
{
    (void)state;
    double p[7], y[7];
    for (int i = 0; i < 7; i++) {
        p[i] = 8 << i;
        y[i] = 3 + 0.5 * p[i] * log2(p[i]);
    }
    ari_scaling_fit f;
    ari_scaling_fit_points(p, y, 7, &f);
    assert_true(f.valid && !f.constant);
    assert_int_equal(f.a_num, 1);
    assert_int_equal(f.a_den, 1);
    assert_int_equal(f.b, 1);
    assert_true(rel_close(f.c0, 3, 1e-6));
    assert_true(rel_close(f.c1, 0.5, 1e-6));
    assert_true(f.r2 > 1 - 1e-12 && f.cv_smape < 1e-9);
    char text[128];
    ari_scaling_model_text(&f, text, sizeof text);
    assert_string_equal(text, "3 + 0.5 * p * log2(p)");
    assert_true(rel_close(f.growth, (3 + 0.5 * 512 * 9) / (3 + 0.5 * 8 * 3), 1e-9));
    assert_int_equal(ari_scaling_hypotheses(), 59);
}

static void test_constant_and_repeats(void **state)
{
    (void)state;
    const double p[] = {2, 2, 4, 4, 8, 8}, y[] = {5, 5, 5, 5, 5, 5};
    ari_scaling_fit f;
    ari_scaling_fit_points(p, y, 6, &f);
    assert_true(f.valid && f.constant && f.c0 == 5 && f.npoints == 3 && f.growth == 1);
    char text[64];
    ari_scaling_model_text(&f, text, sizeof text);
    assert_string_equal(text, "5");
    /* repeats averaged: y = 1 + p^2 at the means */
    const double p2[] = {1, 1, 2, 3, 3, 4}, y2[] = {1, 3, 5, 9, 11, 17};
    ari_scaling_fit_points(p2, y2, 6, &f);
    assert_true(f.valid && f.a_num == 2 && f.a_den == 1 && f.b == 0 && f.npoints == 4);
    assert_true(rel_close(f.c0, 1, 1e-9) && rel_close(f.c1, 1, 1e-9));
    /* two distinct values, or NAN points: no model */
    const double p3[] = {2, 4, NAN, 2}, y3[] = {1, 2, 3, 1};
    ari_scaling_fit_points(p3, y3, 4, &f);
    assert_false(f.valid);
    assert_int_equal(f.npoints, 2);
    ari_scaling_model_text(&f, text, sizeof text);
    assert_string_equal(text, "");
}

static void test_no_logs_below_one(void **state)
{
    (void)state;
    const double p[] = {0.25, 0.5, 1, 2, 4}, y[] = {1.5, 2, 3, 5, 9}; /* 1 + 2 p */
    ari_scaling_fit f;
    ari_scaling_fit_points(p, y, 5, &f);
    assert_true(f.valid && f.b == 0 && f.a_num == 1 && f.a_den == 1);
}

static void test_rank(void **state)
{
    (void)state;
    ari_scaling_fit f[4] = {0};
    f[0] = (ari_scaling_fit){.valid = 1, .growth = 2, .fmin = 1, .fmax = 2};
    f[1] = (ari_scaling_fit){.valid = 0, .growth = NAN};
    f[2] = (ari_scaling_fit){.valid = 1, .growth = 8, .fmin = 1, .fmax = 8};
    f[3] = (ari_scaling_fit){.valid = 1, .growth = NAN, .fmin = -1, .fmax = 3};
    int64_t order[4], rank[4];
    ari_scaling_rank(f, 4, order, rank);
    const int64_t want[] = {2, 0, 3, 1};
    assert_memory_equal(order, want, sizeof want);
    assert_true(rank[2] == 1 && rank[0] == 2 && rank[3] == 3 && rank[1] == 4);
}

/* ---- against R ---- */

#define NCASES 12
#define NP     9

static const char r_script[] =
    "args <- commandArgs(trailingOnly = TRUE)\n"
    "A <- c(0, 1/4, 1/3, 1/2, 2/3, 3/4, 4/5, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3, 5/2, 8/3, 11/4, 3)\n"
    "smape <- function(y, f) ifelse(abs(y) + abs(f) == 0, 0, 100 * abs(f - y) / ((abs(y) + abs(f)) / 2))\n"
    "loo <- function(x, y) mean(sapply(seq_along(y), function(k) {\n"
    "  if (is.null(x)) f <- mean(y[-k]) else { m <- lm(y[-k] ~ x[-k]); f <- coef(m)[1] + coef(m)[2] * x[k] "
    "}\n"
    "  smape(y[k], f) }))\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "while (length(line <- readLines(con, n = 1)) > 0) {\n"
    "  v <- as.numeric(strsplit(line, ' ')[[1]]); n <- length(v) / 2; p <- v[1:n]; y <- v[(n + 1):(2 * n)]\n"
    "  best <- loo(NULL, y); ba <- 0; bb <- 0\n"
    "  for (a in A) for (b in 0:2) { if (a == 0 && b == 0) next\n"
    "    s <- loo(p^a * log2(p)^b, y); if (s < best) { best <- s; ba <- a; bb <- b } }\n"
    "  if (ba == 0 && bb == 0) { c0 <- mean(y); c1 <- 0; r2 <- 0 } else {\n"
    "    m <- lm(y ~ I(p^ba * log2(p)^bb)); c0 <- coef(m)[1]; c1 <- coef(m)[2]; r2 <- summary(m)$r.squared "
    "}\n"
    "  writeLines(sprintf('%.17g', c(ba, bb, c0, c1, r2, best)), out)\n"
    "}\n"
    "close(out)\n";

typedef struct scase {
    double p[NP], y[NP];
} scase;

/* Growth shapes of call sites: p log p, sqrt p, p^2, log^2 p, flat. */
static void make_case(scase *c, int i)
{
    for (int k = 0; k < NP; k++) {
        double p = 2 << k, noise = 1 + 0.05 * (rng_uniform() - 0.5);
        double shapes[] = {0.02 * p * log2(p), 0.3 * sqrt(p), 1e-4 * p * p, 0.5 * log2(p) * log2(p), 0};
        c->p[k] = p;
        c->y[k] = (4 + shapes[i % 5]) * noise;
    }
}

/* Returns 1 when the chosen model is not the constant. */
static int compare_case(FILE *f, const scase *c, int index)
{
    double r[6];
    for (int k = 0; k < 6; k++)
        assert_int_equal(fscanf(f, "%lf", &r[k]), 1);
    ari_scaling_fit m;
    ari_scaling_fit_points(c->p, c->y, NP, &m);
    if (fabs(m.a - r[0]) > 1e-12 || m.b != (int)r[1])
        fail_msg("case %d: chose a = %g, b = %d; R chose a = %g, b = %g", index, m.a, m.b, r[0], r[1]);
    if (!rel_close(m.c0, r[2], 1e-9) || !(fabs(m.c1 - r[3]) <= 1e-9 * fabs(r[3])))
        fail_msg("case %d: c0, c1 = %.17g, %.17g; R lm has %.17g, %.17g", index, m.c0, m.c1, r[2], r[3]);
    if (!m.constant && !rel_close(m.r2, r[4], 1e-9))
        fail_msg("case %d: r2 = %.17g, R has %.17g", index, m.r2, r[4]);
    if (!rel_close(m.cv_smape, r[5], 1e-9))
        fail_msg("case %d: cv smape = %.17g, R has %.17g", index, m.cv_smape, r[5]);
    return !m.constant;
}

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    static scase cases[NCASES];
    rng_state = 0x51a11e5ULL;
    char *dir = test_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/cases.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++) {
        make_case(&cases[i], i);
        for (int k = 0; k < 2 * NP; k++)
            fprintf(f, k ? " %.17g" : "%.17g", k < NP ? cases[i].p[k] : cases[i].y[k - NP]);
        fputc('\n', f);
    }
    fclose(f);
    f = test_run_r(dir, "scaling.R", r_script, in, out);
    assert_non_null(f);
    int grown = 0;
    for (int i = 0; i < NCASES; i++)
        grown += compare_case(f, &cases[i], i);
    fclose(f);
    assert_true(grown >= NCASES / 2); /* the cases do exercise the search */
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_plogp),       cmocka_unit_test(test_constant_and_repeats),
        cmocka_unit_test(test_no_logs_below_one), cmocka_unit_test(test_rank),
        cmocka_unit_test(test_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
