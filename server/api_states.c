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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/state_rows.h"
#include "analysis_ctx.h"
#include "csv_reply.h"
#include "handlers.h"
#include "json_text.h"
#include "params.h"
#include "reply.h"
#include "states_answer.h"
#include "store/state_queries.h"
#include "store/task_queries.h"
#include "util/vec.h"

#define MAX_WIDTH       4000
#define DEFAULT_WIDTH   1000
#define MAX_ROWS        1000
#define DEFAULT_ROWS    200
#define MAX_FILTER_IDS  10000
#define MAX_LINKS       200000
#define DEFAULT_LINKS   20000
#define STATES_DIGITS   15
#define THREADED_STATES 1024 /* a row rendered on a thread of its own from this many states */

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
static int states_text(ari_request *r, states_req *q, const ari_gantt_state *st,
                       const ari_state_row_result *res, ari_json_text *t, ari_error *err)
{
    ari_json_text_char(t, '[');
    for (int64_t k = 0; k < res->count; k++) {
        const ari_gantt_state *s = &st[res->index[k]];
        int v = value_index(r, q, s->value, err);
        if (v < 0)
            return -1;
        ari_json_text_raw(t, k ? ",[" : "[", k ? 2 : 1);
        ari_json_text_int(t, v);
        ari_json_text_char(t, ',');
        ari_json_text_int(t, s->depth);
        ari_json_text_char(t, ',');
        ari_json_text_real(t, s->start, STATES_DIGITS);
        ari_json_text_char(t, ',');
        ari_json_text_real(t, s->end, STATES_DIGITS);
        ari_json_text_char(t, ']');
    }
    ari_json_text_char(t, ']');
    return 0;
}

/* A share as drawn: rounded down to 1e-4 (a hundredth of a percent), so
 * that a column's shares still add up to at most 1 and the answer is not
 * mostly digits; a share below that keeps its value. Written as jansson
 * writes the real (floor(share * 1e4) / 1e4 is k / 10^4 exactly rounded,
 * which "%.15g" prints as its at most 4 decimals; test_json_text checks
 * every k), without printf for the usual k in 1..10^4 (json_text.h). */
static void share_text(ari_json_text *t, double share)
{
    double f = floor(share * 1e4);
    if (!(f >= 1 && f <= 1e4)) {
        ari_json_text_real(t, f > 0 ? f / 1e4 : share, STATES_DIGITS);
        return;
    }
    ari_json_text_ten_thousandths(t, (int)f);
}

/* [[pixel, depth, value, share], ...] of the pixels mode. */
static int pixels_text(ari_request *r, states_req *q, const ari_state_row_result *res, ari_json_text *t,
                       ari_error *err)
{
    ari_json_text_char(t, '[');
    for (int64_t k = 0; k < res->ncells; k++) {
        const ari_state_cell *c = &res->cells[k];
        int v = value_index(r, q, c->value, err);
        if (v < 0)
            return -1;
        ari_json_text_raw(t, k ? ",[" : "[", k ? 2 : 1);
        ari_json_text_int(t, c->pixel);
        ari_json_text_char(t, ',');
        ari_json_text_int(t, c->depth);
        ari_json_text_char(t, ',');
        ari_json_text_int(t, v);
        ari_json_text_char(t, ',');
        share_text(t, c->share);
        ari_json_text_char(t, ']');
    }
    ari_json_text_char(t, ']');
    return 0;
}

/* The row's members before its states or pixels, as jansson writes them,
 * with the closing brace left open. */
static int row_head_text(const ari_sq_row *row, const ari_state_row_result *res, ari_json_text *t,
                         ari_error *err)
{
    json_t *o = json_pack("{s:I,s:s,s:s,s:i,s:I,s:s,s:s,s:I,s:i}", "container_id",
                          (json_int_t)row->container_id, "name", row->name, "path", row->path, "level",
                          row->level, "type_id", (json_int_t)row->type_id, "type", row->type_name, "mode",
                          res->mode == ARI_STATE_ROWS_STATES ? "states" : "pixels", "count",
                          (json_int_t)res->count, "max_depth", res->max_depth);
    if (!o)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_json_text_value(t, o, JSON_COMPACT | JSON_REAL_PRECISION(STATES_DIGITS));
    json_decref(o);
    if (t->failed)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    t->len--; /* the '}' */
    return 0;
}

/* One row of the page on its way: its states read from the store (a few
 * rows a statement: ari_sq_reader), then rendered (ari_state_row_render,
 * pure C: on a thread of its own while the next row is read), then
 * written. */
