/* live_hub.c: the registry of live hubs, each hub's worker thread (load,
 * recomposition after a restart, one message per arrived record, replay
 * pacing, keepalives, idleness), appends and closes from api_streams.c,
 * and the shared controls (live_hub.h). */
#include "live_hub_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dbpool.h"
#include "store/stream_store.h"
#include "util/clock.h"
#include "util/log.h"

#define LOAD_WAIT_S 60.0
#define CLOSED_LINGER_S 30.0     /* a closed run's hub without viewers goes after this */
#define EXISTS_CHECK_S 10.0      /* how often an idle hub checks that its run still exists */
#define FOLLOW_S 1.0             /* how often a hub looks for records another daemon stored (PostgreSQL) */

static const char closed_frame[] = "event: closed\ndata: {\"state\":\"closed\"}\n\n";
static const char deleted_frame[] = "event: closed\ndata: {\"state\":\"deleted\"}\n\n";

/* ---- registry ---- */

ari_live_hubs *ari_live_hubs_new(ari_server *srv)
{
    ari_live_hubs *hs = calloc(1, sizeof *hs);
    if (!hs)
        return NULL;
    hs->srv = srv;
    pthread_mutex_init(&hs->mu, NULL);
    pthread_cond_init(&hs->cv, NULL);
    atomic_init(&hs->sse_count, 0);
    return hs;
}

static void hub_free(ari_live_hub *h)
{
    ari_live_feed_release(h->feed);
    ari_live_data_free(h->ld);
    free(h->pending);
    free(h->cps);
    free(h->labels);
    free(h->followed_controls);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}

void ari_live_hub_put(ari_live_hub *h)
{
    if (!h)
        return;
    ari_live_hubs *hs = h->hs;
    pthread_mutex_lock(&hs->mu);
    int last = --h->refs == 0;
    pthread_mutex_unlock(&hs->mu);
    if (last)
        hub_free(h);
}

/* Removes h from the registry (hs->mu held); drops the registry's reference. */
static void unlink_hub(ari_live_hubs *hs, ari_live_hub *h)
{
    for (ari_live_hub **p = &hs->list; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            if (!h->replay)
                hs->nhubs--;
            h->refs--;
            return;
        }
}

void ari_live_hubs_shutdown(ari_live_hubs *hs)
{
    if (!hs)
        return;
    pthread_mutex_lock(&hs->mu);
    hs->shutting = 1;
    for (ari_live_hub *h = hs->list; h; h = h->next) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
    double deadline = ari_now() + 10;
    while (hs->workers > 0 && ari_now() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&hs->cv, &hs->mu, &ts);
    }
    if (hs->workers > 0)
        ari_log(ARI_LOG_WARN, "live: %d hub worker(s) still running at shutdown", hs->workers);
    pthread_mutex_unlock(&hs->mu);
}

void ari_live_hubs_free(ari_live_hubs *hs)
{
    if (!hs)
        return;
    if (hs->workers > 0)
        return; /* a worker still uses it: leave it to the process's end */
    pthread_mutex_destroy(&hs->mu);
    pthread_cond_destroy(&hs->cv);
    free(hs);
}

/* ---- the worker ---- */

static void timed_wait(ari_live_hub *h, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double whole = floor(seconds);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&h->cv, &h->mu, &ts);
}

