/* elimination_tree.c: tree layout, time-slice integration, utilisation,
 * active nodes, front memory and run comparison (see elimination_tree.h). */

#include "elimination_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/compare.h"
#include "util/free_all.h"

/* ---- task kinds ---- */

static int has(const char *s, const char *needle)
{
    return strcasestr(s, needle) != NULL;
}

ari_et_kind ari_et_kind_of(const char *type)
{
    if (!type)
        return ARI_ET_OTHER;
    if (has(type, "qrt"))
        return ARI_ET_COMPUTE;
    if (has(type, "subtree"))
        return ARI_ET_SUBTREE;
    if (has(type, "init"))
        return has(type, "block") ? ARI_ET_INIT_BLOCK : ARI_ET_INIT_FRONT;
    if (has(type, "clean"))
        return has(type, "block") ? ARI_ET_CLEAN_BLOCK : ARI_ET_CLEAN_FRONT;
    if (has(type, "block_copy") || has(type, "extadd") || strcasecmp(type, "asm") == 0)
        return ARI_ET_ASSEMBLY;
    return ARI_ET_OTHER;
}

const char *ari_et_kind_name(ari_et_kind k)
{
    static const char *const names[] = {"other",       "compute",    "subtree",     "init_front",
                                        "init_block",  "clean_front", "clean_block", "assembly"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "other";
}

static int is_util_kind(int kind)
{
    return kind == ARI_ET_COMPUTE || kind == ARI_ET_SUBTREE;
}

/* ---- layout ---- */

typedef struct id_index {
    int64_t id;
    int index;
} id_index;

static int by_id(const void *a, const void *b)
{
    const id_index *x = a, *y = b;
    return ari_cmp_i64(x->id, y->id);
}

static int lookup(const id_index *sorted, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sorted[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo].id == id ? sorted[lo].index : -1;
}

int ari_et_find(const ari_et_tree *t, int64_t id)
{
    for (size_t i = 0; i < t->nnodes; i++)
        if (t->nodes[i].id == id)
            return (int)i;
    return -1;
}

/* Depths by an iterative pre-order DFS from the roots; children in the
 * order of `sorted` (by id). Fails on a cycle (unreached nodes). */
static int compute_depths(ari_et_tree *t, const id_index *sorted, ari_error *err)
{
    size_t n = t->nnodes;
    int *start = calloc(n + 1, sizeof *start), *child = malloc((n + 1) * sizeof *child),
        *fill = calloc(n + 1, sizeof *fill), *stack = malloc((n + 1) * sizeof *stack);
    int rc = 0;
    if (!start || !child || !fill || !stack) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (t->nodes[i].parent_index >= 0)
            start[t->nodes[i].parent_index + 1]++;
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t j = 0; j < n; j++) {
        int i = sorted[j].index, p = t->nodes[i].parent_index;
        if (p >= 0)
            child[start[p] + fill[p]++] = i;
    }
    size_t top = 0, seen = 0;
    for (size_t j = n; j-- > 0;) { /* push roots in reverse so the smallest id comes first */
        int i = sorted[j].index;
        if (t->nodes[i].parent_index < 0) {
            t->nodes[i].depth = 0;
            stack[top++] = i;
        }
    }
    while (top > 0) {
        int i = stack[--top];
        seen++;
        t->nodes[i].intermediary = start[i + 1] > start[i];
        if (t->nodes[i].depth > t->maxdepth)
            t->maxdepth = t->nodes[i].depth;
        for (int c = start[i + 1]; c-- > start[i];) {
            t->nodes[child[c]].depth = t->nodes[i].depth + 1;
            stack[top++] = child[c];
        }
    }
    if (seen != n)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "the elimination tree has a cycle (%zu of %zu nodes reachable)",
                           seen, n);
done:
    free(start);
    free(child);
    free(fill);
    free(stack);
    return rc;
}

