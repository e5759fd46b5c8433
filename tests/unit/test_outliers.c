/* test_outliers.c: type-7 quartiles and Q3 + 1.5 IQR outliers
 * (src/analysis/quantile.c, src/analysis/outliers.c).
 *
 * Hand-computed groups always run; generated samples are compared with R's
 * quantile(type = 7) when /usr/bin/Rscript exists; the StarVZ LU trace's
 * dgemm threshold (59.32025 ms, 0 outliers) is checked when the shared
 * data is present.
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
#include <unistd.h>
#include <zlib.h>

#include "analysis/outliers.h"
#include "analysis/quantile.h"
#include "test_rng.h"

#define RSCRIPT "/usr/bin/Rscript"

static void assert_close(double got, double want, double rel)
{
    double tol = rel * (fabs(want) > 1 ? fabs(want) : 1);
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* ---- hand-computed cases -------------------------------------------------------- */

static void test_quantile7_by_hand(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
    /* h = 9 p: p = .25 -> 2.25 -> 3 + .25 (4 - 3); p = .75 -> 6.75 -> 7.75 */
    assert_close(ari_quantile7_sorted(x, 10, 0.25), 3.25, 0);
    assert_close(ari_quantile7_sorted(x, 10, 0.75), 7.75, 0);
    assert_close(ari_quantile7_sorted(x, 10, 0.0), 1, 0);
    assert_close(ari_quantile7_sorted(x, 10, 1.0), 100, 0);
    assert_close(ari_quantile7_sorted(x, 10, 0.5), 5.5, 0);
    double one[] = {42};
    assert_close(ari_quantile7_sorted(one, 1, 0.75), 42, 0);
    double two[] = {1, 3};
    assert_close(ari_quantile7_sorted(two, 2, 0.25), 1.5, 0);
    assert_close(ari_quantile7_sorted(two, 2, 0.75), 2.5, 0);
    /* Equal neighbours give the value itself, as in R: the interpolation
     * (1 - h) q + h q would round 61.453252853180864 up by one ulp here. */
    double same[9];
    for (int i = 0; i < 9; i++)
        same[i] = 61.453252853180864;
    assert_true(ari_quantile7_sorted(same, 9, 0.04419006112954338) == 61.453252853180864);
    double y[] = {5, 1, 4, 2, 3};
    ari_sort_doubles(y, 5);
    for (int i = 0; i < 5; i++)
        assert_close(y[i], i + 1, 0);
}

static void test_groups_by_hand(void **state)
{
    (void)state;
    /* Group (type 0, restype 0): 1..9 and 100, shuffled: Q1 3.25, Q3 7.75,
     * threshold 7.75 + 1.5 * 4.5 = 14.5, one outlier (100).
     * Group (type 1, restype 0): {1, 3}: 1.5, 2.5, threshold 4.
     * Group (type 0, restype 1): {10, 10, 10, 10}: threshold 10, 10 is not
     * above it. Group (type 1, restype 1): empty -> NAN. */
    double d[] = {7, 100, 1, 10, 3, 9, 1, 10, 2, 8, 3, 10, 4, 5, 10, 6};
    int type[] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    int rest[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0};
    ari_outlier_input in = {16, d, type, rest, 2, 2};
    ari_outlier_result res;
    ari_error err = {0};
    assert_int_equal(ari_outliers_compute(&in, &res, &err), 0);
    const ari_outlier_group *g00 = &res.groups[0], *g01 = &res.groups[1];
    const ari_outlier_group *g10 = &res.groups[2], *g11 = &res.groups[3];
    assert_int_equal(g00->count, 10);
    assert_close(g00->q1, 3.25, 0);
    assert_close(g00->q3, 7.75, 0);
    assert_close(g00->iqr, 4.5, 0);
    assert_close(g00->threshold, 14.5, 0);
    assert_int_equal(g00->noutliers, 1);
    assert_int_equal(g01->count, 2);
    assert_close(g01->threshold, 4, 0);
    assert_int_equal(g01->noutliers, 0);
    assert_int_equal(g10->count, 4);
    assert_close(g10->threshold, 10, 0);
    assert_int_equal(g10->noutliers, 0);
    assert_int_equal(g11->count, 0);
    assert_true(isnan(g11->threshold));
    assert_int_equal(res.noutliers, 1);
    for (int i = 0; i < 16; i++)
        assert_int_equal(res.is_outlier[i], i == 1);
    ari_outlier_result_free(&res);

    /* A threshold is exceeded only strictly: {1, 1, 1, 1, 2}: Q1 = Q3 = 1,
     * threshold 1, so 2 is an outlier and the 1s are not. */
    double e[] = {1, 2, 1, 1, 1};
    int z[] = {0, 0, 0, 0, 0};
    ari_outlier_input in2 = {5, e, z, z, 1, 1};
    assert_int_equal(ari_outliers_compute(&in2, &res, &err), 0);
    assert_close(res.groups[0].threshold, 1, 0);
    assert_int_equal(res.noutliers, 1);
    assert_int_equal(res.is_outlier[1], 1);
    ari_outlier_result_free(&res);
}

