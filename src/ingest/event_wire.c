/* event_wire.c: the sink calls as frames on a pipe (see event_wire.h): a
 * buffered writer that is itself a sink (the child), and a decoder that
 * checks every frame and maps the child's numbers to the real sink's
 * handles (the parent). No allocation per frame on either side.
 */
#include "ingest/event_wire.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/le.h"

static uint64_t bits_of(double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

static double double_of(uint64_t v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* ---- the writer ------------------------------------------------------------- */

/* A frame being built: fields go into a small stack buffer, strings are
 * copied straight into the writer's buffer in add_frame. */
typedef struct frame {
    unsigned char type;
    size_t n;                 /* bytes in fixed */
    unsigned char fixed[64];
} frame;

enum { ID_PROCESS, ID_LOCATION, ID_REGION, ID_COMM, ID_NODE, ID_KINDS };

void ari_wire_writer_init(ari_wire_writer *w, int fd)
{
    memset(w, 0, offsetof(ari_wire_writer, buf));
    w->fd = fd;
    w->last_progress = -1;
}

int ari_wire_flush(ari_wire_writer *w)
{
    size_t off = 0;
    while (!w->failed && off < w->n) {
        ssize_t k = write(w->fd, w->buf + off, w->n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->failed = 1;
            ari_error_set(&w->err, ARI_E_IO, "cannot write to the parent: %s", k < 0 ? strerror(errno) : "closed");
        }
        else
            off += (size_t)k;
    }
    w->n = 0;
    return w->failed ? -1 : 0;
}

/* Copies n bytes into the stream, flushing as the buffer fills. */
static int emit(ari_wire_writer *w, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0 && !w->failed) {
        if (w->n == sizeof w->buf && ari_wire_flush(w) < 0)
            break;
        size_t k = sizeof w->buf - w->n < n ? sizeof w->buf - w->n : n;
        memcpy(w->buf + w->n, p, k);
        w->n += k, p += k, n -= k;
    }
    return w->failed ? -1 : 0;
}

static void f_u32(frame *f, uint32_t v)
{
    ari_le_put_u32(f->fixed + f->n, v);
    f->n += 4;
}

static void f_u64(frame *f, uint64_t v)
{
    ari_le_put_u64(f->fixed + f->n, v);
    f->n += 8;
}

static void f_f64(frame *f, double d)
{
    f_u64(f, bits_of(d));
}

/* A child number, or 0xffffffff for -1 (no communicator). */
static void f_id(frame *f, int64_t id)
{
    f_u32(f, id < 0 || id > (int64_t)UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)id);
}

static size_t str_size(const char *s)
{
    return 4 + (s ? strlen(s) + 1 : 0);
}

static int emit_str(ari_wire_writer *w, const char *s)
{
    unsigned char len[4];
    size_t n = s ? strlen(s) + 1 : 0;
    ari_le_put_u32(len, s ? (uint32_t)n : UINT32_MAX);
    if (emit(w, len, 4) < 0)
        return -1;
    return s ? emit(w, s, n) : 0;
}

/* Writes a frame: its fixed fields first, then the strings (ns of them). */
static int add_frame(ari_wire_writer *w, const frame *f, const char *const *strs, int ns)
{
    if (w->failed || (w->refused && f->type != ARI_WIRE_ERROR))
        return -1;
    size_t len = f->n;
    for (int i = 0; i < ns; i++)
        len += str_size(strs[i]);
    if (len > ARI_WIRE_MAX_FRAME) {
        w->refused = 1;
        return ari_error_set(&w->err, ARI_E_TOO_LARGE, "a name or note of %zu bytes (at most %zu)", len,
                             ARI_WIRE_MAX_FRAME);
    }
    unsigned char head[ARI_WIRE_HEADER];
    head[0] = f->type;
    ari_le_put_u32(head + 1, (uint32_t)len);
    if (emit(w, head, sizeof head) < 0 || emit(w, f->fixed, f->n) < 0)
        return -1;
    for (int i = 0; i < ns; i++)
        if (emit_str(w, strs[i]) < 0)
            return -1;
    return 0;
}

/* The next child number of a kind, after its frame went out. */
static int64_t numbered(ari_wire_writer *w, int kind, int rc)
{
    if (rc < 0)
        return -1;
    if ((int64_t)w->next[kind] >= ARI_WIRE_MAX_IDS) {
        w->refused = 1;
        ari_error_set(&w->err, ARI_E_TOO_LARGE, "more than %lld processes, locations, regions, communicators or "
                      "system-tree nodes",
                      (long long)ARI_WIRE_MAX_IDS);
        return -1;
    }
    return (int64_t)w->next[kind]++;
}

