/* test_profiles.c: call-graph profiles: the profile writer and loader
 * (store/profile_writer.c, store/profile_queries.c), the readers
 * (Caliper json-split and .cali, HPCToolkit, Hatchet JSON and literal)
 * on the project's fixtures and, when present, on the shared data with
 * the values Hatchet's own tests assert, bad inputs (clear error, the
 * database exactly as before), and the endpoints' documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>

#include "analysis/profile_stats.h"
#include "import/import.h"
#include "profile_tree_text.h"
#include "store/profile_queries.h"
#include "store/profile_writer.h"
#include "test_helpers.h"

typedef test_db fixture;

static int64_t query_int(fixture *f, const char *sql)
{
    return test_query_int(f->db_path, sql);
}

static int64_t insert_trace(fixture *f, const char *kind)
{
    sqlite3 *db;
    char sql[256];
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    snprintf(sql, sizeof sql, "INSERT INTO traces(name, kind, format) VALUES ('t', '%s', 'test')", kind);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    int64_t id = sqlite3_last_insert_rowid(db);
    sqlite3_close(db);
    return id;
}

/* ---- writer and loader ---- */

/* main(10) -> {solve(6) -> kernel(4), io(2)} exclusive, ranks 1 and 0
 * announced out of order, nodes declared child-first, values before nodes. */
static void test_writer_loader_roundtrip(void **state)
{
    fixture *f = *state;
    int64_t id = insert_trace(f, "profile");
    ari_error err = {0};
    ari_profile_writer *pw = ari_profile_writer_begin_store(f->s, id, &err);
    assert_non_null(pw);
    const ari_profile_sink *k = ari_profile_writer_sink(pw);
    int exc, r0, r1;
    ari_profile_metric m = {"time", "sum#time.duration", "s", 0, NULL};
    assert_int_equal(k->on_metric(k->ctx, &m, &exc), 0);
    assert_int_equal(k->on_proc(k->ctx, 1, 0, &r1), 0);
    assert_int_equal(k->on_proc(k->ctx, 0, 0, &r0), 0);
    /* reader ids: 7 main, 3 solve, 9 kernel, 5 io */
    double e[4][2] = {{1, 2}, {2, 2}, {4, 3}, {2, 1}}; /* main solve kernel io, ranks 0/1 */
    int64_t ids[4] = {7, 3, 9, 5};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(k->on_value(k->ctx, exc, ids[i], r0, e[i][0]), 0);
        assert_int_equal(k->on_value(k->ctx, exc, ids[i], r1, e[i][1] / 2), 0);
        assert_int_equal(k->on_value(k->ctx, exc, ids[i], r1, e[i][1] / 2), 0); /* adds up */
    }
    assert_int_equal(k->on_value(k->ctx, exc, 42, r0, 99), 0); /* never declared: dropped */
    ari_profile_node kernel = {9, 3, "kernel", "libk.so", "k.c", 12, "function"};
    ari_profile_node solve = {3, 7, "solve", "app", "s.c", 5, NULL};
    ari_profile_node io = {5, 7, "io", "", NULL, 0, "region"};
    ari_profile_node main_ = {7, -1, "main", "app", "m.c", 1, "function"};
    assert_int_equal(k->on_node(k->ctx, &kernel), 0);
    assert_int_equal(k->on_node(k->ctx, &main_), 0);
    assert_int_equal(k->on_node(k->ctx, &solve), 0);
    assert_int_equal(k->on_node(k->ctx, &io), 0);
    assert_int_equal(k->on_meta(k->ctx, "cali.caliper.version", "\"2.9.0\""), 0);
    assert_int_equal(ari_profile_writer_finish(pw, &err), 0);
    ari_profile_writer_free(pw);

    ari_cct c;
    assert_int_equal(ari_profile_load(f->s, id, &c, &err), 0);
    assert_int_equal(c.nnodes, 4);
    /* depth first, children in declaration order: main, solve, kernel, io */
    const char *names[4] = {"main", "solve", "kernel", "io"};
    int64_t parents[4] = {-1, 0, 1, 0};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(c.name[i], names[i]);
        assert_int_equal(c.parent[i], parents[i]);
    }
    assert_string_equal(c.module[2], "libk.so");
    assert_string_equal(c.file[2], "k.c");
    assert_int_equal(c.line[2], 12);
    assert_string_equal(c.kind[1], "function");
    assert_string_equal(c.kind[3], "region");
    assert_int_equal(c.nprocs, 2);
    assert_int_equal(c.proc_rank[0], 0);
    assert_int_equal(c.proc_rank[1], 1);
    assert_int_equal(c.nmetrics, 2);
    int inc = ari_cct_metric_index(&c, "time (inc)");
    assert_int_equal(ari_cct_metric_index(&c, "time"), 0);
    assert_int_equal(inc, 1);
    assert_int_equal(c.metrics[0].partner, 1);
    assert_int_equal(c.metrics[1].partner, 0);
    assert_int_equal(c.metrics[1].inclusive, 1);
    assert_string_equal(c.metrics[1].unit, "s");
    /* exclusive in new order: main 1/2, solve 2/2, kernel 4/3, io 2/1 */
    assert_true(c.values[0][2 * 2 + 1] == 3);
    /* derived inclusive: main = 1+2+4+2 = 9 on rank 0, 2+2+3+1 = 8 on rank 1 */
    assert_true(c.values[inc][0] == 9);
    assert_true(c.values[inc][1] == 8);
    assert_true(c.values[inc][1 * 2 + 0] == 6);
    ari_cct_free(&c);
    assert_null(c.name);

    char sql[256];
    snprintf(sql, sizeof sql, "SELECT derived FROM profile_metrics WHERE trace_id = %lld AND name = 'time (inc)'",
             (long long)id);
    assert_int_equal(query_int(f, sql), 1);
    snprintf(sql, sizeof sql, "SELECT json_extract(summary_json, '$.values_without_node') FROM traces WHERE id = %lld",
             (long long)id);
    assert_int_equal(query_int(f, sql), 1);
    snprintf(sql, sizeof sql, "SELECT json_extract(summary_json, '$.root_inclusive.max') FROM traces WHERE id = %lld",
             (long long)id);
    assert_int_equal(query_int(f, sql), 9);
    snprintf(sql, sizeof sql, "SELECT json_extract(meta_json, '$.\"cali.caliper.version\"') = '2.9.0' FROM traces WHERE id = %lld",
             (long long)id);
    assert_int_equal(query_int(f, sql), 1);
    snprintf(sql, sizeof sql, "SELECT length(vals) FROM profile_values WHERE trace_id = %lld LIMIT 1", (long long)id);
    assert_int_equal(query_int(f, sql), 16);
}

