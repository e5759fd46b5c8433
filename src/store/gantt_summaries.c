/* gantt_summaries.c: the Gantt's multi-resolution summaries, built at
 * import from the packed rows and the states table, and read for large
 * windows (see gantt_summaries.h, sql/020_gantt_summaries.sql). */
#include "store/gantt_summaries.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "store/analysis_cache.h"
#include "store/gantt_rows.h"
#include "store/store_internal.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/vec.h"

/* Beyond this many accumulator cells (keys x buckets) a level is not
 * built for a row (its readers then use the raw rows). */
#define MAX_ACC_CELLS ((int64_t)1 << 24)
/* States held in memory at once while building (32 bytes each); a
 * worker with more is read alone. */
#define BATCH_STATES ((int64_t)1 << 22)
/* names.id values beyond this are not summarised. */
#define MAX_VALUE_ID ((int64_t)1 << 24)

static _Atomic int64_t min_rows_override = -1;

void ari_gantt_summaries_set_min_rows(int64_t n)
{
    min_rows_override = n;
}

static int64_t min_rows(void)
{
    int64_t n = min_rows_override;
    return n >= 0 ? n : ARI_GANTT_SUMMARY_MIN_ROWS;
}

/* Tasks starting in a window for its pixels to come from the summaries. */
static int64_t pixel_rows(void)
{
    int64_t n = min_rows_override;
    return n >= 0 ? n : ARI_GANTT_SUMMARY_PIXEL_ROWS;
}

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "gantt summaries: out of memory");
}

/* ---- building ---- */

/* One worker's states, value ids made dense (value_ids[local] = names.id). */
typedef struct row_states {
    ari_gantt_state *states;
    int64_t n;
    size_t cap;
    int64_t *value_ids;
    int nvalues;
    size_t cap_values;
    int32_t *local_of; /* [names.id] local + 1, or 0 */
    size_t cap_local;
} row_states;

static int local_value(row_states *r, int64_t id)
{
    if (id < 0 || id >= MAX_VALUE_ID)
        return -1;
    if (ari_vec_reserve_zeroed((void **)&r->local_of, &r->cap_local, (size_t)id + 1, sizeof *r->local_of) < 0)
        return -2;
    if (r->local_of[id] > 0)
        return r->local_of[id] - 1;
    if (ari_vec_reserve((void **)&r->value_ids, &r->cap_values, (size_t)r->nvalues + 1, sizeof *r->value_ids) < 0)
        return -2;
    r->value_ids[r->nvalues] = id;
    r->local_of[id] = r->nvalues + 1;
    return r->nvalues++;
}

/* Forgets the previous worker's states (keeping the buffers). */
static void reset_states(row_states *r)
{
    for (int v = 0; v < r->nvalues; v++)
        r->local_of[r->value_ids[v]] = 0;
    r->nvalues = 0;
    r->n = 0;
}

static void free_states(row_states *r)
{
    free(r->states);
    free(r->value_ids);
    free(r->local_of);
}

/* What a worker's summaries are made of. */
typedef struct build_row {
    int64_t worker_id;
    const ari_row_tasks *tasks; /* meta type ids */
    int ntypes;
    const row_states *states;
} build_row;

typedef struct chunk_buf {
    int32_t *counts;
    ari_gs_cell *tasks, *states;
    size_t ntasks, nstates, cap_tasks, cap_states;
} chunk_buf;

