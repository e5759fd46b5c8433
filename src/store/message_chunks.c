/* message_chunks.c: packing an event trace's messages into chunks at
 * import, and reading them back (or the ev_messages rows of a trace
 * imported before sql/018) filtered by time, streamed or by send time;
 * see message_chunks.h. Records are little-endian whatever the host. */
#include "store/message_chunks.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/le.h"
#include "util/vec.h"

/* ---- the record ---- */

static int fits32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

int ari_message_record_put(unsigned char *rec, const ari_ec_message *m, ari_error *err)
{
    if (!fits32(m->src_container) || !fits32(m->dst_container))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "a message's container id does not fit in 32 bits");
    ari_le_put_u32(rec, (uint32_t)(int32_t)m->src_container);
    ari_le_put_u32(rec + 4, (uint32_t)(int32_t)m->dst_container);
    ari_le_put_u32(rec + 8, (uint32_t)m->src_rank);
    ari_le_put_u32(rec + 12, (uint32_t)m->dst_rank);
    ari_le_put_u64(rec + 16, (uint64_t)m->tag);
    ari_le_put_u64(rec + 24, (uint64_t)m->comm);
    ari_le_put_u64(rec + 32, (uint64_t)m->bytes);
    ari_le_put_f64(rec + 40, m->send_time);
    ari_le_put_f64(rec + 48, m->recv_time);
    return 0;
}

void ari_message_record_get(const unsigned char *blob, int64_t i, ari_ec_message *m)
{
    const unsigned char *rec = blob + (size_t)i * ARI_MESSAGE_RECORD_BYTES;
    m->src_container = (int32_t)ari_le_get_u32(rec);
    m->dst_container = (int32_t)ari_le_get_u32(rec + 4);
    m->src_rank = (int32_t)ari_le_get_u32(rec + 8);
    m->dst_rank = (int32_t)ari_le_get_u32(rec + 12);
    m->src_thread = m->dst_thread = 0;
    m->tag = (int64_t)ari_le_get_u64(rec + 16);
    m->comm = (int64_t)ari_le_get_u64(rec + 24);
    m->bytes = (int64_t)ari_le_get_u64(rec + 32);
    m->send_time = ari_le_get_f64(rec + 40);
    m->recv_time = ari_le_get_f64(rec + 48);
}

int ari_message_blob_check(int64_t bytes, int64_t n, ari_error *err)
{
    if (n < 1 || n > ARI_MESSAGE_CHUNK || bytes != n * ARI_MESSAGE_RECORD_BYTES)
        return ari_error_set(err, ARI_E_DB, "a chunk of messages is %lld bytes for %lld messages",
                             (long long)bytes, (long long)n);
    return 0;
}

/* ---- writing ---- */

struct ari_message_packer {
    ari_store *store;
    int64_t trace_id;
    int64_t chunk; /* the next chunk's number */
    int n;         /* messages buffered */
    double t0, t1; /* their smallest send and largest receive */
    unsigned char data[ARI_MESSAGE_CHUNK * ARI_MESSAGE_RECORD_BYTES];
};

ari_message_packer *ari_message_packer_new(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_message_packer *p = calloc(1, sizeof *p);
    if (!p) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    p->store = s;
    p->trace_id = trace_id;
    return p;
}

