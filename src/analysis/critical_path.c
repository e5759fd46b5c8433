/* critical_path.c: backward walks along the latest-finishing predecessor,
 * single chains and merged forests of chains with wait filtering. */
#include "analysis/critical_path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"
#include "util/index_sort.h"

int ari_dcp_validate(const ari_dcp_input *in, ari_error *err)
{
    if (!in)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: no input");
    if (ari_dag_validate(&in->dag, err) != 0)
        return -1;
    if (in->dag.ntasks > 0 && (!in->start || !in->end))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "critical path: missing start or end times");
    for (int64_t i = 0; i < in->dag.ntasks; i++)
        if (!isfinite(in->start[i]) || !isfinite(in->end[i]) || in->end[i] < in->start[i])
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "critical path: task %lld has invalid times [%g, %g]",
                                 (long long)i, in->start[i], in->end[i]);
    return 0;
}

int64_t ari_dcp_latest_pred(const ari_dcp_input *in, int64_t v)
{
    int64_t best = -1;
    for (int64_t e = in->dag.pred_offset[v]; e < in->dag.pred_offset[v + 1]; e++) {
        int64_t p = in->dag.pred[e];
        if (best < 0 || in->end[p] > in->end[best] || (in->end[p] == in->end[best] && p < best))
            best = p;
    }
    return best;
}

int64_t ari_dcp_last_task(const ari_dcp_input *in)
{
    int64_t last = -1;
    for (int64_t i = 0; i < in->dag.ntasks; i++)
        if (last < 0 || in->end[i] > in->end[last])
            last = i;
    return last;
}

int ari_dcp_chain(const ari_dcp_input *in, int64_t from, int64_t **path, int64_t *len,
                  ari_error *err)
{
    if (!path || !len)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: no result");
    *path = NULL;
    *len = 0;
    if (ari_dcp_validate(in, err) != 0)
        return -1;
    int64_t n = in->dag.ntasks;
    if (from >= n)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "critical path: task %lld outside [0, %lld)", (long long)from,
                             (long long)n);
    if (from < 0)
        from = ari_dcp_last_task(in);
    if (from < 0)
        return 0;

    /* A chain visits each task at most once, so more than n steps means
     * the walk went round a cycle. */
    int64_t count = 0;
    for (int64_t v = from; v >= 0; v = ari_dcp_latest_pred(in, v))
        if (++count > n)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "critical path: the dependencies from task %lld form a cycle",
                                 (long long)from);
    int64_t *p = malloc((size_t)count * sizeof *p);
    if (!p)
        return ari_error_set(err, ARI_E_NOMEM, "critical path: out of memory");
    int64_t i = count;
    for (int64_t v = from; v >= 0; v = ari_dcp_latest_pred(in, v))
        p[--i] = v;
    *path = p;
    *len = count;
    return 0;
}

/* Per-task state of a merge. */
enum { UNSEEN = 0, ON_WALK = 1, DONE = 2 };

typedef struct merge_state {
    unsigned char *state; /* [n] UNSEEN / ON_WALK / DONE */
    int64_t *next;        /* [n] latest pred, valid when state != UNSEEN */
    int64_t *weight;      /* [n] seeds at the task, then chains through it */
    int64_t *walk;        /* [n] the tasks of the current walk */
} merge_state;

/* Follows the chain from seed s until a task already merged; marks the new
 * tasks DONE. Returns 0, or -1 when the walk meets itself (a cycle). */
static int walk_from(const ari_dcp_input *in, merge_state *ms, int64_t s)
{
    int64_t len = 0, v = s;
    while (v >= 0 && ms->state[v] == UNSEEN) {
        ms->state[v] = ON_WALK;
        ms->next[v] = ari_dcp_latest_pred(in, v);
        ms->walk[len++] = v;
        v = ms->next[v];
    }
    int cycle = v >= 0 && ms->state[v] == ON_WALK;
    for (int64_t i = 0; i < len; i++)
        ms->state[ms->walk[i]] = DONE;
    return cycle ? -1 : 0;
}

/* Turns weight[v] (seeds at v) into the number of chains through v: the
 * forest next[] is processed leaves first, each task adding its weight to
 * its latest predecessor. `queue` and `children` are scratch arrays. */
static void accumulate(const merge_state *ms, int64_t n, int64_t *queue, int64_t *children)
{
    int64_t head = 0, tail = 0;
    memset(children, 0, (size_t)n * sizeof *children);
    for (int64_t v = 0; v < n; v++)
        if (ms->state[v] == DONE && ms->next[v] >= 0)
            children[ms->next[v]]++;
    for (int64_t v = 0; v < n; v++)
        if (ms->state[v] == DONE && children[v] == 0)
            queue[tail++] = v;
    while (head < tail) {
        int64_t v = queue[head++], p = ms->next[v];
        if (p < 0)
            continue;
        ms->weight[p] += ms->weight[v];
        if (--children[p] == 0)
            queue[tail++] = p;
    }
}

