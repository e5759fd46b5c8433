/* api_bounds.c: GET /api/v1/traces/{id}/bounds: the makespan, the span
 * (last end - first start, what a bound compares with), the area bound
 * (ABE, analysis/abe.h), the critical-path bound (CPE, analysis/cpe.h)
 * and the LP's ideal allocation next to the actual one, for the filtered
 * tasks and again per node (the node's tasks, workers and internal
 * dependencies) and, with by=iteration, per iteration (phase: the
 * iteration's tasks and internal dependencies, all filtered workers).
 * Cached per filter (without a window). */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/abe.h"
#include "analysis/cpe.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"
#include "util/log.h"

/* The tasks of one bound computation: keep[i] selects loaded tasks (NULL:
 * all), workers[r] counts the rows of each resource type. */
typedef struct bound_scope {
    const ari_tq_meta *m;
    const ari_tq_tasks *t;
    const unsigned char *keep;
    const double *workers;
} bound_scope;

/* The scope's DAG with local indices: internal dependencies only. */
static int sub_dag(const bound_scope *b, int64_t **off_out, int64_t **pred_out, int **type_out,
                   int64_t *n_out)
{
    const ari_tq_tasks *t = b->t;
    int64_t *local = malloc(((size_t)t->n + 1) * sizeof *local);
    int64_t *off = calloc((size_t)t->n + 2, sizeof *off);
    int64_t *pred = malloc(((size_t)t->pred_offset[t->n] + 1) * sizeof *pred);
    int *type = malloc(((size_t)t->n + 1) * sizeof *type);
    if (!local || !off || !pred || !type) {
        free(local);
        free(off);
        free(pred);
        free(type);
        return -1;
    }
    int64_t n = 0, np = 0;
    for (int64_t i = 0; i < t->n; i++)
        local[i] = !b->keep || b->keep[i] ? n++ : -1;
    for (int64_t i = 0; i < t->n; i++) {
        if (local[i] < 0)
            continue;
        for (int64_t e = t->pred_offset[i]; e < t->pred_offset[i + 1]; e++)
            if (local[t->pred[e]] >= 0)
                pred[np++] = local[t->pred[e]];
        type[local[i]] = t->type[i];
        off[local[i] + 1] = np;
    }
    free(local);
    *off_out = off;
    *pred_out = pred;
    *type_out = type;
    *n_out = n;
    return 0;
}

static double cpe_of(const bound_scope *b, const double *mean, ari_error *err)
{
    int64_t *off, *pred, n;
    int *type;
    if (sub_dag(b, &off, &pred, &type, &n) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NAN;
    }
    ari_cpe_input in = {{n, off, pred}, type, b->m->ntypes, b->m->nrestypes, mean};
    ari_cpe_result res = {0};
    double length = ari_cpe_compute(&in, &res, err) == 0 ? res.length : NAN;
    ari_cpe_result_free(&res);
    free(off);
    free(pred);
    free(type);
    return length;
}

static json_t *allocation_json(const bound_scope *b, const double *count, const double *mean,
                               const double *alloc)
{
    const ari_tq_meta *m = b->m;
    json_t *list = json_array();
    for (int r = 0; r < m->nrestypes; r++) {
        for (int k = 0; k < m->ntypes; k++) {
            size_t c = (size_t)r * (size_t)m->ntypes + (size_t)k;
            double ideal = alloc ? alloc[c] : 0;
            if (count[c] == 0 && !(ideal > 1e-9))
                continue;
            json_array_append_new(list, json_pack("{s:s,s:s,s:o,s:I,s:o,s:I}", "resource_type",
                                                  m->restypes[r], "type", m->types[k], "ideal",
                                                  ari_json_num(alloc ? ideal : NAN), "actual",
                                                  (json_int_t)count[c], "mean_duration",
                                                  ari_json_num(mean[c]), "workers",
                                                  (json_int_t)b->workers[r]));
        }
    }
    return list;
}

