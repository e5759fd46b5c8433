/* event_read.h: one entry to the MPI and HPC event-trace readers (OTF2,
 * Projections, HPCToolkit's trace.db), so that an import does not care
 * whether the reader runs in this process or, isolated, in a child process
 * whose crash, hang or runaway allocation in a third-party library (libotf2
 * on a hostile traces.def) fails the import instead of the daemon.
 *
 * In process by default (tests, `ariadned import` when not configured);
 * the daemon calls ari_event_read_isolate() at start-up to run readers in
 * `exe event-reader ...` children with bounded memory and time.
 */
#ifndef ARIADNE_EVENT_READ_H
#define ARIADNE_EVENT_READ_H

#include <stddef.h>

#include "ingest/event_sink.h"
#include "util/error.h"

typedef enum ari_event_reader {
    ARI_EVREAD_OTF2 = 0,    /* paths[0]: the anchor (.otf2) file */
    ARI_EVREAD_PROJECTIONS, /* paths[0]: the .sts file, paths[1..n): the PE logs (.log, .log.gz) */
    ARI_EVREAD_HPCTOOLKIT,  /* paths[0]: the database directory (meta.db and trace.db in it) */
} ari_event_reader;

/* Reads with the reader into k. Returns 0, or -1 with err set (a sink
 * callback's failure is the caller's error, as with the readers). */
int ari_event_read(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                   ari_error *err);

/* Runs the readers in child processes from now on: `exe` (the ariadned
 * binary) started as `exe event-reader ...`, at most max_bytes of address
 * space and max_seconds of CPU each. exe NULL: back to in process. */
void ari_event_read_isolate(const char *exe, size_t max_bytes, unsigned max_seconds);

/* In the reader child (`ariadned event-reader`), first thing: no core
 * file, at most `bytes` of address space (0: none; never under
 * AddressSanitizer, which reserves terabytes) and `seconds` of CPU (0:
 * none), the limits the parent also sets on it. 0, or -1 (errno). */
int ari_event_read_limit_self(unsigned long long bytes, unsigned long long seconds);

#endif
