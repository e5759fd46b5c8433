/* test_live_data.c: the in-memory tensor of a live run (store/live_data.h):
 * points kept in key order with late points moving later indices,
 * duplicate samples and communication rows averaged, ids stable across
 * batches, hierarchy queries, the memory cap refusing an apply and
 * changing nothing, and the metrics sink reading the ROSS fixture run to
 * the same values as the offline import. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "import/import.h"
#include "ingest/ross_csv.h"
#include "store/live_data.h"
#include "store/stream_store.h"
#include "test_helpers.h"

static int apply_text(ari_live_data *ld, const char *text, ari_live_record_result *out, ari_error *err)
{
    ari_stream_batch b;
    if (ari_stream_batch_init(&b, 0, err) < 0)
        return -1;
    int rc = ari_stream_parse_buffer(&b, text, strlen(text), 0, err);
    if (rc == 0)
        rc = ari_live_data_apply(ld, &b, 0, out, err);
    ari_stream_batch_free(&b);
    return rc;
}

static void apply_ok(ari_live_data *ld, const char *text, ari_live_record_result *out)
{
    ari_error err = {0};
    if (apply_text(ld, text, out, &err) != 0)
        fail_msg("apply: %s", err.message);
}

static double val(const ari_live_data *ld, const char *metric, const char *level, const char *name, size_t t)
{
    int64_t m = ari_live_data_metric_find(ld, metric), e = ari_live_data_entity_find(ld, level, name);
    assert_true(m >= 0 && e >= 0);
    return ari_live_data_value(ld, (size_t)m, (size_t)e, t);
}

static void order_late_duplicates(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    ari_live_record_result res[3];
    apply_ok(ld,
             "{\"LastGvt\":10,\"KpData\":[{\"Peid\":0,\"KpGid\":0,\"RbTotal\":1},{\"Peid\":0,\"KpGid\":1,\"RbTotal\":2}]}\n"
             "{\"LastGvt\":30,\"KpData\":[{\"Peid\":0,\"KpGid\":0,\"RbTotal\":3}]}\n",
             res);
    assert_int_equal(res[0].seq, 1);
    assert_int_equal(res[1].seq, 2);
    assert_true(res[0].is_new && res[1].is_new && !res[1].late);
    assert_int_equal(res[1].t_idx, 1);
    /* a late point (20), a duplicate of 30 (mean), a new entity */
    apply_ok(ld,
             "{\"LastGvt\":20,\"KpData\":[{\"Peid\":0,\"KpGid\":1,\"RbTotal\":5}]}\n"
             "{\"LastGvt\":30,\"KpData\":[{\"Peid\":0,\"KpGid\":0,\"RbTotal\":6},{\"Peid\":1,\"KpGid\":4,\"RbSec\":8}]}\n",
             res);
    assert_int_equal(res[0].seq, 3);
    assert_true(res[0].is_new && res[0].late);
    assert_int_equal(res[0].t_idx, 1);
    assert_true(!res[1].is_new && !res[1].late);
    assert_int_equal(res[1].t_idx, 2);
    assert_int_equal(ari_live_data_n_points(ld), 3);
    const double *keys = ari_live_data_keys(ld);
    assert_true(keys[0] == 10 && keys[1] == 20 && keys[2] == 30);
    assert_true(val(ld, "RbTotal", "KP", "KP 0", 0) == 1);
    assert_true(isnan(val(ld, "RbTotal", "KP", "KP 0", 1)));
    assert_true(val(ld, "RbTotal", "KP", "KP 0", 2) == 4.5); /* (3 + 6) / 2 */
    assert_true(val(ld, "RbTotal", "KP", "KP 1", 1) == 5);
    assert_true(val(ld, "RbTotal", "KP", "KP 1", 0) == 2);
    assert_true(val(ld, "RbSec", "KP", "KP 4", 2) == 8);
    assert_int_equal(ari_live_data_point_seq(ld, 2), 4);
    assert_int_equal(ari_live_data_point_seq(ld, 1), 3);
    assert_int_equal(ari_live_data_last_seq(ld), 4);
    /* ids in order of appearance, parents first */
    assert_string_equal(ari_live_data_entity_name(ld, 0), "PE 0");
    assert_string_equal(ari_live_data_entity_name(ld, 1), "KP 0");
    int64_t kp4 = ari_live_data_entity_find(ld, "KP", "KP 4");
    assert_string_equal(ari_live_data_entity_name(ld, (size_t)ari_live_data_entity_parent(ld, (size_t)kp4)), "PE 1");
    size_t nl;
    const char *const *levels = ari_live_data_levels(ld, &nl);
    assert_int_equal(nl, 2);
    assert_string_equal(levels[0], "PE");
    assert_string_equal(levels[1], "KP");
    assert_string_equal(ari_live_data_leaf_level(ld), "KP");
    const size_t *kids;
    assert_int_equal(ari_live_data_children(ld, 0, &kids), 2);
    assert_int_equal(ari_live_data_children(ld, -1, &kids), 2); /* PE 0, PE 1 */
    size_t ids[8];
    assert_int_equal(ari_live_data_level(ld, "KP", ids, 8), 3);
    /* the series of RbTotal over KPs, and a column */
    double s[9], col[3];
    ari_live_data_series(ld, (size_t)ari_live_data_metric_find(ld, "RbTotal"), ids, 3, 0, 3, s);
    assert_true(s[0] == 1 && isnan(s[1]) && s[2] == 4.5 && s[3] == 2 && s[4] == 5 && isnan(s[5]) && isnan(s[8]));
    ari_live_data_column(ld, (size_t)ari_live_data_metric_find(ld, "RbTotal"), 2, ids, 3, col);
    assert_true(col[0] == 4.5 && isnan(col[1]) && isnan(col[2]));
    /* a record keyed by another domain is refused, nothing changes */
    assert_int_equal(apply_text(ld, "{\"time\":1,\"values\":{\"a\":{\"x\":1}}}", NULL, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_int_equal(ari_live_data_n_points(ld), 3);
    assert_int_equal(ari_live_data_entity_find(ld, "entity", "a"), -1);
    /* a KP under another PE than before is refused */
    assert_int_equal(apply_text(ld, "{\"LastGvt\":40,\"KpData\":[{\"Peid\":3,\"KpGid\":4,\"RbSec\":1}]}", NULL, &err), -1);
    assert_int_equal(ari_live_data_n_points(ld), 3);
    ari_live_data_free(ld);
}

/* Communication: rows of one source at one point average, as offline. */
static void comm_mean(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    apply_ok(ld,
             "{\"LastGvt\":1,\"KpData\":[{\"KpGid\":0,\"CommData\":[0,4,2]},{\"KpGid\":2,\"CommData\":[1,0,0]}]}\n"
             "{\"LastGvt\":1,\"KpData\":[{\"KpGid\":0,\"CommData\":[0,2,0]}]}\n"
             "{\"LastGvt\":2,\"KpData\":[{\"KpGid\":1,\"RbTotal\":1}]}\n",
             NULL);
    const int32_t *s, *d;
    const double *c;
    size_t n = ari_live_data_comm(ld, 0, &s, &d, &c);
    int64_t k0 = ari_live_data_entity_find(ld, "KP", "KP 0"), k1 = ari_live_data_entity_find(ld, "KP", "KP 1"),
            k2 = ari_live_data_entity_find(ld, "KP", "KP 2");
    assert_int_equal(n, 3);
    /* sorted by (src, dst): KP 0 -> KP 1: (4 + 2) / 2 rows = 3; KP 0 -> KP 2: 2 / 2 = 1; KP 2 -> KP 0: 1 */
    assert_true(s[0] == k0 && d[0] == k1 && c[0] == 3);
    assert_true(s[1] == k0 && d[1] == k2 && c[1] == 1);
    assert_true(s[2] == k2 && d[2] == k0 && c[2] == 1);
    assert_int_equal(ari_live_data_comm(ld, 1, &s, &d, &c), 0);
    assert_true(ari_live_data_has_comm(ld));
    ari_live_data_free(ld);
}

/* Beyond ARI_LIVE_MAX_CELLS an apply is refused and changes nothing. */
static void memory_cap(void **state)
{
    (void)state;
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    size_t n = 65536;
    ari_stream_batch b;
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    char *text = malloc(n * 40 + 64), *p = text;
    p += sprintf(p, "{\"time\":0,\"values\":{");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\"e%zu\":{\"x\":1}", i ? "," : "", i);
    sprintf(p, "}}\n");
    assert_int_equal(ari_stream_parse_buffer(&b, text, strlen(text), 0, &err), 0);
    assert_int_equal(ari_live_data_apply(ld, &b, 0, NULL, &err), 0);
    ari_stream_batch_free(&b);
    /* 65536 rows x 1025 points > 2^26 cells */
    assert_int_equal(ari_stream_batch_init(&b, 0, NULL), 0);
    p = text;
    for (int t = 1; t <= 1024; t++)
        p += sprintf(p, "{\"time\":%d}\n", t);
    assert_int_equal(ari_stream_parse_buffer(&b, text, strlen(text), 0, &err), 0);
    assert_int_equal(ari_live_data_apply(ld, &b, 0, NULL, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_int_equal(ari_live_data_n_points(ld), 1);
    assert_int_equal(ari_live_data_last_seq(ld), 1);
    ari_stream_batch_free(&b);
    free(text);
    ari_live_data_free(ld);
}

/* The sink: the fixture ROSS run read by the offline reader into a
 * live_data equals the offline import loaded back (ari_stream_load). */
static void sink_equals_import(void **state)
{
    test_db *f = *state;
    char dir[PATH_MAX], path[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/metrics/ross", test_source_dir());
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .allow_duplicate = 1};
    ari_import_result res;
    memset(&res, 0, sizeof res);
    ari_error err = {0};
    if (ari_import(f->s, &req, &res, &err) != 0)
        fail_msg("import: %s", err.message);
    int64_t id = res.traces[0].id;
    ari_import_result_free(&res);
    ari_live_data *a = ari_live_data_new(&err), *b = ari_live_data_new(&err);
    assert_int_equal(ari_stream_load(f->s, id, a, &err), 0);
    ari_live_sink *ls = ari_live_sink_new(b, &err);
    snprintf(path, sizeof path, "%s/run-12kp_RbSec.csv", dir);
    ari_ross_shape shape;
    if (ari_ross_matrix_read(path, "run-12kp_RbSec.csv", "RbSec", 4, ari_live_sink_sink(ls), &shape, &err) != 0)
        fail_msg("read: %s / %s", err.message, ari_live_sink_error(ls)->message);
    ari_live_sink_free(ls);
    assert_int_equal(ari_live_data_n_points(a), 20);
    assert_int_equal(ari_live_data_n_points(b), 20);
    for (size_t t = 0; t < 20; t++) {
        assert_true(ari_live_data_keys(a)[t] == ari_live_data_keys(b)[t]);
        assert_int_equal(ari_live_data_point_seq(b, t), t + 1);
    }
    int64_t ma = ari_live_data_metric_find(a, "RbSec"), mb = ari_live_data_metric_find(b, "RbSec");
    for (int k = 0; k < 12; k++) {
        char name[16];
        snprintf(name, sizeof name, "KP %d", k);
        int64_t ea = ari_live_data_entity_find(a, "KP", name), eb = ari_live_data_entity_find(b, "KP", name);
        assert_true(ea >= 0 && eb >= 0);
        for (size_t t = 0; t < 20; t++) {
            double x = ari_live_data_value(a, (size_t)ma, (size_t)ea, t), y = ari_live_data_value(b, (size_t)mb, (size_t)eb, t);
            assert_true(x == y);
            assert_true(x == floor((double)((7 * k + 3 * (int)t) % 50 + 20) / 3)); /* the fixture's formula */
        }
    }
    /* the imported run's communication (KP 5's records) came along */
    const int32_t *s, *d;
    const double *c;
    size_t n = ari_live_data_comm(a, 3, &s, &d, &c);
    assert_int_equal(n, 3); /* CommData[5] = 10 + j, [2] = j, [9] = 3 at j = 3 */
    assert_string_equal(ari_live_data_entity_name(a, (size_t)s[0]), "KP 5");
    ari_live_data_free(a);
    ari_live_data_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_late_duplicates),
        cmocka_unit_test(comm_mean),
        cmocka_unit_test(memory_cap),
        cmocka_unit_test_setup_teardown(sink_equals_import, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
