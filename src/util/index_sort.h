/* index_sort.h: sorting an array of indices by the values they point at,
 * for the analyses that order tasks (by start, by iteration) without
 * moving their columns. */
#ifndef ARIADNE_INDEX_SORT_H
#define ARIADNE_INDEX_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts idx[0..n) (indices into key) by key[idx[i]], equal keys by index,
 * so the order is total and the same on every platform. A NaN key sorts
 * after every number it is compared with (as ari_cmp_double). */
void ari_sort_index_by_double(int64_t *idx, size_t n, const double *key);
/* The same with integer keys. */
void ari_sort_index_by_int64(int64_t *idx, size_t n, const int64_t *key);

#endif
