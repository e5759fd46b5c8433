/* store.c: opening the database (an SQLite file, or a PostgreSQL one
 * through pg_backend.c), its pragmas, schema migrations, the
 * prepared-statement cache and transactions. What differs between the two
 * backends at the connection level is decided here, once per operation. */
#include "store/store_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_backend.h"
#include "store/staging.h"
#include "store/store_text.h"
#include "util/embedded.h"
#include "util/log.h"
#include "util/vec.h"

/* How long a statement waits for another connection's write lock before
 * failing with SQLITE_BUSY (then answered 503 with Retry-After). */
static int busy_timeout_ms = 10000;

void ari_store_set_default_busy_timeout(int ms)
{
    busy_timeout_ms = ms > 0 ? ms : 0;
}

void ari_store_set_busy_timeout(ari_store *s, int ms)
{
    if (s->pg)
        ari_pg_set_busy_timeout(s->pg, ms < 0 ? busy_timeout_ms : ms);
    else
        sqlite3_busy_timeout(s->db, ms < 0 ? busy_timeout_ms : ms);
}

int ari_store_fail(ari_store *s, ari_error *err, const char *what)
{
    if (s->pg) {
        int code = ari_pg_errcode(s->pg);
        if (code == ARI_UNAVAILABLE)
            return ari_error_set(err, ARI_E_UNAVAILABLE,
                                 "%s: a database server holding this data cannot be reached (a shard that is down"
                                 " stops only the traces it holds; `ariadned shard list` names them): %s",
                                 what, ari_pg_errmsg(s->pg));
        const char *ecode = code == ARI_BUSY ? ARI_E_BUSY : code == ARI_NOMEM ? ARI_E_NOMEM : ARI_E_DB;
        return ari_error_set(err, ecode, "%s: %s", what, ari_pg_errmsg(s->pg));
    }
    int code = sqlite3_errcode(s->db);
    const char *ecode = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? ARI_E_BUSY : ARI_E_DB;
    return ari_error_set(err, ecode, "%s: %s", what, sqlite3_errmsg(s->db));
}

int ari_store_write(ari_store *s, ari_stmt *st, const char *what, ari_error *err)
{
    int rc = ari_step(st);
    if (rc != ARI_DONE && rc != ARI_ROW)
        ari_store_fail(s, err, what);
    ari_reset(st);
    return rc == ARI_DONE || rc == ARI_ROW ? 0 : -1;
}

void ari_store_settle(ari_store *s)
{
    if (s->pg) {
        for (size_t i = 0; i < s->ncache; i++)
            ari_reset(s->cache[i].stmt);
    } else {
        for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st; st = sqlite3_next_stmt(s->db, st))
            if (sqlite3_stmt_busy(st))
                sqlite3_reset(st);
    }
    ari_store_rollback(s);
}

