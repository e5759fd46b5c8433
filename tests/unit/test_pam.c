/* test_pam.c: k-medoids BUILD + SWAP (src/analysis/pam.c). When R is
 * there, on every metric of the ROSS sample (ARIADNE_SHARED_DATA/ross-sample;
 * generated matrices of the same shape when it is absent) with the
 * Euclidean distance matrix (and DTW symmetric2 and TWED on LastGvt for the
 * first metrics), k = 3 and 5, cluster::pam(as.dist(D), k) gives the same
 * medoids in the same cluster order, the same clustering and the same
 * objective (build and swap, 1e-12 relative); the same on a small matrix of
 * integer distances full of ties. Independently of R: the result is a
 * local optimum (no swap of a medoid for a non-medoid lowers the total
 * distance, checked by brute force), each point is with its nearest
 * medoid, and bad arguments are refused. */
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

#include "analysis/pam.h"
#include "analysis/ts_distance.h"
#include "test_helpers.h"
#include "test_ross_sample.h"
#include "util/fs.h"

#define MAX_CASES 64

typedef struct pcase {
    char name[160];
    int n, k;
    double *d;
} pcase;

static double total_cost(const double *d, int n, const unsigned char *med)
{
    double s = 0;
    for (int j = 0; j < n; j++) {
        double best = INFINITY;
        for (int i = 0; i < n; i++)
            if (med[i] && d[(size_t)i * n + j] < best)
                best = d[(size_t)i * n + j];
        s += best;
    }
    return s;
}

/* Brute force: no single swap lowers the total; labels are nearest medoids. */
static void assert_pam_local_optimum(const double *d, int n, const ari_pam_result *r)
{
    unsigned char *med = calloc((size_t)n, 1);
    for (int c = 0; c < r->k; c++)
        med[r->medoids[c]] = 1;
    double cost = total_cost(d, n, med);
    assert_true(fabs(cost / n - r->objective_swap) <= 1e-9 * fmax(1, cost / n));
    for (int i = 0; i < n; i++) {
        if (!med[i])
            continue;
        for (int h = 0; h < n; h++) {
            if (med[h])
                continue;
            med[i] = 0;
            med[h] = 1;
            assert_true(total_cost(d, n, med) >= cost * (1 - 1e-12));
            med[h] = 0;
            med[i] = 1;
        }
    }
    for (int j = 0; j < n; j++) {
        double mine = d[(size_t)r->medoids[r->labels[j]] * n + j];
        for (int c = 0; c < r->k; c++)
            assert_true(mine <= d[(size_t)r->medoids[c] * n + j]);
    }
    free(med);
}

static const char r_script[] =
    "suppressMessages(library(cluster))\n"
    "args <- commandArgs(TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "w <- function(v) writeLines(sprintf('%.17g', v), out)\n"
    "repeat {\n"
    "  k <- scan(con, what = integer(), n = 1, quiet = TRUE)\n"
    "  if (length(k) < 1) break\n"
    "  h <- scan(con, what = integer(), n = 2, quiet = TRUE)\n"
    "  D <- matrix(scan(con, n = h[1] * h[2], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  p <- pam(as.dist(D), k, diss = TRUE)\n"
    "  w(p$id.med); w(p$clustering); w(p$objective)\n"
    "}\n"
    "close(out)\n";

/* Two cases (k = 3 and 5) on one matrix, which the first one owns. */
static int add_cases(pcase *cases, int count, const char *name, int n, double *d)
{
    const int ks[] = {3, 5};
    for (int q = 0; q < 2; q++) {
        pcase *c = &cases[count++];
        snprintf(c->name, sizeof c->name, "%s", name);
        c->n = n;
        c->k = ks[q];
        c->d = d;
    }
    return count;
}

