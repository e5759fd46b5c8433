/* hpctoolkit_db.h: HPCToolkit's current database (format 4.x: meta.db,
 * profile.db, trace.db; see FORMATS.md of a database), read in two ways:
 *
 * - as a call-graph profile (meta.db + profile.db): one node per calling
 *   context, named by its function ("main", "PMPI_Send [libmpi.so]"), loops
 *   "Loop@<file>:<line>", source lines "<file>:<line>", entry points by
 *   their pretty name ("main thread"); single instructions are folded into
 *   their parent. Metric M's "execution" values are the inclusive metric
 *   ("CPUTIME (sec)" -> "time (inc)", others "M (inc)"), from which the
 *   profile writer derives the exclusive one ("time", "M"): hpcprof gives
 *   "point" (exclusive) values to leaf contexts that meta.db does not list,
 *   so they serve only for a metric without execution values (as "M",
 *   summed over folded instructions). A proc per non-summary profile: rank and thread from
 *   its identifier tuple (RANK, THREAD; 0 when absent). Node ids are the
 *   databases's context ids.
 * - as an event trace (trace.db, with meta.db and profile.db): each trace
 *   line's samples (timestamp, context) become Enter/Leave events of the
 *   call path differences between consecutive samples, as Pipit does:
 *   source lines and instructions stand for their enclosing function or
 *   loop; context 0 (not running) leaves everything; the last sample's path
 *   is left at the database's largest timestamp. Times are ns from the
 *   smallest timestamp.
 *
 * Every offset, size and count is checked against the file before use.
 */
#ifndef ARIADNE_HPCTOOLKIT_DB_H
#define ARIADNE_HPCTOOLKIT_DB_H

#include <stddef.h>

#include "ingest/event_sink.h"
#include "ingest/profile_sink.h"
#include "util/error.h"

/* 1 if the head of a file is an HPCToolkit 4.x meta.db ("HPCTOOLKITmeta"). */
int ari_hpctoolkit_db_probe(const char *head, size_t n);

/* The profile of meta.db + profile.db (paths, and names for messages). */
int ari_hpctoolkit_db_read(const char *meta_path, const char *meta_name, const char *profile_path,
                           const char *profile_name, const ari_profile_sink *k, ari_error *err);

/* The event trace of the database in `dir` (meta.db, profile.db, trace.db). */
int ari_hpctoolkit_db_trace(const char *dir, const ari_event_sink *k, ari_error *err);

/* The same from bytes in memory (fuzzing, tests); trace may be NULL for
 * the profile only, k or ek may be NULL to skip that part. */
int ari_hpctoolkit_db_read_mem(const unsigned char *meta, size_t meta_n, const unsigned char *prof,
                               size_t prof_n, const unsigned char *trace, size_t trace_n,
                               const ari_profile_sink *k, const ari_event_sink *ek, ari_error *err);

#endif
