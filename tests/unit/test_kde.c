/* test_kde.c: the Gaussian KDE (src/analysis/kde.c) and the modal clusters
 * cut at its local minima (src/analysis/modal_clusters.c).
 *
 * When /usr/bin/Rscript exists, generated inputs are written to a temporary
 * file and R 4 computes density(x, bw = h) and the clusters with the rule
 * of modal_clusters.h (rle runs, interior runs lower than both neighbours,
 * minimum at the run's middle, findInterval(left.open = TRUE)); the grid x
 * must be identical, y equal to 1e-6 relative (plus 1e-12 of the peak, for
 * the FFT round-off in the empty tails), and the cluster of every point the
 * same. Closed-form checks, the minima rule on hand-made curves and the
 * error cases always run.
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

#include "analysis/kde.h"
#include "analysis/modal_clusters.h"
#include "test_helpers.h"

#define RSCRIPT "/usr/bin/Rscript"
#define NCASES 14
#define MAXPTS 4000

static uint64_t rng_state = 88172645463325252ULL;

static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double rng_normal(void)
{
    double u = rng_uniform(), v = rng_uniform();
    return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

typedef struct kcase {
    double bw;
    int n;
    double x[MAXPTS];
} kcase;

/* Inputs shaped like progression metrics: groups of nodes around a few
 * values in [0, 1], ties, outliers, a single point, all points equal. */
static void make_case(kcase *c, int i)
{
    static const double bws[] = {0.01, 0.02, 0.005, 0.05, 0.1};
    c->bw = bws[i % 5];
    switch (i) {
    case 0: /* all equal: step one of the paper */
        c->n = 30;
        for (int k = 0; k < c->n; k++)
            c->x[k] = 0;
        break;
    case 1: /* a single point */
        c->n = 1;
        c->x[0] = 0.37;
        break;
    case 2: /* 28 + 2 slower nodes, like the LU case */
        c->n = 30;
        for (int k = 0; k < 28; k++)
            c->x[k] = 0.3 + 0.01 * rng_normal();
        c->x[28] = 0.2 + 0.005 * rng_normal();
        c->x[29] = 0.2 + 0.005 * rng_normal();
        break;
    default: { /* random mixtures of 1..5 groups, sizes up to 4000 */
        int groups = 1 + (int)(rng_uniform() * 5);
        double centre[5], spread[5];
        for (int g = 0; g < groups; g++) {
            centre[g] = rng_uniform();
            spread[g] = 0.002 + 0.03 * rng_uniform();
        }
        c->n = i == NCASES - 1 ? MAXPTS : 2 + (int)(rng_uniform() * 300);
        for (int k = 0; k < c->n; k++) {
            int g = (int)(rng_uniform() * groups);
            double v = centre[g] + spread[g] * rng_normal();
            c->x[k] = v < 0 ? 0 : v > 1 ? 1 : v; /* ties at the ends, like metrics */
        }
        if (i % 4 == 0) /* exact ties inside */
            for (int k = 1; k < c->n; k += 3)
                c->x[k] = c->x[k - 1];
    }
    }
}

/* ---- always-on checks ------------------------------------------------------------ */

static void test_single_point_is_a_gaussian(void **state)
{
    (void)state;
    double x = 0.5, bw = 0.01;
    ari_kde k;
    assert_int_equal(ari_kde_density(&x, 1, bw, 512, 3, &k, NULL), 0);
    assert_int_equal(k.n, 512);
    assert_true(fabs(k.x[0] - (x - 3 * bw)) < 1e-15);
    assert_true(fabs(k.x[511] - (x + 3 * bw)) < 1e-15);
    double peak = 0, area = 0;
    for (int i = 0; i < k.n; i++) {
        double want = exp(-0.5 * pow((k.x[i] - x) / bw, 2)) / (bw * sqrt(2 * M_PI));
        /* binning and R's kernel grid make this approximate */
        assert_true(fabs(k.y[i] - want) < 0.01 * (1 / (bw * sqrt(2 * M_PI))));
        if (k.y[i] > peak)
            peak = k.y[i];
        if (i)
            area += (k.x[i] - k.x[i - 1]) * (k.y[i] + k.y[i - 1]) / 2;
    }
    assert_true(fabs(area - 0.9973) < 0.003); /* mass within +-3 bw */
    ari_kde_free(&k);
}