/* Per-node task extents, kinds and sort keys. */
static void scan_tasks(const ari_et_input *in, ari_et_tree *t, int *has_compute, int *has_subtree,
                       int64_t *min_qrt_order, int64_t *min_order, int *all_ordered)
{
    *all_ordered = 1;
    for (size_t k = 0; k < in->ntasks; k++) {
        const ari_et_task *task = &in->tasks[k];
        int i = t->task_node[k];
        if (i < 0)
            continue;
        ari_et_node *nd = &t->nodes[i];
        nd->ntasks++;
        if (isnan(nd->start) || task->start < nd->start)
            nd->start = task->start;
        if (isnan(nd->end) || task->end > nd->end)
            nd->end = task->end;
        if (task->end > t->end)
            t->end = task->end;
        if (is_util_kind(task->kind)) {
            if (isnan(nd->first_compute) || task->start < nd->first_compute)
                nd->first_compute = task->start;
            if (isnan(nd->last_compute) || task->end > nd->last_compute)
                nd->last_compute = task->end;
        }
        has_compute[i] |= task->kind == ARI_ET_COMPUTE;
        has_subtree[i] |= task->kind == ARI_ET_SUBTREE;
        if (task->submit_order == ARI_ET_NO_ORDER) {
            *all_ordered = 0;
            continue;
        }
        if (task->kind == ARI_ET_COMPUTE && task->submit_order < min_qrt_order[i])
            min_qrt_order[i] = task->submit_order;
        if (task->submit_order < min_order[i])
            min_order[i] = task->submit_order;
    }
}

typedef struct row_key {
    double key;
    int64_t id;
    int index;
} row_key;

static int by_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    int c = ari_cmp_double(x->key, y->key);
    return c ? c : ari_cmp_i64(x->id, y->id);
}

/* Rows by submission order; pruned nodes on their parent's row. */
static int assign_rows(ari_et_tree *t, const int *has_compute, const int *has_subtree,
                       const int64_t *min_qrt_order, const int64_t *min_order, int all_ordered,
                       ari_error *err)
{
    size_t n = t->nnodes, m = 0;
    row_key *rows = malloc((n + 1) * sizeof *rows);
    if (!rows)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ari_et_node *nd = &t->nodes[i];
        nd->type = has_subtree[i] ? ARI_ET_NODE_PRUNED : has_compute[i] ? ARI_ET_NODE_NOT_PRUNED : ARI_ET_NODE_NONE;
        if (has_subtree[i] || nd->ntasks == 0)
            continue;
        double key = !all_ordered ? nd->start : has_compute[i] ? (double)min_qrt_order[i] : (double)min_order[i];
        nd->key = all_ordered ? (int64_t)key : (int64_t)llround(key * 1e6);
        rows[m++] = (row_key){key, nd->id, (int)i};
    }
    qsort(rows, m, sizeof *rows, by_row_key);
    for (size_t r = 0; r < m; r++) {
        t->nodes[rows[r].index].position = (double)(r + 1);
        t->nodes[rows[r].index].height = 1;
    }
    t->nrows = (int)m;
    for (size_t i = 0; i < n; i++) {
        ari_et_node *nd = &t->nodes[i];
        if (nd->type == ARI_ET_NODE_PRUNED && nd->parent_index >= 0 &&
            !isnan(t->nodes[nd->parent_index].position)) {
            nd->position = t->nodes[nd->parent_index].position;
            nd->height = 0.5;
        }
    }
    free(rows);
    return 0;
}

static int init_nodes(const ari_et_input *in, ari_et_tree *t, id_index *sorted, ari_error *err)
{
    size_t n = in->nnodes;
    for (size_t i = 0; i < n; i++)
        sorted[i] = (id_index){in->node[i], (int)i};
    qsort(sorted, n, sizeof *sorted, by_id);
    for (size_t i = 1; i < n; i++)
        if (sorted[i].id == sorted[i - 1].id)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "tree node %lld appears twice",
                                 (long long)sorted[i].id);
    for (size_t i = 0; i < n; i++) {
        ari_et_node *nd = &t->nodes[i];
        nd->id = in->node[i];
        nd->parent = in->parent[i];
        nd->parent_index = in->parent[i] < 0 ? -1 : lookup(sorted, n, in->parent[i]);
        if (nd->parent_index < 0)
            nd->parent = -1;
        nd->position = nd->height = NAN;
        nd->start = nd->end = nd->first_compute = nd->last_compute = NAN;
    }
    for (size_t k = 0; k < in->ntasks; k++) {
        t->task_node[k] = lookup(sorted, n, in->tasks[k].anode);
        if (t->task_node[k] < 0)
            t->dropped++;
    }
    return 0;
}

