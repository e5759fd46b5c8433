/* bench_progression.c: the helper of bench_progression.sh. Generates the
 * progression metrics of many nodes over many steps (groups of nodes at
 * different speeds, with noise; non-decreasing, ending at 1), writes them
 * for R (one step per line), and times ariadne's modal clustering of every
 * step (analysis/modal_clusters.h: R's density() + the local minima); then
 * times the whole progression analysis (metrics, clusters, flows, per-step
 * ABE) on a synthetic run with the same number of nodes.
 *
 *   bench_progression NODES STEPS BANDWIDTH VALUES_FILE
 *
 * Prints "clusters SECONDS TOTAL_CLUSTERS" (best of 3 runs) and
 * "analysis SECONDS TASKS".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/modal_clusters.h"
#include "analysis/progression.h"

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* values[s * nodes + n]: node n runs at one of five speeds (a few slow
 * groups, most nodes at full speed), with per-node jitter. */
static double *make_values(int nodes, int steps)
{
    static const double speed[5] = {0.55, 0.7, 0.85, 1.0, 1.0};
    double *v = malloc((size_t)nodes * steps * sizeof *v);
    if (!v)
        exit(1);
    for (int n = 0; n < nodes; n++) {
        double sp = speed[n % 5] * (1 + 0.01 * (rng_uniform() - 0.5));
        for (int s = 0; s < steps; s++) {
            double t = (s + 1.0) / steps;
            double p = s == steps - 1 ? 1.0 : fmin(1.0, t / sp * (1 + 0.002 * rng_uniform()));
            v[(size_t)s * nodes + n] = s > 0 && p < v[(size_t)(s - 1) * nodes + n]
                                           ? v[(size_t)(s - 1) * nodes + n] : p;
        }
    }
    return v;
}

static void write_values(const char *path, const double *v, int nodes, int steps)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    for (int s = 0; s < steps; s++)
        for (int n = 0; n < nodes; n++)
            fprintf(f, "%.17g%c", v[(size_t)s * nodes + n], n == nodes - 1 ? '\n' : ' ');
    fclose(f);
}

static double time_clusters(const double *v, int nodes, int steps, double bw, long *total)
{
    double best = INFINITY;
    for (int round = 0; round < 3; round++) {
        long clusters = 0;
        double t0 = now();
        for (int s = 0; s < steps; s++) {
            ari_modal m;
            ari_error err = {0};
            if (ari_modal_clusters(v + (size_t)s * nodes, nodes, bw, &m, &err) < 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
            }
            clusters += m.nclusters;
            ari_modal_free(&m);
        }
        double dt = now() - t0;
        best = dt < best ? dt : best;
        *total = clusters;
    }
    return best;
}

/* A synthetic run: `per` tasks of 3 types per node, on 4 CPUs + 1 GPU. */
static double time_analysis(int nodes, int steps, double bw, long *ntasks)
{
    int per = 100;
    ari_prog_data d = {.nnodes = nodes, .ntypes = 3, .nrestypes = 2, .ntasks = (long)nodes * per};
    d.node_ids = malloc((size_t)nodes * sizeof *d.node_ids);
    d.workers = malloc((size_t)nodes * 2 * sizeof *d.workers);
    d.tasks = malloc((size_t)d.ntasks * sizeof *d.tasks);
    if (!d.node_ids || !d.workers || !d.tasks)
        exit(1);
    for (int n = 0; n < nodes; n++) {
        d.node_ids[n] = n;
        d.workers[n * 2] = 4;
        d.workers[n * 2 + 1] = 1;
    }
    for (long i = 0; i < d.ntasks; i++) {
        ari_prog_task *t = &d.tasks[i];
        t->node = (int)(i / per);
        t->type = (int)(i % 3);
        t->restype = (i % 5) == 0;
        double slow = t->node % 50 == 0 ? 1.6 : 1.0;
        t->start = (double)(i % per) * slow * (1 + 0.05 * rng_uniform());
        t->end = t->start + (t->restype ? 0.3 : 1.0) * slow;
    }
    ari_prog_options o = {.steps = steps, .bandwidth = bw, .metric = ARI_PROG_WEIGHTED, .with_bounds = 1};
    ari_prog_result r;
    ari_error err = {0};
    double t0 = now();
    if (ari_progression(&d, &o, &r, &err) < 0) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    double dt = now() - t0;
    ari_prog_result_free(&r);
    *ntasks = d.ntasks;
    free(d.node_ids);
    free(d.workers);
    free(d.tasks);
    return dt;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_progression NODES STEPS BANDWIDTH VALUES_FILE\n");
        return 2;
    }
    int nodes = atoi(argv[1]), steps = atoi(argv[2]);
    double bw = atof(argv[3]);
    if (nodes < 1 || steps < 1 || !(bw > 0)) {
        fprintf(stderr, "bench_progression: bad arguments\n");
        return 2;
    }
    double *v = make_values(nodes, steps);
    write_values(argv[4], v, nodes, steps);
    long total = 0, ntasks = 0;
    double dt = time_clusters(v, nodes, steps, bw, &total);
    printf("clusters %.6f %ld\n", dt, total);
    double da = time_analysis(nodes, steps, bw, &ntasks);
    printf("analysis %.6f %ld\n", da, ntasks);
    free(v);
    return 0;
}
