/* hatchet_json.h: Hatchet's own JSON formats as call-graph profiles.
 *
 * Graph + dataframe (GraphFrame.to_json / from_json): {"graph": [{"<id>":
 * {"data": {"name", "type", ...}, "children": [ids]}}, ...],
 * "dataframe_indices": ["node"(, "rank"(, "thread"))], "dataframe": [rows
 * with "node", metrics, ...], "inclusive_metrics", "exclusive_metrics"}.
 *
 * Literal (GraphFrame.from_literal, and the canonical tree format of the
 * CallFlow spec): a list of roots {"frame": {"name", "type", "file",
 * "line", "module"}, "metrics": {"time (inc)": v, "time": v}, "children":
 * [...]}; a metric value may also be a list, one value per rank.
 * Metrics whose name ends in "(inc)" are inclusive.
 */
#ifndef ARIADNE_HATCHET_JSON_H
#define ARIADNE_HATCHET_JSON_H

#include <stddef.h>

#include "ingest/profile_sink.h"
#include "util/error.h"

/* 1 graph+dataframe, 2 literal, 0 neither (from a file's head). */
int ari_hatchet_json_probe(const char *head, size_t n);

int ari_hatchet_json_read(const char *path, const char *name, const ari_profile_sink *k, ari_error *err);
int ari_hatchet_json_read_mem(const char *data, size_t len, const char *name, const ari_profile_sink *k,
                              ari_error *err);

#endif
