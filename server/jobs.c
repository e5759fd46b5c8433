/* jobs.c: the worker thread that runs import jobs. An upload with an
 * `ensemble` name (upload.h) also makes the ensemble of its imported
 * profiles right after the import's transaction commits; when that fails
 * the job is marked failed with the code "ensemble_failed", a message
 * saying why, and the imported trace ids (the traces stay).
 *
 * Where the queue lives depends on the store. On SQLite (one daemon) it is
 * in memory: a submitted job and its upload go to this process's worker.
 * On PostgreSQL (replicas on one database, store/job_queue.h) it is the
 * jobs table: a job's row names its upload's directory in the shared spool
 * ("queued-XXXXXX", owned by the row, removed by whichever replica runs
 * it) and its options; each replica's worker claims queued rows, writes
 * their progress to the row, and puts back in the queue the running jobs
 * of replicas that died. */
#include "jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "import/import.h"
#include "stall_hook.h"
#include "store/job_queue.h"
#include "store/store_ensembles.h"
#include "util/log.h"
#include "util/clock.h"

/* A replica writes a running job's progress to its row at most this often
 * (and at each change of phase). */
#define PROGRESS_WRITE_S 0.5
/* A replica's worker waits at most this long for a NOTIFY before it looks
 * at the queue (and for dead replicas' jobs) again. */
#define POLL_MS 1000
/* The directory of a queued job's upload in the spool: this prefix and
 * the upload directory's random suffix. */
#define QUEUED_PREFIX "queued-"

typedef struct job_item {
    int64_t id;
    ari_upload *upload;
    struct job_item *next;
} job_item;

struct ari_jobs {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    job_item *head, *tail;
    int stopping;
    volatile int cancel;
    ari_store *db;
    uint64_t max_unpacked;
    int shared;            /* the queue is the database's (PostgreSQL replicas) */
    char spool[PATH_MAX];  /* the spool directory that the replicas share */
    /* live state of the running job, under mu */
    int64_t running_id;
    double progress;
    char phase[160];
    /* the progress last written to the row (shared queue; worker only) */
    double written_at;
    char written_phase[160];
};

/* Writes the running job's progress to its row (shared queue only), at
 * most every PROGRESS_WRITE_S and at each new phase. Worker thread. */
static void write_progress(ari_jobs *j, double fraction, const char *phase)
{
    double now = ari_now();
    if (!j->shared || (now - j->written_at < PROGRESS_WRITE_S && strcmp(phase, j->written_phase) == 0))
        return;
    ari_error err = {0};
    if (ari_jobq_progress(j->db, j->running_id, fraction, phase, &err) < 0)
        ari_log(ARI_LOG_WARN, "job %lld: cannot record progress: %s", (long long)j->running_id, err.message);
    j->written_at = now;
    snprintf(j->written_phase, sizeof j->written_phase, "%s", phase);
}

static void on_progress(void *ctx, double fraction, const char *phase)
{
    ari_jobs *j = ctx;
    pthread_mutex_lock(&j->mu);
    j->progress = fraction;
    snprintf(j->phase, sizeof j->phase, "%s", phase ? phase : "");
    pthread_mutex_unlock(&j->mu);
    write_progress(j, fraction, phase ? phase : "");
    ari_stall_hook(fraction, &j->cancel);
}

static void fail_job(ari_jobs *j, int64_t id, const ari_error *e)
{
    ari_error err2 = {0};
    if (ari_jobs_finish(j->db, id, 0, NULL, e->code[0] ? e->code : "internal", e->message, &err2) < 0)
        ari_log(ARI_LOG_ERROR, "job %lld: cannot record failure: %s", (long long)id, err2.message);
}

/* A failed job still lists what its import skipped and which stored
 * traces it duplicates: that is what the user needs to decide. */
