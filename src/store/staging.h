/* staging.h: imports parse outside the shared database's write lock.
 *
 * An import writes its traces into a private staging database, a file next
 * to the shared one with the same schema, where it may take minutes without
 * blocking anybody. Publishing copies the staged rows into the shared
 * database in one transaction that holds the write lock only for the copy:
 * trace ids are renumbered after the shared database's largest, so two
 * imports staged at once (the server's and an `ariadned import` beside it)
 * never collide. The caller may add its own writes (the job's final state)
 * to the publishing transaction before it commits.
 *
 *     g = ari_staging_open(shared, err);
 *     ... write traces into ari_staging_store(g) inside one transaction ...
 *     ari_staging_publish(g, shared, &offset, err);   // BEGIN IMMEDIATE + copy
 *     ... more writes on `shared` ...
 *     ari_staging_end(g, shared, commit, err);         // COMMIT or ROLLBACK
 *     ari_staging_close(g);                            // removes the file
 */
#ifndef ARIADNE_STAGING_H
#define ARIADNE_STAGING_H

#include <stdint.h>

#include "store/store.h"

typedef struct ari_staging ari_staging;

/* Creates an empty staging database next to `shared`'s file. */
ari_staging *ari_staging_open(ari_store *shared, ari_error *err);
/* The staging database's connection, to write traces into. */
ari_store *ari_staging_store(ari_staging *g);
/* Closes the staging connection, attaches its file to `shared`, opens a
 * write transaction there and copies every staged row; staged trace id i
 * becomes i + *offset_out. On failure nothing is left open on `shared`. */
int ari_staging_publish(ari_staging *g, ari_store *shared, int64_t *offset_out, ari_error *err);
/* Commits (commit != 0) or rolls back the publishing transaction and
 * detaches the staging file. Returns -1 if the commit failed (then rolled back). */
int ari_staging_end(ari_staging *g, ari_store *shared, int commit, ari_error *err);
/* Closes whatever is open and deletes the staging file. NULL is fine. */
void ari_staging_close(ari_staging *g);
/* Deletes staging files of `db_path` left by processes that are gone
 * (an import killed with -9). Returns how many were removed. */
int ari_staging_sweep(const char *db_path);
/* The same for the staging files of PostgreSQL databases' imports, which
 * lie in $TMPDIR. */
int ari_staging_sweep_tmp(void);

#endif
