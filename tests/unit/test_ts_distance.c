/* test_ts_distance.c: Euclidean, DTW and TWED distances and the threaded
 * matrix (src/analysis/ts_distance.c). DTW (both step patterns, with and
 * without a Sakoe-Chiba window, equal and unequal lengths) and TWED equal
 * a brute-force recursion with memo written here from the definitions on
 * small random series; Euclidean equals the direct formula; the matrix of
 * multi-block rows equals the pairwise values (summed per block for the
 * elastic distances) whatever the thread count; cancel and progress work.
 * When R is there, the Euclidean matrix of each ROSS sample metric
 * (ARIADNE_SHARED_DATA/ross-sample, or generated stand-ins) equals R's
 * dist(x) to 1e-13 relative. */
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

#include "analysis/ts_distance.h"
#include "test_helpers.h"
#include "test_ross_sample.h"
#include "util/fs.h"

#define MAXL 9

/* ---- brute force, from the definitions (1-based, memo) -------------------- */

static const double *bf_a, *bf_b, *bf_ta, *bf_tb;
static int bf_step, bf_window;
static double bf_nu, bf_lambda;
static double memo[MAXL + 1][MAXL + 1];
static int known[MAXL + 1][MAXL + 1];

static double dtw_rec(int i, int j)
{
    if (i == 0 || j == 0)
        return INFINITY;
    if (bf_window >= 0 && abs(i - j) > bf_window)
        return INFINITY;
    if (known[i][j])
        return memo[i][j];
    double c = fabs(bf_a[i - 1] - bf_b[j - 1]), v;
    if (i == 1 && j == 1)
        v = c;
    else if (bf_step == ARI_DTW_SYMMETRIC1)
        v = c + fmin(dtw_rec(i - 1, j - 1), fmin(dtw_rec(i - 1, j), dtw_rec(i, j - 1)));
    else
        v = fmin(dtw_rec(i - 1, j - 1) + 2 * c, fmin(dtw_rec(i - 1, j) + c, dtw_rec(i, j - 1) + c));
    known[i][j] = 1;
    memo[i][j] = v;
    return v;
}

static double av(const double *s, int i)
{
    return i == 0 ? 0 : s[i - 1];
}

static double twed_rec(int i, int j)
{
    if (i == 0 && j == 0)
        return 0;
    if (i == 0 || j == 0)
        return INFINITY;
    if (known[i][j])
        return memo[i][j];
    double del_a = twed_rec(i - 1, j) + fabs(av(bf_a, i) - av(bf_a, i - 1)) +
                   bf_nu * (av(bf_ta, i) - av(bf_ta, i - 1)) + bf_lambda;
    double del_b = twed_rec(i, j - 1) + fabs(av(bf_b, j) - av(bf_b, j - 1)) +
                   bf_nu * (av(bf_tb, j) - av(bf_tb, j - 1)) + bf_lambda;
    double match = twed_rec(i - 1, j - 1) + fabs(av(bf_a, i) - av(bf_b, j)) + fabs(av(bf_a, i - 1) - av(bf_b, j - 1)) +
                   bf_nu * (fabs(av(bf_ta, i) - av(bf_tb, j)) + fabs(av(bf_ta, i - 1) - av(bf_tb, j - 1)));
    double v = fmin(match, fmin(del_a, del_b));
    known[i][j] = 1;
    memo[i][j] = v;
    return v;
}

static void reset_memo(void)
{
    memset(known, 0, sizeof known);
}

static void near_equal(double got, double want)
{
    if (isinf(want)) {
        assert_true(isinf(got));
        return;
    }
    if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want)))) {
        fprintf(stderr, "got %.17g want %.17g\n", got, want);
        fail();
    }
}

static void random_series(double *s, int l, int ints)
{
    for (int i = 0; i < l; i++)
        s[i] = ints ? floor(5 * rng_uniform()) : 10 * rng_uniform() - 5;
}

