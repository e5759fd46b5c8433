/* live_sse.c: the SSE feed of a live run: a ring of shared frames, the
 * sessions reading it, suspend/resume of their connections (live_sse.h).
 *
 * Locking: one mutex per feed guards the ring and every session of the
 * feed. The content-reader callback suspends its connection while holding
 * it (so a publication cannot slip between "nothing to send" and the
 * suspension); resumptions are collected under it and made after it is
 * released. A session flagged suspended is one libmicrohttpd will not close,
 * so its connection pointer stays valid until it is resumed. */
#include "live_sse.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define HEAD_SIZE 512
#define RESUME_BATCH 64

typedef struct sse_session {
    struct sse_session *prev, *next;
    ari_live_feed *feed;
    struct MHD_Connection *conn;
    uint64_t cursor;      /* next ring position to send */
    uint64_t grace_end;   /* ring positions before this were backlog at attach */
    int64_t sent_id;      /* the last id sent (or the client's Last-Event-ID); -1 none */
    int suspended, ending, ended, final_sent;
    int resynced;         /* sent event: resync: nothing more but the end */
    char head[HEAD_SIZE]; /* a short frame to send before the ring (retry, keepalive, resync) */
    size_t head_len, head_off;
    ari_live_msg *cur;    /* the frame being written */
    size_t cur_off;
    double last_write;
} sse_session;

struct ari_live_feed {
    pthread_mutex_t mu;
    int refs;             /* the owner + one per session */
    ari_live_msg *ring[ARI_LIVE_RING];
    uint64_t pub_next;    /* positions published so far */
    uint64_t first;       /* the oldest position still in the ring */
    size_t bytes;         /* of the frames in the ring (at most ARI_LIVE_RING_BYTES) */
    sse_session *sessions;
    size_t n_sessions;
    int ended;
    char *final;          /* the frame sent last by every session once ended */
    atomic_int *sse_count;
    int max_sessions;
};

ari_live_msg *ari_live_msg_new(const char *event, int64_t id, const char *data, size_t data_len)
{
    char head[96];
    int n = id >= 0 ? snprintf(head, sizeof head, "id: %lld\nevent: %s\ndata: ", (long long)id, event)
                    : snprintf(head, sizeof head, "event: %s\ndata: ", event);
    if (n < 0 || (size_t)n >= sizeof head)
        return NULL;
    ari_live_msg *m = malloc(sizeof *m + (size_t)n + data_len + 3);
    if (!m)
        return NULL;
    atomic_init(&m->refs, 1);
    m->id = id;
    m->point = strcmp(event, "point") == 0;
    memcpy(m->text, head, (size_t)n);
    memcpy(m->text + n, data, data_len);
    m->len = (size_t)n + data_len;
    m->text[m->len++] = '\n';
    m->text[m->len++] = '\n';
    m->text[m->len] = '\0';
    return m;
}

void ari_live_msg_ref(ari_live_msg *m)
{
    atomic_fetch_add(&m->refs, 1);
}

void ari_live_msg_unref(ari_live_msg *m)
{
    if (m && atomic_fetch_sub(&m->refs, 1) == 1)
        free(m);
}

ari_live_feed *ari_live_feed_new(atomic_int *sse_count, int max_sessions)
{
    ari_live_feed *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    pthread_mutex_init(&f->mu, NULL);
    f->refs = 1;
    f->sse_count = sse_count;
    f->max_sessions = max_sessions;
    return f;
}

static uint64_t ring_first(const ari_live_feed *f)
{
    return f->first;
}

/* Drops the oldest frame of the ring; the feed is locked. */
static void evict(ari_live_feed *f)
{
    ari_live_msg **slot = &f->ring[f->first % ARI_LIVE_RING];
    if (*slot) {
        f->bytes -= (*slot)->len;
        ari_live_msg_unref(*slot);
        *slot = NULL;
    }
    f->first++;
}

