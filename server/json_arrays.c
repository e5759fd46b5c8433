/* json_arrays.c: JSON arrays from C arrays (json_arrays.h). */
#include "json_arrays.h"

json_t *ari_json_reals(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}