int ari_store_exec(ari_store *s, const char *sql, ari_error *err)
{
    if (s->pg) {
        if (ari_pg_exec(s->pg, sql) == ARI_OK)
            return 0;
        int code = ari_pg_errcode(s->pg);
        return ari_error_set(err, code == ARI_BUSY ? ARI_E_BUSY : ARI_E_DB, "%s", ari_pg_errmsg(s->pg));
    }
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int code = sqlite3_errcode(s->db);
        ari_error_set(err, code == SQLITE_BUSY ? ARI_E_BUSY : ARI_E_DB, "%s", msg ? msg : "sqlite error");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* A new statement (persistent: kept in the cache for the connection's
 * life), or NULL with err set. */
static ari_stmt *prepare(ari_store *s, const char *sql, int persistent, ari_error *err)
{
    ari_stmt *st = calloc(1, sizeof *st);
    if (!st) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    int ok = s->pg ? (st->pg = ari_pg_prepare(s->pg, sql)) != NULL
                   : sqlite3_prepare_v3(s->db, sql, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0, &st->lite,
                                        NULL) == SQLITE_OK;
    if (!ok) {
        ari_store_fail(s, err, "prepare");
        ari_stmt_finalize(st);
        return NULL;
    }
    return st;
}

ari_stmt *ari_store_prepare(ari_store *s, const char *sql, ari_error *err)
{
    return prepare(s, sql, 0, err);
}

void ari_stmt_finalize(ari_stmt *st)
{
    if (!st)
        return;
    if (st->pg)
        ari_pg_finalize(st->pg);
    else
        sqlite3_finalize(st->lite);
    free(st);
}

int64_t ari_store_last_insert_id(ari_store *s)
{
    return s->pg ? ari_pg_last_insert_id(s->pg) : sqlite3_last_insert_rowid(s->db);
}

int64_t ari_store_changes(ari_store *s)
{
    return s->pg ? ari_pg_changes(s->pg) : sqlite3_changes(s->db);
}

static ari_stmt *reuse(ari_store *s, int i, int *hint)
{
    *hint = i + 1;
    ari_reset(s->cache[i].stmt);
    ari_clear_bindings(s->cache[i].stmt);
    return s->cache[i].stmt;
}

/* Imports call a few statements millions of times: the hint finds them
 * in one comparison; a miss falls back to a scan. */
ari_stmt *ari_store_stmt(ari_store *s, const char *sql, ari_error *err)
{
    int *hint = &s->hint[((uintptr_t)sql >> 3) & 255];
    if (*hint > 0 && s->cache[*hint - 1].sql == sql)
        return reuse(s, *hint - 1, hint);
    for (size_t i = 0; i < s->ncache; i++)
        if (s->cache[i].sql == sql)
            return reuse(s, (int)i, hint);
    if (ari_vec_reserve((void **)&s->cache, &s->cache_cap, s->ncache + 1, sizeof *s->cache) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    ari_stmt *st = prepare(s, sql, 1, err);
    if (!st)
        return NULL;
    s->cache[s->ncache].sql = sql;
    s->cache[s->ncache].stmt = st;
    *hint = (int)++s->ncache;
    return st;
}

static int bind_arg(ari_stmt *st, int i, const ari_arg *a)
{
    switch (a->type) {
    case ARI_INTEGER:
        return ari_bind_int64(st, i, a->i);
    case ARI_FLOAT:
        return ari_bind_double(st, i, a->r);
    case ARI_TEXT:
        if (a->raw)
            return ari_bind_text_copy(st, i, a->p, -1);
        return ari_store_bind_text(st, i, a->p, -1);
    case ARI_BLOB:
        return ari_bind_blob(st, i, a->p, a->i);
    default:
        return ari_bind_null(st, i);
    }
}

int ari_store_bind_args(ari_store *s, ari_stmt *st, const ari_arg *args, int n, ari_error *err)
{
    for (int i = 0; i < n; i++) {
        int rc = bind_arg(st, i + 1, &args[i]);
        if (rc == ARI_NOMEM)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (rc != ARI_OK)
            return ari_store_fail(s, err, "bind");
    }
    return 0;
}

ari_stmt *ari_store_bound(ari_store *s, const char *sql, const ari_arg *args, int n, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s, sql, err);
    return st && ari_store_bind_args(s, st, args, n, err) == 0 ? st : NULL;
}

ari_stmt *ari_store_stmt_id(ari_store *s, const char *sql, int64_t id, ari_error *err)
{
    ari_arg arg = ari_arg_int(id);
    return ari_store_bound(s, sql, &arg, 1, err);
}

int ari_store_run(ari_store *s, const char *sql, const ari_arg *args, int n, const char *what,
                  ari_error *err)
{
    ari_stmt *st = ari_store_bound(s, sql, args, n, err);
    return st ? ari_store_write(s, st, what, err) : -1;
}

int ari_store_write_changed(ari_store *s, ari_stmt *st, const char *what, ari_error *err)
{
    if (ari_store_write(s, st, what, err) < 0)
        return -1;
    return ari_store_changes(s) ? 0 : 1;
}

int ari_store_step_row(ari_store *s, ari_stmt *st, const char *what, ari_error *err)
{
    int rc = ari_step(st);
    if (rc == ARI_ROW)
        return 0;
    if (rc != ARI_DONE)
        ari_store_fail(s, err, what);
    ari_reset(st);
    return rc == ARI_DONE ? 1 : -1;
}

int ari_store_rows_end(ari_store *s, ari_stmt *st, int rc, const char *what, ari_error *err)
{
    if (rc != ARI_DONE)
        ari_store_fail(s, err, what);
    ari_reset(st);
    return rc == ARI_DONE ? 0 : -1;
}

int ari_store_query_int64(ari_store *s, ari_stmt *st, int64_t *out, const char *what, ari_error *err)
{
    int rc = ari_store_step_row(s, st, what, err);
    if (rc != 0)
        return rc;
    *out = ari_col_int64(st, 0);
    ari_reset(st);
    return 0;
}

int ari_store_query_string(ari_store *s, ari_stmt *st, const char *if_null, char **out, const char *what,
                           ari_error *err)
{
    int rc = ari_store_step_row(s, st, what, err);
    if (rc != 0)
        return rc;
    const char *text = (const char *)ari_col_text(st, 0);
    *out = strdup(text ? text : if_null);
    ari_reset(st);
    return *out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

int ari_store_query_text(ari_store *s, ari_stmt *st, char **out, ari_error *err)
{
    return ari_store_query_string(s, st, "null", out, "query", err);
}

int ari_store_read_rows(ari_store *s, ari_stmt *st, void **items, size_t *n, size_t size,
                        ari_row_reader read, const void *ctx, const char *what, ari_error *err)
{
    size_t cap = *n;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve(items, &cap, *n + 1, size) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        void *item = (char *)*items + *n * size;
        memset(item, 0, size);
        ++*n;
        if (read(st, item, ctx) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    return ari_store_rows_end(s, st, rc, what, err);
}

static int migration_number(const ari_embedded *m)
{
    return atoi(m->name); /* "001_init.sql" -> 1 */
}

int ari_store_latest_schema_version(void)
{
    return ari_migrations_count ? migration_number(&ari_migrations[ari_migrations_count - 1]) : 0;
}

/* PostgreSQL keeps the version in a table of one row (SQLite: PRAGMA
 * user_version), made before the first migration. */
static int pg_schema_version(ari_store *s)
{
    ari_stmt *st = ari_store_prepare(s, "SELECT version FROM ariadne_schema", NULL);
    int version = st && ari_step(st) == ARI_ROW ? ari_col_int(st, 0) : -1;
    ari_stmt_finalize(st);
    return version;
}

int ari_store_schema_version(ari_store *s)
{
    if (s->pg)
        return pg_schema_version(s);
    sqlite3_stmt *st = NULL;
    int version = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return version;
}

/* Migration 016 adds the trace kind 'events'. SQLite cannot alter a CHECK
 * constraint, and rebuilding `traces` would cascade-delete every trace's
 * rows (foreign keys are on), so the constraint's text is widened in place
 * as SQLite documents for loosening a CHECK ("Making Other Kinds Of Table
 * Schema Changes", lang_altertable.html): writable_schema, the new text,
 * schema_version + 1, inside the migration's transaction. Databases made
 * by 001 after this change already accept the kind: nothing to do. */
static int widen_trace_kinds(ari_store *s, ari_error *err)
{
    static const char old_kinds[] = "'tasks', 'profile', 'pdes', 'datamove')";
    static const char new_kinds[] = "'tasks', 'profile', 'pdes', 'datamove', 'events')";
    sqlite3_stmt *st = NULL;
    int64_t cookie = -1;
    char *sql = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT sql, (SELECT schema_version FROM pragma_schema_version)"
                                  " FROM sqlite_schema WHERE type = 'table' AND name = 'traces'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        const char *at = text ? strstr(text, old_kinds) : NULL;
        cookie = sqlite3_column_int64(st, 1);
        if (at && (sql = malloc(strlen(text) + sizeof new_kinds)))
            sprintf(sql, "%.*s%s%s", (int)(at - text), text, new_kinds, at + strlen(old_kinds));
        else if (!at)
            cookie = -2; /* already widened (or made by a newer 001) */
    }
    sqlite3_finalize(st);
    if (cookie == -2)
        return 0;
    if (cookie < 0 || !sql) {
        free(sql);
        return ari_error_set(err, ARI_E_DB, "cannot read the traces table's definition");
    }
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA schema_version = %lld", (long long)cookie + 1);
    int rc = ari_store_exec(s, "PRAGMA writable_schema = ON", err);
    if (rc == 0) {
        sqlite3_stmt *up = NULL;
        rc = sqlite3_prepare_v2(s->db, "UPDATE sqlite_schema SET sql = ?1 WHERE type = 'table' AND name = 'traces'",
                                -1, &up, NULL) == SQLITE_OK &&
                     sqlite3_bind_text(up, 1, sql, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(up) == SQLITE_DONE
                 ? 0
                 : ari_error_set(err, ARI_E_DB, "widening traces.kind: %s", sqlite3_errmsg(s->db));
        sqlite3_finalize(up);
        if (rc == 0)
            rc = ari_store_exec(s, bump, err);
        if (ari_store_exec(s, "PRAGMA writable_schema = OFF", rc ? NULL : err) < 0)
            rc = -1;
    }
    free(sql);
    return rc;
}

/* Applies every migration newer than PRAGMA user_version, all in one
 * transaction taken with BEGIN IMMEDIATE so two processes starting at once
 * cannot both migrate. */
static int migrate(ari_store *s, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    /* PostgreSQL: one migrating replica at a time (a lock held until the
     * transaction ends), and the version's table made if this is a new
     * database. */
    if (s->pg && (ari_store_exec(s, "SELECT pg_advisory_xact_lock(7402577)", err) < 0 ||
                  ari_store_exec(s, "CREATE TABLE IF NOT EXISTS ariadne_schema(version integer NOT NULL);"
                                    "INSERT INTO ariadne_schema SELECT 0 WHERE NOT EXISTS"
                                    " (SELECT 1 FROM ariadne_schema)", err) < 0)) {
        ari_store_rollback(s);
        return -1;
    }
    const ari_embedded *migrations = s->pg ? ari_pg_migrations : ari_migrations;
    size_t count = s->pg ? ari_pg_migrations_count : ari_migrations_count;
    int version = ari_store_schema_version(s);
    int latest = ari_store_latest_schema_version();
    if (version > latest) {
        ari_store_rollback(s);
        return ari_error_set(err, ARI_E_DB,
                             "%s: database schema version %d is newer than this ariadned knows (%d)",
                             s->path, version, latest);
    }
    if (s->pg && count != ari_migrations_count) {
        ari_store_rollback(s);
        return ari_error_set(err, ARI_E_DB, "this ariadned has %zu PostgreSQL migrations for %zu SQLite ones",
                             count, ari_migrations_count);
    }
    for (size_t i = 0; i < count; i++) {
        const ari_embedded *m = &migrations[i];
        int n = migration_number(m);
        if (n <= version)
            continue;
        char pragma[64];
        snprintf(pragma, sizeof pragma, s->pg ? "UPDATE ariadne_schema SET version = %d" : "PRAGMA user_version = %d",
                 n);
        if (ari_store_exec(s, m->data, err) < 0 || (n == 16 && !s->pg && widen_trace_kinds(s, err) < 0) ||
            ari_store_exec(s, pragma, err) < 0) {
            char what[sizeof err->message];
            snprintf(what, sizeof what, "%s", err ? err->message : "");
            ari_store_rollback(s);
            return ari_error_set(err, ARI_E_DB, "migration %s: %s", m->name, what);
        }
        ari_log(ARI_LOG_DEBUG, "%s: applied migration %s", s->path, m->name);
    }
    /* SQLite's functions that the shared SQL calls, re-created by every
     * start so that a new release's versions replace the old ones. */
    if (s->pg && ari_store_exec(s, ari_pg_functions[0].data, err) < 0) {
        char what[sizeof err->message];
        snprintf(what, sizeof what, "%s", err ? err->message : "");
        ari_store_rollback(s);
        return ari_error_set(err, ARI_E_DB, "sql/pg/functions.sql: %s", what);
    }
    return ari_store_commit(s, err);
}

/* The password of a postgresql:// URL is not kept (the path names the
 * database in messages and logs). */
static char *url_without_password(const char *url)
{
    const char *scheme_end = strstr(url, "://");
    const char *at = scheme_end ? strchr(scheme_end + 3, '@') : NULL;
    const char *colon = at ? memchr(scheme_end + 3, ':', (size_t)(at - scheme_end - 3)) : NULL;
    char *out = NULL;
    if (!colon)
        return strdup(url);
    if (asprintf(&out, "%.*s%s", (int)(colon - url), url, at) < 0)
        return NULL;
    return out;
}

static ari_store *open_pg(const char *url, ari_error *err)
{
    ari_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = url_without_password(url))) {
        free(s);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    if (!(s->pg = ari_pg_open(url, err))) {
        ari_store_close(s);
        return NULL;
    }
    ari_pg_set_busy_timeout(s->pg, busy_timeout_ms);
    if (migrate(s, err) < 0) {
        ari_store_close(s);
        return NULL;
    }
    int swept = ari_staging_sweep_tmp();
    if (swept)
        ari_log(ARI_LOG_INFO, "removed %d staging file(s) of imports killed before they ended", swept);
    return s;
}

static ari_store *open_with(const char *path, const char *pragmas, ari_error *err)
{
    ari_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        ari_error_set(err, ARI_E_DB, "cannot open database %s: %s", path,
                      s->db ? sqlite3_errmsg(s->db) : "out of memory");
        ari_store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, busy_timeout_ms);
    if (ari_store_exec(s, pragmas, err) < 0 || migrate(s, err) < 0) {
        ari_store_close(s);
        return NULL;
    }
    return s;
}

int ari_store_is_url(const char *db)
{
    return ari_pg_is_url(db);
}

char *ari_store_redacted(const char *db)
{
    return ari_pg_is_url(db) ? url_without_password(db) : strdup(db);
}

int ari_store_is_pg(const ari_store *s)
{
    return s->pg != NULL;
}

ari_store *ari_store_open(const char *path, ari_error *err)
{
    if (ari_pg_is_url(path))
        return open_pg(path, err);
    ari_store *s = open_with(path, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                                   "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;", err);
    int swept = s ? ari_staging_sweep(path) : 0;
    if (swept)
        ari_log(ARI_LOG_INFO, "removed %d staging file(s) of imports killed before they ended", swept);
    return s;
}

/* Up to SQLite's limit (2 GiB in Debian's build): a page read then costs
 * no copy, which the timeline's state chunks (blobs over a dozen overflow
 * pages each) feel most: a window of one event on 10 M events went from 50
 * to 19 ms, the whole trace from 0.22 to 0.18 s. Writes still go through
 * the WAL. Not for imports: the pages they copy would count in their
 * resident memory. */
int ari_store_map(ari_store *s, ari_error *err)
{
    if (s->pg)
        return 0; /* a PostgreSQL server reads its own pages */
    return ari_store_exec(s, "PRAGMA mmap_size = 2147418112", err);
}

/* A staging database is private and thrown away after a crash: no fsync.
 * It keeps WAL: with a rollback journal (even in memory) the same import
 * spends a third more time spilling the page cache. Its pages are 16 KiB
 * (a new file takes the size before its first table): an event trace's
 * import of 2.5 M events took a fifth less time than with 4 KiB pages. */
ari_store *ari_store_open_scratch(const char *path, ari_error *err)
{
    return open_with(path, "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;"
                           "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;", err);
}

const char *ari_store_path(const ari_store *s)
{
    return s->path;
}

void ari_store_close(ari_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ncache; i++)
        ari_stmt_finalize(s->cache[i].stmt);
    free(s->cache);
    ari_pg_close(s->pg);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        ari_log(ARI_LOG_WARN, "closing %s: %s", s->path, sqlite3_errmsg(s->db));
    free(s->path);
    free(s);
}

char *ari_store_check(ari_store *s)
{
    if (s->pg) { /* the server checks its own pages: a connection that answers is ok */
        ari_stmt *st = ari_store_prepare(s, "SELECT 'ok'", NULL);
        char *result = strdup(st && ari_step(st) == ARI_ROW ? (const char *)ari_col_text(st, 0) : ari_pg_errmsg(s->pg));
        ari_stmt_finalize(st);
        return result;
    }
    sqlite3_stmt *st = NULL;
    char *result = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        result = strdup((const char *)sqlite3_column_text(st, 0));
    else
        result = strdup(sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return result;
}

int ari_store_begin(ari_store *s, ari_error *err)
{
    return ari_store_exec(s, s->pg ? "BEGIN" : "BEGIN IMMEDIATE", err);
}

int ari_store_commit(ari_store *s, ari_error *err)
{
    return ari_store_exec(s, "COMMIT", err);
}

void ari_store_rollback(ari_store *s)
{
    if (s->pg) {
        if (ari_pg_in_transaction(s->pg))
            ari_pg_exec(s->pg, "ROLLBACK");
    } else if (!sqlite3_get_autocommit(s->db)) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    }
}
