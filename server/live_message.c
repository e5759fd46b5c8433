/* live_message.c: the analyses of a live hub and its point messages
 * (live_message.h): online CPD, representative series, granularity,
 * windows, summary, live communication, then the budgeted progressive
 * k-means, PCA and VAR, and the JSON of the message. */
#include "live_message.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/live_comm.h"
#include "live_hub.h"
#include "analysis/online_cpd.h"
#include "analysis/progressive_dr.h"
#include "analysis/progressive_kmeans.h"
#include "analysis/progressive_var.h"
#include "util/clock.h"
#include "util/sbuf.h"

#define MAX_CAUSE 16
#define PKM_SEED 18u

/* The causality's candidate metrics (spec 3.4). */
static const char *const cause_candidates[] = {"NetworkRecv", "NetworkSend", "NeventProcessed", "NeventRb",
                                               "RbSec", "RbTime", "RbTotal", "RbPrim"};

/* A growable array of doubles. */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static int dvec_size(dvec *a, size_t n)
{
    if (n > a->cap) {
        size_t cap = a->cap ? a->cap : 64;
        while (cap < n)
            cap *= 2;
        double *g = realloc(a->v, cap * sizeof *g);
        if (!g)
            return -1;
        a->v = g;
        a->cap = cap;
    }
    a->n = n;
    return 0;
}

struct ari_live_engine {
    ari_live_controls ctl;     /* of the last snapshot (resolved) */
    int have_ctl;
    /* the granularity */
    size_t *ids, n, ids_cap;   /* entities of the level */
    size_t *leaf, nleaf, leaf_cap; /* leaf-level entities under them, and the row of each */
    size_t *leaf_row;
    int at_leaf;
    char **names;              /* entity names (for entity_ids messages) */
    int entities_changed;
    size_t ld_entities;        /* the run's entities when the granularity was set */
    /* online CPD */
    ari_ocpd *cpd;
    int64_t cpd_metric;
    size_t cpd_fed;
    dvec cpd_value;            /* s_t r_t per fed point */
    size_t *cps, ncps;         /* change points (copy) */
    /* causality: representative series */
    ari_repr *repr[MAX_CAUSE];
    int64_t cause_metric[MAX_CAUSE];
    size_t ncause, repr_fed;
    dvec Y;                    /* repr_fed x ncause */
    ari_pvar *pvar;
    /* the budgeted analyses */
    ari_pkm *pkm;
    int pkm_k;
    ari_pdr *pdr_top, *pdr_bottom;
    int *labels;               /* n (of the last compose) */
    size_t labels_n, *label_ids;
    /* the snapshot */
    ari_live_point pt;
    size_t t_end, t0, w;
    double time;               /* key of pt.t_idx */
    dvec times, top_win, bottom_win, cluster_x, top_x, bottom_x, scratch, scratch2, col;
    char **metric_names;
    size_t nmetrics;
    dvec means;                /* per metric at t_idx */
    char top_name[ARI_LIVE_NAME], bottom_name[ARI_LIVE_NAME], cluster_name[ARI_LIVE_NAME];
    int64_t top_m, bottom_m, cluster_m;
    size_t n_points;
    /* live comm */
    int has_comm;
    char comm_level[ARI_LIVE_NAME];
    size_t comm_m;
    int32_t *comm_ids;
    char **comm_names;
    dvec comm;
    char comm_note[160];
};

ari_live_engine *ari_live_engine_new(void)
{
    ari_live_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cpd_metric = -1;
    return e;
}

