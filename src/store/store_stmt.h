/* store_stmt.h: a prepared statement of either store backend, and the
 * calls that bind, step and read it.
 *
 * The store's files are written once for both backends: they step an
 * ari_stmt and read its columns with the functions below, which pass
 * through to SQLite (the embedded default) or to the PostgreSQL backend
 * (pg_backend.c, over libpq). Statements keep SQLite's `?N` parameters in
 * their shared SQL text; the PostgreSQL backend numbers them `$N` when it
 * prepares them. Step results and column types keep SQLite's codes under
 * ARI_ names, so that a row loop reads the same on both backends. */
#ifndef ARIADNE_STORE_STMT_H
#define ARIADNE_STORE_STMT_H

#include <sqlite3.h>
#include <stdint.h>

/* What ari_step returns, and what ari_col_type says. */
enum {
    ARI_OK = SQLITE_OK,
    ARI_ERROR = SQLITE_ERROR,
    ARI_BUSY = SQLITE_BUSY,
    ARI_ROW = SQLITE_ROW,
    ARI_DONE = SQLITE_DONE,
    ARI_NOMEM = SQLITE_NOMEM,
    ARI_UNAVAILABLE = SQLITE_CANTOPEN, /* PostgreSQL: a server cannot be reached (SQLSTATE class 08) */
    ARI_INTEGER = SQLITE_INTEGER,
    ARI_FLOAT = SQLITE_FLOAT,
    ARI_TEXT = SQLITE_TEXT,
    ARI_BLOB = SQLITE_BLOB,
    ARI_NULL = SQLITE_NULL,
};

typedef struct ari_pg_stmt ari_pg_stmt;

/* Exactly one of the two is set. */
typedef struct ari_stmt {
    sqlite3_stmt *lite;
    ari_pg_stmt *pg;
} ari_stmt;

/* ---- the PostgreSQL backend's side (pg_backend.c) ---- */
int ari_pg_step(ari_pg_stmt *st);
void ari_pg_reset(ari_pg_stmt *st);
void ari_pg_clear_bindings(ari_pg_stmt *st);
int ari_pg_bind_int64(ari_pg_stmt *st, int i, int64_t v);
int ari_pg_bind_double(ari_pg_stmt *st, int i, double v);
int ari_pg_bind_text(ari_pg_stmt *st, int i, const char *p, int n);
int ari_pg_bind_blob(ari_pg_stmt *st, int i, const void *p, int64_t n);
int ari_pg_bind_null(ari_pg_stmt *st, int i);
int ari_pg_col_type(ari_pg_stmt *st, int i);
int64_t ari_pg_col_int64(ari_pg_stmt *st, int i);
double ari_pg_col_double(ari_pg_stmt *st, int i);
const unsigned char *ari_pg_col_text(ari_pg_stmt *st, int i);
const void *ari_pg_col_blob(ari_pg_stmt *st, int i);
int ari_pg_col_bytes(ari_pg_stmt *st, int i);
int ari_pg_col_count(ari_pg_stmt *st);
void ari_pg_stream(ari_pg_stmt *st);

/* ---- stepping ---- */

/* ARI_ROW with a row to read, ARI_DONE, or an error code (the store's
 * ari_store_fail then says what). */
static inline int ari_step(ari_stmt *st)
{
    return st->lite ? sqlite3_step(st->lite) : ari_pg_step(st->pg);
}

/* Marks a query whose rows are many and are read in one loop: PostgreSQL
 * then sends them one at a time (single-row mode) instead of the whole
 * result at the first step, and the connection runs no other statement
 * until the loop ends or the statement is reset. SQLite reads rows so
 * anyway. */
static inline void ari_stream(ari_stmt *st)
{
    if (st->pg)
        ari_pg_stream(st->pg);
}

/* Ready to step again from the start; bindings are kept. */
static inline void ari_reset(ari_stmt *st)
{
    if (st->lite)
        sqlite3_reset(st->lite);
    else
        ari_pg_reset(st->pg);
}

static inline void ari_clear_bindings(ari_stmt *st)
{
    if (st->lite)
        sqlite3_clear_bindings(st->lite);
    else
        ari_pg_clear_bindings(st->pg);
}

/* ---- binding parameter i (from 1); ARI_OK or an error code ---- */

static inline int ari_bind_int64(ari_stmt *st, int i, int64_t v)
{
    return st->lite ? sqlite3_bind_int64(st->lite, i, v) : ari_pg_bind_int64(st->pg, i, v);
}

static inline int ari_bind_int(ari_stmt *st, int i, int v)
{
    return ari_bind_int64(st, i, v);
}

static inline int ari_bind_double(ari_stmt *st, int i, double v)
{
    return st->lite ? sqlite3_bind_double(st->lite, i, v) : ari_pg_bind_double(st->pg, i, v);
}

static inline int ari_bind_null(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_bind_null(st->lite, i) : ari_pg_bind_null(st->pg, i);
}

/* Text of n bytes (n < 0: up to its NUL), copied. */
static inline int ari_bind_text_copy(ari_stmt *st, int i, const char *p, int n)
{
    return st->lite ? sqlite3_bind_text(st->lite, i, p, n, SQLITE_TRANSIENT) : ari_pg_bind_text(st->pg, i, p, n);
}

/* Text that stays unchanged until the statement is stepped or rebound. */
static inline int ari_bind_text_static(ari_stmt *st, int i, const char *p, int n)
{
    return st->lite ? sqlite3_bind_text(st->lite, i, p, n, SQLITE_STATIC) : ari_pg_bind_text(st->pg, i, p, n);
}

/* n bytes at p, unchanged until the statement is stepped or rebound. */
static inline int ari_bind_blob(ari_stmt *st, int i, const void *p, int64_t n)
{
    return st->lite ? sqlite3_bind_blob64(st->lite, i, p, (sqlite3_uint64)n, SQLITE_STATIC)
                    : ari_pg_bind_blob(st->pg, i, p, n);
}

/* ---- reading column i (from 0) of the current row ---- */

static inline int ari_col_type(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_type(st->lite, i) : ari_pg_col_type(st->pg, i);
}

static inline int64_t ari_col_int64(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_int64(st->lite, i) : ari_pg_col_int64(st->pg, i);
}

static inline int ari_col_int(ari_stmt *st, int i)
{
    return (int)ari_col_int64(st, i);
}

static inline double ari_col_double(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_double(st->lite, i) : ari_pg_col_double(st->pg, i);
}

/* NUL-terminated, valid until the next step or reset; NULL for a NULL. */
static inline const unsigned char *ari_col_text(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_text(st->lite, i) : ari_pg_col_text(st->pg, i);
}

static inline const void *ari_col_blob(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_blob(st->lite, i) : ari_pg_col_blob(st->pg, i);
}

/* The size in bytes of a blob or text column (after ari_col_blob/text). */
static inline int ari_col_bytes(ari_stmt *st, int i)
{
    return st->lite ? sqlite3_column_bytes(st->lite, i) : ari_pg_col_bytes(st->pg, i);
}

static inline int ari_col_count(ari_stmt *st)
{
    return st->lite ? sqlite3_column_count(st->lite) : ari_pg_col_count(st->pg);
}

#endif
