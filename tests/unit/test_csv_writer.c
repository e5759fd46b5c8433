/* test_csv_writer.c: the JSON-to-CSV flattener of ?format=csv
 * (server/csv_writer.c): RFC 4180 escaping, formula protection, nested
 * levels with their parents' columns, parallel arrays, members, lookups,
 * differences, null as an empty field, units in the header. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "csv_tables.h"
#include "csv_writer.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static char *csv_of(const char *json, const ari_csv_table *t, long *rows)
{
    json_t *root = json_loads(json, 0, NULL);
    assert_non_null(root);
    ari_sbuf out = {0};
    ari_error err = {0};
    *rows = ari_csv_write(root, t, &out, &err);
    assert_true(*rows >= 0);
    assert_int_equal(*rows, ari_csv_count(root, t));
    json_decref(root);
    return ari_sbuf_take(&out);
}

static void test_escaping(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
        int is_string;
    } cases[] = {
        {"plain", "plain", 1},
        {"a,b", "\"a,b\"", 1},
        {"say \"hi\"", "\"say \"\"hi\"\"\"", 1},
        {"two\nlines", "\"two\nlines\"", 1},
        {"cr\r", "\"cr\r\"", 1},
        {"=SUM(A1)", "'=SUM(A1)", 1},
        {"+1", "'+1", 1},
        {"-2", "'-2", 1},
        {"@cmd", "'@cmd", 1},
        {"=1,2", "\"'=1,2\"", 1},
        {"-3.5", "-3.5", 0}, /* a number is never prefixed */
        {"", "", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ari_sbuf b = {0};
        ari_csv_field(&b, cases[i].in, cases[i].is_string);
        assert_string_equal(ari_sbuf_text(&b), cases[i].want);
        ari_sbuf_free(&b);
    }
}

static const ari_csv_table nested = {"tasks",
                                     "rows[].tasks[]",
                                     "ms",
                                     NULL,
                                     NULL,
                                     {{"row", NULL, "@1.name"},
                                      {"type", NULL, "type", ARI_CSV_LOOKUP, "@0.types"},
                                      {"start", ARI_CSV_TIME, "start"},
                                      {"duration", ARI_CSV_TIME, "end", ARI_CSV_DIFF, "start"},
                                      {"gflop", "GFlop", "gflop"},
                                      {"ok", NULL, "ok"},
                                      {"extra", NULL, "extra"},
                                      {NULL}}};

static void test_nested_rows_with_parent_columns(void **state)
{
    (void)state;
    long rows;
    char *csv =
        csv_of("{\"time_unit\":\"us\",\"types\":[\"gemm\",\"=evil\"],\"rows\":["
               "{\"name\":\"n0 CPU0\",\"tasks\":[{\"type\":1,\"start\":0.1,\"end\":0.3,\"gflop\":null,"
               "\"ok\":true,\"extra\":{\"a\":[1,2]}},{\"type\":0,\"start\":-2,\"end\":1,\"gflop\":2}]},"
               "{\"name\":\"empty\",\"tasks\":[]},{\"name\":\"no tasks\",\"tasks\":null},"
               "{\"name\":\"a,b\",\"tasks\":[{\"type\":7,\"start\":1e-7,\"end\":1e-7}]}]}",
               &nested, &rows);
    assert_int_equal(rows, 3);
    assert_string_equal(csv, "row,type,start_us,duration_us,gflop_GFlop,ok,extra\r\n"
                             "n0 CPU0,'=evil,0.1,0.2,,true,\"{\"\"a\"\":[1,2]}\"\r\n"
                             "n0 CPU0,gemm,-2,3,2,,\r\n"
                             "\"a,b\",,1e-07,0,,,\r\n");
    free(csv);
    /* no time_unit in the answer: the table's default */
    csv = csv_of("{\"types\":[],\"rows\":[]}", &nested, &rows);
    assert_int_equal(rows, 0);
    assert_string_equal(csv, "row,type,start_ms,duration_ms,gflop_GFlop,ok,extra\r\n");
    free(csv);
}

