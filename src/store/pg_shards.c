/* pg_shards.c: the shards of a PostgreSQL store (pg_shards.h). A shard is
 * a postgres_fdw foreign server named "ariadne_shard_<name>" on the
 * coordinator, with a user mapping for the daemon's role: postgres_fdw's
 * own catalogue is the registry (no table of ariadne's lists the shards,
 * so it cannot disagree with what the foreign partitions use). A shard
 * database holds no schema of ariadne's: an import creates there one plain
 * table per trace and sharded table, "<table>_t<id>" (pg_publish.c), and
 * the coordinator attaches a foreign table of the same name as that
 * trace's partition. A trace spread over the shards (pg_publish.c) has
 * on the coordinator a partition "<table>_t<id>" that is itself
 * partitioned by the table's row key, with one foreign sub-partition
 * "<table>_t<id>_s<k>" per shard k. Daemons reach a shard directly too (to
 * COPY an import's rows, to drop a deleted trace's tables), with the
 * options of its server and user mapping. */
#include "store/pg_shards.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/gantt_sql.h"
#include "store/pg_backend.h"
#include "store/store_internal.h"
#include "util/log.h"
#include "util/sbuf.h"
#include "util/vec.h"

#define SHARD_PREFIX "ariadne_shard_"
/* The trace id of a shard table's name: "<table>_t<id>", or
 * "<table>_t<id>_s<k>" (a sub-partition of a spread trace). */
#define TRACE_OF(name) "substring(" name " from '_t([0-9]+)(_s[0-9]+)?$')"
#define TABLE_NAME_RE "'^[a-z][a-z0-9_]*_t[0-9]+(_s[0-9]+)?$'"

/* Options of postgres_fdw's servers and user mappings that are not
 * libpq's: left out of a direct connection's conninfo. */
static int fdw_only_option(const char *key)
{
    static const char *const keys[] = {
        "async_capable",    "fetch_size",     "use_remote_estimate", "extensions",      "batch_size",
        "updatable",        "truncatable",    "keep_connections",    "parallel_commit", "password_required",
        "fdw_startup_cost", "fdw_tuple_cost", "analyze_sampling",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

static int valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
            return 0;
    return 1;
}

/* A value in a libpq conninfo: quoted, \ and ' escaped. */
static void conninfo_value(ari_sbuf *b, const char *key, const char *value)
{
    ari_sbuf_printf(b, "%s%s='", b->len ? " " : "", key);
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '\'')
            ari_sbuf_add_char(b, '\\');
        ari_sbuf_add_char(b, *p);
    }
    ari_sbuf_add_char(b, '\'');
}

/* A direct connection to the shard behind `server`, from its server's
 * and the current role's user mapping's options; NULL with err set. */
static ari_store *connect_shard(ari_store *s, const char *server, ari_error *err)
{
    ari_stmt *st =
        ari_store_prepare(s,
                          "SELECT split_part(x, '=', 1), regexp_replace(x, '^[^=]*=', '')"
                          " FROM pg_foreign_server v LEFT JOIN pg_user_mappings u ON u.srvid = v.oid AND "
                          "u.usename = current_user"
                          " CROSS JOIN unnest(coalesce(v.srvoptions, '{}') || coalesce(u.umoptions, '{}')) x"
                          " WHERE v.srvname = ?1",
                          err);
    if (!st)
        return NULL;
    ari_bind_text_static(st, 1, server, -1);
    ari_sbuf info = {0};
    int step, found = 0;
    while ((step = ari_step(st)) == ARI_ROW) {
        const char *key = (const char *)ari_col_text(st, 0);
        found = 1;
        if (!fdw_only_option(key))
            conninfo_value(&info, key, (const char *)ari_col_text(st, 1));
    }
    ari_store *shard = NULL;
    if (step != ARI_DONE) {
        ari_store_fail(s, err, "shard connection options");
    } else if (!found) {
        ari_error_set(err, ARI_E_DB, "shard %s: no such foreign server on the coordinator", server);
    } else if (ari_sbuf_failed(&info) || !(shard = calloc(1, sizeof *shard)) ||
               !(shard->path = strdup(server))) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if (!(shard->pg = ari_pg_open(ari_sbuf_text(&info), err))) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err ? err->message : "");
        ari_error_set(err, ARI_E_DB, "shard %s: %s", server, why);
    }
    ari_stmt_finalize(st);
    ari_sbuf_free(&info);
    if (shard && !shard->pg) {
        ari_store_close(shard);
        shard = NULL;
    }
    return shard;
}

