/* metrics_csv.h: generic per-entity counters over time, from any tool, as
 * CSV (kind 'pdes', the same model as ROSS runs):
 *  - long: a header naming the columns entity, time, metric and value (any
 *    order, any case, other columns ignored) and optionally parent; one
 *    sample per row. Entities are level "entity", their parents level
 *    "group". Samples of the same (entity, time, metric) average.
 *  - wide: one metric per file (the metric is the file's name without
 *    extension), either with a first header cell "time" (a row per time
 *    point, a column per entity named in the header) or "entity" (a row
 *    per entity, a column per time point whose time the header gives).
 * Times are numbers (domain "time"); an empty cell, NA or NaN is no sample.
 * Bad cells are invalid_input "name:line:column: why".
 */
#ifndef ARIADNE_METRICS_CSV_H
#define ARIADNE_METRICS_CSV_H

#include <stddef.h>

#include "ingest/metrics_sink.h"
#include "util/error.h"

/* Non-zero if the head of a file is a long metric CSV. */
int ari_metrics_long_probe(const char *head, size_t n);
/* Non-zero if the head of a file is a wide metric CSV. */
int ari_metrics_wide_probe(const char *head, size_t n);

int ari_metrics_long_read(const char *path, const char *name, const ari_metrics_sink *k, ari_error *err);
/* metric: the name the values get (the format passes the file's stem). */
int ari_metrics_wide_read(const char *path, const char *name, const char *metric, const ari_metrics_sink *k,
                          ari_error *err);

#endif