static void free_names(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

void ari_live_engine_reset(ari_live_engine *e)
{
    ari_ocpd_free(e->cpd);
    e->cpd = NULL;
    e->cpd_fed = 0;
    e->cpd_value.n = 0;
    free(e->cps);
    e->cps = NULL;
    e->ncps = 0;
    for (size_t i = 0; i < e->ncause; i++)
        ari_repr_free(e->repr[i]);
    e->ncause = 0;
    e->repr_fed = 0;
    e->Y.n = 0;
}

void ari_live_engine_free(ari_live_engine *e)
{
    if (!e)
        return;
    ari_live_engine_reset(e);
    ari_pvar_free(e->pvar);
    ari_pkm_free(e->pkm);
    ari_pdr_free(e->pdr_top);
    ari_pdr_free(e->pdr_bottom);
    free(e->ids);
    free(e->leaf);
    free(e->leaf_row);
    free_names(e->names, e->n);
    free_names(e->metric_names, e->nmetrics);
    free_names(e->comm_names, e->comm_m);
    free(e->comm_ids);
    free(e->labels);
    free(e->label_ids);
    dvec *vs[] = {&e->cpd_value, &e->Y, &e->times, &e->top_win, &e->bottom_win, &e->cluster_x, &e->top_x,
                  &e->bottom_x, &e->scratch, &e->scratch2, &e->col, &e->means, &e->comm};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
        free(vs[i]->v);
    free(e);
}

int ari_live_level_depth(const ari_live_data *ld, const char *level)
{
    size_t n = 0;
    const char *const *levels = ari_live_data_levels(ld, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(levels[i], level) == 0)
            return (int)i;
    return -1;
}

int ari_live_comm_depth(ari_live_data *ld)
{
    size_t n = ari_live_data_n_points(ld);
    for (size_t k = 0; k < n && k < 64; k++) {
        const int32_t *src, *dst;
        const double *count;
        if (ari_live_data_comm(ld, n - 1 - k, &src, &dst, &count) > 0)
            return ari_live_level_depth(ld, ari_live_data_entity_level(ld, (size_t)src[0]));
    }
    const char *leaf = ari_live_data_leaf_level(ld);
    return leaf ? ari_live_level_depth(ld, leaf) : 0;
}

/* ---- granularity ---- */

static int grow_ids(size_t **a, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t *g = realloc(*a, n * sizeof *g);
    if (!g)
        return -1;
    *a = g;
    *cap = n;
    return 0;
}

/* The ids of a level into *a (capacity *cap); returns the count or (size_t)-1. */
static size_t level_ids(const ari_live_data *ld, const char *level, size_t **a, size_t *cap)
{
    size_t n = ari_live_data_level(ld, level, *a, *cap);
    if (n > *cap) {
        if (grow_ids(a, cap, n) < 0)
            return (size_t)-1;
        n = ari_live_data_level(ld, level, *a, *cap);
    }
    return n;
}

/* The row (in e->ids) of entity x's ancestor at the level, or -1. */
static int64_t ancestor_row(const ari_live_engine *e, const ari_live_data *ld, size_t x)
{
    int64_t a = (int64_t)x;
    for (int depth = 0; a >= 0 && depth < 64; depth++) {
        size_t lo = 0, hi = e->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (e->ids[mid] < (size_t)a)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < e->n && e->ids[lo] == (size_t)a)
            return (int64_t)lo;
        a = ari_live_data_entity_parent(ld, (size_t)a);
    }
    return -1;
}

/* Entities of the level and the leaf entities under them. */
static int set_granularity(ari_live_engine *e, const ari_live_data *ld, const char *level)
{
    size_t old_n = e->n;
    size_t n = level_ids(ld, level, &e->ids, &e->ids_cap);
    if (n == (size_t)-1)
        return -1;
    e->entities_changed = n != old_n || !e->have_ctl || strcmp(level, e->ctl.granularity) != 0;
    free_names(e->names, old_n);
    e->names = NULL;
    e->n = n;
    if (n && !(e->names = calloc(n, sizeof *e->names)))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(e->names[i] = strdup(ari_live_data_entity_name(ld, e->ids[i]))))
            return -1;
    const char *leaf = ari_live_data_leaf_level(ld);
    e->at_leaf = !leaf || strcmp(leaf, level) == 0;
    e->nleaf = 0;
    if (e->at_leaf)
        return 0;
    size_t nl = level_ids(ld, leaf, &e->leaf, &e->leaf_cap);
    if (nl == (size_t)-1)
        return -1;
    size_t *rows = realloc(e->leaf_row, (nl ? nl : 1) * sizeof *rows);
    if (!rows)
        return -1;
    e->leaf_row = rows;
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        int64_t r = ancestor_row(e, ld, e->leaf[i]);
        if (r >= 0) {
            e->leaf[k] = e->leaf[i];
            e->leaf_row[k++] = (size_t)r;
        }
    }
    e->nleaf = k;
    return 0;
}

/* A metric's series over [t0, t1) at the granularity: n x w into out. */
static int gran_series(ari_live_engine *e, const ari_live_data *ld, size_t metric, size_t t0, size_t t1, double *out)
{
    size_t w = t1 - t0, n = e->n;
    if (w == 0 || n == 0)
        return 0;
    ari_live_data_series(ld, metric, e->ids, n, t0, t1, out);
    if (e->at_leaf || e->nleaf == 0)
        return 0;
    if (dvec_size(&e->scratch, e->nleaf * w) < 0 || dvec_size(&e->scratch2, 2 * n * w) < 0)
        return -1;
    ari_live_data_series(ld, metric, e->leaf, e->nleaf, t0, t1, e->scratch.v);
    double *sum = e->scratch2.v, *cnt = sum + n * w;
    memset(sum, 0, 2 * n * w * sizeof *sum);
    for (size_t i = 0; i < e->nleaf; i++) {
        const double *row = e->scratch.v + i * w;
        size_t g = e->leaf_row[i];
        for (size_t j = 0; j < w; j++)
            if (!isnan(row[j])) {
                sum[g * w + j] += row[j];
                cnt[g * w + j] += 1;
            }
    }
    for (size_t c = 0; c < n * w; c++)
        if (isnan(out[c]) && cnt[c] > 0)
            out[c] = sum[c] / cnt[c];
    return 0;
}

