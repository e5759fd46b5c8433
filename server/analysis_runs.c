/* analysis_runs.c: the registry of background analyses (the contract is in
 * analysis_runs.h): a list of runs under one mutex, a FIFO of queued ones,
 * ARI_RUNS_WORKERS threads, each with its own database connection for the
 * result cache. */
#include "analysis_runs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/analysis_cache.h"
#include "store/store.h"
#include "util/log.h"

typedef enum { RUN_QUEUED, RUN_RUNNING, RUN_SUCCEEDED, RUN_FAILED, RUN_CANCELLED } run_status;

static const char *const status_names[] = {"queued", "running", "succeeded", "failed", "cancelled"};

struct ari_run_ctl {
    int cancel;           /* atomic */
    int64_t counter;      /* atomic */
    int64_t total;
    double from, to;
    char phase[48];
};

typedef struct run {
    int64_t id, trace_id;
    char kind[32];
    char *trace_key, *cache_name, *params;
    char *db_path;
    ari_run_fn fn;
    void *input;
    ari_run_free_fn free_input;
    run_status status;
    char created_at[32];
    ari_run_ctl ctl;
    char *result;         /* succeeded: the result text */
    size_t result_bytes;
    ari_error error;      /* failed */
    struct run *next;     /* the registry's list, newest first */
    struct run *next_queued;
} run;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t threads[ARI_RUNS_WORKERS];
    int nthreads;
    int stopping;
    run *runs;            /* every run, newest first */
    run *queue_head, *queue_tail;
    int64_t next_id;
} reg = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, NULL, NULL, NULL, 1};

