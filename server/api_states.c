/* api_states.c: GET /api/v1/traces/{id}/states and /links: the timeline
 * of any trace with Paje states (plain Paje traces and task traces).
 *
 * /states: one row per container and state type that holds states
 * (store/state_queries.h: the container tree in preorder, each row with
 * its path and level), paged by offset/limit; for each row of the page
 * its states in the window, or, when they are more than fit, per pixel
 * column and nesting depth the share of each value
 * (analysis/state_rows.h). Values are listed once per answer with their
 * Paje colour. Cost: O(rows of the trace) index lookups for the row list
 * (the (container, type) pairs are cached after the first request), then
 * per row of the page O(states starting before the window's end).
 *
 * /links: the links (MPI communications of StarPU-MPI) overlapping the
 * window, by start, at most `limit` (truncated says when more exist), each
 * end with its container and, when it maps, its worker and node.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/state_rows.h"
#include "analysis_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"
#include "store/state_queries.h"
#include "states_answer.h"
#include "store/task_queries.h"
#include "util/vec.h"

#define MAX_WIDTH      4000
#define DEFAULT_WIDTH  1000
#define MAX_ROWS       1000
#define DEFAULT_ROWS   200
#define MAX_FILTER_IDS 10000
#define MAX_LINKS      200000
#define DEFAULT_LINKS  20000
#define STATES_DIGITS  15

typedef struct states_req {
    int64_t id, width, offset, limit, max_states;
    double start, end;
    int64_t *containers, *types;
    size_t ncontainers, ntypes;
    ari_tq_trace trace;
    double origin;
    ari_sq_rows rows;
    /* the values met: names.id -> index into `values` + 1 */
    int *value_ix;
    size_t value_cap;
    json_t *values;
} states_req;

static void req_free(states_req *q)
{
    free(q->containers);
    free(q->types);
    free(q->value_ix);
    json_decref(q->values);
    ari_sq_rows_free(&q->rows);
    ari_tq_trace_free(&q->trace);
}

/* NAME=1,2,3: ids (optional). */
static int param_ids(ari_request *r, const char *name, int64_t **out, size_t *n)
{
    const char *s = ari_param(r, name);
    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return 0;
    ari_list_status st = ari_parse_int_list(s, 1, INT64_MAX, MAX_FILTER_IDS, out, n);
    if (st == ARI_LIST_OK)
        return 0;
    char buf[ARI_PRINTABLE_SIZE];
    if (st == ARI_LIST_NOMEM)
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
    else
        ari_reply_error(r, 400, "invalid_parameter",
                        "%s must list at most %d positive ids separated by commas"
                        " (e.g. %s=3,7), got '%s'",
                        name, MAX_FILTER_IDS, name, ari_printable(s, buf));
    return -1;
}

/* The trace, its origin; 404 when absent. */
static int open_trace(ari_request *r, int64_t id, ari_tq_trace *trace, double *origin)
{
    ari_error err = {0};
    int rc = ari_tq_trace_get(r->db, id, trace, &err);
    if (rc == 0 && ari_sq_time_origin(r->db, id, origin, &err) < 0)
        rc = -1;
    if (rc != 0)
        ari_reply_lookup_failed(r, rc, &err, "trace", id);
    return rc == 0 ? 0 : -1;
}

static int read_params(ari_request *r, states_req *q)
{
    if (ari_path_id(r, 0, &q->id) < 0 || ari_param_window(r, &q->start, &q->end) < 0 ||
        ari_param_int(r, "width", DEFAULT_WIDTH, 1, MAX_WIDTH, &q->width) < 0 ||
        ari_param_int(r, "offset", 0, 0, INT64_MAX, &q->offset) < 0 ||
        ari_param_int(r, "limit", DEFAULT_ROWS, 1, MAX_ROWS, &q->limit) < 0 ||
        ari_param_int(r, "max_states", -1, -1, 1000000, &q->max_states) < 0 ||
        param_ids(r, "containers", &q->containers, &q->ncontainers) < 0 ||
        param_ids(r, "types", &q->types, &q->ntypes) < 0)
        return -1;
    return open_trace(r, q->id, &q->trace, &q->origin);
}

/* Room for value ids 0..v in q->value_ix, new entries zeroed. */
static int grow_ix(states_req *q, size_t need)
{
    size_t old = q->value_cap;
    if (ari_vec_reserve((void **)&q->value_ix, &q->value_cap, need, sizeof *q->value_ix) < 0)
        return -1;
    memset(q->value_ix + old, 0, (q->value_cap - old) * sizeof *q->value_ix);
    return 0;
}

