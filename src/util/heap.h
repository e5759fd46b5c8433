/* heap.h: a binary heap of any element type over a caller's growable array
 * (vec.h: the caller keeps `T *v; size_t n, cap;`), first element on top.
 * `before(a, b)` is nonzero when element a must leave the heap before b;
 * give it a total order (break ties, e.g. by a sequence number) and the
 * order of pops is fully determined. */
#ifndef ARIADNE_HEAP_H
#define ARIADNE_HEAP_H

#include <stddef.h>

typedef int (*ari_heap_before)(const void *a, const void *b);

/* Adds a copy of *item (`size` bytes) to the heap (*v, *n, *cap). 0, or -1
 * when out of memory: the heap is then unchanged. */
int ari_heap_push(void **v, size_t *n, size_t *cap, size_t size, const void *item, ari_heap_before before);

/* Removes the first element of the heap (v, *n), which must not be empty,
 * and copies it to *top (`size` bytes). */
void ari_heap_pop(void *v, size_t *n, size_t size, void *top, ari_heap_before before);

#endif
