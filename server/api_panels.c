/* api_panels.c: GET /api/v1/traces/{id}/panels: StarVZ's panels under the
 * Gantt (memory used per memory node, GPU and MPI transfer bandwidth,
 * GFlop/s over time) as series on the trace's time axis (the Gantt's: the
 * stored times, shifted to the trace's origin at import), aggregated
 * server-side into `width` equal steps of [start, end]. The variables come
 * from store/variable_queries.h and are summarised by
 * analysis/step_buckets.h (time-weighted per step); GFlop/s from the tasks
 * by analysis/gflops_rate.h; the memory-manager states, the memory used
 * from the data handles present and the GPU bandwidth of traces without a
 * bandwidth variable (from their links) by server/panels_memory.c. Every
 * answer lists each panel with whether
 * this trace has its data (and why not): a missing panel is no error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gflops_rate.h"
#include "analysis/step_buckets.h"
#include "analysis_ctx.h"
#include "handlers.h"
#include "panels_memory.h"
#include "params.h"
#include "reply.h"
#include "store/memory_queries.h"
#include "store/variable_queries.h"
#include "time_origin.h"

#define MAX_WIDTH    10000
#define PANEL_DIGITS 12

enum { P_MEMORY, P_GPU, P_MPI, P_GFLOPS, P_MMSTATES, P_HANDLES, NPANELS };

static const struct panel_def {
    const char *id, *title, *unit, *missing;
} PANELS[NPANELS] = {
    [P_MEMORY] = {"memory", "Memory used per memory node", "MB",
                  "the trace has no 'Used (MB)' variable (StarPU writes one per memory manager)"},
    [P_GPU] =
        {"gpu_bandwidth", "GPU transfer bandwidth out, per memory node", "MB/s",
         "no memory node other than 0 (main RAM) carries 'Bandwidth Out (MB/s)' and no link goes from or to "
         "one: the run had no GPU"},
    [P_MPI] = {"mpi_bandwidth", "MPI transfer bandwidth out, per node", "MB/s",
               "no MPI communication thread (mpict) carries 'Bandwidth Out (MB/s)': not a StarPU-MPI run"},
    [P_GFLOPS] = {"gflops", "GFlop/s per node and resource type", "GFlop/s",
                  "no task has a GFlop count (tasks.rec GFlop or the application's own)"},
    [P_MMSTATES] = {"memory_states", "Memory manager states per memory node", "share of time",
                    "the trace has no 'Memory Node State' state other than Nothing (starpu_fxt_tool "
                    "-memory-states writes them)"},
    [P_HANDLES] =
        {"memory_handles", "Memory used per memory node, from the data handles present", "MB",
         "no 'data state owner/shared/invalid' event of a memory manager names a handle of data.rec "
         "with a Size"},
};

static const ari_vq_kind VQ_KIND[] = {
    [P_MEMORY] = ARI_VQ_MEMORY, [P_GPU] = ARI_VQ_GPU_BANDWIDTH, [P_MPI] = ARI_VQ_MPI_BANDWIDTH};

/* The window and the steps every panel shares. */
typedef struct panel_req {
    double t0, t1;
    int width;
    int wanted[NPANELS];
} panel_req;

/* panels=memory,gflops: 0, or -1 after answering 400. */
static int parse_panels(ari_request *r, int *wanted)
{
    const char *p = ari_param(r, "panels");
    for (int k = 0; k < NPANELS; k++)
        wanted[k] = !p;
    while (p && *p) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < NPANELS; k++)
            if (strlen(PANELS[k].id) == len && strncmp(p, PANELS[k].id, len) == 0)
                found = k;
        if (found < 0 || (p[len] == ',' && p[len + 1] == '\0')) {
            char buf[ARI_PRINTABLE_SIZE];
            ari_reply_error(
                r, 400, "invalid_parameter",
                "panels must list some of memory, gpu_bandwidth, mpi_bandwidth, gflops, memory_states, "
                "memory_handles (comma-separated), "
                "got '%s'",
                ari_printable(ari_param(r, "panels"), buf));
            return -1;
        }
        wanted[found] = 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static int node_listed(const ari_task_filter *f, int64_t node)
{
    for (size_t i = 0; i < f->nnodes; i++)
        if (f->nodes[i] == node)
            return 1;
    return f->nnodes == 0;
}

