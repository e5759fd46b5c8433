/* cpe.c: DAG validation, Kahn's topological sort and the critical path
 * bound (longest path with each task at its fastest resource type). */
#include "analysis/cpe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

int ari_dag_validate(const ari_dag *dag, ari_error *err)
{
    if (!dag)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "dag: no graph");
    int64_t n = dag->ntasks;
    if (n < 0 || n > ARI_DAG_MAX_TASKS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "dag: task count %lld out of range",
                             (long long)n);
    if (!dag->pred_offset)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "dag: missing pred_offset");
    if (dag->pred_offset[0] != 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "dag: pred_offset[0] is %lld, not 0",
                             (long long)dag->pred_offset[0]);
    for (int64_t i = 0; i < n; i++)
        if (dag->pred_offset[i + 1] < dag->pred_offset[i])
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "dag: pred_offset decreases at task %lld", (long long)i);
    int64_t m = dag->pred_offset[n];
    if (m > 0 && !dag->pred)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "dag: missing pred array");
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = dag->pred_offset[i]; e < dag->pred_offset[i + 1]; e++)
            if (dag->pred[e] < 0 || dag->pred[e] >= n)
                return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                     "dag: task %lld has predecessor %lld outside [0, %lld)",
                                     (long long)i, (long long)dag->pred[e], (long long)n);
    return 0;
}

/* Successor lists (CSR) from the predecessor lists; *off and *succ are
 * malloc'd. Successors of each task come in increasing index order. */
static int build_successors(const ari_dag *dag, int64_t **off_out, int64_t **succ_out)
{
    int64_t n = dag->ntasks, m = dag->pred_offset[n];
    int64_t *off = calloc((size_t)n + 1, sizeof *off);
    int64_t *succ = malloc((size_t)(m ? m : 1) * sizeof *succ);
    int64_t *fill = malloc((size_t)(n ? n : 1) * sizeof *fill);
    if (!off || !succ || !fill) {
        free(off), free(succ), free(fill);
        return -1;
    }
    for (int64_t e = 0; e < m; e++)
        off[dag->pred[e] + 1]++;
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    memcpy(fill, off, (size_t)n * sizeof *fill);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = dag->pred_offset[i]; e < dag->pred_offset[i + 1]; e++)
            succ[fill[dag->pred[e]]++] = i;
    free(fill);
    *off_out = off;
    *succ_out = succ;
    return 0;
}

int ari_dag_topo_order(const ari_dag *dag, int64_t *order, ari_error *err)
{
    int64_t n = dag->ntasks;
    int64_t *soff = NULL, *succ = NULL;
    int64_t *indeg = malloc((size_t)(n ? n : 1) * sizeof *indeg);
    if (!indeg || build_successors(dag, &soff, &succ) != 0) {
        free(indeg);
        return ari_error_set(err, ARI_E_NOMEM, "dag: out of memory (%lld tasks)", (long long)n);
    }
    /* `order` doubles as the FIFO queue: [head, tail) are ready tasks. */
    int64_t head = 0, tail = 0;
    for (int64_t i = 0; i < n; i++) {
        indeg[i] = dag->pred_offset[i + 1] - dag->pred_offset[i];
        if (indeg[i] == 0)
            order[tail++] = i;
    }
    while (head < tail) {
        int64_t v = order[head++];
        for (int64_t e = soff[v]; e < soff[v + 1]; e++)
            if (--indeg[succ[e]] == 0)
                order[tail++] = succ[e];
    }
    int rc = 0;
    if (tail < n) {
        int64_t stuck = 0;
        while (indeg[stuck] == 0)
            stuck++;
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                           "dag: the dependencies form a cycle (%lld of %lld tasks are on or "
                           "after one, e.g. task %lld)",
                           (long long)(n - tail), (long long)n, (long long)stuck);
    }
    free(indeg), free(soff), free(succ);
    return rc;
}

/* Fills type_duration/type_restype with the fastest known resource type. */
static int fastest_per_type(const ari_cpe_input *in, ari_cpe_result *out, ari_error *err)
{
    for (int k = 0; k < in->ntypes; k++) {
        out->type_duration[k] = NAN;
        out->type_restype[k] = -1;
        for (int r = 0; r < in->nrestypes; r++) {
            double w = in->mean_duration[(size_t)r * in->ntypes + k];
            if (isnan(w))
                continue;
            if (!isfinite(w) || w < 0)
                return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                     "cpe: mean_duration for resource type %d, task type %d is "
                                     "%g (must be >= 0, or NAN when unknown)",
                                     r, k, w);
            if (out->type_restype[k] < 0 || w < out->type_duration[k]) {
                out->type_duration[k] = w;
                out->type_restype[k] = r;
            }
        }
    }
    return 0;
}

