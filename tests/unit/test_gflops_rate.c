/* test_gflops_rate.c: GFlop/s per time step and group from the tasks
 * (src/analysis/gflops_rate.c): a hand case, and random tasks against a
 * brute force (every task against every step, the share of its duration
 * inside the step) and against the total GFlop (the integral of the rate
 * over a window holding every task). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// clang-format off: cmocka.h needs the headers above first
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdlib.h>

#include "analysis/gflops_rate.h"
#include "test_rng.h"

static void test_hand(void **state)
{
    (void)state;
    /* ms: task 0 (group 0) 2 GFlop over [0, 4); task 1 (group 1) 1 GFlop at 3 (no duration) */
    const double s[] = {0, 3}, e[] = {4, 3}, gf[] = {2, 1};
    const int g[] = {0, 1};
    double out[4];
    ari_error err = {0};
    assert_int_equal(ari_gflops_rate(2, s, e, gf, g, 2, 0, 4, 2, 1e-3, out, &err), 0);
    /* 1 GFlop per 2 ms step: 500 GFlop/s */
    assert_true(fabs(out[0] - 500) < 1e-9 && fabs(out[1] - 500) < 1e-9);
    assert_true(out[2] == 0 && fabs(out[3] - 500) < 1e-9);
    assert_int_equal(ari_gflops_rate(2, s, e, gf, g, 2, 0, 4, 2, 0, out, &err), -1);
}

static void test_brute_force(void **state)
{
    (void)state;
    rng_state = 0xf10b5;
    for (int trial = 0; trial < 200; trial++) {
        enum { NMAX = 60, WMAX = 40, G = 3 };
        size_t n = (size_t)(rng_uniform() * NMAX);
        double s[NMAX], e[NMAX], gf[NMAX], total = 0;
        int g[NMAX];
        for (size_t i = 0; i < n; i++) {
            s[i] = rng_uniform() * 20;
            e[i] = s[i] + (rng_uniform() < 0.1 ? 0 : rng_uniform() * 5);
            gf[i] = rng_uniform() < 0.1 ? NAN : rng_uniform();
            g[i] = (int)(rng_uniform() * G);
            if (!isnan(gf[i]))
                total += gf[i];
        }
        int width = 1 + (int)(rng_uniform() * WMAX);
        double t0 = rng_uniform() * 15 - 5, t1 = t0 + 1 + rng_uniform() * 20;
        double out[G * WMAX];
        ari_error err = {0};
        assert_int_equal(ari_gflops_rate(n, s, e, gf, g, G, t0, t1, width, 1e-3, out, &err), 0);
        double dt = (t1 - t0) / width;
        for (int k = 0; k < G; k++)
            for (int b = 0; b < width; b++) {
                double lo = t0 + b * dt, hi = t0 + (b + 1) * dt, want = 0;
                for (size_t i = 0; i < n; i++) {
                    if (g[i] != k || isnan(gf[i]))
                        continue;
                    if (e[i] == s[i])
                        want += (s[i] >= lo && (s[i] < hi || (b == width - 1 && s[i] < t1))) ? gf[i] : 0;
                    else
                        want += gf[i] * fmax(0, fmin(e[i], hi) - fmax(s[i], lo)) / (e[i] - s[i]);
                }
                want /= dt * 1e-3;
                if (fabs(want - out[k * width + b]) > 1e-9 * fmax(1, want))
                    fail_msg("trial %d group %d step %d: %g, brute force %g", trial, k, b, out[k * width + b],
                             want);
            }
        /* the integral over a window holding every task is the total */
        assert_int_equal(ari_gflops_rate(n, s, e, gf, g, G, -1, 26, width, 1e-3, out, &err), 0);
        double integral = 0;
        for (int k = 0; k < G * width; k++)
            integral += out[k] * (27.0 / width) * 1e-3;
        if (fabs(integral - total) > 1e-9 * fmax(1, total))
            fail_msg("trial %d: integral %g, total GFlop %g", trial, integral, total);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
