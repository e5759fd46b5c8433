/* progression.c: the progression metrics, their per-step clustering, flows
 * and bounds (progression.h). The tasks are read through two rounds of
 * sums (the totals, then the sweep over the step times: a sort of the
 * tasks by (node, end)), made here from the tasks or by a store in SQL;
 * then one modal clustering per step and one small ABE linear program
 * per step. */
#include "analysis/progression.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/abe.h"
#include "util/free_all.h"
#include "util/vec.h"

void ari_prog_data_free(ari_prog_data *d)
{
    if (!d)
        return;
    for (int i = 0; d->type_names && i < d->ntypes; i++)
        free(d->type_names[i]);
    for (int i = 0; d->restype_names && i < d->nrestypes; i++)
        free(d->restype_names[i]);
    void *owned[] = {d->type_names, d->restype_names, d->node_ids, d->workers, d->tasks};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(d, 0, sizeof *d);
}

/* ---- validation ---------------------------------------------------------- */

static int validate_data(const ari_prog_data *d, ari_error *err)
{
    if (!d || d->nnodes < 1 || d->ntypes < 1 || d->nrestypes < 0 || d->ntasks < 1 || !d->tasks ||
        !d->node_ids || (d->nrestypes > 0 && !d->workers))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: no tasks to analyse");
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *t = &d->tasks[i];
        if (t->node < 0 || t->node >= d->nnodes || t->type < 0 || t->type >= d->ntypes ||
            t->restype < -1 || t->restype >= d->nrestypes || !isfinite(t->start) ||
            !isfinite(t->end))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "progression: task %ld has an invalid node, type, resource type "
                                 "or time", i);
    }
    return 0;
}

static int validate_options(const ari_prog_options *o, ari_error *err)
{
    if (!(isfinite(o->bandwidth) && o->bandwidth > 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "progression: bandwidth must be a number > 0");
    if (o->metric != ARI_PROG_COUNT && o->metric != ARI_PROG_WEIGHTED)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: unknown metric");
    if (o->weight != ARI_PROG_WEIGHT_STARVZ && o->weight != ARI_PROG_WEIGHT_ALL_WORKERS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: unknown weight");
    if (o->step_width > 0 ? !isfinite(o->step_width)
                          : (o->steps < 1 || o->steps > ARI_PROG_MAX_STEPS))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "progression: steps must be in 1..%d, or step_width a number > 0",
                             ARI_PROG_MAX_STEPS);
    return 0;
}

/* ---- the totals: the first round of sums ------------------------------------ */

void ari_prog_totals_free(ari_prog_totals *t)
{
    if (!t)
        return;
    void *owned[] = {t->node_tasks, t->last_end, t->groups, t->rsum, t->rcount, t->bsum, t->bcount};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(t, 0, sizeof *t);
}

static double duration(const ari_prog_task *t)
{
    return t->end > t->start ? t->end - t->start : 0.0;
}

/* Ties between tasks are broken by their index: the sums below add
 * their terms in the order of the input (the store's: job id, then row),
 * not in whatever order qsort leaves equal keys. */
static int by_index(long a, long b)
{
    return (a > b) - (a < b);
}

/* qsort_r comparator (GNU): task indices by (node, type, worker, index). */
static int by_node_type_worker(const void *a, const void *b, void *ctx)
{
    const ari_prog_task *tasks = ctx;
    long i = *(const long *)a, j = *(const long *)b;
    const ari_prog_task *x = &tasks[i], *y = &tasks[j];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->worker != y->worker)
        return x->worker < y->worker ? -1 : 1;
    return by_index(i, j);
}

