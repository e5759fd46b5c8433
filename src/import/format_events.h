/* format_events.h: the import formats of MPI and HPC event traces (kind
 * "events", issue 19):
 *  - "otf2": an OTF2 anchor (X.otf2, by its content), its global
 *    definitions X.def beside it and every file of the directory X/ beside
 *    it (the locations' .evt and .def: a companion directory, formats.h);
 *  - "projections": a Charm++ Projections X.sts with every X.<pe>.log or
 *    X.<pe>.log.gz beside it (and X.projrc, kept as a file of the trace);
 *    a Projections log whose X.sts is missing is claimed too, to fail with
 *    that reason;
 *  - "hpctoolkit_trace": the trace.db of an HPCToolkit database directory,
 *    read with its meta.db and profile.db, which stay the profile format's
 *    (format_profiles.c): such a database gives two traces, the profile
 *    and the events.
 * Each reads through ari_event_read into the derived CCT's tee, then
 * event_paje into the trace writer's Paje sink, with the store's event
 * writer (ev_locations, message chunks, summary) observing; times in ns.
 */
#ifndef ARIADNE_FORMAT_EVENTS_H
#define ARIADNE_FORMAT_EVENTS_H

#include "import/formats.h"

extern const ari_format ari_format_otf2;
extern const ari_format ari_format_projections;
extern const ari_format ari_format_hpctoolkit_trace;

#endif
