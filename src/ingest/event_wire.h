/* event_wire.h: the calls of an ari_event_sink as a byte stream, so that an
 * event-trace reader can run in a child process (`ariadned event-reader`,
 * see event_read.h) and its calls reach the parent's sink through a pipe.
 *
 * Framing: one frame per call, [type: 1 byte][length: 4 bytes, little-
 * endian][payload: length bytes], at most ARI_WIRE_MAX_FRAME bytes of
 * payload. Integers and doubles are little-endian, 4 or 8 bytes; a string
 * is a 4-byte length (0xffffffff for NULL) then that many bytes, the last
 * of them a NUL. Handles: the child numbers processes, locations, regions,
 * communicators and system-tree nodes itself, 0, 1, 2, ... in the order of the calls (each
 * kind on its own); the decoder maps each child number to the handle the
 * real sink returned for that call. The stream ends with an END frame (the
 * read succeeded) or an ERROR frame (code and message of the failure).
 *
 * The decoder trusts nothing: a crashing child may write garbage. Unknown
 * types, lengths out of bounds, fields that do not fill the frame exactly,
 * strings without their NUL, numbers of things not yet announced, times
 * that are not finite and progress outside 0..1 stop it with a clear error.
 */
#ifndef ARIADNE_EVENT_WIRE_H
#define ARIADNE_EVENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/event_sink.h"
#include "util/error.h"

enum {
    ARI_WIRE_PROCESS = 1,
    ARI_WIRE_LOCATION,
    ARI_WIRE_REGION,
    ARI_WIRE_COMMUNICATOR,
    ARI_WIRE_ENTER,
    ARI_WIRE_LEAVE,
    ARI_WIRE_INSTANT,
    ARI_WIRE_MESSAGE,
    ARI_WIRE_COLLECTIVE,
    ARI_WIRE_METRIC,
    ARI_WIRE_NOTE,
    ARI_WIRE_PROGRESS,
    ARI_WIRE_ERROR,
    ARI_WIRE_END,
    ARI_WIRE_SYSTEM_NODE,  /* after END: the older numbers stay */
    ARI_WIRE_PROCESS_NODE,
    ARI_WIRE_LAST = ARI_WIRE_PROCESS_NODE,
};

#define ARI_WIRE_HEADER 5                      /* type and length */
#define ARI_WIRE_MAX_FRAME ((size_t)4 << 20)  /* payload bytes of one frame */
#define ARI_WIRE_MAX_IDS ((int64_t)1 << 24)   /* things of one kind a stream may number */
#define ARI_WIRE_BUFFER ((size_t)64 << 10)    /* the writer's buffer */

/* ---- the writer (child side) ---------------------------------------------- */

typedef struct ari_wire_writer {
    int fd;              /* written with write(2) when the buffer fills */
    int failed;          /* a write failed: the parent is gone */
    int refused;         /* a frame too large, too many things: err says; only ERROR goes out */
    uint32_t next[5];    /* the next number of a process, location, region, communicator, system node */
    double last_progress;
    size_t n;            /* bytes in buf */
    ari_error err;       /* why the writer failed */
    unsigned char buf[ARI_WIRE_BUFFER];
} ari_wire_writer;

void ari_wire_writer_init(ari_wire_writer *w, int fd);
/* A sink whose every call becomes a frame (ctx = w). Progress is sent when
 * it moved by 1/1000 or reached 1. */
ari_event_sink ari_wire_sink(ari_wire_writer *w);
/* The final frames; both flush. 0, or -1 with w->err set. */
int ari_wire_write_end(ari_wire_writer *w);
int ari_wire_write_error(ari_wire_writer *w, const ari_error *e);
int ari_wire_flush(ari_wire_writer *w);

/* ---- the decoder (parent side) -------------------------------------------- */

typedef struct ari_wire_reader ari_wire_reader;

/* Decodes into k (which must outlive it). NULL when out of memory. */
ari_wire_reader *ari_wire_reader_new(const ari_event_sink *k);
void ari_wire_reader_free(ari_wire_reader *r);

/* What ari_wire_reader_feed found. */
enum {
    ARI_WIRE_MORE = 0,       /* every complete frame passed on; feed more */
    ARI_WIRE_DONE = 1,       /* the END frame came: the read succeeded */
    ARI_WIRE_FAILED = 2,     /* the ERROR frame came: its code and message are in err */
    ARI_WIRE_CORRUPT = -1,   /* the stream is not valid: err says where and why */
    ARI_WIRE_SINK_STOP = -2, /* a callback of k returned -1: its own error stands, err untouched */
};

/* Appends n bytes of the stream and passes every complete frame to the
 * sink. After anything but ARI_WIRE_MORE, further feeds are refused. */
int ari_wire_reader_feed(ari_wire_reader *r, const void *data, size_t n, ari_error *err);
/* Bytes received that do not yet make a whole frame (nonzero at the end of
 * the stream means it was cut). */
size_t ari_wire_reader_pending(const ari_wire_reader *r);
/* Frames decoded so far. */
uint64_t ari_wire_reader_frames(const ari_wire_reader *r);

#endif
