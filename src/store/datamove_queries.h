/* datamove_queries.h: reading data movement traces (sql/006_datamove.sql)
 * as structs for the REST API (docs/api.md; the JSON is built by
 * server/json_datamove.c, the arithmetic is analysis/datamove_views.h).
 * Windows are [w0, w1) in the trace's time unit (µs for datamove traces),
 * relative to the trace's origin: a datamove trace's first event
 * (summary.start, absolute µs, which the rows keep); a task trace's times
 * are already relative to its origin (summary.time_origin). NaN bounds
 * mean the whole run. Each struct carries the window used and every time
 * as stored (absolute for datamove traces), with `shift` (subtract it
 * from a stored time to get the answer's time: summary.start for datamove
 * traces, 0 for task traces) and `time_origin` (the origin in the file's
 * clock, answered as is). A datamove window that starts at or after the
 * end of the run, or ends at or before its start, is an error
 * (invalid_parameter: loaders return -1).
 * Every loader returns 0 with *out filled, 1 if there is no such trace, 2
 * (err set, code not_datamove) if the trace is of a kind the function
 * does not answer, -1 on error; release *out with its _free (also after
 * an error, and on a zeroed struct). Movements and the matrix also answer
 * for task traces (kind tasks), from their Paje links between memory
 * nodes and their MPI links. */
#ifndef ARIADNE_DATAMOVE_QUERIES_H
#define ARIADNE_DATAMOVE_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/datamove_views.h"
#include "store/store.h"
#include "util/error.h"

#define ARI_DM_NULL INT64_MIN /* an integer column that is NULL */

/* One movement. handle, handle_name and key: task traces only, NULL when
 * the link has none; NAN bandwidths: none. */
typedef struct ari_dm_movement {
    int64_t event;
    char src[ARI_DM_KEY_SIZE], dst[ARI_DM_KEY_SIZE];
    char *kind, *handle, *handle_name, *key;
    double bytes, start, dur, bandwidth, trace_bandwidth;
} ari_dm_movement;

/* Movements overlapping the window: the tally of all of them and the
 * first `limit` in start order. links: a task trace. */
typedef struct ari_dm_movements {
    double start, end, shift, time_origin;
    char time_unit[8];
    int links;
    ari_dm_tally tally;
    size_t n;
    ari_dm_movement *items;
} ari_dm_movements;

int ari_dm_movements_load(ari_store *s, int64_t id, double w0, double w1, int64_t limit, ari_dm_movements *out,
                          ari_error *err);
void ari_dm_movements_free(ari_dm_movements *m);

/* The component x component matrix of the window (bytes split by
 * overlap, busy time); unit_s: seconds per time unit, for bandwidths. */
typedef struct ari_dm_window_matrix {
    double start, end, shift, time_origin;
    char time_unit[8];
    double unit_s;
    ari_dm_matrix *m;
} ari_dm_window_matrix;

int ari_dm_matrix_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_window_matrix *out, ari_error *err);
void ari_dm_window_matrix_free(ari_dm_window_matrix *m);

/* The clock: nsectors sectors of sector_width µs (0: ceil(run/nsectors))
 * from the run's start, time per category (ARI_DM_NCAT) in each. */
typedef struct ari_dm_clock {
    double start, end, sector_width, shift, time_origin;
    int nsectors;
    double *sectors; /* [nsectors * ARI_DM_NCAT] */
} ari_dm_clock;

int ari_dm_clock_load(ari_store *s, int64_t id, int nsectors, double sector_width, ari_dm_clock *out,
                      ari_error *err);
void ari_dm_clock_free(ari_dm_clock *c);

/* The topology: its components, the matrix of the window and the busy
 * time of every track (track t's component in track_comp[t]: "gpu<N>" or
 * "host"). */
typedef struct ari_dm_component_row {
    int64_t id, parent, os_index, logical_index; /* ARI_DM_NULL: null */
    char *kind, *name, *key, *attrs_json;
} ari_dm_component_row;

typedef struct ari_dm_topology {
    double start, end, shift, time_origin;
    ari_dm_matrix *m;
    size_t ncomps;
    ari_dm_component_row *comps;
    int ntracks;
    char (*track_comp)[ARI_DM_KEY_SIZE];
    double *track_busy;
} ari_dm_topology;

int ari_dm_topology_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_topology *out, ari_error *err);
void ari_dm_topology_free(ari_dm_topology *t);

/* The timeline: the tracks, and the events of the window, or groups (per
 * track, category and tile bin) when it holds more than limit events. */
typedef struct ari_dm_track_row {
    int64_t id, device; /* device ARI_DM_NULL: none */
    char *pid, *tid, *label;
} ari_dm_track_row;

typedef struct ari_dm_event_row {
    int64_t id, track, correlation; /* correlation ARI_DM_NULL: none */
    int category, point;
    char *name, *cat;
    double start, dur;
} ari_dm_event_row;

typedef struct ari_dm_group_row {
    int64_t track, count;
    int category;
    double start, end, busy, bytes;
} ari_dm_group_row;

typedef struct ari_dm_timeline {
    double start, end, run_start, run_end, shift, time_origin;
    size_t ntracks;
    ari_dm_track_row *tracks;
    int64_t estimated_events;
    int grouped; /* 1: groups, 0: events */
    size_t nevents;
    ari_dm_event_row *events;
    size_t ngroups;
    ari_dm_group_row *groups;
} ari_dm_timeline;

int ari_dm_timeline_load(ari_store *s, int64_t id, double w0, double w1, int64_t limit, ari_dm_timeline *out,
                         ari_error *err);
void ari_dm_timeline_free(ari_dm_timeline *t);

/* Metric series of the window in metric order: n samples counted, the
 * nsamples read (ts, values). */
typedef struct ari_dm_series {
    int64_t id, n;
    char *metric, *component, *source;
    size_t nsamples;
    double *ts, *values;
} ari_dm_series;

typedef struct ari_dm_metric_series {
    double start, end, shift, time_origin;
    size_t n;
    ari_dm_series *series;
} ari_dm_metric_series;

int ari_dm_metrics_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_metric_series *out, ari_error *err);
void ari_dm_metric_series_free(ari_dm_metric_series *m);

#endif
