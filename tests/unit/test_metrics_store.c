/* test_metrics_store.c: sampled-metrics traces through the import, the
 * writer and the queries: the fixture run (3 PEs x 4 KPs x 20 GVT) as one
 * trace with RbPrim derived, cells and PE means against the fixture's
 * formulas, communication triples, the long CSV's duplicate mean, a bad
 * file failing the whole import, and the generator (truth boundaries,
 * sizes, NetworkSend = the remote part of CommData). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/pdes_sim.h"
#include "import/import.h"
#include "store/metrics_cache.h"
#include "store/metrics_queries.h"
#include "test_helpers.h"
#include "util/fs.h"

static int64_t import_path(test_db *f, const char *path)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .allow_duplicate = 1};
    ari_import_result res;
    memset(&res, 0, sizeof res);
    ari_error err = {0};
    int rc = ari_import(f->s, &req, &res, &err);
    if (rc != 0)
        fail_msg("import %s: %s", path, err.message);
    assert_int_equal(res.ntraces, 1);
    assert_string_equal(res.traces[0].kind, "pdes");
    int64_t id = res.traces[0].id;
    ari_import_result_free(&res);
    return id;
}

static char *fixture(const char *name)
{
    char *p;
    if (asprintf(&p, "%s/tests/fixtures/metrics/%s", test_source_dir(), name) < 0)
        abort();
    return p;
}

static int rbtotal(int k, int j)
{
    return (k * 7 + j * 3) % 50 + 20;
}

static int64_t entity_named(const ari_mt_info *info, const char *name)
{
    for (size_t i = 0; i < info->nentities; i++)
        if (strcmp(info->entities[i].name, name) == 0)
            return (int64_t)i;
    fail_msg("no entity %s", name);
    return -1;
}

static void test_ross_fixture(void **state)
{
    test_db *f = *state;
    char *dir = fixture("ross");
    int64_t id = import_path(f, dir);
    free(dir);
    ari_mt_info info;
    ari_error err = {0};
    assert_int_equal(ari_mt_info_load(f->s, id, &info, &err), 0);
    assert_int_equal(info.ntimes, 20);
    assert_int_equal(info.nentities, 15); /* 3 PEs + 12 KPs */
    assert_string_equal(info.data_level, "KP");
    assert_string_equal(info.levels[0], "PE");
    assert_non_null(info.times[ARI_MT_REALTS]); /* the records give RealTs */
    assert_null(info.times[ARI_MT_VIRTUALTS]);  /* all 0: not recorded */
    const ari_mt_metric *prim = ari_mt_info_metric(&info, "RbPrim");
    assert_non_null(prim);
    assert_int_equal(prim->derived, 1);
    /* KP cells, RbPrim = RbTotal - RbSec, over a time range */
    const char *metrics[] = {"RbTotal", "RbPrim"};
    ari_mt_request req = {metrics, 2, -1, 3002.5, 9020.5, NULL, NULL, 0, 0};
    ari_mt_matrix m;
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &req, &m, &err), 0);
    assert_int_equal(m.n, 12);
    assert_int_equal(m.l, 7); /* columns 2..8 */
    assert_int_equal(m.time_idx[0], 2);
    for (size_t i = 0; i < m.n; i++) {
        int kp = atoi(info.entities[m.entity_ids[i]].name + 3);
        for (size_t j = 0; j < m.l; j++) {
            int t = rbtotal(kp, (int)j + 2);
            assert_true(m.values[i * m.l + j] == t);
            assert_true(m.values[m.n * m.l + i * m.l + j] == t - t / 3);
        }
    }
    ari_mt_matrix_free(&m);
    /* PE = mean of its KPs, for two PEs given in order */
    int64_t pes[2] = {entity_named(&info, "PE 2"), entity_named(&info, "PE 0")};
    ari_mt_request pe = {metrics, 1, -1, NAN, NAN, "PE", pes, 2, 0};
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &pe, &m, &err), 0);
    assert_int_equal(m.n, 2);
    for (size_t j = 0; j < m.l; j++) {
        double s2 = 0;
        for (int k = 8; k < 12; k++)
            s2 += rbtotal(k, (int)j);
        assert_true(fabs(m.values[j] - s2 / 4) < 1e-12);
    }
    /* overview: max over KPs of RbTotal at column 0 */
    ari_mt_matrix_free(&m);
    ari_mt_request all = {metrics, 1, -1, NAN, NAN, NULL, NULL, 0, 0};
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &all, &m, &err), 0);
    double out[20];
    ari_mt_overview(&m, 0, ARI_MT_STAT_MAX, out);
    int max0 = 0;
    for (int k = 0; k < 12; k++)
        max0 = rbtotal(k, 0) > max0 ? rbtotal(k, 0) : max0;
    assert_true(out[0] == max0);
    ari_mt_matrix_free(&m);
    /* errors */
    const char *bad[] = {"Nope"};
    ari_mt_request r1 = {bad, 1, -1, NAN, NAN, NULL, NULL, 0, 0}, r2 = {metrics, 1, -1, NAN, NAN, "LP", NULL, 0, 0};
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &r1, &m, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &r2, &m, &err), -1);
    assert_non_null(strstr(err.message, "granularity 'LP'"));
    /* communication of KP 5: [5] = 10 + j, [2] = j, [9] = 3 */
    ari_mt_comm c;
    assert_int_equal(ari_mt_comm_load(f->s, id, 4, 6, &c, &err), 0);
    assert_int_equal(c.n, 6);
    int64_t kp5 = entity_named(&info, "KP 5"), kp2 = entity_named(&info, "KP 2");
    assert_int_equal(c.time_idx[0], 4);
    assert_int_equal(c.src[0], kp5);
    assert_int_equal(c.dst[0], kp2);
    assert_true(c.count[0] == 4);
    assert_true(c.count[1] == 14 && c.count[2] == 3 && c.time_idx[3] == 5 && c.count[4] == 15);
    ari_mt_comm_free(&c);
    ari_mt_info_free(&info);
}

