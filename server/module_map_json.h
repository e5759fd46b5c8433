/* module_map_json.h: reading a CallFlow module map (analysis/supergraph.h)
 * from the JSON text of the supergraph endpoint's map= parameter. The
 * analysis takes the built ari_module_map; only this file sees the JSON. */
#ifndef ARIADNE_MODULE_MAP_JSON_H
#define ARIADNE_MODULE_MAP_JSON_H

#include "analysis/supergraph.h"
#include "util/error.h"

/* From JSON: {"MPI": ["^MPI_", "^PMPI_"], "Lulesh": "^Calc"} (rules in
 * object order) or [{"module": "MPI", "pattern": "^MPI_"}, ...]. Returns a
 * map the caller frees with ari_module_map_free, or NULL with err set
 * (invalid_parameter naming the bad rule or pattern, or nomem). */
ari_module_map *ari_module_map_from_json(const char *json, ari_error *err);

#endif