static void test_dtw_brute_force(void **state)
{
    (void)state;
    rng_state = 0x1234567ULL;
    double a[MAXL], b[MAXL], work[2 * (MAXL + 1)];
    int checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        int la = 1 + (int)(rng_uniform() * MAXL), lb = 1 + (int)(rng_uniform() * MAXL);
        random_series(a, la, trial % 2);
        random_series(b, lb, trial % 2);
        for (int step = 0; step < 2; step++)
            for (int window = -1; window <= 3; window++) {
                bf_a = a;
                bf_b = b;
                bf_step = step;
                bf_window = window;
                reset_memo();
                double want = dtw_rec(la, lb);
                near_equal(ari_ts_dtw(a, la, b, lb, (ari_dtw_step)step, window, work), want);
                checked++;
            }
    }
    assert_int_equal(checked, 4000);
    /* hand values: R dtw's symmetric2 starts at d(1,1) and doubles the diagonal */
    const double z[2] = {0, 0}, o[2] = {1, 1};
    assert_true(ari_ts_dtw(z, 2, o, 2, ARI_DTW_SYMMETRIC1, -1, work) == 2);
    assert_true(ari_ts_dtw(z, 2, o, 2, ARI_DTW_SYMMETRIC2, -1, work) == 3);
    const double p[3] = {1, 2, 3}, q[4] = {1, 1, 2, 3};
    assert_true(ari_ts_dtw(p, 3, q, 4, ARI_DTW_SYMMETRIC1, -1, work) == 0);
    assert_true(isinf(ari_ts_dtw(p, 3, q, 4, ARI_DTW_SYMMETRIC1, 0, work)));
}

static void test_twed_brute_force(void **state)
{
    (void)state;
    rng_state = 0xabcdefULL;
    double a[MAXL], b[MAXL], ta[MAXL], tb[MAXL], work[2 * (MAXL + 1)];
    const double params[][2] = {{0.001, 1}, {0, 0}, {0.5, 0.25}, {2, 3}};
    for (int trial = 0; trial < 300; trial++) {
        int la = 1 + (int)(rng_uniform() * MAXL), lb = 1 + (int)(rng_uniform() * MAXL);
        random_series(a, la, trial % 2);
        random_series(b, lb, trial % 2);
        double t = 0;
        for (int i = 0; i < la; i++)
            ta[i] = t += 0.5 + 3 * rng_uniform();
        t = 0;
        for (int i = 0; i < lb; i++)
            tb[i] = t += 0.5 + 3 * rng_uniform();
        for (size_t q = 0; q < sizeof params / sizeof params[0]; q++) {
            bf_a = a;
            bf_b = b;
            bf_ta = ta;
            bf_tb = tb;
            bf_nu = params[q][0];
            bf_lambda = params[q][1];
            reset_memo();
            double want = twed_rec(la, lb);
            near_equal(ari_ts_twed(a, ta, la, b, tb, lb, bf_nu, bf_lambda, work), want);
        }
    }
    /* identical series are at distance 0 */
    assert_true(ari_ts_twed(a, ta, 5, a, ta, 5, 0.001, 1, work) == 0);
}

static void test_euclid(void **state)
{
    (void)state;
    rng_state = 99;
    double a[50], b[50];
    random_series(a, 50, 0);
    random_series(b, 50, 0);
    double s = 0;
    for (int i = 0; i < 50; i++)
        s += (a[i] - b[i]) * (a[i] - b[i]);
    assert_true(ari_ts_euclid(a, b, 50) == sqrt(s));
    const double u[2] = {0, 0}, v[2] = {3, 4};
    assert_true(ari_ts_euclid(u, v, 2) == 5);
}

/* The matrix equals the pairs, per block, for every distance and thread count. */
static void test_matrix_threads(void **state)
{
    (void)state;
    enum { N = 23, D = 3, L = 7 };
    rng_state = 4242;
    double x[N * D * L], tstamps[L], work[2 * (L + 1)];
    random_series(x, N * D * L, 0);
    for (int t = 0; t < L; t++)
        tstamps[t] = 10 * t + 5;
    double *serial = malloc(N * N * sizeof *serial), *par = malloc(N * N * sizeof *par);
    /* euclid; dtw symmetric2; twed; dtw symmetric1 with a window of 2 */
    for (int config = 0; config < 4; config++) {
        int metric = config % 3, window = config == 3 ? 2 : -1;
        ari_dtw_step step = config == 3 ? ARI_DTW_SYMMETRIC1 : ARI_DTW_SYMMETRIC2;
        ari_ts_distance_opts o;
        ari_ts_distance_defaults(&o);
        o.metric = (ari_ts_metric)metric;
        o.step = step;
        o.window = window;
        o.time = tstamps;
        o.threads = 1;
        ari_error err = {0};
        assert_int_equal(ari_ts_distance_matrix(x, N, D, L, &o, serial, &err), 0);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                const double *a = x + i * D * L, *b = x + j * D * L;
                double want = 0;
                if (i != j && metric == ARI_TS_EUCLID) {
                    want = ari_ts_euclid(a, b, D * L);
                } else if (i != j) {
                    for (int k = 0; k < D; k++)
                        want += metric == ARI_TS_DTW
                                    ? ari_ts_dtw(a + k * L, L, b + k * L, L, step, window, work)
                                    : ari_ts_twed(a + k * L, tstamps, L, b + k * L, tstamps, L, 0.001, 1, work);
                }
                assert_true(serial[i * N + j] == want);
            }
        const int threads[] = {0, 2, 3, 8, 64};
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            int64_t done = 0;
            o.threads = threads[t];
            o.pairs_done = &done;
            assert_int_equal(ari_ts_distance_matrix(x, N, D, L, &o, par, &err), 0);
            assert_memory_equal(serial, par, N * N * sizeof *par);
            assert_int_equal(done, N * (N - 1) / 2);
        }
    }
    free(serial);
    free(par);
}

