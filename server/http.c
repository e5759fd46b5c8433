/* http.c: the libmicrohttpd side of the daemon: starting and stopping it,
 * and the life of a request. On the first call for a request we check its
 * Host header (DNS rebinding), route it, refuse cross-site writes and JSON
 * bodies of another type, check its token and its declared size, and may
 * answer at once (403, 404, 405, 415, 401, 413) before any body is read;
 * then the body streams in (to memory for JSON, to the spool for uploads);
 * on the last call the handler runs with a database connection from the
 * pool. Connections are limited per client address and in all, and must
 * deliver each request's headers before a deadline (conn_guard.c). */
#include "http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "conn_guard.h"
#include "csv_reply.h"
#include "dbpool.h"
#include "handlers.h"
#include "live_hub.h"
#include "reply.h"
#include "router.h"
#include "upload.h"
#include "util/log.h"

/* Descriptors kept for everything but client connections: the listening
 * socket, epoll and wake-up pipes of each thread, the database pool (three
 * files a connection), the import job, spooled uploads. */
#define FD_RESERVE 256
#define HOST_NAME_SIZE 256

/* A request as http.c keeps it: what handlers see, and a refusal kept for
 * the end of the body (see refuse()). */
typedef struct http_request {
    ari_request r; /* first: a pointer to it is a pointer to the whole */
    unsigned refusal_status;
    char refusal_code[32];
    char refusal_message[600];
    uint64_t drained; /* bytes of a refused body read so far */
} http_request;

struct ari_http {
    struct MHD_Daemon *daemon;
    ari_server *srv;
    ari_conn_guard *guard;
    int check_host;  /* 0: any Host is answered */
    char allowed[ARI_MAX_ALLOWED_HOSTS + 4][HOST_NAME_SIZE];
    size_t n_allowed;
};

static int is_api(const char *url)
{
    return strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0;
}

static uint64_t declared_length(ari_request *r, int *known)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Length");
    *known = h != NULL;
    return h ? strtoull(h, NULL, 10) : 0;
}

static int expects_continue(ari_request *r)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Expect");
    return h && strcasecmp(h, "100-continue") == 0;
}

static const char *header(ari_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

static int body_coming(ari_request *r, uint64_t *length)
{
    int known;
    *length = declared_length(r, &known);
    return (known && *length > 0) || header(r, "Transfer-Encoding");
}

/* Answers an error before the body. A browser sends its body regardless
 * and, if the connection closes under it, shows a network error instead
 * of our answer; so a body of a reasonable size (ARI_MAX_DRAIN) is read
 * and dropped, and the answer given at its end (run_handler). Returns -1. */
static int refuse(ari_request *r, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(ari_request *r, unsigned status, const char *code, const char *fmt, ...)
{
    http_request *hr = (http_request *)r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(hr->refusal_message, sizeof hr->refusal_message, fmt, ap);
    va_end(ap);
    uint64_t length;
    if (body_coming(r, &length) && length <= ARI_MAX_DRAIN && !expects_continue(r)) {
        hr->refusal_status = status;
        snprintf(hr->refusal_code, sizeof hr->refusal_code, "%s", code);
    } else {
        ari_reply_error(r, status, code, "%s", hr->refusal_message);
    }
    return -1;
}

int ari_http_host_name(const char *in, char *out, size_t size)
{
    const char *begin = in, *end, *rest;
    if (in[0] == '[') {
        begin = in + 1;
        if (!(end = strchr(begin, ']')))
            return -1;
        rest = end + 1;
    } else if (strchr(in, ':') != strrchr(in, ':')) {
        end = rest = in + strlen(in);
    } else {
        end = rest = in + strcspn(in, ":");
    }
    if (*rest == ':') {
        rest++;
        if (!*rest || strspn(rest, "0123456789") != strlen(rest))
            return -1;
    } else if (*rest) {
        return -1;
    }
    size_t len = (size_t)(end - begin);
    if (len > 0 && begin[len - 1] == '.')
        len--;
    if (len == 0 || len >= size)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)begin[i];
        if (!isalnum(c) && !strchr(".-_:", c))
            return -1;
        out[i] = (char)tolower(c);
    }
    out[len] = '\0';
    return 0;
}

