/* test_event_wire.c: the sink calls as frames (src/ingest/event_wire.c):
 *  - every callback, with NULL and empty strings, extreme numbers, repeated
 *    processes and locations, goes through the writer and the decoder and
 *    reaches the sink exactly as a direct call does (test_log_sink.h), fed
 *    whole, byte by byte and in random pieces;
 *  - every strict prefix of a stream is "more to come", never a call too many;
 *  - hand-made bad frames (unknown type, length out of bounds, a field short
 *    or extra, a string without its NUL, a number never defined, a time that
 *    is not finite, progress out of 0..1, a bad error code, data after the
 *    end) are refused with a message; random bytes and mutated streams end
 *    cleanly;
 *  - a sink that says stop, the ERROR frame, a frame too large for the wire;
 *  - the system tree's frames, and a sink without a tree that drops them;
 *  - the seeds and kept finds of fuzz_event_wire (tests/fixtures/fuzz/event_wire/).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/event_wire.h"
#include "test_log_sink.h"

/* ---- a stream made by the writer -------------------------------------------- */

/* The calls of a reader, every kind, using the handles the sink returns. */
static void drive(const ari_event_sink *k)
{
    void *c = k->ctx;
    int64_t m = k->system_node(c, -1, "machine", "Linux"), n0 = k->system_node(c, m, "node", "quartz10");
    int64_t n1 = k->system_node(c, m, NULL, "");
    k->process_node(c, 0, n0);
    k->process_node(c, 7, n1);
    int64_t p0 = k->process(c, 0, "rank 0"), p1 = k->process(c, 7, NULL), p0b = k->process(c, 0, "rank 0");
    int64_t l0 = k->location(c, p0, 0, "Master thread"), l1 = k->location(c, p1, 3, NULL);
    int64_t l0b = k->location(c, p0b, 0, "Master thread");
    int64_t r0 = k->region(c, "main", "ping.c", 12, "function"), r1 = k->region(c, "MPI_Send", NULL, 0, NULL);
    int64_t r2 = k->region(c, "", "", -5, ""), r3 = k->region(c, "main", "other.c", 1, "function");
    int64_t c0 = k->communicator(c, "MPI_COMM_WORLD", 2), c1 = k->communicator(c, NULL, -1);
    k->note(c, "otf2_definitions", "{\"Region\":4,\"String\":10}");
    k->enter(c, l0, 0.0, r0);
    k->enter(c, l0b, 1.5, r1);
    k->progress(c, 0.25);
    k->leave(c, l0, -0.0, r1);
    k->enter(c, l1, 1e300, r2);
    k->leave(c, l1, -1e300, r2);
    k->enter(c, l1, 4.9e-324, r3);
    k->instant(c, l1, 2.0, "ProgramBegin");
    k->instant(c, l0, 3.0, "");
    for (int kind = ARI_MSG_SEND; kind <= ARI_MSG_IRECV; kind++) {
        ari_event_msg m = {.location = kind % 2 ? l1 : l0, .time = 10.0 + kind, .kind = (ari_msg_kind)kind,
                           .peer = kind == 3 ? -1 : 1, .tag = kind == 2 ? INT64_MIN : 42,
                           .communicator = kind == 4 ? -1 : c0, .bytes = kind == 1 ? UINT64_MAX : 8,
                           .request = (uint64_t)kind * 1000003};
        k->message(c, &m);
    }
    ari_event_collective e = {.location = l0, .begin = 20, .end = 21.25, .op = "MPI_Allreduce",
                              .communicator = c1, .root = -1, .bytes_sent = 64, .bytes_received = UINT64_MAX};
    k->collective(c, &e);
    e.communicator = -1, e.op = "Barrier", e.root = INT64_MAX;
    k->collective(c, &e);
    e.op = "Broadcast", e.root = 0, e.has_request = 1, e.request = UINT64_MAX;
    k->collective(c, &e);
    k->metric(c, l1, 30.0, "PAPI_TOT_CYC", NULL, 1e10);
    k->metric(c, l0, 31.0, "power", "W", NAN);
    k->metric(c, l0, 32.0, "", "", -INFINITY);
    k->progress(c, 1.0);
    k->leave(c, l0, 40.0, r0);
    k->note(c, "clock", "null");
}