static int insert_chunk(ari_store *s, int64_t trace_id, int64_t worker_id, int level, int64_t chunk,
                        const chunk_buf *c, int64_t nb, ari_error *err)
{
    ari_arg args[] = {
        ari_arg_int(trace_id),
        ari_arg_int(worker_id),
        ari_arg_int(level),
        ari_arg_int(chunk),
        ari_arg_blob(c->counts, nb * 2 * (int64_t)sizeof *c->counts),
        ari_arg_blob(c->ntasks ? (const void *)c->tasks : "", (int64_t)(c->ntasks * sizeof(ari_gs_cell))),
        ari_arg_blob(c->nstates ? (const void *)c->states : "", (int64_t)(c->nstates * sizeof(ari_gs_cell)))};
    return ari_store_run(
        s,
        "INSERT INTO gantt_summaries(trace_id, worker_id, level, chunk, counts, tasks, states)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        args, ARI_NARGS(args), "store a gantt summary", err);
}

/* Writes the chunks of one level from its two accumulators. */
static int write_chunks(ari_store *s, int64_t trace_id, const build_row *row, int level, const ari_gs_acc *ta,
                        const ari_gs_acc *sa, const int64_t *type_out, ari_error *err)
{
    chunk_buf c = {.counts = malloc(ARI_GANTT_SUMMARY_CHUNK * 2 * sizeof *c.counts)};
    int rc = c.counts ? 0 : nomem(err);
    int64_t nbuckets = ta->grid.nbuckets;
    for (int64_t b0 = 0; rc == 0 && b0 < nbuckets; b0 += ARI_GANTT_SUMMARY_CHUNK) {
        int64_t b1 = b0 + ARI_GANTT_SUMMARY_CHUNK < nbuckets ? b0 + ARI_GANTT_SUMMARY_CHUNK : nbuckets;
        for (int64_t b = b0; b < b1; b++) {
            c.counts[2 * (b - b0)] = ta->ntasks[b];
            c.counts[2 * (b - b0) + 1] = sa->nstates[b];
        }
        c.ntasks = c.nstates = 0;
        if (ari_gs_acc_cells(ta, b0, b1, type_out, &c.tasks, &c.ntasks, &c.cap_tasks) < 0 ||
            ari_gs_acc_cells(sa, b0, b1, row->states->value_ids, &c.states, &c.nstates, &c.cap_states) < 0)
            rc = nomem(err);
        else
            rc = insert_chunk(s, trace_id, row->worker_id, level, b0 / ARI_GANTT_SUMMARY_CHUNK, &c, b1 - b0,
                              err);
    }
    free(c.counts), free(c.tasks), free(c.states);
    return rc;
}

/* One level of one row; a level too large for the row's keys is skipped. */
static int build_level(ari_store *s, int64_t trace_id, const build_row *row, int level, ari_gs_grid grid,
                       const int64_t *type_out, ari_error *err)
{
    int nkeys = row->ntypes > row->states->nvalues ? row->ntypes : row->states->nvalues;
    if ((int64_t)nkeys * grid.nbuckets > MAX_ACC_CELLS) {
        ari_log(ARI_LOG_INFO, "gantt summaries: level %d of worker %lld skipped (%d keys)", level,
                (long long)row->worker_id, nkeys);
        return 0;
    }
    ari_gs_acc ta, sa;
    if (ari_gs_acc_init(&ta, grid, row->ntypes, err) < 0)
        return -1;
    if (ari_gs_acc_init(&sa, grid, row->states->nvalues, err) < 0) {
        ari_gs_acc_free(&ta);
        return -1;
    }
    ari_gs_acc_tasks(&ta, row->tasks->start, row->tasks->end, row->tasks->type, row->tasks->ntasks);
    int rc = ari_gs_acc_states(&sa, row->states->states, row->states->n, err);
    if (rc == 0)
        rc = write_chunks(s, trace_id, row, level, &ta, &sa, type_out, err);
    ari_gs_acc_free(&ta);
    ari_gs_acc_free(&sa);
    return rc;
}

static ari_gs_grid level_grid(const ari_tq_meta *meta, int level)
{
    return (ari_gs_grid){meta->extent_start, meta->extent_end, (int64_t)1 << (10 + 2 * level)};
}

static int insert_levels(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, ari_error *err)
{
    for (int l = 0; l < ARI_GANTT_SUMMARY_LEVELS; l++) {
        ari_gs_grid g = level_grid(meta, l);
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(l), ari_arg_int(g.nbuckets), ari_arg_real(g.t0),
                          ari_arg_real(g.t1)};
        if (ari_store_run(s,
                          "INSERT INTO gantt_summary_levels(trace_id, level, nbuckets, t0, t1)"
                          " VALUES (?1, ?2, ?3, ?4, ?5)",
                          args, ARI_NARGS(args), "store a gantt summary level", err) < 0)
            return -1;
    }
    return 0;
}

