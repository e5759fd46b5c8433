/* event_writer.c: ev_locations and the message chunks of an event trace,
 * and its summary and counts (see event_writer.h). Container ids come
 * from the trace writer's alias map: event_paje tells the observer after
 * the container has been stored; its links are not stored as `links`
 * rows: the message chunks (message_chunks.h) hold them. */
#include "store/event_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/message_chunks.h"
#include "store/trace_writer_internal.h"
#include "util/alloc.h"

struct ari_event_writer {
    ari_trace_writer *tw;
    ari_error error;
    ari_event_paje_observer obs;
    ari_message_packer *packer;
    int64_t locations, messages;
    double max_span; /* the longest receive - send, for the timeline's window queries */
};

/* The stored id of a container alias, or 0 with ew->error set. */
static int64_t container_id(ari_event_writer *ew, const char *alias)
{
    int64_t id = ari_trace_writer_container(ew->tw, alias);
    if (id > 0)
        return id;
    if (id < 0)
        ari_error_set(&ew->error, ARI_E_NOMEM, "out of memory");
    else
        ari_error_set(&ew->error, ARI_E_INVALID_INPUT, "the event trace names an unknown container %.100s",
                      alias);
    return 0;
}

static int on_location(void *ctx, const char *alias, const char *process_alias, int64_t rank, int64_t thread)
{
    ari_event_writer *ew = ctx;
    int64_t id = container_id(ew, alias), process = id ? container_id(ew, process_alias) : 0;
    if (!process)
        return -1;
    ari_arg args[] = {ari_arg_int(ew->tw->id), ari_arg_int(id), ari_arg_int(process), ari_arg_int(rank),
                      ari_arg_int(thread)};
    if (ari_store_run(ew->tw->store,
                      "INSERT INTO ev_locations(trace_id, container_id, process_id, rank, thread)"
                      " VALUES (?1, ?2, ?3, ?4, ?5)",
                      args, ARI_NARGS(args), "insert event location", &ew->error) < 0)
        return -1;
    ew->locations++;
    return 0;
}

static int on_message(void *ctx, const ari_event_paje_message *m)
{
    ari_event_writer *ew = ctx;
    int64_t src = container_id(ew, m->src), dst = src ? container_id(ew, m->dst) : 0;
    if (!dst)
        return -1;
    ari_ec_message em = {.src_container = src, .dst_container = dst, .src_rank = (int32_t)m->src_rank,
                         .dst_rank = (int32_t)m->dst_rank, .tag = m->tag, .comm = m->comm,
                         .bytes = (int64_t)m->bytes, .send_time = m->send, .recv_time = m->recv};
    if (ari_message_packer_add(ew->packer, &em, &ew->error) < 0)
        return -1;
    ew->messages++;
    if (m->recv - m->send > ew->max_span)
        ew->max_span = m->recv - m->send;
    return 0;
}

ari_event_writer *ari_event_writer_begin(ari_trace_writer *w, ari_error *err)
{
    ari_event_writer *ew = ari_zalloc(sizeof *ew, err);
    if (!ew)
        return NULL;
    ew->tw = w;
    ew->packer = ari_message_packer_new(w->store, w->id, err);
    if (!ew->packer) {
        free(ew);
        return NULL;
    }
    ew->obs = (ari_event_paje_observer){ew, on_location, on_message};
    ari_trace_writer_skip_links(w); /* the messages are chunks, read as links by state_queries.c */
    return ew;
}

const ari_event_paje_observer *ari_event_writer_observer(ari_event_writer *ew)
{
    return &ew->obs;
}

const ari_error *ari_event_writer_error(const ari_event_writer *ew)
{
    return &ew->error;
}

int ari_event_writer_finish(ari_event_writer *ew, const ari_event_paje_report *rep, const char *notes_json,
                            ari_error *err)
{
    /* Pipit's events: Enter, Leave, instants, each message event, a
     * collective's begin and end */
    int64_t events = (int64_t)(rep->enters + rep->leaves + rep->instants + rep->message_events +
                               2 * rep->collectives);
    ari_arg args[] = {ari_arg_int(ew->tw->id),
                      ari_arg_text(notes_json ? notes_json : "{}"),
                      ari_arg_int((int64_t)rep->processes),
                      ari_arg_int((int64_t)rep->locations),
                      ari_arg_int((int64_t)rep->functions),
                      ari_arg_int(events),
                      ari_arg_int(ew->messages),
                      ari_arg_int((int64_t)rep->unmatched_sends),
                      ari_arg_int((int64_t)rep->unmatched_receives),
                      ari_arg_int((int64_t)rep->unclosed),
                      ari_arg_int((int64_t)rep->collectives),
                      ari_arg_int((int64_t)rep->metric_samples),
                      ari_arg_int((int64_t)rep->regions),
                      ari_arg_real(ew->max_span)};
    if (ari_message_packer_finish(ew->packer, err) < 0)
        return -1;
    return ari_store_run(ew->tw->store,
        "UPDATE traces SET summary_json = json_patch(json_patch(summary_json, CASE WHEN json_valid(?2) THEN json(?2) ELSE '{}' END), json_object("
        "  'ranks', ?3, 'locations', ?4, 'functions', ?5, 'regions', ?13, 'events', ?6, 'messages', ?7,"
        "  'unmatched_sends', ?8, 'unmatched_receives', ?9, 'closed_at_end', ?10, 'collectives', ?11,"
        "  'metric_samples', ?12, 'message_span_max', ?14)),"
        " counts_json = json_patch(counts_json, json_object('ranks', ?3, 'locations', ?4, 'functions', ?5,"
        "  'trace_events', ?6, 'messages', ?7))"
        " WHERE id = ?1", args, ARI_NARGS(args), "event trace summary", err);
}

void ari_event_writer_free(ari_event_writer *ew)
{
    if (ew)
        ari_message_packer_free(ew->packer);
    free(ew);
}
