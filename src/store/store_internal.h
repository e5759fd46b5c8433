/* store_internal.h: what the store's own files share: the connection and a
 * cache of prepared statements keyed by their SQL text. */
#ifndef ARIADNE_STORE_INTERNAL_H
#define ARIADNE_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"

typedef struct ari_cached_stmt {
    const char *sql;
    sqlite3_stmt *stmt;
} ari_cached_stmt;

struct ari_store {
    sqlite3 *db;
    char *path;
    ari_cached_stmt *cache; /* grows to the number of distinct statements */
    int ncache, cache_cap;
    int hint[256];          /* cache index + 1 by a hash of the SQL's address */
};

/* A reset prepared statement for `sql` (a string literal: the cache keys on
 * its address), or NULL with err set. */
sqlite3_stmt *ari_store_stmt(ari_store *s, const char *sql, ari_error *err);
/* Sets err from the connection's last error; returns -1. */
int ari_store_fail(ari_store *s, ari_error *err, const char *what);
/* Runs a statement that yields one text column in one row (e.g. a JSON
 * document built by SQLite); *out is malloc'd. Returns 0, 1 if no row. */
int ari_store_query_text(ari_store *s, sqlite3_stmt *st, char **out, ari_error *err);
int ari_store_exec(ari_store *s, const char *sql, ari_error *err);
/* Every write that is not part of an import goes through here: steps `st`
 * to its end and resets it whatever happened, so a failed statement (say
 * SQLITE_BUSY) never keeps its connection's implicit transaction open.
 * Returns 0, or -1 with err set ("busy" for a lock held too long). */
int ari_store_write(ari_store *s, sqlite3_stmt *st, const char *what, ari_error *err);
/* Busy timeout of this connection in ms; -1 restores the default. */
void ari_store_set_busy_timeout(ari_store *s, int ms);

#endif
