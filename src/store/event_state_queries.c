/* event_state_queries.c: the locations, names, extent and Function states
 * of an event trace for its function analyses (event_state_queries.h). */
#include "store/event_state_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/state_chunks.h"
#include "store/store_internal.h"
#include "util/vec.h"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

void ari_evs_free(ari_evs_trace *t)
{
    if (!t)
        return;
    for (int32_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->name_ids);
    free(t->locs);
    memset(t, 0, sizeof *t);
    t->function_type = -1;
}

/* Appends the locations a statement gives: container id in column 0, rank
 * and thread in columns rank_col and rank_col + 1. */
static int read_locations(ari_store *s, ari_stmt *st, int rank_col, ari_evs_trace *t, const char *what,
                          ari_error *err)
{
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (t->nlocs >= INT32_MAX - 1 ||
            ari_vec_reserve((void **)&t->locs, &cap, (size_t)t->nlocs + 1, sizeof *t->locs) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        t->locs[t->nlocs++] = (ari_evs_location){ari_col_int64(st, 0), ari_col_int64(st, rank_col),
                                                 ari_col_int64(st, rank_col + 1)};
    }
    return ari_store_rows_end(s, st, rc, what, err);
}

static int load_locations(ari_store *s, int64_t id, ari_evs_trace *t, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT container_id, rank, thread FROM ev_locations WHERE trace_id = ?1 ORDER BY container_id",
        id, err);
    return read_locations(s, st, 1, t, "reading the event trace's locations", err);
}

/* Without ev_locations rows: the Thread containers, rank = their Process
 * container's order, thread = their order within it. */
static int load_threads(ari_store *s, int64_t id, ari_evs_trace *t, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT c.id, coalesce(c.parent_id, -1),"
        " (SELECT count(*) FROM containers q WHERE q.trace_id = c.trace_id AND q.type_id = p.type_id"
        "   AND q.id < c.parent_id),"
        " (SELECT count(*) FROM containers o WHERE o.trace_id = c.trace_id AND o.parent_id = c.parent_id"
        "   AND o.type_id = c.type_id AND o.id < c.id)"
        " FROM containers c JOIN entity_types e ON e.trace_id = c.trace_id AND e.id = c.type_id"
        " LEFT JOIN containers p ON p.trace_id = c.trace_id AND p.id = c.parent_id"
        " WHERE c.trace_id = ?1 AND e.nature = 'container' AND e.alias = 'T' ORDER BY c.id",
        id, err);
    return read_locations(s, st, 2, t, "reading the event trace's threads", err);
}

static int load_names(ari_store *s, int64_t id, ari_evs_trace *t, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT id, name FROM names WHERE trace_id = ?1 ORDER BY id", id, err);
    if (!st)
        return -1;
    size_t cap = 0, cap_ids = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *name = (const char *)ari_col_text(st, 1);
        if (t->nnames >= INT32_MAX - 1 ||
            ari_vec_reserve((void **)&t->names, &cap, (size_t)t->nnames + 1, sizeof *t->names) < 0 ||
            ari_vec_reserve((void **)&t->name_ids, &cap_ids, (size_t)t->nnames + 1, sizeof *t->name_ids) <
                0 ||
            !(t->names[t->nnames] = strdup(name ? name : ""))) {
            ari_reset(st);
            return nomem(err);
        }
        t->name_ids[t->nnames++] = ari_col_int64(st, 0);
    }
    return ari_store_rows_end(s, st, rc, "reading the event trace's names", err);
}

int ari_evs_load(ari_store *s, int64_t id, ari_evs_trace *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->function_type = -1;
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT id FROM entity_types WHERE trace_id = ?1 AND nature = "
                                         "'state' AND alias = 'F' ORDER BY id LIMIT 1",
                                         id, err);
    if (!st || ari_store_query_int64(s, st, &out->function_type, "reading the Function state type", err) < 0)
        return -1;
    if (load_locations(s, id, out, err) < 0)
        return -1;
    if (out->nlocs == 0 && load_threads(s, id, out, err) < 0)
        return -1;
    return load_names(s, id, out, err);
}

int32_t ari_evs_name_index(const ari_evs_trace *t, const char *name)
{
    for (int32_t i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i], name) == 0)
            return i;
    return -1;
}

