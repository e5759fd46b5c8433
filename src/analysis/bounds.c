/* bounds.c: the makespan, ABE, CPE and allocation of a set of tasks, in
 * all, per node and per iteration (see bounds.h); each scope's aggregates
 * from its tasks or, when the input has them, from a store's SQL. */
#include "analysis/bounds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/abe.h"
#include "analysis/cpe.h"
#include "util/compare.h"
#include "util/free_all.h"
#include "util/log.h"

/* The tasks of one bound computation: keep[i] selects tasks (NULL: all),
 * workers[r] counts the rows of each resource type; stats, when not NULL,
 * are the scope's aggregates (the tasks then serve the CPE only). */
typedef struct bound_scope {
    int ntypes, nrestypes;
    const ari_bounds_tasks *t;
    const unsigned char *keep;
    const double *workers;
    const ari_bounds_stats *stats;
} bound_scope;

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

int ari_bounds_means(const ari_bounds_tasks *t, int ntypes, int nrestypes, const unsigned char *keep,
                     double **count_out, double **mean_out, ari_error *err)
{
    size_t cells = (size_t)nrestypes * (size_t)ntypes;
    double *count = calloc(cells + 1, sizeof *count), *mean = calloc(cells + 1, sizeof *mean);
    if (!count || !mean) {
        free(count);
        free(mean);
        return nomem(err);
    }
    for (int64_t i = 0; i < t->n; i++) {
        if (keep && !keep[i])
            continue;
        size_t c = (size_t)t->restype[i] * (size_t)ntypes + (size_t)t->type[i];
        count[c] += 1;
        mean[c] += t->end[i] - t->start[i];
    }
    for (size_t c = 0; c < cells; c++)
        mean[c] = count[c] > 0 ? mean[c] / count[c] : NAN;
    *count_out = count;
    *mean_out = mean;
    return 0;
}

/* The scope's DAG with local indices: internal dependencies only. */
static int sub_dag(const bound_scope *b, int64_t **off_out, int64_t **pred_out, int **type_out,
                   int64_t *n_out)
{
    const ari_bounds_tasks *t = b->t;
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
        nomem(err);
        return NAN;
    }
    ari_cpe_input in = {{n, off, pred}, type, b->ntypes, b->nrestypes, mean};
    ari_cpe_result res = {0};
    double length = ari_cpe_compute(&in, &res, err) == 0 ? res.length : NAN;
    ari_cpe_result_free(&res);
    void *owned[] = {off, pred, type};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return length;
}

/* The cells with tasks or an ideal share (alloc NULL: no LP solution). */
static int allocation(const bound_scope *b, const double *count, const double *mean, const double *alloc,
                      ari_bounds_scope *out)
{
    size_t cells = (size_t)b->nrestypes * (size_t)b->ntypes;
    out->cells = malloc((cells + 1) * sizeof *out->cells);
    if (!out->cells)
        return -1;
    for (int r = 0; r < b->nrestypes; r++) {
        for (int k = 0; k < b->ntypes; k++) {
            size_t c = (size_t)r * (size_t)b->ntypes + (size_t)k;
            double ideal = alloc ? alloc[c] : 0;
            if (count[c] == 0 && !(ideal > 1e-9))
                continue;
            out->cells[out->ncells++] = (ari_bounds_cell){r, k, alloc ? ideal : NAN, (int64_t)count[c], mean[c],
                                                          (int64_t)b->workers[r]};
        }
    }
    return 0;
}

/* The scope's aggregates from its tasks, in task order: count and sum
 * of durations per cell (ari_bounds_means's loop), task count, last end
 * and first start. */