/* Loads the run into a new live_data (no lock held); swaps it in. */
static int load(ari_live_hub *h)
{
    ari_server *srv = h->hs->srv;
    ari_error err = {0};
    ari_live_data *ld = ari_live_data_new(&err);
    ari_store *db = ari_dbpool_acquire(srv->pool);
    ari_stream_status st = {0};
    char *controls = NULL;
    int rc = -1, follows = ari_store_is_pg(db);
    if (ld && ari_stream_status_get(db, h->id, &st, &err) == 0 && ari_stream_load(db, h->id, ld, &err) == 0) {
        rc = 0;
        if (ari_stream_controls_get(db, h->id, &controls, &err) < 0)
            controls = NULL;
    } else if (ld && !err.code[0]) {
        ari_error_set(&err, ARI_E_NOT_FOUND, "no live run %lld", (long long)h->id);
    }
    ari_dbpool_release(srv->pool, db);
    pthread_mutex_lock(&h->mu);
    h->follows = follows;
    if (rc == 0) {
        ari_live_data_free(h->ld);
        h->ld = ld;
        h->open = st.open;
        if (controls) {
            json_t *c = json_loads(controls, 0, NULL);
            ari_live_controls saved = h->ctl;
            int version = h->ctl.version;
            if (c && ari_live_controls_apply(&saved, c, NULL, &err) == 0) {
                h->ctl = saved;
                h->ctl.version = version;
            }
            json_decref(c);
            free(h->followed_controls);
            h->followed_controls = strdup(controls);
        }
        if (h->want_seq > ari_live_data_last_seq(ld))
            rc = 1; /* an append came in meanwhile: again */
    } else {
        ari_live_data_free(ld);
        h->load_err = err;
    }
    pthread_mutex_unlock(&h->mu);
    free(controls);
    return rc;
}

/* Publishes the message of pt composed over the points [0, t_end). The
 * hub is locked on entry and on return (unlocked while composing). */
static void emit(ari_live_hub *h, ari_live_engine *e, size_t t_end, const ari_live_point *pt)
{
    ari_error err = {0};
    ari_live_controls ctl;
    ari_live_controls_resolve(&h->ctl, h->ld, &ctl);
    if (t_end == 0 || ari_live_engine_snapshot(e, h->ld, &ctl, t_end, pt, &err) < 0) {
        if (err.code[0])
            ari_log(ARI_LOG_WARN, "live %lld: %s", (long long)h->id, err.message);
        return;
    }
    pthread_mutex_unlock(&h->mu);
    size_t len = 0;
    char *json = ari_live_engine_compose(e, &len, &err);
    ari_live_msg *m = json ? ari_live_msg_new(pt->update ? "update" : "point", pt->seq, json, len) : NULL;
    free(json);
    if (m) {
        ari_live_feed_publish(h->feed, m);
        ari_live_msg_unref(m);
    } else {
        ari_log(ARI_LOG_WARN, "live %lld: no message for point %zu: %s", (long long)h->id, pt->t_idx,
                err.message[0] ? err.message : "out of memory");
    }
    pthread_mutex_lock(&h->mu);
    if (pt->seq > h->last_id)
        h->last_id = pt->seq;
    /* results for /state and /comm */
    const size_t *cps, *ids;
    const int *labels;
    size_t ncps = ari_live_engine_change_points(e, &cps);
    size_t *copy = ncps ? malloc(ncps * sizeof *copy) : NULL;
    if (!ncps || copy) {
        if (ncps)
            memcpy(copy, cps, ncps * sizeof *copy);
        free(h->cps);
        h->cps = copy;
        h->ncps = ncps;
    }
    size_t nl = ari_live_engine_labels(e, &ids, &labels), ne = ari_live_data_n_entities(h->ld);
    int *by_entity = malloc((ne ? ne : 1) * sizeof *by_entity);
    if (by_entity) {
        for (size_t i = 0; i < ne; i++)
            by_entity[i] = -1;
        for (size_t i = 0; i < nl; i++)
            if (ids[i] < ne)
                by_entity[ids[i]] = labels[i];
        free(h->labels);
        h->labels = by_entity;
        h->nlabels = ne;
    }
}

/* The messages of the points from first on whose seq is past `after`,
 * each composed over the points up to it. Hub locked. */
static void emit_points(ari_live_hub *h, ari_live_engine *e, size_t first, int64_t after)
{
    size_t n = ari_live_data_n_points(h->ld);
    int64_t prev = 0;
    for (size_t t = first; t < n && !h->stop; t++) {
        int64_t seq = ari_live_data_point_seq(h->ld, t);
        if (seq <= prev)
            seq = prev + 1;
        prev = seq;
        ari_live_point pt = {.seq = seq, .t_idx = t, .update = 0, .arrival = 0};
        if (seq > after)
            emit(h, e, t + 1, &pt);
    }
}

