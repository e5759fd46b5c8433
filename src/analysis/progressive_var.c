/* progressive_var.c: VAR(p) by OLS through standardised cross products,
 * AIC order selection, Granger F-tests, orthogonalised IR, FEVD, and the
 * adaptive-sample progressive step (see progressive_var.h). */
#include "analysis/progressive_var.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"
#include "util/dot.h"

/* ---- the sample: standardised columns ---------------------------------- */

/* z: d columns of T values each (column-major), (y - mean) / sd; zr: the
 * same row-major (T x d). */
typedef struct var_data {
    size_t T, d;
    double *z, *zr, *mean, *sd;
} var_data;

static void data_free(var_data *v)
{
    free(v->z);
    free(v->zr);
    free(v->mean);
    free(v->sd);
    memset(v, 0, sizeof *v);
}

/* Rows [r0, r0 + T) of Y (stride ld), columns cols[0..d) (NULL: 0..d-1).
 * -1 when a column is constant or not finite. */
static int data_load(var_data *v, const double *Y, size_t ld, size_t r0, size_t T, const int *cols, size_t d,
                     ari_error *err)
{
    memset(v, 0, sizeof *v);
    v->T = T;
    v->d = d;
    v->z = malloc(T * d * sizeof *v->z);
    v->zr = malloc(T * d * sizeof *v->zr);
    v->mean = malloc(d * sizeof *v->mean);
    v->sd = malloc(d * sizeof *v->sd);
    if (!v->z || !v->zr || !v->mean || !v->sd) {
        data_free(v);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t c = 0; c < d; c++) {
        size_t col = cols ? (size_t)cols[c] : c;
        double *z = v->z + c * T, m = 0, ss = 0;
        for (size_t t = 0; t < T; t++) {
            z[t] = Y[(r0 + t) * ld + col];
            m += z[t];
        }
        m /= (double)T;
        for (size_t t = 0; t < T; t++)
            ss += (z[t] - m) * (z[t] - m);
        double sd = sqrt(ss / (double)T);
        if (!isfinite(sd) || !(sd > 1e-12 * (fabs(m) + 1e-300))) {
            data_free(v);
            return ari_error_set(err, ARI_E_INVALID_INPUT, "column %zu is constant or not finite", col);
        }
        for (size_t t = 0; t < T; t++) {
            z[t] = (z[t] - m) / sd;
            v->zr[t * d + c] = z[t];
        }
        v->mean[c] = m;
        v->sd[c] = sd;
    }
    return 0;
}

static double sum(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* y[0..m) -= a x[0..m) */
static void axpy_neg(double *y, double a, const double *restrict x, size_t m)
{
    for (size_t e = 0; e < m; e++)
        y[e] -= a * x[e];
}

/* y[0..m) -= a0 x0 + a1 x1 + a2 x2 + a3 x3 (four rows at once: a quarter of the y traffic) */
static void axpy4_neg(double *restrict y, const double *a, const double *restrict x0,
                      const double *restrict x1, const double *restrict x2, const double *restrict x3,
                      size_t m)
{
    double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    for (size_t e = 0; e < m; e++)
        y[e] -= a0 * x0[e] + a1 * x1[e] + a2 * x2[e] + a3 * x3[e];
}

/* ---- cross products of the lagged design -------------------------------- */

/* C (d x d) = sum_{t=start}^{T-1} z_t z_{t-j}', C[a][b] = sum_t z_a[t] z_b[t-j],
 * in tiles of C that stay in cache (row-major zr); j = 0: the upper triangle,
 * mirrored. The negated sum is accumulated, then negated back. */
static void lagged_gram(const var_data *v, size_t start, size_t j, double *C)
{
    enum { TA = 32, TB = 256 };
    size_t d = v->d, T = v->T;
    memset(C, 0, d * d * sizeof *C);
    for (size_t a0 = 0; a0 < d; a0 += TA)
        for (size_t b0 = 0; b0 < d; b0 += TB) {
            size_t a1 = a0 + TA < d ? a0 + TA : d, b1 = b0 + TB < d ? b0 + TB : d;
            if (j == 0 && b1 <= a0)
                continue;
            size_t t = start;
            for (; t + 4 <= T; t += 4) {
                const double *zb = v->zr + (t - j) * d + b0;
                for (size_t a = a0; a < a1; a++) {
                    double za[4] = {v->zr[t * d + a], v->zr[(t + 1) * d + a], v->zr[(t + 2) * d + a],
                                    v->zr[(t + 3) * d + a]};
                    axpy4_neg(C + a * d + b0, za, zb, zb + d, zb + 2 * d, zb + 3 * d, b1 - b0);
                }
            }
            for (; t < T; t++) {
                const double *za = v->zr + t * d, *zb = v->zr + (t - j) * d + b0;
                for (size_t a = a0; a < a1; a++)
                    axpy_neg(C + a * d + b0, za[a], zb, b1 - b0);
            }
        }
    for (size_t i = 0; i < d * d; i++)
        C[i] = -C[i];
    if (j == 0)
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < a; b++)
                C[a * d + b] = C[b * d + a];
}

