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

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/kde.h"
#include "analysis/modal_clusters.h"
#include "test_helpers.h"
#include "util/fs.h"
#include "test_rng.h"

#define NCASES 14
#define MAXPTS 4000

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

/* ---- fast paths against plain definitions --------------------------------------- */

/* Groups of points with ties and points pushed onto the previous clustering's
 * minima, so that the exact comparison in bins holding a minimum runs. */
static int make_set(double *x, int i)
{
    kcase c;
    make_case(&c, 3 + i % (NCASES - 3));
    int n = c.n < 2000 ? c.n : 2000;
    memcpy(x, c.x, (size_t)n * sizeof *x);
    ari_modal m;
    assert_int_equal(ari_modal_clusters(x, n, 0.02, &m, NULL), 0);
    for (int k = 0; k < m.nminima && k < n / 4; k++)
        x[4 * k] = m.minima[k];
    ari_modal_free(&m);
    return n;
}

/* Every point's cluster is the rank of its interval among the non-empty
 * ones (ari_modal_interval, a plain search), sizes count them and means
 * are their means. */
static void test_assignment_matches_search(void **state)
{
    (void)state;
    static double x[MAXPTS];
    int *interval = malloc(MAXPTS * sizeof *interval);
    long shared = 0;
    for (int i = 0; i < 40; i++) {
        int n = make_set(x, i);
        ari_modal m;
        assert_int_equal(ari_modal_clusters(x, n, 0.005 + 0.002 * (i % 7), &m, NULL), 0);
        int nint = m.nminima + 1, rank[ARI_KDE_DEFAULT_POINTS + 1] = {0};
        for (int k = 0; k < n; k++) {
            interval[k] = ari_modal_interval(m.minima, m.nminima, x[k]);
            rank[interval[k]] = 1;
        }
        for (int j = 0, r = 0; j < nint; j++)
            rank[j] = rank[j] ? r++ : -1;
        double sum[ARI_KDE_DEFAULT_POINTS] = {0};
        int size[ARI_KDE_DEFAULT_POINTS] = {0};
        for (int k = 0; k < n; k++) {
            if (m.cluster[k] != rank[interval[k]])
                fail_msg("set %d: point %d (%.17g) in cluster %d, the search says %d", i, k, x[k],
                         m.cluster[k], rank[interval[k]]);
            sum[m.cluster[k]] += x[k];
            size[m.cluster[k]]++;
        }
        for (int c = 0; c < m.nclusters; c++) {
            assert_int_equal(m.size[c], size[c]);
            assert_true(fabs(m.mean[c] - sum[c] / size[c]) <= 1e-12);
        }
        /* count the points that share a bin with a minimum (compared with
         * the minima rather than taken from the bin's table) */
        ari_kde_work w;
        ari_kde k;
        ari_kde_work_init(&w);
        assert_int_equal(ari_kde_density_work(x, n, 0.005 + 0.002 * (i % 7), 512, 3, &w, &k, NULL), 0);
        for (int p = 0; p < n; p++)
            for (int j = 0; j < m.nminima; j++)
                shared += ari_kde_bin(&w, x[p]) == ari_kde_bin(&w, m.minima[j]);
        ari_kde_free(&k);
        ari_kde_work_free(&w);
        ari_modal_free(&m);
    }
    assert_true(shared > 0);
    free(interval);
}

static void assert_same_modal(const ari_modal *a, const ari_modal *b)
{
    assert_int_equal(a->npoints, b->npoints);
    assert_int_equal(a->nclusters, b->nclusters);
    assert_int_equal(a->nminima, b->nminima);
    assert_memory_equal(a->cluster, b->cluster, (size_t)a->npoints * sizeof *a->cluster);
    assert_memory_equal(a->size, b->size, (size_t)a->nclusters * sizeof *a->size);
    assert_memory_equal(a->mean, b->mean, (size_t)a->nclusters * sizeof *a->mean);
    assert_memory_equal(a->minima, b->minima, (size_t)a->nminima * sizeof *a->minima);
    assert_memory_equal(a->density.y, b->density.y, (size_t)a->density.n * sizeof(double));
}

/* ari_modal_clusters_many gives every set the result of
 * ari_modal_clusters, bit for bit, whatever the number of threads. */
static void test_many_matches_single(void **state)
{
    (void)state;
    enum { SETS = 9, PER = 1500 };
    double *x = malloc(SETS * PER * sizeof *x);
    static double tmp[MAXPTS];
    for (int s = 0; s < SETS; s++) {
        int n = make_set(tmp, s);
        for (int k = 0; k < PER; k++)
            x[s * PER + k] = tmp[k % n];
    }
    ari_modal one[SETS], many[SETS], *ptr[SETS];
    for (int s = 0; s < SETS; s++) {
        assert_int_equal(ari_modal_clusters(x + s * PER, PER, 0.01, &one[s], NULL), 0);
        ptr[s] = &many[s];
    }
    for (int threads = 0; threads <= 4; threads++) {
        assert_int_equal(ari_modal_clusters_many(x, PER, SETS, 0.01, threads, ptr, NULL), 0);
        for (int s = 0; s < SETS; s++) {
            assert_same_modal(&one[s], &many[s]);
            ari_modal_free(&many[s]);
        }
    }
    for (int s = 0; s < SETS; s++)
        ari_modal_free(&one[s]);
    free(x);
}