static void test_empty_and_errors(void **state)
{
    (void)state;
    ari_outlier_result res;
    ari_error err = {0};
    ari_outlier_input empty = {0, NULL, NULL, NULL, 3, 2};
    assert_int_equal(ari_outliers_compute(&empty, &res, &err), 0);
    assert_int_equal(res.noutliers, 0);
    for (int g = 0; g < 6; g++) {
        assert_int_equal(res.groups[g].count, 0);
        assert_true(isnan(res.groups[g].q1));
    }
    ari_outlier_result_free(&res);

    double d[] = {1, 2};
    int t[] = {0, 1}, r[] = {0, 0};
    struct {
        ari_outlier_input in;
        const char *why;
    } bad[] = {
        {{2, d, t, r, 1, 1}, "has type id 1 outside"},
        {{2, d, t, r, 2, 0}, "nrestypes"},
        {{2, d, NULL, r, 2, 1}, "missing"},
        {{2, (double[]){1, NAN}, t, r, 2, 1}, "invalid duration"},
        {{2, (double[]){1, -1}, t, r, 2, 1}, "invalid duration"},
        {{2, d, t, (int[]){0, 3}, 2, 1}, "resource type id"},
        {{2, d, t, r, 1 << 14, 1 << 14}, "exceeds"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ari_error_clear(&err);
        assert_int_equal(ari_outliers_compute(&bad[i].in, &res, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
        if (!strstr(err.message, bad[i].why))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.message, bad[i].why);
        assert_null(res.groups);
        ari_outlier_result_free(&res);
    }
    assert_int_equal(ari_outliers_compute(NULL, &res, &err), -1);
    assert_int_equal(ari_outliers_compute(&empty, NULL, &err), -1);
}

/* ---- against R -------------------------------------------------------------------- */

#define NSAMPLES 60

/* Sample s has (s % 37) + 1 values; every 3rd sample is rounded to
 * integers to create ties; some are heavy-tailed. */
static size_t make_sample(int s, double *x)
{
    size_t n = (size_t)(s % 37) + 1 + (s > 40 ? 150 : 0);
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform();
        double v = s % 5 == 0 ? exp(4 * u) : 10 + 50 * u;
        x[i] = s % 3 == 0 ? floor(v) : v;
    }
    return n;
}

static void test_against_r(void **state)
{
    (void)state;
    if (access(RSCRIPT, X_OK) != 0) {
        print_message("[  SKIP    ] %s missing: R comparison skipped\n", RSCRIPT);
        return;
    }
    char dir[] = "/tmp/ariadne-outliers-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char data[256], script[256];
    snprintf(data, sizeof data, "%s/samples.txt", dir);
    snprintf(script, sizeof script, "%s/q.R", dir);
    FILE *f = fopen(data, "w");
    assert_non_null(f);
    double x[256], thr[NSAMPLES], q1[NSAMPLES], q3[NSAMPLES];
    rng_state = 0x9e3779b97f4a7c15ULL;
    for (int s = 0; s < NSAMPLES; s++) {
        size_t n = make_sample(s, x);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%.17g", i ? " " : "", x[i]);
        fputc('\n', f);
        int *zeros = calloc(n, sizeof *zeros);
        ari_outlier_input in = {n, x, zeros, zeros, 1, 1};
        ari_outlier_result res;
        ari_error err = {0};
        assert_int_equal(ari_outliers_compute(&in, &res, &err), 0);
        q1[s] = res.groups[0].q1, q3[s] = res.groups[0].q3, thr[s] = res.groups[0].threshold;
        ari_outlier_result_free(&res);
        free(zeros);
    }
    fclose(f);
    f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "for (l in readLines('%s')) {\n"
               "  x <- as.numeric(strsplit(l, ' ')[[1]])\n"
               "  q <- quantile(x, c(.25, .75), type = 7)\n"
               "  cat(sprintf('%%.17g %%.17g %%.17g\\n', q[1], q[2], q[2] + 1.5 * (q[2] - q[1])))\n"
               "}\n",
            data);
    fclose(f);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s --vanilla %s 2>&1", RSCRIPT, script);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int s = 0;
    double rq1, rq3, rthr;
    while (s < NSAMPLES && fscanf(p, "%lg %lg %lg", &rq1, &rq3, &rthr) == 3) {
        assert_close(q1[s], rq1, 1e-12);
        assert_close(q3[s], rq3, 1e-12);
        assert_close(thr[s], rthr, 1e-12);
        s++;
    }
    pclose(p);
    assert_int_equal(s, NSAMPLES);
    print_message("[  INFO    ] %d samples agree with R quantile(type = 7)\n", s);
    unlink(data), unlink(script), rmdir(dir);
}