/* After a (re)start: the messages of the last ARI_LIVE_RING points. */
static void recompose_ring(ari_live_hub *h, ari_live_engine *e)
{
    size_t n = ari_live_data_n_points(h->ld);
    emit_points(h, e, n > ARI_LIVE_RING ? n - ARI_LIVE_RING : 0, 0);
}

/* The records that arrived: one message each, composed over every point. */
static void process_pending(ari_live_hub *h, ari_live_engine *e)
{
    hub_pending *list = h->pending;
    size_t n = h->npending;
    h->pending = NULL;
    h->npending = h->cap_pending = 0;
    h->inflight = n;
    for (size_t i = 0; i < n && !h->stop; i++) {
        if (h->reset) {
            ari_live_engine_reset(e);
            h->reset = 0;
        }
        int64_t t = ari_live_data_find_key(h->ld, list[i].key);
        if (t >= 0) {
            ari_live_point pt = {.seq = list[i].seq, .t_idx = (size_t)t, .update = list[i].update,
                                 .arrival = list[i].arrival};
            emit(h, e, ari_live_data_n_points(h->ld), &pt);
        }
        h->inflight--;
        /* between points, appends, /state and controls get the hub */
        pthread_mutex_unlock(&h->mu);
        pthread_mutex_lock(&h->mu);
    }
    h->inflight = 0;
    free(list);
    if (h->recompose && ari_live_data_n_points(h->ld) > 0) {
        size_t last = ari_live_data_n_points(h->ld) - 1;
        ari_live_point pt = {.seq = h->last_id, .t_idx = last, .update = 1, .arrival = 0};
        emit(h, e, last + 1, &pt);
    }
    h->recompose = 0;
    h->last_activity = ari_now();
}

/* 1 when the run no longer exists (deleted while watched). */
static int run_gone(ari_live_hub *h)
{
    ari_server *srv = h->hs->srv;
    ari_store *db = ari_dbpool_try_acquire(srv->pool);
    if (!db)
        return 0;
    ari_stream_status st;
    ari_error err = {0};
    int rc = ari_stream_status_get(db, h->id, &st, &err);
    ari_dbpool_release(srv->pool, db);
    return rc == 1;
}

/* ---- following the database (replicas) ----
 *
 * Daemons on one PostgreSQL database each run their own hub for a run:
 * the appends one of them receives reach its hub at once, and the others'
 * hubs from the database. Once a second such a hub compares the stored
 * run's last seq with its own and applies the records it lacks as the
 * appends would (each watcher gets a message per record, as on one
 * server, up to a second later); a run closed meanwhile is loaded again
 * (closing compacts the stored records) and then ends its watchers'
 * streams as a close would. */

static void apply_batch(ari_live_hub *h, const ari_live_applied *a, double now);

static int follow_batch(void *ctx, const ari_live_applied *a)
{
    ari_live_hub *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (h->state == HUB_READY && !h->reload)
        apply_batch(h, a, ari_now());
    pthread_mutex_unlock(&h->mu);
    return 0;
}

/* The stored controls, when they are not those the hub last applied:
 * another daemon's /control. Applied as a /control here would be (the
 * watchers get an update message). */
static void follow_controls(ari_live_hub *h, const char *text)
{
    pthread_mutex_lock(&h->mu);
    if (h->state == HUB_READY && (!h->followed_controls || strcmp(text, h->followed_controls) != 0)) {
        json_t *c = json_loads(text, 0, NULL);
        ari_live_controls next = h->ctl;
        ari_error err = {0};
        if (c && ari_live_controls_apply(&next, c, NULL, &err) == 0) {
            h->ctl = next;
            h->recompose = 1;
            pthread_cond_broadcast(&h->cv);
        }
        json_decref(c);
        free(h->followed_controls);
        h->followed_controls = strdup(text);
    }
    pthread_mutex_unlock(&h->mu);
}

