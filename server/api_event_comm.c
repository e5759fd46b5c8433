/* api_event_comm.c: the communication analyses of an event trace (kind
 * "events"; Pipit's set): /messages (the matched messages, paged by send
 * time), /comm-matrix (bytes or count per sender and receiver rank, with
 * each process's sent and received figures), /message-histogram (message
 * sizes, numpy.histogram), /comm-over-time (Pipit's comm_over_time) and
 * /wait-states (Scalasca's late sender and late receiver per rank pair).
 * Rows come from store/event_queries.h one at a time, the analyses from
 * analysis/event_comm.h; this file reads parameters and encodes JSON. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/event_comm.h"
#include "event_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"
#include "store/analysis_cache.h"
#include "store/event_queries.h"

#define DEFAULT_MESSAGES  1000
#define MAX_MESSAGES      100000
#define DEFAULT_HIST_BINS 20
#define DEFAULT_TIME_BINS 50


/* ---- /messages ---- */

static int message_row(void *ctx, const ari_ec_message *m)
{
    json_t *list = ctx;
    json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:I,s:I,s:I,s:f,s:f}", "src_rank", (int)m->src_rank, "dst_rank",
                          (int)m->dst_rank, "src_thread", (int)m->src_thread, "dst_thread",
                          (int)m->dst_thread, "tag", (json_int_t)m->tag, "comm", (json_int_t)m->comm, "bytes",
                          (json_int_t)m->bytes, "send_time", m->send_time, "recv_time", m->recv_time);
    return o && json_array_append_new(list, o) == 0 ? 0 : 2;
}

