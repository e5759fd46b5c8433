/* datamove_queries.c: the SQL behind the data movement endpoints (see
 * datamove_queries.h). Windows use the event index on start, bounded
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
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/datamove.h"
#include "store/store_internal.h"

typedef struct dm_run {
    double t0, t1, max_dur;
    int pair_bins;  /* ARI_DM_PAIR_BINS when dm_pair_bins holds the trace, else 0 */
    int links;      /* 1: a task trace, whose movements are its Paje links */
    char unit[8];   /* the trace's time unit: "us" for datamove traces */
    double unit_s;  /* seconds per time unit */
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
    sqlite3_stmt *st = ari_store_stmt(s, "SELECT min(start), max(max(start, end)) FROM links WHERE trace_id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        r->t0 = fmin(r->t0, sqlite3_column_double(st, 0));
        r->t1 = fmax(r->t1, sqlite3_column_double(st, 1));
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : ari_store_fail(s, err, "link span");
}

/* The run's span and kind: 0 for a datamove trace (or, when with_links,
 * a task trace), 1 if the trace is absent, 2 (err set, code not_datamove)
 * if it is of another kind, -1 on error. */
static int run_of(ari_store *s, int64_t id, int with_links, dm_run *r, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT coalesce(kind, ''), coalesce(time_unit, ''), coalesce(json_extract(summary_json, '$.start'), 0),"
        " coalesce(json_extract(summary_json, '$.end'), 0), coalesce(json_extract(summary_json, '$.max_dur'), 0),"
        " coalesce(json_extract(summary_json, '$.pair_bins'), 0) FROM traces WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return rc == SQLITE_DONE ? 1 : ari_store_fail(s, err, "datamove trace");
    }
    char kind[32];
    snprintf(kind, sizeof kind, "%s", (const char *)sqlite3_column_text(st, 0));
    memset(r, 0, sizeof *r);
    snprintf(r->unit, sizeof r->unit, "%s", (const char *)sqlite3_column_text(st, 1));
    r->t0 = sqlite3_column_double(st, 2);
    r->t1 = sqlite3_column_double(st, 3);
    r->max_dur = sqlite3_column_double(st, 4);
    r->pair_bins = sqlite3_column_int(st, 5) == ARI_DM_PAIR_BINS;
    sqlite3_reset(st);
    r->links = strcmp(kind, "tasks") == 0;
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

