/* test_progressive_kmeans.c: progressive mini-batch k-means with
 * consistent labels (src/analysis/progressive_kmeans.c).
 * With an unlimited budget the partition equals full k-means
 * (analysis/kmeans.h: Lloyd from k-means++, 10 restarts; and R's
 * kmeans(x, centers = the progressive centres, algorithm = "Lloyd"), which
 * must not move) on separable blobs and on every ROSS metric (k = 3); the
 * same X fed twice gives identical labels; a column appended to separable
 * data keeps every label; a tiny budget processes fewer than n; the order
 * is a round-robin over the previous clusters. */
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
#include "analysis/progressive_kmeans.h"
#include "test_ross_sample.h"

/* n points in k separated blobs of d dims (blob of i = i % k), row-major;
 * d columns of which the last `extra` are filled too. */
static double *blobs(size_t n, size_t d, int k, uint64_t seed)
{
    double *x = malloc(n * d * sizeof *x);
    assert_non_null(x);
    rng_state = seed;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            x[i * d + j] = 20.0 * (double)(i % (size_t)k) * (j % 2 ? 1 : -1) + rng_uniform();
    return x;
}

static void check_result(const ari_pkm_result *r, size_t n, int k)
{
    assert_int_equal(r->n, n);
    assert_int_equal(r->k, k);
    size_t total = 0;
    for (int c = 0; c < k; c++)
        total += r->sizes[c];
    assert_int_equal(total, n);
    for (size_t i = 0; i < n; i++)
        assert_true(r->labels[i] >= 0 && r->labels[i] < k);
}

static void test_separable_unlimited(void **state)
{
    (void)state;
    size_t n = 90, d = 6;
    double *x = blobs(n, d, 3, 42);
    ari_pkm *s = ari_pkm_new(3, 7);
    ari_pkm_result r;
    ari_error err = {0};
    assert_int_equal(ari_pkm_step(s, x, n, d, 0, &r, &err), 0);
    check_result(&r, n, 3);
    assert_int_equal(r.processed, n);
    int *ref = malloc(n * sizeof *ref), *blob = malloc(n * sizeof *blob);
    ari_kmeans_result kr;
    assert_int_equal(ari_kmeans(x, (int)n, (int)d, 3, 1, ref, &kr, &err), 0);
    for (size_t i = 0; i < n; i++)
        blob[i] = (int)(i % 3);
    assert_true(same_partition(r.labels, ref, (int)n));
    assert_true(same_partition(r.labels, blob, (int)n));
    /* the same X again: identical labels (limited budget too) */
    ari_pkm_result r2;
    assert_int_equal(ari_pkm_step(s, x, n, d, 0, &r2, &err), 0);
    assert_memory_equal(r.labels, r2.labels, n * sizeof *r.labels);
    ari_pkm_result_free(&r2);
    assert_int_equal(ari_pkm_step(s, x, n, d, 1000, &r2, &err), 0);
    assert_memory_equal(r.labels, r2.labels, n * sizeof *r.labels);
    ari_pkm_result_free(&r2);
    /* a column appended (each entity's series grows by one point) */
    double *y = malloc(n * (d + 1) * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        memcpy(&y[i * (d + 1)], &x[i * d], d * sizeof *y);
        y[i * (d + 1) + d] = 30.0 * (double)(i % 3) + rng_uniform();
    }
    assert_int_equal(ari_pkm_step(s, y, n, d + 1, 0, &r2, &err), 0);
    assert_int_equal(r2.d, d + 1);
    assert_memory_equal(r.labels, r2.labels, n * sizeof *r.labels);
    ari_pkm_result_free(&r2);
    /* a new entity (n grows): the old ones keep their labels */
    double *z = malloc((n + 1) * d * sizeof *z);
    memcpy(z, x, n * d * sizeof *z);
    memcpy(&z[n * d], x, d * sizeof *z); /* a copy of entity 0 */
    assert_int_equal(ari_pkm_step(s, z, n + 1, d, 0, &r2, &err), 0);
    assert_memory_equal(r.labels, r2.labels, n * sizeof *r.labels);
    assert_int_equal(r2.labels[n], r.labels[0]);
    ari_pkm_result_free(&r2);
    ari_pkm_result_free(&r);
    ari_pkm_free(s);
    free(x);
    free(y);
    free(z);
    free(ref);
    free(blob);
}