/* The same matrix at each level through the process's cache of rows
 * (metrics_cache.h) and straight from SQLite (budget 0: nothing kept),
 * whole and in 4 buckets (at the data level the cached rows are bucketed
 * while copied; otherwise the full width is read, then downsampled). */
static void test_cache_agrees(void **state)
{
    test_db *f = *state;
    char *dir = fixture("ross");
    int64_t id = import_path(f, dir);
    free(dir);
    ari_mt_info info;
    ari_error err = {0};
    assert_int_equal(ari_mt_info_load(f->s, id, &info, &err), 0);
    const char *metrics[] = {"RbTotal", "RbPrim"};
    const char *levels[] = {"KP", "PE"};
    for (int k = 0; k < 4; k++) {
        ari_mt_request req = {metrics, 2, -1, 2000, 15000, levels[k % 2], NULL, 0, k < 2 ? 0 : 4};
        ari_mt_matrix cached, direct;
        ari_mt_rows_set_budget((size_t)512 << 20);
        assert_int_equal(ari_mt_matrix_load(f->s, &info, &req, &cached, &err), 0);
        ari_mt_rows_set_budget(0);
        assert_int_equal(ari_mt_matrix_load(f->s, &info, &req, &direct, &err), 0);
        ari_mt_rows_set_budget((size_t)512 << 20);
        assert_int_equal(cached.n * cached.l * cached.d, direct.n * direct.l * direct.d);
        assert_true(cached.n > 0 && (k < 2 ? cached.l > 4 : cached.l == 4));
        for (size_t j = 0; j < cached.l; j++)
            assert_true(cached.time[j] == direct.time[j] && cached.time_idx[j] == direct.time_idx[j]);
        for (size_t i = 0; i < cached.n * cached.l * cached.d; i++)
            assert_true(isnan(cached.values[i]) ? isnan(direct.values[i]) : cached.values[i] == direct.values[i]);
        ari_mt_matrix_free(&cached);
        ari_mt_matrix_free(&direct);
    }
    ari_mt_info_free(&info);
}