static int finish_json(json_t *doc, char **out, ari_error *err)
{
    *out = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    return *out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static int step_error(ari_store *s, sqlite3_stmt *st, int rc, ari_error *err, const char *what)
{
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : ari_store_fail(s, err, what);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
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
    sqlite3_stmt *st;
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
    c->st = r->links ? ari_store_stmt(s, LINKS_IN_WINDOW, err)
                     : ari_store_stmt(s,
                           "SELECT event_id, src, dst, kind, bytes, start, dur, bandwidth, trace_bandwidth" MOVES_IN_WINDOW
                           " ORDER BY start, event_id", err);
    if (!c->st)
        return -1;
    sqlite3_bind_int64(c->st, 1, id);
    sqlite3_bind_double(c->st, 2, w0);
    sqlite3_bind_double(c->st, 3, w1);
    if (!r->links)
        sqlite3_bind_double(c->st, 4, r->max_dur);
    return 0;
}

static double column_or_nan(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void read_movement(dm_cursor *c)
{
    sqlite3_stmt *st = c->st;
    dm_move *m = &c->m;
    m->event = sqlite3_column_int64(st, 0);
    snprintf(m->src, sizeof m->src, "%s", col_text(st, 1));
    snprintf(m->dst, sizeof m->dst, "%s", col_text(st, 2));
    m->kind = col_text(st, 3);
    m->bytes = sqlite3_column_double(st, 4);
    m->start = sqlite3_column_double(st, 5);
    m->dur = sqlite3_column_double(st, 6);
    m->bandwidth = column_or_nan(st, 7);
    m->trace_bandwidth = column_or_nan(st, 8);
    m->handle = m->handle_name = m->link_key = NULL;
}

/* The current link as a movement: 1 if it is one, else 0. */
static int read_link(dm_cursor *c)
{
    sqlite3_stmt *st = c->st;
    dm_move *m = &c->m;
    int a = endpoint_key(col_text(st, 1), m->src, sizeof m->src);
    int b = endpoint_key(col_text(st, 2), m->dst, sizeof m->dst);
    double bytes = size_of((const char *)sqlite3_column_text(st, 4));
    if (bytes < 0)
        bytes = size_of((const char *)sqlite3_column_text(st, 5));
    if (bytes < 0 && sqlite3_column_type(st, 6) != SQLITE_NULL)
        bytes = sqlite3_column_double(st, 6);
    if (a == END_NONE || a != b || (a == END_MPI && !(bytes >= 0)))
        return 0;
    m->event = sqlite3_column_int64(st, 0);
    m->kind = col_text(st, 3);
    m->bytes = bytes >= 0 ? bytes : 0;
    m->start = sqlite3_column_double(st, 7);
    m->dur = sqlite3_column_double(st, 8);
    m->link_key = (const char *)sqlite3_column_text(st, 9);
    m->handle = (const char *)sqlite3_column_text(st, 10);
    m->handle_name = (const char *)sqlite3_column_text(st, 11);
    m->bandwidth = m->bytes > 0 && m->dur > 0 ? m->bytes / (m->dur * c->r->unit_s) / 1e9 : NAN;
    m->trace_bandwidth = NAN;
    return 1;
}

/* Steps to the next movement: 1 with c->m set, 0 at the end (statement
 * reset), -1 on error. */
static int cursor_next(ari_store *s, dm_cursor *c, ari_error *err)
{
    int rc;
    while ((rc = sqlite3_step(c->st)) == SQLITE_ROW) {
        if (!c->r->links) {
            read_movement(c);
            return 1;
        }
        if (read_link(c))
            return 1;
    }
    return step_error(s, c->st, rc, err, "movements");
}

/* ---- movements ------------------------------------------------------------------- */

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *movement_json(const dm_run *r, const dm_move *m)
{
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:o, s:o}", "event", (json_int_t)m->event, "src",
                          m->src, "dst", m->dst, "kind", m->kind, "bytes", m->bytes, "start", m->start, "dur", m->dur,
                          "bandwidth", real_or_null(m->bandwidth), "trace_bandwidth", real_or_null(m->trace_bandwidth));
    if (o && r->links) {
        json_object_set_new(o, "key", m->link_key ? json_string(m->link_key) : json_null());
        json_object_set_new(o, "handle", m->handle ? json_string(m->handle) : json_null());
        json_object_set_new(o, "handle_name", m->handle_name ? json_string(m->handle_name) : json_null());
    }
    return o;
}

int ari_dm_movements_json(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **out,
                          ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 1, &r, err);
    if (found)
        return found;
    window(&r, &w0, &w1);
    dm_cursor c;
    if (cursor_open(s, id, &r, w0, w1, &c, err) < 0)
        return -1;
    json_t *list = json_array();
    int64_t total = 0;
    double bytes = 0, in_window = 0;
    int rc;
    while ((rc = cursor_next(s, &c, err)) == 1) {
        total++;
        bytes += c.m.bytes;
        in_window += ari_dm_bytes_in(c.m.bytes, c.m.start, c.m.dur, w0, w1);
        if (total <= limit)
            json_array_append_new(list, movement_json(&r, &c.m));
    }
    if (rc < 0) {
        json_decref(list);
        return -1;
    }
    json_t *doc = json_pack("{s:f, s:f, s:s, s:I, s:b, s:f, s:f, s:o}", "start", w0, "end", w1, "time_unit", r.unit,
                            "total", (json_int_t)total, "truncated", total > limit, "bytes", bytes, "bytes_in_window",
                            in_window, "movements", list);
    return finish_json(doc, out, err);
}

