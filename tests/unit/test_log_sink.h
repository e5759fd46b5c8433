/* test_log_sink.h: an ari_event_sink that writes every call, with all its
 * arguments and the handle it returns, as one line of text, so two runs of
 * a reader (in process, isolated, through the wire) can be compared call
 * by call (test_event_wire.c, test_event_read.c). Handles are like a real
 * sink's: one per process rank and per (process, thread), in order of first
 * use, offset per kind (1000, 2000, ...) so a mix-up shows; doubles are
 * printed exactly (%a). It can fail at the n-th call.
 */
#ifndef ARIADNE_TEST_LOG_SINK_H
#define ARIADNE_TEST_LOG_SINK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/event_sink.h"

#define TLS_MAX 100000

typedef struct tls_sink {
    FILE *f;
    char *text;
    size_t len;
    int64_t ranks[TLS_MAX], threads[TLS_MAX], tprocs[TLS_MAX];
    size_t nprocs, nlocs, nregions, ncomms, nnodes;
    int64_t calls, fail_at;
    int64_t progress_calls;
} tls_sink;

static inline const char *tls_s(const char *s)
{
    return s ? s : "(null)";
}

static inline int tls_call(tls_sink *t)
{
    t->calls++;
    return t->fail_at > 0 && t->calls == t->fail_at ? -1 : 0;
}

static inline int64_t tls_process(void *ctx, int64_t rank, const char *name)
{
    tls_sink *t = ctx;
    if (tls_call(t) < 0)
        return -1;
    size_t i = 0;
    while (i < t->nprocs && t->ranks[i] != rank)
        i++;
    if (i == t->nprocs) {
        if (t->nprocs == TLS_MAX)
            return -1;
        t->ranks[t->nprocs++] = rank;
    }
    fprintf(t->f, "process %lld %s -> %zu\n", (long long)rank, tls_s(name), 1000 + i);
    return 1000 + (int64_t)i;
}

static inline int64_t tls_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    tls_sink *t = ctx;
    if (tls_call(t) < 0)
        return -1;
    fprintf(t->f, "system_node %lld %s %s -> %zu\n", (long long)parent, tls_s(cls), tls_s(name), 5000 + t->nnodes);
    return 5000 + (int64_t)t->nnodes++;
}

static inline int tls_process_node(void *ctx, int64_t rank, int64_t node)
{
    tls_sink *t = ctx;
    fprintf(t->f, "process_node %lld %lld\n", (long long)rank, (long long)node);
    return tls_call(t);
}

static inline int64_t tls_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    tls_sink *t = ctx;
    if (tls_call(t) < 0)
        return -1;
    size_t i = 0;
    while (i < t->nlocs && !(t->tprocs[i] == process && t->threads[i] == thread))
        i++;
    if (i == t->nlocs) {
        if (t->nlocs == TLS_MAX)
            return -1;
        t->tprocs[t->nlocs] = process, t->threads[t->nlocs++] = thread;
    }
    fprintf(t->f, "location %lld %lld %s -> %zu\n", (long long)process, (long long)thread, tls_s(name), 2000 + i);
    return 2000 + (int64_t)i;
}

static inline int64_t tls_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    tls_sink *t = ctx;
    if (tls_call(t) < 0)
        return -1;
    fprintf(t->f, "region %s %s %d %s -> %zu\n", tls_s(name), tls_s(file), line, tls_s(role), 3000 + t->nregions);
    return 3000 + (int64_t)t->nregions++;
}

static inline int64_t tls_comm(void *ctx, const char *name, int64_t size)
{
    tls_sink *t = ctx;
    if (tls_call(t) < 0)
        return -1;
    fprintf(t->f, "communicator %s %lld -> %zu\n", tls_s(name), (long long)size, 4000 + t->ncomms);
    return 4000 + (int64_t)t->ncomms++;
}

static inline int tls_enter(void *ctx, int64_t location, double time, int64_t region)
{
    tls_sink *t = ctx;
    fprintf(t->f, "enter %lld %a %lld\n", (long long)location, time, (long long)region);
    return tls_call(t);
}

static inline int tls_leave(void *ctx, int64_t location, double time, int64_t region)
{
    tls_sink *t = ctx;
    fprintf(t->f, "leave %lld %a %lld\n", (long long)location, time, (long long)region);
    return tls_call(t);
}

static inline int tls_instant(void *ctx, int64_t location, double time, const char *name)
{
    tls_sink *t = ctx;
    fprintf(t->f, "instant %lld %a %s\n", (long long)location, time, tls_s(name));
    return tls_call(t);
}

static inline int tls_message(void *ctx, const ari_event_msg *m)
{
    tls_sink *t = ctx;
    fprintf(t->f, "message %lld %a %d %lld %lld %lld %llu %llu\n", (long long)m->location, m->time, (int)m->kind,
            (long long)m->peer, (long long)m->tag, (long long)m->communicator, (unsigned long long)m->bytes,
            (unsigned long long)m->request);
    return tls_call(t);
}

static inline int tls_collective(void *ctx, const ari_event_collective *c)
{
    tls_sink *t = ctx;
    fprintf(t->f, "collective %lld %a %a %s %lld %lld %llu %llu %d %llu\n", (long long)c->location, c->begin,
            c->end, tls_s(c->op), (long long)c->communicator, (long long)c->root, (unsigned long long)c->bytes_sent,
            (unsigned long long)c->bytes_received, c->has_request, (unsigned long long)c->request);
    return tls_call(t);
}

static inline int tls_metric(void *ctx, int64_t location, double time, const char *metric, const char *unit,
                             double value)
{
    tls_sink *t = ctx;
    fprintf(t->f, "metric %lld %a %s %s %a\n", (long long)location, time, tls_s(metric), tls_s(unit), value);
    return tls_call(t);
}

static inline int tls_note(void *ctx, const char *key, const char *json_value)
{
    tls_sink *t = ctx;
    fprintf(t->f, "note %s %s\n", tls_s(key), tls_s(json_value));
    return tls_call(t);
}

static inline void tls_progress(void *ctx, double fraction)
{
    tls_sink *t = ctx;
    (void)fraction;
    t->progress_calls++; /* not logged: the wire thins progress out */
}

/* Starts a log; tls_text() closes it and gives its text. */
static inline tls_sink *tls_new(void)
{
    tls_sink *t = calloc(1, sizeof *t);
    if (!t || !(t->f = open_memstream(&t->text, &t->len)))
        abort();
    return t;
}

static inline ari_event_sink tls_sink_of(tls_sink *t)
{
    return (ari_event_sink){
        .ctx = t, .process = tls_process, .location = tls_location, .region = tls_region,
        .communicator = tls_comm, .enter = tls_enter, .leave = tls_leave, .instant = tls_instant,
        .message = tls_message, .collective = tls_collective, .metric = tls_metric, .note = tls_note,
        .progress = tls_progress, .system_node = tls_system_node, .process_node = tls_process_node,
    };
}

static inline const char *tls_text(tls_sink *t)
{
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
    }
    return t->text ? t->text : "";
}

static inline void tls_free(tls_sink *t)
{
    tls_text(t);
    free(t->text);
    free(t);
}

#endif