/* ---- StarVZ LU trace ------------------------------------------------------------------ */

/* Splits a ", "-separated line in place; returns the field count. */
static int split_fields(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < max;) {
        while (*p == ' ')
            p++;
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static int column_index(char **fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    fail_msg("column %s missing", name);
    return -1;
}

static void test_starvz_lu(void **state)
{
    (void)state;
    const char *base = getenv("ARIADNE_SHARED_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/starvz/inst/extdata/lu_trace/paje.worker_state.csv.gz",
             base ? base : "../shared/data");
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        print_message("[  SKIP    ] %s absent: StarVZ LU check skipped\n", path);
        return;
    }
    char line[4096], *fld[64];
    assert_non_null(gzgets(gz, line, sizeof line));
    int nf = split_fields(line, fld, 64);
    int c_value = column_index(fld, nf, "Value"), c_dur = column_index(fld, nf, "Duration");
    int c_job = column_index(fld, nf, "JobId"), c_res = column_index(fld, nf, "ResourceId");

    /* Task types by name in order of appearance; resource type from the
     * ResourceId ("0_CPU3" -> CPU, "1_CUDA0" -> CUDA). */
    char names[16][64];
    int ntypes = 0;
    size_t n = 0, cap = 8192;
    double *dur = malloc(cap * sizeof *dur);
    int *type = malloc(cap * sizeof *type), *rest = malloc(cap * sizeof *rest);
    while (gzgets(gz, line, sizeof line)) {
        nf = split_fields(line, fld, 64);
        if (nf <= c_job || fld[c_job][0] == '\0')
            continue;
        int k = 0;
        while (k < ntypes && strcmp(names[k], fld[c_value]) != 0)
            k++;
        if (k == ntypes) {
            assert_true(ntypes < 16);
            snprintf(names[ntypes++], sizeof names[0], "%s", fld[c_value]);
        }
        assert_true(n < cap);
        dur[n] = strtod(fld[c_dur], NULL);
        type[n] = k;
        rest[n] = strstr(fld[c_res], "CUDA") ? 1 : 0;
        n++;
    }
    gzclose(gz);

    ari_outlier_input in = {n, dur, type, rest, ntypes, 2};
    ari_outlier_result res;
    ari_error err = {0};
    assert_int_equal(ari_outliers_compute(&in, &res, &err), 0);
    int dgemm = -1;
    for (int k = 0; k < ntypes; k++)
        if (strcmp(names[k], "dgemm") == 0)
            dgemm = k;
    assert_true(dgemm >= 0);
    const ari_outlier_group *g = &res.groups[dgemm]; /* CPU row */
    assert_int_equal(g->count, 140);
    print_message("[  INFO    ] StarVZ LU: %zu tasks, dgemm threshold %.7f, %zu outliers\n", n,
                  g->threshold, res.noutliers);
    assert_close(g->threshold, 59.32025, 1e-5 / 59.32025);
    assert_int_equal(g->noutliers, 0);
    assert_int_equal(res.noutliers, 0); /* StarVZ: every Outlier flag FALSE */
    assert_int_equal(n, 268);
    ari_outlier_result_free(&res);
    free(dur), free(type), free(rest);
}

/* The outliers listed by start time, ties by index. */
static void test_by_start(void **state)
{
    (void)state;
    unsigned char flag[] = {1, 0, 1, 1, 0};
    const double start[] = {7, 0, 3, 3, 1};
    ari_outlier_result res = {1, 1, NULL, flag, 5, 3};
    int64_t *idx = ari_outliers_by_start(&res, start);
    assert_non_null(idx);
    assert_true(idx[0] == 2 && idx[1] == 3 && idx[2] == 0);
    free(idx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_start),
        cmocka_unit_test(test_quantile7_by_hand),
        cmocka_unit_test(test_groups_by_hand),
        cmocka_unit_test(test_empty_and_errors),
        cmocka_unit_test(test_against_r),
        cmocka_unit_test(test_starvz_lu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
