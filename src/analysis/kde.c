/* kde.c: R's density() for the Gaussian kernel (see kde.h): linear binning
 * (R's C_BinDist), dnorm as R's dnorm4, a radix-2 FFT convolution, and R's
 * seq.int / approx for the grids. Each step mirrors one line of
 * stats::density.default so that results match R to round-off. The buffers
 * live in an ari_kde_work, so that repeated calls allocate only their
 * output.
 */
#include "analysis/kde.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

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

/* exp(a) for |a| < 1e-3, as a Taylor polynomial: the first omitted term
 * is below 1e-17, so this is exp(a) correctly rounded but in rare near-ties
 * (then one ulp away), at a fraction of the cost of the libm call. */
static double exp_small(double a)
{
    return 1 + (a + a * a * (1.0 / 2 + a * (1.0 / 6 + a * (1.0 / 24))));
}

/* R's dnorm(x, 0, sigma) (src/nmath/dnorm.c, non-log branch). R's
 * ldexp(., +-16) are written as exact products by powers of two, and the
 * exp of the small correction x2 (|x2| <= 2^-17, x1 < 39) by exp_small. */
static double r_dnorm(double x, double sigma)
{
    x = fabs(x / sigma);
    if (x >= 2 * sqrt(DBL_MAX))
        return 0.0;
    if (x < 5)
        return M_1_SQRT_2PI_R * exp(-0.5 * x * x) / sigma;
    if (x > sqrt(-2 * M_LN2 * (DBL_MIN_EXP + 1 - DBL_MANT_DIG)))
        return 0.0;
    double x1 = nearbyint(x * 65536.0) / 65536.0;
    double x2 = x - x1;
    return M_1_SQRT_2PI_R / sigma * (exp(-0.5 * x1 * x1) * exp_small((-0.5 * x2 - x1) * x2));
}

/* ---- buffers ---------------------------------------------------------------------- */

/* Partial histograms: progression metrics pile up in a few bins, so
 * consecutive points are spread over NPARTS partial histograms to break the
 * add-to-the-same-bin chain. A partial histogram has two arrays of n bins:
 * how many points, and the sum of their offsets d = x - lo; the position
 * of a point on the grid is d * inv_delta, so the sum of the fractional
 * positions of a bin's points follows (bins_to_y). Arrays are PAD entries
 * longer than n so that the same bin of two arrays is not 4 KiB apart
 * (loads would then wait for unrelated stores). */
#define NPARTS 4
#define PAD 8
_Static_assert(NPARTS == 4, "bin_fast spreads the points over four partial histograms");

typedef struct bin_part {
    int *count;
    double *offset;
} bin_part;

/* The tables of FFTs of lengths L and L/2: per-stage twiddles (for a
 * butterfly span h = 1, 2, 4, ..., L/2 and k < h, re[h + k] + i im[h + k]
 * = exp(-i pi k/h), the same for both lengths) and the index pairs (i, j),
 * i < j, that the bit-reversal permutation of each length swaps: a list,
 * because computing the permutation on the fly branches unpredictably. */
typedef struct fft_tables {
    int L;
    double *re, *im;  /* [L] */
    int *swaps[2];    /* [L], [L/2]: pairs for length L, then L/2 */
    int nswaps[2];    /* number of pairs */
} fft_tables;

/* Layout of w->mem for working size n (L = 2n): the offset sums of the
 * partial histograms (NPARTS * (n + PAD)), count[n], offset_sum[n], re[L],
 * im[L], xords[n], dens[n]. w->counts holds the partial counts. */
static size_t mem_doubles(int n)
{
    return (size_t)NPARTS * (n + PAD) + (size_t)n * (2 + 4 + 2);
}

static size_t count_ints(int n)
{
    return (size_t)NPARTS * (n + PAD);
}

static void part_layout(const ari_kde_work *w, int n, bin_part *h)
{
    for (int p = 0; p < NPARTS; p++)
        h[p] = (bin_part){w->counts + (size_t)p * (n + PAD), w->mem + (size_t)p * (n + PAD)};
}

/* The pairs (i, rev(i)), i < rev(i), of the bit reversal of length M. */
static int fill_swaps(int M, int *pairs)
{
    int count = 0;
    for (int i = 0; i < M; i++) {
        int r = 0;
        for (int bit = 1, rbit = M >> 1; bit < M; bit <<= 1, rbit >>= 1)
            if (i & bit)
                r |= rbit;
        if (i < r) {
            pairs[2 * count] = i;
            pairs[2 * count + 1] = r;
            count++;
        }
    }
    return count;
}

