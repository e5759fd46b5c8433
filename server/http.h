/* http.h: starting and stopping the HTTP daemon, with its limits on
 * connections and the names (Host) it answers to. */
#ifndef ARIADNE_HTTP_H
#define ARIADNE_HTTP_H

#include <stddef.h>

#include "server.h"

#define ARI_MAX_ALLOWED_HOSTS 32

typedef struct ari_http_options {
    unsigned max_connections;   /* every client together */
    unsigned max_per_client;    /* one client address */
    unsigned header_timeout;    /* seconds to deliver a request's head after its first line */
    unsigned idle_timeout;      /* seconds a connection may wait for a request line */
    /* Extra names accepted in the Host header (--allowed-host); "*"
     * accepts any. Without any, only a loopback listener checks Host. */
    const char *allowed_hosts[ARI_MAX_ALLOWED_HOSTS];
    size_t n_allowed_hosts;
} ari_http_options;

#define ARI_HTTP_OPTIONS_DEFAULT \
    {.max_connections = 4096, .max_per_client = 1024, .header_timeout = 10, .idle_timeout = 60}

typedef struct ari_http ari_http;

/* Raises the soft RLIMIT_NOFILE to the hard limit, lowering
 * max_connections (with a warning) if it still does not fit, and starts
 * listening on srv->cfg.host:port. */
ari_http *ari_http_start(ari_server *srv, const ari_http_options *opt, ari_error *err);
/* Stops accepting, waits up to grace_seconds for in-flight requests, stops. */
void ari_http_stop(ari_http *h, double grace_seconds);

/* Reduces a Host header or an --allowed-host name to a bare lower-case
 * name: "[::1]:8080" -> "::1", "Example.ORG.:443" -> "example.org", and a
 * bare IPv6 address stays itself. Returns -1 if it is not a name (letters,
 * digits, '.', '-', '_', ':') with an optional numeric port. */
int ari_http_host_name(const char *in, char *out, size_t size);

#endif
