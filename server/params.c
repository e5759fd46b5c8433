/* params.c: the parameter toolkit (see params.h): the syntax of integers,
 * numbers and lists, the query-string readers that answer 400, path ids,
 * and JSON object bodies checked against a field table. */
#include "params.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reply.h"

/* ---- syntax ---- */

int ari_parse_int64(const char *s, int64_t *out)
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

int ari_parse_number(const char *s, double *out)
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

/* Items of a list: commas + 1 (an empty string is one empty item). */
static size_t count_items(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == ',';
    return n;
}

/* The item starting at s (up to a comma or the end) as an integer in
 * [min, max]; an item longer than 31 characters cannot be one. */
static int parse_item(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
    char item[32];
    if (len == 0 || len >= sizeof item)
        return -1;
    memcpy(item, s, len);
    item[len] = '\0';
    return ari_parse_int64(item, out) < 0 || *out < min || *out > max ? -1 : 0;
}

/* Parses the item of len bytes at s into *out, an element of its list;
 * bounds are what the list allows. 0, or -1 when the item is not one. */
typedef int (*list_item)(const char *s, size_t len, const int64_t bounds[2], void *out);

/* The comma-separated items of s, each parsed by `parse` into an element of
 * `size` bytes, in a new array *out (caller frees) of *n elements. */
static ari_list_status parse_list(const char *s, size_t max_items, size_t size, list_item parse,
                                  const int64_t bounds[2], void **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t count = count_items(s);
    if (count > max_items)
        return ARI_LIST_TOO_LONG;
    char *v = malloc(count * size);
    if (!v)
        return ARI_LIST_NOMEM;
    for (size_t i = 0; i < count; i++) {
        size_t len = strcspn(s, ",");
        if (parse(s, len, bounds, v + i * size) < 0) {
            free(v);
            return ARI_LIST_BAD;
        }
        s += len + 1;
    }
    *out = v;
    *n = count;
    return ARI_LIST_OK;
}

static int int_item(const char *s, size_t len, const int64_t bounds[2], void *out)
{
    return parse_item(s, len, bounds[0], bounds[1], out);
}

ari_list_status ari_parse_int_list(const char *s, int64_t min, int64_t max, size_t max_items, int64_t **out,
                                   size_t *n)
{
    const int64_t bounds[2] = {min, max};
    return parse_list(s, max_items, sizeof **out, int_item, bounds, (void **)out, n);
}

/* "lo-hi" or "n", non-negative, lo <= hi. */
static int parse_range(const char *s, size_t len, ari_int_range *out)
{
    const char *dash = memchr(s, '-', len);
    if (!dash || dash == s) {
        if (parse_item(s, len, 0, INT64_MAX, &out->lo) < 0)
            return -1;
        out->hi = out->lo;
        return 0;
    }
    size_t head = (size_t)(dash - s);
    if (parse_item(s, head, 0, INT64_MAX, &out->lo) < 0 ||
        parse_item(dash + 1, len - head - 1, 0, INT64_MAX, &out->hi) < 0)
        return -1;
    return out->hi < out->lo ? -1 : 0;
}

static int range_item(const char *s, size_t len, const int64_t bounds[2], void *out)
{
    (void)bounds; /* non-negative, as parse_range checks */
    return parse_range(s, len, out);
}

ari_list_status ari_parse_range_list(const char *s, size_t max_items, ari_int_range **out, size_t *n)
{
    return parse_list(s, max_items, sizeof **out, range_item, NULL, (void **)out, n);
}

/* ---- query-string parameters ---- */