/* ---- matrix --------------------------------------------------------------------- */

typedef struct dm_matrix {
    char keys[64][24];
    int n;
    double bytes[64][64], busy[64][64];
} dm_matrix;

static int key_index(dm_matrix *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0)
            return i;
    if (m->n == 64)
        return -1;
    snprintf(m->keys[m->n], sizeof m->keys[0], "%s", key);
    return m->n++;
}

/* Adds the movements overlapping [w0, w1), each with its share in it. */
static int matrix_raw(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, dm_matrix *m,
                      ari_error *err)
{
    if (!(w1 > w0))
        return 0;
    dm_cursor c;
    if (cursor_open(s, id, r, w0, w1, &c, err) < 0)
        return -1;
    int rc;
    while ((rc = cursor_next(s, &c, err)) == 1) {
        int a = key_index(m, c.m.src), b = key_index(m, c.m.dst);
        if (a < 0 || b < 0)
            continue;
        m->bytes[a][b] += ari_dm_bytes_in(c.m.bytes, c.m.start, c.m.dur, w0, w1);
        m->busy[a][b] += ari_dm_overlap(c.m.start, c.m.start + c.m.dur, w0, w1);
    }
    return rc;
}

/* The pair bins b0..b1, which lie whole inside the window. */
static int matrix_bins(ari_store *s, int64_t id, long b0, long b1, dm_matrix *m, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT src, dst, sum(bytes), sum(busy) FROM dm_pair_bins WHERE trace_id = ?1 AND bin BETWEEN ?2 AND ?3"
        " GROUP BY src, dst", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, b0);
    sqlite3_bind_int64(st, 3, b1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int a = key_index(m, col_text(st, 0)), b = key_index(m, col_text(st, 1));
        if (a < 0 || b < 0)
            continue;
        m->bytes[a][b] += sqlite3_column_double(st, 2);
        m->busy[a][b] += sqlite3_column_double(st, 3);
    }
    return step_error(s, st, rc, err, "matrix bins");
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

/* A task trace's components: its memory nodes, then the nodes of its MPI
 * communication threads, in container order. */
static int memnode_keys(ari_store *s, int64_t id, dm_matrix *m, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT name FROM containers WHERE trace_id = ?1 AND (name GLOB '*MEMNODE[0-9]*' OR name GLOB '*_mpict')"
        " ORDER BY name GLOB '*_mpict', id", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc;
    char key[24];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (endpoint_key(col_text(st, 0), key, sizeof key) != END_NONE)
            key_index(m, key);
    return step_error(s, st, rc, err, "matrix memory nodes");
}

/* Components: the topology's keyed ones (host first), or a task trace's
 * memory nodes, then any other endpoint the movements name. */
static int matrix_fill(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, dm_matrix *m,
                       ari_error *err)
{
    memset(m, 0, sizeof *m);
    if (r->links)
        return memnode_keys(s, id, m, err) < 0 ? -1 : matrix_raw(s, id, r, w0, w1, m, err);
    key_index(m, "host");
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT key FROM dm_components WHERE trace_id = ?1 AND key <> '' ORDER BY key = 'host' DESC,"
        " length(key), key", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        key_index(m, col_text(st, 0));
    if (step_error(s, st, rc, err, "matrix components") < 0)
        return -1;
    long b0, b1;
    if (!whole_bins(r, w0, w1, &b0, &b1))
        return matrix_raw(s, id, r, w0, w1, m, err);
    if (matrix_raw(s, id, r, w0, bin_edge(r, b0), m, err) < 0 ||
        matrix_raw(s, id, r, bin_edge(r, b1 + 1), w1, m, err) < 0)
        return -1;
    return matrix_bins(s, id, b0, b1, m, err);
}