/* Rows t = start .. T-1, regressors x_t = [1, z_{t-1}, .., z_{t-p}] (k = 1 + d p)
 * and responses z_t. With lag 0 = the response, C(i, j)[a][b] = sum_t
 * z_a[t-i] z_b[t-j]; only the blocks C(0, j) need full dot products, since
 * C(i+1, j+1) = C(i, j) + z_a[start-1-i] z_b[start-1-j] - z_a[T-1-i] z_b[T-1-j].
 * blocks: (p+1) x (p+1) blocks of d x d, blocks[((i * (p+1) + j) * d + a) * d + b]. */
static void lag_blocks(const var_data *v, int p, size_t start, double *blocks)
{
    size_t d = v->d, T = v->T, P = (size_t)p + 1;
    for (size_t j = 0; j < P; j++)
        lagged_gram(v, start, j, blocks + j * d * d);
    for (size_t i = 1; i < P; i++)
        for (size_t j = i; j < P; j++)
            for (size_t a = 0; a < d; a++)
                for (size_t b = 0; b < d; b++) {
                    const double *za = v->z + a * T, *zb = v->z + b * T;
                    blocks[((i * P + j) * d + a) * d + b] = blocks[(((i - 1) * P + j - 1) * d + a) * d + b] +
                                                            za[start - i] * zb[start - j] -
                                                            za[T - i] * zb[T - j];
                }
}

/* G (k x k) = X'X, H (k x d) = X'Z, YY (d x d) from the lag blocks. */
static void cross_products(const var_data *v, int p, size_t start, const double *blocks, double *G, double *H,
                           double *YY)
{
    size_t d = v->d, T = v->T, n = T - start, P = (size_t)p + 1, k = 1 + d * (size_t)p;
    G[0] = (double)n;
    for (size_t i = 1; i < P; i++)
        for (size_t a = 0; a < d; a++) {
            double s = sum(v->z + a * T + start - i, n);
            size_t c = 1 + (i - 1) * d + a;
            G[c] = s;
            G[c * k] = s;
        }
    for (size_t i = 1; i < P; i++)
        for (size_t j = 1; j < P; j++)
            for (size_t a = 0; a < d; a++)
                for (size_t b = 0; b < d; b++) {
                    double val = i <= j ? blocks[((i * P + j) * d + a) * d + b]
                                        : blocks[((j * P + i) * d + b) * d + a];
                    G[(1 + (i - 1) * d + a) * k + 1 + (j - 1) * d + b] = val;
                }
    for (size_t e = 0; e < d; e++)
        H[e] = sum(v->z + e * T + start, n);
    for (size_t i = 1; i < P; i++)
        for (size_t a = 0; a < d; a++)
            for (size_t e = 0; e < d; e++)
                H[(1 + (i - 1) * d + a) * d + e] = blocks[((0 * P + i) * d + e) * d + a];
    for (size_t a = 0; a < d; a++)
        for (size_t b = 0; b < d; b++)
            YY[a * d + b] = blocks[(a)*d + b];
}

/* ---- dense helpers ------------------------------------------------------ */

/* In-place lower Cholesky of the k x k row-major A (lower triangle); stops at
 * the first pivot not above tol * its diagonal; returns how many pivots
 * succeeded (k = positive definite). */
static size_t cholesky(double *A, size_t k, double tol)
{
    for (size_t j = 0; j < k; j++) {
        double *rj = A + j * k;
        double djj = rj[j] - ari_dot(rj, rj, j);
        if (!(djj > tol * fabs(rj[j])) || !(djj > 0))
            return j;
        double l = sqrt(djj);
        rj[j] = l;
        for (size_t i = j + 1; i < k; i++) {
            double *ri = A + i * k;
            ri[j] = (ri[j] - ari_dot(ri, rj, j)) / l;
        }
    }
    return k;
}