int ari_et_layout(const ari_et_input *in, ari_et_tree *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (in->nnodes == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "the trace has no elimination tree");
    size_t n = in->nnodes;
    out->nnodes = n;
    out->nodes = calloc(n, sizeof *out->nodes);
    out->task_node = malloc((in->ntasks + 1) * sizeof *out->task_node);
    id_index *sorted = malloc(n * sizeof *sorted);
    int *flags = calloc(2 * n, sizeof *flags);
    int64_t *orders = malloc(2 * n * sizeof *orders);
    int rc = -1, all_ordered;
    if (!out->nodes || !out->task_node || !sorted || !flags || !orders) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < 2 * n; i++)
        orders[i] = INT64_MAX;
    if (init_nodes(in, out, sorted, err) < 0 || compute_depths(out, sorted, err) < 0)
        goto done;
    scan_tasks(in, out, flags, flags + n, orders, orders + n, &all_ordered);
    rc = assign_rows(out, flags, flags + n, orders, orders + n, all_ordered, err);
done:
    free(sorted);
    free(flags);
    free(orders);
    if (rc < 0)
        ari_et_tree_free(out);
    return rc;
}

void ari_et_tree_free(ari_et_tree *t)
{
    free(t->nodes);
    free(t->task_node);
    memset(t, 0, sizeof *t);
}

/* ---- slices and the integration grid ---- */

int ari_et_slicing(const ari_et_tree *t, double step, ari_et_slices *out, ari_error *err)
{
    if (!(step > 0) || !isfinite(step))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "slice must be a positive number");
    double end = t->end > 0 ? t->end : step;
    double count = ceil(end / step);
    if (count > ARI_ET_MAX_SLICES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "slice %g gives %.0f slices over %g; at most %d (use a larger slice)", step, count,
                             end, ARI_ET_MAX_SLICES);
    out->step = step;
    out->n = count < 1 ? 1 : (int)count;
    out->end = end;
    return 0;
}

static int slice_of(const ari_et_slices *s, double t)
{
    double k = floor(t / s->step);
    if (k < 0)
        return 0;
    return k >= s->n ? s->n - 1 : (int)k;
}

/* Accumulated values per key over that key's slice range. */
typedef struct grid {
    int nkeys;
    int *kmin, *kmax;
    double *lo, *hi;   /* extent of the key's tasks */
    double **vals;     /* [nkeys] arrays over kmin..kmax */
} grid;

static void grid_free(grid *g)
{
    if (g->vals)
        for (int i = 0; i < g->nkeys; i++)
            free(g->vals[i]);
    void *owned[] = {g->vals, g->kmin, g->kmax, g->lo, g->hi};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(g, 0, sizeof *g);
}

/* The row key of a utilisation task: grouped (tree panel) puts pruned
 * nodes at nnodes + parent; otherwise the node itself. -1: not counted. */
static int task_key(const ari_et_input *in, const ari_et_tree *t, size_t k, int grouped)
{
    int i = t->task_node[k];
    if (i < 0 || !is_util_kind(in->tasks[k].kind))
        return -1;
    const ari_et_node *nd = &t->nodes[i];
    if (!grouped)
        return i;
    if (nd->type == ARI_ET_NODE_PRUNED)
        return nd->parent_index >= 0 && !isnan(nd->position) ? (int)t->nnodes + nd->parent_index : -1;
    return isnan(nd->position) ? -1 : i;
}

static void add_task(const grid *g, int key, const ari_et_task *task, const ari_et_slices *s,
                     ari_et_metric metric)
{
    int k0 = slice_of(s, task->start), k1 = slice_of(s, task->end);
    double dur = task->end - task->start;
    double gf = isfinite(task->gflop) ? task->gflop : 0;
    if (metric == ARI_ET_METRIC_GFLOPS && !(dur > 0)) {
        g->vals[key][k0 - g->kmin[key]] += gf;
        return;
    }
    for (int k = k0; k <= k1; k++) {
        double a = fmax(task->start, k * s->step);
        double b = k == s->n - 1 ? task->end : fmin(task->end, (k + 1) * s->step);
        double overlap = b - a;
        if (overlap <= 0)
            continue;
        g->vals[key][k - g->kmin[key]] += metric == ARI_ET_METRIC_TIME ? overlap : gf * overlap / dur;
    }
}

