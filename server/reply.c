/* reply.c: responses and parameter validation for the handlers. */
#include "reply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_reply.h"
#include "params.h"

void ari_reply_header(ari_request *r, const char *name, const char *value)
{
    int max = (int)(sizeof r->headers / sizeof r->headers[0]);
    if (r->nheaders < max) {
        snprintf(r->headers[r->nheaders].name, sizeof r->headers[0].name, "%s", name);
        snprintf(r->headers[r->nheaders].value, sizeof r->headers[0].value, "%s", value);
        r->nheaders++;
    }
}

enum MHD_Result ari_queue(ari_request *r, unsigned status, struct MHD_Response *resp)
{
    if (!resp)
        return MHD_NO;
    for (int i = 0; i < r->nheaders; i++)
        MHD_add_response_header(resp, r->headers[i].name, r->headers[i].value);
    r->nheaders = 0;
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (r->srv && r->srv->cfg.keep_alive_s > 1) {
        char keep[40]; /* a second less than the server waits: the client closes first */
        snprintf(keep, sizeof keep, "timeout=%u", r->srv->cfg.keep_alive_s - 1);
        MHD_add_response_header(resp, "Keep-Alive", keep);
    }
    enum MHD_Result rc = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    r->responded = 1;
    return rc;
}

enum MHD_Result ari_reply_text_json(ari_request *r, unsigned status, const char *json_text)
{
    if (status == 200 && ari_csv_wanted(r))
        return ari_csv_reply(r, json_text); /* ?format=csv: csv_reply.h */
    size_t len = strlen(json_text);
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)json_text,
                                                                MHD_RESPMEM_MUST_COPY);
    if (resp) {
        MHD_add_response_header(resp, "Content-Type", "application/json");
        MHD_add_response_header(resp, "Cache-Control", "no-store");
    }
    return ari_queue(r, status, resp);
}

enum MHD_Result ari_reply_json(ari_request *r, unsigned status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!text)
        return ari_reply_text_json(r, 500, "{\"error\":{\"code\":\"internal\",\"message\":\"encoding failed\"}}");
    enum MHD_Result rc = ari_reply_text_json(r, status, text);
    free(text);
    return rc;
}

enum MHD_Result ari_reply_doc(ari_request *r, json_t *doc, int digits)
{
    char *json = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(digits)) : NULL;
    json_decref(doc);
    if (!json)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    enum MHD_Result res = ari_reply_text_json(r, 200, json);
    free(json);
    return res;
}

enum MHD_Result ari_reply_empty(ari_request *r, unsigned status)
{
    return ari_queue(r, status, MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT));
}

/* Replaces every byte that is not part of a valid UTF-8 sequence by '?':
 * messages echo what the client sent, and JSON must be UTF-8. */
static void utf8_sanitise(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int len = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        int ok = len > 0;
        for (int i = 1; ok && i < len; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += len;
    }
}

enum MHD_Result ari_reply_error(ari_request *r, unsigned status, const char *code, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    utf8_sanitise(message);
    json_t *body = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", message);
    return ari_reply_json(r, status, body);
}

enum MHD_Result ari_reply_from_error(ari_request *r, const ari_error *e)
{
    static const struct { const char *code; unsigned status; } map[] = {
        {ARI_E_NOT_FOUND, 404}, {ARI_E_BUSY, 503}, {ARI_E_INVALID_PARAMETER, 400},
        {ARI_E_INVALID_INPUT, 400}, {ARI_E_UNSUPPORTED, 400}, {ARI_E_TOO_LARGE, 413},
        {ARI_E_UNAVAILABLE, 503},
    };
    unsigned status = 500;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(e->code, map[i].code) == 0)
            status = map[i].status;
    if (status == 503)
        ari_reply_header(r, "Retry-After", "2");
    return ari_reply_error(r, status, e->code[0] ? e->code : "internal", "%s", e->message);
}

enum MHD_Result ari_reply_lookup_failed(ari_request *r, int rc, const ari_error *e, const char *what,
                                        int64_t id)
{
    if (rc == 1)
        return ari_reply_error(r, 404, "not_found", "no %s %lld", what, (long long)id);
    return ari_reply_from_error(r, e);
}

enum MHD_Result ari_reply_delete_by_id(ari_request *r, const char *what, ari_row_call del)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    ari_error err = {0};
    int rc = del(r->db, id, &err);
    if (rc != 0)
        return ari_reply_lookup_failed(r, rc, &err, what, id);
    return ari_reply_empty(r, 204);
}