static int64_t w_process(void *ctx, int64_t rank, const char *name)
{
    ari_wire_writer *w = ctx;
    frame f = {.type = ARI_WIRE_PROCESS};
    f_u64(&f, (uint64_t)rank);
    return numbered(w, ID_PROCESS, add_frame(w, &f, &name, 1));
}

static int64_t w_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    ari_wire_writer *w = ctx;
    frame f = {.type = ARI_WIRE_SYSTEM_NODE};
    f_id(&f, parent);
    const char *s[] = {cls, name};
    return numbered(w, ID_NODE, add_frame(w, &f, s, 2));
}

static int w_process_node(void *ctx, int64_t rank, int64_t node)
{
    frame f = {.type = ARI_WIRE_PROCESS_NODE};
    f_u64(&f, (uint64_t)rank);
    f_id(&f, node);
    return add_frame(ctx, &f, NULL, 0);
}

static int64_t w_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    ari_wire_writer *w = ctx;
    frame f = {.type = ARI_WIRE_LOCATION};
    f_id(&f, process);
    f_u64(&f, (uint64_t)thread);
    return numbered(w, ID_LOCATION, add_frame(w, &f, &name, 1));
}

static int64_t w_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    ari_wire_writer *w = ctx;
    frame f = {.type = ARI_WIRE_REGION};
    f_u32(&f, (uint32_t)line);
    const char *s[] = {name, file, role};
    return numbered(w, ID_REGION, add_frame(w, &f, s, 3));
}

static int64_t w_communicator(void *ctx, const char *name, int64_t size)
{
    ari_wire_writer *w = ctx;
    frame f = {.type = ARI_WIRE_COMMUNICATOR};
    f_u64(&f, (uint64_t)size);
    return numbered(w, ID_COMM, add_frame(w, &f, &name, 1));
}

static int region_event(ari_wire_writer *w, unsigned char type, int64_t location, double time, int64_t region)
{
    frame f = {.type = type};
    f_id(&f, location);
    f_f64(&f, time);
    f_id(&f, region);
    return add_frame(w, &f, NULL, 0);
}

static int w_enter(void *ctx, int64_t location, double time, int64_t region)
{
    return region_event(ctx, ARI_WIRE_ENTER, location, time, region);
}

static int w_leave(void *ctx, int64_t location, double time, int64_t region)
{
    return region_event(ctx, ARI_WIRE_LEAVE, location, time, region);
}

static int w_instant(void *ctx, int64_t location, double time, const char *name)
{
    frame f = {.type = ARI_WIRE_INSTANT};
    f_id(&f, location);
    f_f64(&f, time);
    return add_frame(ctx, &f, &name, 1);
}

static int w_message(void *ctx, const ari_event_msg *m)
{
    frame f = {.type = ARI_WIRE_MESSAGE};
    f_id(&f, m->location);
    f_f64(&f, m->time);
    f_u32(&f, (uint32_t)m->kind);
    f_u64(&f, (uint64_t)m->peer);
    f_u64(&f, (uint64_t)m->tag);
    f_id(&f, m->communicator);
    f_u64(&f, m->bytes);
    f_u64(&f, m->request);
    return add_frame(ctx, &f, NULL, 0);
}

static int w_collective(void *ctx, const ari_event_collective *c)
{
    frame f = {.type = ARI_WIRE_COLLECTIVE};
    f_id(&f, c->location);
    f_f64(&f, c->begin);
    f_f64(&f, c->end);
    f_id(&f, c->communicator);
    f_u64(&f, (uint64_t)c->root);
    f_u64(&f, c->bytes_sent);
    f_u64(&f, c->bytes_received);
    f_u32(&f, c->has_request ? 1 : 0);
    f_u64(&f, c->request);
    return add_frame(ctx, &f, &c->op, 1);
}

static int w_metric(void *ctx, int64_t location, double time, const char *metric, const char *unit, double value)
{
    frame f = {.type = ARI_WIRE_METRIC};
    f_id(&f, location);
    f_f64(&f, time);
    f_f64(&f, value);
    const char *s[] = {metric, unit};
    return add_frame(ctx, &f, s, 2);
}

static int w_note(void *ctx, const char *key, const char *json_value)
{
    frame f = {.type = ARI_WIRE_NOTE};
    const char *s[] = {key, json_value};
    return add_frame(ctx, &f, s, 2);
}

