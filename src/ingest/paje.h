/* paje.h: the Paje trace reader (pajeng / pj_dump semantics).
 *
 * Reads a Paje trace (plain, gzip or zstd) and reports what pj_dump would
 * print through the sink: type definitions and entity values (on_type),
 * containers (on_container, then on_container_end), every state once when
 * it ends with its imbrication depth, variables as constant pieces, links
 * when both ends are known, and events.
 *
 * Identifiers passed to the sink: containers and types by their alias (or
 * their name when they were defined without one), the root container and
 * root type as "0"; entity values (state, event and link values) by their
 * NAME, resolved from an entity-value alias when one was defined, so a
 * consumer sees what pj_dump prints. A value used without a definition is
 * created on the fly and reported through on_type first, as pajeng does.
 *
 * Ordering: Paje wants events in time order, and StarPU's paje.trace is not.
 * The reader first scans the file. If the timed events are already in
 * order it replays them as they are (what pj_dump gives on the file);
 * otherwise it replays the trace the way StarVZ feeds it to pj_dump after
 * `sort -s -V -k2,2`: definitions and container creations first, in file
 * order, then every other event stably sorted by time. Memory holds one
 * 16-byte index entry per body line (only for unordered traces) plus the
 * open entities; a compressed input is first decompressed to a temporary
 * file so that the second pass can seek.
 *
 * When the trace ends, open states, variables and containers are closed at
 * the time of the last event (the trace end); the root container "0" is
 * then reported through on_container_end with that time. Incomplete links
 * are an error unless ignore_incomplete_links (pj_dump -z) is set.
 *
 * Errors (ARI_E_INVALID_INPUT, with "name:line: reason"): malformed lines,
 * unknown event ids, containers, types or values of the wrong kind, a pop
 * on an empty stack, a wrong number of fields, bad numbers, invalid event
 * definitions (old field names are only accepted with no_strict). Split
 * traces (PajeTraceFile) are ARI_E_UNSUPPORTED.
 *
 * A file cut in the middle of its last line (a copy stopped early, a run
 * killed while writing): with a report (ari_paje_options.report), a last
 * line that does not end with a newline and does not read (too few fields,
 * an unterminated quote, a cut number, an unknown container...) is ignored
 * and reported in report->cut_line instead of being an error; one that
 * reads is kept and reported in report->unterminated_line (it may still be
 * cut inside its last field). Without a report both behave as pj_dump: the
 * bad line is an error. A file that ends with a newline reads the same
 * either way.
 */
#ifndef ARIADNE_PAJE_H
#define ARIADNE_PAJE_H

#include <stddef.h>

#include "ingest/sink.h"
#include "util/error.h"

/* What a read noticed, besides its entities (filled when passed in the
 * options; zeroed at the start of the read). */
typedef struct ari_paje_report {
    char first_comment[128];              /* the first '#' comment before the header, without the '#'
                                   and leading blanks ("" if none), e.g. "This file was
                                   generated using SimGrid-3.36.1" */
    unsigned long long cut_line;          /* 1-based number of a cut last line that was ignored, 0 if none */
    char cut_reason[1024];                /* why it did not read ("name:line: reason") */
    unsigned long long unterminated_line; /* a last line without a newline that was kept, 0 if none */
} ari_paje_report;

typedef struct ari_paje_options {
    int no_strict;               /* accept old field names (pj_dump -n) */
    int ignore_incomplete_links; /* drop links missing an end (pj_dump -z) */
    ari_paje_report *report;     /* NULL: a cut last line is an error (see above) */
} ari_paje_options;

/* Reads path (display_name is used in messages; NULL: path). opt may be
 * NULL for the defaults (strict, incomplete links are errors). Returns 0,
 * or non-zero with err set; a non-zero return of a sink callback aborts the
 * read and is returned as is (err is then ARI_E_CANCELLED unless the sink
 * filled it). */
int ari_paje_read(const char *path, const char *display_name, const ari_paje_options *opt,
                  const ari_sink *sink, ari_error *err);

/* 1 if the first bytes of a file look like a Paje trace (an %EventDef
 * header after optional comments), else 0. */
int ari_paje_probe(const char *head, size_t len);

#endif