static void record_outcome(ari_jobs *j, int64_t id, const ari_import_result *res)
{
    ari_error err = {0};
    if (ari_import_record_outcome(j->db, id, res, &err) < 0)
        ari_log(ARI_LOG_ERROR, "job %lld: cannot record skipped files: %s", (long long)id, err.message);
}

/* "[1,2,3]" and "1, 2, 3" of the imported traces (malloc'd; NULL on nomem). */
static int trace_lists(const ari_import_result *res, char **json, char **text)
{
    size_t cap = 24 * (res->ntraces + 1);
    *json = malloc(cap);
    *text = malloc(cap);
    if (!*json || !*text)
        return -1;
    size_t a = (size_t)snprintf(*json, cap, "["), b = 0;
    (*text)[0] = '\0';
    for (size_t i = 0; i < res->ntraces; i++) {
        a += (size_t)snprintf(*json + a, cap - a, i ? ",%lld" : "%lld", (long long)res->traces[i].id);
        b += (size_t)snprintf(*text + b, cap - b, i ? ", %lld" : "%lld", (long long)res->traces[i].id);
    }
    snprintf(*json + a, cap - a, "]");
    return 0;
}

static void fail_ensemble(ari_jobs *j, int64_t id, const char *name, const ari_import_result *res,
                          const ari_error *why)
{
    char *json = NULL, *text = NULL, *msg = NULL;
    ari_error err = {0};
    if (trace_lists(res, &json, &text) == 0 &&
        asprintf(&msg, "the upload was imported (trace%s %s) but the ensemble '%s' could not be made: %s (%s)",
                 res->ntraces == 1 ? "" : "s", text, name, why->message, why->code) < 0)
        msg = NULL;
    if (ari_jobs_finish(j->db, id, 0, json, "ensemble_failed", msg ? msg : why->message, &err) < 0)
        ari_log(ARI_LOG_ERROR, "job %lld: cannot record failure: %s", (long long)id, err.message);
    free(json);
    free(text);
    free(msg);
}

/* Makes the ensemble `name` of the imported profiles (other kinds left out). */
static void make_ensemble(ari_jobs *j, int64_t id, const char *name, const ari_import_result *res)
{
    int64_t *ids = calloc(res->ntraces + 1, sizeof *ids), eid = 0;
    size_t n = 0;
    ari_error err = {0};
    for (size_t i = 0; ids && i < res->ntraces; i++)
        if (strcmp(res->traces[i].kind, "profile") == 0 || strcmp(res->traces[i].kind, "events") == 0)
            ids[n++] = res->traces[i].id; /* an event trace joins with its derived CCT */
    int rc = !ids ? ari_error_set(&err, ARI_E_NOMEM, "out of memory")
             : n  ? ari_ensemble_create_for_job(j->db, id, name, ids, n, &eid, &err)
                  : ari_error_set(&err, ARI_E_INVALID_INPUT, "the upload holds no profile to make the ensemble of");
    free(ids);
    if (rc < 0) {
        ari_log(ARI_LOG_WARN, "job %lld: ensemble failed: %s", (long long)id, err.message);
        fail_ensemble(j, id, name, res, &err);
    } else {
        ari_log(ARI_LOG_INFO, "job %lld: made ensemble %lld of %zu profile(s)", (long long)id, (long long)eid, n);
    }
}

/* Runs job `id` on the upload's files: 0 if the import succeeded, -1 if it
 * failed (the row says why, unless requeue: then the caller puts the job
 * back in the queue instead of failing it). */
