/* api_streams.c: live runs, the producer's side (issue 18): create a run
 * (POST /api/v1/streams), append samples (POST .../samples: NDJSON or
 * length-prefixed frames, spooled like uploads, parsed whole, stored in
 * one transaction, then handed to the run's live hub), close it (POST
 * .../close), and list or read runs (GET /api/v1/streams[/{id}]). The
 * samples and close routes take the run's write token (X-Stream-Token or
 * Authorization: Bearer), or, when the server runs with auth, a server
 * token of the write scope; their route scope is none so that auth.c lets
 * the stream token through to here. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "handlers.h"
#include "ingest/stream_records.h"
#include "live_hub.h"
#include "params.h"
#include "reply.h"
#include "store/stream_store.h"
#include "upload.h"

#define MAX_NAME 256

/* ---- tokens ---------------------------------------------------------------------------- */

static const char *header(ari_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}


/* 0 if the caller may write to run id (its stream token, or with auth on
 * a server token of the write scope); -1 after answering 401/403. */
static int stream_auth(ari_request *r, int64_t id)
{
    const char *x = header(r, "X-Stream-Token"), *b = ari_auth_bearer(r);
    ari_error err = {0};
    for (int i = 0; i < 2; i++) {
        const char *tok = i == 0 ? x : b;
        if (!tok)
            continue;
        int rc = ari_stream_check_token(r->db, id, tok, &err);
        if (rc < 0)
            return ari_reply_from_error(r, &err), -1;
        if (rc == 0)
            return 0;
    }
    if (r->srv->cfg.auth && b)
        return ari_auth_check(r, ARI_SCOPE_WRITE); /* a server token, or 401/403 */
    if (!x && !b) {
        ari_reply_header(r, "WWW-Authenticate", "Bearer realm=\"ariadne\"");
        ari_reply_error(r, 401, "unauthorized",
                        "this live run takes its write token: send 'X-Stream-Token: <token>' or "
                        "'Authorization: Bearer <token>' (the token POST /api/v1/streams gave)");
        return -1;
    }
    ari_reply_error(r, 403, "forbidden", "the token is not this live run's write token");
    return -1;
}

/* The run's status: 0, or -1 after answering 404 / an error. */
static int run_status(ari_request *r, int64_t id, ari_stream_status *st)
{
    ari_error err = {0};
    int rc = ari_stream_status_get(r->db, id, st, &err);
    if (rc == 0)
        return 0;
    if (rc == 1)
        ari_reply_error(r, 404, "not_found", "no live run %lld", (long long)id);
    else
        ari_reply_from_error(r, &err);
    return -1;
}

static enum MHD_Result closed_reply(ari_request *r, int64_t id)
{
    return ari_reply_error(r, 409, "closed", "live run %lld is closed: it takes no more samples", (long long)id);
}

/* ---- POST /api/v1/streams ------------------------------------------------------------------ */

static int create_params(ari_request *r, json_t *body, const char **name, const char **description, int *kps)
{
    json_t *n = json_object_get(body, "name"), *d = json_object_get(body, "description"),
           *k = json_object_get(body, "kps_per_pe");
    if (n && !json_is_null(n) && (!json_is_string(n) || json_string_length(n) > MAX_NAME)) {
        ari_reply_error(r, 400, "invalid_parameter", "name must be a string of at most %d bytes", MAX_NAME);
        return -1;
    }
    if (d && !json_is_null(d) && (!json_is_string(d) || json_string_length(d) > 4096)) {
        ari_reply_error(r, 400, "invalid_parameter", "description must be a string of at most 4096 bytes");
        return -1;
    }
    if (k && !json_is_null(k) && (!json_is_integer(k) || json_integer_value(k) < 1 || json_integer_value(k) > 1000000)) {
        ari_reply_error(r, 400, "invalid_parameter", "kps_per_pe must be a whole number from 1 to 1000000");
        return -1;
    }
    *name = json_is_string(n) ? json_string_value(n) : NULL;
    *description = json_is_string(d) ? json_string_value(d) : NULL;
    *kps = json_is_integer(k) ? (int)json_integer_value(k) : 0;
    return 0;
}

