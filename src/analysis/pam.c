/* pam.c: k-medoids by BUILD and SWAP on a distance matrix (the contract
 * is in pam.h). Ties and the stopping rule follow cluster::pam's bswap()
 * and cstat(). */
#include "analysis/pam.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

typedef struct pam_work {
    const double *d;
    int n, k;
    unsigned char *is_med; /* n */
    double *near, *second; /* n: distance to the nearest and second-nearest medoid */
    double big;            /* larger than every distance */
    const int *cancel;     /* optional flag (pam.h) */
} pam_work;

static int cancelled(const pam_work *w)
{
    return w->cancel && __atomic_load_n(w->cancel, __ATOMIC_RELAXED);
}

static inline double dis(const pam_work *w, int i, int j)
{
    return i == j ? 0 : w->d[(size_t)i * w->n + j];
}

static void build(pam_work *w)
{
    int n = w->n;
    for (int j = 0; j < n; j++)
        w->near[j] = w->big;
    for (int c = 0; c < w->k; c++) {
        int best = -1;
        double best_gain = 0;
        for (int i = 0; i < n; i++) {
            if (w->is_med[i])
                continue;
            double gain = 0;
            for (int j = 0; j < n; j++) {
                double cmd = w->near[j] - dis(w, i, j);
                if (cmd > 0)
                    gain += cmd;
            }
            if (best_gain <= gain) {
                best_gain = gain;
                best = i;
            }
        }
        if (best < 0) /* cannot happen: k < n leaves a non-medoid, whose gain is >= 0 */
            return;
        w->is_med[best] = 1;
        for (int j = 0; j < n; j++)
            if (w->near[j] > dis(w, best, j))
                w->near[j] = dis(w, best, j);
    }
}

static void nearest_two(pam_work *w)
{
    for (int j = 0; j < w->n; j++) {
        w->near[j] = w->second[j] = w->big;
        for (int i = 0; i < w->n; i++) {
            if (!w->is_med[i])
                continue;
            double dij = dis(w, i, j);
            if (w->near[j] > dij) {
                w->second[j] = w->near[j];
                w->near[j] = dij;
            } else if (w->second[j] > dij) {
                w->second[j] = dij;
            }
        }
    }
}

/* The total change of swapping medoid i for non-medoid h. */
static double swap_cost(const pam_work *w, int i, int h)
{
    double dz = 0;
    const double *di = w->d + (size_t)i * w->n, *dh = w->d + (size_t)h * w->n;
    for (int j = 0; j < w->n; j++) {
        double dij = j == i ? 0 : di[j], dhj = j == h ? 0 : dh[j];
        if (dij == w->near[j])
            dz += (w->second[j] > dhj ? dhj : w->second[j]) - w->near[j];
        else if (dhj < w->near[j])
            dz += dhj - w->near[j];
    }
    return dz;
}

/* Swaps while the best swap improves; returns the number of swaps, or -1
 * when the cancel flag was seen (checked per candidate h). */
static int swap_phase(pam_work *w, double *sky)
{
    int swaps = 0;
    while (swaps < ARI_PAM_MAX_SWAPS) {
        nearest_two(w);
        double best = 1;
        int hbest = -1, ibest = -1;
        for (int h = 0; h < w->n; h++) {
            if (cancelled(w))
                return -1;
            if (w->is_med[h])
                continue;
            for (int i = 0; i < w->n; i++) {
                if (!w->is_med[i])
                    continue;
                double dz = swap_cost(w, i, h);
                if (best > dz) {
                    best = dz;
                    hbest = h;
                    ibest = i;
                }
            }
        }
        if (!(best < -16 * DBL_EPSILON * fabs(*sky)))
            break;
        w->is_med[hbest] = 1;
        w->is_med[ibest] = 0;
        *sky += best;
        swaps++;
    }
    return swaps;
}

/* Nearest medoid of every point, clusters numbered by first appearance. */
static void assign(const pam_work *w, ari_pam_result *r, int *nearest_med)
{
    int n = w->n;
    for (int j = 0; j < n; j++) {
        if (w->is_med[j]) {
            nearest_med[j] = j;
            continue;
        }
        double small = w->big;
        for (int m = 0; m < n; m++)
            if (w->is_med[m] && small > dis(w, m, j)) {
                small = dis(w, m, j);
                nearest_med[j] = m;
            }
    }
    int clusters = 0;
    for (int j = 0; j < n; j++)
        r->labels[j] = -1;
    for (int j = 0; j < n; j++) {
        if (r->labels[j] >= 0)
            continue;
        int med = nearest_med[j];
        r->medoids[clusters] = med;
        for (int q = j; q < n; q++)
            if (nearest_med[q] == med)
                r->labels[q] = clusters;
        clusters++;
    }
}

void ari_pam_free(ari_pam_result *r)
{
    if (!r)
        return;
    free(r->medoids);
    free(r->labels);
    free(r);
}

static int check_input(const double *dist, int n, int k, double *max_out, ari_error *err)
{
    if (n < 2 || k < 1 || k > n - 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "PAM: k = %d for %d points (need 1 <= k < n)", k, n);
    double mx = 0;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        if (!isfinite(dist[i]) || dist[i] < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "PAM: distance %zu is negative or not finite", i);
        if (i / n != i % n && dist[i] > mx)
            mx = dist[i];
    }
    *max_out = mx;
    return 0;
}

ari_pam_result *ari_pam(const double *dist, int n, int k, ari_error *err)
{
    return ari_pam_cancellable(dist, n, k, NULL, err);
}

ari_pam_result *ari_pam_cancellable(const double *dist, int n, int k, const int *cancel, ari_error *err)
{
    double mx = 0;
    if (check_input(dist, n, k, &mx, err) < 0)
        return NULL;
    ari_pam_result *r = ari_zalloc(sizeof *r, err);
    pam_work w = {.d = dist, .n = n, .k = k, .big = mx * 1.1 + 1, .cancel = cancel};
    int *nearest_med = malloc((size_t)n * sizeof *nearest_med);
    w.is_med = calloc((size_t)n, 1);
    w.near = malloc((size_t)n * sizeof *w.near);
    w.second = malloc((size_t)n * sizeof *w.second);
    if (r) {
        r->n = n;
        r->k = k;
        r->medoids = malloc((size_t)k * sizeof *r->medoids);
        r->labels = malloc((size_t)n * sizeof *r->labels);
    }
    if (!r || !r->medoids || !r->labels || !nearest_med || !w.is_med || !w.near || !w.second) {
        ari_pam_free(r);
        r = NULL;
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        build(&w);
        double sky = 0;
        for (int j = 0; j < n; j++)
            sky += w.near[j];
        r->objective_build = sky / n;
        if (k > 1)
            r->swaps = swap_phase(&w, &sky);
        r->objective_swap = sky / n;
        if (r->swaps < 0 || cancelled(&w)) {
            ari_pam_free(r);
            r = NULL;
            ari_error_set(err, ARI_E_CANCELLED, "PAM cancelled");
        } else {
            assign(&w, r, nearest_med);
        }
    }
    free(nearest_med);
    free(w.is_med);
    free(w.near);
    free(w.second);
    return r;
}
