/* ensemble_cache.h: the loaded ensembles of this process (ensemble_load.c's
 * cache): for a recently used selection of members, their CCTs (summaries,
 * or whole when per-rank values were asked) and their unified CCT, so that
 * the next ensemble request skips reading 300 profiles and unifying them.
 *
 * An entry is keyed by the full/summary choice and, per selected member,
 * its trace id and stamp (ari_ensemble_member.trace_stamp: created_at and
 * sha256), in member order: adding, removing or re-importing a member
 * changes the key, so a stale entry is never used; it ages out. Entries are
 * shared read-only between threads and reference counted (acquire, read,
 * release); the least recently used ones beyond the memory budget are
 * dropped once nobody holds them. One budget for the process (replicas
 * each keep their own). */
#ifndef ARIADNE_ENSEMBLE_CACHE_H
#define ARIADNE_ENSEMBLE_CACHE_H

#include <stddef.h>

#include "analysis/ensemble_cct.h"
#include "dbpool.h"
#include "store/ensemble_profiles.h"
#include "store/store.h"
#include "store/store_ensembles.h"
#include "util/error.h"

typedef struct ens_cached ens_cached;

/* The selected members' CCTs and unified CCT, loaded (and cached) when
 * absent; NULL with err set on failure. runs/nruns and full as
 * ari_ensemble_profiles_load; s is the request's connection, pool (or
 * NULL) where a spare one is borrowed, if free, to load half the members
 * in parallel. *prof and *ecct are filled with read-only views valid until
 * ens_cache_release. */
ens_cached *ens_cache_acquire(ari_store *s, ari_dbpool *pool, const ari_ensemble *e, const int64_t *runs,
                              int nruns, int full, ari_ensemble_profiles *prof, ari_ecct *ecct, ari_error *err);
void ens_cache_release(ens_cached *c);
/* The budget in bytes (default 512 MiB); 0 disables caching. */
void ens_cache_set_budget(size_t bytes);
/* Drops every entry nobody holds (tests, shutdown). */
void ens_cache_clear(void);

#endif
