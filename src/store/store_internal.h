/* store_internal.h: what the store's own files share: the connection (an
 * SQLite database or a PostgreSQL one), a cache of prepared statements
 * keyed by their SQL text, and the small helpers every query and writer
 * uses to bind, step and read them (store_stmt.h for the statements). */
#ifndef ARIADNE_STORE_INTERNAL_H
#define ARIADNE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_stmt.h"

typedef struct ari_cached_stmt {
    const char *sql;
    ari_stmt *stmt;
} ari_cached_stmt;

typedef struct ari_pg_conn ari_pg_conn;

/* Exactly one of db and pg is open. */
struct ari_store {
    sqlite3 *db;            /* the SQLite backend */
    ari_pg_conn *pg;        /* the PostgreSQL backend (pg_backend.c) */
    char *path;             /* the file, or the postgresql:// URL without its password */
    ari_cached_stmt *cache; /* grows to the number of distinct statements */
    size_t ncache, cache_cap;
    int hint[256];          /* cache index + 1 by a hash of the SQL's address */
};

/* A reset prepared statement for `sql` (a string literal: the cache keys on
 * its address), or NULL with err set. */
ari_stmt *ari_store_stmt(ari_store *s, const char *sql, ari_error *err);
/* An owned statement for sql of any lifetime (a text built at run time),
 * or NULL with err set (err may be NULL); ari_stmt_finalize frees it. */
ari_stmt *ari_store_prepare(ari_store *s, const char *sql, ari_error *err);
void ari_stmt_finalize(ari_stmt *st);
/* The id of the row the connection's last INSERT added (its INTEGER
 * PRIMARY KEY, an identity column in PostgreSQL). */
int64_t ari_store_last_insert_id(ari_store *s);
/* How many rows the connection's last INSERT, UPDATE or DELETE changed. */
int64_t ari_store_changes(ari_store *s);
/* Sets err from the connection's last error; returns -1. */
int ari_store_fail(ari_store *s, ari_error *err, const char *what);
/* Runs a statement that yields one text column in one row (e.g. a JSON
 * document built by SQLite); *out is malloc'd ("null" for a NULL).
 * Returns 0, 1 if no row. */
int ari_store_query_text(ari_store *s, ari_stmt *st, char **out, ari_error *err);
int ari_store_exec(ari_store *s, const char *sql, ari_error *err);
/* Every write that is not part of an import goes through here: steps `st`
 * to its end and resets it whatever happened, so a failed statement (say
 * SQLITE_BUSY) never keeps its connection's implicit transaction open.
 * Returns 0, or -1 with err set ("busy" for a lock held too long). */
int ari_store_write(ari_store *s, ari_stmt *st, const char *what, ari_error *err);
/* Busy timeout of this connection in ms; -1 restores the default. */
void ari_store_set_busy_timeout(ari_store *s, int ms);

/* ---- binding and stepping ---- */

/* One value for a statement parameter; make it with the functions below. */
typedef struct ari_arg {
    int type;      /* ARI_INTEGER, ARI_FLOAT, ARI_TEXT, ARI_BLOB or ARI_NULL */
    int64_t i;     /* an integer, or a blob's size in bytes */
    double r;
    const void *p; /* text: copied, as valid UTF-8 (ari_store_bind_text) unless raw; blob: not copied */
    int raw;
} ari_arg;

static inline ari_arg ari_arg_int(int64_t v)
{
    return (ari_arg){.type = ARI_INTEGER, .i = v};
}

static inline ari_arg ari_arg_real(double v)
{
    return (ari_arg){.type = ARI_FLOAT, .r = v};
}

/* NULL text binds NULL. */
static inline ari_arg ari_arg_text(const char *s)
{
    return (ari_arg){.type = s ? ARI_TEXT : ARI_NULL, .p = s};
}

/* Text bound byte for byte, not repaired: cache keys, and the names and
 * messages that the metadata tables give back as they were given. */
static inline ari_arg ari_arg_raw_text(const char *s)
{
    return (ari_arg){.type = s ? ARI_TEXT : ARI_NULL, .p = s, .raw = 1};
}

/* n bytes at p, which must stay unchanged until the statement is stepped. */
static inline ari_arg ari_arg_blob(const void *p, int64_t n)
{
    return (ari_arg){.type = ARI_BLOB, .i = n, .p = p};
}

static inline ari_arg ari_arg_null(void)
{
    return (ari_arg){.type = ARI_NULL};
}

/* The number of elements of an array of ari_arg. */
#define ARI_NARGS(args) ((int)(sizeof(args) / sizeof((args)[0])))

/* Binds args[0..n) to ?1..?n of st: 0, or -1 with err set. */
int ari_store_bind_args(ari_store *s, ari_stmt *st, const ari_arg *args, int n, ari_error *err);
/* The cached statement for sql (see ari_store_stmt) with ?1..?n bound to
 * args[0..n), or NULL with err set. */
ari_stmt *ari_store_bound(ari_store *s, const char *sql, const ari_arg *args, int n, ari_error *err);
/* The cached statement for sql with its one parameter ?1 bound to an id
 * (of a trace, job or token), or NULL with err set. */
ari_stmt *ari_store_stmt_id(ari_store *s, const char *sql, int64_t id, ari_error *err);
/* Runs sql with args to its end (ari_store_write): 0, or -1 with err set
 * ("what: message"). */
int ari_store_run(ari_store *s, const char *sql, const ari_arg *args, int n, const char *what,
                  ari_error *err);
/* This process's key (util/proc.h ari_process_key), as the jobs it
 * creates or claims hold it in owner_key (store_jobs.c). */
const char *ari_jobs_owner_key(void);

/* ari_store_write, then whether the statement changed a row: 0 if it did,
 * 1 if it matched none (no such id), -1 with err set. */
int ari_store_write_changed(ari_store *s, ari_stmt *st, const char *what, ari_error *err);

/* Steps a query to its first row. Returns 0 with the row to read (the
 * caller resets st when done), 1 if there is none, -1 with err set ("what:
 * message"); st is reset in those two cases. */
int ari_store_step_row(ari_store *s, ari_stmt *st, const char *what, ari_error *err);
/* Ends a loop `while ((rc = ari_step(st)) == ARI_ROW)`: resets st and
 * returns 0 if rc is ARI_DONE, else -1 with err set ("what: message"). */
int ari_store_rows_end(ari_store *s, ari_stmt *st, int rc, const char *what, ari_error *err);
/* A query yielding one integer in its first column: 0 and *out, 1 if no
 * row (*out unchanged), -1 with err set. st is reset. */
int ari_store_query_int64(ari_store *s, ari_stmt *st, int64_t *out, const char *what, ari_error *err);
/* A query yielding one text: 0 and *out (malloc'd; a copy of if_null for a
 * NULL), 1 if no row, -1 with err set. st is reset. */
int ari_store_query_string(ari_store *s, ari_stmt *st, const char *if_null, char **out, const char *what,
                           ari_error *err);

/* Fills one element of a row array from the current row of st: 0, or -1
 * when out of memory. ctx is what ari_store_read_rows was given. */
typedef int (*ari_row_reader)(ari_stmt *st, void *item, const void *ctx);
/* Appends every row of st to the growing array *items (*n elements of
 * `size` bytes): each row gets a new zeroed element, counted before `read`
 * fills it so that the owner's _free releases a partial one. Returns 0, or
 * -1 with err set ("out of memory", or "what: message"); st is reset. */
int ari_store_read_rows(ari_store *s, ari_stmt *st, void **items, size_t *n, size_t size,
                        ari_row_reader read, const void *ctx, const char *what, ari_error *err);

#endif
