/* api_elimination_tree.c: the elimination-tree panels of qr_mumps-like traces
 * (analysis/elimination_tree.h), column-oriented JSON:
 *
 *   GET /api/v1/traces/{id}/atree?slice=&metric=time|gflops
 *       layout, lifespans, per-slice computation cells, init and assembly
 *       tasks, LR_LOG anomalies as dots (the tree panel; /tree is the
 *       call-graph profile export, hence /atree);
 *   GET /api/v1/traces/{id}/tree-utilization?by=node|depth&slice=
 *   GET /api/v1/traces/{id}/tree-memory?slice=
 *   GET /api/v1/traces/{id}/tree-compare?other=&slice=&metric=
 *
 * A trace without an atree answers 409 no_tree. Results are cached per
 * filter and parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/elimination_tree.h"
#include "analysis/regression.h"
#include "analysis_ctx.h"
#include "handlers.h"
#include "json_arrays.h"
#include "params.h"
#include "reply.h"
#include "time_origin.h"
#include "store/tree_queries.h"

#define DEFAULT_SLICE 100.0

static const char *const metric_choices[] = {"time", "gflops", NULL};
static const char *const by_choices[] = {"node", "depth", NULL};

typedef struct tree_params {
    double slice;
    int metric;  /* ari_et_metric */
    int by_depth;
    int64_t other;
} tree_params;

/* A loaded and laid-out tree. */
typedef struct tree_ctx {
    ari_tree_data data;
    ari_et_input in;
    ari_et_tree tree;
    ari_et_slices slices;
} tree_ctx;

static void tree_ctx_free(tree_ctx *t)
{
    ari_et_tree_free(&t->tree);
    ari_tree_data_free(&t->data);
}

static int tree_ctx_load(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, double slice, tree_ctx *t,
                         ari_error *err)
{
    memset(t, 0, sizeof *t);
    if (ari_tree_load(r->db, ctx->trace.id, ctx->meta, f, &t->data, err) < 0)
        return -1;
    t->in = ari_tree_input(&t->data);
    if (ari_et_layout(&t->in, &t->tree, err) < 0 || ari_et_slicing(&t->tree, slice, &t->slices, err) < 0) {
        tree_ctx_free(t);
        return -1;
    }
    return 0;
}

/* ---- JSON helpers ---- */

static json_t *num_or_null(double x)
{
    return ari_json_num(x);
}

static json_t *id_of(const ari_et_tree *t, int index)
{
    return index < 0 ? json_null() : json_integer(t->nodes[index].id);
}

static const char *node_type_name(int type)
{
    return type == ARI_ET_NODE_PRUNED ? "pruned" : type == ARI_ET_NODE_NOT_PRUNED ? "not_pruned" : NULL;
}

static json_t *nodes_json(const ari_et_tree *t)
{
    json_t *id = json_array(), *parent = json_array(), *depth = json_array(), *pos = json_array(),
           *height = json_array(), *type = json_array(), *inter = json_array(), *start = json_array(),
           *end = json_array(), *fc = json_array(), *lc = json_array(), *ntasks = json_array();
    for (size_t i = 0; i < t->nnodes; i++) {
        const ari_et_node *n = &t->nodes[i];
        json_array_append_new(id, json_integer(n->id));
        json_array_append_new(parent, n->parent < 0 ? json_null() : json_integer(n->parent));
        json_array_append_new(depth, json_integer(n->depth));
        json_array_append_new(pos, num_or_null(n->position));
        json_array_append_new(height, num_or_null(n->height));
        const char *tn = node_type_name(n->type);
        json_array_append_new(type, tn ? json_string(tn) : json_null());
        json_array_append_new(inter, json_boolean(n->intermediary));
        json_array_append_new(start, num_or_null(n->start));
        json_array_append_new(end, num_or_null(n->end));
        json_array_append_new(fc, num_or_null(n->first_compute));
        json_array_append_new(lc, num_or_null(n->last_compute));
        json_array_append_new(ntasks, json_integer(n->ntasks));
    }
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "id", id, "parent", parent, "depth", depth,
                     "position", pos, "height", height, "type", type, "intermediary", inter, "start", start, "end",
                     end, "first_compute", fc, "last_compute", lc, "tasks", ntasks);
}

