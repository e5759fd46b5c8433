/* test_handle_presence.c: memory used per memory node from the data
 * handles present on it (src/analysis/handle_presence.c), on a hand-made
 * sequence and against a brute force on random ones: at any time, the sum
 * of the sizes of the handles whose last event before it is owner/shared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// clang-format off: cmocka.h needs the headers above first
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdlib.h>

#include "analysis/handle_presence.h"
#include "test_rng.h"

/* The series' value at t (NAN before its first row). */
static double value_at(const ari_presence_series *s, double t)
{
    for (size_t i = 0; i < s->n; i++)
        if (t >= s->start[i] && t < s->end[i])
            return s->bytes[i];
    return NAN;
}

static void test_hand(void **state)
{
    (void)state;
    /* container 0: handle 1 (10 B) owner at 1, shared at 2 (no change), invalid at 5;
     * handle 2 (4 B) shared at 3, never invalid; handle 3 has no size */
    const int c[] = {0, 0, 0, 0, 0};
    const int64_t h[] = {1, 1, 1, 2, 3};
    const double t[] = {1, 2, 5, 3, 4}, sz[] = {10, 10, 10, 4, NAN};
    const unsigned char p[] = {1, 1, 0, 1, 1};
    ari_presence_series out[1];
    ari_error err = {0};
    assert_int_equal(ari_handle_presence(5, c, h, t, p, sz, 1, 9, out, &err), 0);
    assert_true(isnan(value_at(&out[0], 0.5)));
    assert_true(value_at(&out[0], 1.5) == 10 && value_at(&out[0], 2.5) == 10);
    assert_true(value_at(&out[0], 3.5) == 14 && value_at(&out[0], 6) == 4 && value_at(&out[0], 8.9) == 4);
    assert_true(out[0].peak == 14 && out[0].end[out[0].n - 1] == 9);
    ari_presence_series_free(out, 1);
}

enum { NC = 3, NH = 5, NEV = 400 };

static int by_key(const void *a, const void *b)
{
    const double *x = a, *y = b; /* container, handle, time */
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

static void test_brute_force(void **state)
{
    (void)state;
    rng_state = 0x5eed1234;
    static double ev[NEV][5]; /* container, handle, time, present, size */
    double hsize[NH];
    for (int k = 0; k < NH; k++)
        hsize[k] = 1 + floor(rng_uniform() * 100);
    for (int i = 0; i < NEV; i++) {
        ev[i][0] = floor(rng_uniform() * NC);
        ev[i][1] = floor(rng_uniform() * NH);
        ev[i][2] = rng_uniform() * 100;
        ev[i][3] = rng_uniform() < 0.6;
        ev[i][4] = hsize[(int)ev[i][1]];
    }
    qsort(ev, NEV, sizeof ev[0], by_key);
    int c[NEV];
    int64_t h[NEV];
    double t[NEV], sz[NEV];
    unsigned char p[NEV];
    for (int i = 0; i < NEV; i++) {
        c[i] = (int)ev[i][0];
        h[i] = (int64_t)ev[i][1];
        t[i] = ev[i][2];
        p[i] = (unsigned char)ev[i][3];
        sz[i] = ev[i][4];
    }
    ari_presence_series out[NC];
    ari_error err = {0};
    assert_int_equal(ari_handle_presence(NEV, c, h, t, p, sz, NC, 100, out, &err), 0);
    for (int trial = 0; trial < 500; trial++) {
        double at = rng_uniform() * 100;
        for (int k = 0; k < NC; k++) {
            double want = 0, got = value_at(&out[k], at);
            int any = 0;
            for (int hd = 0; hd < NH; hd++) {
                int last = -1;
                for (int i = 0; i < NEV; i++)
                    if (c[i] == k && h[i] == hd && t[i] <= at)
                        last = i;
                want += last >= 0 && p[last] ? hsize[hd] : 0;
            }
            for (int i = 0; i < NEV; i++)
                any |= c[i] == k && p[i] && t[i] <= at;
            if (any && got != want)
                fail_msg("container %d at %g: %g, brute force %g", k, at, got, want);
        }
    }
    ari_presence_series_free(out, NC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
