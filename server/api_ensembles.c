/* api_ensembles.c: the ensembles resource: create (POST /ensembles), list,
 * read, patch (name, member names, parameters as the user edits them) and
 * delete; and the JSON of an ensemble that every ensemble answer carries.
 * Members and CSV parameters are in api_ensemble_members.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_ensembles.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"

/* ---- encoding ---- */

static json_t *member_json(const ari_ensemble_member *m)
{
    json_t *params = json_object(), *sources = json_object();
    for (int i = 0; params && sources && i < m->nparams; i++) {
        json_object_set_new(params, m->param_keys[i], json_string(m->param_values[i]));
        json_object_set_new(sources, m->param_keys[i], json_string(m->param_sources[i]));
    }
    return json_pack("{s:I, s:s, s:I, s:o*, s:o*}", "trace_id", (json_int_t)m->trace_id, "name", m->name,
                     "position", (json_int_t)m->position, "parameters", params, "sources", sources);
}

static int members_with(const ari_ensemble *e, const char *key)
{
    int n = 0;
    for (int i = 0; i < e->nmembers; i++)
        for (int j = 0; j < e->members[i].nparams; j++)
            n += strcmp(e->members[i].param_keys[j], key) == 0;
    return n;
}

/* [{key, numeric, members}] and the numeric keys alone. */
static int params_json(const ari_ensemble *e, json_t *params, json_t *numeric)
{
    const char **keys = NULL;
    int n = 0;
    ari_error err = {0};
    if (ari_ensemble_param_keys(e, &keys, &n, &err) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        int num = ari_ensemble_param_numeric(e, keys[i]);
        json_array_append_new(params, json_pack("{s:s, s:b, s:i}", "key", keys[i], "numeric", num, "members",
                                                members_with(e, keys[i])));
        if (num)
            json_array_append_new(numeric, json_string(keys[i]));
    }
    free(keys);
    return 0;
}

json_t *ari_ensemble_json(const ari_ensemble *e)
{
    json_t *members = json_array(), *params = json_array(), *numeric = json_array();
    for (int i = 0; members && i < e->nmembers; i++)
        json_array_append_new(members, member_json(&e->members[i]));
    if (!params || !numeric || params_json(e, params, numeric) < 0) {
        json_decref(members);
        json_decref(params);
        json_decref(numeric);
        return NULL;
    }
    return json_pack("{s:I, s:s, s:s, s:i, s:o, s:o, s:o*}", "id", (json_int_t)e->id, "name", e->name,
                     "created_at", e->created_at, "member_count", e->nmembers, "parameters", params,
                     "numeric_parameters", numeric, "members", members);
}

enum MHD_Result ari_reply_ensemble(ari_request *r, int64_t id, unsigned status)
{
    ari_ensemble e;
    ari_error err = {0};
    if (ari_ensemble_get(r->db, id, &e, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *body = ari_ensemble_json(&e);
    ari_ensemble_free(&e);
    if (!body)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    return ari_reply_json(r, status, body);
}

int ari_ensemble_value_text(const json_t *v, char buf[64], const char **out)
{
    *out = buf;
    if (json_is_string(v))
        *out = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(buf, 64, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        double x = json_real_value(v);
        snprintf(buf, 64, "%.15g", x);
        if (strtod(buf, NULL) != x)
            snprintf(buf, 64, "%.17g", x);
    } else if (json_is_boolean(v))
        snprintf(buf, 64, "%s", json_is_true(v) ? "true" : "false");
    else
        return json_is_null(v) ? 1 : -1;
    return 0;
}

/* ---- trace id lists ---- */

int ari_ensemble_trace_ids(ari_request *r, const json_t *arr, const char *field, int64_t **ids, size_t *n)
{
    size_t count = json_array_size(arr);
    *ids = NULL;
    *n = 0;
    if (count > ARI_ENSEMBLE_MAX_MEMBERS) {
        ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER, "%s lists %zu traces, at most %d", field, count,
                        ARI_ENSEMBLE_MAX_MEMBERS);
        return -1;
    }
    if (count && !(*ids = calloc(count, sizeof **ids))) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        const json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) <= 0) {
            ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER,
                            "%s[%zu] must be a trace id (a positive "
                            "integer, see GET /api/v1/traces?kind=profile)",
                            field, i);
            free(*ids);
            *ids = NULL;
            return -1;
        }
        (*ids)[i] = json_integer_value(v);
    }
    *n = count;
    return 0;
}

/* ---- create, list, read, delete ---- */

static const ari_body_field create_body[] = {
    {"name", ARI_BODY_STRING, 1, "the ensemble's name (a string)"},
    {"members", ARI_BODY_ARRAY, 0, "an array of profile trace ids"},
    {NULL, 0, 0, NULL},
};

enum MHD_Result api_ensembles_create(ari_request *r)
{
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    int64_t *ids = NULL, id = 0;
    size_t n = 0;
    enum MHD_Result res = MHD_YES;
    if (ari_body_check(r, body, create_body) == 0 &&
        ari_ensemble_trace_ids(r, json_object_get(body, "members"), "members", &ids, &n) == 0) {
        ari_error err = {0};
        if (ari_ensemble_create(r->db, json_string_value(json_object_get(body, "name")), ids, n, &id, &err) <
            0)
            res = ari_reply_from_error(r, &err);
        else {
            char location[64];
            snprintf(location, sizeof location, "/api/v1/ensembles/%lld", (long long)id);
            ari_reply_header(r, "Location", location);
            res = ari_reply_ensemble(r, id, 201);
        }
    }
    free(ids);
    json_decref(body);
    return res;
}