/* Called unlocked, from the worker's wait, on PostgreSQL (h->follows). */
static void follow_store(ari_live_hub *h)
{
    ari_server *srv = h->hs->srv;
    ari_store *db = ari_dbpool_try_acquire(srv->pool);
    if (!db)
        return;
    ari_stream_status st = {0};
    ari_error err = {0};
    int rc = ari_stream_status_get(db, h->id, &st, &err);
    pthread_mutex_lock(&h->mu);
    int ready = h->state == HUB_READY && !h->reload && h->ld;
    int64_t last = ready ? ari_live_data_last_seq(h->ld) : 0;
    int was_open = h->open;
    pthread_mutex_unlock(&h->mu);
    if (rc == 0 && ready && st.open && st.n_records > last &&
        ari_stream_batches_after(db, h->id, last, follow_batch, h, &err) < 0)
        ari_log(ARI_LOG_WARN, "live %lld: reading the records stored by another daemon: %s", (long long)h->id,
                err.message);
    char *controls = NULL;
    if (rc == 0 && ready && ari_stream_controls_get(db, h->id, &controls, &err) < 0)
        controls = NULL;
    ari_dbpool_release(srv->pool, db);
    if (controls)
        follow_controls(h, controls);
    free(controls);
    if (rc != 0 || !ready || st.open || !was_open)
        return;
    pthread_mutex_lock(&h->mu);
    if (h->ld && st.n_records > ari_live_data_last_seq(h->ld)) {
        h->reload = 1;
        h->resend = 1;
        h->resend_after = ari_live_data_last_seq(h->ld);
    }
    h->closing = 1;
    pthread_mutex_unlock(&h->mu);
}

/* Waits for work; returns 0 to go on, 1 to end the worker. Hub locked. */
static int wait_for_work(ari_live_hub *h, double *next_check, double *next_follow)
{
    while (!h->stop && h->npending == 0 && !h->reload && !h->recompose && !h->closing) {
        timed_wait(h, 1.0);
        pthread_mutex_unlock(&h->mu);
        ari_live_feed_tick(h->feed);
        size_t viewers = ari_live_feed_viewers(h->feed);
        double now = ari_now();
        int gone = 0;
        if (now >= *next_check) {
            *next_check = now + EXISTS_CHECK_S;
            gone = run_gone(h);
        }
        if (!gone && h->follows && now >= *next_follow) {
            *next_follow = now + FOLLOW_S;
            follow_store(h);
        }
        pthread_mutex_lock(&h->mu);
        if (gone) {
            ari_live_feed_end(h->feed, deleted_frame);
            return 1;
        }
        double idle = now - h->last_activity;
        if (viewers == 0 && h->npending == 0 && (idle > ARI_LIVE_IDLE_S || (!h->open && idle > CLOSED_LINGER_S)))
            return 1;
    }
    return h->stop;
}

static void live_loop(ari_live_hub *h, ari_live_engine *e)
{
    double next_check = ari_now() + EXISTS_CHECK_S, next_follow = ari_now() + FOLLOW_S;
    pthread_mutex_lock(&h->mu);
    recompose_ring(h, e); /* a closed run's too: a client back after the close gets the rest */
    if (!h->open)
        ari_live_feed_end(h->feed, closed_frame);
    for (;;) {
        if (wait_for_work(h, &next_check, &next_follow))
            break;
        if (h->reload) {
            h->reload = 0;
            h->state = HUB_LOADING;
            pthread_mutex_unlock(&h->mu);
            while (load(h) == 1)
                ;
            pthread_mutex_lock(&h->mu);
            h->state = h->ld ? HUB_READY : HUB_FAILED;
            ari_live_engine_reset(e);
            pthread_cond_broadcast(&h->cv);
            if (!h->ld)
                break;
            if (h->resend)
                emit_points(h, e, 0, h->resend_after);
            h->resend = 0;
        }
        process_pending(h, e);
        if (h->closing && h->npending == 0) {
            h->closing = 0;
            h->open = 0;
            ari_live_feed_end(h->feed, closed_frame);
        }
    }
    pthread_mutex_unlock(&h->mu);
}

