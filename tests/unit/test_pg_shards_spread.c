/* test_pg_shards_spread.c: a trace spread over two shards
 * (src/store/pg_publish.c, "spreading a trace"), with the CTest fixture
 * `pg` (or ARIADNE_TEST_PG): a coordinator database and two shard
 * databases on the test cluster, the spreading threshold at 1 row, and one
 * import staged by hand with two traces whose rows interleave in the
 * staging tables (so a trace's staged rowids are not contiguous) and tasks
 * without a worker (a NULL key). Checked against the staged rows: each
 * trace's partition of tasks and states is partitioned by its key with one
 * foreign sub-partition per shard; the keys are dealt as the greedy rule
 * says (largest first, to the emptiest shard; NULL a key like the others);
 * every row reads back through the coordinator, on the shard its key is
 * listed for, with the rowid one server gives (the coordinator's sequence,
 * in staged order per trace); `shard list` counts the sub-partitions; a
 * trace under the threshold stays on one shard. And the sessions that
 * postgres_fdw opens on a shard plan their cursors for all their rows.
 * Skips without a cluster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_shards.h"
#include "store/staging.h"
#include "store/store_internal.h"
#include "test_helpers.h"

typedef struct fixture {
    test_pg_db coord, a, b;
    ari_store *s;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    if (!(f->s = test_pg_store_open(&f->coord, "ariadne_spread_c"))) {
        free(f);
        *state = NULL;
        return 0;
    }
    test_pg_db_create(&f->a, "ariadne_spread_a");
    test_pg_db_create(&f->b, "ariadne_spread_b");
    ari_error err = {0};
    if (ari_pg_shards_add(f->s, "a", f->a.url, &err) < 0 || ari_pg_shards_add(f->s, "b", f->b.url, &err) < 0)
        fail_msg("shard add: %s", err.message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (!f)
        return 0;
    test_pg_store_close(f->s, &f->coord);
    test_pg_db_drop(&f->a);
    test_pg_db_drop(&f->b);
    free(f);
    return 0;
}

static void run(ari_store *s, const char *sql)
{
    ari_error err = {0};
    if (ari_store_exec(s, sql, &err) < 0)
        fail_msg("%s: %s", sql, err.message);
}

/* Worker of task i of a trace: 10 for half the tasks, then 11, 12 and
 * none, so the dealing is known: 10 (6 rows, the largest) to shard a, then
 * the ties of 2 rows in SQLite's order (NULL first) to the emptiest: NULL,
 * 11 and 12 to b (2, 4, 6 rows against a's 6). */
static const char *worker_of(int i)
{
    static const char *const w[] = {"10", "11", "10", "12", "10", "NULL"};
    return w[i % 6];
}

/* Stages `ntraces` traces whose rows interleave, and publishes them. */
static void import(fixture *f, int ntraces, int ntasks)
{
    ari_error err = {0};
    ari_staging *g = ari_staging_open(f->s, &err);
    if (!g)
        fail_msg("staging: %s", err.message);
    ari_store *st = ari_staging_store(g);
    run(st, "BEGIN");
    for (int t = 1; t <= ntraces; t++) {
        char sql[200];
        snprintf(sql, sizeof sql,
                 "INSERT INTO traces(id, name, kind, format) VALUES (%d, 't%d', 'tasks', 'test')", t, t);
        run(st, sql);
    }
    for (int i = 0; i < ntasks; i++) {
        for (int t = 1; t <= ntraces; t++) {
            char sql[300];
            snprintf(sql, sizeof sql,
                     "INSERT INTO tasks(trace_id, job_id, type, worker_id, node, start, end)"
                     " VALUES (%d, 'j%d_%d', 'dgemm', %s, 0, %d, %d)",
                     t, t, i, worker_of(i), i, i + 1);
            run(st, sql);
            snprintf(sql, sizeof sql,
                     "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth)"
                     " VALUES (%d, %d, 1, 1, %d, %d, 0)",
                     t, 20 + i % 3, i, i + 1);
            run(st, sql);
        }
    }
    run(st, "COMMIT");
    int64_t offset = 0;
    if (ari_staging_publish(g, f->s, &offset, &err) < 0 || ari_staging_end(g, f->s, 1, &err) < 0)
        fail_msg("publish: %s", err.message);
    ari_staging_close(g);
}

