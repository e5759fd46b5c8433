/* reply.h: building HTTP responses (JSON bodies, errors) and reading
 * request parameters with validation. Every function that answers the
 * request marks it responded; parameter readers answer 400 themselves on a
 * bad value and return -1, so a handler just returns. */
#ifndef ARIADNE_REPLY_H
#define ARIADNE_REPLY_H

#include <jansson.h>

#include "server.h"

enum MHD_Result ari_reply_json(ari_request *r, unsigned status, json_t *body); /* steals body */
enum MHD_Result ari_reply_text_json(ari_request *r, unsigned status, const char *json_text);
enum MHD_Result ari_reply_empty(ari_request *r, unsigned status);
enum MHD_Result ari_reply_error(ari_request *r, unsigned status, const char *code,
                                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Maps a core error to its status: not_found 404, busy 503, invalid_* 400,
 * too_large 413, anything else 500. */
enum MHD_Result ari_reply_from_error(ari_request *r, const ari_error *e);
/* Adds a header to the next response of this request. */
void ari_reply_header(ari_request *r, const char *name, const char *value);
enum MHD_Result ari_queue(ari_request *r, unsigned status, struct MHD_Response *resp);

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

#endif
