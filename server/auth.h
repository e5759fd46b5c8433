/* auth.h: bearer-token authentication of API requests. */
#ifndef ARIADNE_AUTH_H
#define ARIADNE_AUTH_H

#include "server.h"

/* Sets r->scope from the Authorization header (every scope when auth is
 * off). Returns 0, or -1 after answering 401/403/503 itself. A token
 * created while auth was off is refused (401). Looks the token up through
 * r->db when the caller holds a connection (a handler), else through one
 * from the pool. */
int ari_auth_check(ari_request *r, ari_scope needed);
/* The token of an "Authorization: Bearer <token>" header, or NULL. */
const char *ari_auth_bearer(ari_request *r);
/* 1 for 127.0.0.0/8, ::1 and "localhost". */
int ari_auth_is_loopback(const char *host);

#endif
