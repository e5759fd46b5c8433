/* stream_store.h: live runs in the database (sql/015_streams.sql). A live
 * run is a trace of kind 'pdes', format 'stream', with a row in
 * mt_streams (state 'open' or 'closed', its write token's SHA-256, counts)
 * and, while open, one row per received record in mt_stream_points
 * (arrival seq, key, domains, cells and communication as blobs); its
 * entities and metrics go into mt_entities / mt_metrics as they first
 * appear, with the live ids of store/live_data.h. Closing compacts the
 * points into the offline layout of sql/014 (through the metrics writer,
 * so that the stored trace equals an offline import of the same samples)
 * and deletes them.
 *
 * Every writing function is one transaction (BEGIN IMMEDIATE ... COMMIT,
 * rolled back on any failure): when it returns 0 the change is durable.
 * An ari_store is one connection: one thread at a time.
 */
#ifndef ARIADNE_STREAM_STORE_H
#define ARIADNE_STREAM_STORE_H

#include <stdint.h>

#include "ingest/stream_records.h"
#include "store/live_data.h"
#include "store/store.h"
#include "util/error.h"

#define ARI_STREAM_TOKEN_HEX 64 /* a write token: 32 random bytes as hex */

/* Creates a live run: the trace row and its mt_streams row (state open).
 * kps_per_pe: the run's KPs per PE (0: unknown, derived from the first
 * ROSS records that show it). token_out gets the write token (64 hex
 * digits + NUL), which is stored only hashed. */
int ari_stream_create(ari_store *s, const char *name, const char *description, int kps_per_pe, int64_t *trace_id,
                      char token_out[ARI_STREAM_TOKEN_HEX + 1], ari_error *err);

/* 0: token is the run's write token; 1: it is not (or no such run); -1 error. */
int ari_stream_check_token(ari_store *s, int64_t trace_id, const char *token, ari_error *err);

typedef struct ari_stream_status {
    int64_t trace_id;
    int open;                /* 1 open, 0 closed */
    int64_t n_points;        /* distinct time points */
    int64_t n_records;       /* records received = the last seq */
    double last_key;         /* the largest key received (NaN before any) */
    int domain;              /* key domain (ARI_MT_LASTGVT / ARI_MT_TIME), -1 before any record */
    int kps_per_pe;          /* 0 unknown */
    int64_t n_entities, n_metrics;
} ari_stream_status;

/* 0 and *out; 1 when trace_id is not a live run; -1 error. */
int ari_stream_status_get(ari_store *s, int64_t trace_id, ari_stream_status *out, ari_error *err);

/* 1 if trace_id is a live run still open, 0 if not (any other trace, a
 * closed run, no such trace), -1 error. The offline metrics endpoints
 * answer 409 live_run for an open run. */
int ari_stream_is_open(ari_store *s, int64_t trace_id, ari_error *err);

/* Appends a parsed batch in one transaction: new entities and metrics,
 * one mt_stream_points row per record (seq continuing the run's), the
 * run's counts. out gets first_seq, nrecords, new_points, n_points,
 * last_key (out->batch = b). Returns 0 (committed), 1 when the run is
 * closed (nothing stored), -1 with err (nothing stored): ARI_E_NOT_FOUND
 * no such run, ARI_E_INVALID_INPUT (a record of another key domain than
 * the run's, a KP under another PE than before: "line N: ..."),
 * ARI_E_TOO_LARGE (the run's caps: entities, metrics, cells). */
int ari_stream_append(ari_store *s, int64_t trace_id, const ari_stream_batch *b, ari_live_applied *out,
                      ari_error *err);

/* Loads a run into an empty live_data: while open, its entities, metrics
 * and every stored record in seq order (so the result equals the hub's
 * after those appends); once closed, from the offline tables (entity ids
 * are then the offline ones; seq of point t is t + 1). */
int ari_stream_load(ari_store *s, int64_t trace_id, ari_live_data *ld, ari_error *err);

/* The stored records of an open run after seq after_seq, in seq order,
 * as batches: fn(ctx, a) with a->batch's entities and metrics the run's
 * (by id) and a->first_seq, a->nrecords its records' (the rest of *a
 * zero); fn returns 0 to go on, else -1 with the error set. For a daemon
 * watching a run that another daemon receives (replicas on one
 * PostgreSQL database, server/live_hub.c). Returns 0, 1 when the run is
 * not open (closed, or no such run), -1 with err. */
typedef int (*ari_stream_batch_fn)(void *ctx, const ari_live_applied *a);
int ari_stream_batches_after(ari_store *s, int64_t trace_id, int64_t after_seq, ari_stream_batch_fn fn, void *ctx,
                             ari_error *err);

/* Closes an open run in one transaction: the points become mt_domains,
 * mt_values, mt_comm and the trace's summary (as an offline import
 * writes them: entities re-numbered parents first and in natural order,
 * RbPrim derived), the points are deleted, state 'closed'. Returns 0, 1
 * if already closed, -1 with err (ARI_E_NOT_FOUND no such run;
 * ARI_E_INVALID_INPUT a run without any point). */
int ari_stream_close(ari_store *s, int64_t trace_id, ari_error *err);

/* JSON of the live runs, newest first: [{"trace_id", "name", "state",
 * "n_points", "n_records", "last_key", "created", "closed"}]. */
int ari_streams_list_json(ari_store *s, char **json_out, ari_error *err);
/* JSON of one run: the list's fields plus "entities": {level: count},
 * "metrics": [names], "kps_per_pe", "domain". 0, 1 if absent, -1. */
int ari_stream_get_json(ari_store *s, int64_t trace_id, char **json_out, ari_error *err);

/* The controls JSON object of a run ("{}" by default; H4's hub keeps its
 * shared controls here so they survive a restart). */
int ari_stream_controls_get(ari_store *s, int64_t trace_id, char **json_out, ari_error *err);
int ari_stream_controls_set(ari_store *s, int64_t trace_id, const char *json, ari_error *err);

#endif