/* One text from the coordinator. */
static char *query_text(ari_store *s, const char *sql)
{
    ari_error err = {0};
    ari_stmt *st = ari_store_prepare(s, sql, &err);
    if (!st)
        fail_msg("%s: %s", sql, err.message);
    char *out = NULL;
    if (ari_store_query_string(s, st, "", &out, "test", &err) != 0)
        fail_msg("%s: %s", sql, err.message);
    ari_stmt_finalize(st);
    return out;
}

static void expect(ari_store *s, const char *sql, const char *want)
{
    char *got = query_text(s, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n got: %s\nwant: %s", sql, got, want);
    free(got);
}

static void test_spread(void **state)
{
    fixture *f = *state;
    if (!f) {
        skip();
        return;
    }
    ari_error err = {0};
    assert_int_equal(ari_pg_shards_set_spread(f->s, 1, &err), 0);
    int64_t rows = 0;
    assert_int_equal(ari_pg_shards_spread_rows(f->s, &rows, &err), 0);
    assert_int_equal(rows, 1);
    import(f, 2, 12);
    for (int t = 1; t <= 2; t++) {
        char sql[600];
        /* the partition, partitioned by the key, with its sub-partitions' bounds */
        snprintf(
            sql, sizeof sql,
            "SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid) || ' ' || v.srvname, "
            "'; '"
            " ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " JOIN pg_foreign_table ft ON ft.ftrelid = c.oid JOIN pg_foreign_server v ON v.oid = ft.ftserver"
            " WHERE i.inhparent = to_regclass('tasks_t%d')",
            t);
        char want[400];
        snprintf(want, sizeof want,
                 "tasks_t%d_s0 FOR VALUES IN ('10') ariadne_shard_a;"
                 " tasks_t%d_s1 FOR VALUES IN (NULL, '11', '12') ariadne_shard_b",
                 t, t);
        expect(f->s, sql, want);
        /* every row on the shard of its key, numbered as the staged order
         * (trace 1's rows first: the coordinator's sequence, a trace at a
         * time); job j<t>_<i> has rowid first + i */
        snprintf(sql, sizeof sql,
                 "SELECT string_agg(job_id || ':' || coalesce(CAST(worker_id AS TEXT), '-') || ':'"
                 " || CAST(rowid - (SELECT min(rowid) FROM tasks WHERE trace_id = %d) AS TEXT) || ':'"
                 " || right(CAST(CAST(tableoid AS regclass) AS TEXT), 2), ',' ORDER BY rowid)"
                 " FROM tasks WHERE trace_id = %d",
                 t, t);
        char *got = query_text(f->s, sql);
        char expected[2000] = "";
        for (int i = 0; i < 12; i++) {
            const char *w = worker_of(i);
            int on_a = strcmp(w, "10") == 0;
            char item[64];
            snprintf(item, sizeof item, "%sj%d_%d:%s:%d:%s", i ? "," : "", t, i, strcmp(w, "NULL") ? w : "-",
                     i, on_a ? "s0" : "s1");
            strcat(expected, item);
        }
        assert_string_equal(got, expected);
        free(got);
        /* the states: containers 20, 21, 22 (4 rows each): 20 to a, 21 to
         * b, 22 to a (the first of the emptiest) */
        snprintf(
            sql, sizeof sql,
            "SELECT string_agg(k, ',' ORDER BY k) FROM (SELECT DISTINCT CAST(container_id AS TEXT)"
            " || right(CAST(CAST(tableoid AS regclass) AS TEXT), 2) AS k FROM states WHERE trace_id = %d) q",
            t);
        expect(f->s, sql, "20s0,21s1,22s0");
    }
    /* the rowids of trace 2 follow trace 1's */
    expect(f->s,
           "SELECT CAST((SELECT min(rowid) FROM tasks WHERE trace_id = 2) - (SELECT max(rowid) FROM tasks "
           "WHERE trace_id = 1)"
           " AS TEXT)",
           "1");
    /* shard list: both shards hold both traces, two tables each per trace */
    char *list = NULL;
    assert_int_equal(ari_pg_shards_list(f->s, &list, &err), 0);
    const char *one = strstr(list, "\"traces\" : 2, \"tables\" : 4}");
    if (!one || !strstr(one + 1, "\"traces\" : 2, \"tables\" : 4}"))
        fail_msg("shard list: %s", list);
    free(list);
    /* under the threshold: one shard, plain foreign partitions */
    assert_int_equal(ari_pg_shards_set_spread(f->s, 1000, &err), 0);
    import(f, 1, 12);
    expect(f->s,
           "SELECT CAST(c.relkind AS TEXT) || ' ' || v.srvname FROM pg_class c JOIN pg_foreign_table ft ON "
           "ft.ftrelid = c.oid"
           " JOIN pg_foreign_server v ON v.oid = ft.ftserver WHERE c.relname = 'tasks_t3'",
           "f ariadne_shard_a");
    /* both kinds are on shards (a spread trace, one on one shard); a
     * trace that is not is not, nor one that does not exist */
    assert_int_equal(ari_pg_shards_trace_remote(f->s, 1, &err), 1);
    assert_int_equal(ari_pg_shards_trace_remote(f->s, 3, &err), 1);
    assert_int_equal(ari_pg_shards_trace_remote(f->s, 99, &err), 0);
    assert_int_equal(ari_store_exec(f->s, "CREATE TABLE tasks_t98 (x int)", &err), 0);
    assert_int_equal(ari_pg_shards_trace_remote(f->s, 98, &err), 0);
    assert_int_equal(ari_store_exec(f->s, "DROP TABLE tasks_t98", &err), 0);
    /* a sweep finds no orphan among the sub-partitions */
    int64_t dropped = -1;
    assert_int_equal(ari_pg_shards_sweep(f->s, &dropped, &err), 0);
    assert_int_equal(dropped, 0);
}

/* The settings of a session that postgres_fdw opens on `server`, read
 * through a foreign table of a view on the shard (db). */
static char *shard_session(fixture *f, const test_pg_db *db, const char *server)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "-c \"CREATE OR REPLACE VIEW session_settings AS SELECT current_setting('cursor_tuple_fraction')"
             " || ' ' || current_setting('jit') || ' ' || current_setting('statement_timeout') AS v\"");
    assert_int_equal(test_pg_admin(db->url, sql), 0);
    snprintf(sql, sizeof sql,
             "DROP FOREIGN TABLE IF EXISTS probe; CREATE FOREIGN TABLE probe (v text) SERVER %s"
             " OPTIONS (table_name 'session_settings')",
             server);
    run(f->s, sql);
    return query_text(f->s, "SELECT v FROM probe");
}

