/* test_metrics_readers.c: the sampled-metrics readers (ross_csv.c,
 * metrics_csv.c) into a recording sink: cells of the project's fixtures
 * (tests/fixtures/metrics, values are formulas of row and column), the
 * real ROSS sample when ../shared/data is there (cells read from the file
 * here), gzip input, and errors that name line and column. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "ingest/input.h"
#include "ingest/metrics_csv.h"
#include "ingest/ross_csv.h"
#include "test_helpers.h"
#include "util/fs.h"

/* ---- a sink that keeps everything in small tables --------------------------------------- */

#define MAXN 512

typedef struct rec {
    double times[MAXN];
    int ntimes;
    char ent[MAXN][48], ent_level[MAXN][8];
    int64_t parent[MAXN];
    int nents;
    char met[64][48];
    int nmets;
    /* last value per (metric, entity, time) */
    double sum[32][300][100];
    int cnt[32][300][100];
    int64_t comm_rows, comm_entries;
    double comm_sum;
} rec;

static int64_t r_time(void *ctx, int domain, double key, const double *other)
{
    (void)domain, (void)other;
    rec *r = ctx;
    for (int i = 0; i < r->ntimes; i++)
        if (r->times[i] == key)
            return i;
    r->times[r->ntimes] = key;
    return r->ntimes++;
}

static int64_t r_entity(void *ctx, const char *level, const char *name, int64_t parent)
{
    rec *r = ctx;
    for (int i = 0; i < r->nents; i++)
        if (strcmp(r->ent[i], name) == 0 && strcmp(r->ent_level[i], level) == 0)
            return i;
    snprintf(r->ent[r->nents], sizeof r->ent[0], "%s", name);
    snprintf(r->ent_level[r->nents], sizeof r->ent_level[0], "%s", level);
    r->parent[r->nents] = parent;
    return r->nents++;
}

static int64_t r_metric(void *ctx, const char *name, int attribute)
{
    (void)attribute;
    rec *r = ctx;
    for (int i = 0; i < r->nmets; i++)
        if (strcmp(r->met[i], name) == 0)
            return i;
    snprintf(r->met[r->nmets], sizeof r->met[0], "%s", name);
    return r->nmets++;
}

static int r_value(void *ctx, int64_t m, int64_t e, int64_t t, double v)
{
    rec *r = ctx;
    if (m < 32 && e < 300 && t < 100) {
        r->sum[m][e][t] += v;
        r->cnt[m][e][t]++;
    }
    return 0;
}

static int r_comm(void *ctx, int64_t t, int64_t src, const int64_t *dst, const double *count, size_t n)
{
    (void)t, (void)src, (void)dst;
    rec *r = ctx;
    r->comm_rows++;
    r->comm_entries += (int64_t)n;
    for (size_t i = 0; i < n; i++)
        r->comm_sum += count[i];
    return 0;
}

static ari_metrics_sink sink_of(rec *r)
{
    return (ari_metrics_sink){r, r_time, r_entity, r_metric, r_value, r_comm, NULL};
}

static int find(rec *r, const char *level, const char *name)
{
    for (int i = 0; i < r->nents; i++)
        if (strcmp(r->ent[i], name) == 0 && strcmp(r->ent_level[i], level) == 0)
            return i;
    return -1;
}

static int metric_of(rec *r, const char *name)
{
    for (int i = 0; i < r->nmets; i++)
        if (strcmp(r->met[i], name) == 0)
            return i;
    return -1;
}

static int time_of(rec *r, double t)
{
    for (int i = 0; i < r->ntimes; i++)
        if (r->times[i] == t)
            return i;
    return -1;
}

static double cell(rec *r, const char *metric, const char *level, const char *ent, double t)
{
    int m = metric_of(r, metric), e = find(r, level, ent), ti = time_of(r, t);
    assert_true(m >= 0 && e >= 0 && ti >= 0);
    return r->cnt[m][e][ti] ? r->sum[m][e][ti] / r->cnt[m][e][ti] : NAN;
}

