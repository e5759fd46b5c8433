/* CHANGED (19:12): the metrics sink now gives each new point the next seq
 * (was 0); ari_live_applied documented as below. */
/* live_data.h: the in-memory tensor of one live run (issue 18): entities
 * (id, level, name, parent), metrics (id, name), time points sorted by
 * their key (each with its domains' values and the arrival seq of its
 * last record), values per (metric, entity) as float64 over the time
 * points (NaN = no sample; duplicate samples of one (metric, entity,
 * point) average, kept as (sum, count)), and the communication triples of
 * each point. No SQLite, no locking: one owner (the live hub, `replay`,
 * a test) uses it from one thread at a time.
 *
 * Ids: entities and metrics get 0, 1, 2, ... in the order they first
 * appear, the same ids the store gives them in mt_entities / mt_metrics
 * while the run is open (store/stream_store.h). A parent always has a
 * smaller id than its children. Time indices are positions in key order:
 * a late point (key below the last one) shifts the later indices by one.
 *
 * Memory: 12 bytes per (metric, entity, time point) cell, capped at
 * ARI_LIVE_MAX_CELLS per run (an apply beyond it fails with
 * ARI_E_TOO_LARGE and changes nothing), plus 16 bytes per comm entry.
 */
#ifndef ARIADNE_LIVE_DATA_H
#define ARIADNE_LIVE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/metrics_sink.h"
#include "ingest/stream_records.h"
#include "util/error.h"

#define ARI_LIVE_MAX_CELLS ((int64_t)1 << 26)

typedef struct ari_live_data ari_live_data;

/* What applying one record did. */
typedef struct ari_live_record_result {
    int64_t seq;        /* the record's arrival sequence number (1-based, persistent) */
    size_t t_idx;       /* its time point's index (key order) right after this record */
    int is_new;         /* 1: the record made a new time point */
    int late;           /* 1: that new point went before the last one (later indices moved up by one) */
} ari_live_record_result;

/* The agreement between api_streams.c (H3) and the live hub (H4): after
 * a committed append, api_streams calls ari_live_hub_appended(srv, id,
 * &applied) with the parsed batch; the hub applies it to its own
 * live_data with ari_live_data_apply(ld, applied->batch,
 * applied->first_seq, results, err). The pointers are valid only during
 * the call (copy what you keep). */
typedef struct ari_live_applied {
    const ari_stream_batch *batch;  /* the records as parsed and committed */
    int64_t first_seq;              /* seq of batch->records[0]; record i has first_seq + i */
    size_t nrecords;                /* = batch->nrecords */
    int64_t new_points;             /* time points the batch added (as the store counted them) */
    int64_t n_points;               /* time points of the run after the commit */
    double last_key;                /* largest key of the run after the commit */
} ari_live_applied;

ari_live_data *ari_live_data_new(ari_error *err);
void ari_live_data_free(ari_live_data *ld);

/* Applies a parsed batch: new entities, metrics and points are added,
 * values accumulated. out (may be NULL) gets batch->nrecords results.
 * first_seq: seq of the first record (0: continue after the last seq
 * applied). All or nothing for the checks: on -1 for the memory cap, a
 * record whose key domain differs from the run's, or an entity under
 * another parent than before, the data are unchanged (out of memory may
 * leave them partly applied). */
int ari_live_data_apply(ari_live_data *ld, const ari_stream_batch *b, int64_t first_seq,
                        ari_live_record_result *out, ari_error *err);

/* ---- shape ---- */
size_t ari_live_data_n_points(const ari_live_data *ld);
size_t ari_live_data_n_entities(const ari_live_data *ld);
size_t ari_live_data_n_metrics(const ari_live_data *ld);
int64_t ari_live_data_last_seq(const ari_live_data *ld);   /* 0 before any record */
int ari_live_data_domain(const ari_live_data *ld);         /* key domain, -1 before any point */

