/* event_message_window.c: a timeline window's (or a trace's) messages
 * read once (seven fields, by send time then seq through
 * message_chunks.h) and counted, listed or bundled in C with hash tables
 * on (src, dst) and (column, pair); see event_message_window.h. The
 * bundles reproduce the SQL GROUP BY this replaced: the same column
 * expression, integer sums, smallest ranks and means of doubles added in
 * send-time order (then seq), as SQLite's avg() was fed them. */
#include "store/event_message_window.h"
#include "store/event_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/message_chunks.h"
#include "util/vec.h"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* An open-addressing table of int64 slots (-1 empty) indexing entries kept
 * by the caller; grown at half load. */
typedef struct slot_table {
    int64_t *slot;
    size_t mask;
} slot_table;

static int table_init(slot_table *t, size_t want)
{
    size_t size = 64;
    while (size < want * 2)
        size *= 2;
    t->slot = malloc(size * sizeof *t->slot);
    if (!t->slot)
        return -1;
    memset(t->slot, 0xff, size * sizeof *t->slot);
    t->mask = size - 1;
    return 0;
}

/* ---- loading the window ---- */

typedef struct pair_index {
    slot_table t;
    size_t cap; /* of w->pairs */
} pair_index;

static int pair_grow(pair_index *p, const ari_emw_list *w)
{
    slot_table bigger;
    if (table_init(&bigger, (p->t.mask + 1)) < 0)
        return -1;
    for (int64_t i = 0; i < w->npairs; i++) {
        size_t h =
            mix((uint64_t)w->pairs[i][0] * 0x9e3779b97f4a7c15ULL ^ (uint64_t)w->pairs[i][1]) & bigger.mask;
        while (bigger.slot[h] >= 0)
            h = (h + 1) & bigger.mask;
        bigger.slot[h] = i;
    }
    free(p->t.slot);
    p->t = bigger;
    return 0;
}

/* The index of pair (src, dst) in w->pairs, added when new; -1 when out
 * of memory. */
static int64_t pair_of(pair_index *p, ari_emw_list *w, int64_t src, int64_t dst)
{
    size_t h = mix((uint64_t)src * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dst) & p->t.mask;
    for (; p->t.slot[h] >= 0; h = (h + 1) & p->t.mask) {
        int64_t i = p->t.slot[h];
        if (w->pairs[i][0] == src && w->pairs[i][1] == dst)
            return i;
    }
    if (ari_vec_reserve((void **)&w->pairs, &p->cap, (size_t)w->npairs + 1, sizeof *w->pairs) < 0)
        return -1;
    w->pairs[w->npairs][0] = src;
    w->pairs[w->npairs][1] = dst;
    p->t.slot[h] = w->npairs;
    if ((size_t)++w->npairs * 2 > p->t.mask && pair_grow(p, w) < 0)
        return -1;
    return w->npairs - 1;
}

/* Appending the messages of a read to a list, at most max of them. */
typedef struct loader {
    ari_emw_list *l;
    pair_index p;
    size_t cap;
    int64_t max;
    int more, nomem;
} loader;

static int load_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    loader *d = ctx;
    ari_emw_list *l = d->l;
    if (l->n >= d->max) {
        d->more = 1;
        return 1;
    }
    int64_t pair = ari_vec_reserve((void **)&l->msgs, &d->cap, (size_t)l->n + 1, sizeof *l->msgs) < 0
                       ? -1
                       : pair_of(&d->p, l, m->src_container, m->dst_container);
    if (pair < 0) {
        d->nomem = 1;
        return 1;
    }
    l->msgs[l->n++] = (ari_emw_message){m->send_time, m->recv_time, m->bytes, (uint32_t)pair, m->src_rank,
                                        m->dst_rank};
    return 0;
}

