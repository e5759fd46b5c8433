/* test_ensemble_stats.c: per-node statistics across ensemble members
 * (src/analysis/ensemble_stats.c). When /usr/bin/Rscript exists, random
 * samples (with NAN gaps for absent members, ties, one and two values) are
 * checked against R 4: mean, median, min, max, sd and var (ddof = 1),
 * var * (n - 1) / n (ddof = 0) and quantile(type = 7) at 10/25/50/75/
 * 90/99, to 1e-12 relative. Always: a hand-checked sample, and the
 * statistics over a unified CCT whose members lack some nodes (left out,
 * with the count of members present). */
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

#include "analysis/ensemble_stats.h"
#include "test_helpers.h"
#include "util/fs.h"
#include "test_rng.h"

#define NCASES  40
#define MAXV    200
#define NPCT    6

static const double pcts[NPCT] = {10, 25, 50, 75, 90, 99};

static void test_hand_checked(void **state)
{
    (void)state;
    const double x[] = {4, NAN, 1, 3, 2, NAN};
    double scratch[6], pct[3];
    const double p[] = {25, 50, 75};
    ari_sample_stats s;
    ari_sample_stats_compute(x, 6, 1, p, 3, scratch, &s, pct);
    assert_int_equal(s.count, 4);
    assert_true(s.mean == 2.5 && s.median == 2.5 && s.min == 1 && s.max == 4);
    assert_true(fabs(s.variance - 5.0 / 3) < 1e-15);
    assert_true(pct[0] == 1.75 && pct[1] == 2.5 && pct[2] == 3.25);
    ari_sample_stats_compute(x, 6, 0, p, 3, scratch, &s, pct);
    assert_true(s.variance == 1.25);
    /* one value: no sample variance; none: everything NAN */
    ari_sample_stats_compute(x, 1, 1, p, 3, scratch, &s, pct);
    assert_true(s.count == 1 && s.mean == 4 && isnan(s.std) && pct[0] == 4);
    ari_sample_stats_compute(x + 1, 1, 1, p, 3, scratch, &s, pct);
    assert_true(s.count == 0 && isnan(s.mean) && isnan(s.min) && isnan(pct[1]));
}

typedef struct scase {
    int n;
    double x[MAXV];
} scase;

static void make_case(scase *c, int i)
{
    c->n = i < 3 ? i + 1 : 2 + (int)(rng_uniform() * (MAXV - 2));
    for (int k = 0; k < c->n; k++) {
        double u = rng_uniform();
        c->x[k] = u < 0.1 ? NAN : i % 4 == 0 ? (double)(int)(u * 5) : exp(3 * rng_uniform()) * 1e-3;
    }
}

static const char r_script[] =
    "args <- commandArgs(trailingOnly = TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "while (length(line <- readLines(con, n = 1)) > 0) {\n"
    "  x <- as.numeric(strsplit(line, ' ')[[1]]); x <- x[!is.na(x)]; n <- length(x)\n"
    "  if (n == 0) { writeLines(paste(c(0, rep('NaN', 13)), collapse = ' '), out); next }\n"
    "  v <- if (n > 1) var(x) else NaN\n"
    "  q <- quantile(x, c(0.10, 0.25, 0.50, 0.75, 0.90, 0.99), type = 7, names = FALSE)\n"
    "  r <- c(n, mean(x), median(x), min(x), max(x), sd(x), v, if (n > 1) v * (n - 1) / n else 0, q)\n"
    "  r[is.na(r)] <- NaN\n"
    "  writeLines(paste(sprintf('%.17g', r), collapse = ' '), out)\n"
    "}\n"
    "close(out)\n";

static void close_to(double got, double want, const char *what, int index)
{
    if (isnan(want) && isnan(got))
        return;
    if (!(fabs(got - want) <= 1e-12 * fabs(want) + 1e-300))
        fail_msg("case %d: %s = %.17g, R has %.17g", index, what, got, want);
}

static void compare_case(FILE *f, const scase *c, int index)
{
    double r[8 + NPCT], scratch[MAXV], pct[NPCT];
    for (int k = 0; k < 8 + NPCT; k++)
        assert_int_equal(fscanf(f, "%lf", &r[k]), 1);
    ari_sample_stats s, s0;
    ari_sample_stats_compute(c->x, c->n, 1, pcts, NPCT, scratch, &s, pct);
    ari_sample_stats_compute(c->x, c->n, 0, NULL, 0, scratch, &s0, NULL);
    assert_int_equal(s.count, (int)r[0]);
    const double got[] = {s.mean, s.median, s.min, s.max, s.std, s.variance, s0.variance};
    const char *names[] = {"mean", "median", "min", "max", "sd", "var", "var(ddof=0)"};
    for (int k = 0; k < 7; k++)
        close_to(got[k], r[1 + k], names[k], index);
    for (int q = 0; q < NPCT; q++)
        close_to(pct[q], r[8 + q], "quantile", index);
}

static void write_cases(const char *path, const scase *cases)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++) {
        for (int k = 0; k < cases[i].n; k++)
            fprintf(f, k ? " %.17g" : "%.17g", cases[i].x[k]);
        fputc('\n', f);
    }
    fclose(f);
}

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    static scase cases[NCASES];
    rng_state = 0xabcdef12345ULL;
    for (int i = 0; i < NCASES; i++)
        make_case(&cases[i], i);
    char *dir = test_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/cases.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    write_cases(in, cases);
    FILE *f = test_run_r(dir, "stats.R", r_script, in, out);
    assert_non_null(f);
    for (int i = 0; i < NCASES; i++)
        compare_case(f, &cases[i], i);
    fclose(f);
    ari_remove_tree(dir);
    free(dir);
}

