/* datamove_queries.c: the SQL behind the data movement endpoints (see
 * datamove_queries.h): it fills structs; the tallies and the matrix add
 * up through analysis/datamove_views.h as the rows stream by. Windows use the event index on start, bounded
 * below by start - max_dur (kept in the summary), and the tile pyramid to
 * decide whether a window needs grouping without counting its events.
 * Task traces (StarPU bundles) answer movements and the matrix from their
 * Paje links (sql/002_paje.sql): transfers between memory nodes, and MPI
 * communications that carry a size; see "links as movements" below.
 * Bytes of a window are whole: a movement counts the bytes it moved
 * between the window's edges at a uniform rate, rounded down at each edge
 * (ari_dm_bytes_in), the pair bins hold the same parts cut at the same
 * edges (ari_dm_bin_edge), so whole movements always count exactly. */
#include "store/datamove_queries.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/datamove.h"
#include "analysis/datamove_views.h"
#include "store/store_internal.h"
#include "util/free_all.h"
#include "util/vec.h"

typedef struct dm_run {
    double t0, t1, max_dur;
    int pair_bins;  /* ARI_DM_PAIR_BINS when dm_pair_bins holds the trace, else 0 */
    int links;      /* 1: a task trace, whose movements are its Paje links */
    char unit[8];   /* the trace's time unit: "us" for datamove traces */
    double unit_s;  /* seconds per time unit */
    double shift;   /* stored time of the answers' 0: t0 for datamove traces, 0 for task traces */
    double time_origin; /* the origin in the file's clock (answered as is) */
} dm_run;

/* Seconds per unit of a trace's time_unit; 0 if unknown. */
static double unit_seconds(const char *unit)
{
    static const struct { const char *name; double s; } units[] = {
        {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"usec", 1e-6}, {"ns", 1e-9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].s;
    return 0;
}

/* Widens a task trace's span to its links, which may start before the
 * first state or end after the last. */
static int link_span(ari_store *s, int64_t id, dm_run *r, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT min(start), max(max(start, end)) FROM links WHERE trace_id = ?1", id, err);
    int rc = st ? ari_store_step_row(s, st, "link span", err) : -1;
    if (rc != 0)
        return rc < 0 ? -1 : ari_store_fail(s, err, "link span");
    if (ari_col_type(st, 0) != ARI_NULL) {
        r->t0 = fmin(r->t0, ari_col_double(st, 0));
        r->t1 = fmax(r->t1, ari_col_double(st, 1));
    }
    ari_reset(st);
    return 0;
}

/* The run's span and kind: 0 for a datamove trace (or, when with_links,
 * a task trace), 1 if the trace is absent, 2 (err set, code not_datamove)
 * if it is of another kind, -1 on error. */
static int run_of(ari_store *s, int64_t id, int with_links, dm_run *r, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT coalesce(kind, ''), coalesce(time_unit, ''), "
                          /* CAST: PostgreSQL's json_extract is text (functions.sql) */
                          "coalesce(CAST(json_extract(summary_json, '$.start') AS REAL), 0),"
                          " coalesce(CAST(json_extract(summary_json, '$.end') AS REAL), 0), "
                          "coalesce(CAST(json_extract(summary_json, '$.max_dur') AS REAL), 0),"
                          " coalesce(CAST(json_extract(summary_json, '$.pair_bins') AS INTEGER), 0),"
                          " coalesce(CAST(json_extract(summary_json, '$.time_origin') AS REAL), 0)"
                          " FROM traces WHERE id = ?1",
                          id, err);
    int rc = st ? ari_store_step_row(s, st, "datamove trace", err) : -1;
    if (rc != 0)
        return rc;
    char kind[32];
    snprintf(kind, sizeof kind, "%s", (const char *)ari_col_text(st, 0));
    memset(r, 0, sizeof *r);
    snprintf(r->unit, sizeof r->unit, "%s", (const char *)ari_col_text(st, 1));
    r->t0 = ari_col_double(st, 2);
    r->t1 = ari_col_double(st, 3);
    r->max_dur = ari_col_double(st, 4);
    r->pair_bins = ari_col_int(st, 5) == ARI_DM_PAIR_BINS;
    double task_origin = ari_col_double(st, 6);
    ari_reset(st);
    r->links = strcmp(kind, "tasks") == 0;
    /* datamove rows keep absolute epoch µs: the run's first event is the
     * origin; task traces are stored relative to theirs already */
    r->shift = r->links ? 0 : r->t0;
    r->time_origin = r->links ? task_origin : r->t0;
    if (strcmp(kind, "datamove") == 0 || (with_links && r->links)) {
        if (!r->links)
            snprintf(r->unit, sizeof r->unit, "us");
        r->unit_s = unit_seconds(r->unit);
        if (r->unit_s == 0) /* task readers write ms; the default keeps bandwidth meaningful */
            r->unit_s = 1e-3;
        return r->links ? link_span(s, id, r, err) : 0;
    }
    ari_error_set(err, "not_datamove", "trace %lld is of kind '%s': this endpoint answers for data movement traces%s",
                  (long long)id, kind, with_links ? " and task traces" : " only");
    return 2;
}