/* Downsampling: 2 rows x 7 columns into 3 buckets of 2, 2 and 3 columns. */
static void test_downsample(void **state)
{
    (void)state;
    ari_mt_matrix m;
    memset(&m, 0, sizeof m);
    m.n = 2;
    m.l = 7;
    m.d = 1;
    m.values = malloc(14 * sizeof *m.values);
    m.time = malloc(7 * sizeof *m.time);
    m.time_idx = malloc(7 * sizeof *m.time_idx);
    assert_non_null(m.values);
    for (size_t j = 0; j < 7; j++) {
        m.time[j] = 10.0 * (double)j;
        m.time_idx[j] = j + 5;
        m.values[j] = (double)j;
        m.values[7 + j] = j == 2 || j == 3 ? NAN : 100.0 + (double)j;
    }
    ari_mt_matrix_downsample(&m, 3);
    assert_int_equal(m.l, 3);
    const double want0[] = {0.5, 2.5, 5}, want1[] = {100.5, NAN, 105}, times[] = {5, 25, 50};
    for (size_t b = 0; b < 3; b++) {
        assert_true(m.values[b] == want0[b]);
        assert_true(isnan(want1[b]) ? isnan(m.values[3 + b]) : m.values[3 + b] == want1[b]);
        assert_true(m.time[b] == times[b]);
    }
    assert_int_equal(m.time_idx[1], 7);
    ari_mt_matrix_free(&m);
}

static void test_long_fixture(void **state)
{
    test_db *f = *state;
    char *path = fixture("long.csv");
    int64_t id = import_path(f, path);
    free(path);
    ari_mt_info info;
    ari_error err = {0};
    assert_int_equal(ari_mt_info_load(f->s, id, &info, &err), 0);
    assert_string_equal(info.data_level, "entity");
    const char *metrics[] = {"flops"};
    int64_t r3 = entity_named(&info, "rank 3");
    ari_mt_request req = {metrics, 1, -1, 1.0, 1.0, NULL, &r3, 1, 0};
    ari_mt_matrix m;
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &req, &m, &err), 0);
    assert_int_equal(m.n * m.l, 1);
    assert_true(m.values[0] == 66);
    ari_mt_matrix_free(&m);
    ari_mt_request grp = {metrics, 1, -1, NAN, NAN, "group", NULL, 0, 0};
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &grp, &m, &err), 0);
    assert_int_equal(m.n, 2);
    assert_true(m.values[1 * m.l + 0] == (20 + 30) / 2.0); /* node 1 at t = 0 */
    ari_mt_matrix_free(&m);
    ari_mt_info_free(&info);
}

/* A bad cell in one matrix of a run: nothing of the run is stored. */
static void test_atomic(void **state)
{
    test_db *f = *state;
    char *dir = test_tmpdir();
    const char good[] = "\"1\",\"2\"\n1,2\n3,4\n", bad[] = "\"1\",\"2\"\n1,2\n3,oops\n";
    free(test_write_file(dir, "r_RbTotal.csv", good, sizeof good - 1));
    free(test_write_file(dir, "r_RbSec.csv", bad, sizeof bad - 1));
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .allow_duplicate = 1};
    ari_import_result res;
    memset(&res, 0, sizeof res);
    ari_error err = {0};
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_non_null(strstr(err.message, "r_RbSec.csv:3:2"));
    ari_import_result_free(&res);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM mt_values"), 0);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM traces"), 0);
    ari_remove_tree(dir);
    free(dir);
}