/* makespan, abe, cpe, tasks, workers and allocation of one scope. */
static json_t *bounds_of(const bound_scope *b, ari_error *err)
{
    const ari_tq_meta *m = b->m;
    double *count = NULL, *mean = NULL;
    if (ari_tq_means(b->t, m, b->keep, &count, &mean, err) < 0)
        return NULL;
    double *ntype = calloc((size_t)m->ntypes + 1, sizeof *ntype);
    if (!ntype) {
        free(count);
        free(mean);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    int64_t ntasks = 0;
    double makespan = NAN, first = NAN, nworkers = 0;
    for (int64_t i = 0; i < b->t->n; i++) {
        if (b->keep && !b->keep[i])
            continue;
        ntasks++;
        ntype[b->t->type[i]] += 1;
        if (isnan(makespan) || b->t->end[i] > makespan)
            makespan = b->t->end[i];
        if (isnan(first) || b->t->start[i] < first)
            first = b->t->start[i];
    }
    for (int r = 0; r < m->nrestypes; r++)
        nworkers += b->workers[r];
    ari_abe_input in = {m->ntypes, m->nrestypes, ntype, b->workers, mean};
    ari_abe_result abe = {0};
    ari_error lp_err = {0};
    int abe_ok = ntasks > 0 && ari_abe_compute(&in, &abe, &lp_err) == 0;
    if (ntasks > 0 && !abe_ok)
        ari_log(ARI_LOG_INFO, "bounds: no ABE: %s", lp_err.message);
    ari_error cpe_err = {0};
    double cpe = ntasks > 0 ? cpe_of(b, mean, &cpe_err) : 0;
    if (isnan(cpe))
        ari_log(ARI_LOG_INFO, "bounds: no CPE: %s", cpe_err.message);
    json_t *doc = json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:o}", "makespan", ari_json_num(makespan),
                            "start", ari_json_num(first), "span", ari_json_num(makespan - first),
                            "abe",
                            ari_json_num(ntasks == 0 ? 0 : abe_ok ? abe.bound : NAN), "cpe",
                            ari_json_num(cpe), "tasks", (json_int_t)ntasks, "workers",
                            (json_int_t)nworkers, "allocation",
                            allocation_json(b, count, mean, abe_ok ? abe.alloc : NULL));
    ari_abe_result_free(&abe);
    free(ntype);
    free(count);
    free(mean);
    if (!doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return doc;
}

static void count_workers(const ari_tq_meta *m, const ari_task_filter *f, int node_only,
                          int64_t node, double *workers)
{
    memset(workers, 0, (size_t)m->nrestypes * sizeof *workers);
    for (int i = 0; i < m->nworkers; i++)
        if (ari_task_filter_row(f, &m->workers[i]) && (!node_only || m->workers[i].node == node) &&
            m->workers[i].restype >= 0)
            workers[m->workers[i].restype] += 1;
}

static int node_listed(const ari_task_filter *f, int64_t node)
{
    if (!f->nodes)
        return 1;
    for (size_t i = 0; i < f->nnodes; i++)
        if (f->nodes[i] == node)
            return 1;
    return 0;
}

