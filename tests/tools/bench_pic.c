/* bench_pic.c: times the pIC aggregation (src/analysis/pic*.c) on generated
 * platforms, for tests/bench/bench_pic.sh:
 *
 *   - space: 10 sites > 100 clusters > 1,000 machines > PROCS processes
 *     (default 1,000,000), 2 state values with noise and a few anomalous
 *     machines: the measures and breakpoints (ari_pic_init), the best
 *     partition for one p (the seed's one traversal) and the
 *     reconstruction of every level;
 *   - space-time: LEAVES leaves (default 10,000: 10 x 10 x 100) by SLICES
 *     slices (default 100): one best partition, and optionally (LEVELS=1)
 *     all the breakpoints in one pass; LEVELS=2 also times the re-solving
 *     reference and checks every level at its midpoint (slow: one solve
 *     per level).
 *
 *   bench_pic [procs] [st_leaves] [st_slices] [st_levels 0|1|2]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/pic.h"
#include "analysis/pic_spacetime.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* site > cluster > machine > leaf, `per` leaves per machine (0: machines are
 * the leaves), fanouts a, b, c. */
static int64_t platform(int a, int b, int c, int per, int64_t *parent)
{
    int64_t n = 0;
    parent[n++] = -1;
    for (int s = 0; s < a; s++) {
        int64_t site = n;
        parent[n++] = 0;
        for (int k = 0; k < b; k++) {
            int64_t cl = n;
            parent[n++] = site;
            for (int m = 0; m < c; m++) {
                int64_t ma = n;
                parent[n++] = cl;
                for (int p = 0; p < per; p++)
                    parent[n++] = ma;
            }
        }
    }
    return n;
}

static int bench_space(int per)
{
    int64_t nmax = 1 + 10 + 100 + 1000 + 1000LL * per;
    int64_t *parent = malloc((size_t)nmax * sizeof *parent);
    int64_t n = platform(10, 10, 10, per, parent);
    int64_t leaves = 1000LL * per;
    double *v = malloc((size_t)leaves * 2 * sizeof *v);
    int64_t *blocks = malloc((size_t)leaves * sizeof *blocks);
    if (!parent || !v || !blocks)
        return 1;
    for (int64_t e = 0; e < leaves; e++) {
        int m = (int)(e / per);
        double run = (m == 17 || m == 503 || m == 998 ? 0.35 : 0.8) + 0.06 * (uniform() - 0.5);
        v[2 * e] = run;
        v[2 * e + 1] = 1 - run;
    }
    ari_pic pic;
    ari_error err = {0};
    double t0 = now();
    if (ari_pic_init(&pic, n, parent, 2, v, &err) < 0) {
        fprintf(stderr, "bench_pic: %s\n", err.message);
        return 1;
    }
    double t1 = now();
    double p = pic.nlevels > 1 ? (pic.levels[pic.nlevels / 2].p + pic.levels[pic.nlevels / 2 + 1].p) / 2 : 0.5;
    int64_t nb = ari_pic_best(&pic, p, blocks, NULL, NULL);
    double t2 = now();
    for (int64_t j = 0; j < pic.nlevels; j++)
        ari_pic_from_thresholds(&pic, pic.levels[j].p + 1e-12, blocks);
    double t3 = now();
    printf("space: %lld nodes, %lld leaves, 2 values\n", (long long)n, (long long)leaves);
    printf("  measures + all %lld breakpoints: %.3f s\n", (long long)pic.nlevels, t1 - t0);
    printf("  best partition for one p (p = %.3g, %lld aggregates): %.3f s\n", p, (long long)nb, t2 - t1);
    printf("  partition of every level from the thresholds: %.3f s\n", t3 - t2);
    ari_pic_free(&pic);
    free(parent);
    free(v);
    free(blocks);
    return 0;
}

/* LEVELS=2: the re-solving reference's time and levels, and the best
 * partition at the midpoint of every one-pass level. */