static int flush(ari_message_packer *p, ari_error *err)
{
    if (p->n == 0)
        return 0;
    ari_arg args[] = {
        ari_arg_int(p->trace_id), ari_arg_int(p->chunk),
        ari_arg_real(p->t0),      ari_arg_real(p->t1),
        ari_arg_int(p->n),        ari_arg_blob(p->data, (int64_t)p->n * ARI_MESSAGE_RECORD_BYTES)};
    if (ari_store_run(
            p->store,
            "INSERT INTO message_chunks(trace_id, chunk, t0, t1, n, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            args, ARI_NARGS(args), "store a chunk of messages", err) < 0)
        return -1;
    p->chunk++;
    p->n = 0;
    return 0;
}

int ari_message_packer_add(ari_message_packer *p, const ari_ec_message *m, ari_error *err)
{
    if (ari_message_record_put(p->data + (size_t)p->n * ARI_MESSAGE_RECORD_BYTES, m, err) < 0)
        return -1;
    if (p->n == 0 || m->send_time < p->t0)
        p->t0 = m->send_time;
    if (p->n == 0 || m->recv_time > p->t1)
        p->t1 = m->recv_time;
    return ++p->n == ARI_MESSAGE_CHUNK ? flush(p, err) : 0;
}

int ari_message_packer_finish(ari_message_packer *p, ari_error *err)
{
    return flush(p, err);
}

void ari_message_packer_free(ari_message_packer *p)
{
    free(p);
}

/* ---- reading ---- */

ari_mc_filter ari_mc_all(void)
{
    return (ari_mc_filter){-HUGE_VAL, HUGE_VAL, -HUGE_VAL};
}

/* What a scan keeps: send in [a, b) (b exclusive), recv >= r. */
typedef struct range {
    double a, b, r;
} range;

static int keeps(const range *g, const ari_ec_message *m)
{
    return m->send_time >= g->a && m->send_time < g->b && m->recv_time >= g->r;
}

static int has_chunks(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT EXISTS (SELECT 1 FROM message_chunks WHERE trace_id = ?1)", trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "finding packed messages", err) < 0)
        return -1;
    return any != 0;
}

/* Calls fn on the kept messages of the chunks overlapping g, in seq order,
 * while the chunks stream in (fn runs no statement). 0, fn's first non-zero
 * answer, or -1. */
static int scan_chunks(ari_store *s, int64_t trace_id, const range *g, ari_mc_fn fn, void *ctx,
                       ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(g->a > g->r ? g->a : g->r), ari_arg_real(g->b)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT chunk, n, data FROM message_chunks WHERE trace_id = ?1"
                                       " AND t0 < ?3 AND t1 >= ?2 ORDER BY chunk",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    ari_stream(st); /* PostgreSQL: a chunk at a time, not the window's messages at once */
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t chunk = ari_col_int64(st, 0), n = ari_col_int64(st, 1);
        const unsigned char *blob = ari_col_blob(st, 2);
        if (chunk < 0 || chunk > INT64_MAX / ARI_MESSAGE_CHUNK ||
            ari_message_blob_check(ari_col_bytes(st, 2), n, err) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "trace %lld: a chunk of messages is malformed (chunk %lld)",
                                 (long long)trace_id, (long long)chunk);
        }
        for (int64_t i = 0; i < n; i++) {
            ari_ec_message m;
            ari_message_record_get(blob, i, &m);
            if (!keeps(g, &m))
                continue;
            int r = fn(ctx, chunk * ARI_MESSAGE_CHUNK + i, &m);
            if (r != 0) {
                ari_reset(st);
                return r;
            }
        }
    }
    return ari_store_rows_end(s, st, rc, "reading packed messages", err);
}

/* Calls fn on the kept ev_messages rows (traces imported before sql/018)
 * by send time then seq: the table's key, so nothing is sorted. */
static int scan_rows(ari_store *s, int64_t trace_id, const range *g, ari_mc_fn fn, void *ctx, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(g->a), ari_arg_real(g->b), ari_arg_real(g->r)};
    ari_stmt *st =
        ari_store_bound(s,
                        "SELECT seq, src_container, dst_container, src_rank, dst_rank, tag, comm, bytes,"
                        " send_time, recv_time FROM ev_messages WHERE trace_id = ?1"
                        " AND send_time >= ?2 AND send_time < ?3 AND recv_time >= ?4"
                        " ORDER BY send_time, seq",
                        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        ari_ec_message m = {.src_container = ari_col_int64(st, 1),
                            .dst_container = ari_col_int64(st, 2),
                            .src_rank = (int32_t)ari_col_int64(st, 3),
                            .dst_rank = (int32_t)ari_col_int64(st, 4),
                            .tag = ari_col_int64(st, 5),
                            .comm = ari_col_int64(st, 6),
                            .bytes = ari_col_int64(st, 7),
                            .send_time = ari_col_double(st, 8),
                            .recv_time = ari_col_double(st, 9)};
        int r = fn(ctx, ari_col_int64(st, 0), &m);
        if (r != 0) {
            ari_reset(st);
            return r;
        }
    }
    return ari_store_rows_end(s, st, rc, "reading the messages", err);
}

/* ---- in send order, at most cap at a time ---- */

typedef struct held {
    int64_t seq;
    ari_ec_message m;
} held;

typedef struct holder {
    held *v;
    size_t n, cap;
    int64_t max;
    int nomem;
} holder;

