/* test_hclust.c: complete-linkage clustering (src/analysis/hclust.c).
 * When R is there, on every metric of the ROSS sample
 * (ARIADNE_SHARED_DATA/ross-sample; generated matrices when it is absent)
 * with the Euclidean distance matrix, on a DTW matrix, and on integer
 * distances full of ties, R's hclust(as.dist(D), "complete") gives the same
 * merge matrix, the same heights (1e-15 relative), the same order, and
 * cutree(., k) the same clusters for k = 2, 3, 5. Independently of R, on
 * small random matrices: the heights equal a naive O(n^3) agglomeration
 * (recomputing the largest pairwise distance between clusters), the merge
 * matrix is well formed and the order is a permutation matching it. */
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

#include "analysis/hclust.h"
#include "analysis/ts_distance.h"
#include "test_helpers.h"
#include "test_ross_sample.h"
#include "util/fs.h"

#define MAX_CASES 16

static const int cut_ks[] = {2, 3, 5};
#define NCUTS 3

typedef struct hcase {
    char name[160];
    int n;
    double *d;
} hcase;

static const char r_script[] =
    "args <- commandArgs(TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "w <- function(v) writeLines(sprintf('%.17g', v), out)\n"
    "repeat {\n"
    "  h <- scan(con, what = integer(), n = 2, quiet = TRUE)\n"
    "  if (length(h) < 2) break\n"
    "  D <- matrix(scan(con, n = h[1] * h[2], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  t <- hclust(as.dist(D), method = 'complete')\n"
    "  w(t(t$merge)); w(t$height); w(t$order)\n"
    "  for (k in c(2, 3, 5)) w(cutree(t, k))\n"
    "}\n"
    "close(out)\n";

static void read_ints(FILE *r, int *out, int count)
{
    double *v = malloc((size_t)count * sizeof *v);
    assert_int_equal(ross_read_doubles(r, v, count), 0);
    for (int i = 0; i < count; i++)
        out[i] = (int)v[i];
    free(v);
}

static void check_case(const hcase *c, FILE *r)
{
    int n = c->n;
    ari_error err = {0};
    ari_hclust_result *h = ari_hclust_complete(c->d, n, &err);
    assert_non_null(h);
    int *merge = malloc((size_t)2 * n * sizeof *merge), *order = malloc((size_t)n * sizeof *order);
    int *cut = malloc((size_t)n * sizeof *cut), *mine = malloc((size_t)n * sizeof *mine);
    double *height = malloc((size_t)n * sizeof *height);
    read_ints(r, merge, 2 * (n - 1));
    assert_int_equal(ross_read_doubles(r, height, n - 1), 0);
    read_ints(r, order, n);
    double worst = 0;
    for (int s = 0; s < n - 1; s++)
        worst = fmax(worst, fabs(h->height[s] - height[s]) / fmax(1e-300, height[s]));
    int merges_equal = memcmp(merge, h->merge, (size_t)2 * (n - 1) * sizeof *merge) == 0;
    int orders_equal = 1;
    for (int i = 0; i < n; i++)
        orders_equal &= h->order[i] + 1 == order[i];
    fprintf(stderr, "%s: n %d, merge %s, order %s, heights max rel diff %.2g, top height %.10g\n", c->name, n,
            merges_equal ? "equal" : "DIFFERENT", orders_equal ? "equal" : "DIFFERENT", worst, h->height[n - 2]);
    assert_true(merges_equal && orders_equal);
    assert_true(worst <= 1e-15);
    for (int q = 0; q < NCUTS; q++) {
        read_ints(r, cut, n);
        assert_int_equal(ari_hclust_cut(h, cut_ks[q], mine, &err), 0);
        for (int i = 0; i < n; i++)
            assert_int_equal(mine[i] + 1, cut[i]);
    }
    ari_hclust_free(h);
    free(merge);
    free(order);
    free(cut);
    free(mine);
    free(height);
}

