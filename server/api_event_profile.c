/* api_event_profile.c: the function analyses of an event trace (kind
 * "events"; Pipit's set): /flat-profile, /time-profile, /load-imbalance,
 * /idle-time and /caller-callee. The Function states come one location at
 * a time from store/event_state_queries.h into analysis/event_profile.h;
 * this file reads parameters and encodes JSON (docs/api.md, "Event
 * traces"). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/event_profile.h"
#include "event_ctx.h"
#include "handlers.h"
#include "params.h"
#include "reply.h"
#include "store/event_state_queries.h"

#define DEFAULT_TIME_BINS 50
#define MAX_TIME_BINS     10000
#define MAX_TOP           4096
#define MAX_IDLE_NAMES    64
#define MAX_IDLE_NAME     512
#define DEFAULT_ROWS      100000
#define MAX_ROWS          1000000

/* Pipit's idle_time(idle_functions=["Idle"], mpi_events=True) adds
 * MPI_Wait, MPI_Waitall and MPI_Recv; Waitany and Waitsome wait as well. */
static const char *const default_idle[] = {"Idle",        "MPI_Recv",    "MPI_Wait",
                                           "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"};


/* A finite number, or null (an imbalance of 0 / 0). */
static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* ---- one pass over the trace's Function states ---- */

typedef struct run {
    ari_evs_trace t;
    ari_evp *p;
    int64_t *ranks;
} run;

static int feed(void *ctx, const ari_evp_state *st, ari_error *err)
{
    return ari_evp_add(ctx, st, err);
}

static void run_free(run *u)
{
    ari_evp_free(u->p);
    ari_evs_free(&u->t);
    free(u->ranks);
}

/* Loads the trace's locations and names, then streams its states (those
 * touching [w0, w1] when w0 <= w1) into a profile with options o (its
 * loc_rank filled here). idle: names whose calls are idle (NULL none). */
static int run_profile(ari_request *r, int64_t id, ari_evp_options o, const char *const *idle, size_t nidle,
                       double w0, double w1, run *u, ari_error *err)
{
    memset(u, 0, sizeof *u);
    if (ari_evs_load(r->db, id, &u->t, err) < 0)
        return -1;
    u->ranks = malloc(((size_t)u->t.nlocs + 1) * sizeof *u->ranks);
    uint8_t *flags = calloc((size_t)u->t.nnames + 1, 1);
    if (!u->ranks || !flags) {
        free(flags);
        return ari_event_nomem(err);
    }
    for (int32_t i = 0; i < u->t.nlocs; i++)
        u->ranks[i] = u->t.locs[i].rank;
    for (size_t i = 0; i < nidle; i++) {
        int32_t k = ari_evs_name_index(&u->t, idle[i]);
        if (k >= 0)
            flags[k] = 1;
    }
    o.loc_rank = u->ranks;
    o.idle = flags;
    u->p = ari_evp_new(u->t.nlocs, u->t.nnames, &o, err);
    free(flags);
    if (!u->p)
        return -1;
    if (ari_evs_each(r->db, id, &u->t, w0, w1, feed, u->p, err) < 0)
        return -1;
    return ari_evp_finish(u->p, err);
}

/* ---- /flat-profile ---- */

static json_t *functions_json(const run *u, ari_error *err)
{
    ari_evp_func *f;
    size_t n;
    if (ari_evp_functions(u->p, &f, &n, err) < 0)
        return NULL;
    json_t *list = json_array();
    int bad = list ? 0 : ari_event_nomem(err);
    for (size_t i = 0; i < n && !bad; i++)
        bad = ari_event_append(list,
                     json_pack("{s:s,s:f,s:f,s:I,s:I,s:f,s:f}", "name", u->t.names[f[i].name], "inclusive",
                               f[i].inclusive, "exclusive", f[i].exclusive, "count", (json_int_t)f[i].count,
                               "processes", (json_int_t)f[i].processes, "mean_inclusive", f[i].mean_inclusive,
                               "mean_exclusive", f[i].mean_exclusive),
                     err);
    free(f);
    if (bad) {
        json_decref(list);
        return NULL;
    }
    return list;
}

