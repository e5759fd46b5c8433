/* kde.h: a Gaussian kernel density estimate computed exactly as R's
 * `density(x, bw = h)` (R 4.2, stats::density.default with its defaults
 * n = 512, cut = 3, kernel = "gaussian", no weights):
 *
 *   from = min(x) - cut*h, to = max(x) + cut*h
 *   lo = from - 4h, up = to + 4h
 *   y    = linear binning of the points (weight 1/nx each) onto n bins
 *          spanning [lo, up], in a zero-padded array of 2n (R's BinDist)
 *   kern = dnorm(k, sd = h) at k = seq(0, 2(up-lo), length.out = 2n),
 *          its upper half mirrored to negative distances
 *   dens = max(0, Re(ifft(fft(y) * Conj(fft(kern))))[0..n) / 2n)
 *   the result is dens, placed at seq(lo, up, length.out = n), linearly
 *   interpolated (R's approx) at seq(from, to, length.out = n_out).
 *
 * The working size n is max(n_out, 512), rounded up to a power of two above
 * 512, like R; the FFT is a radix-2 complex FFT of length 2n. Outputs agree
 * with R to round-off (the test compares to 1e-6 relative): the binning
 * multiplies by 1/delta where R divides by delta, and sums per bin in
 * another order. Non-finite inputs are rejected (R drops them; our callers
 * never have any).
 *
 * Callers that compute many densities (one per progression step) keep an
 * ari_kde_work across calls so that no buffer is allocated per call; after a
 * call it also tells which bin each point fell in, which lets the modal
 * clustering assign points to clusters without a search per point.
 */
#ifndef ARIADNE_ANALYSIS_KDE_H
#define ARIADNE_ANALYSIS_KDE_H

#include <stdint.h>

#include "util/error.h"

#define ARI_KDE_DEFAULT_POINTS 512
#define ARI_KDE_DEFAULT_CUT 3.0
#define ARI_KDE_MAX_POINTS 65536

typedef struct ari_kde {
    int n;       /* number of grid points (n_out) */
    double bw;   /* the bandwidth h */
    double from, to;
    double *x;   /* [n] grid, seq(from, to, length.out = n) */
    double *y;   /* [n] density at x */
} ari_kde;

/* Density of x[0..nx) with bandwidth bw on npoints grid points (R's `n`,
 * 2..ARI_KDE_MAX_POINTS) and R's `cut`. nx >= 1; bw finite and > 0; x
 * finite. Returns 0 and fills *out (free with ari_kde_free), or -1 with
 * ARI_E_INVALID_PARAMETER / ARI_E_NOMEM. */
int ari_kde_density(const double *x, int nx, double bw, int npoints, double cut, ari_kde *out,
                    ari_error *err);

void ari_kde_free(ari_kde *k);

/* Reusable buffers of ari_kde_density_work. Zero-initialise it (or call
 * ari_kde_work_init), pass it to any number of calls, then
 * ari_kde_work_free. One work area per thread. After a successful call:
 *  - bin(v) = floor((v - lo) * inv_delta) is the bin of a value on the
 *    working grid (n bins); ari_kde_bin computes it exactly as for the
 *    points, so it is monotone in v and agrees with cell[];
 *  - cell[i] is the bin of point i, count[b] the number of points in bin b
 *    and offset_sum[b] the sum of their offsets v - lo (so their mean is
 *    lo + offset_sum[b] / count[b], to round-off);
 *  - irregular is set when some point fell outside bins 0..n-1 (only with a
 *    degenerate grid, such as a bandwidth below the values' resolution):
 *    cell[] is then not meaningful. */
typedef struct ari_kde_work {
    int n;             /* working size of the last call */
    double lo, inv_delta;
    int irregular;
    uint16_t *cell;    /* [nx] */
    double *count;     /* [n] */
    double *offset_sum; /* [n] */
    /* private: buffers for cap_n bins and cap_points points, and the FFT
     * tables of working sizes other than R's default */
    int cap_n, cap_points;
    double *mem;
    int *counts;
    void *fft_tables;
} ari_kde_work;

void ari_kde_work_init(ari_kde_work *w);
void ari_kde_work_free(ari_kde_work *w);

/* ari_kde_density using (and growing as needed) the buffers of w; only
 * out->x and out->y are allocated. Same contract otherwise. */
int ari_kde_density_work(const double *x, int nx, double bw, int npoints, double cut,
                         ari_kde_work *w, ari_kde *out, ari_error *err);

/* The bin of v after a call on w: -1 below the grid, w->n above it (or for
 * NaN), else floor((v - lo) * inv_delta) as for the points. */
int ari_kde_bin(const ari_kde_work *w, double v);

#endif
