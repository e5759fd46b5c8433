/* cct_ops.c: metric variants, collapses, statistics, histograms and the
 * share-of-root filter on a CCT (see cct_ops.h). */
#include "analysis/cct_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/quantile.h"
#include "util/strmap.h"

static const char *const collapse_names[] = {"mean", "sum", "min", "max", "median"};

int ari_collapse_parse(const char *name, ari_collapse *out)
{
    for (int i = 0; i < 5; i++) {
        if (name && strcmp(name, collapse_names[i]) == 0) {
            *out = (ari_collapse)i;
            return 0;
        }
    }
    return -1;
}

const char *ari_collapse_name(ari_collapse how)
{
    return (unsigned)how < 5 ? collapse_names[how] : "?";
}

int ari_cct_metric_find(const ari_cct *c, const char *name)
{
    if (c->nmetrics <= 0)
        return -1;
    int want_inc = name && strcmp(name, "inc") == 0;
    int want_exc = name && strcmp(name, "exc") == 0;
    for (int m = 0; m < c->nmetrics; m++) {
        const ari_cct_metric *mt = &c->metrics[m];
        if (want_inc || want_exc) {
            if (mt->inclusive == want_inc)
                return m;
        } else if (!name || !*name) {
            if (mt->name && strcmp(mt->name, "time (inc)") == 0)
                return m;
        } else if (mt->name && strcmp(mt->name, name) == 0) {
            return m;
        }
    }
    return (!name || !*name) ? 0 : -1;
}

int ari_cct_validate_tree(const ari_cct *c, ari_error *err)
{
    if (!c || c->nnodes < 0 || c->nprocs < 0 || c->nmetrics < 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "profile: malformed calling context tree");
    if (c->nnodes > 0 && (!c->parent || !c->name))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "profile: tree without parents or names");
    for (int64_t i = 0; i < c->nnodes; i++) {
        if (c->parent[i] >= i || c->parent[i] < -1)
            return ari_error_set(err, ARI_E_INVALID_INPUT,
                                 "profile: node %lld has parent %lld (parents must come first)",
                                 (long long)i, (long long)c->parent[i]);
    }
    return 0;
}

int ari_cct_validate(const ari_cct *c, ari_error *err)
{
    if (ari_cct_validate_tree(c, err) < 0)
        return -1;
    for (int m = 0; m < c->nmetrics; m++) {
        if (c->nnodes > 0 && c->nprocs > 0 && (!c->values || !c->values[m]))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "profile: metric %d has no values", m);
        int p = c->metrics[m].partner;
        if (p < -1 || p >= c->nmetrics)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "profile: metric %d has a bad partner", m);
    }
    return 0;
}

static double zero_nan(double x)
{
    return isnan(x) ? 0.0 : x;
}

/* inc from exc: children come after parents, so a backward sweep adds each
 * finished node into its parent. */
static void derive_inclusive(const ari_cct *c, const double *exc, double *inc)
{
    int64_t n = c->nnodes;
    int np = c->nprocs;
    for (int64_t i = 0; i < n * np; i++)
        inc[i] = exc[i];
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t p = c->parent[i];
        if (p < 0)
            continue;
        for (int r = 0; r < np; r++) {
            double v = inc[i * np + r];
            if (isnan(v))
                continue;
            double *dst = &inc[p * np + r];
            *dst = zero_nan(*dst) + v;
        }
    }
}

static void derive_exclusive(const ari_cct *c, const double *inc, double *exc)
{
    int64_t n = c->nnodes;
    int np = c->nprocs;
    for (int64_t i = 0; i < n * np; i++)
        exc[i] = inc[i];
    for (int64_t i = 1; i < n; i++) {
        int64_t p = c->parent[i];
        if (p < 0)
            continue;
        for (int r = 0; r < np; r++) {
            double *dst = &exc[p * np + r];
            if (!isnan(*dst))
                *dst -= zero_nan(inc[i * np + r]);
        }
    }
}

int ari_cct_times_init(ari_cct_times *t, const ari_cct *c, int metric, ari_error *err)
{
    memset(t, 0, sizeof *t);
    if (ari_cct_validate(c, err) < 0)
        return -1;
    if (metric < 0 || metric >= c->nmetrics)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no metric %d in this profile", metric);
    t->nnodes = c->nnodes;
    t->nprocs = c->nprocs;
    const ari_cct_metric *m = &c->metrics[metric];
    int partner = m->partner;
    if (partner >= 0 && c->metrics[partner].inclusive == m->inclusive)
        partner = -1; /* a partner of the same kind is no partner */
    t->inc_metric = m->inclusive ? metric : partner;
    t->exc_metric = m->inclusive ? partner : metric;
    t->inc = t->inc_metric >= 0 ? c->values[t->inc_metric] : NULL;
    t->exc = t->exc_metric >= 0 ? c->values[t->exc_metric] : NULL;
    if (t->inc && t->exc)
        return 0;
    size_t cells = (size_t)c->nnodes * (size_t)c->nprocs;
    t->owned = malloc((cells ? cells : 1) * sizeof(double));
    if (!t->owned)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory deriving %s values",
                             m->inclusive ? "exclusive" : "inclusive");
    if (t->inc) {
        derive_exclusive(c, t->inc, t->owned);
        t->exc = t->owned;
    } else {
        derive_inclusive(c, t->exc, t->owned);
        t->inc = t->owned;
    }
    return 0;
}

