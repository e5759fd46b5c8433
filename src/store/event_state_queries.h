/* event_state_queries.h: what the function analyses of an event trace
 * (issue 19; analysis/event_profile.h) read from the store: its locations
 * (ev_locations: the Thread containers with their rank and thread; the
 * Thread containers themselves when that table is empty), the names of its
 * Function values, the extent of its rows, and its Function states
 * (states of type alias "F") streamed one location at a time by start
 * then depth, over a time window when asked.
 *
 * Costs: locations and names, one pass over those tables; the states, one
 * index range of states_by_container (trace_id, container_id, start) per
 * location; the extent, one pass over the trace's states and events.
 * Memory: the locations and names, never the states.
 */
#ifndef ARIADNE_EVENT_STATE_QUERIES_H
#define ARIADNE_EVENT_STATE_QUERIES_H

#include <stdint.h>

#include "analysis/event_profile.h" /* ari_evp_state */
#include "store/store.h"
#include "util/error.h"

typedef struct ari_evs_location {
    int64_t container_id; /* the Thread container */
    int64_t rank, thread;
} ari_evs_location;

typedef struct ari_evs_trace {
    ari_evs_location *locs; /* by container id */
    int32_t nlocs;
    char **names;      /* the trace's names (names table), by id */
    int64_t *name_ids; /* names.id of names[i], ascending */
    int32_t nnames;
    int64_t function_type; /* entity_types.id of "F", -1 when the trace has none */
} ari_evs_trace;

/* Loads the locations and names of trace id. 0, or -1 with err. Free
 * with ari_evs_free (also after a failure). */
int ari_evs_load(ari_store *s, int64_t id, ari_evs_trace *out, ari_error *err);
void ari_evs_free(ari_evs_trace *t);

/* The index in t->names of a name, or -1. */
int32_t ari_evs_name_index(const ari_evs_trace *t, const char *name);

/* The first and last time of the trace's states and events (Pipit's
 * events table: Enter, Leave and Instant rows); *t0 = *t1 = 0 when it has
 * none. 0 or -1. */
int ari_evs_extent(ari_store *s, int64_t id, double *t0, double *t1, ari_error *err);

/* Calls fn with every Function state of the trace, location by location
 * (in t->locs order; loc = its index there, name = its index in t->names),
 * by start then depth; only those touching [t0, t1] when t0 <= t1 (pass
 * NAN for all). Stops at fn's -1 (its err). 0 or -1. */
typedef int (*ari_evs_fn)(void *ctx, const ari_evp_state *st, ari_error *err);
int ari_evs_each(ari_store *s, int64_t id, const ari_evs_trace *t, double t0, double t1, ari_evs_fn fn,
                 void *ctx, ari_error *err);

#endif
