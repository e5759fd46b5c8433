/* server.h: the daemon's shared state and the request that handlers see. */
#ifndef ARIADNE_SERVER_H
#define ARIADNE_SERVER_H

#include <limits.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdint.h>

#include "store/store.h"
#include "util/clock.h"

typedef struct ari_dbpool ari_dbpool;
typedef struct ari_jobs ari_jobs;
typedef struct ari_upload ari_upload;
typedef struct ari_route ari_route;
typedef struct ari_live_hubs ari_live_hubs;

typedef struct ari_config {
    const char *db_path;     /* an SQLite file, or a postgresql:// URL */
    const char *spool;       /* --spool DIR, or NULL for the default (spool_default) */
    char host[256];
    uint16_t port;
    const char *static_dir;  /* NULL: found next to the binary */
    unsigned threads;
    uint64_t max_upload;     /* bytes */
    uint64_t max_unpacked;   /* bytes unpacked from the archives of one upload, nesting included */
    int auth;                /* 1: tokens required */
    unsigned keep_alive_s;   /* an idle connection closes after this (--idle-timeout); every
                              * response says so (Keep-Alive: timeout=N) so that clients do not
                              * reuse a connection the server is about to close */
} ari_config;

typedef struct ari_server {
    ari_config cfg;
    ari_dbpool *pool;
    ari_jobs *jobs;
    char spool_dir[PATH_MAX]; /* uploads wait here for their import job */
    char static_root[PATH_MAX];
    double started;           /* monotonic seconds */
    atomic_int active;        /* requests in flight */
    ari_live_hubs *live;      /* the live runs' hubs (live_hub.h); NULL: none */
} ari_server;

#define ARI_MAX_PATH_PARAMS 4
#define ARI_MAX_JSON_BODY (1 << 20)
#define ARI_MAX_DRAIN (64ULL << 20) /* see admit() in http.c */

typedef struct ari_request {
    ari_server *srv;
    struct MHD_Connection *conn;
    const char *method;
    const char *url;
    const ari_route *route;
    char params[ARI_MAX_PATH_PARAMS][128]; /* the {} segments of the route */
    int nparams;
    ari_scope scope;          /* what the caller's token allows */
    char *body;               /* a JSON body, NUL-terminated */
    size_t body_len;
    int body_too_large;
    ari_upload *upload;       /* POST /traces */
    int responded;
    ari_store *db;            /* held while the handler runs */
    struct {
        char name[64];
        char value[512];
    } headers[4];             /* added to the response when it is queued */
    int nheaders;
} ari_request;


#endif
