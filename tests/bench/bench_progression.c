/* bench_progression.c: the helper of bench_progression.sh. Generates the
 * progression metrics of many nodes over many steps (groups of nodes at
 * different speeds, with noise; non-decreasing, ending at 1), writes them
 * for R (one step per line), and times ariadne's modal clustering of every
 * step (analysis/modal_clusters.h: R's density() + the local minima +
 * the assignment of the points) with ari_modal_clusters_many, threads
 * chosen automatically and on one thread; then times the whole progression
 * analysis (metrics, clusters, flows, per-step ABE) on a synthetic run with
 * the same number of nodes.
 *
 *   bench_progression NODES STEPS BANDWIDTH VALUES_FILE [RUNS]
 *
 * Each clustering is timed RUNS times (default 11; the two variants
 * alternate so that they see the same load), outputs freed included.
 * Prints
 *   clusters MEDIAN MIN MAX TOTAL_CLUSTERS THREADS   (automatic threads)
 *   clusters1 MEDIAN MIN MAX TOTAL_CLUSTERS          (one thread)
 *   analysis SECONDS TASKS
 * and fails if the two variants' clusters differ anywhere.
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

/* Clusters every step on nthreads threads (0: automatic); returns the
 * seconds taken, including freeing the results unless keep is given. */
static double cluster_all(const double *v, int nodes, int steps, double bw, int nthreads,
                          ari_modal *m, ari_modal **ptr, long *total, int keep)
{
    ari_error err = {{0}, {0}};
    double t0 = now();
    if (ari_modal_clusters_many(v, nodes, steps, bw, nthreads, ptr, &err) < 0) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    long clusters = 0;
    for (int s = 0; s < steps; s++)
        clusters += m[s].nclusters;
    if (!keep)
        for (int s = 0; s < steps; s++)
            ari_modal_free(&m[s]);
    double dt = now() - t0;
    *total = clusters;
    return dt;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_times(const char *label, double *t, int runs, long total, int threads)
{
    qsort(t, (size_t)runs, sizeof *t, by_value);
    printf("%s %.6f %.6f %.6f %ld", label, t[runs / 2], t[0], t[runs - 1], total);
    if (threads > 0)
        printf(" %d", threads);
    printf("\n");
}

/* The two variants must give the same clusters, point by point. */
static void check_same(const ari_modal *a, const ari_modal *b, int steps)
{
    for (int s = 0; s < steps; s++) {
        int same = a[s].nclusters == b[s].nclusters && a[s].npoints == b[s].npoints;
        for (int i = 0; same && i < a[s].npoints; i++)
            same = a[s].cluster[i] == b[s].cluster[i];
        for (int c = 0; same && c < a[s].nclusters; c++)
            same = a[s].mean[c] == b[s].mean[c] && a[s].size[c] == b[s].size[c];
        if (!same) {
            fprintf(stderr, "bench_progression: step %d differs between thread counts\n", s);
            exit(1);
        }
    }
}

static void time_clusters(const double *v, int nodes, int steps, double bw, int runs)
{
    ari_modal *m = calloc((size_t)steps, sizeof *m), *one = calloc((size_t)steps, sizeof *one);
    ari_modal **ptr = malloc((size_t)steps * sizeof *ptr), **ptr1 = malloc((size_t)steps * sizeof *ptr1);
    double *t = malloc((size_t)runs * sizeof *t), *t1 = malloc((size_t)runs * sizeof *t1);
    if (!m || !one || !ptr || !ptr1 || !t || !t1)
        exit(1);
    for (int s = 0; s < steps; s++) {
        ptr[s] = &m[s];
        ptr1[s] = &one[s];
    }
    long total = 0, total1 = 0;
    for (int r = 0; r < runs; r++) {
        t[r] = cluster_all(v, nodes, steps, bw, 0, m, ptr, &total, 0);
        t1[r] = cluster_all(v, nodes, steps, bw, 1, one, ptr1, &total1, 0);
    }
    cluster_all(v, nodes, steps, bw, 0, m, ptr, &total, 1);
    cluster_all(v, nodes, steps, bw, 1, one, ptr1, &total1, 1);
    check_same(m, one, steps);
    for (int s = 0; s < steps; s++) {
        ari_modal_free(&m[s]);
        ari_modal_free(&one[s]);
    }
    print_times("clusters", t, runs, total, ari_modal_thread_count(nodes, steps, 0));
    print_times("clusters1", t1, runs, total1, 0);
    free(m);
    free(one);
    free(ptr);
    free(ptr1);
    free(t);
    free(t1);
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
        t->worker = 1 + (int64_t)(i % 5); /* five workers a node; worker 1 is the second resource type */
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
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: bench_progression NODES STEPS BANDWIDTH VALUES_FILE [RUNS]\n");
        return 2;
    }
    int nodes = atoi(argv[1]), steps = atoi(argv[2]), runs = argc == 6 ? atoi(argv[5]) : 11;
    double bw = atof(argv[3]);
    if (nodes < 1 || steps < 1 || !(bw > 0) || runs < 1) {
        fprintf(stderr, "bench_progression: bad arguments\n");
        return 2;
    }
    double *v = make_values(nodes, steps);
    write_values(argv[4], v, nodes, steps);
    time_clusters(v, nodes, steps, bw, runs);
    long ntasks = 0;
    double da = time_analysis(nodes, steps, bw, &ntasks);
    printf("analysis %.6f %ld\n", da, ntasks);
    free(v);
    return 0;
}
