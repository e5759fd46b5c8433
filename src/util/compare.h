/* compare.h: three-way comparisons for qsort comparators: -1, 0 or 1 as a
 * sorts before, with or after b, so that a comparator over several keys
 * reads `int c = ari_cmp_...(first keys); return c ? c : ari_cmp_...(next);`. */
#ifndef ARIADNE_COMPARE_H
#define ARIADNE_COMPARE_H

#include <stdint.h>

static inline int ari_cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* Equal values give 0; a pair with a NaN gives 1. */
static inline int ari_cmp_double(double a, double b)
{
    return a == b ? 0 : a < b ? -1 : 1;
}

#endif