/* A replay of a closed run: point t at start + t / hz. */
static void replay_loop(ari_live_hub *h, ari_live_engine *e)
{
    pthread_mutex_lock(&h->mu);
    size_t n = ari_live_data_n_points(h->ld);
    size_t t = h->replay_from > 0 ? (size_t)h->replay_from : 0;
    double start = ari_now();
    for (size_t k = 0; t < n && !h->stop; k++) {
        double due = start + (double)k / h->hz;
        while (!h->stop && ari_now() < due) {
            timed_wait(h, due - ari_now() < 1 ? due - ari_now() : 1);
            pthread_mutex_unlock(&h->mu);
            ari_live_feed_tick(h->feed);
            size_t viewers = ari_live_feed_viewers(h->feed);
            pthread_mutex_lock(&h->mu);
            if (viewers == 0 && ari_now() - start > 5)
                h->stop = 1;
        }
        if (h->stop)
            break;
        ari_live_point pt = {.seq = (int64_t)t + 1, .t_idx = t, .update = 0, .arrival = ari_now()};
        emit(h, e, t + 1, &pt);
        t++;
        if (ari_live_feed_viewers(h->feed) == 0 && ari_now() - start > 5)
            break;
    }
    pthread_mutex_unlock(&h->mu);
    ari_live_feed_end(h->feed, closed_frame);
}

static void *worker(void *arg)
{
    ari_live_hub *h = arg;
    ari_live_hubs *hs = h->hs;
    ari_live_engine *e = ari_live_engine_new();
    int rc;
    while ((rc = load(h)) == 1)
        ;
    pthread_mutex_lock(&h->mu);
    h->state = rc == 0 && e ? HUB_READY : HUB_FAILED;
    if (!e && rc == 0)
        ari_error_set(&h->load_err, ARI_E_NOMEM, "out of memory");
    h->last_activity = ari_now();
    pthread_cond_broadcast(&h->cv);
    int ready = h->state == HUB_READY;
    pthread_mutex_unlock(&h->mu);
    if (ready) {
        if (h->replay)
            replay_loop(h, e);
        else
            live_loop(h, e);
    }
    ari_live_feed_end(h->feed, NULL);
    ari_live_engine_free(e);
    pthread_mutex_lock(&hs->mu);
    if (h->replay)
        hs->nreplays--;
    unlink_hub(hs, h);
    hs->workers--;
    int last = --h->refs == 0;
    pthread_cond_broadcast(&hs->cv);
    pthread_mutex_unlock(&hs->mu);
    if (last)
        hub_free(h);
    return NULL;
}

/* A new hub with its worker; hs->mu held. refs: the caller's and the worker's. */
static ari_live_hub *hub_start(ari_live_hubs *hs, int64_t id, int replay)
{
    ari_live_hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->hs = hs;
    h->id = id;
    h->replay = replay;
    h->refs = 2;
    h->state = HUB_LOADING;
    h->open = 1;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    ari_live_controls_defaults(&h->ctl);
    if (!(h->feed = ari_live_feed_new(&hs->sse_count, ARI_LIVE_MAX_SSE))) {
        hub_free(h);
        return NULL;
    }
    pthread_t tid;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&tid, &attr, worker, h);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        hub_free(h);
        return NULL;
    }
    hs->workers++;
    return h;
}

/* The shared hub of id, created if needed: a reference, or NULL (busy,
 * shutting down, out of memory). */
static ari_live_hub *find_or_start(ari_live_hubs *hs, int64_t id)
{
    pthread_mutex_lock(&hs->mu);
    ari_live_hub *h = NULL;
    for (ari_live_hub *p = hs->list; p; p = p->next)
        if (p->id == id && !p->replay) {
            h = p;
            h->refs++;
            break;
        }
    if (!h && !hs->shutting && hs->nhubs < ARI_LIVE_MAX_HUBS && (h = hub_start(hs, id, 0)) != NULL) {
        h->refs++; /* the registry's */
        h->next = hs->list;
        hs->list = h;
        hs->nhubs++;
    }
    pthread_mutex_unlock(&hs->mu);
    return h;
}