static int stats_from_tasks(const bound_scope *b, ari_bounds_stats *out)
{
    size_t cells = (size_t)b->nrestypes * (size_t)b->ntypes;
    memset(out, 0, sizeof *out);
    out->count = calloc(cells + 1, sizeof *out->count);
    out->sum = calloc(cells + 1, sizeof *out->sum);
    if (!out->count || !out->sum)
        return -1;
    out->makespan = out->start = NAN;
    for (int64_t i = 0; i < b->t->n; i++) {
        if (b->keep && !b->keep[i])
            continue;
        size_t c = (size_t)b->t->restype[i] * (size_t)b->ntypes + (size_t)b->t->type[i];
        out->count[c] += 1;
        out->sum[c] += b->t->end[i] - b->t->start[i];
        out->tasks++;
        if (isnan(out->makespan) || b->t->end[i] > out->makespan)
            out->makespan = b->t->end[i];
        if (isnan(out->start) || b->t->start[i] < out->start)
            out->start = b->t->start[i];
    }
    return 0;
}

static void stats_free(ari_bounds_stats *s)
{
    free(s->count);
    free(s->sum);
    s->count = s->sum = NULL;
}

/* mean[c] (NAN where no task ran) and ntype[k] of some aggregates. */
static int means_of(const bound_scope *b, const ari_bounds_stats *st, double **mean_out, double **ntype_out)
{
    size_t cells = (size_t)b->nrestypes * (size_t)b->ntypes;
    double *mean = calloc(cells + 1, sizeof *mean), *ntype = calloc((size_t)b->ntypes + 1, sizeof *ntype);
    if (!mean || !ntype) {
        free(mean);
        free(ntype);
        return -1;
    }
    for (size_t c = 0; c < cells; c++) {
        mean[c] = st->count[c] > 0 ? st->sum[c] / st->count[c] : NAN;
        ntype[c % (size_t)b->ntypes] += st->count[c];
    }
    *mean_out = mean;
    *ntype_out = ntype;
    return 0;
}

/* makespan, abe, cpe, tasks, workers and allocation of one scope. */
static int bounds_of(const bound_scope *b, ari_bounds_scope *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_bounds_stats own = {0};
    const ari_bounds_stats *st = b->stats ? b->stats : &own;
    double *mean = NULL, *ntype = NULL;
    if ((!b->stats && stats_from_tasks(b, &own) < 0) || means_of(b, st, &mean, &ntype) < 0) {
        stats_free(&own);
        return nomem(err);
    }
    double nworkers = 0;
    int64_t ntasks = st->tasks;
    for (int r = 0; r < b->nrestypes; r++)
        nworkers += b->workers[r];
    ari_abe_input in = {b->ntypes, b->nrestypes, ntype, b->workers, mean};
    ari_abe_result abe = {0};
    ari_error lp_err = {0};
    int abe_ok = ntasks > 0 && ari_abe_compute(&in, &abe, &lp_err) == 0;
    if (ntasks > 0 && !abe_ok)
        ari_log(ARI_LOG_INFO, "bounds: no ABE: %s", lp_err.message);
    ari_error cpe_err = {0};
    double cpe = ntasks > 0 ? cpe_of(b, mean, &cpe_err) : 0;
    if (isnan(cpe))
        ari_log(ARI_LOG_INFO, "bounds: no CPE: %s", cpe_err.message);
    out->makespan = st->makespan;
    out->start = st->start;
    out->span = st->makespan - st->start;
    out->abe = ntasks == 0 ? 0 : abe_ok ? abe.bound : NAN;
    out->cpe = cpe;
    out->tasks = ntasks;
    out->workers = (int64_t)nworkers;
    int rc = allocation(b, st->count, mean, abe_ok ? abe.alloc : NULL, out);
    ari_abe_result_free(&abe);
    stats_free(&own);
    void *owned[] = {ntype, mean};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc < 0 ? nomem(err) : 0;
}

/* The aggregates of key in list[n] (by key), or empty (zeros: cells
 * [nrestypes * ntypes]) when it has none. */
static ari_bounds_stats stats_of_key(const ari_bounds_stats *list, size_t n, int64_t key, double *zeros)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && list[lo].key == key)
        return list[lo];
    return (ari_bounds_stats){key, 0, NAN, NAN, zeros, zeros};
}

/* ---- per node ---- */

