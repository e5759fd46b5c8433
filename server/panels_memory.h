/* panels_memory.h: the panels of GET /traces/{id}/panels that read the
 * memory managers (server/api_panels.c lists them): the memory-manager
 * states per memory node, the memory used per memory node from the data
 * handles present on it (data.rec sizes), and the GPU transfer bandwidth
 * from the trace's links when it has no bandwidth variable. Each fills
 * `panel` (unit, aggregation, columns, series) for width equal steps of
 * [t0, t1] on the trace's time axis; returns 0, or -1 with err set. */
#ifndef ARIADNE_PANELS_MEMORY_H
#define ARIADNE_PANELS_MEMORY_H

#include <jansson.h>

#include "analysis_ctx.h"
#include "handlers.h"

int ari_panel_memory_states(ari_request *r, const ari_actx *ctx, double t0, double t1, int width,
                            json_t *panel, ari_error *err);
int ari_panel_memory_handles(ari_request *r, const ari_actx *ctx, double t0, double t1, int width,
                             json_t *panel, ari_error *err);
int ari_panel_gpu_links(ari_request *r, const ari_actx *ctx, double t0, double t1, int width, json_t *panel,
                        ari_error *err);

#endif
