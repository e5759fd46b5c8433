/* progression.c: the progression metrics, their per-step clustering, flows
 * and bounds (progression.h). The work is a sort of the tasks by (node,
 * end), one sweep per node over the step times, one modal clustering per
 * step, and one small ABE linear program per step. */
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

/* ---- weights (eq. 2) --------------------------------------------------------- */

typedef struct duration_sums {
    double *sum;  /* [nnodes * ntypes * (R + 1)]; slot R = unknown resource type */
    long *count;
} duration_sums;

static int sum_durations(const ari_prog_data *d, duration_sums *s)
{
    size_t cells = (size_t)d->nnodes * (size_t)d->ntypes * (size_t)(d->nrestypes + 1);
    s->sum = calloc(cells, sizeof *s->sum);
    s->count = calloc(cells, sizeof *s->count);
    if (!s->sum || !s->count)
        return -1;
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *t = &d->tasks[i];
        int r = t->restype >= 0 ? t->restype : d->nrestypes;
        size_t c = ((size_t)t->node * d->ntypes + t->type) * (d->nrestypes + 1) + r;
        s->sum[c] += t->end > t->start ? t->end - t->start : 0.0;
        s->count[c]++;
    }
    return 0;
}

static int node_workers(const ari_prog_data *d, int n)
{
    int w = 0;
    for (int r = 0; r < d->nrestypes; r++)
        w += d->workers[(size_t)n * d->nrestypes + r];
    return w;
}

/* W_{t,n} under ARI_PROG_WEIGHT_ALL_WORKERS from the sums of one (node,
 * type): see progression.h. */
