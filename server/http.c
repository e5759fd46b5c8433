/* http.c: the libmicrohttpd side of the daemon: starting and stopping it,
 * and the life of a request. On the first call for a request we route it,
 * check its token and its declared size, and may answer at once (404, 405,
 * 401, 403, 413) before any body is read; then the body streams in (to
 * memory for JSON, to the spool for uploads); on the last call the handler
 * runs with a database connection from the pool. */
#include "http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth.h"
#include "dbpool.h"
#include "handlers.h"
#include "reply.h"
#include "router.h"
#include "upload.h"
#include "util/log.h"

double ari_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    if (ari_auth_check(r, r->route->scope) < 0)
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

static void receive(ari_request *r, const char *data, size_t size)
{
    if (r->responded || !r->route || r->body_too_large)
        return; /* answered early, or a body we do not want: drain it */
    if (r->route->body == ARI_BODY_UPLOAD)
        ari_upload_feed(r->upload, data, size);
    else if (r->route->body == ARI_BODY_JSON)
        append_body(r, data, size);
}

static enum MHD_Result run_handler(ari_request *r)
{
    if (!is_api(r->url))
        return ari_serve_static(r);
    if (r->body_too_large) {
        uint64_t limit = r->route->body == ARI_BODY_UPLOAD ? r->srv->cfg.max_upload : ARI_MAX_JSON_BODY;
        return ari_reply_error(r, 413, "too_large", "the body exceeds the limit of %llu bytes",
                               (unsigned long long)limit);
    }
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
    ari_server *srv = cls;
    ari_request *r = *con_cls;
    if (!r) {
        if (!(r = calloc(1, sizeof *r)))
            return MHD_NO;
        *con_cls = r;
        r->srv = srv;
        r->conn = conn;
        r->method = method;
        r->url = url;
        atomic_fetch_add(&srv->active, 1);
        if (is_api(url))
            admit(r);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        receive(r, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (r->responded)
        return MHD_YES;
    return run_handler(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    ari_server *srv = cls;
    ari_request *r = *con_cls;
    if (!r)
        return;
    ari_upload_free(r->upload, 0); /* NULL once a job has taken it */
    free(r->body);
    free(r);
    *con_cls = NULL;
    atomic_fetch_sub(&srv->active, 1);
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

struct MHD_Daemon *ari_http_start(ari_server *srv, ari_error *err)
{
    struct sockaddr_storage addr;
    if (resolve(srv->cfg.host, srv->cfg.port, &addr, err) < 0)
        return NULL;
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon(flags, srv->cfg.port, NULL, NULL, on_request, srv,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, srv->cfg.threads,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_END);
    if (!d)
        ari_error_set(err, ARI_E_IO, "cannot listen on %s:%u (address in use or not allowed?)",
                      srv->cfg.host, srv->cfg.port);
    return d;
}

void ari_http_stop(ari_server *srv, struct MHD_Daemon *d, double grace_seconds)
{
    MHD_quiesce_daemon(d); /* no new connections; in-flight requests go on */
    double deadline = ari_now() + grace_seconds;
    while (atomic_load(&srv->active) > 0 && ari_now() < deadline) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&srv->active) > 0)
        ari_log(ARI_LOG_WARN, "stopping with %d request(s) still in flight", atomic_load(&srv->active));
    MHD_stop_daemon(d);
}