static int grid_build(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s, int grouped,
                      ari_et_metric metric, grid *g, ari_error *err)
{
    memset(g, 0, sizeof *g);
    int nkeys = 2 * (int)t->nnodes;
    g->nkeys = nkeys;
    g->kmin = malloc(nkeys * sizeof *g->kmin);
    g->kmax = malloc(nkeys * sizeof *g->kmax);
    g->lo = malloc(nkeys * sizeof *g->lo);
    g->hi = malloc(nkeys * sizeof *g->hi);
    g->vals = calloc(nkeys, sizeof *g->vals);
    if (!g->kmin || !g->kmax || !g->lo || !g->hi || !g->vals)
        goto nomem;
    for (int i = 0; i < nkeys; i++) {
        g->kmin[i] = INT32_MAX;
        g->kmax[i] = -1;
        g->lo[i] = INFINITY;
        g->hi[i] = -INFINITY;
    }
    for (size_t k = 0; k < in->ntasks; k++) {
        int key = task_key(in, t, k, grouped);
        if (key < 0)
            continue;
        const ari_et_task *task = &in->tasks[k];
        int a = slice_of(s, task->start), b = slice_of(s, task->end);
        g->kmin[key] = a < g->kmin[key] ? a : g->kmin[key];
        g->kmax[key] = b > g->kmax[key] ? b : g->kmax[key];
        g->lo[key] = fmin(g->lo[key], task->start);
        g->hi[key] = fmax(g->hi[key], task->end);
    }
    for (int i = 0; i < nkeys; i++)
        if (g->kmax[i] >= 0 && !(g->vals[i] = calloc((size_t)(g->kmax[i] - g->kmin[i] + 1), sizeof(double))))
            goto nomem;
    for (size_t k = 0; k < in->ntasks; k++) {
        int key = task_key(in, t, k, grouped);
        if (key >= 0)
            add_task(g, key, &in->tasks[k], s, metric);
    }
    return 0;
nomem:
    grid_free(g);
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* Machine share in % of an accumulated busy time. */
static double share(double busy, const ari_et_slices *s, int workers)
{
    return 100.0 * busy / (s->step * (workers > 0 ? workers : 1));
}

int ari_et_cells(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                 ari_et_metric metric, ari_et_cell **cells, size_t *ncells, ari_error *err)
{
    grid g;
    if (grid_build(in, t, s, 1, metric, &g, err) < 0)
        return -1;
    size_t total = 0, m = 0;
    for (int i = 0; i < g.nkeys; i++)
        if (g.kmax[i] >= 0)
            total += (size_t)(g.kmax[i] - g.kmin[i] + 1);
    ari_et_cell *out = malloc((total + 1) * sizeof *out);
    if (!out) {
        grid_free(&g);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < g.nkeys; i++) {
        for (int k = g.kmin[i]; k <= g.kmax[i]; k++) {
            double v = g.vals[i][k - g.kmin[i]];
            if (!(v > 0))
                continue;
            double x0 = fmax(k * s->step, g.lo[i]);
            double x1 = k == s->n - 1 ? g.hi[i] : fmin((k + 1) * s->step, g.hi[i]);
            int pruned = i >= (int)t->nnodes;
            out[m++] = (ari_et_cell){pruned ? i - (int)t->nnodes : i, pruned, k, x0, x1,
                                     metric == ARI_ET_METRIC_TIME ? share(v, s, in->workers) : v};
        }
    }
    grid_free(&g);
    *cells = out;
    *ncells = m;
    return 0;
}

/* ---- utilisation per node (greedy colours) and per depth ---- */

typedef struct span_event {
    int slice;
    int is_start; /* ends sort before starts at equal times */
    int node;
} span_event;

static int by_event(const void *a, const void *b)
{
    const span_event *x = a, *y = b;
    int c = ari_cmp_i64(x->slice, y->slice);
    if (c == 0)
        c = ari_cmp_i64(x->is_start, y->is_start);
    return c ? c : ari_cmp_i64(x->node, y->node);
}

/* Greedy interval colouring of the nodes' active slice ranges [first
 * non-zero, last non-zero + 1): the smallest free colour at each start. */
static int colour_nodes(const grid *g, int nnodes, int *colour, int *ncolours)
{
    span_event *ev = malloc((2 * (size_t)nnodes + 1) * sizeof *ev);
    int *busy = calloc((size_t)nnodes + 1, sizeof *busy);
    if (!ev || !busy) {
        free(ev);
        free(busy);
        return -1;
    }
    size_t m = 0;
    for (int i = 0; i < nnodes; i++) {
        colour[i] = -1;
        int first = -1, last = -1;
        for (int k = g->kmin[i]; k <= g->kmax[i]; k++)
            if (g->vals[i][k - g->kmin[i]] > 0) {
                first = first < 0 ? k : first;
                last = k;
            }
        if (first < 0)
            continue;
        ev[m++] = (span_event){first, 1, i};
        ev[m++] = (span_event){last + 1, 0, i};
    }
    qsort(ev, m, sizeof *ev, by_event);
    int used = 0;
    for (size_t e = 0; e < m; e++) {
        if (!ev[e].is_start) {
            busy[colour[ev[e].node]] = 0;
            continue;
        }
        int c = 0;
        while (busy[c])
            c++;
        busy[c] = 1;
        colour[ev[e].node] = c;
        used = c + 1 > used ? c + 1 : used;
    }
    *ncolours = used;
    free(ev);
    free(busy);
    return 0;
}

int ari_et_util_by_node(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                        ari_et_util_nodes *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    grid g;
    if (grid_build(in, t, s, 0, ARI_ET_METRIC_TIME, &g, err) < 0)
        return -1;
    int nn = (int)t->nnodes, nc = 0;
    int *colour = malloc(((size_t)nn + 1) * sizeof *colour);
    if (!colour || colour_nodes(&g, nn, colour, &nc) < 0) {
        free(colour);
        grid_free(&g);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    size_t cells = (size_t)(nc > 0 ? nc : 1) * (size_t)s->n;
    out->value = calloc(cells, sizeof *out->value);
    out->node = malloc(cells * sizeof *out->node);
    if (!out->value || !out->node) {
        free(colour);
        grid_free(&g);
        ari_et_util_nodes_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t c = 0; c < cells; c++)
        out->node[c] = -1;
    out->ncolors = nc;
    out->nslices = s->n;
    for (int i = 0; i < nn; i++) {
        if (colour[i] < 0)
            continue;
        for (int k = g.kmin[i]; k <= g.kmax[i]; k++) {
            double v = g.vals[i][k - g.kmin[i]];
            if (!(v > 0))
                continue;
            size_t c = (size_t)colour[i] * (size_t)s->n + (size_t)k;
            out->value[c] = share(v, s, in->workers);
            out->node[c] = i;
        }
    }
    free(colour);
    grid_free(&g);
    return 0;
}

void ari_et_util_nodes_free(ari_et_util_nodes *u)
{
    free(u->value);
    free(u->node);
    memset(u, 0, sizeof *u);
}

int ari_et_util_by_depth(const ari_et_input *in, const ari_et_tree *t, const ari_et_slices *s,
                         double **value, ari_error *err)
{
    grid g;
    if (grid_build(in, t, s, 0, ARI_ET_METRIC_TIME, &g, err) < 0)
        return -1;
    double *v = calloc((size_t)(t->maxdepth + 1) * (size_t)s->n, sizeof *v);
    if (!v) {
        grid_free(&g);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < (int)t->nnodes; i++) {
        int d = t->nodes[i].depth;
        for (int k = g.kmin[i]; k <= g.kmax[i]; k++)
            v[(size_t)d * (size_t)s->n + (size_t)k] += share(g.vals[i][k - g.kmin[i]], s, in->workers_depth);
    }
    grid_free(&g);
    *value = v;
    return 0;
}

/* ---- active nodes and memory ---- */

typedef struct mem_event {
    double time;
    size_t order;
    double delta;
} mem_event;

static int by_time(const void *a, const void *b)
{
    const mem_event *x = a, *y = b;
    int c = ari_cmp_double(x->time, y->time);
    return c ? c : ari_cmp_i64((int64_t)x->order, (int64_t)y->order);
}

/* Sorts the events and writes their running sum as a step function. */
static int series_from_events(mem_event *ev, size_t n, ari_et_series *out)
{
    qsort(ev, n, sizeof *ev, by_time);
    out->time = malloc((n + 1) * sizeof *out->time);
    out->value = malloc((n + 1) * sizeof *out->value);
    if (!out->time || !out->value)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += ev[i].delta;
        out->time[i] = ev[i].time;
        out->value[i] = sum;
    }
    out->n = n;
    return 0;
}

int ari_et_memory_series(const ari_et_input *in, const ari_et_tree *t, ari_et_memory *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = in->ntasks;
    mem_event *ev[3];
    size_t m[3] = {0, 0, 0};
    for (int j = 0; j < 3; j++)
        ev[j] = malloc((n + 1) * sizeof *ev[j]);
    int rc = 0;
    if (!ev[0] || !ev[1] || !ev[2]) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        const ari_et_task *task = &in->tasks[k];
        int i = t->task_node[k];
        int kind = task->kind;
        if (i < 0 || (kind != ARI_ET_SUBTREE && kind != ARI_ET_INIT_FRONT && kind != ARI_ET_CLEAN_FRONT))
            continue;
        double sign = kind == ARI_ET_CLEAN_FRONT ? -1 : 1;
        int series = t->nodes[i].type == ARI_ET_NODE_PRUNED ? 0 : 1;
        ev[series][m[series]++] = (mem_event){task->start, k, sign};
        out->init_events += kind == ARI_ET_INIT_FRONT;
        out->subtree_events += kind == ARI_ET_SUBTREE;
        out->clean_events += kind == ARI_ET_CLEAN_FRONT;
        if (isfinite(task->gflop))
            ev[2][m[2]++] = (mem_event){task->start, k, sign * 1024.0 * task->gflop};
    }
    for (int j = 0; j < 3 && rc == 0; j++)
        if (series_from_events(ev[j], m[j], j < 2 ? &out->active[j] : &out->memory) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < out->memory.n; i++)
        if (out->memory.value[i] > out->peak_mb) {
            out->peak_mb = out->memory.value[i];
            out->peak_time = out->memory.time[i];
        }
done:
    for (int j = 0; j < 3; j++)
        free(ev[j]);
    if (rc < 0)
        ari_et_memory_free(out);
    return rc;
}

