/* test_datamove.c: the data movement analyses (clock sectors split by
 * overlap, tiles and grouping level, overlaps, whole bytes per window,
 * variance) and the import of the project's Kineto
 * fixture: categories, movements, matrix sums, and grouping of a window
 * with many events; and exact byte totals in every endpoint for a fixture
 * with epoch-µs timestamps (tests/fixtures/datamove/epoch_us.json), through
 * the store's loaders and the server's encoders (json_datamove.c). The
 * views' arithmetic alone: test_datamove_views.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>

#include "analysis/datamove.h"
#include "ingest/chrome_trace.h"
#include "json_datamove.h"
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

static void test_overlap_and_variance(void **state)
{
    (void)state;
    assert_true(ari_dm_overlap(0, 10, 5, 20) == 5);
    assert_true(ari_dm_overlap(0, 10, 20, 30) == 0);
    double v[] = {1, 2, 3, 4};
    assert_true(fabs(ari_dm_variance(v, 4) - 1.25) < 1e-12);
    assert_true(ari_dm_variance(v, 1) == 0);
}

/* Bytes cut at any instants are whole, never negative, and sum to the
 * movement's bytes exactly, at epoch-µs times too. */
static void test_bytes_in_windows(void **state)
{
    (void)state;
    assert_true(ari_dm_bytes_in(400, 10, 4, 11, 12) == 100);
    assert_true(ari_dm_bytes_in(10, 0, 3, 0, 1) == 3); /* floor(10 / 3) */
    assert_true(ari_dm_bytes_in(10, 0, 3, 1, 2) == 3);
    assert_true(ari_dm_bytes_in(10, 0, 3, 2, 3) == 4); /* the rest */
    assert_true(ari_dm_bytes_in(10, 0, 3, -5, 50) == 10);
    assert_true(ari_dm_bytes_in(1000, 0, 10, 20, 30) == 0); /* after it */
    assert_true(ari_dm_bytes_in(7, 5, 0, 5, 6) == 7 && ari_dm_bytes_in(7, 5, 0, 4, 5) == 0); /* a point */
    const double t0 = 1665130893900466.0, t1 = 1665130937417164.0, start = 1665130933389691.0, dur = 25839;
    const double bytes = 1073741824.0;
    for (long n = 1; n <= ARI_DM_PAIR_BINS; n *= 4) {
        double sum = 0;
        for (long b = 0; b < n; b++) {
            double part = ari_dm_bytes_in(bytes, start, dur, ari_dm_bin_edge(t0, t1, b, n),
                                          ari_dm_bin_edge(t0, t1, b + 1, n));
            assert_true(part >= 0 && part == floor(part));
            sum += part;
        }
        assert_true(sum == bytes);
    }
    assert_true(ari_dm_bin_edge(t0, t1, ARI_DM_PAIR_BINS, ARI_DM_PAIR_BINS) == t1);
    for (long b = 0; b < ARI_DM_PAIR_BINS; b += 97) { /* a bin's own edge falls in it */
        double e = ari_dm_bin_edge(t0, t1, b, ARI_DM_PAIR_BINS);
        assert_int_equal(ari_dm_bin_of(t0, t1, ARI_DM_PAIR_BINS, e), b);
        assert_int_equal(ari_dm_bin_of(t0, t1, ARI_DM_PAIR_BINS, nextafter(e, -INFINITY)), b ? b - 1 : 0);
    }
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

/* The endpoints' documents: the store's rows encoded by the server
 * (server/json_datamove.c), as text. Each returns the loader's code. */
static int doc_text(int rc, json_t *doc, char **text)
{
    *text = rc == 0 ? ari_dm_json_text(doc) : (json_decref(doc), NULL);
    return rc == 0 && !*text ? -1 : rc;
}

static int doc_movements(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **text, ari_error *err)
{
    ari_dm_movements m;
    int rc = ari_dm_movements_load(s, id, w0, w1, limit, &m, err);
    rc = doc_text(rc, rc == 0 ? ari_dm_movements_json(&m, limit) : NULL, text);
    ari_dm_movements_free(&m);
    return rc;
}

static int doc_matrix(ari_store *s, int64_t id, double w0, double w1, char **text, ari_error *err)
{
    ari_dm_window_matrix m;
    int rc = ari_dm_matrix_load(s, id, w0, w1, &m, err);
    rc = doc_text(rc, rc == 0 ? ari_dm_matrix_json(&m) : NULL, text);
    ari_dm_window_matrix_free(&m);
    return rc;
}

static int doc_clock(ari_store *s, int64_t id, int nsectors, double width, char **text, ari_error *err)
{
    ari_dm_clock c;
    int rc = ari_dm_clock_load(s, id, nsectors, width, &c, err);
    rc = doc_text(rc, rc == 0 ? ari_dm_clock_json(&c) : NULL, text);
    ari_dm_clock_free(&c);
    return rc;
}

static int doc_topology(ari_store *s, int64_t id, double w0, double w1, char **text, ari_error *err)
{
    ari_dm_topology t;
    int rc = ari_dm_topology_load(s, id, w0, w1, &t, err);
    rc = doc_text(rc, rc == 0 ? ari_dm_topology_json(&t) : NULL, text);
    ari_dm_topology_free(&t);
    return rc;
}

static int doc_timeline(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **text, ari_error *err)
{
    ari_dm_timeline t;
    int rc = ari_dm_timeline_load(s, id, w0, w1, limit, &t, err);
    rc = doc_text(rc, rc == 0 ? ari_dm_timeline_json(&t) : NULL, text);
    ari_dm_timeline_free(&t);
    return rc;
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
    json_t *m = (rc = doc_matrix(s, id, 50, 125, &text, &err), query(rc, text));
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
    json_t *tl = (rc = doc_timeline(s, id, NAN, NAN, 1000, &text, &err), query(rc, text));
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
    json_t *c = (rc = doc_clock(s, id, 12, 0, &text, &err), query(rc, text));
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
    json_t *all = (rc = doc_timeline(s, id, NAN, NAN, 1000, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(all, "mode")), "groups");
    int64_t count = 0;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(all, "groups"), i, g) count += json_integer_value(json_object_get(g, "count"));
    assert_int_equal(count, 5000);
    json_decref(all);
    json_t *small = (rc = doc_timeline(s, id, 100, 300, 1000, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(small, "mode")), "events");
    assert_int_equal(json_array_size(json_object_get(small, "events")), 100);
    json_decref(small);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
}

