/* event_queries.c: the locations, messages, extent and message calls of
 * an event trace (see event_queries.h). Messages come from
 * message_chunks.h (the chunks, or the ev_messages rows of a trace
 * imported before sql/018): streamed where their order does not matter,
 * by send time then seq (the order ev_messages' key gave) where it does;
 * aggregation happens in the caller (analysis/event_comm.c). */
#include "store/event_queries.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/event_message_window.h"
#include "store/message_chunks.h"
#include "store/state_chunks.h"
#include "store/store_internal.h"
#include "util/vec.h"

#define MAX_NAME_CACHE (1 << 24) /* value ids beyond this are looked up each time */

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* An open bound (NAN) as the widest finite one. */
static double lo_bound(double t)
{
    return isnan(t) ? -DBL_MAX : t;
}

static double hi_bound(double t)
{
    return isnan(t) ? DBL_MAX : t;
}

/* ---- locations ---- */

int ari_evq_locations(ari_store *s, int64_t id, ari_evq_location **out, size_t *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT container_id, process_id, rank, thread FROM ev_locations"
                                         " WHERE trace_id = ?1 ORDER BY rank, thread, container_id",
                                         id, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            ari_evq_location *p = realloc(*out, ncap * sizeof *p);
            if (!p) {
                ari_reset(st);
                free(*out);
                *out = NULL;
                *n = 0;
                return nomem(err);
            }
            *out = p;
            cap = ncap;
        }
        ari_evq_location *l = &(*out)[(*n)++];
        l->container_id = ari_col_int64(st, 0);
        l->process_id = ari_col_int64(st, 1);
        l->rank = (int32_t)ari_col_int64(st, 2);
        l->thread = (int32_t)ari_col_int64(st, 3);
    }
    return ari_store_rows_end(s, st, rc, "reading the locations", err);
}

int ari_evq_ranks(ari_store *s, int64_t id, int32_t **out, int *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT DISTINCT rank FROM ev_locations WHERE trace_id = ?1 ORDER BY rank", id, err);
    if (!st)
        return -1;
    int cap = 0, rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (*n == cap) {
            int ncap = cap ? cap * 2 : 16;
            int32_t *p = realloc(*out, (size_t)ncap * sizeof *p);
            if (!p) {
                ari_reset(st);
                free(*out);
                *out = NULL;
                *n = 0;
                return nomem(err);
            }
            *out = p;
            cap = ncap;
        }
        (*out)[(*n)++] = (int32_t)ari_col_int64(st, 0);
    }
    return ari_store_rows_end(s, st, rc, "reading the ranks", err);
}

/* ---- extent ---- */

int ari_evq_extent(ari_store *s, int64_t id, double *lo, double *hi, ari_error *err)
{
    *lo = *hi = NAN;
    /* Per location: the first of its states (rows, or else chunks),
     * events and event chunks, and its container's end. Each table is
     * read once, grouped by container: on a shard (pg_shards.h) a
     * subquery per location would be a round trip per location. */
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT min(coalesce(s.m, sc.m, 1e308), coalesce(e.m, 1e308), coalesce(ec.m, 1e308)), c.end"
        " FROM ev_locations l"
        " LEFT JOIN (SELECT container_id, min(start) AS m FROM states WHERE trace_id = ?1"
        "            GROUP BY container_id) s ON s.container_id = l.container_id"
        " LEFT JOIN (SELECT container_id, min(min_start) AS m FROM state_chunks WHERE trace_id = ?1"
        "            GROUP BY container_id) sc ON sc.container_id = l.container_id"
        " LEFT JOIN (SELECT container_id, min(time) AS m FROM events WHERE trace_id = ?1"
        "            GROUP BY container_id) e ON e.container_id = l.container_id"
        " LEFT JOIN (SELECT container_id, min(t0) AS m FROM event_chunks WHERE trace_id = ?1"
        "            GROUP BY container_id) ec ON ec.container_id = l.container_id"
        " LEFT JOIN containers c ON c.trace_id = ?1 AND c.id = l.container_id"
        " WHERE l.trace_id = ?1",
        id, err);
    if (!st)
        return -1;
    int rc;
    double a = INFINITY, b = -INFINITY;
    while ((rc = ari_step(st)) == ARI_ROW) {
        double x = ari_col_double(st, 0);
        if (x < 1e308 && x < a)
            a = x;
        if (ari_col_type(st, 1) != ARI_NULL && ari_col_double(st, 1) > b)
            b = ari_col_double(st, 1);
    }
    if (ari_store_rows_end(s, st, rc, "reading the extent of the events", err) < 0)
        return -1;
    double ma, mb;
    if (ari_message_chunks_extent(s, id, &ma, &mb, err) < 0)
        return -1;
    if (ma < a) /* NAN when the trace has no messages */
        a = ma;
    if (mb > b)
        b = mb;
    if (isfinite(a) && isfinite(b) && a <= b) {
        *lo = a;
        *hi = b;
    }
    return 0;
}