static void test_matrix_errors_and_cancel(void **state)
{
    (void)state;
    double x[4 * 5] = {0}, out[16];
    ari_ts_distance_opts o;
    ari_ts_distance_defaults(&o);
    ari_error err = {0};
    int stop = 1;
    o.cancel = &stop;
    assert_int_equal(ari_ts_distance_matrix(x, 4, 1, 5, &o, out, &err), -1);
    assert_string_equal(err.code, ARI_E_CANCELLED);
    o.cancel = NULL;
    x[3] = NAN;
    assert_int_equal(ari_ts_distance_matrix(x, 4, 1, 5, &o, out, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    x[3] = 0;
    o.metric = (ari_ts_metric)7;
    assert_int_equal(ari_ts_distance_matrix(x, 4, 1, 5, &o, out, &err), -1);
    o.metric = ARI_TS_DTW;
    assert_int_equal(ari_ts_distance_matrix(x, 0, 1, 5, &o, out, &err), 0);
    assert_int_equal(ari_ts_distance_matrix(x, 1, 1, 5, &o, out, &err), 0);
    assert_true(out[0] == 0);
}

static const char r_dist[] =
    "args <- commandArgs(TRUE)\n"
    "con <- file(args[1], 'r'); out <- file(args[2], 'w')\n"
    "repeat {\n"
    "  h <- scan(con, what = integer(), n = 2, quiet = TRUE)\n"
    "  if (length(h) < 2) break\n"
    "  X <- matrix(scan(con, n = h[1] * h[2], quiet = TRUE), nrow = h[1], byrow = TRUE)\n"
    "  D <- as.matrix(dist(X))\n"
    "  writeLines(sprintf('%.17g', t(D)), out)\n"
    "}\n"
    "close(out)\n";

static void test_euclid_vs_r(void **state)
{
    (void)state;
    if (access(TEST_RSCRIPT, X_OK) != 0)
        skip();
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    ross_r rx;
    ross_write_all(ross_r_open(&rx), ms, count);
    FILE *r = ross_r_run(&rx, "dist.R", r_dist);
    assert_non_null(r);
    ari_ts_distance_opts o;
    ari_ts_distance_defaults(&o);
    for (int m = 0; m < count; m++) {
        int n = ms[m].n;
        double *d = malloc((size_t)n * n * sizeof *d), *want = malloc((size_t)n * n * sizeof *want);
        ari_error err = {0};
        assert_int_equal(ari_ts_distance_matrix(ms[m].x, n, 1, ms[m].l, &o, d, &err), 0);
        assert_int_equal(ross_read_doubles(r, want, n * n), 0);
        double worst = 0;
        for (int i = 0; i < n * n; i++)
            worst = fmax(worst, fabs(d[i] - want[i]) / fmax(1e-300, fabs(want[i])));
        fprintf(stderr, "%s: Euclidean matrix vs R dist: max relative difference %.3g\n", ms[m].name, worst);
        assert_true(worst <= 1e-13);
        free(d);
        free(want);
    }
    ross_free(ms, count);
    ross_r_close(&rx, r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtw_brute_force),
        cmocka_unit_test(test_twed_brute_force),
        cmocka_unit_test(test_euclid),
        cmocka_unit_test(test_matrix_threads),
        cmocka_unit_test(test_matrix_errors_and_cancel),
        cmocka_unit_test(test_euclid_vs_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