/* W (rows x m) = L^-1 H for the first `rows` rows (forward substitution). */
static void forward(const double *L, size_t k, size_t rows, const double *H, size_t m, double *W)
{
    for (size_t r = 0; r < rows; r++) {
        const double *lr = L + r * k;
        double *wr = W + r * m;
        memcpy(wr, H + r * m, m * sizeof *wr);
        size_t c = 0;
        for (; c + 4 <= r; c += 4)
            axpy4_neg(wr, lr + c, W + c * m, W + (c + 1) * m, W + (c + 2) * m, W + (c + 3) * m, m);
        for (; c < r; c++)
            axpy_neg(wr, lr[c], W + c * m, m);
        for (size_t e = 0; e < m; e++)
            wr[e] /= lr[r];
    }
}

/* B (k x m) = L^-T W (backward substitution). */
static void backward(const double *L, size_t k, const double *W, size_t m, double *B)
{
    for (size_t r = k; r-- > 0;) {
        double *br = B + r * m;
        memcpy(br, W + r * m, m * sizeof *br);
        size_t c = r + 1;
        for (; c + 4 <= k; c += 4) {
            double a[4] = {L[c * k + r], L[(c + 1) * k + r], L[(c + 2) * k + r], L[(c + 3) * k + r]};
            axpy4_neg(br, a, B + c * m, B + (c + 1) * m, B + (c + 2) * m, B + (c + 3) * m, m);
        }
        for (; c < k; c++)
            axpy_neg(br, L[c * k + r], B + c * m, m);
        for (size_t e = 0; e < m; e++)
            br[e] /= L[r * k + r];
    }
}

/* S (d x d) -= W[r0..r1)' W[r0..r1), W rows of d. */
static void subtract_gram(double *S, size_t d, const double *W, size_t r0, size_t r1)
{
    size_t r = r0;
    for (; r + 4 <= r1; r += 4) {
        const double *w = W + r * d;
        for (size_t a = 0; a < d; a++) {
            double c[4] = {w[a], w[d + a], w[2 * d + a], w[3 * d + a]};
            axpy4_neg(S + a * d, c, w, w + d, w + 2 * d, w + 3 * d, d);
        }
    }
    for (; r < r1; r++) {
        const double *w = W + r * d;
        for (size_t a = 0; a < d; a++)
            axpy_neg(S + a * d, w[a], w, d);
    }
}

/* ln det of the d x d S / scale (positive definite), or NaN. work: d x d. */
static double logdet(const double *S, size_t d, double scale, double *work)
{
    for (size_t i = 0; i < d * d; i++)
        work[i] = S[i] / scale;
    if (cholesky(work, d, 1e-14) < d)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < d; i++)
        s += 2 * log(work[i * d + i]);
    return s;
}

/* ---- fitting ------------------------------------------------------------ */

/* A fitted VAR on standardised data (start = p). */
typedef struct var_fit {
    int p;
    size_t d, k, T_eff;
    double *L; /* k x k Cholesky of X'X */
    double *B; /* k x d standardised coefficients */
    double *S; /* d x d residual cross products U'U (standardised) */
} var_fit;

static void fit_free(var_fit *f)
{
    free(f->L);
    free(f->B);
    free(f->S);
    memset(f, 0, sizeof *f);
}

/* The smallest T (rows of the sample) for a VAR(p) of d series. */
static size_t min_rows(size_t d, int p)
{
    return (size_t)p + 1 + d * (size_t)p + d + 1;
}

/* Builds the blocks, G, H, YY for (p, start). */
static int prepare(const var_data *v, int p, size_t start, double **G, double **H, double **YY,
                   ari_error *err)
{
    size_t d = v->d, k = 1 + d * (size_t)p, P = (size_t)p + 1;
    double *blocks = malloc(P * P * d * d * sizeof *blocks);
    *G = calloc(k * k, sizeof **G);
    *H = malloc(k * d * sizeof **H);
    *YY = malloc(d * d * sizeof **YY);
    if (!blocks || !*G || !*H || !*YY) {
        free(blocks);
        free(*G), free(*H), free(*YY);
        *G = *H = *YY = NULL;
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    lag_blocks(v, p, start, blocks);
    cross_products(v, p, start, blocks, *G, *H, *YY);
    free(blocks);
    return 0;
}

static int fit_standardised(const var_data *v, int p, var_fit *f, ari_error *err)
{
    memset(f, 0, sizeof *f);
    size_t d = v->d, k = 1 + d * (size_t)p;
    if (p < 1 || k > ARI_VAR_MAX_COEF)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "VAR(%d) of %zu series: order outside 1.. or more than %d "
                             "regressors",
                             p, d, ARI_VAR_MAX_COEF);
    if (v->T < min_rows(d, p))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "VAR(%d) of %zu series needs %zu time points, have %zu", p, d, min_rows(d, p),
                             v->T);
    double *G, *H, *YY;
    if (prepare(v, p, (size_t)p, &G, &H, &YY, err) < 0)
        return -1;
    double *W = malloc(k * d * sizeof *W);
    f->B = malloc(k * d * sizeof *f->B);
    if (!W || !f->B) {
        free(G), free(H), free(YY), free(W);
        fit_free(f);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    if (cholesky(G, k, 1e-10) < k) {
        free(G), free(H), free(YY), free(W);
        fit_free(f);
        return ari_error_set(err, ARI_E_INVALID_INPUT, "VAR(%d): singular design (collinear series)", p);
    }
    forward(G, k, k, H, d, W);
    backward(G, k, W, d, f->B);
    subtract_gram(YY, d, W, 0, k);
    free(H), free(W);
    f->L = G;
    f->S = YY;
    f->p = p;
    f->d = d;
    f->k = k;
    f->T_eff = v->T - (size_t)p;
    return 0;
}

