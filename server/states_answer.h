/* states_answer.h: the /states answer (api_states.c) as a document, for
 * the endpoints that extend it (api_event_timeline.c's /timeline). */
#ifndef ARIADNE_STATES_ANSWER_H
#define ARIADNE_STATES_ANSWER_H

#include <jansson.h>

#include "json_text.h"
#include "server.h"

/* The containers of the rows that `containers=` kept (on every page),
 * ascending and distinct; filtered is 0 when the request lists none.
 * Free ids with free(). */
typedef struct ari_states_kept {
    int filtered;
    int64_t *ids;
    size_t n;
} ari_states_kept;

/* Reads the /states parameters of the request (start, end, width, offset,
 * limit, max_states, containers, types) and builds the /states answer of
 * the trace of path parameter 0 (with its settled "start", "end" and
 * "width"). Returns the document (the caller owns it) with "rows": null,
 * whose text is in *rows (written as jansson would with 15 digits; free
 * with ari_json_text_free or ari_states_reply), or NULL after answering
 * the error (400, 404, 409 no_states, 500; *rows is then empty). kept
 * (or NULL) receives the containers of the rows kept by `containers=`. */
json_t *ari_states_answer(ari_request *r, ari_json_text *rows, ari_states_kept *kept);

/* Answers 200 with doc (taken) dumped compactly with reals to `digits`
 * digits and the rows text (freed) in place of its "rows": null (as
 * ari_reply_text_json: ?format=csv gets CSV); 500 when encoding fails. */
enum MHD_Result ari_states_reply(ari_request *r, json_t *doc, ari_json_text *rows, int digits);

#endif