static void w_progress(void *ctx, double fraction)
{
    ari_wire_writer *w = ctx;
    if (!(fraction >= 0 && fraction <= 1))
        return;
    if (fraction < 1 && fraction >= w->last_progress && fraction - w->last_progress < 0.001)
        return;
    w->last_progress = fraction;
    frame f = {.type = ARI_WIRE_PROGRESS};
    f_f64(&f, fraction);
    add_frame(w, &f, NULL, 0);
}

ari_event_sink ari_wire_sink(ari_wire_writer *w)
{
    return (ari_event_sink){
        .ctx = w, .process = w_process, .location = w_location, .region = w_region,
        .communicator = w_communicator, .enter = w_enter, .leave = w_leave, .instant = w_instant,
        .message = w_message, .collective = w_collective, .metric = w_metric, .note = w_note,
        .progress = w_progress, .system_node = w_system_node, .process_node = w_process_node,
    };
}

int ari_wire_write_end(ari_wire_writer *w)
{
    frame f = {.type = ARI_WIRE_END};
    if (add_frame(w, &f, NULL, 0) < 0)
        return -1;
    return ari_wire_flush(w);
}

int ari_wire_write_error(ari_wire_writer *w, const ari_error *e)
{
    frame f = {.type = ARI_WIRE_ERROR};
    const char *s[] = {e->code[0] ? e->code : ARI_E_INVALID_INPUT, e->message[0] ? e->message : "unknown error"};
    if (add_frame(w, &f, s, 2) < 0)
        return -1;
    return ari_wire_flush(w);
}

/* ---- the decoder ------------------------------------------------------------ */

/* Child number -> the real sink's handle, for one kind. */
typedef struct idmap {
    int64_t *h;
    size_t n, cap;
} idmap;

struct ari_wire_reader {
    const ari_event_sink *k;
    idmap ids[ID_KINDS];
    unsigned char *buf; /* bytes not yet decoded */
    size_t n, cap;
    uint64_t frames, offset; /* frames decoded, stream offset of buf[0] */
    int state;               /* ARI_WIRE_MORE until the stream ends or fails */
};

ari_wire_reader *ari_wire_reader_new(const ari_event_sink *k)
{
    ari_wire_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->k = k;
    return r;
}

void ari_wire_reader_free(ari_wire_reader *r)
{
    if (!r)
        return;
    for (int i = 0; i < ID_KINDS; i++)
        free(r->ids[i].h);
    free(r->buf);
    free(r);
}

size_t ari_wire_reader_pending(const ari_wire_reader *r)
{
    return r->n;
}

uint64_t ari_wire_reader_frames(const ari_wire_reader *r)
{
    return r->frames;
}

/* A frame's payload, read field by field; any overrun sets bad. */
typedef struct cursor {
    const unsigned char *p;
    size_t n, at;
    int bad;
} cursor;

static const unsigned char *take(cursor *c, size_t n)
{
    if (c->bad || c->n - c->at < n) {
        c->bad = 1;
        return NULL;
    }
    c->at += n;
    return c->p + c->at - n;
}

static uint32_t c_u32(cursor *c)
{
    const unsigned char *p = take(c, 4);
    return p ? ari_le_get_u32(p) : 0;
}

static uint64_t c_u64(cursor *c)
{
    const unsigned char *p = take(c, 8);
    return p ? ari_le_get_u64(p) : 0;
}

static int64_t c_i64(cursor *c)
{
    return (int64_t)c_u64(c);
}

static double c_f64(cursor *c)
{
    return double_of(c_u64(c));
}

/* A string (NULL allowed only if nullable): its NUL must end it. */
static const char *c_str(cursor *c, int nullable)
{
    uint32_t len = c_u32(c);
    if (c->bad)
        return NULL;
    if (len == UINT32_MAX) {
        c->bad = !nullable;
        return NULL;
    }
    const unsigned char *p = len ? take(c, len) : NULL;
    if (!p || p[len - 1] != 0) {
        c->bad = 1;
        return NULL;
    }
    return (const char *)p;
}

static int corrupt(ari_wire_reader *r, ari_error *err, const char *fmt, const char *what)
{
    r->state = ARI_WIRE_CORRUPT;
    ari_error_set(err, ARI_E_INVALID_INPUT, fmt, what, (unsigned long long)r->frames + 1,
                  (unsigned long long)r->offset);
    return ARI_WIRE_CORRUPT;
}

