/* pg_backend.h: the PostgreSQL backend of the store, over libpq: a
 * connection, its statements (store_stmt.h's ari_pg_* calls) and what the
 * store asks of a connection besides (errors, transactions, ids). The SQL
 * is the store's shared text; `?N` parameters become `$N` here. */
#ifndef ARIADNE_PG_BACKEND_H
#define ARIADNE_PG_BACKEND_H

#include <stdint.h>

#include "store/store_stmt.h"
#include "util/error.h"

typedef struct ari_pg_conn ari_pg_conn;

/* 1 when `db` names a PostgreSQL database (postgresql:// or postgres://). */
int ari_pg_is_url(const char *db);

/* Connects to url; NULL with err set ("cannot connect to ...: why"). */
ari_pg_conn *ari_pg_open(const char *url, ari_error *err);
void ari_pg_close(ari_pg_conn *c);

/* A statement for sql (`?N` parameters), or NULL with the connection's
 * error set. Prepared on the server at its first step. */
ari_pg_stmt *ari_pg_prepare(ari_pg_conn *c, const char *sql);
void ari_pg_finalize(ari_pg_stmt *st);

/* Runs one or more statements without parameters, written in PostgreSQL's
 * own dialect (the migrations of sql/pg/, functions.sql, the store's
 * partition and transaction commands): not translated. ARI_OK or an error
 * code. */
int ari_pg_exec(ari_pg_conn *c, const char *sql);

/* The last error: ARI_BUSY (a lock or statement timeout, a serialization
 * failure), ARI_NOMEM, or ARI_ERROR, and its message. */
int ari_pg_errcode(const ari_pg_conn *c);
const char *ari_pg_errmsg(const ari_pg_conn *c);

/* lastval() after an INSERT that drew an identity; the rows the last
 * command changed. */
int64_t ari_pg_last_insert_id(ari_pg_conn *c);
int64_t ari_pg_changes(const ari_pg_conn *c);

/* 1 inside a transaction block (or a failed one). */
int ari_pg_in_transaction(const ari_pg_conn *c);

/* How long a statement waits for a lock (lock_timeout) before failing with
 * ARI_BUSY. */
void ari_pg_set_busy_timeout(ari_pg_conn *c, int ms);

/* For the other PostgreSQL files of the store (pg_copy.c): the libpq
 * connection (a PGconn *), and recording an error (returns code). */
void *ari_pg_conn_handle(ari_pg_conn *c);
int ari_pg_conn_fail(ari_pg_conn *c, int code, const char *message);

#endif