int ari_evq_unmatched(ari_store *s, int64_t id, int64_t *sends, int64_t *receives, ari_error *err)
{
    *sends = *receives = 0;
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT coalesce(CAST(json_extract(summary_json, '$.unmatched_sends') AS INTEGER), 0),"
                          " coalesce(CAST(json_extract(summary_json, '$.unmatched_receives') AS INTEGER), 0)"
                          " FROM traces WHERE id = ?1",
                          id, err);
    int rc = st ? ari_store_step_row(s, st, "reading the unmatched messages", err) : -1;
    if (rc < 0)
        return -1;
    if (rc == 0) {
        *sends = ari_col_int64(st, 0);
        *receives = ari_col_int64(st, 1);
        ari_reset(st);
    }
    return 0;
}

/* ---- messages ---- */

/* The thread of each location, to fill a message's threads (0 when the
 * container is not a location, as the former subquery's coalesce). */
typedef struct threads {
    ari_evq_location *locs; /* by container */
    size_t n;
} threads;

static int by_location_container(const void *a, const void *b)
{
    int64_t x = ((const ari_evq_location *)a)->container_id, y = ((const ari_evq_location *)b)->container_id;
    return (x > y) - (x < y);
}

static int threads_load(ari_store *s, int64_t id, threads *t, ari_error *err)
{
    if (ari_evq_locations(s, id, &t->locs, &t->n, err) < 0)
        return -1;
    if (t->n > 1)
        qsort(t->locs, t->n, sizeof *t->locs, by_location_container);
    return 0;
}

static int32_t thread_of(const threads *t, int64_t container)
{
    ari_evq_location key = {.container_id = container};
    const ari_evq_location *l =
        t->n ? bsearch(&key, t->locs, t->n, sizeof *t->locs, by_location_container) : NULL;
    return l ? l->thread : 0;
}

static void set_threads(const threads *t, ari_ec_message *m)
{
    m->src_thread = thread_of(t, m->src_container);
    m->dst_thread = thread_of(t, m->dst_container);
}

static ari_mc_filter sent_in(double t0, double t1)
{
    return (ari_mc_filter){lo_bound(t0), hi_bound(t1), -HUGE_VAL};
}

static int count_one(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq, (void)m;
    ++*(int64_t *)ctx;
    return 0;
}

int ari_evq_message_count(ari_store *s, int64_t id, double t0, double t1, int64_t *n, ari_error *err)
{
    *n = 0;
    ari_mc_filter f = sent_in(t0, t1);
    return ari_message_chunks_each(s, id, &f, 0, 0, count_one, n, err);
}

/* A page of messages: `offset` skipped, then at most `limit` (< 0: all). */
typedef struct page {
    const threads *threads;
    int64_t offset, limit, seen;
    int full; /* the limit was reached */
    ari_evq_message_fn fn;
    void *ctx;
} page;