static void feed_free(ari_live_feed *f)
{
    while (f->first < f->pub_next)
        evict(f);
    free(f->final);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

/* Drops one reference; the caller holds the lock, which this releases. */
static void unref_unlock(ari_live_feed *f)
{
    int last = --f->refs == 0;
    pthread_mutex_unlock(&f->mu);
    if (last)
        feed_free(f);
}

static void set_head(sse_session *s, const char *text)
{
    size_t len = strlen(text);
    if (len >= HEAD_SIZE)
        len = HEAD_SIZE - 1;
    memcpy(s->head, text, len);
    s->head_len = len;
    s->head_off = 0;
}

/* The session goes: event: resync, then the end. */
static void resync(sse_session *s, ari_live_feed *f, const char *why)
{
    char frame[HEAD_SIZE];
    snprintf(frame, sizeof frame, "event: resync\ndata: {\"reason\":\"%s\"}\n\n", why);
    set_head(s, frame);
    s->cursor = f->pub_next;
    s->ending = 1;
    s->resynced = 1;
}

/* Collects the connection of a suspended session for resumption. */
static void wake(sse_session *s, struct MHD_Connection **list, size_t *n)
{
    if (s->suspended && *n < RESUME_BATCH) {
        s->suspended = 0;
        list[(*n)++] = s->conn;
    }
}

static void resume_all(struct MHD_Connection **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        MHD_resume_connection(list[i]);
}

/* Calls fn on every session, then resumes those it woke, in batches. */
static void for_each_wake(ari_live_feed *f, void (*fn)(ari_live_feed *, sse_session *, void *), void *arg)
{
    struct MHD_Connection *list[RESUME_BATCH];
    size_t n = 0;
    pthread_mutex_lock(&f->mu);
    sse_session *s = f->sessions;
    while (s) {
        fn(f, s, arg);
        int was = s->suspended;
        wake(s, list, &n);
        if (was && s->suspended) {
            /* the batch is full: resume it and go on (suspended sessions
             * cannot close meanwhile; s is still linked) */
            pthread_mutex_unlock(&f->mu);
            resume_all(list, n);
            n = 0;
            pthread_mutex_lock(&f->mu);
            continue;
        }
        s = s->next;
    }
    pthread_mutex_unlock(&f->mu);
    resume_all(list, n);
}

static void check_lag(ari_live_feed *f, sse_session *s, void *arg)
{
    (void)arg;
    if (s->ending)
        return;
    uint64_t lag = f->pub_next - s->cursor;
    uint64_t grace = s->grace_end > s->cursor ? s->grace_end - s->cursor : 0;
    if (lag > ARI_LIVE_CLIENT_QUEUE + grace)
        resync(s, f, "slow_client");
}

void ari_live_feed_publish(ari_live_feed *f, ari_live_msg *m)
{
    ari_live_msg_ref(m);
    pthread_mutex_lock(&f->mu);
    if (f->pub_next - f->first == ARI_LIVE_RING)
        evict(f);
    f->ring[f->pub_next % ARI_LIVE_RING] = m;
    f->bytes += m->len;
    f->pub_next++;
    while (f->bytes > ARI_LIVE_RING_BYTES && f->pub_next - f->first > 1)
        evict(f);
    pthread_mutex_unlock(&f->mu);
    for_each_wake(f, check_lag, NULL);
}

void ari_live_feed_clear(ari_live_feed *f)
{
    pthread_mutex_lock(&f->mu);
    while (f->first < f->pub_next)
        evict(f);
    /* positions go on; the sessions skip to the end */
    for (sse_session *s = f->sessions; s; s = s->next)
        s->cursor = s->grace_end = f->pub_next;
    pthread_mutex_unlock(&f->mu);
}

static void keepalive(ari_live_feed *f, sse_session *s, void *arg)
{
    (void)f;
    double now = *(double *)arg;
    if (!s->ending && s->head_off >= s->head_len && now - s->last_write >= ARI_LIVE_KEEPALIVE_S)
        set_head(s, ": keepalive\n\n");
}

void ari_live_feed_tick(ari_live_feed *f)
{
    double now = ari_now();
    struct MHD_Connection *list[RESUME_BATCH];
    size_t n = 0;
    pthread_mutex_lock(&f->mu);
    for (sse_session *s = f->sessions; s && n < RESUME_BATCH; s = s->next) {
        keepalive(f, s, &now);
        if (s->head_off < s->head_len)
            wake(s, list, &n);
    }
    pthread_mutex_unlock(&f->mu);
    resume_all(list, n);
}

static void end_one(ari_live_feed *f, sse_session *s, void *arg)
{
    (void)f;
    (void)arg;
    s->ending = 1;
}

void ari_live_feed_end(ari_live_feed *f, const char *final)
{
    pthread_mutex_lock(&f->mu);
    if (!f->ended) {
        f->ended = 1;
        f->final = final ? strdup(final) : NULL;
    }
    pthread_mutex_unlock(&f->mu);
    for_each_wake(f, end_one, NULL);
}

void ari_live_feed_release(ari_live_feed *f)
{
    if (!f)
        return;
    ari_live_feed_end(f, NULL);
    pthread_mutex_lock(&f->mu);
    unref_unlock(f);
}

size_t ari_live_feed_viewers(ari_live_feed *f)
{
    pthread_mutex_lock(&f->mu);
    size_t n = f->n_sessions;
    pthread_mutex_unlock(&f->mu);
    return n;
}

ari_live_msg *ari_live_feed_last(ari_live_feed *f)
{
    ari_live_msg *m = NULL;
    pthread_mutex_lock(&f->mu);
    for (uint64_t p = f->pub_next; p > ring_first(f); p--) {
        ari_live_msg *c = f->ring[(p - 1) % ARI_LIVE_RING];
        if (c && c->id >= 0) {
            ari_live_msg_ref(c);
            m = c;
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return m;
}

/* Copies from src[*off..len) into buf[*n..max). */
static void copy_part(char *buf, size_t max, size_t *n, const char *src, size_t len, size_t *off)
{
    size_t k = len - *off;
    if (k > max - *n)
        k = max - *n;
    memcpy(buf + *n, src + *off, k);
    *n += k;
    *off += k;
}

/* The next ring frame for s, or NULL (caught up). Skips what the client
 * already has; a gap in the ids means missed points: resync. */
static ari_live_msg *next_frame(ari_live_feed *f, sse_session *s)
{
    while (!s->resynced && s->cursor < f->pub_next) {
        if (s->cursor < ring_first(f)) {
            resync(s, f, "missed");
            return NULL;
        }
        ari_live_msg *m = f->ring[s->cursor % ARI_LIVE_RING];
        s->cursor++;
        if (!m || (m->point && m->id <= s->sent_id && s->sent_id >= 0))
            continue; /* the client has it (sent, or before its Last-Event-ID) */
        if (m->point && s->sent_id >= 0 && m->id > s->sent_id + 1) {
            resync(s, f, "missed");
            return NULL;
        }
        if (m->id > s->sent_id)
            s->sent_id = m->id;
        ari_live_msg_ref(m);
        return m;
    }
    return NULL;
}

/* Fills buf with what s has to send; the feed is locked. */
static size_t fill(ari_live_feed *f, sse_session *s, char *buf, size_t max)
{
    size_t n = 0;
    while (n < max) {
        if (s->cur) {
            copy_part(buf, max, &n, s->cur->text, s->cur->len, &s->cur_off);
            if (s->cur_off == s->cur->len) {
                ari_live_msg_unref(s->cur);
                s->cur = NULL;
            }
        } else if (s->head_off < s->head_len) {
            copy_part(buf, max, &n, s->head, s->head_len, &s->head_off);
        } else if ((s->cur = next_frame(f, s)) != NULL) {
            s->cur_off = 0;
        } else if (s->head_off < s->head_len) {
            continue; /* next_frame set a resync frame */
        } else if (s->ending && f->ended && f->final && !s->final_sent && !s->resynced) {
            s->final_sent = 1;
            set_head(s, f->final);
        } else {
            if (s->ending)
                s->ended = 1;
            break;
        }
    }
    return n;
}

static ssize_t read_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse_session *s = cls;
    ari_live_feed *f = s->feed;
    pthread_mutex_lock(&f->mu);
    if (f->ended && !s->ending)
        s->ending = 1;
    if (s->ended && !s->cur && s->head_off >= s->head_len) {
        pthread_mutex_unlock(&f->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = fill(f, s, buf, max);
    if (n > 0) {
        s->last_write = ari_now();
        pthread_mutex_unlock(&f->mu);
        return (ssize_t)n;
    }
    if (s->ended) {
        pthread_mutex_unlock(&f->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    s->suspended = 1;
    MHD_suspend_connection(s->conn);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void free_cb(void *cls)
{
    sse_session *s = cls;
    ari_live_feed *f = s->feed;
    pthread_mutex_lock(&f->mu);
    if (s->prev)
        s->prev->next = s->next;
    else
        f->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    f->n_sessions--;
    ari_live_msg_unref(s->cur);
    atomic_fetch_sub(f->sse_count, 1);
    free(s);
    unref_unlock(f);
}

/* The ring position of the first frame after last_id. */
static uint64_t start_cursor(ari_live_feed *f, int64_t last_id)
{
    if (last_id < 0)
        return f->pub_next;
    for (uint64_t p = ring_first(f); p < f->pub_next; p++) {
        ari_live_msg *m = f->ring[p % ARI_LIVE_RING];
        if (m && (m->id > last_id || m->id < 0))
            return p;
    }
    return f->pub_next;
}

int ari_live_feed_attach(ari_live_feed *f, struct MHD_Connection *conn, int64_t last_id,
                         struct MHD_Response **resp, ari_error *err)
{
    if (atomic_fetch_add(f->sse_count, 1) >= f->max_sessions) {
        atomic_fetch_sub(f->sse_count, 1);
        return ari_error_set(err, "busy", "too many event streams are open (at most %d); retry later",
                             f->max_sessions);
    }
    sse_session *s = calloc(1, sizeof *s);
    if (!s) {
        atomic_fetch_sub(f->sse_count, 1);
        return ari_error_set(err, "out_of_memory", "out of memory");
    }
    s->feed = f;
    s->conn = conn;
    s->sent_id = last_id > 0 ? last_id : -1; /* 0: every frame kept, no resync */
    s->last_write = ari_now();
    set_head(s, "retry: 1000\n\n");
    pthread_mutex_lock(&f->mu);
    s->cursor = start_cursor(f, last_id);
    s->grace_end = f->pub_next;
    if (last_id > 0 && s->cursor < f->pub_next) {
        ari_live_msg *first = f->ring[s->cursor % ARI_LIVE_RING];
        if (first && first->id > last_id + 1) {
            set_head(s, "retry: 1000\n\nevent: resync\ndata: {\"reason\":\"missed\"}\n\n");
            s->ending = s->resynced = 1; /* then the end: the client reloads /state */
        }
    }
    s->next = f->sessions;
    if (f->sessions)
        f->sessions->prev = s;
    f->sessions = s;
    f->n_sessions++;
    f->refs++;
    pthread_mutex_unlock(&f->mu);
    *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, read_cb, s, free_cb);
    if (!*resp) {
        free_cb(s);
        return ari_error_set(err, "out_of_memory", "out of memory");
    }
    return 0;
}