/* The (node, type, worker) groups, their durations added in input order. */
static int task_groups(const ari_prog_data *d, ari_prog_totals *t)
{
    long *idx = malloc((size_t)d->ntasks * sizeof *idx);
    t->groups = malloc((size_t)d->ntasks * sizeof *t->groups);
    if (!idx || !t->groups) {
        free(idx);
        return -1;
    }
    for (long i = 0; i < d->ntasks; i++)
        idx[i] = i;
    qsort_r(idx, (size_t)d->ntasks, sizeof *idx, by_node_type_worker, d->tasks);
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *x = &d->tasks[idx[i]];
        ari_prog_group *g = t->ngroups > 0 ? &t->groups[t->ngroups - 1] : NULL;
        if (!g || g->node != x->node || g->type != x->type || g->worker != x->worker) {
            g = &t->groups[t->ngroups++];
            *g = (ari_prog_group){x->node, x->type, x->worker, 0, 0.0};
        }
        g->sum += duration(x);
        g->count++;
    }
    free(idx);
    return 0;
}

/* The totals of data's tasks (ari_prog_totals). */
static int totals_of_tasks(const ari_prog_data *d, ari_prog_totals *t)
{
    size_t K = (size_t)d->ntypes, R = (size_t)d->nrestypes, cells = (size_t)d->nnodes * K * (R + 1);
    memset(t, 0, sizeof *t);
    t->node_tasks = calloc((size_t)d->nnodes, sizeof *t->node_tasks);
    t->last_end = calloc((size_t)d->nnodes, sizeof *t->last_end);
    t->rsum = calloc(cells, sizeof *t->rsum);
    t->rcount = calloc(cells, sizeof *t->rcount);
    t->bsum = calloc(R * K + 1, sizeof *t->bsum);
    t->bcount = calloc(R * K + 1, sizeof *t->bcount);
    if (!t->node_tasks || !t->last_end || !t->rsum || !t->rcount || !t->bsum || !t->bcount ||
        task_groups(d, t) < 0)
        return -1;
    t->start = d->tasks[0].start;
    t->end = d->tasks[0].end;
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *x = &d->tasks[i];
        if (x->start < t->start)
            t->start = x->start;
        if (x->end > t->end)
            t->end = x->end;
        if (t->node_tasks[x->node]++ == 0 || x->end > t->last_end[x->node])
            t->last_end[x->node] = x->end;
        size_t r = x->restype >= 0 ? (size_t)x->restype : R;
        size_t c = ((size_t)x->node * K + (size_t)x->type) * (R + 1) + r;
        t->rsum[c] += duration(x);
        t->rcount[c]++;
        if (x->restype >= 0) {
            t->bsum[(size_t)x->restype * K + (size_t)x->type] += duration(x);
            t->bcount[(size_t)x->restype * K + (size_t)x->type]++;
        }
    }
    return 0;
}

/* ---- weights (eq. 2) --------------------------------------------------------- */

static int node_workers(const ari_prog_data *d, int n)
{
    int w = 0;
    for (int r = 0; r < d->nrestypes; r++)
        w += d->workers[(size_t)n * d->nrestypes + r];
    return w;
}

/* W_{t,n} under ARI_PROG_WEIGHT_ALL_WORKERS from the sums of one (node,
 * type): see progression.h. */
static double weight_of(const ari_prog_data *d, const ari_prog_totals *s, int n, int t)
{
    size_t base = ((size_t)n * d->ntypes + t) * (d->nrestypes + 1);
    double rate = 0, all_sum = 0;
    long all_count = 0;
    int known = 0;
    for (int r = 0; r <= d->nrestypes; r++) {
        all_sum += s->rsum[base + r];
        all_count += s->rcount[base + r];
        if (r == d->nrestypes || s->rcount[base + r] == 0)
            continue;
        known = 1;
        double mean = s->rsum[base + r] / s->rcount[base + r];
        int workers = d->workers[(size_t)n * d->nrestypes + r];
        if (mean <= 0)
            return 0.0;
        rate += (workers > 0 ? workers : 1) / mean;
    }
    if (all_count == 0)
        return NAN;
    if (known)
        return 1.0 / rate;
    int w = node_workers(d, n);
    return all_sum / all_count / (w > 0 ? w : 1);
}

/* StarVZ's W_{t,n}, exactly as R/phase2_progress.R, function
 * total_tasks_completed_node_het (github.com/schnorr/starvz):
 *   group_by(Node, ResourceId, Value) %>% summarize(mean = mean(Duration)) %>%
 *   group_by(Node, Value) %>% summarize(time = 1 / sum(1 / mean))
 * i.e. 1 / sum over the workers that ran t on n of 1 / (their mean duration
 * of t). A mean of 0 gives 1/0 = Inf in R, so time = 0: W = 0 here too.
 * Tasks of an unknown worker (0) are one group, as R's NA ResourceId. The
 * groups come by (node, type, worker). */
