/* test_import.c: the import driver: files, directories and archives,
 * unknown and empty files, unsafe archives, atomicity (a failing file
 * leaves the database exactly as before), the limits (one unpacking budget
 * across nested archives, files and directories, nesting), the scratch
 * directory removed on every exit, errors that name the user's files,
 * names that are not UTF-8, and JSON readers (Hatchet, Caliper, Chrome
 * trace) given .json.gz files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <sqlite3.h>
#include <zlib.h>

#include <dirent.h>
#include <time.h>

#include "import/import.h"
#include "ingest/input.h"
#include "test_helpers.h"
#include "util/utf8.h"

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
    ari_import_request req = {.inputs = in, .ninputs = n, .work_dir = f->work, .allow_duplicate = 1};
    memset(res, 0, sizeof *res);
    return ari_import(f->s, &req, res, err);
}

/* A tar (gzipped if `gzip`) of n files, sizes[i] bytes of contents[i]. */
static void write_archive(const char *path, int gzip, const char *const *names, const char *const *contents,
                          const size_t *sizes, size_t n)
{
    struct archive *a = archive_write_new();
    if (gzip)
        archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, names[i]);
        archive_entry_set_size(e, (la_int64_t)sizes[i]);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        assert_int_equal(archive_write_data(a, contents[i], sizes[i]), (la_ssize_t)sizes[i]);
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

static void write_tar_gz(const char *path, const char *const *names, const char *const *contents, size_t n)
{
    size_t sizes[16];
    for (size_t i = 0; i < n; i++)
        sizes[i] = strlen(contents[i]);
    write_archive(path, 1, names, contents, sizes, n);
}

/* Reads a whole file into memory; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *data = malloc(*len + 1);
    assert_int_equal(fread(data, 1, *len, f), *len);
    fclose(f);
    return data;
}

/* Number of entries in a directory (the work directory must end empty). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int import_with(fixture *f, const char *path, uint64_t max_unpacked, uint64_t max_entries,
                       ari_error *err)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work,
                              .max_unpacked = max_unpacked, .max_entries = max_entries,
                              .allow_duplicate = 1};
    ari_import_result res;
    int rc = ari_import(f->s, &req, &res, err);
    ari_import_result_free(&res);
    return rc;
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

/* Files no format takes are skipped and listed (issue 15); an import of
 * nothing but such files fails listing them; the same trace again is a
 * duplicate unless allowed. */
static void test_skipped_and_duplicates(void **state)
{
    fixture *f = *state;
    char *dir;
    assert_true(asprintf(&dir, "%s/run", f->dir) > 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    free(test_write_file(dir, "a.trace", good_trace, strlen(good_trace)));
    free(test_write_file(dir, "starpu.log", "\x01\x02 log", 7));
    free(test_write_file(dir, "notes.txt", "", 0));
    ari_import_input in = {dir, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(ari_import(f->s, &req, &res, &err), 0);
    assert_int_equal(res.ntraces, 1);
    assert_int_equal(res.nskipped, 2);
    assert_string_equal(res.skipped[0].name, "run/notes.txt");
    assert_string_equal(res.skipped[0].reason, "empty file");
    assert_string_equal(res.skipped[1].name, "run/starpu.log");
    assert_string_equal(res.skipped[1].reason, "no reader recognises this file");
    int64_t first = res.traces[0].id;
    ari_import_result_free(&res);
    /* again: refused, naming the stored trace; allowed: imported */
    int64_t before = all_rows(f->db_path);
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_DUPLICATE);
    assert_int_equal(res.nduplicates, 1);
    assert_int_equal(res.duplicates[0].trace_id, first);
    assert_int_equal(res.ntraces, 0);
    assert_int_equal(all_rows(f->db_path), before);
    req.allow_duplicate = 1;
    assert_int_equal(ari_import(f->s, &req, &res, &err), 0);
    assert_int_equal(res.nduplicates, 1);
    assert_true(res.traces[0].id != first);
    ari_import_result_free(&res);
    /* nothing known: refused, every file named */
    char *junk;
    assert_true(asprintf(&junk, "%s/junk", f->dir) > 0);
    assert_int_equal(mkdir(junk, 0700), 0);
    free(test_write_file(junk, "x.out", "\x01\x02 out", 7));
    free(test_write_file(junk, "y.log", "\x01\x02 log", 7));
    in.path = junk;
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "junk/x.out (no reader recognises this file)"));
    assert_non_null(strstr(err.message, "junk/y.log"));
    free(junk);
    free(dir);
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

