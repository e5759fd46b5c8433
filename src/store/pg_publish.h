/* pg_publish.h: an import staged in SQLite (staging.h) published into a
 * PostgreSQL database. */
#ifndef ARIADNE_PG_PUBLISH_H
#define ARIADNE_PG_PUBLISH_H

#include <stdint.h>

#include "store/store.h"

/* Opens a transaction on `shared` (a PostgreSQL store) and copies every
 * table of `stage` into it, trace ids moved past the largest (*offset_out
 * gets the shift); the caller commits or rolls back (ari_staging_end). On
 * failure nothing is left open on `shared`. */
int ari_pg_publish(ari_store *stage, ari_store *shared, int64_t *offset_out, ari_error *err);

#endif