static void window(const dm_run *r, double *w0, double *w1)
{
    if (isnan(*w0))
        *w0 = r->t0;
    if (isnan(*w1))
        *w1 = r->links ? nextafter(r->t1, INFINITY) : r->t1 + (r->t1 > r->t0 ? 0 : 1);
    if (*w1 <= *w0)
        *w1 = *w0 + 1e-9;
}

static const char *col_text(ari_stmt *st, int i)
{
    const char *t = (const char *)ari_col_text(st, i);
    return t ? t : "";
}

/* ---- links as movements ---------------------------------------------------------- */

/* A task trace's links become movements when both ends are memory nodes
 * (containers "[<rank>_]MEMNODE<k>" or their "[<rank>_]MEMMANAGER<k>",
 * keyed "node<rank>.MEMNODE<k>") or both are MPI communication threads
 * ("<rank>_mpict", keyed "node<rank>") and the link carries a size. Bytes:
 * the link's Size field, else its value when numeric (what StarPU writes),
 * else the size of its data handle (data.rec), else unknown (0). */
enum { END_NONE, END_MEMNODE, END_MPI };

/* Classifies a container name and writes its key. */
static int endpoint_key(const char *name, char *key, size_t cap)
{
    long rank = 0;
    char *end;
    if (*name >= '0' && *name <= '9') {
        errno = 0;
        rank = strtol(name, &end, 10);
        if (*end != '_' || errno || rank < 0 || rank > 99999)
            return END_NONE;
        name = end + 1;
    }
    if (strcmp(name, "mpict") == 0) {
        snprintf(key, cap, "node%d", (int)rank);
        return END_MPI;
    }
    const char *digits = strncmp(name, "MEMNODE", 7) == 0      ? name + 7
                         : strncmp(name, "MEMMANAGER", 10) == 0 ? name + 10
                                                                : NULL;
    if (!digits || *digits < '0' || *digits > '9')
        return END_NONE;
    errno = 0;
    long k = strtol(digits, &end, 10);
    if (*end || errno || k < 0 || k > 9999)
        return END_NONE;
    snprintf(key, cap, "node%d.MEMNODE%d", (int)rank, (int)k);
    return END_MEMNODE;
}

/* A finite, non-negative number filling the whole text; -1 otherwise. */
static double size_of(const char *text)
{
    char *end;
    if (!text || !*text)
        return -1;
    errno = 0;
    double v = strtod(text, &end);
    return errno || *end || !isfinite(v) || v < 0 ? -1 : v;
}

/* ---- movement cursor --------------------------------------------------------------- */

/* One movement; the text fields point into the statement's current row. */
typedef struct dm_move {
    int64_t event;
    char src[24], dst[24];
    const char *kind, *handle, *handle_name, *link_key; /* last three: task traces only, may be NULL */
    double bytes, start, dur, bandwidth, trace_bandwidth; /* NaN bandwidths: none */
} dm_move;

typedef struct dm_cursor {
    ari_stmt *st;
    const dm_run *r;
    dm_move m;
} dm_cursor;

#define MOVES_IN_WINDOW \
    " FROM dm_movements WHERE trace_id = ?1 AND start < ?3 AND start >= ?2 - ?4 AND (start + dur > ?2 OR (dur = 0 AND start >= ?2))"

/* The links overlapping [?2, ?3): with a duration, or as a point in it. */
#define LINKS_IN_WINDOW                                                                                         \
    "SELECT l.rowid, cs.name, ce.name, coalesce(t.name, t.alias, ''),"                                         \
    " CASE WHEN json_valid(l.fields) THEN json_extract(l.fields, '$.Size') END, n.name,"                      \
    " (SELECT d.size FROM data_handles d WHERE d.trace_id = l.trace_id"                                        \
    "  AND d.handle = CASE WHEN json_valid(l.fields) THEN json_extract(l.fields, '$.Handle') END LIMIT 1),"    \
    " l.start, l.end - l.start, l.key, CASE WHEN json_valid(l.fields) THEN json_extract(l.fields, '$.Handle') END," \
    " CASE WHEN json_valid(l.fields) THEN json_extract(l.fields, '$.HName') END"                               \
    " FROM links l JOIN containers cs ON cs.trace_id = l.trace_id AND cs.id = l.start_container_id"           \
    " JOIN containers ce ON ce.trace_id = l.trace_id AND ce.id = l.end_container_id"                          \
    " LEFT JOIN entity_types t ON t.trace_id = l.trace_id AND t.id = l.type_id"                                \
    " LEFT JOIN names n ON n.trace_id = l.trace_id AND n.id = l.value_id"                                      \
    " WHERE l.trace_id = ?1 AND l.start < ?3 AND (l.end > ?2 OR (l.end <= l.start AND l.start >= ?2))"        \
    " ORDER BY l.start, l.rowid"

static int cursor_open(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, dm_cursor *c,
                       ari_error *err)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    ari_arg args[] = {ari_arg_int(id), ari_arg_real(w0), ari_arg_real(w1), ari_arg_real(r->max_dur)};
    c->st = r->links ? ari_store_bound(s, LINKS_IN_WINDOW, args, 3, err)
                     : ari_store_bound(s,
                                       "SELECT event_id, src, dst, kind, bytes, start, dur, bandwidth, "
                                       "trace_bandwidth" MOVES_IN_WINDOW " ORDER BY start, event_id",
                                       args, 4, err);
    return c->st ? 0 : -1;
}