/* The handle of child number id of a kind; -1 for "none" when allowed. *ok
 * is cleared when id was never announced. */
static int64_t handle_of(const ari_wire_reader *r, int kind, uint32_t id, int none_ok, int *ok)
{
    if (id == UINT32_MAX && none_ok)
        return -1;
    if (id >= r->ids[kind].n) {
        *ok = 0;
        return -1;
    }
    return r->ids[kind].h[id];
}

/* Records the handle the sink gave for the next child number of a kind. */
static int add_id(idmap *m, int64_t h)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        if (cap > (size_t)ARI_WIRE_MAX_IDS)
            cap = (size_t)ARI_WIRE_MAX_IDS;
        if (m->n >= cap)
            return -1;
        int64_t *h2 = realloc(m->h, cap * sizeof *h2);
        if (!h2)
            return -1;
        m->h = h2, m->cap = cap;
    }
    m->h[m->n++] = h;
    return 0;
}

#define SINK_STOP (-2)
#define BAD_FIELDS (-3)
#define BAD_ID (-4)
#define BAD_TIME (-5)
#define TOO_MANY (-6)

/* A definition's handle from the sink: recorded, or the reason it is not. */
static int defined(ari_wire_reader *r, int kind, int64_t h)
{
    if (h < 0)
        return SINK_STOP;
    return add_id(&r->ids[kind], h) < 0 ? TOO_MANY : 0;
}

/* Whether a frame read well: every field there and well formed, nothing
 * left over (else BAD_FIELDS), and its handles known (else BAD_ID): 0. */
static int frame_end(const cursor *c, int ok)
{
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    return ok ? 0 : BAD_ID;
}

static int dec_process(ari_wire_reader *r, cursor *c)
{
    int64_t rank = c_i64(c);
    const char *name = c_str(c, 1);
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    return defined(r, ID_PROCESS, r->k->process(r->k->ctx, rank, name));
}

static int called(int rc)
{
    return rc < 0 ? SINK_STOP : 0;
}

/* A sink without a system tree still numbers the nodes (handle 0): the
 * stream stays valid, the placements are dropped. */
static int dec_system_node(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    int64_t parent = handle_of(r, ID_NODE, c_u32(c), 1, &ok);
    const char *cls = c_str(c, 1), *name = c_str(c, 0);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    int tree = r->k->system_node && r->k->process_node;
    return defined(r, ID_NODE, tree ? r->k->system_node(r->k->ctx, parent, cls, name) : 0);
}

static int dec_process_node(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    int64_t rank = c_i64(c);
    int64_t node = handle_of(r, ID_NODE, c_u32(c), 0, &ok);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    int tree = r->k->system_node && r->k->process_node;
    return tree ? called(r->k->process_node(r->k->ctx, rank, node)) : 0;
}

static int dec_location(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    int64_t proc = handle_of(r, ID_PROCESS, c_u32(c), 0, &ok);
    int64_t thread = c_i64(c);
    const char *name = c_str(c, 1);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    return defined(r, ID_LOCATION, r->k->location(r->k->ctx, proc, thread, name));
}

static int dec_region(ari_wire_reader *r, cursor *c)
{
    int line = (int)c_u32(c);
    const char *name = c_str(c, 0), *file = c_str(c, 1), *role = c_str(c, 1);
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    return defined(r, ID_REGION, r->k->region(r->k->ctx, name, file, line, role));
}

static int dec_communicator(ari_wire_reader *r, cursor *c)
{
    int64_t size = c_i64(c);
    const char *name = c_str(c, 1);
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    return defined(r, ID_COMM, r->k->communicator(r->k->ctx, name, size));
}

static int dec_region_event(ari_wire_reader *r, cursor *c, int enter)
{
    int ok = 1;
    int64_t loc = handle_of(r, ID_LOCATION, c_u32(c), 0, &ok);
    double t = c_f64(c);
    int64_t region = handle_of(r, ID_REGION, c_u32(c), 0, &ok);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    if (!isfinite(t))
        return BAD_TIME;
    return called(enter ? r->k->enter(r->k->ctx, loc, t, region) : r->k->leave(r->k->ctx, loc, t, region));
}

static int dec_instant(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    int64_t loc = handle_of(r, ID_LOCATION, c_u32(c), 0, &ok);
    double t = c_f64(c);
    const char *name = c_str(c, 0);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    if (!isfinite(t))
        return BAD_TIME;
    return called(r->k->instant(r->k->ctx, loc, t, name));
}