enum MHD_Result api_ensembles_list(ari_request *r)
{
    ari_ensemble_info *infos = NULL;
    size_t n = 0;
    ari_error err = {0};
    if (ari_ensembles_list(r->db, &infos, &n, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(list, json_pack("{s:I, s:s, s:s, s:I}", "id", (json_int_t)infos[i].id, "name",
                                              infos[i].name, "created_at", infos[i].created_at,
                                              "member_count", (json_int_t)infos[i].nmembers));
    ari_ensemble_infos_free(infos, n);
    return ari_reply_json(r, 200, json_pack("{s:o*, s:I}", "ensembles", list, "total", (json_int_t)n));
}

enum MHD_Result api_ensembles_get(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    return ari_reply_ensemble(r, id, 200);
}

enum MHD_Result api_ensembles_delete(ari_request *r)
{
    return ari_reply_delete_by_id(r, "ensemble", ari_ensemble_delete);
}

/* ---- patch ---- */

static const ari_body_field patch_body[] = {
    {"name", ARI_BODY_STRING, 0, NULL},
    {"members", ARI_BODY_ARRAY, 0, "an array of {trace_id, name?, parameters?}"},
    {NULL, 0, 0, NULL},
};

static const ari_body_field member_body[] = {
    {"trace_id", ARI_BODY_INTEGER, 1, "the member's trace id (an integer)"},
    {"name", ARI_BODY_STRING, 0, NULL},
    {"parameters", ARI_BODY_OBJECT, 0,
     "an object of parameter: value (string, number, boolean, or null "
     "to remove it)"},
    {NULL, 0, 0, NULL},
};

/* What a PATCH body asks, in arrays the patch points into. */
typedef struct patch_build {
    ari_ensemble_patch p;
    int64_t *ids;
    const char **names;
    ari_ensemble_param_set *sets;
    char (*bufs)[64];
} patch_build;

static void patch_build_free(patch_build *b)
{
    free(b->ids);
    free(b->names);
    free(b->sets);
    free(b->bufs);
}

static size_t count_params(const json_t *members)
{
    size_t n = 0, i;
    const json_t *m;
    json_array_foreach(members, i, m) n += json_object_size(json_object_get(m, "parameters"));
    return n;
}

static int add_member_params(ari_request *r, patch_build *b, int64_t trace_id, const json_t *params)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)params, key, v)
    {
        size_t k = b->p.nsets;
        const char *text = NULL;
        int rc = ari_ensemble_value_text(v, b->bufs[k], &text);
        if (rc < 0) {
            char shown[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER,
                            "parameter '%s' of trace %lld must be a string, "
                            "a number, a boolean or null (to remove it)",
                            ari_printable(key, shown), (long long)trace_id);
            return -1;
        }
        b->sets[k] = (ari_ensemble_param_set){trace_id, key, rc == 1 ? NULL : text};
        b->p.nsets++;
    }
    return 0;
}

static int read_patch_member(ari_request *r, patch_build *b, json_t *m)
{
    if (!json_is_object(m)) {
        ari_reply_error(r, 400, ARI_E_INVALID_PARAMETER,
                        "members must hold objects {trace_id, name?, "
                        "parameters?}");
        return -1;
    }
    if (ari_body_check(r, m, member_body) < 0)
        return -1;
    int64_t trace_id = json_integer_value(json_object_get(m, "trace_id"));
    const char *name = json_string_value(json_object_get(m, "name"));
    if (name) {
        b->ids[b->p.nnames] = trace_id;
        b->names[b->p.nnames++] = name;
    }
    json_t *params = json_object_get(m, "parameters");
    return params ? add_member_params(r, b, trace_id, params) : 0;
}

static int read_patch(ari_request *r, json_t *body, patch_build *b)
{
    if (ari_body_check(r, body, patch_body) < 0)
        return -1;
    json_t *members = json_object_get(body, "members");
    size_t nm = json_array_size(members), np = count_params(members);
    b->ids = calloc(nm + 1, sizeof *b->ids);
    b->names = calloc(nm + 1, sizeof *b->names);
    b->sets = calloc(np + 1, sizeof *b->sets);
    b->bufs = calloc(np + 1, sizeof *b->bufs);
    if (!b->ids || !b->names || !b->sets || !b->bufs) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    b->p = (ari_ensemble_patch){.name = json_string_value(json_object_get(body, "name")),
                                .member_ids = b->ids,
                                .member_names = b->names,
                                .sets = b->sets,
                                .source = "user"};
    for (size_t i = 0; i < nm; i++)
        if (read_patch_member(r, b, json_array_get(members, i)) < 0)
            return -1;
    return 0;
}

enum MHD_Result api_ensembles_patch(ari_request *r)
{
    int64_t id;
    json_t *body = ari_path_id_body(r, &id);
    if (!body)
        return MHD_YES;
    patch_build b = {0};
    enum MHD_Result res = MHD_YES;
    if (read_patch(r, body, &b) == 0) {
        ari_error err = {0};
        if (ari_ensemble_update(r->db, id, &b.p, &err) < 0)
            res = ari_reply_from_error(r, &err);
        else
            res = ari_reply_ensemble(r, id, 200);
    }
    patch_build_free(&b);
    json_decref(body);
    return res;
}
