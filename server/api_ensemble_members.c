/* api_ensemble_members.c: the members of an ensemble (add, remove) and
 * their parameters set from a CSV of run -> parameters
 * (POST /ensembles/{id}/parameters, a text/csv body: the header
 * `run,param1,param2,...`, one row per run, matched by member name or
 * trace id; an empty cell leaves that parameter as it is). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_ensembles.h"
#include "handlers.h"
#include "ingest/csv.h"
#include "params.h"
#include "reply.h"
#include "upload.h"
#include "util/vec.h"

#define MAX_CSV_BYTES (1 << 20)

static const ari_body_field add_body[] = {
    {"trace_ids", ARI_BODY_ARRAY, 1, "an array of profile trace ids"},
    {NULL, 0, 0, NULL},
};

enum MHD_Result api_ensemble_members_add(ari_request *r)
{
    int64_t id;
    json_t *body = ari_path_id_body(r, &id);
    if (!body)
        return MHD_YES;
    enum MHD_Result res = MHD_YES;
    int64_t *ids = NULL;
    size_t n = 0;
    if (ari_body_check(r, body, add_body) == 0 &&
        ari_ensemble_trace_ids(r, json_object_get(body, "trace_ids"), "trace_ids", &ids, &n) == 0) {
        ari_error err = {0};
        if (ari_ensemble_add_members(r->db, id, ids, n, &err) < 0)
            res = ari_reply_from_error(r, &err);
        else
            res = ari_reply_ensemble(r, id, 200);
    }
    free(ids);
    json_decref(body);
    return res;
}

enum MHD_Result api_ensemble_members_delete(ari_request *r)
{
    int64_t id, trace_id;
    if (ari_path_id(r, 0, &id) < 0 || ari_path_id(r, 1, &trace_id) < 0)
        return MHD_YES;
    ari_error err = {0};
    if (ari_ensemble_remove_member(r->db, id, trace_id, &err) < 0)
        return ari_reply_from_error(r, &err);
    return ari_reply_empty(r, 204);
}

/* ---- parameters from a CSV ---- */

typedef struct csv_plan {
    char **header; /* copies; header[0] is "run" */
    size_t ncols;
    ari_ensemble_param_set *sets; /* keys point into header, values owned */
    size_t nsets, cap;
    json_t *unknown; /* [{line, run}] */
    size_t rows, matched;
} csv_plan;

static void csv_plan_free(csv_plan *p)
{
    for (size_t i = 0; i < p->ncols; i++)
        free(p->header[i]);
    free(p->header);
    for (size_t i = 0; i < p->nsets; i++)
        free((char *)p->sets[i].value);
    free(p->sets);
    json_decref(p->unknown);
}

static int nomem(ari_request *r)
{
    ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    return -1;
}

/* 400 invalid_csv; the CSV reader's "parameters.csv:N: reason" is told
 * as "line N: reason", as the handler's own messages. */
static int csv_error(ari_request *r, const char *message)
{
    static const char prefix[] = "parameters.csv:";
    if (strncmp(message, prefix, sizeof prefix - 1) == 0)
        ari_reply_error(r, 400, "invalid_csv", "line %s", message + sizeof prefix - 1);
    else
        ari_reply_error(r, 400, "invalid_csv", "%s", message);
    return -1;
}

static int csv_fail(ari_request *r, uint64_t line, const char *fmt, const char *what)
{
    char shown[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 400, "invalid_csv", "line %llu: %s%s%s", (unsigned long long)line, fmt,
                    what ? ari_printable(what, shown) : "", what ? "'" : "");
    return -1;
}

static int read_header(ari_request *r, ari_csv *c, csv_plan *p)
{
    char **f;
    size_t n;
    ari_error err = {0};
    int rc = ari_csv_next(c, &f, &n, &err);
    if (rc < 0)
        return csv_error(r, err.message);
    if (rc == 1 && strncmp(f[0], "\xEF\xBB\xBF", 3) == 0)
        f[0] += 3; /* the byte order mark of a spreadsheet's UTF-8 CSV */
    if (rc == 0 || n < 2 || strcasecmp(f[0], "run") != 0)
        return csv_fail(r, rc ? ari_csv_lineno(c) : 1,
                        "the header must be run,PARAM1,PARAM2,... "
                        "(a first column called run, then one column per parameter)",
                        NULL);
    if (!(p->header = calloc(n, sizeof *p->header)))
        return nomem(r);
    for (size_t i = 0; i < n; i++, p->ncols++) {
        if (!*f[i] || strlen(f[i]) > ARI_ENSEMBLE_KEY_MAX)
            return csv_fail(r, ari_csv_lineno(c), "a parameter name must have 1 to 128 bytes", NULL);
        for (size_t j = 1; j < i; j++)
            if (strcmp(p->header[j], f[i]) == 0)
                return csv_fail(r, ari_csv_lineno(c), "the header repeats the column '", f[i]);
        if (!(p->header[i] = strdup(f[i])))
            return nomem(r);
    }
    return 0;
}

/* The member a row's run names: by member name (exactly one), else by
 * trace id. 0 and *trace_id, 1 if none, -1 after answering (ambiguous). */