static int page_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    page *p = ctx;
    if (p->seen++ < p->offset)
        return 0;
    if (p->limit >= 0 && p->seen - p->offset > p->limit) {
        p->full = 1;
        return 1;
    }
    ari_ec_message x = *m;
    set_threads(p->threads, &x);
    return p->fn(p->ctx, &x);
}

int ari_evq_messages(ari_store *s, int64_t id, double t0, double t1, int64_t offset, int64_t limit,
                     ari_evq_message_fn fn, void *ctx, ari_error *err)
{
    threads t = {0};
    if (threads_load(s, id, &t, err) < 0)
        return -1;
    page p = {&t, offset > 0 ? offset : 0, limit, 0, 0, fn, ctx};
    ari_mc_filter f = sent_in(t0, t1);
    int rc = limit == 0 ? 0 : ari_message_chunks_each(s, id, &f, 1, ARI_MESSAGE_SORT_CAP, page_message, &p, err);
    free(t.locs);
    return p.full ? 0 : rc;
}

typedef struct pairs_ctx {
    ari_evq_pair_fn fn;
    void *ctx;
} pairs_ctx;

static int pair_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    pairs_ctx *p = ctx;
    return p->fn(p->ctx, m->src_rank, m->dst_rank, m->bytes, 1);
}

int ari_evq_pairs(ari_store *s, int64_t id, ari_evq_pair_fn fn, void *ctx, ari_error *err)
{
    /* one call per message, summed by the caller */
    pairs_ctx p = {fn, ctx};
    ari_mc_filter f = ari_mc_all();
    return ari_message_chunks_each(s, id, &f, 0, 0, pair_message, &p, err);
}

typedef struct size_range {
    int64_t n, min, max;
} size_range;

static int range_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    size_range *r = ctx;
    if (r->n == 0 || m->bytes < r->min)
        r->min = m->bytes;
    if (r->n == 0 || m->bytes > r->max)
        r->max = m->bytes;
    r->n++;
    return 0;
}

int ari_evq_size_range(ari_store *s, int64_t id, double *min, double *max, int64_t *n, ari_error *err)
{
    *min = *max = NAN;
    *n = 0;
    size_range r = {0};
    ari_mc_filter f = ari_mc_all();
    if (ari_message_chunks_each(s, id, &f, 0, 0, range_message, &r, err) < 0)
        return -1;
    *n = r.n;
    if (r.n > 0) {
        *min = (double)r.min;
        *max = (double)r.max;
    }
    return 0;
}

/* A value of each message: its bytes (side -1) or its send (0) or receive
 * (1) time with its bytes as the weight. */
typedef struct values_ctx {
    int side;
    ari_evq_value_fn fn;
    void *ctx;
} values_ctx;

static int value_message(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq;
    values_ctx *v = ctx;
    if (v->side < 0)
        return v->fn(v->ctx, (double)m->bytes, 1);
    return v->fn(v->ctx, v->side == 0 ? m->send_time : m->recv_time, (double)m->bytes);
}

int ari_evq_sizes(ari_store *s, int64_t id, ari_evq_value_fn fn, void *ctx, ari_error *err)
{
    values_ctx v = {-1, fn, ctx};
    ari_mc_filter f = ari_mc_all();
    return ari_message_chunks_each(s, id, &f, 0, 0, value_message, &v, err);
}

int ari_evq_side_times(ari_store *s, int64_t id, int side, ari_evq_value_fn fn, void *ctx, ari_error *err)
{
    values_ctx v = {side == 0 ? 0 : 1, fn, ctx};
    ari_mc_filter f = ari_mc_all();
    return ari_message_chunks_each(s, id, &f, 0, 0, value_message, &v, err);
}

/* ---- the calls of the messages ---- */

typedef struct calls_ctx {
    ari_store *s;
    int64_t id, ftype;
    char **names; /* value id -> name, loaded on first use */
    size_t nnames;
    char *scratch; /* a name beyond the cache */
} calls_ctx;

