/* reply.h: building HTTP responses (JSON bodies, errors) and reading
 * errors). Every function that answers the request marks it responded;
 * parameters are read with params.h. */
#ifndef ARIADNE_REPLY_H
#define ARIADNE_REPLY_H

#include <jansson.h>

#include "server.h"

enum MHD_Result ari_reply_json(ari_request *r, unsigned status, json_t *body); /* steals body */
/* A 200 answer of a request for ?format=csv goes out as CSV instead
 * (csv_reply.h); every other answer as the JSON given. */
enum MHD_Result ari_reply_text_json(ari_request *r, unsigned status, const char *json_text);
/* Answers 200 with doc (taken; NULL = building it failed: 500) encoded
 * compactly with reals to `digits` significant digits. */
enum MHD_Result ari_reply_doc(ari_request *r, json_t *doc, int digits);
enum MHD_Result ari_reply_empty(ari_request *r, unsigned status);
enum MHD_Result ari_reply_error(ari_request *r, unsigned status, const char *code,
                                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Maps a core error to its status: not_found 404, busy 503, invalid_* 400,
 * too_large 413, anything else 500. */
enum MHD_Result ari_reply_from_error(ari_request *r, const ari_error *e);
/* Answers a store call that did not succeed: rc == 1 (nothing with this id)
 * is 404 not_found "no <what> <id>", any other rc the error in *e. */
enum MHD_Result ari_reply_lookup_failed(ari_request *r, int rc, const ari_error *e, const char *what,
                                        int64_t id);
/* A store call on one row by id: 0 done, 1 no such row, -1 error (*err). */
typedef int (*ari_row_call)(ari_store *s, int64_t id, ari_error *err);
/* DELETE of the resource whose id is the path's first id: runs del on it and
 * answers 204, 404 "no <what> <id>" or the error (400 for a bad id, as
 * ari_path_id). */
enum MHD_Result ari_reply_delete_by_id(ari_request *r, const char *what, ari_row_call del);
/* Adds a header to the next response of this request. */
void ari_reply_header(ari_request *r, const char *name, const char *value);
enum MHD_Result ari_queue(ari_request *r, unsigned status, struct MHD_Response *resp);

#endif
