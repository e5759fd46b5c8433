/* pg_notify.c: LISTEN/NOTIFY over libpq (pg_notify.h): the job queue's
 * wake-up between replicas that share one PostgreSQL database. */
#include "store/pg_notify.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/* Channel names are identifiers that the caller spells: refuse anything
 * else rather than quote it into SQL. */
static int plain_identifier(const char *s)
{
    if (!s || !*s || strlen(s) > 63)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || *p == '_' || (p > s && *p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

static int command(ari_pg_conn *c, const char *verb, const char *channel)
{
    char sql[96];
    if (!plain_identifier(channel))
        return ari_pg_conn_fail(c, ARI_ERROR, "not a channel name");
    snprintf(sql, sizeof sql, "%s %s", verb, channel);
    return ari_pg_exec(c, sql);
}

int ari_pg_listen(ari_pg_conn *c, const char *channel)
{
    return command(c, "LISTEN", channel);
}

int ari_pg_notify(ari_pg_conn *c, const char *channel)
{
    return command(c, "NOTIFY", channel);
}

/* Consumes what the server sent; the number of notifications among it, or
 * -1 when the connection failed. */
static int drain(ari_pg_conn *c, PGconn *conn)
{
    if (!PQconsumeInput(conn)) {
        ari_pg_conn_fail(c, ARI_ERROR, PQerrorMessage(conn));
        return -1;
    }
    int n = 0;
    PGnotify *note;
    while ((note = PQnotifies(conn)) != NULL) {
        PQfreemem(note);
        n++;
    }
    return n;
}

int ari_pg_wait_notify(ari_pg_conn *c, int timeout_ms)
{
    PGconn *conn = ari_pg_conn_handle(c);
    int n = drain(c, conn);
    if (n != 0)
        return n < 0 ? -1 : 1;
    struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
    if (p.fd < 0) {
        ari_pg_conn_fail(c, ARI_ERROR, "the connection to PostgreSQL is closed");
        return -1;
    }
    int rc;
    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        ari_pg_conn_fail(c, ARI_ERROR, strerror(errno));
        return -1;
    }
    if (rc == 0)
        return 0;
    n = drain(c, conn);
    return n < 0 ? -1 : n > 0;
}