static void test_load_errors(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    ari_cct c;
    assert_int_equal(ari_profile_load(f->s, 12345, &c, &err), 1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    int64_t id = insert_trace(f, "tasks");
    assert_int_equal(ari_profile_load(f->s, id, &c, &err), 2);
    assert_string_equal(err.code, ARI_E_NOT_A_PROFILE);
    assert_null(c.parent);
}

/* A cycle and an unknown parent are errors, not hangs. */
static void test_writer_bad_trees(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    for (int variant = 0; variant < 3; variant++) {
        int64_t id = insert_trace(f, "profile");
        ari_profile_writer *pw = ari_profile_writer_begin_store(f->s, id, &err);
        const ari_profile_sink *k = ari_profile_writer_sink(pw);
        ari_profile_node a = {0, variant == 0 ? 1 : -1, "a", NULL, NULL, 0, NULL};
        ari_profile_node b = {1, variant == 1 ? 5 : 0, "b", NULL, NULL, 0, NULL};
        ari_profile_node c = {2, 3, "c", NULL, NULL, 0, NULL}, d = {3, 2, "d", NULL, NULL, 0, NULL};
        assert_int_equal(k->on_node(k->ctx, &a), 0);
        assert_int_equal(k->on_node(k->ctx, &b), 0);
        if (variant == 2) {
            assert_int_equal(k->on_node(k->ctx, &c), 0);
            assert_int_equal(k->on_node(k->ctx, &d), 0);
        }
        assert_int_equal(ari_profile_writer_finish(pw, &err), -1);
        assert_string_equal(err.code, ARI_E_INVALID_INPUT);
        ari_profile_writer_free(pw);
    }
}


/* ---- imports ---- */

/* Imports one input; returns the trace id, or -1 with err set. */
static int64_t import_path(fixture *f, const char *path, ari_error *err)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    if (ari_import(f->s, &req, &res, err) < 0)
        return -1;
    int64_t id = res.ntraces == 1 ? res.traces[0].id : -1;
    ari_import_result_free(&res);
    return id;
}

static char *fixture_path(const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/tests/fixtures/profiles/%s", test_source_dir(), name) > 0);
    return p;
}