/* Coefficients and Sigma_u (U'U / (T_eff - k)) in the original units. */
static void unstandardise(const var_data *v, const var_fit *f, double *coef, double *sigma_u)
{
    size_t d = f->d, p = (size_t)f->p;
    for (size_t r = 0; r < d; r++) {
        double c = v->mean[r] + v->sd[r] * f->B[r];
        for (size_t i = 0; i < p; i++)
            for (size_t col = 0; col < d; col++) {
                size_t row = 1 + i * d + col;
                double a = v->sd[r] * f->B[row * d + r] / v->sd[col];
                if (coef)
                    coef[row * d + r] = a;
                c -= a * v->mean[col];
            }
        if (coef)
            coef[r] = c;
    }
    if (sigma_u) {
        double df = (double)(f->T_eff - f->k);
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                sigma_u[a * d + b] = v->sd[a] * v->sd[b] * f->S[a * d + b] / df;
    }
}

int ari_var_fit(const double *Y, size_t t, size_t d, int p, double *coef, double *sigma_u, double *aic,
                ari_error *err)
{
    if (!Y || d == 0 || !coef)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "ari_var_fit: no data");
    var_data v;
    if (data_load(&v, Y, d, 0, t, NULL, d, err) < 0)
        return -1;
    var_fit f;
    if (fit_standardised(&v, p, &f, err) < 0) {
        data_free(&v);
        return -1;
    }
    unstandardise(&v, &f, coef, sigma_u);
    int rc = 0;
    if (aic) {
        double *work = malloc(d * d * sizeof *work);
        if (!work) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        } else {
            double ld = logdet(f.S, d, (double)f.T_eff, work);
            for (size_t c = 0; c < d; c++)
                ld += 2 * log(v.sd[c]);
            *aic = ld + 2.0 * p * (double)(d * d) / (double)f.T_eff;
            free(work);
        }
    }
    fit_free(&f);
    data_free(&v);
    return rc;
}

/* The largest order (<= max_p) the sample and the regressor cap allow, with
 * every order fitted on the rows t = max_p .. T-1; 0 if none. */
static int feasible_max_p(size_t T, size_t d, int max_p)
{
    int best = 0;
    for (int p = 1; p <= max_p; p++)
        if (T >= min_rows(d, p) && 1 + d * (size_t)p <= ARI_VAR_MAX_COEF)
            best = p;
    return best;
}

/* AIC order selection on standardised data; -1 with err when no order fits. */
static int select_order(const var_data *v, int max_p, int *p_out, ari_error *err)
{
    size_t d = v->d;
    int pm = feasible_max_p(v->T, d, max_p);
    if (pm < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "too few time points (%zu) for a VAR of %zu series", v->T, d);
    if (pm == 1) { /* the only candidate */
        *p_out = 1;
        return 0;
    }
    size_t k = 1 + d * (size_t)pm, start = (size_t)pm, n = v->T - start;
    double *G, *H, *YY;
    if (prepare(v, pm, start, &G, &H, &YY, err) < 0)
        return -1;
    double *W = malloc(k * d * sizeof *W), *work = malloc(d * d * sizeof *work);
    if (!W || !work) {
        free(G), free(H), free(YY), free(W), free(work);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    size_t rank = cholesky(G, k, 1e-10);
    forward(G, k, rank, H, d, W);
    int best = 0;
    double best_aic = INFINITY;
    size_t done = 1; /* rows of W folded into YY: the constant first */
    for (int p = 0; p <= pm; p++) {
        size_t kp = 1 + d * (size_t)p;
        if (kp > rank)
            break;
        subtract_gram(YY, d, W, done - 1, kp); /* fold rows done-1 .. kp-1 */
        done = kp + 1;
        if (p == 0)
            continue;
        double aic = logdet(YY, d, (double)n, work) + 2.0 * p * (double)(d * d) / (double)n;
        if (isfinite(aic) && aic < best_aic) {
            best_aic = aic;
            best = p;
        }
    }
    free(G), free(H), free(YY), free(W), free(work);
    if (best < 1)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "order selection: no order could be fitted");
    *p_out = best;
    return 0;
}

