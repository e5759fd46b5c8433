/* metrics_sink.h: what the sampled-metrics readers (ross_csv.c,
 * metrics_csv.c) hand their data to: time points, entities, metrics,
 * values and communication rows. The store's metrics writer implements it
 * (store/metrics_writer.c); tests and fuzzers may implement their own.
 *
 * Handles are small non-negative integers given back by the sink; every
 * callback returns -1 (with the sink's own error recorded) to stop the
 * reader, which then returns -1 and leaves that error to the caller.
 */
#ifndef ARIADNE_METRICS_SINK_H
#define ARIADNE_METRICS_SINK_H

#include <stddef.h>
#include <stdint.h>

/* The time domains a reader may know; domain 0 keys the time points. */
enum { ARI_MT_LASTGVT = 0, ARI_MT_VIRTUALTS = 1, ARI_MT_REALTS = 2, ARI_MT_TIME = 3, ARI_MT_NDOMAINS = 4 };

typedef struct ari_metrics_sink {
    void *ctx;
    /* The time point whose key (the LastGvt of a ROSS sample, the `time`
     * of a generic CSV) is key, added on first use; domain gives the key's
     * domain (ARI_MT_LASTGVT or ARI_MT_TIME), other[ARI_MT_NDOMAINS] the
     * values of the other domains at that point (NaN: unknown; NULL: none).
     * Returns its handle or -1. */
    int64_t (*time)(void *ctx, int domain, double key, const double *other);
    /* The entity of that level and name, added on first use with parent
     * (a handle, or -1 for a root); a known entity given another parent
     * is an error. Returns its handle or -1. */
    int64_t (*entity)(void *ctx, const char *level, const char *name, int64_t parent);
    /* The metric of that name, added on first use; attribute: 1 for a
     * record attribute (EntityId, Mode, ...). Returns its handle or -1. */
    int64_t (*metric)(void *ctx, const char *name, int attribute);
    /* One sample; several of the same (metric, entity, time) average. */
    int (*value)(void *ctx, int64_t metric, int64_t entity, int64_t time, double v);
    /* The communication row of entity src at time: count[i] events to
     * dst[i], for i < n (zeros may be left out). */
    int (*comm_row)(void *ctx, int64_t time, int64_t src, const int64_t *dst, const double *count, size_t n);
    /* Progress through the current file, 0..1 (may be NULL). */
    void (*progress)(void *ctx, double fraction);
} ari_metrics_sink;

/* The names of the domains, indexed by the enum above. */
extern const char *const ari_mt_domain_names[ARI_MT_NDOMAINS];

#endif