static int per_node(const ari_bounds_input *in, ari_bounds_result *out, ari_error *err)
{
    const ari_bounds_tasks *t = &in->tasks;
    const ari_bounds_aggregates *agg = in->agg;
    unsigned char *keep = malloc((size_t)t->n + 1);
    double *zeros = calloc((size_t)in->ntypes * (size_t)in->nrestypes + 1, sizeof *zeros);
    out->nodes = calloc((size_t)in->nnodes + 1, sizeof *out->nodes);
    if (!keep || !zeros || !out->nodes) {
        free(keep);
        free(zeros);
        return nomem(err);
    }
    for (int j = 0; j < in->nnodes; j++) {
        int64_t node = in->nodes[j], n = 0;
        const double *workers = in->node_workers + (size_t)j * (size_t)in->nrestypes;
        for (int64_t i = 0; i < t->n; i++)
            n += keep[i] = t->node[i] == node;
        double nw = 0;
        for (int r = 0; r < in->nrestypes; r++)
            nw += workers[r];
        ari_bounds_stats st = agg ? stats_of_key(agg->nodes, agg->nnodes, node, zeros) : (ari_bounds_stats){0};
        if ((agg ? st.tasks : n) == 0 && nw == 0)
            continue;
        bound_scope b = {in->ntypes, in->nrestypes, t, keep, workers, agg ? &st : NULL};
        if (bounds_of(&b, &out->nodes[out->nnodes], err) < 0) {
            free(keep);
            free(zeros);
            return -1;
        }
        out->nodes[out->nnodes++].key = node;
    }
    free(keep);
    free(zeros);
    return 0;
}

/* ---- per iteration ---- */

/* A task of the per-iteration grouping: its iteration, then its index. */
typedef struct iter_task {
    int64_t iteration, i;
} iter_task;

static int iter_task_cmp(const void *a, const void *b)
{
    const iter_task *x = a, *y = b;
    int c = ari_cmp_i64(x->iteration, y->iteration);
    return c ? c : ari_cmp_i64(x->i, y->i);
}

/* A compact copy of some tasks: what bounds_of reads. */
typedef struct compact {
    iter_task *order;
    int64_t *local, *off, *pred;
    int *type, *restype;
    double *start, *end;
} compact;

static int compact_alloc(compact *c, const ari_bounds_tasks *t)
{
    size_t n1 = (size_t)t->n + 1;
    c->order = malloc(n1 * sizeof *c->order);
    c->local = malloc(n1 * sizeof *c->local);
    c->type = malloc(n1 * sizeof *c->type);
    c->restype = malloc(n1 * sizeof *c->restype);
    c->start = malloc(n1 * sizeof *c->start);
    c->end = malloc(n1 * sizeof *c->end);
    c->off = malloc((n1 + 1) * sizeof *c->off);
    c->pred = malloc(((size_t)t->pred_offset[t->n] + 1) * sizeof *c->pred);
    return c->order && c->local && c->type && c->restype && c->start && c->end && c->off && c->pred ? 0 : -1;
}