/* The index of value `v` (names.id) in q->values, added on first use. */
static int value_index(ari_request *r, states_req *q, int v, ari_error *err)
{
    if (grow_ix(q, (size_t)v + 1) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (q->value_ix[v])
        return q->value_ix[v] - 1;
    char *name, *color;
    int rc = ari_sq_value(r->db, q->id, v, &name, &color, err);
    if (rc != 0)
        return rc < 0 ? -1 : ari_error_set(err, ARI_E_DB, "state value %d has no name", v);
    json_t *o = json_pack("{s:s,s:s?}", "name", name, "color", color);
    free(name);
    free(color);
    if (!o || json_array_append_new(q->values, o) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    q->value_ix[v] = (int)json_array_size(q->values);
    return q->value_ix[v] - 1;
}

/* [[value, depth, start, end], ...] of the states mode. */
static json_t *states_json(ari_request *r, states_req *q, const ari_gantt_state *st,
                           const ari_state_row_result *res, ari_error *err)
{
    json_t *list = json_array();
    for (int64_t k = 0; list && k < res->count; k++) {
        const ari_gantt_state *s = &st[res->index[k]];
        int v = value_index(r, q, s->value, err);
        if (v < 0 || json_array_append_new(list, json_pack("[i,i,f,f]", v, s->depth, s->start, s->end)) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* A share as drawn: rounded down to 1e-4 (a hundredth of a percent), so
 * that a column's shares still add up to at most 1 and the answer is not
 * mostly digits; a share below that keeps its value. */
static double drawn_share(double share)
{
    double r = floor(share * 1e4) / 1e4;
    return r > 0 ? r : share;
}

/* [[pixel, depth, value, share], ...] of the pixels mode. */
static json_t *pixels_json(ari_request *r, states_req *q, const ari_state_row_result *res, ari_error *err)
{
    json_t *list = json_array();
    for (int64_t k = 0; list && k < res->ncells; k++) {
        const ari_state_cell *c = &res->cells[k];
        int v = value_index(r, q, c->value, err);
        if (v < 0 ||
            json_array_append_new(list, json_pack("[i,i,i,f]", c->pixel, c->depth, v, drawn_share(c->share))) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *row_json(ari_request *r, states_req *q, const ari_sq_row *row, ari_error *err)
{
    ari_gantt_state *st = NULL;
    int64_t n = 0;
    int max_value = 0;
    if (ari_sq_row_states(r->db, q->id, row, q->start, q->end, &st, &n, &max_value, err) < 0)
        return NULL;
    ari_state_row_result res;
    json_t *items = NULL;
    if (ari_state_row_render(st, n, max_value + 1, q->start, q->end, (int)q->width, q->max_states, &res,
                             err) == 0) {
        items = res.mode == ARI_STATE_ROWS_STATES ? states_json(r, q, st, &res, err)
                                                  : pixels_json(r, q, &res, err);
        if (items)
            items = json_pack("{s:I,s:s,s:s,s:i,s:I,s:s,s:s,s:I,s:i,s:o}", "container_id",
                              (json_int_t)row->container_id, "name", row->name, "path", row->path, "level",
                              row->level, "type_id", (json_int_t)row->type_id, "type", row->type_name, "mode",
                              res.mode == ARI_STATE_ROWS_STATES ? "states" : "pixels", "count",
                              (json_int_t)res.count, "max_depth", res.max_depth,
                              res.mode == ARI_STATE_ROWS_STATES ? "states" : "pixels", items);
        ari_state_row_free(&res);
    }
    free(st);
    if (!items && !err->code[0])
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return items;
}

/* The default window: the extent of the containers; a one-sided window
 * is completed from it. */
static int settle_window(ari_request *r, states_req *q)
{
    double lo = isnan(q->rows.start) ? 0 : q->rows.start, hi = isnan(q->rows.end) ? lo + 1 : q->rows.end;
    if (!(hi > lo))
        hi = lo + 1;
    if (isnan(q->start))
        q->start = isnan(q->end) || q->end > lo ? lo : q->end - (hi - lo);
    if (isnan(q->end))
        q->end = q->start < hi ? hi : q->start + (hi - lo);
    if (!(q->end > q->start)) {
        ari_reply_error(r, 400, "invalid_parameter", "end (%g) must be after start (%g)", q->end, q->start);
        return -1;
    }
    return 0;
}

static json_t *states_doc(ari_request *r, states_req *q, ari_error *err)
{
    json_t *rows = json_array();
    q->values = json_array();
    for (int64_t i = q->offset; rows && q->values && i < q->rows.n && i < q->offset + q->limit; i++) {
        json_t *row = row_json(r, q, &q->rows.rows[i], err);
        if (!row || json_array_append_new(rows, row) < 0) {
            json_decref(rows);
            return NULL;
        }
    }
    if (!rows || !q->values) {
        json_decref(rows);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    json_t *doc = json_pack(
        "{s:I,s:s,s:s,s:f,s:f,s:f,s:I,s:{s:o,s:o},s:I,s:I,s:I,s:O,s:o}", "trace_id", (json_int_t)q->id,
        "kind", q->trace.kind, "time_unit", q->trace.time_unit, "time_origin", q->origin, "start", q->start,
        "end", q->end, "width", (json_int_t)q->width, "extent", "start", ari_json_num(q->rows.start), "end",
        ari_json_num(q->rows.end), "total_rows", (json_int_t)q->rows.n, "offset", (json_int_t)q->offset,
        "limit", (json_int_t)q->limit, "values", q->values, "rows", rows);
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return doc;
}

json_t *ari_states_answer(ari_request *r)
{
    states_req q = {0};
    ari_error err = {0};
    json_t *doc = NULL;
    if (read_params(r, &q) < 0)
        goto done;
    int rc = ari_sq_rows_load(r->db, q.id, q.containers, q.ncontainers, q.types, q.ntypes, &q.rows, &err);
    if (rc != 0) {
        ari_reply_lookup_failed(r, rc, &err, "trace", q.id);
        goto done;
    }
    if (q.rows.n == 0 && q.ncontainers == 0 && q.ntypes == 0) {
        ari_reply_error(r, 409, "no_states", "trace %lld has no Paje states to draw on a timeline",
                        (long long)q.id);
        goto done;
    }
    if (settle_window(r, &q) < 0)
        goto done;
    doc = states_doc(r, &q, &err);
    if (!doc)
        ari_reply_from_error(r, &err);
done:
    req_free(&q);
    return doc;
}

enum MHD_Result api_states(ari_request *r)
{
    json_t *doc = ari_states_answer(r);
    return doc ? ari_reply_analysis(r, doc, STATES_DIGITS) : MHD_YES;
}

/* ---- links ---- */

/* StarPU names containers "N_..." after their MPI rank N. */
static int64_t node_of(const ari_sq_end *e)
{
    if (e->node >= 0)
        return e->node;
    const char *s = e->name;
    size_t k = 0;
    while (isdigit((unsigned char)s[k]) && k < 9)
        k++;
    return k > 0 && s[k] == '_' ? strtoll(s, NULL, 10) : -1;
}

static json_t *end_json(const ari_sq_end *e)
{
    json_t *o = json_pack("{s:I,s:s}", "container_id", (json_int_t)e->container_id, "name", e->name);
    int64_t node = node_of(e);
    if (o && e->worker_id >= 0)
        json_object_set_new(o, "worker_id", json_integer(e->worker_id));
    if (o && node >= 0)
        json_object_set_new(o, "node", json_integer(node));
    return o;
}

static json_t *links_doc(const ari_sq_links *l, const ari_tq_trace *t, double origin, double start,
                         double end)
{
    json_t *list = json_array();
    for (int64_t i = 0; list && i < l->n; i++) {
        const ari_sq_link *k = &l->links[i];
        json_t *o =
            json_pack("{s:f,s:f,s:s,s:s,s:s,s:o,s:o}", "start", k->start, "end", k->end, "type", k->type,
                      "value", k->value, "key", k->key, "from", end_json(&k->from), "to", end_json(&k->to));
        if (!o || json_array_append_new(list, o) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    if (!list)
        return NULL;
    return json_pack("{s:I,s:s,s:f,s:o,s:o,s:I,s:I,s:b,s:o}", "trace_id", (json_int_t)t->id, "time_unit",
                     t->time_unit, "time_origin", origin, "start", ari_json_num(start), "end",
                     ari_json_num(end), "total", (json_int_t)l->total, "count", (json_int_t)l->n, "truncated",
                     l->total > l->n, "links", list);
}

enum MHD_Result api_links(ari_request *r)
{
    int64_t id, limit;
    double start, end, origin = 0;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_window(r, &start, &end) < 0 ||
        ari_param_int(r, "limit", DEFAULT_LINKS, 1, MAX_LINKS, &limit) < 0)
        return MHD_YES;
    ari_tq_trace trace = {0};
    if (open_trace(r, id, &trace, &origin) < 0)
        return MHD_YES;
    ari_sq_links links;
    ari_error err = {0};
    enum MHD_Result res;
    int rc = ari_sq_links_load(r->db, id, start, end, limit, &links, &err);
    if (rc != 0) {
        res = ari_reply_lookup_failed(r, rc, &err, "trace", id);
    } else {
        json_t *doc = links_doc(&links, &trace, origin, start, end);
        res = doc ? ari_reply_analysis(r, doc, STATES_DIGITS)
                  : ari_reply_error(r, 500, "out_of_memory", "out of memory");
        ari_sq_links_free(&links);
    }
    ari_tq_trace_free(&trace);
    return res;
}
