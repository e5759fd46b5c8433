/* scaling_model.c: Extra-P-style single-parameter scaling models
 * (scaling_model.h): the hypothesis search, leave-one-out SMAPE, ranking. */
#include "analysis/scaling_model.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int a_frac[][2] = {{0, 1}, {1, 4}, {1, 3}, {1, 2}, {2, 3},  {3, 4}, {4, 5},
                                {1, 1}, {5, 4}, {4, 3}, {3, 2}, {5, 3},  {7, 4}, {2, 1},
                                {9, 4}, {7, 3}, {5, 2}, {8, 3}, {11, 4}, {3, 1}};
#define NA ((int)(sizeof a_frac / sizeof a_frac[0]))
#define NB 3

int ari_scaling_hypotheses(void)
{
    return NA * NB - 1;
}

typedef struct pt {
    double p, y;
} pt;

static int cmp_pt(const void *x, const void *y)
{
    double a = ((const pt *)x)->p, b = ((const pt *)y)->p;
    return a < b ? -1 : a > b;
}

/* The finite points sorted by p with repeats averaged into pts; returns
 * their number. */
static int distinct_points(const double *p, const double *y, int n, pt *pts)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(p[i]) && isfinite(y[i]))
            pts[m++] = (pt){p[i], y[i]};
    qsort(pts, (size_t)m, sizeof *pts, cmp_pt);
    int d = 0;
    for (int i = 0; i < m;) {
        int j = i;
        double sum = 0;
        for (; j < m && pts[j].p == pts[i].p; j++)
            sum += pts[j].y;
        pts[d++] = (pt){pts[i].p, sum / (double)(j - i)};
        i = j;
    }
    return d;
}

static double term(double p, double a, int b)
{
    double t = a == 0 ? 1.0 : pow(p, a);
    for (int k = 0; k < b; k++)
        t *= log2(p);
    return t;
}

/* x[i] = the term at every point; 0 when it is not finite everywhere or
 * takes a single value. */
static int basis(const pt *pts, int n, double a, int b, double *x)
{
    int varies = 0;
    for (int i = 0; i < n; i++) {
        if ((b > 0 && pts[i].p < 1) || (a > 0 && pts[i].p < 0))
            return 0;
        x[i] = term(pts[i].p, a, b);
        if (!isfinite(x[i]))
            return 0;
        varies |= x[i] != x[0];
    }
    return varies;
}

static double smape_term(double y, double f)
{
    double den = (fabs(y) + fabs(f)) / 2;
    return den == 0 ? 0 : 100 * fabs(f - y) / den;
}

/* Least squares of y on x over the points but `skip` (-1: none), into
 * c[0], c[1]. 0, or -1 when x does not vary there. */
static int fit_without(const double *x, const double *y, int n, int skip, double *tx, double *ty, double c[2])
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (i != skip) {
            tx[m] = x[i];
            ty[m++] = y[i];
        }
    int varies = 0;
    for (int i = 1; i < m; i++)
        varies |= tx[i] != tx[0];
    if (!varies)
        return -1;
    double cov00, cov01, cov11, sumsq;
    gsl_fit_linear(tx, 1, ty, 1, (size_t)m, &c[0], &c[1], &cov00, &cov01, &cov11, &sumsq);
    return 0;
}

/* Work arrays for one node's search. */
typedef struct work {
    pt *pts;
    double *x, *y, *tx, *ty;
    int n;
} work;

/* Leave-one-out SMAPE of the hypothesis whose term is w->x; INFINITY when
 * a training set cannot be fitted. */
static double loo_smape(work *w)
{
    double sum = 0, c[2];
    for (int k = 0; k < w->n; k++) {
        if (fit_without(w->x, w->y, w->n, k, w->tx, w->ty, c) < 0)
            return INFINITY;
        sum += smape_term(w->y[k], c[0] + c[1] * w->x[k]);
    }
    return sum / w->n;
}

static double loo_smape_constant(const work *w)
{
    double total = 0, sum = 0;
    for (int i = 0; i < w->n; i++)
        total += w->y[i];
    for (int k = 0; k < w->n; k++)
        sum += smape_term(w->y[k], (total - w->y[k]) / (w->n - 1));
    return sum / w->n;
}

static void set_constant(const work *w, ari_scaling_fit *f)
{
    double total = 0;
    for (int i = 0; i < w->n; i++)
        total += w->y[i];
    f->constant = 1;
    f->a_num = f->b = 0;
    f->a_den = 1;
    f->a = 0;
    f->c0 = total / w->n;
    f->c1 = 0;
    f->cv_smape = loo_smape_constant(w);
}

/* Tries every hypothesis, keeping the best in f (whose cv_smape holds the
 * best so far). x is left holding the winner's term. */
static void search(work *w, ari_scaling_fit *f)
{
    int best_a = -1, best_b = 0;
    for (int ai = 0; ai < NA; ai++)
        for (int b = 0; b < NB; b++) {
            double a = (double)a_frac[ai][0] / a_frac[ai][1];
            if ((ai == 0 && b == 0) || !basis(w->pts, w->n, a, b, w->x))
                continue;
            double s = loo_smape(w);
            if (s < f->cv_smape) {
                f->cv_smape = s;
                best_a = ai;
                best_b = b;
            }
        }
    if (best_a < 0)
        return;
    f->constant = 0;
    f->a_num = a_frac[best_a][0];
    f->a_den = a_frac[best_a][1];
    f->a = (double)f->a_num / f->a_den;
    f->b = best_b;
    basis(w->pts, w->n, f->a, f->b, w->x);
    double c[2];
    fit_without(w->x, w->y, w->n, -1, w->tx, w->ty, c);
    f->c0 = c[0];
    f->c1 = c[1];
}

