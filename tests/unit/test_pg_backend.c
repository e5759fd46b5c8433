/* test_pg_backend.c: src/store/pg_backend.c against a live PostgreSQL
 * (the CTest fixture `pg`, or ARIADNE_TEST_PG: test_helpers.h's
 * test_pg_base; skipped without one). Every column type reads as SQLite's
 * would: integers of each width, numeric (integral and not), booleans as
 * 1/0, reals bit for bit, text, bytea with NUL bytes, NULL; bound values
 * come back unchanged (doubles at 17 digits, infinities, NaN, blobs, UTF-8
 * text); a NULL parameter without a type is typed from its use; errors
 * name the statement's fault; a store opened on a new database migrates to
 * the latest version; a connection that the server cut is opened again (a
 * prepared read runs on the new one, a transaction cut short refuses every
 * statement until its rollback, and none of its rows stay); a streamed
 * statement (ari_stream) gives the same rows one at a time, and one reset
 * half-way or failing half-way leaves the connection usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/pg_backend.h"
#include "store/store_internal.h"
#include "test_helpers.h"

typedef struct pg_fixture {
    test_pg_db db;   /* this test's own database */
    ari_store *s;
} pg_fixture;

static int setup(void **state)
{
    pg_fixture *p = calloc(1, sizeof *p);
    assert_non_null(p);
    if (!(p->s = test_pg_store_open(&p->db, "ariadne_unit"))) {
        free(p);
        *state = NULL;
        return 0;
    }
    *state = p;
    return 0;
}

static int teardown(void **state)
{
    pg_fixture *p = *state;
    if (!p)
        return 0;
    test_pg_store_close(p->s, &p->db);
    free(p);
    return 0;
}

#define NEED_PG(p)                                                                                                 \
    do {                                                                                                           \
        if (!(p))                                                                                                  \
            skip();                                                                                                \
    } while (0)

static ari_stmt *row(ari_store *s, const char *sql)
{
    ari_error err = {0};
    ari_stmt *st = ari_store_prepare(s, sql, &err);
    if (!st)
        fail_msg("%s: %s", sql, err.message);
    int rc = ari_step(st);
    if (rc != ARI_ROW)
        fail_msg("%s: step %d: %s", sql, rc, err.message);
    return st;
}

static void test_migrated(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    assert_true(ari_store_is_pg(p->s));
    assert_int_equal(ari_store_schema_version(p->s), ari_store_latest_schema_version());
    /* a second open finds it migrated */
    ari_error err = {0};
    ari_store *again = ari_store_open(p->db.url, &err);
    assert_non_null(again);
    ari_store_close(again);
    /* the session's settings (pg_backend.c session_setup): no JIT */
    ari_stmt *st = ari_store_prepare(p->s, "SELECT current_setting('jit') || ' ' || current_setting('TimeZone')", &err);
    assert_non_null(st);
    char *text = NULL;
    assert_int_equal(ari_store_query_text(p->s, st, &text, &err), 0);
    assert_string_equal(text, "off UTC");
    free(text);
    ari_stmt_finalize(st);
}

static void test_column_types(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_stmt *st = row(p->s, "SELECT CAST(-7 AS smallint), 2147483647, CAST(-9007199254740993 AS bigint),"
                             " CAST(12345678901234567 AS numeric), CAST(-1.25 AS numeric), true, false,"
                             " CAST(0.1 AS float4), 0.1::float8 + 0.2::float8, 'abc', NULL,"
                             " '\\x00ff10'::bytea, 'NaN'::float8, '-Infinity'::float8, sum(x) FROM"
                             " (VALUES (1), (2)) v(x)");
    assert_int_equal(ari_col_type(st, 0), ARI_INTEGER);
    assert_int_equal(ari_col_int64(st, 0), -7);
    assert_int_equal(ari_col_int64(st, 1), 2147483647);
    assert_int_equal(ari_col_int64(st, 2), -9007199254740993LL);
    assert_int_equal(ari_col_type(st, 3), ARI_INTEGER);
    assert_int_equal(ari_col_int64(st, 3), 12345678901234567LL);
    assert_int_equal(ari_col_type(st, 4), ARI_FLOAT);
    assert_true(ari_col_double(st, 4) == -1.25);
    assert_int_equal(ari_col_int64(st, 4), -1); /* truncated, as SQLite does */
    assert_int_equal(ari_col_int64(st, 5), 1);
    assert_int_equal(ari_col_int64(st, 6), 0);
    assert_string_equal((const char *)ari_col_text(st, 5), "1");
    assert_true(ari_col_double(st, 7) == (double)0.1f);
    assert_true(ari_col_double(st, 8) == 0.1 + 0.2); /* bit for bit: rows arrive binary */
    assert_string_equal((const char *)ari_col_text(st, 8), "0.3"); /* text: 15 digits, as SQLite */
    assert_int_equal(ari_col_type(st, 9), ARI_TEXT);
    assert_string_equal((const char *)ari_col_text(st, 9), "abc");
    assert_int_equal(ari_col_bytes(st, 9), 3);
    assert_int_equal(ari_col_type(st, 10), ARI_NULL);
    assert_null(ari_col_text(st, 10));
    assert_int_equal(ari_col_type(st, 11), ARI_BLOB);
    assert_int_equal(ari_col_bytes(st, 11), 3);
    assert_memory_equal(ari_col_blob(st, 11), "\x00\xff\x10", 3);
    assert_true(isnan(ari_col_double(st, 12)));
    assert_true(isinf(ari_col_double(st, 13)) && ari_col_double(st, 13) < 0);
    assert_int_equal(ari_col_int64(st, 14), 3); /* sum(integer) is numeric in PostgreSQL */
    assert_int_equal(ari_step(st), ARI_DONE);
    ari_stmt_finalize(st);
}