/* The writer's whole output for drive() (END included), malloc'd. */
static unsigned char *stream_of(void (*calls)(const ari_event_sink *), size_t *n)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    ari_wire_writer *w = malloc(sizeof *w);
    assert_non_null(w);
    ari_wire_writer_init(w, fileno(tmp));
    ari_event_sink k = ari_wire_sink(w);
    calls(&k);
    assert_int_equal(ari_wire_write_end(w), 0);
    assert_false(w->failed || w->refused);
    free(w);
    fseek(tmp, 0, SEEK_END);
    long len = ftell(tmp);
    rewind(tmp);
    unsigned char *b = malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, tmp), (size_t)len);
    fclose(tmp);
    *n = (size_t)len;
    return b;
}

/* Feeds b in pieces of at most `piece` bytes (0: random sizes); returns
 * the last answer and the log text in *log (malloc'd). */
static int decode_all(const unsigned char *b, size_t n, size_t piece, char **log, ari_error *err)
{
    tls_sink *t = tls_new();
    ari_event_sink k = tls_sink_of(t);
    ari_wire_reader *r = ari_wire_reader_new(&k);
    assert_non_null(r);
    int rc = ARI_WIRE_MORE;
    uint32_t seed = 12345;
    memset(err, 0, sizeof *err);
    for (size_t at = 0; at < n && rc == ARI_WIRE_MORE;) {
        seed = seed * 1103515245 + 12345;
        size_t k2 = piece ? piece : 1 + (seed >> 8) % 300;
        if (k2 > n - at)
            k2 = n - at;
        rc = ari_wire_reader_feed(r, b + at, k2, err);
        at += k2;
    }
    ari_wire_reader_free(r);
    *log = strdup(tls_text(t));
    tls_free(t);
    return rc;
}

static char *direct_log(void (*calls)(const ari_event_sink *))
{
    tls_sink *t = tls_new();
    ari_event_sink k = tls_sink_of(t);
    calls(&k);
    char *s = strdup(tls_text(t));
    tls_free(t);
    return s;
}

static void test_round_trip(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = stream_of(drive, &n);
    char *want = direct_log(drive);
    assert_non_null(strstr(want, "process 0 rank 0 -> 1000\nprocess 7 (null) -> 1001\nprocess 0 rank 0 -> 1000\n"));
    assert_non_null(strstr(want, "location 1000 0 Master thread -> 2000\n"));
    size_t pieces[] = {n, 1, 7, 0};
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        char *got;
        ari_error err;
        assert_int_equal(decode_all(b, n, pieces[i], &got, &err), ARI_WIRE_DONE);
        assert_string_equal(got, want);
        free(got);
    }
    free(want);
    free(b);
}

/* Every strict prefix: more to come, and only whole frames passed on. */
static void test_prefixes(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = stream_of(drive, &n);
    char *want = direct_log(drive);
    for (size_t len = 0; len < n; len++) {
        char *got;
        ari_error err;
        assert_int_equal(decode_all(b, len, len ? len : 1, &got, &err), ARI_WIRE_MORE);
        assert_int_equal(strncmp(got, want, strlen(got)), 0); /* a prefix of the calls */
        free(got);
    }
    free(want);
    free(b);
}

/* ---- bad frames ---------------------------------------------------------------- */

typedef struct raw {
    unsigned char b[256];
    size_t n;
} raw;

static void r_u8(raw *r, unsigned v)
{
    r->b[r->n++] = (unsigned char)v;
}

static void r_u32(raw *r, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        r_u8(r, (v >> (8 * i)) & 0xff);
}

static void r_u64(raw *r, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        r_u8(r, (unsigned)(v >> (8 * i)) & 0xff);
}

static void r_f64(raw *r, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    r_u64(r, v);
}

static void r_str(raw *r, const char *s)
{
    r_u32(r, (uint32_t)strlen(s) + 1);
    memcpy(r->b + r->n, s, strlen(s) + 1);
    r->n += strlen(s) + 1;
}