static int host_allowed(const ari_http *h, const char *host)
{
    char name[HOST_NAME_SIZE];
    if (ari_http_host_name(host, name, sizeof name) < 0)
        return 0;
    for (size_t i = 0; i < h->n_allowed; i++)
        if (strcmp(name, h->allowed[i]) == 0)
            return 1;
    return 0;
}

/* A page of another site that got its name resolved to this server (DNS
 * rebinding) reaches it with that name in Host; a server on a loopback
 * address, or given --allowed-host, answers only the names it knows. A
 * request without Host (HTTP/1.0) comes from no browser and passes. */
static int check_host(const ari_http *h, ari_request *r)
{
    const char *host = header(r, "Host");
    if (!h->check_host || !host || host_allowed(h, host))
        return 0;
    char name[HOST_NAME_SIZE];
    if (ari_http_host_name(host, name, sizeof name) < 0)
        snprintf(name, sizeof name, "NAME");
    return refuse(r, 403, "host_not_allowed",
                  "this server does not answer to the host name '%.100s' (a protection against DNS "
                  "rebinding); if clients reach it under that name, e.g. through a reverse proxy, "
                  "start ariadned with --allowed-host %.100s", host, name);
}

/* Strips the scheme's default port (":80" for http, ":443" for https)
 * from the end of an authority of length *len. */
static void strip_default_port(const char *authority, size_t *len, const char *port)
{
    size_t n = strlen(port);
    if (*len > n && strncmp(authority + *len - n, port, n) == 0)
        *len -= n;
}

/* 1 if the Origin header ("https://example.org:8443") names the same host
 * and port as the Host header. "null" and other schemes never match. */
static int same_origin(const char *origin, const char *host)
{
    const char *port;
    if (strncasecmp(origin, "http://", 7) == 0)
        port = ":80";
    else if (strncasecmp(origin, "https://", 8) == 0)
        port = ":443";
    else
        return 0;
    const char *authority = strstr(origin, "://") + 3;
    size_t alen = strcspn(authority, "/"), hlen = strlen(host);
    strip_default_port(authority, &alen, port);
    strip_default_port(host, &hlen, port);
    return alen == hlen && strncasecmp(authority, host, alen) == 0;
}

/* A browser sends Origin with every POST, PATCH and DELETE, and
 * Sec-Fetch-Site when it knows it; a form or script of another site that
 * writes here (cross-site request forgery) is refused. Clients that are
 * not browsers send neither. */
static int check_origin(ari_request *r)
{
    if (strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0)
        return 0;
    const char *site = header(r, "Sec-Fetch-Site");
    const char *origin = header(r, "Origin");
    const char *host = header(r, "Host");
    if (site && strcasecmp(site, "cross-site") == 0)
        return refuse(r, 403, "cross_origin", "%s %.200s from another site (Sec-Fetch-Site: cross-site) "
                      "is refused", r->method, r->url);
    if (origin && !(host && same_origin(origin, host)))
        return refuse(r, 403, "cross_origin", "%s %.200s from the origin '%.200s' is refused: it is not "
                      "this server's (Host '%.200s')", r->method, r->url, origin, host ? host : "");
    return 0;
}

/* "application/json", any case, alone or followed by parameters
 * ("; charset=utf-8"). */
static int is_json_type(const char *type)
{
    if (!type)
        return 0;
    while (*type == ' ' || *type == '\t')
        type++;
    size_t n = strlen("application/json");
    return strncasecmp(type, "application/json", n) == 0 &&
           (type[n] == '\0' || type[n] == ';' || type[n] == ' ' || type[n] == '\t');
}