/* Waits until the hub is loaded; 0 ready, -1 with err. Hub unlocked. */
static int wait_ready(ari_live_hub *h, ari_error *err)
{
    double deadline = ari_now() + LOAD_WAIT_S;
    pthread_mutex_lock(&h->mu);
    while (h->state == HUB_LOADING && ari_now() < deadline)
        timed_wait(h, 0.5);
    int state = h->state;
    ari_error load_err = h->load_err;
    pthread_mutex_unlock(&h->mu);
    if (state == HUB_READY)
        return 0;
    if (state == HUB_LOADING)
        return ari_error_set(err, ARI_E_BUSY, "the live run is still loading; retry");
    *err = load_err;
    if (!err->code[0])
        ari_error_set(err, "internal", "the live run could not be loaded");
    return -1;
}

int ari_live_hub_get(ari_server *srv, ari_store *db, int64_t id, ari_live_hub **out, ari_error *err)
{
    ari_stream_status st;
    int rc = ari_stream_status_get(db, id, &st, err);
    if (rc != 0)
        return rc;
    ari_live_hubs *hs = srv->live;
    ari_live_hub *h = hs ? find_or_start(hs, id) : NULL;
    if (!h)
        return ari_error_set(err, ARI_E_BUSY, "too many live runs are being watched (at most %d); retry later",
                             ARI_LIVE_MAX_HUBS);
    if (wait_ready(h, err) < 0) {
        ari_live_hub_put(h);
        return -1;
    }
    *out = h;
    return 0;
}

int ari_live_hub_attach(ari_live_hub *h, struct MHD_Connection *conn, int64_t last_id, struct MHD_Response **resp,
                        ari_error *err)
{
    pthread_mutex_lock(&h->mu);
    h->last_activity = ari_now();
    pthread_mutex_unlock(&h->mu);
    return ari_live_feed_attach(h->feed, conn, last_id, resp, err);
}

int ari_live_replay_attach(ari_server *srv, ari_store *db, int64_t id, double hz, struct MHD_Connection *conn,
                           int64_t last_id, struct MHD_Response **resp, ari_error *err)
{
    (void)db;
    ari_live_hubs *hs = srv->live;
    if (!hs)
        return ari_error_set(err, ARI_E_BUSY, "live runs are not available");
    pthread_mutex_lock(&hs->mu);
    ari_live_hub *h = NULL;
    if (!hs->shutting && hs->nreplays < ARI_LIVE_MAX_REPLAYS && (h = hub_start(hs, id, 1)) != NULL) {
        hs->nreplays++;
        h->hz = hz;
        h->replay_from = last_id > 0 ? last_id : 0;
        h->refs++; /* the registry's */
        h->next = hs->list;
        hs->list = h;
    }
    pthread_mutex_unlock(&hs->mu);
    if (!h)
        return ari_error_set(err, ARI_E_BUSY, "too many replays at once (at most %d); retry later",
                             ARI_LIVE_MAX_REPLAYS);
    /* attach before the first point is due (the load may be under way) */
    int rc = ari_live_feed_attach(h->feed, conn, -1, resp, err);
    if (rc < 0) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
    ari_live_hub_put(h);
    return rc;
}

/* ---- appends and closes (api_streams.c) ---- */

static int push_pending(ari_live_hub *h, const hub_pending *p)
{
    if (h->npending == h->cap_pending) {
        size_t cap = h->cap_pending ? 2 * h->cap_pending : 64;
        hub_pending *g = realloc(h->pending, cap * sizeof *g);
        if (!g)
            return -1;
        h->pending = g;
        h->cap_pending = cap;
    }
    h->pending[h->npending++] = *p;
    return 0;
}

/* Applies a committed batch to the hub's data; hub locked. */
static void apply_batch(ari_live_hub *h, const ari_live_applied *a, double now)
{
    int64_t last = ari_live_data_last_seq(h->ld);
    if (a->first_seq <= last)
        return; /* the load had it already */
    if (a->first_seq > last + 1) {
        h->reload = 1; /* a batch was missed: load again */
        h->want_seq = a->first_seq + (int64_t)a->nrecords - 1;
        return;
    }
    ari_error err = {0};
    ari_live_record_result *res = malloc((a->nrecords ? a->nrecords : 1) * sizeof *res);
    if (!res || ari_live_data_apply(h->ld, a->batch, a->first_seq, res, &err) < 0) {
        ari_log(ARI_LOG_WARN, "live %lld: %s; reloading", (long long)h->id,
                res ? err.message : "out of memory");
        free(res);
        h->reload = 1;
        h->want_seq = a->first_seq + (int64_t)a->nrecords - 1;
        return;
    }
    for (size_t i = 0; i < a->nrecords; i++) {
        hub_pending p = {.seq = res[i].seq, .key = a->batch->records[i].key, .update = !res[i].is_new,
                         .late = res[i].late, .arrival = now};
        if (p.update || p.late)
            h->reset = 1;
        if (push_pending(h, &p) < 0)
            h->reload = 1;
    }
    free(res);
}

