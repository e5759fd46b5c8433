/* test_stream_store.c: live runs in the database (store/stream_store.h):
 * creation and write tokens, appends (seq, points, duplicates, late
 * points), a refused append storing nothing and leaving no transaction
 * open, a run surviving a reopen in state open and loading to the same
 * live_data as the appends gave, the offline endpoints' open check, and
 * the close: the offline layout of sql/014 equal to an offline import of
 * the same samples (the fixture ROSS run), records deleted. */
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
#include "store/live_data.h"
#include "store/stream_store.h"
#include "test_helpers.h"

static int append_text(ari_store *s, int64_t id, int kps, const char *text, ari_live_applied *a, ari_error *err)
{
    ari_stream_batch b;
    if (ari_stream_batch_init(&b, kps, err) < 0)
        return -1;
    int rc = ari_stream_parse_buffer(&b, text, strlen(text), 0, err);
    if (rc == 0)
        rc = ari_stream_append(s, id, &b, a, err);
    ari_stream_batch_free(&b);
    return rc;
}

static void append_ok(ari_store *s, int64_t id, const char *text, ari_live_applied *a)
{
    ari_error err = {0};
    ari_live_applied local;
    ari_stream_status st; /* the batch knows the run's KPs per PE, as api_streams.c does it */
    assert_int_equal(ari_stream_status_get(s, id, &st, &err), 0);
    if (append_text(s, id, st.kps_per_pe, text, a ? a : &local, &err) != 0)
        fail_msg("append: %s", err.message);
}

static int64_t count(test_db *f, const char *sql)
{
    return test_query_int(f->db_path, sql);
}