int ari_var_select_order(const double *Y, size_t t, size_t d, int max_p, int *p, ari_error *err)
{
    if (!Y || d == 0 || !p || max_p < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "ari_var_select_order: bad arguments");
    var_data v;
    if (data_load(&v, Y, d, 0, t, NULL, d, err) < 0)
        return -1;
    int rc = select_order(&v, max_p, p, err);
    data_free(&v);
    return rc;
}

/* ---- Granger, IR, FEVD -------------------------------------------------- */

/* Linv^T (k x k, row r = column r of L^-1): the rows of L^-1 columns, for
 * blocks of (X'X)^-1 = L^-T L^-1. */
static double *linv_columns(const var_fit *f)
{
    size_t k = f->k;
    double *C = calloc(k * k, sizeof *C);
    if (!C)
        return NULL;
    for (size_t j = 0; j < k; j++) { /* solve L x = e_j: x[r] = 0 for r < j */
        double *x = C + j * k;
        for (size_t r = j; r < k; r++) {
            const double *lr = f->L + r * k;
            double s = r == j ? 1.0 : 0.0;
            for (size_t c = j; c < r; c++)
                s -= lr[c] * x[c];
            x[r] = s / lr[r];
        }
    }
    return C;
}

/* F statistic of cause -> effect; NaN if degenerate. linvc from linv_columns. */
static double granger_f(const var_fit *f, const double *linvc, size_t cause, size_t effect)
{
    size_t d = f->d, k = f->k, p = (size_t)f->p;
    double V[ARI_VAR_MAX_P * ARI_VAR_MAX_P], b[ARI_VAR_MAX_P];
    size_t idx[ARI_VAR_MAX_P];
    for (size_t h = 0; h < p; h++) {
        idx[h] = 1 + h * d + cause;
        b[h] = f->B[idx[h] * d + effect];
    }
    for (size_t a = 0; a < p; a++)
        for (size_t c = 0; c < p; c++) {
            size_t lo = idx[a] > idx[c] ? idx[a] : idx[c];
            const double *xa = linvc + idx[a] * k, *xc = linvc + idx[c] * k;
            V[a * p + c] = ari_dot(xa + lo, xc + lo, k - lo);
        }
    if (cholesky(V, p, 1e-14) < p)
        return NAN;
    double w[ARI_VAR_MAX_P], q = 0; /* q = b' V^-1 b = |L^-1 b|^2 */
    for (size_t r = 0; r < p; r++) {
        double s = b[r];
        for (size_t c = 0; c < r; c++)
            s -= V[r * p + c] * w[c];
        w[r] = s / V[r * p + r];
        q += w[r] * w[r];
    }
    double s2 = f->S[effect * d + effect] / (double)(f->T_eff - k);
    return s2 > 0 ? q / ((double)p * s2) : NAN;
}

static double granger_pvalue(const var_fit *f, double F)
{
    double df1 = f->p, df2 = (double)f->d * (double)(f->T_eff - f->k);
    return isfinite(F) ? gsl_cdf_fdist_Q(F, df1, df2) : NAN;
}

double ari_var_granger_p(const double *Y, size_t t, size_t d, int p, int cause, int effect, double *F)
{
    if (F)
        *F = NAN;
    if (!Y || cause < 0 || effect < 0 || (size_t)cause >= d || (size_t)effect >= d || p > ARI_VAR_MAX_P)
        return NAN;
    var_data v;
    if (data_load(&v, Y, d, 0, t, NULL, d, NULL) < 0)
        return NAN;
    var_fit f;
    double pv = NAN;
    if (fit_standardised(&v, p, &f, NULL) == 0) {
        double *lc = linv_columns(&f);
        if (lc) {
            double stat = granger_f(&f, lc, (size_t)cause, (size_t)effect);
            pv = granger_pvalue(&f, stat);
            if (F)
                *F = stat;
            free(lc);
        }
        fit_free(&f);
    }
    data_free(&v);
    return pv;
}