/* The shared data file, or NULL (the check is skipped) when absent. */
static char *shared_path(const char *rel)
{
    const char *root = getenv("ARIADNE_SHARED_DATA");
    char *p;
    if (!root || asprintf(&p, "%s/hatchet/hatchet/tests/data/%s", root, rel) < 0)
        return NULL;
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int64_t import_ok(fixture *f, const char *path)
{
    ari_error err = {0};
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("import %s: %s: %s", path, err.code, err.message);
    return id;
}

static void load_ok(fixture *f, int64_t id, ari_cct *c)
{
    ari_error err = {0};
    if (ari_profile_load(f->s, id, c, &err) != 0)
        fail_msg("load %lld: %s", (long long)id, err.message);
}

static char *tree_text(fixture *f, int64_t id, const char *metric, int64_t rank)
{
    ari_error err = {0};
    char *text = NULL;
    ari_profile_tree_rows rows;
    if (ari_profile_tree_rows_load(f->s, id, metric, rank, 0, &rows, &err) != 0 ||
        ari_profile_tree_text(&rows, 3, &text, &err) != 0)
        fail_msg("tree: %s", err.message);
    ari_profile_tree_rows_free(&rows);
    return text;
}

static void assert_line(const char *text, const char *line)
{
    if (!strstr(text, line))
        fail_msg("'%s' not in the tree:\n%s", line, text);
}

static double value(const ari_cct *c, const char *metric, int64_t node, int proc)
{
    int m = ari_cct_metric_index(c, metric);
    if (m < 0)
        fail_msg("no metric %s", metric);
    return c->values[m][node * c->nprocs + proc];
}

static int64_t count_measured(const ari_cct *c, const char *metric)
{
    int m = ari_cct_metric_index(c, metric);
    int64_t n = 0;
    for (int64_t i = 0; i < c->nnodes * c->nprocs; i++)
        n += !isnan(c->values[m][i]);
    return n;
}

static int64_t distinct_names(const ari_cct *c)
{
    int64_t n = 0;
    for (int64_t i = 0; i < c->nnodes; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = strcmp(c->name[i], c->name[j]) == 0;
        n += !seen;
    }
    return n;
}

static void test_fixture_split(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("small-split.json");
    int64_t id = import_ok(f, path);
    free(path);
    ari_cct c;
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 4);
    assert_int_equal(c.nprocs, 3);
    assert_string_equal(c.name[0], "main");
    assert_string_equal(c.name[3], "io \"out\"");
    assert_string_equal(c.kind[0], "region");
    assert_true(value(&c, "time", 0, 1) == 2.0);
    assert_true(value(&c, "time (inc)", 0, 1) == 6.0);
    assert_int_equal(count_measured(&c, "time"), 12); /* the null-path row is dropped */
    assert_string_equal(c.metrics[ari_cct_metric_index(&c, "time")].unit, "sec");
    ari_cct_free(&c);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT json_extract(meta_json, '$.\"mpi.world.size\"') FROM traces WHERE id = %lld",
             (long long)id);
    assert_int_equal(query_int(f, sql), 3);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM profile_metrics WHERE trace_id = %lld AND derived = 0",
             (long long)id);
    assert_int_equal(query_int(f, sql), 2); /* both variants are in the file */
    char *text = tree_text(f, id, "time (inc)", 1);
    assert_line(text, "6.000 main\n");
    assert_line(text, "\xe2\x94\x9c\xe2\x94\x80 3.000 solve\n");
    assert_line(text, "\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 2.000 kernel\n");
    assert_line(text, "\xe2\x94\x94\xe2\x94\x80 2.000 io \"out\"\n");
    free(text);
}

static void test_fixture_cali(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("small.cali");
    int64_t id = import_ok(f, path);
    free(path);
    ari_cct c;
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 3);
    assert_string_equal(c.name[0], "main");
    assert_string_equal(c.name[1], "solve,fast"); /* "\," */
    assert_string_equal(c.name[2], "a=b");        /* "\=" */
    assert_int_equal(c.nprocs, 2);
    assert_int_equal(c.nmetrics, 2); /* time and the derived time (inc); mpi.rank is not a metric */
    assert_true(value(&c, "time", 2, 1) == 0.5); /* two snapshots add up */
    assert_true(isnan(value(&c, "time", 1, 1)));  /* solve not measured on rank 1 */
    assert_true(value(&c, "time (inc)", 0, 0) == 3.5);
    assert_true(value(&c, "time (inc)", 0, 1) == 1.5);
    ari_cct_free(&c);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT json_extract(meta_json, '$.\"cali.caliper.version\"') = '2.9.0'"
             " FROM traces WHERE id = %lld", (long long)id);
    assert_int_equal(query_int(f, sql), 1);
}

static void test_fixture_hatchet(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("small-literal.json");
    int64_t id = import_ok(f, path);
    free(path);
    ari_cct c;
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 2);
    assert_int_equal(c.nprocs, 2);
    assert_string_equal(c.file[1], "bar.c");
    assert_int_equal(c.line[1], 7);
    assert_true(value(&c, "time (inc)", 0, 1) == 12.0);
    assert_true(value(&c, "time", 1, 0) == 9.0);
    ari_cct_free(&c);

    path = fixture_path("small-graph.json");
    id = import_ok(f, path);
    free(path);
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 3);
    assert_string_equal(c.name[1], "bar");
    assert_string_equal(c.kind[1], "function"); /* "None" */
    assert_int_equal(c.parent[2], 0);
    assert_true(value(&c, "time", 2, 1) == 4.0);
    ari_cct_free(&c);
}