static void starvz_weights(const ari_prog_data *d, const ari_prog_totals *s, double *weights)
{
    for (size_t c = 0; c < (size_t)d->nnodes * d->ntypes; c++)
        weights[c] = NAN;
    long i = 0;
    while (i < s->ngroups) {
        const ari_prog_group *first = &s->groups[i];
        double rate = 0;
        int zero = 0;
        /* one (node, type): a run of workers */
        for (; i < s->ngroups && s->groups[i].node == first->node && s->groups[i].type == first->type; i++) {
            if (s->groups[i].sum <= 0)
                zero = 1;
            else
                rate += s->groups[i].count / s->groups[i].sum; /* 1 / mean */
        }
        weights[(size_t)first->node * d->ntypes + first->type] = zero ? 0.0 : 1.0 / rate;
    }
}

static void weights_of(const ari_prog_data *d, const ari_prog_totals *s, ari_prog_weight mode, double *weights)
{
    if (mode == ARI_PROG_WEIGHT_STARVZ) {
        starvz_weights(d, s, weights);
        return;
    }
    for (int n = 0; n < d->nnodes; n++)
        for (int t = 0; t < d->ntypes; t++)
            weights[(size_t)n * d->ntypes + t] = weight_of(d, s, n, t);
}

int ari_prog_weights(const ari_prog_data *data, ari_prog_weight mode, double *weights,
                     ari_error *err)
{
    if (validate_data(data, err) < 0)
        return -1;
    if (mode != ARI_PROG_WEIGHT_STARVZ && mode != ARI_PROG_WEIGHT_ALL_WORKERS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: unknown weight");
    ari_prog_totals s;
    if (totals_of_tasks(data, &s) < 0) {
        ari_prog_totals_free(&s);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    weights_of(data, &s, mode, weights);
    ari_prog_totals_free(&s);
    return 0;
}

/* ---- steps ------------------------------------------------------------------ */

static int plan_steps(const ari_prog_data *d, const ari_prog_totals *tot, const ari_prog_options *o,
                      ari_prog_result *r, ari_error *err)
{
    double t0 = tot->start, t1 = tot->end;
    if (t1 < t0) /* only tasks ending before they start */
        t0 = t1;
    r->t0 = t0;
    r->t1 = t1;
    if (o->step_width > 0) {
        double s = ceil((t1 - t0) / o->step_width);
        if (!(s <= ARI_PROG_MAX_STEPS))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "progression: step_width %g gives %.0f steps over %g (at most %d)",
                                 o->step_width, s, t1 - t0, ARI_PROG_MAX_STEPS);
        r->nsteps = s < 1 ? 1 : (int)s;
        r->step_width = o->step_width;
    } else {
        r->nsteps = o->steps;
        r->step_width = (t1 - t0) / o->steps;
    }
    if ((long long)r->nsteps * d->nnodes > ARI_PROG_MAX_CELLS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "progression: %d steps x %d nodes is more than %d values; use fewer "
                             "steps or nodes", r->nsteps, d->nnodes, ARI_PROG_MAX_CELLS);
    r->steps = calloc((size_t)r->nsteps, sizeof *r->steps);
    if (!r->steps)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    for (int s = 0; s < r->nsteps; s++) {
        double t = t0 + (s + 1) * r->step_width;
        r->steps[s].time = s == r->nsteps - 1 || t > t1 ? t1 : t;
        r->steps[s].start = s == 0 ? t0 : r->steps[s - 1].time;
        r->steps[s].abe = r->steps[s].cumulative_abe = NAN;
    }
    return 0;
}

/* The step a task ending at `end` completes in: the first s with end <= times[s]. */
static int step_of(const double *times, int nsteps, double end)
{
    int lo = 0, hi = nsteps - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (end <= times[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ---- the sweep: the second round of sums --------------------------------------- */

/* qsort_r comparator (GNU): task indices by (node, end, index): equal
 * ends are swept in input order, so that a node's running sum of weights
 * is one defined sequence of additions. */
static int by_node_end(const void *a, const void *b, void *ctx)
{
    const ari_prog_task *tasks = ctx;
    long i = *(const long *)a, j = *(const long *)b;
    const ari_prog_task *x = &tasks[i], *y = &tasks[j];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return by_index(i, j);
}

/* ari_prog_sweep_fn over data->tasks (ctx). */
static int sweep_tasks(void *ctx, const double *times, int nsteps, const double *weights, ari_prog_sweep *out,
                       ari_error *err)
{
    const ari_prog_data *d = ctx;
    long *order = malloc((size_t)d->ntasks * sizeof *order);
    if (!order)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *t = &d->tasks[i];
        out->total[t->node] += weights[(size_t)t->node * d->ntypes + t->type];
        order[i] = i;
    }
    qsort_r(order, (size_t)d->ntasks, sizeof *order, by_node_end, d->tasks);
    double running = 0;
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *t = &d->tasks[order[i]];
        if (i == 0 || d->tasks[order[i - 1]].node != t->node)
            running = 0;
        running += weights[(size_t)t->node * d->ntypes + t->type];
        int s = step_of(times, nsteps, t->end);
        out->count[(size_t)s * d->nnodes + t->node]++;
        out->running[(size_t)s * d->nnodes + t->node] = running;
        out->type_count[(size_t)s * d->ntypes + t->type]++;
    }
    free(order);
    return 0;
}

/* ---- metrics (eq. 1 and 3) ------------------------------------------------------ */

/* A node's values: eq. 3 (weights) when its total is positive and finite,
 * else eq. 1 (counts); 1 once all its tasks have completed. */
static void node_values(const ari_prog_options *o, ari_prog_result *r, const ari_prog_sweep *sw, int n)
{
    int use_count = o->metric == ARI_PROG_COUNT || !(isfinite(sw->total[n]) && sw->total[n] > 0);
    double total = use_count ? (double)r->node_tasks[n] : sw->total[n], weighted = 0;
    long done = 0;
    for (int s = 0; s < r->nsteps; s++) {
        size_t c = (size_t)s * r->nnodes + n;
        if (sw->count[c] > 0) {
            done += sw->count[c];
            weighted = sw->running[c];
        }
        double v = done == r->node_tasks[n] ? 1.0 : (use_count ? (double)done : weighted) / total;
        r->values[c] = v > 1 ? 1.0 : v;
    }
}

static void compute_metrics(const ari_prog_options *o, ari_prog_result *r, const ari_prog_sweep *sw)
{
    for (int n = 0; n < r->nnodes; n++)
        node_values(o, r, sw, n);
    for (int s = 0; s < r->nsteps; s++)
        for (int n = 0; n < r->nnodes; n++)
            r->steps[s].completed += sw->count[(size_t)s * r->nnodes + n];
}

/* ---- clusters and flows ---------------------------------------------------------- */

static int build_clusters(ari_prog_result *r, ari_prog_step *st, const double *values)
{
    ari_modal *m = &st->modal;
    st->clusters = calloc((size_t)m->nclusters, sizeof *st->clusters);
    if (!st->clusters)
        return -1;
    for (int c = 0; c < m->nclusters; c++) {
        st->clusters[c].mean = m->mean[c];
        st->clusters[c].min = INFINITY;
        st->clusters[c].max = -INFINITY;
        st->clusters[c].nodes = malloc((size_t)m->size[c] * sizeof(int));
        if (!st->clusters[c].nodes)
            return -1;
    }
    for (int n = 0; n < r->nnodes; n++) {
        ari_prog_cluster *c = &st->clusters[m->cluster[n]];
        c->nodes[c->count++] = n;
        if (values[n] < c->min)
            c->min = values[n];
        if (values[n] > c->max)
            c->max = values[n];
    }
    return 0;
}

/* Clusters every step at once (spread over the machine's cores by
 * ari_modal_clusters_many, with results independent of the thread count),
 * then the steps' means and cluster lists. */
static int cluster_steps(const ari_prog_options *o, ari_prog_result *r, ari_error *err)
{
    ari_modal **modal = malloc((size_t)r->nsteps * sizeof *modal);
    if (!modal)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    for (int s = 0; s < r->nsteps; s++)
        modal[s] = &r->steps[s].modal;
    int rc = ari_modal_clusters_many(r->values, r->nnodes, r->nsteps, o->bandwidth, 0, modal, err);
    free(modal);
    if (rc < 0)
        return -1;
    for (int s = 0; s < r->nsteps; s++) {
        ari_prog_step *st = &r->steps[s];
        const double *values = r->values + (size_t)s * r->nnodes;
        double sum = 0;
        for (int n = 0; n < r->nnodes; n++)
            sum += values[n];
        st->mean_value = sum / r->nnodes;
        if (build_clusters(r, st, values) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    return 0;
}

/* qsort_r comparator: node indices by (cluster at step s, cluster at step
 * s + 1, node); ctx is &r->steps[s]. */
static int by_cluster_pair(const void *a, const void *b, void *ctx)
{
    const ari_prog_step *st = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    const int *now = st[0].modal.cluster, *next = st[1].modal.cluster;
    if (now[x] != now[y])
        return now[x] < now[y] ? -1 : 1;
    if (next[x] != next[y])
        return next[x] < next[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static int add_flow(ari_prog_result *r, size_t *cap, int step, int from, int to, const int *nodes, int count)
{
    if (ari_vec_reserve((void **)&r->flows, cap, (size_t)r->nflows + 1, sizeof *r->flows) < 0)
        return -1;
    ari_prog_flow *f = &r->flows[r->nflows];
    memset(f, 0, sizeof *f);
    f->nodes = malloc((size_t)count * sizeof *f->nodes);
    if (!f->nodes)
        return -1;
    memcpy(f->nodes, nodes, (size_t)count * sizeof *nodes);
    f->step = step;
    f->from = from;
    f->to = to;
    f->count = count;
    r->nflows++;
    return 0;
}

static int flows_between(ari_prog_result *r, int s, int *order, size_t *cap)
{
    for (int n = 0; n < r->nnodes; n++)
        order[n] = n;
    qsort_r(order, (size_t)r->nnodes, sizeof *order, by_cluster_pair, &r->steps[s]);
    const int *now = r->steps[s].modal.cluster, *next = r->steps[s + 1].modal.cluster;
    int first_flow = r->nflows, largest = 0;
    for (int i = 0; i < r->nnodes;) {
        int j = i;
        while (j < r->nnodes && now[order[j]] == now[order[i]] && next[order[j]] == next[order[i]])
            j++;
        if (add_flow(r, cap, s, now[order[i]], next[order[i]], order + i, j - i) < 0)
            return -1;
        if (j - i > largest)
            largest = j - i;
        i = j;
    }
    for (int f = first_flow; f < r->nflows; f++)
        r->flows[f].minority = r->flows[f].count < largest;
    return 0;
}

static int compute_flows(ari_prog_result *r)
{
    int *order = malloc((size_t)r->nnodes * sizeof *order);
    size_t cap = 0;
    if (!order)
        return -1;
    for (int s = 0; s + 1 < r->nsteps; s++) {
        if (flows_between(r, s, order, &cap) < 0) {
            free(order);
            return -1;
        }
    }
    free(order);
    return 0;
}

/* ---- bounds ------------------------------------------------------------------------ */

typedef struct bound_setup {
    int K, R;
    double *res_count;  /* [R] */
    double *mean;       /* [R * K], NAN where the pair never ran */
    int *boundable;     /* [K] type ran on some known resource type */
    double *counts;     /* [nsteps * K] tasks of type k completed in step s */
} bound_setup;

static void free_bound_setup(bound_setup *b)
{
    void *owned[] = {b->res_count, b->mean, b->boundable, b->counts};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int setup_bounds(const ari_prog_data *d, const ari_prog_totals *tot, const ari_prog_sweep *sw,
                        const ari_prog_result *r, bound_setup *b)
{
    int K = d->ntypes, R = d->nrestypes;
    b->K = K;
    b->R = R;
    b->res_count = calloc((size_t)R, sizeof *b->res_count);
    b->mean = calloc((size_t)R * K, sizeof *b->mean);
    b->boundable = calloc((size_t)K, sizeof *b->boundable);
    b->counts = calloc((size_t)r->nsteps * K, sizeof *b->counts);
    if (!b->res_count || !b->mean || !b->boundable || !b->counts)
        return -1;
    for (int rt = 0; rt < R; rt++) {
        int any = 0;
        for (int node = 0; node < d->nnodes; node++)
            b->res_count[rt] += d->workers[(size_t)node * R + rt];
        for (int k = 0; k < K; k++) {
            size_t c = (size_t)rt * K + k;
            b->mean[c] = tot->bcount[c] ? tot->bsum[c] / tot->bcount[c] : NAN;
            any |= tot->bcount[c] > 0;
        }
        if (any && b->res_count[rt] < 1)
            b->res_count[rt] = 1;
    }
    for (int k = 0; k < K; k++)
        for (int rt = 0; rt < R; rt++)
            b->boundable[k] |= !isnan(b->mean[(size_t)rt * K + k]);
    for (int s = 0; s < r->nsteps; s++)
        for (int k = 0; k < K; k++)
            if (b->boundable[k])
                b->counts[(size_t)s * K + k] = (double)sw->type_count[(size_t)s * K + k];
    return 0;
}

static int solve_bound(const bound_setup *b, const double *counts, double *bound, ari_error *err)
{
    ari_abe_input in = {.ntypes = b->K, .nrestypes = b->R, .task_count = counts,
                        .res_count = b->res_count, .mean_duration = b->mean};
    ari_abe_result res = {0};
    if (ari_abe_compute(&in, &res, err) < 0)
        return -1;
    *bound = res.bound;
    ari_abe_result_free(&res);
    return 0;
}

static int compute_bounds(const ari_prog_data *d, const ari_prog_totals *tot, const ari_prog_sweep *sw,
                          ari_prog_result *r, ari_error *err)
{
    r->global_abe = NAN;
    if (d->nrestypes < 1)
        return 0;
    bound_setup b = {0};
    double *all = calloc((size_t)d->ntypes, sizeof *all);
    if (!all || setup_bounds(d, tot, sw, r, &b) < 0) {
        free(all);
        free_bound_setup(&b);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    int rc = 0;
    double cumulative = 0;
    for (int s = 0; s < r->nsteps && rc == 0; s++) {
        const double *counts = b.counts + (size_t)s * b.K;
        for (int k = 0; k < b.K; k++)
            all[k] += counts[k];
        rc = solve_bound(&b, counts, &r->steps[s].abe, err);
        cumulative += r->steps[s].abe;
        r->steps[s].cumulative_abe = cumulative;
    }
    if (rc == 0)
        rc = solve_bound(&b, all, &r->global_abe, err);
    free(all);
    free_bound_setup(&b);
    return rc;
}

/* ---- entry points ------------------------------------------------------------------ */

static int fail(ari_prog_result *out)
{
    ari_prog_result_free(out);
    return -1;
}

static void sweep_free(ari_prog_sweep *sw)
{
    void *owned[] = {sw->total, sw->count, sw->running, sw->type_count};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* The sweep's arrays for out's steps, filled by sweep(ctx). */
static int run_sweep(const ari_prog_data *d, ari_prog_sweep_fn sweep, void *ctx, ari_prog_result *out,
                     ari_prog_sweep *sw, ari_error *err)
{
    size_t cells = (size_t)out->nsteps * (size_t)d->nnodes;
    double *times = malloc((size_t)out->nsteps * sizeof *times);
    sw->total = calloc((size_t)d->nnodes, sizeof *sw->total);
    sw->count = calloc(cells, sizeof *sw->count);
    sw->running = calloc(cells, sizeof *sw->running);
    sw->type_count = calloc((size_t)out->nsteps * (size_t)d->ntypes, sizeof *sw->type_count);
    if (!times || !sw->total || !sw->count || !sw->running || !sw->type_count) {
        free(times);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    for (int s = 0; s < out->nsteps; s++)
        times[s] = out->steps[s].time;
    int rc = sweep(ctx, times, out->nsteps, out->weights, sw, err);
    free(times);
    return rc;
}

static int validate_shape(const ari_prog_data *d, const ari_prog_totals *tot, ari_error *err)
{
    if (!d || d->nnodes < 1 || d->ntypes < 1 || d->nrestypes < 0 || d->ntasks < 1 || !d->node_ids ||
        (d->nrestypes > 0 && !d->workers) || !tot)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: no tasks to analyse");
    if (!isfinite(tot->start) || !isfinite(tot->end))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: a task has an invalid time");
    for (long g = 0; g < tot->ngroups; g++)
        if (tot->groups[g].node < 0 || tot->groups[g].node >= d->nnodes || tot->groups[g].type < 0 ||
            tot->groups[g].type >= d->ntypes)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: a task has an invalid node or type");
    return 0;
}

int ari_progression_sums(const ari_prog_data *data, const ari_prog_totals *tot, ari_prog_sweep_fn sweep,
                         void *ctx, const ari_prog_options *opt, ari_prog_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->global_abe = NAN;
    if (validate_shape(data, tot, err) < 0 || validate_options(opt, err) < 0)
        return -1;
    out->nnodes = data->nnodes;
    out->ntypes = data->ntypes;
    if (plan_steps(data, tot, opt, out, err) < 0)
        return fail(out);
    out->values = calloc((size_t)out->nsteps * out->nnodes, sizeof *out->values);
    out->weights = calloc((size_t)out->nnodes * out->ntypes, sizeof *out->weights);
    out->node_tasks = calloc((size_t)out->nnodes, sizeof *out->node_tasks);
    out->last_end = calloc((size_t)out->nnodes, sizeof *out->last_end);
    if (!out->values || !out->weights || !out->node_tasks || !out->last_end) {
        ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        return fail(out);
    }
    for (int n = 0; n < data->nnodes; n++) {
        out->node_tasks[n] = tot->node_tasks[n];
        out->last_end[n] = tot->last_end[n];
        if (out->node_tasks[n] == 0) {
            ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: node %d has no tasks",
                          data->node_ids[n]);
            return fail(out);
        }
    }
    weights_of(data, tot, opt->weight, out->weights);
    ari_prog_sweep sw = {0};
    int rc = run_sweep(data, sweep, ctx, out, &sw, err);
    if (rc == 0) {
        compute_metrics(opt, out, &sw);
        rc = cluster_steps(opt, out, err);
    }
    if (rc == 0 && compute_flows(out) < 0)
        rc = ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    if (rc == 0 && opt->with_bounds)
        rc = compute_bounds(data, tot, &sw, out, err);
    sweep_free(&sw);
    return rc < 0 ? fail(out) : 0;
}

int ari_progression(const ari_prog_data *data, const ari_prog_options *opt, ari_prog_result *out,
                    ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->global_abe = NAN;
    if (validate_data(data, err) < 0 || validate_options(opt, err) < 0)
        return -1;
    ari_prog_totals tot;
    if (totals_of_tasks(data, &tot) < 0) {
        ari_prog_totals_free(&tot);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    int rc = ari_progression_sums(data, &tot, sweep_tasks, (void *)data, opt, out, err);
    ari_prog_totals_free(&tot);
    return rc;
}

void ari_prog_result_free(ari_prog_result *r)
{
    if (!r)
        return;
    for (int s = 0; r->steps && s < r->nsteps; s++) {
        for (int c = 0; r->steps[s].clusters && c < r->steps[s].modal.nclusters; c++)
            free(r->steps[s].clusters[c].nodes);
        free(r->steps[s].clusters);
        ari_modal_free(&r->steps[s].modal);
    }
    for (int f = 0; f < r->nflows; f++)
        free(r->flows[f].nodes);
    void *owned[] = {r->flows, r->steps, r->values, r->weights, r->node_tasks, r->last_end};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(r, 0, sizeof *r);
}
