/* otf2.h: OTF2 traces (Score-P's traces.otf2 anchor, traces.def global
 * definitions, traces/<location>.def and .evt) read through libotf2 into
 * an ari_event_sink (issue 19).
 *
 * Global definitions are kept in bounded tables; each definition type is
 * counted into the note "definitions" ({"total":533,"types":17,
 * "by_type":{"String":267,...}}: every global definition record, clock
 * properties included, as Pipit's definitions table counts them). Also
 * noted: "clock" (timer resolution, global offset, trace length) and
 * "creator". Location groups become processes (rank = the group's id, as
 * Pipit's "Process"), locations their threads (thread = the location's
 * ordinal by id within its group: Pipit's numbers for one thread per
 * process, small numbers for Score-P's sparse thread ids). Then
 * each location's events, one location after the other, in file order:
 * Enter/Leave, MPI point-to-point events (peer ranks translated through
 * the communicator's group to the peer's location group), MPI collectives
 * (reported at their end), ProgramBegin/End, BufferFlush and
 * MeasurementOnOff as instants, metric samples one per member. Regions
 * reach the sink on first use, with their source file and line; their role
 * is "mpi" for the MPI paradigm, else OTF2's region role in lower case
 * ("function", "loop", "wrapper", ...). Times are
 * (t - global_offset) * 1e9 / timer_resolution ns; a time going back on a
 * location is an error, and so is a location whose .evt holds fewer or
 * more events than its definition says (libotf2 ends a cut file quietly).
 * The anchor is checked before libotf2 opens it (a property count larger
 * than the file, a bad property name: libotf2 would loop for hours or leak).
 */
#ifndef ARIADNE_OTF2_H
#define ARIADNE_OTF2_H

#include <stddef.h>

#include "ingest/event_sink.h"
#include "util/error.h"

/* Most global definitions, and most group members over all groups. */
#define ARI_OTF2_MAX_DEFS ((size_t)50000000)
#define ARI_OTF2_MAX_MEMBERS ((size_t)100000000)

/* Non-zero if the head of a file is an OTF2 anchor file (traces.otf2). */
int ari_otf2_probe(const char *head, size_t n);

/* Reads the archive of that anchor file. 0, or -1 with err set (the file
 * and what is wrong), or with the sink's own error when a callback failed. */
int ari_otf2_read(const char *anchor_path, const ari_event_sink *k, ari_error *err);

#endif