static char *fixture(const char *name)
{
    char *p;
    if (asprintf(&p, "%s/tests/fixtures/metrics/%s", test_source_dir(), name) < 0)
        abort();
    return p;
}

static double gvt(int j)
{
    return 1000.5 * (j + 1) + j * j * 0.25;
}

/* ---- ROSS fixtures ------------------------------------------------------------------------- */

static void test_matrix_cells(void **state)
{
    (void)state;
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    ari_ross_shape shape;
    char *path = fixture("ross/run-12kp_RbTotal.csv");
    char metric[64];
    assert_int_equal(ari_ross_metric_of_name(path, metric, sizeof metric), 0);
    assert_string_equal(metric, "RbTotal");
    assert_int_equal(ari_ross_matrix_read(path, "RbTotal.csv", metric, 4, &k, &shape, &err), 0);
    assert_int_equal(shape.rows, 12);
    assert_int_equal(shape.cols, 20);
    assert_int_equal(r->ntimes, 20);
    for (int kp = 0; kp < 12; kp++)
        for (int j = 0; j < 20; j += 7) {
            char name[16];
            snprintf(name, sizeof name, "KP %d", kp);
            assert_true(cell(r, "RbTotal", "KP", name, gvt(j)) == (kp * 7 + j * 3) % 50 + 20);
            int e = find(r, "KP", name);
            assert_string_equal(r->ent[r->parent[e]], kp / 4 == 0 ? "PE 0" : kp / 4 == 1 ? "PE 1" : "PE 2");
        }
    free(path);
    free(r);
}

static void test_records_cells(void **state)
{
    (void)state;
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    ari_ross_records_info info;
    char *path = fixture("ross/run-12kp_kpgid5.csv");
    assert_int_equal(ari_ross_records_scan(path, "kpgid5.csv", &info, &err), 0);
    assert_int_equal(info.kps_per_pe, 4);
    assert_int_equal(ari_ross_records_read(path, "kpgid5.csv", 4, &k, &info, &err), 0);
    assert_int_equal(info.rows, 20);
    assert_int_equal(info.comm_length, 12);
    assert_true(info.nonzero[ARI_MT_REALTS] && !info.nonzero[ARI_MT_VIRTUALTS]);
    assert_int_equal(r->comm_rows, 20);
    double expect = 0;
    int64_t entries = 0;
    for (int j = 0; j < 20; j++) {
        expect += 10 + j + j + 3;
        entries += j ? 3 : 2; /* CommData[2] = j is 0 at j = 0 */
    }
    assert_true(r->comm_sum == expect);
    assert_int_equal(r->comm_entries, entries);
    assert_true(cell(r, "RbTotal", "KP", "KP 5", gvt(3)) == (5 * 7 + 9) % 50 + 20);
    assert_true(cell(r, "NeventProcessed", "KP", "KP 5", gvt(4)) == 1040);
    assert_true(fabs(cell(r, "VirtualTimeDiff", "KP", "KP 5", gvt(2)) - (-1.0)) < 1e-12);
    assert_string_equal(r->ent[r->parent[find(r, "KP", "KP 5")]], "PE 1");
    assert_non_null(r->ent[find(r, "KP", "KP 9")]); /* a CommData destination */
    free(path);
    free(r);
}

/* ---- the real sample ---------------------------------------------------------------------------- */

static const char *shared_dir(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    return d ? d : "../shared/data";
}

/* Row `row` (0-based after the header; -1 the header), column `col` of a CSV, quotes stripped. */
static double csv_cell(const char *path, int row, int col)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    for (int i = 0; i <= row + 1; i++)
        assert_true(getline(&line, &cap, f) > 0);
    char *p = line;
    for (int c = 0, quoted = 0; c < col; p++) { /* commas inside quotes (CommData) do not count */
        quoted ^= *p == '"';
        c += *p == ',' && !quoted;
    }
    while (*p == '"')
        p++;
    double v = strtod(p, NULL);
    free(line);
    fclose(f);
    return v;
}