static void test_fixture_hpctoolkit(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("hpctoolkit-small");
    int64_t id = import_ok(f, path);
    free(path);
    ari_cct c;
    load_ok(f, id, &c);
    /* siblings in Hatchet's frame order: statements and loops (by file,
     * line) before functions (by name) */
    const char *names[] = {"main", "app.c:12", "10:solve", "Loop@app.c:40", "app.c:41", "<unknown file>:31"};
    const char *kinds[] = {"function", "statement", "function", "loop", "statement", "statement"};
    const char *files[] = {"./src/app.c", "./src/app.c", "<unknown file>", "./src/app.c", "./src/app.c", "<unknown file>"};
    const char *modules[] = {"/bin/app", "", "/lib/libm.so", "", "", ""};
    int64_t parents[] = {-1, 0, 0, 2, 3, 2};
    double exc[] = {0, 20, 0, 0, 50, 30}, inc[] = {100, 20, 80, 50, 50, 30};
    assert_int_equal(c.nnodes, 6);
    assert_int_equal(c.nprocs, 2);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(c.name[i], names[i]);
        assert_string_equal(c.kind[i], kinds[i]);
        assert_string_equal(c.file[i], files[i]);
        assert_string_equal(c.module[i], modules[i]);
        assert_int_equal(c.parent[i], parents[i]);
        for (int p = 0; p < 2; p++) {
            assert_true(value(&c, "time", i, p) == exc[i] * (p + 1)); /* statements subtracted */
            assert_true(value(&c, "time (inc)", i, p) == inc[i] * (p + 1));
        }
    }
    assert_string_equal(c.metrics[ari_cct_metric_index(&c, "time (inc)")].unit, "usec");
    ari_cct_free(&c);
    char *text = tree_text(f, id, "time (inc)", 1);
    assert_line(text, "200.000 main ./src/app.c\n");
    assert_line(text, "160.000 10:solve <unknown file>\n");
    free(text);
}

/* ---- bad inputs: a clear error and the database exactly as before ---- */

static int64_t total_rows(fixture *f)
{
    return query_int(f, "SELECT (SELECT count(*) FROM traces) + (SELECT count(*) FROM cct_nodes)"
                        " + (SELECT count(*) FROM profile_values) + (SELECT count(*) FROM profile_metrics)"
                        " + (SELECT count(*) FROM profile_procs) + (SELECT count(*) FROM trace_files)");
}

static void expect_refused(fixture *f, const char *path, const char *code, const char *words)
{
    int64_t before = total_rows(f);
    ari_error err = {0};
    assert_int_equal(import_path(f, path, &err), -1);
    if (strcmp(err.code, code) != 0 || !strstr(err.message, words))
        fail_msg("%s: got %s '%s', want %s with '%s'", path, err.code, err.message, code, words);
    assert_int_equal(total_rows(f), before);
}

