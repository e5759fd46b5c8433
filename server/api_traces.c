/* api_traces.c: the traces resource: list, read, rename, delete, and
 * uploads that become import jobs (with `ensemble`, jobs.c also makes the
 * ensemble of the imported profiles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "import/import.h"
#include "jobs.h"
#include "params.h"
#include "reply.h"
#include "store/store_ensembles.h"
#include "upload.h"

#define MAX_NAME 200

static const char *const kinds[] = {"tasks", "profile", "pdes", "datamove", "events", NULL};
static const char *const sorts[] = {"created_at", "-created_at", "name", "-name", "bytes", "-bytes", NULL};

enum MHD_Result api_traces_list(ari_request *r)
{
    ari_trace_filter f = {0};
    if (ari_param_int(r, "limit", 50, 1, 1000, &f.limit) < 0 ||
        ari_param_int(r, "offset", 0, 0, INT64_MAX, &f.offset) < 0 ||
        ari_param_choice(r, "kind", kinds, &f.kind) < 0 ||
        ari_param_choice(r, "sort", sorts, &f.sort) < 0)
        return MHD_YES;
    f.name = ari_param(r, "name");
    char *traces = NULL;
    int64_t total = 0;
    ari_error err = {0};
    if (ari_traces_list(r->db, &f, &traces, &total, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *list = json_loads(traces, 0, NULL);
    free(traces);
    return ari_reply_json(r, 200, json_pack("{s:o, s:I, s:I, s:I}", "traces", list ? list : json_array(),
                                            "total", (json_int_t)total, "limit", (json_int_t)f.limit,
                                            "offset", (json_int_t)f.offset));
}

static enum MHD_Result reply_trace(ari_request *r, int64_t id, unsigned status)
{
    char *json = NULL;
    ari_error err = {0};
    int rc = ari_traces_get(r->db, id, &json, &err);
    if (rc != 0)
        return ari_reply_lookup_failed(r, rc, &err, "trace", id);
    enum MHD_Result res = ari_reply_text_json(r, status, json);
    free(json);
    return res;
}

enum MHD_Result api_traces_get(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    return reply_trace(r, id, 200);
}

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t utf8_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static const ari_body_field patch_body[] = {
    {"name", ARI_BODY_STRING, 0, NULL},
    {"description", ARI_BODY_STRING, 0, NULL},
    {"time_unit", ARI_BODY_STRING, 0, "one of s, ms, us, ns"},
    {NULL, 0, 0, NULL},
};

/* A time unit given by the user (a PATCH field or an upload's query
 * parameter): NULL or one of ari_time_units, else answers 400. */
static int check_time_unit(ari_request *r, const char *unit)
{
    if (!unit || ari_time_unit_known(unit))
        return 0;
    char shown[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 400, "invalid_parameter",
                    "time_unit must be one of s, ms, us, ns (a label: times are not rescaled), got '%s'",
                    ari_printable(unit, shown));
    return -1;
}

/* Validates {"name"?: string, "description"?: string, "time_unit"?: unit}
 * and nothing else. */
static int patch_fields(ari_request *r, json_t *body, const char **name, const char **description,
                        const char **unit)
{
    *name = *description = *unit = NULL;
    if (ari_body_check(r, body, patch_body) < 0)
        return -1;
    *name = json_string_value(json_object_get(body, "name"));
    *description = json_string_value(json_object_get(body, "description"));
    *unit = json_string_value(json_object_get(body, "time_unit"));
    if (check_time_unit(r, *unit) < 0)
        return -1;
    if (*name && (utf8_length(*name) == 0 || utf8_length(*name) > MAX_NAME)) {
        ari_reply_error(r, 400, "invalid_parameter", "name must have 1 to %d characters", MAX_NAME);
        return -1;
    }
    if (*description && utf8_length(*description) > 10000) {
        ari_reply_error(r, 400, "invalid_parameter", "description must have at most 10000 characters");
        return -1;
    }
    return 0;
}