static int dec_message(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    ari_event_msg m;
    m.location = handle_of(r, ID_LOCATION, c_u32(c), 0, &ok);
    m.time = c_f64(c);
    uint32_t kind = c_u32(c);
    m.peer = c_i64(c);
    m.tag = c_i64(c);
    m.communicator = handle_of(r, ID_COMM, c_u32(c), 1, &ok);
    m.bytes = c_u64(c);
    m.request = c_u64(c);
    int bad = kind > ARI_MSG_IRECV ? BAD_FIELDS : frame_end(c, ok);
    if (bad)
        return bad;
    if (!isfinite(m.time))
        return BAD_TIME;
    m.kind = (ari_msg_kind)kind;
    return called(r->k->message(r->k->ctx, &m));
}

static int dec_collective(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    ari_event_collective e;
    e.location = handle_of(r, ID_LOCATION, c_u32(c), 0, &ok);
    e.begin = c_f64(c);
    e.end = c_f64(c);
    e.communicator = handle_of(r, ID_COMM, c_u32(c), 1, &ok);
    e.root = c_i64(c);
    e.bytes_sent = c_u64(c);
    e.bytes_received = c_u64(c);
    uint32_t has_request = c_u32(c);
    e.has_request = has_request == 1;
    e.request = c_u64(c);
    e.op = c_str(c, 0);
    int bad = has_request > 1 ? BAD_FIELDS : frame_end(c, ok);
    if (bad)
        return bad;
    if (!isfinite(e.begin) || !isfinite(e.end))
        return BAD_TIME;
    return called(r->k->collective(r->k->ctx, &e));
}

static int dec_metric(ari_wire_reader *r, cursor *c)
{
    int ok = 1;
    int64_t loc = handle_of(r, ID_LOCATION, c_u32(c), 0, &ok);
    double t = c_f64(c), v = c_f64(c);
    const char *metric = c_str(c, 0), *unit = c_str(c, 1);
    int bad = frame_end(c, ok);
    if (bad)
        return bad;
    if (!isfinite(t))
        return BAD_TIME;
    return called(r->k->metric(r->k->ctx, loc, t, metric, unit, v));
}

static int dec_note(ari_wire_reader *r, cursor *c)
{
    const char *key = c_str(c, 0), *value = c_str(c, 0);
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    return r->k->note ? called(r->k->note(r->k->ctx, key, value)) : 0;
}

static int dec_progress(ari_wire_reader *r, cursor *c)
{
    double f = c_f64(c);
    if (c->bad || c->at != c->n)
        return BAD_FIELDS;
    if (!(f >= 0 && f <= 1))
        return BAD_TIME;
    if (r->k->progress)
        r->k->progress(r->k->ctx, f);
    return 0;
}

/* The ERROR frame: its code (one word of at most 47 bytes) and message. */
static int dec_error(ari_wire_reader *r, cursor *c, ari_error *err)
{
    const char *code = c_str(c, 0), *message = c_str(c, 0);
    if (c->bad || c->at != c->n || !code[0] || strlen(code) >= sizeof err->code)
        return BAD_FIELDS;
    for (const char *p = code; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || *p == '_'))
            return BAD_FIELDS;
    (void)r;
    ari_error_set(err, code, "%s", message[0] ? message : "the event reader failed without saying why");
    return ARI_WIRE_FAILED;
}

/* Decodes one whole frame. 0 to go on, ARI_WIRE_DONE, ARI_WIRE_FAILED, or
 * one of the failures above. */
static int decode(ari_wire_reader *r, int type, const unsigned char *p, size_t n, ari_error *err)
{
    cursor c = {p, n, 0, 0};
    switch (type) {
    case ARI_WIRE_PROCESS: return dec_process(r, &c);
    case ARI_WIRE_LOCATION: return dec_location(r, &c);
    case ARI_WIRE_REGION: return dec_region(r, &c);
    case ARI_WIRE_COMMUNICATOR: return dec_communicator(r, &c);
    case ARI_WIRE_ENTER: return dec_region_event(r, &c, 1);
    case ARI_WIRE_LEAVE: return dec_region_event(r, &c, 0);
    case ARI_WIRE_INSTANT: return dec_instant(r, &c);
    case ARI_WIRE_MESSAGE: return dec_message(r, &c);
    case ARI_WIRE_COLLECTIVE: return dec_collective(r, &c);
    case ARI_WIRE_METRIC: return dec_metric(r, &c);
    case ARI_WIRE_NOTE: return dec_note(r, &c);
    case ARI_WIRE_PROGRESS: return dec_progress(r, &c);
    case ARI_WIRE_ERROR: return dec_error(r, &c, err);
    case ARI_WIRE_END: return n == 0 ? ARI_WIRE_DONE : BAD_FIELDS;
    case ARI_WIRE_SYSTEM_NODE: return dec_system_node(r, &c);
    case ARI_WIRE_PROCESS_NODE: return dec_process_node(r, &c);
    default: return BAD_FIELDS;
    }
}