static void check_case(const pcase *c, FILE *r)
{
    ari_error err = {0};
    ari_pam_result *res = ari_pam(c->d, c->n, c->k, &err);
    assert_non_null(res);
    double *med = malloc((size_t)c->k * sizeof *med), *lab = malloc((size_t)c->n * sizeof *lab), obj[2];
    assert_int_equal(ross_read_doubles(r, med, c->k), 0);
    assert_int_equal(ross_read_doubles(r, lab, c->n), 0);
    assert_int_equal(ross_read_doubles(r, obj, 2), 0);
    fprintf(stderr, "%s k=%d: medoids", c->name, c->k);
    for (int q = 0; q < c->k; q++)
        fprintf(stderr, " %d", res->medoids[q] + 1);
    fprintf(stderr, " (R");
    for (int q = 0; q < c->k; q++)
        fprintf(stderr, " %g", med[q]);
    fprintf(stderr, "), objective %.10g / %.10g (R %.10g / %.10g), %d swaps\n", res->objective_build,
            res->objective_swap, obj[0], obj[1], res->swaps);
    for (int q = 0; q < c->k; q++)
        assert_int_equal(res->medoids[q] + 1, (int)med[q]);
    for (int i = 0; i < c->n; i++)
        assert_int_equal(res->labels[i] + 1, (int)lab[i]);
    assert_true(fabs(res->objective_build - obj[0]) <= 1e-12 * fmax(1, obj[0]));
    assert_true(fabs(res->objective_swap - obj[1]) <= 1e-12 * fmax(1, obj[1]));
    assert_pam_local_optimum(c->d, c->n, res);
    ari_pam_free(res);
    free(med);
    free(lab);
}

static void test_vs_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms), ncases = 0;
    pcase cases[MAX_CASES];
    char label[160];
    for (int m = 0; m < count; m++) {
        snprintf(label, sizeof label, "%.60s euclid", ms[m].name);
        ncases = add_cases(cases, ncases, label, ms[m].n,
                           ross_distances(&ms[m], ARI_TS_EUCLID, ARI_DTW_SYMMETRIC2, ms[m].time));
    }
    snprintf(label, sizeof label, "%.60s dtw symmetric2", ms[0].name);
    ncases = add_cases(cases, ncases, label, ms[0].n,
                       ross_distances(&ms[0], ARI_TS_DTW, ARI_DTW_SYMMETRIC2, ms[0].time));
    snprintf(label, sizeof label, "%.60s twed", ms[1].name);
    ncases = add_cases(cases, ncases, label, ms[1].n,
                       ross_distances(&ms[1], ARI_TS_TWED, ARI_DTW_SYMMETRIC2, ms[1].time));
    ncases = add_cases(cases, ncases, "integer distances (ties)", 40, ross_tie_matrix(40, 0x7a11e5ULL, 5));

    ross_r rx;
    FILE *f = ross_r_open(&rx);
    for (int i = 0; i < ncases; i++) {
        fprintf(f, "%d\n", cases[i].k);
        ross_write_matrix(f, cases[i].d, cases[i].n, cases[i].n);
    }
    FILE *r = ross_r_run(&rx, "pam.R", r_script);
    assert_non_null(r);
    for (int i = 0; i < ncases; i++)
        check_case(&cases[i], r);
    for (int i = 0; i < ncases; i += 2)
        free(cases[i].d);
    ross_free(ms, count);
    ross_r_close(&rx, r);
}

static void test_small_and_errors(void **state)
{
    (void)state;
    /* two obvious groups on a line: 0,1,2 and 10,11 */
    const double pts[] = {0, 1, 2, 10, 11};
    double d[25];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            d[i * 5 + j] = fabs(pts[i] - pts[j]);
    ari_error err = {0};
    ari_pam_result *r = ari_pam(d, 5, 2, &err);
    assert_non_null(r);
    assert_int_equal(r->medoids[0], 1);
    assert_true(r->medoids[1] == 3 || r->medoids[1] == 4);
    const int want[] = {0, 0, 0, 1, 1};
    assert_memory_equal(r->labels, want, sizeof want);
    assert_true(fabs(r->objective_swap - 3.0 / 5) < 1e-15);
    ari_pam_free(r);
    r = ari_pam(d, 5, 1, &err);
    assert_non_null(r);
    assert_int_equal(r->medoids[0], 2);
    assert_int_equal(r->swaps, 0);
    ari_pam_free(r);
    assert_null(ari_pam(d, 5, 5, &err));
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_null(ari_pam(d, 5, 0, &err));
    d[3] = -1;
    assert_null(ari_pam(d, 5, 2, &err));
    /* random small matrices: local optimum by brute force */
    rng_state = 31337;
    for (int trial = 0; trial < 30; trial++) {
        int n = 6 + trial % 10, k = 2 + trial % 3;
        double *x = malloc((size_t)n * 2 * sizeof *x), *dd = malloc((size_t)n * n * sizeof *dd);
        for (int i = 0; i < 2 * n; i++)
            x[i] = rng_uniform();
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                dd[i * n + j] = hypot(x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]);
        r = ari_pam(dd, n, k, &err);
        assert_non_null(r);
        assert_pam_local_optimum(dd, n, r);
        ari_pam_free(r);
        free(x);
        free(dd);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_r),
        cmocka_unit_test(test_small_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