static void test_bad_inputs(void **state)
{
    fixture *f = *state;
    char *good = fixture_path("small-split.json");
    int64_t first = import_ok(f, good); /* something in the database to keep intact */
    assert_true(first > 0);
    free(good);
    struct { const char *name, *data, *code, *words; } cases[] = {
        {"empty.json", "", ARI_E_INVALID_INPUT, "empty"},
        {"trunc.json", "{\"data\": [[1, 0, 1, 0], [2, 1", ARI_E_INVALID_INPUT, "truncated"},
        {"trunc2.json", "{\"columns\": [\"path\", \"sum#time.duration\"], \"data\": [[0, 1.0]], \"nodes\": [{\"la",
         ARI_E_INVALID_INPUT, "truncated"},
        {"nonum.json", "{\"columns\": [\"path\", \"time\"], \"column_metadata\": [{\"is_value\": false}, {\"is_value\": true}],"
         " \"data\": [[0, \"x\"], [0, oops]], \"nodes\": [{\"label\": \"a\", \"column\": \"path\"}]}",
         ARI_E_INVALID_INPUT, "value"},
        {"cycle.json", "{\"columns\": [\"path\", \"time\"], \"column_metadata\": [{\"is_value\": false}, {\"is_value\": true}],"
         " \"data\": [[0, 1]], \"nodes\": [{\"label\": \"a\", \"column\": \"path\", \"parent\": 1},"
         " {\"label\": \"b\", \"column\": \"path\", \"parent\": 0}]}", ARI_E_INVALID_INPUT, "cycle"},
        {"trunc.cali", "__rec=node,id=11,attr=10,data=268,parent=3\n__rec=node,id=12,attr=8,data=region,parent=11\n"
         "__rec=node,id=17,attr=12,data=main\n__rec=ctx,ref=17,attr=99,data=1\n", ARI_E_INVALID_INPUT, "undefined"},
        {"bootstrap.cali", "__rec=node,id=5,attr=8,data=x\n", ARI_E_INVALID_INPUT, "bootstrap"},
        {"nothing.cali", "__rec=node,id=11,attr=10,data=268,parent=3\n", ARI_E_INVALID_INPUT, "no snapshot"},
        {"binary.cali", "__rec=node,id=11\0\x01\x02\xff", ARI_E_UNSUPPORTED, "no reader"},
        {"late.cali", "__rec=node,id=11,attr=10,data=268,parent=3\n__rec=node,id=12,attr=8,data=re\x01gion,parent=11\n"
         "__rec=node,id=17,attr=12,data=main\n__rec=ctx,ref=17\n__rec=ctx,ref=17,attr=12=12,data=1\n",
         ARI_E_INVALID_INPUT, "differ"},
        {"wrong.json", "[1, 2, 3]", ARI_E_UNSUPPORTED, "no reader"},
        /* found by fuzzing: a field without '=', and metadata given twice */
        {"novalue.cali", "__rec=node,id=11,attr=10,data\n", ARI_E_INVALID_INPUT, "no snapshot"},
        {"twice.json", "{\"columns\": [\"path\"], \"column_metadata\": [{\"attribute.unit\": \"s\"}],"
         " \"column_metadata\": [{\"attribute.unit\": \"s\"}], \"data\": [], \"nodes\": []}", ARI_E_INVALID_INPUT, "twice"},
        {"literal.json", "[{\"frame\": {\"name\": \"a\"}, \"metrics\": {\"time\": \"x\"}}]", ARI_E_INVALID_INPUT, "number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strcmp(cases[i].name, "binary.cali") == 0 ? 20 : strlen(cases[i].data);
        char *p = test_write_file(f->dir, cases[i].name, cases[i].data, len);
        expect_refused(f, p, cases[i].code, cases[i].words);
        free(p);
    }
    /* HPCToolkit: truncated XML, a metric-db of the wrong size, a binary experiment.xml */
    char *src = fixture_path("hpctoolkit-small");
    char *db;
    assert_true(asprintf(&db, "%s/hpc", f->dir) > 0);
    for (int variant = 0; variant < 3; variant++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", db, src, db);
        assert_int_equal(system(cmd), 0);
        if (variant == 0)
            snprintf(cmd, sizeof cmd, "truncate -s 900 '%s/experiment.xml'", db);
        else if (variant == 1)
            snprintf(cmd, sizeof cmd, "truncate -s 150 '%s/1.app-000001-000-a8c00270-1000-0.metric-db'", db);
        else
            snprintf(cmd, sizeof cmd, "printf '<HPCToolkitExperiment version=\"2.0\">\\001\\000\\377' > '%s/experiment.xml'", db);
        assert_int_equal(system(cmd), 0);
        expect_refused(f, db, variant == 2 ? ARI_E_UNSUPPORTED : ARI_E_INVALID_INPUT,
                       variant == 0 ? "XML error" : variant == 1 ? "wrong size" : "no reader");
    }
    free(db);
    free(src);
}

/* ---- the shared data and Hatchet's oracles ---- */

/* Splits a CSV line into fields (double quotes protect commas). */
static int csv_fields(char *line, char **out, int max)
{
    int n = 0;
    char *w = line, *r = line;
    out[n++] = w;
    int quoted = 0;
    for (; *r && *r != '\n'; r++) {
        if (*r == '"') {
            quoted = !quoted;
        } else if (*r == ',' && !quoted) {
            *w++ = '\0';
            if (n == max)
                return n;
            out[n++] = w;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return n;
}

static void test_hatchet_hpctoolkit_cpi(void **state)
{
    fixture *f = *state;
    char *db = shared_path("hpctoolkit-cpi-database"), *csv = shared_path("hpctoolkit-cpi-graphframe.csv");
    if (!db || !csv) {
        free(db), free(csv);
        skip();
    }
    int64_t id = import_ok(f, db);
    ari_cct c;
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 34);
    assert_int_equal(c.nprocs, 4);
    FILE *in = fopen(csv, "r");
    assert_non_null(in);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, in)); /* node,rank,time (inc),time,nid,name,type,file,line,module */
    int rows = 0;
    double exc_total = 0;
    while (fgets(line, sizeof line, in)) {
        char *col[16];
        assert_int_equal(csv_fields(line, col, 16), 10);
        int64_t node = rows / 4; /* Hatchet's rows: nodes in traversal order, ranks 0-3 */
        int rank = atoi(col[1]);
        assert_int_equal(rank, rows % 4);
        assert_int_equal(c.proc_rank[rank], rank);
        assert_string_equal(c.name[node], col[5]);
        if (value(&c, "time (inc)", node, rank) != atof(col[2]))
            fail_msg("row %d (%s, nid %s): %g != %s", rows, col[5], col[4], value(&c, "time (inc)", node, rank), col[2]);
        assert_true(value(&c, "time", node, rank) == atof(col[3]));
        assert_string_equal(c.kind[node], strcmp(col[6], "S") == 0 ? "statement" : strcmp(col[6], "L") == 0 ? "loop" : "function");
        assert_string_equal(c.file[node], col[7]);
        assert_int_equal(c.line[node], atoi(col[8]));
        assert_string_equal(c.module[node], col[9]);
        exc_total += atof(col[3]);
        rows++;
    }
    fclose(in);
    assert_int_equal(rows, 136);
    assert_true(exc_total == 3998242);
    double roots[4] = {999238, 999390, 1000306, 999308};
    for (int p = 0; p < 4; p++)
        assert_true(value(&c, "time (inc)", 0, p) == roots[p]);
    ari_cct_free(&c);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT json_extract(summary_json, '$.modules') * 10000 + json_extract(summary_json, '$.files')"
             " * 100 + json_extract(summary_json, '$.names') FROM traces WHERE id = %lld", (long long)id);
    assert_int_equal(query_int(f, sql), 5 * 10000 + 11 * 100 + 20);
    char *text = tree_text(f, id, "time", 0);
    assert_line(text, "0.000 <program root> <unknown file>");
    assert_line(text, "0.000 198:MPIR_Init_thread /tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpi/init/initthread.c");
    free(text);
    text = tree_text(f, id, "time (inc)", 0);
    assert_line(text, "17989.000 interp.c:0 interp.c");
    assert_line(text, "999238.000 230:psm_dofinalize /tmp/dpkg-mkdeb.gouoc49UG7/src/mvapich/src/build/../src/mpid/ch3/channels/psm/src/psm_exit.c");
    free(text);
    free(db);
    free(csv);
}

