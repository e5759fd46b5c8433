/* live_message.h: the analyses of a live hub and the point message they
 * make (contract18 section 3, spec 4.2). The engine belongs to the hub's
 * worker thread. In two phases per message:
 *  - snapshot (the caller holds the lock of the run's live_data): brings
 *    the online states (change points, the causality's representative
 *    series) up to the time points [0, t_end) in key order, and copies what
 *    the budgeted analyses and the message need (windows, series at the
 *    chosen granularity, the summary, the live communication matrix);
 *  - compose (no lock): progressive k-means, the two progressive PCAs, the
 *    progressive VAR, each within its budget, and the message's JSON.
 * A late or changed point, a new granularity or CPD metric resets the
 * online states, which are then fed again from the first point (so the
 * result is the same as for the sorted data: deterministic).
 * Granularity: the entities of the chosen level; an entity's value is its
 * own, else the mean of its leaf-level descendants. */
#ifndef ARIADNE_LIVE_MESSAGE_H
#define ARIADNE_LIVE_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "live_controls.h"
#include "store/live_data.h"
#include "util/error.h"

typedef struct ari_live_engine ari_live_engine;

typedef struct ari_live_point {
    int64_t seq;          /* the record's arrival seq (the SSE id) */
    size_t t_idx;         /* its time point */
    int update;           /* 1: an update of a known point (event: update) */
    double arrival;       /* ari_now() when the append was acknowledged; 0: unknown */
} ari_live_point;

ari_live_engine *ari_live_engine_new(void);
void ari_live_engine_free(ari_live_engine *e);
/* Forgets the online states (fed again from the first point next time). */
void ari_live_engine_reset(ari_live_engine *e);

/* Phase 1, under the data lock. ctl: resolved controls. t_end <= the
 * run's points; pt->t_idx < t_end. Returns 0 or -1 with err. */
int ari_live_engine_snapshot(ari_live_engine *e, ari_live_data *ld, const ari_live_controls *ctl, size_t t_end,
                             const ari_live_point *pt, ari_error *err);
/* Phase 2, without the lock: the message's JSON (malloc'd, *len set). */
char *ari_live_engine_compose(ari_live_engine *e, size_t *len, ari_error *err);

/* Results kept for /state and /comm (valid until the next snapshot):
 * the change points (time indices), and the cluster label of each entity
 * of the granularity (ids[i] -> labels[i]). */
size_t ari_live_engine_change_points(const ari_live_engine *e, const size_t **cps);
size_t ari_live_engine_labels(const ari_live_engine *e, const size_t **ids, const int **labels);

/* Helpers shared with the hub's other endpoints. */
/* The level of the run's hierarchy named `level`: its depth (0 = root), or -1. */
int ari_live_level_depth(const ari_live_data *ld, const char *level);
/* The depth of the entities the communication triples are between (KP
 * for ROSS CommData, even when LPs have values). */
int ari_live_comm_depth(ari_live_data *ld);

#endif