enum MHD_Result api_event_messages(ari_request *r)
{
    double start, end;
    int64_t offset, limit, total = 0;
    if (ari_param_window(r, &start, &end) < 0 || ari_param_int(r, "offset", 0, 0, INT64_MAX, &offset) < 0 ||
        ari_param_int(r, "limit", DEFAULT_MESSAGES, 1, MAX_MESSAGES, &limit) < 0)
        return MHD_YES;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *list = json_array(), *doc = NULL;
    int rc = list ? ari_evq_message_count(r->db, t.id, start, end, &total, &err) : ari_event_nomem(&err);
    if (rc == 0)
        rc = ari_evq_messages(r->db, t.id, start, end, offset, limit, message_row, list, &err);
    if (rc == 2)
        ari_event_nomem(&err);
    if (rc == 0)
        doc = json_pack("{s:I,s:I,s:I,s:o,s:o,s:O}", "total", (json_int_t)total, "offset", (json_int_t)offset,
                        "limit", (json_int_t)limit, "start", isnan(start) ? json_null() : json_real(start),
                        "end", isnan(end) ? json_null() : json_real(end), "messages", list);
    json_decref(list);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /comm-matrix ---- */

static int matrix_add(void *ctx, int32_t src, int32_t dst, int64_t bytes, int64_t count)
{
    ari_ec_matrix_add(ctx, src, dst, bytes, count);
    return 0;
}

static json_t *block_label(const ari_ec_matrix *m, int b)
{
    int first = b * m->block, last = first + m->block - 1;
    if (last >= m->nranks)
        last = m->nranks - 1;
    char buf[64];
    if (first == last)
        snprintf(buf, sizeof buf, "rank %d", (int)m->ranks[first]);
    else
        snprintf(buf, sizeof buf, "ranks %d-%d", (int)m->ranks[first], (int)m->ranks[last]);
    return json_string(buf);
}

static json_t *matrix_json(const ari_ec_matrix *m, int by_bytes, ari_error *err)
{
    json_t *ranks = json_array(), *labels = json_array(), *rows = json_array(), *cells = json_array(),
           *procs = json_array();
    int64_t max = 0;
    int bad = !ranks || !labels || !rows || !cells || !procs;
    const int64_t *v = by_bytes ? m->bytes : m->count;
    for (int i = 0; !bad && i < m->nblocks; i++) {
        bad |= ari_event_append(ranks, json_integer(m->ranks[i * m->block]), err) < 0;
        bad |= ari_event_append(labels, block_label(m, i), err) < 0;
        json_t *row = json_array();
        bad |= !row;
        for (int j = 0; !bad && j < m->nblocks; j++) {
            int64_t x = v[(size_t)i * (size_t)m->nblocks + (size_t)j];
            if (x > max)
                max = x;
            bad |= ari_event_append(row, json_integer(x), err) < 0;
            if (x && !bad)
                bad |= ari_event_append(cells,
                              json_pack("[I,I,I]", (json_int_t)m->ranks[i * m->block],
                                        (json_int_t)m->ranks[j * m->block], (json_int_t)x),
                              err) < 0;
        }
        bad |= ari_event_append(rows, row, err) < 0;
    }
    for (int i = 0; !bad && i < m->nranks; i++) {
        char label[32];
        snprintf(label, sizeof label, "rank %d", (int)m->ranks[i]);
        bad |= ari_event_append(procs,
                      json_pack("{s:i,s:s,s:I,s:I,s:I,s:I}", "rank", (int)m->ranks[i], "label", label,
                                "sent_bytes", (json_int_t)m->sent_bytes[i], "sent_count",
                                (json_int_t)m->sent_count[i], "received_bytes", (json_int_t)m->recv_bytes[i],
                                "received_count", (json_int_t)m->recv_count[i]),
                      err) < 0;
    }
    json_t *doc = NULL;
    if (!bad)
        doc = json_pack("{s:s,s:O,s:O,s:O,s:O,s:I,s:I,s:i,s:O}", "kind", by_bytes ? "bytes" : "count",
                        "ranks", ranks, "labels", labels, "matrix", rows, "cells", cells, "max",
                        (json_int_t)max, "total", (json_int_t)(by_bytes ? m->total_bytes : m->total_count),
                        "block", m->block, "processes", procs);
    if (!doc && !err->code[0])
        ari_event_nomem(err);
    json_decref(ranks);
    json_decref(labels);
    json_decref(rows);
    json_decref(cells);
    json_decref(procs);
    return doc;
}

static const char *const kind_choices[] = {"bytes", "count", NULL};

enum MHD_Result api_event_comm_matrix(ari_request *r)
{
    const char *kind = NULL;
    int64_t max_ranks;
    if (ari_param_choice(r, "kind", kind_choices, &kind) < 0 ||
        ari_param_int(r, "max_ranks", ARI_EC_DEFAULT_MAX_RANKS, 1, ARI_EC_MAX_RANKS, &max_ranks) < 0)
        return MHD_YES;
    int by_bytes = !kind || strcmp(kind, "bytes") == 0;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    int32_t *ranks = NULL;
    int nranks = 0;
    int64_t sends = 0, receives = 0;
    ari_ec_matrix m = {0};
    json_t *doc = NULL;
    if (ari_evq_ranks(r->db, t.id, &ranks, &nranks, &err) == 0 &&
        ari_ec_matrix_init(&m, ranks, nranks, (int)max_ranks, &err) == 0 &&
        ari_evq_pairs(r->db, t.id, matrix_add, &m, &err) == 0 &&
        ari_evq_unmatched(r->db, t.id, &sends, &receives, &err) == 0)
        doc = matrix_json(&m, by_bytes, &err);
    if (doc)
        json_object_set_new(doc, "unmatched",
                            json_pack("{s:I,s:I}", "sends", (json_int_t)(sends + m.unknown), "receives",
                                      (json_int_t)receives));
    ari_ec_matrix_free(&m);
    free(ranks);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- histograms ---- */

static int hist_add(void *ctx, double value, double weight)
{
    ari_ec_hist_add(ctx, value, weight);
    return 0;
}

static int hist_add_count(void *ctx, double value, double weight)
{
    (void)weight;
    ari_ec_hist_add(ctx, value, 1);
    return 0;
}

static json_t *reals(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(v[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Whole numbers as integers (counts, bytes), others as reals. */
static json_t *values_json(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        json_t *x =
            v[i] == floor(v[i]) && fabs(v[i]) < 9e15 ? json_integer((json_int_t)v[i]) : json_real(v[i]);
        if (json_array_append_new(a, x) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

enum MHD_Result api_event_message_histogram(ari_request *r)
{
    int64_t bins;
    if (ari_param_int(r, "bins", DEFAULT_HIST_BINS, 1, ARI_EC_MAX_BINS, &bins) < 0)
        return MHD_YES;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    double lo, hi;
    int64_t n = 0;
    ari_ec_hist h = {0};
    json_t *doc = NULL;
    if (ari_evq_size_range(r->db, t.id, &lo, &hi, &n, &err) == 0) {
        if (n == 0) /* numpy: an empty array gets the range [0, 1] */
            lo = 0, hi = 1;
        if (ari_ec_hist_init(&h, (int)bins, lo, hi, &err) == 0 &&
            ari_evq_sizes(r->db, t.id, hist_add_count, &h, &err) == 0)
            doc =
                json_pack("{s:I,s:o,s:o,s:I}", "bins", (json_int_t)bins, "edges", reals(h.edges, h.bins + 1),
                          "counts", values_json(h.values, h.bins), "messages", (json_int_t)n);
    }
    ari_ec_hist_free(&h);
    return ari_event_reply(r, &t, doc, &err);
}

enum MHD_Result api_event_comm_over_time(ari_request *r)
{
    static const char *const side_choices[] = {"send", "receive", NULL};
    const char *kind = NULL, *side = NULL;
    int64_t bins;
    if (ari_param_int(r, "bins", DEFAULT_TIME_BINS, 1, ARI_EC_MAX_BINS, &bins) < 0 ||
        ari_param_choice(r, "kind", kind_choices, &kind) < 0 ||
        ari_param_choice(r, "side", side_choices, &side) < 0)
        return MHD_YES;
    int by_bytes = !kind || strcmp(kind, "bytes") == 0, receive = side && strcmp(side, "receive") == 0;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    double lo, hi;
    ari_ec_hist h = {0};
    json_t *doc = NULL;
    if (ari_evq_extent(r->db, t.id, &lo, &hi, &err) == 0) {
        if (isnan(lo))
            lo = 0, hi = 1;
        if (ari_ec_hist_init(&h, (int)bins, lo, hi, &err) == 0 &&
            ari_evq_side_times(r->db, t.id, receive, by_bytes ? hist_add : hist_add_count, &h, &err) == 0)
            doc = json_pack("{s:I,s:s,s:s,s:o,s:o}", "bins", (json_int_t)bins, "kind",
                            by_bytes ? "bytes" : "count", "side", receive ? "receive" : "send", "edges",
                            reals(h.edges, h.bins + 1), "values", values_json(h.values, h.bins));
    }
    ari_ec_hist_free(&h);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /wait-states ---- */

typedef struct waits_ctx {
    ari_ec_waits ws;
    ari_error *err;
} waits_ctx;

static int wait_row(void *ctx, const ari_ec_message *m, const ari_ec_call *send, const ari_ec_call *recv)
{
    waits_ctx *c = ctx;
    ari_ec_wait w;
    if (!ari_ec_wait_classify(send, recv, &w))
        return 0;
    return ari_ec_waits_add(&c->ws, m->src_rank, m->dst_rank, &w, c->err) < 0 ? 3 : 0;
}

static json_t *wait_json(const ari_ec_wait *w)
{
    return json_pack("{s:I,s:f,s:I,s:f}", "late_sender_count", (json_int_t)w->late_sender_count,
                     "late_sender_time", w->late_sender_time, "late_receiver_count",
                     (json_int_t)w->late_receiver_count, "late_receiver_time", w->late_receiver_time);
}

static json_t *waits_json(const ari_ec_waits *ws, const int32_t *ranks, int nranks, ari_error *err)
{
    ari_ec_wait_pair *pairs = NULL;
    size_t npairs = 0;
    if (ari_ec_waits_sorted(ws, &pairs, &npairs, err) < 0)
        return NULL;
    ari_ec_wait *by_rank = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *by_rank);
    json_t *plist = json_array(), *rlist = json_array(), *doc = NULL;
    int bad = !by_rank || !plist || !rlist;
    for (size_t k = 0; !bad && k < npairs; k++) {
        json_t *o = wait_json(&pairs[k].w);
        if (o) {
            json_object_set_new(o, "sender", json_integer(pairs[k].sender));
            json_object_set_new(o, "receiver", json_integer(pairs[k].receiver));
        }
        bad |= ari_event_append(plist, o, err) < 0;
    }
    if (!bad)
        ari_ec_waits_by_rank(pairs, npairs, ranks, nranks, by_rank);
    for (int i = 0; !bad && i < nranks; i++) {
        json_t *o = wait_json(&by_rank[i]);
        if (o)
            json_object_set_new(o, "rank", json_integer(ranks[i]));
        bad |= ari_event_append(rlist, o, err) < 0;
    }
    if (!bad)
        doc = json_pack("{s:s,s:O,s:O,s:o}", "definition", ARI_EC_WAIT_DEFINITION, "pairs", plist, "ranks",
                        rlist, "totals", wait_json(&ws->totals));
    if (!doc && !err->code[0])
        ari_event_nomem(err);
    json_decref(plist);
    json_decref(rlist);
    free(by_rank);
    free(pairs);
    return doc;
}

/* The answer kept in the analysis cache (the first request reads every
 * message and every call: about a second per 200k messages). */
#define WAITS_ANALYSIS "event_wait_states@1"

enum MHD_Result api_event_wait_states(ari_request *r)
{
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    char *text = NULL;
    if (ari_cache_get(r->db, t.id, WAITS_ANALYSIS, "", &text, &err) == 0) {
        json_t *cached = json_loads(text, 0, NULL);
        free(text);
        if (cached)
            return ari_event_reply(r, &t, cached, &err);
    }
    ari_error_clear(&err);
    waits_ctx c = {.err = &err};
    ari_ec_waits_init(&c.ws);
    int32_t *ranks = NULL;
    int nranks = 0;
    json_t *doc = NULL;
    if (ari_evq_ranks(r->db, t.id, &ranks, &nranks, &err) == 0 &&
        ari_evq_message_calls(r->db, t.id, wait_row, &c, &err) == 0)
        doc = waits_json(&c.ws, ranks, nranks, &err);
    if (doc && (text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17))) != NULL) {
        ari_cache_put(r->db, t.id, WAITS_ANALYSIS, "", text);
        free(text);
    }
    ari_ec_waits_free(&c.ws);
    free(ranks);
    return ari_event_reply(r, &t, doc, &err);
}
