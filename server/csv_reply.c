/* csv_reply.c: owns `format` and `table` of the analysis endpoints: the
 * check before the handler and the CSV answer built from the handler's
 * JSON (see csv_reply.h). */
#include "csv_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_tables.h"
#include "params.h"
#include "reply.h"
#include "router.h"

static const char *const formats[] = {"json", "csv", NULL};

/* The route reads `format` itself (GET /traces/{}/tree: text or json). */
static int own_format(const ari_request *r)
{
    return strcmp(r->route->pattern, "/api/v1/traces/{}/tree") == 0;
}

static int is_csv(ari_request *r)
{
    const char *f = ari_param(r, "format");
    return f && strcmp(f, "csv") == 0;
}

/* 400 for a table= that the view does not have, listing those it has. */
static int check_table(ari_request *r, const ari_csv_view *v)
{
    const char *name = ari_param(r, "table");
    if (!name || ari_csv_table_find(v, name))
        return 0;
    char list[256] = "", shown[ARI_PRINTABLE_SIZE];
    size_t used = 0;
    for (const ari_csv_table *t = v->tables; t->name && used < sizeof list; t++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", t->name);
    ari_reply_error(r, 400, "invalid_parameter", "table must be one of %s, got '%s'", list,
                    ari_printable(name, shown));
    return -1;
}

int ari_csv_admit(ari_request *r)
{
    if (!r->route || own_format(r))
        return 0;
    const ari_csv_view *v = ari_csv_view_find(r->route->pattern);
    if (!v) {
        if (!is_csv(r) || strcmp(r->method, "GET") != 0)
            return 0; /* a POST or DELETE without a view keeps its own parameters */
        ari_reply_error(r, 400, "invalid_parameter",
                        "format=csv is offered by the analysis endpoints of a trace (gantt, bounds, ...; "
                        "see /api/v1/openapi.json), not by %.200s: drop format or ask for json",
                        r->route->pattern);
        return -1;
    }
    const char *format;
    if (ari_param_choice(r, "format", formats, &format) < 0)
        return -1;
    return format && strcmp(format, "csv") == 0 ? check_table(r, v) : 0;
}

int ari_csv_wanted(ari_request *r)
{
    return r->route && !own_format(r) && is_csv(r) && ari_csv_view_find(r->route->pattern);
}

/* The table asked for, or the first of the view's tables that has rows in
 * this answer (a Gantt zoomed out has pixels, zoomed in tasks). */
static const ari_csv_table *pick_table(ari_request *r, const ari_csv_view *v, const json_t *root)
{
    const char *name = ari_param(r, "table");
    if (name)
        return ari_csv_table_find(v, name);
    for (const ari_csv_table *t = v->tables; t->name; t++)
        if (ari_csv_count(root, t) > 0)
            return t;
    return v->tables;
}

/* trace<id>_<view>[_<table>].csv; compare: traces<a>-<b>_compare.csv. */
static void file_name(ari_request *r, const ari_csv_view *v, const ari_csv_table *t, char *out, size_t size)
{
    char who[96] = "";
    int ensemble = r->url && strncmp(r->url, "/api/v1/ensembles/", 18) == 0;
    if (r->nparams > 0)
        snprintf(who, sizeof who, "%s%.20s_", ensemble ? "ensemble" : "trace", r->params[0]);
    if (r->nparams > 1)
        snprintf(who + strlen(who), sizeof who - strlen(who), "node%.20s_", r->params[1]);
    const char *ids = ari_param(r, "traces");
    if (r->nparams == 0 && ids) {
        size_t n = strspn(ids, "0123456789,");
        snprintf(who, sizeof who, "traces%.*s_", (int)(n < 60 ? n : 60), ids);
        for (char *c = who; *c; c++)
            *c = *c == ',' ? '-' : *c;
    }
    int several = v->tables[1].name != NULL;
    snprintf(out, size, "attachment; filename=\"%s%s%s%s.csv\"", who, v->view, several ? "_" : "",
             several ? t->name : "");
}

static enum MHD_Result send_csv(ari_request *r, char *text, const char *disposition)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return ari_reply_error(r, 500, "internal", "out of memory");
    }
    MHD_add_response_header(resp, "Content-Type", "text/csv; charset=utf-8");
    MHD_add_response_header(resp, "Content-Disposition", disposition);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return ari_queue(r, 200, resp);
}

enum MHD_Result ari_csv_reply(ari_request *r, const char *json_text)
{
    const ari_csv_view *v = ari_csv_view_find(r->route->pattern);
    json_t *root = json_loads(json_text, JSON_DECODE_ANY, NULL);
    if (!v || !root) {
        json_decref(root);
        return ari_reply_error(r, 500, "internal", "the answer could not be read back for CSV");
    }
    const ari_csv_table *t = pick_table(r, v, root);
    ari_sbuf out = {0};
    ari_error err = {0};
    long rows = ari_csv_write(root, t, &out, &err);
    json_decref(root);
    char *text = rows < 0 ? NULL : ari_sbuf_take(&out);
    ari_sbuf_free(&out);
    if (!text)
        return ari_reply_error(r, 500, "internal", "%s", err.message[0] ? err.message : "CSV failed");
    char disposition[200];
    file_name(r, v, t, disposition, sizeof disposition);
    return send_csv(r, text, disposition);
}
