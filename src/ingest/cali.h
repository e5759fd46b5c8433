/* cali.h: Caliper's native .cali files as call-graph profiles.
 *
 * A .cali file is text, one record per line: "node" records build a tree
 * of (attribute, value) nodes (ids 0-10 are Caliper's implicit bootstrap
 * nodes: the types and the name/type/prop meta-attributes), "ctx" records
 * are snapshots that reference nodes and carry immediate values, and
 * "globals" records are run metadata. "\," and "\=" escape the separators.
 *
 * As Hatchet's CaliperNativeReader (over caliperreader): a snapshot's path
 * is the values of its nested attributes (region, function, loop, ...)
 * from the root; only snapshots with a path and with spot.channel absent
 * or "regionprofile" count; CUPTI kernel and memcpy activities and sampled
 * functions become a last path element; metrics are the numeric value
 * attributes (hidden ones and the "Node order" slot excepted), named by
 * their alias (e.g. "Total time") or, for sum#time.duration and
 * inclusive#sum#time.duration, "time" and "time (inc)"; mpi.rank gives
 * the process; values of one (path, rank) add up.
 */
#ifndef ARIADNE_CALI_H
#define ARIADNE_CALI_H

#include <stddef.h>

#include "ingest/profile_sink.h"
#include "util/error.h"

/* 1 if the head of a file is a .cali stream ("__rec=" lines). */
int ari_cali_probe(const char *head, size_t n);

int ari_cali_read(const char *path, const char *name, const ari_profile_sink *k, ari_error *err);
/* The same over a memory buffer (fuzzing, tests). */
int ari_cali_read_mem(const char *data, size_t len, const char *name, const ari_profile_sink *k,
                      ari_error *err);

#endif