static double model_at(const ari_scaling_fit *f, double p)
{
    return f->constant ? f->c0 : f->c0 + f->c1 * term(p, f->a, f->b);
}

/* rss, r2, the range and the growth of the chosen model. */
static void summarize(const work *w, ari_scaling_fit *f)
{
    double mean = 0, rss = 0, tss = 0;
    for (int i = 0; i < w->n; i++)
        mean += w->y[i] / w->n;
    for (int i = 0; i < w->n; i++) {
        double r = w->y[i] - model_at(f, w->pts[i].p);
        rss += r * r;
        tss += (w->y[i] - mean) * (w->y[i] - mean);
    }
    f->rss = rss;
    f->r2 = tss > 0 ? 1 - rss / tss : NAN;
    f->pmin = w->pts[0].p;
    f->pmax = w->pts[w->n - 1].p;
    f->fmin = model_at(f, f->pmin);
    f->fmax = model_at(f, f->pmax);
    f->growth = f->fmin > 0 ? f->fmax / f->fmin : NAN;
}

static void invalid(ari_scaling_fit *f, int npoints)
{
    memset(f, 0, sizeof *f);
    f->npoints = npoints;
    f->a_den = 1;
    f->c0 = f->c1 = f->a = f->cv_smape = f->rss = f->r2 = NAN;
    f->pmin = f->pmax = f->fmin = f->fmax = f->growth = NAN;
}

void ari_scaling_fit_points(const double *p, const double *y, int n, ari_scaling_fit *out)
{
    size_t n1 = n > 0 ? (size_t)n : 1;
    work w = {.pts = malloc(n1 * sizeof *w.pts)};
    double *buf = malloc(4 * n1 * sizeof *buf);
    w.n = w.pts && buf ? distinct_points(p, y, n, w.pts) : 0;
    invalid(out, w.n);
    if (w.n >= 3) {
        w.x = buf;
        w.y = buf + n1;
        w.tx = buf + 2 * n1;
        w.ty = buf + 3 * n1;
        for (int i = 0; i < w.n; i++)
            w.y[i] = w.pts[i].y;
        out->valid = 1;
        set_constant(&w, out);
        search(&w, out);
        summarize(&w, out);
    }
    free(buf);
    free(w.pts);
}

static void fraction_text(char *buf, size_t size, int num, int den)
{
    if (den == 1)
        snprintf(buf, size, "%d", num);
    else
        snprintf(buf, size, "(%d/%d)", num, den);
}

void ari_scaling_model_text(const ari_scaling_fit *f, char *buf, size_t size)
{
    if (!f->valid) {
        snprintf(buf, size, "%s", "");
        return;
    }
    if (f->constant) {
        snprintf(buf, size, "%.6g", f->c0);
        return;
    }
    char pw[64] = "", lg[64] = "", a[24];
    fraction_text(a, sizeof a, f->a_num, f->a_den);
    if (f->a_num != 0)
        snprintf(pw, sizeof pw, f->a_num == f->a_den ? " * p" : " * p^%s", a);
    if (f->b > 0)
        snprintf(lg, sizeof lg, f->b == 1 ? " * log2(p)" : " * log2(p)^%d", f->b);
    snprintf(buf, size, "%.6g %s %.6g%s%s", f->c0, f->c1 < 0 ? "-" : "+", fabs(f->c1), pw, lg);
}

typedef struct rank_key {
    int64_t i;
    int cls; /* 0 finite growth, 1 valid without, 2 invalid */
    double growth, rise;
} rank_key;

static int cmp_rank(const void *x, const void *y)
{
    const rank_key *a = x, *b = y;
    if (a->cls != b->cls)
        return a->cls - b->cls;
    if (a->cls == 0 && a->growth != b->growth)
        return a->growth > b->growth ? -1 : 1;
    if (a->cls == 0 && a->rise != b->rise)
        return a->rise > b->rise ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

void ari_scaling_rank(const ari_scaling_fit *fits, int64_t n, int64_t *order, int64_t *rank)
{
    rank_key *keys = malloc((n > 0 ? (size_t)n : 1) * sizeof *keys);
    for (int64_t i = 0; i < n; i++) {
        order[i] = i;
        rank[i] = i + 1;
        if (!keys)
            continue;
        const ari_scaling_fit *f = &fits[i];
        int cls = !f->valid ? 2 : isfinite(f->growth) ? 0 : 1;
        keys[i] = (rank_key){i, cls, f->growth, f->fmax - f->fmin};
    }
    if (!keys)
        return;
    qsort(keys, (size_t)n, sizeof *keys, cmp_rank);
    for (int64_t k = 0; k < n; k++) {
        order[k] = keys[k].i;
        rank[keys[k].i] = k + 1;
    }
    free(keys);
}