void ari_live_hub_appended(ari_server *srv, int64_t trace_id, const struct ari_live_applied *applied)
{
    double now = ari_now();
    ari_live_hubs *hs = srv->live;
    if (!hs || !applied || !applied->batch)
        return;
    ari_live_hub *h = find_or_start(hs, trace_id);
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->last_activity = now;
    h->open = 1;
    int64_t upto = applied->first_seq + (int64_t)applied->nrecords - 1;
    if (h->state == HUB_LOADING || h->reload) {
        if (upto > h->want_seq)
            h->want_seq = upto;
    } else if (h->state == HUB_READY) {
        apply_batch(h, applied, now);
    }
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    ari_live_hub_put(h);
}

void ari_live_hub_closed(ari_server *srv, int64_t trace_id)
{
    ari_live_hubs *hs = srv->live;
    if (!hs)
        return;
    pthread_mutex_lock(&hs->mu);
    ari_live_hub *h = hs->list;
    while (h && (h->id != trace_id || h->replay))
        h = h->next;
    if (h)
        h->refs++;
    pthread_mutex_unlock(&hs->mu);
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->closing = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    ari_live_hub_put(h);
}

size_t ari_live_hub_backlog(ari_server *srv, int64_t trace_id)
{
    ari_live_hubs *hs = srv->live;
    if (!hs)
        return 0;
    size_t n = 0;
    pthread_mutex_lock(&hs->mu);
    for (ari_live_hub *h = hs->list; h; h = h->next)
        if (h->id == trace_id && !h->replay) {
            pthread_mutex_lock(&h->mu);
            n = h->npending + h->inflight;
            pthread_mutex_unlock(&h->mu);
        }
    pthread_mutex_unlock(&hs->mu);
    return n;
}

/* ---- controls ---- */

int ari_live_hub_control(ari_live_hub *h, ari_store *db, json_t *body, json_t **out, ari_error *err)
{
    pthread_mutex_lock(&h->mu);
    ari_live_controls c = h->ctl;
    if (ari_live_controls_apply(&c, body, h->ld, err) < 0) {
        pthread_mutex_unlock(&h->mu);
        return -1;
    }
    h->ctl = c;
    h->recompose = 1;
    h->last_activity = ari_now();
    json_t *stored = ari_live_controls_json(&c);
    ari_live_controls resolved;
    ari_live_controls_resolve(&c, h->ld, &resolved);
    *out = ari_live_controls_json(&resolved);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    /* kept with the run (unresolved: defaults stay defaults) */
    if (stored) {
        json_object_del(stored, "version");
        const char *keys[] = {"top", "bottom", "cluster_metric"};
        for (size_t i = 0; i < 3; i++)
            if (!json_string_length(json_object_get(stored, keys[i])))
                json_object_del(stored, keys[i]);
        json_t *cz = json_object_get(stored, "causality");
        if (cz && !json_string_length(json_object_get(cz, "target")))
            json_object_del(cz, "target");
        if (!json_string_length(json_object_get(stored, "granularity")))
            json_object_del(stored, "granularity");
        char *text = json_dumps(stored, JSON_COMPACT);
        ari_error serr = {0};
        if (text && ari_stream_controls_set(db, h->id, text, &serr) < 0)
            ari_log(ARI_LOG_WARN, "live %lld: controls not saved: %s", (long long)h->id, serr.message);
        pthread_mutex_lock(&h->mu);
        free(h->followed_controls); /* what is stored now, not another daemon's */
        h->followed_controls = text;
        pthread_mutex_unlock(&h->mu);
        json_decref(stored);
    }
    return *out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}
