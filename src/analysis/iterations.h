/* iterations.h: the outer-loop iterations of a task trace (the
 * /iterations endpoint): per iteration number, the first start, the last
 * end, the task count and the task count per type. Pure. */
#ifndef ARIADNE_ANALYSIS_ITERATIONS_H
#define ARIADNE_ANALYSIS_ITERATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A task without an iteration (the same value as the store's). */
#define ARI_ITERATIONS_NONE INT64_MIN

typedef struct ari_iteration {
    int64_t iteration;
    double start, end; /* first start, last end */
    int64_t tasks;
    int64_t *per_type; /* [ntypes] tasks of each type */
} ari_iteration;

typedef struct ari_iterations {
    int ntypes;
    size_t n;
    ari_iteration *items; /* by iteration number */
} ari_iterations;

/* Groups the n tasks (type[i] in [0, ntypes)) by iteration; tasks with
 * ARI_ITERATIONS_NONE are left out. Returns 0 and fills *out (free with
 * ari_iterations_free), or -1 (out of memory; *out is then empty). */
int ari_iterations_compute(int64_t n, const int64_t *iteration, const double *start, const double *end,
                           const int *type, int ntypes, ari_iterations *out, ari_error *err);
void ari_iterations_free(ari_iterations *it);

#endif
