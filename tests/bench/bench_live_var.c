/* bench_live_var.c: the progressive VAR row of Table 6.1 (spec_pdes_dmv.md
 * 5, issue 18): time points processed in a 1 s budget out of t = 10,000 at
 * d = 10, 100, 1,000 series (analysis/progressive_var.h: AIC order
 * selection p <= 5, the final fit, Granger F-tests of every other metric
 * against the target, IR and FEVD, on the s most recent points, s grown by
 * s sqrt(t_r / t_c) from s0 = 10 within the budget).
 *
 *   bench_live_var [T (10000)] [BUDGET_MS (1000)] [D ...]   (default D: 10 100 1000)
 *
 * Data: a stable VAR(1), each series driven by itself and its left
 * neighbour, Gaussian noise (xorshift64, fixed seed). Two steps are timed
 * per d: a fresh one (s starts at s0) and the next one (s carried over, as
 * at the next time point of a live run). Prints per d:
 *   var d=D first: POINTS points (p=P, FITS fits, LAT ms)  next: POINTS points (...)  thesis: X  ratio: R
 * ratio = the larger count among the steps that kept within the budget / the
 * thesis's figure (10,000 / 833 / 35); "over budget" when neither did (a
 * VAR(1) of d series needs 2 d + 3 points, and the step always makes one fit).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/progressive_var.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
    double u = rng_uniform(), v = rng_uniform();
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

static double thesis_points(size_t d)
{
    return d <= 10 ? 10000 : d <= 100 ? 833 : 35;
}

static int run(size_t T, size_t d, double budget)
{
    double *Y = malloc(T * d * sizeof *Y);
    if (!Y)
        return -1;
    for (size_t c = 0; c < d; c++)
        Y[c] = gauss();
    for (size_t t = 1; t < T; t++)
        for (size_t c = 0; c < d; c++)
            Y[t * d + c] = 0.5 * Y[(t - 1) * d + c] + (c ? 0.3 * Y[(t - 1) * d + c - 1] : 0) + gauss();
    ari_pvar_params prm;
    ari_pvar_defaults(&prm);
    prm.budget_ms = budget;
    ari_pvar *s = ari_pvar_new(&prm);
    ari_pvar_result r[2];
    ari_error err = {0};
    if (!s) {
        free(Y);
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (ari_pvar_step(s, Y, T, d, 0, &r[i], &err) < 0) {
            fprintf(stderr, "d=%zu: %s\n", d, err.message);
            ari_pvar_free(s);
            free(Y);
            return -1;
        }
    size_t best = 0;
    for (int i = 0; i < 2; i++)
        if (r[i].latency_ms <= budget && r[i].t_used > best)
            best = r[i].t_used;
    char ratio[64];
    if (best)
        snprintf(ratio, sizeof ratio, "%.2f", (double)best / thesis_points(d));
    else
        snprintf(ratio, sizeof ratio, "over budget");
    printf("var d=%zu first: %zu points (p=%d, %d fits, %.0f ms)  next: %zu points (p=%d, %d fits, %.0f ms)"
           "  thesis: %.0f  ratio: %s%s%s\n",
           d, r[0].t_used, r[0].p, r[0].fits, r[0].latency_ms, r[1].t_used, r[1].p, r[1].fits,
           r[1].latency_ms, thesis_points(d), ratio, r[1].note[0] ? "  note: " : "", r[1].note);
    for (int i = 0; i < 2; i++)
        ari_pvar_result_free(&r[i]);
    ari_pvar_free(s);
    free(Y);
    return 0;
}

int main(int argc, char **argv)
{
    size_t T = argc > 1 ? (size_t)atol(argv[1]) : 10000;
    double budget = argc > 2 ? atof(argv[2]) : 1000;
    static const size_t dflt[] = {10, 100, 1000};
    int rc = 0;
    if (argc > 3) {
        for (int i = 3; i < argc; i++)
            rc |= run(T, (size_t)atol(argv[i]), budget);
    } else {
        for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++)
            rc |= run(T, dflt[i], budget);
    }
    return rc ? 1 : 0;
}
