/* params.c: reading request parameters (query string, path ids, JSON
 * bodies) with validation; a bad value answers 400 naming the parameter
 * (see params.h). */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reply.h"

const char *ari_param(ari_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* Digits with an optional leading '-', nothing else (strtoll alone would
 * also take leading blanks and a '+'). */
static int parse_int64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    for (const char *p = s[0] == '-' ? s + 1 : s; ; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        if (!p[1])
            break;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

int ari_param_int(ari_request *r, const char *name, int64_t def, int64_t min, int64_t max, int64_t *out)
{
    const char *s = ari_param(r, name);
    if (!s) {
        *out = def;
        return 0;
    }
    if (parse_int64(s, out) < 0 || *out < min || *out > max) {
        ari_reply_error(r, 400, "invalid_parameter", "%s must be an integer in %lld..%lld, got '%.64s'",
                        name, (long long)min, (long long)max, s);
        return -1;
    }
    return 0;
}

int ari_param_choice(ari_request *r, const char *name, const char *const *choices, const char **out)
{
    const char *s = ari_param(r, name);
    *out = NULL;
    if (!s)
        return 0;
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = choices[i];
            return 0;
        }
        used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%s",
                                 i ? ", " : "", choices[i]);
    }
    ari_reply_error(r, 400, "invalid_parameter", "%s must be one of %s, got '%.64s'", name, list, s);
    return -1;
}

int ari_path_id(ari_request *r, int i, int64_t *out)
{
    if (i >= r->nparams || parse_int64(r->params[i], out) < 0 || *out <= 0) {
        ari_reply_error(r, 400, "invalid_parameter", "'%.64s' is not a valid id (a positive integer)",
                        i < r->nparams ? r->params[i] : "");
        return -1;
    }
    return 0;
}

json_t *ari_body_object(ari_request *r)
{
    const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Type");
    if (!type || strncasecmp(type, "application/json", 16) != 0) {
        ari_reply_error(r, 415, "unsupported_media_type", "the body must be JSON (Content-Type: application/json)");
        return NULL;
    }
    json_error_t jerr;
    json_t *body = r->body ? json_loadb(r->body, r->body_len, 0, &jerr) : NULL;
    if (!body) {
        ari_reply_error(r, 400, "invalid_json", "the body is not valid JSON: %s", r->body ? jerr.text : "empty body");
        return NULL;
    }
    if (!json_is_object(body)) {
        json_decref(body);
        ari_reply_error(r, 400, "invalid_json", "the body must be a JSON object");
        return NULL;
    }
    return body;
}

/* ---- numbers ---- */

/* A decimal number: digits, sign, point and exponent only (strtod alone
 * would also take "nan", "inf", hex and leading blanks). */
static int parse_number(const char *s, double *out)
{
    if (!s || !*s || strlen(s) > 64 || strspn(s, "0123456789+-.eE") != strlen(s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

const char *ari_printable(const char *s, char *buf)
{
    size_t n = 0;
    for (; s && s[n] && n < 64; n++)
        buf[n] = (unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f ? '?' : s[n];
    if (s && s[n]) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

int ari_param_number(ari_request *r, const char *name, double def, double min, double max,
                     double *out)
{
    const char *s = ari_param(r, name);
    if (!s) {
        *out = def;
        return 0;
    }
    if (parse_number(s, out) < 0 || *out < min || *out > max) {
        char safe[ARI_PRINTABLE_SIZE];
        ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in %g..%g, got '%s'", name, min, max,
                        ari_printable(s, safe));
        return -1;
    }
    return 0;
}