static const char *value_name(calls_ctx *c, int64_t v, ari_error *err)
{
    if (v >= 0 && (size_t)v < c->nnames && c->names[v])
        return c->names[v];
    ari_arg args[] = {ari_arg_int(c->id), ari_arg_int(v)};
    ari_stmt *st =
        ari_store_bound(c->s, "SELECT name FROM names WHERE trace_id = ?1 AND id = ?2", args, 2, err);
    char *name = NULL;
    if (!st || ari_store_query_string(c->s, st, "", &name, "reading a region name", err) < 0)
        return NULL;
    if (!name) { /* no row */
        name = strdup("");
        if (!name) {
            nomem(err);
            return NULL;
        }
    }
    if (v < 0 || v >= MAX_NAME_CACHE) {
        free(c->scratch);
        c->scratch = name;
        return name;
    }
    if ((size_t)v >= c->nnames) {
        size_t n = (size_t)v + 1 > c->nnames * 2 ? (size_t)v + 1 : c->nnames * 2;
        char **p = realloc(c->names, n * sizeof *p);
        if (!p) {
            free(name);
            nomem(err);
            return NULL;
        }
        memset(p + c->nnames, 0, (n - c->nnames) * sizeof *p);
        c->names = p;
        c->nnames = n;
    }
    c->names[v] = name;
    return name;
}

/* The innermost Function state of `container` containing t: strict, a
 * state that starts before t (the receive side's rule). From the state
 * chunks when the location has some, else from `states`: the latest start
 * first (an index probe walking back from t), then the deepest state of
 * that start: one ORDER BY over both would sort every earlier state. */
static int find_call(calls_ctx *c, int64_t container, double t, int strict, ari_ec_call *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_gantt_state packed;
    int found = ari_state_chunks_at(c->s, c->id, container, c->ftype, t, strict, &packed, err);
    if (found < 0)
        return -1;
    if (found) { /* an event trace's calls are packed (state_chunks.h) */
        out->found = 1;
        out->enter = packed.start;
        out->leave = packed.end;
        out->name = value_name(c, packed.value, err);
        return out->name ? 0 : -1;
    }
    ari_arg args[] = {ari_arg_int(c->id), ari_arg_int(container), ari_arg_int(c->ftype), ari_arg_real(t)};
    ari_stmt *st =
        strict ? ari_store_bound(
                     c->s,
                     "SELECT start, end, value_id FROM states WHERE trace_id = ?1 AND container_id = ?2"
                     " AND start = (SELECT start FROM states WHERE trace_id = ?1 AND container_id = ?2"
                     " AND start < ?4 AND end >= ?4 AND type_id = ?3 ORDER BY start DESC LIMIT 1)"
                     " AND end >= ?4 AND type_id = ?3 ORDER BY depth DESC LIMIT 1",
                     args, ARI_NARGS(args), err)
               : ari_store_bound(
                     c->s,
                     "SELECT start, end, value_id FROM states WHERE trace_id = ?1 AND container_id = ?2"
                     " AND start = (SELECT start FROM states WHERE trace_id = ?1 AND container_id = ?2"
                     " AND start <= ?4 AND end >= ?4 AND type_id = ?3 ORDER BY start DESC LIMIT 1)"
                     " AND end >= ?4 AND type_id = ?3 ORDER BY depth DESC LIMIT 1",
                     args, ARI_NARGS(args), err);
    int rc = st ? ari_store_step_row(c->s, st, "finding a message's call", err) : -1;
    if (rc != 0)
        return rc;
    out->found = 1;
    out->enter = ari_col_double(st, 0);
    out->leave = ari_col_double(st, 1);
    int64_t v = ari_col_int64(st, 2);
    ari_reset(st);
    out->name = value_name(c, v, err);
    return out->name ? 0 : -1;
}

