/* reply.h: building HTTP responses (JSON bodies, errors) and reading
 * errors). Every function that answers the request marks it responded;
 * parameters are read with params.h. */
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

#endif
