/* test_store.c: the store: migrations, traces, jobs and tokens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <sqlite3.h>

#include "store/store.h"
#include "test_helpers.h"

typedef test_db fixture;

static int64_t exec_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void insert_trace(const char *db_path, const char *name, const char *kind, int64_t bytes)
{
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT INTO traces(name, kind, format, bytes) VALUES ('%s', '%s', 'paje', %lld)"
             " RETURNING id", name, kind, (long long)bytes);
    assert_true(exec_int(db_path, sql) > 0);
}

static void test_migrations(void **state)
{
    fixture *f = *state;
    assert_int_equal(ari_store_schema_version(f->s), ari_store_latest_schema_version());
    assert_true(ari_store_latest_schema_version() >= 2);
    /* Re-opening applies nothing and keeps the version. */
    ari_error err = {0};
    ari_store *again = ari_store_open(f->db_path, &err);
    assert_non_null(again);
    assert_int_equal(ari_store_schema_version(again), ari_store_latest_schema_version());
    ari_store_close(again);
    /* A database from a newer ariadned is refused, not damaged. */
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", ari_store_latest_schema_version() + 1);
    exec_int(f->db_path, sql);
    assert_null(ari_store_open(f->db_path, &err));
    assert_non_null(strstr(err.message, "newer"));
}

static void test_traces_list_filter_sort(void **state)
{
    fixture *f = *state;
    insert_trace(f->db_path, "Alpha LU", "tasks", 300);
    insert_trace(f->db_path, "beta", "profile", 100);
    insert_trace(f->db_path, "gamma lu", "tasks", 200);
    ari_error err = {0};
    char *json = NULL;
    int64_t total = 0;
    ari_trace_filter all = {.limit = 50, .sort = "name"};
    assert_int_equal(ari_traces_list(f->s, &all, &json, &total, &err), 0);
    assert_int_equal(total, 3);
    json_t *list = json_loads(json, 0, NULL);
    assert_int_equal(json_array_size(list), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "name")), "Alpha LU");
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 2), "name")), "gamma lu");
    json_decref(list);
    free(json);

    ari_trace_filter lu = {.limit = 1, .offset = 1, .name = "LU", .kind = "tasks", .sort = "-bytes"};
    assert_int_equal(ari_traces_list(f->s, &lu, &json, &total, &err), 0);
    assert_int_equal(total, 2);
    list = json_loads(json, 0, NULL);
    assert_int_equal(json_array_size(list), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "name")), "gamma lu");
    json_decref(list);
    free(json);

    ari_trace_filter bad = {.limit = 5, .sort = "colour"};
    assert_int_equal(ari_traces_list(f->s, &bad, &json, &total, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
}

static void test_trace_update_delete(void **state)
{
    fixture *f = *state;
    insert_trace(f->db_path, "one", "tasks", 1);
    ari_error err = {0};
    char *json = NULL;
    assert_int_equal(ari_traces_update(f->s, 1, "renamed", NULL, &err), 0);
    assert_int_equal(ari_traces_update(f->s, 99, "x", NULL, &err), 1);
    assert_int_equal(ari_traces_get(f->s, 1, &json, &err), 0);
    json_t *t = json_loads(json, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(t, "name")), "renamed");
    assert_true(json_is_array(json_object_get(t, "files")));
    json_decref(t);
    free(json);
    assert_int_equal(ari_traces_delete(f->s, 1, &err), 0);
    assert_int_equal(ari_traces_delete(f->s, 1, &err), 1);
    assert_int_equal(ari_traces_get(f->s, 1, &json, &err), 1);
}

static void test_jobs(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    int64_t id = 0, *ids = NULL;
    size_t n = 0;
    char *json = NULL;
    assert_int_equal(ari_jobs_create(f->s, "import", "{}", &id, &err), 0);
    assert_int_equal(ari_jobs_set_running(f->s, id, &err), 0);
    /* Owned by this live process: not an orphan. */
    assert_int_equal(ari_jobs_fail_orphans(f->s, &ids, &n, &err), 0);
    assert_int_equal(n, 0);
    free(ids);
    /* Owned by a process that is gone: failed as interrupted. */
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE jobs SET owner_pid = 999999999 WHERE id = %lld RETURNING id", (long long)id);
    exec_int(f->db_path, sql);
    assert_int_equal(ari_jobs_fail_orphans(f->s, &ids, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], id);
    free(ids);
    assert_int_equal(ari_jobs_get(f->s, id, &json, &err), 0);
    json_t *job = json_loads(json, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(job, "status")), "failed");
    assert_string_equal(json_string_value(json_object_get(json_object_get(job, "error"), "code")), "interrupted");
    json_decref(job);
    free(json);
}

static void test_tokens(void **state)
{
    fixture *f = *state;
    ari_error err = {0};
    char secret[ARI_TOKEN_SECRET_MAX];
    int64_t id = 0, found = 0;
    ari_scope scope = ARI_SCOPE_NONE;
    assert_int_equal(ari_tokens_create(f->s, "ci", ARI_SCOPE_WRITE, secret, &id, &err), 0);
    assert_int_equal(strlen(secret), 4 + 64);
    assert_int_equal(ari_tokens_lookup(f->s, secret, &scope, &found, &err), 0);
    assert_int_equal(scope, ARI_SCOPE_WRITE);
    assert_int_equal(found, id);
    /* Only the hash is stored. */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM tokens WHERE hash = '%s'", secret);
    assert_int_equal(exec_int(f->db_path, sql), 0);
    assert_int_equal(ari_tokens_lookup(f->s, "ari_wrong", &scope, &found, &err), 1);
    assert_int_equal(ari_tokens_revoke(f->s, id, &err), 0);
    assert_int_equal(ari_tokens_lookup(f->s, secret, &scope, &found, &err), 1);
    assert_int_equal(ari_tokens_revoke(f->s, 12345, &err), 1);
    ari_scope parsed;
    assert_int_equal(ari_scope_parse("admin", &parsed), 0);
    assert_int_equal(parsed, ARI_SCOPE_ADMIN);
    assert_int_equal(ari_scope_parse("root", &parsed), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrations, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_traces_list_filter_sort, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_trace_update_delete, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_jobs, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_tokens, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
