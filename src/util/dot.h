/* dot.h: the dot product of two double vectors, with four partial sums
 * (the compiler vectorises it; the hot loop of the incremental PCA's Gram
 * matrix and of the VAR's normal equations). */
#ifndef ARIADNE_DOT_H
#define ARIADNE_DOT_H

#include <stddef.h>

static inline double ari_dot(const double *x, const double *y, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        s0 += x[j] * y[j];
        s1 += x[j + 1] * y[j + 1];
        s2 += x[j + 2] * y[j + 2];
        s3 += x[j + 3] * y[j + 3];
    }
    for (; j < n; j++)
        s0 += x[j] * y[j];
    return (s0 + s1) + (s2 + s3);
}

#endif