/* "Used (MB)" -> "MB"; def when there are no parentheses. */
static json_t *unit_of(const char *name, const char *def)
{
    const char *a = strrchr(name, '('), *b = a ? strchr(a, ')') : NULL;
    return b && b > a + 1 ? json_stringn(a + 1, (size_t)(b - a - 1)) : json_string(def);
}

/* ---- variables ---- */

static json_t *bucket_points(const ari_step_bucket *b, const panel_req *q)
{
    json_t *points = json_array();
    double dt = (q->t1 - q->t0) / q->width;
    for (int k = 0; k < q->width; k++)
        if (b[k].covered > 0)
            json_array_append_new(points,
                                  json_pack("[f,f,f,f]", q->t0 + k * dt, b[k].mean, b[k].min, b[k].max));
    return points;
}

static json_t *variable_series(ari_request *r, const ari_actx *ctx, ari_vq_series *one, const panel_req *q,
                               ari_error *err)
{
    ari_step_bucket *b = malloc((size_t)q->width * sizeof *b);
    if (!b) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    json_t *doc = NULL;
    if (ari_vq_series_rows(r->db, ctx->trace.id, one, q->t0, q->t1, err) == 0 &&
        ari_step_buckets(one->start, one->end, one->value, (size_t)one->n, q->t0, q->t1, q->width, b, err) ==
            0)
        doc = json_pack("{s:s,s:s,s:s,s:I,s:I,s:o}", "name", one->container, "container", one->container,
                        "variable", one->variable, "node", (json_int_t)one->node, "rows",
                        (json_int_t)one->nrows, "points", bucket_points(b, q));
    free(b);
    return doc;
}

/* The series of a variable panel (an empty list when the trace has none). */
static int variable_panel(ari_request *r, const ari_actx *ctx, int k, const panel_req *q, json_t *panel,
                          ari_error *err)
{
    ari_vq_series *series;
    int n;
    if (ari_vq_series_find(r->db, ctx->trace.id, VQ_KIND[k], &series, &n, err) < 0)
        return -1;
    json_t *list = json_array();
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        if (!node_listed(&ctx->filter, series[i].node))
            continue;
        json_t *one = variable_series(r, ctx, &series[i], q, err);
        rc = one ? json_array_append_new(list, one) : -1;
    }
    if (rc == 0) {
        json_object_set_new(panel, "unit", unit_of(n ? series[0].variable : "", PANELS[k].unit));
        json_object_set_new(panel, "aggregation",
                            json_string("time-weighted mean of the variable over each step"));
        json_object_set_new(panel, "columns", json_pack("[s,s,s,s]", "t", "mean", "min", "max"));
    }
    json_object_set_new(panel, "series", list);
    ari_vq_series_free(series, n);
    return rc;
}

/* ---- GFlop/s ---- */

static double seconds_per_unit(const char *unit)
{
    static const struct {
        const char *unit;
        double s;
    } table[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"usec", 1e-6}, {"ns", 1e-9}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(unit, table[i].unit) == 0)
            return table[i].s;
    return 1;
}

/* Group of a task: node index * nrestypes + resource type. */
static int *task_groups(const ari_tq_tasks *t, const ari_tq_meta *m)
{
    int *g = malloc(((size_t)t->n + 1) * sizeof *g);
    for (int64_t i = 0; g && i < t->n; i++) {
        int node = 0;
        while (node < m->nnodes && m->nodes[node] != t->node[i])
            node++;
        g[i] = node < m->nnodes ? node * m->nrestypes + t->restype[i] : -1;
    }
    return g;
}