static json_t *links(int64_t id)
{
    char ev[96], sa[96], cl[96], state[96];
    snprintf(ev, sizeof ev, "/api/v1/streams/%lld/events", (long long)id);
    snprintf(sa, sizeof sa, "/api/v1/streams/%lld/samples", (long long)id);
    snprintf(cl, sizeof cl, "/api/v1/streams/%lld/close", (long long)id);
    snprintf(state, sizeof state, "/api/v1/streams/%lld/state", (long long)id);
    return json_pack("{s:s, s:s, s:s, s:s}", "events", ev, "samples", sa, "close", cl, "state", state);
}

enum MHD_Result api_streams_create(ari_request *r)
{
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    const char *name, *description;
    int kps;
    if (create_params(r, body, &name, &description, &kps) < 0) {
        json_decref(body);
        return MHD_YES;
    }
    int64_t id = 0;
    char token[ARI_STREAM_TOKEN_HEX + 1];
    ari_error err = {0};
    int rc = ari_stream_create(r->db, name, description, kps, &id, token, &err);
    json_decref(body);
    if (rc < 0)
        return ari_reply_from_error(r, &err);
    json_t *out = links(id);
    if (out) {
        json_object_set_new(out, "trace_id", json_integer(id));
        json_object_set_new(out, "token", json_string(token));
    }
    char loc[96];
    snprintf(loc, sizeof loc, "/api/v1/streams/%lld", (long long)id);
    ari_reply_header(r, "Location", loc);
    return ari_reply_json(r, 201, out);
}

/* ---- POST /api/v1/streams/{id}/samples -------------------------------------------------- */

static int is_frames(ari_request *r, int *frames)
{
    const char *type = header(r, "Content-Type");
    *frames = 0;
    if (!type || !*type)
        return 0;
    while (*type == ' ')
        type++;
    size_t n = strcspn(type, "; \t");
    if (n == strlen("application/x-ariadne-frames") && strncasecmp(type, "application/x-ariadne-frames", n) == 0) {
        *frames = 1;
        return 0;
    }
    static const char *const ndjson[] = {"application/x-ndjson", "application/ndjson", "application/jsonl",
                                         "application/json", "text/plain", "application/octet-stream", NULL};
    for (int i = 0; ndjson[i]; i++)
        if (n == strlen(ndjson[i]) && strncasecmp(type, ndjson[i], n) == 0)
            return 0;
    ari_reply_error(r, 415, "unsupported_media_type",
                    "samples are application/x-ndjson (one JSON record a line) or application/x-ariadne-frames "
                    "([uint32 LE size][record] frames); got '%.100s'", type);
    return -1;
}

/* Parses the spooled body into b: 0, or -1 after answering 400/413. */
static int parse_body(ari_request *r, ari_stream_batch *b, int frames)
{
    ari_upload *u = r->upload;
    if (u->too_large)
        return ari_reply_error(r, 413, "too_large", "the body exceeds the limit of %llu bytes",
                               (unsigned long long)r->srv->cfg.max_upload), -1;
    if (u->error[0])
        return ari_reply_error(r, 400, "invalid_input", "%s", u->error), -1;
    if (u->nfiles == 0 || u->bytes == 0)
        return 0;
    if (u->nfiles > 1)
        return ari_reply_error(r, 400, "invalid_input", "send the samples as the body, not as a multipart form"), -1;
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", u->dir, u->names[0]);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_reply_error(r, 500, "io_error", "cannot read the spooled body"), -1;
    ari_error err = {0};
    int rc = ari_stream_parse_file(b, f, frames, &err);
    fclose(f);
    if (rc < 0) {
        ari_reply_error(r, strcmp(err.code, ARI_E_TOO_LARGE) == 0 ? 413 : strcmp(err.code, ARI_E_NOMEM) == 0 ? 503 : 400,
                        err.code, "nothing was stored: %s", err.message);
        return -1;
    }
    return 0;
}

static enum MHD_Result backpressure(ari_request *r, size_t backlog)
{
    ari_reply_header(r, "Retry-After", "1");
    return ari_reply_error(r, 503, "backpressure",
                           "the run's analyses are %zu records behind (at most %d): retry in a second", backlog,
                           ARI_LIVE_MAX_BACKLOG);
}

