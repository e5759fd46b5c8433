/* bench_pdes_cpd.c: the helper of tests/bench/bench_pdes_cpd.sh.
 *
 *   bench_pdes_cpd run ENTITIES SAMPLES POINTS PERMS OUTDIR
 *   bench_pdes_cpd np DATA.csv LAYOUT.csv
 *
 * run: generates a PDES-like metric matrix (ENTITIES x SAMPLES, entity-
 * major: each entity's level changes by a N(0, 1) amount at 25 %, 50 % and
 * 75 % of the run, plus N(0, 1) noise) and POINTS 10-D points in 8
 * Gaussian blobs, writes both as CSV for R (OUTDIR/cpd.csv time-major:
 * one line per sample; OUTDIR/tsne.csv one line per point), then times:
 * the E-Divisive distance matrix (alpha 1), the search of 3 change points
 * without a test (k = 3), E-Divisive with the permutation test (R =
 * PERMS, min_size 30, sig_lvl 0.05) on one thread and on all cores, and
 * with ecp's default R = 199 on all cores, and t-SNE of the points (the
 * spec's defaults, seed 1) on one thread and with the default threads
 * (the same layout, which goes to OUTDIR/tsne_c.csv). One line per
 * measurement: "name seconds details".
 * np: the neighbourhood preservation of a layout (share of each point's
 * 10 nearest neighbours in 2-D that are among its 10 nearest in the data).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/edivisive.h"
#include "analysis/tsne.h"
#include "bench_util.h"

static void make_phases(double *x, int n, int T)
{
    for (int e = 0; e < n; e++) {
        double level[4];
        for (int k = 0; k < 4; k++)
            level[k] = bench_gaussian();
        for (int t = 0; t < T; t++)
            x[(size_t)e * T + t] = level[(4 * t) / T] + bench_gaussian();
    }
}

static void make_blobs(double *x, int n, int p)
{
    double centre[8][16];
    for (int b = 0; b < 8; b++)
        for (int c = 0; c < p; c++)
            centre[b][c] = 8 * bench_gaussian();
    for (int i = 0; i < n; i++)
        for (int c = 0; c < p; c++)
            x[(size_t)i * p + c] = centre[i % 8][c] + bench_gaussian();
}

static int write_csv(const char *path, const double *x, int rows, int cols, int transpose)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double v = transpose ? x[(size_t)c * rows + r] : x[(size_t)r * cols + c];
            fprintf(f, "%.17g%c", v, c + 1 < cols ? ',' : '\n');
        }
    return fclose(f);
}

static void print_points(const char *name, double seconds, const ari_ed_result *r)
{
    printf("%s %.6f points", name, seconds);
    for (int i = 0; i < r->count; i++)
        printf("%c%d", i ? ',' : '=', r->sorted[i] + 1); /* ecp's 1-based estimates */
    printf(" p=");
    for (int i = 0; i < r->tested; i++)
        printf("%s%.3f", i ? "," : "", r->p_values[i]);
    printf("\n");
}