static int run_job(ari_jobs *j, int64_t id, ari_upload *u, int requeue_on_cancel)
{
    ari_import_input inputs[ARI_UPLOAD_MAX_FILES];
    char *paths[ARI_UPLOAD_MAX_FILES] = {0};
    ari_error err = {0};
    int rc = 0;
    for (size_t i = 0; i < u->nfiles; i++) {
        if (asprintf(&paths[i], "%s/%s", u->dir, u->names[i]) < 0) {
            paths[i] = NULL;
            rc = ari_error_set(&err, ARI_E_NOMEM, "out of memory");
        }
        inputs[i].path = paths[i];
        inputs[i].name = u->client_names[i];
    }
    ari_import_request req = {
        .inputs = inputs, .ninputs = u->nfiles,
        .trace_name = u->trace_name[0] ? u->trace_name : NULL,
        .job_id = id, .work_dir = u->dir, .max_unpacked = j->max_unpacked,
        .progress = on_progress, .progress_ctx = j, .cancel = &j->cancel,
        .time_unit = u->time_unit[0] ? u->time_unit : NULL,
        .allow_duplicate = u->allow_duplicate,
    };
    ari_import_result res = {0};
    ari_log(ARI_LOG_INFO, "job %lld: importing %zu file(s)", (long long)id, u->nfiles);
    if (rc < 0 || ari_jobs_set_running(j->db, id, &err) < 0 || ari_import(j->db, &req, &res, &err) < 0) {
        rc = -1;
        if (requeue_on_cancel && j->cancel) {
            ari_log(ARI_LOG_INFO, "job %lld: stopped before it finished; back in the queue", (long long)id);
        } else {
            ari_log(ARI_LOG_WARN, "job %lld failed: %s: %s", (long long)id, err.code, err.message);
            record_outcome(j, id, &res); /* before: a client seeing `failed` sees `skipped` too */
            fail_job(j, id, &err);
        }
    } else {
        rc = 0;
        ari_log(ARI_LOG_INFO, "job %lld: imported %zu trace(s)", (long long)id, res.ntraces);
        if (u->ensemble_name[0])
            make_ensemble(j, id, u->ensemble_name, &res);
    }
    ari_import_result_free(&res);
    for (size_t i = 0; i < u->nfiles; i++)
        free(paths[i]);
    return rc;
}

static job_item *next_item(ari_jobs *j)
{
    pthread_mutex_lock(&j->mu);
    while (!j->head && !j->stopping)
        pthread_cond_wait(&j->wake, &j->mu);
    job_item *it = j->stopping ? NULL : j->head;
    if (it) {
        j->head = it->next;
        if (!j->head)
            j->tail = NULL;
        j->running_id = it->id;
        j->progress = 0;
        snprintf(j->phase, sizeof j->phase, "starting");
    }
    pthread_mutex_unlock(&j->mu);
    return it;
}

static void *worker(void *arg)
{
    ari_jobs *j = arg;
    job_item *it;
    while ((it = next_item(j)) != NULL) {
        run_job(j, it->id, it->upload, 0);
        pthread_mutex_lock(&j->mu);
        j->running_id = 0;
        pthread_mutex_unlock(&j->mu);
        ari_upload_free(it->upload, 0);
        free(it);
    }
    return NULL;
}

/* ---- the shared queue (PostgreSQL): the jobs table ---- */

/* Copies the text of params[key] into out (size bytes); "" if absent. */
static void param_text(json_t *params, const char *key, char *out, size_t size)
{
    const char *v = json_string_value(json_object_get(params, key));
    snprintf(out, size, "%s", v ? v : "");
}

/* The upload that a queued row describes (its params_json, made by
 * ari_jobs_enqueue): the files in spool/<spool>, as the client named them,
 * and the options. NULL with err set if the row or its files are not
 * usable here (a replica that does not share the spool). */