static void test_symmetric_input_symmetric_density(void **state)
{
    (void)state;
    double x[] = {0.2, 0.4, 0.6, 0.8};
    ari_kde k;
    assert_int_equal(ari_kde_density(x, 4, 0.05, 512, 3, &k, NULL), 0);
    double peak = 0;
    for (int i = 0; i < k.n; i++)
        peak = k.y[i] > peak ? k.y[i] : peak;
    for (int i = 0; i < k.n; i++)
        assert_true(fabs(k.y[i] - k.y[k.n - 1 - i]) < 1e-3 * peak);
    ari_kde_free(&k);
}

static void test_errors(void **state)
{
    (void)state;
    double x[] = {0.1, NAN};
    ari_kde k;
    ari_error err = {0};
    assert_int_equal(ari_kde_density(x, 0, 0.01, 512, 3, &k, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_kde_density(x, 1, 0, 512, 3, &k, &err), -1);
    assert_int_equal(ari_kde_density(x, 1, -1, 512, 3, &k, &err), -1);
    assert_int_equal(ari_kde_density(x, 1, INFINITY, 512, 3, &k, &err), -1);
    assert_int_equal(ari_kde_density(x, 2, 0.01, 512, 3, &k, &err), -1);
    assert_non_null(strstr(err.message, "not finite"));
    assert_int_equal(ari_kde_density(x, 1, 0.01, 1, 3, &k, &err), -1);
    ari_modal m;
    assert_int_equal(ari_modal_clusters(x, 2, 0.01, &m, &err), -1);
    ari_modal_free(&m);
}

/* Hand-made curves: a V, a flat bottom, a shoulder, a flat top. */
static void test_minima_rule(void **state)
{
    (void)state;
    double x[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, m[9];
    double v[9] = {3, 2, 1, 2, 3, 2, 1, 2, 3};
    assert_int_equal(ari_modal_minima(x, v, 9, m), 2);
    assert_true(m[0] == 2 && m[1] == 6);
    double flat[9] = {3, 2, 1, 1, 1, 2, 3, 3, 3}; /* bottom 2..4, flat end */
    assert_int_equal(ari_modal_minima(x, flat, 9, m), 1);
    assert_true(m[0] == 3);
    double shoulder[9] = {1, 2, 3, 3, 4, 5, 4, 3, 2}; /* a plateau on the way up */
    assert_int_equal(ari_modal_minima(x, shoulder, 9, m), 0);
    double top[9] = {1, 2, 3, 3, 3, 2, 1, 2, 0}; /* plateau at a max, then a min at 6 */
    assert_int_equal(ari_modal_minima(x, top, 9, m), 1);
    assert_true(m[0] == 6);
    double edge[9] = {0, 0, 1, 2, 3, 2, 1, 0, 0}; /* zero runs at the ends are no minima */
    assert_int_equal(ari_modal_minima(x, edge, 9, m), 0);
}

static void test_two_groups_point_at_minimum(void **state)
{
    (void)state;
    double x[] = {0.1, 0.1, 0.11, 0.9, 0.91, 0.9};
    ari_modal m;
    assert_int_equal(ari_modal_clusters(x, 6, 0.01, &m, NULL), 0);
    assert_int_equal(m.nclusters, 2);
    assert_int_equal(m.cluster[0], 0);
    assert_int_equal(m.cluster[2], 0);
    assert_int_equal(m.cluster[3], 1);
    assert_int_equal(m.size[0], 3);
    assert_true(fabs(m.mean[0] - 0.31 / 3) < 1e-12);
    assert_true(m.mean[0] < m.mean[1]);
    ari_modal_free(&m);
    /* A point exactly at a minimum joins the interval on its left. */
    double mins[] = {0.25, 0.5};
    assert_int_equal(ari_modal_interval(mins, 2, 0.1), 0);
    assert_int_equal(ari_modal_interval(mins, 2, 0.25), 0);
    assert_int_equal(ari_modal_interval(mins, 2, nextafter(0.25, 1)), 1);
    assert_int_equal(ari_modal_interval(mins, 2, 0.5), 1);
    assert_int_equal(ari_modal_interval(mins, 2, 0.75), 2);
    assert_int_equal(ari_modal_interval(mins, 0, 0.75), 0);
}

/* ---- agreement with R ------------------------------------------------------------ */

static const char r_script[] =
    "args <- commandArgs(TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "while (length(line <- readLines(con, n = 1)) > 0) {\n"
    "  v <- as.numeric(strsplit(line, ' ')[[1]]); bw <- v[1]; x <- v[-(1:2)]\n"
    "  d <- density(x, bw = bw)\n"
    "  r <- rle(d$y); k <- length(r$values)\n"
    "  ends <- cumsum(r$lengths); starts <- ends - r$lengths + 1\n"
    "  mins <- numeric(0)\n"
    "  if (k >= 3) {\n"
    "    i <- 2:(k - 1)\n"
    "    i <- i[r$values[i] < r$values[i - 1] & r$values[i] < r$values[i + 1]]\n"
    "    mins <- (d$x[starts[i]] + d$x[ends[i]]) / 2\n"
    "  }\n"
    "  iv <- findInterval(x, mins, left.open = TRUE)\n"
    "  cl <- match(iv, sort(unique(iv))) - 1\n"
    "  writeLines(sprintf('%.17g %.17g', d$x, d$y), out)\n"
    "  writeLines(paste(cl, collapse = ' '), out)\n"
    "}\n"
    "close(out)\n";

static void write_cases(const char *path, kcase *cases)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++) {
        fprintf(f, "%.17g %d", cases[i].bw, cases[i].n);
        for (int k = 0; k < cases[i].n; k++)
            fprintf(f, " %.17g", cases[i].x[k]);
        fputc('\n', f);
    }
    fclose(f);
}

static void compare_case(FILE *f, const kcase *c, int index)
{
    ari_modal m;
    assert_int_equal(ari_modal_clusters(c->x, c->n, c->bw, &m, NULL), 0);
    double peak = 0;
    for (int i = 0; i < m.density.n; i++)
        peak = m.density.y[i] > peak ? m.density.y[i] : peak;
    for (int i = 0; i < m.density.n; i++) {
        double rx, ry;
        assert_int_equal(fscanf(f, "%lf %lf", &rx, &ry), 2);
        if (m.density.x[i] != rx)
            fail_msg("case %d: grid x[%d] = %.17g, R has %.17g", index, i, m.density.x[i], rx);
        if (!(fabs(m.density.y[i] - ry) <= 1e-6 * fabs(ry) + 1e-12 * peak))
            fail_msg("case %d: y[%d] = %.17g, R has %.17g", index, i, m.density.y[i], ry);
    }
    for (int k = 0; k < c->n; k++) {
        int rc;
        assert_int_equal(fscanf(f, "%d", &rc), 1);
        if (m.cluster[k] != rc)
            fail_msg("case %d (bw %g, %d points): point %d (%.17g) in cluster %d, R says %d", index,
                     c->bw, c->n, k, c->x[k], m.cluster[k], rc);
    }
    ari_modal_free(&m);
}

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(RSCRIPT, X_OK) != 0)
        skip();
    static kcase cases[NCASES];
    for (int i = 0; i < NCASES; i++)
        make_case(&cases[i], i);
    char *dir = test_tmpdir();
    char *script = test_write_file(dir, "kde.R", r_script, strlen(r_script));
    char in[512], out[512], cmd[2048];
    snprintf(in, sizeof in, "%s/cases.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    write_cases(in, cases);
    snprintf(cmd, sizeof cmd, RSCRIPT " --vanilla %s %s %s", script, in, out);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    int multi = 0;
    for (int i = 0; i < NCASES; i++) {
        compare_case(f, &cases[i], i);
        ari_modal m;
        ari_modal_clusters(cases[i].x, cases[i].n, cases[i].bw, &m, NULL);
        multi += m.nclusters > 1;
        ari_modal_free(&m);
    }
    fclose(f);
    assert_true(multi >= NCASES / 3); /* the inputs do exercise the cuts */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(script);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_point_is_a_gaussian),
        cmocka_unit_test(test_symmetric_input_symmetric_density),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_minima_rule),
        cmocka_unit_test(test_two_groups_point_at_minimum),
        cmocka_unit_test(test_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
