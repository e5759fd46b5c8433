/* api_timeseries.c: GET /api/v1/traces/{id}/timeseries (StarPU's ready and
 * submitted task counts per pixel, and the starving periods) and
 * GET /api/v1/traces/{id}/iterations (one segment per outer-loop
 * iteration, cached per filter). The step-function sums are
 * analysis/timeseries.h's, the grouping analysis/iterations.h's; this file
 * loads, parses and encodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/iterations.h"
#include "analysis/timeseries.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "time_origin.h"
#include "reply.h"

#define MAX_WIDTH 10000
#define SERIES_DIGITS 12

_Static_assert(ARI_ITERATIONS_NONE == ARI_TQ_NO_ITERATION, "one value for 'no iteration'");

/* ---- /timeseries ---- */

/* The store's series as the analysis's (views, freed with free()). */
static ari_ts_series *series_of(const ari_tq_series *series, int n)
{
    ari_ts_series *out = malloc(((size_t)n + 1) * sizeof *out);
    for (int i = 0; out && i < n; i++)
        out[i] = (ari_ts_series){series[i].node, series[i].n, series[i].times, series[i].values};
    return out;
}

static json_t *points_json(const ari_ts_point *p, size_t n)
{
    json_t *points = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(points, json_pack("[f,f,f,f]", p[i].t, p[i].min, p[i].max, p[i].last));
    return points;
}

static json_t *starved_json(const ari_ts_period *p, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_pack("[f,f]", p[i].start, p[i].end));
    return list;
}

static json_t *one_series(const char *name, const int64_t *node, const ari_ts_series *series, int n, double t0,
                          double t1, int width)
{
    ari_ts_point *p;
    size_t np;
    ari_error err = {0};
    if (ari_ts_points(series, n, node, t0, t1, width, &p, &np, &err) < 0)
        return NULL;
    json_t *points = points_json(p, np);
    free(p);
    return json_pack("{s:s,s:o,s:o}", "name", name, "node", node ? json_integer(*node) : json_null(), "points",
                     points);
}

/* Adds the series of one variable: summed, or one per node. */
static int add_series(json_t *list, const char *name, const ari_ts_series *series, int n, int per_node,
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

/* The document of both variables' series and the starving periods. */
static json_t *timeseries_json(const ari_actx *ctx, const ari_ts_series *ready, int nready,
                               const ari_ts_series *submitted, int nsubmitted, double t0, double t1, int width,
                               int per_node, double threshold, ari_error *err)
{
    ari_ts_period *periods;
    size_t nperiods;
    if (ari_ts_starved(ready, nready, t0, t1, threshold, (t1 - t0) / width, &periods, &nperiods, err) < 0)
        return NULL;
    json_t *series = json_array(), *starved = starved_json(periods, nperiods), *doc = NULL;
    free(periods);
    if (add_series(series, "ready", ready, nready, per_node, ctx->meta, t0, t1, width) == 0 &&
        add_series(series, "submitted", submitted, nsubmitted, per_node, ctx->meta, t0, t1, width) == 0)
        doc = json_pack("{s:s,s:f,s:f,s:i,s:O,s:O,s:f}", "time_unit", ctx->trace.time_unit, "start", t0, "end",
                        t1, "width", width, "series", series, "starved", starved, "threshold", threshold);
    json_decref(series);
    json_decref(starved);
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return doc;
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
        ari_ts_series *rs = series_of(ready, nready), *ss = series_of(submitted, nsubmitted);
        if (rs && ss)
            doc = timeseries_json(ctx, rs, nready, ss, nsubmitted, t0, t1, width, per_node, threshold, err);
        else
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(rs);
        free(ss);
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
        json_t *doc = ari_set_time_origin(timeseries(r, &ctx, t0, t1, (int)width, (int)per_node, threshold, &err),
                                          ctx.trace.time_origin);
        res = doc ? ari_reply_analysis(r, doc, SERIES_DIGITS) : ari_reply_from_error(r, &err);
    }
    ari_actx_close(&ctx);
    return res;
}

/* ---- /iterations ---- */

static json_t *iterations_json(const ari_tq_meta *m, const ari_iterations *it)
{
    json_t *list = json_array();
    for (size_t j = 0; j < it->n; j++) {
        const ari_iteration *one = &it->items[j];
        json_t *types = json_object();
        for (int k = 0; k < m->ntypes; k++)
            if (one->per_type[k])
                json_object_set_new(types, m->types[k], json_integer(one->per_type[k]));
        json_array_append_new(list, json_pack("{s:I,s:f,s:f,s:I,s:o}", "iteration", (json_int_t)one->iteration,
                                              "start", one->start, "end", one->end, "tasks",
                                              (json_int_t)one->tasks, "types", types));
    }
    return json_pack("{s:o}", "iterations", list);
}

static json_t *compute_iterations(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                                  ari_error *err)
{
    (void)extra;
    const ari_tq_meta *m = ctx->meta;
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 0, &t, err) < 0)
        return NULL;
    ari_iterations it;
    json_t *doc = NULL;
    if (ari_iterations_compute(t.n, t.iteration, t.start, t.end, t.type, m->ntypes, &it, err) == 0) {
        doc = iterations_json(m, &it);
        if (!doc)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        ari_iterations_free(&it);
    }
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