/* ---- administration ---- */

static int open_shards(ari_store *s, ari_pg_shards *out, int64_t *dropped, ari_error *err);

/* The coordinator made ready for foreign partitions: PostgreSQL attaches
 * no foreign table under a parent with a foreign key (or a unique index),
 * so a partitioned table without unique index has its foreign keys moved
 * to its default partition, which keeps ON DELETE CASCADE for the rows a
 * trace has there; a trace's own partitions are dropped with the trace.
 * Tables with a unique key stay local. Aggregates grouped by trace_id run
 * on the shard with partitionwise aggregation, off by default. And every
 * shard's server (this one and any made before) gives its sessions two of
 * the settings the daemon's own sessions have (pg_backend.c), appended to
 * the options of its URL:
 *  - cursor_tuple_fraction = 1: postgres_fdw reads through a cursor, which
 *    the shard plans for its first tenth of rows by default, and the
 *    coordinator always reads them all. The Gantt's aggregation of a
 *    hundredth of a 31 M-state trace was planned as a sorted group by,
 *    233 ms on the shard against 36 ms for a hash aggregate;
 *  - jit = off: the same aggregation over 45 K tasks spent 79 of its
 *    100 ms compiling its expressions; 50 ms without. */
static const char prepare_sql[] =
    "DO $$ DECLARE r record; o text; k text; BEGIN"
    " FOR r IN SELECT c.relname AS parent, k.conname, pg_get_constraintdef(k.oid) AS def"
    "   FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid"
    "   JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f' AND k.conparentid = 0"
    "   WHERE c.relnamespace = current_schema()::regnamespace"
    "     AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique)"
    "     AND to_regclass(quote_ident(c.relname || '_default')) IS NOT NULL"
    " LOOP"
    "   EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', r.parent, r.conname);"
    "   EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', r.parent || '_default', r.conname, r.def);"
    " END LOOP;"
    " EXECUTE format('ALTER DATABASE %I SET enable_partitionwise_aggregate = on', current_database());"
    " EXECUTE format('ALTER DATABASE %I SET enable_partitionwise_join = on', current_database());"
    " FOR r IN SELECT v.srvname, (SELECT substr(x, 9) FROM unnest(v.srvoptions) x WHERE x ~ '^options=') AS o"
    "   FROM pg_foreign_server v WHERE v.srvname LIKE '" SHARD_PREFIX "%'"
    " LOOP"
    "   o := coalesce(r.o, '');"
    "   FOREACH k IN ARRAY ARRAY['cursor_tuple_fraction=1', 'jit=off'] LOOP"
    "     IF o !~ ('\\m' || split_part(k, '=', 1) || '\\s*=') THEN o := ltrim(o || ' -c ' || k); END IF;"
    "   END LOOP;"
    "   IF o <> coalesce(r.o, '') THEN"
    "     EXECUTE format('ALTER SERVER %I OPTIONS (%s options %L)', r.srvname,"
    "       CASE WHEN r.o IS NULL THEN 'ADD' ELSE 'SET' END, o);"
    "   END IF;"
    " END LOOP;"
    " END $$";

/* "key 'value', ..." of a CREATE SERVER or USER MAPPING, values escaped
 * by the coordinator's connection. */
static int add_option(ari_sbuf *b, PGconn *conn, const char *key, const char *value)
{
    char *lit = PQescapeLiteral(conn, value, strlen(value));
    if (!lit)
        return -1;
    ari_sbuf_printf(b, "%s%s %s", b->len ? ", " : "", key, lit);
    PQfreemem(lit);
    return 0;
}