/* ---- online states ---- */

static int feed_cpd(ari_live_engine *e, const ari_live_data *ld, int64_t metric, double alpha, size_t t_end)
{
    if (metric != e->cpd_metric || !e->cpd) {
        ari_ocpd_free(e->cpd);
        ari_ocpd_params p;
        ari_ocpd_defaults(&p);
        p.alpha = alpha;
        if (!(e->cpd = ari_ocpd_new(&p, e->n ? e->n : 1)))
            return -1;
        e->cpd_metric = metric;
        e->cpd_fed = 0;
        e->cpd_value.n = 0;
    }
    ari_ocpd_set_alpha(e->cpd, alpha);
    if (dvec_size(&e->col, e->n ? e->n : 1) < 0)
        return -1;
    while (e->cpd_fed < t_end) {
        double value = NAN;
        if (metric >= 0 && e->n > 0) {
            if (gran_series(e, ld, (size_t)metric, e->cpd_fed, e->cpd_fed + 1, e->col.v) < 0 ||
                ari_ocpd_push(e->cpd, e->col.v, e->n, &value) < 0)
                return -1;
        }
        size_t k = e->cpd_value.n;
        if (dvec_size(&e->cpd_value, k + 1) < 0)
            return -1;
        e->cpd_value.v[k] = value;
        e->cpd_fed++;
    }
    const size_t *idx;
    size_t nc = ari_ocpd_changes(e->cpd, &idx);
    size_t *copy = nc ? malloc(nc * sizeof *copy) : NULL;
    if (nc && !copy)
        return -1;
    if (nc)
        memcpy(copy, idx, nc * sizeof *copy);
    free(e->cps);
    e->cps = copy;
    e->ncps = nc;
    return 0;
}

/* The causality's metrics: the spec's candidates present, else the first
 * metrics that are not attributes. */
static void choose_cause_metrics(ari_live_engine *e, const ari_live_data *ld)
{
    e->ncause = 0;
    for (size_t i = 0; i < sizeof cause_candidates / sizeof cause_candidates[0]; i++) {
        int64_t m = ari_live_data_metric_find(ld, cause_candidates[i]);
        if (m >= 0)
            e->cause_metric[e->ncause++] = m;
    }
    if (e->ncause >= 2)
        return;
    e->ncause = 0;
    size_t nm = ari_live_data_n_metrics(ld);
    for (size_t m = 0; m < nm && e->ncause < MAX_CAUSE; m++)
        if (!ari_live_data_metric_attribute(ld, m))
            e->cause_metric[e->ncause++] = (int64_t)m;
}

static int feed_repr(ari_live_engine *e, const ari_live_data *ld, size_t t_end)
{
    if (e->repr_fed == 0 && e->ncause == 0) {
        choose_cause_metrics(e, ld);
        for (size_t c = 0; c < e->ncause; c++)
            if (!(e->repr[c] = ari_repr_new(e->n ? e->n : 1))) {
                e->ncause = c;
                return -1;
            }
    }
    if (dvec_size(&e->col, e->n ? e->n : 1) < 0)
        return -1;
    while (e->repr_fed < t_end) {
        size_t row = e->Y.n / (e->ncause ? e->ncause : 1);
        if (dvec_size(&e->Y, (row + 1) * e->ncause) < 0)
            return -1;
        for (size_t c = 0; c < e->ncause; c++) {
            double v = NAN;
            if (e->n > 0 && (gran_series(e, ld, (size_t)e->cause_metric[c], e->repr_fed, e->repr_fed + 1,
                                         e->col.v) < 0 ||
                             ari_repr_push(e->repr[c], e->col.v, e->n, &v) < 0))
                return -1;
            e->Y.v[row * e->ncause + c] = v;
        }
        e->repr_fed++;
    }
    return 0;
}

/* ---- the snapshot ---- */

static int copy_metric_names(ari_live_engine *e, const ari_live_data *ld)
{
    size_t nm = ari_live_data_n_metrics(ld);
    if (nm == e->nmetrics)
        return 0;
    free_names(e->metric_names, e->nmetrics);
    e->nmetrics = 0;
    if (!(e->metric_names = calloc(nm ? nm : 1, sizeof *e->metric_names)))
        return -1;
    for (size_t m = 0; m < nm; m++)
        if (!(e->metric_names[m] = strdup(ari_live_data_metric_name(ld, m))))
            return -1;
    e->nmetrics = nm;
    return 0;
}

