/* free_all.h: releasing the several arrays a result struct owns in one
 * call, for the `_free` functions: list the pointers, free them all. */
#ifndef ARIADNE_FREE_ALL_H
#define ARIADNE_FREE_ALL_H

#include <stddef.h>
#include <stdlib.h>

/* free()s each of the n pointers in ptrs (NULL ones included). */
static inline void ari_free_all(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

#endif
