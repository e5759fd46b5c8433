/* gantt_sql.c: the Gantt's per-pixel aggregation as one GROUP BY over
 * `tasks` (see gantt_sql.h), and the spreading of its groups over the
 * pixels as analysis/gantt_aggregation.c spreads tasks. */
#include "store/gantt_sql.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/analysis_cache.h"
#include "store/pg_dialect.h"
#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/vec.h"

/* ---- the statement ----
 *
 * Innermost: each task read (by tasks_by_worker) with its start and end
 * clipped to the window (s, e; an end before its start counts as the
 * start, as the Gantt's rows do), its clipped length for the idleness
 * (clip), whether it passes min_duration (ok), whether it is in the window
 * (win, ari_overlaps), and x, y: the positions of s and e in pixels
 * ((s - t0) * width / (t1 - t0)). Then cs, ce: the pixels of s and e as
 * gantt_aggregation.c finds them: cs the last pixel whose left edge t0 +
 * (t1 - t0) * c / width (that expression, the same doubles) is <= s, ce
 * the last whose left edge is < e. Far from a pixel edge (more than
 * PIXEL_MARGIN of a pixel, when the pixels are at least 2^16 ulps wide:
 * ari_gantt_sql_exact) that is trunc(x); near one, the estimate is
 * corrected by one step against the edges themselves, so only tasks near
 * an edge pay for the correction.
 *
 * For postgres_fdw: the subqueries are simple (both databases flatten
 * them: one aggregate over the foreign table), the minimum and maximum
 * are CASEs (it does not ship LEAST and GREATEST), the workers are
 * literals (a text parameter cast to bigint[] is not shipped either) and
 * the grouping keys include trace_id (the partition key: without it the
 * aggregate of a partitioned table stays on the coordinator). So the
 * statement's text depends on the workers shown: it is prepared for each
 * request. postgres_fdw writes the bound doubles into the shard's SQL as
 * the session prints them, and the store's session prints 15 digits
 * (extra_float_digits = 0): the statement runs with 3 (every double exact,
 * as the pixel edges need), its rows come back binary. And with
 * enable_sort off: the planner cannot estimate the groups of computed
 * keys (it guesses one per task) and sorts a whole trace's tasks to group
 * them, twice the time of the hash aggregate that a trace's few groups
 * (types x pixels per worker) need (1.8 s against 3.8 s for 1.1 M tasks). */
#define PIXEL_MARGIN "0.001"
#define FS "CAST(CASE WHEN x > ?9 THEN ?9 WHEN x < 0 THEN 0 ELSE x END AS INTEGER)"
#define FE "CAST(CASE WHEN y > ?9 THEN ?9 WHEN y < 0 THEN 0 ELSE y END AS INTEGER)"
#define EXACT_CS                                                                                               \
    FS " + CASE WHEN " FS " < ?9 AND ?2 + ?8 * (" FS " + 1) / ?4 <= s THEN 1 ELSE 0 END"                          \
    " - CASE WHEN ?2 + ?8 * " FS " / ?4 > s THEN 1 ELSE 0 END"
#define EXACT_CE                                                                                               \
    FE " + CASE WHEN " FE " < ?9 AND ?2 + ?8 * (" FE " + 1) / ?4 < e THEN 1 ELSE 0 END"                           \
    " - CASE WHEN ?2 + ?8 * " FE " / ?4 >= e THEN 1 ELSE 0 END"
static const char sql_head[] =
    "SELECT worker_id, type, cs, ce, count(*) FILTER (WHERE ok AND win),"
    " count(*) FILTER (WHERE ok AND e > s), sum(e - s) FILTER (WHERE ok AND e > s),"
    " min(s) FILTER (WHERE ok AND e > s), max(e) FILTER (WHERE ok AND e > s),"
    " sum(CASE WHEN clip > 0 THEN clip ELSE 0 END)"
    " FROM (SELECT trace_id, worker_id, type, s, e, clip, ok, win,"
    " CASE WHEN abs(x - round(x)) > " PIXEL_MARGIN " THEN CAST(x AS INTEGER) ELSE " EXACT_CS " END AS cs,"
    " CASE WHEN abs(y - round(y)) > " PIXEL_MARGIN " THEN CAST(y AS INTEGER) ELSE " EXACT_CE " END AS ce"
    " FROM (SELECT *, (s - ?2) * ?7 AS x, (e - ?2) * ?7 AS y"
    " FROM (SELECT trace_id, worker_id, type, s, CASE WHEN e1 < ?3 THEN e1 ELSE ?3 END AS e,"
    " CASE WHEN end < ?3 THEN end ELSE ?3 END - s AS clip, ok, win"
    " FROM (SELECT trace_id, worker_id, type, end, CASE WHEN start > ?2 THEN start ELSE ?2 END AS s,"
    " CASE WHEN end > start THEN end ELSE start END AS e1, (?6 IS NULL OR end - start >= ?6) AS ok,"
    " CASE WHEN end > start THEN end > ?2 ELSE start >= ?2 END AS win"
    " FROM tasks WHERE trace_id = ?1 AND start >= ?5 AND start < ?3 AND worker_id IN (";
