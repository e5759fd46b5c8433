/* api_ensembles.h: what the ensemble handlers (api_ensembles.c,
 * api_ensemble_members.c) share: the JSON of an ensemble and the answer
 * that carries it. */
#ifndef ARIADNE_API_ENSEMBLES_H
#define ARIADNE_API_ENSEMBLES_H

#include <jansson.h>

#include "server.h"
#include "store/store_ensembles.h"

/* The JSON of e: {id, name, created_at, member_count, parameters: [{key,
 * numeric, members}], numeric_parameters: [key], members: [{trace_id,
 * name, position, parameters: {key: text}, sources: {key: source}}]}.
 * NULL when out of memory. */
json_t *ari_ensemble_json(const ari_ensemble *e);
/* Answers `status` with ensemble id's JSON, or 404 "no ensemble N" / the
 * error. */
enum MHD_Result ari_reply_ensemble(ari_request *r, int64_t id, unsigned status);
/* A parameter's value of a JSON body as text into buf (64 bytes): a
 * string as itself (*out points into v), an integer in decimal, a real
 * with %.15g (%.17g if that loses digits), true/false. Returns 0, 1 for
 * null (remove it), -1 for an object or array. */
int ari_ensemble_value_text(const json_t *v, char buf[64], const char **out);

/* The ids of a JSON array (NULL: none) of positive integers, at most
 * ARI_ENSEMBLE_MAX_MEMBERS (field names it in the 400): 0 and *ids
 * (malloc'd, NULL when empty) / *n, or -1 after answering. */
int ari_ensemble_trace_ids(ari_request *r, const json_t *arr, const char *field, int64_t **ids, size_t *n);

#endif
