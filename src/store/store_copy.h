/* store_copy.h: copying a whole ariadne database into another, of either
 * backend (SQLite -> PostgreSQL, PostgreSQL -> SQLite, or the same kind):
 * what `ariadned copy` runs. Every table of the source is copied, parents
 * before the tables that reference them, with its ids kept, in one
 * transaction on the destination; rows are streamed, never a whole table
 * in memory. */
#ifndef ARIADNE_STORE_COPY_H
#define ARIADNE_STORE_COPY_H

#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

/* Called once a table is copied, with its name and its number of rows. */
typedef void (*ari_copy_progress)(const char *table, int64_t rows, void *ctx);

/* 0 when dst holds no trace, job, token or ensemble; 1 and *what_out (a
 * malloc'd text, "2 traces, 1 token") when it does; -1 with err set. */
int ari_store_copy_check_empty(ari_store *dst, char **what_out, ari_error *err);

/* Copies every table of src into dst, which must be empty (else -1 with
 * err saying what it holds, ARI_E_INVALID_PARAMETER): columns are matched
 * by name (a column only one side has is left to its default or dropped),
 * values keep their types. On PostgreSQL the identity sequences then move
 * past the copied ids. All or nothing: 0, or -1 with err set and dst
 * unchanged. progress may be NULL. */
int ari_store_copy(ari_store *src, ari_store *dst, ari_copy_progress progress, void *ctx, ari_error *err);

#endif
