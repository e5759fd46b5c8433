/* heap.c: the binary heap of heap.h (sift up on push, sift down on pop,
 * moving a hole so that each level costs one copy). */
#include "util/heap.h"

#include <string.h>

#include "util/vec.h"

static char *at(void *v, size_t i, size_t size)
{
    return (char *)v + i * size;
}

int ari_heap_push(void **v, size_t *n, size_t *cap, size_t size, const void *item, ari_heap_before before)
{
    if (ari_vec_reserve(v, cap, *n + 1, size) < 0)
        return -1;
    size_t i = (*n)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(item, at(*v, parent, size)))
            break;
        memcpy(at(*v, i, size), at(*v, parent, size), size);
        i = parent;
    }
    memcpy(at(*v, i, size), item, size);
    return 0;
}

void ari_heap_pop(void *v, size_t *n, size_t size, void *top, ari_heap_before before)
{
    memcpy(top, v, size);
    /* The last element stays readable at index *n while the hole sinks. */
    const char *last = at(v, --*n, size);
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && before(at(v, c + 1, size), at(v, c, size)))
            c++;
        if (!before(at(v, c, size), last))
            break;
        memcpy(at(v, i, size), at(v, c, size), size);
        i = c;
    }
    if (*n > 0)
        memcpy(at(v, i, size), last, size);
}