static int match_run(ari_request *r, const ari_ensemble *e, const char *run, uint64_t line, int64_t *trace_id)
{
    int found = 0;
    for (int i = 0; i < e->nmembers; i++)
        if (strcmp(e->members[i].name, run) == 0) {
            *trace_id = e->members[i].trace_id;
            found++;
        }
    if (found > 1)
        return csv_fail(r, line, "several members are called '", run);
    int64_t id;
    for (int i = 0; !found && ari_parse_int64(run, &id) == 0 && i < e->nmembers; i++)
        if (e->members[i].trace_id == id) {
            *trace_id = id;
            found = 1;
        }
    return found ? 0 : 1;
}

static int plan_row(ari_request *r, csv_plan *p, int64_t trace_id, char **f, uint64_t line)
{
    for (size_t j = 1; j < p->ncols; j++) {
        if (!*f[j])
            continue;
        if (strlen(f[j]) > ARI_ENSEMBLE_VALUE_MAX)
            return csv_fail(r, line, "a value is longer than 512 bytes, in the column '", p->header[j]);
        if (ari_vec_reserve((void **)&p->sets, &p->cap, p->nsets + 1, sizeof *p->sets) < 0)
            return nomem(r);
        char *value = strdup(f[j]);
        if (!value)
            return nomem(r);
        p->sets[p->nsets++] = (ari_ensemble_param_set){trace_id, p->header[j], value};
    }
    return 0;
}

static int read_row(ari_request *r, const ari_ensemble *e, csv_plan *p, char **f, size_t n, uint64_t line)
{
    char msg[96];
    if (n != p->ncols) {
        snprintf(msg, sizeof msg, "the row has %zu fields, the header %zu", n, p->ncols);
        return csv_fail(r, line, msg, NULL);
    }
    if (!*f[0])
        return csv_fail(r, line, "the run (first column) is empty", NULL);
    p->rows++;
    int64_t trace_id = 0;
    int rc = match_run(r, e, f[0], line, &trace_id);
    if (rc == 1)
        return json_array_append_new(p->unknown,
                                     json_pack("{s:I, s:s}", "line", (json_int_t)line, "run", f[0]));
    if (rc < 0)
        return -1;
    p->matched++;
    return plan_row(r, p, trace_id, f, line);
}

static int read_csv(ari_request *r, const char *path, const ari_ensemble *e, csv_plan *p)
{
    ari_error err = {0};
    ari_csv *c = ari_csv_open(path, "parameters.csv", &err);
    if (!c)
        return csv_error(r, err.message);
    int rc = read_header(r, c, p), step;
    char **f;
    size_t n;
    while (rc == 0 && (step = ari_csv_next(c, &f, &n, &err)) == 1)
        rc = read_row(r, e, p, f, n, ari_csv_lineno(c));
    if (rc == 0 && step < 0)
        rc = csv_error(r, err.message);
    ari_csv_close(c);
    return rc;
}

static int check_csv_upload(ari_request *r, ari_upload *u)
{
    ari_upload_end(u);
    if (u->too_large || u->bytes > MAX_CSV_BYTES) {
        ari_reply_error(r, 413, "too_large", "a parameters CSV may have at most %d bytes", MAX_CSV_BYTES);
        return -1;
    }
    if (u->error[0])
        return csv_error(r, u->error);
    if (u->nfiles == 0 || u->bytes == 0)
        return csv_error(r, "the body is empty: send the CSV (header run,PARAM1,...) as the body with "
                            "Content-Type: text/csv");
    return 0;
}

static enum MHD_Result apply_plan(ari_request *r, int64_t id, csv_plan *p)
{
    ari_ensemble_patch patch = {.sets = p->sets, .nsets = p->nsets, .source = "csv"};
    ari_error err = {0};
    if (ari_ensemble_update(r->db, id, &patch, &err) < 0)
        return ari_reply_from_error(r, &err);
    ari_ensemble e;
    if (ari_ensemble_get(r->db, id, &e, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *body = json_pack("{s:o*, s:I, s:I, s:I, s:O}", "ensemble", ari_ensemble_json(&e), "rows",
                             (json_int_t)p->rows, "matched", (json_int_t)p->matched, "parameters_set",
                             (json_int_t)p->nsets, "unknown_runs", p->unknown);
    ari_ensemble_free(&e);
    return ari_reply_json(r, 200, body);
}

enum MHD_Result api_ensemble_parameters_csv(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0 || check_csv_upload(r, r->upload) < 0)
        return MHD_YES;
    ari_ensemble e;
    ari_error err = {0};
    if (ari_ensemble_get(r->db, id, &e, &err) < 0)
        return ari_reply_from_error(r, &err);
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", r->upload->dir, r->upload->names[0]);
    csv_plan p = {.unknown = json_array()};
    enum MHD_Result res = MHD_YES;
    if (read_csv(r, path, &e, &p) == 0)
        res = apply_plan(r, id, &p);
    ari_ensemble_free(&e);
    csv_plan_free(&p);
    return res;
}
