/* lower_bound.h: binary search in a sorted array of doubles. */
#ifndef ARIADNE_LOWER_BOUND_H
#define ARIADNE_LOWER_BOUND_H

#include <stdint.h>

/* The first index i in [0, n) with a[i] >= x (n if none); a is sorted
 * increasing. */
int64_t ari_lower_bound(const double *a, int64_t n, double x);

#endif
