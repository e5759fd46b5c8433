/* live_controls.h: the controls a live run's viewers share (contract18
 * section 3): the two metrics, clustering, CPD target, causality,
 * granularity, window and latency budgets; parsed from a JSON body with
 * every field checked (400 naming the field), resolved against the run's
 * metrics and levels, written as JSON (for the messages and the store). */
#ifndef ARIADNE_LIVE_CONTROLS_H
#define ARIADNE_LIVE_CONTROLS_H

#include <jansson.h>

#include "store/live_data.h"
#include "util/error.h"

#define ARI_LIVE_NAME 96
#define ARI_LIVE_MAX_K 20
#define ARI_LIVE_MAX_WINDOW 1000
#define ARI_LIVE_MAX_BUDGET_MS 10000.0

typedef struct ari_live_controls {
    char top[ARI_LIVE_NAME], bottom[ARI_LIVE_NAME], cluster_metric[ARI_LIVE_NAME]; /* "": default */
    int k;
    int cpd_bottom;           /* 0: CPD on the top metric, 1: on the bottom one */
    double alpha;             /* CPD significance */
    char cause_target[ARI_LIVE_NAME]; /* "": the top metric */
    int cause_to;             /* 0 from (others -> target), 1 to */
    double cause_threshold;
    char granularity[ARI_LIVE_NAME];  /* a level name; "": the leaf level */
    int window;               /* W */
    double cluster_ms, dr_ms, var_ms;
    int version;              /* bumped by every change */
} ari_live_controls;

void ari_live_controls_defaults(ari_live_controls *c);
/* Applies the members of obj (any subset) onto c; on a bad member -1 with
 * err invalid_parameter naming it, and c unchanged. ld (may be NULL; used
 * under the caller's lock) checks metric and level names. */
int ari_live_controls_apply(ari_live_controls *c, json_t *obj, const ari_live_data *ld, ari_error *err);
/* The controls with the defaults resolved against ld (names filled in). */
void ari_live_controls_resolve(const ari_live_controls *c, const ari_live_data *ld, ari_live_controls *out);
/* {"top":..., ..., "version":N}: a new reference. */
json_t *ari_live_controls_json(const ari_live_controls *c);

#endif