int ari_dm_matrix_json(ari_store *s, int64_t id, double w0, double w1, char **out, ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 1, &r, err);
    if (found)
        return found;
    window(&r, &w0, &w1);
    dm_matrix *m = malloc(sizeof *m);
    if (!m)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (matrix_fill(s, id, &r, w0, w1, m, err) < 0) {
        free(m);
        return -1;
    }
    json_t *keys = json_array(), *bytes = json_array(), *bw = json_array();
    double total = 0, max = 0;
    for (int i = 0; i < m->n; i++) {
        json_t *row = json_array(), *brow = json_array();
        json_array_append_new(keys, json_string(m->keys[i]));
        for (int j = 0; j < m->n; j++) {
            json_array_append_new(row, json_real(m->bytes[i][j]));
            json_array_append_new(brow, m->busy[i][j] > 0
                                            ? json_real(m->bytes[i][j] / (m->busy[i][j] * r.unit_s) / 1e9)
                                            : json_null());
            total += m->bytes[i][j];
            if (m->bytes[i][j] > max)
                max = m->bytes[i][j];
        }
        json_array_append_new(bytes, row);
        json_array_append_new(bw, brow);
    }
    free(m);
    return finish_json(json_pack("{s:f, s:f, s:s, s:o, s:o, s:o, s:f, s:f}", "start", w0, "end", w1, "time_unit",
                                 r.unit, "components", keys, "bytes", bytes, "bandwidth", bw, "total_bytes", total,
                                 "max_bytes", max),
                       out, err);
}

/* ---- clock ------------------------------------------------------------------------- */

int ari_dm_clock_json(ari_store *s, int64_t id, int nsectors, double sector_width, char **out, ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 0, &r, err);
    if (found)
        return found;
    double width = sector_width > 0 ? sector_width : ari_dm_sector_width(r.t1 - r.t0, nsectors);
    double *sec = calloc((size_t)nsectors * ARI_DM_NCAT, sizeof *sec);
    if (!sec)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    sqlite3_stmt *st = ari_store_stmt(s, "SELECT category, start, dur FROM dm_events WHERE trace_id = ?1", err);
    int rc = SQLITE_DONE;
    if (st) {
        sqlite3_bind_int64(st, 1, id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ari_dm_clock_add(sec, nsectors, 0, width, sqlite3_column_int(st, 0), sqlite3_column_double(st, 1) - r.t0,
                             sqlite3_column_double(st, 2)); /* from the run's origin */
    }
    if (!st || step_error(s, st, rc, err, "clock") < 0) {
        free(sec);
        return -1;
    }
    json_t *rows = json_array(), *cats = json_array();
    double max = 0;
    for (int c = 0; c < ARI_DM_NCAT; c++)
        json_array_append_new(cats, json_string(ari_dm_category_name(c)));
    for (int i = 0; i < nsectors; i++) {
        json_t *row = json_array();
        double sum = 0;
        for (int c = 0; c < ARI_DM_NCAT; c++) {
            json_array_append_new(row, json_real(sec[i * ARI_DM_NCAT + c]));
            sum += sec[i * ARI_DM_NCAT + c];
        }
        if (sum > max)
            max = sum;
        json_array_append_new(rows, row);
    }
    free(sec);
    return finish_json(json_pack("{s:f, s:f, s:f, s:f, s:i, s:o, s:o, s:f}", "start", r.t0, "end", r.t1, "duration",
                                 r.t1 - r.t0, "sector_width", width, "sectors", nsectors, "categories", cats,
                                 "values", rows, "max_sector", max),
                       out, err);
}

/* ---- topology -------------------------------------------------------------------------- */

#define UTIL_TRACKS 64 /* the tiles keep tracks apart up to this many */

