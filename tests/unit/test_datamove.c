/* test_datamove.c: the data movement analyses (clock sectors split by
 * overlap, tiles and grouping level, window shares for the matrix,
 * variance) and the import of the project's Kineto fixture: categories,
 * movements, matrix sums, and grouping of a window with many events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>

#include "analysis/datamove.h"
#include "ingest/chrome_trace.h"
#include "store/datamove_queries.h"
#include "store/datamove_writer.h"
#include "store/store.h"
#include "test_helpers.h"

static void test_clock_split(void **state)
{
    (void)state;
    double sec[3 * ARI_DM_NCAT] = {0};
    /* sectors [0,10) [10,20) [20,30); an event 5..25 spreads 5/10/5 */
    ari_dm_clock_add(sec, 3, 0, 10, ARI_DM_GPU, 5, 20);
    assert_true(sec[0 * ARI_DM_NCAT + ARI_DM_GPU] == 5);
    assert_true(sec[1 * ARI_DM_NCAT + ARI_DM_GPU] == 10);
    assert_true(sec[2 * ARI_DM_NCAT + ARI_DM_GPU] == 5);
    ari_dm_clock_add(sec, 3, 0, 10, ARI_DM_MOVE, 28, 10); /* 2 inside, 8 past the end: dropped */
    assert_true(sec[2 * ARI_DM_NCAT + ARI_DM_MOVE] == 2);
    assert_true(sec[0 * ARI_DM_NCAT + ARI_DM_MOVE] == 0);
    assert_true(ari_dm_sector_width(100, 12) == 9);
    assert_true(ari_dm_sector_width(120, 12) == 10);
}

static void test_share_and_variance(void **state)
{
    (void)state;
    assert_true(ari_dm_share(0, 10, 5, 20) == 0.5);
    assert_true(ari_dm_share(0, 10, 20, 30) == 0);
    assert_true(ari_dm_share(7, 0, 5, 10) == 1);
    assert_true(ari_dm_share(10, 0, 5, 10) == 0);
    double v[] = {1, 2, 3, 4};
    assert_true(fabs(ari_dm_variance(v, 4) - 1.25) < 1e-12);
    assert_true(ari_dm_variance(v, 1) == 0);
}

static void test_tiles(void **state)
{
    (void)state;
    ari_dm_tiles t;
    assert_int_equal(ari_dm_tiles_init(&t, 0, 4096, 2), 0);
    ari_dm_tiles_add(&t, 0, ARI_DM_MOVE, 10, 4, 400);   /* bins 10..13 at the finest level */
    ari_dm_tiles_add(&t, 1, ARI_DM_CPU, 2000, 0, 0);
    ari_dm_tiles_build(&t);
    size_t root = ari_dm_tiles_cell(&t, 0, 0, ARI_DM_MOVE, 0);
    assert_int_equal(t.count[root], 1);
    assert_true(fabs(t.busy[root] - 4) < 1e-9 && fabs(t.bytes[root] - 400) < 1e-9);
    size_t fine = ari_dm_tiles_cell(&t, 12, 0, ARI_DM_MOVE, 11);
    assert_true(fabs(t.bytes[fine] - 100) < 1e-9);
    assert_int_equal(t.count[ari_dm_tiles_cell(&t, 0, 1, ARI_DM_CPU, 0)], 1);
    ari_dm_tiles_free(&t);
    assert_int_equal(ari_dm_pick_level(0, 4096, 0, 4096, 1), 0);
    assert_int_equal(ari_dm_pick_level(0, 4096, 0, 4096, 16), 4);
    assert_int_equal(ari_dm_pick_level(0, 4096, 0, 1, 200), ARI_DM_TILE_LEVELS - 1);
}

/* ---- through the store ---------------------------------------------------------------- */

static ari_store *open_store(char **dir)
{
    *dir = test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t.db", *dir);
    ari_error err = {0};
    ari_store *s = ari_store_open(path, &err);
    assert_non_null(s);
    return s;
}

static int64_t import_buffer(ari_store *s, const char *json)
{
    ari_error err = {0};
    assert_int_equal(ari_store_begin(s, &err), 0);
    ari_writer_progress progress = {0};
    ari_trace_writer *w = ari_trace_writer_begin(s, "t", "datamove", "chrome_trace", "us", &progress, 0, &err);
    assert_non_null(w);
    ari_datamove_writer *dw = ari_datamove_writer_begin(w, &err);
    assert_non_null(dw);
    assert_int_equal(ari_chrome_read_buffer(json, strlen(json), "t.json", ari_datamove_writer_chrome_sink(dw), NULL, &err), 0);
    assert_int_equal(ari_datamove_writer_finish(dw, &err), 0);
    ari_datamove_writer_free(dw);
    assert_int_equal(ari_trace_writer_finish(w, NULL, &err), 0);
    int64_t id = ari_trace_writer_id(w);
    ari_trace_writer_free(w);
    assert_int_equal(ari_store_commit(s, &err), 0);
    return id;
}

/* Checks rc, parses and frees text (call as query(rc, text) only after the
 * call that set text: argument order is unspecified). */