/* The server's and the user mapping's options from the URL's. */
static int split_url(PGconn *conn, const char *url, ari_sbuf *server, ari_sbuf *mapping, ari_error *err)
{
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &why);
    if (!opts) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "the shard's URL: %s", why ? why : "out of memory");
        PQfreemem(why);
        return -1;
    }
    int rc = 0;
    for (PQconninfoOption *o = opts; rc == 0 && o->keyword; o++) {
        if (!o->val || !*o->val || strcmp(o->keyword, "client_encoding") == 0 ||
            strcmp(o->keyword, "fallback_application_name") == 0 || strcmp(o->keyword, "replication") == 0)
            continue;
        int user = strcmp(o->keyword, "user") == 0 || strcmp(o->keyword, "password") == 0;
        rc = add_option(user ? mapping : server, conn, o->keyword, o->val);
    }
    PQconninfoFree(opts);
    if (rc == 0)
        rc = add_option(server, conn, "async_capable", "true");
    if (rc == 0)
        rc = add_option(server, conn, "fetch_size", "50000");
    if (rc < 0 || ari_sbuf_failed(server) || ari_sbuf_failed(mapping))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return 0;
}

/* Runs sql, whose text may hold a password: a message that quotes it is
 * replaced. */
static int exec_secret(ari_store *s, const char *sql, const char *secret, const char *what, ari_error *err)
{
    if (ari_store_exec(s, sql, err) == 0)
        return 0;
    if (secret && *secret && err && strstr(err->message, secret))
        return ari_error_set(err, ARI_E_DB, "%s failed (PostgreSQL's message quotes the password: withheld)",
                             what);
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err ? err->message : "");
    return ari_error_set(err, ARI_E_DB, "%s: %s", what, why);
}

/* A message that quotes `secret` (a password, as given or decoded) is
 * replaced: libpq's parse errors quote the offending token. */
static void withhold(ari_error *err, const char *secret, const char *what)
{
    if (err && secret && *secret && strstr(err->message, secret))
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "%s (the message quotes the password: withheld)", what);
}

/* The password part of a postgresql://user:password@host URL as written
 * (percent-encoded), or NULL; malloc'd. */
static char *raw_password(const char *url)
{
    const char *p = strstr(url, "://");
    const char *at = p ? strchr(p + 3, '@') : NULL;
    const char *colon = at ? memchr(p + 3, ':', (size_t)(at - p - 3)) : NULL;
    return colon && at > colon + 1 ? strndup(colon + 1, (size_t)(at - colon - 1)) : NULL;
}

/* The password of a URL, for exec_secret (NULL if none); malloc'd. */
static char *url_password(const char *url)
{
    PQconninfoOption *opts = PQconninfoParse(url, NULL);
    char *pw = NULL;
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (strcmp(o->keyword, "password") == 0 && o->val && *o->val)
            pw = strdup(o->val);
    PQconninfoFree(opts);
    return pw;
}

int ari_pg_shards_add(ari_store *s, const char *name, const char *url, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shards need a PostgreSQL store (--db postgresql://...)");
    if (!name || !valid_name(name))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a shard's name is 1 to 40 of a-z, 0-9 and _");
    char *raw = raw_password(url), *password = url_password(url);
    ari_pg_conn *probe = ari_pg_open(url, err);
    if (!probe) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err ? err->message : "");
        ari_error_set(err, ARI_E_DB, "shard %s: %s", name, why);
        withhold(err, raw, "cannot connect to the shard");
        withhold(err, password, "cannot connect to the shard");
        free(raw);
        free(password);
        return -1;
    }
    ari_pg_close(probe);
    ari_sbuf server = {0}, mapping = {0}, sql = {0};
    int rc = split_url(ari_pg_conn_handle(s->pg), url, &server, &mapping, err);
    if (rc < 0)
        withhold(err, raw, "the shard's URL does not parse");
    if (rc == 0 && ari_store_begin(s, err) < 0)
        rc = -1;
    if (rc == 0) {
        ari_sbuf_printf(&sql,
                        "CREATE EXTENSION IF NOT EXISTS postgres_fdw;"
                        " CREATE SERVER " SHARD_PREFIX "%s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s)",
                        name, ari_sbuf_text(&server));
        rc = ari_sbuf_failed(&sql)
                 ? ari_error_set(err, ARI_E_NOMEM, "out of memory")
                 : exec_secret(s, ari_sbuf_text(&sql), password, "create the shard's server", err);
    }
    if (rc == 0) {
        ari_sbuf_reset(&sql);
        ari_sbuf_printf(&sql, "CREATE USER MAPPING FOR CURRENT_USER SERVER " SHARD_PREFIX "%s%s%s%s", name,
                        mapping.len ? " OPTIONS (" : "", mapping.len ? ari_sbuf_text(&mapping) : "",
                        mapping.len ? ")" : "");
        rc = ari_sbuf_failed(&sql)
                 ? ari_error_set(err, ARI_E_NOMEM, "out of memory")
                 : exec_secret(s, ari_sbuf_text(&sql), password, "create the shard's user mapping", err);
    }
    if (rc == 0)
        rc = exec_secret(s, prepare_sql, NULL, "prepare the coordinator for foreign partitions", err);
    if (rc == 0)
        rc = ari_store_commit(s, err);
    ari_store_rollback(s);
    ari_sbuf_free(&server);
    ari_sbuf_free(&mapping);
    ari_sbuf_free(&sql);
    free(password);
    free(raw);
    return rc;
}