static json_t *cells_json(const ari_et_tree *t, const ari_et_cell *c, size_t n)
{
    json_t *node = json_array(), *pruned = json_array(), *slice = json_array(), *x0 = json_array(),
           *x1 = json_array(), *value = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(node, id_of(t, c[i].node));
        json_array_append_new(pruned, json_boolean(c[i].pruned));
        json_array_append_new(slice, json_integer(c[i].slice));
        json_array_append_new(x0, json_real(c[i].x0));
        json_array_append_new(x1, json_real(c[i].x1));
        json_array_append_new(value, json_real(c[i].value));
    }
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "node", node, "pruned", pruned, "slice", slice, "x0", x0, "x1",
                     x1, "value", value);
}

/* Tasks of some kinds as (node, start, end[, type, job_id]) columns. */
static json_t *tasks_json(const tree_ctx *t, const ari_tq_meta *m, int kind_a, int kind_b, const unsigned char *only)
{
    json_t *node = json_array(), *start = json_array(), *end = json_array(), *type = json_array(),
           *job = json_array();
    for (size_t k = 0; k < t->data.ntasks; k++) {
        const ari_et_task *task = &t->data.tasks[k];
        int i = t->tree.task_node[k];
        if (i < 0 || (only ? !only[k] : task->kind != kind_a && task->kind != kind_b))
            continue;
        json_array_append_new(node, json_integer(t->tree.nodes[i].id));
        json_array_append_new(start, json_real(task->start));
        json_array_append_new(end, json_real(task->end));
        json_array_append_new(type, json_string(m->types[task->type]));
        json_array_append_new(job, json_string(t->data.ids + t->data.id_off[k]));
    }
    return json_pack("{s:o,s:o,s:o,s:o,s:o}", "node", node, "start", start, "end", end, "type", type, "job_id", job);
}

/* LR_LOG anomalies of the loaded tasks, grouped as /anomalies does. */
static unsigned char *tree_anomalies(const tree_ctx *t, const ari_tq_meta *m, size_t *count, ari_error *err)
{
    size_t n = t->data.ntasks;
    int only_qrt = 0;
    for (int k = 0; k < m->ntypes; k++)
        only_qrt |= strcasestr(m->types[k], "qrt") != NULL;
    int ngroups = m->ntypes * m->nrestypes;
    int *group = malloc((n + 1) * sizeof *group);
    double *g = malloc((n + 1) * sizeof *g), *d = malloc((n + 1) * sizeof *d);
    ari_reg_fit *fits = malloc(((size_t)ngroups + 1) * sizeof *fits);
    unsigned char *flag = malloc(n + 1);
    if (!group || !g || !d || !fits || !flag) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(flag);
        flag = NULL;
    }
    for (size_t k = 0; flag && k < n; k++) {
        const ari_et_task *task = &t->data.tasks[k];
        g[k] = task->gflop;
        d[k] = ari_tq_duration(task->start, task->end);
        int ok = ari_reg_usable(g[k], d[k]) && (!only_qrt || strcasestr(m->types[task->type], "qrt"));
        group[k] = ok ? t->data.restype[k] * m->ntypes + task->type : -1;
    }
    if (flag && ari_reg_classify_groups(ARI_REG_LOG, n, group, ngroups, g, d, fits, flag, err) < 0) {
        free(flag);
        flag = NULL;
    }
    *count = 0;
    for (size_t k = 0; flag && k < n; k++)
        *count += flag[k];
    free(group);
    free(g);
    free(d);
    free(fits);
    return flag;
}