/* Starts a frame; r_end fills its length in. */
static size_t r_begin(raw *r, unsigned type)
{
    r_u8(r, type);
    r_u32(r, 0);
    return r->n;
}

static void r_end(raw *r, size_t start)
{
    uint32_t len = (uint32_t)(r->n - start);
    for (int i = 0; i < 4; i++)
        r->b[start - 4 + i] = (unsigned char)(len >> (8 * i));
}

/* A process 0 and its location 0 and a region 0, as a good start. */
static void r_defs(raw *r)
{
    size_t s = r_begin(r, ARI_WIRE_PROCESS);
    r_u64(r, 0);
    r_str(r, "p");
    r_end(r, s);
    s = r_begin(r, ARI_WIRE_LOCATION);
    r_u32(r, 0);
    r_u64(r, 0);
    r_str(r, "t");
    r_end(r, s);
    s = r_begin(r, ARI_WIRE_REGION);
    r_u32(r, 1);
    r_str(r, "main");
    r_u32(r, UINT32_MAX);
    r_u32(r, UINT32_MAX);
    r_end(r, s);
}

static void r_enter(raw *r, uint32_t loc, double t, uint32_t region, int extra)
{
    size_t s = r_begin(r, ARI_WIRE_ENTER);
    r_u32(r, loc);
    r_f64(r, t);
    r_u32(r, region);
    for (int i = 0; i < extra; i++)
        r_u8(r, 0);
    r_end(r, s);
}

/* Decodes r: wants ARI_WIRE_CORRUPT with `text` in the message, after
 * `calls` calls reached the sink. */
static void want_corrupt(const raw *r, const char *text, int64_t calls)
{
    tls_sink *t = tls_new();
    ari_event_sink k = tls_sink_of(t);
    ari_wire_reader *d = ari_wire_reader_new(&k);
    ari_error err = {0};
    int rc = ari_wire_reader_feed(d, r->b, r->n, &err);
    if (rc != ARI_WIRE_CORRUPT || !strstr(err.message, text) || t->calls != calls)
        fail_msg("wanted corrupt '%s' after %lld calls, got %d '%s' after %lld", text, (long long)calls, rc,
                 err.message, (long long)t->calls);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    /* refused from now on */
    assert_int_equal(ari_wire_reader_feed(d, r->b, 1, &err), ARI_WIRE_CORRUPT);
    ari_wire_reader_free(d);
    tls_free(t);
}

