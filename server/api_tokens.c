/* api_tokens.c: GET/POST /api/v1/tokens and DELETE /api/v1/tokens/{id},
 * for admins. Secrets are shown once, at creation. A token created while
 * auth is off (no request is authenticated then) is marked so, and a
 * server with auth will refuse it. The creation body is checked strictly
 * (params.h: unknown fields and wrong types answer 400). */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "params.h"
#include "reply.h"

enum MHD_Result api_tokens_list(ari_request *r)
{
    char *text = NULL;
    ari_error err = {0};
    if (ari_tokens_list(r->db, &text, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *tokens = json_loads(text, 0, NULL);
    free(text);
    return ari_reply_json(r, 200, json_pack("{s:o}", "tokens", tokens ? tokens : json_array()));
}

#define NAME_MESSAGE "a string of 1 to 200 characters"
#define SCOPE_MESSAGE "one of read, write, admin"

/* {"name": string, "scope"?: "read" | "write" | "admin"} and nothing else;
 * the messages name what each field takes. */
static const ari_body_field create_body[] = {
    {"name", ARI_BODY_STRING, 1, NAME_MESSAGE},
    {"scope", ARI_BODY_STRING, 0, SCOPE_MESSAGE},
    {NULL, 0, 0, NULL},
};

enum MHD_Result api_tokens_create(ari_request *r)
{
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    const char *name = json_string_value(json_object_get(body, "name"));
    json_t *scope_value = json_object_get(body, "scope");
    const char *scope_name = scope_value ? json_string_value(scope_value) : "read";
    ari_scope scope;
    enum MHD_Result res = MHD_YES;
    if (ari_body_check(r, body, create_body) < 0) {
        /* answered */
    } else if (!name || !*name || strlen(name) > 200) {
        res = ari_reply_error(r, 400, "invalid_parameter", "name must be " NAME_MESSAGE);
    } else if (!scope_name || ari_scope_parse(scope_name, &scope) < 0) {
        res = ari_reply_error(r, 400, "invalid_parameter", "scope must be " SCOPE_MESSAGE);
    } else {
        char secret[ARI_TOKEN_SECRET_MAX], *token = NULL;
        int64_t id;
        ari_error err = {0};
        int created = r->srv->cfg.auth ? ari_tokens_create(r->db, name, scope, secret, &id, &err)
                                       : ari_tokens_create_unauthenticated(r->db, name, scope, secret, &id, &err);
        if (created < 0 || ari_tokens_get(r->db, id, &token, &err) != 0)
            res = ari_reply_from_error(r, &err);
        else
            res = ari_reply_json(r, 201, json_pack("{s:o, s:s}", "token", json_loads(token, 0, NULL),
                                                   "secret", secret));
        free(token);
    }
    json_decref(body);
    return res;
}

enum MHD_Result api_tokens_revoke(ari_request *r)
{
    return ari_reply_delete_by_id(r, "token", ari_tokens_revoke);
}