/* The (location, function) rows [offset, offset + limit). */
static json_t *rows_json(const run *u, int64_t offset, int64_t limit, ari_error *err)
{
    size_t n;
    const ari_evp_cell *c = ari_evp_cells(u->p, &n);
    size_t first = (uint64_t)offset < n ? (size_t)offset : n;
    c += first;
    n = (uint64_t)limit < n - first ? (size_t)limit : n - first;
    json_t *list = json_array();
    int bad = list ? 0 : ari_event_nomem(err);
    for (size_t i = 0; i < n && !bad; i++) {
        const ari_evs_location *l = &u->t.locs[c[i].loc];
        bad = ari_event_append(list,
                     json_pack("{s:I,s:I,s:s,s:f,s:f,s:I}", "rank", (json_int_t)l->rank, "thread",
                               (json_int_t)l->thread, "name", u->t.names[c[i].name], "inclusive",
                               c[i].inclusive, "exclusive", c[i].exclusive, "count", (json_int_t)c[i].count),
                     err);
    }
    if (bad) {
        json_decref(list);
        return NULL;
    }
    return list;
}

enum MHD_Result api_event_flat_profile(ari_request *r)
{
    static const char *const pers[] = {"total", "process", NULL};
    const char *per;
    int64_t offset, limit;
    if (ari_param_choice(r, "per", pers, &per) < 0 ||
        ari_param_int(r, "offset", 0, 0, INT64_MAX, &offset) < 0 ||
        ari_param_int(r, "limit", DEFAULT_ROWS, 1, MAX_ROWS, &limit) < 0)
        return MHD_YES;
    int by_process = per && strcmp(per, "process") == 0;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    run u;
    json_t *doc = NULL;
    ari_evp_options o = {0};
    if (run_profile(r, t.id, o, NULL, 0, NAN, NAN, &u, &err) == 0) {
        size_t total;
        ari_evp_cells(u.p, &total);
        json_t *list = by_process ? rows_json(&u, offset, limit, &err) : functions_json(&u, &err);
        if (list && by_process)
            doc = json_pack("{s:s,s:I,s:I,s:I,s:o}", "per", "process", "total", (json_int_t)total, "offset",
                            (json_int_t)offset, "limit", (json_int_t)limit, "rows", list);
        else if (list)
            doc = json_pack("{s:s,s:o}", "per", "total", "functions", list);
    }
    run_free(&u);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /time-profile ---- */

/* bins, the window (default: the trace's first to last time) and
 * normalized (0, 1, false, true). */
static int time_params(ari_request *r, int64_t *bins, double *start, double *end, int *normalized)
{
    static const char *const flags[] = {"0", "1", "false", "true", NULL};
    const char *norm;
    if (ari_param_int(r, "bins", DEFAULT_TIME_BINS, 1, MAX_TIME_BINS, bins) < 0 ||
        ari_param_window(r, start, end) < 0 || ari_param_choice(r, "normalized", flags, &norm) < 0)
        return -1;
    *normalized = norm && (strcmp(norm, "1") == 0 || strcmp(norm, "true") == 0);
    return 0;
}

static json_t *reals(const double *v, int n, double scale)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(v ? v[i] * scale : 0)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

typedef struct series {
    int32_t name;
    double total;
} series;

static int cmp_series(const void *a, const void *b)
{
    const series *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* The functions with time in the range, by their total desc. */
static json_t *series_json(const run *u, int bins, double scale, ari_error *err)
{
    series *s = malloc(((size_t)u->t.nnames + 1) * sizeof *s);
    json_t *list = json_array();
    if (!s || !list) {
        free(s);
        json_decref(list);
        ari_event_nomem(err);
        return NULL;
    }
    size_t n = 0;
    for (int32_t k = 0; k < u->t.nnames; k++) {
        const double *v = ari_evp_tp_values(u->p, k);
        if (!v)
            continue;
        double total = 0;
        for (int i = 0; i < bins; i++)
            total += v[i];
        s[n++] = (series){k, total};
    }
    qsort(s, n, sizeof *s, cmp_series);
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = ari_event_append(list,
                     json_pack("{s:s,s:o}", "name", u->t.names[s[i].name], "values",
                               reals(ari_evp_tp_values(u->p, s[i].name), bins, scale)),
                     err);
    free(s);
    if (bad) {
        json_decref(list);
        return NULL;
    }
    return list;
}

enum MHD_Result api_event_time_profile(ari_request *r)
{
    int64_t bins;
    double start, end;
    int normalized;
    if (time_params(r, &bins, &start, &end, &normalized) < 0)
        return MHD_YES;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *doc = NULL;
    run u = {0};
    double t0, t1;
    if (ari_evs_extent(r->db, t.id, &t0, &t1, &err) < 0)
        return ari_event_reply(r, &t, NULL, &err);
    if (!isnan(start))
        t0 = start;
    if (!isnan(end))
        t1 = end;
    if (!(t1 > t0)) {
        if (!isnan(start) || !isnan(end)) {
            ari_event_trace_close(&t);
            return ari_reply_error(r, 400, "invalid_parameter", "the window [%g, %g] is empty", t0, t1);
        }
        t1 = t0 + 1; /* a trace without time: one empty unit */
    }
    ari_evp_options o = {.bins = (int)bins, .t0 = t0, .t1 = t1};
    if (run_profile(r, t.id, o, NULL, 0, t0, t1, &u, &err) == 0) {
        double width = ari_evp_tp_bin_duration(u.p);
        double total = width * u.t.nlocs;
        double scale = normalized && total > 0 ? 1 / total : 1;
        json_t *edges = reals(ari_evp_tp_edges(u.p), (int)bins + 1, 1);
        json_t *list = series_json(&u, (int)bins, scale, &err);
        json_t *idle = reals(ari_evp_tp_idle(u.p), (int)bins, scale);
        if (edges && list && idle)
            doc = json_pack("{s:I,s:O,s:f,s:I,s:b,s:f,s:f,s:O,s:O}", "bins", (json_int_t)bins, "edges", edges,
                            "bin_duration", width, "locations", (json_int_t)u.t.nlocs, "normalized",
                            normalized, "start", t0, "end", t1, "series", list, "idle", idle);
        else if (!err.code[0])
            ari_event_nomem(&err);
        json_decref(edges);
        json_decref(list);
        json_decref(idle);
    }
    run_free(&u);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /load-imbalance ---- */

enum MHD_Result api_event_load_imbalance(ari_request *r)
{
    static const char *const metrics[] = {"time.exc", "time.inc", NULL};
    static const char *const sorts[] = {"imbalance", "mean", NULL};
    const char *metric, *sort;
    int64_t top;
    if (ari_param_choice(r, "metric", metrics, &metric) < 0 ||
        ari_param_choice(r, "sort", sorts, &sort) < 0 || ari_param_int(r, "top", 1, 1, MAX_TOP, &top) < 0)
        return MHD_YES;
    int inclusive = metric && strcmp(metric, "time.inc") == 0;
    int by_mean = sort && strcmp(sort, "mean") == 0;
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *doc = NULL;
    run u;
    ari_evp_options o = {0};
    ari_evp_imb *v = NULL;
    size_t n = 0;
    if (run_profile(r, t.id, o, NULL, 0, NAN, NAN, &u, &err) == 0 &&
        ari_evp_imbalance(u.p, inclusive, (int)top, by_mean, &v, &n, &err) == 0) {
        json_t *list = json_array();
        int bad = list ? 0 : ari_event_nomem(&err);
        for (size_t i = 0; i < n && !bad; i++) {
            json_t *ranks = json_array(), *values = json_array();
            for (int k = 0; ranks && values && k < v[i].ntop; k++) {
                json_array_append_new(ranks, json_integer(v[i].top_ranks[k]));
                json_array_append_new(values, json_real(v[i].top_values[k]));
            }
            bad = ari_event_append(list,
                         json_pack("{s:s,s:f,s:f,s:o,s:o,s:o}", "name", u.t.names[v[i].name], "mean",
                                   v[i].mean, "max", v[i].max, "imbalance", number(v[i].imbalance),
                                   "top_ranks", ranks, "top_values", values),
                         &err);
        }
        if (!bad)
            doc = json_pack("{s:s,s:I,s:s,s:o}", "metric", inclusive ? "time.inc" : "time.exc", "top",
                            (json_int_t)top, "sort", by_mean ? "mean" : "imbalance", "functions", list);
        else
            json_decref(list);
    }
    ari_evp_imbalance_free(v, n);
    run_free(&u);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /idle-time ---- */

/* functions=a,b,c: names split at commas (empty items skipped); *n 0 when
 * absent. -1 after a 400. */
static int idle_names(ari_request *r, char **buf, const char **names, size_t *n)
{
    *buf = NULL;
    *n = 0;
    const char *v = ari_param(r, "functions");
    if (!v)
        return 0;
    if (strlen(v) > MAX_IDLE_NAMES * MAX_IDLE_NAME) {
        ari_reply_error(r, 400, "invalid_parameter", "functions is too long (at most %d names)",
                        MAX_IDLE_NAMES);
        return -1;
    }
    if (!(*buf = strdup(v))) {
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
        return -1;
    }
    char *save = NULL;
    for (char *tok = strtok_r(*buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n >= MAX_IDLE_NAMES || strlen(tok) > MAX_IDLE_NAME) {
            ari_reply_error(r, 400, "invalid_parameter",
                            "functions must list at most %d names of at most %d bytes", MAX_IDLE_NAMES,
                            MAX_IDLE_NAME);
            free(*buf);
            *buf = NULL;
            return -1;
        }
        names[(*n)++] = tok;
    }
    if (*n == 0) {
        ari_reply_error(r, 400, "invalid_parameter", "functions must list at least one function name");
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

enum MHD_Result api_event_idle_time(ari_request *r)
{
    char *buf;
    const char *given[MAX_IDLE_NAMES];
    size_t ngiven;
    if (idle_names(r, &buf, given, &ngiven) < 0)
        return MHD_YES;
    const char *const *names = ngiven ? given : default_idle;
    size_t nnames = ngiven ? ngiven : sizeof default_idle / sizeof default_idle[0];
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0) {
        free(buf);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = NULL;
    run u;
    ari_evp_options o = {0};
    if (run_profile(r, t.id, o, names, nnames, NAN, NAN, &u, &err) == 0) {
        json_t *fl = json_array(), *ranks = json_array();
        int bad = fl && ranks ? 0 : ari_event_nomem(&err);
        for (size_t i = 0; i < nnames && !bad; i++)
            bad = ari_event_append(fl, json_string(names[i]), &err);
        const ari_evp_loc *locs = ari_evp_locs(u.p);
        for (int32_t i = 0; i < u.t.nlocs && !bad; i++)
            bad = ari_event_append(ranks,
                         json_pack("{s:I,s:I,s:f,s:f,s:o}", "rank", (json_int_t)u.t.locs[i].rank, "thread",
                                   (json_int_t)u.t.locs[i].thread, "idle", locs[i].idle, "total",
                                   locs[i].total, "share",
                                   locs[i].total > 0 ? json_real(locs[i].idle / locs[i].total) : json_null()),
                         &err);
        if (!bad)
            doc = json_pack("{s:O,s:O}", "functions", fl, "ranks", ranks);
        json_decref(fl);
        json_decref(ranks);
    }
    run_free(&u);
    free(buf);
    return ari_event_reply(r, &t, doc, &err);
}

/* ---- /caller-callee ---- */

enum MHD_Result api_event_caller_callee(ari_request *r)
{
    ari_tq_trace t;
    if (ari_event_trace_open(r, &t) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *doc = NULL;
    run u;
    ari_evp_options o = {0};
    if (run_profile(r, t.id, o, NULL, 0, NAN, NAN, &u, &err) == 0) {
        size_t n;
        int64_t with_parent, with_children;
        const ari_evp_pair *p = ari_evp_pairs(u.p, &n, &with_parent, &with_children);
        json_t *list = json_array();
        int bad = list ? 0 : ari_event_nomem(&err);
        for (size_t i = 0; i < n && !bad; i++)
            bad = ari_event_append(list,
                         json_pack("{s:s,s:s,s:I,s:f}", "caller", u.t.names[p[i].caller], "callee",
                                   u.t.names[p[i].callee], "count", (json_int_t)p[i].count, "inclusive",
                                   p[i].inclusive),
                         &err);
        if (!bad)
            doc = json_pack("{s:I,s:I,s:o}", "with_parent", (json_int_t)with_parent, "with_children",
                            (json_int_t)with_children, "pairs", list);
        else
            json_decref(list);
    }
    run_free(&u);
    return ari_event_reply(r, &t, doc, &err);
}