/* Reads the messages f keeps, by send time then seq, into l. */
static int load(ari_store *s, int64_t id, const ari_mc_filter *f, int64_t max, ari_emw_list *l, ari_error *err)
{
    loader d = {.l = l, .max = max};
    if (table_init(&d.p.t, 64) < 0)
        return nomem(err);
    int rc = ari_message_chunks_each(s, id, f, 1, ARI_MESSAGE_SORT_CAP, load_message, &d, err);
    free(d.p.t.slot);
    if (d.nomem)
        rc = nomem(err);
    else if (d.more)
        rc = 1;
    if (rc != 0)
        ari_emw_free(l);
    return rc;
}

int ari_emw_load(ari_store *s, int64_t id, double t0, double t1, int64_t max, ari_emw_list *l, ari_error *err)
{
    memset(l, 0, sizeof *l);
    if (ari_evq_max_span(s, id, &l->span, err) < 0)
        return -1;
    ari_mc_filter f = {t0 - l->span, t1, t0};
    return load(s, id, &f, max, l, err);
}

int ari_emw_load_trace(ari_store *s, int64_t id, int64_t max, ari_emw_list *l, ari_error *err)
{
    memset(l, 0, sizeof *l);
    if (ari_evq_max_span(s, id, &l->span, err) < 0)
        return -1;
    ari_mc_filter f = ari_mc_all();
    return load(s, id, &f, max, l, err);
}

void ari_emw_free(ari_emw_list *l)
{
    free(l->msgs);
    free(l->pairs);
    l->msgs = NULL;
    l->pairs = NULL;
    l->n = l->npairs = 0;
}

size_t ari_emw_size(const ari_emw_list *l)
{
    return (size_t)l->n * sizeof *l->msgs + (size_t)l->npairs * sizeof *l->pairs + sizeof *l;
}

/* ---- the window ---- */