int ari_pg_shards_list(ari_store *s, char **json, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shards need a PostgreSQL store (--db postgresql://...)");
#define OPT(list, key)                                                                                       \
    "(SELECT regexp_replace(x, '^[^=]*=', '') FROM unnest(" list ") x WHERE x ~ '^" key "=')"
    ari_stmt *st = ari_store_prepare(
        s,
        "SELECT coalesce(json_agg(json_build_object("
        "'name', regexp_replace(v.srvname, '^" SHARD_PREFIX "', ''),"
        "'url', 'postgresql://' || coalesce(" OPT(
            "u.umoptions",
            "user") " || '@', '')"
                    " || coalesce(" OPT("v.srvoptions", "host") ", '') || coalesce(':' || " OPT(
                        "v.srvoptions",
                        "port") ", '')"
                                " || '/' || coalesce(" OPT(
                                    "v.srvoptions",
                                    "dbname") ", ''),"
                                              "'traces', (SELECT count(DISTINCT " TRACE_OF("c.relname") ")"
                                              " FROM pg_foreign_table f"
                                              "           JOIN pg_class c ON c.oid = f.ftrelid WHERE "
                                              "f.ftserver = v.oid),"
                                              "'tables', (SELECT count(*) FROM pg_foreign_table f WHERE "
                                              "f.ftserver = v.oid))"
                                              " ORDER BY v.srvname), '[]')"
                                              " FROM pg_foreign_server v LEFT JOIN pg_user_mappings u ON "
                                              "u.srvid = v.oid AND u.usename = current_user"
                                              " WHERE v.srvname ~ '^" SHARD_PREFIX "'",
        err);
#undef OPT
    if (!st)
        return -1;
    int rc = ari_store_query_text(s, st, json, err);
    ari_stmt_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* 0 and *tables (the foreign tables on the server), 1 if no such server. */
static int server_tables(ari_store *s, const char *server, int64_t *tables, ari_error *err)
{
    ari_stmt *st =
        ari_store_prepare(s,
                          "SELECT (SELECT count(*) FROM pg_foreign_table f WHERE f.ftserver = v.oid)"
                          " FROM pg_foreign_server v WHERE v.srvname = ?1",
                          err);
    if (!st)
        return -1;
    ari_bind_text_static(st, 1, server, -1);
    int rc = ari_store_query_int64(s, st, tables, "shard tables", err);
    ari_stmt_finalize(st);
    return rc;
}

int ari_pg_shards_remove(ari_store *s, const char *name, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shards need a PostgreSQL store (--db postgresql://...)");
    if (!name || !valid_name(name))
        return 1;
    char server[64], sql[128];
    snprintf(server, sizeof server, SHARD_PREFIX "%s", name);
    int64_t tables = 0;
    int rc = server_tables(s, server, &tables, err);
    if (rc != 0)
        return rc;
    if (tables > 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shard %s holds %lld tables of traces: delete those traces first", name,
                             (long long)tables);
    snprintf(sql, sizeof sql, "DROP SERVER %s CASCADE", server);
    return ari_store_exec(s, sql, err);
}

int ari_pg_shards_sweep(ari_store *s, int64_t *dropped, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shards need a PostgreSQL store (--db postgresql://...)");
    ari_pg_shards shards = {0};
    int rc = ari_store_begin(s, err);
    /* the lock the imports publish under: none is between its shards'
     * commit and the coordinator's */
    if (rc == 0)
        rc = ari_store_exec(s, "LOCK TABLE traces IN SHARE ROW EXCLUSIVE MODE", err);
    *dropped = 0;
    if (rc == 0)
        rc = open_shards(s, &shards, dropped, err);
    ari_pg_shards_close(&shards);
    if (rc == 0)
        rc = ari_store_commit(s, err);
    ari_store_rollback(s);
    return rc;
}

int ari_pg_shards_set_spread(ari_store *s, int64_t rows, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "shards need a PostgreSQL store (--db postgresql://...)");
    if (rows < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "spread: --rows must be 0 (off) or more");
    char sql[300];
    snprintf(sql, sizeof sql,
             "DO $$ BEGIN EXECUTE format('ALTER DATABASE %%I SET ariadne.spread_rows = %%L',"
             " current_database(), '%lld'); END $$",
             (long long)rows);
    return ari_store_exec(s, sql, err);
}

int ari_pg_shards_spread_rows(ari_store *s, int64_t *rows, ari_error *err)
{
    /* the stored setting, not the session's (set when it connected) */
    ari_stmt *st = ari_store_prepare(s,
        "SELECT coalesce(max(CAST(regexp_replace(x, '^[^=]*=', '') AS BIGINT)), -1)"
        " FROM pg_db_role_setting r CROSS JOIN unnest(r.setconfig) x"
        " WHERE r.setrole = 0 AND r.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())"
        " AND x ~ '^ariadne[.]spread_rows='", err);
    if (!st)
        return -1;
    int64_t v = -1;
    int rc = ari_store_query_int64(s, st, &v, "the spreading threshold", err);
    ari_stmt_finalize(st);
    if (rc < 0)
        return -1;
    *rows = v < 0 ? ARI_PG_SPREAD_ROWS_DEFAULT : v;
    return 0;
}

int ari_pg_shards_trace_remote(ari_store *s, int64_t trace_id, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return 0;
    ari_stmt *st = ari_store_stmt_id(s,
                                     "SELECT count(*) FROM pg_class WHERE relname = 'tasks_t' || CAST(?1 AS TEXT)"
                                     " AND relkind IN ('f', 'p') AND relnamespace = current_schema()::regnamespace",
                                     trace_id, err);
    int64_t n = 0;
    if (!st || ari_store_query_int64(s, st, &n, "where the trace's tasks live", err) < 0)
        return -1;
    return n > 0;
}

/* The trace's workers with tasks, and its span and longest task. */
static int gantt_inputs(ari_store *s, int64_t trace_id, int64_t **workers, int *n, double span[3],
                        ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT min(start), max(end), max(end - start) FROM tasks WHERE trace_id = ?1", trace_id, err);
    if (!st || ari_store_step_row(s, st, "the trace's span", err) < 0)
        return -1;
    int none = ari_col_type(st, 0) == ARI_NULL;
    for (int i = 0; i < 3; i++)
        span[i] = ari_col_double(st, i);
    ari_reset(st);
    if (none)
        return 1;
    st =
        ari_store_stmt_id(s,
                          "SELECT DISTINCT worker_id FROM tasks WHERE trace_id = ?1 AND worker_id IS NOT NULL"
                          " ORDER BY worker_id",
                          trace_id, err);
    if (!st)
        return -1;
    size_t cap = 0, count = 0;
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)workers, &cap, count + 1, sizeof **workers) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        else
            (*workers)[count++] = ari_col_int64(st, 0);
    }
    if (rc == 0 && ari_store_rows_end(s, st, step, "the trace's workers", err) < 0)
        rc = -1;
    ari_reset(st);
    *n = (int)count;
    return rc;
}