static double column_or_nan(ari_stmt *st, int i)
{
    return ari_col_type(st, i) == ARI_NULL ? NAN : ari_col_double(st, i);
}

static void read_movement(dm_cursor *c)
{
    ari_stmt *st = c->st;
    dm_move *m = &c->m;
    m->event = ari_col_int64(st, 0);
    snprintf(m->src, sizeof m->src, "%s", col_text(st, 1));
    snprintf(m->dst, sizeof m->dst, "%s", col_text(st, 2));
    m->kind = col_text(st, 3);
    m->bytes = ari_col_double(st, 4);
    m->start = ari_col_double(st, 5);
    m->dur = ari_col_double(st, 6);
    m->bandwidth = column_or_nan(st, 7);
    m->trace_bandwidth = column_or_nan(st, 8);
    m->handle = m->handle_name = m->link_key = NULL;
}

/* The current link as a movement: 1 if it is one, else 0. */
static int read_link(dm_cursor *c)
{
    ari_stmt *st = c->st;
    dm_move *m = &c->m;
    int a = endpoint_key(col_text(st, 1), m->src, sizeof m->src);
    int b = endpoint_key(col_text(st, 2), m->dst, sizeof m->dst);
    double bytes = size_of((const char *)ari_col_text(st, 4));
    if (bytes < 0)
        bytes = size_of((const char *)ari_col_text(st, 5));
    if (bytes < 0 && ari_col_type(st, 6) != ARI_NULL)
        bytes = ari_col_double(st, 6);
    if (a == END_NONE || a != b || (a == END_MPI && !(bytes >= 0)))
        return 0;
    m->event = ari_col_int64(st, 0);
    m->kind = col_text(st, 3);
    m->bytes = bytes >= 0 ? bytes : 0;
    m->start = ari_col_double(st, 7);
    m->dur = ari_col_double(st, 8);
    m->link_key = (const char *)ari_col_text(st, 9);
    m->handle = (const char *)ari_col_text(st, 10);
    m->handle_name = (const char *)ari_col_text(st, 11);
    m->bandwidth = m->bytes > 0 && m->dur > 0 ? m->bytes / (m->dur * c->r->unit_s) / 1e9 : NAN;
    m->trace_bandwidth = NAN;
    return 1;
}

/* Steps to the next movement: 1 with c->m set, 0 at the end (statement
 * reset), -1 on error. */
static int cursor_next(ari_store *s, dm_cursor *c, ari_error *err)
{
    int rc;
    while ((rc = ari_step(c->st)) == ARI_ROW) {
        if (!c->r->links) {
            read_movement(c);
            return 1;
        }
        if (read_link(c))
            return 1;
    }
    return ari_store_rows_end(s, c->st, rc, "movements", err);
}


/* ---- movements ------------------------------------------------------------------- */

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static char *dup_or_null(const char *t)
{
    return t ? strdup(t) : NULL;
}

static char *dup_col(ari_stmt *st, int i)
{
    return strdup(col_text(st, i));
}

static int64_t int_or_null(ari_stmt *st, int i)
{
    return ari_col_type(st, i) == ARI_NULL ? ARI_DM_NULL : ari_col_int64(st, i);
}

/* A datamove window must meet the run: a window past its end (such as an
 * absolute epoch time from before windows were relative) or before its
 * start is an error that says the run's extent. w0, w1: relative. */
static int window_meets_run(const dm_run *r, double w0, double w1, ari_error *err)
{
    if (r->links)
        return 0;
    double len = r->t1 - r->t0;
    if (!isnan(w0) && w0 >= len && len > 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "start is after the end of the run (start=%.17g µs; the run lasts %.17g µs: start and "
                             "end are µs from the run's start, between 0 and %.17g; for a time of the file, subtract "
                             "the run's start, %.17g µs)",
                             w0, len, len, r->t0);
    if (!isnan(w1) && w1 <= 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "end is before the start of the run (end=%.17g µs: start and end are µs from the run's "
                             "start, between 0 and %.17g)",
                             w1, len);
    return 0;
}

/* run_of, then the window [*w0, *w1) (given relative to the origin, NaN
 * edges: the run's; turned into stored times), also copied to *start and
 * *end, with the origin in *shift and *time_origin. */
static int run_window(ari_store *s, int64_t id, int with_links, dm_run *r, double *w0, double *w1,
                      double *start, double *end, double *shift, double *time_origin, ari_error *err)
{
    int found = run_of(s, id, with_links, r, err);
    if (found)
        return found;
    if (window_meets_run(r, *w0, *w1, err) < 0)
        return -1;
    /* NaN stays NaN; r->shift is 0 for task traces, so their windows are
     * untouched. For a datamove trace both terms are doubles of about the
     * same size, so a window computed as (absolute - start) comes back as
     * the same absolute value exactly. */
    *w0 += r->shift;
    *w1 += r->shift;
    *shift = r->shift;
    *time_origin = r->time_origin;
    window(r, w0, w1);
    *start = *w0;
    *end = *w1;
    return 0;
}