static void test_real_sample(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/ross-sample/RbTotal.csv", shared_dir());
    FILE *probe = fopen(path, "r");
    if (!probe) {
        printf("skipped: no %s\n", path);
        return;
    }
    fclose(probe);
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    ari_ross_shape shape;
    assert_int_equal(ari_ross_matrix_read(path, "RbTotal.csv", "RbTotal", 16, &k, &shape, &err), 0);
    assert_int_equal(shape.rows, 256);
    assert_int_equal(shape.cols, 99);
    double g0 = csv_cell(path, -1, 0), g98 = csv_cell(path, -1, 98);
    assert_true(r->times[0] == g0 && r->times[98] == g98);
    assert_true(cell(r, "RbTotal", "KP", "KP 0", g0) == csv_cell(path, 0, 0));
    assert_true(cell(r, "RbTotal", "KP", "KP 100", g98) == csv_cell(path, 100, 98));
    assert_true(cell(r, "RbTotal", "KP", "KP 255", csv_cell(path, -1, 50)) == csv_cell(path, 255, 50));
    assert_string_equal(r->ent[r->parent[find(r, "KP", "KP 100")]], "PE 6");
    /* the record CSV: KP 100 on PE 6, 16 KPs per PE, 256-long CommData */
    snprintf(path, sizeof path, "%s/ross-sample/kpgid100.csv", shared_dir());
    ari_ross_records_info info;
    memset(r, 0, sizeof *r);
    assert_int_equal(ari_ross_records_read(path, "kpgid100.csv", 16, &k, &info, &err), 0);
    assert_int_equal(info.rows, 99);
    assert_int_equal(info.kps_per_pe, 16);
    assert_int_equal(info.comm_length, 256);
    assert_true(cell(r, "RbTotal", "KP", "KP 100", csv_cell(path, 0, 2)) == csv_cell(path, 0, 30));
    free(r);
}

/* ---- generic CSVs ------------------------------------------------------------------------------- */

static void test_long_csv(void **state)
{
    (void)state;
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    char *path = fixture("long.csv");
    char head[512];
    long got = ari_input_head(path, head, sizeof head);
    assert_true(got > 0 && ari_metrics_long_probe(head, (size_t)got) && !ari_metrics_wide_probe(head, (size_t)got));
    assert_int_equal(ari_metrics_long_read(path, "long.csv", &k, &err), 0);
    assert_int_equal(r->ntimes, 5);
    assert_true(cell(r, "flops", "entity", "rank 2", 1.5) == 23);
    assert_true(cell(r, "flops", "entity", "rank 3", 1.0) == 66); /* (32 + 100) / 2 */
    assert_true(cell(r, "bytes", "entity", "rank 0", 2.0) == 996);
    assert_string_equal(r->ent[r->parent[find(r, "entity", "rank 3")]], "node 1");
    free(path);
    free(r);
}

static void test_wide_csv(void **state)
{
    (void)state;
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    char *path = fixture("cpu_wide.csv");
    assert_int_equal(ari_metrics_wide_read(path, "cpu_wide.csv", "cpu", &k, &err), 0);
    assert_int_equal(r->ntimes, 6);
    assert_true(cell(r, "cpu", "entity", "rank0", 30) == 3.5);
    assert_true(cell(r, "cpu", "entity", "rank1", 50) == 12.5);
    assert_true(isnan(cell(r, "cpu", "entity", "rank2", 20)));
    assert_true(cell(r, "cpu", "entity", "rank2", 40) == 16);
    /* by entity: the header gives the times */
    char *dir = test_tmpdir();
    const char text[] = "entity,0.5,1.5\nA,1,2\nB,3,\n";
    char *p2 = test_write_file(dir, "mem.csv", text, sizeof text - 1);
    memset(r, 0, sizeof *r);
    assert_int_equal(ari_metrics_wide_read(p2, "mem.csv", "mem", &k, &err), 0);
    assert_true(cell(r, "mem", "entity", "B", 0.5) == 3 && isnan(cell(r, "mem", "entity", "B", 1.5)));
    ari_remove_tree(dir);
    free(dir);
    free(p2);
    free(path);
    free(r);
}

