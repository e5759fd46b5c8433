/* caliper_json.h: Caliper's JSON outputs as call-graph profiles.
 *
 * json-split (cali-query ... format json-split, the hatchet-region-profile
 * channel): {"data": rows, "columns", "column_metadata", "nodes", and any
 * other key as run metadata}. The reader streams "data" row by row (files
 * hold one row per node and rank, gigabytes for large runs); the other
 * members are small and parsed with jansson. When "data" comes before
 * "columns" (as cali-query writes it) the file is read twice, the second
 * time for the rows only. Column mapping as Hatchet's CaliperReader: the
 * hierarchy is "source.function#callpath.address" if present (kind
 * "function") else "path" (kind "region"); mpi.rank is the rank;
 * sum#time.duration -> "time", inclusive#sum#time.duration -> "time (inc)";
 * rows with a null path are dropped; sampled profiles with
 * sourceloc#cali.sampler.pc get one statement child per file:line when a
 * node has several; "Node order" / min#min#aggregate.slot orders siblings
 * and is not a metric.
 *
 * Caliper JSON record lists (format json): an array of flat objects with a
 * "path" (or source.function#callpath.address) as "a/b/c" and numeric
 * attributes as metrics, optionally mpi.rank.
 */
#ifndef ARIADNE_CALIPER_JSON_H
#define ARIADNE_CALIPER_JSON_H

#include <stddef.h>

#include "ingest/profile_sink.h"
#include "util/error.h"

/* 1 if the head of a file looks like a json-split object, else 0. */
int ari_caliper_json_split_probe(const char *head, size_t n);
/* 1 if it looks like a Caliper record list ([{"path": ...}]), else 0. */
int ari_caliper_json_records_probe(const char *head, size_t n);

int ari_caliper_json_split_read(const char *path, const char *name, const ari_profile_sink *k,
                                ari_error *err);
int ari_caliper_json_records_read(const char *path, const char *name, const ari_profile_sink *k,
                                  ari_error *err);

/* The same over a memory buffer (fuzzing, tests). */
int ari_caliper_json_split_read_mem(const char *data, size_t len, const char *name,
                                    const ari_profile_sink *k, ari_error *err);

/* Hatchet's name for a Caliper metric column: "time", "time (inc)", or the
 * column itself. *inclusive says which variant it is. */
const char *ari_caliper_metric_name(const char *column, int *inclusive);

#endif