/* Busy µs per track of the non-point events overlapping [w0, w1). */
static int busy_raw(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, double *busy, int ntracks,
                    ari_error *err)
{
    if (!(w1 > w0))
        return 0;
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT track_id, sum(max(0, min(start + dur, ?3) - max(start, ?2))) FROM dm_events"
        " WHERE trace_id = ?1 AND start < ?3 AND start >= ?2 - ?4 AND start + dur > ?2 AND point = 0"
        " GROUP BY track_id", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, w0);
    sqlite3_bind_double(st, 3, w1);
    sqlite3_bind_double(st, 4, r->max_dur);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int t = sqlite3_column_int(st, 0);
        if (t >= 0 && t < ntracks)
            busy[t] += sqlite3_column_double(st, 1);
    }
    return step_error(s, st, rc, err, "utilization");
}

/* Busy µs per track in the finest tiles b0..b1 (the pair bins' grid). */
static int busy_tiles(ari_store *s, int64_t id, long b0, long b1, double *busy, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT track_id, sum(busy) FROM dm_tiles WHERE trace_id = ?1 AND level = ?2 AND bin BETWEEN ?3 AND ?4"
        " GROUP BY track_id", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, ARI_DM_TILE_LEVELS - 1);
    sqlite3_bind_int64(st, 3, b0);
    sqlite3_bind_int64(st, 4, b1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int t = sqlite3_column_int(st, 0);
        if (t >= 0 && t < UTIL_TRACKS)
            busy[t] += sqlite3_column_double(st, 1);
    }
    return step_error(s, st, rc, err, "utilization tiles");
}

/* Busy fraction of each GPU (its tracks' GPU work and copies) and of the
 * host (host tracks' CPU work and runtime calls, per busy host track).
 * Whole tile bins come from the tiles, the window's edges from events. */
static int utilization(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, json_t *util,
                       ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT track_id, coalesce('gpu' || device, 'host'), (SELECT count(*) FROM dm_tracks WHERE trace_id = ?1)"
        " FROM dm_tracks WHERE trace_id = ?1 ORDER BY track_id", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int ntracks = 0, rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        ntracks = sqlite3_column_int(st, 2);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return ari_store_fail(s, err, "tracks");
    char (*comp)[24] = calloc((size_t)ntracks + 1, sizeof *comp);
    double *busy = calloc((size_t)ntracks + 1, sizeof *busy);
    if (!comp || !busy) {
        free(comp);
        free(busy);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int t = sqlite3_column_int(st, 0);
        if (t >= 0 && t < ntracks)
            snprintf(comp[t], sizeof comp[t], "%s", col_text(st, 1));
    }
    long b0, b1;
    if (step_error(s, st, rc, err, "tracks") < 0) {
        rc = -1;
    } else if (ntracks > UTIL_TRACKS || !whole_bins(r, w0, w1, &b0, &b1)) {
        rc = busy_raw(s, id, r, w0, w1, busy, ntracks, err);
    } else {
        rc = busy_raw(s, id, r, w0, bin_edge(r, b0), busy, ntracks, err);
        if (rc == 0)
            rc = busy_raw(s, id, r, bin_edge(r, b1 + 1), w1, busy, ntracks, err);
        if (rc == 0)
            rc = busy_tiles(s, id, b0, b1, busy, err);
    }
    if (rc < 0) {
        free(comp);
        free(busy);
        return -1;
    }
    for (int t = 0; t < ntracks; t++) {
        if (!(busy[t] > 0) || json_object_get(util, comp[t]))
            continue;
        double sum = 0, n = 0;
        for (int u = t; u < ntracks; u++)
            if (busy[u] > 0 && strcmp(comp[u], comp[t]) == 0) {
                sum += busy[u];
                n++;
            }
        double frac = sum / ((w1 - w0) * n);
        json_object_set_new(util, comp[t], json_real(frac > 1 ? 1 : frac));
    }
    free(comp);
    free(busy);
    return 0;
}