static void compact_free(compact *c)
{
    void *owned[] = {c->order, c->local, c->type, c->restype, c->start, c->end, c->off, c->pred};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* The tasks order[a .. b) (one iteration) with their internal
 * dependencies, as tasks of their own. */
static ari_bounds_tasks compact_fill(compact *c, const ari_bounds_tasks *t, int64_t a, int64_t b)
{
    for (int64_t j = a; j < b; j++)
        c->local[c->order[j].i] = j - a;
    int64_t np = 0;
    c->off[0] = 0;
    for (int64_t j = a; j < b; j++) {
        int64_t i = c->order[j].i, l = j - a;
        c->type[l] = t->type[i];
        if (t->start) { /* NULL when the aggregates come from the store */
            c->restype[l] = t->restype[i];
            c->start[l] = t->start[i];
            c->end[l] = t->end[i];
        }
        for (int64_t e = t->pred_offset[i]; e < t->pred_offset[i + 1]; e++) {
            int64_t p = t->pred[e];
            if (c->local[p] >= 0 && t->iteration[p] == c->order[a].iteration)
                c->pred[np++] = c->local[p];
        }
        c->off[l + 1] = np;
    }
    ari_bounds_tasks sub = {0};
    sub.n = b - a;
    sub.type = c->type;
    sub.restype = c->restype;
    sub.start = c->start;
    sub.end = c->end;
    sub.pred_offset = c->off;
    sub.pred = c->pred;
    return sub;
}

/* One bound per iteration (tasks without an iteration are left out), each
 * on a compact copy of the iteration's tasks, so that the whole costs
 * O(n log n + dependencies) whatever the number of iterations. */
static int per_iteration(const ari_bounds_input *in, ari_bounds_result *out, ari_error *err)
{
    const ari_bounds_tasks *t = &in->tasks;
    compact c;
    int ok = compact_alloc(&c, t) == 0;
    out->iterations = ok ? calloc((size_t)t->n + 1, sizeof *out->iterations) : NULL;
    double *zeros = calloc((size_t)in->ntypes * (size_t)in->nrestypes + 1, sizeof *zeros);
    if (!out->iterations || !zeros) {
        compact_free(&c);
        free(zeros);
        return nomem(err);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < t->n; i++) {
        c.local[i] = -1;
        if (t->iteration[i] != ARI_BOUNDS_NO_ITERATION)
            c.order[k++] = (iter_task){t->iteration[i], i};
    }
    if (k > 0)
        qsort(c.order, (size_t)k, sizeof *c.order, iter_task_cmp);
    for (int64_t a = 0, b; ok && a < k; a = b) {
        for (b = a; b < k && c.order[b].iteration == c.order[a].iteration; b++)
            ;
        ari_bounds_tasks sub = compact_fill(&c, t, a, b);
        const ari_bounds_aggregates *agg = in->agg;
        ari_bounds_stats st = agg ? stats_of_key(agg->iterations, agg->niterations, c.order[a].iteration, zeros)
                                  : (ari_bounds_stats){0};
        bound_scope sc = {in->ntypes, in->nrestypes, &sub, NULL, in->workers, agg ? &st : NULL};
        ari_bounds_scope *one = &out->iterations[out->niterations];
        ok = bounds_of(&sc, one, err) == 0; /* sets err when it fails */
        one->key = c.order[a].iteration;
        out->niterations += ok;
        for (int64_t j = a; j < b; j++)
            c.local[c.order[j].i] = -1;
    }
    compact_free(&c);
    free(zeros);
    return ok ? 0 : -1;
}

int ari_bounds_compute(const ari_bounds_input *in, ari_bounds_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    bound_scope all = {in->ntypes, in->nrestypes, &in->tasks, NULL, in->workers, in->agg ? &in->agg->all : NULL};
    int rc = bounds_of(&all, &out->all, err);
    if (rc == 0)
        rc = per_node(in, out, err);
    if (rc == 0 && in->by_iteration) {
        out->has_iterations = 1;
        rc = per_iteration(in, out, err);
    }
    if (rc < 0)
        ari_bounds_result_free(out);
    return rc;
}

void ari_bounds_scope_free(ari_bounds_scope *s)
{
    free(s->cells);
    s->cells = NULL;
    s->ncells = 0;
}

void ari_bounds_aggregates_free(ari_bounds_aggregates *a)
{
    if (!a)
        return;
    stats_free(&a->all);
    for (size_t i = 0; a->nodes && i < a->nnodes; i++)
        stats_free(&a->nodes[i]);
    for (size_t i = 0; a->iterations && i < a->niterations; i++)
        stats_free(&a->iterations[i]);
    void *owned[] = {a->nodes, a->iterations};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(a, 0, sizeof *a);
}

void ari_bounds_result_free(ari_bounds_result *res)
{
    ari_bounds_scope_free(&res->all);
    for (size_t i = 0; i < res->nnodes; i++)
        ari_bounds_scope_free(&res->nodes[i]);
    for (size_t i = 0; i < res->niterations; i++)
        ari_bounds_scope_free(&res->iterations[i]);
    void *owned[] = {res->nodes, res->iterations};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}