/* The lowest failing set's error is reported and every output freed. */
static void test_many_errors(void **state)
{
    (void)state;
    enum { SETS = 6, PER = 40 };
    double x[SETS * PER];
    for (int k = 0; k < SETS * PER; k++)
        x[k] = (k % 7) / 7.0;
    x[5 * PER + 2] = NAN;
    x[3 * PER + 10] = INFINITY;
    ari_modal out[SETS], *ptr[SETS];
    for (int s = 0; s < SETS; s++)
        ptr[s] = &out[s];
    for (int threads = 1; threads <= 3; threads++) {
        ari_error err = {{0}, {0}};
        assert_int_equal(ari_modal_clusters_many(x, PER, SETS, 0.05, threads, ptr, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        assert_non_null(strstr(err.message, "point 10 is not finite"));
        for (int s = 0; s < SETS; s++)
            assert_null(out[s].cluster);
    }
    ari_error err = {{0}, {0}};
    assert_int_equal(ari_modal_clusters_many(x, PER, 0, 0.05, 0, ptr, &err), 0);
    assert_int_equal(ari_modal_clusters_many(x, PER, -1, 0.05, 0, ptr, &err), -1);
    assert_int_equal(ari_modal_clusters_many(x, PER, 2, 0, 0, ptr, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
}

/* Working sizes other than R's default (their own FFT tables), and one
 * work area reused across sizes giving what fresh calls give. */
static void test_other_sizes_and_reuse(void **state)
{
    (void)state;
    static double x[MAXPTS];
    int n = make_set(x, 2);
    static const int sizes[] = {512, 1000, 4096, 600, 512, 3000};
    ari_kde_work w;
    ari_kde_work_init(&w);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        ari_kde fresh, reused;
        assert_int_equal(ari_kde_density(x, n, 0.01, sizes[i], 3, &fresh, NULL), 0);
        assert_int_equal(ari_kde_density_work(x, n, 0.01, sizes[i], 3, &w, &reused, NULL), 0);
        assert_int_equal(fresh.n, sizes[i]);
        assert_memory_equal(fresh.x, reused.x, (size_t)fresh.n * sizeof(double));
        assert_memory_equal(fresh.y, reused.y, (size_t)fresh.n * sizeof(double));
        double area = 0;
        for (int k = 1; k < fresh.n; k++)
            area += (fresh.x[k] - fresh.x[k - 1]) * (fresh.y[k] + fresh.y[k - 1]) / 2;
        assert_true(fabs(area - 1) < 0.01);
        ari_kde_free(&fresh);
        ari_kde_free(&reused);
    }
    ari_kde_work_free(&w);
}

/* A bandwidth below the values' resolution leaves no grid (R bins nothing
 * then): no crash, and every point still gets a cluster. */
static void test_degenerate_grid(void **state)
{
    (void)state;
    double x[] = {1e20, 1e20, 1e20};
    ari_modal m;
    assert_int_equal(ari_modal_clusters(x, 3, 1e-3, &m, NULL), 0);
    assert_int_equal(m.nclusters, 1);
    assert_int_equal(m.size[0], 3);
    assert_true(m.mean[0] == 1e20);
    ari_modal_free(&m);
    double wide[] = {-DBL_MAX, 0, DBL_MAX};
    assert_int_equal(ari_modal_clusters(wide, 3, 1, &m, NULL), 0);
    for (int k = 0; k < 3; k++)
        assert_true(m.cluster[k] >= 0 && m.cluster[k] < m.nclusters);
    ari_modal_free(&m);
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
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    static kcase cases[NCASES];
    for (int i = 0; i < NCASES; i++)
        make_case(&cases[i], i);
    char *dir = test_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/cases.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    write_cases(in, cases);
    FILE *f = test_run_r(dir, "kde.R", r_script, in, out);
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
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    rng_state = 88172645463325252ULL; /* the seed the expectations were made with */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_point_is_a_gaussian),
        cmocka_unit_test(test_symmetric_input_symmetric_density),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_minima_rule),
        cmocka_unit_test(test_two_groups_point_at_minimum),
        cmocka_unit_test(test_assignment_matches_search),
        cmocka_unit_test(test_many_matches_single),
        cmocka_unit_test(test_many_errors),
        cmocka_unit_test(test_other_sizes_and_reuse),
        cmocka_unit_test(test_degenerate_grid),
        cmocka_unit_test(test_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
