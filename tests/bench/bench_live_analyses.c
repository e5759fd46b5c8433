/* bench_live_analyses.c: the helper of bench_live_analyses.sh. Times the
 * progressive analyses of the live runs (issue 18) as the thesis's Table
 * 6.1 does (spec_pdes_dmv.md 5), on generated data, and prints each figure
 * next to the thesis's with the ratio:
 *   a) online CPD (analysis/online_cpd.h): ms per time point at n = 100,
 *      1e3, 1e4, 1e5 entities (mean over POINTS pushes after 20 warm-up
 *      pushes; fresh random values per point);
 *   b) progressive clustering (analysis/progressive_kmeans.h, k = 3) and
 *   c) progressive DR (analysis/progressive_dr.h): entities processed within
 *      a 1 s budget of 10,000 at t = 100, 1e3, 1e4 time points (t = 1e5
 *      with ENT_1E5 entities, default 1,000, as 10,000 x 1e5 doubles would
 *      take 8 GB: that row prints the count and the time for them all).
 * The data: three behaviour groups of entities (different levels and
 * trends) plus uniform noise, splitmix64 seeded; the first step (no
 * previous clusters: a random order) is the one counted.
 *
 *   bench_live_analyses [POINTS (200)] [ENT_1E5 (1000)] [ONLY: cpd|cluster|dr]
 * Prints a Markdown table; one line per measurement.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/online_cpd.h"
#include "analysis/progressive_dr.h"
#include "analysis/progressive_kmeans.h"
#include "util/clock.h"

static uint64_t rng = 0x5eedULL;

static double uniform(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static void bench_cpd(int points)
{
    static const size_t sizes[] = {100, 1000, 10000, 100000};
    static const double thesis[] = {0.01, 0.05, 0.46, 6.23};
    for (int s = 0; s < 4; s++) {
        size_t n = sizes[s];
        double *x = malloc(n * sizeof *x);
        ari_ocpd *c = ari_ocpd_new(NULL, n);
        if (!x || !c) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        double total = 0;
        for (int t = 0; t < 20 + points; t++) {
            double level = (t / 50) % 2 ? 3 : 0;
            for (size_t i = 0; i < n; i++)
                x[i] = level * (double)(i % 3) + uniform();
            double t0 = ari_now();
            if (ari_ocpd_push(c, x, n, NULL) < 0) {
                fprintf(stderr, "push failed\n");
                exit(1);
            }
            if (t >= 20)
                total += ari_now() - t0;
        }
        double ms = total * 1000 / points;
        printf("| online CPD, ms per time point | n = %zu | %.3f | %.2f | %.2f |\n", n, ms, thesis[s], ms / thesis[s]);
        fflush(stdout);
        ari_ocpd_free(c);
        free(x);
    }
}

/* n x t: group g = i % 3 follows level g, a trend and noise. */
static double *make_series(size_t n, size_t t)
{
    double *X = malloc(n * t * sizeof *X);
    if (!X) {
        fprintf(stderr, "out of memory for %zu x %zu\n", n, t);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        double g = (double)(i % 3);
        for (size_t j = 0; j < t; j++)
            X[i * t + j] = 2 * g + (g - 1) * (double)j / (double)t + uniform();
    }
    return X;
}

static void bench_progressive(int which, size_t ent_1e5)
{
    static const size_t ts[] = {100, 1000, 10000, 100000};
    static const double thesis_km[] = {5392, 4921, 3074, 562}, thesis_dr[] = {10000, 10000, 2396, 118};
    for (int s = 0; s < 4; s++) {
        size_t t = ts[s], n = t == 100000 ? ent_1e5 : 10000;
        double *X = make_series(n, t);
        size_t processed = 0;
        double t0 = ari_now(), fit_ms;
        ari_error err = {0};
        if (which == 0) {
            ari_pkm *k = ari_pkm_new(3, 1);
            ari_pkm_result r;
            if (!k || ari_pkm_step(k, X, n, t, 1000, &r, &err) != 0) {
                fprintf(stderr, "k-means: %s\n", err.message);
                exit(1);
            }
            processed = r.processed;
            ari_pkm_result_free(&r);
            ari_pkm_free(k);
        } else {
            ari_pdr *d = ari_pdr_new();
            double *xy = malloc(2 * n * sizeof *xy);
            if (!d || !xy || ari_pdr_step(d, X, n, t, NULL, 1000, xy, &processed, &err) != 0) {
                fprintf(stderr, "DR: %s\n", err.message);
                exit(1);
            }
            ari_pdr_free(d);
            free(xy);
        }
        fit_ms = (ari_now() - t0) * 1000;
        double th = which == 0 ? thesis_km[s] : thesis_dr[s];
        printf("| progressive %s, entities processed in 1 s | t = %zu (of %zu) | %zu | %.0f | %.2f | step %.0f ms |\n",
               which == 0 ? "clustering (k = 3)" : "DR", t, n, processed, th, (double)processed / th, fit_ms);
        fflush(stdout);
        free(X);
    }
}

int main(int argc, char **argv)
{
    int points = argc > 1 ? atoi(argv[1]) : 200;
    size_t ent_1e5 = argc > 2 ? (size_t)atol(argv[2]) : 1000;
    const char *only = argc > 3 ? argv[3] : "";
    printf("| analysis | size | ariadne | thesis (iMac 2014) | ratio |\n|---|---|---|---|---|\n");
    if (!*only || !strcmp(only, "cpd"))
        bench_cpd(points > 0 ? points : 200);
    if (!*only || !strcmp(only, "cluster"))
        bench_progressive(0, ent_1e5);
    if (!*only || !strcmp(only, "dr"))
        bench_progressive(1, ent_1e5);
    return 0;
}
