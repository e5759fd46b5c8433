/* bench_pdes_cluster.c: the helper of tests/bench/bench_pdes_cluster.sh
 * (issue 17). Generates N entities x L samples of ROSS-like per-entity
 * metrics (three behaviour groups: flat, rising, a burst; integer counts
 * with noise; a few anomalous entities), optionally writes them as
 * little-endian float64 rows for R, and times one analysis RUNS times
 * (median), printing "ariadne SECONDS DETAIL":
 *
 *   bench_pdes_cluster gen    N L out.bin
 *   bench_pdes_cluster kmeans N L RUNS K      Hartigan-Wong, 10 starts, all cores
 *   bench_pdes_cluster mds    N L RUNS        classical MDS via the L x L covariance
 *   bench_pdes_cluster euclid N L RUNS        the N x N Euclidean matrix, all cores
 *   bench_pdes_cluster dtw    N L RUNS        the N x N DTW (symmetric1) matrix, all cores
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/kmeans_hw.h"
#include "analysis/mds_pca.h"
#include "analysis/ts_distance.h"
#include "bench_util.h"

static double *generate(int n, int l)
{
    double *x = malloc((size_t)n * l * sizeof *x);
    if (!x)
        return NULL;
    for (int i = 0; i < n; i++) {
        int g = i % 3, anomalous = i % 997 == 5;
        double level = 40 + 20 * bench_uniform();
        for (int t = 0; t < l; t++) {
            double shape = g == 0 ? 1 : g == 1 ? 0.3 + 1.4 * t / l : (t > l / 3 && t < l / 2 ? 2.5 : 0.6);
            double v = level * shape + 8 * bench_uniform() + (anomalous && t > l / 2 ? 150 : 0);
            x[(size_t)i * l + t] = floor(v);
        }
    }
    return x;
}

static int write_bin(const char *path, const double *x, size_t count)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(x, sizeof *x, count, f) != count) {
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f);
}

/* One timed run; detail gets a short description of the answer. */
static double run_once(const char *what, const double *x, int n, int l, int k, char *detail, size_t size)
{
    ari_error err = {0};
    double t0 = bench_now();
    if (strcmp(what, "kmeans") == 0) {
        ari_kmeans_hw_opts o;
        ari_kmeans_hw_defaults(&o);
        o.seed = 1;
        ari_kmeans_hw_result *r = ari_kmeans_hw(x, n, l, k, &o, &err);
        double t = bench_now() - t0;
        if (!r)
            return -1;
        snprintf(detail, size, "tot.withinss=%.10g iter=%d converged=%d", r->tot_withinss, r->iterations,
                 r->converged);
        ari_kmeans_hw_free(r);
        return t;
    }
    if (strcmp(what, "mds") == 0) {
        double *c = malloc((size_t)n * 2 * sizeof *c), ex[2];
        if (!c || ari_mds_pca(x, n, l, 2, 0, c, ex, &err) < 0)
            return -1;
        double t = bench_now() - t0;
        snprintf(detail, size, "explained=%.6f,%.6f |first|=%.6g,%.6g", ex[0], ex[1], fabs(c[0]), fabs(c[1]));
        free(c);
        return t;
    }
    ari_ts_distance_opts o;
    ari_ts_distance_defaults(&o);
    o.metric = strcmp(what, "dtw") == 0 ? ARI_TS_DTW : ARI_TS_EUCLID;
    double *d = malloc((size_t)n * n * sizeof *d);
    if (!d || ari_ts_distance_matrix(x, n, 1, l, &o, d, &err) < 0)
        return -1;
    double t = bench_now() - t0;
    double sum = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        sum += d[i];
    snprintf(detail, size, "sum=%.10g d(1,2)=%.10g", sum, d[1]);
    free(d);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_pdes_cluster gen|kmeans|mds|euclid|dtw N L RUNS|out.bin [K]\n");
        return 2;
    }
    const char *what = argv[1];
    int n = atoi(argv[2]), l = atoi(argv[3]);
    if (n < 2 || l < 1)
        return 2;
    double *x = generate(n, l);
    if (!x)
        return 1;
    if (strcmp(what, "gen") == 0)
        return write_bin(argv[4], x, (size_t)n * l) == 0 ? 0 : 1;
    int runs = atoi(argv[4]), k = argc > 5 ? atoi(argv[5]) : 3;
    if (runs < 1)
        return 2;
    double *times = malloc((size_t)runs * sizeof *times);
    char detail[256] = "";
    for (int r = 0; r < runs; r++)
        if ((times[r] = run_once(what, x, n, l, k, detail, sizeof detail)) < 0) {
            fprintf(stderr, "bench_pdes_cluster %s failed\n", what);
            return 1;
        }
    qsort(times, (size_t)runs, sizeof *times, bench_by_double);
    printf("ariadne %.6f %s\n", times[runs / 2], detail);
    free(times);
    free(x);
    return 0;
}
