/* state_chunks.c: packing a container's states into chunks at import and
 * reading the chunks that overlap a window (see state_chunks.h). A packed
 * state is the 24-byte record below in host byte order, as gantt_rows
 * stores its arrays. */
#include "store/state_chunks.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/vec.h"

typedef struct packed_state {
    int32_t value, depth;
    double start, end;
} packed_state;

typedef struct buffer {
    int64_t type;      /* the state type of the buffered states */
    int64_t next;      /* the container's next chunk number */
    packed_state *items;
    size_t n, cap;
} buffer;

struct ari_state_packer {
    ari_store *store;
    int64_t trace_id;
    buffer *by_container; /* indexed by container id */
    size_t ncontainers;
    size_t buffered;      /* states in all buffers */
};

ari_state_packer *ari_state_packer_new(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_state_packer *p = calloc(1, sizeof *p);
    if (!p) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    p->store = s;
    p->trace_id = trace_id;
    return p;
}

static int flush(ari_state_packer *p, int64_t container, buffer *b, ari_error *err)
{
    if (b->n == 0)
        return 0;
    double lo = b->items[0].start, hi = b->items[0].end;
    for (size_t i = 1; i < b->n; i++) {
        if (b->items[i].start < lo)
            lo = b->items[i].start;
        if (b->items[i].end > hi)
            hi = b->items[i].end;
    }
    ari_arg args[] = {ari_arg_int(p->trace_id), ari_arg_int(container),  ari_arg_int(b->next),
                      ari_arg_int(b->type),     ari_arg_real(lo),        ari_arg_real(hi),
                      ari_arg_int((int64_t)b->n), ari_arg_blob(b->items, (int64_t)(b->n * sizeof *b->items))};
    if (ari_store_run(p->store,
                      "INSERT INTO state_chunks(trace_id, container_id, chunk, type_id, min_start, max_end, n, data)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                      args, ARI_NARGS(args), "store a chunk of states", err) < 0)
        return -1;
    b->next++;
    p->buffered -= b->n;
    b->n = 0;
    return 0;
}

static int flush_all(ari_state_packer *p, ari_error *err)
{
    for (size_t c = 0; c < p->ncontainers; c++)
        if (flush(p, (int64_t)c, &p->by_container[c], err) < 0)
            return -1;
    return 0;
}

static buffer *buffer_of(ari_state_packer *p, int64_t container, ari_error *err)
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

int ari_state_packer_add(ari_state_packer *p, int64_t container, int64_t type, int value, int depth,
                         double start, double end, ari_error *err)
{
    buffer *b = buffer_of(p, container, err);
    if (!b)
        return -1;
    if ((b->n > 0 && b->type != type) || b->n >= ARI_STATE_CHUNK_STATES) {
        if (flush(p, container, b, err) < 0)
            return -1;
    }
    if (p->buffered >= ARI_STATE_PACKER_MAX && flush_all(p, err) < 0)
        return -1;
    if (ari_vec_reserve((void **)&b->items, &b->cap, b->n + 1, sizeof *b->items) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    b->type = type;
    b->items[b->n++] = (packed_state){value, depth, start, end};
    p->buffered++;
    return 0;
}

int ari_state_packer_finish(ari_state_packer *p, ari_error *err)
{
    return flush_all(p, err);
}

void ari_state_packer_free(ari_state_packer *p)
{
    if (!p)
        return;
    for (size_t c = 0; c < p->ncontainers; c++)
        free(p->by_container[c].items);
    free(p->by_container);
    free(p);
}

/* ---- reading ---- */

static int by_start_depth(const void *a, const void *b)
{
    const ari_gantt_state *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

static int has_chunks(ari_store *s, int64_t trace_id, int64_t container, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(container)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT EXISTS (SELECT 1 FROM state_chunks WHERE trace_id = ?1 AND container_id = ?2)", args,
        ARI_NARGS(args), err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find packed states", err) < 0)
        return -1;
    return any != 0;
}

/* Which packed states a read keeps: those overlapping [t0, t1] whose
 * start is in [a, b) (the whole line when a = -inf, b = +inf). */
typedef struct filter {
    double t0, t1, a, b;
} filter;

static int keeps(const filter *f, const packed_state *ps)
{
    return ps->start <= f->t1 && ps->end >= f->t0 && ps->start >= f->a && ps->start < f->b;
}

/* Appends the states of one chunk's blob that the filter keeps; more than
 * `limit` states in all (limit >= 0) stops with 1. */
static int unpack(const void *blob, int bytes, int64_t n, const filter *f, int64_t limit, ari_gantt_state **out,
                  size_t *len, size_t *cap, int *max_value, ari_error *err)
{
    if (n < 0 || bytes < 0 || (size_t)bytes != (size_t)n * sizeof(packed_state))
        return ari_error_set(err, ARI_E_DB, "a chunk of states is %d bytes for %lld states", bytes, (long long)n);
    for (int64_t i = 0; i < n; i++) {
        packed_state ps;
        memcpy(&ps, (const char *)blob + (size_t)i * sizeof ps, sizeof ps);
        if (!keeps(f, &ps))
            continue;
        if (limit >= 0 && (int64_t)*len >= limit)
            return 1;
        if (ari_vec_reserve((void **)out, cap, *len + 1, sizeof **out) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        (*out)[(*len)++] = (ari_gantt_state){ps.value, ps.depth, ps.start, ps.end};
        if (ps.value > *max_value)
            *max_value = ps.value;
    }
    return 0;
}

/* The kept states of (container, type) into *out (unsorted, *len of
 * them): 0, 1 when more than limit (limit >= 0; *out then partial), -1. */
static int read_filtered(ari_store *s, int64_t trace_id, int64_t container, int64_t type, const filter *f,
                         int64_t limit, ari_gantt_state **out, size_t *len, int *max_value, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(container), ari_arg_int(type),
                      ari_arg_real(f->t0),   ari_arg_real(f->b < f->t1 ? f->b : f->t1)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT n, data FROM state_chunks WHERE trace_id = ?1 AND container_id = ?2"
                                       " AND type_id = ?3 AND min_start <= ?5 AND max_end >= ?4"
                                       " ORDER BY chunk",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc, full = 0;
    *out = NULL;
    *len = 0;
    while (!full && (rc = ari_step(st)) == ARI_ROW) {
        full = unpack(ari_col_blob(st, 1), ari_col_bytes(st, 1), ari_col_int64(st, 0), f,
                      limit, out, len, &cap, max_value, err);
        if (full < 0) {
            ari_reset(st);
            free(*out);
            *out = NULL;
            return -1;
        }
    }
    if (full) {
        ari_reset(st);
        return 1;
    }
    if (ari_store_rows_end(s, st, rc, "reading packed states", err) < 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int ari_state_chunks_read(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t0, double t1,
                          int sorted, ari_gantt_state **out, int64_t *n, int *max_value, ari_error *err)
{
    *out = NULL;
    *n = 0;
    *max_value = 0;
    filter f = {t0, t1, -HUGE_VAL, HUGE_VAL};
    size_t len = 0;
    if (read_filtered(s, trace_id, container, type, &f, -1, out, &len, max_value, err) < 0)
        return -1;
    if (len == 0) { /* none in the window: are there chunks at all? */
        free(*out);
        *out = NULL;
        return has_chunks(s, trace_id, container, err);
    }
    if (sorted && len > 1)
        qsort(*out, len, sizeof **out, by_start_depth);
    *n = (int64_t)len;
    return 1;
}

/* ---- streaming in (start, depth) order, in slices ---- */

typedef struct bounds {
    double lo, hi; /* least start, greatest end */
    int64_t n;
} bounds;

/* The container's chunks of `type`: their count of states and bounds.
 * 1, 0 (none) or -1. */
static int chunk_bounds(ari_store *s, int64_t trace_id, int64_t container, int64_t type, bounds *b, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(container), ari_arg_int(type)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT min(min_start), max(max_end), coalesce(sum(n), 0) FROM state_chunks"
                                       " WHERE trace_id = ?1 AND container_id = ?2 AND type_id = ?3",
                                       args, ARI_NARGS(args), err);
    int rc = st ? ari_store_step_row(s, st, "bounding packed states", err) : -1;
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    int any = ari_col_type(st, 0) != ARI_NULL;
    *b = (bounds){ari_col_double(st, 0), ari_col_double(st, 1), ari_col_int64(st, 2)};
    ari_reset(st);
    return any;
}

static int emit_all(const ari_gantt_state *v, size_t n, ari_state_chunks_fn fn, void *ctx, ari_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (fn(ctx, &v[i], err) < 0)
            return -1;
    return 0;
}

/* The states starting in [a, b) (and overlapping f's window), sorted, at
 * most cap at a time: a fuller slice is halved. */
static int each_slice(ari_store *s, int64_t trace_id, int64_t container, int64_t type, filter f, double a, double b,
                      int64_t cap, ari_state_chunks_fn fn, void *ctx, ari_error *err)
{
    f.a = a;
    f.b = b;
    ari_gantt_state *v = NULL;
    size_t len = 0;
    int max_value = 0;
    int rc = read_filtered(s, trace_id, container, type, &f, cap, &v, &len, &max_value, err);
    if (rc == 1) {
        free(v);
        double mid = a + (b - a) / 2;
        if (!(mid > a && mid < b))
            return ari_error_set(err, ARI_E_TOO_LARGE,
                                 "more than %lld states of container %lld start at time %.17g: too many to sort",
                                 (long long)cap, (long long)container, a);
        return each_slice(s, trace_id, container, type, f, a, mid, cap, fn, ctx, err) < 0 ||
                       each_slice(s, trace_id, container, type, f, mid, b, cap, fn, ctx, err) < 0
                   ? -1
                   : 0;
    }
    if (rc == 0 && len > 1)
        qsort(v, len, sizeof *v, by_start_depth);
    if (rc == 0)
        rc = emit_all(v, len, fn, ctx, err);
    free(v);
    return rc;
}

int ari_state_chunks_each(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t0, double t1,
                          int64_t cap, ari_state_chunks_fn fn, void *ctx, ari_error *err)
{
    bounds b;
    int any = chunk_bounds(s, trace_id, container, type, &b, err);
    if (any <= 0)
        return any;
    if (cap < 2)
        cap = 2;
    filter f = {t0, t1, -HUGE_VAL, HUGE_VAL};
    double lo = fmax(b.lo, -DBL_MAX), hi = fmin(fmin(b.hi, t1), DBL_MAX);
    if (!(lo <= hi))
        return 1;
    /* Slices of equal time over the starts [lo, hi], about cap / 2 states
     * each if the calls are spread evenly. */
    int64_t nslices = b.n <= cap ? 1 : (b.n + cap / 2 - 1) / (cap / 2);
    double step = (hi - lo) / (double)nslices;
    for (int64_t k = 0; k < nslices; k++) {
        double a = lo + step * (double)k;
        double e = k + 1 == nslices ? nextafter(hi, HUGE_VAL) : lo + step * (double)(k + 1);
        if (each_slice(s, trace_id, container, type, f, a, e, cap, fn, ctx, err) < 0)
            return -1;
    }
    return 1;
}

/* ---- many containers at once ----
 *
 * A reader that visits a trace's locations one by one used to read each
 * one's chunks with a statement (two, with their bounds): on a shard
 * (pg_shards.h) a round trip each, 1 to 2 ms, which made a timeline of
 * 256 locations twice as slow as on one server. Here the containers go
 * by groups of at most BATCH_CONTAINERS distinct ones: a grouped statement
 * counts their chunks' states, then their chunks are read by batches of
 * at most `cap` states, one streamed statement each. */

#define BATCH_CONTAINERS 256

typedef struct chunk_count {
    int64_t container;
    int64_t n; /* states of the type in chunks overlapping the window */
} chunk_count;

static int cmp_count(const void *a, const void *b)
{
    const chunk_count *x = a, *y = b;
    return (x->container > y->container) - (x->container < y->container);
}

static const chunk_count *count_of(const chunk_count *v, size_t n, int64_t container)
{
    chunk_count key = {container, 0};
    return n ? bsearch(&key, v, n, sizeof *v, cmp_count) : NULL;
}

/* Appends containers[a, b) to q as "(1,5,7)". */
static void in_list(ari_sbuf *q, const int64_t *containers, size_t a, size_t b)
{
    ari_sbuf_add_str(q, "(");
    for (size_t k = a; k < b; k++)
        ari_sbuf_printf(q, "%s%lld", k > a ? "," : "", (long long)containers[k]);
    ari_sbuf_add_str(q, ")");
}

/* A statement built in q (taken), with the batch's four parameters bound
 * (trace, type, t0, t1) and its rows streamed. */
static ari_stmt *batch_statement(ari_store *s, ari_sbuf *q, int64_t trace_id, int64_t type, double t0, double t1,
                                 ari_error *err)
{
    char *text = ari_sbuf_take(q);
    if (!text) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(type), ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_prepare(s, text, err);
    free(text);
    if (st && ari_store_bind_args(s, st, args, ARI_NARGS(args), err) < 0) {
        ari_stmt_finalize(st);
        return NULL;
    }
    if (st)
        ari_stream(st);
    return st;
}

static int count_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    *(chunk_count *)item = (chunk_count){ari_col_int64(st, 0), ari_col_int64(st, 1)};
    return 0;
}

/* Which of containers[a, b) have chunks (of any type), with the states
 * of `type` in their chunks that overlap [t0, t1]; sorted by container. */
static int chunk_counts(ari_store *s, int64_t trace_id, int64_t type, double t0, double t1,
                        const int64_t *containers, size_t a, size_t b, chunk_count **out, size_t *n, ari_error *err)
{
    ari_sbuf q = {0};
    ari_sbuf_add_str(&q, "SELECT container_id, sum(CASE WHEN type_id = ?2 AND min_start <= ?4 AND max_end >= ?3"
                         " THEN n ELSE 0 END) FROM state_chunks WHERE trace_id = ?1 AND container_id IN ");
    in_list(&q, containers, a, b);
    ari_sbuf_add_str(&q, " GROUP BY container_id");
    ari_stmt *st = batch_statement(s, &q, trace_id, type, t0, t1, err);
    *out = NULL;
    *n = 0;
    int rc = st ? ari_store_read_rows(s, st, (void **)out, n, sizeof **out, count_read, NULL, "counting packed states",
                                      err)
                : -1;
    ari_stmt_finalize(st);
    if (rc < 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_count);
    return 0;
}

typedef struct slot {
    ari_gantt_state *v;
    size_t len, cap;
    int max_value;
} slot;

/* A batch: containers[a, b) of the caller's list, of which the `nread`
 * listed in by_id (sorted by container) have states to read. */
typedef struct batch {
    size_t a, b;
    chunk_count *by_id; /* container, and its index in [a, b) as n */
    size_t nread;
    slot *slots;
} batch;

/* The batch's chunks into its slots, with one streamed statement. */
static int read_batch(ari_store *s, int64_t trace_id, int64_t type, double t0, double t1, batch *bt,
                      ari_error *err)
{
    if (bt->nread == 0)
        return 0;
    qsort(bt->by_id, bt->nread, sizeof *bt->by_id, cmp_count);
    int64_t ids[BATCH_CONTAINERS];
    for (size_t k = 0; k < bt->nread; k++)
        ids[k] = bt->by_id[k].container;
    ari_sbuf q = {0};
    ari_sbuf_add_str(&q, "SELECT container_id, n, data FROM state_chunks WHERE trace_id = ?1 AND type_id = ?2"
                         " AND min_start <= ?4 AND max_end >= ?3 AND container_id IN ");
    in_list(&q, ids, 0, bt->nread);
    ari_sbuf_add_str(&q, " ORDER BY container_id, chunk");
    ari_stmt *st = batch_statement(s, &q, trace_id, type, t0, t1, err);
    if (!st)
        return -1;
    filter f = {t0, t1, -HUGE_VAL, HUGE_VAL};
    int rc, bad = 0;
    while (!bad && (rc = ari_step(st)) == ARI_ROW) {
        const chunk_count *c = count_of(bt->by_id, bt->nread, ari_col_int64(st, 0));
        slot *sl = c ? &bt->slots[c->n] : NULL;
        bad = !sl ? ari_error_set(err, ARI_E_DB, "a chunk of an unasked container")
                  : unpack(ari_col_blob(st, 2), ari_col_bytes(st, 2), ari_col_int64(st, 1), &f, -1, &sl->v,
                           &sl->len, &sl->cap, &sl->max_value, err);
    }
    if (bad)
        ari_reset(st);
    else
        bad = ari_store_rows_end(s, st, rc, "reading packed states", err) < 0;
    ari_stmt_finalize(st);
    return bad ? -1 : 0;
}

/* Hands the batch's containers to fn in order; their states go with
 * them. */
static int deliver_batch(const int64_t *containers, const chunk_count *counts, size_t ncounts, batch *bt,
                         int sorted, ari_state_chunks_batch_fn fn, void *ctx, ari_error *err)
{
    int rc = 0;
    for (size_t i = bt->a; i < bt->b; i++) {
        slot *sl = &bt->slots[i - bt->a];
        if (rc == 0 && sorted && sl->len > 1)
            qsort(sl->v, sl->len, sizeof *sl->v, by_start_depth);
        int chunked = count_of(counts, ncounts, containers[i]) != NULL;
        if (rc == 0)
            rc = fn(ctx, i, chunked ? ARI_CHUNKS_READ : ARI_CHUNKS_NONE, sl->v, (int64_t)sl->len, sl->max_value,
                    err);
        else
            free(sl->v);
        sl->v = NULL;
    }
    return rc;
}

/* Whether containers[a, j) already holds `c`. */
static int batch_has(const int64_t *containers, size_t a, size_t j, int64_t c)
{
    for (size_t k = a; k < j; k++)
        if (containers[k] == c)
            return 1;
    return 0;
}

/* The distinct containers from containers[a]: their end, at most
 * BATCH_CONTAINERS after a. */
static size_t group_end(const int64_t *containers, size_t a, size_t n)
{
    size_t b = a;
    while (b < n && b - a < BATCH_CONTAINERS && !batch_has(containers, a, b, containers[b]))
        b++;
    return b;
}

/* containers[a, b) (distinct), counted in counts: read in batches of at
 * most cap states and handed to fn. */
static int read_group(ari_store *s, int64_t trace_id, int64_t type, const int64_t *containers, size_t a, size_t b,
                      const chunk_count *counts, size_t ncounts, double t0, double t1, int sorted, int64_t cap,
                      ari_state_chunks_batch_fn fn, void *ctx, ari_error *err)
{
    chunk_count by_id[BATCH_CONTAINERS];
    slot slots[BATCH_CONTAINERS];
    int rc = 0;
    for (size_t i = a; rc == 0 && i < b;) {
        const chunk_count *c = count_of(counts, ncounts, containers[i]);
        if (c && c->n > cap) { /* alone, by the caller */
            rc = fn(ctx, i++, ARI_CHUNKS_LARGE, NULL, 0, 0, err);
            continue;
        }
        batch bt = {.a = i, .b = i, .by_id = by_id, .slots = slots};
        int64_t states = 0;
        while (bt.b < b) {
            c = count_of(counts, ncounts, containers[bt.b]);
            int64_t k = c ? c->n : 0;
            if (k > cap || (bt.b > bt.a && states + k > cap))
                break;
            states += k;
            if (k > 0)
                by_id[bt.nread++] = (chunk_count){containers[bt.b], (int64_t)(bt.b - bt.a)};
            slots[bt.b - bt.a] = (slot){0};
            bt.b++;
        }
        if (read_batch(s, trace_id, type, t0, t1, &bt, err) < 0) {
            for (size_t k = 0; k < bt.b - bt.a; k++)
                free(slots[k].v);
            rc = -1;
        } else {
            rc = deliver_batch(containers, counts, ncounts, &bt, sorted, fn, ctx, err);
        }
        i = bt.b;
    }
    return rc;
}

int ari_state_chunks_batch(ari_store *s, int64_t trace_id, int64_t type, const int64_t *containers, size_t n,
                           double t0, double t1, int sorted, int64_t cap, ari_state_chunks_batch_fn fn, void *ctx,
                           ari_error *err)
{
    int rc = 0;
    for (size_t a = 0; rc == 0 && a < n;) {
        size_t b = group_end(containers, a, n);
        chunk_count *counts = NULL;
        size_t ncounts = 0;
        rc = chunk_counts(s, trace_id, type, t0, t1, containers, a, b, &counts, &ncounts, err);
        if (rc == 0)
            rc = read_group(s, trace_id, type, containers, a, b, counts, ncounts, t0, t1, sorted, cap, fn, ctx,
                            err);
        free(counts);
        a = b;
    }
    return rc < 0 ? -1 : 0; /* fn's 1 stops without error */
}

/* ---- one instant ---- */

int ari_state_chunks_at(ari_store *s, int64_t trace_id, int64_t container, int64_t type, double t, int strict,
                        ari_gantt_state *out, ari_error *err)
{
    filter f = {t, t, -HUGE_VAL, strict ? t : nextafter(t, HUGE_VAL)};
    ari_gantt_state *v = NULL;
    size_t len = 0;
    int max_value = 0;
    if (read_filtered(s, trace_id, container, type, &f, -1, &v, &len, &max_value, err) < 0)
        return -1;
    const ari_gantt_state *best = NULL;
    for (size_t i = 0; i < len; i++)
        if (!best || v[i].start > best->start || (v[i].start == best->start && v[i].depth > best->depth))
            best = &v[i];
    if (best)
        *out = *best;
    free(v);
    return best != NULL;
}

/* ---- values and presence ---- */

int ari_state_chunks_values(ari_store *s, int64_t trace_id, unsigned char *seen, int64_t nseen, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT n, data FROM state_chunks WHERE trace_id = ?1"
                                        " ORDER BY container_id, chunk", trace_id, err);
    if (!st)
        return -1;
    ari_stream(st); /* every chunk of the trace: one at a time */
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *blob = ari_col_blob(st, 1);
        int64_t n = ari_col_int64(st, 0);
        if (n < 0 || (size_t)ari_col_bytes(st, 1) != (size_t)n * sizeof(packed_state)) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "a chunk of states of trace %lld has the wrong size",
                                 (long long)trace_id);
        }
        for (int64_t i = 0; i < n; i++) {
            packed_state ps;
            memcpy(&ps, blob + (size_t)i * sizeof ps, sizeof ps);
            if (ps.value >= 0 && ps.value < nseen)
                seen[ps.value] = 1;
        }
    }
    return ari_store_rows_end(s, st, rc, "reading packed states", err);
}

int ari_state_chunks_present(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT EXISTS (SELECT 1 FROM state_chunks WHERE trace_id = ?1)", trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find packed states", err) < 0)
        return -1;
    return any != 0;
}
