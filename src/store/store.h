/* store.h: ariadne's SQLite database: opening, migrations, transactions, and
 * the queries on traces, jobs and tokens. All SQL of the project lives under
 * src/store/; callers see plain C values or JSON text built by SQLite.
 *
 * An ari_store is one connection: use it from one thread at a time.
 */
#ifndef ARIADNE_STORE_H
#define ARIADNE_STORE_H

#include <stdint.h>
#include <stddef.h>

#include "util/error.h"

typedef struct ari_store ari_store;

/* Opens (creating if needed) the database at `path`, sets WAL, foreign keys
 * and a busy timeout, and applies pending migrations from sql/. A path
 * that is a postgresql:// (or postgres://) URL opens that PostgreSQL
 * database instead, migrated with sql/pg/. */
ari_store *ari_store_open(const char *path, ari_error *err);
/* 1 when `db` is a PostgreSQL URL rather than an SQLite file. */
int ari_store_is_url(const char *db);
/* A malloc'd copy of `db` fit for logs and messages: a URL without its
 * password. NULL when out of memory. */
char *ari_store_redacted(const char *db);
/* 1 when s is a PostgreSQL database. */
int ari_store_is_pg(const ari_store *s);
/* A private scratch database with the same schema, for staging imports
 * (see staging.h): no fsync. */
ari_store *ari_store_open_scratch(const char *path, ari_error *err);
/* Reads through a memory map of the database (serving connections).
 * 0 or -1 (err). */
int ari_store_map(ari_store *s, ari_error *err);
void ari_store_close(ari_store *s);
const char *ari_store_path(const ari_store *s);
int ari_store_schema_version(ari_store *s);
int ari_store_latest_schema_version(void);
/* "ok" or the first problem reported by PRAGMA quick_check. Caller frees. */
char *ari_store_check(ari_store *s);

/* The busy timeout of connections opened from now on (default 10,000 ms). */
void ari_store_set_default_busy_timeout(int ms);
/* Returns a connection to a clean state between uses: resets every
 * statement left stepping (a read that stopped early holds a snapshot, a
 * write that failed holds its transaction) and rolls back an open
 * transaction. The pool calls it on every release. */
void ari_store_settle(ari_store *s);

/* One write transaction (BEGIN IMMEDIATE ... COMMIT). */
int ari_store_begin(ari_store *s, ari_error *err);
int ari_store_commit(ari_store *s, ari_error *err);
void ari_store_rollback(ari_store *s);

/* ---- traces ---- */
typedef struct ari_trace_filter {
    const char *kind;   /* NULL for any */
    const char *name;   /* case-insensitive substring, NULL for any */
    const char *sort;   /* created_at, -created_at, name, -name, bytes, -bytes */
    int64_t limit;
    int64_t offset;
} ari_trace_filter;

/* Returns 0 and a JSON array of trace objects (without files and summary). */
int ari_traces_list(ari_store *s, const ari_trace_filter *f, char **json_out,
                    int64_t *total, ari_error *err);
/* Returns 0 and a JSON object, 1 if there is no such trace, -1 on error. */
int ari_traces_get(ari_store *s, int64_t id, char **json_out, ari_error *err);
/* Labels a task trace's times with unit (the caller checked it: s, ms,
 * us, ns): its time_unit and summary, time_unit_source "set by the user";
 * nothing is rescaled. Drops the trace's cached analyses. Returns 0, 1 if
 * absent, -1 with err set (ARI_E_INVALID_PARAMETER for a trace of another
 * kind, whose unit its format fixes). */
int ari_traces_set_time_unit(ari_store *s, int64_t id, const char *unit, ari_error *err);
/* NULL fields are left unchanged. Returns 0, 1 if absent, -1 on error. */
int ari_traces_update(ari_store *s, int64_t id, const char *name,
                      const char *description, ari_error *err);
int ari_traces_delete(ari_store *s, int64_t id, ari_error *err);

/* ---- jobs ---- */
int ari_jobs_create(ari_store *s, const char *kind, const char *params_json,
                    int64_t *id_out, ari_error *err);
int ari_jobs_set_running(ari_store *s, int64_t id, ari_error *err);
/* Final state. For success, call inside the import transaction so that the
 * trace and its job's status commit together. Only the job's owner (this
 * process, the one that created or claimed it) finishes it: a job another
 * replica took over is an error (ARI_E_DB) and stays as it is. */
int ari_jobs_finish(ari_store *s, int64_t id, int succeeded, const char *trace_ids_json,
                    const char *error_code, const char *error_message, ari_error *err);
int ari_jobs_get(ari_store *s, int64_t id, char **json_out, ari_error *err);
int ari_jobs_list(ari_store *s, int64_t limit, int64_t offset, char **json_out,
                  int64_t *total, ari_error *err);
/* Marks queued or running jobs whose owner process is gone as failed
 * ("interrupted"); their ids go to ids_out (caller frees). */
int ari_jobs_fail_orphans(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err);

/* ---- tokens ---- */
typedef enum ari_scope {
    ARI_SCOPE_NONE = 0,
    ARI_SCOPE_READ = 1,
    ARI_SCOPE_WRITE = 2,
    ARI_SCOPE_ADMIN = 3
} ari_scope;

#define ARI_TOKEN_SECRET_MAX 80

const char *ari_scope_name(ari_scope scope);
int ari_scope_parse(const char *name, ari_scope *out);
/* Creates a token; its secret ("ari_" + 64 hex digits) is written to
 * secret_out and never stored, only its SHA-256. */
int ari_tokens_create(ari_store *s, const char *name, ari_scope scope,
                      char secret_out[ARI_TOKEN_SECRET_MAX], int64_t *id_out, ari_error *err);
/* ari_tokens_create for a token that a request no token authenticated asked
 * for (the server ran without auth): it is marked created_without_auth
 * (sql/007_token_origin.sql), and a server with auth refuses it. */
int ari_tokens_create_unauthenticated(ari_store *s, const char *name, ari_scope scope,
                                      char secret_out[ARI_TOKEN_SECRET_MAX], int64_t *id_out,
                                      ari_error *err);
/* Returns 0 and the scope of a valid (unrevoked) token, 1 if not valid. */
int ari_tokens_lookup(ari_store *s, const char *secret, ari_scope *scope_out,
                      int64_t *id_out, ari_error *err);
/* ari_tokens_lookup that also tells whether the token was created without
 * auth (*without_auth_out = 1). */
int ari_tokens_lookup_origin(ari_store *s, const char *secret, ari_scope *scope_out, int64_t *id_out,
                             int *without_auth_out, ari_error *err);
int ari_tokens_touch(ari_store *s, int64_t id);
int ari_tokens_list(ari_store *s, char **json_out, ari_error *err);
/* Returns 0, 1 if there is no such token, -1 on error. */
int ari_tokens_revoke(ari_store *s, int64_t id, ari_error *err);
/* JSON object of one token (no secret). 0, 1 if absent, -1 on error. */
int ari_tokens_get(ari_store *s, int64_t id, char **json_out, ari_error *err);

#endif
