/* anomalies.h: the regression anomalies of a task trace (the /anomalies
 * endpoint): which tasks are modelled, one model fitted per (resource
 * type, task type) group (regression.h) or the mixture per group
 * (mixture.h, one entry per cluster), and each modelled task's entry and
 * flag. Pure: arrays in, a result struct out.
 *
 * Modelled tasks: GFlop > 0 and a positive duration (ari_reg_usable);
 * when some task type's name contains "qrt" (qr_mumps, case-insensitive),
 * only the tasks of such types (qr_mumps reuses the GFlop field of its
 * other tasks for memory sizes). Groups are restype * ntypes + type. */
#ifndef ARIADNE_ANALYSIS_ANOMALIES_H
#define ARIADNE_ANALYSIS_ANOMALIES_H

#include <stddef.h>

#include "analysis/mixture.h"
#include "analysis/regression.h"
#include "util/error.h"

/* The mixture, after the four single models of ari_reg_model. */
#define ARI_ANOM_FLEXMIX ARI_REG_NMODELS
#define ARI_ANOM_NMODELS (ARI_REG_NMODELS + 1)

/* One fitted entry: a group's fit, or one cluster's under the mixture. */
typedef struct ari_anom_entry {
    int group;             /* restype * ntypes + type */
    int cluster;           /* 0-based; 0 for a single model */
    ari_reg_fit fit;       /* fit.nanomalies: the entry's flagged tasks */
    double gflop_min, gflop_max;
    int has_mixture;       /* the mixture model: mixture is the group's */
    ari_mix_fit mixture;
} ari_anom_entry;

/* One modelled task. */
typedef struct ari_anom_task {
    size_t task;  /* index into the input arrays */
    size_t entry; /* the entry whose fit applies */
    int cluster;  /* 0-based */
    int anomaly;
} ari_anom_task;

typedef struct ari_anom_result {
    int model;        /* ari_reg_model or ARI_ANOM_FLEXMIX */
    size_t modelled;  /* tasks modelled */
    size_t count;     /* anomalies */
    size_t nentries;
    ari_anom_entry *entries; /* by group, then cluster */
    size_t ntasks;
    ari_anom_task *tasks;    /* by entry order: group, then the group's task order */
} ari_anom_result;

/* The tasks: parallel arrays of n entries. */
typedef struct ari_anom_input {
    size_t n;
    const int *type, *restype;
    const double *gflop;    /* NAN when unknown */
    const double *duration;
    int ntypes, nrestypes;
    const char *const *types; /* [ntypes] names (the qr_mumps rule) */
} ari_anom_input;

/* Fits `model` over every group. Returns 0 and fills *out (free with
 * ari_anom_result_free), or -1 with err set (*out is then empty). */
int ari_anomalies_compute(const ari_anom_input *in, int model, ari_anom_result *out, ari_error *err);
void ari_anom_result_free(ari_anom_result *res);

/* The group of each task (-1: not modelled) into group[n]; returns the
 * number modelled. */
size_t ari_anom_groups(const ari_anom_input *in, int *group);

#endif