static json_t *query(int rc, char *text)
{
    assert_int_equal(rc, 0);
    json_t *doc = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(doc);
    return doc;
}

static void test_categories_and_matrix(void **state)
{
    (void)state;
    char *dir;
    ari_store *s = open_store(&dir);
    const char *json =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpy\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"args\":{\"cbid\":41}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100,"
        "\"args\":{\"device\":1,\"bytes\":1000}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy PtoP (Device -> Device)\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":50,"
        "\"args\":{\"device\":1,\"src device\":1,\"dst device\":0,\"bytes\":500}},"
        "{\"ph\":\"X\",\"name\":\"work\",\"pid\":3,\"tid\":3,\"ts\":0,\"dur\":200},"
        "{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"pid\":3,\"tid\":3,\"ts\":10,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"compute\",\"pid\":9,\"tid\":1,\"ts\":20,\"dur\":30},"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"args\":{\"labels\":\"GPU 0\"}}]}";
    int64_t id = import_buffer(s, json);
    char *text = NULL;
    int rc;
    ari_error err = {0};
    /* window [50, 125): half of the HtoD (500 B), half of the PtoP (250 B) */
    json_t *m = (rc = ari_dm_matrix_json(s, id, 50, 125, &text, &err), query(rc, text));
    json_t *keys = json_object_get(m, "components"), *bytes = json_object_get(m, "bytes");
    assert_string_equal(json_string_value(json_array_get(keys, 0)), "host");
    double total = 0;
    int gpu0 = -1, gpu1 = -1;
    for (size_t i = 0; i < json_array_size(keys); i++) {
        if (strcmp(json_string_value(json_array_get(keys, i)), "gpu0") == 0)
            gpu0 = (int)i;
        if (strcmp(json_string_value(json_array_get(keys, i)), "gpu1") == 0)
            gpu1 = (int)i;
        for (size_t j = 0; j < json_array_size(keys); j++)
            total += json_real_value(json_array_get(json_array_get(bytes, i), j));
    }
    assert_true(gpu0 > 0 && gpu1 > 0);
    assert_true(fabs(total - 750) < 1e-9);
    assert_true(fabs(json_real_value(json_array_get(json_array_get(bytes, 0), (size_t)gpu1)) - 500) < 1e-9);
    assert_true(fabs(json_real_value(json_array_get(json_array_get(bytes, (size_t)gpu1), (size_t)gpu0)) - 250) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(m, "total_bytes")) - 750) < 1e-9);
    json_decref(m);

    /* categories: by context (cbid, device, GPU process), the name only as a last resort */
    json_t *tl = (rc = ari_dm_timeline_json(s, id, NAN, NAN, 1000, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(tl, "mode")), "events");
    size_t i;
    json_t *e;
    int seen = 0;
    json_array_foreach(json_object_get(tl, "events"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *cat = json_string_value(json_object_get(e, "category"));
        const char *want = strcmp(name, "cudaMemcpy") == 0 || strcmp(name, "cudaLaunchKernel") == 0 ? "runtime_api"
                         : strcmp(name, "work") == 0 ? "cpu_compute"
                         : strcmp(name, "compute") == 0 ? "gpu_compute" : "data_movement";
        assert_string_equal(cat, want);
        seen++;
    }
    assert_int_equal(seen, 6);
    json_decref(tl);

    /* the clock covers every µs of every event once */
    json_t *c = (rc = ari_dm_clock_json(s, id, 12, 0, &text, &err), query(rc, text));
    double sum = 0;
    json_t *row;
    json_array_foreach(json_object_get(c, "values"), i, row) {
        size_t k;
        json_t *v;
        json_array_foreach(row, k, v) sum += json_real_value(v);
    }
    assert_true(fabs(sum - (10 + 100 + 50 + 200 + 5 + 30)) < 1e-6);
    json_decref(c);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
}

static void test_grouping(void **state)
{
    (void)state;
    char *dir;
    ari_store *s = open_store(&dir);
    size_t cap = 5000 * 80 + 64, used = 0;
    char *json = malloc(cap);
    used += (size_t)snprintf(json, cap, "[");
    for (int i = 0; i < 5000; i++)
        used += (size_t)snprintf(json + used, cap - used, "%s{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}",
                                 i ? "," : "", i * 2);
    snprintf(json + used, cap - used, "]");
    int64_t id = import_buffer(s, json);
    free(json);
    char *text = NULL;
    int rc;
    ari_error err = {0};
    json_t *all = (rc = ari_dm_timeline_json(s, id, NAN, NAN, 1000, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(all, "mode")), "groups");
    int64_t count = 0;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(all, "groups"), i, g) count += json_integer_value(json_object_get(g, "count"));
    assert_int_equal(count, 5000);
    json_decref(all);
    json_t *small = (rc = ari_dm_timeline_json(s, id, 100, 300, 1000, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(small, "mode")), "events");
    assert_int_equal(json_array_size(json_object_get(small, "events")), 100);
    json_decref(small);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_split),         cmocka_unit_test(test_share_and_variance),
        cmocka_unit_test(test_tiles),               cmocka_unit_test(test_categories_and_matrix),
        cmocka_unit_test(test_grouping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