static int snapshot_summary(ari_live_engine *e, const ari_live_data *ld)
{
    if (dvec_size(&e->means, e->nmetrics ? e->nmetrics : 1) < 0 || dvec_size(&e->col, e->n ? e->n : 1) < 0)
        return -1;
    for (size_t m = 0; m < e->nmetrics; m++) {
        double sum = 0;
        size_t cnt = 0;
        if (gran_series(e, ld, m, e->pt.t_idx, e->pt.t_idx + 1, e->col.v) < 0)
            return -1;
        for (size_t i = 0; i < e->n; i++)
            if (!isnan(e->col.v[i])) {
                sum += e->col.v[i];
                cnt++;
            }
        e->means.v[m] = cnt ? sum / cnt : NAN;
    }
    return 0;
}

static int snapshot_series(ari_live_engine *e, const ari_live_data *ld, int64_t m, size_t t0, size_t t1, dvec *out)
{
    if (dvec_size(out, e->n * (t1 - t0) + 1) < 0)
        return -1;
    if (m < 0) {
        for (size_t i = 0; i < e->n * (t1 - t0); i++)
            out->v[i] = NAN;
        return 0;
    }
    return gran_series(e, ld, (size_t)m, t0, t1, out->v);
}

/* The live communication matrix of point t at the granularity, or at a
 * coarser level when that has more than ARI_LIVE_MAX_COMM rows. */
static int snapshot_comm(ari_live_engine *e, ari_live_data *ld, size_t t)
{
    free_names(e->comm_names, e->comm_m);
    e->comm_names = NULL;
    free(e->comm_ids);
    e->comm_ids = NULL;
    e->comm_m = 0;
    e->comm_note[0] = '\0';
    e->has_comm = ari_live_data_has_comm(ld);
    if (!e->has_comm)
        return 0;
    size_t ne = ari_live_data_n_entities(ld);
    int32_t *parent = malloc((ne ? ne : 1) * sizeof *parent);
    const char **names = malloc((ne ? ne : 1) * sizeof *names);
    if (!parent || !names) {
        free(parent);
        free(names);
        return -1;
    }
    for (size_t i = 0; i < ne; i++) {
        parent[i] = (int32_t)ari_live_data_entity_parent(ld, i);
        names[i] = ari_live_data_entity_name(ld, i);
    }
    ari_lcomm_tree tree = {.n = ne, .parent = parent, .names = names, .leaf_level = ari_live_comm_depth(ld)};
    int depth = ari_live_level_depth(ld, e->ctl.granularity);
    if (depth < 0 || depth > tree.leaf_level)
        depth = tree.leaf_level;
    ari_error err = {0};
    ari_lcomm_view *v = NULL;
    for (; depth >= 0 && !v; depth--) {
        v = ari_lcomm_view_new(&tree, depth, -1, &err);
        if (v && ari_lcomm_view_size(v) > ARI_LIVE_MAX_COMM) {
            ari_lcomm_view_free(v);
            v = NULL;
        }
    }
    int rc = 0;
    if (!v) {
        snprintf(e->comm_note, sizeof e->comm_note, "no level has at most %d entities", ARI_LIVE_MAX_COMM);
        goto done;
    }
    size_t levels_n = 0;
    const char *const *levels = ari_live_data_levels(ld, &levels_n);
    int vl = ari_lcomm_view_level(v);
    snprintf(e->comm_level, sizeof e->comm_level, "%s", vl >= 0 && (size_t)vl < levels_n ? levels[vl] : "");
    size_t m = ari_lcomm_view_size(v);
    const int32_t *src, *dst;
    const double *count;
    size_t nt = ari_live_data_comm(ld, t, &src, &dst, &count);
    ari_lcomm_triple *tr = malloc((nt ? nt : 1) * sizeof *tr);
    e->comm_ids = malloc((m ? m : 1) * sizeof *e->comm_ids);
    e->comm_names = calloc(m ? m : 1, sizeof *e->comm_names);
    if (!tr || !e->comm_ids || !e->comm_names || dvec_size(&e->comm, m * m + 1) < 0) {
        free(tr);
        rc = -1;
        goto done;
    }
    for (size_t i = 0; i < nt; i++)
        tr[i] = (ari_lcomm_triple){src[i], dst[i], count[i]};
    rc = ari_lcomm_view_matrix(v, tr, nt, e->comm.v, &err);
    free(tr);
    if (m)
        memcpy(e->comm_ids, ari_lcomm_view_ids(v), m * sizeof *e->comm_ids);
    e->comm_m = m;
    for (size_t i = 0; i < m && rc == 0; i++)
        if (!(e->comm_names[i] = strdup(ari_live_data_entity_name(ld, (size_t)e->comm_ids[i]))))
            rc = -1;
done:
    ari_lcomm_view_free(v);
    free(parent);
    free(names);
    return rc;
}