static int check_levels(const ari_pic_st *st, const ari_pic_level *lv, int64_t nlv)
{
    ari_error err = {0};
    ari_pic_level *ref;
    int64_t nref, bad = 0;
    double t0 = now();
    if (ari_pic_st_levels_resolve(st, &ref, &nref, &err) < 0) {
        fprintf(stderr, "bench_pic: %s\n", err.message);
        return 1;
    }
    printf("  all %lld breakpoints (re-solving reference): %.3f s\n", (long long)nref, now() - t0);
    for (int64_t j = 0; j < nlv; j++) {
        double hi = j + 1 < nlv ? lv[j + 1].p : 1.0, mid = (lv[j].p + hi) / 2;
        ari_pic_partition part;
        if (ari_pic_st_best(st, mid, &part, &err) < 0) {
            fprintf(stderr, "bench_pic: %s\n", err.message);
            return 1;
        }
        if (part.n != lv[j].count || fabs(part.gain - lv[j].gain) > 1e-9 || fabs(part.loss - lv[j].loss) > 1e-9) {
            if (bad++ < 5)
                printf("  level %lld [%.17g, %.17g): %lld aggregates, the solve at its midpoint %lld\n",
                       (long long)j, lv[j].p, hi, (long long)lv[j].count, (long long)part.n);
        }
        ari_pic_partition_free(&part);
    }
    printf("  one-pass levels checked at their midpoints: %lld of %lld differ\n", (long long)bad, (long long)nlv);
    int64_t same = 0;
    for (int64_t j = 0, k = 0; j < nlv && k < nref;) {
        if (fabs(lv[j].p - ref[k].p) < 1e-9 && lv[j].count == ref[k].count) {
            same++;
            j++;
            k++;
        } else if (lv[j].p < ref[k].p) {
            j++;
        } else {
            k++;
        }
    }
    printf("  reference levels also in the one-pass list: %lld of %lld\n", (long long)same, (long long)nref);
    int64_t refbad = 0;
    for (int64_t k = 0; k < nref; k++) {
        double hi = k + 1 < nref ? ref[k + 1].p : 1.0, mid = (ref[k].p + hi) / 2;
        ari_pic_partition part;
        if (ari_pic_st_best(st, mid, &part, &err) < 0)
            return 1;
        refbad += part.n != ref[k].count || fabs(part.gain - ref[k].gain) > 1e-9 ||
                  fabs(part.loss - ref[k].loss) > 1e-9;
        ari_pic_partition_free(&part);
    }
    printf("  reference levels checked at their midpoints: %lld of %lld differ\n", (long long)refbad, (long long)nref);
    free(ref);
    return bad != 0;
}

static int bench_spacetime(int leaves_per_cluster, int T, int levels)
{
    int64_t nmax = 1 + 10 + 100 + 100LL * leaves_per_cluster;
    int64_t *parent = malloc((size_t)nmax * sizeof *parent);
    /* 10 sites > 10 clusters > leaves_per_cluster machines (leaves) */
    int64_t n = platform(10, 10, leaves_per_cluster, 0, parent);
    int64_t leaves = 100LL * leaves_per_cluster;
    double *v = malloc((size_t)leaves * T * 2 * sizeof *v);
    if (!parent || !v)
        return 1;
    for (int64_t e = 0; e < leaves; e++)
        for (int t = 0; t < T; t++) {
            int anomaly = (e == 17 && t >= 10 && t < 20) || (e == 4242 % leaves && t >= 50 && t < 53);
            double run = (anomaly ? 0.35 : 0.8) + 0.06 * (uniform() - 0.5);
            v[(e * T + t) * 2] = run;
            v[(e * T + t) * 2 + 1] = 1 - run;
        }
    ari_pic_st st;
    ari_error err = {0};
    double t0 = now();
    if (ari_pic_st_init(&st, n, parent, T, 2, v, &err) < 0) {
        fprintf(stderr, "bench_pic: %s\n", err.message);
        return 1;
    }
    double t1 = now();
    ari_pic_partition part;
    if (ari_pic_st_best(&st, 1e-4, &part, &err) < 0) {
        fprintf(stderr, "bench_pic: %s\n", err.message);
        return 1;
    }
    double t2 = now();
    printf("space-time: %lld nodes, %lld leaves x %d slices, 2 values\n", (long long)n, (long long)leaves, T);
    printf("  prefix sums: %.3f s\n", t1 - t0);
    printf("  best partition for one p (p = 1e-4, %lld aggregates): %.3f s\n", (long long)part.n, t2 - t1);
    ari_pic_partition_free(&part);
    if (levels) {
        ari_pic_level *lv;
        int64_t nlv;
        if (ari_pic_st_levels(&st, &lv, &nlv, &err) < 0) {
            fprintf(stderr, "bench_pic: %s\n", err.message);
            return 1;
        }
        printf("  all %lld breakpoints (one pass): %.3f s\n", (long long)nlv, now() - t2);
        if (levels > 1 && check_levels(&st, lv, nlv) != 0)
            return 1;
        free(lv);
    }
    ari_pic_st_free(&st);
    free(parent);
    free(v);
    return 0;
}

int main(int argc, char **argv)
{
    int procs = argc > 1 ? atoi(argv[1]) : 1000000;
    int st_leaves = argc > 2 ? atoi(argv[2]) : 10000;
    int T = argc > 3 ? atoi(argv[3]) : 100;
    int levels = argc > 4 ? atoi(argv[4]) : 0;
    if (procs < 1000 || st_leaves < 100 || T < 1 || T > ARI_PIC_ST_MAX_SLICES) {
        fprintf(stderr, "usage: bench_pic [procs >= 1000] [st_leaves >= 100] [slices 1..%d] [levels 0|1|2]\n",
                ARI_PIC_ST_MAX_SLICES);
        return 2;
    }
    if (bench_space(procs / 1000) != 0)
        return 1;
    return bench_spacetime(st_leaves / 100, T, levels);
}