/* type_out[meta id] = gantt_row_types.type_no (-1 when none). */
static int type_numbers(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t *type_out,
                        ari_error *err)
{
    for (int k = 0; k < meta->ntypes; k++)
        type_out[k] = -1;
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT type_no, name FROM gantt_row_types WHERE trace_id = ?1", trace_id, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = ari_tq_type_id(meta, (const char *)ari_col_text(st, 1));
        if (k >= 0)
            type_out[k] = ari_col_int64(st, 0);
    }
    return ari_store_rows_end(s, st, rc, "read gantt row types", err);
}

static int delete_old(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id)};
    if (ari_store_run(s, "DELETE FROM gantt_summaries WHERE trace_id = ?1", args, 1, "delete gantt summaries",
                      err) < 0)
        return -1;
    if (ari_store_run(s, "DELETE FROM gantt_summary_rows WHERE trace_id = ?1", args, 1,
                      "delete gantt summary rows", err) < 0)
        return -1;
    return ari_store_run(s, "DELETE FROM gantt_summary_levels WHERE trace_id = ?1", args, 1,
                         "delete gantt summary levels", err);
}

static int insert_row(ari_store *s, int64_t trace_id, int64_t worker_id, int64_t ntasks, const row_states *st,
                      ari_error *err)
{
    double longest = 0;
    for (int64_t i = 0; i < st->n; i++)
        if (st->states[i].end - st->states[i].start > longest)
            longest = st->states[i].end - st->states[i].start;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id), ari_arg_int(ntasks), ari_arg_int(st->n),
                      ari_arg_real(longest)};
    return ari_store_run(s,
                         "INSERT INTO gantt_summary_rows(trace_id, worker_id, ntasks, nstates, max_state)"
                         " VALUES (?1, ?2, ?3, ?4, ?5)",
                         args, ARI_NARGS(args), "store a gantt summary row", err);
}

/* ---- reading the states: sequential scans in batches of workers ---- */

/* One state as scanned: seq (its order in the table) breaks ties as
 * rowid does in the raw path's ORDER BY start, depth, rowid. */
typedef struct scanned {
    double start, end;
    int32_t value; /* names.id */
    int32_t depth;
    int64_t seq;
} scanned;

static int by_start_depth_seq(const void *a, const void *b)
{
    const scanned *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The workers' state counts (index only): nstates[i] of meta->workers[i]. */
static int count_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t *nstates,
                        ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT container_id, count(*) FROM states WHERE trace_id = ?1 GROUP BY container_id", trace_id,
        err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int i = ari_tq_worker_index(meta, ari_col_int64(st, 0));
        if (i >= 0)
            nstates[i] = ari_col_int64(st, 1);
    }
    return ari_store_rows_end(s, st, rc, "count states for the gantt summaries", err);
}

/* Worker ids sorted, with their index in meta->workers. */
typedef struct worker_key {
    int64_t id;
    int index;
} worker_key;

static int by_id(const void *a, const void *b)
{
    const worker_key *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* meta->workers[i].id -> i, or -1 (a binary search: a scan sees every state). */
static int worker_of(const worker_key *keys, int n, int64_t id)
{
    worker_key k = {id, 0};
    const worker_key *hit = bsearch(&k, keys, (size_t)n, sizeof *keys, by_id);
    return hit ? hit->index : -1;
}

/* A batch of workers whose states are read by one scan. */
typedef struct batch {
    worker_key *keys; /* [nworkers] sorted by id */
    int nkeys;
    int *member;     /* worker indexes */
    int64_t *offset; /* [nmember + 1] into recs */
    int64_t *filled; /* [nmember] */
    int nmember;
    scanned *recs;
    int32_t *slot_of; /* [worker index] member + 1, or 0 */
} batch;

/* One scan of the trace's states (in table order: the import's staging
 * database holds this trace only) keeping the batch's workers' states. */
static int scan_batch(ari_store *s, int64_t trace_id, batch *b, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
                                     s->pg ? "SELECT container_id, value_id, start, end, depth FROM states"
                                             " WHERE trace_id = ?1"
                                           : "SELECT container_id, value_id, start, end, depth FROM states"
                                             " NOT INDEXED WHERE trace_id = ?1",
                                     trace_id, err);
    if (!st)
        return -1;
    int rc;
    int64_t seq = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int i = worker_of(b->keys, b->nkeys, ari_col_int64(st, 0));
        int m = i >= 0 ? b->slot_of[i] - 1 : -1;
        int64_t value = ari_col_int64(st, 1);
        seq++;
        if (m < 0 || value < 0 || value >= MAX_VALUE_ID || b->offset[m] + b->filled[m] >= b->offset[m + 1])
            continue;
        b->recs[b->offset[m] + b->filled[m]++] =
            (scanned){ari_col_double(st, 2), ari_col_double(st, 3), (int32_t)value, ari_col_int(st, 4), seq};
    }
    return ari_store_rows_end(s, st, rc, "read states for the gantt summaries", err);
}

