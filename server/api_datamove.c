/* api_datamove.c: the data movement endpoints (docs/api.md):
 *   GET /api/v1/traces/{id}/movements?start=&end=&limit=
 *   GET /api/v1/traces/{id}/movement-matrix?window=t0,t1 (or start=&end=)
 *   GET /api/v1/traces/{id}/movement-timeline?start=&end=&limit=
 *   GET /api/v1/traces/{id}/clock?sectors=&sector_width=
 *   GET /api/v1/traces/{id}/topology?start=&end=
 *   GET /api/v1/traces/{id}/metric-series?start=&end=&points=
 *   GET /api/v1/topology: this server's machine, through libhwloc.
 * Times are µs for datamove traces, relative to the run's start (its
 * first event, summary.start): windows are given and times answered that
 * way, and every answer says the origin in `time_origin` (absolute µs, in
 * the file's clock). A window past the end of the run (an absolute epoch
 * time from an old URL) answers 400. Movements and the matrix also answer
 * for task traces (StarPU: their links between memory nodes and MPI
 * links), in the trace's own unit and from its origin (time_origin, as
 * the other task endpoints); the other endpoints answer 409
 * not_datamove for them, as for any kind but datamove. The rows come from
 * store/datamove_queries.c, the JSON from json_datamove.c; this file reads
 * parameters and maps errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "ingest/hwloc_xml.h"
#include "params.h"
#include "reply.h"
#include "json_datamove.h"
#include "store/datamove_queries.h"

/* A time of the window: the toolkit's number syntax (params.h). */
static int parse_time(const char *s, double *out)
{
    return ari_parse_number(s, out);
}

/* start= and end= (µs from the run's start), NaN when absent; or
 * window=t0,t1. */
static int read_window(ari_request *r, double *w0, double *w1)
{
    *w0 = *w1 = NAN;
    const char *win = ari_param(r, "window");
    const char *names[2] = {"start", "end"};
    double *outs[2] = {w0, w1};
    if (win && *win) {
        char a[64], b[64];
        const char *comma = strchr(win, ',');
        if (!comma || (size_t)(comma - win) >= sizeof a || strlen(comma + 1) >= sizeof b)
            goto bad_window;
        snprintf(a, sizeof a, "%.*s", (int)(comma - win), win);
        snprintf(b, sizeof b, "%s", comma + 1);
        if (parse_time(a, w0) < 0 || parse_time(b, w1) < 0 || *w1 <= *w0)
            goto bad_window;
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        const char *s = ari_param(r, names[i]);
        if (s && *s && parse_time(s, outs[i]) < 0) {
            ari_reply_error(r, 400, "invalid_parameter", "%s must be a time in µs from the run's start, got '%.64s'", names[i], s);
            return -1;
        }
    }
    if (!isnan(*w0) && !isnan(*w1) && *w1 <= *w0) {
        ari_reply_error(r, 400, "invalid_parameter", "end must be after start");
        return -1;
    }
    return 0;
bad_window:
    ari_reply_error(r, 400, "invalid_parameter", "window must be 'start,end' in µs from the run's start with end > start, got '%.64s'", win);
    return -1;
}

/* Maps a loader's return code: 1 absent (404), 2 another kind (409). */
static enum MHD_Result reply_error(ari_request *r, int64_t id, int rc, const ari_error *err)
{
    if (rc == 1)
        return ari_reply_error(r, 404, "not_found", "no trace %lld", (long long)id);
    if (rc == 2)
        return ari_reply_error(r, 409, "not_datamove", "%s", err->message);
    return ari_reply_from_error(r, err);
}

/* Answers a document (taking it); 500 when it could not be built. */
static enum MHD_Result reply_doc(ari_request *r, json_t *doc)
{
    char *json = ari_dm_json_text(doc);
    if (!json)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    enum MHD_Result res = ari_reply_text_json(r, 200, json);
    free(json);
    return res;
}