static enum MHD_Result appended(ari_request *r, const ari_live_applied *a)
{
    json_t *out = json_pack("{s:I, s:I, s:I, s:I, s:I}", "accepted", (json_int_t)a->nrecords, "points",
                            (json_int_t)a->new_points, "n_points", (json_int_t)a->n_points, "first_seq",
                            (json_int_t)a->first_seq, "last_seq", (json_int_t)(a->first_seq + (int64_t)a->nrecords - 1));
    if (out)
        json_object_set_new(out, "last_key", isnan(a->last_key) ? json_null() : json_real(a->last_key));
    return ari_reply_json(r, 200, out);
}

enum MHD_Result api_stream_samples(ari_request *r)
{
    int64_t id;
    if (!r->upload)
        return ari_reply_error(r, 500, "internal", "the body was not spooled");
    ari_upload_end(r->upload);
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    ari_stream_status st;
    int frames;
    if (run_status(r, id, &st) < 0 || stream_auth(r, id) < 0 || is_frames(r, &frames) < 0)
        return MHD_YES;
    if (!st.open)
        return closed_reply(r, id);
    size_t backlog = ari_live_hub_backlog(r->srv, id);
    if (backlog > ARI_LIVE_MAX_BACKLOG)
        return backpressure(r, backlog);
    ari_stream_batch b;
    ari_error err = {0};
    if (ari_stream_batch_init(&b, st.kps_per_pe, &err) < 0)
        return ari_reply_from_error(r, &err);
    enum MHD_Result res = MHD_YES;
    if (parse_body(r, &b, frames) == 0) {
        ari_live_applied a;
        int rc = ari_stream_append(r->db, id, &b, &a, &err);
        if (rc == 1)
            res = closed_reply(r, id);
        else if (rc < 0)
            res = ari_reply_from_error(r, &err);
        else {
            if (b.nrecords)
                ari_live_hub_appended(r->srv, id, &a);
            res = appended(r, &a);
        }
    }
    ari_stream_batch_free(&b);
    return res;
}

/* ---- POST /api/v1/streams/{id}/close --------------------------------------------------- */

enum MHD_Result api_stream_close(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    ari_stream_status st;
    if (run_status(r, id, &st) < 0 || stream_auth(r, id) < 0)
        return MHD_YES;
    ari_error err = {0};
    int rc = ari_stream_close(r->db, id, &err);
    if (rc == 1)
        return ari_reply_error(r, 409, "closed", "live run %lld is already closed", (long long)id);
    if (rc < 0)
        return ari_reply_from_error(r, &err);
    ari_live_hub_closed(r->srv, id);
    char trace[96];
    snprintf(trace, sizeof trace, "/api/v1/traces/%lld", (long long)id);
    return ari_reply_json(r, 200, json_pack("{s:I, s:s, s:I, s:I, s:s}", "trace_id", (json_int_t)id, "state", "closed",
                                            "n_points", (json_int_t)st.n_points, "n_records",
                                            (json_int_t)st.n_records, "trace", trace));
}

/* ---- GET /api/v1/streams[/{id}] ------------------------------------------------------- */

enum MHD_Result api_streams_list(ari_request *r)
{
    char *json = NULL;
    ari_error err = {0};
    if (ari_streams_list_json(r->db, &json, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *list = json_loads(json, 0, NULL);
    free(json);
    return ari_reply_json(r, 200, list ? json_pack("{s:o}", "streams", list) : NULL);
}

enum MHD_Result api_streams_get(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    char *json = NULL;
    ari_error err = {0};
    int rc = ari_stream_get_json(r->db, id, &json, &err);
    if (rc != 0)
        return ari_reply_lookup_failed(r, rc, &err, "live run", id);
    json_t *doc = json_loads(json, 0, NULL);
    free(json);
    if (doc) {
        json_object_set_new(doc, "backlog", json_integer((json_int_t)ari_live_hub_backlog(r->srv, id)));
        json_object_set_new(doc, "links", links(id));
    }
    return ari_reply_json(r, 200, doc);
}
