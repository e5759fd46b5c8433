/* metrics_queries.h: reading sampled-metrics traces (kind 'pdes',
 * sql/014_metrics.sql) for the series endpoints and the analyses:
 *  - the trace's description: entities (hierarchy), metrics, time domains;
 *  - a dense entity x time matrix (float64, NaN = no sample) of one or
 *    more metrics over a time range, at any level of the hierarchy: a
 *    level above the one with data is the MEAN over each entity's
 *    descendants that have data (NaN samples left out), e.g. PE = mean of
 *    its KPs;
 *  - the communication triples of a range of time points;
 *  - max / mean / std over entities along time (the overview).
 * A metric's stored rows are read once per process and kept
 * (metrics_cache.h) while they fit the cache's budget.
 */
#ifndef ARIADNE_METRICS_QUERIES_H
#define ARIADNE_METRICS_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/metrics_sink.h"
#include "store/store.h"
#include "util/error.h"

typedef struct ari_mt_entity {
    int64_t id, parent;     /* parent -1 for a root */
    char level[16];
    char name[96];
    int has_data;
} ari_mt_entity;

typedef struct ari_mt_metric {
    int64_t id;
    char name[64];
    char unit[32];
    int derived, attribute;
} ari_mt_metric;

typedef struct ari_mt_info {
    int64_t trace_id;
    char stamp[96];            /* created_at and sha256: which stored trace (metrics_cache.h) */
    ari_mt_entity *entities;   /* by id: entities[i].id == i */
    size_t nentities;
    ari_mt_metric *metrics;
    size_t nmetrics;
    size_t ntimes;
    double *times[ARI_MT_NDOMAINS]; /* NULL: domain absent */
    int key_domain;
    char levels[8][16];        /* root level first */
    size_t nlevels;
    char data_level[16];       /* the deepest level with data */
} ari_mt_info;

/* 0, 1 if there is no such trace, 2 if it is not a 'pdes' trace (err
 * says its kind and format), -1 with err set. */
int ari_mt_info_load(ari_store *s, int64_t trace_id, ari_mt_info *info, ari_error *err);
void ari_mt_info_free(ari_mt_info *info);
/* The metric of that name, NULL if none. */
const ari_mt_metric *ari_mt_info_metric(const ari_mt_info *info, const char *name);
/* The domain of that name present in the trace, -1 if none. */
int ari_mt_info_domain(const ari_mt_info *info, const char *name);
/* Whether the trace has that level. */
int ari_mt_info_has_level(const ari_mt_info *info, const char *level);

typedef struct ari_mt_request {
    const char *const *metrics; /* names */
    size_t nmetrics;
    int domain;                 /* -1: the key domain */
    double t0, t1;              /* NaN: open ends; time points with t0 <= t <= t1 in the domain */
    const char *level;          /* NULL: the data level */
    const int64_t *entities;    /* ids at that level, in the order wanted; NULL: all of the level */
    size_t nentities;
    size_t max_points;          /* 0: every time point; else at most that many columns
                                 * (ari_mt_matrix_downsample's buckets) */
} ari_mt_request;

typedef struct ari_mt_matrix {
    size_t n, l, d;             /* entities, time points, metrics */
    int64_t *entity_ids;        /* n */
    size_t *time_idx;           /* l indices of the trace's time points */
    double *time;               /* l values in the request's domain */
    double *values;             /* d x n x l: metric-major, row-major entity x time */
    int domain;
    char level[16];
} ari_mt_matrix;

/* Bad names, levels, entities or ranges are invalid_parameter with a
 * message listing what the trace has. Memory: d x n x l doubles plus
 * one row of the stored blobs. */
int ari_mt_matrix_load(ari_store *s, const ari_mt_info *info, const ari_mt_request *req, ari_mt_matrix *m,
                       ari_error *err);
void ari_mt_matrix_free(ari_mt_matrix *m);
/* At most max_points time columns (0: unchanged): consecutive columns in
 * max_points equal-count buckets, each value the mean of its bucket's
 * samples (NaN when none), its time the mean of the bucket's times and
 * time_idx its first time point's. For a chart narrower than the range. */
void ari_mt_matrix_downsample(ari_mt_matrix *m, size_t max_points);

typedef struct ari_mt_comm {
    size_t n;                   /* triples */
    uint32_t *time_idx;         /* of the trace's time points */
    int64_t *src, *dst;         /* entity ids (KPs for ROSS) */
    double *count;              /* events (a mean where a file gave a row twice) */
} ari_mt_comm;

/* The communication of time points [i0, i1) (indices), sorted by time,
 * source and destination. */
int ari_mt_comm_load(ari_store *s, int64_t trace_id, size_t i0, size_t i1, ari_mt_comm *c, ari_error *err);
void ari_mt_comm_free(ari_mt_comm *c);

typedef enum { ARI_MT_STAT_MAX, ARI_MT_STAT_MEAN, ARI_MT_STAT_STD } ari_mt_stat;

/* out[j] = the stat over the entities of metric k at time j (NaN samples
 * left out; NaN when none; std is the sample standard deviation, n - 1,
 * and NaN with fewer than 2 samples). out has m->l elements. */
void ari_mt_overview(const ari_mt_matrix *m, size_t k, ari_mt_stat stat, double *out);

#endif
