/* fuzz_event_wire.c: libFuzzer target for the decoder of the event-reader
 * pipe (event_wire.c): what a crashing or hostile child could write. The
 * first byte of an input picks how the rest is fed (whole, in pieces of
 * 1..255 bytes) and at which call the sink says stop (never, or the n-th).
 * The sink checks what the decoder promises: handles it gave out (system-
 * tree nodes and their placements included), names
 * where they are required, finite times, progress in 0..1, a message kind
 * known; an answer that is a failure carries a code and a message (except a
 * sink stop, which leaves the sink's own error). A crash, leak, hang or
 * sanitizer report is a bug.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/event_wire.h"

static int64_t counts[5], calls, stop_at;

/* A handle is 1000 * (kind + 1) + index. */
static int64_t give(int kind)
{
    if (stop_at && ++calls == stop_at)
        return -1;
    return 1000000 * (kind + 1) + counts[kind]++;
}

static void check(int kind, int64_t h, int none_ok)
{
    if (h == -1 && none_ok)
        return;
    if (h < 1000000 * (kind + 1) || h >= 1000000 * (kind + 1) + counts[kind])
        abort();
}

static int said(void)
{
    return stop_at && ++calls == stop_at ? -1 : 0;
}

static void time_ok(double t)
{
    if (!isfinite(t))
        abort();
}

static int64_t on_process(void *ctx, int64_t rank, const char *name)
{
    (void)ctx, (void)rank;
    if (name)
        (void)strlen(name);
    return give(0);
}

static int64_t on_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    (void)ctx, (void)thread;
    check(0, process, 0);
    if (name)
        (void)strlen(name);
    return give(1);
}

static int64_t on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    (void)ctx, (void)line;
    if (!name)
        abort();
    (void)strlen(name);
    if (file)
        (void)strlen(file);
    if (role)
        (void)strlen(role);
    return give(2);
}

static int64_t on_comm(void *ctx, const char *name, int64_t size)
{
    (void)ctx, (void)size;
    if (name)
        (void)strlen(name);
    return give(3);
}

static int64_t on_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    (void)ctx;
    check(4, parent, 1);
    if (!name)
        abort();
    (void)strlen(name);
    if (cls)
        (void)strlen(cls);
    return give(4);
}

static int on_process_node(void *ctx, int64_t rank, int64_t node)
{
    (void)ctx, (void)rank;
    check(4, node, 0);
    return said();
}

static int on_enter(void *ctx, int64_t loc, double t, int64_t region)
{
    (void)ctx;
    check(1, loc, 0), check(2, region, 0), time_ok(t);
    return said();
}

static int on_instant(void *ctx, int64_t loc, double t, const char *name)
{
    (void)ctx;
    check(1, loc, 0), time_ok(t);
    if (!name)
        abort();
    return said();
}

static int on_message(void *ctx, const ari_event_msg *m)
{
    (void)ctx;
    check(1, m->location, 0), check(3, m->communicator, 1), time_ok(m->time);
    if ((unsigned)m->kind > ARI_MSG_IRECV)
        abort();
    return said();
}

static int on_collective(void *ctx, const ari_event_collective *c)
{
    (void)ctx;
    check(1, c->location, 0), check(3, c->communicator, 1), time_ok(c->begin), time_ok(c->end);
    if (!c->op)
        abort();
    return said();
}

static int on_metric(void *ctx, int64_t loc, double t, const char *metric, const char *unit, double v)
{
    (void)ctx, (void)v;
    check(1, loc, 0), time_ok(t);
    if (!metric)
        abort();
    if (unit)
        (void)strlen(unit);
    return said();
}

static int on_note(void *ctx, const char *key, const char *value)
{
    (void)ctx;
    if (!key || !value)
        abort();
    return said();
}

static void on_progress(void *ctx, double f)
{
    (void)ctx;
    if (!(f >= 0 && f <= 1))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const ari_event_sink k = {
        .process = on_process, .location = on_location, .region = on_region, .communicator = on_comm,
        .enter = on_enter, .leave = on_enter, .instant = on_instant, .message = on_message,
        .collective = on_collective, .metric = on_metric, .note = on_note, .progress = on_progress,
        .system_node = on_system_node, .process_node = on_process_node,
    };
    memset(counts, 0, sizeof counts);
    calls = 0;
    stop_at = data[0] >> 4;
    size_t piece = data[0] & 15 ? (size_t)(data[0] & 15) * 17 : size;
    ari_wire_reader *r = ari_wire_reader_new(&k);
    if (!r)
        return 0;
    ari_error err = {0};
    int rc = ARI_WIRE_MORE;
    for (size_t at = 1; at < size && rc == ARI_WIRE_MORE; at += piece) {
        size_t n = size - at < piece ? size - at : piece;
        rc = ari_wire_reader_feed(r, data + at, n, &err);
    }
    if ((rc == ARI_WIRE_CORRUPT || rc == ARI_WIRE_FAILED) && (!err.code[0] || !err.message[0]))
        abort();
    if (rc == ARI_WIRE_SINK_STOP && (err.code[0] || !stop_at))
        abort();
    if (rc < ARI_WIRE_SINK_STOP || rc > ARI_WIRE_FAILED)
        abort();
    ari_wire_reader_free(r);
    return 0;
}
