/* ensemble_supergraph.c: the ensemble super graph (ensemble_supergraph.h):
 * flattening the unified CCT, building the super graph on it once, and
 * the per-member values with presence; the gradient histogram. */
#include "analysis/ensemble_supergraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int oom(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* Processes of member m in the flattened CCT: all of its own (per_rank),
 * else one that stands for all of them. */
static int member_procs(const ari_ecct *e, const ari_esg *s, int m)
{
    return s->per_rank ? e->members[m].cct->nprocs : 1;
}

/* proc_first, proc_rank and proc_thread of the concatenated processes. */
static int flatten_procs(const ari_ecct *e, ari_esg *s)
{
    s->proc_first = malloc(((size_t)e->nmembers + 1) * sizeof *s->proc_first);
    if (!s->proc_first)
        return -1;
    s->proc_first[0] = 0;
    for (int m = 0; m < e->nmembers; m++)
        s->proc_first[m + 1] = s->proc_first[m] + member_procs(e, s, m);
    int np = s->proc_first[e->nmembers];
    s->proc_rank = malloc(((size_t)np + 1) * sizeof(int));
    s->proc_thread = malloc(((size_t)np + 1) * sizeof(int));
    if (!s->proc_rank || !s->proc_thread)
        return -1;
    for (int m = 0; m < e->nmembers; m++) {
        const ari_cct *c = e->members[m].cct;
        for (int p = 0; p < member_procs(e, s, m); p++) {
            s->proc_rank[s->proc_first[m] + p] = s->per_rank && c->proc_rank ? c->proc_rank[p] : p;
            s->proc_thread[s->proc_first[m] + p] = s->per_rank && c->proc_thread ? c->proc_thread[p] : 0;
        }
    }
    return 0;
}

/* The value that stands for member m's processes at node i: what the
 * collapse of its supernodes' per-process sums gives, by linearity (NAN
 * counts as 0): the sum of its processes for ARI_COLLAPSE_SUM, that sum
 * over its process count for the mean. */
static double member_standin(const ari_ecct *e, int m, int64_t i, int k, ari_collapse how)
{
    double sum = ari_ecct_sum(e, m, i, k);
    int np = e->members[m].cct->nprocs;
    if (isnan(sum) || how == ARI_COLLAPSE_SUM)
        return sum;
    return np > 0 ? sum / np : NAN;
}

/* values[q] of the flattened CCT for unified metric k. */
static int flatten_metric(const ari_ecct *e, ari_esg *s, int q, int k, ari_collapse how)
{
    int np = s->proc_first[e->nmembers];
    size_t n = (size_t)e->nnodes * (size_t)np;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    s->values[q] = v;
    for (int64_t i = 0; i < e->nnodes; i++) {
        for (int m = 0; m < e->nmembers; m++) {
            double *dst = v + i * np + s->proc_first[m];
            if (!s->per_rank) {
                *dst = member_standin(e, m, i, k, how);
                continue;
            }
            int mp = 0;
            const double *row = ari_ecct_ranks(e, m, i, k, &mp);
            for (int p = 0; p < s->proc_first[m + 1] - s->proc_first[m]; p++)
                dst[p] = row && p < mp ? row[p] : NAN;
        }
    }
    return 0;
}

static int flatten(const ari_ecct *e, int k, ari_collapse how, ari_esg *s)
{
    if (flatten_procs(e, s) < 0 || flatten_metric(e, s, 0, k, how) < 0)
        return -1;
    int kp = e->metrics[k].partner;
    s->metrics[0] = e->metrics[k];
    s->metrics[0].partner = kp >= 0 ? 1 : -1;
    if (kp >= 0) {
        s->metrics[1] = e->metrics[kp];
        s->metrics[1].partner = 0;
        if (flatten_metric(e, s, 1, kp, how) < 0)
            return -1;
    }
    s->flat = (ari_cct){.nnodes = e->nnodes,
                        .parent = e->parent,
                        .name = e->name,
                        .module = e->module,
                        .file = e->file,
                        .line = e->line,
                        .kind = e->kind,
                        .nprocs = s->proc_first[e->nmembers],
                        .proc_rank = s->proc_rank,
                        .proc_thread = s->proc_thread,
                        .nmetrics = kp >= 0 ? 2 : 1,
                        .metrics = s->metrics,
                        .values = (const double *const *)s->values};
    return 0;
}

