/* auth.c: bearer tokens, checked against the hashed tokens in the store.
 * With auth on, a token that was created through the API while auth was
 * off is refused: anyone who could reach the server then could have made
 * it. */
#include "auth.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "dbpool.h"
#include "reply.h"

int ari_auth_is_loopback(const char *host)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (strcmp(host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, host, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6);
    return 0;
}

const char *ari_auth_bearer(ari_request *r)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    return *h ? h : NULL;
}

static enum MHD_Result unauthorized(ari_request *r, const char *why)
{
    ari_reply_header(r, "WWW-Authenticate", "Bearer realm=\"ariadne\"");
    return ari_reply_error(r, 401, "unauthorized", "%s", why);
}

int ari_auth_check(ari_request *r, ari_scope needed)
{
    if (!r->srv->cfg.auth) {
        r->scope = ARI_SCOPE_ADMIN;
        return 0;
    }
    r->scope = ARI_SCOPE_NONE;
    if (needed == ARI_SCOPE_NONE)
        return 0;
    const char *token = ari_auth_bearer(r);
    if (!token) {
        unauthorized(r, "this server requires an API token: send 'Authorization: Bearer <token>'");
        return -1;
    }
    /* A handler that checks a further scope already holds a connection. */
    ari_store *db = r->db ? r->db : ari_dbpool_acquire(r->srv->pool);
    ari_error err = {0};
    int64_t id = 0;
    int without_auth = 0;
    int rc = ari_tokens_lookup_origin(db, token, &r->scope, &id, &without_auth, &err);
    if (rc == 0 && !without_auth)
        ari_tokens_touch(db, id);
    if (db != r->db)
        ari_dbpool_release(r->srv->pool, db);
    if (rc < 0) {
        ari_reply_from_error(r, &err);
        return -1;
    }
    if (rc == 1) {
        unauthorized(r, "the API token is unknown or revoked");
        return -1;
    }
    if (without_auth) {
        r->scope = ARI_SCOPE_NONE;
        unauthorized(r, "this token was created through the API while the server ran without auth, "
                        "when anyone could create one, so it is refused now that auth is on: an admin "
                        "must create a new token ('ariadned token create')");
        return -1;
    }
    if (r->scope < needed) {
        ari_reply_error(r, 403, "forbidden", "this request needs a token with the '%s' scope; yours has '%s'",
                        ari_scope_name(needed), ari_scope_name(r->scope));
        return -1;
    }
    return 0;
}
