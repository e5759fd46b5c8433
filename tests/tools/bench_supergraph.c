/* bench_supergraph.c: times CallFlow's super graph (src/analysis/
 * supergraph.c) on a large calling context tree: the filter (0.1% of the
 * root by default), the grouping into modules with cycle breaking, the
 * per-process sums, the collapsed view with per-node histograms, and a rank
 * brush (half of the ranks against the other half). Checks flow
 * conservation on the result so that the timing is of a correct graph.
 *
 *   bench_supergraph [--nodes N] [--ranks R] [--modules M] [--filter PCT]
 *                    [--group module|name] [--db FILE --trace ID]
 *
 * Without --db the CCT is generated in memory with the shape of
 * tests/tools/gen_cct.c (node i hangs from one of the previous few hundred
 * nodes; a child stays in its parent's module with probability 0.85, so
 * modules come back along paths and across paths and cycles must be broken);
 * with --db it is loaded from an ariadne database (ari_profile_load), e.g.
 * the one tests/bench/bench_profiles.sh imports. Prints one line of
 * key value pairs. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "store/profile_queries.h"

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double uniform(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct generated {
    ari_cct c;
    int64_t *parent;
    char **name, **module;
    const char **empty;
    int *line, *rank, *thread;
    ari_cct_metric metrics[2];
    double *values[2];
} generated;

/* Exclusive times: a heavy-tailed base per node (most nodes tiny, as in
 * real profiles, so the 0.1% filter matters) times a per-rank factor and
 * noise; inclusive = subtree sums. */
static int generate(generated *g, int64_t n, int np, int nmodules)
{
    memset(g, 0, sizeof *g);
    g->parent = malloc((size_t)n * sizeof *g->parent);
    g->name = calloc((size_t)n, sizeof *g->name);
    g->module = calloc((size_t)n, sizeof *g->module);
    g->empty = malloc((size_t)n * sizeof *g->empty);
    g->line = calloc((size_t)n, sizeof *g->line);
    g->rank = malloc((size_t)np * sizeof *g->rank);
    g->thread = calloc((size_t)np, sizeof *g->thread);
    g->values[0] = malloc((size_t)n * (size_t)np * sizeof(double));
    g->values[1] = malloc((size_t)n * (size_t)np * sizeof(double));
    double *factor = malloc((size_t)np * sizeof *factor);
    int *mod = malloc((size_t)n * sizeof *mod);
    if (!g->parent || !g->name || !g->module || !g->empty || !g->line || !g->rank || !g->thread ||
        !g->values[0] || !g->values[1] || !factor || !mod)
        return -1;
    for (int r = 0; r < np; r++) {
        g->rank[r] = r;
        factor[r] = 0.8 + 0.4 * uniform();
    }
    char buf[64];
    for (int64_t i = 0; i < n; i++) {
        int64_t back = i < 300 ? i : 300;
        g->parent[i] = i == 0 ? -1 : i - 1 - (int64_t)(rng() % (uint64_t)back);
        mod[i] = i == 0 ? 0 : uniform() < 0.85 ? mod[g->parent[i]] : (int)(rng() % (uint64_t)nmodules);
        snprintf(buf, sizeof buf, "f%" PRId64, (int64_t)(rng() % 5000));
        g->name[i] = strdup(buf);
        snprintf(buf, sizeof buf, "/usr/lib/libm%d.so", mod[i]);
        g->module[i] = strdup(buf);
        g->empty[i] = "";
        if (!g->name[i] || !g->module[i])
            return -1;
        double u = uniform(), base = 1000.0 * u * u * u * u * u * u;
        double *exc = g->values[1] + i * np;
        for (int r = 0; r < np; r++)
            exc[r] = base * factor[r] * (0.9 + 0.2 * uniform());
    }
    memcpy(g->values[0], g->values[1], (size_t)n * (size_t)np * sizeof(double));
    for (int64_t i = n - 1; i > 0; i--) {
        double *dst = g->values[0] + g->parent[i] * np, *src = g->values[0] + i * np;
        for (int r = 0; r < np; r++)
            dst[r] += src[r];
    }
    g->metrics[0] = (ari_cct_metric){"time (inc)", "usec", 1, 1};
    g->metrics[1] = (ari_cct_metric){"time", "usec", 0, 0};
    g->c = (ari_cct){.nnodes = n, .parent = g->parent, .name = (const char *const *)g->name,
                     .module = (const char *const *)g->module, .file = g->empty, .line = g->line,
                     .kind = g->empty, .nprocs = np, .proc_rank = g->rank, .proc_thread = g->thread,
                     .nmetrics = 2, .metrics = g->metrics, .values = (const double *const *)g->values};
    free(factor);
    free(mod);
    return 0;
}

