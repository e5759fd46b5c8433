/* event_cct.h: the calling context tree (CCT) of an event trace, built
 * while a reader streams (a tee in front of event_paje): per location a
 * stack of the open regions; an Enter descends to (or adds) the child of
 * the current node with that region's name; a Leave adds the interval's
 * inclusive and exclusive time and one visit to that node for the
 * location's process. At the end the tree is replayed into a profile sink
 * (profile_sink.h: metrics "time (inc)", "time" and "count" per node and
 * process), so an event trace also holds the profile derived from it and
 * the CCT table, super graph, Sankey and ensembles apply to it (issue 19).
 *
 * Memory: one node per distinct call path, one value cell per (node,
 * process) visited; bounded by ARI_PROFILE_MAX_NODE_ID nodes.
 */
#ifndef ARIADNE_EVENT_CCT_H
#define ARIADNE_EVENT_CCT_H

#include "ingest/event_sink.h"
#include "ingest/profile_sink.h"
#include "util/error.h"

typedef struct ari_event_cct ari_event_cct;

ari_event_cct *ari_event_cct_new(ari_error *err);
/* A sink that notes every call and forwards it to next (borrowed; may be
 * NULL: then the tee gives its own handles). Handles returned are next's. */
const ari_event_sink *ari_event_cct_tee(ari_event_cct *c, const ari_event_sink *next);
/* The error that made a callback of the tee fail (code empty if none). */
const ari_error *ari_event_cct_error(const ari_event_cct *c);
/* Closes the regions still open at their location's last time and replays
 * the tree into out. 0, or -1 with err. */
int ari_event_cct_write(ari_event_cct *c, const ari_profile_sink *out, ari_error *err);
void ari_event_cct_free(ari_event_cct *c);

#endif