/* Member m's states sorted, as dense values into r. */
static int member_states(batch *b, int m, row_states *r, ari_error *err)
{
    reset_states(r);
    scanned *v = b->recs + b->offset[m];
    int64_t n = b->filled[m];
    qsort(v, (size_t)n, sizeof *v, by_start_depth_seq);
    if (ari_vec_reserve((void **)&r->states, &r->cap, (size_t)n + 1, sizeof *r->states) < 0)
        return nomem(err);
    for (int64_t i = 0; i < n; i++) {
        int local = local_value(r, v[i].value);
        if (local < 0)
            return nomem(err);
        r->states[r->n++] =
            (ari_gantt_state){.value = local, .depth = v[i].depth, .start = v[i].start, .end = v[i].end};
    }
    return 0;
}

/* Builds the batch's workers, each from its states and packed tasks. */
static int build_batch(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_row_tasks *rows,
                       const int64_t *type_out, batch *b, row_states *st, ari_error *err)
{
    int rc = scan_batch(s, trace_id, b, err);
    for (int m = 0; rc == 0 && m < b->nmember; m++) {
        int i = b->member[m];
        rc = member_states(b, m, st, err);
        if (rc == 0)
            rc = insert_row(s, trace_id, meta->workers[i].id, rows[i].ntasks, st, err);
        build_row row = {meta->workers[i].id, &rows[i], meta->ntypes, st};
        for (int l = 0; rc == 0 && l < ARI_GANTT_SUMMARY_LEVELS; l++)
            rc = build_level(s, trace_id, &row, l, level_grid(meta, l), type_out, err);
    }
    return rc;
}

/* Every worker with a large row, in batches of at most BATCH_STATES
 * states (a larger row alone): one sequential scan of the states per
 * batch, far cheaper than reading each row through the index (a lookup
 * per state: 39 s against 14 s for a whole scan of 10 M states). */
static int build_rows(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_row_tasks *rows,
                      const int64_t *type_out, ari_error *err)
{
    size_t nw = (size_t)meta->nworkers;
    int64_t *nstates = calloc(nw + 1, sizeof *nstates);
    batch b = {.member = malloc((nw + 1) * sizeof *b.member),
               .offset = malloc((nw + 2) * sizeof *b.offset),
               .filled = calloc(nw + 1, sizeof *b.filled),
               .slot_of = calloc(nw + 1, sizeof *b.slot_of)};
    b.keys = malloc((nw + 1) * sizeof *b.keys);
    for (int i = 0; b.keys && i < meta->nworkers; i++)
        b.keys[i] = (worker_key){meta->workers[i].id, i};
    if (b.keys)
        qsort(b.keys, nw, sizeof *b.keys, by_id);
    b.nkeys = meta->nworkers;
    row_states st = {0};
    int rc = nstates && b.keys && b.member && b.offset && b.filled && b.slot_of ? 0 : nomem(err);
    if (rc == 0)
        rc = count_states(s, trace_id, meta, nstates, err);
    int any = 0;
    for (int i = 0; rc == 0 && i < meta->nworkers; i++)
        any |= rows[i].ntasks >= min_rows() || nstates[i] >= min_rows();
    if (rc == 0 && any)
        rc = insert_levels(s, trace_id, meta, err);
    for (int first = 0; rc == 0 && any && first < meta->nworkers;) {
        b.nmember = 0;
        b.offset[0] = 0;
        int i = first;
        for (; i < meta->nworkers; i++) {
            if (rows[i].ntasks < min_rows() && nstates[i] < min_rows())
                continue;
            if (b.nmember > 0 && b.offset[b.nmember] + nstates[i] > BATCH_STATES)
                break;
            b.member[b.nmember] = i;
            b.filled[b.nmember] = 0;
            b.slot_of[i] = b.nmember + 1;
            b.offset[b.nmember + 1] = b.offset[b.nmember] + nstates[i];
            b.nmember++;
        }
        first = i;
        if (b.nmember == 0)
            break;
        scanned *recs = realloc(b.recs, ((size_t)b.offset[b.nmember] + 1) * sizeof *recs);
        if (!recs) {
            rc = nomem(err);
            break;
        }
        b.recs = recs;
        rc = build_batch(s, trace_id, meta, rows, type_out, &b, &st, err);
        for (int m = 0; m < b.nmember; m++)
            b.slot_of[b.member[m]] = 0;
    }
    free(nstates), free(b.keys), free(b.member), free(b.offset), free(b.filled), free(b.slot_of),
        free(b.recs);
    free_states(&st);
    return rc;
}