/* postgres_fdw's sessions on a shard plan their cursors for all their
 * rows (cursor_tuple_fraction = 1, pg_shards.c) and without JIT, keeping
 * the options of a shard's URL, and the options are set once however
 * many shards follow. */
static void test_shard_sessions(void **state)
{
    fixture *f = *state;
    if (!f) {
        skip();
        return;
    }
    char *got = shard_session(f, &f->a, "ariadne_shard_a");
    assert_string_equal(got, "1 off 0");
    free(got);
    test_pg_db c;
    assert_true(test_pg_db_create(&c, "ariadne_spread_s"));
    char url[800];
    snprintf(url, sizeof url, "%s?options=-c%%20statement_timeout%%3D54321%%20-c%%20jit_above_cost%%3D1000",
             c.url);
    ari_error err = {0};
    if (ari_pg_shards_add(f->s, "c", url, &err) < 0)
        fail_msg("shard add: %s", err.message);
    got = shard_session(f, &c, "ariadne_shard_c");
    assert_string_equal(got, "1 off 54321ms");
    free(got);
    expect(f->s,
           "SELECT string_agg(x, ' ' ORDER BY x) FROM pg_foreign_server v, unnest(v.srvoptions) x"
           " WHERE v.srvname IN ('ariadne_shard_a', 'ariadne_shard_c') AND x ~ '^options='",
           "options=-c cursor_tuple_fraction=1 -c jit=off"
           " options=-c statement_timeout=54321 -c jit_above_cost=1000 -c cursor_tuple_fraction=1 -c jit=off");
    run(f->s, "DROP FOREIGN TABLE probe");
    test_pg_db_drop(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_spread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_sessions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