int ari_var_irf(const double *coef, const double *sigma_u, size_t d, int p, int horizon, double *theta)
{
    if (!coef || !sigma_u || !theta || d == 0 || p < 1 || horizon < 0)
        return -1;
    size_t H = (size_t)horizon + 1, dd = d * d;
    double *P = malloc(dd * sizeof *P), *phi = calloc(H * dd, sizeof *phi), *Ai = malloc(dd * sizeof *Ai);
    if (!P || !phi || !Ai) {
        free(P), free(phi), free(Ai);
        return -1;
    }
    memcpy(P, sigma_u, dd * sizeof *P);
    if (cholesky(P, d, 1e-14) < d) {
        free(P), free(phi), free(Ai);
        return -1;
    }
    for (size_t r = 0; r < d; r++)
        for (size_t c = r + 1; c < d; c++)
            P[r * d + c] = 0;
    for (size_t r = 0; r < d; r++)
        phi[r * d + r] = 1;
    for (size_t h = 1; h < H; h++) /* Phi_h = sum_i Phi_{h-i} A_i, A_i[m][c] row-major in Ai */
        for (size_t i = 1; i <= h && i <= (size_t)p; i++) {
            for (size_t m = 0; m < d; m++)
                for (size_t c = 0; c < d; c++)
                    Ai[m * d + c] = coef[(1 + (i - 1) * d + c) * d + m];
            const double *prev = phi + (h - i) * dd;
            for (size_t r = 0; r < d; r++)
                for (size_t m = 0; m < d; m++)
                    if (prev[r * d + m] != 0)
                        axpy_neg(phi + h * dd + r * d, -prev[r * d + m], Ai + m * d, d);
        }
    memset(theta, 0, H * dd * sizeof *theta);
    for (size_t h = 0; h < H; h++) /* Theta_h = Phi_h P, P lower */
        for (size_t r = 0; r < d; r++)
            for (size_t m = 0; m < d; m++)
                if (phi[h * dd + r * d + m] != 0)
                    axpy_neg(theta + h * dd + r * d, -phi[h * dd + r * d + m], P + m * d, m + 1);
    free(Ai);
    free(P), free(phi);
    return 0;
}

int ari_var_fevd(const double *theta, size_t d, int h, double *omega)
{
    if (!theta || !omega || d == 0 || h < 1)
        return -1;
    size_t dd = d * d;
    for (size_t j = 0; j < d; j++) {
        double total = 0;
        for (size_t k = 0; k < d; k++) {
            double s = 0;
            for (int i = 0; i < h; i++)
                s += theta[(size_t)i * dd + j * d + k] * theta[(size_t)i * dd + j * d + k];
            omega[j * d + k] = s;
            total += s;
        }
        for (size_t k = 0; k < d; k++)
            omega[j * d + k] = total > 0 ? omega[j * d + k] / total : NAN;
    }
    return 0;
}

/* ---- the progressive step ----------------------------------------------- */

struct ari_pvar {
    ari_pvar_params prm;
    size_t s; /* sample size carried between time points (0: not yet) */
};

void ari_pvar_defaults(ari_pvar_params *p)
{
    p->max_p = ARI_VAR_MAX_P;
    p->s0 = 10;
    p->budget_ms = 100;
    p->alpha = 0.05;
    p->direction = 0;
    p->seed = 1;
}

static void clamp_params(ari_pvar_params *p)
{
    if (p->max_p < 1 || p->max_p > ARI_VAR_MAX_P)
        p->max_p = ARI_VAR_MAX_P;
    if (p->s0 < 2)
        p->s0 = 10;
    if (!(p->alpha > 0 && p->alpha < 1))
        p->alpha = 0.05;
    p->direction = p->direction ? 1 : 0;
}

ari_pvar *ari_pvar_new(const ari_pvar_params *p)
{
    ari_pvar *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (p)
        s->prm = *p;
    else
        ari_pvar_defaults(&s->prm);
    clamp_params(&s->prm);
    return s;
}

void ari_pvar_set_params(ari_pvar *s, const ari_pvar_params *p)
{
    s->prm = *p;
    clamp_params(&s->prm);
}

size_t ari_pvar_sample_size(const ari_pvar *s)
{
    return s->s;
}

void ari_pvar_result_free(ari_pvar_result *r)
{
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}

void ari_pvar_free(ari_pvar *s)
{
    free(s);
}