int ari_dm_topology_json(ari_store *s, int64_t id, double w0, double w1, char **out, ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 0, &r, err);
    if (found)
        return found;
    window(&r, &w0, &w1);
    dm_matrix *m = malloc(sizeof *m);
    json_t *util = json_object();
    if (!m) {
        json_decref(util);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    if (matrix_fill(s, id, &r, w0, w1, m, err) < 0 || utilization(s, id, &r, w0, w1, util, err) < 0) {
        free(m);
        json_decref(util);
        return -1;
    }
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT comp_id, parent_id, kind, name, os_index, logical_index, key, attrs_json FROM dm_components"
        " WHERE trace_id = ?1 ORDER BY comp_id", err);
    if (!st) {
        free(m);
        json_decref(util);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    json_t *comps = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = col_text(st, 6);
        double moved = 0;
        for (int i = 0; i < m->n && key[0]; i++)
            if (strcmp(m->keys[i], key) == 0)
                for (int j = 0; j < m->n; j++)
                    moved += m->bytes[i][j] + (i != j ? m->bytes[j][i] : 0);
        json_t *attrs = json_loads(col_text(st, 7), 0, NULL);
        json_t *u = key[0] ? json_object_get(util, key) : NULL;
        json_array_append_new(comps, json_pack("{s:I, s:o, s:s, s:s, s:o, s:o, s:s, s:o, s:f, s:o}",
            "id", (json_int_t)sqlite3_column_int64(st, 0),
            "parent", sqlite3_column_type(st, 1) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 1)),
            "kind", col_text(st, 2), "name", col_text(st, 3),
            "os_index", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 4)),
            "logical_index", sqlite3_column_type(st, 5) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 5)),
            "key", key, "attrs", attrs ? attrs : json_object(), "bytes", moved,
            "utilization", u ? json_incref(u) : (key[0] ? json_real(0) : json_null())));
    }
    json_t *links = json_array();
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++)
            if (m->bytes[i][j] > 0)
                json_array_append_new(links, json_pack("{s:s, s:s, s:f, s:o}", "src", m->keys[i], "dst", m->keys[j],
                    "bytes", m->bytes[i][j], "bandwidth", m->busy[i][j] > 0 ? json_real(m->bytes[i][j] / m->busy[i][j] / 1000.0) : json_null()));
    free(m);
    json_decref(util);
    if (step_error(s, st, rc, err, "topology") < 0) {
        json_decref(comps);
        json_decref(links);
        return -1;
    }
    return finish_json(json_pack("{s:f, s:f, s:o, s:o}", "start", w0, "end", w1, "components", comps, "links", links),
                       out, err);
}

/* ---- timeline ------------------------------------------------------------------------------- */