static void test_budget_and_order(void **state)
{
    (void)state;
    size_t n = 20000, d = 64;
    double *x = blobs(n, d, 3, 9);
    ari_pkm *s = ari_pkm_new(3, 1);
    ari_pkm_result r;
    ari_error err = {0};
    assert_int_equal(ari_pkm_step(s, x, n, d, 0, &r, &err), 0); /* unlimited: the blobs */
    check_result(&r, n, 3);
    assert_int_equal(r.processed, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(r.labels[i], r.labels[i % 3]);
    /* the order of that step: a permutation; the next step's is a round-robin
     * over the clusters (one of each cluster per turn, largest first) */
    size_t *order = malloc(n * sizeof *order);
    char *seen = calloc(n, 1);
    assert_int_equal(ari_pkm_order(s, n, order), 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(order[i] < n && !seen[order[i]]);
        seen[order[i]] = 1;
    }
    ari_pkm_result r2;
    assert_int_equal(ari_pkm_step(s, x, n, d, 0.02, &r2, &err), 0);
    printf("tiny budget: %zu of %zu processed, %.2f ms in all\n", r2.processed, n, r2.latency_ms);
    assert_true(r2.processed >= 3 && r2.processed < n);
    for (size_t i = 0; i < n; i++) /* one entity of each blob per batch: the blobs again, same labels */
        assert_int_equal(r2.labels[i], r.labels[i]);
    assert_int_equal(ari_pkm_order(s, n, order), 0);
    for (size_t i = 0; i + 2 < n; i += 3) {
        int a = r.labels[order[i]], b = r.labels[order[i + 1]], c = r.labels[order[i + 2]];
        assert_true(a != b && b != c && a != c);
    }
    ari_pkm_result_free(&r2);
    ari_pkm_result_free(&r);
    /* empty and degenerate inputs */
    assert_int_equal(ari_pkm_step(s, x, 0, d, 0, &r, &err), 0);
    assert_int_equal(r.n, 0);
    assert_non_null(r.labels);
    ari_pkm_result_free(&r);
    assert_int_equal(ari_pkm_step(s, x, 2, d, 0, &r, &err), 0); /* n < k */
    assert_int_equal(r.k, 2);
    ari_pkm_result_free(&r);
    assert_int_equal(ari_pkm_step(s, x, 5, 0, 0, &r, &err), -1);
    assert_null(ari_pkm_new(0, 1));
    ari_pkm_free(s);
    free(x);
    free(order);
    free(seen);
}

static double wcss(const double *x, size_t n, size_t d, const int *lab, int k)
{
    double *c = calloc((size_t)k * d, sizeof *c), *cnt = calloc((size_t)k, sizeof *cnt), s = 0;
    for (size_t i = 0; i < n; i++) {
        cnt[lab[i]]++;
        for (size_t j = 0; j < d; j++)
            c[(size_t)lab[i] * d + j] += x[i * d + j];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            double e = x[i * d + j] - c[(size_t)lab[i] * d + j] / cnt[lab[i]];
            s += e * e;
        }
    free(c);
    free(cnt);
    return s;
}

static const char r_lloyd[] =
    "a <- commandArgs(TRUE)\n"
    "con <- file(a[1], 'r')\n"
    "out <- file(a[2], 'w')\n"
    "while (length(h <- scan(con, nlines = 1, quiet = TRUE)) == 2) {\n"
    "  x <- matrix(scan(con, nlines = h[1], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  h2 <- scan(con, nlines = 1, quiet = TRUE)\n"
    "  c0 <- matrix(scan(con, nlines = h2[1], quiet = TRUE), nrow = h2[1], byrow = TRUE)\n"
    "  r <- kmeans(x, centers = c0, algorithm = 'Lloyd', iter.max = 300)\n"
    "  cat(r$cluster, '\\n', file = out)\n"
    "}\n"
    "close(out)\n";

static void test_ross_unlimited(void **state)
{
    (void)state;
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    int have_r = access(TEST_RSCRIPT, X_OK) == 0;
    ross_r rx = {0};
    FILE *in = have_r ? ross_r_open(&rx) : NULL;
    int *labels[ROSS_MAX_MATRICES];
    for (int m = 0; m < count; m++) {
        size_t n = (size_t)ms[m].n, d = (size_t)ms[m].l;
        ari_pkm *s = ari_pkm_new(3, 11);
        ari_pkm_result r, r2;
        ari_error err = {0};
        assert_int_equal(ari_pkm_step(s, ms[m].x, n, d, 0, &r, &err), 0);
        check_result(&r, n, 3);
        assert_int_equal(ari_pkm_step(s, ms[m].x, n, d, 0, &r2, &err), 0); /* same X: same labels */
        assert_memory_equal(r.labels, r2.labels, n * sizeof *r.labels);
        int *ref = malloc(n * sizeof *ref);
        ari_kmeans_result kr;
        assert_int_equal(ari_kmeans(ms[m].x, (int)n, (int)d, 3, 1, ref, &kr, &err), 0);
        double w = wcss(ms[m].x, n, d, r.labels, 3);
        printf("%-16s progressive WCSS %.6g, k-means %.6g, same partition %d, sizes %zu %zu %zu\n", ms[m].name, w,
               kr.wcss, same_partition(r.labels, ref, (int)n), r.sizes[0], r.sizes[1], r.sizes[2]);
        assert_true(same_partition(r.labels, ref, (int)n));
        if (in) {
            ross_write_matrix(in, ms[m].x, (int)n, (int)d);
            ross_write_matrix(in, r.centers, 3, (int)d);
        }
        labels[m] = malloc(n * sizeof *labels[m]);
        memcpy(labels[m], r.labels, n * sizeof *labels[m]);
        ari_pkm_result_free(&r);
        ari_pkm_result_free(&r2);
        ari_pkm_free(s);
        free(ref);
    }
    if (have_r) {
        FILE *rf = ross_r_run(&rx, "lloyd.R", r_lloyd);
        assert_non_null(rf);
        for (int m = 0; m < count; m++) {
            int n = ms[m].n, *rl = malloc((size_t)n * sizeof *rl);
            for (int i = 0; i < n; i++) {
                assert_int_equal(fscanf(rf, "%d", &rl[i]), 1);
                assert_int_equal(rl[i] - 1, labels[m][i]); /* a fixed point: R keeps the same clusters */
            }
            free(rl);
        }
        ross_r_close(&rx, rf);
    }
    for (int m = 0; m < count; m++)
        free(labels[m]);
    ross_free(ms, count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_separable_unlimited),
        cmocka_unit_test(test_budget_and_order),
        cmocka_unit_test(test_ross_unlimited),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