static void create_append_status(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    int64_t id;
    char token[ARI_STREAM_TOKEN_HEX + 1];
    assert_int_equal(ari_stream_create(f->s, "run A", NULL, 4, &id, token, &err), 0);
    assert_int_equal(strlen(token), 64);
    assert_int_equal(ari_stream_check_token(f->s, id, token, &err), 0);
    char wrong[ARI_STREAM_TOKEN_HEX + 1];
    memcpy(wrong, token, sizeof wrong);
    wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
    assert_int_equal(ari_stream_check_token(f->s, id, wrong, &err), 1);
    assert_int_equal(ari_stream_check_token(f->s, id, "short", &err), 1);
    assert_int_equal(ari_stream_check_token(f->s, id + 1, token, &err), 1);
    assert_int_equal(ari_stream_is_open(f->s, id, &err), 1);
    assert_int_equal(count(f, "SELECT count(*) FROM traces WHERE kind = 'pdes' AND format = 'stream'"), 1);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_streams WHERE token_hash NOT LIKE '%' || 'x'"), 1);

    ari_live_applied a;
    append_ok(f->s, id,
              "{\"LastGvt\":10,\"KpData\":[{\"Peid\":0,\"Kpid\":1,\"RbTotal\":4}]}\n"
              "{\"LastGvt\":30,\"KpData\":[{\"Peid\":1,\"Kpid\":0,\"RbTotal\":5,\"CommData\":[0,1,0,0,2]}]}\n",
              &a);
    assert_int_equal(a.first_seq, 1);
    assert_int_equal(a.nrecords, 2);
    assert_int_equal(a.new_points, 2);
    assert_int_equal(a.n_points, 2);
    assert_true(a.last_key == 30);
    append_ok(f->s, id,
              "{\"LastGvt\":20,\"KpData\":[{\"KpGid\":1,\"RbTotal\":6}]}\n"
              "{\"LastGvt\":30,\"KpData\":[{\"KpGid\":4,\"RbTotal\":7}]}\n",
              &a);
    assert_int_equal(a.first_seq, 3);
    assert_int_equal(a.new_points, 1);
    assert_int_equal(a.n_points, 3);
    assert_true(a.last_key == 30);
    ari_stream_status st;
    assert_int_equal(ari_stream_status_get(f->s, id, &st, &err), 0);
    assert_int_equal(st.open, 1);
    assert_int_equal(st.n_records, 4);
    assert_int_equal(st.n_points, 3);
    assert_int_equal(st.domain, ARI_MT_LASTGVT);
    assert_int_equal(st.kps_per_pe, 4);
    assert_int_equal(st.n_entities, 4); /* PE 0, KP 1, PE 1, KP 4 (CommData's zeros name nobody) */
    /* entities went to mt_entities with the live ids (arrival order) */
    assert_int_equal(count(f, "SELECT entity_id FROM mt_entities WHERE name = 'KP 4'"), 3);
    assert_int_equal(count(f, "SELECT parent_id FROM mt_entities WHERE name = 'KP 4'"), 2);

    /* a bad append stores nothing and leaves no transaction open */
    assert_int_equal(append_text(f->s, id, 4, "{\"time\":1,\"values\":{\"x\":{\"y\":1}}}", &a, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_int_equal(append_text(f->s, id, 4, "{\"LastGvt\":40,\"KpData\":[{\"Peid\":3,\"KpGid\":4,\"RbTotal\":1}]}",
                                 &a, &err), -1);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_stream_points"), 4);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_entities WHERE name = 'PE 3'"), 0);
    assert_int_equal(ari_store_begin(f->s, &err), 0);
    ari_store_rollback(f->s);
    assert_int_equal(ari_stream_status_get(f->s, id, &st, &err), 0);
    assert_int_equal(st.n_records, 4);

    /* the run survives a reopen, open, and loads to what the appends gave */
    ari_store_close(f->s);
    f->s = ari_store_open(f->db_path, &err);
    assert_non_null(f->s);
    assert_int_equal(ari_stream_is_open(f->s, id, &err), 1);
    ari_live_data *ld = ari_live_data_new(&err);
    assert_int_equal(ari_stream_load(f->s, id, ld, &err), 0);
    assert_int_equal(ari_live_data_n_points(ld), 3);
    assert_int_equal(ari_live_data_last_seq(ld), 4);
    assert_int_equal(ari_live_data_point_seq(ld, 2), 4);
    int64_t m = ari_live_data_metric_find(ld, "RbTotal"), kp4 = ari_live_data_entity_find(ld, "KP", "KP 4");
    assert_int_equal(kp4, 3);
    assert_true(ari_live_data_value(ld, (size_t)m, (size_t)kp4, 2) == 6); /* (5 + 7) / 2 */
    const int32_t *s, *d;
    const double *c;
    assert_int_equal(ari_live_data_comm(ld, 2, &s, &d, &c), 2);
    assert_true(s[0] == kp4 && c[0] == 1 && c[1] == 2);
    ari_live_data_free(ld);

    /* close: offline layout, records gone, offline check off */
    assert_int_equal(ari_stream_close(f->s, id, &err), 0);
    assert_int_equal(ari_stream_is_open(f->s, id, &err), 0);
    assert_int_equal(ari_stream_close(f->s, id, &err), 1);
    assert_int_equal(append_text(f->s, id, 4, "{\"LastGvt\":50,\"KpData\":[{\"KpGid\":1,\"RbTotal\":1}]}", &a, &err), 1);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_stream_points"), 0);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_domains WHERE trace_id = 1 AND domain_id = 0"), 1);
    /* entities re-numbered as offline: PEs, then KPs in natural order */
    assert_int_equal(count(f, "SELECT entity_id FROM mt_entities WHERE name = 'PE 1'"), 1);
    assert_int_equal(count(f, "SELECT entity_id FROM mt_entities WHERE name = 'KP 1'"), 2);
    assert_int_equal(count(f, "SELECT entity_id FROM mt_entities WHERE name = 'KP 4'"), 3);
    assert_int_equal(count(f, "SELECT count(*) FROM mt_comm WHERE trace_id = 1"), 1);
    assert_int_equal(count(f, "SELECT json_extract(summary_json, '$.time_points') FROM traces WHERE id = 1"), 3);
    assert_int_equal(count(f, "SELECT json_extract(meta_json, '$.live') = 'closed' FROM traces WHERE id = 1"), 1);
    ld = ari_live_data_new(&err);
    assert_int_equal(ari_stream_load(f->s, id, ld, &err), 0); /* from the offline tables now */
    m = ari_live_data_metric_find(ld, "RbTotal");
    kp4 = ari_live_data_entity_find(ld, "KP", "KP 4");
    assert_true(ari_live_data_value(ld, (size_t)m, (size_t)kp4, 2) == 6);
    assert_int_equal(ari_live_data_point_seq(ld, 2), 3);
    ari_live_data_free(ld);
    char *json = NULL;
    assert_int_equal(ari_streams_list_json(f->s, &json, &err), 0);
    assert_non_null(strstr(json, "\"state\":\"closed\""));
    free(json);
}

/* The fixture ROSS run imported offline, streamed as records of the same
 * samples and closed: the same values, domains and communication. */
