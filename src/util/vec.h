/* vec.h: the one growable array of the code base, type-generic by element
 * size. A vector is three fields kept by the caller (pointer, count,
 * capacity), so that a struct can hold `foo *items; size_t n, cap;` and
 * grow it with
 *     if (ari_vec_reserve((void **)&items, &cap, n + 1, sizeof *items) < 0)
 *         return out_of_memory;
 *     items[n++] = x;
 * Capacity doubles (from 16), so appends cost O(1) amortised. */
#ifndef ARIADNE_VEC_H
#define ARIADNE_VEC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for at least `need` elements of `size` bytes in *p (whose
 * capacity is *cap elements). 0, or -1 when out of memory (or the size
 * overflows): *p and *cap are then unchanged. New elements are not zeroed. */
static inline int ari_vec_reserve(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    if (size && c > SIZE_MAX / size)
        return -1;
    void *g = realloc(*p, c * size);
    if (!g)
        return -1;
    *p = g;
    *cap = c;
    return 0;
}

/* ari_vec_reserve, and the elements it adds (from the old capacity to the
 * new one) zeroed, for tables indexed by id whose empty slots must read 0. */
static inline int ari_vec_reserve_zeroed(void **p, size_t *cap, size_t need, size_t size)
{
    size_t old = *cap;
    if (ari_vec_reserve(p, cap, need, size) < 0)
        return -1;
    if (*cap > old)
        memset((char *)*p + old * size, 0, (*cap - old) * size);
    return 0;
}

#endif