int ari_gantt_summaries_build(ari_store *s, int64_t trace_id, ari_error *err)
{
    double started = ari_now();
    ari_tq_meta *meta = NULL;
    if (ari_tq_meta_get(s, trace_id, &meta, err) < 0)
        return -1;
    int rc = delete_old(s, trace_id, err);
    ari_row_tasks *rows = NULL;
    int64_t *type_out = NULL;
    if (rc < 0 || meta->ntasks == 0 || meta->nworkers == 0 || meta->ntypes == 0 ||
        !(meta->extent_end > meta->extent_start) || !isfinite(meta->extent_end - meta->extent_start))
        goto done;
    rows = calloc((size_t)meta->nworkers, sizeof *rows);
    type_out = malloc((size_t)meta->ntypes * sizeof *type_out);
    if (!rows || !type_out) {
        rc = nomem(err);
        goto done;
    }
    for (int i = 0; i < meta->nworkers; i++)
        rows[i].worker_id = meta->workers[i].id;
    rc = ari_gantt_rows_read(s, trace_id, meta, rows, err);
    if (rc == 1) { /* no packed rows: nothing to summarise */
        rc = 0;
        goto done;
    }
    if (rc == 0)
        rc = type_numbers(s, trace_id, meta, type_out, err);
    if (rc == 0)
        rc = build_rows(s, trace_id, meta, rows, type_out, err);
done:
    for (int i = 0; rows && i < meta->nworkers; i++) {
        free(rows[i].start);
        free(rows[i].end);
        free(rows[i].type);
    }
    free(rows);
    free(type_out);
    ari_tq_meta_free(meta);
    if (rc == 0)
        ari_log(ARI_LOG_INFO, "gantt summaries of trace %lld built in %.2f s", (long long)trace_id,
                ari_now() - started);
    return rc < 0 ? -1 : 0;
}

/* ---- reading ---- */

int ari_gantt_summary_levels(ari_store *s, int64_t trace_id, ari_gs_grid *levels, int cap, int *n,
                             ari_error *err)
{
    *n = 0;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT nbuckets, t0, t1 FROM gantt_summary_levels WHERE trace_id = ?1 ORDER BY level", trace_id,
        err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (*n < cap)
            levels[(*n)++] =
                (ari_gs_grid){ari_col_double(st, 1), ari_col_double(st, 2), ari_col_int64(st, 0)};
    if (ari_store_rows_end(s, st, rc, "read gantt summary levels", err) < 0)
        return -1;
    return *n ? 0 : 1;
}

enum { KIND_TASKS = 0, KIND_STATES = 1 };

/* The cells of one kind in a window, from the level picked. */
typedef struct window_cells {
    ari_gs_grid grid;
    ari_gs_cell *cells;
    size_t n, cap;
    int64_t rows; /* tasks or states starting in the window's buckets */
    int64_t chunks;
} window_cells;

