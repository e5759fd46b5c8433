/* jobs.c: the worker thread that runs import jobs. An upload with an
 * `ensemble` name (upload.h) also makes the ensemble of its imported
 * profiles right after the import's transaction commits; when that fails
 * the job is marked failed with the code "ensemble_failed", a message
 * saying why, and the imported trace ids (the traces stay). */
#include "jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import.h"
#include "stall_hook.h"
#include "store/store_ensembles.h"
#include "util/log.h"

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
    /* live state of the running job, under mu */
    int64_t running_id;
    double progress;
    char phase[160];
};

static void on_progress(void *ctx, double fraction, const char *phase)
{
    ari_jobs *j = ctx;
    pthread_mutex_lock(&j->mu);
    j->progress = fraction;
    snprintf(j->phase, sizeof j->phase, "%s", phase ? phase : "");
    pthread_mutex_unlock(&j->mu);
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

static void run_job(ari_jobs *j, job_item *it)
{
    ari_upload *u = it->upload;
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
        .job_id = it->id, .work_dir = u->dir, .max_unpacked = j->max_unpacked,
        .progress = on_progress, .progress_ctx = j, .cancel = &j->cancel,
        .time_unit = u->time_unit[0] ? u->time_unit : NULL,
        .allow_duplicate = u->allow_duplicate,
    };
    ari_import_result res = {0};
    ari_log(ARI_LOG_INFO, "job %lld: importing %zu file(s)", (long long)it->id, u->nfiles);
    if (rc < 0 || ari_jobs_set_running(j->db, it->id, &err) < 0 ||
        ari_import(j->db, &req, &res, &err) < 0) {
        ari_log(ARI_LOG_WARN, "job %lld failed: %s: %s", (long long)it->id, err.code, err.message);
        record_outcome(j, it->id, &res); /* before: a client seeing `failed` sees `skipped` too */
        fail_job(j, it->id, &err);
    } else {
        ari_log(ARI_LOG_INFO, "job %lld: imported %zu trace(s)", (long long)it->id, res.ntraces);
        if (u->ensemble_name[0])
            make_ensemble(j, it->id, u->ensemble_name, &res);
    }
    ari_import_result_free(&res);
    for (size_t i = 0; i < u->nfiles; i++)
        free(paths[i]);
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
        run_job(j, it);
        pthread_mutex_lock(&j->mu);
        j->running_id = 0;
        pthread_mutex_unlock(&j->mu);
        ari_upload_free(it->upload, 0);
        free(it);
    }
    return NULL;
}

ari_jobs *ari_jobs_start(const char *db_path, uint64_t max_unpacked, ari_error *err)
{
    ari_jobs *j = calloc(1, sizeof *j);
    if (!j) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    j->max_unpacked = max_unpacked;
    if (!(j->db = ari_store_open(db_path, err))) {
        free(j);
        return NULL;
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->wake, NULL);
    if (pthread_create(&j->thread, NULL, worker, j) != 0) {
        ari_store_close(j->db);
        free(j);
        ari_error_set(err, ARI_E_IO, "cannot start the job thread");
        return NULL;
    }
    return j;
}

int ari_jobs_submit(ari_jobs *j, int64_t id, ari_upload *upload, ari_error *err)
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
