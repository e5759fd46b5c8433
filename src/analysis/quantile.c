/* quantile.c: R type-7 quantiles of sorted samples and the sort they need. */
#include "analysis/quantile.h"

#include <math.h>
#include <stdlib.h>

double ari_quantile7_sorted(const double *sorted, size_t n, double p)
{
    /* R: index <- 1 + (n - 1) * p, 1-based; here 0-based. */
    double index = (double)(n - 1) * p;
    double lo = floor(index);
    double hi = ceil(index);
    size_t ilo = (size_t)lo, ihi = (size_t)hi;
    if (ihi >= n)
        ihi = n - 1;
    double q = sorted[ilo];
    if (index > lo && sorted[ihi] != q) {
        double h = index - lo;
        q = (1 - h) * q + h * sorted[ihi];
    }
    return q;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ari_sort_doubles(double *x, size_t n)
{
    if (n > 1)
        qsort(x, n, sizeof *x, cmp_double);
}