const char *ari_param(ari_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

int ari_param_int(ari_request *r, const char *name, int64_t def, int64_t min, int64_t max, int64_t *out)
{
    const char *s = ari_param(r, name);
    if (!s) {
        *out = def;
        return 0;
    }
    if (ari_parse_int64(s, out) < 0 || *out < min || *out > max) {
        ari_reply_error(r, 400, "invalid_parameter", "%s must be an integer in %lld..%lld, got '%.64s'",
                        name, (long long)min, (long long)max, s);
        return -1;
    }
    return 0;
}

int ari_param_number_checked(ari_request *r, const char *name, double def, double min, double max,
                             int open_min, double *out)
{
    const char *s = ari_param(r, name);
    *out = def;
    if (!s)
        return 0;
    double v;
    if (ari_parse_number(s, &v) < 0 || (open_min ? v <= min : v < min) || v > max)
        return -1;
    *out = v;
    return 0;
}

int ari_param_number(ari_request *r, const char *name, double def, double min, double max,
                     double *out)
{
    if (ari_param_number_checked(r, name, def, min, max, 0, out) == 0)
        return 0;
    char safe[ARI_PRINTABLE_SIZE];
    const char *got = ari_printable(ari_param(r, name), safe);
    if (min <= -DBL_MAX && max >= DBL_MAX) /* any number: no range to quote */
        ari_reply_error(r, 400, "invalid_parameter", "%s must be a decimal number, got '%s'", name, got);
    else
        ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in %g..%g, got '%s'", name, min, max, got);
    return -1;
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

int ari_param_window(ari_request *r, double *start, double *end)
{
    if (ari_param_number(r, "start", NAN, -DBL_MAX, DBL_MAX, start) < 0 ||
        ari_param_number(r, "end", NAN, -DBL_MAX, DBL_MAX, end) < 0)
        return -1;
    if (!isnan(*start) && !isnan(*end) && !(*end > *start)) {
        ari_reply_error(r, 400, "invalid_parameter", "end (%g) must be after start (%g)", *end, *start);
        return -1;
    }
    return 0;
}

int ari_param_bool(ari_request *r, const char *name, int def, int *out)
{
    static const char *const booleans[] = {"false", "true", NULL};
    const char *s;
    *out = def;
    if (ari_param_choice(r, name, booleans, &s) < 0)
        return -1;
    if (s)
        *out = s == booleans[1];
    return 0;
}

static int id_listed(const int64_t *ids, int n, int64_t v)
{
    for (int i = 0; i < n; i++) {
        if (ids[i] == v)
            return 1;
    }
    return 0;
}

int ari_param_id_list(ari_request *r, const char *name, const char *what, int min_n, int max_n,
                      int64_t *ids, int *n)
{
    const char *s = ari_param(r, name);
    *n = 0;
    if (!s) {
        ari_reply_error(r, 400, "invalid_parameter", "%s is required: %d to %d %s ids, e.g. %s=1,2", name,
                        min_n, max_n, what, name);
        return -1;
    }
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        int64_t v;
        if (parse_item(p, len, 1, INT64_MAX, &v) < 0 || *n == max_n) {
            char safe[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, "invalid_parameter", "%s must list %d to %d %s ids (positive integers), got '%s'",
                            name, min_n, max_n, what, ari_printable(s, safe));
            return -1;
        }
        if (id_listed(ids, *n, v)) {
            ari_reply_error(r, 400, "invalid_parameter", "%s %lld is listed twice", what, (long long)v);
            return -1;
        }
        ids[(*n)++] = v;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (*n < min_n) {
        ari_reply_error(r, 400, "invalid_parameter", "%s must list %d to %d %s ids, got %d", name, min_n, max_n,
                        what, *n);
        return -1;
    }
    return 0;
}

int ari_path_id(ari_request *r, int i, int64_t *out)
{
    if (i >= r->nparams || ari_parse_int64(r->params[i], out) < 0 || *out <= 0) {
        ari_reply_error(r, 400, "invalid_parameter", "'%.64s' is not a valid id (a positive integer)",
                        i < r->nparams ? r->params[i] : "");
        return -1;
    }
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

/* ---- JSON bodies ---- */

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

json_t *ari_path_id_body(ari_request *r, int64_t *id)
{
    return ari_path_id(r, 0, id) < 0 ? NULL : ari_body_object(r);
}

static const ari_body_field *body_field(const ari_body_field *fields, const char *key)
{
    for (; fields->name; fields++) {
        if (strcmp(fields->name, key) == 0)
            return fields;
    }
    return NULL;
}

static int body_type_ok(ari_body_type type, const json_t *v)
{
    switch (type) {
    case ARI_BODY_STRING:
        return json_is_string(v);
    case ARI_BODY_INTEGER:
        return json_is_integer(v);
    case ARI_BODY_NUMBER:
        return json_is_number(v);
    case ARI_BODY_BOOLEAN:
        return json_is_boolean(v);
    case ARI_BODY_OBJECT:
        return json_is_object(v);
    default:
        return json_is_array(v);
    }
}

static enum MHD_Result body_bad_value(ari_request *r, const ari_body_field *f)
{
    static const char *const names[] = {"a string", "an integer", "a number", "a boolean", "an object",
                                        "an array"};
    return ari_reply_error(r, 400, "invalid_parameter", "%s must be %s", f->name,
                           f->expect ? f->expect : names[f->type]);
}

static enum MHD_Result body_unknown(ari_request *r, const char *key, const ari_body_field *fields)
{
    char allowed[512] = "";
    size_t used = 0;
    for (size_t i = 0; fields[i].name; i++)
        used += (size_t)snprintf(allowed + used, used < sizeof allowed ? sizeof allowed - used : 0, "%s%s",
                                 i ? ", " : "", fields[i].name);
    return ari_reply_error(r, 400, "invalid_parameter", "unknown field '%.64s' (allowed: %s)", key, allowed);
}

int ari_body_check(ari_request *r, json_t *body, const ari_body_field *fields)
{
    for (const ari_body_field *f = fields; f->name; f++) {
        if (f->required && !json_object_get(body, f->name)) {
            body_bad_value(r, f);
            return -1;
        }
    }
    const char *key;
    json_t *value;
    json_object_foreach(body, key, value) {
        const ari_body_field *f = body_field(fields, key);
        if (!f) {
            body_unknown(r, key, fields);
            return -1;
        }
        if (!body_type_ok(f->type, value)) {
            body_bad_value(r, f);
            return -1;
        }
    }
    return 0;
}