static json_t *rate_series(const ari_tq_tasks *t, const int *g, const ari_tq_meta *m, int group,
                           const double *rate, const panel_req *q)
{
    int64_t ntasks = 0;
    double gflop = 0;
    for (int64_t i = 0; i < t->n; i++)
        if (g[i] == group && t->gflop[i] > 0) {
            ntasks++;
            gflop += t->gflop[i];
        }
    if (!ntasks)
        return NULL;
    int64_t node = m->nodes[group / m->nrestypes];
    const char *rt = m->restypes[group % m->nrestypes];
    json_t *points = json_array();
    double dt = (q->t1 - q->t0) / q->width;
    for (int k = 0; k < q->width; k++)
        json_array_append_new(points, json_pack("[f,f]", q->t0 + k * dt, rate[k]));
    json_t *name = m->nnodes > 1 ? json_sprintf("node %lld %s", (long long)node, rt) : json_string(rt);
    return json_pack("{s:o,s:I,s:s,s:I,s:f,s:o}", "name", name, "node", (json_int_t)node, "resource_type", rt,
                     "tasks", (json_int_t)ntasks, "gflop", gflop, "points", points);
}

static int gflops_series(const ari_actx *ctx, const ari_tq_tasks *t, const panel_req *q, json_t *list,
                         ari_error *err)
{
    const ari_tq_meta *m = ctx->meta;
    int ngroups = m->nnodes * m->nrestypes;
    int *g = task_groups(t, m);
    double *rate = malloc(((size_t)ngroups * (size_t)q->width + 1) * sizeof *rate);
    int rc = g && rate ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = ari_gflops_rate((size_t)t->n, t->start, t->end, t->gflop, g, ngroups, q->t0, q->t1, q->width,
                             seconds_per_unit(ctx->trace.time_unit), rate, err);
    for (int k = 0; rc == 0 && k < ngroups; k++) {
        json_t *one = rate_series(t, g, m, k, rate + (size_t)k * (size_t)q->width, q);
        if (one)
            json_array_append_new(list, one);
    }
    free(g);
    free(rate);
    return rc;
}

static int gflops_panel(ari_request *r, const ari_actx *ctx, const panel_req *q, json_t *panel,
                        ari_error *err)
{
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, ctx->meta, &ctx->filter, 0, &t, err) < 0)
        return -1;
    json_t *list = json_array();
    int rc = gflops_series(ctx, &t, q, list, err);
    json_object_set_new(panel, "unit", json_string("GFlop/s"));
    json_object_set_new(panel, "aggregation",
                        json_string("each task's GFlop spread uniformly over its duration, summed per step"));
    json_object_set_new(panel, "columns", json_pack("[s,s]", "t", "gflops"));
    json_object_set_new(panel, "series", list);
    ari_tq_tasks_free(&t);
    return rc;
}

/* ---- the document ---- */

/* The number of series of a variable panel, -1 on error. */
static int variable_count(ari_request *r, const ari_actx *ctx, int k, ari_error *err)
{
    ari_vq_series *series;
    int n;
    if (ari_vq_series_find(r->db, ctx->trace.id, VQ_KIND[k], &series, &n, err) < 0)
        return -1;
    ari_vq_series_free(series, n);
    return n;
}

/* The panel's content: 0 or -1. The GPU panel reads the links when the
 * trace has no GPU bandwidth variable. */
static int panel_fill(ari_request *r, const ari_actx *ctx, int k, const panel_req *q, json_t *panel,
                      ari_error *err)
{
    if (k == P_GFLOPS)
        return gflops_panel(r, ctx, q, panel, err);
    if (k == P_MMSTATES)
        return ari_panel_memory_states(r, ctx, q->t0, q->t1, q->width, panel, err);
    if (k == P_HANDLES)
        return ari_panel_memory_handles(r, ctx, q->t0, q->t1, q->width, panel, err);
    int n = k == P_GPU ? variable_count(r, ctx, k, err) : 1;
    if (n < 0)
        return -1;
    return n == 0 ? ari_panel_gpu_links(r, ctx, q->t0, q->t1, q->width, panel, err)
                  : variable_panel(r, ctx, k, q, panel, err);
}

