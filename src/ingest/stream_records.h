/* CHANGED (19:35): the generic form takes an optional "groups" object (entity
 * -> group, level "group"); no type or function changed. */
/* stream_records.h: the samples a live run is sent (POST
 * /api/v1/streams/{id}/samples), parsed into a batch of records that the
 * store appends (store/stream_store.h) and the live hub applies
 * (store/live_data.h). No SQLite here.
 *
 * One record is one JSON object, a time point or part of one:
 *  - ROSS form (the Damaris sample of spec 1.1):
 *      {"LastGvt":k, "VirtualTs":v, "RealTs":r, "Mode":1,
 *       "PeData":[{"Peid":0, "<metric>":x, ...}],
 *       "KpData":[{"Peid":0, "Kpid":3, "KpGid":3, "<metric>":x, ..., "CommData":[c_0, ..., c_{nKP-1}]}],
 *       "LpData":[{"Peid":0, "Kpid":3, "KpGid":3, "Lpid":7, "LpGid":55, "<metric>":x, ...}]}
 *    keyed by LastGvt (domain ARI_MT_LASTGVT; VirtualTs and RealTs are the
 *    other domains). Entities are named as the offline ROSS reader names
 *    them (ingest/ross_csv.c): "PE p" (level "PE", root), "KP g" (level
 *    "KP", g = KpGid, under "PE p" when the PE is known), "LP g" (level
 *    "LP", g = LpGid, else Lpid, under its KP). KpGid may be left out when
 *    Peid, Kpid and the KPs per PE are known (KpGid = Peid * nKP + Kpid);
 *    Peid may be left out when nKP is known (Peid = KpGid / nKP). Every
 *    other member of an item is a metric: a number, or null (no sample);
 *    EntityId, EventId, Mode and Status are metrics marked as attributes
 *    (as the record CSV reader does). Metric members may also be nested
 *    in an object "Data" (as in the FlatBuffers schema). CommData[j] is
 *    the count of events the KP sent to KP j (j is a KpGid); zeros are
 *    left out. The top-level Mode is ignored.
 *  - generic form:
 *      {"time":t, "values":{"<entity>":{"<metric>":x, ...}, ...},
 *       "comm":[["<src entity>", "<dst entity>", count], ...],
 *       "groups":{"<entity>":"<group>", ...}}
 *    keyed by time (domain ARI_MT_TIME); entities of level "entity", under
 *    the group "groups" names (level "group", a root) or roots, as the
 *    generic CSV readers name them (ingest/metrics_csv.c).
 *
 * Framing: newline-delimited JSON (one record a line, blank lines skipped,
 * `\r\n` accepted), or frames [uint32 little-endian size][payload] where
 * the payload is one JSON record (FlatBuffers DamarisDataSample payloads:
 * see docs/live_runs.md for what is accepted).
 *
 * Errors: ARI_E_INVALID_INPUT "line N: why" / "frame N: why"; the batch
 * is then unusable: the caller drops it whole (nothing of a bad request
 * is stored). ARI_E_TOO_LARGE for the limits below.
 */
#ifndef ARIADNE_STREAM_RECORDS_H
#define ARIADNE_STREAM_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ingest/metrics_sink.h"
#include "util/error.h"

#define ARI_STREAM_MAX_RECORD ((size_t)16 << 20)   /* bytes of one record (line or frame payload) */
#define ARI_STREAM_MAX_VALUES ((size_t)1 << 24)    /* values in one batch (one request) */
#define ARI_STREAM_MAX_COMM ((size_t)1 << 24)      /* communication entries in one batch */
#define ARI_STREAM_MAX_RECORDS ((size_t)1 << 20)   /* records in one batch */
#define ARI_STREAM_MAX_ENTITIES 1000000            /* = ARI_MT_MAX_ENTITIES */
#define ARI_STREAM_MAX_METRICS 4096                /* = ARI_MT_MAX_METRICS */

/* An entity named by a batch; parent is a batch entity index or -1.
 * Parents come before their children. */
typedef struct ari_stream_entity {
    const char *level, *name;
    int32_t parent;
} ari_stream_entity;

typedef struct ari_stream_metric {
    const char *name;
    int attribute;                 /* 1: EntityId, EventId, Mode, Status */
} ari_stream_metric;

/* One sample: batch entity and metric indices. */
typedef struct ari_stream_value {
    uint32_t entity, metric;
    double v;                      /* finite */
} ari_stream_value;

/* A communication row: src (batch entity) sent count[i] events to dst[i]
 * for the entries entry0 .. entry0 + nentries - 1 of batch->comm. Several
 * rows of the same (time point, src) average, as offline (metrics_writer). */
typedef struct ari_stream_comm_row {
    uint32_t src;
    size_t entry0, nentries;
} ari_stream_comm_row;

typedef struct ari_stream_comm {
    uint32_t dst;                  /* batch entity */
    double count;                  /* > 0 */
} ari_stream_comm;

/* One record: its time point and its samples (ranges of the batch arrays). */
typedef struct ari_stream_record {
    int domain;                    /* ARI_MT_LASTGVT (ROSS form) or ARI_MT_TIME (generic form) */
    double key;                    /* the time point's key (the value of domain) */
    double other[ARI_MT_NDOMAINS]; /* every domain's value at this point, NaN if not given */
    size_t value0, nvalues;        /* batch->values[value0 ..] */
    size_t row0, nrows;            /* batch->rows[row0 ..] */
    uint64_t line;                 /* line (NDJSON) or frame number, 1-based, for messages */
} ari_stream_record;

/* A parsed request body. Strings live in the batch's pool. */
typedef struct ari_stream_batch {
    ari_stream_record *records;
    size_t nrecords, cap_records;
    ari_stream_entity *entities;
    size_t nentities, cap_entities;
    ari_stream_metric *metrics;
    size_t nmetrics, cap_metrics;
    ari_stream_value *values;
    size_t nvalues, cap_values;
    ari_stream_comm_row *rows;
    size_t nrows, cap_rows;
    ari_stream_comm *comm;
    size_t ncomm, cap_comm;
    int kps_per_pe;                /* nKP: given at init (the run's), or derived from the records; 0 unknown */
    struct ari_stream_batch_maps *maps; /* private: name -> index maps and the string pool */
} ari_stream_batch;

/* An empty batch; kps_per_pe: the run's KPs per PE (0: unknown). */
int ari_stream_batch_init(ari_stream_batch *b, int kps_per_pe, ari_error *err);
void ari_stream_batch_free(ari_stream_batch *b);
/* Index of an entity / metric of the batch by (level, name) / name; -1. */
int64_t ari_stream_batch_entity(const ari_stream_batch *b, const char *level, const char *name);
int64_t ari_stream_batch_metric(const ari_stream_batch *b, const char *name);

/* Parses one JSON record text (len bytes, not NUL-terminated), `number`
 * naming it in errors as "line N" (frames = 0) or "frame N" (frames = 1). */
int ari_stream_parse_record(ari_stream_batch *b, const char *json, size_t len, uint64_t number, int frames,
                            ari_error *err);
/* A whole body in memory: NDJSON (frames = 0) or length-prefixed frames. */
int ari_stream_parse_buffer(ari_stream_batch *b, const char *buf, size_t n, int frames, ari_error *err);
/* A whole body from a file (the upload spool), read streaming: memory is
 * bounded by one record plus the batch. */
int ari_stream_parse_file(ari_stream_batch *b, FILE *f, int frames, ari_error *err);

#endif