static void test_bound_values_round_trip(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_error err = {0};
    ari_stmt *st = ari_store_stmt(p->s, "SELECT ?1, ?2, ?3, ?4, ?5", &err);
    assert_non_null(st);
    const double reals[] = {0.1, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, -0.0, INFINITY, NAN};
    const unsigned char blob[] = {0, 1, 2, 0, 255};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        ari_reset(st);
        ari_arg args[] = {ari_arg_real(reals[i]), ari_arg_int(INT64_MIN + (int64_t)i), ari_arg_text("h\xc3\xa9llo"),
                          ari_arg_blob(blob, sizeof blob), ari_arg_null()};
        assert_int_equal(ari_store_bind_args(p->s, st, args, 5, &err), 0);
        assert_int_equal(ari_step(st), ARI_ROW);
        double got = ari_col_double(st, 0);
        if (isnan(reals[i]))
            assert_true(isnan(got));
        else
            assert_memory_equal(&got, &reals[i], sizeof got);
        assert_int_equal(ari_col_int64(st, 1), INT64_MIN + (int64_t)i);
        assert_string_equal((const char *)ari_col_text(st, 2), "h\xc3\xa9llo");
        assert_int_equal(ari_col_bytes(st, 3), sizeof blob);
        assert_memory_equal(ari_col_blob(st, 3), blob, sizeof blob);
        assert_int_equal(ari_col_type(st, 4), ARI_NULL);
    }
    ari_reset(st);
}

/* `?3 IS NULL OR start < ?3` with ?3 NULL: nothing types ?3 but the
 * comparison, found by the backend's guesses. */
static void test_null_parameter_typed_by_use(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_error err = {0};
    ari_arg args[] = {ari_arg_null(), ari_arg_null()};
    ari_stmt *st = ari_store_bound(p->s, "SELECT count(*) FROM (VALUES (1.5), (2.5)) v(start)"
                                         " WHERE (?1 IS NULL OR start < ?1) AND (?2 IS NULL OR ?2 = 'x')",
                                   args, 2, &err);
    assert_non_null(st);
    int64_t n = -1;
    if (ari_store_query_int64(p->s, st, &n, "count", &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(n, 2);
    ari_arg two[] = {ari_arg_real(2.0), ari_arg_text("x")};
    st = ari_store_bound(p->s, "SELECT count(*) FROM (VALUES (1.5), (2.5)) v(start)"
                               " WHERE (?1 IS NULL OR start < ?1) AND (?2 IS NULL OR ?2 = 'x')",
                         two, 2, &err);
    assert_non_null(st);
    assert_int_equal(ari_store_query_int64(p->s, st, &n, "count", &err), 0);
    assert_int_equal(n, 1);
}

static void test_errors_and_transactions(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_error err = {0};
    assert_int_equal(ari_store_exec(p->s, "SELECT * FROM no_such_table", &err), -1);
    assert_non_null(strstr(err.message, "no_such_table"));
    /* a failed statement inside a transaction leaves nothing open after rollback */
    assert_int_equal(ari_store_begin(p->s, &err), 0);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO traces(name, kind, format) VALUES ('a', 'nope', 'x')", &err),
                     -1);
    ari_store_rollback(p->s);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO traces(name, kind, format) VALUES ('a', 'tasks', 'x')", &err),
                     0);
    assert_true(ari_store_last_insert_id(p->s) > 0);
    assert_int_equal(ari_store_changes(p->s), 1);
    ari_stmt *st = row(p->s, "SELECT count(*) FROM traces");
    assert_int_equal(ari_col_int64(st, 0), 1);
    ari_stmt_finalize(st);
}

/* A streamed statement: every row, in order, read again after a reset;
 * reset half-way, and failing half-way (division by zero at the 500th
 * row), with the next statement on the connection answered each time. */
