/* api_event_timeline.c: GET /api/v1/traces/{id}/timeline of an event
 * trace: the /states answer (states_answer.h: the same rows, paging and
 * per-pixel aggregation) plus the messages drawn in its window (sent
 * before its end, received after its start). When they are more than
 * max_messages they come bundled: one entry per (sending container,
 * receiving container, bucket of the send time) with the number of
 * messages, their bytes summed and their mean send and receive times, with
 * as many buckets as keep the entries within max_messages (SQLite groups
 * the window's messages; memory: the bundles). */
#include <math.h>
#include <stdlib.h>

#include "event_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"
#include "states_answer.h"
#include "store/event_queries.h"

#define DEFAULT_MAX_MESSAGES 2000
#define MAX_MAX_MESSAGES     20000

static int message_entry(void *ctx, const ari_ec_message *m, int64_t count)
{
    json_t *o = json_pack("{s:I,s:I,s:f,s:f,s:I,s:I}", "src", (json_int_t)m->src_container, "dst",
                          (json_int_t)m->dst_container, "send", m->send_time, "recv", m->recv_time, "bytes",
                          (json_int_t)m->bytes, "count", (json_int_t)count);
    return o && json_array_append_new(ctx, o) == 0 ? 0 : 2;
}

/* Adds "messages", "messages_total" and "messages_bundled" to the /states
 * document doc. 0, or -1 with err set. */
static int add_messages(ari_request *r, int64_t id, json_t *doc, int64_t max_messages, ari_error *err)
{
    double t0 = json_number_value(json_object_get(doc, "start"));
    double t1 = json_number_value(json_object_get(doc, "end"));
    int width = (int)json_integer_value(json_object_get(doc, "width"));
    int64_t total = 0, pairs = 0;
    if (ari_evq_window_count(r->db, id, t0, t1, &total, &pairs, err) < 0)
        return -1;
    /* Bundled: as many send-time buckets as keep the bundles within
     * max_messages (one per pixel column at most); when even one bucket
     * per pair is too many, the largest bundles are kept. */
    int bundled = total > max_messages;
    int64_t buckets = pairs > 0 ? max_messages / pairs : 1;
    if (buckets < 1)
        buckets = 1;
    if (buckets > (width > 0 ? width : 1))
        buckets = width > 0 ? width : 1;
    int truncated = bundled && pairs > max_messages;
    json_t *list = json_array();
    if (!list)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = ari_evq_window_messages(r->db, id, t0, t1, bundled, (int)buckets, bundled ? max_messages : 0,
                                     message_entry, list, err);
    if (rc != 0) {
        json_decref(list);
        return rc == 2 ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : -1;
    }
    json_object_set_new(doc, "messages_truncated", json_boolean(truncated));
    json_object_set_new(doc, "messages", list);
    json_object_set_new(doc, "messages_total", json_integer(total));
    json_object_set_new(doc, "messages_bundled", json_boolean(bundled));
    json_object_set_new(doc, "max_messages", json_integer(max_messages));
    return 0;
}

enum MHD_Result api_event_timeline(ari_request *r)
{
    int64_t max_messages;
    if (ari_param_int(r, "max_messages", DEFAULT_MAX_MESSAGES, 1, MAX_MAX_MESSAGES, &max_messages) < 0)
        return MHD_YES;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    json_t *doc = ari_states_answer(r);
    if (!doc) { /* answered */
        ari_event_trace_close(&t);
        return MHD_YES;
    }
    ari_error err = {0};
    if (add_messages(r, t.id, doc, max_messages, &err) < 0) {
        json_decref(doc);
        doc = NULL;
    }
    return ari_event_reply(r, &t, doc, &err);
}