int ari_live_engine_snapshot(ari_live_engine *e, ari_live_data *ld, const ari_live_controls *ctl, size_t t_end,
                             const ari_live_point *pt, ari_error *err)
{
    int64_t top = ari_live_data_metric_find(ld, ctl->top), bottom = ari_live_data_metric_find(ld, ctl->bottom);
    int64_t cpd_metric = ctl->cpd_bottom ? bottom : top;
    int regran = !e->have_ctl || strcmp(ctl->granularity, e->ctl.granularity) != 0 ||
                 ari_live_data_n_entities(ld) != e->ld_entities;
    if (regran) {
        if (e->have_ctl && strcmp(ctl->granularity, e->ctl.granularity) != 0) {
            /* other entities: the previous labels and layouts say nothing of them */
            if (e->pkm)
                ari_pkm_reset(e->pkm);
            if (e->pdr_top)
                ari_pdr_reset(e->pdr_top);
            if (e->pdr_bottom)
                ari_pdr_reset(e->pdr_bottom);
        }
        e->ld_entities = ari_live_data_n_entities(ld);
        if (set_granularity(e, ld, ctl->granularity) < 0)
            goto nomem;
        if (e->entities_changed)
            ari_live_engine_reset(e);
    } else {
        e->entities_changed = 0;
    }
    e->ctl = *ctl;
    e->have_ctl = 1;
    e->pt = *pt;
    e->t_end = t_end;
    e->n_points = ari_live_data_n_points(ld);
    e->time = ari_live_data_keys(ld)[pt->t_idx];
    e->top_m = top;
    e->bottom_m = bottom;
    e->cluster_m = ari_live_data_metric_find(ld, ctl->cluster_metric);
    snprintf(e->top_name, sizeof e->top_name, "%s", ctl->top);
    snprintf(e->bottom_name, sizeof e->bottom_name, "%s", ctl->bottom);
    snprintf(e->cluster_name, sizeof e->cluster_name, "%s", ctl->cluster_metric);
    if (copy_metric_names(e, ld) < 0 || feed_cpd(e, ld, cpd_metric, ctl->alpha, t_end) < 0 ||
        feed_repr(e, ld, t_end) < 0 || snapshot_summary(e, ld) < 0)
        goto nomem;
    size_t W = (size_t)ctl->window;
    e->t0 = t_end > W ? t_end - W : 0;
    e->w = t_end - e->t0;
    if (dvec_size(&e->times, e->w + 1) < 0)
        goto nomem;
    for (size_t j = 0; j < e->w; j++)
        e->times.v[j] = ari_live_data_keys(ld)[e->t0 + j];
    if (snapshot_series(e, ld, top, e->t0, t_end, &e->top_win) < 0 ||
        snapshot_series(e, ld, bottom, e->t0, t_end, &e->bottom_win) < 0 ||
        snapshot_series(e, ld, e->cluster_m, 0, t_end, &e->cluster_x) < 0 ||
        snapshot_series(e, ld, top, 0, t_end, &e->top_x) < 0 ||
        snapshot_series(e, ld, bottom, 0, t_end, &e->bottom_x) < 0 || snapshot_comm(e, ld, t_end - 1) < 0)
        goto nomem;
    return 0;
nomem:
    return ari_error_set(err, ARI_E_NOMEM, "out of memory composing a live message");
}

size_t ari_live_engine_change_points(const ari_live_engine *e, const size_t **cps)
{
    *cps = e->cps;
    return e->ncps;
}

size_t ari_live_engine_labels(const ari_live_engine *e, const size_t **ids, const int **labels)
{
    *ids = e->label_ids;
    *labels = e->labels;
    return e->labels ? e->labels_n : 0;
}

/* ---- the budgeted analyses and the JSON ---- */

