/* index_sort.c: index arrays sorted by a key column (see index_sort.h). */
#include "util/index_sort.h"

#include <stdlib.h>

#include "util/compare.h"

static int by_double_key(const void *a, const void *b, void *arg)
{
    const double *key = arg;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = ari_cmp_double(key[x], key[y]);
    return c ? c : ari_cmp_i64(x, y);
}

static int by_int64_key(const void *a, const void *b, void *arg)
{
    const int64_t *key = arg;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = ari_cmp_i64(key[x], key[y]);
    return c ? c : ari_cmp_i64(x, y);
}

void ari_sort_index_by_double(int64_t *idx, size_t n, const double *key)
{
    qsort_r(idx, n, sizeof *idx, by_double_key, (void *)key);
}

void ari_sort_index_by_int64(int64_t *idx, size_t n, const int64_t *key)
{
    qsort_r(idx, n, sizeof *idx, by_int64_key, (void *)key);
}