static int64_t find_edge(const ari_supergraph *g, int64_t u, int64_t v)
{
    int64_t lo = 0, hi = g->nedges - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const ari_sg_edge *x = &g->edges[mid];
        if (x->source == u && x->target == v)
            return mid;
        if (x->source < u || (x->source == u && x->target < v))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* present[j * nm + m] for nodes (and edges in epresent) from the CCT nodes. */
static void mark_presence(const ari_ecct *e, const ari_esg *s, unsigned char *npres, unsigned char *epres)
{
    const ari_supergraph *g = &s->g;
    int nm = e->nmembers;
    for (int64_t i = 0; i < e->nnodes; i++) {
        int64_t j = g->group[i], p = e->parent[i];
        if (j < 0)
            continue;
        int64_t ge = p >= 0 && g->group[p] >= 0 && g->group[p] != j ? find_edge(g, g->group[p], j) : -1;
        for (int m = 0; m < nm; m++) {
            if (!ari_ecct_present(e, m, i))
                continue;
            npres[j * nm + m] = 1;
            if (ge >= 0)
                epres[ge * nm + m] = 1;
        }
    }
}

/* One member's collapsed values, NAN where absent: the collapse over its
 * own processes only (one in a summary, where it is the value itself). */
static void member_values(const ari_esg *s, int m, ari_collapse how, double *scratch,
                          const unsigned char *npres, const unsigned char *epres)
{
    const ari_supergraph *g = &s->g;
    int np = g->nprocs, nm = s->nmembers, first = s->proc_first[m], count = s->proc_first[m + 1] - first;
    for (int64_t j = 0; j < g->nnodes; j++) {
        int here = npres[j * nm + m];
        s->inc[j * nm + m] = here ? ari_collapse_row(g->inc + j * np + first, count, NULL, how, scratch) : NAN;
        s->exc[j * nm + m] = here ? ari_collapse_row(g->exc + j * np + first, count, NULL, how, scratch) : NAN;
    }
    for (int64_t x = 0; x < g->nedges; x++)
        s->weight[x * nm + m] =
            epres[x * nm + m] ? ari_collapse_row(g->weight + x * np + first, count, NULL, how, scratch) : NAN;
}

/* Replaces the stand-ins by every member's processes: the flattened CCT,
 * its times and the graph's per-process values (same graph). */
static int per_rank_values(const ari_ecct *e, int k, ari_esg *s, ari_error *err)
{
    free(s->values[0]);
    free(s->values[1]);
    free(s->proc_first);
    free(s->proc_rank);
    free(s->proc_thread);
    s->values[0] = s->values[1] = NULL;
    s->proc_first = NULL;
    s->proc_rank = s->proc_thread = NULL;
    ari_cct_times_free(&s->t);
    s->per_rank = 1;
    if (flatten(e, k, ARI_COLLAPSE_MEAN, s) < 0)
        return oom(err);
    if (ari_cct_times_init(&s->t, &s->flat, 0, err) < 0)
        return -1;
    return ari_supergraph_revalue(&s->g, e->parent, &s->t, err);
}

static int all_members(const ari_ecct *e, ari_esg *s, ari_collapse how, ari_error *err)
{
    int nm = e->nmembers;
    size_t nn = (size_t)s->g.nnodes * nm + 1, ne = (size_t)s->g.nedges * nm + 1;
    s->inc = malloc(nn * sizeof(double));
    s->exc = malloc(nn * sizeof(double));
    s->weight = malloc(ne * sizeof(double));
    unsigned char *npres = calloc(nn, 1), *epres = calloc(ne, 1);
    double *scratch = malloc(((size_t)s->flat.nprocs + 1) * sizeof *scratch);
    int rc = 0;
    if (!s->inc || !s->exc || !s->weight || !npres || !epres || !scratch) {
        rc = oom(err);
    } else {
        mark_presence(e, s, npres, epres);
        for (int m = 0; m < nm; m++)
            member_values(s, m, how, scratch, npres, epres);
    }
    free(npres);
    free(epres);
    free(scratch);
    return rc;
}

int ari_esg_build(const ari_ecct *e, const ari_esg_params *p, ari_esg *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->nmembers = e->nmembers;
    if (p->metric < 0 || p->metric >= e->nmetrics)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "metric index %d out of range", p->metric);
    ari_collapse how = p->sg.collapse;
    if (!p->per_rank && how != ARI_COLLAPSE_MEAN && how != ARI_COLLAPSE_SUM)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "collapse '%s' needs every rank's values: build the ensemble super graph per rank",
                             ari_collapse_name(how));
    for (int m = 0; p->per_rank && m < e->nmembers; m++)
        if (!e->members[m].cct->values)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "member %d has no per-process values", m);
    /* the graph (grouping, filter, order, ids) always from the stand-ins */
    ari_collapse standin = how == ARI_COLLAPSE_SUM ? ARI_COLLAPSE_SUM : ARI_COLLAPSE_MEAN;
    if (flatten(e, p->metric, standin, out) < 0)
        return oom(err);
    out->keep = malloc((size_t)e->nnodes + 1);
    if (!out->keep)
        return oom(err);
    if (ari_cct_times_init(&out->t, &out->flat, 0, err) < 0 ||
        ari_cct_filter_mask(&out->flat, &out->t, &p->filter, out->keep, &out->kept, err) < 0 ||
        ari_supergraph_build(&out->flat, &out->t, out->keep, &p->sg, &out->g, err) < 0)
        return -1;
    if (p->per_rank && per_rank_values(e, p->metric, out, err) < 0)
        return -1;
    return all_members(e, out, how, err);
}

