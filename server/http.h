/* http.h: starting and stopping the HTTP daemon. */
#ifndef ARIADNE_HTTP_H
#define ARIADNE_HTTP_H

#include "server.h"

struct MHD_Daemon *ari_http_start(ari_server *srv, ari_error *err);
/* Stops accepting, waits up to grace_seconds for in-flight requests, stops. */
void ari_http_stop(ari_server *srv, struct MHD_Daemon *d, double grace_seconds);

#endif
