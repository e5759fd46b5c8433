/* event_chunks.c: packing a trace's Paje events into chunks per container
 * at import and reading them back (see event_chunks.h). Records are
 * little-endian whatever the host, of variable length (their fields'
 * JSON text), so a read checks each against the blob's end. */
#include "store/event_chunks.h"

#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/le.h"
#include "util/vec.h"

/* ---- the record ---- */

int ari_event_blob_each(const unsigned char *blob, int64_t bytes, int64_t n, int64_t container,
                        ari_event_chunks_fn fn, void *ctx, ari_error *err)
{
    int64_t off = 0, i = 0;
    if (n < 1 || n > ARI_EVENT_CHUNK || bytes < 0 || (bytes > 0 && !blob))
        return ari_error_set(err, ARI_E_DB, "a chunk of events holds %lld events", (long long)n);
    for (; i < n && bytes - off >= ARI_EVENT_RECORD_HEAD; i++) {
        const unsigned char *r = blob + off;
        uint64_t t = ari_le_get(r + 16, 8);
        ari_packed_event e = {.seq = (int64_t)ari_le_get(r, 8),
                              .container = container,
                              .type_id = (int32_t)ari_le_get(r + 8, 4),
                              .value_id = (int32_t)ari_le_get(r + 12, 4),
                              .fields_len = (size_t)ari_le_get(r + 24, 4)};
        memcpy(&e.time, &t, sizeof e.time);
        off += ARI_EVENT_RECORD_HEAD;
        if ((uint64_t)(bytes - off) < e.fields_len)
            break;
        e.fields = e.fields_len ? (const char *)blob + off : NULL;
        off += (int64_t)e.fields_len;
        int rc = fn(ctx, &e);
        if (rc != 0)
            return rc;
    }
    if (i != n || off != bytes)
        return ari_error_set(err, ARI_E_DB, "a chunk of events is %lld bytes, not %lld whole events",
                             (long long)bytes, (long long)n);
    return 0;
}

/* ---- writing ---- */

typedef struct buffer {
    int64_t next; /* the container's next chunk number */
    unsigned char *data;
    size_t len, cap;
    int n;
    double t0, t1;
} buffer;

struct ari_event_packer {
    ari_store *store;
    int64_t trace_id;
    buffer *by_container; /* indexed by container id */
    size_t ncontainers;
    size_t buffered; /* bytes in all buffers */
};

ari_event_packer *ari_event_packer_new(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_event_packer *p = calloc(1, sizeof *p);
    if (!p) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    p->store = s;
    p->trace_id = trace_id;
    return p;
}

static int flush(ari_event_packer *p, int64_t container, buffer *b, ari_error *err)
{
    if (b->n == 0)
        return 0;
    ari_arg args[] = {ari_arg_int(p->trace_id),
                      ari_arg_int(container),
                      ari_arg_int(b->next),
                      ari_arg_real(b->t0),
                      ari_arg_real(b->t1),
                      ari_arg_int(b->n),
                      ari_arg_blob(b->data, (int64_t)b->len)};
    if (ari_store_run(p->store,
                      "INSERT INTO event_chunks(trace_id, container_id, chunk, t0, t1, n, data)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                      args, ARI_NARGS(args), "store a chunk of events", err) < 0)
        return -1;
    b->next++;
    p->buffered -= b->len;
    b->len = 0;
    b->n = 0;
    return 0;
}

static int flush_all(ari_event_packer *p, ari_error *err)
{
    for (size_t c = 0; c < p->ncontainers; c++)
        if (flush(p, (int64_t)c, &p->by_container[c], err) < 0)
            return -1;
    return 0;
}

static buffer *buffer_of(ari_event_packer *p, int64_t container, ari_error *err)
{
    if (container < 0 || container > INT32_MAX) {
        ari_error_set(err, ARI_E_INVALID_INPUT, "container id %lld out of range", (long long)container);
        return NULL;
    }
    if (ari_vec_reserve_zeroed((void **)&p->by_container, &p->ncontainers, (size_t)container + 1,
                               sizeof *p->by_container) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return &p->by_container[container];
}

int ari_event_packer_add(ari_event_packer *p, const ari_packed_event *e, ari_error *err)
{
    if (e->fields_len > ARI_EVENT_MAX_FIELDS_LEN)
        return ari_error_set(err, ARI_E_TOO_LARGE, "an event's fields are %zu bytes (at most %d)",
                             e->fields_len, ARI_EVENT_MAX_FIELDS_LEN);
    buffer *b = buffer_of(p, e->container, err);
    if (!b)
        return -1;
    size_t size = ARI_EVENT_RECORD_HEAD + (e->fields ? e->fields_len : 0);
    if ((b->n >= ARI_EVENT_CHUNK || (b->n > 0 && b->len + size > ARI_EVENT_CHUNK_BYTES)) &&
        flush(p, e->container, b, err) < 0)
        return -1;
    if (p->buffered >= ARI_EVENT_PACKER_MAX && flush_all(p, err) < 0)
        return -1;
    if (ari_vec_reserve((void **)&b->data, &b->cap, b->len + size, 1) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    unsigned char *r = b->data + b->len;
    uint64_t t;
    memcpy(&t, &e->time, sizeof t);
    ari_le_put(r, (uint64_t)e->seq, 8);
    ari_le_put(r + 8, (uint32_t)e->type_id, 4);
    ari_le_put(r + 12, (uint32_t)e->value_id, 4);
    ari_le_put(r + 16, t, 8);
    ari_le_put(r + 24, e->fields ? e->fields_len : 0, 4);
    if (e->fields && e->fields_len)
        memcpy(r + ARI_EVENT_RECORD_HEAD, e->fields, e->fields_len);
    if (b->n == 0 || e->time < b->t0)
        b->t0 = e->time;
    if (b->n == 0 || e->time > b->t1)
        b->t1 = e->time;
    b->len += size;
    b->n++;
    p->buffered += size;
    return 0;
}

int ari_event_packer_finish(ari_event_packer *p, ari_error *err)
{
    return flush_all(p, err);
}

void ari_event_packer_free(ari_event_packer *p)
{
    if (!p)
        return;
    for (size_t c = 0; c < p->ncontainers; c++)
        free(p->by_container[c].data);
    free(p->by_container);
    free(p);
}

/* ---- reading ---- */

typedef struct window {
    double t0, t1;
    ari_event_chunks_fn fn;
    void *ctx;
} window;

static int in_window(void *ctx, const ari_packed_event *e)
{
    window *w = ctx;
    return e->time >= w->t0 && e->time <= w->t1 ? w->fn(w->ctx, e) : 0;
}

int ari_event_chunks_each(ari_store *s, int64_t trace_id, int64_t container, double t0, double t1,
                          ari_event_chunks_fn fn, void *ctx, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(container), ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT container_id, n, data FROM event_chunks WHERE trace_id = ?1"
                                       " AND (?2 <= 0 OR container_id = ?2) AND t0 <= ?4 AND t1 >= ?3"
                                       " ORDER BY container_id, chunk",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    window w = {t0, t1, fn, ctx};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int r =
            ari_event_blob_each(ari_col_blob(st, 2), ari_col_bytes(st, 2),
                                ari_col_int64(st, 1), ari_col_int64(st, 0), in_window, &w, err);
        if (r != 0) {
            ari_reset(st);
            return r;
        }
    }
    return ari_store_rows_end(s, st, rc, "reading packed events", err);
}