static void test_hatchet_hpctoolkit_allgather(void **state)
{
    fixture *f = *state;
    char *db = shared_path("hpctoolkit-allgather-database");
    if (!db)
        skip();
    int64_t id = import_ok(f, db);
    free(db);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT json_extract(summary_json, '$.modules') * 1000000 + json_extract(summary_json, '$.files')"
             " * 1000 + json_extract(summary_json, '$.names') FROM traces WHERE id = %lld", (long long)id);
    assert_int_equal(query_int(f, sql), 9 * 1000000 + 41 * 1000 + 383);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT kind) * 1000 + (SELECT count(*) FROM profile_procs WHERE trace_id = %lld)"
             " FROM cct_nodes WHERE trace_id = %lld", (long long)id, (long long)id);
    assert_int_equal(query_int(f, sql), 3 * 1000 + 20); /* 3 types; 10 ranks x 2 threads */
}

static void test_hatchet_lulesh_split(void **state)
{
    fixture *f = *state;
    char *path = shared_path("caliper-lulesh-json/lulesh-annotation-profile.json");
    if (!path)
        skip();
    int64_t id = import_ok(f, path);
    free(path);
    ari_cct c;
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 24);
    assert_int_equal(distinct_names(&c), 24);
    assert_int_equal(c.nprocs, 8);
    assert_int_equal(count_measured(&c, "time"), 192);
    assert_int_equal(count_measured(&c, "time (inc)"), 192);
    /* caliper.py:822: inclusive recomputed from exclusive equals the file's */
    int inc = ari_cct_metric_index(&c, "time (inc)"), exc = ari_cct_metric_index(&c, "time");
    for (int64_t i = c.nnodes - 1; i >= 0; i--) {
        for (int p = 0; p < c.nprocs; p++) {
            double sum = c.values[exc][i * c.nprocs + p];
            for (int64_t j = i + 1; j < c.nnodes; j++)
                if (c.parent[j] == i)
                    sum += c.values[inc][j * c.nprocs + p];
            assert_true(fabs(sum - c.values[inc][i * c.nprocs + p]) < 1e-6);
        }
    }
    ari_cct_free(&c);
    char *text = tree_text(f, id, "time", 0);
    assert_line(text, "121489.000 main\n");
    assert_line(text, "663.000 LagrangeElements\n");
    assert_line(text, "21493.000 CalcTimeConstraintsForElems\n");
    free(text);
    text = tree_text(f, id, "time (inc)", 0);
    assert_line(text, "662712.000 EvalEOSForElems\n");
    assert_line(text, "2895319.000 LagrangeNodal\n");
    free(text);
}