/* Copies the cursor's movement, whose texts point into the row. */
static int movement_copy(const dm_move *m, ari_dm_movement *out)
{
    memset(out, 0, sizeof *out);
    out->event = m->event;
    memcpy(out->src, m->src, sizeof out->src);
    memcpy(out->dst, m->dst, sizeof out->dst);
    out->kind = strdup(m->kind);
    out->handle = dup_or_null(m->handle);
    out->handle_name = dup_or_null(m->handle_name);
    out->key = dup_or_null(m->link_key);
    out->bytes = m->bytes;
    out->start = m->start;
    out->dur = m->dur;
    out->bandwidth = m->bandwidth;
    out->trace_bandwidth = m->trace_bandwidth;
    if (!out->kind || (m->handle && !out->handle) || (m->handle_name && !out->handle_name) ||
        (m->link_key && !out->key))
        return -1;
    return 0;
}

int ari_dm_movements_load(ari_store *s, int64_t id, double w0, double w1, int64_t limit, ari_dm_movements *out,
                          ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_window(s, id, 1, &r, &w0, &w1, &out->start, &out->end, &out->shift, &out->time_origin, err);
    if (found)
        return found;
    memcpy(out->time_unit, r.unit, sizeof out->time_unit);
    out->links = r.links;
    dm_cursor c;
    if (cursor_open(s, id, &r, w0, w1, &c, err) < 0)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = cursor_next(s, &c, err)) == 1) {
        ari_dm_tally_add(&out->tally, c.m.bytes, c.m.start, c.m.dur, w0, w1);
        if (out->tally.total > limit)
            continue;
        if (ari_vec_reserve((void **)&out->items, &cap, out->n + 1, sizeof *out->items) < 0 ||
            movement_copy(&c.m, &out->items[out->n++]) < 0) {
            ari_reset(c.st);
            rc = nomem(err);
            break;
        }
    }
    if (rc < 0) {
        ari_dm_movements_free(out);
        return -1;
    }
    return 0;
}

void ari_dm_movements_free(ari_dm_movements *m)
{
    for (size_t i = 0; i < m->n; i++) {
        void *owned[] = {m->items[i].kind, m->items[i].handle, m->items[i].handle_name, m->items[i].key};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(m->items);
    memset(m, 0, sizeof *m);
}

/* ---- matrix --------------------------------------------------------------------- */


/* Adds the movements overlapping [w0, w1), each with its share in it. */
static int matrix_raw(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_dm_matrix *m,
                      ari_error *err)
{
    if (!(w1 > w0))
        return 0;
    dm_cursor c;
    if (cursor_open(s, id, r, w0, w1, &c, err) < 0)
        return -1;
    int rc;
    while ((rc = cursor_next(s, &c, err)) == 1)
        ari_dm_matrix_add_movement(m, c.m.src, c.m.dst, c.m.bytes, c.m.start, c.m.dur, w0, w1);
    return rc;
}

/* The pair bins b0..b1, which lie whole inside the window. */
static int matrix_bins(ari_store *s, int64_t id, long b0, long b1, ari_dm_matrix *m, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(b0), ari_arg_int(b1)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT src, dst, sum(bytes), sum(busy) FROM dm_pair_bins WHERE "
                                       "trace_id = ?1 AND bin BETWEEN ?2 AND ?3"
                                       " GROUP BY src, dst",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        ari_dm_matrix_add(m, col_text(st, 0), col_text(st, 1), ari_col_double(st, 2),
                          ari_col_double(st, 3));
    return ari_store_rows_end(s, st, rc, "matrix bins", err);
}

/* Edge b of the pair bins: where bin b starts (edge ARI_DM_PAIR_BINS: t1). */
static double bin_edge(const dm_run *r, long b)
{
    return ari_dm_bin_edge(r->t0, r->t1, b, ARI_DM_PAIR_BINS);
}

/* The pair bins lying whole inside [w0, w1): 1 and b0..b1, or 0 if none
 * (or the trace has no pair bins). Bin b covers [edge(b), edge(b + 1));
 * every movement lies in [t0, t1], so the bytes the writer gave the first
 * and last bins (which reach out to infinity) are those of [t0, edge(1))
 * and [edge(n - 1), t1). */
static int whole_bins(const dm_run *r, double w0, double w1, long *b0, long *b1)
{
    if (!r->pair_bins || !(r->t1 > r->t0))
        return 0;
    long n = ARI_DM_PAIR_BINS;
    long first = ari_dm_bin_of(r->t0, r->t1, n, w0);
    if (bin_edge(r, first) < w0)
        first++;
    long last = w1 >= r->t1 ? n - 1 : ari_dm_bin_of(r->t0, r->t1, n, w1) - 1;
    if (first > last)
        return 0;
    *b0 = first;
    *b1 = last;
    return 1;
}

/* Adds the matrix components named by the first column of sql's rows
 * (?1: the trace): as they are, or as the endpoint keys of container names
 * (non-endpoints skipped). */
static int matrix_keys(ari_store *s, const char *sql, int64_t id, int as_endpoint, ari_dm_matrix *m,
                       const char *what, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, sql, id, err);
    if (!st)
        return -1;
    int rc;
    char key[24];
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (!as_endpoint)
            ari_dm_matrix_key(m, col_text(st, 0));
        else if (endpoint_key(col_text(st, 0), key, sizeof key) != END_NONE)
            ari_dm_matrix_key(m, key);
    }
    return ari_store_rows_end(s, st, rc, what, err);
}