static const char sql_tail[] = "))))) GROUP BY trace_id, worker_id, type, cs, ce";

/* The statement for these workers (ids, as "11,13,17"), malloc'd. */
static char *statement_text(const char *ids)
{
    ari_sbuf b = {0};
    ari_sbuf_add_str(&b, sql_head);
    ari_sbuf_add_str(&b, ids);
    ari_sbuf_add_str(&b, sql_tail);
    return ari_sbuf_take(&b);
}

char *ari_gantt_sql_text(const int64_t *worker_ids, int n)
{
    ari_sbuf ids = {0};
    for (int i = 0; i < n; i++)
        ari_sbuf_printf(&ids, "%s%lld", i ? "," : "", (long long)worker_ids[i]);
    char *list = ari_sbuf_take(&ids);
    char *text = list ? statement_text(list) : NULL;
    char *pg = text ? ari_pg_translate(text, NULL) : NULL;
    free(list);
    free(text);
    return pg;
}

/* ---- pixels ---- */

/* gantt_aggregation.c's pixel_lo, the same expression. */
static double pixel_lo(double t0, double t1, int width, int c)
{
    return c >= width ? t1 : t0 + (t1 - t0) * c / width;
}

int ari_gantt_sql_exact(double t0, double t1, int width)
{
    if (!isfinite(t0) || !isfinite(t1) || !(t1 > t0) || width < 1)
        return 0;
    /* PostgreSQL raises an error where a double overflows (SQLite gives
     * inf): the pixel edges multiply the window's span by up to width + 1 */
    if (!isfinite((t1 - t0) * ((double)width + 1)))
        return 0;
    double mag = fabs(t0) > fabs(t1) ? fabs(t0) : fabs(t1);
    return (t1 - t0) / width >= 65536 * DBL_EPSILON * mag;
}

/* ---- running the statement ---- */

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "gantt sql: out of memory");
}