static void test_hatchet_caliper_json(void **state)
{
    fixture *f = *state;
    char *cpi = shared_path("caliper-cpi-json/cpi-callpath-profile.json");
    char *ordered = shared_path("caliper-ordered-json/caliper-region-node-order.json");
    char *literal = shared_path("json/hatchet-graph-literal.json");
    if (!cpi || !ordered || !literal) {
        free(cpi), free(ordered), free(literal);
        skip();
    }
    ari_cct c;
    load_ok(f, import_ok(f, cpi), &c);
    assert_int_equal(distinct_names(&c), 100);
    assert_int_equal(c.nprocs, 4);
    ari_cct_free(&c);
    load_ok(f, import_ok(f, ordered), &c);
    assert_int_equal(c.nnodes, 19);
    assert_int_equal(ari_cct_metric_index(&c, "Node order"), -1);
    assert_string_equal(c.name[0], "main");
    assert_true(value(&c, "time", 0, 0) == 0.018887);
    assert_string_equal(c.name[18], "CalcTimeConstraintsForElems");
    assert_true(value(&c, "time", 18, 0) == 0.010730);
    ari_cct_free(&c);
    int64_t id = import_ok(f, literal);
    load_ok(f, id, &c);
    assert_int_equal(c.nnodes, 24);
    assert_string_equal(c.name[0], "foo");
    assert_int_equal(c.parent[0], -1);
    ari_cct_free(&c);
    char *text = tree_text(f, id, "time", 0);
    assert_line(text, "0.000 foo\n");
    assert_line(text, "10.000 waldo\n");
    assert_line(text, "15.000 garply\n");
    free(text);
    text = tree_text(f, id, "time (inc)", 0);
    assert_line(text, "55.000 waldo\n");
    free(text);
    free(cpi), free(ordered), free(literal);
}

static void test_hatchet_cali(void **state)
{
    fixture *f = *state;
    char *ordered = shared_path("caliper-ordered-cali/230525-151052_1930517_eWbGeyrlBOPT.cali");
    char *mpi = shared_path("caliper-ordered-cali-mpi/230525-151723_1930647_FSY8b8cKSEEi.cali");
    char *lulesh = shared_path("caliper-lulesh-cali/lulesh-annotation-profile.cali");
    char *sw4 = shared_path("caliper-sw4-cuda-activity-cali/caliper_cuda_activity_profile.cali");
    char *ts = shared_path("caliper-timeseries-cali/timeseries.cali");
    if (!ordered || !mpi || !lulesh || !sw4 || !ts) {
        free(ordered), free(mpi), free(lulesh), free(sw4), free(ts);
        skip();
    }
    static const char *names[] = {"main", "lulesh.cycle", "TimeIncrement", "LagrangeLeapFrog", "LagrangeNodal",
        "CalcForceForNodes", "CalcVolumeForceForElems", "IntegrateStressForElems", "CalcHourglassControlForElems",
        "CalcFBHourglassForceForElems", "LagrangeElements", "CalcLagrangeElements", "CalcKinematicsForElems",
        "CalcQForElems", "CalcMonotonicQForElems", "ApplyMaterialPropertiesForElems", "EvalEOSForElems",
        "CalcEnergyForElems", "CalcTimeConstraintsForElems"};
    static const double total[] = {1.250952, 1.229935, 0.000085, 1.229702, 0.604766, 0.566399, 0.561237, 0.161196,
        0.395344, 0.239849, 0.614079, 0.175102, 0.168127, 0.136318, 0.038575, 0.299062, 0.293046, 0.190395, 0.010707};
    ari_cct c;
    load_ok(f, import_ok(f, ordered), &c);
    assert_int_equal(c.nnodes, 19);
    for (int i = 0; i < 19; i++) {
        assert_string_equal(c.name[i], names[i]);
        assert_true(value(&c, "Total time", i, 0) == total[i]);
    }
    assert_int_equal(c.metrics[ari_cct_metric_index(&c, "Total time")].inclusive, 1);
    ari_cct_free(&c);
    load_ok(f, import_ok(f, mpi), &c);
    assert_int_equal(c.nnodes, 26);
    assert_string_equal(c.name[0], "main");
    assert_true(value(&c, "Total time", 0, 0) == 1.264876);
    assert_string_equal(c.name[1], "MPI_Barrier");
    assert_true(value(&c, "Total time", 1, 0) == 0.000025);
    assert_string_equal(c.name[25], "MPI_Comm_dup");
    assert_true(value(&c, "Total time", 25, 0) == 0.000017);
    ari_cct_free(&c);
    int64_t id = import_ok(f, lulesh);
    load_ok(f, id, &c);
    assert_int_equal(distinct_names(&c), 19);
    ari_cct_free(&c);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT json_extract(meta_json, '$.\"cali.caliper.version\"') IS NOT NULL FROM traces"
             " WHERE id = %lld", (long long)id);
    assert_int_equal(query_int(f, sql), 1);
    load_ok(f, import_ok(f, sw4), &c);
    assert_int_equal(c.nnodes, 549);
    ari_cct_free(&c);
    load_ok(f, import_ok(f, ts), &c);
    assert_int_equal(distinct_names(&c), 19);
    assert_string_equal(c.name[0], "main");
    assert_true(value(&c, "alloc.region.highwatermark", 0, 0) == 25824351.0);
    ari_cct_free(&c);
    free(ordered), free(mpi), free(lulesh), free(sw4), free(ts);
}

/* ---- endpoint rows (their JSON: tests/api/profiles.test.mjs) ---- */

