/* api_gantt.c: GET /api/v1/traces/{id}/gantt: one row per worker, each
 * either its individual tasks in the window or per-pixel type shares
 * (analysis/gantt_aggregation.h decides), each worker's idleness in the window as
 * StarVZ defines it (1 - task time / window length), its runtime states
 * (Sleeping, Overhead, ...) as exclusive shares of the window, and the marks (makespan, ABE, CPE) of the same filters over the
 * whole trace.
 *
 * Cost on SQLite: the trace's rows come from the row cache
 * (store/analysis_cache.h) so a request is O(log n + tasks in the window +
 * width) per row. On PostgreSQL no row is loaded whole: a row with at
 * most RAW_ROW_TASKS tasks in the window is drawn from those tasks, read
 * from [t0 - the longest task, t1) through the (trace, worker, start)
 * index; denser rows are aggregated in the database by one statement
 * (store/gantt_sql.h) per (worker, type, first pixel, last pixel), and the
 * daemon holds O(types x width) groups per row; a row whose tasks overlap
 * (none in StarPU traces), or a window whose pixels are a few ulps wide,
 * is drawn from its tasks in the window read the same way. The rows read
 * so are read in one statement (store/gantt_row_reads.h), so that on a
 * trace spread over shards every shard reads its rows at once. On both
 * backends the rows drawn in tasks mode then have their few tasks read
 * with their details through that index, from start - (the row's longest
 * task) to the window's end, in one statement for all those rows.
 *
 * Large rows on either backend (store/gantt_summaries.h: rows summarised
 * at import, 4,096+ tasks in the window, no type or duration filter,
 * pixels mode) are drawn from those summaries instead, the same on both
 * backends: O(width) per row whatever the trace's size, each share within
 * 1/16 of a pixel.
 * The runtime states, asked for with states=true (the dashboard does), come
 * from the same summaries for windows of 1/256 of the trace or more (within
 * 1/512 of the window), else from the states table (index by container and
 * start) from t0 - the row's longest state; rows without summaries (small
 * ones, traces imported before them) read every state of the row starting
 * before the window's end. The raw states of all the rows that need them
 * are read in one statement too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gantt_aggregation.h"
#include "analysis_ctx.h"
#include "handlers.h"
#include "time_origin.h"
#include "params.h"
#include "reply.h"
#include "store/gantt_row_reads.h"
#include "store/gantt_rows.h"
#include "store/gantt_sql.h"
#include "store/gantt_summaries.h"
#include "store/pg_shards.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/lower_bound.h"
#include "util/vec.h"

#define MAX_WIDTH 10000
#define MAX_TASKS_LIMIT 1000000
#define GANTT_DIGITS 12
/* PostgreSQL: a row with at most this many tasks estimated in the window
 * is drawn from its tasks, read as the tasks mode reads them, rather than
 * aggregated by the database: the daemon reads a task in 1 to 4 us (the
 * index scan's heap reads) and PostgreSQL aggregates one in about 5 (its
 * expressions, per task; measured at 10 M states, tests/bench/README.md),
 * and the read holds at most about 1.3 MB per row (20 bytes a task). Denser
 * rows, which the summaries cannot draw (filters, a zoom between their
 * levels), are aggregated in the database: no row of a huge trace is
 * ever read whole. The two give the same pixels (the aggregation within
 * 1e-12 of a share, unit.test_gantt_sql). */
#define RAW_ROW_TASKS 65536
/* The same for a trace whose tasks live on shards (store/pg_shards.h):
 * there a row's tasks read pass through the coordinator's postgres_fdw,
 * about 5 us a task, where a shard aggregates one in about 2.7 us, and
 * the shards of a spread trace aggregate at once (100 M states on one and
 * two shards, tests/bench/README.md). */
#define REMOTE_RAW_ROW_TASKS 4096