static void series_free(ari_et_series *s)
{
    free(s->time);
    free(s->value);
    memset(s, 0, sizeof *s);
}

void ari_et_memory_free(ari_et_memory *m)
{
    series_free(&m->active[0]);
    series_free(&m->active[1]);
    series_free(&m->memory);
}

void ari_et_series_mean(const ari_et_series *series, const ari_et_slices *s, double *out)
{
    for (int k = 0; k < s->n; k++)
        out[k] = 0;
    for (size_t i = 0; i < series->n; i++) {
        double a = series->time[i], v = series->value[i];
        double b = i + 1 < series->n ? series->time[i + 1] : s->end;
        if (!(b > a) || v == 0)
            continue;
        for (int k = slice_of(s, a); k < s->n; k++) {
            double lo = fmax(a, k * s->step), hi = fmin(b, (k + 1) * s->step);
            if (lo >= b)
                break;
            if (hi > lo)
                out[k] += v * (hi - lo) / s->step;
        }
    }
}

/* ---- comparison ---- */

static int by_cell(const void *a, const void *b)
{
    const ari_et_diff *x = a, *y = b;
    int c = ari_cmp_i64(x->node, y->node);
    if (c == 0)
        c = ari_cmp_i64(x->pruned, y->pruned);
    return c ? c : ari_cmp_i64(x->slice, y->slice);
}