/* A tar of 8 .tar.gz, each 200 KB of zeros once unpacked: the budget is
 * one for the whole import, so 1 MB is exhausted at the 5th although no
 * archive alone exceeds it. Nothing is left in the work directory. */
static void test_nested_budget(void **state)
{
    fixture *f = *state;
    size_t zeros = 200000;
    char *data = calloc(1, zeros);
    char *inner, *outer;
    assert_true(asprintf(&inner, "%s/inner.tar.gz", f->dir) > 0);
    assert_true(asprintf(&outer, "%s/bomb.tar", f->dir) > 0);
    write_archive(inner, 1, (const char *const[]){"zeros.trace"}, (const char *const[]){data}, &zeros, 1);
    size_t len;
    char *packed = slurp(inner, &len);
    const char *names[8] = {"i0.tar.gz", "i1.tar.gz", "i2.tar.gz", "i3.tar.gz",
                            "i4.tar.gz", "i5.tar.gz", "i6.tar.gz", "i7.tar.gz"};
    const char *contents[8];
    size_t sizes[8];
    for (int i = 0; i < 8; i++) {
        contents[i] = packed;
        sizes[i] = len;
    }
    write_archive(outer, 0, names, contents, sizes, 8);
    int64_t before = all_rows(f->db_path);
    ari_error err = {0};
    assert_int_equal(import_with(f, outer, 1000000, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_non_null(strstr(err.message, "bomb.tar/i4.tar.gz: archive unpacks to more than 1000000 bytes"));
    assert_non_null(strstr(err.message, "--max-unpacked"));
    assert_null(strstr(err.message, f->dir)); /* the user's names, no server path */
    assert_int_equal(count_entries(f->work), 0);
    assert_int_equal(all_rows(f->db_path), before);
    /* An archive that declares more than the budget is refused before it is written. */
    assert_int_equal(import_with(f, inner, 100000, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_int_equal(count_entries(f->work), 0);
    free(packed);
    free(data);
    free(inner);
    free(outer);
}

/* The files and directories of an import are capped, in archives and in
 * directories alike; archives nest at most ARI_IMPORT_MAX_NESTING deep. */
static void test_entry_and_nesting_limits(void **state)
{
    fixture *f = *state;
    const char *names[12];
    const char *contents[12];
    char name_buf[12][32];
    for (int i = 0; i < 12; i++) {
        snprintf(name_buf[i], sizeof name_buf[i], "d%d/x%d.trace", i, i);
        names[i] = name_buf[i];
        contents[i] = good_trace;
    }
    char *tar, *dir;
    assert_true(asprintf(&tar, "%s/many.tar.gz", f->dir) > 0);
    write_tar_gz(tar, names, contents, 12);
    ari_error err = {0};
    assert_int_equal(import_with(f, tar, 0, 10, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "many.tar.gz: more than 10 files and directories"));
    assert_int_equal(count_entries(f->work), 0);
    assert_true(asprintf(&dir, "%s/tree", f->dir) > 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int i = 0; i < 12; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%02d.trace", i);
        free(test_write_file(dir, name, good_trace, strlen(good_trace)));
    }
    assert_int_equal(import_with(f, dir, 0, 10, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "more than 10 files and directories"));
    assert_int_equal(import_with(f, dir, 0, 13, &err), 0); /* 12 files and their directory */
    /* Nesting: a.tar.gz inside a tar inside a tar ... ARI_IMPORT_MAX_NESTING + 1 deep. */
    char *level, *next;
    assert_true(asprintf(&level, "%s/n0.tar", f->dir) > 0);
    write_tar_gz(level, (const char *const[]){"x.trace"}, (const char *const[]){good_trace}, 1);
    for (int depth = 1; depth <= ARI_IMPORT_MAX_NESTING; depth++) {
        size_t len;
        char *packed = slurp(level, &len), entry[32];
        assert_true(asprintf(&next, "%s/n%d.tar", f->dir, depth) > 0);
        snprintf(entry, sizeof entry, "n%d.tar", depth - 1);
        write_archive(next, 0, (const char *const[]){entry}, (const char *const[]){packed}, &len, 1);
        free(packed);
        free(level);
        level = next;
    }
    assert_int_equal(import_with(f, level, 0, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "archives nested more than"));
    assert_int_equal(count_entries(f->work), 0);
    free(level);
    free(tar);
    free(dir);
}

/* Files of several directories, met in interleaved order, are grouped by
 * directory in the order the directories appear; the scratch directory is
 * gone after a successful import as after a cancelled one. */
static void test_grouping_and_scratch(void **state)
{
    fixture *f = *state;
    char *tar;
    assert_true(asprintf(&tar, "%s/runs.tar.gz", f->dir) > 0);
    /* Listed (in name order) as r/a, r/sub/x, r/z: r's files are split by sub's. */
    write_tar_gz(tar, (const char *const[]){"r/z.trace", "r/sub/x.trace", "r/a.trace", "b/one.trace"},
                 (const char *const[]){good_trace, good_trace, good_trace, good_trace}, 4);
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(run_import(f, (const char *[]){tar}, 1, &res, &err), 0);
    assert_int_equal(res.ntraces, 4);
    assert_string_equal(res.traces[0].name, "one");
    assert_string_equal(res.traces[1].name, "a");
    assert_string_equal(res.traces[2].name, "z");
    assert_string_equal(res.traces[3].name, "x");
    ari_import_result_free(&res);
    assert_int_equal(count_entries(f->work), 0);
    volatile int cancel = 1;
    ari_import_input in = {tar, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .cancel = &cancel};
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_string_equal(err.code, ARI_E_CANCELLED);
    assert_int_equal(count_entries(f->work), 0);
    free(tar);
}

/* A compressed file cut short is reported as such, not as an unknown
 * format; errors about archive members name them as the user knows them. */
static void test_truncated_and_names(void **state)
{
    fixture *f = *state;
    char *gz;
    assert_true(asprintf(&gz, "%s/run.trace.gz", f->dir) > 0);
    gzFile g = gzopen(gz, "wb");
    gzwrite(g, good_trace, (unsigned)strlen(good_trace));
    gzclose(g);
    assert_int_equal(truncate(gz, 12), 0);
    ari_error err = {0};
    assert_int_equal(import_with(f, gz, 0, 0, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_string_equal(err.message, "run.trace.gz: truncated gzip stream");
    char *tar;
    assert_true(asprintf(&tar, "%s/upload-1", f->dir) > 0); /* as a spool file is named */
    write_tar_gz(tar, (const char *const[]){"run1/tasks.rec"}, (const char *const[]){"\x01junk"}, 1);
    ari_import_input in = {tar, "run1.tar.gz"};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    assert_int_equal(ari_import(f->s, &req, &res, &err), -1);
    assert_non_null(strstr(err.message, "run1.tar.gz/run1/tasks.rec"));
    assert_null(strstr(err.message, f->dir));
    assert_null(strstr(err.message, "upload-1"));
    free(gz);
    free(tar);
}

/* Names that are not UTF-8 become valid names (U+FFFD), as does a trace
 * name cut to fit. */
static void test_invalid_utf8_names(void **state)
{
    fixture *f = *state;
    char *p = test_write_file(f->dir, "caf\xe9.trace", good_trace, strlen(good_trace));
    char long_name[400];
    memset(long_name, 0, sizeof long_name);
    for (int i = 0; i < 130; i++)
        memcpy(long_name + 3 * i, "\xE2\x82\xAC", 3); /* 390 bytes of euro signs */
    ari_import_input in = {p, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work, .allow_duplicate = 1};
    ari_import_result res;
    ari_error err = {0};
    assert_int_equal(ari_import(f->s, &req, &res, &err), 0);
    assert_string_equal(res.traces[0].name, "caf" ARI_UTF8_REPLACEMENT);
    ari_import_result_free(&res);
    req.trace_name = long_name;
    assert_int_equal(ari_import(f->s, &req, &res, &err), 0);
    assert_true(ari_utf8_valid(res.traces[0].name, strlen(res.traces[0].name)));
    assert_int_equal(strlen(res.traces[0].name), 255);
    ari_import_result_free(&res);
    char *json = NULL;
    ari_trace_filter filter = {.limit = 100};
    int64_t total = 0;
    assert_int_equal(ari_traces_list(f->s, &filter, &json, &total, &err), 0);
    assert_int_equal(total, 2);
    assert_true(ari_utf8_valid(json, strlen(json)));
    assert_non_null(strstr(json, "caf" ARI_UTF8_REPLACEMENT));
    free(json);
    free(p);
}

/* Writes data gzipped to dir/name; returns the malloc'd path. */
static char *write_gz(const char *dir, const char *name, const char *data, size_t len)
{
    char *path;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    gzFile g = gzopen(path, "wb9");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, data, (unsigned)len), (int)len);
    assert_int_equal(gzclose(g), Z_OK);
    return path;
}

/* Imports one file; returns its trace id and format (static), or -1. */
static int64_t import_one(fixture *f, const char *path, const char **format, ari_error *err)
{
    ari_import_result res;
    if (run_import(f, (const char *[]){path}, 1, &res, err) < 0)
        return -1;
    assert_int_equal(res.ntraces, 1);
    static char fmt[64];
    snprintf(fmt, sizeof fmt, "%s", res.traces[0].format);
    *format = fmt;
    int64_t id = res.traces[0].id;
    ari_import_result_free(&res);
    return id;
}

/* Rows of table for one trace. */
static int64_t rows_of(fixture *f, const char *table, int64_t id)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE trace_id = %lld", table, (long long)id);
    return test_query_int(f->db_path, sql);
}

/* Every JSON reader reads through ari_input: a gzipped Hatchet, Caliper or
 * Chrome trace file imports as its plain copy does. */
static void test_gzipped_json(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *fixture, *format, *table;
    } cases[] = {
        {"profiles/small-graph.json", "hatchet_json", "cct_nodes"},
        {"profiles/small-literal.json", "hatchet_json", "cct_nodes"},
        {"profiles/small-split.json", "caliper_json_split", "cct_nodes"},
        {"datamove/kineto_small.json", "chrome_trace", "dm_events"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *src, gzname[64];
        assert_true(asprintf(&src, "%s/tests/fixtures/%s", test_source_dir(), cases[i].fixture) > 0);
        size_t len;
        char *data = slurp(src, &len);
        snprintf(gzname, sizeof gzname, "case%zu.json.gz", i);
        char *gz = write_gz(f->dir, gzname, data, len);
        const char *fmt;
        ari_error err = {0};
        int64_t plain = import_one(f, src, &fmt, &err);
        assert_true(plain > 0);
        assert_string_equal(fmt, cases[i].format);
        int64_t packed = import_one(f, gz, &fmt, &err);
        if (packed < 0)
            fail_msg("%s: %s", gzname, err.message);
        assert_string_equal(fmt, cases[i].format);
        assert_true(rows_of(f, cases[i].table, plain) > 0);
        assert_int_equal(rows_of(f, cases[i].table, packed), rows_of(f, cases[i].table, plain));
        free(gz);
        free(data);
        free(src);
    }
}

/* The decode cap applies to JSON readers too: a small .json.gz that
 * decompresses past it is refused with too_large. */
static void test_json_decode_cap(void **state)
{
    fixture *f = *state;
    char *src;
    assert_true(asprintf(&src, "%s/tests/fixtures/profiles/small-graph.json", test_source_dir()) > 0);
    size_t len, pad = 4 << 20;
    char *data = slurp(src, &len);
    char *big = malloc(len + pad);
    assert_non_null(big);
    memcpy(big, data, len);
    memset(big + len, ' ', pad); /* trailing blanks: still valid JSON */
    char *gz = write_gz(f->dir, "big.json.gz", big, len + pad);
    ari_input_set_max_decoded(1 << 20);
    const char *fmt;
    ari_error err = {0};
    assert_int_equal(import_one(f, gz, &fmt, &err), -1);
    ari_input_set_max_decoded(0);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_int_equal(import_one(f, gz, &fmt, &err) > 0, 1);
    free(gz);
    free(big);
    free(data);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_single_file, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_directory_name, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_empty, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_skipped_and_duplicates, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_atomic, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_unsafe_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_cancel, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_nested_budget, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_entry_and_nesting_limits, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_grouping_and_scratch, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_truncated_and_names, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8_names, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_gzipped_json, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_json_decode_cap, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
