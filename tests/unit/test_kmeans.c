/* test_kmeans.c: the seeded k-means (src/analysis/kmeans.c). On
 * well-separated data of n <= 8 points the partition equals the best one
 * found by brute force over every assignment of the points to k labels
 * (least within-cluster sum of squares); the same seed gives the same
 * labels; labels are numbered by first appearance; k is clamped to the
 * distinct points. When /usr/bin/Rscript exists, R 4's
 * kmeans(X, k, nstart = 25) on well-separated random blobs gives the same
 * partition (compared as a partition: same-cluster pairs agree). */
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

#include "analysis/kmeans.h"
#include "test_helpers.h"
#include "util/fs.h"
#include "test_rng.h"

#define NR      60

static double wcss(const double *x, int n, int d, const int *lab, int k)
{
    double s = 0;
    for (int m = 0; m < k; m++) {
        double mean[4] = {0};
        int cnt = 0;
        for (int i = 0; i < n; i++)
            if (lab[i] == m) {
                cnt++;
                for (int j = 0; j < d; j++)
                    mean[j] += x[i * d + j];
            }
        for (int i = 0; cnt && i < n; i++)
            for (int j = 0; lab[i] == m && j < d; j++)
                s += pow(x[i * d + j] - mean[j] / cnt, 2);
    }
    return s;
}

/* 1 when a and b put the same pairs together. */
static int same_partition(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if ((a[i] == a[j]) != (b[i] == b[j]))
                return 0;
    return 1;
}

/* The least-WCSS assignment of n points to k labels, every label used. */
static double brute_force(const double *x, int n, int d, int k, int *best)
{
    int lab[8] = {0};
    double bw = INFINITY;
    long total = 1;
    for (int i = 0; i < n; i++)
        total *= k;
    for (long code = 0; code < total; code++) {
        long c = code;
        int used = 0;
        for (int i = 0; i < n; i++, c /= k) {
            lab[i] = (int)(c % k);
            used |= 1 << lab[i];
        }
        double w = wcss(x, n, d, lab, k);
        if (used == (1 << k) - 1 && w < bw) {
            bw = w;
            memcpy(best, lab, (size_t)n * sizeof *lab);
        }
    }
    return bw;
}

static void test_brute_force(void **state)
{
    (void)state;
    rng_state = 0xb0a7ULL;
    for (int t = 0; t < 20; t++) {
        int n = 4 + t % 5, k = 2 + t % 3, d = 2;
        double x[16];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < d; j++)
                x[i * d + j] = 10.0 * ((i % k) * (j + 1)) + rng_uniform();
        int got[8], want[8];
        ari_kmeans_result res;
        ari_error err = {0};
        assert_int_equal(ari_kmeans(x, n, d, k, 42 + (uint64_t)t, got, &res, &err), 0);
        double bw = brute_force(x, n, d, k, want);
        if (!same_partition(got, want, n))
            fail_msg("case %d (n %d, k %d): partition differs from brute force", t, n, k);
        assert_true(fabs(res.wcss - bw) < 1e-9 * (1 + bw) && res.k_used == k);
    }
}

static void test_determinism_and_labels(void **state)
{
    (void)state;
    const double x[] = {5, 5, 0, 0, 5.1, 5, 0.1, 0, 10, 0, 10.1, 0.1};
    int a[6], b[6];
    ari_kmeans_result ra, rb;
    ari_error err = {0};
    assert_int_equal(ari_kmeans(x, 6, 2, 3, 7, a, &ra, &err), 0);
    assert_int_equal(ari_kmeans(x, 6, 2, 3, 7, b, &rb, &err), 0);
    assert_memory_equal(a, b, sizeof a);
    const int want[] = {0, 1, 0, 1, 2, 2};
    assert_memory_equal(a, want, sizeof want);
    /* k clamped to the distinct points */
    const double dup[] = {1, 1, 1, 1, 2, 2};
    assert_int_equal(ari_kmeans(dup, 3, 2, 3, 1, a, &ra, &err), 0);
    assert_int_equal(ra.k_used, 2);
    assert_true(a[0] == 0 && a[1] == 0 && a[2] == 1 && ra.wcss == 0);
}

static const char r_script[] = "args <- commandArgs(TRUE)\n"
                               "X <- as.matrix(read.table(args[1]))\n"
                               "set.seed(1)\n"
                               "m <- kmeans(X, 4, nstart = 25)\n"
                               "writeLines(as.character(m$cluster), args[2])\n";

static void test_agrees_with_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    double x[NR * 3];
    rng_state = 0x6b6d65616e73ULL;
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < 3; j++)
            x[i * 3 + j] = 4.0 * ((i % 4) == j) + ((i % 4) == 3 ? -4 : 0) + rng_uniform();
    char *dir = test_tmpdir();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/x.txt", dir);
    snprintf(out, sizeof out, "%s/r.txt", dir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (int i = 0; i < NR; i++)
        fprintf(f, "%.17g %.17g %.17g\n", x[i * 3], x[i * 3 + 1], x[i * 3 + 2]);
    fclose(f);
    int r[NR], got[NR];
    f = test_run_r(dir, "km.R", r_script, in, out);
    assert_non_null(f);
    for (int i = 0; i < NR; i++)
        assert_int_equal(fscanf(f, "%d", &r[i]), 1);
    fclose(f);
    ari_kmeans_result res;
    ari_error err = {0};
    assert_int_equal(ari_kmeans(x, NR, 3, 4, 20150101, got, &res, &err), 0);
    assert_true(same_partition(got, r, NR));
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_determinism_and_labels),
        cmocka_unit_test(test_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
