/* test_store_busy.c: writes that meet SQLITE_BUSY (another connection holds
 * the write lock) fail cleanly and leave their connection clean, so every
 * later write commits; a read that stops early holds no snapshot after the
 * connection is settled; imports parse outside the write lock and publish
 * with fresh trace ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "import/import.h"
#include "store/store_internal.h"
#include "test_helpers.h"

static const char small_trace[] =
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n"
    "% Name string\n%EndEventDef\n"
    "%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "0 P 0 Process\n1 S P State\n2 0 p1 P 0 p1\n3 0.5 S p1 Run\n3 1.5 S p1 Idle\n3 2.0 S p1 Run\n";

/* An open connection with no transaction and no statement mid-way. */
static void assert_clean(ari_store *s)
{
    assert_true(sqlite3_get_autocommit(s->db));
    for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st; st = sqlite3_next_stmt(s->db, st))
        assert_false(sqlite3_stmt_busy(st));
}

static int64_t add_trace(ari_store *s, const char *name)
{
    ari_error err = {0};
    ari_stmt *st = ari_store_stmt(s, "INSERT INTO traces(name, kind, format) VALUES (?1, 'tasks', 'paje')", &err);
    assert_non_null(st);
    ari_bind_text_copy(st, 1, name, -1);
    assert_int_equal(ari_store_write(s, st, "add trace", &err), 0);
    return ari_store_last_insert_id(s);
}

static void test_busy_writes_then_durable(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    int64_t keep = add_trace(f->s, "keep"), gone = add_trace(f->s, "gone");
    char secret[ARI_TOKEN_SECRET_MAX];
    int64_t token;
    assert_int_equal(ari_tokens_create(f->s, "t", ARI_SCOPE_READ, secret, &token, &err), 0);

    ari_store_set_default_busy_timeout(30);
    ari_store *holder = ari_store_open(f->db_path, &err);
    ari_store *s = ari_store_open(f->db_path, &err);
    ari_store_set_default_busy_timeout(10000);
    assert_non_null(holder);
    assert_non_null(s);
    assert_int_equal(ari_store_begin(holder, &err), 0); /* holds the write lock */

    int64_t job;
    assert_int_equal(ari_traces_update(s, keep, "renamed", NULL, &err), -1);
    assert_string_equal(err.code, ARI_E_BUSY);
    assert_clean(s);
    assert_int_equal(ari_traces_delete(s, gone, &err), -1);
    assert_clean(s);
    assert_int_equal(ari_tokens_revoke(s, token, &err), -1);
    assert_clean(s);
    assert_int_equal(ari_jobs_create(s, "import", "{}", &job, &err), -1);
    assert_string_equal(err.code, ARI_E_BUSY);
    assert_clean(s);

    ari_store_rollback(holder);
    assert_int_equal(ari_traces_update(s, keep, "renamed", NULL, &err), 0);
    assert_int_equal(ari_traces_delete(s, gone, &err), 0);
    assert_int_equal(ari_tokens_revoke(s, token, &err), 0);
    assert_int_equal(ari_jobs_create(s, "import", "{}", &job, &err), 0);
    assert_clean(s);
    /* committed: another connection sees every write, before any close */
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM traces WHERE name = 'renamed'"), 1);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM traces"), 1);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM tokens WHERE revoked_at IS NOT NULL"), 1);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM jobs"), 1);
    ari_store_close(s);
    ari_store_close(holder);
}

/* A read stopped after its first row keeps a snapshot: without settling,
 * the connection would serve stale data and block checkpoints. */
static void test_settle_drops_snapshots(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    add_trace(f->s, "a");
    add_trace(f->s, "b");
    ari_store *reader = ari_store_open(f->db_path, &err);
    ari_stmt *st = ari_store_stmt(reader, "SELECT id FROM traces ORDER BY id", &err);
    assert_int_equal(ari_step(st), ARI_ROW); /* and stop there */
    add_trace(f->s, "c");
    ari_store_settle(reader);
    assert_clean(reader);
    ari_stmt *count = ari_store_stmt(reader, "SELECT count(*) FROM traces", &err);
    assert_int_equal(ari_step(count), ARI_ROW);
    assert_int_equal(ari_col_int64(count, 0), 3);
    ari_store_settle(reader);
    ari_store_close(reader);
}

