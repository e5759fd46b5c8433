/* test_anomalies.c: the regression anomalies over groups
 * (src/analysis/anomalies.c): which tasks are modelled (usable, the
 * qr_mumps rule), each group's entry against a fit of the group's tasks
 * alone (ari_reg_fit_flags, brute force), the task list, and the mixture's
 * entries and clusters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/anomalies.h"

/* Type 0 (dgemm): 8 tasks near a line, one of them slow; type 1 (dtrsm):
 * 3 tasks of one GFlop value (not fittable); one task without GFlop. */
#define N 12
static const int type[N] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0};
static const int restype[N] = {0};
static const double gflop[N] = {1, 2, 3, 4, 5, 6, 7, 8, 2, 2, 2, NAN};
static const double duration[N] = {2.1, 3.9, 6.2, 7.8, 10.1, 30, 14.2, 15.9, 1, 1.5, 2, 3};
static const char *const names[] = {"dgemm", "dtrsm"};

static ari_anom_input input(const char *const *types)
{
    return (ari_anom_input){N, type, restype, gflop, duration, 2, 1, types};
}

static void test_groups_and_qr_mumps(void **state)
{
    (void)state;
    int group[N];
    ari_anom_input in = input(names);
    assert_int_equal(ari_anom_groups(&in, group), 11);
    assert_int_equal(group[0], 0);
    assert_int_equal(group[8], 1);
    assert_int_equal(group[11], -1); /* no GFlop */
    const char *const qr[] = {"geqrt", "lapack"};
    in.types = qr;
    assert_int_equal(ari_anom_groups(&in, group), 8); /* only the "qrt" type */
    assert_int_equal(group[8], -1);
}

static void test_single_model_matches_brute_force(void **state)
{
    (void)state;
    ari_anom_input in = input(names);
    ari_anom_result res;
    ari_error err = {0};
    assert_int_equal(ari_anomalies_compute(&in, ARI_REG_LR, &res, &err), 0);
    assert_int_equal(res.modelled, 11);
    assert_int_equal(res.nentries, 2);
    assert_int_equal(res.ntasks, 11);
    ari_reg_fit want;
    unsigned char flag[8];
    assert_int_equal(ari_reg_fit_flags(ARI_REG_LR, gflop, duration, 8, &want, flag, &err), 0);
    const ari_anom_entry *e = &res.entries[0];
    assert_int_equal(e->group, 0);
    assert_true(e->fit.b0 == want.b0 && e->fit.b1 == want.b1 && e->fit.s == want.s);
    assert_int_equal(e->fit.nanomalies, want.nanomalies);
    assert_true(e->gflop_min == 1 && e->gflop_max == 8);
    size_t flagged = 0;
    for (int j = 0; j < 8; j++) {
        assert_int_equal(res.tasks[j].task, j);
        assert_int_equal(res.tasks[j].entry, 0);
        assert_int_equal(res.tasks[j].anomaly, flag[j]);
        flagged += flag[j];
    }
    assert_false(res.entries[1].fit.fittable);         /* one GFlop value */
    assert_string_equal(res.entries[1].fit.reason, ARI_REG_SINGLE_GFLOP);
    assert_int_equal(res.count, flagged);
    ari_anom_result_free(&res);
}

static void test_mixture(void **state)
{
    (void)state;
    ari_anom_input in = input(names);
    ari_anom_result res;
    ari_error err = {0};
    assert_int_equal(ari_anomalies_compute(&in, ARI_ANOM_FLEXMIX, &res, &err), 0);
    assert_int_equal(res.ntasks, 11);
    size_t per_group[2] = {0, 0}, count = 0;
    for (size_t j = 0; j < res.nentries; j++) {
        assert_true(res.entries[j].has_mixture);
        per_group[res.entries[j].group] += res.entries[j].fit.n;
        count += res.entries[j].fit.nanomalies;
    }
    assert_int_equal(per_group[0], 8);
    assert_int_equal(per_group[1], 3);
    assert_int_equal(res.count, count);
    for (size_t j = 0; j < res.ntasks; j++) {
        const ari_anom_entry *e = &res.entries[res.tasks[j].entry];
        assert_int_equal(e->cluster, res.tasks[j].cluster);
        assert_int_equal(e->group, type[res.tasks[j].task]);
    }
    ari_anom_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_and_qr_mumps),
        cmocka_unit_test(test_single_model_matches_brute_force),
        cmocka_unit_test(test_mixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