/* Components: the topology's keyed ones (host first), or a task trace's
 * memory nodes, then the nodes of its MPI communication threads (in
 * container order), then any other endpoint the movements name. */
static int matrix_fill(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_dm_matrix *m,
                       ari_error *err)
{
    memset(m, 0, sizeof *m);
    if (r->links)
        return matrix_keys(
                   s,
                   "SELECT name FROM containers WHERE trace_id = ?1 AND (name GLOB '*MEMNODE[0-9]*' OR"
                   " name GLOB '*_mpict') ORDER BY name GLOB '*_mpict', id",
                   id, 1, m, "matrix memory nodes", err) < 0
                   ? -1
                   : matrix_raw(s, id, r, w0, w1, m, err);
    ari_dm_matrix_key(m, "host");
    if (matrix_keys(
            s,
            "SELECT key FROM dm_components WHERE trace_id = ?1 AND key <> '' ORDER BY key = 'host' DESC,"
            " length(key), key",
            id, 0, m, "matrix components", err) < 0)
        return -1;
    long b0, b1;
    if (!whole_bins(r, w0, w1, &b0, &b1))
        return matrix_raw(s, id, r, w0, w1, m, err);
    if (matrix_raw(s, id, r, w0, bin_edge(r, b0), m, err) < 0 ||
        matrix_raw(s, id, r, bin_edge(r, b1 + 1), w1, m, err) < 0)
        return -1;
    return matrix_bins(s, id, b0, b1, m, err);
}


int ari_dm_matrix_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_window_matrix *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_window(s, id, 1, &r, &w0, &w1, &out->start, &out->end, &out->shift, &out->time_origin, err);
    if (found)
        return found;
    memcpy(out->time_unit, r.unit, sizeof out->time_unit);
    out->unit_s = r.unit_s;
    if (!(out->m = malloc(sizeof *out->m)))
        return nomem(err);
    if (matrix_fill(s, id, &r, w0, w1, out->m, err) < 0) {
        ari_dm_window_matrix_free(out);
        return -1;
    }
    return 0;
}

void ari_dm_window_matrix_free(ari_dm_window_matrix *m)
{
    free(m->m);
    memset(m, 0, sizeof *m);
}

/* ---- clock ------------------------------------------------------------------------- */

int ari_dm_clock_load(ari_store *s, int64_t id, int nsectors, double sector_width, ari_dm_clock *out,
                      ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_of(s, id, 0, &r, err);
    if (found)
        return found;
    double width = sector_width > 0 ? sector_width : ari_dm_sector_width(r.t1 - r.t0, nsectors);
    double *sec = calloc((size_t)nsectors * ARI_DM_NCAT, sizeof *sec);
    if (!sec)
        return nomem(err);
    /* the key's order: the sectors' sums come out the same on both backends */
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT category, start, dur FROM dm_events WHERE trace_id = ?1 ORDER BY event_id", id, err);
    int rc = ARI_DONE;
    if (st) {
        while ((rc = ari_step(st)) == ARI_ROW)
            ari_dm_clock_add(sec, nsectors, 0, width, ari_col_int(st, 0), ari_col_double(st, 1) - r.t0,
                             ari_col_double(st, 2)); /* from the run's origin */
    }
    if (!st || ari_store_rows_end(s, st, rc, "clock", err) < 0) {
        free(sec);
        return -1;
    }
    out->start = r.t0;
    out->end = r.t1;
    out->shift = r.shift;
    out->time_origin = r.time_origin;
    out->sector_width = width;
    out->nsectors = nsectors;
    out->sectors = sec;
    return 0;
}

void ari_dm_clock_free(ari_dm_clock *c)
{
    free(c->sectors);
    memset(c, 0, sizeof *c);
}

/* ---- topology -------------------------------------------------------------------------- */

#define UTIL_TRACKS 64 /* the tiles keep tracks apart up to this many */

/* Adds the rows (track, busy µs) of a bound statement to busy[track]
 * for the tracks below ntracks. */
static int add_busy(ari_store *s, ari_stmt *st, double *busy, int ntracks, const char *what,
                    ari_error *err)
{
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int t = ari_col_int(st, 0);
        if (t >= 0 && t < ntracks)
            busy[t] += ari_col_double(st, 1);
    }
    return ari_store_rows_end(s, st, rc, what, err);
}

/* Busy µs per track of the non-point events overlapping [w0, w1). */
static int busy_raw(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, double *busy,
                    int ntracks, ari_error *err)
{
    if (!(w1 > w0))
        return 0;
    ari_arg args[] = {ari_arg_int(id), ari_arg_real(w0), ari_arg_real(w1), ari_arg_real(r->max_dur)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT track_id, sum(max(0, min(start + dur, ?3) - max(start, ?2))) FROM dm_events"
        " WHERE trace_id = ?1 AND start < ?3 AND start >= ?2 - ?4 AND start + dur > ?2 AND point = 0"
        " GROUP BY track_id",
        args, ARI_NARGS(args), err);
    return add_busy(s, st, busy, ntracks, "utilization", err);
}

