/* api_compare.c: GET /api/v1/compare?traces=1,2,3: two to six task traces
 * side by side: a common extent and type list, and per trace its name,
 * makespan, bounds, idleness (StarVZ's), outlier count, tasks and workers (the
 * analysis filters apply to every trace). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gantt_aggregation.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"
#include "time_origin.h"

#define MIN_TRACES 2
#define MAX_TRACES 6

/* StarVZ's idleness (1 - task time / (t1 - t0), see the Gantt) of the
 * filtered rows in the window [t0, t1], averaged over the rows. */
static int idle_share(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, double t0, double t1,
                      double *out, ari_error *err)
{
    ari_rows *rows = ari_rows_acquire(r->db, ctx->meta, ctx->trace.key, err);
    if (!rows)
        return -1;
    double sum = 0;
    int n = 0;
    for (int i = 0; i < ctx->meta->nworkers && t1 > t0; i++) {
        if (!ari_task_filter_row(f, &ctx->meta->workers[i]))
            continue;
        const ari_row_tasks *row = &rows->rows[i];
        sum += ari_gantt_idle(row->start, row->end, row->ntasks, t0, t1);
        n++;
    }
    ari_rows_release(rows);
    *out = n ? sum / n : NAN;
    return 0;
}

static json_t *trace_json(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, ari_error *err)
{
    ari_bounds_result bounds;
    ari_outlier_result outliers = {0};
    int ok = ari_bounds_result_get(r, ctx, f, &bounds, err) == 0 &&
             ari_outliers_result_get(r, ctx, f, &outliers, err) == 0;
    double t0 = isnan(f->start) ? ctx->meta->extent_start : f->start;
    double t1 = isnan(f->end) ? ctx->meta->extent_end : f->end;
    double idle = NAN;
    json_t *doc = NULL;
    if (ok && idle_share(r, ctx, f, t0, t1, &idle, err) == 0) {
        const ari_bounds_scope *b = &bounds.all;
        doc = json_pack("{s:I,s:s,s:o,s:o,s:o,s:o,s:I,s:I,s:I}", "id", (json_int_t)ctx->trace.id, "name",
                        ctx->trace.name, "makespan", ari_json_num(b->makespan), "abe", ari_json_num(b->abe), "cpe",
                        ari_json_num(b->cpe), "idle", ari_json_num(idle), "outliers", (json_int_t)outliers.noutliers,
                        "tasks", (json_int_t)b->tasks, "workers", (json_int_t)b->workers);
        if (!doc)
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
        ari_set_time_origin(doc, ctx->trace.time_origin); /* each trace's own origin */
    }
    ari_bounds_result_free(&bounds);
    ari_outlier_result_free(&outliers);
    return doc;
}

static int add_types(json_t *types, const ari_tq_meta *m)
{
    for (int k = 0; k < m->ntypes; k++) {
        size_t i;
        json_t *v;
        int seen = 0;
        json_array_foreach(types, i, v) seen |= strcmp(json_string_value(v), m->types[k]) == 0;
        if (!seen && json_array_append_new(types, json_string(m->types[k])) < 0)
            return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

static json_t *sorted_types(ari_actx *ctxs, int n)
{
    json_t *types = json_array();
    for (int i = 0; i < n; i++)
        add_types(types, ctxs[i].meta);
    size_t count = json_array_size(types);
    json_t **items = malloc((count + 1) * sizeof *items);
    if (!items) {
        json_decref(types);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        items[i] = json_incref(json_array_get(types, i));
    qsort(items, count, sizeof *items, by_name);
    json_t *sorted = json_array();
    for (size_t i = 0; i < count; i++)
        json_array_append_new(sorted, items[i]);
    free(items);
    json_decref(types);
    return sorted;
}

static json_t *compare(ari_request *r, ari_actx *ctxs, int n, const ari_task_filter *f, ari_error *err)
{
    json_t *traces = json_array();
    double start = INFINITY, end = -INFINITY;
    for (int i = 0; i < n; i++) {
        json_t *one = trace_json(r, &ctxs[i], f, err);
        if (!one) {
            json_decref(traces);
            return NULL;
        }
        json_array_append_new(traces, one);
        start = fmin(start, ctxs[i].meta->extent_start);
        end = fmax(end, ctxs[i].meta->extent_end);
    }
    if (!isnan(f->start))
        start = f->start;
    if (!isnan(f->end))
        end = f->end;
    const char *unit = ctxs[0].trace.time_unit;
    for (int i = 1; i < n; i++)
        if (strcmp(ctxs[i].trace.time_unit, unit) != 0)
            unit = "mixed";
    return json_pack("{s:s,s:{s:f,s:f},s:o,s:o}", "time_unit", unit, "extent", "start", start, "end", end,
                     "types", sorted_types(ctxs, n), "traces", traces);
}

enum MHD_Result api_compare(ari_request *r)
{
    int64_t ids[MAX_TRACES];
    int n;
    if (ari_param_trace_ids(r, MIN_TRACES, MAX_TRACES, ids, &n) < 0)
        return MHD_YES;
    ari_actx ctxs[MAX_TRACES];
    ari_tq_meta *metas[MAX_TRACES];
    int opened = 0;
    ari_task_filter f;
    memset(&f, 0, sizeof f);
    enum MHD_Result res = MHD_YES;
    for (; opened < n; opened++) {
        if (ari_actx_open_trace(r, ids[opened], &ctxs[opened]) < 0)
            break;
        metas[opened] = ctxs[opened].meta;
    }
    if (opened == n && ari_filter_parse(r, &f) == 0) {
        if (ari_filter_check(r, &f, metas, n) == 0) {
            ari_error err = {0};
            json_t *doc = compare(r, ctxs, n, &f, &err);
            res = doc ? ari_reply_analysis(r, doc, 17) : ari_reply_from_error(r, &err);
        }
        ari_filter_free(&f);
    }
    for (int i = 0; i < opened; i++)
        ari_actx_close(&ctxs[i]);
    return res;
}