static json_t *tracks_json(ari_store *s, int64_t id, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT track_id, pid, tid, label, device FROM dm_tracks WHERE trace_id = ?1 ORDER BY device IS NOT NULL,"
        " device, track_id", err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    json_t *a = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:s, s:o}", "id", (json_int_t)sqlite3_column_int64(st, 0),
            "pid", col_text(st, 1), "tid", col_text(st, 2), "label", col_text(st, 3),
            "device", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int(st, 4))));
    if (step_error(s, st, rc, err, "tracks") < 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* Events starting in the window's bins of the finest level: an upper
 * bound of the events starting in the window, without touching them. */
static int64_t window_count(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_error *err)
{
    int level = ARI_DM_TILE_LEVELS - 1;
    double width = (r->t1 - r->t0) / (double)(1 << level);
    if (width <= 0)
        width = 1;
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT coalesce(sum(count), 0) FROM dm_tiles WHERE trace_id = ?1 AND level = ?2 AND bin BETWEEN ?3 AND ?4", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, level);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)floor((w0 - r->t0) / width));
    sqlite3_bind_int64(st, 4, (sqlite3_int64)floor((w1 - r->t0) / width));
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    return n < 0 ? ari_store_fail(s, err, "window count") : n;
}

static json_t *window_events(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, int64_t limit,
                             int64_t *n, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT event_id, track_id, category, name, cat, start, dur, point, correlation FROM dm_events"
        " WHERE trace_id = ?1 AND start < ?3 AND start >= ?2 - ?4 AND (start + dur > ?2 OR start >= ?2)"
        " ORDER BY start LIMIT ?5", err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, w0);
    sqlite3_bind_double(st, 3, w1);
    sqlite3_bind_double(st, 4, r->max_dur);
    sqlite3_bind_int64(st, 5, limit + 1);
    json_t *a = json_array();
    int rc;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        (*n)++;
        json_array_append_new(a, json_pack("{s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:s, s:o}",
            "id", (json_int_t)sqlite3_column_int64(st, 0), "track", (json_int_t)sqlite3_column_int64(st, 1),
            "category", ari_dm_category_name(sqlite3_column_int(st, 2)), "name", col_text(st, 3),
            "cat", col_text(st, 4), "start", sqlite3_column_double(st, 5), "dur", sqlite3_column_double(st, 6),
            "type", sqlite3_column_int(st, 7) ? "point" : "range",
            "correlation", sqlite3_column_type(st, 8) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 8))));
    }
    if (step_error(s, st, rc, err, "timeline events") < 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static json_t *window_groups(ari_store *s, int64_t id, const dm_run *r, double w0, double w1, ari_error *err)
{
    int level = ari_dm_pick_level(r->t0, r->t1, w0, w1, 200);
    double width = (r->t1 - r->t0) / (double)(1 << level);
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT bin, track_id, category, count, busy, bytes FROM dm_tiles WHERE trace_id = ?1 AND level = ?2"
        " AND bin BETWEEN ?3 AND ?4 ORDER BY track_id, category, bin", err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, level);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)floor((w0 - r->t0) / width));
    sqlite3_bind_int64(st, 4, (sqlite3_int64)floor((w1 - r->t0) / width));
    json_t *a = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long bin = (long)sqlite3_column_int64(st, 0), nbins = 1L << level;
        double t1 = r->t1 > r->t0 ? r->t1 : r->t0 + 1; /* the pyramid's span (ari_dm_tiles_init) */
        json_array_append_new(a, json_pack("{s:I, s:s, s:f, s:f, s:I, s:f, s:f}",
            "track", (json_int_t)sqlite3_column_int64(st, 1), "category", ari_dm_category_name(sqlite3_column_int(st, 2)),
            "start", ari_dm_bin_edge(r->t0, t1, bin, nbins), "end", ari_dm_bin_edge(r->t0, t1, bin + 1, nbins),
            "count", (json_int_t)sqlite3_column_int64(st, 3),
            "busy", sqlite3_column_double(st, 4), "bytes", sqlite3_column_double(st, 5)));
    }
    if (step_error(s, st, rc, err, "timeline groups") < 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

int ari_dm_timeline_json(ari_store *s, int64_t id, double w0, double w1, int64_t limit, char **out, ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 0, &r, err);
    if (found)
        return found;
    window(&r, &w0, &w1);
    json_t *tracks = tracks_json(s, id, err);
    if (!tracks)
        return -1;
    int64_t estimate = window_count(s, id, &r, w0, w1, err), n = 0;
    json_t *events = NULL, *groups = NULL;
    if (estimate >= 0 && estimate <= limit * 4)
        events = window_events(s, id, &r, w0, w1, limit, &n, err);
    if (events && n > limit) { /* too many after all */
        json_decref(events);
        events = NULL;
    }
    if (!events && estimate >= 0 && !err->code[0])
        groups = window_groups(s, id, &r, w0, w1, err);
    if (!events && !groups) {
        json_decref(tracks);
        return -1;
    }
    json_t *doc = json_pack("{s:f, s:f, s:f, s:f, s:o, s:s}", "start", w0, "end", w1, "run_start", r.t0, "run_end", r.t1,
                            "tracks", tracks, "mode", events ? "events" : "groups");
    json_object_set_new(doc, events ? "events" : "groups", events ? events : groups);
    json_object_set_new(doc, "estimated_events", json_integer(estimate));
    return finish_json(doc, out, err);
}

