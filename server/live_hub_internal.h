/* live_hub_internal.h: the hub's fields, shared by live_hub.c (registry,
 * worker, appends, controls) and live_hub_views.c (state, comm). Not for
 * other files. */
#ifndef ARIADNE_LIVE_HUB_INTERNAL_H
#define ARIADNE_LIVE_HUB_INTERNAL_H

#include <pthread.h>

#include "live_controls.h"
#include "live_hub.h"
#include "live_message.h"
#include "live_sse.h"

enum { HUB_LOADING, HUB_READY, HUB_FAILED };

typedef struct hub_pending {
    int64_t seq;
    double key;
    int update, late;
    double arrival;
} hub_pending;

struct ari_live_hub {
    ari_live_hubs *hs;
    struct ari_live_hub *next;  /* in the registry (shared hubs only) */
    int64_t id;
    int refs;                   /* under hs->mu */
    int replay;                 /* 1: a replay session's private hub */
    double hz;
    int64_t replay_from;        /* replay: the client's Last-Event-ID */

    pthread_mutex_t mu;         /* everything below */
    pthread_cond_t cv;
    int state;                  /* HUB_* */
    ari_error load_err;
    int reload;                 /* the worker loads the run again */
    int64_t want_seq;           /* appends seen while loading */
    int follows;                /* the store is PostgreSQL: other daemons may append (follow_store) */
    char *followed_controls;    /* the stored controls last applied (another daemon may store others) */
    int resend;                 /* after the next load, send the points past resend_after as they arrived */
    int64_t resend_after;       /* (a run another daemon closed before this one had its last records) */
    ari_live_data *ld;
    int open;                   /* the run is open */
    char name[256];
    ari_live_controls ctl;      /* as set (defaults unresolved) */
    hub_pending *pending;
    size_t npending, cap_pending;
    size_t inflight;            /* taken by the worker, not yet emitted (backlog) */
    int reset;                  /* the online states restart (late or changed point) */
    int recompose;              /* a control changed: an update message for the latest point */
    int closing;                /* the run was closed: end the feed after the pending records */
    int stop;
    double last_activity;
    int64_t last_id;            /* the last published id */
    size_t *cps, ncps;          /* change points (for /state and /comm/diff) */
    int *labels;                /* cluster label per entity id (-1 none), nlabels entries */
    size_t nlabels;
    ari_live_feed *feed;
};

struct ari_live_hubs {
    ari_server *srv;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ari_live_hub *list;
    int nhubs, nreplays, workers;
    int shutting;
    atomic_int sse_count;
};

#endif