/* Appends the cells of a blob with bucket in [b0, b1]. */
static int take_cells(window_cells *w, const void *blob, int bytes, int64_t b0, int64_t b1)
{
    if (bytes < 0 || bytes % (int)sizeof(ari_gs_cell) != 0)
        return -2;
    size_t n = (size_t)bytes / sizeof(ari_gs_cell);
    for (size_t i = 0; i < n; i++) {
        ari_gs_cell c;
        memcpy(&c, (const char *)blob + i * sizeof c, sizeof c);
        if (c.bucket < b0 || c.bucket > b1)
            continue;
        if (ari_vec_reserve((void **)&w->cells, &w->cap, w->n + 1, sizeof *w->cells) < 0)
            return -1;
        w->cells[w->n++] = c;
    }
    return 0;
}

/* One stored chunk (columns chunk, counts, the kind's cells): its counts
 * and cells of `kind` within [b0, b1]. */
static int take_chunk(window_cells *w, ari_stmt *st, int kind, int64_t b0, int64_t b1, ari_error *err)
{
    int64_t chunk = ari_col_int64(st, 0), first = chunk * ARI_GANTT_SUMMARY_CHUNK;
    int bytes = ari_col_bytes(st, 1);
    const char *counts = ari_col_blob(st, 1);
    int64_t nb = bytes / (int64_t)(2 * sizeof(int32_t));
    if (bytes % (int)(2 * sizeof(int32_t)) != 0 || nb > ARI_GANTT_SUMMARY_CHUNK)
        return ari_error_set(err, ARI_E_DB, "a stored gantt summary is damaged (counts)");
    for (int64_t b = first > b0 ? first : b0; b < first + nb && b <= b1; b++) {
        int32_t c;
        memcpy(&c, counts + ((b - first) * 2 + kind) * (int64_t)sizeof c, sizeof c);
        w->rows += c;
    }
    int rc = take_cells(w, ari_col_blob(st, 2), ari_col_bytes(st, 2), b0, b1);
    if (rc == -2)
        return ari_error_set(err, ARI_E_DB, "a stored gantt summary is damaged (cells)");
    return rc < 0 ? nomem(err) : 0;
}

/* Reads the cells of `kind` of a window at the coarsest level with k
 * buckets per pixel. Returns 1 with *w filled, 0 when no summary fits (or
 * fewer than need_rows tasks or states start in the window), -1 on error. */
static int read_window(ari_store *s, int64_t trace_id, int64_t worker_id, int kind, double t0, double t1,
                       int width, double k, int64_t need_rows, window_cells *w, ari_error *err)
{
    memset(w, 0, sizeof *w);
    ari_gs_grid levels[8];
    int nlevels;
    int rc = ari_gantt_summary_levels(s, trace_id, levels, 8, &nlevels, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    int l = ari_gs_pick_level(levels, nlevels, t0, t1, width, k);
    if (l < 0)
        return 0;
    w->grid = levels[l];
    int64_t b0 = ari_gs_bucket_of(&w->grid, t0), b1 = ari_gs_bucket_of(&w->grid, t1);
    int64_t c0 = b0 / ARI_GANTT_SUMMARY_CHUNK, c1 = b1 / ARI_GANTT_SUMMARY_CHUNK;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id), ari_arg_int(l), ari_arg_int(c0),
                      ari_arg_int(c1)};
    /* only the kind's cells: a chunk's state cells are several times the
     * size of its task cells, and PostgreSQL decompresses what it reads */
    ari_stmt *st =
        ari_store_bound(s,
                        kind == KIND_TASKS
                            ? "SELECT chunk, counts, tasks FROM gantt_summaries WHERE trace_id = ?1"
                              " AND worker_id = ?2 AND level = ?3 AND chunk >= ?4 AND chunk <= ?5 ORDER BY chunk"
                            : "SELECT chunk, counts, states FROM gantt_summaries WHERE trace_id = ?1"
                              " AND worker_id = ?2 AND level = ?3 AND chunk >= ?4 AND chunk <= ?5 ORDER BY chunk",
                        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    while ((rc = ari_step(st)) == ARI_ROW) {
        w->chunks++;
        if (take_chunk(w, st, kind, b0, b1, err) < 0) {
            ari_reset(st);
            return -1;
        }
    }
    if (ari_store_rows_end(s, st, rc, "read gantt summaries", err) < 0)
        return -1;
    /* A row without every chunk (small, or a level skipped) is read raw. */
    return w->chunks == c1 - c0 + 1 && w->rows >= need_rows;
}