/* ---- time points ---- */
/* Keys in order (n_points of them); valid until the next apply. */
const double *ari_live_data_keys(const ari_live_data *ld);
/* The value of domain d at time index t (NaN if unknown). */
double ari_live_data_domain_value(const ari_live_data *ld, size_t t, int d);
/* The arrival seq of the last record that touched point t. */
int64_t ari_live_data_point_seq(const ari_live_data *ld, size_t t);
/* The time index of key, or -1. */
int64_t ari_live_data_find_key(const ari_live_data *ld, double key);

/* ---- entities and metrics ---- */
const char *ari_live_data_entity_name(const ari_live_data *ld, size_t id);
const char *ari_live_data_entity_level(const ari_live_data *ld, size_t id);
int64_t ari_live_data_entity_parent(const ari_live_data *ld, size_t id); /* -1: root */
int ari_live_data_entity_has_data(const ari_live_data *ld, size_t id);   /* 1 if some value was given */
/* The entity of (level, name), or -1. */
int64_t ari_live_data_entity_find(const ari_live_data *ld, const char *level, const char *name);
/* The children of parent (-1: the roots), ids ascending; *ids valid until the next apply. */
size_t ari_live_data_children(const ari_live_data *ld, int64_t parent, const size_t **ids);
/* The ids of the entities of a level, ascending, into ids (capacity cap);
 * returns how many there are (may exceed cap: call again with more). */
size_t ari_live_data_level(const ari_live_data *ld, const char *level, size_t *ids, size_t cap);
/* The distinct levels, root first (e.g. "PE", "KP"); *n set; valid until the next apply. */
const char *const *ari_live_data_levels(const ari_live_data *ld, size_t *n);
/* The deepest level that has values ("KP" for ROSS, "entity" generic), NULL if none. */
const char *ari_live_data_leaf_level(const ari_live_data *ld);
const char *ari_live_data_metric_name(const ari_live_data *ld, size_t id);
int ari_live_data_metric_attribute(const ari_live_data *ld, size_t id);
int64_t ari_live_data_metric_find(const ari_live_data *ld, const char *name);

/* ---- values ---- */
/* The mean of (metric, entity) at time t, NaN if no sample. */
double ari_live_data_value(const ari_live_data *ld, size_t metric, size_t entity, size_t t);
/* The values of a metric at time index t over the entities ids[0..n) (or
 * all entities 0..n-1 when ids is NULL) into out[n]. */
void ari_live_data_column(const ari_live_data *ld, size_t metric, size_t t, const size_t *ids, size_t n, double *out);
/* The series of a metric over time points [t0, t1) for entities ids[0..n)
 * (all when ids is NULL), row-major into out[n * (t1 - t0)]. */
void ari_live_data_series(const ari_live_data *ld, size_t metric, const size_t *ids, size_t n, size_t t0, size_t t1,
                          double *out);

/* ---- communication ---- */
/* The triples of time index t: (src, dst entity ids, count) sorted by
 * (src, dst), duplicates averaged as offline, zeros left out; returns
 * how many; *src, *dst, *count point into ld (valid until the next apply
 * or the next call for another t). 0 when the point has none. */
size_t ari_live_data_comm(ari_live_data *ld, size_t t, const int32_t **src, const int32_t **dst,
                          const double **count);
int ari_live_data_has_comm(const ari_live_data *ld);

/* ---- a metrics sink that fills a live_data ----
 * So that `ariadned replay` reads any metrics source (the ROSS reader, the
 * generic CSVs) into a live_data. The sink's handles are the live ids.
 * Each new time point gets the next seq (1, 2, ... in the order the
 * reader names them: for a closed run loaded by ari_stream_load, point t
 * has seq t + 1); ari_live_sink_error tells why a callback failed. */
typedef struct ari_live_sink ari_live_sink;
ari_live_sink *ari_live_sink_new(ari_live_data *ld, ari_error *err);
const ari_metrics_sink *ari_live_sink_sink(ari_live_sink *s);
const ari_error *ari_live_sink_error(const ari_live_sink *s);
void ari_live_sink_free(ari_live_sink *s);

#endif
