/* test_online_cpd.c: the AFF detector (src/analysis/aff_detector.c) and the
 * online change points of a multivariate stream (src/analysis/online_cpd.c).
 *
 * AFF alone: a constant burn-in then a step is declared at the step; a 4
 * sigma mean shift of a Gaussian stream is found within 11 points (a
 * false alarm just before it leaves it in a burn-in) in 45 of 50 seeds; nothing
 * is declared during a burn-in (also the one after a change); the false
 * alarm rate on a stationary stream is bounded (measured 0.006 per point
 * at alpha 0.01).
 * Multivariate, synthetic (n = 20 entities following one factor, x_i =
 * 10 + w_i (level + z_t) + 0.1 e_it, the level piecewise constant over
 * segments of 100 points): over 100 seeds at least 85% of the shifts are
 * found within 10 points (measured 91%, most within 3), and on stationary
 * streams of 2000 points the false-alarm rate is below alpha at 0.01
 * (measured 0.0039) and below 0.03 at 0.1 (measured 0.0144).
 * ROSS sample (one push per GVT column, x_t = the 256 KPs' values), every
 * metric and alpha in {0.01, 0.1, 0.2}: two runs give the same points,
 * consecutive points are more than burn_in apart, and on the six metrics
 * with phases (all but VirtualTimeDiff) every alpha finds the start of the
 * first burst (columns 15-19: E-Divisive, min_size 5, puts it at 15) and
 * alpha 0.01 finds E-Divisive's 15, 39 and 65 within 4 columns after each
 * (verified by eye on the per-column means: RbTotal's mean steps from ~330
 * to 515 / 890 at columns 15-16, drops to ~300 from 39-41, rises to ~900 at
 * 64-65). */
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
#include "analysis/online_cpd.h"
#include "test_ross_sample.h"