int ari_pg_shards_explain_gantt(ari_store *s, int64_t trace_id, char **plan, ari_error *err)
{
    if (!ari_store_is_pg(s))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "EXPLAIN needs a PostgreSQL store");
    int64_t *workers = NULL;
    int n = 0;
    double span[3];
    int rc = gantt_inputs(s, trace_id, &workers, &n, span, err);
    char *text = rc == 0 ? ari_gantt_sql_text(workers, n) : NULL;
    free(workers);
    if (rc != 0)
        return rc;
    ari_sbuf sql = {0};
    ari_sbuf_printf(&sql,
                    "PREPARE ariadne_explain_gantt(bigint, float8, float8, float8, float8, float8, float8,"
                    " float8, float8) AS %s",
                    text ? text : "");
    const double width = 1000, t0 = span[0], t1 = span[1] > span[0] ? span[1] : span[0] + 1;
    ari_sbuf explain = {0};
    ari_sbuf_printf(&explain,
                    "EXPLAIN (VERBOSE) EXECUTE ariadne_explain_gantt(%lld, %.17g, %.17g, %.17g, %.17g, NULL,"
                    " %.17g, %.17g, %.17g)",
                    (long long)trace_id, t0, t1, width, t0 - span[2], width / (t1 - t0), t1 - t0, width - 1);
    ari_stmt *st = NULL;
    if (!text || ari_sbuf_failed(&sql) || ari_sbuf_failed(&explain)) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if (ari_store_exec(s, ari_sbuf_text(&sql), err) == 0) {
        ari_sbuf out = {0};
        int step = ARI_DONE;
        if (!(st = ari_store_prepare(s, ari_sbuf_text(&explain), err)))
            rc = -1;
        while (rc == 0 && (step = ari_step(st)) == ARI_ROW)
            ari_sbuf_printf(&out, "%s\n", (const char *)ari_col_text(st, 0));
        if (rc == 0 && step != ARI_DONE)
            rc = ari_store_fail(s, err, "EXPLAIN the Gantt's aggregation");
        if (rc == 0 && ari_sbuf_failed(&out))
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (rc == 0)
            *plan = ari_sbuf_take(&out);
        ari_sbuf_free(&out);
        ari_stmt_finalize(st);
        ari_pg_exec(s->pg, "DEALLOCATE ariadne_explain_gantt");
    } else {
        rc = -1;
    }
    free(text);
    ari_sbuf_free(&sql);
    ari_sbuf_free(&explain);
    return rc;
}