/* One request's state. */
typedef struct gantt {
    ari_request *r;
    ari_actx *ctx;
    ari_rows *rows;          /* SQLite: the row cache */
    ari_gantt_sql_result sql; /* PostgreSQL: the aggregation computed by the database */
    int sql_exact;           /* the window's pixels are wide enough for it (else each row's tasks are read) */
    unsigned char *overlaps; /* [nworkers] PostgreSQL: rows whose tasks overlap (read from their tasks) */
    unsigned char *raw;      /* [nworkers] PostgreSQL: rows few enough in the window to read (RAW_ROW_TASKS) */
    ari_gantt_result *summary; /* [nworkers] rows drawn from the summaries (mode 0: not) */
    ari_row_tasks *read;     /* [nworkers] PostgreSQL: rows drawn from their tasks, read at once (start set) */
    ari_gantt_state_totals *cells; /* [nworkers] states=true: rows whose state shares the summaries give */
    ari_tq_states *states;   /* [nworkers] states=true: the others' raw states, read at once */
    double t0, t1;
    int width;
    int64_t max_tasks;
    int with_states;         /* states=true: each row's runtime state shares */
    unsigned char *type_ok;  /* [ntypes] the filter's types */
    double *threshold;       /* [nrestypes * ntypes] outlier thresholds, NULL until needed */
    int thresholds_failed;
    /* the row being rendered: filtered window tasks */
    double *start, *end;
    int *type;
    size_t cap;
} gantt;

static int task_ok(const gantt *g, int type, double start, double end)
{
    const ari_task_filter *f = &g->ctx->filter;
    if (!g->type_ok[type] || !ari_overlaps(start, end, g->t0, g->t1))
        return 0;
    return isnan(f->min_duration) || end - start >= f->min_duration;
}

/* Makes room for n + 1 tasks in three parallel arrays of *cap: 0, or -1
 * (out of memory; the arrays stay valid for *cap). */
static int reserve_tasks(double **start, double **end, int **type, size_t *cap, size_t n)
{
    size_t cs = *cap, ce = *cap, ct = *cap; /* grow alike: same capacity, same need */
    if (ari_vec_reserve((void **)start, &cs, n + 1, sizeof **start) < 0 ||
        ari_vec_reserve((void **)end, &ce, n + 1, sizeof **end) < 0 ||
        ari_vec_reserve((void **)type, &ct, n + 1, sizeof **type) < 0)
        return -1;
    *cap = ct;
    return 0;
}

/* Collects the row's filtered tasks in the window into g->start/end/type,
 * ends clamped to the next start so that the renderer sees no overlap. */
static int64_t collect(gantt *g, const ari_row_tasks *row, double max_duration)
{
    int64_t lo = ari_lower_bound(row->start, row->ntasks, g->t0 - max_duration);
    int64_t hi = ari_lower_bound(row->start, row->ntasks, g->t1);
    int64_t n = 0;
    for (int64_t i = lo; i < hi; i++) {
        if (!task_ok(g, row->type[i], row->start[i], row->end[i]))
            continue;
        if (reserve_tasks(&g->start, &g->end, &g->type, &g->cap, (size_t)n) < 0)
            return -1;
        g->start[n] = row->start[i];
        g->end[n] = row->end[i] >= row->start[i] ? row->end[i] : row->start[i];
        g->type[n] = row->type[i];
        if (n > 0 && g->end[n - 1] > g->start[n])
            g->end[n - 1] = g->start[n] > g->start[n - 1] ? g->start[n] : g->start[n - 1];
        n++;
    }
    return n;
}

/* The outlier thresholds of the whole trace, per (resource type, type):
 * INFINITY where there is none. */
static void load_thresholds(gantt *g)
{
    const ari_tq_meta *m = g->ctx->meta;
    ari_task_filter none = {.start = NAN, .end = NAN, .min_duration = NAN};
    ari_error err = {0};
    ari_outlier_result res;
    int ok = ari_outlier_groups_get(g->r, g->ctx, &none, &res, &err) == 0;
    size_t cells = (size_t)m->nrestypes * (size_t)m->ntypes;
    g->threshold = ok ? malloc((cells + 1) * sizeof *g->threshold) : NULL;
    if (!g->threshold) {
        ari_log(ARI_LOG_WARN, "gantt: no outlier thresholds: %s", err.message);
        g->thresholds_failed = 1;
    }
    for (size_t c = 0; g->threshold && c < cells; c++)
        g->threshold[c] = isnan(res.groups[c].threshold) ? INFINITY : res.groups[c].threshold;
    ari_outlier_result_free(&res);
}

typedef struct detail_ctx {
    gantt *g;
    int restype;
    json_t *list;
} detail_ctx;