static ari_upload *upload_from_params(ari_jobs *j, const char *text, ari_error *err)
{
    json_t *params = json_loads(text, 0, NULL);
    json_t *files = json_object_get(params, "spool_files"), *shown = json_object_get(params, "files");
    const char *dir = json_string_value(json_object_get(params, "spool"));
    ari_upload *u = NULL;
    if (!json_is_array(files) || !dir || strncmp(dir, QUEUED_PREFIX, strlen(QUEUED_PREFIX)) != 0 ||
        strchr(dir, '/') || json_array_size(files) > ARI_UPLOAD_MAX_FILES) {
        ari_error_set(err, "internal", "the job's row does not describe an upload in the spool");
        goto out;
    }
    if (!(u = calloc(1, sizeof *u))) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto out;
    }
    u->fd = -1;
    snprintf(u->dir, sizeof u->dir, "%s/%s", j->spool, dir);
    for (size_t i = 0; i < json_array_size(files); i++) {
        const char *name = json_string_value(json_array_get(files, i));
        const char *client = json_string_value(json_array_get(shown, i));
        u->names[i] = strdup(name && !strchr(name, '/') ? name : "-");
        u->client_names[i] = strdup(client ? client : name ? name : "-");
        u->nfiles++;
        if (!u->names[i] || !u->client_names[i]) {
            ari_error_set(err, ARI_E_NOMEM, "out of memory");
            goto fail;
        }
    }
    param_text(params, "name", u->trace_name, sizeof u->trace_name);
    param_text(params, "ensemble", u->ensemble_name, sizeof u->ensemble_name);
    param_text(params, "time_unit", u->time_unit, sizeof u->time_unit);
    u->allow_duplicate = json_is_true(json_object_get(params, "allow_duplicate"));
    struct stat st;
    if (stat(u->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ari_error_set(err, ARI_E_IO, "the upload's files are not in %s on this replica: give the replicas "
                      "one shared --spool directory", u->dir);
        goto fail;
    }
    goto out;
fail:
    ari_upload_free(u, 1); /* the files (if any) stay: the row's failure is recorded by the caller */
    u = NULL;
out:
    json_decref(params);
    return u;
}

/* Runs a job this replica claimed, then lets go of it: its files are
 * removed once it ended, kept when it goes back to the queue. */
static void run_claimed(ari_jobs *j, int64_t id, const char *params)
{
    ari_error err = {0};
    pthread_mutex_lock(&j->mu);
    j->running_id = id;
    j->progress = 0;
    snprintf(j->phase, sizeof j->phase, "starting");
    pthread_mutex_unlock(&j->mu);
    j->written_at = ari_now();
    snprintf(j->written_phase, sizeof j->written_phase, "starting");
    ari_upload *u = upload_from_params(j, params, &err);
    int requeued = 0;
    if (!u) {
        ari_log(ARI_LOG_WARN, "job %lld failed: %s", (long long)id, err.message);
        fail_job(j, id, &err);
    } else if (run_job(j, id, u, 1) < 0 && j->cancel) {
        requeued = ari_jobq_requeue(j->db, id, &err) == 0;
        ari_error ignored = {0};
        if (requeued && ari_jobq_notify(j->db, &ignored) < 0) /* the others poll besides */
            ari_log(ARI_LOG_DEBUG, "job %lld: cannot notify the workers: %s", (long long)id, ignored.message);
        if (!requeued)
            ari_log(ARI_LOG_ERROR, "job %lld: cannot put it back in the queue: %s", (long long)id, err.message);
    }
    ari_upload_free(u, requeued);
    if (ari_jobq_release(j->db, id, &err) < 0)
        ari_log(ARI_LOG_WARN, "job %lld: cannot unlock it: %s", (long long)id, err.message);
    pthread_mutex_lock(&j->mu);
    j->running_id = 0;
    pthread_mutex_unlock(&j->mu);
}

/* Puts back in the queue the jobs of replicas that died while running them. */
static void take_over(ari_jobs *j)
{
    int64_t *ids = NULL;
    size_t n = 0;
    ari_error err = {0};
    if (ari_jobq_take_over(j->db, &ids, &n, &err) < 0)
        ari_log(ARI_LOG_WARN, "cannot look for jobs of stopped replicas: %s", err.message);
    for (size_t i = 0; i < n; i++)
        ari_log(ARI_LOG_WARN, "job %lld: its replica stopped while running it; back in the queue",
                (long long)ids[i]);
    free(ids);
}

