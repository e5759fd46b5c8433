/* bench_profile_load.c: times ari_profile_load (the whole CCT of a profile
 * trace into memory, as the super-graph analyses take it) and reports the
 * peak resident set against the size of the raw metric data.
 *
 *   bench_profile_load DB [TRACE_ID]     (default: the newest profile)
 *
 * Prints: nodes, processes, metrics, raw MB (nodes x processes x metrics x
 * 8 bytes), load seconds, peak RSS MB and peak / raw. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "store/profile_queries.h"
#include "store/store_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_profile_load DB [TRACE_ID]\n");
        return 2;
    }
    ari_error err = {0};
    ari_store *s = ari_store_open(argv[1], &err);
    if (!s) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    int64_t id = argc > 2 ? strtoll(argv[2], NULL, 10) : 0;
    if (!id) {
        ari_stmt *st = ari_store_prepare(s, "SELECT max(id) FROM traces WHERE kind = 'profile'", NULL);
        if (st && ari_step(st) == ARI_ROW)
            id = ari_col_int64(st, 0);
        ari_stmt_finalize(st);
    }
    double t0 = now();
    ari_cct c;
    if (ari_profile_load(s, id, &c, &err) != 0) {
        fprintf(stderr, "load: %s\n", err.message);
        return 1;
    }
    double t = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double raw = (double)c.nnodes * c.nprocs * c.nmetrics * 8 / 1048576.0, peak = (double)ru.ru_maxrss / 1024.0;
    printf("nodes %lld processes %d metrics %d raw_MB %.0f load_s %.2f peak_MB %.0f peak/raw %.2f\n",
           (long long)c.nnodes, c.nprocs, c.nmetrics, raw, t, peak, peak / raw);
    ari_cct_free(&c);
    ari_store_close(s);
    return 0;
}
