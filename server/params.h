/* params.h: the one toolkit for request parameters: query-string
 * integers, numbers, enumerations, booleans, id lists and integer range
 * lists, path ids, and JSON object bodies checked against a field table.
 *
 * One rule set for every handler:
 *   integer  an optional '-' then digits, nothing else (no blanks, no '+'),
 *            fitting in 64 bits;
 *   number   decimal only (digits, sign, point, exponent; no "nan", "inf",
 *            hex or blanks), at most 64 characters, finite;
 *   list     items separated by single commas: no empty item, no blanks;
 *   range    "lo-hi" or "n" of non-negative integers, lo <= hi;
 *   boolean  "true" or "false".
 * The ari_param_* readers answer 400 themselves on a bad value (naming the
 * parameter and what it accepts) and return -1, so a handler just returns.
 * The ari_parse_* functions only parse (no reply), for handlers whose 400
 * wording predates the toolkit and must stay as it is. */
#ifndef ARIADNE_PARAMS_H
#define ARIADNE_PARAMS_H

#include <jansson.h>
#include <stddef.h>

#include "server.h"

/* ---- syntax, no reply ---- */

/* An integer (rule above): 0, or -1 when s is NULL or not one. */
int ari_parse_int64(const char *s, int64_t *out);
/* A number (rule above): 0, or -1 when s is NULL or not one. */
int ari_parse_number(const char *s, double *out);

typedef enum ari_list_status {
    ARI_LIST_OK = 0,
    ARI_LIST_BAD = -1,      /* an item is not an integer or out of range */
    ARI_LIST_TOO_LONG = -2, /* more than max_items items (checked first) */
    ARI_LIST_NOMEM = -3
} ari_list_status;

/* A list of integers in [min, max]. *out (malloc'ed, the caller frees it;
 * NULL on failure) gets the *n items in order. */
ari_list_status ari_parse_int_list(const char *s, int64_t min, int64_t max, size_t max_items,
                                   int64_t **out, size_t *n);

typedef struct ari_int_range {
    int64_t lo, hi; /* inclusive; lo == hi for a single integer */
} ari_int_range;

/* A list of ranges ("0-3,7"), each bound in [0, INT64_MAX]. *out as above. */
ari_list_status ari_parse_range_list(const char *s, size_t max_items, ari_int_range **out, size_t *n);

/* ---- query-string parameters, answering 400 ---- */

const char *ari_param(ari_request *r, const char *name);
/* An integer in [min, max]; def when absent. 400: "NAME must be an integer
 * in MIN..MAX, got 'VALUE'". */
int ari_param_int(ari_request *r, const char *name, int64_t def, int64_t min, int64_t max,
                  int64_t *out);
/* A number in [min, max]; def when absent. 400: "NAME must be a number in
 * MIN..MAX, got 'VALUE'". */
int ari_param_number(ari_request *r, const char *name, double def, double min, double max,
                     double *out);
/* The same check without an answer: 0 when absent (def) or valid, -1 when
 * not a number or outside [min, max] ((min, max] with open_min). For
 * handlers that word their own 400. */
int ari_param_number_checked(ari_request *r, const char *name, double def, double min, double max,
                             int open_min, double *out);
/* A string that must be one of the NULL-terminated choices; *out NULL when
 * absent. 400: "NAME must be one of A, B, got 'VALUE'". */
int ari_param_choice(ari_request *r, const char *name, const char *const *choices,
                     const char **out);
/* start= and end=, each optional (NAN when absent); when both are given
 * end must be after start. 400: "end (E) must be after start (S)". */
int ari_param_window(ari_request *r, double *start, double *end);
/* "true" or "false"; def when absent. 400 as ari_param_choice's
 * ("NAME must be one of false, true, got 'VALUE'"). */
int ari_param_bool(ari_request *r, const char *name, int def, int *out);
/* NAME=1,2,3: min_n to max_n distinct positive ids (items of digits only,
 * shorter than 32 characters). `what` names one id in the messages:
 *   absent      "NAME is required: MIN to MAX WHAT ids, e.g. NAME=1,2"
 *   bad item,   "NAME must list MIN to MAX WHAT ids (positive integers),
 *   too many     got 'VALUE'"
 *   repeated    "WHAT ID is listed twice" (items are checked in order)
 *   too few     "NAME must list MIN to MAX WHAT ids, got N"
 * ids needs room for max_n ids. */
int ari_param_id_list(ari_request *r, const char *name, const char *what, int min_n, int max_n,
                      int64_t *ids, int *n);
/* Path parameter i as a positive 64-bit id; 400 if it is not one. */
int ari_path_id(ari_request *r, int i, int64_t *out);

/* A caller's value made safe to quote in an error message: at most 64
 * characters, bytes outside printable ASCII as '?' (a JSON message must be
 * valid UTF-8). Returns buf, which needs ARI_PRINTABLE_SIZE bytes. */
#define ARI_PRINTABLE_SIZE 72
const char *ari_printable(const char *s, char *buf);

/* ---- JSON bodies ---- */

/* Parses the JSON object body; 415/400 on a wrong type or bad JSON. The
 * caller owns the result (json_decref). */
json_t *ari_body_object(ari_request *r);
/* Path parameter 0 as an id (ari_path_id) then the JSON object body
 * (ari_body_object): the body, owned by the caller, or NULL with the error
 * answered (the id's first). */
json_t *ari_path_id_body(ari_request *r, int64_t *id);

typedef enum ari_body_type {
    ARI_BODY_STRING,
    ARI_BODY_INTEGER,
    ARI_BODY_NUMBER,  /* an integer or a real */
    ARI_BODY_BOOLEAN,
    ARI_BODY_OBJECT,
    ARI_BODY_ARRAY
} ari_body_type;

/* One allowed field of an object body. `expect` completes "NAME must be
 * ..." (NULL: "a string", "an integer", ...). null is not a value of any
 * type. */
typedef struct ari_body_field {
    const char *name;
    ari_body_type type;
    int required;
    const char *expect;
} ari_body_field;

/* Checks body against the fields (an array ended by {NULL}): first the
 * required fields in table order, then the keys in body order; the first
 * problem answers 400 invalid_parameter:
 *   required but absent  "NAME must be EXPECT"
 *   unknown key          "unknown field 'KEY' (allowed: A, B)"
 *   wrong type or null   "KEY must be EXPECT"
 * Returns 0, or -1 after answering. Values are read with json_object_get. */
int ari_body_check(ari_request *r, json_t *body, const ari_body_field *fields);

#endif
