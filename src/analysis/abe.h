/* abe.h: the Area Bound Estimation (ABE) of a heterogeneous task run
 * (seed paper, section V-A; StarVZ's `abe`).
 *
 * Given n[k] tasks of each type k, count[r] resources of each type r and
 * the mean duration w[r][k] of type k on resource type r, the ABE is the
 * optimum T of the linear program
 *
 *     minimise T
 *     subject to  sum_r x[r][k] = n[k]                for every type k
 *                 sum_k w[r][k] x[r][k] <= count[r] T for every resource type r
 *                 x >= 0, T >= 0
 *
 * where x[r][k] is the (fractional) number of type-k tasks placed on
 * resource type r. A pair (r, k) whose mean duration is unknown (NAN: the
 * type never ran there) is excluded: x[r][k] is fixed at 0. Resource types
 * with count 0 likewise receive nothing. T is a lower bound of the
 * makespan; x is the ideal allocation (StarVZ's Fig. 3 (e) bullets).
 *
 * Matrices are row-major by resource type: w[r * ntypes + k].
 */
#ifndef ARIADNE_ANALYSIS_ABE_H
#define ARIADNE_ANALYSIS_ABE_H

#include "util/error.h"

/* Limits that keep the LP small and GLPK's int indices safe. */
#define ARI_ABE_MAX_TYPES 100000
#define ARI_ABE_MAX_RESTYPES 1000
#define ARI_ABE_MAX_PAIRS 1000000

typedef struct ari_abe_input {
    int ntypes;                  /* K >= 1 task types */
    int nrestypes;               /* R >= 1 resource types */
    const double *task_count;    /* [K] n[k]: finite, >= 0 (may be fractional) */
    const double *res_count;     /* [R] count[r]: finite, >= 0 */
    const double *mean_duration; /* [R * K] w[r][k]: finite >= 0, or NAN = never ran there */
} ari_abe_input;

typedef struct ari_abe_result {
    double bound;      /* T, the area bound (0 when there are no tasks) */
    int ntypes, nrestypes;
    double *alloc;     /* [R * K] x[r][k], the optimal allocation (row-major like w) */
    double *load;      /* [R] sum_k w[r][k] x[r][k] / count[r] (0 when count[r] == 0) */
} ari_abe_result;

/* Solves the LP with GLPK's simplex (silent). Returns 0 and fills *out
 * (free with ari_abe_result_free), or -1 with:
 *   ARI_E_INVALID_PARAMETER  bad sizes, NULL arrays, negative or non-finite
 *                            numbers, or an infeasible problem: a type with
 *                            tasks but no resource type able to run it
 *                            (every w[r][k] NAN or count[r] == 0), which
 *                            includes "no resources at all";
 *   ARI_E_NOMEM              out of memory;
 *   ARI_E_INVALID_INPUT      GLPK failed to reach an optimum (numerical
 *                            trouble; message gives GLPK's code).
 * *out is left empty (safe to free) on failure. Thread-safe as far as the
 * GLPK build is (Debian's keeps its state per thread). */
int ari_abe_compute(const ari_abe_input *in, ari_abe_result *out, ari_error *err);

void ari_abe_result_free(ari_abe_result *res);

#endif