/* ---- placement ---- */

char *ari_pg_names(ari_store *s, ari_stmt *st, const char *what, ari_error *err)
{
    ari_sbuf names = {0};
    ari_sbuf_add_char(&names, '\n');
    int step;
    while ((step = ari_step(st)) == ARI_ROW)
        ari_sbuf_printf(&names, "%s\n", (const char *)ari_col_text(st, 0));
    int rc = step == ARI_DONE ? 0 : ari_store_fail(s, err, what);
    ari_stmt_finalize(st);
    if (rc == 0 && ari_sbuf_failed(&names))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc < 0) {
        ari_sbuf_free(&names);
        return NULL;
    }
    return ari_sbuf_take(&names);
}

/* The names of the coordinator's foreign tables on `server`. */
static char *foreign_tables(ari_store *s, const char *server, ari_error *err)
{
    ari_stmt *st =
        ari_store_prepare(s,
                          "SELECT c.relname FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid"
                          " JOIN pg_foreign_server v ON v.oid = f.ftserver WHERE v.srvname = ?1",
                          err);
    if (!st)
        return NULL;
    ari_bind_text_static(st, 1, server, -1);
    return ari_pg_names(s, st, "shard foreign tables", err);
}

/* Drops the shard's trace tables that no foreign table of the coordinator
 * names; connects sh. 0, or -1 with err set. */
static int sweep_one(ari_store *s, ari_pg_shard *sh, int64_t *dropped, ari_error *err)
{
    if (!sh->conn && !(sh->conn = connect_shard(s, sh->server, err)))
        return -1;
    char *known = foreign_tables(s, sh->server, err);
    if (!known)
        return -1;
    ari_stmt *st = ari_store_prepare(sh->conn,
                                     "SELECT relname FROM pg_class WHERE relkind = 'r'"
                                     " AND relnamespace = current_schema()::regnamespace"
                                     " AND relname ~ " TABLE_NAME_RE,
                                     err);
    char **orphans = NULL;
    size_t n = 0, cap = 0;
    int step = ARI_DONE, rc = st ? 0 : -1;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        const char *name = (const char *)ari_col_text(st, 0);
        char key[200];
        snprintf(key, sizeof key, "\n%s\n", name);
        if (strstr(known, key))
            continue;
        char *copy = strdup(name);
        if (!copy || ari_vec_reserve((void **)&orphans, &cap, n + 1, sizeof *orphans) < 0) {
            free(copy);
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        } else {
            orphans[n++] = copy;
        }
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(sh->conn, err, "shard tables");
    ari_stmt_finalize(st);
    for (size_t i = 0; i < n; i++) {
        char sql[240];
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", orphans[i]);
        if (rc == 0 && (rc = ari_store_exec(sh->conn, sql, err)) == 0) {
            ari_log(ARI_LOG_INFO, "shard %s: dropped orphan table %s", sh->server, orphans[i]);
            ++*dropped;
        }
        free(orphans[i]);
    }
    free(orphans);
    free(known);
    return rc;
}