/* JSON endpoints take JSON alone: a form of another site can post
 * text/plain, urlencoded or multipart bodies without asking (CORS "simple
 * requests"), but not application/json. */
static int check_json_type(ari_request *r)
{
    if (r->route->body != ARI_BODY_JSON)
        return 0;
    const char *type = header(r, "Content-Type");
    if (is_json_type(type))
        return 0;
    return refuse(r, 415, "unsupported_media_type", "%s %.200s takes a JSON body: send it with "
                  "'Content-Type: application/json' (got '%.100s')", r->method, r->url,
                  type ? type : "no Content-Type");
}

/* Routing, auth and size checks before the body. Returns 0 to go on. */
static int admit(ari_request *r)
{
    char allow[128];
    ari_match m = ari_route_find(r, allow, sizeof allow);
    if (m == ARI_MATCH_NO_PATH) {
        ari_reply_error(r, 404, "not_found", "no such endpoint: %s %.200s", r->method, r->url);
        return -1;
    }
    if (m == ARI_MATCH_NO_METHOD) {
        ari_reply_header(r, "Allow", allow);
        ari_reply_error(r, 405, "method_not_allowed", "%s is not allowed on %.200s (allowed: %s)",
                        r->method, r->url, allow);
        return -1;
    }
    if (check_origin(r) < 0 || check_json_type(r) < 0 || ari_auth_check(r, r->route->scope) < 0)
        return -1;
    int known;
    uint64_t length = declared_length(r, &known);
    uint64_t limit = r->route->body == ARI_BODY_UPLOAD ? r->srv->cfg.max_upload : ARI_MAX_JSON_BODY;
    if (known && length > limit) {
        /* A client that waits for "100 Continue" can be told at once. One
         * that sends its body regardless (browsers) would see the
         * connection reset instead of our answer, so a body not much over
         * the limit is drained and answered 413 at its end. */
        if (expects_continue(r) || length - limit > ARI_MAX_DRAIN) {
            ari_reply_error(r, 413, "too_large", "the body (%llu bytes) exceeds the limit of %llu bytes",
                            (unsigned long long)length, (unsigned long long)limit);
            return -1;
        }
        r->body_too_large = 1;
        return 0;
    }
    if (r->route->body == ARI_BODY_UPLOAD && !r->body_too_large) {
        ari_error err = {0};
        if (!(r->upload = ari_upload_begin(r, &err))) {
            if (strcmp(err.code, "invalid_upload") == 0)
                ari_reply_error(r, 400, err.code, "%s", err.message);
            else
                ari_reply_from_error(r, &err);
            return -1;
        }
    }
    return 0;
}

static void append_body(ari_request *r, const char *data, size_t size)
{
    if (r->body_too_large || r->body_len + size > ARI_MAX_JSON_BODY) {
        r->body_too_large = 1;
        return;
    }
    char *grown = realloc(r->body, r->body_len + size + 1);
    if (!grown) {
        r->body_too_large = 1;
        return;
    }
    r->body = grown;
    memcpy(r->body + r->body_len, data, size);
    r->body_len += size;
    r->body[r->body_len] = '\0';
}

/* Returns -1 to drop the connection: a refused body that goes on past
 * what we read to drop (ARI_MAX_DRAIN; a chunked body says no length). */
static int receive(http_request *hr, const char *data, size_t size)
{
    ari_request *r = &hr->r;
    if (hr->refusal_status) {
        hr->drained += size;
        return hr->drained > ARI_MAX_DRAIN ? -1 : 0;
    }
    if (r->responded || !r->route || r->body_too_large)
        return 0; /* answered early, or a body we do not want: drain it */
    if (r->route->body == ARI_BODY_UPLOAD)
        ari_upload_feed(r->upload, data, size);
    else if (r->route->body == ARI_BODY_JSON)
        append_body(r, data, size);
    return 0;
}

