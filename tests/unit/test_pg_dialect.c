/* test_pg_dialect.c: src/store/pg_dialect.c turns the store's SQLite text
 * into PostgreSQL's: parameters, the `end` column, SQLite's functions and
 * forms, subquery aliases, and what it must leave alone (literals, quoted
 * names, comments, `END` of a CASE, CREATE TABLE ... (LIKE ...)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "store/pg_dialect.h"

static void check(const char *lite, const char *pg, int params)
{
    int n = -1;
    char *out = ari_pg_translate(lite, &n);
    assert_non_null(out);
    if (strcmp(out, pg) != 0)
        fail_msg("translated\n  %s\ninto\n  %s\nwanted\n  %s", lite, out, pg);
    assert_int_equal(n, params);
    free(out);
}

static void test_parameters(void **state)
{
    (void)state;
    check("SELECT a FROM t WHERE id = ?1 AND b < ?12", "SELECT a FROM t WHERE id = $1 AND b < $12", 12);
    check("SELECT ?, ?, ?2", "SELECT $1, $2, $2", 2);
    check("SELECT '?1 is not a parameter' || \"?2\"", "SELECT '?1 is not a parameter' || \"?2\"", 0);
    check("SELECT 1 -- ?3 end\n, 2 /* ?4 */", "SELECT 1 -- ?3 end\n, 2 /* ?4 */", 0);
}

static void test_end_column(void **state)
{
    (void)state;
    check("SELECT start, end - start, s.end FROM states s", "SELECT start, \"end\" - start, s.\"end\" FROM states s", 0);
    check("SELECT CASE WHEN end > 1 THEN 2 END", "SELECT CASE WHEN \"end\" > 1 THEN 2 END", 0);
    check("SELECT 'end', \"end\"", "SELECT 'end', \"end\"", 0);
}

static void test_functions(void **state)
{
    (void)state;
    check("SELECT json_group_array(json_object('a', x)) FROM t",
          "SELECT coalesce(json_agg(json_build_object('a', x)), '[]') FROM t", 0);
    check("SELECT json(obj)", "SELECT (obj)::json", 0);
    check("SELECT ifnull(a, 0), instr(n, 'x')", "SELECT coalesce(a, 0), strpos(n, 'x')", 0);
    check("SELECT group_concat(h, ''), group_concat(n)", "SELECT string_agg((h)::text, ''), string_agg((n)::text, ',')", 0);
    check("SELECT total(x), max(a, b), min(a, b, c), max(y)",
          "SELECT coalesce(sum(x), 0)::float8, greatest(a, b), least(a, b, c), max(y)", 0);
    check("SELECT iif(a > 1, 'x', 'y')", "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' END", 0);
    check("SELECT round(a / 3.0, 2), substr(v, ?1 * 8 + 1, 8)",
          "SELECT round((a / 3.0)::numeric, 2)::float8, substr(v, ($1 * 8 + 1)::int, (8)::int)", 1);
    check("SELECT CAST(x * 2.5 AS INTEGER), CAST(y AS REAL), CAST(z AS TEXT)",
          "SELECT CAST(trunc((x * 2.5)::float8) AS bigint), CAST(y AS double precision), CAST(z AS TEXT)", 0);
    check("SELECT max(max(start, end))", "SELECT max(greatest(start, \"end\"))", 0);
}

static void test_forms(void **state)
{
    (void)state;
    check("INSERT OR IGNORE INTO t(a) VALUES (?1)", "INSERT INTO t(a) VALUES ($1) ON CONFLICT DO NOTHING", 1);
    check("INSERT OR IGNORE INTO t(a) VALUES (1); INSERT INTO u VALUES (2)",
          "INSERT INTO t(a) VALUES (1) ON CONFLICT DO NOTHING; INSERT INTO u VALUES (2)", 0);
    check("SELECT count(*) FROM (SELECT 1)", "SELECT count(*) FROM (SELECT 1) AS _q1", 0);
    check("SELECT * FROM (SELECT 1) q JOIN (SELECT 2) WHERE 1 = 1",
          "SELECT * FROM (SELECT 1) q JOIN (SELECT 2) AS _q1 WHERE 1 = 1", 0);
    check("SELECT * FROM t WHERE a IN (SELECT b FROM u)", "SELECT * FROM t WHERE a IN (SELECT b FROM u)", 0);
    check("SELECT name FROM c WHERE name GLOB '*MEMNODE[0-9]*' OR name GLOB 'a.b?'",
          "SELECT name FROM c WHERE name ~ '^.*MEMNODE[0-9].*$' OR name ~ '^a\\.b.$'", 0);
    check("SELECT a FROM t INDEXED BY t_by_a WHERE a = 1", "SELECT a FROM t  WHERE a = 1", 0);
    check("SELECT a FROM t WHERE n LIKE 'x%' AND m == 2", "SELECT a FROM t WHERE n ILIKE 'x%' AND m = 2", 0);
    check("CREATE TABLE p (LIKE states INCLUDING DEFAULTS)", "CREATE TABLE p (LIKE states INCLUDING DEFAULTS)", 0);
    check("SELECT x REAL, y BLOB", "SELECT x double precision, y bytea", 0);
}

/* Unbalanced or odd text is copied for the server to reject, never read past. */
static void test_malformed(void **state)
{
    (void)state;
    check("SELECT max(a, ", "SELECT max(a, ", 0);
    check("SELECT 'unterminated", "SELECT 'unterminated", 0);
    check("SELECT (((", "SELECT (((", 0);
    check("", "", 0);
    check("SELECT a GLOB", "SELECT a GLOB", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameters), cmocka_unit_test(test_end_column), cmocka_unit_test(test_functions),
        cmocka_unit_test(test_forms), cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