static void fill_tables(fft_tables *t)
{
    int L = t->L;
    t->re[0] = 1;
    t->im[0] = 0;
    for (int h = 1; h < L; h <<= 1)
        for (int k = 0; k < h; k++) {
            double a = 2 * M_PI * (double)(k * (L / (2 * h))) / (double)L;
            t->re[h + k] = cos(a);
            t->im[h + k] = -sin(a);
        }
    t->nswaps[0] = fill_swaps(L, t->swaps[0]);
    t->nswaps[1] = fill_swaps(L / 2, t->swaps[1]);
}

/* R's default working size (n = 512, L = 1024) has tables filled once per
 * process; other sizes keep theirs in the work area. */
#define DEFAULT_L 1024
static double default_re[DEFAULT_L], default_im[DEFAULT_L];
static int default_swaps[DEFAULT_L], default_half_swaps[DEFAULT_L / 2];
static fft_tables default_tables = {
    DEFAULT_L, default_re, default_im, {default_swaps, default_half_swaps}, {0, 0}};
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void fill_default_tables(void)
{
    fill_tables(&default_tables);
}

static void free_tables(fft_tables *t)
{
    if (t) {
        void *owned[] = {t->re, t->im, t->swaps[0], t->swaps[1], t};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
}

static const fft_tables *tables_for(ari_kde_work *w, int L)
{
    if (L == DEFAULT_L) {
        pthread_once(&default_once, fill_default_tables);
        return &default_tables;
    }
    fft_tables *t = w->fft_tables;
    if (t && t->L == L)
        return t;
    free_tables(t);
    w->fft_tables = t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->L = L;
    t->re = malloc((size_t)L * sizeof *t->re);
    t->im = malloc((size_t)L * sizeof *t->im);
    t->swaps[0] = malloc((size_t)L * sizeof *t->swaps[0]);
    t->swaps[1] = malloc((size_t)(L / 2) * sizeof *t->swaps[1]);
    if (!t->re || !t->im || !t->swaps[0] || !t->swaps[1]) {
        free_tables(t);
        w->fft_tables = NULL;
        return NULL;
    }
    fill_tables(t);
    return t;
}

void ari_kde_work_init(ari_kde_work *w)
{
    memset(w, 0, sizeof *w);
}

void ari_kde_work_free(ari_kde_work *w)
{
    if (!w)
        return;
    void *owned[] = {w->mem, w->counts, w->cell};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    free_tables(w->fft_tables);
    memset(w, 0, sizeof *w);
}

/* Grows w's buffers to n bins and nx points. */
static int reserve(ari_kde_work *w, int n, int nx)
{
    if (n > w->cap_n) {
        free(w->mem);
        free(w->counts);
        w->mem = malloc(mem_doubles(n) * sizeof *w->mem);
        w->counts = malloc(count_ints(n) * sizeof *w->counts);
        w->cap_n = w->mem && w->counts ? n : 0;
        if (!w->cap_n)
            return -1;
    }
    if (nx > w->cap_points) {
        uint16_t *cell = malloc((size_t)nx * sizeof *cell);
        if (!cell)
            return -1;
        free(w->cell);
        w->cell = cell;
        w->cap_points = nx;
    }
    return 0;
}

/* ---- binning ---------------------------------------------------------------------- */

/* One point of the fast binning: its offset from lo, its position on the
 * grid, its bin (the position is >= 0, so the truncation is the floor),
 * the bin's sums. Fails when the position is not in [0, n): a non-finite
 * point, or a degenerate grid. */
static inline int bin_point(double v, double lo, double inv, double limit, int *count,
                            double *offset, uint16_t *cell)
{
    double d = v - lo, pos = d * inv;
    if (!(pos >= 0 && pos < limit))
        return -1;
    int ix = (int)pos;
    *cell = (uint16_t)ix;
    count[ix]++;
    offset[ix] += d;
    return 0;
}

/* Bins every point, point i into partial histogram i % NPARTS (zeroed
 * here). Returns -1 at the first point out of [lo, lo + n/inv). The array
 * pointers are locals: the compiler then keeps them in registers. */
static int bin_fast(const double *x, int nx, double lo, double inv, int n, const bin_part *h,
                    uint16_t *cell)
{
    double limit = n;
    for (int p = 0; p < NPARTS; p++) {
        memset(h[p].count, 0, (size_t)n * sizeof *h[p].count);
        memset(h[p].offset, 0, (size_t)n * sizeof *h[p].offset);
    }
    int *c0 = h[0].count, *c1 = h[1].count, *c2 = h[2].count, *c3 = h[3].count;
    double *o0 = h[0].offset, *o1 = h[1].offset, *o2 = h[2].offset, *o3 = h[3].offset;
    int i = 0;
    for (; i + NPARTS <= nx; i += NPARTS)
        if (bin_point(x[i], lo, inv, limit, c0, o0, cell + i) < 0 ||
            bin_point(x[i + 1], lo, inv, limit, c1, o1, cell + i + 1) < 0 ||
            bin_point(x[i + 2], lo, inv, limit, c2, o2, cell + i + 2) < 0 ||
            bin_point(x[i + 3], lo, inv, limit, c3, o3, cell + i + 3) < 0)
            return -1;
    for (; i < nx; i++)
        if (bin_point(x[i], lo, inv, limit, c0, o0, cell + i) < 0)
            return -1;
    return 0;
}

/* R's BinDist from the partial histograms: a point at position pos in bin
 * b gives 1 - (pos - b) to y[b] and pos - b to y[b + 1] (not past y[n - 1],
 * like R), times the weight w. Over the c points of bin b, the sum of
 * pos - b is offset_sum * inv - c b (clamped to [0, c] against round-off).
 * Also the totals of every bin. y has 2n entries, the upper half zero.
 * Differs from R by round-off: the sum of the positions is taken once per
 * bin rather than per point. */
static void bins_to_y(const bin_part *h, int n, double w, double inv, double *count,
                      double *offset_sum, double *y)
{
    double prev_right = 0;
    for (int b = 0; b < n; b++) {
        int c = 0;
        double d = 0;
        for (int p = 0; p < NPARTS; p++) {
            c += h[p].count[b];
            d += h[p].offset[b];
        }
        double right = d * inv - (double)c * b; /* sum of pos - b */
        right = right < 0 ? 0 : right > c ? c : right;
        count[b] = c;
        offset_sum[b] = d;
        y[b] = w * ((c - right) + prev_right);
        prev_right = right;
    }
    memset(y + n, 0, (size_t)n * sizeof *y);
}

/* R's BinDist itself, for the rare inputs that leave the fast path (all
 * finite here): points outside the grid are dropped as R drops them. */
static void bin_dist_r(const double *x, int nx, double w, double lo, double hi, int n, double *y)
{
    int ixmin = 0, ixmax = n - 2;
    double delta = (hi - lo) / (n - 1);
    memset(y, 0, 2 * (size_t)n * sizeof *y);
    for (int i = 0; i < nx; i++) {
        double pos = (x[i] - lo) / delta;
        if (!(pos >= -1 && pos < n)) /* (int) of anything else is undefined */
            continue;
        int ix = (int)floor(pos);
        double fx = pos - ix;
        if (ixmin <= ix && ix <= ixmax) {
            y[ix] += w * (1 - fx);
            y[ix + 1] += w * fx;
        } else if (ix == -1) {
            y[0] += w * fx;
        } else if (ix == ixmax + 1) {
            y[ix] += w * (1 - fx);
        }
    }
}

/* ---- FFT -------------------------------------------------------------------------- */

static void bit_reverse(double *re, double *im, const int *pairs, int npairs)
{
    for (int p = 0; p < npairs; p++) {
        int i = pairs[2 * p], j = pairs[2 * p + 1];
        double t = re[i];
        re[i] = re[j];
        re[j] = t;
        t = im[i];
        im[i] = im[j];
        im[j] = t;
    }
}

/* Two doubles: GCC and clang compile arithmetic on this type to SSE2 (or
 * the target's) vector instructions, which do two butterflies at once, and
 * to scalar code where there are none. memcpy is the portable unaligned
 * load/store. */
typedef double pair __attribute__((vector_size(2 * sizeof(double))));

static inline pair load_pair(const double *p)
{
    pair v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store_pair(double *p, pair v)
{
    memcpy(p, &v, sizeof v);
}

/* One radix-2 stage of span h (>= 2): butterflies (k, k + h) of every
 * group of 2h, twiddle t[h + k]; two butterflies at a time. */
static void fft_span(double *re, double *im, int L, int h, const fft_tables *t)
{
    const double *wre = t->re + h, *wim = t->im + h;
    for (int start = 0; start < L; start += 2 * h) {
        double *ar = re + start, *ai = im + start, *br = ar + h, *bi = ai + h;
        for (int k = 0; k < h; k += 2) {
            pair wr = load_pair(wre + k), wi = load_pair(wim + k);
            pair xr = load_pair(br + k), xi = load_pair(bi + k);
            pair yr = load_pair(ar + k), yi = load_pair(ai + k);
            pair tr = xr * wr - xi * wi, ti = xr * wi + xi * wr;
            store_pair(br + k, yr - tr);
            store_pair(bi + k, yi - ti);
            store_pair(ar + k, yr + tr);
            store_pair(ai + k, yi + ti);
        }
    }
}

/* The stages of spans h and 2h together (the same operations as two
 * fft_span calls, so the same results, with half the loads and stores):
 * in every group of 4h, points k, k+h, k+2h, k+3h. */
static void fft_span_pair(double *re, double *im, int L, int h, const fft_tables *t)
{
    for (int start = 0; start < L; start += 4 * h) {
        double *r0 = re + start, *i0 = im + start;
        double *r1 = r0 + h, *i1 = i0 + h, *r2 = r1 + h, *i2 = i1 + h, *r3 = r2 + h, *i3 = i2 + h;
        for (int k = 0; k < h; k += 2) {
            pair wr = load_pair(t->re + h + k), wi = load_pair(t->im + h + k);
            pair a0r = load_pair(r0 + k), a0i = load_pair(i0 + k);
            pair a1r = load_pair(r1 + k), a1i = load_pair(i1 + k);
            pair a2r = load_pair(r2 + k), a2i = load_pair(i2 + k);
            pair a3r = load_pair(r3 + k), a3i = load_pair(i3 + k);
            /* span h: (k, k+h) and (k+2h, k+3h), twiddle t[h + k] */
            pair tr = a1r * wr - a1i * wi, ti = a1r * wi + a1i * wr;
            pair b0r = a0r + tr, b0i = a0i + ti, b1r = a0r - tr, b1i = a0i - ti;
            tr = a3r * wr - a3i * wi;
            ti = a3r * wi + a3i * wr;
            pair b2r = a2r + tr, b2i = a2i + ti, b3r = a2r - tr, b3i = a2i - ti;
            /* span 2h: (k, k+2h), twiddle t[2h + k]; (k+h, k+3h), t[3h + k] */
            pair vr = load_pair(t->re + 2 * h + k), vi = load_pair(t->im + 2 * h + k);
            tr = b2r * vr - b2i * vi;
            ti = b2r * vi + b2i * vr;
            store_pair(r0 + k, b0r + tr);
            store_pair(i0 + k, b0i + ti);
            store_pair(r2 + k, b0r - tr);
            store_pair(i2 + k, b0i - ti);
            vr = load_pair(t->re + 3 * h + k);
            vi = load_pair(t->im + 3 * h + k);
            tr = b3r * vr - b3i * vi;
            ti = b3r * vi + b3i * vr;
            store_pair(r1 + k, b1r + tr);
            store_pair(i1 + k, b1i + ti);
            store_pair(r3 + k, b1r - tr);
            store_pair(i3 + k, b1i - ti);
        }
    }
}

/* In-place forward radix-2 FFT (decimation in time) of length L (t->L or
 * t->L / 2) on separate real/imaginary arrays. The inverse (unnormalised,
 * like R's fft(inverse = TRUE)) is the same call with re and im swapped. */
static void fft(double *re, double *im, int L, const fft_tables *t)
{
    int half = L != t->L;
    bit_reverse(re, im, t->swaps[half], t->nswaps[half]);
    for (int a = 0; a < L; a += 2) { /* span 1: twiddle 1 */
        double tr = re[a + 1], ti = im[a + 1];
        re[a + 1] = re[a] - tr;
        im[a + 1] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
    }
    int h = 2;
    for (; 4 * h <= L; h *= 4)
        fft_span_pair(re, im, L, h, t);
    if (h < L)
        fft_span(re, im, L, h, t);
}

/* The kernel at the 2n FFT ordinates: seq(0, 2 span, length.out = 2n),
 * entries n+1..2n-1 replaced by the negated entries n-1..1 (dnorm(-v) ==
 * dnorm(v) exactly). Entries 0..n of R's seq are i * by. */
static void kernel_ordinates(double span, int n, double bw, double *k)
{
    int L = 2 * n;
    double by = 2 * span / (double)(L - 1);
    for (int i = 0; i <= n; i++)
        k[i] = r_dnorm((double)i * by, bw);
    for (int i = n + 1; i < L; i++)
        k[i] = k[L - i];
}

/* dens[0..n) = max(0, Re(ifft(fft(y) * Conj(fft(k))))/L) for real y (in re)
 * and k (in im) of length L = 2n; re and im are overwritten. */
static void convolve(double *re, double *im, int n, const fft_tables *t, double *dens)
{
    int L = 2 * n;
    /* Both forward transforms come from one complex FFT of y + i*k:
     * Y[j] = (Z[j] + conj(Z[L-j]))/2 and K[j] = (Z[j] - conj(Z[L-j]))/(2i). */
    fft(re, im, L, t);
    /* W[j] = Y[j] * conj(K[j]), in place: j and L-j are done together. */
    for (int j = 0; j <= L / 2; j++) {
        int m = (L - j) % L;
        double ar = re[j], ai = im[j], br = re[m], bi = im[m];
        double yr = (ar + br) / 2, yi = (ai - bi) / 2; /* Y[j] */
        double kr = (ai + bi) / 2, ki = (br - ar) / 2; /* K[j] */
        /* Y[L-j] = conj(Y[j]), K[L-j] = conj(K[j]) */
        double wr = yr * kr + yi * ki, wi = yi * kr - yr * ki;
        re[j] = wr;
        im[j] = wi;
        re[m] = wr;
        im[m] = -wi;
    }
    /* ifft(W) is real, so one inverse FFT of length n gives it: with
     * E[k] = W[k] + W[k+n] and O[k] = (W[k] - W[k+n]) exp(2 pi i k/L),
     * ifft_n(E + iO)[m] = ifft(W)[2m] + i ifft(W)[2m+1]. exp(-2 pi i k/L)
     * is the table's span-n twiddle. */
    for (int k = 0; k < n; k++) {
        double er = re[k] + re[k + n], ei = im[k] + im[k + n];
        double dr = re[k] - re[k + n], di = im[k] - im[k + n];
        double cr = t->re[n + k], ci = -t->im[n + k];
        double orr = dr * cr - di * ci, oi = dr * ci + di * cr;
        re[k] = er - oi;
        im[k] = ei + orr;
    }
    fft(im, re, n, t); /* inverse */
    for (int m = 0; m < n / 2; m++) {
        double even = re[m] / (double)L, odd = im[m] / (double)L;
        dens[2 * m] = even > 0 ? even : 0.0;
        dens[2 * m + 1] = odd > 0 ? odd : 0.0;
    }
}

/* ---- grid and interpolation -------------------------------------------------------- */

/* R's approx(xs, ys, v)$y on a uniform xs (seq(lo, up, length.out = n)):
 * the interval comes from the spacing (inv_step = 1 / spacing), then is
 * checked against xs itself so that the result is the one of R's
 * bisection. */
static double approx_uniform(const double *xs, const double *ys, int n, double inv_step, double v)
{
    if (v < xs[0] || v > xs[n - 1])
        return NAN;
    double guess = (v - xs[0]) * inv_step; /* NaN or inf on a degenerate grid */
    int i = guess > 0 ? (guess < n - 2 ? (int)guess : n - 2) : 0;
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
    return 0;
}

static int first_non_finite(const double *x, int nx)
{
    for (int i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            return i;
    return -1;
}

/* Min and max in four independent chains, for speed on large inputs (in
 * locals: arrays end up in memory, one store-to-load delay per element;
 * and written as x86's minsd/maxsd compute them). A NaN makes them NaN,
 * other non-finite values are caught later too, by the binning. */
static void min_max(const double *x, int nx, double *lo, double *hi)
{
    double mn0 = x[0], mn1 = x[0], mn2 = x[0], mn3 = x[0];
    double mx0 = x[0], mx1 = x[0], mx2 = x[0], mx3 = x[0];
    int i = 0;
    for (; i + 4 <= nx; i += 4) {
        mn0 = mn0 < x[i] ? mn0 : x[i];
        mn1 = mn1 < x[i + 1] ? mn1 : x[i + 1];
        mn2 = mn2 < x[i + 2] ? mn2 : x[i + 2];
        mn3 = mn3 < x[i + 3] ? mn3 : x[i + 3];
        mx0 = mx0 > x[i] ? mx0 : x[i];
        mx1 = mx1 > x[i + 1] ? mx1 : x[i + 1];
        mx2 = mx2 > x[i + 2] ? mx2 : x[i + 2];
        mx3 = mx3 > x[i + 3] ? mx3 : x[i + 3];
    }
    for (; i < nx; i++) {
        mn0 = mn0 < x[i] ? mn0 : x[i];
        mx0 = mx0 > x[i] ? mx0 : x[i];
    }
    mn0 = mn0 < mn1 ? mn0 : mn1;
    mn2 = mn2 < mn3 ? mn2 : mn3;
    mx0 = mx0 > mx1 ? mx0 : mx1;
    mx2 = mx2 > mx3 ? mx2 : mx3;
    *lo = mn0 < mn2 ? mn0 : mn2;
    *hi = mx0 > mx2 ? mx0 : mx2;
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

/* Fills y (2n entries) with R's binned weights of the points; w->cell,
 * count, sum and irregular as kde.h says. */
static int bin_all(const double *x, int nx, double lo, double up, int n, ari_kde_work *w,
                   double *y, ari_error *err)
{
    bin_part h[NPARTS];
    part_layout(w, n, h);
    w->count = w->mem + (size_t)NPARTS * (n + PAD);
    w->offset_sum = w->count + n;
    w->lo = lo;
    w->inv_delta = 1 / ((up - lo) / (n - 1));
    w->irregular = 0;
    if (bin_fast(x, nx, lo, w->inv_delta, n, h, w->cell) == 0) {
        bins_to_y(h, n, 1.0 / nx, w->inv_delta, w->count, w->offset_sum, y);
        return 0;
    }
    int bad = first_non_finite(x, nx);
    if (bad >= 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "kde: point %d is not finite", bad);
    bin_dist_r(x, nx, 1.0 / nx, lo, up, n, y);
    w->irregular = 1;
    return 0;
}

int ari_kde_density_work(const double *x, int nx, double bw, int npoints, double cut,
                         ari_kde_work *w, ari_kde *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (validate(x, nx, bw, npoints, cut, err) < 0)
        return -1;
    int n = working_size(npoints), L = 2 * n;
    const fft_tables *t = reserve(w, n, nx) == 0 ? tables_for(w, L) : NULL;
    if (!t)
        return ari_error_set(err, ARI_E_NOMEM, "kde: out of memory");
    w->n = n;
    double xmin, xmax;
    min_max(x, nx, &xmin, &xmax);
    double from = xmin - cut * bw, to = xmax + cut * bw;
    double lo = from - 4 * bw, up = to + 4 * bw;
    double *re = w->mem + (size_t)NPARTS * (n + PAD) + 2 * (size_t)n, *im = re + L;
    double *xords = im + L;
    double *dens = xords + n;
    if (bin_all(x, nx, lo, up, n, w, re, err) < 0)
        return -1;
    kernel_ordinates(up - lo, n, bw, im);
    convolve(re, im, n, t, dens);
    out->x = malloc((size_t)npoints * sizeof *out->x);
    out->y = malloc((size_t)npoints * sizeof *out->y);
    if (!out->x || !out->y) {
        ari_kde_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "kde: out of memory");
    }
    r_seq(lo, up, n, xords);
    r_seq(from, to, npoints, out->x);
    double inv_step = (n - 1) / (xords[n - 1] - xords[0]);
    for (int i = 0; i < npoints; i++)
        out->y[i] = approx_uniform(xords, dens, n, inv_step, out->x[i]);
    out->n = npoints;
    out->bw = bw;
    out->from = from;
    out->to = to;
    return 0;
}

int ari_kde_density(const double *x, int nx, double bw, int npoints, double cut, ari_kde *out,
                    ari_error *err)
{
    ari_kde_work w;
    ari_kde_work_init(&w);
    int rc = ari_kde_density_work(x, nx, bw, npoints, cut, &w, out, err);
    ari_kde_work_free(&w);
    return rc;
}

int ari_kde_bin(const ari_kde_work *w, double v)
{
    double pos = (v - w->lo) * w->inv_delta;
    if (pos >= 0 && pos < (double)w->n)
        return (int)pos;
    return pos < 0 ? -1 : w->n;
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