static void test_generator(void **state)
{
    test_db *f = *state;
    char *dir = test_tmpdir(), *out;
    if (asprintf(&out, "%s/run", dir) < 0)
        abort();
    pdes_options o = {.out_dir = out, .pes = 4, .kps = 4, .lps = 8, .samples = 60, .seed = 7, .records = 1, .segments = 3};
    pdes_summary s;
    ari_error err = {0};
    assert_int_equal(pdes_sim_run(&o, &s, &err), 0);
    assert_int_equal(s.segments, 3);
    assert_true(s.boundaries[0] >= 10 && s.boundaries[1] - s.boundaries[0] >= 10 && 60 - s.boundaries[1] >= 10);
    assert_int_equal(s.kps, 16);
    assert_int_equal(s.lps, 128);
    assert_int_equal(s.anomalous, 1);
    /* the same options give the same bytes */
    char *out2;
    if (asprintf(&out2, "%s/run2", dir) < 0)
        abort();
    o.out_dir = out2;
    assert_int_equal(pdes_sim_run(&o, &s, &err), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cmp -s %s/records.csv %s/records.csv && cmp -s %s/truth.json %s/truth.json", out, out2,
             out, out2);
    assert_int_equal(system(cmd), 0);
    int64_t id = import_path(f, out);
    ari_mt_info info;
    assert_int_equal(ari_mt_info_load(f->s, id, &info, &err), 0);
    assert_int_equal(info.ntimes, 60);
    assert_int_equal(info.nentities, 20);
    assert_true(ari_mt_info_domain(&info, "RealTs") >= 0 && ari_mt_info_domain(&info, "VirtualTs") >= 0);
    /* truth.json is in the trace's meta, the boundaries as the generator said */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT json_extract(meta_json, '$.truth.boundaries[1].index') FROM traces WHERE id = %lld",
             (long long)id);
    assert_int_equal(test_query_int(f->db_path, sql), s.boundaries[1]);
    snprintf(sql, sizeof sql, "SELECT json_extract(summary_json, '$.simulated') FROM traces WHERE id = %lld", (long long)id);
    assert_int_equal(test_query_int(f->db_path, sql), 1);
    /* NetworkSend of each KP = its CommData to KPs of other PEs (4 KPs per PE) */
    const char *metrics[] = {"NetworkSend"};
    ari_mt_request req = {metrics, 1, -1, NAN, NAN, NULL, NULL, 0, 0};
    ari_mt_matrix m;
    assert_int_equal(ari_mt_matrix_load(f->s, &info, &req, &m, &err), 0);
    ari_mt_comm c;
    assert_int_equal(ari_mt_comm_load(f->s, id, 0, 60, &c, &err), 0);
    double *remote = calloc(m.n * m.l, sizeof *remote);
    for (size_t i = 0; i < c.n; i++) {
        int src = atoi(info.entities[c.src[i]].name + 3), dst = atoi(info.entities[c.dst[i]].name + 3);
        if (src / 4 != dst / 4)
            remote[(size_t)src * m.l + c.time_idx[i]] += c.count[i];
    }
    for (size_t i = 0; i < m.n; i++) {
        int kp = atoi(info.entities[m.entity_ids[i]].name + 3);
        for (size_t j = 0; j < m.l; j++)
            assert_true(m.values[i * m.l + j] == remote[(size_t)kp * m.l + j]);
    }
    free(remote);
    ari_mt_comm_free(&c);
    ari_mt_matrix_free(&m);
    ari_mt_info_free(&info);
    /* bad options */
    o.samples = 5;
    assert_int_equal(pdes_sim_run(&o, &s, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    ari_remove_tree(dir);
    free(dir);
    free(out);
    free(out2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ross_fixture, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_cache_agrees, test_db_setup, test_db_teardown),
        cmocka_unit_test(test_downsample),
        cmocka_unit_test_setup_teardown(test_long_fixture, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_atomic, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_generator, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
