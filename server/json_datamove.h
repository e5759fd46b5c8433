/* json_datamove.h: the JSON documents of the data movement endpoints
 * (docs/api.md), encoded from the store's structs
 * (store/datamove_queries.h) with the arithmetic of
 * analysis/datamove_views.h. Each returns a new document, or NULL when
 * out of memory; the caller dumps it with ari_dm_json_text. */
#ifndef ARIADNE_JSON_DATAMOVE_H
#define ARIADNE_JSON_DATAMOVE_H

#include <jansson.h>

#include "store/datamove_queries.h"

/* GET /traces/{id}/movements: truncated when more than limit. */
json_t *ari_dm_movements_json(const ari_dm_movements *m, int64_t limit);
/* GET /traces/{id}/movement-matrix */
json_t *ari_dm_matrix_json(const ari_dm_window_matrix *m);
/* GET /traces/{id}/clock */
json_t *ari_dm_clock_json(const ari_dm_clock *c);
/* GET /traces/{id}/topology */
json_t *ari_dm_topology_json(const ari_dm_topology *t);
/* GET /traces/{id}/movement-timeline */
json_t *ari_dm_timeline_json(const ari_dm_timeline *t);
/* GET /traces/{id}/metric-series: at most max_points samples drawn per
 * series, highest variance first. */
json_t *ari_dm_metrics_json(const ari_dm_metric_series *m, int max_points);

/* The text of a document (compact, 17 significant digits), taking it;
 * NULL when doc is NULL or out of memory. */
char *ari_dm_json_text(json_t *doc);

#endif