void ari_gantt_sql_result_free(ari_gantt_sql_result *r)
{
    if (!r)
        return;
    for (int i = 0; r->rows && i < r->nrows; i++)
        free(r->rows[i].groups);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* The shown workers' ids ("11,13,17"), and the lowest start that can
 * reach the window. Returns the number of workers listed, -1 when out of
 * memory. */
static int worker_list(const ari_tq_meta *meta, const ari_gantt_sql_query *q, char **text, double *lo)
{
    ari_sbuf b = {0};
    double longest = 0;
    int n = 0;
    for (int i = 0; i < meta->nworkers; i++) {
        const ari_tq_worker *w = &meta->workers[i];
        if ((q->shown && !q->shown[i]) || w->ntasks == 0)
            continue;
        ari_sbuf_printf(&b, "%s%lld", n ? "," : "", (long long)w->id);
        if (w->max_duration > longest)
            longest = w->max_duration;
        n++;
    }
    if (n == 0) {
        ari_sbuf_free(&b);
        *text = NULL;
        return 0;
    }
    if (!(*text = ari_sbuf_take(&b)))
        return -1;
    *lo = q->t0 - longest;
    return n;
}

/* Lookups of the ids of one result row, remembering the last ones (rows
 * of one worker and type come in runs). */
typedef struct lookup {
    const ari_tq_meta *meta;
    int64_t worker_id;
    int worker;
    char type_name[256];
    int type;
} lookup;

static int worker_of(lookup *L, int64_t id)
{
    if (id != L->worker_id || L->worker < 0) {
        L->worker_id = id;
        L->worker = ari_tq_worker_index(L->meta, id);
    }
    return L->worker;
}

static int type_of(lookup *L, const char *name)
{
    if (!name)
        return -1;
    if (L->type_name[0] && strcmp(name, L->type_name) == 0)
        return L->type;
    L->type = ari_tq_type_id(L->meta, name);
    L->type_name[0] = '\0';
    if (strlen(name) < sizeof L->type_name)
        strcpy(L->type_name, name);
    return L->type;
}

static int add_group(ari_gantt_sql_row *row, size_t *cap, const ari_gantt_sql_group *g)
{
    if (ari_vec_reserve((void **)&row->groups, cap, (size_t)row->ngroups + 1, sizeof *row->groups) < 0)
        return -1;
    row->groups[row->ngroups++] = *g;
    return 0;
}

/* Reads the statement's rows into out->rows. */
static int read_groups(ari_store *s, ari_stmt *st, const ari_tq_meta *meta, const ari_gantt_sql_query *q,
                       ari_gantt_sql_result *out, ari_error *err)
{
    size_t *caps = calloc((size_t)meta->nworkers + 1, sizeof *caps);
    if (!caps) {
        ari_reset(st);
        return nomem(err);
    }
    lookup L = {.meta = meta, .worker = -1};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int wi = worker_of(&L, ari_col_int64(st, 0));
        int k = type_of(&L, (const char *)ari_col_text(st, 1));
        if (wi < 0 || k < 0)
            continue; /* not a row of the Gantt (as the row cache drops it) */
        ari_gantt_sql_row *row = &out->rows[wi];
        row->busy += ari_col_double(st, 9);
        if (q->type_ok && !q->type_ok[k])
            continue;
        ari_gantt_sql_group g = {.type = k,
                                 .first = (int)ari_col_int64(st, 2),
                                 .last = (int)ari_col_int64(st, 3),
                                 .nwindow = ari_col_int64(st, 4),
                                 .ndrawn = ari_col_int64(st, 5)};
        row->nwindow += g.nwindow;
        if (g.ndrawn <= 0)
            continue;
        g.length = ari_col_double(st, 6);
        g.min_start = ari_col_double(st, 7);
        g.max_end = ari_col_double(st, 8);
        if (add_group(row, &caps[wi], &g) < 0) {
            ari_reset(st);
            free(caps);
            return nomem(err);
        }
    }
    free(caps);
    return ari_store_rows_end(s, st, rc, "gantt sql: aggregate the tasks", err);
}

int ari_gantt_sql_run(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_gantt_sql_query *q,
                      ari_gantt_sql_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (!isfinite(q->t0) || !isfinite(q->t1) || !(q->t0 < q->t1) || q->width < 1 ||
        q->width > ARI_GANTT_MAX_WIDTH)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt sql: window [%g, %g) or width %d invalid",
                             q->t0, q->t1, q->width);
    out->t0 = q->t0, out->t1 = q->t1, out->width = q->width, out->nrows = meta->nworkers;
    out->rows = calloc((size_t)meta->nworkers + 1, sizeof *out->rows);
    if (!out->rows)
        return nomem(err);
    char *workers = NULL;
    double lo = 0;
    int n = worker_list(meta, q, &workers, &lo);
    if (n <= 0) {
        if (n < 0)
            ari_gantt_sql_result_free(out);
        return n < 0 ? nomem(err) : 0;
    }
    char *text = statement_text(workers);
    free(workers);
    ari_stmt *st = text ? ari_store_prepare(s, text, err) : NULL;
    free(text);
    if (!st) {
        ari_gantt_sql_result_free(out);
        return err && err->code[0] ? -1 : nomem(err);
    }
    double span = q->t1 - q->t0;
    ari_arg args[] = {ari_arg_int(trace_id),
                      ari_arg_real(q->t0),
                      ari_arg_real(q->t1),
                      ari_arg_real((double)q->width),
                      ari_arg_real(lo),
                      isnan(q->min_duration) ? ari_arg_null() : ari_arg_real(q->min_duration),
                      ari_arg_real(q->width / span),
                      ari_arg_real(span),
                      ari_arg_int(q->width - 1)};
    int rc = ari_store_bind_args(s, st, args, ARI_NARGS(args), err);
    int pg = ari_store_is_pg(s);
    ari_stream(st); /* O(types x pixels) groups a row: held as C groups, not also as a whole result */
    if (rc == 0 && pg)
        rc = ari_store_exec(s, "SET extra_float_digits = 3", err);
    if (rc == 0 && pg)
        rc = ari_store_exec(s, "SET enable_sort = off", err);
    if (rc == 0)
        rc = read_groups(s, st, meta, q, out, err);
    if (pg) {
        ari_store_exec(s, "SET extra_float_digits = 0", NULL); /* the session's setting (pg_backend.c) */
        ari_store_exec(s, "RESET enable_sort", NULL);
    }
    ari_stmt_finalize(st);
    if (rc < 0)
        ari_gantt_sql_result_free(out);
    return rc;
}

