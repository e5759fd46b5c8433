/* alloc.h: allocating the zeroed struct a constructor returns, with the
 * out-of-memory error set for the caller when it cannot be had. */
#ifndef ARIADNE_ALLOC_H
#define ARIADNE_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

#include "util/error.h"

/* calloc(1, size); on failure NULL with err (may be NULL) set to
 * ARI_E_NOMEM "out of memory". Free the result with free(). */
static inline void *ari_zalloc(size_t size, ari_error *err)
{
    void *p = calloc(1, size);
    if (!p)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return p;
}

#endif