/* ---- exact totals at epoch-µs times --------------------------------------------------- */

static char *read_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/datamove/%s", test_source_dir(), name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    assert_true(n > 0 && feof(f));
    fclose(f);
    buf[n] = 0;
    return buf;
}

static double number(const json_t *v)
{
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* Sum of a matrix's cells. */
static double matrix_sum(const json_t *m)
{
    double total = 0;
    size_t i, j;
    json_t *row, *v;
    json_array_foreach(json_object_get(m, "bytes"), i, row) json_array_foreach(row, j, v) total += number(v);
    return total;
}

static double matrix_total(ari_store *s, int64_t id, double w0, double w1)
{
    char *text = NULL;
    ari_error err = {0};
    int rc;
    json_t *m = (rc = doc_matrix(s, id, w0, w1, &text, &err), query(rc, text));
    double total = number(json_object_get(m, "total_bytes"));
    assert_true(matrix_sum(m) == total);
    assert_true(total == floor(total));
    json_decref(m);
    return total;
}

/* The fixture's copies: 2 x 1 GiB HtoD, 1 GiB DtoH, 123456789 B DtoD, at
 * epoch-µs times over a 43.5 s run (bins of about 10.6 ms, whose edges are
 * not whole µs). Shares of double fractions summed to 3221235842 B for the
 * GEMM fill run it imitates; the totals must be exact. */
static void test_epoch_totals(void **state)
{
    (void)state;
    const double htod = 2 * 1073741824.0, dtoh = 1073741824.0, dtod = 123456789.0, all = htod + dtoh + dtod;
    char *dir;
    ari_store *s = open_store(&dir);
    char *json = read_fixture("epoch_us.json");
    int64_t id = import_buffer(s, json);
    free(json);
    char *text = NULL;
    int rc;
    ari_error err = {0};

    assert_true(matrix_total(s, id, NAN, NAN) == all);
    json_t *mv = (rc = doc_movements(s, id, NAN, NAN, 100, &text, &err), query(rc, text));
    assert_true(number(json_object_get(mv, "bytes")) == all);
    assert_true(number(json_object_get(mv, "bytes_in_window")) == all);
    double run0 = number(json_object_get(mv, "start")), run1 = number(json_object_get(mv, "end"));
    /* windows and answers are µs from the run's start (issue 14), which the
     * answer gives as time_origin (absolute epoch µs) */
    double origin = number(json_object_get(mv, "time_origin"));
    assert_true(run0 == 0 && origin > 1e15);
    json_decref(mv);

    json_t *topo = (rc = doc_topology(s, id, NAN, NAN, &text, &err), query(rc, text));
    double links = 0, host_to_gpu = 0, gpu_to_host = 0;
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(topo, "links"), i, l) {
        links += number(json_object_get(l, "bytes"));
        if (strcmp(json_string_value(json_object_get(l, "src")), "host") == 0)
            host_to_gpu += number(json_object_get(l, "bytes"));
        if (strcmp(json_string_value(json_object_get(l, "dst")), "host") == 0)
            gpu_to_host += number(json_object_get(l, "bytes"));
    }
    assert_true(links == all);
    assert_true(host_to_gpu == htod);
    assert_true(gpu_to_host == dtoh);
    json_decref(topo);

    json_t *tl = (rc = doc_timeline(s, id, NAN, NAN, 1, &text, &err), query(rc, text));
    assert_string_equal(json_string_value(json_object_get(tl, "mode")), "groups");
    double grouped = 0;
    json_t *g;
    json_array_foreach(json_object_get(tl, "groups"), i, g) grouped += number(json_object_get(g, "bytes"));
    assert_true(grouped == all);
    json_decref(tl);

    /* windows cut through the copies: whole parts that add up, whatever the cut */
    const double cuts[] = {1665130933389691.0 + 9999, 1665130933415571.0 + 12345.5, 1665130935000003.0 + 1,
                           1665130937207460.0 + 30319};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        double cut = cuts[k] - origin;
        double left = matrix_total(s, id, run0, cut), right = matrix_total(s, id, cut, run1);
        assert_true(left > 0 && right > 0);
        assert_true(left + right == all);
    }
    /* and a window holding only the DtoD, inside the run's bins, gets all of it */
    assert_true(matrix_total(s, id, 1665130935000003.0 - 5000 - origin, 1665130935000003.0 + 77777 + 5000 - origin) ==
                dtod);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_split),         cmocka_unit_test(test_overlap_and_variance),
        cmocka_unit_test(test_tiles),               cmocka_unit_test(test_categories_and_matrix),
        cmocka_unit_test(test_grouping),            cmocka_unit_test(test_bytes_in_windows),
        cmocka_unit_test(test_epoch_totals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