/* Busy µs per track in the finest tiles b0..b1 (the pair bins' grid). */
static int busy_tiles(ari_store *s, int64_t id, long b0, long b1, double *busy, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(ARI_DM_TILE_LEVELS - 1), ari_arg_int(b0), ari_arg_int(b1)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT track_id, sum(busy) FROM dm_tiles WHERE trace_id = ?1 AND "
                                       "level = ?2 AND bin BETWEEN ?3 AND ?4"
                                       " GROUP BY track_id",
                                       args, ARI_NARGS(args), err);
    return add_busy(s, st, busy, UTIL_TRACKS, "utilization tiles", err);
}

/* The busy time of every track in [w0, w1) and its component ("gpu<N>"
 * or "host"), from which analysis/datamove_views.c makes the busy fraction
 * of each GPU (its tracks' GPU work and copies) and of the host (host
 * tracks' CPU work and runtime calls, per busy host track). Whole tile
 * bins come from the tiles, the window's edges from events. */
static int track_busy(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_dm_topology *t,
                      ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT track_id, coalesce('gpu' || device, 'host'), (SELECT "
                                         "count(*) FROM dm_tracks WHERE trace_id = ?1)"
                                         " FROM dm_tracks WHERE trace_id = ?1 ORDER BY track_id",
                                         id, err);
    int ntracks = 0, rc = st ? ari_store_step_row(s, st, "tracks", err) : -1;
    if (rc < 0)
        return -1;
    if (rc == 0)
        ntracks = ari_col_int(st, 2);
    ari_reset(st);
    t->track_comp = calloc((size_t)ntracks + 1, sizeof *t->track_comp);
    t->track_busy = calloc((size_t)ntracks + 1, sizeof *t->track_busy);
    if (!t->track_comp || !t->track_busy)
        return nomem(err);
    t->ntracks = ntracks;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = ari_col_int(st, 0);
        if (k >= 0 && k < ntracks)
            snprintf(t->track_comp[k], sizeof t->track_comp[k], "%s", col_text(st, 1));
    }
    long b0, b1;
    if (ari_store_rows_end(s, st, rc, "tracks", err) < 0)
        return -1;
    if (ntracks > UTIL_TRACKS || !whole_bins(r, w0, w1, &b0, &b1))
        return busy_raw(s, id, r, w0, w1, t->track_busy, ntracks, err);
    rc = busy_raw(s, id, r, w0, bin_edge(r, b0), t->track_busy, ntracks, err);
    if (rc == 0)
        rc = busy_raw(s, id, r, bin_edge(r, b1 + 1), w1, t->track_busy, ntracks, err);
    if (rc == 0)
        rc = busy_tiles(s, id, b0, b1, t->track_busy, err);
    return rc;
}

static int component_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_dm_component_row *c = item;
    c->id = ari_col_int64(st, 0);
    c->parent = int_or_null(st, 1);
    c->kind = dup_col(st, 2);
    c->name = dup_col(st, 3);
    c->os_index = int_or_null(st, 4);
    c->logical_index = int_or_null(st, 5);
    c->key = dup_col(st, 6);
    c->attrs_json = dup_col(st, 7);
    return c->kind && c->name && c->key && c->attrs_json ? 0 : -1;
}

static int topology_components(ari_store *s, int64_t id, ari_dm_topology *t, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT comp_id, parent_id, kind, name, os_index, logical_index, key, attrs_json FROM dm_components"
        " WHERE trace_id = ?1 ORDER BY comp_id",
        id, err);
    return st ? ari_store_read_rows(s, st, (void **)&t->comps, &t->ncomps, sizeof *t->comps, component_read,
                                    NULL, "topology", err)
              : -1;
}

int ari_dm_topology_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_topology *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_window(s, id, 0, &r, &w0, &w1, &out->start, &out->end, &out->shift, &out->time_origin, err);
    if (found)
        return found;
    if (!(out->m = malloc(sizeof *out->m)))
        return nomem(err);
    if (matrix_fill(s, id, &r, w0, w1, out->m, err) < 0 || track_busy(s, id, &r, w0, w1, out, err) < 0 ||
        topology_components(s, id, out, err) < 0) {
        ari_dm_topology_free(out);
        return -1;
    }
    return 0;
}

void ari_dm_topology_free(ari_dm_topology *t)
{
    for (size_t i = 0; i < t->ncomps; i++) {
        void *owned[] = {t->comps[i].kind, t->comps[i].name, t->comps[i].key, t->comps[i].attrs_json};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    void *owned[] = {t->comps, t->m, t->track_comp, t->track_busy};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(t, 0, sizeof *t);
}

/* ---- timeline ------------------------------------------------------------------------------- */

static int track_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_dm_track_row *k = item;
    k->id = ari_col_int64(st, 0);
    k->pid = dup_col(st, 1);
    k->tid = dup_col(st, 2);
    k->label = dup_col(st, 3);
    k->device = ari_col_type(st, 4) == ARI_NULL ? ARI_DM_NULL : ari_col_int(st, 4);
    return k->pid && k->tid && k->label ? 0 : -1;
}