static int add_detail(void *arg, const char *job_id, int type, double start, double end, double gflop,
                      int64_t iteration)
{
    detail_ctx *d = arg;
    gantt *g = d->g;
    if (!task_ok(g, type, start, end))
        return 0;
    int outlier = 0;
    if (g->threshold && d->restype >= 0) {
        size_t cell = (size_t)d->restype * (size_t)g->ctx->meta->ntypes + (size_t)type;
        outlier = ari_tq_duration(start, end) > g->threshold[cell];
    }
    json_t *task = json_pack("{s:s,s:i,s:f,s:f,s:o,s:o,s:b}", "job_id", job_id, "type", type, "start", start,
                             "end", end, "gflop", ari_json_num(gflop), "iteration",
                             iteration == ARI_TQ_NO_ITERATION ? json_null() : json_integer(iteration),
                             "outlier", outlier);
    return task ? json_array_append_new(d->list, task) : -1;
}

/* A row drawn: its pixels, or (tasks mode) its task list to fill, its
 * states and idleness, until the rows are packed. */
typedef struct drawn_row {
    json_t *tasks, *pixels, *states;
    double idle;
} drawn_row;

/* The task lists of the rows drawn task by task (drawn[i].tasks non-NULL:
 * an empty array to fill), read in one statement for all of them
 * (store/gantt_row_reads.h): a statement costs a trace on shards a few
 * ms, a whole row of statements when every row is zoomed in that far. */
static int tasks_json(gantt *g, const drawn_row *drawn, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    int *rows = malloc(((size_t)m->nworkers + 1) * sizeof *rows);
    double *lo = malloc(((size_t)m->nworkers + 1) * sizeof *lo);
    detail_ctx *d = malloc(((size_t)m->nworkers + 1) * sizeof *d);
    void **ctx = malloc(((size_t)m->nworkers + 1) * sizeof *ctx);
    int rc = rows && lo && d && ctx ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int n = 0;
    for (int i = 0; rc == 0 && i < m->nworkers; i++) {
        if (!drawn[i].tasks)
            continue;
        rows[n] = i;
        lo[n] = g->t0 - m->workers[i].max_duration;
        d[n] = (detail_ctx){g, m->workers[i].restype, drawn[i].tasks};
        ctx[n] = &d[n];
        n++;
    }
    if (rc == 0 && n > 0 && !g->threshold && !g->thresholds_failed)
        load_thresholds(g);
    if (rc == 0)
        rc = ari_gantt_read_details(g->r->db, g->ctx->trace.id, m, rows, lo, n, g->t1, add_detail, ctx, err);
    free(rows);
    free(lo);
    free(d);
    free(ctx);
    return rc;
}

static json_t *pixels_json(const ari_gantt_result *res)
{
    json_t *shares = json_array(), *idle = json_array();
    for (int64_t c = 0; c < res->ncells; c++) {
        const ari_gantt_cell *cell = &res->cells[c];
        json_t *triple = json_array();
        json_array_append_new(triple, json_integer(cell->pixel));
        json_array_append_new(triple, json_integer(cell->type));
        json_array_append_new(triple, json_real(cell->share));
        json_array_append_new(shares, triple);
    }
    for (int p = 0; p < res->width; p++)
        json_array_append_new(idle, json_real(res->idle[p]));
    return json_pack("{s:o,s:o}", "shares", shares, "idle", idle);
}

/* StarVZ's idleness of the row in the window: 1 - task time / (t1 - t0),
 * over all the row's tasks (the type filters narrow what is drawn, not
 * the worker's busy time). Tasks starting before t0 - the row's longest
 * task cannot reach the window. */
static double row_idle(const gantt *g, const ari_row_tasks *row, double max_duration)
{
    int64_t lo = ari_lower_bound(row->start, row->ntasks, g->t0 - max_duration);
    int64_t hi = ari_lower_bound(row->start, row->ntasks, g->t1);
    return ari_gantt_idle(row->start + lo, row->end + lo, hi - lo, g->t0, g->t1);
}

/* The row's runtime states (Paje states that are not tasks) as
 * {name: exclusive share of the window}, positive shares only. */
static json_t *summary_states_json(const ari_gantt_state_totals *tot, double span)
{
    json_t *obj = json_object();
    for (int v = 0; obj && v < tot->nvalues; v++)
        if (!tot->is_task[v] && tot->time[v] > 0)
            json_object_set_new(obj, tot->names[v], json_real(tot->time[v] / span));
    return obj;
}