static int validate(const ari_cpe_input *in, ari_error *err)
{
    if (!in)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cpe: no input");
    if (ari_dag_validate(&in->dag, err) != 0)
        return -1;
    if (in->ntypes < 1 || in->nrestypes < 1 || in->ntypes > (1 << 20) ||
        in->nrestypes > (1 << 20) || (long long)in->ntypes * in->nrestypes > (1 << 24))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "cpe: %d task types x %d resource types is out of range", in->ntypes,
                             in->nrestypes);
    if (!in->mean_duration || (in->dag.ntasks > 0 && !in->type))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cpe: missing input arrays");
    for (int64_t i = 0; i < in->dag.ntasks; i++)
        if (in->type[i] < 0 || in->type[i] >= in->ntypes)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "cpe: task %lld has type id %d outside [0, %d)", (long long)i,
                                 in->type[i], in->ntypes);
    return 0;
}

/* Longest path over `order`: dist[v] = weight(v) + max over preds, parent
 * the first (lowest index on ties) predecessor reaching that max. */
static void longest_path(const ari_cpe_input *in, const int64_t *order, const double *tw,
                         double *dist, int64_t *parent)
{
    const ari_dag *g = &in->dag;
    for (int64_t o = 0; o < g->ntasks; o++) {
        int64_t v = order[o];
        double best = 0;
        int64_t arg = -1;
        for (int64_t e = g->pred_offset[v]; e < g->pred_offset[v + 1]; e++) {
            int64_t p = g->pred[e];
            if (arg < 0 || dist[p] > best || (dist[p] == best && p < arg)) {
                best = dist[p];
                arg = p;
            }
        }
        dist[v] = best + tw[in->type[v]];
        parent[v] = arg;
    }
}

static int extract_path(const int64_t *parent, const double *dist, int64_t n,
                        ari_cpe_result *out)
{
    int64_t sink = -1, len = 0;
    for (int64_t v = 0; v < n; v++)
        if (sink < 0 || dist[v] > dist[sink])
            sink = v;
    out->length = sink < 0 ? 0.0 : dist[sink];
    for (int64_t v = sink; v >= 0; v = parent[v])
        len++;
    out->path = malloc((size_t)(len ? len : 1) * sizeof *out->path);
    if (!out->path)
        return -1;
    out->path_len = len;
    for (int64_t v = sink, i = len - 1; v >= 0; v = parent[v], i--)
        out->path[i] = v;
    return 0;
}

int ari_cpe_compute(const ari_cpe_input *in, ari_cpe_result *out, ari_error *err)
{
    if (!out)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cpe: no result");
    memset(out, 0, sizeof *out);
    if (validate(in, err) != 0)
        return -1;
    int64_t n = in->dag.ntasks;
    size_t nalloc = (size_t)(n ? n : 1);
    out->type_duration = malloc((size_t)in->ntypes * sizeof *out->type_duration);
    out->type_restype = malloc((size_t)in->ntypes * sizeof *out->type_restype);
    int64_t *order = malloc(nalloc * sizeof *order);
    int64_t *parent = malloc(nalloc * sizeof *parent);
    double *dist = malloc(nalloc * sizeof *dist);
    int rc = 0;
    if (!out->type_duration || !out->type_restype || !order || !parent || !dist) {
        rc = ari_error_set(err, ARI_E_NOMEM, "cpe: out of memory (%lld tasks)", (long long)n);
        goto done;
    }
    out->ntypes = in->ntypes;
    if ((rc = fastest_per_type(in, out, err)) != 0)
        goto done;
    for (int64_t i = 0; i < n; i++)
        if (isnan(out->type_duration[in->type[i]])) {
            rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                               "cpe: task %lld has type %d, which has no known duration on any "
                               "resource type",
                               (long long)i, in->type[i]);
            goto done;
        }
    if ((rc = ari_dag_topo_order(&in->dag, order, err)) != 0)
        goto done;
    longest_path(in, order, out->type_duration, dist, parent);
    if (extract_path(parent, dist, n, out) != 0)
        rc = ari_error_set(err, ARI_E_NOMEM, "cpe: out of memory");
done:
    free(order), free(parent), free(dist);
    if (rc != 0)
        ari_cpe_result_free(out);
    return rc;
}

void ari_cpe_result_free(ari_cpe_result *res)
{
    if (!res)
        return;
    void *owned[] = {res->path, res->type_duration, res->type_restype};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}