/* ---- over a unified CCT ---- */

typedef struct mem {
    ari_cct c;
    int64_t parent[3];
    const char *name[3], *empty[3], *kind[3];
    int line[3], rank[2], thread[2];
    ari_cct_metric metric;
    double v[6];
    const double *values[1];
} mem;

/* root -> a [-> b]; two ranks; values given per (node, rank). */
static void make_member(mem *m, int nnodes, const double *v)
{
    memset(m, 0, sizeof *m);
    const char *names[] = {"root", "a", "b"};
    for (int i = 0; i < 3; i++) {
        m->parent[i] = i - 1;
        m->name[i] = names[i];
        m->empty[i] = "";
        m->kind[i] = "function";
    }
    m->rank[1] = 1;
    memcpy(m->v, v, sizeof m->v);
    m->metric = (ari_cct_metric){"time (inc)", "s", 1, -1};
    m->values[0] = m->v;
    m->c = (ari_cct){.nnodes = nnodes,
                     .parent = m->parent,
                     .name = m->name,
                     .module = m->empty,
                     .file = m->empty,
                     .line = m->line,
                     .kind = m->kind,
                     .nprocs = 2,
                     .proc_rank = m->rank,
                     .proc_thread = m->thread,
                     .nmetrics = 1,
                     .metrics = &m->metric,
                     .values = m->values};
}

static void test_over_ensemble(void **state)
{
    (void)state;
    static mem ms[3];
    const double v0[] = {10, 12, 4, 6, 1, 1}, v1[] = {20, 20, 8, 8, 0, 0}, v2[] = {14, NAN, 6, NAN, 2, 4};
    make_member(&ms[0], 3, v0);
    make_member(&ms[1], 2, v1); /* no b */
    make_member(&ms[2], 3, v2); /* rank 1 unmeasured: node value = rank 0's */
    const ari_cct *members[] = {&ms[0].c, &ms[1].c, &ms[2].c};
    ari_ecct e;
    ari_error err = {0};
    assert_int_equal(ari_ecct_build(members, 3, &e, &err), 0);
    ari_estats s;
    const double p[] = {50};
    assert_int_equal(ari_estats_compute(&e, 0, 1, p, 1, &s, &err), 0);
    /* root: 11, 20, 14 */
    assert_true(s.stats[0].count == 3 && s.present[0] == 3);
    assert_true(s.stats[0].mean == 15 && s.stats[0].median == 14 && s.pct[0] == 14);
    assert_true(s.stats[0].min == 11 && s.stats[0].max == 20);
    assert_true(fabs(s.stats[0].variance - 21) < 1e-12);
    /* b: 1 and 3 (member 1 left out, not counted as 0) */
    assert_true(s.present[2] == 2 && s.stats[2].count == 2 && s.stats[2].mean == 2 && s.stats[2].min == 1);
    assert_true(isnan(s.values[2 * 3 + 1]));
    assert_true(s.values[2 * 3 + 2] == 3);
    ari_estats_free(&s);
    assert_int_equal(ari_estats_compute(&e, 0, 2, p, 1, &s, &err), -1);
    const double bad[] = {101};
    assert_int_equal(ari_estats_compute(&e, 0, 1, bad, 1, &s, &err), -1);
    assert_int_equal(ari_estats_compute(&e, 5, 1, p, 1, &s, &err), -1);
    ari_ecct_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_checked),
        cmocka_unit_test(test_agrees_with_r),
        cmocka_unit_test(test_over_ensemble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