/* keymap[type_no] = meta's type id, or -1. */
static int type_map(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int **map, int *n,
                    ari_error *err)
{
    *map = NULL;
    *n = 0;
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT type_no, name FROM gantt_row_types WHERE trace_id = ?1", trace_id, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t no = ari_col_int64(st, 0);
        if (no < 0 || no >= MAX_VALUE_ID)
            continue;
        if (ari_vec_reserve((void **)map, &cap, (size_t)no + 1, sizeof **map) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        for (int64_t j = *n; j <= no; j++)
            (*map)[j] = -1;
        if (no >= *n)
            *n = (int)no + 1;
        (*map)[no] = ari_tq_type_id(meta, (const char *)ari_col_text(st, 1));
    }
    return ari_store_rows_end(s, st, rc, "read gantt row types", err);
}

int ari_gantt_summary_pixels(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                             double t0, double t1, int width, ari_gantt_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (!meta || meta->ntypes < 1)
        return 0;
    window_cells w;
    int rc = read_window(s, trace_id, worker_id, KIND_TASKS, t0, t1, width, ARI_GANTT_SUMMARY_PIXEL_K,
                         pixel_rows(), &w, err);
    int *map = NULL, nmap = 0;
    if (rc == 1 && type_map(s, trace_id, meta, &map, &nmap, err) < 0)
        rc = -1;
    if (rc == 1 &&
        ari_gs_pixels(&w.grid, w.cells, (int64_t)w.n, map, nmap, meta->ntypes, t0, t1, width, out, err) < 0)
        rc = -1;
    free(map);
    free(w.cells);
    return rc;
}

void ari_gantt_state_totals_free(ari_gantt_state_totals *t)
{
    for (int v = 0; t->names && v < t->nvalues; v++)
        free(t->names[v]);
    free(t->names);
    free(t->is_task);
    free(t->time);
    memset(t, 0, sizeof *t);
}

static int value_names(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int64_t *ids,
                       ari_gantt_state_totals *out, ari_error *err);

/* Dense values in order of first appearance in the cells: map[names.id]
 * = value, and out's arrays with the names. */
static int state_values(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const window_cells *w,
                        int **map, int *nmap, ari_gantt_state_totals *out, ari_error *err)
{
    int64_t maxkey = -1;
    for (size_t i = 0; i < w->n; i++)
        if (w->cells[i].key > maxkey)
            maxkey = w->cells[i].key;
    *nmap = (int)(maxkey + 1);
    *map = malloc(((size_t)*nmap + 1) * sizeof **map);
    int64_t *ids = malloc(((size_t)*nmap + 1) * sizeof *ids);
    if (!*map || !ids) {
        free(ids);
        return nomem(err);
    }
    for (int k = 0; k < *nmap; k++)
        (*map)[k] = -1;
    for (size_t i = 0; i < w->n; i++) {
        int32_t key = w->cells[i].key;
        if (key >= 0 && (*map)[key] < 0) {
            ids[out->nvalues] = key;
            (*map)[key] = out->nvalues++;
        }
    }
    int rc = value_names(s, trace_id, meta, ids, out, err);
    free(ids);
    return rc;
}

/* Fills out's arrays (nvalues set) with the names of names.id ids[v]. */
static int value_names(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int64_t *ids,
                       ari_gantt_state_totals *out, ari_error *err)
{
    out->names = calloc((size_t)out->nvalues + 1, sizeof *out->names);
    out->is_task = calloc((size_t)out->nvalues + 1, 1);
    out->time = calloc((size_t)out->nvalues + 1, sizeof *out->time);
    int rc = out->names && out->is_task && out->time ? 0 : nomem(err);
    for (int v = 0; rc == 0 && v < out->nvalues; v++) {
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(ids[v])};
        ari_stmt *st = ari_store_bound(s, "SELECT name FROM names WHERE trace_id = ?1 AND id = ?2", args,
                                       ARI_NARGS(args), err);
        rc = st ? ari_store_query_string(s, st, "", &out->names[v], "read state names", err) : -1;
        if (rc == 1)
            rc = (out->names[v] = strdup("")) ? 0 : nomem(err);
        if (rc == 0)
            out->is_task[v] = ari_tq_type_id(meta, out->names[v]) >= 0;
    }
    return rc;
}