static void generated_free(generated *g)
{
    for (int64_t i = 0; i < g->c.nnodes; i++) {
        free(g->name[i]);
        free(g->module[i]);
    }
    free(g->parent);
    free(g->name);
    free(g->module);
    free(g->empty);
    free(g->line);
    free(g->rank);
    free(g->thread);
    free(g->values[0]);
    free(g->values[1]);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_supergraph [--nodes N] [--ranks R] [--modules M] [--filter PCT]"
                    " [--group module|name] [--db FILE --trace ID]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int64_t n = 100000, trace = 0;
    int np = 1024, nmodules = 40;
    double filter_pct = 0.1;
    const char *db = NULL, *group = "module";
    for (int i = 1; i < argc; i += 2) { /* "--option value" pairs */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (strcmp(a, "--nodes") == 0)
            n = atoll(v);
        else if (strcmp(a, "--ranks") == 0)
            np = atoi(v);
        else if (strcmp(a, "--modules") == 0)
            nmodules = atoi(v);
        else if (strcmp(a, "--filter") == 0)
            filter_pct = atof(v);
        else if (strcmp(a, "--group") == 0)
            group = v;
        else if (strcmp(a, "--db") == 0)
            db = v;
        else if (strcmp(a, "--trace") == 0)
            trace = atoll(v);
        else
            return usage();
    }
    ari_sg_params p = {0};
    if (n < 1 || np < 2 || nmodules < 1 || ari_group_by_parse(group, &p.group_by) < 0 ||
        p.group_by == ARI_GROUP_MAP || (db && trace < 1))
        return usage();

    generated gen;
    ari_cct loaded;
    const ari_cct *c;
    ari_error err = {0};
    ari_store *s = NULL;
    double t0 = now();
    if (db) {
        if (!(s = ari_store_open(db, &err)) || ari_profile_load(s, trace, &loaded, &err) != 0) {
            fprintf(stderr, "bench_supergraph: %s\n", err.message);
            return 1;
        }
        c = &loaded;
    } else {
        if (generate(&gen, n, np, nmodules) < 0) {
            fprintf(stderr, "bench_supergraph: out of memory generating the CCT\n");
            return 1;
        }
        c = &gen.c;
    }
    double t_input = now() - t0;

    t0 = now();
    ari_cct_times t;
    unsigned char *keep = malloc((size_t)c->nnodes);
    int64_t kept = 0;
    ari_cct_filter f = {filter_pct / 100, 0, ARI_COLLAPSE_MEAN};
    if (!keep || ari_cct_times_init(&t, c, ari_cct_metric_find(c, NULL), &err) < 0 ||
        ari_cct_filter_mask(c, &t, &f, keep, &kept, &err) < 0) {
        fprintf(stderr, "bench_supergraph: %s\n", err.message);
        return 1;
    }
    double t_filter = now() - t0;

    t0 = now();
    ari_supergraph g;
    if (ari_supergraph_build(c, &t, keep, &p, &g, &err) < 0) {
        fprintf(stderr, "bench_supergraph: %s\n", err.message);
        return 1;
    }
    double t_build = now() - t0;

    t0 = now();
    ari_sg_view v;
    if (ari_sg_view_compute(&g, NULL, ARI_COLLAPSE_MEAN, 20, &v, &err) < 0)
        return 1;
    double t_view = now() - t0;

    t0 = now();
    unsigned char *half = malloc((size_t)c->nprocs);
    for (int r = 0; r < c->nprocs; r++)
        half[r] = r < c->nprocs / 2;
    ari_sg_view vs, vr;
    if (!half || ari_sg_view_compute(&g, half, ARI_COLLAPSE_MEAN, 20, &vs, &err) < 0)
        return 1;
    for (int r = 0; r < c->nprocs; r++)
        half[r] = !half[r];
    if (ari_sg_view_compute(&g, half, ARI_COLLAPSE_MEAN, 20, &vr, &err) < 0)
        return 1;
    double t_brush = now() - t0;

    char msg[512] = "ok";
    int flow_ok = ari_sg_check_flow(&g, &v, 1e-9, msg, sizeof msg) == 0 &&
                  ari_sg_check_flow(&g, &vs, 1e-9, msg, sizeof msg) == 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double raw_mb = (double)c->nnodes * c->nprocs * c->nmetrics * 8 / 1048576.0;
    double peak_mb = ru.ru_maxrss / 1024.0;
    printf("nodes %lld ranks %d kept %lld supernodes %lld edges %lld duplicates %d dropped %lld "
           "input_s %.3f filter_s %.3f build_s %.3f view_s %.3f supergraph_s %.3f brush_s %.3f "
           "raw_MB %.0f peak_MB %.0f peak/raw %.2f flow %s\n",
           (long long)c->nnodes, c->nprocs, (long long)kept, (long long)g.nnodes, (long long)g.nedges,
           g.duplicates, (long long)g.dropped_edges, t_input, t_filter, t_build, t_view,
           t_filter + t_build + t_view, t_brush, raw_mb, peak_mb, peak_mb / raw_mb,
           flow_ok ? "conserved" : msg);
    ari_sg_view_free(&v);
    ari_sg_view_free(&vs);
    ari_sg_view_free(&vr);
    ari_supergraph_free(&g);
    ari_cct_times_free(&t);
    free(keep);
    free(half);
    if (db) {
        ari_cct_free(&loaded);
        ari_store_close(s);
    } else {
        generated_free(&gen);
    }
    return flow_ok ? 0 : 1;
}
