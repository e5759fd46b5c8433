/* api_stream_events.c: watching a live run (contract18 section 3): the
 * Server-Sent Events stream (GET /streams/{id}/events, with Last-Event-ID
 * and ?replay=HZ on a closed run), the snapshot (GET .../state), the shared
 * controls (POST .../control) and the communication matrices (GET
 * .../comm, .../comm/diff). The computation is the run's hub (live_hub.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "live_hub.h"
#include "params.h"
#include "reply.h"
#include "store/stream_store.h"

/* Answers a hub error: busy 503 (Retry-After), others by code. */
static enum MHD_Result hub_error(ari_request *r, int rc, const ari_error *err, int64_t id)
{
    if (rc == 1)
        return ari_reply_error(r, 404, "not_found", "no live run %lld", (long long)id);
    if (strcmp(err->code, ARI_E_BUSY) == 0) {
        ari_reply_header(r, "Retry-After", "1");
        return ari_reply_error(r, 503, ARI_E_BUSY, "%s", err->message);
    }
    return ari_reply_from_error(r, err);
}

/* The Last-Event-ID header, or ?last_event_id=; -1 when neither. Answers
 * 400 (returns -2) on a bad value. */
static int64_t last_event_id(ari_request *r)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    int64_t v = -1;
    if (h && *h) {
        if (ari_parse_int64(h, &v) < 0 || v < 0) {
            char buf[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "Last-Event-ID must be a whole number >= 0, got '%s'",
                            ari_printable(h, buf));
            return -2;
        }
        return v;
    }
    if (ari_param(r, "last_event_id")) {
        if (ari_param_int(r, "last_event_id", -1, 0, INT64_MAX, &v) < 0)
            return -2;
    }
    return v;
}

static enum MHD_Result queue_events(ari_request *r, struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    return ari_queue(r, 200, resp);
}

enum MHD_Result api_stream_events(ari_request *r)
{
    int64_t id, last;
    double hz;
    if (ari_path_id(r, 0, &id) < 0 || (last = last_event_id(r)) == -2 ||
        ari_param_number(r, "replay", 0, 0, 1000, &hz) < 0)
        return MHD_YES;
    if (ari_param(r, "replay") && !(hz > 0))
        return ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "replay must be a rate in (0, 1000] points a second");
    ari_error err = {0};
    ari_stream_status st;
    int rc = ari_stream_status_get(r->db, id, &st, &err);
    if (rc != 0)
        return hub_error(r, rc, &err, id);
    struct MHD_Response *resp = NULL;
    if (hz > 0) {
        if (ari_live_replay_attach(r->srv, r->db, id, hz, r->conn, last, &resp, &err) < 0)
            return hub_error(r, -1, &err, id);
        return queue_events(r, resp);
    }
    ari_live_hub *h;
    if ((rc = ari_live_hub_get(r->srv, r->db, id, &h, &err)) != 0)
        return hub_error(r, rc, &err, id);
    rc = ari_live_hub_attach(h, r->conn, last, &resp, &err);
    ari_live_hub_put(h);
    if (rc < 0)
        return hub_error(r, -1, &err, id);
    return queue_events(r, resp);
}

/* The run's name (from its stream document), "" if unknown. */
static void run_name(ari_request *r, int64_t id, char *out, size_t size)
{
    char *json = NULL;
    ari_error err = {0};
    out[0] = '\0';
    if (ari_stream_get_json(r->db, id, &json, &err) != 0)
        return;
    json_t *doc = json_loads(json, 0, NULL);
    const char *name = json_string_value(json_object_get(doc, "name"));
    snprintf(out, size, "%s", name ? name : "");
    json_decref(doc);
    free(json);
}

enum MHD_Result api_stream_state(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_live_hub *h;
    int rc = ari_live_hub_get(r->srv, r->db, id, &h, &err);
    if (rc != 0)
        return hub_error(r, rc, &err, id);
    char name[256];
    run_name(r, id, name, sizeof name);
    json_t *doc = ari_live_hub_state(h, name);
    ari_live_hub_put(h);
    return ari_reply_doc(r, doc, 15);
}

enum MHD_Result api_stream_control(ari_request *r)
{
    int64_t id;
    json_t *body = ari_path_id_body(r, &id);
    if (!body)
        return MHD_YES;
    ari_error err = {0};
    ari_live_hub *h;
    int rc = ari_live_hub_get(r->srv, r->db, id, &h, &err);
    if (rc != 0) {
        json_decref(body);
        return hub_error(r, rc, &err, id);
    }
    json_t *out = NULL;
    rc = ari_live_hub_control(h, r->db, body, &out, &err);
    ari_live_hub_put(h);
    json_decref(body);
    if (rc < 0)
        return ari_reply_from_error(r, &err);
    return ari_reply_doc(r, out, 8);
}

/* level= (a name) and group= (an entity id, or absent). 0, or -1 answered. */
static int comm_params(ari_request *r, const char **level, int64_t *group)
{
    *level = ari_param(r, "level");
    if (*level && (!**level || strlen(*level) >= 64)) {
        ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "level must be a level name such as PE or KP");
        return -1;
    }
    return ari_param_int(r, "group", -1, 0, INT32_MAX, group);
}

enum MHD_Result api_stream_comm(ari_request *r)
{
    int64_t id, t = -1, group;
    const char *level;
    if (ari_path_id(r, 0, &id) < 0 || comm_params(r, &level, &group) < 0)
        return MHD_YES;
    const char *ts = ari_param(r, "t");
    if (ts && strcmp(ts, "live") != 0 && ari_param_int(r, "t", -1, 0, INT64_MAX, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    ari_live_hub *h;
    int rc = ari_live_hub_get(r->srv, r->db, id, &h, &err);
    if (rc != 0)
        return hub_error(r, rc, &err, id);
    json_t *doc = ari_live_hub_comm(h, t, level, group, &err);
    ari_live_hub_put(h);
    if (!doc)
        return ari_reply_from_error(r, &err);
    return ari_reply_doc(r, doc, 8);
}

enum MHD_Result api_stream_comm_diff(ari_request *r)
{
    int64_t id, base, group;
    const char *level;
    if (ari_path_id(r, 0, &id) < 0 || comm_params(r, &level, &group) < 0)
        return MHD_YES;
    if (!ari_param(r, "base"))
        return ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "base is required: a time index, e.g. base=0");
    if (ari_param_int(r, "base", 0, 0, INT64_MAX, &base) < 0)
        return MHD_YES;
    const char *cps = ari_param(r, "cps");
    if (cps && strlen(cps) > 8192)
        return ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "cps is too long");
    ari_error err = {0};
    ari_live_hub *h;
    int rc = ari_live_hub_get(r->srv, r->db, id, &h, &err);
    if (rc != 0)
        return hub_error(r, rc, &err, id);
    json_t *doc = ari_live_hub_comm_diff(h, base, cps, level, group, &err);
    ari_live_hub_put(h);
    if (!doc)
        return ari_reply_from_error(r, &err);
    return ari_reply_doc(r, doc, 8);
}