int ari_gantt_summary_states_from(ari_store *s, int64_t trace_id, int64_t worker_id, double t0, double *lo,
                                  ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id)};
    ari_stmt *st =
        ari_store_bound(s, "SELECT max_state FROM gantt_summary_rows WHERE trace_id = ?1 AND worker_id = ?2",
                        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "read a gantt summary row", err);
    if (rc == 0) {
        double longest = ari_col_double(st, 0);
        *lo = t0 - longest - 1e-9 * (fabs(t0) + longest); /* rounding of end - start */
        ari_reset(st);
    }
    return rc;
}

/* The exact state times of a window no level fits, from the states that
 * start in [t0 - the row's longest state, t1): every state overlapping the
 * window, and its parent, starts there, so this is the raw path's answer
 * without its scan of every state started before t1. */
static int bounded_raw(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id, double t0,
                       double t1, ari_gantt_state_totals *out, ari_error *err)
{
    double lo;
    int rc = ari_gantt_summary_states_from(s, trace_id, worker_id, t0, &lo, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id), ari_arg_real(lo), ari_arg_real(t1),
                      ari_arg_real(t0)};
    ari_stmt *st = ari_store_bound(s,
                                   "SELECT value_id, start, end, depth FROM states WHERE trace_id = ?1"
                                   " AND container_id = ?2 AND start >= ?3 AND start < ?4 AND end > ?5"
                                   " ORDER BY start, depth, rowid",
                                   args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    row_states r = {0};
    while ((rc = ari_step(st)) == ARI_ROW) {
        int v = local_value(&r, ari_col_int64(st, 0));
        if (v == -1)
            continue;
        if (v < 0 || ari_vec_reserve((void **)&r.states, &r.cap, (size_t)r.n + 1, sizeof *r.states) < 0) {
            ari_reset(st);
            free_states(&r);
            return nomem(err);
        }
        r.states[r.n++] = (ari_gantt_state){.value = v,
                                            .depth = ari_col_int(st, 3),
                                            .start = ari_col_double(st, 1),
                                            .end = ari_col_double(st, 2)};
    }
    rc = ari_store_rows_end(s, st, rc, "read states of a window", err);
    out->nvalues = r.nvalues;
    if (rc == 0)
        rc = value_names(s, trace_id, meta, r.value_ids, out, err);
    if (rc == 0)
        rc = ari_gantt_state_times(r.states, r.n, t0, t1, r.nvalues, out->time, err);
    free_states(&r);
    return rc < 0 ? -1 : 1;
}

/* The state times of a window from its cells: 1, or -1 on error. */
static int window_totals(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const window_cells *w,
                         double t0, double t1, ari_gantt_state_totals *out, ari_error *err)
{
    int *map = NULL, nmap = 0;
    int rc = state_values(s, trace_id, meta, w, &map, &nmap, out, err);
    if (rc == 0) {
        ari_gs_window_times(&w->grid, w->cells, (int64_t)w->n, map, nmap, t0, t1, out->time);
        for (int v = 0; v < out->nvalues; v++)
            if (out->time[v] < 0)
                out->time[v] = 0; /* rounding */
    }
    free(map);
    return rc < 0 ? -1 : 1;
}

int ari_gantt_summary_state_cells(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                                  double t0, double t1, ari_gantt_state_totals *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    window_cells w;
    int rc =
        read_window(s, trace_id, worker_id, KIND_STATES, t0, t1, 1, ARI_GANTT_SUMMARY_STATE_K, 0, &w, err);
    if (rc == 1)
        rc = window_totals(s, trace_id, meta, &w, t0, t1, out, err);
    free(w.cells);
    if (rc != 1)
        ari_gantt_state_totals_free(out);
    return rc;
}

int ari_gantt_summary_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                             double t0, double t1, ari_gantt_state_totals *out, ari_error *err)
{
    int rc = ari_gantt_summary_state_cells(s, trace_id, meta, worker_id, t0, t1, out, err);
    if (rc == 0)
        rc = bounded_raw(s, trace_id, meta, worker_id, t0, t1, out, err);
    if (rc != 1)
        ari_gantt_state_totals_free(out);
    return rc;
}