static ari_et_diff *keyed_cells(const ari_et_tree *t, const ari_et_cell *c, size_t n)
{
    ari_et_diff *d = malloc((n + 1) * sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = (ari_et_diff){t->nodes[c[i].node].id, c[i].pruned, c[i].slice, c[i].value, 0, 0, 0};
    qsort(d, n, sizeof *d, by_cell);
    return d;
}

int ari_et_compare(const ari_et_tree *tf, const ari_et_cell *cf, size_t nf, const ari_et_tree *ts,
                   const ari_et_cell *cs, size_t ns, ari_et_diff **out, size_t *nout, ari_error *err)
{
    ari_et_diff *a = keyed_cells(tf, cf, nf), *b = keyed_cells(ts, cs, ns);
    ari_et_diff *r = malloc((nf + ns + 1) * sizeof *r);
    if (!a || !b || !r) {
        void *owned[] = {a, b, r};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    size_t i = 0, j = 0, m = 0;
    while (i < nf || j < ns) {
        int cmp = i == nf ? 1 : j == ns ? -1 : by_cell(&a[i], &b[j]);
        ari_et_diff d = cmp <= 0 ? a[i] : b[j];
        d.faster = cmp <= 0 ? a[i].faster : 0;
        d.slower = cmp >= 0 ? b[j].faster : 0;
        d.diff = d.faster - d.slower;
        d.status = cmp == 0 ? ARI_ET_CONCURRENT : cmp < 0 ? ARI_ET_ONLY_FASTER : ARI_ET_ONLY_SLOWER;
        r[m++] = d;
        i += cmp <= 0;
        j += cmp >= 0;
    }
    free(a);
    free(b);
    *out = r;
    *nout = m;
    return 0;
}
