/* test_abe.c: the area bound LP (src/analysis/abe.c).
 *
 * Closed forms always run (one resource type: T = sum_k n_k w_k / count;
 * a hand-solved CPU/GPU case); random instances are written in CPLEX LP
 * format and solved by the glpsol program when /usr/bin/glpsol exists, and
 * T must agree to 1e-6 relative. Every returned allocation is checked for
 * feasibility independently. Also errors and the 50 x 3 timing target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/abe.h"
#include "test_rng.h"

#define GLPSOL "/usr/bin/glpsol"

static void assert_rel(double got, double want, double rel)
{
    double tol = rel * (fabs(want) > 1e-9 ? fabs(want) : 1e-9);
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.15g, want %.15g (relative tolerance %g)", got, want, rel);
}

static int usable(const ari_abe_input *in, int r, int k)
{
    return in->res_count[r] > 0 && !isnan(in->mean_duration[r * in->ntypes + k]);
}

/* The allocation places every task, only on usable pairs, and no resource
 * type is busy longer than T. */
static void check_allocation(const ari_abe_input *in, const ari_abe_result *res)
{
    int K = in->ntypes, R = in->nrestypes;
    for (int k = 0; k < K; k++) {
        double placed = 0;
        for (int r = 0; r < R; r++) {
            double x = res->alloc[r * K + k];
            assert_true(x >= 0);
            if (!usable(in, r, k))
                assert_true(x == 0);
            placed += x;
        }
        assert_rel(placed, in->task_count[k], 1e-7);
    }
    for (int r = 0; r < R; r++) {
        double busy = 0;
        for (int k = 0; k < K; k++)
            if (usable(in, r, k))
                busy += in->mean_duration[r * K + k] * res->alloc[r * K + k];
        assert_true(busy <= in->res_count[r] * res->bound * (1 + 1e-7) + 1e-9);
        if (in->res_count[r] > 0)
            assert_rel(res->load[r], busy / in->res_count[r], 1e-9);
    }
}

/* ---- closed forms ------------------------------------------------------------------------- */

static void test_single_resource_type(void **state)
{
    (void)state;
    double n[] = {140, 56, 8, 64};
    double w[] = {57.98929, 35.26222, 25.73344, 5.076191}; /* the StarVZ LU kernels */
    double count[] = {38};
    ari_abe_input in = {4, 1, n, count, w};
    ari_abe_result res;
    ari_error err = {0};
    assert_int_equal(ari_abe_compute(&in, &res, &err), 0);
    double want = (140 * 57.98929 + 56 * 35.26222 + 8 * 25.73344 + 64 * 5.076191) / 38;
    assert_rel(res.bound, want, 1e-9);
    for (int k = 0; k < 4; k++)
        assert_rel(res.alloc[k], n[k], 1e-9);
    check_allocation(&in, &res);
    ari_abe_result_free(&res);
}

static void test_hand_solved_2x2(void **state)
{
    (void)state;
    /* 4 CPUs, 1 GPU; type 0: 10 tasks, 2 on CPU, 1 on GPU; type 1: 3
     * tasks, 5 on CPU, 1 on GPU. The GPU's advantage is larger for type 1
     * (5x vs 2x), so the GPU takes all of type 1 and y of type 0:
     * 3 + y = 2 (10 - y) / 4  ->  y = 4/3, T = 13/3; CPU keeps 26/3. */
    double n[] = {10, 3}, count[] = {4, 1};
    double w[] = {2, 5, /* CPU */ 1, 1 /* GPU */};
    ari_abe_input in = {2, 2, n, count, w};
    ari_abe_result res;
    ari_error err = {0};
    assert_int_equal(ari_abe_compute(&in, &res, &err), 0);
    assert_rel(res.bound, 13.0 / 3, 1e-9);
    assert_rel(res.alloc[0], 26.0 / 3, 1e-9);
    assert_true(fabs(res.alloc[1]) < 1e-9);
    assert_rel(res.alloc[2], 4.0 / 3, 1e-9);
    assert_rel(res.alloc[3], 3, 1e-9);
    check_allocation(&in, &res);
    ari_abe_result_free(&res);

    /* Same, but type 1 never ran on the CPU (NAN) and the GPU never ran
     * type 0: each type is forced, T = max(2 * 10 / 4, 3 * 1 / 1) = 5. */
    double w2[] = {2, NAN, NAN, 1};
    in.mean_duration = w2;
    assert_int_equal(ari_abe_compute(&in, &res, &err), 0);
    assert_rel(res.bound, 5, 1e-9);
    assert_true(res.alloc[1] == 0 && res.alloc[2] == 0);
    check_allocation(&in, &res);
    ari_abe_result_free(&res);

    /* No tasks at all: T = 0. */
    double zero[] = {0, 0};
    in.task_count = zero;
    assert_int_equal(ari_abe_compute(&in, &res, &err), 0);
    assert_true(res.bound == 0);
    ari_abe_result_free(&res);
}