static void test_vs_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms), ncases = 0;
    hcase cases[MAX_CASES];
    for (int m = 0; m < count; m++) {
        snprintf(cases[ncases].name, sizeof cases[ncases].name, "%.60s euclid", ms[m].name);
        cases[ncases].n = ms[m].n;
        cases[ncases++].d = ross_distances(&ms[m], ARI_TS_EUCLID, ARI_DTW_SYMMETRIC1, NULL);
    }
    snprintf(cases[ncases].name, sizeof cases[ncases].name, "%.60s dtw symmetric1", ms[count - 1].name);
    cases[ncases].n = ms[count - 1].n;
    cases[ncases++].d = ross_distances(&ms[count - 1], ARI_TS_DTW, ARI_DTW_SYMMETRIC1, NULL);
    snprintf(cases[ncases].name, sizeof cases[ncases].name, "integer distances (ties)");
    cases[ncases].n = 60;
    cases[ncases++].d = ross_tie_matrix(60, 0x71e5ULL, 6);

    ross_r rx;
    FILE *f = ross_r_open(&rx);
    for (int i = 0; i < ncases; i++)
        ross_write_matrix(f, cases[i].d, cases[i].n, cases[i].n);
    FILE *r = ross_r_run(&rx, "hclust.R", r_script);
    assert_non_null(r);
    for (int i = 0; i < ncases; i++)
        check_case(&cases[i], r);
    for (int i = 0; i < ncases; i++)
        free(cases[i].d);
    ross_free(ms, count);
    ross_r_close(&rx, r);
}

/* Naive complete linkage: the sorted merge heights. */
static void naive_heights(const double *d, int n, double *heights)
{
    int *cl = malloc((size_t)n * sizeof *cl);
    for (int i = 0; i < n; i++)
        cl[i] = i;
    for (int s = 0; s < n - 1; s++) {
        double best = INFINITY;
        int ba = -1, bb = -1;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++) {
                if (cl[a] != a || cl[b] != b)
                    continue; /* a, b: cluster labels (their lowest member) */
                double mx = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        if (cl[i] == a && cl[j] == b && d[i * n + j] > mx)
                            mx = d[i * n + j];
                if (mx < best) {
                    best = mx;
                    ba = a;
                    bb = b;
                }
            }
        for (int i = 0; i < n; i++)
            if (cl[i] == bb)
                cl[i] = ba;
        heights[s] = best;
    }
    free(cl);
}

static void test_naive_and_structure(void **state)
{
    (void)state;
    rng_state = 2718;
    for (int trial = 0; trial < 40; trial++) {
        int n = 2 + trial % 14;
        double *x = malloc((size_t)n * 3 * sizeof *x), *d = malloc((size_t)n * n * sizeof *d);
        double *want = malloc((size_t)n * sizeof *want);
        for (int i = 0; i < 3 * n; i++)
            x[i] = rng_uniform();
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                d[i * n + j] = ari_ts_euclid(x + 3 * i, x + 3 * j, 3);
        ari_error err = {0};
        ari_hclust_result *h = ari_hclust_complete(d, n, &err);
        assert_non_null(h);
        naive_heights(d, n, want);
        int *seen = calloc((size_t)n, sizeof *seen), *used = calloc((size_t)n, sizeof *used);
        for (int s = 0; s < n - 1; s++) {
            assert_true(h->height[s] == want[s]);
            for (int q = 0; q < 2; q++) {
                int e = h->merge[2 * s + q];
                assert_true(e != 0 && e >= -n && e <= s); /* a cluster is used after it is formed */
                if (e < 0)
                    assert_int_equal(seen[-e - 1]++, 0);
                else
                    assert_int_equal(used[e - 1]++, 0);
            }
        }
        memset(seen, 0, (size_t)n * sizeof *seen);
        for (int i = 0; i < n; i++)
            assert_int_equal(seen[h->order[i]]++, 0);
        int labels[16];
        assert_int_equal(ari_hclust_cut(h, 1, labels, &err), 0);
        for (int i = 0; i < n; i++)
            assert_int_equal(labels[i], 0);
        assert_int_equal(ari_hclust_cut(h, n, labels, &err), 0);
        for (int i = 0; i < n; i++)
            assert_int_equal(labels[i], i);
        assert_int_equal(ari_hclust_cut(h, n + 1, labels, &err), -1);
        ari_hclust_free(h);
        free(seen);
        free(used);
        free(x);
        free(d);
        free(want);
    }
    double one = 0;
    ari_error err = {0};
    ari_hclust_result *h = ari_hclust_complete(&one, 1, &err);
    assert_non_null(h);
    assert_int_equal(h->order[0], 0);
    ari_hclust_free(h);
    double bad[4] = {0, NAN, NAN, 0};
    assert_null(ari_hclust_complete(bad, 2, &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_r),
        cmocka_unit_test(test_naive_and_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
