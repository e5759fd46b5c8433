/* lower_bound.c: binary search in a sorted array (see lower_bound.h). */
#include "util/lower_bound.h"

int64_t ari_lower_bound(const double *a, int64_t n, double x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
