/* conn_guard.c: the header deadline. libmicrohttpd's connection timeout
 * counts inactivity, so a client that sends one header byte every few
 * seconds (slowloris) would keep its connection, and a thousand of them the
 * whole server. Here every connection is tracked from its start
 * (MHD_OPTION_NOTIFY_CONNECTION) to its close. The clock runs while the
 * connection waits for a request's headers: from its start, and again from
 * the end of each request (keep-alive); it stops when the access handler
 * first sees a request, which libmicrohttpd calls once the headers are
 * complete. A reaper thread shuts down (shutdown(2), both directions) every
 * connection past its deadline; libmicrohttpd then reads the end of the
 * stream and closes the connection itself, through its normal path.
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
#include "util/log.h"

typedef struct tracked {
    struct tracked *prev, *next;
    ari_conn_guard *guard;
    int fd;
    double since;  /* monotonic seconds: when the wait for headers began */
    int waiting;   /* 1 while the headers of a request are awaited */
    int shut;      /* 1 once the reaper has shut it down */
} tracked;

struct ari_conn_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* signalled to stop the reaper */
    pthread_t reaper;
    tracked *head;         /* every open connection */
    double timeout;        /* seconds */
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
    t->waiting = 1;
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

static void set_waiting(struct MHD_Connection *conn, int waiting)
{
    tracked *t = tracked_of(conn);
    if (!t)
        return;
    pthread_mutex_lock(&t->guard->lock);
    t->waiting = waiting;
    t->since = ari_now();
    pthread_mutex_unlock(&t->guard->lock);
}

void ari_conn_guard_headers_received(struct MHD_Connection *conn)
{
    set_waiting(conn, 0);
}

void ari_conn_guard_request_done(struct MHD_Connection *conn)
{
    set_waiting(conn, 1);
}

/* Shuts down the connections past their deadline. Called with the lock. */
static void reap(ari_conn_guard *g, double now)
{
    for (tracked *t = g->head; t; t = t->next) {
        if (!t->waiting || t->shut || now - t->since < g->timeout)
            continue;
        ari_log(ARI_LOG_DEBUG, "http: closing a connection that sent no complete request in %.0f s",
                g->timeout);
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

/* Wakes up four times per timeout (at most once a second), so that a
 * connection is shut down at most a quarter timeout late. */
static void *reaper_main(void *arg)
{
    ari_conn_guard *g = arg;
    double tick = g->timeout / 4 < 1.0 ? g->timeout / 4 : 1.0;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        reap(g, ari_now());
        struct timespec until = after(tick);
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

ari_conn_guard *ari_conn_guard_start(double header_timeout, ari_error *err)
{
    ari_conn_guard *g = calloc(1, sizeof *g);
    if (!g) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    g->timeout = header_timeout;
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
