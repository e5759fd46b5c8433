/* kde.c: R's density() for the Gaussian kernel (see kde.h): linear binning
 * (R's C_BinDist), dnorm as R's dnorm4, a radix-2 FFT convolution, and R's
 * seq.int / approx for the grids. Each step mirrors one line of
 * stats::density.default so that results match R to round-off.
 */
#include "analysis/kde.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define M_1_SQRT_2PI_R 0.398942280401432677939946059934

/* R 4.2's seq.int(from, to, length.out = n): from + i*by, the last entry
 * exactly `to` (src/main/seq.c). */
static void r_seq(double from, double to, int n, double *out)
{
    if (n > 0)
        out[0] = from;
    if (n > 1)
        out[n - 1] = to;
    if (n > 2) {
        double by = (to - from) / (double)(n - 1);
        for (int i = 1; i < n - 1; i++)
            out[i] = from + (double)i * by;
    }
}

/* R's dnorm(x, 0, sigma) (src/nmath/dnorm.c, non-log branch). */
static double r_dnorm(double x, double sigma)
{
    x = fabs(x / sigma);
    if (x >= 2 * sqrt(DBL_MAX))
        return 0.0;
    if (x < 5)
        return M_1_SQRT_2PI_R * exp(-0.5 * x * x) / sigma;
    if (x > sqrt(-2 * M_LN2 * (DBL_MIN_EXP + 1 - DBL_MANT_DIG)))
        return 0.0;
    double x1 = ldexp(nearbyint(ldexp(x, 16)), -16);
    double x2 = x - x1;
    return M_1_SQRT_2PI_R / sigma * (exp(-0.5 * x1 * x1) * exp((-0.5 * x2 - x1) * x2));
}

/* R's BinDist: linear binning of x (weight w each) onto n bins spanning
 * [lo, hi]; y has 2n entries, the upper half stays zero. Progression
 * metrics pile up in a few bins, so the points are spread over four
 * partial histograms (in part: 4n doubles, zeroed here) to break the
 * add-to-the-same-bin dependency, then summed; only the order of the
 * additions differs from R (round-off). */
static void bin_dist(const double *x, int nx, double w, double lo, double hi, int n, double *y,
                     double *part)
{
    int ixmin = 0, ixmax = n - 2;
    double delta = (hi - lo) / (n - 1);
    memset(y, 0, 2 * (size_t)n * sizeof *y);
    memset(part, 0, 4 * (size_t)n * sizeof *part);
    for (int i = 0; i < nx; i++) {
        double *h = part + (size_t)(i & 3) * n;
        double pos = (x[i] - lo) / delta;
        /* floor(pos), without the libm call: pos is within a few bins of
         * [0, n) because lo and hi come from the data */
        int ix = (int)pos;
        ix -= ix > pos;
        double fx = pos - ix;
        if (ixmin <= ix && ix <= ixmax) {
            h[ix] += w * (1 - fx);
            h[ix + 1] += w * fx;
        } else if (ix == -1) {
            h[0] += w * fx;
        } else if (ix == ixmax + 1) {
            h[ix] += w * (1 - fx);
        }
    }
    for (int j = 0; j < n; j++)
        y[j] = (part[j] + part[n + j]) + (part[2 * n + j] + part[3 * n + j]);
}

/* In-place iterative radix-2 FFT of length L (a power of two) on separate
 * real/imaginary arrays; sign -1 forward, +1 inverse (unnormalised, like
 * R's fft(inverse = TRUE)). Twiddles come from cos/sin of each angle. */