static json_t *states_json(gantt *g, int i, ari_error *err)
{
    json_t *obj;
    if (g->cells[i].names) {
        obj = summary_states_json(&g->cells[i], g->t1 - g->t0);
        if (!obj)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return obj;
    }
    const ari_tq_states *st = &g->states[i];
    double *time = malloc(((size_t)st->nvalues + 1) * sizeof *time);
    obj = time ? json_object() : NULL;
    if (!obj)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    else if (ari_gantt_state_times(st->states, st->n, g->t0, g->t1, st->nvalues, time, err) < 0)
        obj = (json_decref(obj), NULL);
    for (int v = 0; obj && v < st->nvalues; v++)
        if (!st->is_task[v] && time[v] > 0)
            json_object_set_new(obj, st->names[v], json_real(time[v] / (g->t1 - g->t0)));
    free(time);
    return obj;
}

/* states=true: each shown row's runtime states, from the summary cells
 * where a level fits the window, else from the raw states, read for all
 * those rows in one statement (store/gantt_row_reads.h) from t0 - the
 * row's longest state (its summary's; every earlier state without one). */
static int read_states(gantt *g, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    g->cells = calloc((size_t)m->nworkers + 1, sizeof *g->cells);
    g->states = calloc((size_t)m->nworkers + 1, sizeof *g->states);
    int *rows = malloc(((size_t)m->nworkers + 1) * sizeof *rows);
    double *lo = malloc(((size_t)m->nworkers + 1) * sizeof *lo);
    ari_tq_states *read = calloc((size_t)m->nworkers + 1, sizeof *read);
    int rc = g->cells && g->states && rows && lo && read ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int n = 0;
    for (int i = 0; rc == 0 && i < m->nworkers; i++) {
        if (!ari_task_filter_row(&g->ctx->filter, &m->workers[i]))
            continue;
        int64_t id = m->workers[i].id, trace_id = g->ctx->trace.id;
        rc = ari_gantt_summary_state_cells(g->r->db, trace_id, m, id, g->t0, g->t1, &g->cells[i], err);
        if (rc == 0) {
            rows[n] = i;
            rc = ari_gantt_summary_states_from(g->r->db, trace_id, id, g->t0, &lo[n], err);
            if (rc == 1)
                lo[n] = -INFINITY, rc = 0;
            n++;
        }
        rc = rc < 0 ? -1 : 0;
    }
    if (rc == 0)
        rc = ari_gantt_read_states(g->r->db, g->ctx->trace.id, m, rows, lo, n, g->t0, g->t1, read, err);
    for (int k = 0; rc == 0 && k < n; k++)
        g->states[rows[k]] = read[k];
    free(rows);
    free(lo);
    free(read);
    return rc;
}

static void states_free(gantt *g)
{
    for (int i = 0; i < g->ctx->meta->nworkers; i++) {
        if (g->cells)
            ari_gantt_state_totals_free(&g->cells[i]);
        if (g->states)
            ari_tq_states_free(&g->states[i]);
    }
    free(g->cells);
    free(g->states);
}

/* Renders one row from its tasks (the row cache's, or those read now):
 * filtered and collected, then ari_gantt_render_row; *idle from all of them. */