/* Columns usable in rows [r0, t): finite, below 1e150 in magnitude, not constant. */
static size_t usable_columns(const double *Y, size_t t, size_t d, size_t r0, int *cols)
{
    size_t m = 0;
    for (size_t c = 0; c < d; c++) {
        double lo = INFINITY, hi = -INFINITY;
        int finite = 1;
        for (size_t r = r0; r < t && finite; r++) {
            double x = Y[r * d + c];
            finite = isfinite(x);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        int tame = fabs(hi) < 1e150 && fabs(lo) < 1e150; /* squares and sums stay finite */
        if (finite && tame && hi - lo > 1e-12 * (fabs(hi) + fabs(lo)) && hi > lo)
            cols[m++] = (int)c;
    }
    return m;
}

/* Keeps the target and every column that is not a linear combination of the
 * columns kept before it (target first, then in order): a pivot of the
 * sample's Gram matrix below 1e-9 of its diagonal drops the column. cols, m
 * and tk (the target's position) are updated. Returns the number dropped,
 * or -1 when out of memory. */
static int drop_collinear(const var_data *v, int *cols, size_t *m, int *tk)
{
    size_t d = v->d, q = 0;
    double *C = malloc(d * d * sizeof *C), *L = malloc(d * d * sizeof *L), *y = malloc(d * sizeof *y);
    size_t *order = malloc(d * sizeof *order), *kept = malloc(d * sizeof *kept);
    if (!C || !L || !y || !order || !kept) {
        free(C), free(L), free(y), free(order), free(kept);
        return -1;
    }
    lagged_gram(v, 0, 0, C);
    order[0] = (size_t)*tk;
    for (size_t c = 0, i = 1; c < d; c++)
        if (c != (size_t)*tk)
            order[i++] = c;
    for (size_t i = 0; i < d; i++) {
        size_t c = order[i];
        double piv = C[c * d + c];
        for (size_t r = 0; r < q; r++) { /* y = L^-1 C[kept, c] */
            double sum_r = C[kept[r] * d + c];
            for (size_t u = 0; u < r; u++)
                sum_r -= L[r * d + u] * y[u];
            y[r] = sum_r / L[r * d + r];
            piv -= y[r] * y[r];
        }
        if (i > 0 && !(piv > 1e-9 * C[c * d + c]))
            continue;
        for (size_t r = 0; r < q; r++)
            L[q * d + r] = y[r];
        L[q * d + q] = sqrt(piv > 0 ? piv : 1e-300);
        kept[q++] = c;
    }
    /* the kept columns back in ascending order */
    int *keep = calloc(d, sizeof *keep);
    if (!keep) {
        free(C), free(L), free(y), free(order), free(kept);
        return -1;
    }
    for (size_t r = 0; r < q; r++)
        keep[kept[r]] = 1;
    size_t nm = 0;
    int target = cols[*tk];
    for (size_t c = 0; c < d; c++)
        if (keep[c]) {
            if (cols[c] == target)
                *tk = (int)nm;
            cols[nm++] = cols[c];
        }
    *m = nm;
    free(C), free(L), free(y), free(order), free(kept), free(keep);
    return (int)(d - nm);
}

/* One fit on the last s rows: fills rows (metrics in original indices). */
static int fit_sample(const ari_pvar *st, const double *Y, size_t t, size_t d, int target, size_t s,
                      ari_pvar_result *out, int *cols, ari_error *err)
{
    size_t r0 = t - s, m = usable_columns(Y, t, d, r0, cols);
    int tk = -1;
    for (size_t i = 0; i < m; i++)
        if (cols[i] == target)
            tk = (int)i;
    out->dropped_constant = (int)(d - m);
    for (size_t i = 0; i < out->nrows; i++) {
        ari_pvar_row *row = &out->rows[i];
        row->p_value = row->f = row->ir1 = row->vd = NAN;
        row->significant = 0;
    }
    out->p = 0;
    out->order_fallback = 0;
    out->t_used = s;
    if (tk < 0) {
        snprintf(out->note, sizeof out->note, "the target is constant in the last %zu points", s);
        return 0;
    }
    if (m < 2) {
        snprintf(out->note, sizeof out->note, "no other non-constant metric in the last %zu points", s);
        return 0;
    }
    var_data v;
    var_fit f;
    int p = 0, collinear = 0;
    for (int attempt = 0;; attempt++) {
        ari_error e2;
        if (data_load(&v, Y, d, r0, s, cols, m, &e2) <
            0) { /* e.g. values so large that the variance overflows */
            if (strcmp(e2.code, ARI_E_NOMEM) == 0)
                return ari_error_set(err, ARI_E_NOMEM, "out of memory");
            snprintf(out->note, sizeof out->note, "%.150s", e2.message);
            return 0;
        }
        out->order_fallback = 0;
        if (select_order(&v, st->prm.max_p, &p, &e2) < 0) {
            p = 1;
            out->order_fallback = 1;
        }
        if (fit_standardised(&v, p, &f, &e2) == 0)
            break;
        int nd =
            attempt == 0 && strcmp(e2.code, ARI_E_INVALID_INPUT) == 0 ? drop_collinear(&v, cols, &m, &tk) : 0;
        data_free(&v);
        if (nd < 0 || strcmp(e2.code, ARI_E_NOMEM) == 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (nd == 0 || m < 2) {
            snprintf(out->note, sizeof out->note, "%.150s", e2.message);
            return 0;
        }
        collinear = nd;
        out->dropped_constant += nd;
    }
    size_t k = f.k, H = 2;
    double *coef = malloc(k * m * sizeof *coef), *sig = malloc(m * m * sizeof *sig);
    double *theta = malloc(H * m * m * sizeof *theta), *omega = malloc(m * m * sizeof *omega);
    double *lc = linv_columns(&f);
    int rc = 0;
    if (!coef || !sig || !theta || !omega || !lc) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    unstandardise(&v, &f, coef, sig);
    int have_ir = ari_var_irf(coef, sig, m, p, 1, theta) == 0 && ari_var_fevd(theta, m, 2, omega) == 0;
    size_t T = (size_t)tk;
    for (size_t j = 0; j < m; j++) {
        if (j == T)
            continue;
        size_t ri = (size_t)cols[j] < (size_t)target ? (size_t)cols[j] : (size_t)cols[j] - 1;
        ari_pvar_row *row = &out->rows[ri];
        size_t cause = st->prm.direction ? T : j, effect = st->prm.direction ? j : T;
        row->f = granger_f(&f, lc, cause, effect);
        row->p_value = granger_pvalue(&f, row->f);
        row->significant = row->p_value < st->prm.alpha;
        if (have_ir) {
            row->ir1 = st->prm.direction ? theta[m * m + j * m + T] : theta[m * m + T * m + j];
            row->vd = st->prm.direction ? omega[j * m + T] : omega[T * m + j];
        }
    }
    out->p = p;
    out->note[0] = 0;
    if (collinear)
        snprintf(out->note, sizeof out->note, "%d collinear metric(s) dropped", collinear);
    if (out->order_fallback)
        snprintf(out->note, sizeof out->note, "order selection failed: fixed p = 1");
    if (!have_ir)
        snprintf(out->note, sizeof out->note, "residual covariance not positive definite: no IR/FEVD");
done:
    free(coef), free(sig), free(theta), free(omega), free(lc);
    fit_free(&f);
    data_free(&v);
    return rc;
}

static int result_init(ari_pvar_result *out, size_t d, int target, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->target = target;
    out->nrows = d - 1;
    out->rows = calloc(d > 1 ? d - 1 : 1, sizeof *out->rows);
    if (!out->rows)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t j = 0, i = 0; j < d; j++)
        if ((int)j != target) {
            out->rows[i].metric = (int)j;
            out->rows[i].p_value = out->rows[i].f = out->rows[i].ir1 = out->rows[i].vd = NAN;
            i++;
        }
    return 0;
}

int ari_pvar_step(ari_pvar *st, const double *Y, size_t t, size_t d, int target, ari_pvar_result *out,
                  ari_error *err)
{
    double t0 = ari_now();
    if (!st || !out || (!Y && t > 0) || d == 0 || target < 0 || (size_t)target >= d)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "ari_pvar_step: bad arguments");
    if (result_init(out, d, target, err) < 0)
        return -1;
    int *cols = malloc(d * sizeof *cols);
    if (!cols) {
        ari_pvar_result_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    double budget = st->prm.budget_ms;
    size_t need = min_rows(usable_columns(Y, t, d, 0, cols), 1), s;
    if (need < 5)
        need = 5;
    if (budget <= 0)
        s = t;
    else
        s = st->s ? st->s : (size_t)st->prm.s0;
    if (s < need)
        s = need;
    if (s > t)
        s = t;
    double last_tc = 0;
    int rc = 0;
    if (t < need) {
        snprintf(out->note, sizeof out->note,
                 "need %zu time points for a VAR of the non-constant metrics, have %zu", need, t);
        out->t_used = 0;
        goto done;
    }
    for (;;) {
        double tf = ari_now();
        if (fit_sample(st, Y, t, d, target, s, out, cols, err) < 0) {
            rc = -1;
            break;
        }
        out->fits++;
        last_tc = (ari_now() - tf) * 1e3;
        double elapsed = (ari_now() - t0) * 1e3, remaining = budget - elapsed;
        if (budget <= 0 || s >= t || remaining <= 0)
            break;
        double grow = (double)s * sqrt(remaining / (last_tc > 1e-6 ? last_tc : 1e-6));
        size_t next = grow >= (double)t ? t : (size_t)grow;
        if (next <= s)
            break;
        s = next;
    }
    if (budget > 0 && last_tc > budget)
        s = (size_t)((double)s * sqrt(budget / last_tc));
    st->s = s > need ? s : need;
done:
    free(cols);
    out->latency_ms = (ari_now() - t0) * 1e3;
    if (rc < 0)
        ari_pvar_result_free(out);
    return rc;
}