static void test_bad_frames(void **state)
{
    (void)state;
    raw r;
    size_t s;

    r = (raw){0}; r_u8(&r, 0); r_u32(&r, 0);
    want_corrupt(&r, "frame type or length (frame 1, byte 0)", 0);
    r = (raw){0}; r_defs(&r); r_u8(&r, 99); r_u32(&r, 0);
    want_corrupt(&r, "frame type or length (frame 4,", 3);
    r = (raw){0}; r_u8(&r, ARI_WIRE_NOTE); r_u32(&r, (uint32_t)ARI_WIRE_MAX_FRAME + 1);
    want_corrupt(&r, "frame type or length", 0);
    r = (raw){0}; r_defs(&r); r_enter(&r, 0, 1.0, 0, 1);
    want_corrupt(&r, "an enter frame that is not valid (frame 4", 3);
    r = (raw){0}; r_defs(&r); s = r_begin(&r, ARI_WIRE_ENTER); r_u32(&r, 0); r_f64(&r, 1); r_end(&r, s);
    want_corrupt(&r, "an enter frame that is not valid", 3);
    r = (raw){0}; r_defs(&r); r_enter(&r, 1, 1.0, 0, 0);
    want_corrupt(&r, "an enter frame (frame 4, byte", 3);
    want_corrupt(&r, "names something never defined", 3);
    r = (raw){0}; r_defs(&r); r_enter(&r, 0, 1.0, 1, 0);
    want_corrupt(&r, "never defined", 3);
    r = (raw){0}; r_defs(&r); r_enter(&r, 0, NAN, 0, 0);
    want_corrupt(&r, "not finite", 3);
    r = (raw){0}; r_defs(&r); r_enter(&r, 0, INFINITY, 0, 0);
    want_corrupt(&r, "not finite", 3);
    /* a location of a process never defined */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_LOCATION); r_u32(&r, 0); r_u64(&r, 0); r_u32(&r, UINT32_MAX); r_end(&r, s);
    want_corrupt(&r, "a location frame (frame 1, byte 0) names something never defined", 0);
    /* a string without its NUL, a string longer than the frame */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_NOTE); r_u32(&r, 2); r_u8(&r, 'a'); r_u8(&r, 'b'); r_str(&r, "1"); r_end(&r, s);
    want_corrupt(&r, "a note frame that is not valid", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_NOTE); r_u32(&r, 200); r_str(&r, "1"); r_end(&r, s);
    want_corrupt(&r, "a note frame that is not valid", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_NOTE); r_u32(&r, 0); r_str(&r, "1"); r_end(&r, s);
    want_corrupt(&r, "a note frame that is not valid", 0);
    /* NULL where a name is required */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_REGION); r_u32(&r, 0); r_u32(&r, UINT32_MAX); r_u32(&r, UINT32_MAX);
    r_u32(&r, UINT32_MAX); r_end(&r, s);
    want_corrupt(&r, "a region frame that is not valid", 0);
    /* progress out of range; a message kind unknown */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_PROGRESS); r_f64(&r, 1.5); r_end(&r, s);
    want_corrupt(&r, "progress frame", 0);
    r = (raw){0}; r_defs(&r); s = r_begin(&r, ARI_WIRE_MESSAGE); r_u32(&r, 0); r_f64(&r, 1); r_u32(&r, 6);
    r_u64(&r, 0); r_u64(&r, 0); r_u32(&r, UINT32_MAX); r_u64(&r, 1); r_u64(&r, 0); r_end(&r, s);
    want_corrupt(&r, "a message frame that is not valid", 3);
    /* an error code that is not one */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_ERROR); r_str(&r, "Bad Code"); r_str(&r, "x"); r_end(&r, s);
    want_corrupt(&r, "an error frame that is not valid", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_ERROR); r_str(&r, "a_code_far_too_long_to_fit_in_the_error_record_xx");
    r_str(&r, "x"); r_end(&r, s);
    want_corrupt(&r, "an error frame that is not valid", 0);
    /* END with a payload; data after END */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_END); r_u8(&r, 0); r_end(&r, s);
    want_corrupt(&r, "an end frame that is not valid", 0);
    r = (raw){0}; r_begin(&r, ARI_WIRE_END); r_u8(&r, ARI_WIRE_END);
    want_corrupt(&r, "goes on after its end", 0);
    /* system-tree nodes: a parent never defined, a name missing, a process
     * placed under a node never defined or under none */
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_SYSTEM_NODE); r_u32(&r, 0); r_str(&r, "node"); r_str(&r, "n");
    r_end(&r, s);
    want_corrupt(&r, "a system-node frame (frame 1, byte 0) names something never defined", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_SYSTEM_NODE); r_u32(&r, UINT32_MAX); r_str(&r, "node");
    r_u32(&r, UINT32_MAX); r_end(&r, s);
    want_corrupt(&r, "a system-node frame that is not valid", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_SYSTEM_NODE); r_u32(&r, UINT32_MAX); r_u32(&r, UINT32_MAX);
    r_str(&r, "n"); r_end(&r, s); /* a root of no class: fine */
    s = r_begin(&r, ARI_WIRE_PROCESS_NODE); r_u64(&r, 3); r_u32(&r, 1); r_end(&r, s);
    want_corrupt(&r, "a process-node frame (frame 2, byte 19) names something never defined", 1);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_PROCESS_NODE); r_u64(&r, 3); r_u32(&r, UINT32_MAX); r_end(&r, s);
    want_corrupt(&r, "a process-node frame (frame 1, byte 0) names something never defined", 0);
    r = (raw){0}; s = r_begin(&r, ARI_WIRE_PROCESS_NODE); r_u64(&r, 3); r_end(&r, s);
    want_corrupt(&r, "a process-node frame that is not valid", 0);
    r = (raw){0}; r_u8(&r, ARI_WIRE_LAST + 1); r_u32(&r, 0);
    want_corrupt(&r, "frame type or length (frame 1, byte 0)", 0);
}

