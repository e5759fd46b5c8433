/* import_outcome.h: what an import records besides its traces (sql/011):
 * the files it skipped, and the stored traces that hold the very same
 * files (same SHA-256) as a trace being imported. Implemented in
 * store_jobs.c (the job's lists) and store_traces.c (digest look-ups). */
#ifndef ARIADNE_IMPORT_OUTCOME_H
#define ARIADNE_IMPORT_OUTCOME_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

/* Appends {"name", "reason"} to job id's skipped list. */
int ari_jobs_add_skipped(ari_store *s, int64_t id, const char *name, const char *reason, ari_error *err);
/* Appends {"trace_id", "name", "upload"} to job id's duplicates list:
 * trace_id is the stored trace (name: its name now), upload the name the
 * new trace would have had. */
int ari_jobs_add_duplicate(ari_store *s, int64_t id, int64_t trace_id, const char *upload, ari_error *err);

/* The digest of trace id (traces.sha256: its file's SHA-256, or for a
 * bundle the SHA-256 of its files' sorted digests) into out (65 bytes);
 * "" if the trace has no files. Returns 0, 1 if absent, -1 on error. */
int ari_traces_digest(ari_store *s, int64_t id, char out[65], ari_error *err);
/* The oldest stored trace whose digest is `digest` (non-empty): its id and
 * name (cut to name_size, valid UTF-8 as stored). Returns 0 if found, 1
 * if none, -1 on error. */
int ari_traces_find_digest(ari_store *s, const char *digest, int64_t *id, char *name, size_t name_size,
                           ari_error *err);

#endif
