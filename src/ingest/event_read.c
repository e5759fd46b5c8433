/* event_read.c: the dispatch from a reader id to the event-trace reader
 * (in process). The isolated mode (a child process per read) is added by
 * event_read_child.c. */
#include "ingest/event_read.h"

#include "ingest/hpctoolkit_db.h"
#include "ingest/otf2.h"
#include "ingest/projections.h"

int ari_event_read_in_process(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                              ari_error *err);

int ari_event_read_in_process(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                              ari_error *err)
{
    if (n < 1)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "no input file for the event-trace reader");
    switch (r) {
    case ARI_EVREAD_OTF2:
        return ari_otf2_read(paths[0], k, err);
    case ARI_EVREAD_PROJECTIONS:
        return ari_projections_read(paths[0], paths + 1, n - 1, k, err);
    case ARI_EVREAD_HPCTOOLKIT:
        return ari_hpctoolkit_db_trace(paths[0], k, err);
    }
    return ari_error_set(err, ARI_E_INVALID_INPUT, "unknown event-trace reader %d", (int)r);
}

int ari_event_read(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                   ari_error *err)
{
    return ari_event_read_in_process(r, paths, n, k, err);
}

void ari_event_read_isolate(const char *exe, size_t max_bytes, unsigned max_seconds)
{
    (void)exe;
    (void)max_bytes;
    (void)max_seconds;
}