enum MHD_Result api_dm_movements(ari_request *r)
{
    int64_t id, limit;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0 ||
        ari_param_int(r, "limit", 10000, 0, 1000000, &limit) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_movements m;
    int rc = ari_dm_movements_load(r->db, id, w0, w1, limit, &m, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_movements_json(&m, limit);
    ari_dm_movements_free(&m);
    return reply_doc(r, doc);
}

enum MHD_Result api_dm_matrix(ari_request *r)
{
    int64_t id;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_window_matrix m;
    int rc = ari_dm_matrix_load(r->db, id, w0, w1, &m, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_matrix_json(&m);
    ari_dm_window_matrix_free(&m);
    return reply_doc(r, doc);
}

enum MHD_Result api_dm_timeline(ari_request *r)
{
    int64_t id, limit;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0 ||
        ari_param_int(r, "limit", 1000, 1, 100000, &limit) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_timeline t;
    int rc = ari_dm_timeline_load(r->db, id, w0, w1, limit, &t, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_timeline_json(&t);
    ari_dm_timeline_free(&t);
    return reply_doc(r, doc);
}

/* sector_width=: a positive time in µs, 0 (the default width) when
 * absent or empty; 400 with this endpoint's wording otherwise. */
static int read_sector_width(ari_request *r, double *width)
{
    const char *w = ari_param(r, "sector_width");
    *width = 0;
    if (!w || !*w)
        return 0;
    if (ari_param_number_checked(r, "sector_width", 0, 0, INFINITY, 1, width) == 0)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "sector_width must be a positive time in µs, got '%.64s'", w);
    return -1;
}

enum MHD_Result api_dm_clock(ari_request *r)
{
    int64_t id, sectors;
    double width;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "sectors", 12, 1, 360, &sectors) < 0 ||
        read_sector_width(r, &width) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_clock c;
    int rc = ari_dm_clock_load(r->db, id, (int)sectors, width, &c, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_clock_json(&c);
    ari_dm_clock_free(&c);
    return reply_doc(r, doc);
}

enum MHD_Result api_dm_topology(ari_request *r)
{
    int64_t id;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_topology t;
    int rc = ari_dm_topology_load(r->db, id, w0, w1, &t, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_topology_json(&t);
    ari_dm_topology_free(&t);
    return reply_doc(r, doc);
}

enum MHD_Result api_dm_metrics(ari_request *r)
{
    int64_t id, points;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0 ||
        ari_param_int(r, "points", 1000, 2, 100000, &points) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_dm_metric_series m;
    int rc = ari_dm_metrics_load(r->db, id, w0, w1, &m, &err);
    if (rc != 0)
        return reply_error(r, id, rc, &err);
    json_t *doc = ari_dm_metrics_json(&m, (int)points);
    ari_dm_metric_series_free(&m);
    return reply_doc(r, doc);
}

enum MHD_Result api_topology(ari_request *r)
{
    ari_topology t;
    ari_error err = {0};
    if (ari_topology_this_machine(&t, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *comps = json_array();
    for (size_t i = 0; i < t.n; i++) {
        const ari_component *c = &t.comps[i];
        json_t *attrs = json_loads(c->attrs_json, 0, NULL);
        json_array_append_new(comps, json_pack("{s:I, s:o, s:s, s:s, s:o, s:o, s:s, s:o}", "id", (json_int_t)i,
            "parent", c->parent >= 0 ? json_integer(c->parent) : json_null(), "kind", c->kind, "name", c->name,
            "os_index", c->os_index >= 0 ? json_integer(c->os_index) : json_null(),
            "logical_index", c->logical_index >= 0 ? json_integer(c->logical_index) : json_null(),
            "key", c->key, "attrs", attrs ? attrs : json_object()));
    }
    ari_topology_free(&t);
    return ari_reply_json(r, 200, json_pack("{s:s, s:o}", "source", "hwloc", "components", comps));
}
