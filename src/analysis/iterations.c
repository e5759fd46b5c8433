/* iterations.c: tasks grouped by outer-loop iteration (see iterations.h). */
#include "analysis/iterations.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/index_sort.h"

/* One iteration: tasks idx[from .. to). */
static int iteration_of(int64_t from, int64_t to, const int64_t *idx, const int64_t *iteration,
                        const double *start, const double *end, const int *type, int ntypes,
                        ari_iteration *out)
{
    out->per_type = calloc((size_t)ntypes + 1, sizeof *out->per_type);
    if (!out->per_type)
        return -1;
    out->start = INFINITY;
    out->end = -INFINITY;
    for (int64_t j = from; j < to; j++) {
        int64_t i = idx[j];
        out->start = fmin(out->start, start[i]);
        out->end = fmax(out->end, end[i]);
        out->per_type[type[i]]++;
    }
    out->iteration = iteration[idx[from]];
    out->tasks = to - from;
    return 0;
}

int ari_iterations_compute(int64_t n, const int64_t *iteration, const double *start, const double *end,
                           const int *type, int ntypes, ari_iterations *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    out->ntypes = ntypes;
    int64_t *idx = malloc(((size_t)n + 1) * sizeof *idx);
    int64_t k = 0;
    for (int64_t i = 0; idx && i < n; i++)
        if (iteration[i] != ARI_ITERATIONS_NONE)
            idx[k++] = i;
    out->items = idx ? calloc((size_t)k + 1, sizeof *out->items) : NULL;
    int ok = out->items != NULL;
    if (ok)
        ari_sort_index_by_int64(idx, (size_t)k, iteration);
    for (int64_t from = 0, to; ok && from < k; from = to) {
        for (to = from + 1; to < k && iteration[idx[to]] == iteration[idx[from]]; to++)
            ;
        ok = iteration_of(from, to, idx, iteration, start, end, type, ntypes, &out->items[out->n]) == 0;
        out->n += ok;
    }
    free(idx);
    if (!ok) {
        ari_iterations_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

void ari_iterations_free(ari_iterations *it)
{
    for (size_t i = 0; i < it->n; i++)
        free(it->items[i].per_type);
    free(it->items);
    memset(it, 0, sizeof *it);
}
