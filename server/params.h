/* params.h: reading request parameters with validation: query-string
 * integers, numbers, enumerations, path ids and JSON object bodies. Every
 * reader answers 400 itself on a bad value (naming the parameter and the
 * accepted range) and returns -1, so a handler just returns. */
#ifndef ARIADNE_PARAMS_H
#define ARIADNE_PARAMS_H

#include <jansson.h>

#include "server.h"

/* Query string parameters. The _int reader accepts an optional parameter
 * (def when absent) and answers 400 when it is not an integer in [min, max]. */
const char *ari_param(ari_request *r, const char *name);
int ari_param_int(ari_request *r, const char *name, int64_t def, int64_t min, int64_t max,
                  int64_t *out);
/* A string parameter that must be one of the NULL-terminated choices. */
int ari_param_choice(ari_request *r, const char *name, const char *const *choices,
                     const char **out);
/* Path parameter i as a positive 64-bit id; 400 if it is not one. */
int ari_path_id(ari_request *r, int i, int64_t *out);
/* Parses the JSON object body; 415/400 on a wrong type or bad JSON. */
json_t *ari_body_object(ari_request *r);

/* A caller's value made safe to quote in an error message: at most 64
 * characters, bytes outside printable ASCII as '?' (a JSON message must be
 * valid UTF-8). Returns buf, which needs ARI_PRINTABLE_SIZE bytes. */
#define ARI_PRINTABLE_SIZE 72
const char *ari_printable(const char *s, char *buf);

/* A number parameter: finite, in [min, max]; def when absent. */
int ari_param_number(ari_request *r, const char *name, double def, double min, double max,
                     double *out);

#endif