enum MHD_Result api_traces_patch(ari_request *r)
{
    int64_t id;
    json_t *body = ari_path_id_body(r, &id);
    if (!body)
        return MHD_YES;
    const char *name, *description, *unit;
    enum MHD_Result res = MHD_YES;
    if (patch_fields(r, body, &name, &description, &unit) == 0) {
        ari_error err = {0};
        int rc = unit ? ari_traces_set_time_unit(r->db, id, unit, &err) : 0;
        if (rc == 0)
            rc = ari_traces_update(r->db, id, name, description, &err);
        if (rc != 0)
            res = ari_reply_lookup_failed(r, rc, &err, "trace", id);
        else
            res = reply_trace(r, id, 200);
    }
    json_decref(body);
    return res;
}

enum MHD_Result api_traces_delete(ari_request *r)
{
    return ari_reply_delete_by_id(r, "trace", ari_traces_delete);
}

static int check_upload(ari_request *r, ari_upload *u)
{
    ari_upload_end(u);
    if (u->too_large) {
        ari_reply_error(r, 413, "too_large", "the upload exceeds the limit of %llu bytes",
                        (unsigned long long)u->max_bytes);
        return -1;
    }
    if (u->error[0]) {
        ari_reply_error(r, 400, "invalid_upload", "%s", u->error);
        return -1;
    }
    if (u->nfiles == 0) {
        ari_reply_error(r, 400, "invalid_upload", "the upload holds no file (send files as multipart "
                        "form parts with a filename, or the file itself as the body)");
        return -1;
    }
    if (u->bytes == 0) {
        ari_reply_error(r, 400, "invalid_upload", "the upload is empty");
        return -1;
    }
    return 0;
}

/* The `ensemble` name (field or query parameter): at most
 * ARI_ENSEMBLE_NAME_MAX bytes, else answers 400. */
static int check_ensemble_name(ari_request *r, const ari_upload *u)
{
    if (strlen(u->ensemble_name) <= ARI_ENSEMBLE_NAME_MAX)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "ensemble must be a name of at most %d bytes",
                    ARI_ENSEMBLE_NAME_MAX);
    return -1;
}

enum MHD_Result api_traces_upload(ari_request *r)
{
    ari_upload *u = r->upload;
    if (check_upload(r, u) < 0 || check_ensemble_name(r, u) < 0)
        return MHD_YES;
    const char *unit = ari_param(r, "time_unit");
    if (check_time_unit(r, unit) < 0)
        return MHD_YES;
    snprintf(u->time_unit, sizeof u->time_unit, "%s", unit ? unit : "");
    if (ari_param_bool(r, "allow_duplicate", 0, &u->allow_duplicate) < 0)
        return MHD_YES;
    json_t *params = json_pack("{s:[], s:s, s:I}", "files", "name", u->trace_name, "bytes", (json_int_t)u->bytes);
    if (u->allow_duplicate)
        json_object_set_new(params, "allow_duplicate", json_true());
    if (u->ensemble_name[0])
        json_object_set_new(params, "ensemble", json_string(u->ensemble_name));
    for (size_t i = 0; i < u->nfiles; i++)
        json_array_append_new(json_object_get(params, "files"), json_string(u->client_names[i]));
    int64_t id = 0;
    ari_error err = {0};
    int rc = ari_jobs_enqueue(r->srv->jobs, r->db, params, u, &id, &err);
    json_decref(params);
    if (rc < 0)
        return ari_reply_from_error(r, &err);
    r->upload = NULL; /* the job owns it now */
    char location[64], *job = NULL;
    snprintf(location, sizeof location, "/api/v1/jobs/%lld", (long long)id);
    ari_reply_header(r, "Location", location);
    if (ari_jobs_get(r->db, id, &job, &err) != 0)
        return ari_reply_from_error(r, &err);
    json_t *body = json_pack("{s:o}", "job", json_loads(job, 0, NULL));
    free(job);
    return ari_reply_json(r, 202, body);
}