/* ---- compressed input and errors ------------------------------------------------------------------ */

static void test_gzip_matrix(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *gz;
    if (asprintf(&gz, "%s/x_RbSec.csv.gz", dir) < 0)
        abort();
    gzFile g = gzopen(gz, "wb");
    gzputs(g, "\"1\",\"2\"\n3,4\n5,6\n");
    gzclose(g);
    char head[256], metric[32];
    long got = ari_input_head(gz, head, sizeof head);
    assert_true(got > 0 && ari_ross_matrix_probe(head, (size_t)got));
    assert_int_equal(ari_ross_metric_of_name("x_RbSec.csv.gz", metric, sizeof metric), 0);
    assert_string_equal(metric, "RbSec");
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    ari_ross_shape shape;
    assert_int_equal(ari_ross_matrix_read(gz, "x_RbSec.csv.gz", metric, 0, &k, &shape, &err), 0);
    assert_true(cell(r, "RbSec", "KP", "KP 1", 2) == 6);
    assert_int_equal(r->parent[find(r, "KP", "KP 1")], -1);
    ari_remove_tree(dir);
    free(dir);
    free(gz);
    free(r);
}

static void expect_error(const char *name, const char *text, int records, const char *message)
{
    char *dir = test_tmpdir(), *path = test_write_file(dir, name, text, strlen(text));
    rec *r = calloc(1, sizeof *r);
    ari_metrics_sink k = sink_of(r);
    ari_error err = {0};
    ari_ross_shape shape;
    ari_ross_records_info info;
    int rc = records == 1   ? ari_ross_records_read(path, name, 16, &k, &info, &err)
             : records == 2 ? ari_metrics_long_read(path, name, &k, &err)
                            : ari_ross_matrix_read(path, name, "RbSec", 16, &k, &shape, &err);
    assert_int_equal(rc, -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    if (!strstr(err.message, message))
        fail_msg("'%s' does not say '%s'", err.message, message);
    ari_remove_tree(dir);
    free(dir);
    free(path);
    free(r);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("RbSec.csv", "\"1\",\"2\"\n3,x4\n", 0, "RbSec.csv:2:2: not a number");
    expect_error("RbSec.csv", "\"1\",\"2\"\n3,4,5\n", 0, "RbSec.csv:2: 3 values where the header has 2");
    expect_error("RbSec.csv", "\"1\",\"2\n", 0, "RbSec.csv:1:2: unterminated quote");
    expect_error("r.csv", "LastGvt,KpGid,RbTotal,CommData\n1,5,2,\"[1, 2\"\n", 1, "r.csv:2:4: CommData");
    expect_error("r.csv", "LastGvt,KpGid,RbTotal\n1,-5,2\n", 1, "r.csv:2:2: a whole number");
    expect_error("r.csv", "LastGvt,Peid,Kpid,KpGid\n1,2,1,6\n", 1, "KpGid 6 is not Peid * nKP + Kpid");
    expect_error("l.csv", "entity,time,metric,value\na,1,m,2\na,x,m,3\n", 2, "l.csv:3:2: the time must be a number");
    expect_error("l.csv", "entity,time,metric\na,1,m\n", 2, "needs a column 'value'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_cells), cmocka_unit_test(test_records_cells), cmocka_unit_test(test_real_sample),
        cmocka_unit_test(test_long_csv),     cmocka_unit_test(test_wide_csv),      cmocka_unit_test(test_gzip_matrix),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
