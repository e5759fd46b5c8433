/* test_bounds.c: the bounds of a set of tasks, in all, per node and per
 * iteration (src/analysis/bounds.c), on a hand-made four-task DAG with one
 * resource type, where ABE has the closed form sum_k n_k w_k / workers and
 * CPE is the longest chain of mean durations (values computed by hand). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/bounds.h"

#define NONE ARI_BOUNDS_NO_ITERATION

/* i0 (type 0, node 0, it 1, [0, 2]) -> i2 (type 1, node 0, it 1, [2, 8]);
 * i1 (type 0, node 1, it 2, [1, 5]) -> i3 (type 0, node 1, none, [5, 8]). */
static const int type[] = {0, 0, 1, 0};
static const int restype[] = {0, 0, 0, 0};
static const int64_t node[] = {0, 1, 0, 1};
static const int64_t iteration[] = {1, 2, 1, NONE};
static const double start[] = {0, 1, 2, 5};
static const double end[] = {2, 5, 8, 8};
static const int64_t pred_offset[] = {0, 0, 0, 1, 2};
static const int64_t pred[] = {0, 1};
static const int64_t nodes[] = {0, 1, 2};
static const double node_workers[] = {1, 1, 0};

static ari_bounds_input input(const double *workers, int by_iteration)
{
    ari_bounds_tasks t = {4, type, restype, node, iteration, start, end, pred_offset, pred};
    return (ari_bounds_input){t, 2, 1, workers, 3, nodes, node_workers, by_iteration, NULL};
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void test_whole(void **state)
{
    (void)state;
    const double workers[] = {2};
    ari_bounds_input in = input(workers, 0);
    ari_bounds_result res;
    ari_error err = {0};
    assert_int_equal(ari_bounds_compute(&in, &res, &err), 0);
    const ari_bounds_scope *a = &res.all;
    assert_true(a->makespan == 8 && a->start == 0 && a->span == 8);
    assert_near(a->abe, (3 * 3.0 + 1 * 6.0) / 2); /* means 3 and 6 */
    assert_near(a->cpe, 9);                        /* i0 -> i2: 3 + 6 */
    assert_int_equal(a->tasks, 4);
    assert_int_equal(a->workers, 2);
    assert_int_equal(a->ncells, 2);
    assert_true(a->cells[0].restype == 0 && a->cells[0].type == 0 && a->cells[0].actual == 3);
    assert_near(a->cells[0].ideal, 3);
    assert_near(a->cells[0].mean_duration, 3);
    assert_int_equal(a->cells[0].workers, 2);
    assert_true(a->cells[1].type == 1 && a->cells[1].actual == 1 && a->cells[1].mean_duration == 6);
    assert_near(a->cells[1].ideal, 1);
    assert_int_equal(res.has_iterations, 0);
    assert_int_equal(res.niterations, 0);
    ari_bounds_result_free(&res);
}

static void test_per_node(void **state)
{
    (void)state;
    const double workers[] = {2};
    ari_bounds_input in = input(workers, 0);
    ari_bounds_result res;
    ari_error err = {0};
    assert_int_equal(ari_bounds_compute(&in, &res, &err), 0);
    assert_int_equal(res.nnodes, 2); /* node 2: no task, no worker */
    const ari_bounds_scope *n0 = &res.nodes[0], *n1 = &res.nodes[1];
    assert_int_equal(n0->key, 0);
    assert_near(n0->abe, 2 + 6); /* one worker */
    assert_near(n0->cpe, 8);
    assert_int_equal(n0->tasks, 2);
    assert_int_equal(n1->key, 1);
    assert_true(n1->makespan == 8 && n1->start == 1 && n1->span == 7);
    assert_near(n1->abe, 7);
    assert_near(n1->cpe, 7); /* i1 -> i3 at mean 3.5 each */
    assert_int_equal(n1->ncells, 1);
    assert_int_equal(n1->cells[0].workers, 1);
    ari_bounds_result_free(&res);
}

static void test_per_iteration(void **state)
{
    (void)state;
    const double workers[] = {2};
    ari_bounds_input in = input(workers, 1);
    ari_bounds_result res;
    ari_error err = {0};
    assert_int_equal(ari_bounds_compute(&in, &res, &err), 0);
    assert_int_equal(res.has_iterations, 1);
    assert_int_equal(res.niterations, 2); /* i3 has none */
    const ari_bounds_scope *i1 = &res.iterations[0], *i2 = &res.iterations[1];
    assert_int_equal(i1->key, 1);
    assert_near(i1->abe, (2 + 6) / 2.0);
    assert_near(i1->cpe, 8); /* the internal edge i0 -> i2 */
    assert_int_equal(i2->key, 2);
    assert_true(i2->makespan == 5 && i2->start == 1);
    assert_near(i2->abe, 2);
    assert_near(i2->cpe, 4);
    assert_int_equal(i2->workers, 2);
    ari_bounds_result_free(&res);
}

static void test_no_workers_no_tasks(void **state)
{
    (void)state;
    const double none[] = {0};
    ari_bounds_input in = input(none, 0);
    ari_bounds_result res;
    ari_error err = {0};
    assert_int_equal(ari_bounds_compute(&in, &res, &err), 0);
    assert_true(isnan(res.all.abe)); /* the LP is infeasible: no bound, no error */
    assert_near(res.all.cpe, 9);
    assert_true(isnan(res.all.cells[0].ideal));
    ari_bounds_result_free(&res);

    in.tasks.n = 0;
    in.nnodes = 0;
    assert_int_equal(ari_bounds_compute(&in, &res, &err), 0);
    assert_true(isnan(res.all.makespan) && isnan(res.all.start));
    assert_true(res.all.abe == 0 && res.all.cpe == 0 && res.all.tasks == 0 && res.all.ncells == 0);
    ari_bounds_result_free(&res);
}

static void test_means(void **state)
{
    (void)state;
    ari_bounds_tasks t = {4, type, restype, node, iteration, start, end, pred_offset, pred};
    const unsigned char keep[] = {1, 1, 0, 0};
    double *count, *mean;
    ari_error err = {0};
    assert_int_equal(ari_bounds_means(&t, 2, 1, keep, &count, &mean, &err), 0);
    assert_true(count[0] == 2 && mean[0] == 3 && count[1] == 0 && isnan(mean[1]));
    free(count);
    free(mean);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_per_node),
        cmocka_unit_test(test_per_iteration),
        cmocka_unit_test(test_no_workers_no_tasks),
        cmocka_unit_test(test_means),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