static int32_t name_of(const ari_evs_trace *t, int64_t value_id)
{
    int32_t lo = 0, hi = t->nnames;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (t->name_ids[mid] < value_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nnames && t->name_ids[lo] == value_id ? lo : -1;
}

int ari_evs_extent(ari_store *s, int64_t id, double *t0, double *t1, ari_error *err)
{
    *t0 = *t1 = 0;
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT min(a), max(b) FROM ("
                          " SELECT min(start) AS a, max(end) AS b FROM states WHERE trace_id = ?1"
                          "  AND NOT EXISTS (SELECT 1 FROM state_chunks WHERE trace_id = ?1)"
                          " UNION ALL" /* the chunks' bounds when there are some: no scan of the states */
                          " SELECT min(min_start), max(max_end) FROM state_chunks WHERE trace_id = ?1"
                          " UNION ALL"
                          " SELECT min(time), max(time) FROM events WHERE trace_id = ?1"
                          " UNION ALL" /* packed events (event_chunks.h) */
                          " SELECT min(t0), max(t1) FROM event_chunks WHERE trace_id = ?1)",
                          id, err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "reading the event trace's extent", err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (ari_col_type(st, 0) != ARI_NULL) {
        *t0 = ari_col_double(st, 0);
        *t1 = ari_col_double(st, 1);
    }
    ari_reset(st);
    return 0;
}

/* One state to fn, with its name index; -1 on error. */
static int emit(int64_t id, const ari_evs_trace *t, int32_t loc, int64_t value, int64_t depth, double start,
                double end, ari_evs_fn fn, void *ctx, ari_error *err)
{
    ari_evp_state e = {loc, name_of(t, value),
                       (int32_t)(depth < 0           ? 0
                                 : depth > INT32_MAX ? INT32_MAX
                                                     : depth),
                       start, end};
    if (e.name < 0)
        return ari_error_set(err, ARI_E_DB, "a Function state of trace %lld names no name (value %lld)",
                             (long long)id, (long long)value);
    return fn(ctx, &e, err) < 0 ? -1 : 0;
}

/* The location's states from its state chunks (state_chunks.h), in
 * (start, depth) order with at most MAX_CHUNKED_STATES in memory:
 * 1 done, 0 not chunked, -1. */
#define MAX_CHUNKED_STATES ((int64_t)1 << 22)

typedef struct chunk_emit {
    int64_t id;
    const ari_evs_trace *t;
    int32_t loc;
    ari_evs_fn fn;
    void *ctx;
} chunk_emit;

static int emit_packed(void *ctx, const ari_gantt_state *st, ari_error *err)
{
    const chunk_emit *c = ctx;
    return emit(c->id, c->t, c->loc, st->value, st->depth, st->start, st->end, c->fn, c->ctx, err);
}

static int each_from_chunks(ari_store *s, int64_t id, const ari_evs_trace *t, int32_t loc, double lo, double hi,
                            ari_evs_fn fn, void *ctx, ari_error *err)
{
    chunk_emit c = {id, t, loc, fn, ctx};
    return ari_state_chunks_each(s, id, t->locs[loc].container_id, t->function_type, lo, hi, MAX_CHUNKED_STATES,
                                 emit_packed, &c, err);
}

static int each_of_location(ari_store *s, int64_t id, const ari_evs_trace *t, int32_t loc, int window,
                            double t0, double t1, ari_evs_fn fn, void *ctx, ari_error *err)
{
    int chunked = each_from_chunks(s, id, t, loc, window ? t0 : -1e300, window ? t1 : 1e300, fn, ctx, err);
    if (chunked != 0)
        return chunked < 0 ? -1 : 0;
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(t->locs[loc].container_id), ari_arg_int(t->function_type),
                      ari_arg_real(window ? t0 : -1e300), ari_arg_real(window ? t1 : 1e300)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT value_id, depth, start, end FROM states"
                                       " WHERE trace_id = ?1 AND container_id = ?2 AND start <= ?5"
                                       " AND type_id = ?3 AND end >= ?4 ORDER BY start, depth",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (emit(id, t, loc, ari_col_int64(st, 0), ari_col_int64(st, 1), ari_col_double(st, 2),
                 ari_col_double(st, 3), fn, ctx, err) < 0) {
            ari_reset(st);
            return -1;
        }
    }
    return ari_store_rows_end(s, st, rc, "reading the event trace's states", err);
}

/* The locations' chunks are read in batches (ari_state_chunks_batch: a
 * few statements for all, not one or two per location, which on a shard
 * are round trips); a location with too many states to hold, or without
 * chunks, is read alone. */
typedef struct batch_emit {
    ari_store *s;
    int64_t id;
    const ari_evs_trace *t;
    int window;
    double t0, t1;
    ari_evs_fn fn;
    void *ctx;
} batch_emit;

static int emit_location(void *ctx, size_t i, int what, ari_gantt_state *st, int64_t n, int max_value,
                         ari_error *err)
{
    (void)max_value;
    const batch_emit *c = ctx;
    int32_t loc = (int32_t)i;
    int rc = 0;
    if (what == ARI_CHUNKS_READ)
        for (int64_t k = 0; rc == 0 && k < n; k++)
            rc = emit(c->id, c->t, loc, st[k].value, st[k].depth, st[k].start, st[k].end, c->fn, c->ctx, err);
    else
        rc = each_of_location(c->s, c->id, c->t, loc, c->window, c->t0, c->t1, c->fn, c->ctx, err);
    free(st);
    return rc;
}

int ari_evs_each(ari_store *s, int64_t id, const ari_evs_trace *t, double t0, double t1, ari_evs_fn fn,
                 void *ctx, ari_error *err)
{
    if (t->function_type < 0 || t->nlocs <= 0)
        return 0;
    int window = t0 <= t1;
    int64_t *containers = malloc((size_t)t->nlocs * sizeof *containers);
    if (!containers)
        return nomem(err);
    for (int32_t i = 0; i < t->nlocs; i++)
        containers[i] = t->locs[i].container_id;
    batch_emit c = {s, id, t, window, t0, t1, fn, ctx};
    int rc = ari_state_chunks_batch(s, id, t->function_type, containers, (size_t)t->nlocs, window ? t0 : -1e300,
                                    window ? t1 : 1e300, 1, MAX_CHUNKED_STATES, emit_location, &c, err);
    free(containers);
    return rc;
}