static void test_errors(void **state)
{
    (void)state;
    double n[] = {10, 3}, count[] = {4, 1}, nores[] = {0, 0};
    double w[] = {2, 5, 1, 1}, wnan[] = {2, NAN, 1, NAN};
    ari_abe_result res;
    ari_error err;
    struct {
        ari_abe_input in;
        const char *why;
    } bad[] = {
        {{2, 2, n, nores, w}, "no resources"},
        {{2, 2, n, count, wnan}, "task type 1 has 3 tasks but no resource"},
        {{2, 2, n, (double[]){0, 1}, (double[]){2, 5, NAN, 1}}, "task type 0"},
        {{0, 2, n, count, w}, "out of range"},
        {{2, 0, n, count, w}, "out of range"},
        {{2, 2, NULL, count, w}, "missing"},
        {{2, 2, (double[]){-1, 3}, count, w}, "task_count[0]"},
        {{2, 2, n, (double[]){INFINITY, 1}, w}, "res_count[0]"},
        {{2, 2, n, count, (double[]){2, 5, -1, 1}}, "resource type 1, task type 0"},
        {{2, 2, n, count, (double[]){2, 5, INFINITY, 1}}, "resource type 1, task type 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_abe_compute(&bad[i].in, &res, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
        assert_null(res.alloc);
    }
    assert_int_equal(ari_abe_compute(NULL, &res, &err), -1);
    assert_int_equal(ari_abe_compute(&bad[0].in, NULL, &err), -1);
    /* A type without tasks needs no resource. */
    double n2[] = {10, 0};
    ari_abe_input ok = {2, 2, n2, count, wnan};
    assert_int_equal(ari_abe_compute(&ok, &res, &err), 0);
    ari_abe_result_free(&res);
}

/* ---- against glpsol ------------------------------------------------------------------------- */

/* Writes the LP in CPLEX LP format, independently of abe.c. */
static void write_lp(const char *path, const ari_abe_input *in)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int K = in->ntypes, R = in->nrestypes;
    fprintf(f, "Minimize\n obj: T\nSubject To\n");
    for (int k = 0; k < K; k++) {
        int terms = 0;
        for (int r = 0; r < R; r++)
            terms += usable(in, r, k);
        if (!terms)
            continue; /* no tasks (the input is feasible) */
        fprintf(f, " n%d:", k);
        for (int r = 0; r < R; r++)
            if (usable(in, r, k))
                fprintf(f, " + x_%d_%d", r, k);
        fprintf(f, " = %.17g\n", in->task_count[k]);
    }
    for (int r = 0; r < R; r++) {
        if (in->res_count[r] == 0)
            continue;
        fprintf(f, " r%d:", r);
        for (int k = 0; k < K; k++)
            if (usable(in, r, k) && in->mean_duration[r * K + k] > 0)
                fprintf(f, " + %.17g x_%d_%d", in->mean_duration[r * K + k], r, k);
        fprintf(f, " - %.17g T <= 0\n", in->res_count[r]);
    }
    fprintf(f, "End\n");
    fclose(f);
}