static int timeline_tracks(ari_store *s, int64_t id, ari_dm_timeline *t, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT track_id, pid, tid, label, device FROM dm_tracks WHERE "
                                         "trace_id = ?1 ORDER BY device IS NOT NULL,"
                                         " device, track_id",
                                         id, err);
    return st ? ari_store_read_rows(s, st, (void **)&t->tracks, &t->ntracks, sizeof *t->tracks, track_read,
                                    NULL, "tracks", err)
              : -1;
}

/* The parameters of a tile query: the trace, the level, the first and
 * last bin (of that width) under [w0, w1]. */
static void tile_args(int64_t id, const dm_run *r, int level, double width, double w0, double w1,
                      ari_arg *args)
{
    args[0] = ari_arg_int(id);
    args[1] = ari_arg_int(level);
    args[2] = ari_arg_int((int64_t)floor((w0 - r->t0) / width));
    args[3] = ari_arg_int((int64_t)floor((w1 - r->t0) / width));
}

/* Events starting in the window's bins of the finest level: an upper
 * bound of the events starting in the window, without touching them. */
static int64_t window_count(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_error *err)
{
    int level = ARI_DM_TILE_LEVELS - 1;
    double width = (r->t1 - r->t0) / (double)(1 << level);
    if (width <= 0)
        width = 1;
    ari_arg args[4];
    tile_args(id, r, level, width, w0, w1, args);
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT coalesce(sum(count), 0) FROM dm_tiles WHERE trace_id = ?1 AND "
                                       "level = ?2 AND bin BETWEEN ?3 AND ?4",
                                       args, 4, err);
    int64_t n = -1;
    int rc = st ? ari_store_query_int64(s, st, &n, "window count", err) : -1;
    return rc == 0 ? n : rc < 0 ? -1 : ari_store_fail(s, err, "window count");
}

static int event_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_dm_event_row *e = item;
    e->id = ari_col_int64(st, 0);
    e->track = ari_col_int64(st, 1);
    e->category = ari_col_int(st, 2);
    e->name = dup_col(st, 3);
    e->cat = dup_col(st, 4);
    e->start = ari_col_double(st, 5);
    e->dur = ari_col_double(st, 6);
    e->point = ari_col_int(st, 7) != 0;
    e->correlation = int_or_null(st, 8);
    return e->name && e->cat ? 0 : -1;
}

/* At most limit + 1 events of the window, by start. */
static int window_events(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, int64_t limit,
                         ari_dm_timeline *t, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_real(w0), ari_arg_real(w1), ari_arg_real(r->max_dur),
                      ari_arg_int(limit + 1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT event_id, track_id, category, name, cat, start, dur, point, correlation FROM dm_events"
        " WHERE trace_id = ?1 AND start < ?3 AND start >= ?2 - ?4 AND (start + dur > ?2 OR start >= ?2)"
        " ORDER BY start, event_id LIMIT ?5", /* dm_events_by_start's order, on both backends */
        args, ARI_NARGS(args), err);
    return st ? ari_store_read_rows(s, st, (void **)&t->events, &t->nevents, sizeof *t->events, event_read,
                                    NULL, "timeline events", err)
              : -1;
}

/* The tile pyramid a group row is read against: its span and level. */
typedef struct group_grid {
    double t0, t1;
    int level;
} group_grid;

static int group_read(ari_stmt *st, void *item, const void *ctx)
{
    const group_grid *grid = ctx;
    ari_dm_group_row *g = item;
    long bin = (long)ari_col_int64(st, 0), nbins = 1L << grid->level;
    g->track = ari_col_int64(st, 1);
    g->category = ari_col_int(st, 2);
    g->start = ari_dm_bin_edge(grid->t0, grid->t1, bin, nbins);
    g->end = ari_dm_bin_edge(grid->t0, grid->t1, bin + 1, nbins);
    g->count = ari_col_int64(st, 3);
    g->busy = ari_col_double(st, 4);
    g->bytes = ari_col_double(st, 5);
    return 0;
}

static int window_groups(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_dm_timeline *t,
                         ari_error *err)
{
    int level = ari_dm_pick_level(r->t0, r->t1, w0, w1, 200);
    /* the pyramid's span (ari_dm_tiles_init) */
    group_grid grid = {r->t0, r->t1 > r->t0 ? r->t1 : r->t0 + 1, level};
    ari_arg args[4];
    tile_args(id, r, level, (r->t1 - r->t0) / (double)(1 << level), w0, w1, args);
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT bin, track_id, category, count, busy, bytes FROM dm_tiles WHERE trace_id = ?1 AND level = ?2"
        " AND bin BETWEEN ?3 AND ?4 ORDER BY track_id, category, bin",
        args, 4, err);
    return st ? ari_store_read_rows(s, st, (void **)&t->groups, &t->ngroups, sizeof *t->groups, group_read,
                                    &grid, "timeline groups", err)
              : -1;
}