typedef struct row_job {
    const states_req *q;
    ari_gantt_state *st;
    int64_t n;
    int max_value;
    ari_state_row_result res;
    ari_error err;
    int rc;
    pthread_t thread;
    int threaded;
} row_job;

static int row_read(ari_sq_reader *rd, const states_req *q, int64_t i, row_job *j, ari_error *err)
{
    memset(j, 0, sizeof *j);
    j->q = q;
    j->rc = -1;
    return ari_sq_reader_row(rd, i, &j->st, &j->n, &j->max_value, err) < 0 ? -1 : 0;
}

static void *row_render(void *arg)
{
    row_job *j = arg;
    const states_req *q = j->q;
    j->rc = ari_state_row_render(j->st, j->n, j->max_value + 1, q->start, q->end, (int)q->width,
                                 q->max_states, &j->res, &j->err);
    return NULL;
}

/* Renders j on a thread when it is worth one (a row of many states) and
 * one can be started, else right away. */
static void row_render_start(row_job *j)
{
    j->threaded = j->n >= THREADED_STATES && pthread_create(&j->thread, NULL, row_render, j) == 0;
    if (!j->threaded)
        row_render(j);
}

/* Waits for j's rendering: 0, or -1 with err set from it. */
static int row_render_wait(row_job *j, ari_error *err)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    j->threaded = 0;
    if (j->rc < 0)
        *err = j->err;
    return j->rc < 0 ? -1 : 0;
}

static void row_job_free(row_job *j)
{
    if (j->threaded) {
        pthread_join(j->thread, NULL);
        j->threaded = 0;
    }
    if (j->rc == 0)
        ari_state_row_free(&j->res);
    free(j->st);
    j->st = NULL;
    j->rc = -1;
}

/* The rendered row's object appended to t. 0, or -1 with err set. */
static int row_write(ari_request *r, states_req *q, const ari_sq_row *row, const row_job *j, ari_json_text *t,
                     ari_error *err)
{
    int states = j->res.mode == ARI_STATE_ROWS_STATES;
    int rc = row_head_text(row, &j->res, t, err);
    if (rc == 0)
        ari_json_text_raw(t, states ? ",\"states\":" : ",\"pixels\":", 10);
    if (rc == 0)
        rc = states ? states_text(r, q, j->st, &j->res, t, err) : pixels_text(r, q, &j->res, t, err);
    ari_json_text_char(t, '}');
    if (rc == 0 && t->failed)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return rc < 0 ? -1 : 0;
}

/* The rows of the page into t, on both cores: while row i + 1 is
 * rendered, row i is written and row i + 2 read (rows are written in
 * order: the values are numbered as they are met). 0, or -1 with err set. */
