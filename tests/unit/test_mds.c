/* test_mds.c: classical MDS and min-max scaling (src/analysis/mds.c).
 * Points on a line come back on axis 1 with all the variance; a square's
 * four corners give two axes of equal share; min-max scaling maps every
 * column to [0, 1] and a constant column to 0. When /usr/bin/Rscript
 * exists, random feature matrices are compared with R 4's
 * cmdscale(dist(X), k = 2, eig = TRUE): coordinates equal up to the sign
 * of each axis (1e-9), explained shares = eig[1:2] / sum(pmax(eig, 0)).
 * The same for ari_cmdscale (analysis/cmdscale.c) on the Manhattan
 * distances of the same points (not Euclidean: negative eigenvalues), as
 * the projection of DTW or TWED distances uses it. */
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

#include "analysis/cmdscale.h"
#include "analysis/mds.h"
#include "test_helpers.h"
#include "util/fs.h"
#include "test_rng.h"

#define NCASES  6
#define MAXN    15
#define MAXP    6

static void test_line(void **state)
{
    (void)state;
    const double x[] = {0, 0, 1, 2, 3, 6}; /* (0,0) (1,2) (3,6) on y = 2x */
    double c[6], ex[2];
    ari_error err = {0};
    assert_int_equal(ari_mds_classical(x, 3, 2, 2, c, ex, &err), 0);
    assert_true(fabs(ex[0] - 1) < 1e-12 && ex[1] == 0);
    /* distances along the line are kept: |c0 - c2| = |(3,6)| */
    assert_true(fabs(fabs(c[0] - c[4]) - sqrt(45)) < 1e-9);
    assert_true(c[1] == 0 && c[3] == 0 && c[5] == 0);
    /* the largest-magnitude coordinate is positive */
    assert_true(c[4] > 0);
}

static void test_square_and_small(void **state)
{
    (void)state;
    const double x[] = {0, 0, 1, 0, 0, 1, 1, 1};
    double c[8], ex[2];
    ari_error err = {0};
    assert_int_equal(ari_mds_classical(x, 4, 2, 2, c, ex, &err), 0);
    assert_true(fabs(ex[0] - 0.5) < 1e-12 && fabs(ex[1] - 0.5) < 1e-12);
    assert_int_equal(ari_mds_classical(x, 1, 2, 2, c, ex, &err), 0);
    assert_true(c[0] == 0 && c[1] == 0 && ex[0] == 0);
    const double bad[] = {0, NAN};
    assert_int_equal(ari_mds_classical(bad, 1, 2, 2, c, ex, &err), -1);
    assert_string_equal(err.code, "invalid_input");
}

static void test_minmax(void **state)
{
    (void)state;
    double x[] = {1, 5, 10, 3, 5, 20, 2, 5, 15};
    ari_minmax_scale(x, 3, 3);
    const double want[] = {0, 0, 0, 1, 0, 1, 0.5, 0, 0.5};
    for (int i = 0; i < 9; i++)
        assert_true(fabs(x[i] - want[i]) < 1e-15);
}

static const char r_script[] =
    "args <- commandArgs(TRUE)\n"
    "lines <- readLines(args[1])\n"
    "out <- file(args[2], 'w')\n"
    "for (ln in lines) {\n"
    "  v <- as.numeric(strsplit(ln, ' ')[[1]])\n"
    "  n <- v[1]; p <- v[2]\n"
    "  X <- matrix(v[-(1:2)], nrow = n, ncol = p, byrow = TRUE)\n"
    "  for (how in c('euclidean', 'manhattan')) {\n"
    "    m <- cmdscale(dist(X, method = how), k = 2, eig = TRUE)\n"
    "    ex <- m$eig[1:2] / sum(pmax(m$eig, 0))\n"
    "    writeLines(paste(sprintf('%.17g', c(t(m$points), ex)), collapse = ' '), out)\n"
    "  }\n"
    "}\n"
    "close(out)\n";

typedef struct mcase {
    int n, p;
    double x[MAXN * MAXP];
} mcase;

static void make_case(mcase *m, int i)
{
    m->n = 5 + 2 * i;
    m->p = 2 + i % 5;
    for (int k = 0; k < m->n * m->p; k++)
        m->x[k] = rng_uniform() * (1 + i);
}

/* The Manhattan distances of the case's points (row-major n x n). */
static void manhattan(const mcase *m, double *d)
{
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++) {
            double s = 0;
            for (int k = 0; k < m->p; k++)
                s += fabs(m->x[i * m->p + k] - m->x[j * m->p + k]);
            d[i * m->n + j] = s;
        }
}

/* One line of R's answer against coordinates c and shares ex. */
static void compare_line(FILE *f, const mcase *m, int index, const double *c, const double *ex)
{
    double r[MAXN * 2 + 2];
    for (int k = 0; k < 2 * m->n + 2; k++)
        assert_int_equal(fscanf(f, "%lf", &r[k]), 1);
    for (int axis = 0; axis < 2; axis++) {
        int big = 0;
        for (int i = 1; i < m->n; i++)
            if (fabs(r[i * 2 + axis]) > fabs(r[big * 2 + axis]))
                big = i;
        double sign = c[big * 2 + axis] * r[big * 2 + axis] < 0 ? -1 : 1;
        for (int i = 0; i < m->n; i++)
            if (fabs(c[i * 2 + axis] - sign * r[i * 2 + axis]) > 1e-9)
                fail_msg("case %d point %d axis %d: %.17g, R has %.17g", index, i, axis, c[i * 2 + axis],
                         sign * r[i * 2 + axis]);
        if (fabs(ex[axis] - r[2 * m->n + axis]) > 1e-9)
            fail_msg("case %d axis %d: explained %.17g, R has %.17g", index, axis, ex[axis],
                     r[2 * m->n + axis]);
    }
}

static void compare_case(FILE *f, const mcase *m, int index)
{
    double c[MAXN * 2], ex[2], d[MAXN * MAXN];
    ari_error err = {0};
    assert_int_equal(ari_mds_classical(m->x, m->n, m->p, 2, c, ex, &err), 0);
    compare_line(f, m, index, c, ex);
    manhattan(m, d);
    assert_int_equal(ari_cmdscale(d, m->n, 2, c, ex, &err), 0);
    compare_line(f, m, index, c, ex);
}

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    static mcase cases[NCASES];
    rng_state = 0x3d5ca1eULL;
    char *dir = test_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/cases.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++) {
        make_case(&cases[i], i);
        fprintf(f, "%d %d", cases[i].n, cases[i].p);
        for (int k = 0; k < cases[i].n * cases[i].p; k++)
            fprintf(f, " %.17g", cases[i].x[k]);
        fputc('\n', f);
    }
    fclose(f);
    f = test_run_r(dir, "mds.R", r_script, in, out);
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++)
        compare_case(f, &cases[i], i);
    fclose(f);
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_square_and_small),
        cmocka_unit_test(test_minmax),
        cmocka_unit_test(test_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