void ari_cct_times_free(ari_cct_times *t)
{
    free(t->owned);
    memset(t, 0, sizeof *t);
}

double ari_collapse_row(const double *row, int nprocs, const unsigned char *proc_mask,
                        ari_collapse how, double *scratch)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    int n = 0;
    for (int p = 0; p < nprocs; p++) {
        if (proc_mask && !proc_mask[p])
            continue;
        double v = zero_nan(row[p]);
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (how == ARI_COLLAPSE_MEDIAN)
            scratch[n] = v;
        n++;
    }
    if (n == 0)
        return 0;
    switch (how) {
    case ARI_COLLAPSE_SUM:
        return sum;
    case ARI_COLLAPSE_MIN:
        return lo;
    case ARI_COLLAPSE_MAX:
        return hi;
    case ARI_COLLAPSE_MEDIAN:
        ari_sort_doubles(scratch, (size_t)n);
        return ari_quantile7_sorted(scratch, (size_t)n, 0.5);
    case ARI_COLLAPSE_MEAN:
    default:
        return sum / n;
    }
}

int ari_cct_collapse(const ari_cct *c, const double *values, const unsigned char *proc_mask,
                     ari_collapse how, double *out, ari_error *err)
{
    double *scratch = NULL;
    if (how == ARI_COLLAPSE_MEDIAN) {
        scratch = malloc((size_t)(c->nprocs > 0 ? c->nprocs : 1) * sizeof(double));
        if (!scratch)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < c->nnodes; i++)
        out[i] = ari_collapse_row(values + i * c->nprocs, c->nprocs, proc_mask, how, scratch);
    free(scratch);
    return 0;
}

int ari_node_stats_compute(const double *row, int nprocs, const unsigned char *proc_mask,
                           ari_node_stats *out)
{
    memset(out, 0, sizeof *out);
    double *scratch = malloc((size_t)(nprocs > 0 ? nprocs : 1) * sizeof(double));
    if (!scratch)
        return -1;
    for (int p = 0; p < nprocs; p++) {
        if (proc_mask && !proc_mask[p])
            continue;
        out->measured += !isnan(row[p]);
        out->n++;
    }
    out->sum = ari_collapse_row(row, nprocs, proc_mask, ARI_COLLAPSE_SUM, NULL);
    out->mean = out->n ? out->sum / out->n : 0;
    out->min = ari_collapse_row(row, nprocs, proc_mask, ARI_COLLAPSE_MIN, NULL);
    out->max = ari_collapse_row(row, nprocs, proc_mask, ARI_COLLAPSE_MAX, NULL);
    out->median = ari_collapse_row(row, nprocs, proc_mask, ARI_COLLAPSE_MEDIAN, scratch);
    free(scratch);
    return 0;
}

/* numpy.histogram's rule: the index from the division, then corrected
 * against the edges linspace(min, max, nbins + 1) (k * step + min, the last
 * edge max itself), since the division can be one off within an ulp of an
 * edge; equal min and max span min - 0.5 .. max + 0.5. */
int ari_histogram_bin(double x, double min, double max, int nbins)
{
    if (nbins <= 0)
        return -1;
    if (!(max > min)) {
        min -= 0.5;
        max += 0.5;
    }
    double step = (max - min) / nbins;
    int b = (int)((x - min) / (max - min) * nbins);
    if (b < 0)
        b = 0;
    if (b >= nbins)
        b = nbins - 1;
    if (b > 0 && x < b * step + min)
        b--;
    double right = b + 1 == nbins ? max : (b + 1) * step + min;
    if (b + 1 < nbins && x >= right)
        b++;
    return b;
}

void ari_histogram(const double *v, int n, const unsigned char *mask, int nbins, int *counts,
                   double *min_out, double *max_out)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (mask && !mask[i])
            continue;
        double x = zero_nan(v[i]);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    for (int b = 0; b < nbins; b++)
        counts[b] = 0;
    if (lo > hi)
        lo = hi = 0;
    for (int i = 0; i < n; i++) {
        if (mask && !mask[i])
            continue;
        int b = ari_histogram_bin(zero_nan(v[i]), lo, hi, nbins);
        if (b >= 0)
            counts[b]++;
    }
    if (min_out)
        *min_out = lo;
    if (max_out)
        *max_out = hi;
}

/* ---- filter ------------------------------------------------------------------ */

