/* pg_copy.h: bulk loading into PostgreSQL with COPY ... FROM STDIN (text
 * format), row by row, the values of each row given one at a time. */
#ifndef ARIADNE_PG_COPY_H
#define ARIADNE_PG_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "store/pg_backend.h"

typedef struct ari_pg_copy ari_pg_copy;

/* Starts `COPY table (columns) FROM STDIN` on c (columns: a list of
 * quoted names, "a", "b"). NULL with c's error set. */
ari_pg_copy *ari_pg_copy_begin(ari_pg_conn *c, const char *table, const char *columns);
void ari_pg_copy_int(ari_pg_copy *cp, int64_t v);
void ari_pg_copy_real(ari_pg_copy *cp, double v);
void ari_pg_copy_text(ari_pg_copy *cp, const char *s, size_t n);
void ari_pg_copy_blob(ari_pg_copy *cp, const void *p, size_t n);
void ari_pg_copy_null(ari_pg_copy *cp);
/* Ends the current row: ARI_OK, or an error code (c's error says it). */
int ari_pg_copy_row_end(ari_pg_copy *cp);
/* Ends the COPY (ok: load what was sent; else abandon it) and frees cp:
 * ARI_OK and *rows, or an error code. */
int ari_pg_copy_end(ari_pg_copy *cp, int ok, int64_t *rows);

#endif