/* The first message of l sent at or after t (l->n when none). */
static int64_t first_sent_from(const ari_emw_list *l, double t)
{
    int64_t lo = 0, hi = l->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->msgs[mid].send >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first message of l sent after t. */
static int64_t first_sent_after(const ari_emw_list *l, double t)
{
    int64_t lo = 0, hi = l->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->msgs[mid].send > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Whether message x of w's list is in w. */
static int in_window(const ari_emw_window *w, const ari_emw_message *x)
{
    return x->recv >= w->t0 && (!w->keep || w->keep[x->pair]);
}

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether id is among the n sorted ids. */
static int has_id(const int64_t *ids, size_t n, int64_t id)
{
    return n > 0 && bsearch(&id, ids, n, sizeof *ids, by_id) != NULL;
}

unsigned char *ari_emw_keep_pairs(const ari_emw_list *l, const int64_t *ids, size_t n)
{
    unsigned char *keep = malloc((size_t)(l->npairs > 0 ? l->npairs : 1));
    for (int64_t p = 0; keep && p < l->npairs; p++)
        keep[p] = (unsigned char)(has_id(ids, n, l->pairs[p][0]) && has_id(ids, n, l->pairs[p][1]));
    return keep;
}

int ari_emw_window_of(const ari_emw_list *l, double t0, double t1, const unsigned char *keep,
                      ari_emw_window *w, ari_error *err)
{
    *w = (ari_emw_window){l, keep, t0, t1, 0, 0, 0, 0};
    /* the rule of the SQL: send_time >= t0 - span AND send_time <= t1 */
    w->lo = first_sent_from(l, t0 - l->span);
    w->hi = first_sent_after(l, t1);
    if (w->hi < w->lo)
        w->hi = w->lo;
    unsigned char *seen = calloc((size_t)(l->npairs > 0 ? l->npairs : 1), 1);
    if (!seen)
        return nomem(err);
    for (int64_t i = w->lo; i < w->hi; i++) {
        const ari_emw_message *x = &l->msgs[i];
        if (!in_window(w, x))
            continue;
        w->n++;
        if (!seen[x->pair]) {
            seen[x->pair] = 1;
            w->npairs++;
        }
    }
    free(seen);
    return 0;
}

/* ---- listing ---- */

int ari_emw_each(const ari_emw_window *w, ari_emw_fn fn, void *ctx)
{
    const ari_emw_list *l = w->list;
    for (int64_t i = w->lo; i < w->hi; i++) {
        const ari_emw_message *x = &l->msgs[i];
        if (!in_window(w, x))
            continue;
        ari_ec_message m = {l->pairs[x->pair][0],
                            l->pairs[x->pair][1],
                            x->src_rank,
                            x->dst_rank,
                            0,
                            0,
                            -1,
                            -1,
                            x->bytes,
                            x->send,
                            x->recv};
        int r = fn(ctx, &m, 1);
        if (r != 0)
            return r;
    }
    return 0;
}

/* ---- bundling ---- */

typedef struct bundle {
    int64_t px, n, bytes;
    int64_t src, dst; /* set before sorting */
    uint32_t pair;
    int32_t src_rank, dst_rank;
    double send, recv; /* sums */
} bundle;

/* SQLite's max(0, min(buckets - 1, CAST((send - t0) * buckets / (t1 -
 * t0) AS INTEGER))): the cast truncates and saturates. */
static int64_t column_of(double send, double t0, double t1, int buckets)
{
    double x = (send - t0) * (double)buckets / (t1 - t0);
    int64_t c = x >= 9223372036854775807.0 ? INT64_MAX : x <= -9223372036854775808.0 ? INT64_MIN : (int64_t)x;
    if (isnan(x))
        c = 0;
    if (c > buckets - 1)
        c = buckets - 1;
    return c < 0 ? 0 : c;
}

typedef struct bundle_set {
    bundle *b;
    size_t n, cap;
    slot_table t;
} bundle_set;

static int bundles_grow(bundle_set *s)
{
    slot_table bigger;
    if (table_init(&bigger, s->t.mask + 1) < 0)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        size_t h = mix((uint64_t)s->b[i].px * 0x9e3779b97f4a7c15ULL ^ s->b[i].pair) & bigger.mask;
        while (bigger.slot[h] >= 0)
            h = (h + 1) & bigger.mask;
        bigger.slot[h] = (int64_t)i;
    }
    free(s->t.slot);
    s->t = bigger;
    return 0;
}

/* Adds message x (in column px) to its bundle. 0, -1 out of memory, 2
 * when the bytes overflow (SQLite's sum() fails there too). */
static int bundle_add(bundle_set *s, const ari_emw_message *x, int64_t px)
{
    size_t h = mix((uint64_t)px * 0x9e3779b97f4a7c15ULL ^ x->pair) & s->t.mask;
    for (; s->t.slot[h] >= 0; h = (h + 1) & s->t.mask) {
        bundle *b = &s->b[s->t.slot[h]];
        if (b->px == px && b->pair == x->pair) {
            b->n++;
            if (__builtin_add_overflow(b->bytes, x->bytes, &b->bytes))
                return 2;
            b->send += x->send;
            b->recv += x->recv;
            if (x->src_rank < b->src_rank)
                b->src_rank = x->src_rank;
            if (x->dst_rank < b->dst_rank)
                b->dst_rank = x->dst_rank;
            return 0;
        }
    }
    if (ari_vec_reserve((void **)&s->b, &s->cap, s->n + 1, sizeof *s->b) < 0)
        return -1;
    s->b[s->n] = (bundle){px, 1, x->bytes, 0, 0, x->pair, x->src_rank, x->dst_rank, x->send, x->recv};
    s->t.slot[h] = (int64_t)s->n;
    if (++s->n * 2 > s->t.mask && bundles_grow(s) < 0)
        return -1;
    return 0;
}

/* ORDER BY n DESC, px, src_container, dst_container */
static int by_size(const void *a, const void *b)
{
    const bundle *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    if (x->px != y->px)
        return x->px < y->px ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int emit_bundles(const ari_emw_list *l, bundle_set *s, int64_t limit, ari_emw_fn fn, void *ctx)
{
    for (size_t i = 0; i < s->n; i++) {
        s->b[i].src = l->pairs[s->b[i].pair][0];
        s->b[i].dst = l->pairs[s->b[i].pair][1];
    }
    qsort(s->b, s->n, sizeof *s->b, by_size);
    size_t k = limit > 0 && (uint64_t)limit < s->n ? (size_t)limit : s->n;
    for (size_t i = 0; i < k; i++) {
        const bundle *b = &s->b[i];
        ari_ec_message m = {b->src,
                            b->dst,
                            b->src_rank,
                            b->dst_rank,
                            0,
                            0,
                            -1,
                            -1,
                            b->bytes,
                            b->send / (double)b->n,
                            b->recv / (double)b->n};
        int r = fn(ctx, &m, b->n);
        if (r != 0)
            return r;
    }
    return 0;
}

int ari_emw_bundles(const ari_emw_window *w, int buckets, int64_t limit, ari_emw_fn fn, void *ctx,
                    ari_error *err)
{
    bundle_set s = {0};
    if (buckets < 1)
        buckets = 1;
    if (table_init(&s.t, 1024) < 0)
        return nomem(err);
    int rc = 0;
    const ari_emw_list *l = w->list;
    for (int64_t i = w->lo; rc == 0 && i < w->hi; i++)
        if (in_window(w, &l->msgs[i]))
            rc = bundle_add(&s, &l->msgs[i], column_of(l->msgs[i].send, w->t0, w->t1, buckets));
    if (rc == -1)
        nomem(err);
    else if (rc == 2)
        rc = ari_error_set(err, ARI_E_DB, "reading the window's messages: integer overflow");
    else
        rc = emit_bundles(l, &s, limit, fn, ctx);
    free(s.b);
    free(s.t.slot);
    return rc;
}

/* ---- a window streamed (more messages than a list holds) ---- */

typedef struct streamer {
    ari_emw_list pairs; /* only its pairs */
    pair_index p;
    bundle_set b;
    double t0, t1;
    int buckets;
    int64_t n;
    int rc; /* 0, -1 out of memory, 2 overflow */
} streamer;

static int stream_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    streamer *w = ctx;
    int64_t pair = pair_of(&w->p, &w->pairs, m->src_container, m->dst_container);
    if (pair < 0) {
        w->rc = -1;
        return 1;
    }
    w->n++;
    if (w->buckets <= 0)
        return 0;
    ari_emw_message x = {m->send_time, m->recv_time, m->bytes, (uint32_t)pair, m->src_rank, m->dst_rank};
    w->rc = bundle_add(&w->b, &x, column_of(x.send, w->t0, w->t1, w->buckets));
    return w->rc != 0;
}

/* Streams the messages f keeps through w (buckets 0: counts only). */
static int stream(ari_store *s, int64_t id, const ari_mc_filter *f, streamer *w, ari_error *err)
{
    if (table_init(&w->p.t, 64) < 0 || (w->buckets > 0 && table_init(&w->b.t, 1024) < 0))
        return nomem(err);
    int rc = ari_message_chunks_each(s, id, f, w->buckets > 0, ARI_MESSAGE_SORT_CAP, stream_message, w, err);
    if (w->rc == -1)
        return nomem(err);
    if (w->rc == 2)
        return ari_error_set(err, ARI_E_DB, "reading the window's messages: integer overflow");
    return rc;
}

static void streamer_free(streamer *w)
{
    free(w->p.t.slot);
    free(w->pairs.pairs);
    free(w->b.b);
    free(w->b.t.slot);
}

int ari_emw_stream_count(ari_store *s, int64_t id, const ari_mc_filter *f, int64_t *n, int64_t *pairs,
                         ari_error *err)
{
    streamer w = {0};
    int rc = stream(s, id, f, &w, err);
    *n = w.n;
    *pairs = w.pairs.npairs;
    streamer_free(&w);
    return rc;
}

int ari_emw_stream_bundles(ari_store *s, int64_t id, const ari_mc_filter *f, double t0, double t1, int buckets,
                           int64_t limit, ari_emw_fn fn, void *ctx, ari_error *err)
{
    streamer w = {.t0 = t0, .t1 = t1, .buckets = buckets < 1 ? 1 : buckets};
    int rc = stream(s, id, f, &w, err);
    if (rc == 0)
        rc = emit_bundles(&w.pairs, &w.b, limit, fn, ctx);
    streamer_free(&w);
    return rc;
}
