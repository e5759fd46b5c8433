/* api_timeseries.c: GET /api/v1/traces/{id}/timeseries (StarPU's ready and
 * submitted task counts per pixel, and the starving periods) and
 * GET /api/v1/traces/{id}/iterations (one segment per outer-loop
 * iteration, cached per filter). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"

#define MAX_WIDTH 10000
#define SERIES_DIGITS 12

/* ---- merged step functions ---- */

/* A change of one part's value. */
typedef struct change {
    double t;
    int part;
    double value;
} change;

static int by_time(const void *a, const void *b)
{
    const change *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

/* The sum of several step functions, walked in time order. */
typedef struct stepsum {
    change *ch;
    size_t n, next;
    double *cur;     /* [nparts] current value of each part */
    int *started;
    int nparts, defined;
    double sum;
} stepsum;

/* The changes of the parts whose index is in `parts` (all when NULL). */
static int stepsum_init(stepsum *s, const ari_tq_series *series, int nseries, const int64_t *node)
{
    memset(s, 0, sizeof *s);
    size_t total = 0;
    for (int i = 0; i < nseries; i++)
        if (!node || series[i].node == *node)
            total += (size_t)series[i].n;
    s->ch = malloc((total + 1) * sizeof *s->ch);
    s->cur = calloc((size_t)nseries + 1, sizeof *s->cur);
    s->started = calloc((size_t)nseries + 1, sizeof *s->started);
    if (!s->ch || !s->cur || !s->started)
        return -1;
    s->nparts = nseries;
    for (int i = 0; i < nseries; i++) {
        if (node && series[i].node != *node)
            continue;
        for (int64_t j = 0; j < series[i].n; j++)
            s->ch[s->n++] = (change){series[i].times[j], i, series[i].values[j]};
    }
    qsort(s->ch, s->n, sizeof *s->ch, by_time);
    return 0;
}

static void stepsum_free(stepsum *s)
{
    free(s->ch);
    free(s->cur);
    free(s->started);
}

/* Applies every change at the next change time; returns that time. */
static double stepsum_advance(stepsum *s)
{
    double t = s->ch[s->next].t;
    while (s->next < s->n && s->ch[s->next].t == t) {
        const change *c = &s->ch[s->next++];
        s->sum += c->value - s->cur[c->part];
        s->cur[c->part] = c->value;
        s->started[c->part] = 1;
        s->defined = 1;
    }
    return t;
}

static int has_change_before(const stepsum *s, double t, int inclusive)
{
    return s->next < s->n && (inclusive ? s->ch[s->next].t <= t : s->ch[s->next].t < t);
}

/* [t, min, max, last] per pixel where the sum is defined. */
static json_t *points_json(stepsum *s, double t0, double t1, int width)
{
    json_t *points = json_array();
    double dt = (t1 - t0) / width;
    for (int p = 0; p < width; p++) {
        double p0 = t0 + p * dt, p1 = p + 1 == width ? t1 : t0 + (p + 1) * dt;
        while (has_change_before(s, p0, 1))
            stepsum_advance(s);
        double lo = s->sum, hi = s->sum;
        int seen = s->defined;
        while (has_change_before(s, p1, 0)) {
            stepsum_advance(s);
            lo = seen ? fmin(lo, s->sum) : s->sum;
            hi = seen ? fmax(hi, s->sum) : s->sum;
            seen = 1;
        }
        if (seen)
            json_array_append_new(points, json_pack("[f,f,f,f]", p0, lo, hi, s->sum));
    }
    return points;
}

/* Appends [a, b] to the starving periods, merging it with the previous one
 * when they are less than `gap` apart. */
static void add_period(json_t *list, double a, double b, double gap)
{
    size_t n = json_array_size(list);
    json_t *last = n ? json_array_get(list, n - 1) : NULL;
    if (last && a - json_real_value(json_array_get(last, 1)) < gap) {
        json_array_set_new(last, 1, json_real(b));
        return;
    }
    json_array_append_new(list, json_pack("[f,f]", a, b));
}

/* Periods in [t0, t1] when the sum is defined and below threshold. */
static json_t *starved_json(stepsum *s, double t0, double t1, double threshold, double gap)
{
    json_t *list = json_array();
    double t = -INFINITY;
    for (;;) {
        double next = s->next < s->n ? s->ch[s->next].t : INFINITY;
        double a = fmax(t, t0), b = fmin(next, t1);
        if (s->defined && s->sum < threshold && b > a)
            add_period(list, a, b, gap);
        if (next >= t1 || s->next >= s->n)
            break;
        t = stepsum_advance(s);
    }
    return list;
}

/* ---- /timeseries ---- */

static json_t *one_series(const char *name, const int64_t *node, const ari_tq_series *series, int n, double t0,
                          double t1, int width)
{
    stepsum s;
    json_t *points = NULL;
    if (stepsum_init(&s, series, n, node) == 0)
        points = points_json(&s, t0, t1, width);
    stepsum_free(&s);
    if (!points)
        return NULL;
    return json_pack("{s:s,s:o,s:o}", "name", name, "node", node ? json_integer(*node) : json_null(), "points",
                     points);
}

/* Adds the series of one variable: summed, or one per node. */
static int add_series(json_t *list, const char *name, const ari_tq_series *series, int n, int per_node,
                      const ari_tq_meta *m, double t0, double t1, int width)
{
    if (!per_node) {
        json_t *one = one_series(name, NULL, series, n, t0, t1, width);
        return one ? json_array_append_new(list, one) : -1;
    }
    for (int j = 0; j < m->nnodes; j++) {
        int any = 0;
        for (int i = 0; i < n; i++)
            any |= series[i].node == m->nodes[j];
        if (!any)
            continue;
        json_t *one = one_series(name, &m->nodes[j], series, n, t0, t1, width);
        if (!one || json_array_append_new(list, one) < 0)
            return -1;
    }
    return 0;
}

static int default_threshold(const ari_actx *ctx)
{
    int n = 0;
    for (int i = 0; i < ctx->meta->nworkers; i++)
        n += ari_task_filter_row(&ctx->filter, &ctx->meta->workers[i]);
    return n;
}

static json_t *timeseries(ari_request *r, const ari_actx *ctx, double t0, double t1, int width, int per_node,
                          double threshold, ari_error *err)
{
    ari_tq_series *ready = NULL, *submitted = NULL;
    int nready = 0, nsubmitted = 0;
    json_t *doc = NULL;
    if (ari_tq_series_load(r->db, ctx->trace.id, ARI_TQ_READY, &ctx->filter, t0, t1, &ready, &nready, err) == 0 &&
        ari_tq_series_load(r->db, ctx->trace.id, ARI_TQ_SUBMITTED, &ctx->filter, t0, t1, &submitted, &nsubmitted,
                           err) == 0) {
        json_t *series = json_array();
        stepsum s;
        json_t *starved = stepsum_init(&s, ready, nready, NULL) == 0
                              ? starved_json(&s, t0, t1, threshold, (t1 - t0) / width)
                              : NULL;
        stepsum_free(&s);
        if (starved && add_series(series, "ready", ready, nready, per_node, ctx->meta, t0, t1, width) == 0 &&
            add_series(series, "submitted", submitted, nsubmitted, per_node, ctx->meta, t0, t1, width) == 0)
            doc = json_pack("{s:s,s:f,s:f,s:i,s:O,s:O,s:f}", "time_unit", ctx->trace.time_unit, "start", t0,
                            "end", t1, "width", width, "series", series, "starved", starved, "threshold",
                            threshold);
        json_decref(series);
        json_decref(starved);
        if (!doc)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_tq_series_free(ready, nready);
    ari_tq_series_free(submitted, nsubmitted);
    return doc;
}

enum MHD_Result api_timeseries(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    int64_t width, per_node;
    double threshold;
    double t0 = isnan(ctx.filter.start) ? ctx.meta->extent_start : ctx.filter.start;
    double t1 = isnan(ctx.filter.end) ? ctx.meta->extent_end : ctx.filter.end;
    if (!(t1 > t0) && isnan(ctx.filter.start) && isnan(ctx.filter.end))
        t1 = t0 + 1;
    enum MHD_Result res = MHD_YES;
    if (ari_param_int(r, "width", 1000, 1, MAX_WIDTH, &width) < 0 ||
        ari_param_int(r, "per_node", 0, 0, 1, &per_node) < 0 ||
        ari_param_number(r, "threshold", default_threshold(&ctx), 0, 1e15, &threshold) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    if (!(t1 > t0) || !isfinite(t1 - t0)) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "the window [%g, %g] is empty (the trace's tasks span %g..%g)", t0, t1,
                        ctx.meta->extent_start, ctx.meta->extent_end);
    } else {
        ari_error err = {0};
        json_t *doc = timeseries(r, &ctx, t0, t1, (int)width, (int)per_node, threshold, &err);
        res = doc ? ari_reply_analysis(r, doc, SERIES_DIGITS) : ari_reply_from_error(r, &err);
    }
    ari_actx_close(&ctx);
    return res;
}

/* ---- /iterations ---- */

static int by_iteration(const void *a, const void *b, void *arg)
{
    const ari_tq_tasks *t = arg;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (t->iteration[x] != t->iteration[y])
        return t->iteration[x] < t->iteration[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* One iteration: tasks idx[from .. to). */
static json_t *iteration_json(const ari_tq_meta *m, const ari_tq_tasks *t, const int64_t *idx, size_t from,
                              size_t to, int64_t *per_type)
{
    memset(per_type, 0, (size_t)m->ntypes * sizeof *per_type);
    double start = INFINITY, end = -INFINITY;
    for (size_t j = from; j < to; j++) {
        int64_t i = idx[j];
        start = fmin(start, t->start[i]);
        end = fmax(end, t->end[i]);
        per_type[t->type[i]]++;
    }
    json_t *types = json_object();
    for (int k = 0; k < m->ntypes; k++)
        if (per_type[k])
            json_object_set_new(types, m->types[k], json_integer(per_type[k]));
    return json_pack("{s:I,s:f,s:f,s:I,s:o}", "iteration", (json_int_t)t->iteration[idx[from]], "start",
                     start, "end", end, "tasks", (json_int_t)(to - from), "types", types);
}

static json_t *compute_iterations(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                                  ari_error *err)
{
    (void)extra;
    const ari_tq_meta *m = ctx->meta;
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 0, &t, err) < 0)
        return NULL;
    int64_t *idx = malloc(((size_t)t.n + 1) * sizeof *idx);
    int64_t *per_type = malloc(((size_t)m->ntypes + 1) * sizeof *per_type);
    json_t *list = json_array();
    size_t n = 0;
    for (int64_t i = 0; idx && i < t.n; i++)
        if (t.iteration[i] != ARI_TQ_NO_ITERATION)
            idx[n++] = i;
    if (idx && per_type) {
        qsort_r(idx, n, sizeof *idx, by_iteration, &t);
        for (size_t from = 0; from < n;) {
            size_t to = from + 1;
            while (to < n && t.iteration[idx[to]] == t.iteration[idx[from]])
                to++;
            json_array_append_new(list, iteration_json(m, &t, idx, from, to, per_type));
            from = to;
        }
    }
    json_t *doc = idx && per_type ? json_pack("{s:o}", "iterations", list) : NULL;
    if (!doc) {
        json_decref(list);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    free(idx);
    free(per_type);
    ari_tq_tasks_free(&t);
    return doc;
}

enum MHD_Result api_iterations(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    ari_error err = {0};
    json_t *doc = ari_analysis_cached(r, &ctx, "iterations", &ctx.filter, "", compute_iterations, NULL, &err);
    return ari_actx_reply(r, &ctx, doc, &err);
}
