/* anomalies.c: one regression model, or the mixture, over every (resource
 * type, task type) group of the modelled tasks (see anomalies.h). */
#include "analysis/anomalies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h> /* strcasestr (_GNU_SOURCE, set by the build) */

#include "util/free_all.h"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static int qr_mumps_types(const ari_anom_input *in)
{
    for (int k = 0; k < in->ntypes; k++)
        if (strcasestr(in->types[k], "qrt"))
            return 1;
    return 0;
}

size_t ari_anom_groups(const ari_anom_input *in, int *group)
{
    int only_qrt = qr_mumps_types(in);
    size_t count = 0;
    for (size_t i = 0; i < in->n; i++) {
        int ok = ari_reg_usable(in->gflop[i], in->duration[i]) &&
                 (!only_qrt || strcasestr(in->types[in->type[i]], "qrt"));
        group[i] = ok ? in->restype[i] * in->ntypes + in->type[i] : -1;
        count += ok;
    }
    return count;
}

/* The grouped tasks of one computation. */
typedef struct grouping {
    const ari_anom_input *in;
    int *group;
    int ngroups;
    size_t *start, *order; /* ari_reg_group_index */
} grouping;

static void gflop_range(const double *gflop, const size_t *idx, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t j = 0; j < n; j++) {
        double g = gflop[idx[j]];
        *lo = fmin(*lo, g);
        *hi = fmax(*hi, g);
    }
}

static void add_task(ari_anom_result *out, size_t i, size_t entry, int cluster, int anomaly)
{
    out->tasks[out->ntasks++] = (ari_anom_task){i, entry, cluster, anomaly};
}

/* ---- one model over every group ---- */

static int fit_single(const grouping *gr, ari_reg_model model, ari_anom_result *out, ari_error *err)
{
    const ari_anom_input *in = gr->in;
    ari_reg_fit *fits = calloc((size_t)gr->ngroups + 1, sizeof *fits);
    unsigned char *flag = malloc(in->n + 1);
    int rc = fits && flag ? 0 : nomem(err);
    if (rc == 0)
        rc = ari_reg_classify_groups(model, in->n, gr->group, gr->ngroups, in->gflop, in->duration, fits, flag,
                                     err);
    for (int g = 0; g < gr->ngroups && rc == 0; g++) {
        size_t cnt = gr->start[g + 1] - gr->start[g];
        if (cnt == 0)
            continue;
        ari_anom_entry *e = &out->entries[out->nentries];
        memset(e, 0, sizeof *e);
        e->group = g;
        e->fit = fits[g];
        gflop_range(in->gflop, gr->order + gr->start[g], cnt, &e->gflop_min, &e->gflop_max);
        out->count += fits[g].nanomalies;
        for (size_t j = 0; j < cnt; j++) {
            size_t i = gr->order[gr->start[g] + j];
            add_task(out, i, out->nentries, 0, flag[i]);
        }
        out->nentries++;
    }
    void *owned[] = {fits, flag};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc;
}

/* ---- the mixture ---- */

/* The mixture's working arrays for one group of cnt tasks. */
typedef struct mix_work {
    double *gf, *du;
    int *cluster;
    unsigned char *flag;
} mix_work;

/* Appends cluster c's entry (when it has tasks); returns its index. */
static size_t add_cluster(ari_anom_result *out, int g, int c, const ari_mix_fit *mix, ari_reg_fit *fit,
                          const mix_work *w, size_t cnt)
{
    size_t flagged = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < cnt; j++)
        if (w->cluster[j] == c) {
            flagged += w->flag[j];
            lo = fmin(lo, w->gf[j]);
            hi = fmax(hi, w->gf[j]);
        }
    fit->nanomalies = flagged;
    if (fit->n == 0)
        return (size_t)-1;
    ari_anom_entry *e = &out->entries[out->nentries];
    *e = (ari_anom_entry){g, c, *fit, lo, hi, 1, *mix};
    return out->nentries++;
}

/* Clusters, per-cluster LR_LOG and the two-model rule of group g, whose
 * tasks are idx[0 .. cnt). */
static int mixture_group(const ari_anom_input *in, int g, const size_t *idx, size_t cnt, const mix_work *w,
                         ari_anom_result *out, ari_error *err)
{
    for (size_t j = 0; j < cnt; j++) {
        w->gf[j] = in->gflop[idx[j]];
        w->du[j] = in->duration[idx[j]];
    }
    ari_mix_options opt;
    ari_mix_options_default(&opt);
    ari_mix_fit mix;
    ari_reg_fit fits[2];
    if (ari_mix_classify(w->gf, w->du, cnt, &opt, &mix, fits, w->cluster, w->flag, err) < 0)
        return -1;
    size_t entry[2] = {(size_t)-1, (size_t)-1};
    for (int c = 0; c < 2 && c < mix.k; c++)
        entry[c] = add_cluster(out, g, c, &mix, &fits[c], w, cnt);
    for (size_t j = 0; j < cnt; j++) {
        add_task(out, idx[j], entry[w->cluster[j]], w->cluster[j], w->flag[j]);
        out->count += w->flag[j];
    }
    return 0;
}

static int fit_mixture(const grouping *gr, ari_anom_result *out, ari_error *err)
{
    size_t n1 = gr->in->n + 1;
    mix_work w = {malloc(n1 * sizeof *w.gf), malloc(n1 * sizeof *w.du), malloc(n1 * sizeof *w.cluster),
                  malloc(n1)};
    int rc = w.gf && w.du && w.cluster && w.flag ? 0 : nomem(err);
    for (int g = 0; g < gr->ngroups && rc == 0; g++) {
        size_t cnt = gr->start[g + 1] - gr->start[g];
        if (cnt > 0)
            rc = mixture_group(gr->in, g, gr->order + gr->start[g], cnt, &w, out, err);
    }
    void *owned[] = {w.gf, w.du, w.cluster, w.flag};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc;
}

int ari_anomalies_compute(const ari_anom_input *in, int model, ari_anom_result *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->model = model;
    grouping gr = {in, malloc((in->n + 1) * sizeof *gr.group), in->ntypes * in->nrestypes, NULL, NULL};
    size_t nentries = 2 * (size_t)gr.ngroups + 1;
    out->entries = malloc(nentries * sizeof *out->entries);
    out->tasks = malloc((in->n + 1) * sizeof *out->tasks);
    int rc = gr.group && out->entries && out->tasks ? 0 : nomem(err);
    if (rc == 0) {
        out->modelled = ari_anom_groups(in, gr.group);
        rc = ari_reg_group_index(in->n, gr.group, gr.ngroups, &gr.start, &gr.order, err);
    }
    if (rc == 0)
        rc = model == ARI_ANOM_FLEXMIX ? fit_mixture(&gr, out, err) : fit_single(&gr, (ari_reg_model)model, out, err);
    void *owned[] = {gr.group, gr.start, gr.order};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    if (rc < 0)
        ari_anom_result_free(out);
    return rc;
}

void ari_anom_result_free(ari_anom_result *res)
{
    void *owned[] = {res->entries, res->tasks};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(res, 0, sizeof *res);
}
