/* projections.h: Charm++ Projections traces: the .sts file (PEs, chares,
 * entry methods, user events and stats) and one text log per PE
 * (<prog>.<pe>.log or .log.gz), read into an event sink (issue 19) as
 * Pipit's ProjectionsReader maps them:
 *
 *   BEGIN/END_COMPUTATION    enter/leave of "Computation" (role "program")
 *   BEGIN/END_PROCESSING     enter/leave of the entry method (role "entry",
 *                            named like Pipit: the entry's own name, e.g.
 *                            "recv(PingMsg* impl_msg)"); a BEGIN_PROCESSING
 *                            of a message (a sending PE among the PEs,
 *                            event >= 0, length > 0) is first a receive
 *                            (ARI_MSG_RECV, peer = sending PE)
 *   CREATION                 a send (ARI_MSG_SEND, peer -1: the log does
 *                            not say where it goes)
 *   CREATION_MULTICAST       one send per destination PE listed
 *   CREATION_BCAST           a collective "Broadcast" (root = this PE)
 *   BEGIN/END_IDLE, _PACK,   enter/leave of "Idle" (role "idle"), "Pack",
 *   _UNPACK, _INTERRUPT,     "Unpack", "Interrupt", "Trace" (role
 *   _TRACE                   "runtime")
 *   BEGIN/END_USER_EVENT_PAIR enter/leave of the user event (role "user")
 *   USER_EVENT, USER_EVENT_PAIR, ENQUEUE, DEQUEUE, MESSAGE_RECV, notes
 *                            instants (user event name, "Enque", ...)
 *   MEMORY_USAGE, USER_STAT  metric samples
 *
 * For messages, tag is the entry method index the message invokes and
 * request the sender's event number: (sending PE, event) identifies a
 * message in Projections, so a send and its receive can be matched.
 * Times are microseconds in the logs, nanoseconds (x 1e3) in the sink.
 * An END whose BEGIN is not open is skipped; entries still open at
 * END_COMPUTATION or at the end of a log are closed there, so enters and
 * leaves pair up; a time before the PE's previous one is raised to it.
 * Other record types (phases, functions, ...) are skipped. Counts of what
 * was fixed or skipped go to the sink's notes.
 */
#ifndef ARIADNE_PROJECTIONS_H
#define ARIADNE_PROJECTIONS_H

#include <stddef.h>

#include "ingest/event_sink.h"
#include "util/error.h"

/* 1 if the head of a file is a Projections .sts file. */
int ari_projections_sts_probe(const char *head, size_t n);

/* The PE of a log file name "<prog>.<pe>.log" or "<prog>.<pe>.log.gz", or
 * -1 if the name is not one. */
long ari_projections_log_pe(const char *path);

/* Reads the .sts and the logs (plain or compressed, streamed line by
 * line). A log's PE comes from its name, else its position in log_paths.
 * 0, or -1 with err naming the file and line. */
int ari_projections_read(const char *sts_path, const char *const *log_paths, size_t nlogs,
                         const ari_event_sink *k, ari_error *err);

#endif
