/* states_answer.h: the /states answer (api_states.c) as a document, for
 * the endpoints that extend it (api_event_timeline.c's /timeline). */
#ifndef ARIADNE_STATES_ANSWER_H
#define ARIADNE_STATES_ANSWER_H

#include <jansson.h>

#include "server.h"

/* Reads the /states parameters of the request (start, end, width, offset,
 * limit, max_states, containers, types) and builds the /states answer of
 * the trace of path parameter 0 (with its settled "start", "end" and
 * "width"). Returns the document (the caller owns it), or NULL after
 * answering the error (400, 404, 409 no_states, 500). */
json_t *ari_states_answer(ari_request *r);

#endif