static void fft(double *re, double *im, int L, int sign, const double *cosv, const double *sinv)
{
    for (int i = 1, j = 0; i < L; i++) {
        int bit = L >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    for (int len = 2; len <= L; len <<= 1) {
        int half = len / 2, stride = L / len;
        for (int start = 0; start < L; start += len) {
            for (int k = 0; k < half; k++) {
                double wr = cosv[k * stride], wi = sign * sinv[k * stride];
                int a = start + k, b = a + half;
                double tr = re[b] * wr - im[b] * wi;
                double ti = re[b] * wi + im[b] * wr;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
    }
}

static int validate(const double *x, int nx, double bw, int npoints, double cut, ari_error *err)
{
    if (!x || nx < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: need at least one point");
    if (!(isfinite(bw) && bw > 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: bandwidth %g must be finite and > 0",
                             bw);
    if (npoints < 2 || npoints > ARI_KDE_MAX_POINTS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: %d grid points (allowed 2..%d)",
                             npoints, ARI_KDE_MAX_POINTS);
    if (!(isfinite(cut) && cut >= 0))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: cut %g must be finite and >= 0", cut);
    for (int i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: point %d is not finite", i);
    return 0;
}

/* Four independent min/max chains, for speed on large inputs. */
static void min_max(const double *x, int nx, double *lo, double *hi)
{
    double mn[4] = {x[0], x[0], x[0], x[0]}, mx[4] = {x[0], x[0], x[0], x[0]};
    int i = 0;
    for (; i + 4 <= nx; i += 4)
        for (int k = 0; k < 4; k++) {
            mn[k] = x[i + k] < mn[k] ? x[i + k] : mn[k];
            mx[k] = x[i + k] > mx[k] ? x[i + k] : mx[k];
        }
    for (; i < nx; i++) {
        mn[0] = x[i] < mn[0] ? x[i] : mn[0];
        mx[0] = x[i] > mx[0] ? x[i] : mx[0];
    }
    *lo = fmin(fmin(mn[0], mn[1]), fmin(mn[2], mn[3]));
    *hi = fmax(fmax(mx[0], mx[1]), fmax(mx[2], mx[3]));
}

/* R's working size: max(n, 512), then a power of two when above 512. */
static int working_size(int npoints)
{
    int n = npoints > 512 ? npoints : 512;
    int p = 512;
    while (p < n)
        p <<= 1;
    return p;
}

/* The kernel at the 2n FFT ordinates: seq(0, 2(up-lo), length.out = 2n),
 * entries n+1..2n-1 replaced by the negated entries n-1..1. */
static void kernel_ordinates(double span, int n, double bw, double *k)
{
    int L = 2 * n;
    r_seq(0.0, 2 * span, L, k);
    for (int i = 0; i <= n; i++)
        k[i] = r_dnorm(k[i], bw);
    for (int i = n + 1; i < L; i++) /* dnorm(-v) == dnorm(v) exactly */
        k[i] = k[L - i];
}

/* cos/sin of 2*pi*i/L for i < L. R's default size (n = 512, L = 1024)
 * has a table filled once per process; other sizes fill the caller's. */
#define DEFAULT_L 1024
static double default_cos[DEFAULT_L], default_sin[DEFAULT_L];
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void fill_twiddles(int L, double *cosv, double *sinv)
{
    for (int i = 0; i < L; i++) {
        double a = 2 * M_PI * (double)i / (double)L;
        cosv[i] = cos(a);
        sinv[i] = sin(a);
    }
}

static void fill_default_twiddles(void)
{
    fill_twiddles(DEFAULT_L, default_cos, default_sin);
}

/* dens[0..n) = max(0, Re(ifft(fft(y) * Conj(fft(k))))/L) for real y, k of
 * length L = 2n; work holds 4L doubles. Both forward transforms come from
 * one complex FFT of y + i*k: Y[j] = (Z[j] + conj(Z[L-j]))/2 and
 * K[j] = (Z[j] - conj(Z[L-j]))/(2i). */
static void convolve(const double *y, const double *k, int n, double *work, double *dens)
{
    int L = 2 * n;
    double *zr = work, *zi = work + L;
    const double *cosv = default_cos, *sinv = default_sin;
    if (L == DEFAULT_L) {
        pthread_once(&default_once, fill_default_twiddles);
    } else {
        fill_twiddles(L, work + 2 * L, work + 3 * L);
        cosv = work + 2 * L;
        sinv = work + 3 * L;
    }
    memcpy(zr, y, (size_t)L * sizeof *zr);
    memcpy(zi, k, (size_t)L * sizeof *zi);
    fft(zr, zi, L, -1, cosv, sinv);
    /* W[j] = Y[j] * conj(K[j]), in place: j and L-j are done together. */
    for (int j = 0; j <= L / 2; j++) {
        int m = (L - j) % L;
        double ar = zr[j], ai = zi[j], br = zr[m], bi = zi[m];
        double yr = (ar + br) / 2, yi = (ai - bi) / 2;  /* Y[j] */
        double kr = (ai + bi) / 2, ki = (br - ar) / 2;  /* K[j] */
        /* Y[L-j] = conj(Y[j]), K[L-j] = conj(K[j]) */
        double wr = yr * kr + yi * ki, wi = yi * kr - yr * ki;
        zr[j] = wr;
        zi[j] = wi;
        zr[m] = wr;
        zi[m] = -wi;
    }
    fft(zr, zi, L, +1, cosv, sinv);
    for (int i = 0; i < n; i++) {
        double v = zr[i] / (double)L;
        dens[i] = v > 0 ? v : 0.0;
    }
}

/* R's approx(xs, ys, v)$y on a uniform xs (seq(lo, up, length.out = n)):
 * the interval comes from the spacing, then is checked against xs itself
 * so that the result is the one of R's bisection. */
static double approx_uniform(const double *xs, const double *ys, int n, double v)
{
    if (v < xs[0] || v > xs[n - 1])
        return NAN;
    int i = (int)((v - xs[0]) / ((xs[n - 1] - xs[0]) / (n - 1)));
    i = i < 0 ? 0 : i > n - 2 ? n - 2 : i;
    while (i > 0 && xs[i] > v)
        i--;
    while (i < n - 2 && xs[i + 1] <= v)
        i++;
    if (v == xs[i + 1])
        return ys[i + 1];
    if (v == xs[i])
        return ys[i];
    return ys[i] + (ys[i + 1] - ys[i]) * ((v - xs[i]) / (xs[i + 1] - xs[i]));
}

int ari_kde_density(const double *x, int nx, double bw, int npoints, double cut, ari_kde *out,
                    ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (validate(x, nx, bw, npoints, cut, err) < 0)
        return -1;
    double xmin, xmax;
    min_max(x, nx, &xmin, &xmax);
    int n = working_size(npoints), L = 2 * n;
    double from = xmin - cut * bw, to = xmax + cut * bw;
    double lo = from - 4 * bw, up = to + 4 * bw;
    /* y[L], k[L], work[4L] (also the partial histograms), dens[n], xords[n] */
    double *buf = malloc((size_t)(6 * L + 2 * n) * sizeof *buf);
    out->x = malloc((size_t)npoints * sizeof *out->x);
    out->y = malloc((size_t)npoints * sizeof *out->y);
    if (!buf || !out->x || !out->y) {
        free(buf);
        ari_kde_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "kde: out of memory");
    }
    double *y = buf, *k = buf + L, *work = buf + 2 * L, *dens = buf + 6 * L, *xords = dens + n;
    bin_dist(x, nx, 1.0 / nx, lo, up, n, y, work);
    kernel_ordinates(up - lo, n, bw, k);
    convolve(y, k, n, work, dens);
    r_seq(lo, up, n, xords);
    r_seq(from, to, npoints, out->x);
    for (int i = 0; i < npoints; i++)
        out->y[i] = approx_uniform(xords, dens, n, out->x[i]);
    free(buf);
    out->n = npoints;
    out->bw = bw;
    out->from = from;
    out->to = to;
    return 0;
}

void ari_kde_free(ari_kde *k)
{
    if (!k)
        return;
    free(k->x);
    free(k->y);
    k->x = k->y = NULL;
    k->n = 0;
}
