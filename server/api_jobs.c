/* api_jobs.c: GET /api/v1/jobs and /api/v1/jobs/{id}. A job's lasting state
 * is in the store; a queued or running job's live progress is overlaid from
 * the worker's memory. On PostgreSQL a job that another replica runs shows
 * the progress and phase its runner writes to the row (server/jobs.c), and
 * a job whose row says it ended while a replica's worker still holds it
 * (making the upload's ensemble) is shown running, as its runner shows it. */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "jobs.h"
#include "params.h"
#include "reply.h"
#include "store/job_queue.h"
#include "util/log.h"

static void show_unfinished(json_t *job, const char *status, double progress, const char *phase)
{
    json_object_set_new(job, "status", json_string(status));
    json_object_set_new(job, "progress", json_real(progress));
    json_object_set_new(job, "phase", json_string(phase));
    json_object_set_new(job, "finished_at", json_null());
    json_object_set_new(job, "error", json_null());
}

/* The jobs that the replicas' workers hold (PostgreSQL), sorted. */
typedef struct held_jobs {
    int64_t *ids;
    size_t n;
} held_jobs;

static held_jobs held_jobs_get(ari_request *r)
{
    held_jobs h = {0};
    ari_error err = {0};
    if (ari_jobq_shared(r->db) && ari_jobq_held(r->db, &h.ids, &h.n, &err) < 0)
        ari_log(ARI_LOG_WARN, "jobs: cannot see which replica holds which job: %s", err.message);
    return h;
}

static int held_by_a_replica(const held_jobs *h, int64_t id)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->ids[i] == (id & 2147483647))
            return 1;
    return 0;
}

static void overlay_live(ari_request *r, json_t *job, const held_jobs *held)
{
    double progress;
    char phase[160];
    const char *status;
    json_int_t id = json_integer_value(json_object_get(job, "id"));
    /* A job is finished when its worker lets go of it: the import marks the
     * row finished in its own transaction, and the worker may still be
     * making the upload's ensemble or recording what was skipped. Until
     * then the row's final fields are not shown, by this process or, on
     * PostgreSQL, by the replicas that see another one's worker hold it. */
    if (ari_jobs_live(r->srv->jobs, id, &progress, phase, sizeof phase, &status)) {
        show_unfinished(job, status, progress, phase);
        return;
    }
    const char *row_status = json_string_value(json_object_get(job, "status"));
    const char *row_phase = json_string_value(json_object_get(job, "phase"));
    if (!row_status || !ari_jobq_shared(r->db))
        return;
    if (strcmp(row_status, "queued") == 0) {
        /* queued in the database: the row's phase is still empty; name it
         * as a queue in memory does */
        if (row_phase && !*row_phase)
            json_object_set_new(job, "phase", json_string("queued"));
        return;
    }
    if (strcmp(row_status, "running") != 0 && held_by_a_replica(held, id))
        show_unfinished(job, "running", json_real_value(json_object_get(job, "progress")), "finishing");
}

enum MHD_Result api_jobs_get(ari_request *r)
{
    int64_t id;
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    char *text = NULL;
    ari_error err = {0};
    int rc = ari_jobs_get(r->db, id, &text, &err);
    if (rc != 0)
        return ari_reply_lookup_failed(r, rc, &err, "job", id);
    json_t *job = json_loads(text, 0, NULL);
    free(text);
    if (!job)
        return ari_reply_error(r, 500, "internal", "cannot read job %lld", (long long)id);
    held_jobs held = held_jobs_get(r);
    overlay_live(r, job, &held);
    free(held.ids);
    return ari_reply_json(r, 200, job);
}

enum MHD_Result api_jobs_list(ari_request *r)
{
    int64_t limit, offset, total = 0;
    if (ari_param_int(r, "limit", 50, 1, 1000, &limit) < 0 ||
        ari_param_int(r, "offset", 0, 0, INT64_MAX, &offset) < 0)
        return MHD_YES;
    char *text = NULL;
    ari_error err = {0};
    if (ari_jobs_list(r->db, limit, offset, &text, &total, &err) < 0)
        return ari_reply_from_error(r, &err);
    json_t *jobs = json_loads(text, 0, NULL);
    free(text);
    size_t i;
    json_t *job;
    held_jobs held = held_jobs_get(r);
    json_array_foreach(jobs, i, job)
        overlay_live(r, job, &held);
    free(held.ids);
    return ari_reply_json(r, 200, json_pack("{s:o, s:I, s:I, s:I}", "jobs", jobs ? jobs : json_array(),
                                            "total", (json_int_t)total, "limit", (json_int_t)limit,
                                            "offset", (json_int_t)offset));
}