static enum MHD_Result run_handler(http_request *hr)
{
    ari_request *r = &hr->r;
    if (hr->refusal_status)
        return ari_reply_error(r, hr->refusal_status, hr->refusal_code, "%s", hr->refusal_message);
    if (!is_api(r->url))
        return ari_serve_static(r);
    if (r->body_too_large) {
        uint64_t limit = r->route->body == ARI_BODY_UPLOAD ? r->srv->cfg.max_upload : ARI_MAX_JSON_BODY;
        return ari_reply_error(r, 413, "too_large", "the body exceeds the limit of %llu bytes",
                               (unsigned long long)limit);
    }
    if (ari_csv_admit(r) < 0)
        return MHD_YES; /* a bad format= or table= (csv_reply.h) */
    r->db = ari_dbpool_acquire(r->srv->pool);
    enum MHD_Result rc = r->route->handler(r);
    ari_dbpool_release(r->srv->pool, r->db);
    r->db = NULL;
    if (!r->responded)
        rc = ari_reply_error(r, 500, "internal", "the handler gave no answer");
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    ari_http *h = cls;
    http_request *hr = *con_cls;
    if (!hr) {
        ari_conn_guard_headers_received(conn);
        if (!(hr = calloc(1, sizeof *hr)))
            return MHD_NO;
        *con_cls = hr;
        ari_request *r = &hr->r;
        r->srv = h->srv;
        r->conn = conn;
        r->method = method;
        r->url = url;
        atomic_fetch_add(&h->srv->active, 1);
        if (check_host(h, r) == 0 && is_api(url))
            admit(r);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        if (receive(hr, upload_data, *upload_data_size) < 0)
            return MHD_NO;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (hr->r.responded)
        return MHD_YES;
    return run_handler(hr);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    ari_http *h = cls;
    http_request *hr = *con_cls;
    ari_conn_guard_request_done(conn);
    if (!hr)
        return;
    ari_upload_free(hr->r.upload, 0); /* NULL once a job has taken it */
    free(hr->r.body);
    free(hr);
    *con_cls = NULL;
    atomic_fetch_sub(&h->srv->active, 1);
}

static int resolve(const char *host, uint16_t port, struct sockaddr_storage *addr, ari_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cannot resolve %s: %s", host, gai_strerror(rc));
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* Percent-decodes like libmicrohttpd, but a decoded NUL ("%00") becomes
 * DEL, which no route, id or static path accepts: otherwise the path would
 * silently end at the NUL ("/index.html%00.css" would serve index.html). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    size_t len = MHD_http_unescape(s);
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\0')
            s[i] = 0x7f;
    return len;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    ari_log(ARI_LOG_DEBUG, "http: %s", line);
}

/* Raises the soft limit on open files to the hard one; returns how many
 * connections fit under it (`wanted` or fewer). */
static unsigned fit_fd_limit(unsigned wanted)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return wanted;
    if (rl.rlim_cur != rl.rlim_max) {
        rlim_t soft = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = soft;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)wanted + FD_RESERVE)
        return wanted;
    unsigned fit = rl.rlim_cur > FD_RESERVE + 16 ? (unsigned)(rl.rlim_cur - FD_RESERVE) : 16;
    ari_log(ARI_LOG_WARN, "the open-file limit (%llu) allows %u connections, not %u: raise it "
            "(ulimit -n, LimitNOFILE=) or lower --max-connections",
            (unsigned long long)rl.rlim_cur, fit, wanted);
    return fit;
}

static int add_allowed(ari_http *h, const char *name, ari_error *err)
{
    if (ari_http_host_name(name, h->allowed[h->n_allowed], sizeof h->allowed[0]) < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "--allowed-host '%s' is not a host name", name);
    h->n_allowed++;
    return 0;
}

/* The Host names a loopback listener answers to: localhost, the loopback
 * addresses, the listening address, and the --allowed-host names. */
