/* api_datamove.c: the data movement endpoints (docs/api.md):
 *   GET /api/v1/traces/{id}/movements?start=&end=&limit=
 *   GET /api/v1/traces/{id}/movement-matrix?window=t0,t1 (or start=&end=)
 *   GET /api/v1/traces/{id}/movement-timeline?start=&end=&limit=
 *   GET /api/v1/traces/{id}/clock?sectors=&sector_width=
 *   GET /api/v1/traces/{id}/topology?start=&end=
 *   GET /api/v1/traces/{id}/metric-series?start=&end=&points=
 *   GET /api/v1/topology: this server's machine, through libhwloc.
 * Times are µs for datamove traces. Movements and the matrix also answer
 * for task traces (StarPU: their links between memory nodes and MPI
 * links), in the trace's own unit; the other endpoints answer 409
 * not_datamove for them, as for any kind but datamove. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "ingest/hwloc_xml.h"
#include "params.h"
#include "reply.h"
#include "store/datamove_queries.h"

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* start= and end= (µs), NaN when absent; or window=t0,t1. */
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
        if (parse_number(a, w0) < 0 || parse_number(b, w1) < 0 || *w1 <= *w0)
            goto bad_window;
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        const char *s = ari_param(r, names[i]);
        if (s && *s && parse_number(s, outs[i]) < 0) {
            ari_reply_error(r, 400, "invalid_parameter", "%s must be a time in µs, got '%.64s'", names[i], s);
            return -1;
        }
    }
    if (!isnan(*w0) && !isnan(*w1) && *w1 <= *w0) {
        ari_reply_error(r, 400, "invalid_parameter", "end must be after start");
        return -1;
    }
    return 0;
bad_window:
    ari_reply_error(r, 400, "invalid_parameter", "window must be 'start,end' in µs with end > start, got '%.64s'", win);
    return -1;
}

/* Maps a query's return code: 1 absent (404), 2 another kind (409). */
static enum MHD_Result answer(ari_request *r, int64_t id, int rc, char *json, const ari_error *err)
{
    if (rc == 1)
        return ari_reply_error(r, 404, "not_found", "no trace %lld", (long long)id);
    if (rc == 2)
        return ari_reply_error(r, 409, "not_datamove", "%s", err->message);
    if (rc < 0)
        return ari_reply_from_error(r, err);
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
    char *json = NULL;
    int rc = ari_dm_movements_json(r->db, id, w0, w1, limit, &json, &err);
    return answer(r, id, rc, json, &err);
}

enum MHD_Result api_dm_matrix(ari_request *r)
{
    int64_t id;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0)
        return MHD_YES;
    ari_error err = {0};
    char *json = NULL;
    int rc = ari_dm_matrix_json(r->db, id, w0, w1, &json, &err);
    return answer(r, id, rc, json, &err);
}

enum MHD_Result api_dm_timeline(ari_request *r)
{
    int64_t id, limit;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0 ||
        ari_param_int(r, "limit", 1000, 1, 100000, &limit) < 0)
        return MHD_YES;
    ari_error err = {0};
    char *json = NULL;
    int rc = ari_dm_timeline_json(r->db, id, w0, w1, limit, &json, &err);
    return answer(r, id, rc, json, &err);
}

enum MHD_Result api_dm_clock(ari_request *r)
{
    int64_t id, sectors;
    double width = 0;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "sectors", 12, 1, 360, &sectors) < 0)
        return MHD_YES;
    const char *w = ari_param(r, "sector_width");
    if (w && *w && (parse_number(w, &width) < 0 || width <= 0))
        return ari_reply_error(r, 400, "invalid_parameter", "sector_width must be a positive time in µs, got '%.64s'", w);
    ari_error err = {0};
    char *json = NULL;
    int rc = ari_dm_clock_json(r->db, id, (int)sectors, width, &json, &err);
    return answer(r, id, rc, json, &err);
}

enum MHD_Result api_dm_topology(ari_request *r)
{
    int64_t id;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0)
        return MHD_YES;
    ari_error err = {0};
    char *json = NULL;
    int rc = ari_dm_topology_json(r->db, id, w0, w1, &json, &err);
    return answer(r, id, rc, json, &err);
}

enum MHD_Result api_dm_metrics(ari_request *r)
{
    int64_t id, points;
    double w0, w1;
    if (ari_path_id(r, 0, &id) < 0 || read_window(r, &w0, &w1) < 0 ||
        ari_param_int(r, "points", 1000, 2, 100000, &points) < 0)
        return MHD_YES;
    ari_error err = {0};
    char *json = NULL;
    int rc = ari_dm_metrics_json(r->db, id, w0, w1, (int)points, &json, &err);
    return answer(r, id, rc, json, &err);
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