/* The computations' colour limits (GFlops: the data's range). */
static json_t *scale_json(const ari_et_cell *c, size_t n, int metric)
{
    if (metric == ARI_ET_METRIC_TIME)
        return json_pack("{s:f,s:f,s:s}", "min", 0.0, "max", 100.0, "label", "Computational Load %");
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, c[i].value);
        hi = fmax(hi, c[i].value);
    }
    return json_pack("{s:o,s:o,s:s}", "min", num_or_null(n ? lo : NAN), "max", num_or_null(n ? hi : NAN), "label",
                     "GFlop per slice");
}

static json_t *base_doc(const tree_ctx *t)
{
    return json_pack("{s:f,s:i,s:f,s:i,s:i,s:i,s:i,s:I}", "slice", t->slices.step, "slices", t->slices.n, "end",
                     t->slices.end, "rows", t->tree.nrows, "max_depth", t->tree.maxdepth, "workers", t->in.workers,
                     "workers_depth", t->in.workers_depth, "dropped_tasks", (json_int_t)t->tree.dropped);
}

/* ---- /atree ---- */

static json_t *compute_atree(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                             ari_error *err)
{
    const tree_params *p = extra;
    tree_ctx t;
    if (tree_ctx_load(r, ctx, f, p->slice, &t, err) < 0)
        return NULL;
    ari_et_cell *cells = NULL;
    size_t ncells = 0, nanom = 0;
    unsigned char *anom = NULL;
    json_t *doc = NULL;
    if (ari_et_cells(&t.in, &t.tree, &t.slices, (ari_et_metric)p->metric, &cells, &ncells, err) == 0 &&
        (anom = tree_anomalies(&t, ctx->meta, &nanom, err)) != NULL) {
        doc = base_doc(&t);
        json_object_set_new(doc, "metric", json_string(metric_choices[p->metric]));
        json_object_set_new(doc, "scale", scale_json(cells, ncells, p->metric));
        json_object_set_new(doc, "nodes", nodes_json(&t.tree));
        json_object_set_new(doc, "cells", cells_json(&t.tree, cells, ncells));
        json_object_set_new(doc, "init", tasks_json(&t, ctx->meta, ARI_ET_INIT_FRONT, ARI_ET_INIT_BLOCK, NULL));
        json_object_set_new(doc, "assembly", tasks_json(&t, ctx->meta, ARI_ET_ASSEMBLY, ARI_ET_ASSEMBLY, NULL));
        json_object_set_new(doc, "anomalies", tasks_json(&t, ctx->meta, 0, 0, anom));
        json_object_set_new(doc, "anomaly_model", json_string("lr_log"));
    }
    free(cells);
    free(anom);
    tree_ctx_free(&t);
    return doc;
}

/* ---- /tree-utilization ---- */

static json_t *util_nodes_json(const tree_ctx *t, const ari_et_util_nodes *u)
{
    json_t *layers = json_array();
    for (int c = 0; c < u->ncolors; c++) {
        json_t *node = json_array();
        for (int k = 0; k < u->nslices; k++)
            json_array_append_new(node, id_of(&t->tree, u->node[(size_t)c * (size_t)u->nslices + (size_t)k]));
        json_array_append_new(layers,
                              json_pack("{s:i,s:o,s:o}", "color", c, "value",
                                        ari_json_reals(u->value + (size_t)c * (size_t)u->nslices, u->nslices),
                                        "node", node));
    }
    return layers;
}