static int set_allowed_hosts(ari_http *h, const ari_http_options *opt, ari_error *err)
{
    const char *own[] = {"localhost", "127.0.0.1", "::1", h->srv->cfg.host};
    h->check_host = ari_auth_is_loopback(h->srv->cfg.host) || opt->n_allowed_hosts > 0;
    for (size_t i = 0; i < opt->n_allowed_hosts; i++)
        if (strcmp(opt->allowed_hosts[i], "*") == 0)
            h->check_host = 0;
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (add_allowed(h, own[i], err) < 0)
            return -1;
    for (size_t i = 0; i < opt->n_allowed_hosts && i < ARI_MAX_ALLOWED_HOSTS; i++)
        if (strcmp(opt->allowed_hosts[i], "*") != 0 && add_allowed(h, opt->allowed_hosts[i], err) < 0)
            return -1;
    return 0;
}

static struct MHD_Daemon *start_daemon(ari_http *h, const struct sockaddr_storage *addr,
                                       unsigned max_connections, unsigned max_per_client)
{
    ari_server *srv = h->srv;
    /* epoll: no FD_SETSIZE cap; ITC: MHD_quiesce_daemon needs it. */
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    flags |= MHD_ALLOW_SUSPEND_RESUME; /* the live runs' event streams (live_sse.h) */
    if (addr->ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, srv->cfg.port, NULL, NULL, on_request, h,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)addr,
        MHD_OPTION_THREAD_POOL_SIZE, srv->cfg.threads,
        MHD_OPTION_CONNECTION_LIMIT, max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, max_per_client,
        MHD_OPTION_NOTIFY_CONNECTION, ari_conn_guard_notify, h->guard,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_URI_LOG_CALLBACK, ari_conn_guard_request_line, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_END);
}

ari_http *ari_http_start(ari_server *srv, const ari_http_options *opt, ari_error *err)
{
    struct sockaddr_storage addr;
    if (resolve(srv->cfg.host, srv->cfg.port, &addr, err) < 0)
        return NULL;
    ari_http *h = calloc(1, sizeof *h);
    if (!h) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    h->srv = srv;
    if (set_allowed_hosts(h, opt, err) < 0 || !(h->guard = ari_conn_guard_start(opt->header_timeout, opt->idle_timeout, err))) {
        free(h);
        return NULL;
    }
    unsigned max_connections = fit_fd_limit(opt->max_connections);
    if (max_connections < srv->cfg.threads)
        max_connections = srv->cfg.threads;
    if (!(h->daemon = start_daemon(h, &addr, max_connections, opt->max_per_client))) {
        ari_error_set(err, ARI_E_IO, "cannot listen on %s:%u (address in use or not allowed?)",
                      srv->cfg.host, srv->cfg.port);
        ari_conn_guard_stop(h->guard);
        free(h);
        return NULL;
    }
    ari_log(ARI_LOG_INFO, "accepting %u connections, %u per client address; request headers "
            "within %u s of their first line, idle connections closed after %u s; Host header %s",
            max_connections, opt->max_per_client, opt->header_timeout, opt->idle_timeout,
            h->check_host ? "checked" : "not checked");
    return h;
}

void ari_http_stop(ari_http *h, double grace_seconds)
{
    ari_server *srv = h->srv;
    /* No new connections; in-flight requests go on. The listening socket
     * is ours to close once the threads are gone. */
    MHD_socket listener = MHD_quiesce_daemon(h->daemon);
    /* Event streams never end by themselves: end them (and resume every
     * suspended one: none may outlive MHD_stop_daemon). */
    ari_live_hubs_shutdown(srv->live);
    double deadline = ari_now() + grace_seconds;
    while (atomic_load(&srv->active) > 0 && ari_now() < deadline) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&srv->active) > 0)
        ari_log(ARI_LOG_WARN, "stopping with %d request(s) still in flight", atomic_load(&srv->active));
    MHD_stop_daemon(h->daemon);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    ari_conn_guard_stop(h->guard);
    free(h);
}