static int bench_edivisive(int n, int T, int perms, const char *dir)
{
    double *x = malloc((size_t)n * T * sizeof *x), *D = malloc((size_t)T * T * sizeof *D);
    if (!x || !D)
        return 1;
    make_phases(x, n, T);
    char path[4096];
    snprintf(path, sizeof path, "%s/cpd.csv", dir);
    if (write_csv(path, x, T, n, 1) < 0)
        return 1;
    ari_error err = {0};
    double t0 = bench_now();
    if (ari_ed_distances(x, T, n, 1, 1, 0, D, &err) < 0)
        return fprintf(stderr, "%s\n", err.message), 1;
    printf("ed_distances %.6f %d x %d\n", bench_now() - t0, T, T);
    ari_ed_options o;
    ari_ed_defaults(&o);
    o.k = 3;
    ari_ed_result r;
    t0 = bench_now();
    if (ari_edivisive(D, T, &o, &r, &err) < 0)
        return fprintf(stderr, "%s\n", err.message), 1;
    print_points("ed_search_k3", bench_now() - t0, &r);
    ari_ed_result_free(&r);
    o.k = -1;
    o.permutations = perms;
    const int threads[2] = {1, 0};
    for (int i = 0; i < 2; i++) {
        o.threads = threads[i];
        t0 = bench_now();
        if (ari_edivisive(D, T, &o, &r, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        print_points(threads[i] == 1 ? "ed_perm_1thread" : "ed_perm_allcores", bench_now() - t0, &r);
        ari_ed_result_free(&r);
    }
    /* ecp's default R, for reference (R's side does not run it) */
    o.permutations = 199;
    t0 = bench_now();
    if (ari_edivisive(D, T, &o, &r, &err) < 0)
        return fprintf(stderr, "%s\n", err.message), 1;
    print_points("ed_perm199_allcores", bench_now() - t0, &r);
    ari_ed_result_free(&r);
    free(x);
    free(D);
    return 0;
}

static int bench_tsne(int n, const char *dir)
{
    enum { p = 10 };
    double *x = malloc((size_t)n * p * sizeof *x), *y = malloc((size_t)n * 2 * sizeof *y);
    if (!x || !y)
        return 1;
    make_blobs(x, n, p);
    char path[4096];
    snprintf(path, sizeof path, "%s/tsne.csv", dir);
    if (write_csv(path, x, n, p, 0) < 0)
        return 1;
    ari_tsne_options o;
    ari_tsne_defaults(&o);
    ari_tsne_result r;
    ari_error err = {0};
    const int threads[2] = {1, 0};
    for (int i = 0; i < 2; i++) {
        o.threads = threads[i];
        double t0 = bench_now();
        if (ari_tsne_rows(x, n, p, &o, y, &r, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        const char *name = threads[i] == 1 ? "tsne_1thread" : "tsne_default";
        printf("%s %.6f n=%d kl=%.4f\n", name, bench_now() - t0, n, r.kl);
    }
    snprintf(path, sizeof path, "%s/tsne_c.csv", dir);
    if (write_csv(path, y, n, 2, 0) < 0)
        return 1;
    free(x);
    free(y);
    return 0;
}

/* ---- neighbourhood preservation --------------------------------------------- */

static double *read_csv(const char *path, int *rows, int *cols)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1024, n = 0;
    double *v = malloc(cap * sizeof *v);
    int c = 0, r = 0, ch;
    *cols = 0;
    while (v && fscanf(f, "%lf", &v[n]) == 1) {
        n++;
        c++;
        ch = fgetc(f);
        if (ch == '\n' || ch == EOF) {
            *cols = c;
            c = 0;
            r++;
        }
        if (n == cap) {
            double *grown = realloc(v, (cap *= 2) * sizeof *v);
            if (!grown)
                free(v);
            v = grown;
        }
    }
    fclose(f);
    *rows = r;
    return v;
}

#define K 10

static void knn(const double *x, int n, int p, int *nn)
{
    double *d = malloc((size_t)n * sizeof *d);
    for (int i = 0; i < n && d; i++) {
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int c = 0; c < p; c++)
                s += (x[(size_t)i * p + c] - x[(size_t)j * p + c]) * (x[(size_t)i * p + c] - x[(size_t)j * p + c]);
            d[j] = j == i ? INFINITY : s;
        }
        for (int m = 0; m < K; m++) {
            int best = 0;
            for (int j = 1; j < n; j++)
                if (d[j] < d[best])
                    best = j;
            nn[(size_t)i * K + m] = best;
            d[best] = INFINITY;
        }
    }
    free(d);
}

static int preservation(const char *data, const char *layout)
{
    int n, p, m, q;
    double *x = read_csv(data, &n, &p), *y = read_csv(layout, &m, &q);
    if (!x || !y || n != m || q != 2 || n <= K)
        return fprintf(stderr, "cannot read %s and %s\n", data, layout), 1;
    int *a = malloc((size_t)n * K * sizeof *a), *b = malloc((size_t)n * K * sizeof *b);
    if (!a || !b)
        return 1;
    knn(x, n, p, a);
    knn(y, n, 2, b);
    long kept = 0;
    for (int i = 0; i < n; i++)
        for (int u = 0; u < K; u++)
            for (int v = 0; v < K; v++)
                kept += a[(size_t)i * K + u] == b[(size_t)i * K + v];
    printf("%.4f\n", (double)kept / ((double)n * K));
    free(x);
    free(y);
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    bench_rng = 0x243f6a8885a308d3ULL;
    if (argc == 4 && strcmp(argv[1], "np") == 0)
        return preservation(argv[2], argv[3]);
    if (argc != 7 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: bench_pdes_cpd run ENTITIES SAMPLES POINTS PERMS OUTDIR\n"
                        "       bench_pdes_cpd np DATA.csv LAYOUT.csv\n");
        return 2;
    }
    int n = atoi(argv[2]), T = atoi(argv[3]), points = atoi(argv[4]), perms = atoi(argv[5]);
    if (n < 1 || T < 8 || points < 100 || perms < 0)
        return 2;
    return bench_edivisive(n, T, perms, argv[6]) || bench_tsne(points, argv[6]);
}