static double gauss(void)
{
    double u = rng_uniform(), v = rng_uniform();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void test_aff_scalar(void **state)
{
    (void)state;
    ari_aff *a = ari_aff_new(0.01, 0.01, 10, 0.6, 1);
    assert_non_null(a);
    for (int t = 0; t < 30; t++) /* constant: sigma floor, no change */
        assert_int_equal(ari_aff_push(a, 5, NULL), 0);
    double p2;
    assert_int_equal(ari_aff_push(a, 6, &p2), 1);
    assert_true(p2 < 0.01);
    for (int t = 0; t < 10; t++) /* the new burn-in: nothing declared */
        assert_int_equal(ari_aff_push(a, t % 2 ? 100 : -100, NULL), 0);
    assert_int_equal(ari_aff_push(a, NAN, &p2), 0); /* ignored */
    assert_true(p2 == 1);
    ari_aff_free(a);

    int found = 0, delay_sum = 0;
    long alarms = 0, points = 0;
    for (uint64_t s = 1; s <= 50; s++) {
        rng_state = 0xaff0 + s * 7919;
        a = ari_aff_new(0.01, 0.01, 10, 0.6, 1);
        int first = -1;
        for (int t = 0; t < 300; t++) {
            int c = ari_aff_push(a, (t >= 200 ? 4 : 0) + gauss(), NULL);
            if (c && t < 200)
                alarms++;
            if (c && t >= 200 && first < 0)
                first = t;
        }
        points += 200;
        if (first >= 200 && first < 212) {
            found++;
            delay_sum += first - 200;
        }
        ari_aff_free(a);
    }
    printf("AFF: %d of 50 shifts within 11 points (mean delay %.2f), false alarms %.4f per point\n", found,
           found ? (double)delay_sum / found : 0, (double)alarms / points);
    assert_true(found >= 45);
    assert_true((double)alarms / points < 0.02);
    /* out-of-range parameters take the defaults */
    a = ari_aff_new(2, -1, 0, 0.9, 0.5);
    assert_non_null(a);
    assert_true(ari_aff_lambda(a) == 1);
    ari_aff_free(a);
}

static const double levels[] = {0, 1, -1, 0.5, 2, 0, -1.5, 1, 0, 2, 0};

/* One synthetic stream (see the header); shift 0 = stationary. Returns the
 * change count; idx (may be NULL) gets a copy (cap 1024). */
static size_t synthetic(uint64_t seed, size_t T, double alpha, double shift, size_t *idx)
{
    enum { N = 20 };
    double w[N], x[N];
    rng_state = 0x9e37 + seed * 7919;
    for (int i = 0; i < N; i++)
        w[i] = 0.5 + rng_uniform();
    ari_ocpd_params p;
    ari_ocpd_defaults(&p);
    p.alpha = alpha;
    ari_ocpd *c = ari_ocpd_new(&p, N);
    assert_non_null(c);
    for (size_t t = 0; t < T; t++) {
        double lv = shift * levels[(t / 100) % 11], z = gauss();
        for (int i = 0; i < N; i++)
            x[i] = 10 + w[i] * (lv + z) + 0.1 * gauss();
        assert_true(ari_ocpd_push(c, x, N, NULL) >= 0);
    }
    const size_t *ch;
    size_t k = ari_ocpd_changes(c, &ch);
    for (size_t i = 0; idx && i < k && i < 1024; i++)
        idx[i] = ch[i];
    for (size_t i = 1; i < k; i++)
        assert_true(ch[i] - ch[i - 1] > 10);
    assert_int_equal(ari_ocpd_points(c), T);
    ari_ocpd_free(c);
    return k;
}

static void test_synthetic_shifts(void **state)
{
    (void)state;
    size_t idx[1024];
    int shifts = 0, found = 0, quick = 0;
    for (uint64_t s = 1; s <= 100; s++) {
        size_t k = synthetic(s, 1100, 0.01, 3, idx);
        for (size_t b = 100; b < 1100; b += 100) {
            shifts++;
            for (size_t i = 0; i < k; i++)
                if (idx[i] >= b && idx[i] < b + 11) {
                    found++;
                    quick += idx[i] < b + 4;
                    break;
                }
        }
    }
    printf("synthetic: %d of %d shifts found within 10 points, %d within 3\n", found, shifts, quick);
    assert_true(found >= 85 * shifts / 100);
    assert_true(quick >= 70 * shifts / 100);
    long a1 = 0, a10 = 0, pts = 0;
    for (uint64_t s = 1; s <= 100; s++) {
        a1 += (long)synthetic(s, 2000, 0.01, 0, NULL);
        a10 += (long)synthetic(s, 2000, 0.1, 0, NULL);
        pts += 2000;
    }
    printf("stationary: false alarms %.4f per point at alpha 0.01, %.4f at 0.1\n", (double)a1 / pts,
           (double)a10 / pts);
    assert_true((double)a1 / pts < 0.01);
    assert_true((double)a10 / pts < 0.03);
    assert_true(a10 > a1);
}

static void test_growth_and_nan(void **state)
{
    (void)state;
    ari_ocpd *c = ari_ocpd_new(NULL, 2);
    double x[4] = {1, 2, 3, 4}, v;
    assert_int_equal(ari_ocpd_push(c, x, 2, &v), 0);
    assert_true(v == 0); /* no direction yet */
    assert_int_equal(ari_ocpd_push(c, x, 4, &v), 0); /* two entities appear */
    double y[4] = {NAN, 5, NAN, 1};
    assert_int_equal(ari_ocpd_push(c, y, 4, &v), 0); /* NaN: the previous value */
    assert_true(isfinite(v));
    assert_int_equal(ari_ocpd_push(c, x, 1, &v), 0); /* fewer: the others as before */
    assert_int_equal(ari_ocpd_points(c), 4);
    ari_ocpd_free(c);
    /* the representative alone equals the detector's value */
    ari_repr *r = ari_repr_new(3);
    c = ari_ocpd_new(NULL, 3);
    rng_state = 99;
    for (int t = 0; t < 50; t++) {
        double z[3] = {rng_uniform(), 2 * rng_uniform(), t * 0.1}, a, b;
        assert_int_equal(ari_repr_push(r, z, 3, &a), 0);
        assert_true(ari_ocpd_push(c, z, 3, &b) >= 0);
        assert_true(a == b);
    }
    ari_repr_free(r);
    ari_ocpd_free(c);
}

/* The change points of one metric at alpha (copied into out, cap 64). */
static size_t ross_cpd(const ross_matrix *m, double alpha, size_t *out)
{
    ari_ocpd_params p;
    ari_ocpd_defaults(&p);
    p.alpha = alpha;
    ari_ocpd *c = ari_ocpd_new(&p, (size_t)m->n);
    double *x = malloc((size_t)m->n * sizeof *x);
    assert_non_null(c);
    for (int t = 0; t < m->l; t++) {
        for (int i = 0; i < m->n; i++)
            x[i] = m->x[(size_t)i * m->l + t];
        assert_true(ari_ocpd_push(c, x, (size_t)m->n, NULL) >= 0);
    }
    const size_t *idx;
    size_t k = ari_ocpd_changes(c, &idx);
    for (size_t i = 0; i < k && i < 64; i++)
        out[i] = idx[i];
    ari_ocpd_free(c);
    free(x);
    return k;
}

/* E-Divisive's points (min_size 5) of the metric, sorted (cap 64). */
static int ross_edivisive(const ross_matrix *m, int *out)
{
    int T = m->l, n = m->n;
    double *xt = malloc((size_t)T * n * sizeof *xt), *D = malloc((size_t)T * T * sizeof *D);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < n; i++)
            xt[(size_t)t * n + i] = m->x[(size_t)i * T + t];
    ari_error err = {0};
    assert_int_equal(ari_ed_distances(xt, T, n, 0, 1, 1, D, &err), 0);
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.min_size = 5;
    o.threads = 1;
    ari_ed_result r;
    assert_int_equal(ari_edivisive(D, T, &o, &r, &err), 0);
    int k = r.count < 64 ? r.count : 64;
    memcpy(out, r.sorted, (size_t)k * sizeof *out);
    ari_ed_result_free(&r);
    free(xt);
    free(D);
    return k;
}