/* Removes the queued uploads ("queued-*" in the spool) that no queued or
 * running job names: left when a replica died between creating the
 * directory and its row, or between ending a job and removing its files.
 * Only those older than STALE_QUEUED_S, so as not to race a replica that
 * is creating one. */
#define STALE_QUEUED_S (10 * 60)
static int queued_in_use(void *ctx, const char *name)
{
    ari_jobs *j = ctx;
    ari_error err = {0};
    int used = ari_jobq_spool_in_use(j->db, name, &err);
    if (used < 0)
        ari_log(ARI_LOG_WARN, "cannot sweep the spool %s: %s", j->spool, err.message);
    return used;
}

static void sweep_spool(ari_jobs *j)
{
    ari_spool_sweep(j->spool, QUEUED_PREFIX, STALE_QUEUED_S, queued_in_use, j, "no job uses it");
}

static int is_stopping(ari_jobs *j)
{
    pthread_mutex_lock(&j->mu);
    int stopping = j->stopping;
    pthread_mutex_unlock(&j->mu);
    return stopping;
}

/* Waits for a NOTIFY, or POLL_MS; after a failed connection, just sleeps. */
static void wait_for_jobs(ari_jobs *j, int *listening)
{
    ari_error err = {0};
    if (!*listening) {
        *listening = ari_jobq_listen(j->db, &err) == 0;
        if (!*listening)
            ari_log(ARI_LOG_DEBUG, "jobs: cannot listen for new jobs (polling): %s", err.message);
    }
    if (*listening && ari_jobq_wait(j->db, POLL_MS, &err) >= 0)
        return;
    *listening = 0;
    struct timespec tick = {POLL_MS / 1000, (POLL_MS % 1000) * 1000000L};
    nanosleep(&tick, NULL);
}

static void *shared_worker(void *arg)
{
    ari_jobs *j = arg;
    int listening = 0, complained = 0;
    double swept = 0;
    while (!is_stopping(j)) {
        if (ari_now() - swept > STALE_QUEUED_S) {
            sweep_spool(j);
            swept = ari_now();
        }
        take_over(j);
        int64_t id = 0;
        char *params = NULL;
        ari_error err = {0};
        int rc = ari_jobq_claim(j->db, "import", &id, &params, &err);
        if (rc == 0) {
            complained = 0;
            run_claimed(j, id, params);
            free(params);
            continue;
        }
        if (rc < 0 && !complained++)
            ari_log(ARI_LOG_WARN, "jobs: cannot claim a queued job: %s", err.message);
        wait_for_jobs(j, &listening);
    }
    return NULL;
}

/* Moves the upload's directory to its queued name ("queued-" and the same
 * random suffix): no longer this process's (ari_remove_orphans), but the
 * job row's. 0, or -1 with err set. */
static int adopt_upload_dir(ari_jobs *j, ari_upload *u, char *name, size_t size, ari_error *err)
{
    const char *dash = strrchr(u->dir, '-');
    char to[sizeof u->dir];
    if (!dash || snprintf(name, size, QUEUED_PREFIX "%s", dash + 1) >= (int)size ||
        snprintf(to, sizeof to, "%s/%s", j->spool, name) >= (int)sizeof to)
        return ari_error_set(err, ARI_E_IO, "cannot queue the upload: bad spool name %s", u->dir);
    if (rename(u->dir, to) != 0)
        return ari_error_set(err, ARI_E_IO, "cannot queue the upload: rename %s: %s", u->dir, strerror(errno));
    snprintf(u->dir, sizeof u->dir, "%s", to);
    utimes(to, NULL); /* fresh for sweep_spool until its row exists, however long the upload took */
    return 0;
}