static void close_equals_import(void **state)
{
    test_db *f = *state;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/metrics/ross", test_source_dir());
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .allow_duplicate = 1};
    ari_import_result res;
    memset(&res, 0, sizeof res);
    ari_error err = {0};
    if (ari_import(f->s, &req, &res, &err) != 0)
        fail_msg("import: %s", err.message);
    int64_t off = res.traces[0].id;
    ari_import_result_free(&res);
    ari_live_data *ld = ari_live_data_new(&err);
    assert_int_equal(ari_stream_load(f->s, off, ld, &err), 0);
    int64_t id;
    char token[ARI_STREAM_TOKEN_HEX + 1];
    assert_int_equal(ari_stream_create(f->s, "live", NULL, 4, &id, token, &err), 0);
    /* one record a point, in reverse key order (every point but the first late) */
    for (size_t t = ari_live_data_n_points(ld); t-- > 0;) {
        char *rec = NULL;
        size_t cap = 0;
        FILE *mem = open_memstream(&rec, &cap);
        fprintf(mem, "{\"LastGvt\":%.17g", ari_live_data_keys(ld)[t]);
        double rt = ari_live_data_domain_value(ld, t, ARI_MT_REALTS);
        if (!isnan(rt))
            fprintf(mem, ",\"RealTs\":%.17g", rt);
        fprintf(mem, ",\"KpData\":[");
        int first = 1;
        for (size_t e = 0; e < ari_live_data_n_entities(ld); e++) {
            if (strcmp(ari_live_data_entity_level(ld, e), "KP") != 0)
                continue;
            int pe = atoi(ari_live_data_entity_name(ld, (size_t)ari_live_data_entity_parent(ld, e)) + 3);
            fprintf(mem, "%s{\"Peid\":%d,\"KpGid\":%s", first ? "" : ",", pe, ari_live_data_entity_name(ld, e) + 3);
            first = 0;
            for (size_t m = 0; m < ari_live_data_n_metrics(ld); m++) {
                double v = ari_live_data_value(ld, m, e, t);
                if (!isnan(v) && strcmp(ari_live_data_metric_name(ld, m), "RbPrim") != 0)
                    fprintf(mem, ",\"%s\":%.17g", ari_live_data_metric_name(ld, m), v);
            }
            const int32_t *s, *d;
            const double *c;
            size_t n = ari_live_data_comm(ld, t, &s, &d, &c), j = 0;
            int row = 0;
            for (size_t i = 0; i < n; i++)
                row |= (size_t)s[i] == e;
            if (row) {
                fprintf(mem, ",\"CommData\":[");
                for (int g = 0; g < 12; g++) {
                    double x = 0;
                    for (j = 0; j < n; j++)
                        if ((size_t)s[j] == e && atoi(ari_live_data_entity_name(ld, (size_t)d[j]) + 3) == g)
                            x = c[j];
                    fprintf(mem, "%s%.17g", g ? "," : "", x);
                }
                fprintf(mem, "]");
            }
            fprintf(mem, "}");
        }
        fprintf(mem, "]}\n");
        fclose(mem);
        append_ok(f->s, id, rec, NULL);
        free(rec);
    }
    ari_live_data_free(ld);
    assert_int_equal(ari_stream_close(f->s, id, &err), 0);
    char sql[1024];
    /* every value blob, domain blob and comm blob equal */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM mt_values a JOIN mt_metrics ma ON ma.trace_id = a.trace_id AND ma.metric_id = a.metric_id"
             " JOIN mt_entities ea ON ea.trace_id = a.trace_id AND ea.entity_id = a.entity_id"
             " JOIN mt_metrics mb ON mb.trace_id = %lld AND mb.name = ma.name"
             " JOIN mt_entities eb ON eb.trace_id = %lld AND eb.name = ea.name AND eb.entity_id = ea.entity_id"
             " JOIN mt_values b ON b.trace_id = %lld AND b.metric_id = mb.metric_id AND b.entity_id = eb.entity_id"
             " WHERE a.trace_id = %lld AND a.vals = b.vals",
             (long long)id, (long long)id, (long long)id, (long long)off);
    int64_t same = count(f, sql);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM mt_values WHERE trace_id = %lld", (long long)off);
    int64_t all = count(f, sql);
    assert_true(all > 12 * 3);
    assert_int_equal(same, all);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM mt_values WHERE trace_id = %lld", (long long)id);
    assert_int_equal(count(f, sql), all);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM mt_domains a JOIN mt_domains b ON b.trace_id = %lld AND b.domain_id = a.domain_id"
             " AND b.times = a.times WHERE a.trace_id = %lld", (long long)id, (long long)off);
    assert_int_equal(count(f, sql), 2); /* LastGvt and RealTs */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM mt_comm a JOIN mt_comm b ON b.trace_id = %lld AND b.time_idx = a.time_idx"
             " AND b.triples = a.triples WHERE a.trace_id = %lld", (long long)id, (long long)off);
    assert_int_equal(count(f, sql), 20);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM mt_entities a JOIN mt_entities b ON b.trace_id = %lld AND b.entity_id = a.entity_id"
             " AND b.name = a.name AND b.level = a.level AND b.parent_id IS a.parent_id AND b.has_data = a.has_data"
             " WHERE a.trace_id = %lld", (long long)id, (long long)off);
    assert_int_equal(count(f, sql), 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(create_append_status, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(close_equals_import, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