/* A sink that keeps no system tree still decodes a stream that has one:
 * the nodes and placements are dropped, the rest arrives. */
static void test_tree_ignored(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = stream_of(drive, &n);
    tls_sink *t = tls_new();
    ari_event_sink k = tls_sink_of(t);
    k.system_node = NULL, k.process_node = NULL;
    ari_wire_reader *r = ari_wire_reader_new(&k);
    ari_error err = {0};
    assert_int_equal(ari_wire_reader_feed(r, b, n, &err), ARI_WIRE_DONE);
    ari_wire_reader_free(r);
    const char *text = tls_text(t);
    assert_null(strstr(text, "system_node"));
    assert_null(strstr(text, "process_node"));
    assert_non_null(strstr(text, "process 0 rank 0 -> 1000"));
    tls_free(t);
    free(b);
}

/* Random bytes and mutated streams: any clean answer, never a crash. */
static void test_random_input(void **state)
{
    (void)state;
    size_t n;
    unsigned char *good = stream_of(drive, &n);
    unsigned char *b = malloc(n + 4096);
    uint64_t x = 88172645463325252ULL;
    int answers[6] = {0};
    for (int round = 0; round < 4000; round++) {
        size_t len;
        if (round % 2) {
            len = n;
            memcpy(b, good, n);
            for (int flips = 0; flips < 1 + round % 5; flips++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                b[x % n] = (unsigned char)(x >> 32);
            }
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            len = x % 4096;
            for (size_t i = 0; i < len; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                b[i] = (unsigned char)(i % 3 == 0 ? x % 16 : x >> 24);
            }
        }
        char *log;
        ari_error err;
        int rc = decode_all(b, len, 0, &log, &err);
        free(log);
        assert_true(rc >= ARI_WIRE_CORRUPT && rc <= ARI_WIRE_FAILED);
        if (rc == ARI_WIRE_CORRUPT || rc == ARI_WIRE_FAILED)
            assert_true(err.code[0] && err.message[0]);
        answers[rc + 2]++;
    }
    assert_true(answers[ARI_WIRE_CORRUPT + 2] > 1000); /* most are refused */
    free(b);
    free(good);
}

/* ---- the ends of a stream -------------------------------------------------------- */

static void test_sink_stop(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = stream_of(drive, &n);
    for (int64_t at = 1; at <= 30; at++) {
        tls_sink *t = tls_new();
        t->fail_at = at;
        ari_event_sink k = tls_sink_of(t);
        ari_wire_reader *d = ari_wire_reader_new(&k);
        ari_error err = {0};
        assert_int_equal(ari_wire_reader_feed(d, b, n, &err), ARI_WIRE_SINK_STOP);
        assert_int_equal(t->calls, at);
        assert_string_equal(err.code, ""); /* the sink's error stands */
        assert_int_equal(ari_wire_reader_feed(d, b, n, &err), ARI_WIRE_SINK_STOP);
        ari_wire_reader_free(d);
        tls_free(t);
    }
    free(b);
}

static void some_calls_then_error(const ari_event_sink *k)
{
    k->process(k->ctx, 3, "three");
}

static void test_error_frame(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = stream_of(some_calls_then_error, &n);
    /* replace END (the last 5 bytes) by an ERROR frame */
    FILE *tmp = tmpfile();
    ari_wire_writer *w = malloc(sizeof *w);
    ari_wire_writer_init(w, fileno(tmp));
    ari_error e = {0};
    ari_error_set(&e, ARI_E_NOMEM, "traces.def: out of memory");
    assert_int_equal(ari_wire_write_error(w, &e), 0);
    unsigned char tail[256];
    rewind(tmp);
    size_t k = fread(tail, 1, sizeof tail, tmp);
    fclose(tmp);
    free(w);
    unsigned char *all = malloc(n - 5 + k);
    memcpy(all, b, n - 5);
    memcpy(all + n - 5, tail, k);
    char *log;
    ari_error err;
    assert_int_equal(decode_all(all, n - 5 + k, 3, &log, &err), ARI_WIRE_FAILED);
    assert_string_equal(err.code, ARI_E_NOMEM);
    assert_string_equal(err.message, "traces.def: out of memory");
    assert_string_equal(log, "process 3 three -> 1000\n");
    free(log);
    free(all);
    free(b);
}

