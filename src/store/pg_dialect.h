/* pg_dialect.h: the store's shared SQL text, written for SQLite, in
 * PostgreSQL's dialect: the one place where the two dialects' differences
 * that can be rewritten word by word are rewritten (pg_dialect.c). */
#ifndef ARIADNE_PG_DIALECT_H
#define ARIADNE_PG_DIALECT_H

/* A malloc'd PostgreSQL text for sql: `?N` parameters as `$N` (a bare `?`
 * numbered after the highest so far, as SQLite does), SQLite's functions
 * and forms as PostgreSQL's. *nparams (when not NULL) gets the highest
 * parameter number. NULL when out of memory. */
char *ari_pg_translate(const char *sql, int *nparams);

#endif