static json_t *compute_utilization(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                                   ari_error *err)
{
    const tree_params *p = extra;
    tree_ctx t;
    if (tree_ctx_load(r, ctx, f, p->slice, &t, err) < 0)
        return NULL;
    json_t *doc = NULL;
    if (p->by_depth) {
        double *v;
        if (ari_et_util_by_depth(&t.in, &t.tree, &t.slices, &v, err) == 0) {
            json_t *depths = json_array();
            for (int d = 0; d <= t.tree.maxdepth; d++)
                json_array_append_new(
                    depths, json_pack("{s:i,s:o}", "depth", d, "value",
                                      ari_json_reals(v + (size_t)d * (size_t)t.slices.n, t.slices.n)));
            doc = base_doc(&t);
            json_object_set_new(doc, "by", json_string("depth"));
            json_object_set_new(doc, "depths", depths);
            free(v);
        }
    } else {
        ari_et_util_nodes u;
        if (ari_et_util_by_node(&t.in, &t.tree, &t.slices, &u, err) == 0) {
            doc = base_doc(&t);
            json_object_set_new(doc, "by", json_string("node"));
            json_object_set_new(doc, "colors", json_integer(u.ncolors));
            json_object_set_new(doc, "layers", util_nodes_json(&t, &u));
            ari_et_util_nodes_free(&u);
        }
    }
    tree_ctx_free(&t);
    return doc;
}

/* ---- /tree-memory ---- */

static json_t *series_json(const ari_et_series *s)
{
    return json_pack("{s:o,s:o}", "t", ari_json_reals(s->time, s->n), "value",
                     ari_json_reals(s->value, s->n));
}

static json_t *mean_json(const ari_et_series *s, const ari_et_slices *sl)
{
    double *v = malloc(((size_t)sl->n + 1) * sizeof *v);
    if (!v)
        return json_null();
    ari_et_series_mean(s, sl, v);
    json_t *a = ari_json_reals(v, sl->n);
    free(v);
    return a;
}

static json_t *compute_memory(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                              ari_error *err)
{
    const tree_params *p = extra;
    tree_ctx t;
    if (tree_ctx_load(r, ctx, f, p->slice, &t, err) < 0)
        return NULL;
    ari_et_memory m;
    json_t *doc = NULL;
    if (ari_et_memory_series(&t.in, &t.tree, &m, err) == 0) {
        doc = base_doc(&t);
        int has_memory = m.memory.n > 0 && m.peak_mb > 0;
        json_object_set_new(doc, "raw", json_pack("{s:o,s:o,s:o}", "pruned", series_json(&m.active[0]),
                                                  "not_pruned", series_json(&m.active[1]), "memory",
                                                  series_json(&m.memory)));
        json_object_set_new(doc, "aggregated", json_pack("{s:o,s:o,s:o}", "pruned", mean_json(&m.active[0], &t.slices),
                                                         "not_pruned", mean_json(&m.active[1], &t.slices), "memory",
                                                         mean_json(&m.memory, &t.slices)));
        json_object_set_new(doc, "has_memory", json_boolean(has_memory));
        json_object_set_new(doc, "peak_mb", has_memory ? json_real(m.peak_mb) : json_null());
        json_object_set_new(doc, "peak_time", has_memory ? json_real(m.peak_time) : json_null());
        json_object_set_new(doc, "events", json_pack("{s:I,s:I,s:I}", "init_front", (json_int_t)m.init_events,
                                                     "do_subtree", (json_int_t)m.subtree_events, "clean_front",
                                                     (json_int_t)m.clean_events));
        ari_et_memory_free(&m);
    }
    tree_ctx_free(&t);
    return doc;
}

/* ---- /tree-compare ---- */

/* Same nodes with the same parents? */
static int same_tree(const ari_tree_data *a, const ari_tree_data *b)
{
    if (a->nnodes != b->nnodes)
        return 0;
    for (size_t i = 0; i < a->nnodes; i++) /* both ORDER BY node */
        if (a->node[i] != b->node[i] || a->parent[i] != b->parent[i])
            return 0;
    return 1;
}

static double makespan(const tree_ctx *t)
{
    return t->tree.end;
}

