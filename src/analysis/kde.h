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
 * with R to round-off (the test compares to 1e-6 relative). Non-finite
 * inputs are rejected (R drops them; our callers never have any).
 */
#ifndef ARIADNE_ANALYSIS_KDE_H
#define ARIADNE_ANALYSIS_KDE_H

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

#endif