static void test_streamed_rows(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_error err = {0};
    ari_stmt *st = ari_store_prepare(p->s, "SELECT x, x * 0.5, 'r' || x FROM generate_series(1, ?1) x", &err);
    assert_non_null(st);
    ari_stream(st);
    assert_int_equal(ari_store_bind_args(p->s, st, (ari_arg[]){ari_arg_int(2000)}, 1, &err), 0);
    for (int pass = 0; pass < 2; pass++) {
        int64_t n = 0;
        int rc;
        while ((rc = ari_step(st)) == ARI_ROW) {
            n++;
            assert_int_equal(ari_col_int64(st, 0), n);
            assert_true(ari_col_double(st, 1) == n * 0.5);
            char text[32];
            snprintf(text, sizeof text, "r%lld", (long long)n);
            assert_string_equal((const char *)ari_col_text(st, 2), text);
        }
        assert_int_equal(rc, ARI_DONE);
        assert_int_equal(n, 2000);
        assert_int_equal(ari_step(st), ARI_DONE);
        ari_reset(st);
    }
    for (int i = 0; i < 10; i++) /* reset after 10 rows: the rest is drained */
        assert_int_equal(ari_step(st), ARI_ROW);
    ari_reset(st);
    ari_stmt *one = row(p->s, "SELECT 42");
    assert_int_equal(ari_col_int64(one, 0), 42);
    ari_stmt_finalize(one);
    ari_stmt_finalize(st);
    st = ari_store_prepare(p->s, "SELECT 1 / (500 - x) FROM generate_series(1, 1000) x", &err);
    assert_non_null(st);
    ari_stream(st);
    int rc, n = 0;
    while ((rc = ari_step(st)) == ARI_ROW)
        n++;
    assert_int_equal(n, 499);
    assert_int_equal(ari_store_rows_end(p->s, st, rc, "divide", &err), -1);
    assert_non_null(strstr(err.message, "division by zero"));
    ari_stmt_finalize(st);
    one = row(p->s, "SELECT 43");
    assert_int_equal(ari_col_int64(one, 0), 43);
    ari_stmt_finalize(one);
    assert_int_equal(ari_pg_in_transaction(p->s->pg), 0);
}

/* Ends the store's server process from another connection, as a restart
 * or a failover would, and waits until it is gone. */
static void cut_connection(pg_fixture *p)
{
    ari_stmt *st = row(p->s, "SELECT pg_backend_pid()");
    long long pid = ari_col_int64(st, 0);
    ari_stmt_finalize(st);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%lld, 5000)", pid);
    PGconn *c = PQconnectdb(p->db.base);
    PGresult *r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    PQfinish(c);
}

static void test_reconnects(void **state)
{
    pg_fixture *p = *state;
    NEED_PG(p);
    ari_error err = {0};
    /* a statement prepared on the first session reads on the next one */
    ari_stmt *sum = ari_store_prepare(p->s, "SELECT ?1 + 1", &err);
    assert_non_null(sum);
    ari_bind_int64(sum, 1, 41);
    assert_int_equal(ari_step(sum), ARI_ROW);
    assert_int_equal(ari_col_int64(sum, 0), 42);
    ari_reset(sum);
    cut_connection(p);
    ari_bind_int64(sum, 1, 1);
    assert_int_equal(ari_step(sum), ARI_ROW);
    assert_int_equal(ari_col_int64(sum, 0), 2);
    ari_reset(sum);
    /* a write is not run twice: it fails once, the next one works */
    assert_int_equal(ari_store_exec(p->s, "CREATE TABLE cut_short(x bigint)", &err), 0);
    cut_connection(p);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO cut_short VALUES (1)", &err), -1);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO cut_short VALUES (2)", &err), 0);
    /* a transaction cut short: refused until rolled back, and none of it stays */
    assert_int_equal(ari_store_begin(p->s, &err), 0);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO cut_short VALUES (3)", &err), 0);
    cut_connection(p);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO cut_short VALUES (4)", &err), -1);
    assert_int_equal(ari_store_exec(p->s, "INSERT INTO cut_short VALUES (5)", &err), -1);
    assert_non_null(strstr(err.message, "roll back"));
    ari_bind_int64(sum, 1, 2);
    assert_int_not_equal(ari_step(sum), ARI_ROW);
    ari_reset(sum);
    ari_store_rollback(p->s);
    ari_stmt *st = row(p->s, "SELECT string_agg(x::text, ',' ORDER BY x) FROM cut_short");
    assert_string_equal((const char *)ari_col_text(st, 0), "2");
    ari_stmt_finalize(st);
    ari_bind_int64(sum, 1, 2);
    assert_int_equal(ari_step(sum), ARI_ROW);
    assert_int_equal(ari_col_int64(sum, 0), 3);
    ari_stmt_finalize(sum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migrated),
        cmocka_unit_test(test_column_types),
        cmocka_unit_test(test_bound_values_round_trip),
        cmocka_unit_test(test_null_parameter_typed_by_use),
        cmocka_unit_test(test_errors_and_transactions),
        cmocka_unit_test(test_streamed_rows),
        cmocka_unit_test(test_reconnects), /* last: it cuts the connection */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
