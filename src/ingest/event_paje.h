/* event_paje.h: the MPI and HPC event-trace readers (event_sink.h) into the
 * Paje model (sink.h), so that an OTF2, Projections or HPCToolkit trace is
 * stored as containers, states, links, events and variables and the
 * timeline, pIC aggregation and link views apply to it unchanged (issue 19).
 *
 * The mapping:
 *  - a process (rank) is a container of type "Process" under the root, a
 *    location a container of type "Thread" under its process;
 *  - when the reader gives a system tree (OTF2: machine > node; HPCToolkit:
 *    node), its nodes above the processes are containers too, one type per
 *    level named after the class of the first process's ancestors
 *    ("Machine" > "Node" > "Process" > "Thread"), so that pIC aggregates
 *    over them. Processes sit at the depth of the first process's node
 *    (a deeper node stands for its ancestor at that depth; a shallower one
 *    is an error); nodes without processes are left out. A node may come
 *    at any time before the first process placed under it;
 *  - an Enter/Leave pair is a state of type "Function" whose value is the
 *    region's name, with its depth (0: the bottom of the location's stack);
 *    a Leave must close the region on top of the stack;
 *  - a point-to-point message is a link of type "Message" from the sending
 *    location to the receiving one, start = send, end = receive. Sends
 *    (blocking, or a non-blocking send at its start) and receives (blocking,
 *    or a non-blocking receive at its completion) are matched in FIFO order
 *    per (sender rank, receiver rank, tag, communicator): MPI's
 *    non-overtaking rule. Either side may come first (readers go location
 *    by location). The link's fields: bytes, tag, communicator;
 *  - an instant event or a collective is an event of type "Instant" on its
 *    location (a collective's value is its operation, its fields the bytes
 *    and root);
 *  - a metric sample starts a piece of the location's variable of that
 *    metric, which lasts until the next sample (the last one until the
 *    location's last event).
 *
 * A reader whose sends do not know their destination (Projections: a
 * CREATION names no PE) is matched by the sender's request instead:
 * ari_event_paje_match_by_request. There a message may be received more
 * than once (Charm++ begins processing one message again, e.g. an array
 * element's message forwarded by its location manager): the first receive
 * makes the link, the others are re-deliveries (report.redelivered), not
 * unmatched; so are the receives of a broadcast (a collective with a
 * request), which makes no link (not a point-to-point message); their
 * count is the note "redelivered_receives". The readers' notes are
 * gathered as one JSON object (ari_event_paje_notes), their progress goes to the sink's
 * on_progress, and an observer (ari_event_paje_observe) hears of every
 * location and matched message with the aliases of their containers (the
 * store's ev_locations and message chunks).
 *
 * Bounded: at most ARI_EP_MAX_DEPTH open regions per location; unmatched
 * message sides are kept until the end (a trace whose sends are never
 * received holds them all: at most ARI_EP_MAX_PENDING, then an error).
 */
#ifndef ARIADNE_EVENT_PAJE_H
#define ARIADNE_EVENT_PAJE_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/event_sink.h"
#include "ingest/sink.h"
#include "util/error.h"

#define ARI_EP_MAX_DEPTH 4096
#define ARI_EP_MAX_PENDING ((size_t)1 << 24)
#define ARI_EP_MAX_TREE_DEPTH 16     /* system-tree levels above the processes */
#define ARI_EP_MAX_NODES ((size_t)1 << 20)

typedef struct ari_event_paje ari_event_paje;

/* What the end of the read found, for the trace's warnings. */
typedef struct ari_event_paje_report {
    uint64_t states, links, events, variables;
    uint64_t unmatched_sends, unmatched_receives; /* message sides left without a partner */
    uint64_t redelivered;                        /* by request: receives of a message already
                                                  * received, or of a broadcast */
    uint64_t unclosed;                           /* regions still open at the end, closed there */
    uint64_t processes, locations, regions;      /* as the reader defined them */
    uint64_t functions;                          /* distinct region names */
    uint64_t enters, leaves, instants;           /* the reader's calls, as Pipit counts events */
    uint64_t message_events, collectives, metric_samples;
} ari_event_paje_report;

/* A matched message, with the aliases of its Thread containers. */
typedef struct ari_event_paje_message {
    const char *src, *dst;
    int64_t src_rank, dst_rank, tag, comm; /* tag, comm: -1 unknown */
    uint64_t bytes;
    double send, recv;                     /* ns */
} ari_event_paje_message;

/* Told of each location (after its container was given to the sink) and
 * of each matched message (after its link). A callback returning non-zero
 * stops the read with "the observer refused ..." (its own error is the
 * observer's to keep). */
typedef struct ari_event_paje_observer {
    void *ctx;
    int (*location)(void *ctx, const char *alias, const char *process_alias, int64_t rank, int64_t thread);
    int (*message)(void *ctx, const ari_event_paje_message *m);
} ari_event_paje_observer;

#define ARI_EP_MAX_NOTES 65536 /* bytes of notes kept; the rest are dropped */

/* An adapter writing into out (borrowed: must outlive the adapter). */
ari_event_paje *ari_event_paje_new(const ari_sink *out, ari_error *err);
/* Sets the observer (copied; NULL: none). Call before reading. */
void ari_event_paje_observe(ari_event_paje *ep, const ari_event_paje_observer *o);
/* Matches messages by (sender rank, request) instead of FIFO per (sender,
 * receiver, tag, communicator): for readers whose sends have no peer and
 * whose request is the sender's message id (Projections). */
void ari_event_paje_match_by_request(ari_event_paje *ep);
/* The readers' notes so far as one JSON object ("{}" if none): valid
 * until the next note or ari_event_paje_free; NULL when out of memory. */
const char *ari_event_paje_notes(ari_event_paje *ep);
/* The event sink that readers write into. */
const ari_event_sink *ari_event_paje_sink(ari_event_paje *ep);
/* The error that made a callback fail (code empty if none). */
const ari_error *ari_event_paje_error(const ari_event_paje *ep);
/* Closes what is still open (regions at their location's last time,
 * variables, containers) and fills the report. Returns 0 or -1 (err). */
int ari_event_paje_finish(ari_event_paje *ep, ari_event_paje_report *rep, ari_error *err);
void ari_event_paje_free(ari_event_paje *ep);

#endif