/* 1 when the trace has the panel's data, 0 if not, -1 on error. */
static int has_data(ari_request *r, const ari_actx *ctx, int k, ari_error *err)
{
    if (k == P_GFLOPS)
        return ari_vq_tasks_have_gflop(r->db, ctx->trace.id, err);
    if (k == P_MMSTATES)
        return ari_mq_have_states(r->db, ctx->trace.id, err);
    if (k == P_HANDLES)
        return ari_mq_have_presence(r->db, ctx->trace.id, err);
    int n = variable_count(r, ctx, k, err);
    return n != 0 || k != P_GPU ? n : ari_mq_have_gpu_links(r->db, ctx->trace.id, err);
}

static json_t *panel_json(ari_request *r, const ari_actx *ctx, int k, const panel_req *q, ari_error *err)
{
    json_t *panel = json_pack("{s:s,s:s}", "id", PANELS[k].id, "title", PANELS[k].title);
    int rc = panel_fill(r, ctx, k, q, panel, err);
    if (rc < 0) {
        json_decref(panel);
        return NULL;
    }
    return panel;
}

static json_t *panels_json(ari_request *r, const ari_actx *ctx, const panel_req *q, ari_error *err)
{
    json_t *available = json_array(), *panels = json_array();
    int rc = 0;
    for (int k = 0; rc == 0 && k < NPANELS; k++) {
        int has = has_data(r, ctx, k, err);
        rc = has < 0 ? -1 : 0;
        if (rc < 0)
            break;
        json_t *a =
            json_pack("{s:s,s:s,s:b}", "id", PANELS[k].id, "title", PANELS[k].title, "available", has);
        if (!has)
            json_object_set_new(a, "reason", json_string(PANELS[k].missing));
        json_array_append_new(available, a);
        json_t *p = has && q->wanted[k] ? panel_json(r, ctx, k, q, err) : NULL;
        if (has && q->wanted[k])
            rc = p ? json_array_append_new(panels, p) : -1;
    }
    if (rc < 0) {
        json_decref(available);
        json_decref(panels);
        return NULL;
    }
    return json_pack("{s:f,s:f,s:i,s:f,s:o,s:o}", "start", q->t0, "end", q->t1, "width", q->width, "step",
                     (q->t1 - q->t0) / q->width, "available", available, "panels", panels);
}

enum MHD_Result api_panels(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    panel_req q;
    int64_t width;
    q.t0 = isnan(ctx.filter.start) ? ctx.meta->extent_start : ctx.filter.start;
    q.t1 = isnan(ctx.filter.end) ? ctx.meta->extent_end : ctx.filter.end;
    if (!(q.t1 > q.t0) && isnan(ctx.filter.start) && isnan(ctx.filter.end))
        q.t1 = q.t0 + 1;
    if (ari_param_int(r, "width", 1000, 1, MAX_WIDTH, &width) < 0 || parse_panels(r, q.wanted) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    q.width = (int)width;
    if (!(q.t1 > q.t0) || !isfinite(q.t1 - q.t0)) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "the window [%g, %g] is empty (the trace's tasks span %g..%g)", q.t0, q.t1,
                        ctx.meta->extent_start, ctx.meta->extent_end);
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = panels_json(r, &ctx, &q, &err);
    if (doc)
        json_object_set_new(doc, "time_unit", json_string(ctx.trace.time_unit));
    doc = ari_set_time_origin(doc, ctx.trace.time_origin);
    enum MHD_Result res = doc ? ari_reply_analysis(r, doc, PANEL_DIGITS) : ari_reply_from_error(r, &err);
    ari_actx_close(&ctx);
    return res;
}
