/* test_model_comparison.c: the per-group rows of the model comparison and
 * their best models (src/analysis/model_comparison.c), on hand-made
 * results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/model_comparison.h"

static ari_anom_entry entry(int group, int cluster, size_t n, double r2, double mae, double rmse, size_t anomalies)
{
    ari_anom_entry e;
    memset(&e, 0, sizeof e);
    e.group = group;
    e.cluster = cluster;
    e.fit.n = n;
    e.fit.fittable = !isnan(mae);
    e.fit.r2_duration = r2;
    e.fit.mae = mae;
    e.fit.rmse = rmse;
    e.fit.nanomalies = anomalies;
    return e;
}

static void test_rows_and_best(void **state)
{
    (void)state;
    /* group 3: lr best by r2, nlr by mae, lr_log by rmse; group 1: none fittable */
    ari_anom_entry lr[] = {entry(3, 0, 10, 0.9, 2, 3, 1), entry(1, 0, 4, NAN, NAN, NAN, 0)};
    ari_anom_entry wlr[] = {entry(3, 0, 10, 0.8, 2, 3, 0), entry(1, 0, 4, NAN, NAN, NAN, 0)};
    ari_anom_entry nlr[] = {entry(3, 0, 10, 0.7, 1, 3, 2), entry(1, 0, 4, NAN, NAN, NAN, 0)};
    ari_anom_entry log[] = {entry(3, 0, 10, 0.9, 2, 2.5, 1), entry(1, 0, 4, NAN, NAN, NAN, 0)};
    ari_anom_entry mix[] = {entry(3, 0, 6, 0.5, 1, 1, 1), entry(3, 1, 4, 0.5, 1, 1, 2), entry(1, 0, 4, 0, 0, 0, 0)};
    ari_anom_result res[ARI_ANOM_NMODELS] = {
        {ARI_REG_LR, 14, 1, 2, lr, 0, NULL},   {ARI_REG_WLR, 14, 0, 2, wlr, 0, NULL},
        {ARI_REG_NLR, 14, 2, 2, nlr, 0, NULL}, {ARI_REG_LOG, 14, 1, 2, log, 0, NULL},
        {ARI_ANOM_FLEXMIX, 14, 3, 3, mix, 0, NULL},
    };
    const ari_anom_result *ptr[ARI_ANOM_NMODELS] = {&res[0], &res[1], &res[2], &res[3], &res[4]};
    ari_model_comparison cmp;
    ari_error err = {0};
    assert_int_equal(ari_models_compare(ptr, &cmp, &err), 0);
    assert_int_equal(cmp.nrows, 2);
    const ari_model_row *a = &cmp.rows[0], *b = &cmp.rows[1];
    assert_int_equal(a->group, 3); /* first appearance */
    assert_int_equal(a->tasks, 10);
    assert_ptr_equal(a->single[ARI_REG_NLR], &nlr[0]);
    assert_ptr_equal(a->clusters, &mix[0]);
    assert_int_equal(a->nclusters, 2);
    assert_int_equal(a->mixture_anomalies, 3);
    assert_int_equal(a->best[ARI_REG_BY_R2], ARI_REG_LR); /* tie with lr_log: the first wins */
    assert_int_equal(a->best[ARI_REG_BY_MAE], ARI_REG_NLR);
    assert_int_equal(a->best[ARI_REG_BY_RMSE], ARI_REG_LOG);
    assert_int_equal(b->group, 1);
    assert_int_equal(b->nclusters, 1);
    for (int m = 0; m < ARI_REG_NMETRICS; m++)
        assert_int_equal(b->best[m], -1);
    ari_model_comparison_free(&cmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_and_best),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