/* ---- metrics ----------------------------------------------------------------------------------- */

int ari_dm_metrics_json(ari_store *s, int64_t id, double w0, double w1, int max_points, char **out, ari_error *err)
{
    dm_run r;
    int found = run_of(s, id, 0, &r, err);
    if (found)
        return found;
    window(&r, &w0, &w1);
    sqlite3_stmt *ms = ari_store_stmt(s,
        "SELECT metric_id, name, component, source, (SELECT count(*) FROM dm_samples p WHERE p.trace_id = m.trace_id"
        " AND p.metric_id = m.metric_id AND p.ts >= ?2 AND p.ts < ?3) FROM dm_metrics m WHERE trace_id = ?1"
        " ORDER BY metric_id", err);
    if (!ms)
        return -1;
    sqlite3_bind_int64(ms, 1, id);
    sqlite3_bind_double(ms, 2, w0);
    sqlite3_bind_double(ms, 3, w1);
    json_t *series = json_array();
    int rc;
    while ((rc = sqlite3_step(ms)) == SQLITE_ROW)
        json_array_append_new(series, json_pack("{s:I, s:s, s:s, s:s, s:I}", "id", (json_int_t)sqlite3_column_int64(ms, 0),
            "metric", col_text(ms, 1), "component", col_text(ms, 2), "source", col_text(ms, 3),
            "n", (json_int_t)sqlite3_column_int64(ms, 4)));
    if (step_error(s, ms, rc, err, "metrics") < 0) {
        json_decref(series);
        return -1;
    }
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT ts, value FROM dm_samples WHERE trace_id = ?1 AND metric_id = ?2 AND ts >= ?3 AND ts < ?4 ORDER BY ts", err);
    size_t i;
    json_t *m;
    json_array_foreach(series, i, m) {
        int64_t n = json_integer_value(json_object_get(m, "n"));
        double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
        json_t *ts = json_array(), *vs = json_array();
        int64_t k = 0, stride = n > max_points ? (n + max_points - 1) / max_points : 1;
        if (!st || !v) {
            free(v);
            json_decref(series);
            json_decref(ts);
            json_decref(vs);
            return st ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : -1;
        }
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, json_integer_value(json_object_get(m, "id")));
        sqlite3_bind_double(st, 3, w0);
        sqlite3_bind_double(st, 4, w1);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < n) {
            v[k] = sqlite3_column_double(st, 1);
            if (k % stride == 0) {
                json_array_append_new(ts, json_real(sqlite3_column_double(st, 0)));
                json_array_append_new(vs, json_real(v[k]));
            }
            k++;
        }
        sqlite3_reset(st);
        double var = ari_dm_variance(v, (size_t)k), lo = INFINITY, hi = -INFINITY;
        for (int64_t j = 0; j < k; j++) {
            lo = v[j] < lo ? v[j] : lo;
            hi = v[j] > hi ? v[j] : hi;
        }
        free(v);
        json_object_set_new(m, "variance", json_real(var));
        json_object_set_new(m, "min", k ? json_real(lo) : json_null());
        json_object_set_new(m, "max", k ? json_real(hi) : json_null());
        json_object_set_new(m, "ts", ts);
        json_object_set_new(m, "values", vs);
    }
    /* highest variance first (insertion sort: a few dozen series) */
    size_t n = json_array_size(series);
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0; b--) {
            double vb = json_real_value(json_object_get(json_array_get(series, b), "variance"));
            double va = json_real_value(json_object_get(json_array_get(series, b - 1), "variance"));
            if (vb <= va)
                break;
            json_t *x = json_incref(json_array_get(series, b));
            json_array_set(series, b, json_array_get(series, b - 1));
            json_array_set_new(series, b - 1, x);
        }
    return finish_json(json_pack("{s:f, s:f, s:o}", "start", w0, "end", w1, "series", series), out, err);
}