/* Solves the LP file with glpsol; returns the optimal objective. */
static double glpsol_objective(const char *lp, const char *sol)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --lp %s -w %s >/dev/null 2>&1", GLPSOL, lp, sol);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(sol, "r");
    assert_non_null(f);
    char line[512];
    double obj = NAN;
    while (fgets(line, sizeof line, f)) {
        int rows, cols;
        char pst, dst;
        if (sscanf(line, "s bas %d %d %c %c %lg", &rows, &cols, &pst, &dst, &obj) == 5) {
            if (pst != 'f' || dst != 'f')
                fail_msg("glpsol: solution not optimal (%c %c)", pst, dst);
            break;
        }
    }
    fclose(f);
    assert_false(isnan(obj));
    return obj;
}

/* A random feasible instance: K types, R resource types, ~25% unknown
 * pairs (every type keeps at least one usable resource type). */
static void random_instance(int K, int R, double *n, double *count, double *w)
{
    for (int r = 0; r < R; r++)
        count[r] = 1 + floor(rng_uniform() * 40);
    for (int k = 0; k < K; k++) {
        n[k] = rng_uniform() < 0.1 ? 0 : floor(rng_uniform() * 2000);
        int any = 0;
        for (int r = 0; r < R; r++) {
            w[r * K + k] = rng_uniform() < 0.25 ? NAN : 0.05 + 100 * rng_uniform() * rng_uniform();
            any |= !isnan(w[r * K + k]);
        }
        if (!any)
            w[(k % R) * K + k] = 1 + rng_uniform();
    }
}

static void test_random_vs_glpsol(void **state)
{
    (void)state;
    if (access(GLPSOL, X_OK) != 0) {
        print_message("[  SKIP    ] %s missing: comparison with glpsol skipped\n", GLPSOL);
        return;
    }
    char dir[] = "/tmp/ariadne-abe-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char lp[256], sol[256];
    snprintf(lp, sizeof lp, "%s/abe.lp", dir);
    snprintf(sol, sizeof sol, "%s/abe.sol", dir);
    rng_state = 0x2545f4914f6cdd1dULL;
    int ninstances = 40;
    double worst = 0;
    for (int t = 0; t < ninstances; t++) {
        int K = 1 + (int)(rng_uniform() * 25), R = 1 + (int)(rng_uniform() * 4);
        double n[32], count[8], w[8 * 32];
        random_instance(K, R, n, count, w);
        ari_abe_input in = {K, R, n, count, w};
        ari_abe_result res;
        ari_error err = {0};
        if (ari_abe_compute(&in, &res, &err) != 0)
            fail_msg("instance %d: %s", t, err.message);
        check_allocation(&in, &res);
        write_lp(lp, &in);
        double want = glpsol_objective(lp, sol);
        assert_rel(res.bound, want, 1e-6);
        double rel = fabs(res.bound - want) / (want > 0 ? want : 1);
        worst = rel > worst ? rel : worst;
        ari_abe_result_free(&res);
    }
    print_message("[  INFO    ] %d random instances agree with glpsol (worst relative gap %.2g)\n",
                  ninstances, worst);
    unlink(lp), unlink(sol), rmdir(dir);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_performance_50x3(void **state)
{
    (void)state;
    enum { K = 50, R = 3 };
    double n[K], count[R], w[R * K];
    rng_state = 0xdeadbeefcafef00dULL;
    random_instance(K, R, n, count, w);
    ari_abe_input in = {K, R, n, count, w};
    ari_abe_result res;
    ari_error err = {0};
    double t0 = now_ms();
    assert_int_equal(ari_abe_compute(&in, &res, &err), 0);
    double ms = now_ms() - t0;
    print_message("[  INFO    ] ABE 50 task types x 3 resource types: %.3f ms (target < 50 ms), "
                  "T = %.6g\n",
                  ms, res.bound);
    check_allocation(&in, &res);
    ari_abe_result_free(&res);
    assert_true(ms < 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_resource_type),
        cmocka_unit_test(test_hand_solved_2x2),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_vs_glpsol),
        cmocka_unit_test(test_performance_50x3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