double ari_gantt_sql_idle(const ari_gantt_sql_result *r, int i)
{
    double idle = 1 - r->rows[i].busy / (r->t1 - r->t0);
    return idle < 0 ? 0 : idle > 1 ? 1 : idle;
}

/* ---- rendering a row ---- */

/* One contribution of a group to a pixel; key: the start of its first
 * task, which orders the types of a pixel as the in-memory path does. */
typedef struct entry {
    int pixel, type;
    double share, key;
} entry;

static int cmp_pixel_type_key(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->pixel != y->pixel)
        return x->pixel < y->pixel ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_pixel_key_type(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->pixel != y->pixel)
        return x->pixel < y->pixel ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

/* The number of entries the row's groups make, or -1 when they show
 * overlapping tasks (several tasks of one group over several pixels, or
 * spans that pile up beyond what tasks side by side can make). */
static int64_t count_entries(const ari_gantt_sql_row *row, int width)
{
    int64_t n = 0, spans = 0, spanning = 0;
    for (int64_t j = 0; j < row->ngroups; j++) {
        const ari_gantt_sql_group *g = &row->groups[j];
        if (g->first < 0 || g->last < g->first || g->last >= width)
            return -1;
        if (g->first == g->last) {
            n++;
            continue;
        }
        if (g->ndrawn != 1)
            return -1;
        spans += g->last - g->first + 1;
        spanning++;
    }
    return spans > width + spanning ? -1 : n + spans;
}

/* The group's contributions, as spread_task computes them. */
static int64_t group_entries(const ari_gantt_sql_result *r, const ari_gantt_sql_group *g, entry *out)
{
    if (g->first == g->last) {
        double lo = pixel_lo(r->t0, r->t1, r->width, g->first), hi = pixel_lo(r->t0, r->t1, r->width, g->first + 1);
        out[0] = (entry){g->first, g->type, g->length / (hi - lo), g->min_start};
        return 1;
    }
    int64_t n = 0;
    double s = g->min_start, e = g->max_end;
    for (int c = g->first; c <= g->last; c++) {
        double lo = pixel_lo(r->t0, r->t1, r->width, c), hi = pixel_lo(r->t0, r->t1, r->width, c + 1);
        double overlap = (e < hi ? e : hi) - (s > lo ? s : lo);
        if (overlap > 0)
            out[n++] = (entry){c, g->type, overlap / (hi - lo), s};
    }
    return n;
}

/* Merges the entries of one (pixel, type) in key order into cells. */
static int64_t merge_entries(entry *e, int64_t n)
{
    qsort(e, (size_t)n, sizeof *e, cmp_pixel_type_key);
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) {
        if (m > 0 && e[m - 1].pixel == e[j].pixel && e[m - 1].type == e[j].type)
            e[m - 1].share += e[j].share;
        else
            e[m++] = e[j];
    }
    qsort(e, (size_t)m, sizeof *e, cmp_pixel_key_type);
    return m;
}

/* gantt_aggregation.c's finish_pixels over the merged cells. */
static int fill_pixels(const entry *e, int64_t n, ari_gantt_result *out)
{
    out->cells = malloc(((size_t)n + 1) * sizeof *out->cells);
    out->pixel_offset = malloc(((size_t)out->width + 1) * sizeof *out->pixel_offset);
    out->idle = malloc((size_t)out->width * sizeof *out->idle);
    if (!out->cells || !out->pixel_offset || !out->idle)
        return -1;
    int64_t j = 0;
    for (int c = 0; c < out->width; c++) {
        out->pixel_offset[c] = j;
        double busy = 0;
        for (; j < n && e[j].pixel == c; j++) {
            double share = e[j].share > 1 ? 1 : e[j].share;
            out->cells[j] = (ari_gantt_cell){.pixel = c, .type = e[j].type, .share = share};
            busy += share;
        }
        double idle = 1 - busy;
        out->idle[c] = idle < 0 ? 0 : idle > 1 ? 1 : idle;
    }
    out->pixel_offset[out->width] = j;
    out->ncells = j;
    return 0;
}