static void events_free(ari_dm_timeline *t)
{
    for (size_t i = 0; i < t->nevents; i++) {
        void *owned[] = {t->events[i].name, t->events[i].cat};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(t->events);
    t->events = NULL;
    t->nevents = 0;
}

/* The events when there are at most limit (the tiles' estimate may rule
 * that out without reading them), else the groups. */
static int timeline_window(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, int64_t limit,
                           ari_dm_timeline *t, ari_error *err)
{
    if (t->estimated_events <= limit * 4) {
        if (window_events(s, id, r, w0, w1, limit, t, err) < 0)
            return -1;
        if (t->nevents <= (size_t)limit)
            return 0;
        events_free(t); /* too many after all */
    }
    t->grouped = 1;
    return window_groups(s, id, r, w0, w1, t, err);
}

int ari_dm_timeline_load(ari_store *s, int64_t id, double w0, double w1, int64_t limit, ari_dm_timeline *out,
                         ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_window(s, id, 0, &r, &w0, &w1, &out->start, &out->end, &out->shift, &out->time_origin, err);
    if (found)
        return found;
    out->run_start = r.t0;
    out->run_end = r.t1;
    if (timeline_tracks(s, id, out, err) < 0 || (out->estimated_events = window_count(s, id, &r, w0, w1, err)) < 0 ||
        timeline_window(s, id, &r, w0, w1, limit, out, err) < 0) {
        ari_dm_timeline_free(out);
        return -1;
    }
    return 0;
}

void ari_dm_timeline_free(ari_dm_timeline *t)
{
    for (size_t i = 0; i < t->ntracks; i++) {
        void *owned[] = {t->tracks[i].pid, t->tracks[i].tid, t->tracks[i].label};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(t->tracks);
    events_free(t);
    free(t->groups);
    memset(t, 0, sizeof *t);
}

/* ---- metrics ----------------------------------------------------------------------------------- */

static int series_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_dm_series *x = item;
    x->id = ari_col_int64(st, 0);
    x->metric = dup_col(st, 1);
    x->component = dup_col(st, 2);
    x->source = dup_col(st, 3);
    x->n = ari_col_int64(st, 4);
    return x->metric && x->component && x->source ? 0 : -1;
}

/* The series of the window with their sample counts, in metric order.
 * The counts are one grouped read, not a subquery per metric (a round
 * trip each on a shard), and it names the trace by the parameter: on
 * PostgreSQL only a parameter prunes dm_samples' partitions before the
 * statement starts (a correlated value opens every trace's, and so
 * every shard's: a shard that is down failed the traces of the others). */
static int metric_list(ari_store *s, int64_t id, double w0, double w1, ari_dm_metric_series *m, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_real(w0), ari_arg_real(w1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT m.metric_id, name, component, source, coalesce(p.n, 0) FROM dm_metrics m"
        " LEFT JOIN (SELECT metric_id, count(*) AS n FROM dm_samples WHERE trace_id = ?1 AND ts >= ?2 AND ts < ?3"
        "            GROUP BY metric_id) p ON p.metric_id = m.metric_id"
        " WHERE m.trace_id = ?1 ORDER BY m.metric_id",
        args, ARI_NARGS(args), err);
    return st ? ari_store_read_rows(s, st, (void **)&m->series, &m->n, sizeof *m->series, series_read, NULL,
                                    "metrics", err)
              : -1;
}

/* At most x->n samples of one series in the window, by time. */
static int series_samples(ari_store *s, int64_t id, double w0, double w1, ari_dm_series *x, ari_error *err)
{
    size_t cap = x->n > 0 ? (size_t)x->n : 1;
    x->ts = malloc(cap * sizeof *x->ts);
    x->values = malloc(cap * sizeof *x->values);
    if (!x->ts || !x->values)
        return nomem(err);
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(x->id), ari_arg_real(w0), ari_arg_real(w1)};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT ts, value FROM dm_samples WHERE trace_id = ?1 AND metric_id = "
                                       "?2 AND ts >= ?3 AND ts < ?4 ORDER BY ts",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    while ((int64_t)x->nsamples < x->n && ari_step(st) == ARI_ROW) {
        x->ts[x->nsamples] = ari_col_double(st, 0);
        x->values[x->nsamples++] = ari_col_double(st, 1);
    }
    ari_reset(st);
    return 0;
}

int ari_dm_metrics_load(ari_store *s, int64_t id, double w0, double w1, ari_dm_metric_series *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    dm_run r;
    int found = run_window(s, id, 0, &r, &w0, &w1, &out->start, &out->end, &out->shift, &out->time_origin, err);
    if (found)
        return found;
    int rc = metric_list(s, id, w0, w1, out, err);
    for (size_t i = 0; rc == 0 && i < out->n; i++)
        rc = series_samples(s, id, w0, w1, &out->series[i], err);
    if (rc < 0) {
        ari_dm_metric_series_free(out);
        return -1;
    }
    return 0;
}

void ari_dm_metric_series_free(ari_dm_metric_series *m)
{
    for (size_t i = 0; i < m->n; i++) {
        const ari_dm_series *x = &m->series[i];
        void *owned[] = {x->metric, x->component, x->source, x->ts, x->values};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(m->series);
    memset(m, 0, sizeof *m);
}
