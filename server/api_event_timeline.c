/* api_event_timeline.c: GET /api/v1/traces/{id}/timeline of an event
 * trace: the /states answer (states_answer.h: the same rows, paging and
 * per-pixel aggregation) plus the messages drawn in its window (sent
 * before its end, received after its start). When they are more than
 * max_messages they come bundled: one entry per (sending container,
 * receiving container, bucket of the send time) with the number of
 * messages, their bytes summed and their mean send and receive times, with
 * as many buckets as keep the entries within max_messages. The messages
 * come from the process's cache of the trace's messages by send time
 * (message_cache.h: the first request of a trace reads them all), are
 * counted and bundled in C (store/event_message_window.h: the same
 * answers as SQLite's GROUP BY); a trace too large for the cache has its
 * window read alone, and a window too large for that is grouped by
 * SQLite. With containers=, only the messages between the kept rows'
 * containers are drawn (413 in that last case). */
#include <math.h>
#include <stdlib.h>

#include "event_ctx.h"
#include "handlers.h"
#include "message_cache.h"
#include "params.h"
#include "reply.h"
#include "states_answer.h"
#include "store/event_message_window.h"
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

/* Bundled (more than max_messages in the window): as many send-time
 * buckets as keep the bundles within max_messages (one per pixel column
 * at most); when even one bucket per pair is too many, the largest
 * bundles are kept. */
static int64_t bucket_count(int64_t pairs, int width, int64_t max_messages)
{
    int64_t buckets = pairs > 0 ? max_messages / pairs : 1;
    if (buckets < 1)
        buckets = 1;
    if (buckets > (width > 0 ? width : 1))
        buckets = width > 0 ? width : 1;
    return buckets;
}

/* The window's messages of list l into out (the rule of the buckets is
 * add_messages'). 0, 2 out of memory (of message_entry), or -1 with err. */
static int list_messages(const ari_emw_list *l, const ari_states_kept *kept, double t0, double t1, int width,
                         int64_t max_messages, json_t *out, int64_t *total, int64_t *pairs, ari_error *err)
{
    unsigned char *keep = kept->filtered ? ari_emw_keep_pairs(l, kept->ids, kept->n) : NULL;
    if (kept->filtered && !keep)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_emw_window w;
    int rc = ari_emw_window_of(l, t0, t1, keep, &w, err);
    if (rc == 0) {
        *total = w.n;
        *pairs = w.npairs;
        int64_t buckets = bucket_count(*pairs, width, max_messages);
        rc = *total > max_messages ? ari_emw_bundles(&w, (int)buckets, max_messages, message_entry, out, err)
                                   : ari_emw_each(&w, message_entry, out);
    }
    free(keep);
    return rc;
}

/* The window's messages into out, with *total and *pairs: from the
 * process's cache of the trace's messages (message_cache.h), else read
 * for this window alone, else (more than ARI_EMW_MAX_MESSAGES in the
 * window) counted and grouped by SQLite. 0, 2 out of memory, or -1 with
 * err set. */
static int window_messages(ari_request *r, const ari_tq_trace *t, const ari_states_kept *kept, double t0,
                           double t1, int width, int64_t max_messages, json_t *out, int64_t *total,
                           int64_t *pairs, ari_error *err)
{
    msg_cached *c;
    const ari_emw_list *cached;
    int rc = msg_cache_acquire(r->db, t, &c, &cached, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        rc = list_messages(cached, kept, t0, t1, width, max_messages, out, total, pairs, err);
        msg_cache_release(c);
        return rc;
    }
    ari_emw_list l;
    rc = ari_emw_load(r->db, t->id, t0, t1, ARI_EMW_MAX_MESSAGES, &l, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        rc = list_messages(&l, kept, t0, t1, width, max_messages, out, total, pairs, err);
        ari_emw_free(&l);
        return rc;
    }
    if (kept->filtered)
        return ari_error_set(err, ARI_E_TOO_LARGE,
                             "the window holds more than %d messages: narrow it to filter them by containers",
                             ARI_EMW_MAX_MESSAGES);
    if (ari_evq_window_count(r->db, t->id, t0, t1, total, pairs, err) < 0)
        return -1;
    int bundled = *total > max_messages;
    return ari_evq_window_messages(r->db, t->id, t0, t1, bundled,
                                   (int)bucket_count(*pairs, width, max_messages), bundled ? max_messages : 0,
                                   message_entry, out, err);
}

/* Adds "messages", "messages_total" and "messages_bundled" to the /states
 * document doc. 0, or -1 with err set. */
static int add_messages(ari_request *r, const ari_tq_trace *t, const ari_states_kept *kept, json_t *doc,
                        int64_t max_messages, ari_error *err)
{
    double t0 = json_number_value(json_object_get(doc, "start"));
    double t1 = json_number_value(json_object_get(doc, "end"));
    int width = (int)json_integer_value(json_object_get(doc, "width"));
    int64_t total = 0, pairs = 0;
    json_t *list = json_array();
    if (!list)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = window_messages(r, t, kept, t0, t1, width, max_messages, list, &total, &pairs, err);
    if (rc != 0) {
        json_decref(list);
        return rc == 2 ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : -1;
    }
    int bundled = total > max_messages;
    json_object_set_new(doc, "messages_truncated", json_boolean(bundled && pairs > max_messages));
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
    ari_json_text rows;
    ari_states_kept kept;
    json_t *doc = ari_states_answer(r, &rows, &kept);
    if (!doc) { /* answered */
        ari_event_trace_close(&t);
        return MHD_YES;
    }
    ari_error err = {0};
    int rc = add_messages(r, &t, &kept, doc, max_messages, &err);
    free(kept.ids);
    if (rc < 0) {
        json_decref(doc);
        ari_json_text_free(&rows);
        return ari_event_reply(r, &t, NULL, &err);
    }
    /* as ari_event_reply, with the rows' text */
    json_object_set_new(doc, "trace_id", json_integer(t.id));
    json_object_set_new(doc, "time_unit", json_string(t.time_unit));
    enum MHD_Result res = ari_states_reply(r, doc, &rows, 15);
    ari_event_trace_close(&t);
    return res;
}