static int has_point(const size_t *idx, size_t k, size_t lo, size_t hi)
{
    for (size_t i = 0; i < k; i++)
        if (idx[i] >= lo && idx[i] <= hi)
            return 1;
    return 0;
}

static void test_ross(void **state)
{
    (void)state;
    ross_matrix ms[ROSS_MAX_MATRICES];
    int count = ross_load(ms);
    const double alphas[3] = {0.01, 0.1, 0.2};
    for (int m = 0; m < count; m++) {
        int ed[64];
        int ne = ross_edivisive(&ms[m], ed);
        printf("%-16s E-Divisive:", ms[m].name);
        for (int i = 0; i < ne; i++)
            printf(" %d", ed[i]);
        int phased = count == ROSS_MAX_MATRICES && strcmp(ms[m].name, "VirtualTimeDiff") != 0;
        for (int a = 0; a < 3; a++) {
            size_t p1[64], p2[64];
            size_t k1 = ross_cpd(&ms[m], alphas[a], p1), k2 = ross_cpd(&ms[m], alphas[a], p2);
            assert_int_equal(k1, k2); /* deterministic */
            assert_memory_equal(p1, p2, (k1 < 64 ? k1 : 64) * sizeof *p1);
            printf("  | alpha %.2f:", alphas[a]);
            for (size_t i = 0; i < k1 && i < 64; i++) {
                printf(" %zu", p1[i]);
                assert_true(i == 0 ? p1[i] >= 10 : p1[i] - p1[i - 1] > 10); /* burn-in */
            }
            if (phased)
                assert_true(has_point(p1, k1, 15, 19));
            if (phased && a == 0) {
                assert_true(ne >= 3 && ed[0] == 15 && ed[1] == 39 && ed[2] == 65);
                for (int i = 0; i < 3; i++)
                    assert_true(has_point(p1, k1, (size_t)ed[i], (size_t)ed[i] + 4));
            }
        }
        printf("\n");
    }
    ross_free(ms, count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aff_scalar),
        cmocka_unit_test(test_synthetic_shifts),
        cmocka_unit_test(test_growth_and_nan),
        cmocka_unit_test(test_ross),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