static int load_shards(ari_store *s, ari_pg_shards *out, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(
        s,
        "SELECT v.srvname, (SELECT count(DISTINCT " TRACE_OF("c.relname") ")"
        " FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid WHERE f.ftserver = v.oid)"
        " FROM pg_foreign_server v WHERE v.srvname ~ '^" SHARD_PREFIX "' ORDER BY v.srvname",
        err);
    if (!st)
        return -1;
    size_t cap = 0;
    int step = ARI_DONE, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        char *server = strdup((const char *)ari_col_text(st, 0));
        if (!server || ari_vec_reserve((void **)&out->v, &cap, out->n + 1, sizeof *out->v) < 0) {
            free(server);
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        } else {
            out->v[out->n++] = (ari_pg_shard){.server = server, .traces = ari_col_int64(st, 1)};
        }
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, "shards");
    ari_stmt_finalize(st);
    return rc;
}

static int open_shards(ari_store *s, ari_pg_shards *out, int64_t *dropped, ari_error *err)
{
    *out = (ari_pg_shards){0};
    int rc = load_shards(s, out, err);
    for (size_t i = 0; rc == 0 && i < out->n; i++)
        rc = sweep_one(s, &out->v[i], dropped, err);
    if (rc < 0)
        ari_pg_shards_close(out);
    return rc;
}

int ari_pg_shards_open(ari_store *s, ari_pg_shards *out, ari_error *err)
{
    int64_t dropped = 0;
    return open_shards(s, out, &dropped, err);
}

ari_pg_shard *ari_pg_shards_pick(ari_pg_shards *shards)
{
    ari_pg_shard *best = NULL;
    for (size_t i = 0; i < shards->n; i++)
        if (!best || shards->v[i].traces < best->traces)
            best = &shards->v[i];
    if (best)
        best->traces++;
    return best;
}

ari_store *ari_pg_shard_conn(ari_store *s, ari_pg_shard *sh, ari_error *err)
{
    if (!sh->conn && !(sh->conn = connect_shard(s, sh->server, err)))
        return NULL;
    if (!sh->in_tx) {
        if (ari_store_begin(sh->conn, err) < 0)
            return NULL;
        sh->in_tx = 1;
    }
    return sh->conn;
}

int ari_pg_shards_commit(ari_pg_shards *shards, ari_error *err)
{
    for (size_t i = 0; i < shards->n; i++) {
        ari_pg_shard *sh = &shards->v[i];
        if (!sh->in_tx)
            continue;
        sh->in_tx = 0;
        if (ari_store_commit(sh->conn, err) < 0) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            return ari_error_set(err, ARI_E_DB, "shard %s: commit: %s", sh->server, why);
        }
    }
    return 0;
}

void ari_pg_shards_close(ari_pg_shards *shards)
{
    for (size_t i = 0; i < shards->n; i++) {
        if (shards->v[i].conn) {
            ari_store_rollback(shards->v[i].conn);
            ari_store_close(shards->v[i].conn);
        }
        free(shards->v[i].server);
    }
    free(shards->v);
    *shards = (ari_pg_shards){0};
}

int ari_pg_shard_drop_tables(ari_store *s, const char *server, char *const *tables, size_t n, ari_error *err)
{
    ari_store *shard = connect_shard(s, server, err);
    if (!shard)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char sql[240];
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", tables[i]);
        rc = ari_store_exec(shard, sql, err);
    }
    ari_store_close(shard);
    return rc;
}