/* A name longer than a frame: refused by the writer, which can still say why. */
static void test_too_large(void **state)
{
    (void)state;
    FILE *tmp = tmpfile();
    ari_wire_writer *w = malloc(sizeof *w);
    ari_wire_writer_init(w, fileno(tmp));
    ari_event_sink k = ari_wire_sink(w);
    char *big = malloc(ARI_WIRE_MAX_FRAME + 1);
    memset(big, 'x', ARI_WIRE_MAX_FRAME);
    big[ARI_WIRE_MAX_FRAME] = '\0';
    assert_int_equal(k.process(w, 0, "p"), 0);
    assert_int_equal(k.region(w, big, NULL, 0, NULL), -1);
    assert_true(w->refused && !w->failed);
    assert_int_equal(k.process(w, 1, "q"), -1); /* nothing more goes out */
    assert_int_equal(ari_wire_write_error(w, &w->err), 0);
    fseek(tmp, 0, SEEK_END);
    long len = ftell(tmp);
    unsigned char *b = malloc((size_t)len);
    rewind(tmp);
    assert_int_equal(fread(b, 1, (size_t)len, tmp), (size_t)len);
    char *log;
    ari_error err;
    assert_int_equal(decode_all(b, (size_t)len, 0, &log, &err), ARI_WIRE_FAILED);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_non_null(strstr(err.message, "a name or note of 4194321 bytes (at most 4194304)"));
    assert_string_equal(log, "process 0 p -> 1000\n");
    free(log), free(b), free(big), free(w);
    fclose(tmp);
}

/* A write to a closed pipe fails the writer, and the sink says stop. */
static void test_parent_gone(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    ari_wire_writer *w = malloc(sizeof *w);
    ari_wire_writer_init(w, fds[1]);
    ari_event_sink k = ari_wire_sink(w);
    int64_t rc = 0;
    for (int i = 0; i < 100000 && rc >= 0; i++)
        rc = k.enter(w, 0, 1.0, 0);
    assert_int_equal(rc, -1);
    assert_true(w->failed);
    assert_string_equal(w->err.code, ARI_E_IO);
    close(fds[1]);
    free(w);
}

/* Every file of tests/fixtures/fuzz/event_wire (its first byte is the fuzz
 * target's mode): a clean answer; the seeds made from the reader fixtures
 * decode to their end, the ERROR frame's seed fails with its message. */
static void test_fuzz_fixtures(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/fuzz/event_wire", getenv("ARIADNE_SOURCE_DIR") ?
             getenv("ARIADNE_SOURCE_DIR") : ".");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int seen = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        unsigned char *b = malloc(1 << 20);
        size_t n = fread(b, 1, 1 << 20, f);
        fclose(f);
        char *log;
        ari_error err;
        int rc = n > 1 ? decode_all(b + 1, n - 1, 0, &log, &err) : ARI_WIRE_MORE;
        if (n > 1)
            free(log);
        if ((rc == ARI_WIRE_CORRUPT || rc == ARI_WIRE_FAILED) && !err.message[0])
            fail_msg("%s: failed without a message", e->d_name);
        if (strncmp(e->d_name, "otf2-", 5) == 0 || strncmp(e->d_name, "projections-", 12) == 0 ||
            strncmp(e->d_name, "hpctoolkit-", 11) == 0)
            assert_int_equal(rc, ARI_WIRE_DONE);
        if (strcmp(e->d_name, "error-frame.bin") == 0) {
            assert_int_equal(rc, ARI_WIRE_FAILED);
            assert_string_equal(err.code, ARI_E_IO);
        }
        free(b);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),   cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_bad_frames),   cmocka_unit_test(test_random_input),
        cmocka_unit_test(test_sink_stop),    cmocka_unit_test(test_error_frame),
        cmocka_unit_test(test_too_large),    cmocka_unit_test(test_parent_gone),
        cmocka_unit_test(test_fuzz_fixtures), cmocka_unit_test(test_tree_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