static double weight_of(const ari_prog_data *d, const duration_sums *s, int n, int t)
{
    size_t base = ((size_t)n * d->ntypes + t) * (d->nrestypes + 1);
    double rate = 0, all_sum = 0;
    long all_count = 0;
    int known = 0;
    for (int r = 0; r <= d->nrestypes; r++) {
        all_sum += s->sum[base + r];
        all_count += s->count[base + r];
        if (r == d->nrestypes || s->count[base + r] == 0)
            continue;
        known = 1;
        double mean = s->sum[base + r] / s->count[base + r];
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

/* qsort_r comparator (GNU): task indices by (node, type, worker). */
static int by_node_type_worker(const void *a, const void *b, void *ctx)
{
    const ari_prog_task *tasks = ctx;
    const ari_prog_task *x = &tasks[*(const long *)a], *y = &tasks[*(const long *)b];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

/* StarVZ's W_{t,n}, exactly as R/phase2_progress.R, function
 * total_tasks_completed_node_het (github.com/schnorr/starvz):
 *   group_by(Node, ResourceId, Value) %>% summarize(mean = mean(Duration)) %>%
 *   group_by(Node, Value) %>% summarize(time = 1 / sum(1 / mean))
 * i.e. 1 / sum over the workers that ran t on n of 1 / (their mean duration
 * of t). A mean of 0 gives 1/0 = Inf in R, so time = 0: W = 0 here too.
 * Tasks of an unknown worker (0) are one group, as R's NA ResourceId. */
static int starvz_weights(const ari_prog_data *d, double *weights)
{
    long *idx = malloc((size_t)d->ntasks * sizeof *idx);
    if (!idx)
        return -1;
    for (long i = 0; i < d->ntasks; i++)
        idx[i] = i;
    qsort_r(idx, (size_t)d->ntasks, sizeof *idx, by_node_type_worker, d->tasks);
    for (size_t c = 0; c < (size_t)d->nnodes * d->ntypes; c++)
        weights[c] = NAN;
    long i = 0;
    while (i < d->ntasks) {
        const ari_prog_task *first = &d->tasks[idx[i]];
        double rate = 0;
        int zero = 0;
        /* one (node, type): a run of workers */
        while (i < d->ntasks && d->tasks[idx[i]].node == first->node &&
               d->tasks[idx[i]].type == first->type) {
            int64_t w = d->tasks[idx[i]].worker;
            double sum = 0;
            long count = 0;
            for (; i < d->ntasks && d->tasks[idx[i]].node == first->node &&
                   d->tasks[idx[i]].type == first->type && d->tasks[idx[i]].worker == w;
                 i++) {
                const ari_prog_task *t = &d->tasks[idx[i]];
                sum += t->end > t->start ? t->end - t->start : 0.0;
                count++;
            }
            if (sum <= 0)
                zero = 1;
            else
                rate += count / sum; /* 1 / mean */
        }
        weights[(size_t)first->node * d->ntypes + first->type] = zero ? 0.0 : 1.0 / rate;
    }
    free(idx);
    return 0;
}

int ari_prog_weights(const ari_prog_data *data, ari_prog_weight mode, double *weights,
                     ari_error *err)
{
    if (validate_data(data, err) < 0)
        return -1;
    if (mode == ARI_PROG_WEIGHT_STARVZ) {
        if (starvz_weights(data, weights) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        return 0;
    }
    if (mode != ARI_PROG_WEIGHT_ALL_WORKERS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: unknown weight");
    duration_sums s = {0};
    if (sum_durations(data, &s) < 0) {
        free(s.sum);
        free(s.count);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    for (int n = 0; n < data->nnodes; n++)
        for (int t = 0; t < data->ntypes; t++)
            weights[(size_t)n * data->ntypes + t] = weight_of(data, &s, n, t);
    free(s.sum);
    free(s.count);
    return 0;
}

/* ---- steps ------------------------------------------------------------------ */

static int plan_steps(const ari_prog_data *d, const ari_prog_options *o, ari_prog_result *r,
                      ari_error *err)
{
    double t0 = d->tasks[0].start, t1 = d->tasks[0].end;
    for (long i = 0; i < d->ntasks; i++) {
        if (d->tasks[i].start < t0)
            t0 = d->tasks[i].start;
        if (d->tasks[i].end > t1)
            t1 = d->tasks[i].end;
    }
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

/* The step a task ending at `end` completes in: the first s with end <= time. */
static int step_of(const ari_prog_result *r, double end)
{
    int lo = 0, hi = r->nsteps - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (end <= r->steps[mid].time)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ---- metrics (eq. 1 and 3) ------------------------------------------------------ */

/* qsort_r comparator (GNU): task indices by (node, end). */
static int by_node_end(const void *a, const void *b, void *ctx)
{
    const ari_prog_task *tasks = ctx;
    const ari_prog_task *x = &tasks[*(const long *)a], *y = &tasks[*(const long *)b];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The task weight of one node's tasks: W (eq. 3) or 1 (eq. 1, and nodes
 * whose weights sum to 0). */
static double task_weight(const ari_prog_result *r, const ari_prog_task *t, const int *use_count)
{
    if (use_count[t->node])
        return 1.0;
    return r->weights[(size_t)t->node * r->ntypes + t->type];
}

/* Chooses eq. 1 or 3 per node: eq. 3 needs a positive, finite total. */
static void choose_metric(const ari_prog_data *d, const ari_prog_options *o, ari_prog_result *r,
                          int *use_count, double *total)
{
    for (int n = 0; n < d->nnodes; n++)
        use_count[n] = o->metric == ARI_PROG_COUNT;
    for (long i = 0; i < d->ntasks; i++)
        total[d->tasks[i].node] += task_weight(r, &d->tasks[i], use_count);
    for (int n = 0; n < d->nnodes; n++) {
        if (use_count[n] || (isfinite(total[n]) && total[n] > 0))
            continue;
        use_count[n] = 1;
        total[n] = (double)r->node_tasks[n];
    }
}

/* Sweeps one node's tasks (sorted by end) over the step times. */
static void sweep_node(const ari_prog_data *d, ari_prog_result *r, const long *order, long first,
                       long count, const int *use_count, double total)
{
    int n = d->tasks[order[first]].node;
    double done = 0;
    long j = 0;
    for (int s = 0; s < r->nsteps; s++) {
        while (j < count && d->tasks[order[first + j]].end <= r->steps[s].time) {
            done += task_weight(r, &d->tasks[order[first + j]], use_count);
            j++;
        }
        double v = j == count ? 1.0 : done / total;
        r->values[(size_t)s * r->nnodes + n] = v > 1 ? 1.0 : v;
    }
    r->last_end[n] = d->tasks[order[first + count - 1]].end;
}

static int compute_metrics(const ari_prog_data *d, const ari_prog_options *o, ari_prog_result *r)
{
    long *order = malloc((size_t)d->ntasks * sizeof *order);
    int *use_count = calloc((size_t)d->nnodes, sizeof *use_count);
    double *total = calloc((size_t)d->nnodes, sizeof *total);
    if (!order || !use_count || !total) {
        void *owned[] = {order, use_count, total};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
        return -1;
    }
    for (long i = 0; i < d->ntasks; i++)
        order[i] = i;
    qsort_r(order, (size_t)d->ntasks, sizeof *order, by_node_end, d->tasks);
    choose_metric(d, o, r, use_count, total);
    for (long first = 0; first < d->ntasks;) {
        long count = r->node_tasks[d->tasks[order[first]].node];
        sweep_node(d, r, order, first, count, use_count, total[d->tasks[order[first]].node]);
        first += count;
    }
    for (long i = 0; i < d->ntasks; i++)
        r->steps[step_of(r, d->tasks[i].end)].completed++;
    void *owned[] = {order, use_count, total};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return 0;
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

static int setup_bounds(const ari_prog_data *d, const ari_prog_result *r, bound_setup *b)
{
    int K = d->ntypes, R = d->nrestypes;
    b->K = K;
    b->R = R;
    b->res_count = calloc((size_t)R, sizeof *b->res_count);
    b->mean = calloc((size_t)R * K, sizeof *b->mean);
    b->boundable = calloc((size_t)K, sizeof *b->boundable);
    b->counts = calloc((size_t)r->nsteps * K, sizeof *b->counts);
    long *n = calloc((size_t)R * K, sizeof *n);
    if (!b->res_count || !b->mean || !b->boundable || !b->counts || !n) {
        free(n);
        return -1;
    }
    for (long i = 0; i < d->ntasks; i++) {
        const ari_prog_task *t = &d->tasks[i];
        if (t->restype >= 0) {
            b->mean[(size_t)t->restype * K + t->type] += t->end > t->start ? t->end - t->start : 0;
            n[(size_t)t->restype * K + t->type]++;
        }
    }
    for (int rt = 0; rt < R; rt++) {
        int any = 0;
        for (int node = 0; node < d->nnodes; node++)
            b->res_count[rt] += d->workers[(size_t)node * R + rt];
        for (int k = 0; k < K; k++) {
            size_t c = (size_t)rt * K + k;
            b->mean[c] = n[c] ? b->mean[c] / n[c] : NAN;
            any |= n[c] > 0;
        }
        if (any && b->res_count[rt] < 1)
            b->res_count[rt] = 1;
    }
    for (int k = 0; k < K; k++)
        for (int rt = 0; rt < R; rt++)
            b->boundable[k] |= !isnan(b->mean[(size_t)rt * K + k]);
    for (long i = 0; i < d->ntasks; i++)
        if (b->boundable[d->tasks[i].type])
            b->counts[(size_t)step_of(r, d->tasks[i].end) * K + d->tasks[i].type] += 1;
    free(n);
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

static int compute_bounds(const ari_prog_data *d, ari_prog_result *r, ari_error *err)
{
    r->global_abe = NAN;
    if (d->nrestypes < 1)
        return 0;
    bound_setup b = {0};
    double *all = calloc((size_t)d->ntypes, sizeof *all);
    if (!all || setup_bounds(d, r, &b) < 0) {
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

/* ---- entry point ------------------------------------------------------------------ */

static int fail(ari_prog_result *out)
{
    ari_prog_result_free(out);
    return -1;
}

int ari_progression(const ari_prog_data *data, const ari_prog_options *opt, ari_prog_result *out,
                    ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->global_abe = NAN;
    if (validate_data(data, err) < 0 || validate_options(opt, err) < 0)
        return -1;
    out->nnodes = data->nnodes;
    out->ntypes = data->ntypes;
    if (plan_steps(data, opt, out, err) < 0)
        return fail(out);
    out->values = calloc((size_t)out->nsteps * out->nnodes, sizeof *out->values);
    out->weights = calloc((size_t)out->nnodes * out->ntypes, sizeof *out->weights);
    out->node_tasks = calloc((size_t)out->nnodes, sizeof *out->node_tasks);
    out->last_end = calloc((size_t)out->nnodes, sizeof *out->last_end);
    if (!out->values || !out->weights || !out->node_tasks || !out->last_end) {
        ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        return fail(out);
    }
    for (long i = 0; i < data->ntasks; i++)
        out->node_tasks[data->tasks[i].node]++;
    for (int n = 0; n < data->nnodes; n++)
        if (out->node_tasks[n] == 0) {
            ari_error_set(err, ARI_E_INVALID_PARAMETER, "progression: node %d has no tasks",
                          data->node_ids[n]);
            return fail(out);
        }
    if (ari_prog_weights(data, opt->weight, out->weights, err) < 0)
        return fail(out);
    if (compute_metrics(data, opt, out) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        return fail(out);
    }
    if (cluster_steps(opt, out, err) < 0)
        return fail(out);
    if (compute_flows(out) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        return fail(out);
    }
    if (opt->with_bounds && compute_bounds(data, out, err) < 0)
        return fail(out);
    return 0;
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