static int function_type(ari_store *s, int64_t id, int64_t *out, ari_error *err)
{
    *out = -1;
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT id FROM entity_types WHERE trace_id = ?1 AND nature = 'state'"
                          " AND (alias = 'F' OR name = 'Function') ORDER BY alias = 'F' DESC LIMIT 1",
                          id, err);
    return st && ari_store_query_int64(s, st, out, "reading the Function state type", err) >= 0 ? 0 : -1;
}

/* ---- every location's calls in memory (traces with state chunks) ----
 * Up to MAX_MEMORY_CALLS Function states are loaded from the state chunks
 * (state_chunks.h), sorted by (start, depth) per location with each one's
 * parent, so that a message side's call is a binary search and a walk up
 * its parents instead of two index probes per message. Traces without
 * chunks, or with more calls, are probed as above. */
#define MAX_MEMORY_CALLS ((int64_t)1 << 24)

typedef struct loc_calls {
    int64_t container;
    ari_gantt_state *st; /* by (start, depth) */
    int32_t *parent;     /* index of the enclosing state, -1 at depth 0 */
    int64_t n;
} loc_calls;

typedef struct mem_calls {
    loc_calls *locs; /* by container */
    size_t n;
} mem_calls;

static void mem_calls_free(mem_calls *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->locs[i].st);
        free(m->locs[i].parent);
    }
    free(m->locs);
    memset(m, 0, sizeof *m);
}

static int link_parents(loc_calls *l)
{
    int32_t *stack = malloc((size_t)(l->n ? l->n : 1) * sizeof *stack);
    l->parent = malloc((size_t)(l->n ? l->n : 1) * sizeof *l->parent);
    if (!stack || !l->parent) {
        free(stack);
        return -1;
    }
    int64_t top = 0;
    for (int64_t i = 0; i < l->n; i++) {
        while (top > 0 && l->st[stack[top - 1]].depth >= l->st[i].depth)
            top--;
        l->parent[i] = top > 0 ? stack[top - 1] : -1;
        stack[top++] = (int32_t)i;
    }
    free(stack);
    return 0;
}

/* ari_state_chunks_batch's callback: location i's calls, sorted. */
static int keep_calls(void *ctx, size_t i, int what, ari_gantt_state *st, int64_t n, int max_value, ari_error *err)
{
    (void)max_value;
    mem_calls *m = ctx;
    if (what == ARI_CHUNKS_LARGE)
        return ari_error_set(err, ARI_E_TOO_LARGE, "location %lld has too many calls to hold",
                             (long long)m->locs[i].container);
    m->locs[i].st = st;
    m->locs[i].n = n;
    return 0;
}

/* 1 when loaded, 0 when the trace has no chunks or too many calls, -1. */
static int mem_calls_load(ari_store *s, int64_t id, int64_t ftype, mem_calls *m, ari_error *err)
{
    memset(m, 0, sizeof *m);
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(ftype)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT coalesce(sum(n), -1) FROM state_chunks WHERE trace_id = ?1 AND type_id = ?2", args, 2, err);
    int64_t total = -1;
    if (!st || ari_store_query_int64(s, st, &total, "counting the calls", err) < 0)
        return -1;
    if (total < 0 || total > MAX_MEMORY_CALLS)
        return 0;
    st = ari_store_bound(s,
                         "SELECT DISTINCT container_id FROM state_chunks WHERE trace_id = ?1 AND type_id = ?2"
                         " ORDER BY container_id",
                         args, 2, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&m->locs, &cap, m->n + 1, sizeof *m->locs) < 0) {
            ari_reset(st);
            mem_calls_free(m);
            return nomem(err);
        }
        m->locs[m->n++] = (loc_calls){.container = ari_col_int64(st, 0)};
    }
    if (ari_store_rows_end(s, st, rc, "listing the locations with calls", err) < 0) {
        mem_calls_free(m);
        return -1;
    }
    int64_t *containers = malloc((m->n ? m->n : 1) * sizeof *containers);
    if (!containers) {
        mem_calls_free(m);
        return nomem(err);
    }
    for (size_t i = 0; i < m->n; i++)
        containers[i] = m->locs[i].container;
    /* every location's calls in a few statements; none holds more than
     * the total, so none is handed over as too large */
    rc = ari_state_chunks_batch(s, id, ftype, containers, m->n, -HUGE_VAL, HUGE_VAL, 1, MAX_MEMORY_CALLS,
                                keep_calls, m, err);
    free(containers);
    for (size_t i = 0; rc == 0 && i < m->n; i++)
        if (link_parents(&m->locs[i]) < 0)
            rc = nomem(err);
    if (rc < 0) {
        mem_calls_free(m);
        return -1;
    }
    return 1;
}

