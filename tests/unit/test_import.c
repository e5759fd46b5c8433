/* test_import.c: the import driver: files, directories and archives,
 * unknown and empty files, unsafe archives, and atomicity (a failing file
 * leaves the database exactly as before). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <sqlite3.h>

#include "ingest/import.h"
#include "test_helpers.h"

static const char good_trace[] =
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n"
    "% Name string\n%EndEventDef\n"
    "%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "0 P 0 Process\n1 S P State\n2 0 p1 P 0 p1\n3 0.5 S p1 Run\n3 1.5 S p1 Idle\n3 2.0 S p1 Run\n";

/* A trace that fails on its last line (a state in an unknown container). */
static const char bad_trace[] =
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n"
    "% Name string\n%EndEventDef\n"
    "%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "0 P 0 Process\n1 S P State\n2 0 p1 P 0 p1\n3 0.5 S p1 Run\n3 1.0 S nowhere Run\n";

typedef test_db fixture;

/* Sum of the row counts of every table: "exactly as before" in one number. */
static int64_t all_rows(const char *db_path)
{
    static const char *tables[] = {"traces", "trace_files", "entity_types", "containers", "names",
                                   "states", "variables", "links", "events"};
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    int64_t total = 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[128];
        sqlite3_stmt *st;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        total += sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return total;
}

static int run_import(fixture *f, const char **paths, size_t n, ari_import_result *res, ari_error *err)
{
    ari_import_input in[8];
    for (size_t i = 0; i < n; i++)
        in[i] = (ari_import_input){paths[i], NULL};
    ari_import_request req = {.inputs = in, .ninputs = n, .work_dir = f->work};
    memset(res, 0, sizeof *res);
    return ari_import(f->s, &req, res, err);
}

static void write_tar_gz(const char *path, const char *const *names, const char *const *contents, size_t n)
{
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, names[i]);
        archive_entry_set_size(e, (la_int64_t)strlen(contents[i]));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        assert_int_equal(archive_write_data(a, contents[i], strlen(contents[i])), (la_ssize_t)strlen(contents[i]));
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

static void test_single_file(void **state)
{
    fixture *f = *state;
    char *p = test_write_file(f->dir, "run.trace", good_trace, strlen(good_trace));
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){p}, 1, &res, &err), 0);
    assert_int_equal(res.ntraces, 1);
    assert_string_equal(res.traces[0].name, "run");
    assert_string_equal(res.traces[0].format, "paje");
    assert_string_equal(res.traces[0].kind, "tasks");
    char *json = NULL;
    assert_int_equal(ari_traces_get(f->s, res.traces[0].id, &json, &err), 0);
    assert_non_null(strstr(json, "\"states\":3"));
    assert_non_null(strstr(json, "\"name\":\"run.trace\""));
    free(json);
    ari_import_result_free(&res);
    free(p);
}

/* A directory given with a trailing slash is named after the directory. */
static void test_directory_name(void **state)
{
    fixture *f = *state;
    char *sub, *slashed;
    assert_true(asprintf(&sub, "%s/lu_run", f->dir) > 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    free(test_write_file(sub, "a.trace", good_trace, strlen(good_trace)));
    free(test_write_file(sub, "b.trace", good_trace, strlen(good_trace)));
    assert_true(asprintf(&slashed, "%s//", sub) > 0);
    ari_import_result res;
    ari_error err = {0};
    ari_import_input in = {slashed, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .trace_name = "lu"};
    assert_int_equal(ari_import(f->s, &req, &res, &err), 0);
    assert_int_equal(res.ntraces, 2);
    assert_string_equal(res.traces[0].name, "lu (a)");
    assert_string_equal(res.traces[1].name, "lu (b)");
    ari_import_result_free(&res);
    free(slashed);
    free(sub);
}

static void test_unknown_and_empty(void **state)
{
    fixture *f = *state;
    int64_t before = all_rows(f->db_path);
    char *bin = test_write_file(f->dir, "x.bin", "\x01\x02garbage", 9);
    char *empty = test_write_file(f->dir, "empty.trace", "", 0);
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){bin}, 1, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "x.bin"));
    assert_int_equal(run_import(f, (const char *[]){empty}, 1, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "empty"));
    assert_int_equal(run_import(f, (const char *[]){"/nonexistent/file.trace"}, 1, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_IO);
    assert_int_equal(all_rows(f->db_path), before);
    free(bin);
    free(empty);
}

/* One good and one bad trace in one import: neither is stored. */
static void test_atomic(void **state)
{
    fixture *f = *state;
    int64_t before = all_rows(f->db_path);
    char *good = test_write_file(f->dir, "a.trace", good_trace, strlen(good_trace));
    char *bad = test_write_file(f->dir, "b.trace", bad_trace, strlen(bad_trace));
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){good, bad}, 2, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "b.trace"));
    assert_int_equal(all_rows(f->db_path), before);
    /* The connection is usable afterwards, and a good import goes through. */
    assert_int_equal(run_import(f, (const char *[]){good}, 1, &res, &err), 0);
    assert_true(all_rows(f->db_path) > before);
    ari_import_result_free(&res);
    free(good);
    free(bad);
}

static void test_archive(void **state)
{
    fixture *f = *state;
    char *path;
    assert_true(asprintf(&path, "%s/two.tar.gz", f->dir) > 0);
    write_tar_gz(path, (const char *const[]){"runs/first.trace", "runs/second.trace"},
                 (const char *const[]){good_trace, good_trace}, 2);
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){path}, 1, &res, &err), 0);
    assert_int_equal(res.ntraces, 2);
    assert_string_equal(res.traces[0].name, "first");
    assert_string_equal(res.traces[1].name, "second");
    ari_import_result_free(&res);
    free(path);
}

static void test_unsafe_archive(void **state)
{
    fixture *f = *state;
    int64_t before = all_rows(f->db_path);
    char *path;
    assert_true(asprintf(&path, "%s/evil.tar.gz", f->dir) > 0);
    write_tar_gz(path, (const char *const[]){"../escape.trace"}, (const char *const[]){good_trace}, 1);
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){path}, 1, &res, &err), -1);
    assert_non_null(strstr(err.message, "unsafe path"));
    char *escaped;
    assert_true(asprintf(&escaped, "%s/escape.trace", f->dir) > 0);
    assert_int_equal(access(escaped, F_OK), -1);
    assert_int_equal(all_rows(f->db_path), before);
    free(escaped);
    free(path);
}

static void test_cancel(void **state)
{
    fixture *f = *state;
    int64_t before = all_rows(f->db_path);
    /* Enough states for the writer to poll the cancel flag. */
    size_t cap = strlen(good_trace) + 200000 * 32;
    char *big = malloc(cap);
    size_t len = (size_t)snprintf(big, cap, "%s", good_trace);
    for (int i = 0; i < 200000; i++)
        len += (size_t)snprintf(big + len, cap - len, "3 %d.5 S p1 %s\n", 3 + i, i % 2 ? "Run" : "Idle");
    char *p = test_write_file(f->dir, "big.trace", big, len);
    volatile int cancel = 1;
    ari_import_input in = {p, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .cancel = &cancel};
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_CANCELLED);
    assert_int_equal(all_rows(f->db_path), before);
    free(big);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_single_file, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_directory_name, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_empty, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_atomic, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_unsafe_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_cancel, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