static void now_iso(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the computation's view ---- */

void ari_run_phase(ari_run_ctl *c, const char *phase, double from, double to, int64_t total)
{
    if (!c)
        return;
    pthread_mutex_lock(&reg.mu);
    snprintf(c->phase, sizeof c->phase, "%s", phase);
    c->from = from;
    c->to = to;
    c->total = total;
    __atomic_store_n(&c->counter, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg.mu);
}

int64_t *ari_run_counter(ari_run_ctl *c)
{
    return c ? &c->counter : NULL;
}

void ari_run_count(ari_run_ctl *c, int64_t done)
{
    if (c)
        __atomic_store_n(&c->counter, done, __ATOMIC_RELAXED);
}

const int *ari_run_cancel_flag(ari_run_ctl *c)
{
    return c ? &c->cancel : NULL;
}

int ari_run_cancelled(ari_run_ctl *c)
{
    return c && __atomic_load_n(&c->cancel, __ATOMIC_RELAXED);
}

/* ---- the registry (callers hold reg.mu) ---- */

static void run_free(run *r)
{
    if (r->input && r->free_input)
        r->free_input(r->input);
    free(r->trace_key);
    free(r->cache_name);
    free(r->params);
    free(r->db_path);
    free(r->result);
    free(r);
}

static int finished(const run *r)
{
    return r->status != RUN_QUEUED && r->status != RUN_RUNNING;
}

static int same_request(const run *r, const char *trace_key, const char *cache_name, const char *params)
{
    return strcmp(r->trace_key, trace_key) == 0 && strcmp(r->cache_name, cache_name) == 0 &&
           strcmp(r->params, params) == 0;
}

/* Drops the oldest finished runs beyond the count and byte budgets. */
static void evict(void)
{
    for (;;) {
        int kept = 0;
        size_t bytes = 0;
        run *oldest = NULL, **oldest_link = NULL;
        for (run **link = &reg.runs; *link; link = &(*link)->next)
            if (finished(*link)) {
                kept++;
                bytes += (*link)->result_bytes;
                oldest = *link;
                oldest_link = link;
            }
        if (!oldest || (kept <= ARI_RUNS_KEEP && bytes <= ARI_RUNS_KEEP_BYTES))
            return;
        *oldest_link = oldest->next;
        run_free(oldest);
    }
}

static run *find(int64_t id)
{
    for (run *r = reg.runs; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static run *take_queued(void)
{
    run *r = reg.queue_head;
    if (r) {
        reg.queue_head = r->next_queued;
        if (!reg.queue_head)
            reg.queue_tail = NULL;
        r->next_queued = NULL;
    }
    return r;
}

/* ---- workers ---- */

static void store_result(ari_store **db, const run *r)
{
    if (!*db) {
        ari_error err = {0};
        if (!(*db = ari_store_open(r->db_path, &err))) {
            ari_log(ARI_LOG_WARN, "analysis %lld: cannot open the database for the cache: %s", (long long)r->id,
                    err.message);
            return;
        }
    }
    ari_cache_put(*db, r->trace_id, r->cache_name, r->params, r->result);
}

/* The result goes to the database cache before the run is shown finished:
 * once finished it may be evicted by another thread at any time. */
static void execute(run *r, ari_store **db)
{
    ari_error err = {0};
    char *text = r->fn(r->input, &r->ctl, &err);
    if (text) {
        r->result = text; /* not read by others before the status says succeeded */
        r->result_bytes = strlen(text);
        store_result(db, r);
    }
    pthread_mutex_lock(&reg.mu);
    r->free_input(r->input);
    r->input = NULL;
    if (text) {
        r->status = RUN_SUCCEEDED;
    } else {
        r->error = err;
        r->status = strcmp(err.code, ARI_E_CANCELLED) == 0 || ari_run_cancelled(&r->ctl) ? RUN_CANCELLED
                                                                                         : RUN_FAILED;
    }
    evict();
    pthread_mutex_unlock(&reg.mu);
}

static void *worker(void *arg)
{
    (void)arg;
    ari_store *db = NULL;
    pthread_mutex_lock(&reg.mu);
    for (;;) {
        while (!reg.stopping && !reg.queue_head)
            pthread_cond_wait(&reg.wake, &reg.mu);
        if (reg.stopping)
            break;
        run *r = take_queued();
        r->status = RUN_RUNNING;
        pthread_mutex_unlock(&reg.mu);
        execute(r, &db);
        pthread_mutex_lock(&reg.mu);
    }
    pthread_mutex_unlock(&reg.mu);
    if (db)
        ari_store_close(db);
    return NULL;
}

static void stop_at_exit(void)
{
    ari_runs_stop();
}

/* Starts the workers once (reg.mu held). */
static int start_workers(ari_error *err)
{
    static int registered;
    if (reg.nthreads > 0)
        return 0;
    reg.stopping = 0;
    for (int i = 0; i < ARI_RUNS_WORKERS; i++) {
        if (pthread_create(&reg.threads[i], NULL, worker, NULL) != 0)
            break;
        reg.nthreads++;
    }
    if (reg.nthreads == 0)
        return ari_error_set(err, ARI_E_NOMEM, "cannot start an analysis worker");
    if (!registered) {
        registered = 1;
        atexit(stop_at_exit);
    }
    return 0;
}

/* ---- the API ---- */

static run *run_new(const ari_run_spec *s)
{
    run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->trace_key = strdup(s->trace_key);
    r->cache_name = strdup(s->cache_name);
    r->params = strdup(s->params);
    r->db_path = strdup(s->db_path);
    if (!r->trace_key || !r->cache_name || !r->params || !r->db_path) {
        run_free(r);
        return NULL;
    }
    r->trace_id = s->trace_id;
    snprintf(r->kind, sizeof r->kind, "%s", s->kind);
    r->fn = s->fn;
    r->input = s->input;
    r->free_input = s->free_input;
    r->status = RUN_QUEUED;
    snprintf(r->ctl.phase, sizeof r->ctl.phase, "queued");
    now_iso(r->created_at, sizeof r->created_at);
    return r;
}

static int pending_count(void)
{
    int n = 0;
    for (run *r = reg.runs; r; r = r->next)
        n += !finished(r);
    return n;
}

int ari_runs_submit(const ari_run_spec *spec, int64_t *id, ari_error *err)
{
    pthread_mutex_lock(&reg.mu);
    for (run *r = reg.runs; r; r = r->next)
        if (!finished(r) && !ari_run_cancelled(&r->ctl) &&
            same_request(r, spec->trace_key, spec->cache_name, spec->params)) {
            *id = r->id;
            pthread_mutex_unlock(&reg.mu);
            spec->free_input(spec->input);
            return 0;
        }
    int rc = 0;
    run *r = NULL;
    if (pending_count() >= ARI_RUNS_MAX_PENDING)
        rc = ari_error_set(err, ARI_E_BUSY, "%d analyses are queued or running: try again later",
                           ARI_RUNS_MAX_PENDING);
    else if (start_workers(err) < 0)
        rc = -1;
    else if (!(r = run_new(spec)))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc < 0) {
        pthread_mutex_unlock(&reg.mu);
        spec->free_input(spec->input);
        return -1;
    }
    r->id = reg.next_id++;
    r->next = reg.runs;
    reg.runs = r;
    if (reg.queue_tail)
        reg.queue_tail->next_queued = r;
    else
        reg.queue_head = r;
    reg.queue_tail = r;
    *id = r->id;
    pthread_cond_signal(&reg.wake);
    pthread_mutex_unlock(&reg.mu);
    return 0;
}

char *ari_runs_result_of(const char *trace_key, const char *cache_name, const char *params)
{
    char *text = NULL;
    pthread_mutex_lock(&reg.mu);
    for (run *r = reg.runs; r; r = r->next)
        if (r->status == RUN_SUCCEEDED && same_request(r, trace_key, cache_name, params)) {
            text = strdup(r->result);
            break;
        }
    pthread_mutex_unlock(&reg.mu);
    return text;
}

static double progress_of(const run *r)
{
    if (r->status == RUN_SUCCEEDED)
        return 1;
    if (r->status == RUN_QUEUED)
        return 0;
    const ari_run_ctl *c = &r->ctl;
    int64_t done = __atomic_load_n(&c->counter, __ATOMIC_RELAXED);
    double f = c->total > 0 ? (double)done / (double)c->total : 0;
    if (f > 1)
        f = 1;
    return c->from + (c->to - c->from) * (f > 0 ? f : 0);
}

/* {"analysis": {...}, "result" or "error"}. */
static char *document(const run *r)
{
    json_t *a = json_pack("{s:I,s:s,s:I,s:s,s:f,s:s,s:s}", "id", (json_int_t)r->id, "kind", r->kind, "trace_id",
                          (json_int_t)r->trace_id, "status", status_names[r->status], "progress", progress_of(r),
                          "phase", r->status == RUN_SUCCEEDED ? "done" : r->ctl.phase, "created_at", r->created_at);
    char *head = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    if (!head)
        return NULL;
    json_t *e = NULL;
    if (r->status == RUN_FAILED || r->status == RUN_CANCELLED)
        e = json_pack("{s:s,s:s}", "code", r->status == RUN_CANCELLED ? ARI_E_CANCELLED : r->error.code, "message",
                      r->status == RUN_CANCELLED ? "the analysis was cancelled" : r->error.message);
    char *tail = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    const char *body = r->status == RUN_SUCCEEDED ? r->result : tail;
    size_t size = strlen(head) + (body ? strlen(body) : 0) + 32;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "{\"analysis\":%s%s%s}", head,
                 body ? (r->status == RUN_SUCCEEDED ? ",\"result\":" : ",\"error\":") : "", body ? body : "");
    free(head);
    free(tail);
    return out;
}

char *ari_runs_document(int64_t id, int *nomem)
{
    *nomem = 0;
    pthread_mutex_lock(&reg.mu);
    run *r = find(id);
    char *text = r ? document(r) : NULL;
    pthread_mutex_unlock(&reg.mu);
    if (r && !text)
        *nomem = 1;
    return text;
}

/* A queued run leaves the queue cancelled (its input freed at once). */
static void unqueue(run *r)
{
    run *prev = NULL;
    for (run *q = reg.queue_head; q; prev = q, q = q->next_queued)
        if (q == r) {
            if (prev)
                prev->next_queued = q->next_queued;
            else
                reg.queue_head = q->next_queued;
            if (reg.queue_tail == q)
                reg.queue_tail = prev;
            break;
        }
    r->next_queued = NULL;
    r->status = RUN_CANCELLED;
    r->free_input(r->input);
    r->input = NULL;
    evict();
}

int ari_runs_cancel(int64_t id)
{
    pthread_mutex_lock(&reg.mu);
    run *r = find(id);
    if (r && !finished(r)) {
        __atomic_store_n(&r->ctl.cancel, 1, __ATOMIC_RELAXED);
        if (r->status == RUN_QUEUED)
            unqueue(r);
    }
    pthread_mutex_unlock(&reg.mu);
    return r ? 0 : 1;
}

void ari_runs_stop(void)
{
    pthread_mutex_lock(&reg.mu);
    reg.stopping = 1;
    for (run *r = reg.runs; r; r = r->next)
        __atomic_store_n(&r->ctl.cancel, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&reg.wake);
    int n = reg.nthreads;
    reg.nthreads = 0;
    pthread_mutex_unlock(&reg.mu);
    for (int i = 0; i < n; i++)
        pthread_join(reg.threads[i], NULL);
    pthread_mutex_lock(&reg.mu);
    while (reg.runs) {
        run *r = reg.runs;
        reg.runs = r->next;
        run_free(r);
    }
    reg.queue_head = reg.queue_tail = NULL;
    pthread_mutex_unlock(&reg.mu);
}