static int render_tasks(gantt *g, const ari_tq_worker *w, const ari_row_tasks *row, ari_gantt_result *res,
                        double *idle, ari_error *err)
{
    int64_t n = collect(g, row, w->max_duration);
    if (n < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_gantt_row in = {n, g->start, g->end, g->type, g->ctx->meta->ntypes};
    if (ari_gantt_render_row(&in, g->t0, g->t1, g->width, g->max_tasks, res, err) < 0)
        return -1;
    *idle = row_idle(g, row, w->max_duration);
    return 0;
}

/* A row's tasks read from the database (PostgreSQL, where the aggregation
 * cannot draw it: overlapping tasks, or pixels a few ulps wide). */
typedef struct row_reader {
    ari_row_tasks row;
    size_t cap;
} row_reader;

static int read_task(void *arg, const char *job_id, int type, double start, double end, double gflop,
                     int64_t iteration)
{
    (void)job_id, (void)gflop, (void)iteration;
    row_reader *rd = arg;
    ari_row_tasks *row = &rd->row;
    if (reserve_tasks(&row->start, &row->end, &row->type, &rd->cap, (size_t)row->ntasks) < 0)
        return -1;
    row->start[row->ntasks] = start;
    row->end[row->ntasks] = end;
    row->type[row->ntasks++] = type;
    return 0;
}

static int render_read(gantt *g, const ari_tq_worker *w, ari_gantt_result *res, double *idle, ari_error *err)
{
    row_reader rd = {.row = {.worker_id = w->id}};
    int rc = ari_tq_worker_tasks(g->r->db, g->ctx->trace.id, g->ctx->meta, w->id, g->t0 - w->max_duration, g->t1,
                                 read_task, &rd, err);
    if (rc == 0)
        rc = render_tasks(g, w, &rd.row, res, idle, err);
    free(rd.row.start);
    free(rd.row.end);
    free(rd.row.type);
    return rc;
}

/* Row i's rendering and idleness, from the row cache (SQLite) or the
 * database's aggregation (PostgreSQL). */
static int render_row(gantt *g, int i, ari_gantt_result *res, double *idle, ari_error *err)
{
    const ari_tq_worker *w = &g->ctx->meta->workers[i];
    if (g->summary && g->summary[i].mode) {
        *res = g->summary[i]; /* handed over: freed by the caller */
        memset(&g->summary[i], 0, sizeof g->summary[i]);
        double free_time = 0;
        for (int p = 0; p < res->width; p++)
            free_time += res->idle[p];
        *idle = free_time / res->width;
        return 0;
    }
    if (g->rows)
        return render_tasks(g, w, &g->rows->rows[i], res, idle, err);
    if (g->read && g->read[i].start)
        return render_tasks(g, w, &g->read[i], res, idle, err);
    if (g->sql_exact && !g->overlaps[i] && !g->raw[i]) {
        int rc = ari_gantt_sql_render(&g->sql, i, g->max_tasks, res, err);
        if (rc <= 0) {
            *idle = ari_gantt_sql_idle(&g->sql, i);
            return rc;
        }
    }
    return render_read(g, w, res, idle, err);
}

static void drawn_free(drawn_row *d, int n)
{
    for (int i = 0; d && i < n; i++) {
        json_decref(d[i].tasks);
        json_decref(d[i].pixels);
        json_decref(d[i].states);
    }
    free(d);
}

/* Row i drawn into *d: its pixels, or an empty task list in tasks mode. */
static int draw_row(gantt *g, int i, drawn_row *d, ari_error *err)
{
    ari_gantt_result res = {0};
    if (render_row(g, i, &res, &d->idle, err) < 0)
        return -1;
    d->states = g->with_states ? states_json(g, i, err) : json_null();
    if (d->states) {
        if (res.mode == ARI_GANTT_TASKS)
            d->tasks = json_array();
        else
            d->pixels = pixels_json(&res);
    }
    ari_gantt_result_free(&res);
    if (!d->states)
        return -1;
    return d->tasks || d->pixels ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* Row i's JSON, taking over what *d holds. */
static json_t *row_json(gantt *g, int i, drawn_row *d)
{
    const ari_tq_worker *w = &g->ctx->meta->workers[i];
    json_t *tasks = d->tasks ? d->tasks : json_null(), *pixels = d->pixels ? d->pixels : json_null();
    json_t *states = d->states;
    double idle = d->idle;
    memset(d, 0, sizeof *d);
    return json_pack("{s:I,s:s,s:I,s:s,s:s,s:o,s:o,s:s,s:o,s:o}", "id", (json_int_t)w->id, "name", w->name,
                     "node", (json_int_t)w->node, "resource_type", w->resource_type, "resource", w->resource,
                     "idle", ari_json_num(idle), "states", states, "mode",
                     json_is_null(tasks) ? "pixels" : "tasks", "tasks", tasks, "pixels", pixels);
}

static json_t *marks_json(gantt *g)
{
    ari_task_filter whole = ari_filter_without_window(&g->ctx->filter);
    ari_error err = {0};
    ari_bounds_result bounds;
    if (ari_bounds_result_get(g->r, g->ctx, &whole, &bounds, &err) < 0) {
        ari_bounds_result_free(&bounds);
        ari_log(ARI_LOG_WARN, "gantt: no marks: %s", err.message);
        return json_null();
    }
    json_t *marks = json_pack("{s:o,s:o,s:o}", "makespan", ari_json_num(bounds.all.makespan), "abe",
                              ari_json_num(bounds.all.abe), "cpe", ari_json_num(bounds.all.cpe));
    ari_bounds_result_free(&bounds);
    return marks ? marks : json_null();
}

static json_t *types_json(const ari_tq_meta *m)
{
    json_t *types = json_array();
    for (int k = 0; k < m->ntypes; k++)
        json_array_append_new(types, json_string(m->types[k]));
    return types;
}

/* The rows shown: each drawn, then the task lists of those in tasks
 * mode read at once, then packed. */
static json_t *rows_json(gantt *g, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    drawn_row *d = calloc((size_t)m->nworkers + 1, sizeof *d);
    int rc = d ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int i = 0; rc == 0 && i < m->nworkers; i++)
        if (ari_task_filter_row(&g->ctx->filter, &m->workers[i]))
            rc = draw_row(g, i, &d[i], err);
    if (rc == 0)
        rc = tasks_json(g, d, err);
    json_t *rows = rc == 0 ? json_array() : NULL;
    for (int i = 0; rows && i < m->nworkers; i++) {
        if (!ari_task_filter_row(&g->ctx->filter, &m->workers[i]))
            continue;
        json_t *row = row_json(g, i, &d[i]);
        if (!row || json_array_append_new(rows, row) < 0) {
            json_decref(rows);
            rows = NULL;
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    drawn_free(d, d ? m->nworkers : 0);
    return rows;
}

static json_t *render(gantt *g, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    json_t *rows = rows_json(g, err);
    if (!rows)
        return NULL;
    return json_pack("{s:s,s:f,s:f,s:i,s:{s:f,s:f},s:o,s:o,s:o}", "time_unit", g->ctx->trace.time_unit, "start",
                     g->t0, "end", g->t1, "width", g->width, "extent", "start", m->extent_start, "end",
                     m->extent_end, "types", types_json(m), "rows", rows, "marks", marks_json(g));
}

/* The window: start and end, each defaulting to the trace's extent. */
static int window(ari_request *r, const ari_actx *ctx, double *t0, double *t1)
{
    const ari_task_filter *f = &ctx->filter;
    *t0 = isnan(f->start) ? ctx->meta->extent_start : f->start;
    *t1 = isnan(f->end) ? ctx->meta->extent_end : f->end;
    if (*t1 > *t0 && isfinite(*t1 - *t0))
        return 0;
    if (isnan(f->start) && isnan(f->end)) { /* every task at one instant */
        *t1 = *t0 + 1;
        return 0;
    }
    ari_reply_error(r, 400, "invalid_parameter", "the window [%g, %g] is empty (the trace's tasks span %g..%g)",
                    *t0, *t1, ctx->meta->extent_start, ctx->meta->extent_end);
    return -1;
}

static int type_mask(gantt *g)
{
    const ari_tq_meta *m = g->ctx->meta;
    const ari_task_filter *f = &g->ctx->filter;
    g->type_ok = calloc((size_t)m->ntypes + 1, 1);
    if (!g->type_ok)
        return -1;
    for (int k = 0; k < m->ntypes; k++)
        g->type_ok[k] = !f->types;
    for (size_t i = 0; i < f->ntypes; i++) {
        int k = ari_tq_type_id(m, f->types[i]);
        if (k >= 0)
            g->type_ok[k] = 1;
    }
    return 0;
}

/* The shown rows that the summaries can draw (store/gantt_summaries.h):
 * no type or duration filter, pixels mode for any summarised row of
 * ARI_GANTT_SUMMARY_PIXEL_ROWS+ tasks in the window. Sets g->summary (NULL when none is drawn so); *all says
 * whether every shown row is. */
static int summarise_rows(gantt *g, int *all, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    const ari_task_filter *f = &g->ctx->filter;
    *all = 0;
    if (f->types || !isnan(f->min_duration) || g->max_tasks >= ARI_GANTT_SUMMARY_PIXEL_ROWS)
        return 0;
    if (!(g->summary = calloc((size_t)m->nworkers + 1, sizeof *g->summary)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int drawn = 0, shown = 0;
    for (int i = 0; i < m->nworkers; i++) {
        if (!ari_task_filter_row(f, &m->workers[i]))
            continue;
        shown++;
        int rc = ari_gantt_summary_pixels(g->r->db, g->ctx->trace.id, m, m->workers[i].id, g->t0, g->t1, g->width,
                                          &g->summary[i], err);
        if (rc < 0)
            return -1;
        drawn += rc;
    }
    *all = drawn == shown;
    return 0;
}

static void summaries_free(gantt *g)
{
    for (int i = 0; g->summary && i < g->ctx->meta->nworkers; i++)
        ari_gantt_result_free(&g->summary[i]);
    free(g->summary);
}

/* The tasks of row w in [t0 - its longest task, t1), estimated as if its
 * tasks were spread evenly over its span (a choice of path only: both
 * paths draw the row exactly). */
static double window_tasks(const ari_tq_worker *w, double t0, double t1)
{
    double span = w->last_end - w->first_start;
    if (w->ntasks == 0 || !(span > 0))
        return (double)w->ntasks;
    double lo = t0 - w->max_duration > w->first_start ? t0 - w->max_duration : w->first_start;
    double hi = t1 < w->last_end ? t1 : w->last_end;
    return hi > lo ? (double)w->ntasks * ((hi - lo) / span) : 0;
}

/* PostgreSQL: the tasks of the rows that are drawn from their tasks (few
 * in the window, overlapping, or pixels too narrow for the aggregation),
 * read in one statement (store/gantt_row_reads.h): on a trace spread over
 * shards, every shard reads its rows at once. */
static int read_rows(gantt *g, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    g->read = calloc((size_t)m->nworkers + 1, sizeof *g->read);
    int *rows = malloc(((size_t)m->nworkers + 1) * sizeof *rows);
    double *lo = malloc(((size_t)m->nworkers + 1) * sizeof *lo);
    ari_row_tasks *read = calloc((size_t)m->nworkers + 1, sizeof *read);
    int rc = g->read && rows && lo && read ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int n = 0;
    for (int i = 0; rc == 0 && i < m->nworkers; i++) {
        if (!ari_task_filter_row(&g->ctx->filter, &m->workers[i]) || (g->summary && g->summary[i].mode))
            continue;
        if (g->raw[i] || g->overlaps[i] || !g->sql_exact) {
            rows[n] = i;
            lo[n++] = g->t0 - m->workers[i].max_duration;
        }
    }
    if (rc == 0)
        rc = ari_gantt_read_tasks(g->r->db, g->ctx->trace.id, m, rows, lo, n, g->t1, read, err);
    for (int k = 0; rc == 0 && k < n; k++)
        g->read[rows[k]] = read[k];
    free(rows);
    free(lo);
    free(read);
    return rc;
}

/* PostgreSQL: the rows shown, aggregated by the database in one statement
 * (store/gantt_sql.h), but for the rows read from their tasks as the row
 * cache would draw them: those whose tasks overlap, and those with few
 * tasks in the window (RAW_ROW_TASKS, REMOTE_RAW_ROW_TASKS on shards). */
static int aggregate_in_sql(gantt *g, ari_error *err)
{
    const ari_tq_meta *m = g->ctx->meta;
    unsigned char *shown = calloc((size_t)m->nworkers + 1, 1);
    g->overlaps = calloc((size_t)m->nworkers + 1, 1);
    g->raw = calloc((size_t)m->nworkers + 1, 1);
    if (!shown || !g->overlaps || !g->raw) {
        free(shown);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int remote = ari_pg_shards_trace_remote(g->r->db, g->ctx->trace.id, err);
    if (remote < 0) {
        free(shown);
        return -1;
    }
    double raw_limit = remote ? REMOTE_RAW_ROW_TASKS : RAW_ROW_TASKS;
    int aggregated = 0;
    for (int i = 0; i < m->nworkers; i++) {
        if (!ari_task_filter_row(&g->ctx->filter, &m->workers[i]) || (g->summary && g->summary[i].mode))
            continue;
        g->raw[i] = window_tasks(&m->workers[i], g->t0, g->t1) <= raw_limit;
        shown[i] = !g->raw[i];
        aggregated += shown[i];
    }
    g->sql_exact = ari_gantt_sql_exact(g->t0, g->t1, g->width);
    int rc = aggregated ? ari_gantt_sql_overlaps(g->r->db, g->ctx->trace.id, m, g->overlaps, err) : 0;
    if (rc == 0 && aggregated && g->sql_exact) {
        ari_gantt_sql_query q = {.t0 = g->t0, .t1 = g->t1, .width = g->width,
                                 .min_duration = g->ctx->filter.min_duration, .type_ok = g->type_ok,
                                 .shown = shown};
        rc = ari_gantt_sql_run(g->r->db, g->ctx->trace.id, m, &q, &g->sql, err);
    }
    free(shown);
    return rc < 0 ? -1 : read_rows(g, err);
}

/* ---- at import ---- */

/* What the first Gantt of a trace computes over the whole trace and caches
 * in the database: its marks (the bounds without filters), the outlier
 * thresholds that its tasks mode reads, and on PostgreSQL the rows whose
 * tasks overlap (gantt_sql.h), which a zoomed view asks for first. Each is
 * a window function over every task: in the import's staging file (0.4 s
 * for 177 K tasks), not through postgres_fdw, where a trace on shards
 * would run it on the coordinator (100 s and more for 10.8 M tasks). */
static int prepare_cached(ari_request *r, const ari_actx *ctx, ari_error *err)
{
    ari_bounds_result bounds;
    int rc = ari_bounds_result_get(r, ctx, &ctx->filter, &bounds, err);
    ari_bounds_result_free(&bounds);
    if (rc < 0)
        return -1;
    ari_outlier_result outliers;
    rc = ari_outlier_groups_get(r, ctx, &ctx->filter, &outliers, err);
    ari_outlier_result_free(&outliers);
    if (rc < 0)
        return -1;
    unsigned char *overlaps = malloc((size_t)ctx->meta->nworkers + 1);
    rc = overlaps ? ari_gantt_sql_overlaps(r->db, ctx->trace.id, ctx->meta, overlaps, err)
                  : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    free(overlaps);
    return rc;
}

/* The import step (store/gantt_rows.h): prepare_cached on the staged
 * trace, computed as the first Gantt asks for it, so that it is waiting in
 * the analysis cache (copied with the trace) when that Gantt comes. A
 * request value stands in for the HTTP one: these analyses use only its
 * database. Best effort: a trace whose bounds cannot be computed is
 * imported all the same (its first Gantt says why, as before). */
static int prepare_first_view(ari_store *s, int64_t trace_id, ari_error *unused)
{
    (void)unused;
    double t0 = ari_now();
    ari_request r = {.db = s};
    ari_actx ctx = {.filter = {.start = NAN, .end = NAN, .min_duration = NAN}};
    ari_error err = {0};
    int rc = ari_tq_trace_get(s, trace_id, &ctx.trace, &err);
    if (rc == 0 && ctx.trace.has_tasks)
        rc = ari_tq_meta_get(s, trace_id, &ctx.meta, &err);
    if (rc == 0 && ctx.meta && ctx.meta->ntasks > 0)
        rc = prepare_cached(&r, &ctx, &err);
    if (rc < 0)
        ari_log(ARI_LOG_WARN, "gantt: first view of trace %lld not prepared at import: %s", (long long)trace_id,
                err.message);
    else
        ari_log(ARI_LOG_INFO, "gantt: first view of trace %lld prepared in %.2f s", (long long)trace_id,
                ari_now() - t0);
    ari_actx_close(&ctx);
    return 0;
}

void api_gantt_prepare_at_import(void)
{
    ari_gantt_set_import_step(prepare_first_view);
}

enum MHD_Result api_gantt(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    gantt g = {.r = r, .ctx = &ctx};
    int64_t width;
    const char *with_states = NULL;
    static const char *const booleans[] = {"false", "true", NULL};
    enum MHD_Result res = MHD_YES;
    if (ari_param_int(r, "width", 1000, 1, MAX_WIDTH, &width) < 0 ||
        ari_param_choice(r, "states", booleans, &with_states) < 0 ||
        ari_param_int(r, "max_tasks", width / 2, 0, MAX_TASKS_LIMIT, &g.max_tasks) < 0 ||
        window(r, &ctx, &g.t0, &g.t1) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    g.width = (int)width;
    g.with_states = with_states && strcmp(with_states, "true") == 0;
    ari_error err = {0};
    int ready = -1, all_summarised = 0;
    if (type_mask(&g) < 0)
        ari_error_set(&err, ARI_E_NOMEM, "out of memory");
    else if (summarise_rows(&g, &all_summarised, &err) < 0)
        ready = -1;
    else if (all_summarised)
        ready = 0;
    else if (ari_store_is_pg(r->db))
        ready = aggregate_in_sql(&g, &err);
    else
        ready = (g.rows = ari_rows_acquire(r->db, ctx.meta, ctx.trace.key, &err)) ? 0 : -1;
    if (ready == 0 && g.with_states)
        ready = read_states(&g, &err);
    json_t *doc = ari_set_time_origin(ready == 0 ? render(&g, &err) : NULL, ctx.trace.time_origin);
    res = doc ? ari_reply_analysis(r, doc, GANTT_DIGITS) : ari_reply_from_error(r, &err);
    ari_rows_release(g.rows);
    ari_gantt_sql_result_free(&g.sql);
    summaries_free(&g);
    states_free(&g);
    if (g.read)
        ari_row_reads_free(g.read, ctx.meta->nworkers);
    free(g.read);
    free(g.overlaps);
    free(g.raw);
    free(g.type_ok);
    free(g.threshold);
    free(g.start);
    free(g.end);
    free(g.type);
    ari_actx_close(&ctx);
    return res;
}