/* The shared queue's enqueue: the row names the files and options. */
static int enqueue_shared(ari_jobs *j, ari_store *db, json_t *params, ari_upload *u, int64_t *id,
                          ari_error *err)
{
    char name[64];
    if (adopt_upload_dir(j, u, name, sizeof name, err) < 0)
        return -1;
    json_t *files = json_array();
    for (size_t i = 0; files && i < u->nfiles; i++)
        json_array_append_new(files, json_string(u->names[i]));
    json_object_set_new(params, "spool", json_string(name));
    json_object_set_new(params, "spool_files", files ? files : json_array());
    if (u->time_unit[0])
        json_object_set_new(params, "time_unit", json_string(u->time_unit));
    char *text = json_dumps(params, JSON_COMPACT);
    if (!text)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = ari_jobs_create(db, "import", text, id, err);
    free(text);
    if (rc < 0)
        return -1; /* the caller still owns u, and removes its directory */
    ari_error ignored = {0};
    if (ari_jobq_notify(db, &ignored) < 0) /* the workers poll besides */
        ari_log(ARI_LOG_DEBUG, "job %lld: cannot notify the workers: %s", (long long)*id, ignored.message);
    ari_upload_free(u, 1); /* the files are the row's now */
    return 0;
}

/* The in-memory queue's (SQLite): this process's worker gets the upload. */
static int submit(ari_jobs *j, int64_t id, ari_upload *upload, ari_error *err)
{
    job_item *it = calloc(1, sizeof *it);
    if (!it)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    it->id = id;
    it->upload = upload;
    pthread_mutex_lock(&j->mu);
    if (j->tail)
        j->tail->next = it;
    else
        j->head = it;
    j->tail = it;
    pthread_cond_signal(&j->wake);
    pthread_mutex_unlock(&j->mu);
    return 0;
}

int ari_jobs_enqueue(ari_jobs *j, ari_store *db, json_t *params, ari_upload *u, int64_t *id,
                     ari_error *err)
{
    if (j->shared)
        return enqueue_shared(j, db, params, u, id, err);
    char *text = json_dumps(params, JSON_COMPACT);
    if (!text)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = ari_jobs_create(db, "import", text, id, err);
    free(text);
    return rc < 0 ? -1 : submit(j, *id, u, err);
}

ari_jobs *ari_jobs_start(const char *db_path, const char *spool, uint64_t max_unpacked, ari_error *err)
{
    ari_jobs *j = calloc(1, sizeof *j);
    if (!j) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    j->max_unpacked = max_unpacked;
    snprintf(j->spool, sizeof j->spool, "%s", spool);
    if (!(j->db = ari_store_open(db_path, err))) {
        free(j);
        return NULL;
    }
    j->shared = ari_jobq_shared(j->db);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->wake, NULL);
    if (pthread_create(&j->thread, NULL, j->shared ? shared_worker : worker, j) != 0) {
        ari_store_close(j->db);
        free(j);
        ari_error_set(err, ARI_E_IO, "cannot start the job thread");
        return NULL;
    }
    return j;
}

int ari_jobs_live(ari_jobs *j, int64_t id, double *progress, char *phase, size_t phase_size,
                  const char **status)
{
    int live = 0;
    pthread_mutex_lock(&j->mu);
    if (j->running_id == id) {
        live = 1;
        *progress = j->progress;
        snprintf(phase, phase_size, "%s", j->phase);
        *status = "running";
    } else {
        for (job_item *it = j->head; it; it = it->next) {
            if (it->id == id) {
                live = 1;
                *progress = 0;
                snprintf(phase, phase_size, "queued");
                *status = "queued";
                break;
            }
        }
    }
    pthread_mutex_unlock(&j->mu);
    return live;
}

void ari_jobs_stop(ari_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->stopping = 1;
    j->cancel = 1;
    job_item *queued = j->head;
    j->head = j->tail = NULL;
    pthread_cond_signal(&j->wake);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    ari_error stop = {0};
    ari_error_set(&stop, "interrupted", "the server stopped before this job ran; nothing was imported");
    while (queued) {
        job_item *next = queued->next;
        fail_job(j, queued->id, &stop);
        ari_upload_free(queued->upload, 0);
        free(queued);
        queued = next;
    }
    ari_store_close(j->db);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->wake);
    free(j);
}
