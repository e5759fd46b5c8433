/* json_arrays.h: JSON arrays built from plain C arrays, for the handlers'
 * encoders. */
#ifndef ARIADNE_JSON_ARRAYS_H
#define ARIADNE_JSON_ARRAYS_H

#include <jansson.h>
#include <stddef.h>

/* A new array of the n reals v[0..n) (jansson's real encoding). */
json_t *ari_json_reals(const double *v, size_t n);

#endif