static int by_container(const void *key, const void *item)
{
    int64_t a = *(const int64_t *)key, b = ((const loc_calls *)item)->container;
    return (a > b) - (a < b);
}

/* The loaded calls of a container (they are by container, distinct). */
static const loc_calls *calls_of(const mem_calls *m, int64_t container)
{
    return m->n ? bsearch(&container, m->locs, m->n, sizeof *m->locs, by_container) : NULL;
}

/* find_call on the loaded calls: the last state starting at or before t
 * (strict: before t), then up its parents to the first that lasts until
 * t. Under proper nesting this is the state the SQL above finds. */
static int find_call_mem(calls_ctx *c, const mem_calls *m, int64_t container, double t, int strict,
                         ari_ec_call *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    const loc_calls *l = calls_of(m, container);
    if (!l)
        return 1;
    int64_t lo = 0, hi = l->n; /* the first state starting after t (at or after: strict) */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (strict ? l->st[mid].start < t : l->st[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t i = lo - 1;
    while (i >= 0 && !(l->st[i].end >= t))
        i = l->parent[i];
    if (i < 0)
        return 1;
    out->found = 1;
    out->enter = l->st[i].start;
    out->leave = l->st[i].end;
    out->name = value_name(c, l->st[i].value, err);
    return out->name ? 0 : -1;
}

/* The call of each side of m: from memory when loaded, else probed. */
static int message_calls(calls_ctx *c, const mem_calls *mem, const ari_ec_message *m, ari_ec_call *send,
                         ari_ec_call *recv, ari_error *err)
{
    if (c->ftype < 0) {
        memset(send, 0, sizeof *send);
        memset(recv, 0, sizeof *recv);
        return 0;
    }
    int a, b;
    if (mem) {
        a = find_call_mem(c, mem, m->src_container, m->send_time, 0, send, err);
        b = a < 0 ? -1 : find_call_mem(c, mem, m->dst_container, m->recv_time, 1, recv, err);
        if (b == 1)
            b = find_call_mem(c, mem, m->dst_container, m->recv_time, 0, recv, err);
    } else {
        a = find_call(c, m->src_container, m->send_time, 0, send, err);
        b = a < 0 ? -1 : find_call(c, m->dst_container, m->recv_time, 1, recv, err);
        if (b == 1)
            b = find_call(c, m->dst_container, m->recv_time, 0, recv, err);
    }
    return a < 0 || b < 0 ? -1 : 0;
}

typedef struct calls_each {
    calls_ctx *c;
    const mem_calls *mem;
    const threads *threads;
    ari_evq_calls_fn fn;
    void *ctx;
    ari_error *err;
} calls_each;

static int calls_message(void *ctx, int64_t seq, const ari_ec_message *msg)
{
    (void)seq;
    calls_each *e = ctx;
    ari_ec_message m = *msg;
    ari_ec_call send, recv;
    set_threads(e->threads, &m);
    if (message_calls(e->c, e->mem, &m, &send, &recv, e->err) < 0)
        return -1;
    return e->fn(e->ctx, &m, &send, &recv);
}

int ari_evq_message_calls(ari_store *s, int64_t id, ari_evq_calls_fn fn, void *ctx, ari_error *err)
{
    calls_ctx c = {.s = s, .id = id};
    mem_calls mem;
    threads t = {0};
    int loaded = 0;
    if (function_type(s, id, &c.ftype, err) < 0 ||
        (c.ftype >= 0 && (loaded = mem_calls_load(s, id, c.ftype, &mem, err)) < 0))
        return -1;
    int result = threads_load(s, id, &t, err);
    if (result == 0) {
        /* by send time then seq, as the former ev_messages key gave them */
        calls_each e = {&c, loaded ? &mem : NULL, &t, fn, ctx, err};
        ari_mc_filter f = ari_mc_all();
        result = ari_message_chunks_each(s, id, &f, 1, ARI_MESSAGE_SORT_CAP, calls_message, &e, err);
    }
    free(t.locs);
    if (loaded)
        mem_calls_free(&mem);
    for (size_t i = 0; i < c.nnames; i++)
        free(c.names[i]);
    free(c.names);
    free(c.scratch);
    return result;
}

/* ---- the timeline ---- */

/* The longest receive - send of the trace (its summary, written at
 * import), which bounds how long before a window a message drawn in it may
 * have been sent: the window queries then read only the messages sent in
 * [t0 - span, t1]. Unknown: no bound. */
int ari_evq_max_span(ari_store *s, int64_t id, double *span, ari_error *err)
{
    *span = HUGE_VAL;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT json_extract(summary_json, '$.message_span_max') FROM traces WHERE id = ?1", id, err);
    if (!st)
        return -1;
    int rc = ari_step(st);
    if (rc == ARI_ROW && ari_col_type(st, 0) != ARI_NULL && ari_col_double(st, 0) >= 0)
        *span = ari_col_double(st, 0);
    return ari_store_rows_end(s, st, rc == ARI_ROW ? ARI_DONE : rc, "reading the messages' span", err);
}

/* The messages drawn in [t0, t1]: sent in [t0 - span, t1], received at or
 * after t0 (span: ari_evq_max_span). */
static int window_filter(ari_store *s, int64_t id, double t0, double t1, ari_mc_filter *f, ari_error *err)
{
    double span;
    if (ari_evq_max_span(s, id, &span, err) < 0)
        return -1;
    *f = (ari_mc_filter){t0 - span, t1, t0};
    return 0;
}

int ari_evq_window_count(ari_store *s, int64_t id, double t0, double t1, int64_t *n, int64_t *pairs,
                         ari_error *err)
{
    *n = *pairs = 0;
    ari_mc_filter f;
    if (window_filter(s, id, t0, t1, &f, err) < 0)
        return -1;
    return ari_emw_stream_count(s, id, &f, n, pairs, err);
}

/* The unbundled window: each message by send time, at most limit. */
typedef struct window_list {
    int64_t limit, n;
    int full;
    ari_evq_bundle_fn fn;
    void *ctx;
} window_list;

static int window_message(void *ctx, int64_t seq, const ari_ec_message *msg)
{
    (void)seq;
    window_list *w = ctx;
    if (w->limit > 0 && w->n >= w->limit) {
        w->full = 1;
        return 1;
    }
    w->n++;
    ari_ec_message m = *msg; /* as the former SELECT: threads 0 */
    return w->fn(w->ctx, &m, 1);
}

int ari_evq_window_messages(ari_store *s, int64_t id, double t0, double t1, int bundle, int buckets,
                            int64_t limit, ari_evq_bundle_fn fn, void *ctx, ari_error *err)
{
    ari_mc_filter f;
    if (window_filter(s, id, t0, t1, &f, err) < 0)
        return -1;
    if (bundle)
        return ari_emw_stream_bundles(s, id, &f, t0, t1, buckets, limit, fn, ctx, err);
    if (buckets <= 0)
        return 0;
    window_list w = {limit, 0, 0, fn, ctx};
    int rc = ari_message_chunks_each(s, id, &f, 1, ARI_MESSAGE_SORT_CAP, window_message, &w, err);
    return w.full ? 0 : rc;
}