static int rows_text(ari_request *r, states_req *q, ari_json_text *t, ari_error *err)
{
    int64_t first = q->offset, end = q->rows.n < q->offset + q->limit ? q->rows.n : q->offset + q->limit;
    row_job job[2];
    int rc = 0, cur = 0;
    memset(job, 0, sizeof job);
    job[0].rc = job[1].rc = -1;
    ari_sq_reader *rd = ari_sq_reader_new(r->db, q->id, q->rows.rows, q->rows.n, q->start, q->end, err);
    if (!rd)
        return -1;
    if (first < end && (rc = row_read(rd, q, first, &job[cur], err)) == 0)
        row_render_start(&job[cur]);
    for (int64_t i = first; rc == 0 && i < end; i++, cur ^= 1) {
        int more = i + 1 < end;
        if (more)
            rc = row_read(rd, q, i + 1, &job[cur ^ 1], err);
        if (row_render_wait(&job[cur], rc == 0 ? err : &job[cur].err) < 0 && rc == 0)
            rc = -1;
        if (rc == 0 && more)
            row_render_start(&job[cur ^ 1]);
        if (rc == 0) {
            if (i > first)
                ari_json_text_char(t, ',');
            rc = row_write(r, q, &q->rows.rows[i], &job[cur], t, err);
        }
        row_job_free(&job[cur]);
    }
    row_job_free(&job[0]);
    row_job_free(&job[1]);
    ari_sq_reader_free(rd);
    return rc;
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

/* The document without its rows ("rows": null, their place) and the rows'
 * text in *rows. */
static json_t *states_doc(ari_request *r, states_req *q, ari_json_text *rows, ari_error *err)
{
    q->values = json_array();
    if (!q->values) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    ari_json_text_char(rows, '[');
    if (rows_text(r, q, rows, err) < 0)
        return NULL;
    ari_json_text_char(rows, ']');
    if (rows->failed) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    json_t *doc = json_pack(
        "{s:I,s:s,s:s,s:f,s:f,s:f,s:I,s:{s:o,s:o},s:I,s:I,s:I,s:O,s:n}", "trace_id", (json_int_t)q->id,
        "kind", q->trace.kind, "time_unit", q->trace.time_unit, "time_origin", q->origin, "start", q->start,
        "end", q->end, "width", (json_int_t)q->width, "extent", "start", ari_json_num(q->rows.start), "end",
        ari_json_num(q->rows.end), "total_rows", (json_int_t)q->rows.n, "offset", (json_int_t)q->offset,
        "limit", (json_int_t)q->limit, "values", q->values, "rows");
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return doc;
}

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct containers of q's rows into *kept. 0, or -1 out of memory. */
static int kept_containers(const states_req *q, ari_states_kept *kept)
{
    kept->filtered = 1;
    kept->ids = malloc((size_t)(q->rows.n > 0 ? q->rows.n : 1) * sizeof *kept->ids);
    if (!kept->ids)
        return -1;
    for (int64_t i = 0; i < q->rows.n; i++)
        kept->ids[i] = q->rows.rows[i].container_id;
    qsort(kept->ids, (size_t)q->rows.n, sizeof *kept->ids, by_id);
    size_t k = 0;
    for (int64_t i = 0; i < q->rows.n; i++)
        if (k == 0 || kept->ids[k - 1] != kept->ids[i])
            kept->ids[k++] = kept->ids[i];
    kept->n = k;
    return 0;
}

json_t *ari_states_answer(ari_request *r, ari_json_text *rows, ari_states_kept *kept)
{
    states_req q = {0};
    ari_error err = {0};
    json_t *doc = NULL;
    memset(rows, 0, sizeof *rows);
    if (kept)
        memset(kept, 0, sizeof *kept);
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
    if (kept && q.ncontainers > 0 && kept_containers(&q, kept) < 0) {
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
        goto done;
    }
    doc = states_doc(r, &q, rows, &err);
    if (!doc)
        ari_reply_from_error(r, &err);
done:
    if (!doc) {
        ari_json_text_free(rows);
        if (kept) {
            free(kept->ids);
            memset(kept, 0, sizeof *kept);
        }
    }
    req_free(&q);
    return doc;
}

/* The buffers of a reply sent in pieces, freed when MHD is done. */
typedef struct reply_pieces {
    char *head;
    ari_json_text rows;
} reply_pieces;

static void pieces_free(void *cls)
{
    reply_pieces *p = cls;
    free(p->head);
    ari_json_text_free(&p->rows);
    free(p);
}

/* Sends head with the rows' text in place of its "rows":null, as three
 * pieces (no copy of the megabytes of rows); takes head and rows. */
static enum MHD_Result reply_in_pieces(ari_request *r, char *head, ari_json_text *rows)
{
    const char *at = strstr(head, "\"rows\":null");
    reply_pieces *p = at ? malloc(sizeof *p) : NULL;
    if (!p) {
        free(head);
        ari_json_text_free(rows);
        return ari_reply_error(r, 500, "internal", "could not encode the response");
    }
    p->head = head;
    p->rows = *rows;
    memset(rows, 0, sizeof *rows);
    const char *tail = at + strlen("\"rows\":null");
    const struct MHD_IoVec iov[3] = {
        {head, (size_t)(at - head) + strlen("\"rows\":")}, {p->rows.p, p->rows.len}, {tail, strlen(tail)}};
    struct MHD_Response *resp = MHD_create_response_from_iovec(iov, 3, pieces_free, p);
    if (!resp) {
        pieces_free(p);
        return ari_reply_error(r, 500, "out_of_memory", "out of memory");
    }
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return ari_queue(r, 200, resp);
}

enum MHD_Result ari_states_reply(ari_request *r, json_t *doc, ari_json_text *rows, int digits)
{
    char *head = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(digits));
    json_decref(doc);
    if (head && !rows->failed && !ari_csv_wanted(r))
        return reply_in_pieces(r, head, rows); /* as ari_reply_text_json, without copies */
    char *text = head && !rows->failed ? ari_json_text_splice(head, "rows", rows->p, rows->len) : NULL;
    free(head);
    ari_json_text_free(rows);
    if (!text)
        return ari_reply_error(r, 500, "internal", "could not encode the response");
    enum MHD_Result rc = ari_reply_text_json(r, 200, text); /* ?format=csv: csv_reply.h */
    free(text);
    return rc;
}

enum MHD_Result api_states(ari_request *r)
{
    ari_json_text rows;
    json_t *doc = ari_states_answer(r, &rows, NULL);
    return doc ? ari_states_reply(r, doc, &rows, STATES_DIGITS) : MHD_YES;
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