static const ari_profile_stat_row *stat_of(const ari_profile_summary *p, int64_t node, const char *metric)
{
    for (size_t k = 0; k < p->nstats; k++)
        if (p->stats[k].node == node && strcmp(ari_profile_summary_metric(p, p->stats[k].metric)->name, metric) == 0)
            return &p->stats[k];
    return NULL;
}

static void test_summary_rows(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("small-split.json");
    int64_t id = import_ok(f, path);
    free(path);
    ari_error err = {0};
    ari_profile_summary p;
    assert_int_equal(ari_profile_summary_load(f->s, id, NULL, &p, &err), 0);
    assert_string_equal(ari_profile_summary_metric(&p, p.inclusive)->name, "time (inc)");
    const ari_profile_stat_row *root = stat_of(&p, 0, "time (inc)");
    assert_non_null(root);
    assert_true(fabs(root->mean - 31.0 / 6) < 1e-12);
    assert_true(root->min == 4.5 && root->max == 6.0);
    assert_true(p.incmean[0] == root->mean);
    /* a 30% filter of the root's 5.17: io (mean 1.33) drops, kernel (2.0) stays but is deeper than 1 */
    int64_t parent[64];
    int depth[64];
    assert_true(p.nnodes <= 64);
    for (int64_t i = 0; i < p.nnodes; i++) {
        parent[i] = p.nodes[i].parent;
        depth[i] = p.nodes[i].depth;
    }
    ari_cct_view v;
    assert_int_equal(ari_cct_view_compute(p.nnodes, parent, depth, p.incmean, 0.3, 1, &v, &err), 0);
    assert_int_equal(v.shown, 2);
    for (int64_t i = 0; i < p.nnodes; i++)
        if (strcmp(p.nodes[i].name, "kernel") == 0 || strncmp(p.nodes[i].name, "io", 2) == 0)
            assert_int_equal(v.show[i], 0);
    ari_cct_view_free(&v);
    ari_profile_summary_free(&p);
    assert_int_equal(ari_profile_summary_load(f->s, id, "time", &p, &err), 0);
    for (size_t k = 0; k < p.nstats; k++)
        assert_string_equal(ari_profile_summary_metric(&p, p.stats[k].metric)->name, "time");
    ari_profile_summary_free(&p);
    int64_t tasks = insert_trace(f, "tasks");
    assert_int_equal(ari_profile_summary_load(f->s, tasks, NULL, &p, &err), 2);
    assert_string_equal(err.code, ARI_E_NOT_A_PROFILE);
}

static void test_node_rows(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("small-split.json");
    int64_t id = import_ok(f, path);
    free(path);
    ari_error err = {0};
    ari_profile_node_values v;
    assert_int_equal(ari_profile_node_values_load(f->s, id, 0, "time", &v, &err), 0);
    assert_int_equal(v.nprocs, 3);
    assert_true(v.node.found);
    /* values 1, 2, 0.5 over 2 bins of [0.5, 2]: {0.5, 1} and {2} */
    ari_rank_histogram h;
    assert_int_equal(ari_rank_histogram_compute(v.values, v.nprocs, 2, &h, &err), 0);
    assert_int_equal(h.counts[0], 2);
    assert_int_equal(h.counts[1], 1);
    assert_int_equal(v.rank[h.member[0]], 0);
    assert_int_equal(v.rank[h.member[1]], 2);
    assert_int_equal(v.rank[h.member[2]], 1);
    ari_rank_histogram_free(&h);
    ari_profile_node_values_free(&v);
    assert_int_equal(ari_profile_node_values_load(f->s, id, 99, "time", &v, &err), -1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    assert_int_equal(ari_profile_node_values_load(f->s, id, 0, "nope", &v, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    /* x = inclusive 5, 6, 4.5 and y = exclusive 1, 2, 0.5: y = x - 4 exactly */
    assert_int_equal(ari_profile_scatter_load(f->s, id, -1, "time (inc)", "time", &v, &err), 0);
    assert_string_equal(v.metric, "time (inc)");
    assert_string_equal(v.metric_y, "time");
    ari_fit fit;
    ari_least_squares(v.values, v.y, v.nprocs, &fit);
    assert_int_equal(fit.n, 3);
    /* printed with 15 digits, as the endpoint does: 1.0, -4.0, 1.0 */
    assert_true(fabs(fit.slope - 1.0) < 1e-14 && fabs(fit.intercept + 4.0) < 1e-13 && fabs(fit.r - 1.0) < 1e-14);
    ari_profile_node_values_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_writer_loader_roundtrip, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_load_errors, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_writer_bad_trees, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_split, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_cali, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_hatchet, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_hpctoolkit, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_bad_inputs, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_summary_rows, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_node_rows, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_hpctoolkit_cpi, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_hpctoolkit_allgather, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_lulesh_split, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_caliper_json, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_hatchet_cali, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
