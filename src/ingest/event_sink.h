/* event_sink.h: what the MPI and HPC event-trace readers (OTF2 from
 * Score-P: otf2.c; Charm++ Projections: projections.c; HPCToolkit's
 * trace.db: hpctoolkit_db.c) hand their data to: processes and their
 * threads (locations), regions (functions), Enter/Leave pairs, instant
 * events, point-to-point messages, collectives and metric samples, as
 * Pipit's events table holds them (issue 19), and the system tree above
 * the processes (OTF2's machine > node, HPCToolkit's nodes) when the
 * trace records one. The store's event-trace
 * writer will implement it; tests and fuzzers implement their own.
 *
 * Handles are small non-negative integers given back by the sink; every
 * callback returns -1 (with the sink's own error recorded) to stop the
 * reader, which then returns -1 and leaves that error to the caller.
 * Times are nanoseconds from the trace's own origin, as doubles. The
 * events of one location arrive in time order; locations may interleave.
 */
#ifndef ARIADNE_EVENT_SINK_H
#define ARIADNE_EVENT_SINK_H

#include <stddef.h>
#include <stdint.h>

/* The side of a point-to-point message an event records. */
typedef enum ari_msg_kind {
    ARI_MSG_SEND = 0,          /* a blocking send (OTF2 MpiSend) */
    ARI_MSG_ISEND,             /* a non-blocking send started (MpiIsend) */
    ARI_MSG_ISEND_COMPLETE,    /* its completion (MpiIsendComplete) */
    ARI_MSG_RECV,              /* a receive completed (MpiRecv) */
    ARI_MSG_IRECV_REQUEST,     /* a non-blocking receive posted (MpiIrecvRequest) */
    ARI_MSG_IRECV,             /* its completion with the message (MpiIrecv) */
} ari_msg_kind;

typedef struct ari_event_msg {
    int64_t location;          /* the location recording the event */
    double time;               /* ns */
    ari_msg_kind kind;
    int64_t peer;              /* the other side's rank (sender of a receive, receiver of a send); -1 unknown */
    int64_t tag;               /* -1 unknown */
    int64_t communicator;      /* a handle from ->communicator, or -1 */
    uint64_t bytes;            /* message length */
    uint64_t request;          /* request id of non-blocking operations, 0 otherwise */
} ari_event_msg;

typedef struct ari_event_collective {
    int64_t location;
    double begin, end;         /* ns */
    const char *op;            /* "MPI_Allreduce", "Barrier", ... */
    int64_t communicator;      /* handle or -1 */
    int64_t root;              /* root rank, -1 for none */
    uint64_t bytes_sent, bytes_received;
    /* A broadcast whose receives name it as a message of the root (Charm++:
     * the sender's event number; matched by request, event_paje.h): its
     * receives are its deliveries, not point-to-point messages. */
    int has_request;           /* 0: none */
    uint64_t request;
} ari_event_collective;

typedef struct ari_event_sink {
    void *ctx;
    /* The process (MPI rank, Charm++ PE) of that number, added on first
     * use; name may be NULL ("rank N"). Returns its handle or -1. */
    int64_t (*process)(void *ctx, int64_t rank, const char *name);
    /* The location (thread) `thread` of a process handle, added on first
     * use. Returns its handle or -1. */
    int64_t (*location)(void *ctx, int64_t process, int64_t thread, const char *name);
    /* A region (function, MPI call, Charm++ entry method) by name, with its
     * source file and line when known (NULL, 0), and a role ("function",
     * "mpi", "loop", "entry", ... ; NULL if unknown). Several regions may
     * share a name (different files): they stay distinct. Returns its handle. */
    int64_t (*region)(void *ctx, const char *name, const char *file, int line, const char *role);
    /* A communicator (or group) with its size, by the reader's id. */
    int64_t (*communicator)(void *ctx, const char *name, int64_t size);
    int (*enter)(void *ctx, int64_t location, double time, int64_t region);
    int (*leave)(void *ctx, int64_t location, double time, int64_t region);
    /* An instant event that is not a message: "ProgramBegin", "ProgramEnd",
     * a Projections user event, ... */
    int (*instant)(void *ctx, int64_t location, double time, const char *name);
    int (*message)(void *ctx, const ari_event_msg *m);
    int (*collective)(void *ctx, const ari_event_collective *c);
    /* A sampled counter (PAPI) of a location; unit may be NULL. */
    int (*metric)(void *ctx, int64_t location, double time, const char *metric, const char *unit, double value);
    /* Adds "key": json_value to the trace's summary (definitions counted by
     * type, clock properties, the tool's version, ...); may be NULL. */
    int (*note)(void *ctx, const char *key, const char *json_value);
    /* Progress through the input, 0..1 (may be NULL). */
    void (*progress)(void *ctx, double fraction);
    /* A node of the system tree above the processes, by its class
     * ("machine", "node", ...; NULL unknown) and name, under parent (a
     * handle from system_node, -1 for a root). Returns its handle or -1.
     * May be NULL: the sink ignores the tree (readers then skip it). */
    int64_t (*system_node)(void *ctx, int64_t parent, const char *cls, const char *name);
    /* Places the process of that rank under a system node (a handle from
     * system_node); called before the rank's first process call (later
     * calls are ignored). Returns 0 or -1. May be NULL, as system_node; a reader calls both or neither. */
    int (*process_node)(void *ctx, int64_t rank, int64_t node);
} ari_event_sink;

#endif
