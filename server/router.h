/* router.h: the table of API routes: method, path pattern ("{}" matches one
 * path segment, captured as a parameter), the scope a token needs, how the
 * body is read, and the handler. One line per endpoint, in router.c. */
#ifndef ARIADNE_ROUTER_H
#define ARIADNE_ROUTER_H

#include "server.h"

typedef enum ari_body_kind {
    ARI_BODY_NONE = 0,
    ARI_BODY_JSON,   /* read into memory, up to ARI_MAX_JSON_BODY; only with
                        Content-Type: application/json (415 otherwise,
                        before the body is read: see http.c) */
    ARI_BODY_UPLOAD  /* streamed to the spool directory */
} ari_body_kind;

typedef enum MHD_Result (*ari_handler)(ari_request *r);

struct ari_route {
    const char *method;
    const char *pattern;
    ari_scope scope;
    ari_body_kind body;
    ari_handler handler;
};

typedef enum ari_match {
    ARI_MATCH_FOUND,
    ARI_MATCH_NO_PATH,   /* 404 */
    ARI_MATCH_NO_METHOD  /* 405; allow lists the methods */
} ari_match;

/* Finds the route for method + url, filling r->params. */
ari_match ari_route_find(ari_request *r, char *allow, size_t allow_size);
/* All routes, for the OpenAPI check in tests. */
const ari_route *ari_routes(size_t *n);

#endif