static json_t *diff_json(const ari_et_diff *d, size_t n)
{
    static const char *const status[] = {"concurrent", "only_faster", "only_slower"};
    json_t *node = json_array(), *pruned = json_array(), *slice = json_array(), *fa = json_array(),
           *sl = json_array(), *diff = json_array(), *st = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(node, json_integer(d[i].node));
        json_array_append_new(pruned, json_boolean(d[i].pruned));
        json_array_append_new(slice, json_integer(d[i].slice));
        json_array_append_new(fa, json_real(d[i].faster));
        json_array_append_new(sl, json_real(d[i].slower));
        json_array_append_new(diff, json_real(d[i].diff));
        json_array_append_new(st, json_string(status[d[i].status]));
    }
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "node", node, "pruned", pruned, "slice", slice, "faster", fa,
                     "slower", sl, "diff", diff, "status", st);
}

/* C_k = sum over j <= k of the per-slice totals' difference. */
static json_t *cumulative_json(const ari_et_diff *d, size_t n, int nslices)
{
    double *per = calloc((size_t)nslices + 1, sizeof *per);
    if (!per)
        return json_null();
    for (size_t i = 0; i < n; i++)
        if (d[i].slice < nslices)
            per[d[i].slice] += d[i].diff;
    json_t *a = json_array();
    double c = 0;
    for (int k = 0; k < nslices; k++) {
        c += per[k];
        json_array_append_new(a, json_real(c));
    }
    free(per);
    return a;
}

static json_t *compare_doc(const ari_actx *ca, const ari_actx *cb, tree_ctx *a, tree_ctx *b, const tree_params *p,
                           ari_error *err)
{
    int a_faster = makespan(a) <= makespan(b);
    tree_ctx *fast = a_faster ? a : b, *slow = a_faster ? b : a;
    ari_et_cell *cf = NULL, *cs = NULL;
    ari_et_diff *d = NULL;
    size_t nf = 0, ns = 0, nd = 0;
    json_t *doc = NULL;
    /* one slicing for both: up to the slower run's end */
    ari_et_slices sl;
    if (ari_et_slicing(&slow->tree, p->slice, &sl, err) == 0 &&
        ari_et_cells(&fast->in, &fast->tree, &sl, (ari_et_metric)p->metric, &cf, &nf, err) == 0 &&
        ari_et_cells(&slow->in, &slow->tree, &sl, (ari_et_metric)p->metric, &cs, &ns, err) == 0 &&
        ari_et_compare(&fast->tree, cf, nf, &slow->tree, cs, ns, &d, &nd, err) == 0) {
        const ari_actx *cfast = a_faster ? ca : cb, *cslow = a_faster ? cb : ca;
        doc = json_pack("{s:I,s:I,s:s,s:s,s:f,s:f,s:f,s:i,s:s}", "faster", (json_int_t)cfast->trace.id, "slower",
                        (json_int_t)cslow->trace.id, "faster_name", cfast->trace.name, "slower_name",
                        cslow->trace.name, "faster_makespan", makespan(fast), "slower_makespan", makespan(slow),
                        "slice", sl.step, "slices", sl.n, "metric", metric_choices[p->metric]);
        json_object_set_new(doc, "rows", json_integer(slow->tree.nrows));
        json_object_set_new(doc, "nodes", nodes_json(&slow->tree));
        json_object_set_new(doc, "cells", diff_json(d, nd));
        json_object_set_new(doc, "cumulative", cumulative_json(d, nd, sl.n));
    }
    free(cf);
    free(cs);
    free(d);
    return doc;
}

/* ---- handlers ---- */

static int parse_params(ari_request *r, tree_params *p)
{
    const char *metric, *by;
    memset(p, 0, sizeof *p);
    if (ari_param_number(r, "slice", DEFAULT_SLICE, 1e-9, 1e12, &p->slice) < 0 ||
        ari_param_choice(r, "metric", metric_choices, &metric) < 0 || ari_param_choice(r, "by", by_choices, &by) < 0)
        return -1;
    p->metric = metric && strcmp(metric, "gflops") == 0 ? ARI_ET_METRIC_GFLOPS : ARI_ET_METRIC_TIME;
    p->by_depth = by && strcmp(by, "depth") == 0;
    return 0;
}

