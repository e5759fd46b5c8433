/* conn_guard.c: deadlines that slow clients cannot push back.
 * libmicrohttpd's connection timeout counts inactivity, so a client that
 * sends one header byte every few seconds (slowloris) would keep its
 * connection, and a thousand of them the whole server. Here every
 * connection is tracked from its start (MHD_OPTION_NOTIFY_CONNECTION) to
 * its close, in one of three phases:
 *  - idle: opened, or kept alive after a response, and no request line yet;
 *    it may stay so for the idle timeout (clients keep connections for
 *    their next request; a client whose event loop was busy for a few
 *    seconds must not find its connection gone);
 *  - headers: the request line has come (MHD_OPTION_URI_LOG_CALLBACK) and
 *    the rest of the head must follow within the header timeout, counted
 *    from that line, whatever the client sends meanwhile;
 *  - active: the access handler has seen the request (libmicrohttpd calls
 *    it once the headers are complete); no deadline here.
 * A reaper thread shuts down (shutdown(2), both directions) every
 * connection past its phase's deadline; libmicrohttpd then reads the end
 * of the stream and closes the connection itself, through its normal path.
 *
 * No reused descriptor is ever shut down: libmicrohttpd sends the CLOSED
 * notification before it closes the socket (MHD_cleanup_connections in
 * daemon.c, and the failure path of internal_add_connection, as of 0.9.75),
 * the notification unlinks the connection under the guard's mutex, and the
 * reaper calls shutdown() only under that mutex, on linked connections. */
#include "conn_guard.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "server.h"
#include "util/alloc.h"
#include "util/log.h"

enum { IDLE, HEADERS, ACTIVE };

typedef struct tracked {
    struct tracked *prev, *next;
    ari_conn_guard *guard;
    int fd;
    double since;  /* monotonic seconds: when the current phase began */
    int phase;     /* IDLE, HEADERS or ACTIVE */
    int shut;      /* 1 once the reaper has shut it down */
} tracked;

struct ari_conn_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* signalled to stop the reaper */
    pthread_t reaper;
    tracked *head;         /* every open connection */
    double header_timeout; /* seconds from the request line to the end of the head */
    double idle_timeout;   /* seconds without a request line */
    int stopping;
};

static void link_conn(ari_conn_guard *g, tracked *t)
{
    t->prev = NULL;
    t->next = g->head;
    if (g->head)
        g->head->prev = t;
    g->head = t;
}

static void unlink_conn(ari_conn_guard *g, tracked *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        g->head = t->next;
    if (t->next)
        t->next->prev = t->prev;
}

static tracked *tracked_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

static void started(ari_conn_guard *g, struct MHD_Connection *conn, void **socket_context)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    tracked *t = info ? calloc(1, sizeof *t) : NULL;
    if (!t) {
        /* A connection we cannot watch could hold its slot for ever. */
        if (info)
            shutdown(info->connect_fd, SHUT_RDWR);
        return;
    }
    t->guard = g;
    t->fd = info->connect_fd;
    t->since = ari_now();
    t->phase = IDLE;
    pthread_mutex_lock(&g->lock);
    link_conn(g, t);
    pthread_mutex_unlock(&g->lock);
    *socket_context = t;
}

static void closed(ari_conn_guard *g, void **socket_context)
{
    tracked *t = *socket_context;
    if (!t)
        return;
    pthread_mutex_lock(&g->lock);
    unlink_conn(g, t);
    pthread_mutex_unlock(&g->lock);
    free(t);
    *socket_context = NULL;
}

void ari_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode code)
{
    ari_conn_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        started(g, conn, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        closed(g, socket_context);
}

static void set_phase(struct MHD_Connection *conn, int phase)
{
    tracked *t = tracked_of(conn);
    if (!t)
        return;
    pthread_mutex_lock(&t->guard->lock);
    t->phase = phase;
    t->since = ari_now();
    pthread_mutex_unlock(&t->guard->lock);
}

void *ari_conn_guard_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)uri;
    set_phase(conn, HEADERS);
    return NULL; /* the access handler's first call still sees no request state */
}

void ari_conn_guard_headers_received(struct MHD_Connection *conn)
{
    set_phase(conn, ACTIVE);
}

void ari_conn_guard_request_done(struct MHD_Connection *conn)
{
    set_phase(conn, IDLE);
}

/* Shuts down the connections past their deadline. Called with the lock. */
static void reap(ari_conn_guard *g, double now)
{
    for (tracked *t = g->head; t; t = t->next) {
        double limit = t->phase == IDLE ? g->idle_timeout : g->header_timeout;
        if (t->phase == ACTIVE || t->shut || now - t->since < limit)
            continue;
        ari_log(ARI_LOG_DEBUG, "http: closing a connection %s for %.0f s",
                t->phase == IDLE ? "idle" : "sending its request head", limit);
        shutdown(t->fd, SHUT_RDWR);
        t->shut = 1;
    }
}

static struct timespec after(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)seconds;
    ts.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Wakes up four times per shorter timeout (at most once a second), so that
 * a connection is shut down at most a quarter timeout late. */
static void *reaper_main(void *arg)
{
    ari_conn_guard *g = arg;
    double shorter = g->header_timeout < g->idle_timeout ? g->header_timeout : g->idle_timeout;
    double tick = shorter / 4 < 1.0 ? shorter / 4 : 1.0;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        reap(g, ari_now());
        struct timespec until = after(tick);
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

ari_conn_guard *ari_conn_guard_start(double header_timeout, double idle_timeout, ari_error *err)
{
    ari_conn_guard *g = ari_zalloc(sizeof *g, err);
    if (!g)
        return NULL;
    g->header_timeout = header_timeout;
    g->idle_timeout = idle_timeout;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&g->lock, NULL);
    if (pthread_create(&g->reaper, NULL, reaper_main, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        ari_error_set(err, ARI_E_IO, "cannot start the connection reaper thread");
        return NULL;
    }
    return g;
}

void ari_conn_guard_stop(ari_conn_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    g->stopping = 1;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->reaper, NULL);
    /* libmicrohttpd has stopped: every CLOSED notification has come. */
    while (g->head) {
        tracked *t = g->head;
        unlink_conn(g, t);
        free(t);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}