typedef struct import_probe {
    const char *db_path;
    const char *nested_path; /* a second import to run while the first one parses */
    int writes_ok, probes;
    int64_t nested_id;
} import_probe;

static int run_import(ari_store *s, const char *path, void (*progress)(void *, double, const char *),
                      void *ctx, ari_import_result *res, ari_error *err)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .progress = progress, .progress_ctx = ctx,
                              .allow_duplicate = 1};
    return ari_import(s, &req, res, err);
}

/* Called while the outer import parses: the shared database must take a
 * write at once (no busy wait), and a whole other import may publish. */
static void probe_progress(void *ctx, double fraction, const char *phase)
{
    import_probe *p = ctx;
    (void)fraction;
    if (strcmp(phase, "publishing") == 0 || p->probes++ > 0)
        return;
    ari_error err = {0};
    ari_store_set_default_busy_timeout(0);
    ari_store *other = ari_store_open(p->db_path, &err);
    ari_store_set_default_busy_timeout(10000);
    assert_non_null(other);
    p->writes_ok = add_trace(other, "written during the import") > 0;
    ari_import_result res = {0};
    ari_store_set_busy_timeout(other, 10000);
    assert_int_equal(run_import(other, p->nested_path, NULL, NULL, &res, &err), 0);
    p->nested_id = res.traces[0].id;
    ari_import_result_free(&res);
    ari_store_close(other);
}

static void test_import_parses_outside_the_lock(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    add_trace(f->s, "first");
    char *a = test_write_file(f->dir, "a.trace", small_trace, sizeof small_trace - 1);
    char *b = test_write_file(f->dir, "b.trace", small_trace, sizeof small_trace - 1);
    import_probe p = {.db_path = f->db_path, .nested_path = b};
    ari_import_result res = {0};
    assert_int_equal(run_import(f->s, a, probe_progress, &p, &res, &err), 0);
    assert_true(p.probes > 0);
    assert_true(p.writes_ok);
    /* trace 1 existed, 2 was written and 3 imported during the parse: the
     * outer import publishes after them, with ids that do not collide */
    assert_int_equal(p.nested_id, 3);
    assert_int_equal(res.ntraces, 1);
    assert_int_equal(res.traces[0].id, 4);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM states WHERE trace_id = 4"), 3);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM states WHERE trace_id = 3"), 3);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM states WHERE trace_id NOT IN (3, 4)"), 0);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM containers WHERE trace_id = 4"),
                     test_query_int(f->db_path, "SELECT count(*) FROM containers WHERE trace_id = 3"));
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    assert_clean(f->s);
    ari_import_result_free(&res);
    free(a);
    free(b);
}

/* Nothing of a staged import stays on disk, whether it succeeded or not. */
static void test_no_staging_file_left(void **state)
{
    test_db *f = *state;
    ari_error err = {0};
    char *good = test_write_file(f->dir, "good.trace", small_trace, sizeof small_trace - 1);
    char *bad = test_write_file(f->dir, "bad.trace", small_trace, 200); /* cut mid-definition */
    ari_import_result res = {0};
    assert_int_equal(run_import(f->s, good, NULL, NULL, &res, &err), 0);
    ari_import_result_free(&res);
    assert_int_equal(run_import(f->s, bad, NULL, NULL, &res, &err), -1);
    char *pattern;
    assert_true(asprintf(&pattern, "ls %s | grep -c staging", f->dir) > 0);
    FILE *ls = popen(pattern, "r");
    int found = -1;
    assert_int_equal(fscanf(ls, "%d", &found), 1);
    pclose(ls);
    assert_int_equal(found, 0);
    /* a leftover of a dead process is swept when the database is opened */
    char *stale;
    assert_true(asprintf(&stale, "%s.staging-999999999-5-0", f->db_path) > 0);
    fclose(fopen(stale, "w"));
    ari_store *again = ari_store_open(f->db_path, &err);
    assert_non_null(again);
    assert_int_equal(access(stale, F_OK), -1);
    ari_store_close(again);
    free(stale);
    free(pattern);
    free(good);
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_busy_writes_then_durable, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_settle_drops_snapshots, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_import_parses_outside_the_lock, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_no_staging_file_left, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