void ari_esg_free(ari_esg *s)
{
    ari_supergraph_free(&s->g);
    ari_cct_times_free(&s->t);
    free(s->keep);
    free(s->values[0]);
    free(s->values[1]);
    free(s->proc_first);
    free(s->proc_rank);
    free(s->proc_thread);
    free(s->inc);
    free(s->exc);
    free(s->weight);
    memset(s, 0, sizeof *s);
}

void ari_esg_range_of(const double *v, int n, int stride, ari_esg_range *out)
{
    out->min = out->max = out->mean = NAN;
    out->npresent = 0;
    double sum = 0;
    for (int m = 0; m < n; m++) {
        double x = v[(size_t)m * stride];
        if (isnan(x))
            continue;
        out->min = out->npresent == 0 || x < out->min ? x : out->min;
        out->max = out->npresent == 0 || x > out->max ? x : out->max;
        sum += x;
        out->npresent++;
    }
    if (out->npresent > 0)
        out->mean = sum / out->npresent;
}

void ari_esg_gradient(const double *v, int n, int stride, int nbins, int *counts, int *run_bin, double *min,
                      double *max)
{
    double *x = malloc(((size_t)n + 1) * sizeof *x);
    unsigned char *mask = malloc((size_t)n + 1);
    memset(counts, 0, (size_t)nbins * sizeof *counts);
    *min = *max = NAN;
    if (!x || !mask) {
        free(x);
        free(mask);
        return;
    }
    int any = 0;
    for (int m = 0; m < n; m++) {
        x[m] = v[(size_t)m * stride];
        mask[m] = !isnan(x[m]);
        any |= mask[m];
    }
    if (any)
        ari_histogram(x, n, mask, nbins, counts, min, max);
    for (int m = 0; m < n; m++)
        run_bin[m] = mask[m] ? ari_histogram_bin(x[m], *min, *max, nbins) : -1;
    free(x);
    free(mask);
}