/* Copies the merged tasks and the edges passing the gap filter. */
static int collect(const ari_dcp_input *in, const merge_state *ms, double min_gap,
                   ari_dcp_merged *out)
{
    int64_t n = in->dag.ntasks, on = 0, all = 0, kept = 0;
    for (int64_t v = 0; v < n; v++) {
        if (ms->state[v] != DONE)
            continue;
        on++;
        if (ms->next[v] >= 0) {
            all++;
            kept += in->start[v] - in->end[ms->next[v]] >= min_gap;
        }
    }
    out->tasks = malloc((size_t)(on ? on : 1) * sizeof *out->tasks);
    out->edges = malloc((size_t)(kept ? kept : 1) * sizeof *out->edges);
    if (!out->tasks || !out->edges)
        return -1;
    for (int64_t v = 0; v < n; v++) {
        if (ms->state[v] != DONE)
            continue;
        out->tasks[out->ntasks_on++] = v;
        int64_t p = ms->next[v];
        if (p < 0 || in->start[v] - in->end[p] < min_gap)
            continue;
        out->edges[out->nedges++] =
            (ari_dcp_edge){.pred = p, .succ = v, .multiplicity = ms->weight[v],
                           .gap = in->start[v] - in->end[p]};
    }
    out->nedges_all = all;
    return 0;
}

int ari_dcp_merge(const ari_dcp_input *in, const int64_t *seeds, int64_t nseeds, double min_gap,
                  ari_dcp_merged *out, ari_error *err)
{
    if (!out)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: no result");
    memset(out, 0, sizeof *out);
    if (ari_dcp_validate(in, err) != 0)
        return -1;
    if (isnan(min_gap))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: min_gap is NaN");
    if (nseeds < 0 || (nseeds > 0 && !seeds))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: bad seed list");
    int64_t n = in->dag.ntasks;
    for (int64_t i = 0; i < nseeds; i++)
        if (seeds[i] < 0 || seeds[i] >= n)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "critical path: seed task %lld outside [0, %lld)",
                                 (long long)seeds[i], (long long)n);

    size_t na = (size_t)(n ? n : 1);
    merge_state ms = {calloc(na, 1), malloc(na * sizeof(int64_t)), calloc(na, sizeof(int64_t)),
                      malloc(na * sizeof(int64_t))};
    int64_t *children = malloc(na * sizeof *children);
    int rc = 0;
    if (!ms.state || !ms.next || !ms.weight || !ms.walk || !children) {
        rc = ari_error_set(err, ARI_E_NOMEM, "critical path: out of memory");
        goto done;
    }
    for (int64_t i = 0; i < nseeds; i++) {
        ms.weight[seeds[i]]++;
        if (walk_from(in, &ms, seeds[i]) != 0) {
            rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                               "critical path: the dependencies from task %lld form a cycle",
                               (long long)seeds[i]);
            goto done;
        }
    }
    accumulate(&ms, n, ms.walk, children);
    out->nseeds = nseeds;
    if (collect(in, &ms, min_gap, out) != 0)
        rc = ari_error_set(err, ARI_E_NOMEM, "critical path: out of memory");
done:
    free(ms.state), free(ms.next), free(ms.weight), free(ms.walk), free(children);
    if (rc != 0)
        ari_dcp_merged_free(out);
    return rc;
}

int ari_dcp_merge_type(const ari_dcp_input *in, const int *type, int seed_type, double min_gap,
                       ari_dcp_merged *out, ari_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (ari_dcp_validate(in, err) != 0)
        return -1;
    int64_t n = in->dag.ntasks, count = 0;
    if (n > 0 && !type)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "critical path: missing type array");
    for (int64_t i = 0; i < n; i++)
        count += type[i] == seed_type;
    int64_t *seeds = malloc((size_t)(count ? count : 1) * sizeof *seeds);
    if (!seeds)
        return ari_error_set(err, ARI_E_NOMEM, "critical path: out of memory");
    for (int64_t i = 0, j = 0; i < n; i++)
        if (type[i] == seed_type)
            seeds[j++] = i;
    int rc = ari_dcp_merge(in, seeds, count, min_gap, out, err);
    free(seeds);
    return rc;
}

void ari_dcp_merged_free(ari_dcp_merged *m)
{
    if (!m)
        return;
    void *owned[] = {m->tasks, m->edges};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(m, 0, sizeof *m);
}

double ari_dcp_order_by_start(ari_dcp_merged *m, const double *start, const double *end)
{
    double first = INFINITY, last = -INFINITY;
    ari_sort_index_by_double(m->tasks, (size_t)m->ntasks_on, start);
    for (int64_t j = 0; j < m->ntasks_on; j++) {
        first = fmin(first, start[m->tasks[j]]);
        last = fmax(last, end[m->tasks[j]]);
    }
    return m->ntasks_on ? last - first : 0.0;
}