static void add_num(ari_sbuf *b, double x)
{
    if (!isfinite(x)) {
        ari_sbuf_add(b, "null", 4);
        return;
    }
    char t[32];
    if (x == floor(x) && fabs(x) < 1e6) { /* whole numbers (counts): no printf */
        long long v = (long long)x;
        size_t k = sizeof t;
        unsigned long long u = v < 0 ? (unsigned long long)(-v) : (unsigned long long)v;
        do {
            t[--k] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            t[--k] = '-';
        ari_sbuf_add(b, t + k, sizeof t - k);
        return;
    }
    int k = snprintf(t, sizeof t, "%.6g", x);
    ari_sbuf_add(b, t, (size_t)k);
}

static void add_row(ari_sbuf *b, const double *v, size_t n)
{
    ari_sbuf_add_char(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        add_num(b, v[i]);
    }
    ari_sbuf_add_char(b, ']');
}

/* rows x cols, taking columns [c0, c0 + w) of a rows x stride matrix */
static void add_matrix(ari_sbuf *b, const double *v, size_t rows, size_t stride, size_t c0, size_t w)
{
    ari_sbuf_add_char(b, '[');
    for (size_t i = 0; i < rows; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        add_row(b, v + i * stride + c0, w);
    }
    ari_sbuf_add_char(b, ']');
}

static void add_key(ari_sbuf *b, const char *key)
{
    ari_sbuf_json_string(b, key);
    ari_sbuf_add_char(b, ':');
}

static void add_size_list(ari_sbuf *b, const size_t *v, size_t n)
{
    ari_sbuf_add_char(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_int(b, (int64_t)v[i]);
    }
    ari_sbuf_add_char(b, ']');
}

static void add_window(ari_sbuf *b, const char *key, const char *metric, const ari_live_engine *e, const dvec *win)
{
    add_key(b, key);
    ari_sbuf_add_str(b, "{\"metric\":");
    ari_sbuf_json_string(b, metric);
    ari_sbuf_add_str(b, ",\"t0\":");
    ari_sbuf_json_int(b, (int64_t)e->t0);
    ari_sbuf_add_str(b, ",\"times\":");
    add_row(b, e->times.v, e->w);
    ari_sbuf_add_str(b, ",\"values\":");
    add_matrix(b, win->v, e->n, e->w, 0, e->w);
    ari_sbuf_add_str(b, "},");
}

static void add_summary_cpd(ari_sbuf *b, const ari_live_engine *e)
{
    ari_sbuf_add_str(b, "\"summary\":{\"t_idx\":");
    ari_sbuf_json_int(b, (int64_t)e->pt.t_idx);
    ari_sbuf_add_str(b, ",\"means\":{");
    for (size_t m = 0; m < e->nmetrics; m++) {
        if (m)
            ari_sbuf_add_char(b, ',');
        add_key(b, e->metric_names[m]);
        add_num(b, e->means.v[m]);
    }
    int is_change = 0;
    for (size_t i = 0; i < e->ncps; i++)
        is_change |= e->cps[i] == e->pt.t_idx;
    ari_sbuf_add_str(b, "}},\"cpd\":{\"target\":");
    ari_sbuf_json_string(b, e->ctl.cpd_bottom ? "bottom" : "top");
    ari_sbuf_add_str(b, ",\"metric\":");
    ari_sbuf_json_string(b, e->ctl.cpd_bottom ? e->bottom_name : e->top_name);
    ari_sbuf_add_str(b, ",\"alpha\":");
    add_num(b, e->ctl.alpha);
    ari_sbuf_add_str(b, is_change ? ",\"is_change\":true" : ",\"is_change\":false");
    ari_sbuf_add_str(b, ",\"change_points\":");
    add_size_list(b, e->cps, e->ncps);
    ari_sbuf_add_str(b, ",\"value\":");
    add_num(b, e->pt.t_idx < e->cpd_value.n ? e->cpd_value.v[e->pt.t_idx] : NAN);
    ari_sbuf_add_str(b, "},");
}

static int run_clusters(ari_live_engine *e, ari_sbuf *b, ari_error *err)
{
    if (!e->pkm || e->pkm_k != e->ctl.k) {
        ari_pkm_free(e->pkm);
        if (!(e->pkm = ari_pkm_new(e->ctl.k, PKM_SEED)))
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        e->pkm_k = e->ctl.k;
    }
    ari_pkm_result res;
    if (ari_pkm_step(e->pkm, e->cluster_x.v, e->n, e->t_end, e->ctl.cluster_ms, &res, err) < 0)
        return -1;
    int *labels = malloc((e->n ? e->n : 1) * sizeof *labels);
    size_t *ids = malloc((e->n ? e->n : 1) * sizeof *ids);
    if (!labels || !ids) {
        free(labels);
        free(ids);
        ari_pkm_result_free(&res);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    if (e->n) {
        memcpy(labels, res.labels, e->n * sizeof *labels);
        memcpy(ids, e->ids, e->n * sizeof *ids);
    }
    free(e->labels);
    free(e->label_ids);
    e->labels = labels;
    e->label_ids = ids;
    e->labels_n = e->n;
    ari_sbuf_add_str(b, "\"clusters\":{\"metric\":");
    ari_sbuf_json_string(b, e->cluster_name);
    ari_sbuf_add_str(b, ",\"k\":");
    ari_sbuf_json_int(b, res.k);
    ari_sbuf_add_str(b, ",\"labels\":[");
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_int(b, res.labels[i]);
    }
    ari_sbuf_add_str(b, "],\"sizes\":");
    add_size_list(b, res.sizes, (size_t)res.k);
    ari_sbuf_add_str(b, ",\"centers\":");
    add_matrix(b, res.centers, (size_t)res.k, e->t_end, e->t0, e->w);
    ari_sbuf_add_str(b, ",\"processed\":");
    ari_sbuf_json_int(b, (int64_t)res.processed);
    ari_sbuf_add_str(b, ",\"n\":");
    ari_sbuf_json_int(b, (int64_t)e->n);
    ari_sbuf_add_str(b, ",\"latency_ms\":");
    add_num(b, res.latency_ms);
    ari_sbuf_add_str(b, "},");
    ari_pkm_result_free(&res);
    return 0;
}

static int run_dr(ari_live_engine *e, ari_sbuf *b, ari_error *err)
{
    if ((!e->pdr_top && !(e->pdr_top = ari_pdr_new())) || (!e->pdr_bottom && !(e->pdr_bottom = ari_pdr_new())))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t n = e->n ? e->n : 1;
    size_t *order = malloc(n * sizeof *order);
    double *xy = malloc(4 * n * sizeof *xy);
    double t = ari_now();
    size_t pt = 0, pb = 0;
    int rc = -1;
    if (!order || !xy) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    if (!e->pkm || ari_pkm_order(e->pkm, e->n, order) < 0) /* no clustering yet: entity order */
        for (size_t i = 0; i < e->n; i++)
            order[i] = i;
    /* dr_ms is the budget of the DR as a whole: half for each metric */
    double budget = e->ctl.dr_ms / 2;
    if (ari_pdr_step(e->pdr_top, e->top_x.v, e->n, e->t_end, order, budget, xy, &pt, err) < 0 ||
        ari_pdr_step(e->pdr_bottom, e->bottom_x.v, e->n, e->t_end, order, budget, xy + 2 * n, &pb, err) < 0)
        goto done;
    ari_sbuf_add_str(b, "\"dr\":{\"top_xy\":");
    add_matrix(b, xy, e->n, 2, 0, 2);
    ari_sbuf_add_str(b, ",\"bottom_xy\":");
    add_matrix(b, xy + 2 * n, e->n, 2, 0, 2);
    ari_sbuf_add_str(b, ",\"processed\":{\"top\":");
    ari_sbuf_json_int(b, (int64_t)pt);
    ari_sbuf_add_str(b, ",\"bottom\":");
    ari_sbuf_json_int(b, (int64_t)pb);
    ari_sbuf_add_str(b, "},\"latency_ms\":");
    add_num(b, (ari_now() - t) * 1000);
    ari_sbuf_add_str(b, "},");
    rc = 0;
done:
    free(order);
    free(xy);
    return rc;
}

static int run_causality(ari_live_engine *e, ari_sbuf *b, ari_error *err)
{
    int target = -1;
    for (size_t c = 0; c < e->ncause; c++)
        if (strcmp(e->metric_names[e->cause_metric[c]], e->ctl.cause_target) == 0)
            target = (int)c;
    ari_sbuf_add_str(b, "\"causality\":{\"target\":");
    ari_sbuf_json_string(b, e->ctl.cause_target);
    ari_sbuf_add_str(b, ",\"direction\":");
    ari_sbuf_json_string(b, e->ctl.cause_to ? "to" : "from");
    ari_sbuf_add_str(b, ",\"threshold\":");
    add_num(b, e->ctl.cause_threshold);
    if (target < 0 || e->ncause < 2) {
        ari_sbuf_add_str(b, ",\"p\":0,\"t_used\":0,\"rows\":[],\"latency_ms\":0,\"note\":");
        ari_sbuf_json_string(b, target < 0 ? "the target is not among the causality's metrics"
                                           : "fewer than two metrics");
        ari_sbuf_add_str(b, "},");
        return 0;
    }
    ari_pvar_params p;
    ari_pvar_defaults(&p);
    p.budget_ms = e->ctl.var_ms;
    p.alpha = e->ctl.cause_threshold;
    p.direction = e->ctl.cause_to;
    if (!e->pvar && !(e->pvar = ari_pvar_new(&p)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_pvar_set_params(e->pvar, &p);
    ari_pvar_result res;
    if (ari_pvar_step(e->pvar, e->Y.v, e->repr_fed, e->ncause, target, &res, err) < 0)
        return -1;
    ari_sbuf_add_str(b, ",\"p\":");
    ari_sbuf_json_int(b, res.p);
    ari_sbuf_add_str(b, ",\"t_used\":");
    ari_sbuf_json_int(b, (int64_t)res.t_used);
    ari_sbuf_add_str(b, ",\"rows\":[");
    int first = 1;
    for (size_t i = 0; i < res.nrows; i++) {
        const ari_pvar_row *r = &res.rows[i];
        if (r->metric == target || r->metric < 0 || (size_t)r->metric >= e->ncause)
            continue;
        ari_sbuf_add_str(b, first ? "{\"metric\":" : ",{\"metric\":");
        first = 0;
        ari_sbuf_json_string(b, e->metric_names[e->cause_metric[r->metric]]);
        ari_sbuf_add_str(b, ",\"p\":");
        add_num(b, r->p_value);
        ari_sbuf_add_str(b, ",\"f\":");
        add_num(b, r->f);
        ari_sbuf_add_str(b, r->p_value < e->ctl.cause_threshold ? ",\"significant\":true" : ",\"significant\":false");
        ari_sbuf_add_str(b, ",\"ir1\":");
        add_num(b, r->ir1);
        ari_sbuf_add_str(b, ",\"vd1\":");
        add_num(b, r->vd);
        ari_sbuf_add_char(b, '}');
    }
    ari_sbuf_add_str(b, "],\"latency_ms\":");
    add_num(b, res.latency_ms);
    if (res.note[0]) {
        ari_sbuf_add_str(b, ",\"note\":");
        ari_sbuf_json_string(b, res.note);
    }
    ari_sbuf_add_str(b, "},");
    ari_pvar_result_free(&res);
    return 0;
}

static void add_comm(ari_sbuf *b, const ari_live_engine *e)
{
    ari_sbuf_add_str(b, "\"comm_live\":");
    if (!e->has_comm || !e->comm_m) {
        ari_sbuf_add_str(b, "null,");
        return;
    }
    ari_sbuf_add_str(b, "{\"level\":");
    ari_sbuf_json_string(b, e->comm_level);
    ari_sbuf_add_str(b, ",\"group\":null,\"ids\":[");
    for (size_t i = 0; i < e->comm_m; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_int(b, e->comm_ids[i]);
    }
    ari_sbuf_add_str(b, "],\"names\":[");
    for (size_t i = 0; i < e->comm_m; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, e->comm_names[i]);
    }
    ari_sbuf_add_str(b, "],\"matrix\":");
    add_matrix(b, e->comm.v, e->comm_m, e->comm_m, 0, e->comm_m);
    ari_sbuf_add_str(b, "},");
}

static void add_head(ari_sbuf *b, const ari_live_engine *e)
{
    ari_sbuf_add_str(b, "{\"seq\":");
    ari_sbuf_json_int(b, e->pt.seq);
    ari_sbuf_add_str(b, ",\"t_idx\":");
    ari_sbuf_json_int(b, (int64_t)e->pt.t_idx);
    ari_sbuf_add_str(b, ",\"time\":");
    add_num(b, e->time);
    ari_sbuf_add_str(b, ",\"n_points\":");
    ari_sbuf_json_int(b, (int64_t)e->t_end);
    ari_sbuf_add_str(b, ",\"entities_n\":");
    ari_sbuf_json_int(b, (int64_t)e->n);
    ari_sbuf_add_str(b, ",\"granularity\":");
    ari_sbuf_json_string(b, e->ctl.granularity);
    ari_sbuf_add_str(b, ",\"controls_version\":");
    ari_sbuf_json_int(b, e->ctl.version);
    if (e->pt.update)
        ari_sbuf_add_str(b, ",\"update\":true");
    if (e->entities_changed) {
        ari_sbuf_add_str(b, ",\"entity_ids\":");
        add_size_list(b, e->ids, e->n);
    }
    ari_sbuf_add_char(b, ',');
}

char *ari_live_engine_compose(ari_live_engine *e, size_t *len, ari_error *err)
{
    double start = ari_now();
    ari_sbuf b = {0};
    add_head(&b, e);
    add_window(&b, "top", e->top_name, e, &e->top_win);
    add_window(&b, "bottom", e->bottom_name, e, &e->bottom_win);
    add_summary_cpd(&b, e);
    if (run_clusters(e, &b, err) < 0 || run_dr(e, &b, err) < 0 || run_causality(e, &b, err) < 0) {
        ari_sbuf_free(&b);
        return NULL;
    }
    add_comm(&b, e);
    double now = ari_now();
    ari_sbuf_add_str(&b, "\"latency\":{\"arrival_to_send_ms\":");
    add_num(&b, e->pt.arrival > 0 ? (now - e->pt.arrival) * 1000 : NAN);
    ari_sbuf_add_str(&b, ",\"analyses_ms\":");
    add_num(&b, (now - start) * 1000);
    ari_sbuf_add_str(&b, "}}");
    if (ari_sbuf_failed(&b)) {
        ari_sbuf_free(&b);
        ari_error_set(err, ARI_E_NOMEM, "out of memory composing a live message");
        return NULL;
    }
    *len = b.len;
    return b.p;
}