static int hold(void *ctx, int64_t seq, const ari_ec_message *m)
{
    holder *h = ctx;
    if ((int64_t)h->n >= h->max)
        return 1;
    if (ari_vec_reserve((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v) < 0) {
        h->nomem = 1;
        return 1;
    }
    h->v[h->n++] = (held){seq, *m};
    return 0;
}

static int by_send_seq(const void *a, const void *b)
{
    const held *x = a, *y = b;
    if (x->m.send_time != y->m.send_time)
        return x->m.send_time < y->m.send_time ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The kept messages sent in g's [a, b), sorted, at most cap at a time: a
 * fuller slice is halved. */
static int each_slice(ari_store *s, int64_t trace_id, range g, int64_t cap, ari_mc_fn fn, void *ctx,
                      ari_error *err)
{
    holder h = {.max = cap};
    int rc = scan_chunks(s, trace_id, &g, hold, &h, err);
    if (h.nomem) {
        free(h.v);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    if (rc == 1) {
        free(h.v);
        double mid = g.a + (g.b - g.a) / 2;
        if (!(mid > g.a && mid < g.b))
            return ari_error_set(err, ARI_E_TOO_LARGE,
                                 "more than %lld messages sent at time %.17g: too many to sort",
                                 (long long)cap, g.a);
        range lo = g, hi = g;
        lo.b = hi.a = mid;
        rc = each_slice(s, trace_id, lo, cap, fn, ctx, err);
        return rc != 0 ? rc : each_slice(s, trace_id, hi, cap, fn, ctx, err);
    }
    if (rc == 0 && h.n > 1)
        qsort(h.v, h.n, sizeof *h.v, by_send_seq);
    for (size_t i = 0; rc == 0 && i < h.n; i++)
        rc = fn(ctx, h.v[i].seq, &h.v[i].m);
    free(h.v);
    return rc;
}

/* The send times the trace's chunks overlapping g may hold: [*a, *b)
 * within g's (empty when *a >= *b), and the messages of those chunks. */
static int chunk_span(ari_store *s, int64_t trace_id, const range *g, double *a, double *b, int64_t *n,
                      ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(g->a > g->r ? g->a : g->r), ari_arg_real(g->b)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT min(t0), max(t1), coalesce(sum(n), 0) FROM message_chunks"
                                       " WHERE trace_id = ?1 AND t0 < ?3 AND t1 >= ?2",
                                       args, ARI_NARGS(args), err);
    int rc = st ? ari_store_step_row(s, st, "bounding packed messages", err) : -1;
    if (rc < 0)
        return -1;
    double lo = 0, hi = 0;
    *n = 0;
    if (rc == 0) {
        if (ari_col_type(st, 0) != ARI_NULL) {
            lo = fmax(g->a, ari_col_double(st, 0));
            hi = fmin(g->b, nextafter(ari_col_double(st, 1), HUGE_VAL));
            *n = ari_col_int64(st, 2);
        }
        ari_reset(st);
    }
    *a = lo;
    *b = hi;
    return 0;
}

int ari_message_chunks_each(ari_store *s, int64_t trace_id, const ari_mc_filter *f, int sorted, int64_t cap,
                            ari_mc_fn fn, void *ctx, ari_error *err)
{
    range g = {f->send_lo, nextafter(f->send_hi, HUGE_VAL), f->recv_lo};
    int chunks = has_chunks(s, trace_id, err);
    if (chunks < 0)
        return -1;
    if (!chunks)
        return scan_rows(s, trace_id, &g, fn, ctx, err);
    if (!sorted)
        return scan_chunks(s, trace_id, &g, fn, ctx, err);
    double lo, hi;
    int64_t total;
    if (chunk_span(s, trace_id, &g, &lo, &hi, &total, err) < 0)
        return -1;
    if (!(lo < hi))
        return 0;
    if (cap < 2)
        cap = 2;
    /* slices of equal time, about cap / 2 messages each if they are
     * spread evenly (each_slice halves a fuller one) */
    int64_t nslices = total <= cap ? 1 : (total + cap / 2 - 1) / (cap / 2);
    double step = (hi - lo) / (double)nslices;
    for (int64_t k = 0; k < nslices; k++) {
        range slice = g;
        slice.a = k == 0 ? lo : lo + step * (double)k;
        slice.b = k + 1 == nslices ? hi : lo + step * (double)(k + 1);
        if (!(slice.a < slice.b))
            continue;
        int rc = each_slice(s, trace_id, slice, cap, fn, ctx, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ari_message_chunks_extent(ari_store *s, int64_t trace_id, double *lo, double *hi, ari_error *err)
{
    *lo = *hi = NAN;
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT min(a), max(b) FROM ("
                          "SELECT min(t0) AS a, max(t1) AS b FROM message_chunks WHERE trace_id = ?1"
                          " UNION ALL SELECT min(send_time), max(recv_time) FROM ev_messages"
                          " WHERE trace_id = ?1)",
                          trace_id, err);
    int rc = st ? ari_store_step_row(s, st, "reading the extent of the messages", err) : -1;
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (ari_col_type(st, 0) != ARI_NULL) {
            *lo = ari_col_double(st, 0);
            *hi = ari_col_double(st, 1);
        }
        ari_reset(st);
    }
    return 0;
}
