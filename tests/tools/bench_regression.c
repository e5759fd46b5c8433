/* bench_regression.c: the helper of tests/bench/bench_regression.sh.
 * Generates N tasks in G groups (per group a log-log law with its own
 * intercept and slope, GFlop drawn from a few block sizes with most tasks
 * at the largest, log-normal noise, 0.5 % of tasks slowed 3 to 10 times),
 * optionally writes them as CSV (group,G,D) for R, then times fitting the
 * four models of analysis/regression.h on every group and classifying
 * every task, RUNS times, and prints the median and the anomaly counts.
 *
 *   bench_regression N GROUPS RUNS [out.csv]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>

#include "analysis/regression.h"
#include "bench_util.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_regression N GROUPS RUNS [out.csv]\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10);
    int ngroups = atoi(argv[2]), runs = atoi(argv[3]);
    if (n == 0 || ngroups < 1 || runs < 1)
        return 2;
    double *g = malloc(n * sizeof *g), *d = malloc(n * sizeof *d), *times = malloc((size_t)runs * sizeof *times);
    int *group = malloc(n * sizeof *group);
    unsigned char *flag = malloc(n);
    ari_reg_fit *fits = malloc((size_t)ngroups * sizeof *fits);
    if (!g || !d || !group || !flag || !fits || !times)
        return 1;
    static const double sizes[] = {0.001, 0.01, 0.05, 0.1, 0.2, 0.35};
    for (size_t i = 0; i < n; i++) {
        int k = (int)(i % (size_t)ngroups);
        double u = bench_uniform();
        group[i] = k;
        g[i] = u < 0.78 ? 0.5 : sizes[(int)(u * 100) % 6];
        d[i] = exp(4.8 + 0.05 * k + (0.75 + 0.01 * k) * log(g[i]) + 0.1 * bench_gaussian());
        if (bench_uniform() < 0.005)
            d[i] *= 3 + 7 * bench_uniform();
    }
    if (argc > 4) {
        FILE *f = fopen(argv[4], "w");
        if (!f)
            return 1;
        fprintf(f, "group,G,D\n");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%d,%.17g,%.17g\n", group[i], g[i], d[i]);
        fclose(f);
    }
    size_t counts[ARI_REG_NMODELS] = {0};
    ari_error err = {0};
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        for (int m = 0; m < ARI_REG_NMODELS; m++) {
            if (ari_reg_classify_groups((ari_reg_model)m, n, group, ngroups, g, d, fits, flag, &err) < 0) {
                fprintf(stderr, "error: %s\n", err.message);
                return 1;
            }
            counts[m] = 0;
            for (size_t i = 0; i < n; i++)
                counts[m] += flag[i];
        }
        times[r] = bench_now() - t0;
    }
    qsort(times, (size_t)runs, sizeof *times, bench_by_double);
    printf("ariadne %.6f", times[runs / 2]);
    for (int m = 0; m < ARI_REG_NMODELS; m++)
        printf(" %s=%zu", ari_reg_model_name((ari_reg_model)m), counts[m]);
    printf("\n");
    free(g);
    free(d);
    free(group);
    free(flag);
    free(fits);
    free(times);
    return 0;
}
