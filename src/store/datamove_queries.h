/* datamove_queries.h: reading data movement traces (sql/006_datamove.sql)
 * into the JSON documents of the REST API (docs/api.md). Windows are
 * [w0, w1) in the trace's time unit (µs for datamove traces); NaN bounds
 * mean the whole run. Every function returns 0 with *out set (malloc'd
 * JSON text), 1 if there is no such trace, 2 (err set, code not_datamove)
 * if the trace is of a kind the function does not answer, -1 on error.
 * Movements and the matrix also answer for task traces (kind tasks), from
 * their Paje links between memory nodes and their MPI links. */
#ifndef ARIADNE_DATAMOVE_QUERIES_H
#define ARIADNE_DATAMOVE_QUERIES_H

#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

/* Movements overlapping the window, at most limit, with totals (datamove
 * and task traces). */
int ari_dm_movements_json(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **out,
                          ari_error *err);
/* The component x component byte matrix of the window (bytes split by
 * overlap) and the bandwidth (GB/s) of each cell over its busy time
 * (datamove and task traces). */
int ari_dm_matrix_json(ari_store *s, int64_t id, double w0, double w1, char **out, ari_error *err);
/* The clock: nsectors sectors of sector_width µs (0: ceil(run/nsectors))
 * from the run's start, time per category in each. */
int ari_dm_clock_json(ari_store *s, int64_t id, int nsectors, double sector_width, char **out,
                      ari_error *err);
/* The topology tree with bytes moved and utilization in the window, and
 * links between components weighted by bytes. */
int ari_dm_topology_json(ari_store *s, int64_t id, double w0, double w1, char **out, ari_error *err);
/* Events of the window, or groups (per track, category and tile bin)
 * when it holds more than limit events. */
int ari_dm_timeline_json(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **out,
                         ari_error *err);
/* Metric series in the window, highest variance first. */
int ari_dm_metrics_json(ari_store *s, int64_t id, double w0, double w1, int max_points, char **out,
                        ari_error *err);

#endif