static const ari_csv_table matrix = {"cells",
                                     "bytes[][]",
                                     "us",
                                     NULL,
                                     NULL,
                                     {{"src", NULL, "@1#", ARI_CSV_LOOKUP, "@0.names"},
                                      {"dst", NULL, "@2#", ARI_CSV_LOOKUP, "@0.names"},
                                      {"bytes", NULL, "."},
                                      {"bw", NULL, ".", ARI_CSV_PARALLEL, "@0.bw"},
                                      {NULL}}};

static const ari_csv_table columns = {
    "nodes",
    "series[]{}",
    "us",
    NULL,
    NULL,
    {{"series", NULL, "@1.id"}, {"i", NULL, "#"}, {"t", ARI_CSV_TIME, "ts"}, {"v", NULL, "values"}, {NULL}}};

static const ari_csv_table members = {
    "m",    "groups[].models.*",
    NULL,   "@1.kind",
    "keep", {{"group", NULL, "@1.kind"}, {"model", NULL, "#"}, {"r2", NULL, "r2"}, {NULL}}};

static const ari_csv_table root_row = {
    "total", ".",  "ms",
    NULL,    NULL, {{"makespan", ARI_CSV_TIME, "makespan"}, {"first", NULL, "list[0].x"}, {NULL}}};

static void test_matrix_columns_members_root(void **state)
{
    (void)state;
    long rows;
    char *csv = csv_of("{\"names\":[\"host\",\"gpu0\"],\"bytes\":[[0,5],[7,0]],\"bw\":[[null,1.5],[2,null]]}",
                       &matrix, &rows);
    assert_int_equal(rows, 4);
    assert_string_equal(csv, "src,dst,bytes,bw\r\nhost,host,0,\r\nhost,gpu0,5,1.5\r\ngpu0,host,7,2\r\n"
                             "gpu0,gpu0,0,\r\n");
    free(csv);
    csv = csv_of(
        "{\"series\":[{\"id\":4,\"ts\":[1,2],\"values\":[0.5,null]},{\"id\":5,\"ts\":[],\"values\":[]}]}",
        &columns, &rows);
    assert_int_equal(rows, 2);
    assert_string_equal(csv, "series,i,t_us,v\r\n4,0,1,0.5\r\n4,1,2,\r\n");
    free(csv);
    csv = csv_of("{\"groups\":[{\"kind\":\"keep\",\"models\":{\"lr\":{\"r2\":0.5},\"nlr\":{}}},"
                 "{\"kind\":\"drop\",\"models\":{\"lr\":{\"r2\":1}}}]}",
                 &members, &rows);
    assert_int_equal(rows, 2);
    assert_string_equal(csv, "group,model,r2\r\nkeep,lr,0.5\r\nkeep,nlr,\r\n");
    free(csv);
    csv = csv_of("{\"makespan\":0.1,\"time_unit\":\"s\",\"list\":[{\"x\":\"y\"}]}", &root_row, &rows);
    assert_int_equal(rows, 1);
    assert_string_equal(csv, "makespan_s,first\r\n0.1,y\r\n");
    free(csv);
}

/* Every table of every endpoint parses (a typo in rows would answer 500). */
static void test_every_table_parses(void **state)
{
    (void)state;
    size_t n;
    const ari_csv_view *v = ari_csv_views(&n);
    json_t *empty = json_object();
    for (size_t i = 0; i < n; i++) {
        assert_non_null(ari_csv_view_find(v[i].pattern));
        for (const ari_csv_table *t = v[i].tables; t->name; t++) {
            ari_sbuf out = {0};
            ari_error err = {0};
            if (ari_csv_write(empty, t, &out, &err) < 0)
                fail_msg("%s table %s: %s", v[i].pattern, t->name, err.message);
            assert_ptr_equal(ari_csv_table_find(&v[i], t->name), t);
            ari_sbuf_free(&out);
        }
    }
    json_decref(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_nested_rows_with_parent_columns),
        cmocka_unit_test(test_matrix_columns_members_root),
        cmocka_unit_test(test_every_table_parses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
