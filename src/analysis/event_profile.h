/* event_profile.h: the function analyses of an event trace (issue 19), as
 * Pipit's Trace defines them, over the Function states of its locations
 * streamed in (location, start, depth) order:
 *
 *  - flat profile (Pipit's flat_profile): per (location, function) the
 *    inclusive time (Leave - Enter), the exclusive time (inclusive minus
 *    the children's inclusive) and the number of calls; per function the
 *    totals, and Pipit's value (the mean over the processes that call it);
 *  - time profile (Pipit's time_profile): N equal bins over [t0, t1]; each
 *    function's exclusive time split over the bins it overlaps (the time
 *    in the bin where it is the innermost open function of a location),
 *    summed over locations; values under 0.01 read as 0 and idle = bin
 *    duration x locations - the functions' sum, as Pipit does;
 *  - load imbalance (Pipit's load_imbalance): per function, over the
 *    processes (ranks) calling it, the mean and max of the per-rank sum of
 *    exclusive (or inclusive) time, imbalance = max / mean, and the ranks
 *    with the largest values;
 *  - idle time (Pipit's idle_time): per location the inclusive time of the
 *    calls to the idle functions, and the time in any function;
 *  - caller-callee (Pipit's _match_caller_callee): how many calls have a
 *    parent, how many have children, and per (caller, callee) the calls
 *    and their inclusive time.
 *
 * Pure C. Memory: one cell per (location, function) called, one per
 * (caller, callee) pair, the open stack of one location, and bins x
 * functions seen for the time profile (bounded by the caller's bins).
 */
#ifndef ARIADNE_EVENT_PROFILE_H
#define ARIADNE_EVENT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_EVP_MAX_DEPTH    4096
#define ARI_EVP_MAX_BINS     100000
#define ARI_EVP_MAX_TP_CELLS (1 << 21) /* bins x functions with time in the range */

/* One Function state: an Enter/Leave pair of a location. */
typedef struct ari_evp_state {
    int32_t loc;   /* location index, 0..nlocs-1 */
    int32_t name;  /* function index, 0..nnames-1 */
    int32_t depth; /* open functions below it (0: bottom of the stack) */
    double start, end;
} ari_evp_state;

typedef struct ari_evp_options {
    const int64_t *loc_rank; /* nlocs: each location's process (rank); NULL: the location index */
    const uint8_t *idle;     /* nnames: 1 for an idle function; NULL: none */
    int bins;                /* time profile bins, 0 for none (at most ARI_EVP_MAX_BINS) */
    double t0, t1;           /* the time profile's range (t1 > t0 when bins > 0) */
} ari_evp_options;

typedef struct ari_evp ari_evp;

/* Per (location, function). */
typedef struct ari_evp_cell {
    int32_t loc, name;
    double inclusive, exclusive;
    int64_t count;
} ari_evp_cell;

/* Per function over the trace. */
typedef struct ari_evp_func {
    int32_t name;
    double inclusive, exclusive; /* sums over locations */
    int64_t count;
    int64_t processes;                     /* ranks calling it */
    double mean_inclusive, mean_exclusive; /* Pipit's flat_profile: mean over those ranks */
} ari_evp_func;

typedef struct ari_evp_imb {
    int32_t name;
    double mean, max, imbalance;
    int ntop;
    int64_t *top_ranks; /* ntop, largest value first */
    double *top_values;
} ari_evp_imb;

typedef struct ari_evp_pair {
    int32_t caller, callee;
    int64_t count;
    double inclusive;
} ari_evp_pair;

typedef struct ari_evp_loc {
    double idle;  /* inclusive time in idle functions */
    double total; /* time in any function (the bottom frames' inclusive sum) */
} ari_evp_loc;

ari_evp *ari_evp_new(int32_t nlocs, int32_t nnames, const ari_evp_options *o, ari_error *err);
/* Adds one state. The states of a location come together, by start then
 * depth; 0, or -1 with err (a location met twice, a bad index, a state
 * out of order or too deep, out of memory). */
int ari_evp_add(ari_evp *p, const ari_evp_state *s, ari_error *err);
/* Closes what is open and finishes the time profile. 0 or -1. */
int ari_evp_finish(ari_evp *p, ari_error *err);
void ari_evp_free(ari_evp *p);

/* Results (after finish). Arrays stay owned by p unless said otherwise. */
/* The (location, function) cells by location, then exclusive time desc. */
const ari_evp_cell *ari_evp_cells(const ari_evp *p, size_t *n);
/* Per function, by exclusive time desc; malloc'd (free). 0 or -1. */
int ari_evp_functions(const ari_evp *p, ari_evp_func **out, size_t *n, ari_error *err);
/* Pipit's load_imbalance on exclusive (inclusive = 0) or inclusive time,
 * with up to `top` ranks each; by imbalance desc (by mean desc when
 * by_mean). Free with ari_evp_imbalance_free. 0 or -1. */
int ari_evp_imbalance(const ari_evp *p, int inclusive, int top, int by_mean, ari_evp_imb **out, size_t *n,
                      ari_error *err);
void ari_evp_imbalance_free(ari_evp_imb *v, size_t n);
/* Caller-callee pairs by count desc; the counts of calls with a parent
 * and with children. */
const ari_evp_pair *ari_evp_pairs(const ari_evp *p, size_t *n, int64_t *with_parent, int64_t *with_children);
/* Per location (nlocs entries). */
const ari_evp_loc *ari_evp_locs(const ari_evp *p);
/* The time profile: bins values of a function (NULL when it has none in
 * the range), the idle values, the bin width and the edges (bins + 1). */
const double *ari_evp_tp_values(const ari_evp *p, int32_t name);
const double *ari_evp_tp_idle(const ari_evp *p);
const double *ari_evp_tp_edges(const ari_evp *p);
double ari_evp_tp_bin_duration(const ari_evp *p);

#endif