/* "a region", "an enter": the frame named for a message. */
static const char *a_frame(int type)
{
    static const char *const names[] = {
        "an unknown", "a process", "a location", "a region", "a communicator", "an enter", "a leave",
        "an instant", "a message", "a collective", "a metric", "a note", "a progress", "an error", "an end",
        "a system-node", "a process-node",
    };
    return type >= 1 && type <= ARI_WIRE_LAST ? names[type] : names[0];
}

/* The outcome of one frame as the feed's answer. */
static int outcome(ari_wire_reader *r, int type, int rc, ari_error *err)
{
    const char *name = a_frame(type);
    switch (rc) {
    case ARI_WIRE_DONE:
    case ARI_WIRE_FAILED:
        return r->state = rc;
    case SINK_STOP:
        return r->state = ARI_WIRE_SINK_STOP;
    case BAD_ID:
        return corrupt(r, err, "the event reader's output is corrupt: %s frame (frame %llu, byte %llu) "
                               "names something never defined", name);
    case BAD_TIME:
        return corrupt(r, err, "the event reader's output is corrupt: %s frame (frame %llu, byte %llu) "
                               "has a time or fraction that is not finite or out of range", name);
    case TOO_MANY:
        return corrupt(r, err, "the event reader's output defines too many things (%s frame, frame %llu, "
                               "byte %llu)", name);
    default:
        return corrupt(r, err, "the event reader's output is corrupt: %s frame that is not valid (frame %llu, "
                               "byte %llu)", name);
    }
}

/* Appends data to buf, growing it up to one whole frame. */
static int append(ari_wire_reader *r, const void *data, size_t n)
{
    if (r->cap - r->n < n) {
        size_t cap = r->cap ? r->cap : ARI_WIRE_BUFFER;
        while (cap - r->n < n)
            cap *= 2;
        unsigned char *b = realloc(r->buf, cap);
        if (!b)
            return -1;
        r->buf = b, r->cap = cap;
    }
    memcpy(r->buf + r->n, data, n);
    r->n += n;
    return 0;
}

int ari_wire_reader_feed(ari_wire_reader *r, const void *data, size_t n, ari_error *err)
{
    if (r->state != ARI_WIRE_MORE) {
        if (r->state == ARI_WIRE_DONE || r->state == ARI_WIRE_FAILED)
            return corrupt(r, err, "the event reader's output goes on after its end (%s frame %llu, byte %llu)",
                           "after the last");
        return r->state;
    }
    if (append(r, data, n) < 0) {
        r->state = ARI_WIRE_CORRUPT;
        return ari_error_set(err, ARI_E_NOMEM, "out of memory reading the event reader's output"),
               ARI_WIRE_CORRUPT;
    }
    size_t at = 0;
    int rc = ARI_WIRE_MORE;
    while (rc == ARI_WIRE_MORE && r->n - at >= ARI_WIRE_HEADER) {
        int type = r->buf[at];
        uint32_t len = ari_le_get_u32(r->buf + at + 1);
        if (type < 1 || type > ARI_WIRE_LAST || len > ARI_WIRE_MAX_FRAME) {
            rc = corrupt(r, err, "the event reader's output is corrupt: %s frame type or length (frame %llu, "
                                 "byte %llu)", "a bad");
            break;
        }
        if (r->n - at - ARI_WIRE_HEADER < len)
            break;
        int d = decode(r, type, r->buf + at + ARI_WIRE_HEADER, len, err);
        if (d != 0)
            rc = outcome(r, type, d, err);
        r->frames++;
        at += ARI_WIRE_HEADER + len;
        r->offset += ARI_WIRE_HEADER + len;
    }
    memmove(r->buf, r->buf + at, r->n - at);
    r->n -= at;
    if (rc == ARI_WIRE_DONE && r->n > 0)
        return corrupt(r, err, "the event reader's output goes on after its end (%s frame %llu, byte %llu)",
                       "after the last");
    return rc;
}