static json_t *per_node(const ari_tq_meta *m, const ari_tq_tasks *t, const ari_task_filter *f,
                        double *workers, ari_error *err)
{
    json_t *list = json_array();
    unsigned char *keep = malloc((size_t)t->n + 1);
    if (!keep || !list) {
        free(keep);
        json_decref(list);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    for (int j = 0; j < m->nnodes; j++) {
        int64_t node = m->nodes[j];
        if (!node_listed(f, node))
            continue;
        int64_t n = 0;
        for (int64_t i = 0; i < t->n; i++)
            n += keep[i] = t->node[i] == node;
        count_workers(m, f, 1, node, workers);
        double nw = 0;
        for (int r = 0; r < m->nrestypes; r++)
            nw += workers[r];
        if (n == 0 && nw == 0)
            continue;
        bound_scope b = {m, t, keep, workers};
        json_t *one = bounds_of(&b, err);
        if (!one) {
            free(keep);
            json_decref(list);
            return NULL;
        }
        json_object_set_new(one, "node", json_integer(node));
        json_array_append_new(list, one);
    }
    free(keep);
    return list;
}

/* A task of the per-iteration grouping: its iteration, then its index. */
typedef struct iter_task {
    int64_t iteration, i;
} iter_task;

static int iter_task_cmp(const void *a, const void *b)
{
    const iter_task *x = a, *y = b;
    if (x->iteration != y->iteration)
        return x->iteration < y->iteration ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* One bound per iteration (tasks without an iteration are left out), each
 * on a compact copy of the iteration's tasks (type, resource type, times
 * and internal dependencies: all that bounds_of reads), so that the whole
 * costs O(n log n + dependencies) whatever the number of iterations. */
static json_t *per_iteration(const ari_tq_meta *m, const ari_tq_tasks *t, const double *workers,
                             ari_error *err)
{
    json_t *list = json_array();
    size_t n1 = (size_t)t->n + 1;
    iter_task *order = malloc(n1 * sizeof *order);
    int64_t *local = malloc(n1 * sizeof *local);
    int *type = malloc(n1 * sizeof *type), *restype = malloc(n1 * sizeof *restype);
    double *start = malloc(n1 * sizeof *start), *end = malloc(n1 * sizeof *end);
    int64_t *off = malloc((n1 + 1) * sizeof *off);
    int64_t *pred = malloc(((size_t)t->pred_offset[t->n] + 1) * sizeof *pred);
    int ok = list && order && local && type && restype && start && end && off && pred;
    if (!ok)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int64_t k = 0;
    for (int64_t i = 0; ok && i < t->n; i++) {
        local[i] = -1;
        if (t->iteration[i] != ARI_TQ_NO_ITERATION)
            order[k++] = (iter_task){t->iteration[i], i};
    }
    if (ok && k > 0)
        qsort(order, (size_t)k, sizeof *order, iter_task_cmp);
    for (int64_t a = 0, b; ok && a < k; a = b) {
        for (b = a; b < k && order[b].iteration == order[a].iteration; b++)
            local[order[b].i] = b - a;
        ari_tq_tasks sub = {0};
        sub.n = b - a;
        sub.type = type;
        sub.restype = restype;
        sub.start = start;
        sub.end = end;
        sub.pred_offset = off;
        sub.pred = pred;
        int64_t np = 0;
        off[0] = 0;
        for (int64_t j = a; j < b; j++) {
            int64_t i = order[j].i, l = j - a;
            type[l] = t->type[i];
            restype[l] = t->restype[i];
            start[l] = t->start[i];
            end[l] = t->end[i];
            for (int64_t e = t->pred_offset[i]; e < t->pred_offset[i + 1]; e++) {
                int64_t p = t->pred[e];
                if (local[p] >= 0 && t->iteration[p] == order[a].iteration)
                    pred[np++] = local[p];
            }
            off[l + 1] = np;
        }
        bound_scope sc = {m, &sub, NULL, workers};
        json_t *one = bounds_of(&sc, err); /* sets err when NULL */
        if (!one) {
            ok = 0;
            break;
        }
        json_object_set_new(one, "iteration", json_integer(order[a].iteration));
        json_array_append_new(list, one);
        for (int64_t j = a; j < b; j++)
            local[order[j].i] = -1;
    }
    free(order);
    free(local);
    free(type);
    free(restype);
    free(start);
    free(end);
    free(off);
    free(pred);
    if (!ok) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static json_t *compute_bounds(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                              const void *extra, ari_error *err)
{
    int by_iteration = extra && *(const int *)extra;
    const ari_tq_meta *m = ctx->meta;
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 1, &t, err) < 0)
        return NULL;
    double *workers = calloc((size_t)m->nrestypes + 1, sizeof *workers);
    json_t *doc = NULL;
    if (!workers) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        count_workers(m, f, 0, 0, workers);
        bound_scope all = {m, &t, NULL, workers};
        doc = bounds_of(&all, err);
        json_t *nodes = doc ? per_node(m, &t, f, workers, err) : NULL;
        json_t *iterations = NULL;
        if (doc && nodes && by_iteration) {
            count_workers(m, f, 0, 0, workers); /* per_node left one node's */
            iterations = per_iteration(m, &t, workers, err);
        }
        if (doc && nodes && (!by_iteration || iterations)) {
            json_object_set_new(doc, "nodes", nodes);
            if (iterations)
                json_object_set_new(doc, "iterations", iterations);
        } else {
            json_decref(nodes);
            json_decref(doc);
            doc = NULL;
        }
    }
    free(workers);
    ari_tq_tasks_free(&t);
    return doc;
}

json_t *ari_bounds_get(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, ari_error *err)
{
    static const int no = 0;
    return ari_analysis_cached(r, ctx, "bounds.v2", f, "", compute_bounds, &no, err);
}

/* bounds.v2: the documents gained start and span (older cache entries
 * under "bounds" lack them); by=iteration is cached apart. */
static json_t *bounds_by_iteration(ari_request *r, const ari_actx *ctx, const ari_task_filter *f,
                                   ari_error *err)
{
    static const int yes = 1;
    return ari_analysis_cached(r, ctx, "bounds.v2", f, "by=iteration", compute_bounds, &yes, err);
}

enum MHD_Result api_bounds(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    static const char *const by_choices[] = {"node", "iteration", NULL};
    const char *by = NULL;
    if (ari_param_choice(r, "by", by_choices, &by) < 0) {
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = by && strcmp(by, "iteration") == 0
                      ? bounds_by_iteration(r, &ctx, &ctx.filter, &err)
                      : ari_bounds_get(r, &ctx, &ctx.filter, &err);
    return ari_actx_reply(r, &ctx, doc, &err);
}
