/* test_step_buckets.c: a step variable's time-weighted mean, min and max
 * per time step (src/analysis/step_buckets.c), on a hand-made variable and
 * against a brute force on random ones: every step cut at every row
 * boundary inside it, each piece evaluated at its midpoint by scanning all
 * rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// clang-format off: cmocka.h needs the headers above first
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdlib.h>

#include "analysis/step_buckets.h"
#include "test_rng.h"

static void test_hand(void **state)
{
    (void)state;
    /* 1 on [0, 1), 3 on [1, 4), 2 on [4, 5); nothing before 0 */
    const double s[] = {1, 0, 4}, e[] = {4, 1, 5}, v[] = {3, 1, 2};
    ari_step_bucket b[3];
    ari_error err = {0};
    assert_int_equal(ari_step_buckets(s, e, v, 3, -1, 5, 3, b, &err), 0);
    /* [-1, 1): covered 1 s at value 1 */
    assert_true(fabs(b[0].mean - 1) < 1e-12 && b[0].min == 1 && b[0].max == 1 && b[0].covered == 1);
    /* [1, 3): 3 throughout */
    assert_true(fabs(b[1].mean - 3) < 1e-12 && b[1].covered == 2);
    /* [3, 5): 3 for 1, 2 for 1 */
    assert_true(fabs(b[2].mean - 2.5) < 1e-12 && b[2].min == 2 && b[2].max == 3);
    /* a step with nothing: NAN */
    assert_int_equal(ari_step_buckets(s, e, v, 3, -4, 2, 3, b, &err), 0);
    assert_true(isnan(b[0].mean) && b[0].covered == 0);
    assert_int_equal(ari_step_buckets(s, e, v, 3, 1, 1, 3, b, &err), -1);
}

/* The value in effect at t (the first row holding it), or NAN. */
static double value_at(const double *s, const double *e, const double *v, size_t n, double t)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] <= t && t < e[i])
            return v[i];
    return NAN;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void brute_step(const double *s, const double *e, const double *v, size_t n, double lo, double hi,
                       double *mean, double *mn, double *mx, double *cov)
{
    double *cuts = malloc((2 * n + 2) * sizeof *cuts);
    size_t k = 0;
    cuts[k++] = lo;
    cuts[k++] = hi;
    for (size_t i = 0; i < n; i++) {
        if (s[i] > lo && s[i] < hi)
            cuts[k++] = s[i];
        if (e[i] > lo && e[i] < hi)
            cuts[k++] = e[i];
    }
    qsort(cuts, k, sizeof *cuts, cmp);
    double sum = 0;
    *cov = 0;
    *mn = INFINITY;
    *mx = -INFINITY;
    for (size_t j = 0; j + 1 < k; j++) {
        double w = cuts[j + 1] - cuts[j], x = value_at(s, e, v, n, (cuts[j] + cuts[j + 1]) / 2);
        if (!(w > 0) || isnan(x))
            continue;
        sum += x * w;
        *cov += w;
        *mn = fmin(*mn, x);
        *mx = fmax(*mx, x);
    }
    *mean = *cov > 0 ? sum / *cov : NAN;
    free(cuts);
}

static void test_brute_force(void **state)
{
    (void)state;
    rng_state = 0x5eed14;
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + (size_t)(rng_uniform() * 40);
        double s[64], e[64], v[64], t = rng_uniform() * 3;
        for (size_t i = 0; i < n; i++) { /* one container: consecutive rows, sometimes a gap */
            s[i] = t + (rng_uniform() < 0.2 ? rng_uniform() : 0);
            e[i] = s[i] + rng_uniform() * 2;
            v[i] = floor(rng_uniform() * 200) - 20;
            t = e[i];
        }
        int width = 1 + (int)(rng_uniform() * 30);
        double t0 = rng_uniform() * 10 - 2, t1 = t0 + 0.5 + rng_uniform() * 40;
        ari_step_bucket b[32];
        ari_error err = {0};
        assert_int_equal(ari_step_buckets(s, e, v, n, t0, t1, width, b, &err), 0);
        double dt = (t1 - t0) / width;
        for (int k = 0; k < width; k++) {
            double mean, mn, mx, cov;
            brute_step(s, e, v, n, t0 + k * dt, k == width - 1 ? t1 : t0 + (k + 1) * dt, &mean, &mn, &mx,
                       &cov);
            if (fabs(cov - b[k].covered) > 1e-9)
                fail_msg("trial %d step %d: covered %g, brute force %g", trial, k, b[k].covered, cov);
            if (cov < 1e-9)
                continue;
            if (fabs(mean - b[k].mean) > 1e-7 * fmax(1, fabs(mean)) || mn != b[k].min || mx != b[k].max)
                fail_msg("trial %d step %d: [%g %g %g], brute force [%g %g %g]", trial, k, b[k].mean,
                         b[k].min, b[k].max, mean, mn, mx);
        }
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