/* 409 no_tree when the trace has no elimination tree. */
static int require_tree(ari_request *r, const ari_actx *ctx)
{
    ari_error err = {0};
    int64_t n = ari_tree_count(r->db, ctx->trace.id, &err);
    if (n < 0) {
        ari_reply_from_error(r, &err);
        return -1;
    }
    if (n == 0) {
        ari_reply_error(r, 409, "no_tree", "trace %lld has no elimination tree (atree.csv or atree.dot)",
                        (long long)ctx->trace.id);
        return -1;
    }
    return 0;
}

static enum MHD_Result serve_panel(ari_request *r, const char *analysis, ari_compute_fn compute)
{
    ari_actx ctx;
    tree_params p;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    if (parse_params(r, &p) < 0 || require_tree(r, &ctx) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    char extra[96];
    snprintf(extra, sizeof extra, "slice=%.17g;metric=%d;by=%d", p.slice, p.metric, p.by_depth);
    ari_error err = {0};
    json_t *doc = ari_analysis_cached(r, &ctx, analysis, &ctx.filter, extra, compute, &p, &err);
    enum MHD_Result res;
    if (!doc) {
        res = ari_reply_from_error(r, &err);
    } else {
        ari_set_time_origin(doc, ctx.trace.time_origin);
        json_object_set_new(doc, "time_unit", json_string(ctx.trace.time_unit));
        res = ari_reply_analysis(r, doc, 10);
    }
    ari_actx_close(&ctx);
    return res;
}

enum MHD_Result api_atree(ari_request *r)
{
    return serve_panel(r, "atree", compute_atree);
}

enum MHD_Result api_tree_utilization(ari_request *r)
{
    return serve_panel(r, "tree-utilization", compute_utilization);
}

enum MHD_Result api_tree_memory(ari_request *r)
{
    return serve_panel(r, "tree-memory", compute_memory);
}

enum MHD_Result api_tree_compare(ari_request *r)
{
    ari_actx a, b;
    tree_params p;
    int64_t other;
    if (ari_actx_open(r, &a) < 0)
        return MHD_YES;
    if (parse_params(r, &p) < 0 || require_tree(r, &a) < 0) {
        ari_actx_close(&a);
        return MHD_YES;
    }
    if (!ari_param(r, "other")) {
        ari_actx_close(&a);
        return ari_reply_error(r, 400, "invalid_parameter", "other (the id of the trace to compare with) is required");
    }
    if (ari_param_int(r, "other", 0, 1, INT64_MAX, &other) < 0) {
        ari_actx_close(&a);
        return MHD_YES;
    }
    if (ari_actx_open_trace(r, other, &b) < 0) {
        ari_actx_close(&a);
        return MHD_YES;
    }
    enum MHD_Result res = MHD_YES;
    if (require_tree(r, &b) == 0) {
        ari_error err = {0};
        tree_ctx ta, tb;
        if (tree_ctx_load(r, &a, &a.filter, p.slice, &ta, &err) < 0) {
            res = ari_reply_from_error(r, &err);
        } else {
            if (tree_ctx_load(r, &b, &a.filter, p.slice, &tb, &err) < 0) {
                res = ari_reply_from_error(r, &err);
            } else {
                if (!same_tree(&ta.data, &tb.data)) {
                    res = ari_reply_error(r, 409, "different_trees",
                                          "traces %lld and %lld do not have the same elimination tree",
                                          (long long)a.trace.id, (long long)b.trace.id);
                } else {
                    json_t *doc = compare_doc(&a, &b, &ta, &tb, &p, &err);
                    if (!doc) {
                        res = ari_reply_from_error(r, &err);
                    } else {
                        ari_set_time_origin(doc, a.trace.time_origin); /* times of the first trace */
                        json_object_set_new(doc, "time_unit", json_string(a.trace.time_unit));
                        res = ari_reply_analysis(r, doc, 10);
                    }
                }
                tree_ctx_free(&tb);
            }
            tree_ctx_free(&ta);
        }
    }
    ari_actx_close(&a);
    ari_actx_close(&b);
    return res;
}
