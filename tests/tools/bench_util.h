/* bench_util.h: what the benchmark helpers in tests/tools share: a
 * seeded xorshift generator of uniform and Gaussian draws, a monotonic
 * clock, and the comparison that sorts timings for their median. */
#ifndef ARIADNE_BENCH_UTIL_H
#define ARIADNE_BENCH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <time.h>

/* The generator's state; a tool may set another seed before drawing. */
static uint64_t bench_rng = 0x9e3779b97f4a7c15ULL;

/* Uniform in (0, 1). */
static inline double bench_uniform(void)
{
    bench_rng ^= bench_rng << 13;
    bench_rng ^= bench_rng >> 7;
    bench_rng ^= bench_rng << 17;
    return ((double)(bench_rng >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller, two uniform draws). */
static inline double bench_gaussian(void)
{
    return sqrt(-2 * log(bench_uniform())) * cos(2 * M_PI * bench_uniform());
}

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort order of doubles, ascending. */
static inline int bench_by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
