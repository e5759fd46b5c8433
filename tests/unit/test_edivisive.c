/* test_edivisive.c: E-Divisive change points (src/analysis/edivisive.c).
 * - Q-hat: the best split of a segment equals a brute force written here
 *   (every (tau, kappa), direct sums over pairs of |Z_i - Z_j|^alpha from
 *   the raw series, not from D) for alpha 0.5, 1, 2 and sub-segments; the
 *   statistics of the first two points of ari_edivisive (k = 2) equal the
 *   brute-force maxima over the whole series, then over its two halves.
 * - Distances: time-major and entity-major inputs give the same D, and
 *   1 or 2 threads the same bytes.
 * - Generated data (64 entities x 300 samples, level shifts at 80, 150,
 *   230): the three boundaries are found within min_size with p < sig_lvl
 *   and nothing else; the same result on 1 and 2 threads.
 * - Pure noise: the first candidate's p-value is > sig_lvl for most seeds
 *   (at least 8 of 10); every p-value is in [0, 1].
 * - Fixed k: k points, no test (NAN p-values); cancellation; bad options.
 */
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

#include "analysis/edivisive.h"
#include "test_rng.h"

static double gauss(void)
{
    double u = rng_uniform() + 1e-300, v = rng_uniform();
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* |z_i - z_j|^alpha straight from the time-major series z (T x n). */
static double dist_alpha(const double *z, int n, int i, int j, double alpha)
{
    double s = 0;
    for (int e = 0; e < n; e++)
        s += (z[i * n + e] - z[j * n + e]) * (z[i * n + e] - z[j * n + e]);
    return pow(sqrt(s), alpha);
}

/* Q-hat of X = [s, tau), Y = [tau, kappa) by direct sums. */
static double brute_q(const double *z, int n, double alpha, int s, int tau, int kappa)
{
    double xy = 0, xx = 0, yy = 0;
    int p = tau - s, q = kappa - tau;
    for (int i = s; i < tau; i++)
        for (int j = tau; j < kappa; j++)
            xy += dist_alpha(z, n, i, j, alpha);
    for (int i = s; i < tau; i++)
        for (int k = i + 1; k < tau; k++)
            xx += dist_alpha(z, n, i, k, alpha);
    for (int j = tau; j < kappa; j++)
        for (int k = j + 1; k < kappa; k++)
            yy += dist_alpha(z, n, j, k, alpha);
    double e = 2.0 / (p * q) * xy - xx / (p * (p - 1) / 2.0) - yy / (q * (q - 1) / 2.0);
    return (double)p * q / (p + q) * e;
}

/* The brute-force best split of [s, e): first maximum in (tau, kappa) order. */
static double brute_best(const double *z, int n, double alpha, int s, int e, int m, int *tau)
{
    double best = -INFINITY;
    for (int t = s + m; t + m <= e; t++)
        for (int k = t + m; k <= e; k++) {
            double q = brute_q(z, n, alpha, s, t, k);
            if (q > best) {
                best = q;
                *tau = t;
            }
        }
    return best;
}

static void close_to(double a, double b)
{
    if (fabs(a - b) > 1e-9 * fmax(1, fabs(b)))
        fail_msg("%.17g != %.17g", a, b);
}

static void test_brute_force(void **state)
{
    (void)state;
    enum { T = 40, n = 3 };
    static double z[T * n], D[T * T];
    rng_state = 0xed1e0001ULL;
    for (int t = 0; t < T; t++)
        for (int e = 0; e < n; e++)
            z[t * n + e] = gauss() + (t >= 17 ? 1.5 : 0) + (t >= 29 ? -2 * e : 0);
    const double alphas[] = {0.5, 1, 2};
    ari_error err = {0};
    for (int a = 0; a < 3; a++) {
        assert_int_equal(ari_ed_distances(z, T, n, 0, alphas[a], 0, D, &err), 0);
        const int seg[][2] = {{0, T}, {0, 25}, {9, T}, {5, 13}};
        for (int g = 0; g < 4; g++) {
            int tau, kappa, btau = -1;
            double q;
            int rc = ari_ed_best_split(D, T, seg[g][0], seg[g][1], 4, &tau, &kappa, &q);
            if (seg[g][1] - seg[g][0] < 8) {
                assert_int_equal(rc, 1);
                continue;
            }
            assert_int_equal(rc, 0);
            double bq = brute_best(z, n, alphas[a], seg[g][0], seg[g][1], 4, &btau);
            assert_int_equal(tau, btau);
            close_to(q, bq);
            close_to(q, brute_q(z, n, alphas[a], seg[g][0], tau, kappa));
        }
    }
    /* the statistics of ari_edivisive's first two points */
    assert_int_equal(ari_ed_distances(z, T, n, 0, 1, 0, D, &err), 0);
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.min_size = 4;
    o.k = 2;
    ari_ed_result r;
    assert_int_equal(ari_edivisive(D, T, &o, &r, &err), 0);
    assert_int_equal(r.count, 2);
    int t1 = -1, t2a = -1, t2b = -1;
    double q1 = brute_best(z, n, 1, 0, T, 4, &t1);
    assert_int_equal(r.found[0], t1);
    close_to(r.stat[0], q1);
    double qa = brute_best(z, n, 1, 0, t1, 4, &t2a), qb = brute_best(z, n, 1, t1, T, 4, &t2b);
    assert_int_equal(r.found[1], qb > qa ? t2b : t2a);
    close_to(r.stat[1], fmax(qa, qb));
    assert_true(isnan(r.p_values[0]) && isnan(r.p_values[1]) && r.tested == 2);
    assert_int_equal(r.sorted[0], r.found[0] < r.found[1] ? r.found[0] : r.found[1]);
    ari_ed_result_free(&r);
}

static void test_layouts(void **state)
{
    (void)state;
    enum { T = 50, n = 7 };
    static double z[T * n], ze[n * T], D1[T * T], D2[T * T], D3[T * T];
    rng_state = 0xed1e0002ULL;
    for (int t = 0; t < T; t++)
        for (int e = 0; e < n; e++)
            ze[e * T + t] = z[t * n + e] = gauss();
    ari_error err = {0};
    assert_int_equal(ari_ed_distances(z, T, n, 0, 1.3, 0, D1, &err), 0);
    assert_int_equal(ari_ed_distances(ze, T, n, 1, 1.3, 2, D2, &err), 0);
    for (int i = 0; i < T * T; i++)
        close_to(D1[i], D2[i]);
    /* the same bytes on one thread */
    assert_int_equal(ari_ed_distances(ze, T, n, 1, 1.3, 1, D3, &err), 0);
    assert_memory_equal(D2, D3, sizeof D2);
    close_to(D1[3 * T + 17], dist_alpha(z, n, 3, 17, 1.3));
    assert_int_equal(ari_ed_distances(z, T, n, 0, 2.5, 0, D1, &err), -1);
    assert_string_equal(err.code, "invalid_parameter");
}

/* 64 entities x 300 samples, entity-major; each entity's level changes at
 * the three boundaries by a N(0, 1) amount, plus N(0, 1) noise. */
enum { GT = 300, GN = 64 };
static const int truth[3] = {80, 150, 230};

static void make_phases(double *x, uint64_t seed)
{
    rng_state = seed;
    for (int e = 0; e < GN; e++) {
        double level[4];
        for (int k = 0; k < 4; k++)
            level[k] = gauss();
        for (int t = 0; t < GT; t++) {
            int phase = (t >= truth[0]) + (t >= truth[1]) + (t >= truth[2]);
            x[e * GT + t] = level[phase] + gauss();
        }
    }
}

static void test_phases(void **state)
{
    (void)state;
    static double x[GN * GT], D[GT * GT];
    make_phases(x, 0xed1e0003ULL);
    ari_error err = {0};
    assert_int_equal(ari_ed_distances(x, GT, GN, 1, 1, 0, D, &err), 0);
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.seed = 11;
    o.threads = 2;
    ari_ed_result r, r1;
    assert_int_equal(ari_edivisive(D, GT, &o, &r, &err), 0);
    printf("found %d (in order found):", r.count);
    for (int i = 0; i < r.count; i++)
        printf(" %d (Q %.2f, p %.3f)", r.found[i], r.stat[i], r.p_values[i]);
    printf("; last tested p %.3f at %d\n", r.p_values[r.tested - 1], r.considered_last);
    assert_int_equal(r.count, 3);
    assert_int_equal(r.tested, 4);
    for (int i = 0; i < 3; i++) {
        assert_true(abs(r.sorted[i] - truth[i]) <= o.min_size);
        assert_true(r.p_values[i] < o.sig_lvl);
    }
    assert_true(r.p_values[3] > o.sig_lvl && r.p_values[3] <= 1);
    o.threads = 1;
    assert_int_equal(ari_edivisive(D, GT, &o, &r1, &err), 0);
    assert_int_equal(r1.count, r.count);
    assert_memory_equal(r1.found, r.found, sizeof *r.found * (size_t)r.count);
    assert_memory_equal(r1.p_values, r.p_values, sizeof *r.p_values * (size_t)r.tested);
    ari_ed_result_free(&r);
    ari_ed_result_free(&r1);
}

static void test_noise(void **state)
{
    (void)state;
    enum { T = 150, n = 16 };
    static double x[T * n], D[T * T];
    ari_error err = {0};
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.permutations = 99;
    int quiet = 0;
    for (int seed = 0; seed < 10; seed++) {
        rng_state = 0xed1e1000ULL + (uint64_t)seed;
        for (int i = 0; i < T * n; i++)
            x[i] = gauss();
        assert_int_equal(ari_ed_distances(x, T, n, 0, 1, 0, D, &err), 0);
        o.seed = (uint64_t)seed;
        ari_ed_result r;
        assert_int_equal(ari_edivisive(D, T, &o, &r, &err), 0);
        assert_true(r.tested >= 1);
        for (int i = 0; i < r.tested; i++)
            assert_true(r.p_values[i] > 0 && r.p_values[i] <= 1);
        quiet += r.p_values[0] > o.sig_lvl;
        ari_ed_result_free(&r);
    }
    printf("pure noise: %d of 10 seeds without a change point\n", quiet);
    assert_true(quiet >= 8);
}

static int cancel_soon(void *ctx, int points, int done, int total)
{
    (void)points;
    (void)total;
    (void)ctx;
    return done >= 8;
}

static void test_fixed_k_cancel_errors(void **state)
{
    (void)state;
    static double x[GN * GT], D[GT * GT];
    make_phases(x, 0xed1e0004ULL);
    ari_error err = {0};
    assert_int_equal(ari_ed_distances(x, GT, GN, 1, 1, 0, D, &err), 0);
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.k = 5;
    ari_ed_result r;
    assert_int_equal(ari_edivisive(D, GT, &o, &r, &err), 0);
    assert_int_equal(r.count, 5);
    for (int i = 1; i < 5; i++)
        assert_true(r.sorted[i] - r.sorted[i - 1] >= o.min_size);
    ari_ed_result_free(&r);
    /* more than the segments can hold: stops when nothing can be split */
    o.k = 100;
    assert_int_equal(ari_edivisive(D, GT, &o, &r, &err), 0);
    assert_true(r.count <= GT / o.min_size - 1);
    ari_ed_result_free(&r);
    o.k = -1;
    o.progress = cancel_soon;
    o.threads = 1;
    assert_int_equal(ari_edivisive(D, GT, &o, &r, &err), -1);
    assert_string_equal(err.code, "cancelled");
    ari_ed_result_free(&r);
    o.progress = NULL;
    o.min_size = 1;
    assert_int_equal(ari_edivisive(D, GT, &o, &r, &err), -1);
    assert_string_equal(err.code, "invalid_parameter");
    ari_ed_result_free(&r);
    /* a series shorter than 2 * min_size: no candidate, nothing tested */
    o.min_size = 30;
    assert_int_equal(ari_edivisive(D, 50, &o, &r, &err), 0);
    assert_true(r.count == 0 && r.tested == 0 && r.considered_last == -1);
    ari_ed_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_fixed_k_cancel_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