int ari_intern_strings(const char *const *strs, int64_t n, int64_t *ids, int64_t *nunique)
{
    ari_strmap *map = ari_strmap_new();
    if (!map)
        return -1;
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        const char *s = strs[i] ? strs[i] : "";
        size_t len = strlen(s);
        void *v = ari_strmap_get(map, s, len);
        if (!v) {
            v = (void *)(intptr_t)(++next);
            if (!ari_strmap_put(map, s, len, v)) {
                ari_strmap_free(map);
                return -1;
            }
        }
        ids[i] = (int64_t)(intptr_t)v - 1;
    }
    ari_strmap_free(map);
    *nunique = next;
    return 0;
}

/* top[i] = 1 when no proper ancestor of i has i's name: an explicit DFS
 * keeps, per name, how many nodes of the current root path carry it. */
static int mark_top_instances(const ari_cct *c, const int64_t *ids, int64_t nnames,
                              unsigned char *top)
{
    int64_t n = c->nnodes;
    int64_t *first = malloc((size_t)(n + 1) * sizeof *first);
    int64_t *next = malloc((size_t)(n + 1) * sizeof *next);
    int64_t *stack = malloc((size_t)(n + 1) * sizeof *stack);
    int *active = calloc((size_t)(nnames + 1), sizeof *active);
    unsigned char *entered = calloc((size_t)(n + 1), 1);
    int rc = -1;
    if (!first || !next || !stack || !active || !entered)
        goto done;
    for (int64_t i = 0; i < n; i++)
        first[i] = next[i] = -1;
    for (int64_t i = n - 1; i >= 0; i--) {
        int64_t p = c->parent[i];
        if (p >= 0) {
            next[i] = first[p];
            first[p] = i;
        }
    }
    int64_t sp = 0;
    for (int64_t r = n - 1; r >= 0; r--) {
        if (c->parent[r] < 0)
            stack[sp++] = r;
    }
    /* Each node is pushed once; on first visit it is entered (counter up)
     * and stays on the stack until its children are done. */
    while (sp > 0) {
        int64_t v = stack[sp - 1];
        if (!entered[v]) {
            entered[v] = 1;
            top[v] = active[ids[v]] == 0;
            active[ids[v]]++;
            for (int64_t ch = first[v]; ch >= 0; ch = next[ch])
                stack[sp++] = ch;
        } else {
            active[ids[v]]--;
            sp--;
        }
    }
    rc = 0;
done:
    free(first);
    free(next);
    free(stack);
    free(active);
    free(entered);
    return rc;
}

int ari_cct_filter_mask(const ari_cct *c, const ari_cct_times *t, const ari_cct_filter *f,
                        unsigned char *keep, int64_t *kept_out, ari_error *err)
{
    if (c->nnodes <= 0 || f->fraction <= 0)
        return ari_cct_filter_mask_collapsed(c, NULL, NULL, f, keep, kept_out, err);
    size_t nn = (size_t)c->nnodes;
    double *inc = malloc(nn * sizeof *inc), *exc = malloc(nn * sizeof *exc);
    int rc = -1;
    if (!inc || !exc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory filtering the profile");
    else if (ari_cct_collapse(c, t->inc, NULL, f->collapse, inc, err) == 0 &&
             ari_cct_collapse(c, t->exc, NULL, f->collapse, exc, err) == 0)
        rc = ari_cct_filter_mask_collapsed(c, inc, exc, f, keep, kept_out, err);
    free(inc);
    free(exc);
    return rc;
}

int ari_cct_filter_mask_collapsed(const ari_cct *c, const double *inc, const double *exc,
                                  const ari_cct_filter *f, unsigned char *keep, int64_t *kept_out,
                                  ari_error *err)
{
    if (c->nnodes <= 0) {
        if (kept_out)
            *kept_out = 0;
        return 0;
    }
    int64_t n = c->nnodes;
    size_t nn = (size_t)n;
    if (kept_out)
        *kept_out = n;
    if (f->fraction <= 0) {
        memset(keep, 1, nn);
        return 0;
    }
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    unsigned char *top = malloc((size_t)n);
    double *total = NULL;
    int64_t nnames = 0;
    int rc = -1;
    if (!ids || !top || ari_intern_strings(c->name, n, ids, &nnames) < 0 ||
        mark_top_instances(c, ids, nnames, top) < 0 ||
        !(total = calloc((size_t)nnames + 1, sizeof *total))) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory filtering the profile");
        goto done;
    }
    double root = 0;
    for (int64_t i = 0; i < n; i++) {
        if (c->parent[i] < 0)
            root += inc[i];
        if (f->by_exclusive)
            total[ids[i]] += exc[i];
        else if (top[i])
            total[ids[i]] += inc[i];
    }
    double threshold = f->fraction * root;
    int64_t kept = 0;
    memset(keep, 0, nn);
    for (int64_t i = n - 1; i >= 0; i--) {
        if (total[ids[i]] >= threshold)
            keep[i] = 1;
        if (keep[i] && c->parent[i] >= 0)
            keep[c->parent[i]] = 1;
    }
    for (int64_t i = 0; i < n; i++)
        kept += keep[i];
    if (kept_out)
        *kept_out = kept;
    rc = 0;
done:
    free(ids);
    free(top);
    free(total);
    return rc;
}