int ari_gantt_sql_render(const ari_gantt_sql_result *r, int i, int64_t max_tasks, ari_gantt_result *out,
                         ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (i < 0 || i >= r->nrows)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "gantt sql: no row %d", i);
    const ari_gantt_sql_row *row = &r->rows[i];
    out->t0 = r->t0, out->t1 = r->t1, out->width = r->width;
    out->count = row->nwindow;
    if (max_tasks < 0)
        max_tasks = r->width / 2;
    if (row->nwindow <= max_tasks) {
        out->mode = ARI_GANTT_TASKS;
        return 0;
    }
    out->mode = ARI_GANTT_PIXELS;
    int64_t n = count_entries(row, r->width);
    if (n < 0) {
        memset(out, 0, sizeof *out);
        return 1;
    }
    entry *e = malloc(((size_t)n + 1) * sizeof *e);
    if (!e)
        return nomem(err);
    int64_t m = 0;
    for (int64_t j = 0; j < row->ngroups; j++)
        m += group_entries(r, &row->groups[j], e + m);
    m = merge_entries(e, m);
    int rc = fill_pixels(e, m, out);
    free(e);
    if (rc < 0) {
        ari_gantt_result_free(out);
        return nomem(err);
    }
    return 0;
}

/* ---- rows whose tasks overlap ---- */

#define OVERLAPS_ANALYSIS "gantt_overlaps"

/* Parses "[id,id,...]" into the flags. */
static void parse_overlaps(const char *text, const ari_tq_meta *meta, unsigned char *overlaps)
{
    const char *p = strchr(text, '[');
    while (p && *p && *p != ']') {
        char *end;
        long long id = strtoll(p + 1, &end, 10);
        if (end == p + 1)
            break;
        int wi = ari_tq_worker_index(meta, id);
        if (wi >= 0)
            overlaps[wi] = 1;
        p = end;
    }
}

static int compute_overlaps(ari_store *s, int64_t trace_id, ari_sbuf *ids, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT worker_id FROM (SELECT worker_id, max(end, start) AS e,"
        " lead(start) OVER (PARTITION BY worker_id ORDER BY start, end) AS nx"
        " FROM tasks WHERE trace_id = ?1 AND worker_id IS NOT NULL) WHERE nx < e GROUP BY worker_id"
        " ORDER BY worker_id",
        trace_id, err);
    if (!st)
        return -1;
    ari_sbuf_add_str(ids, "[");
    int rc, n = 0;
    while ((rc = ari_step(st)) == ARI_ROW)
        ari_sbuf_printf(ids, "%s%lld", n++ ? "," : "", (long long)ari_col_int64(st, 0));
    ari_sbuf_add_str(ids, "]");
    if (ari_store_rows_end(s, st, rc, "gantt sql: find overlapping tasks", err) < 0)
        return -1;
    return ari_sbuf_failed(ids) ? nomem(err) : 0;
}

int ari_gantt_sql_overlaps(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, unsigned char *overlaps,
                           ari_error *err)
{
    memset(overlaps, 0, (size_t)meta->nworkers);
    char *cached = NULL;
    int rc = ari_cache_get(s, trace_id, OVERLAPS_ANALYSIS, "", &cached, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        parse_overlaps(cached, meta, overlaps);
        free(cached);
        return 0;
    }
    ari_sbuf ids = {0};
    if (compute_overlaps(s, trace_id, &ids, err) < 0) {
        ari_sbuf_free(&ids);
        return -1;
    }
    parse_overlaps(ari_sbuf_text(&ids), meta, overlaps);
    ari_cache_put(s, trace_id, OVERLAPS_ANALYSIS, "", ari_sbuf_text(&ids));
    ari_sbuf_free(&ids);
    return 0;
}
