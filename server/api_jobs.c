/* api_jobs.c: GET /api/v1/jobs and /api/v1/jobs/{id}. A job's lasting state
 * is in the store; a queued or running job's live progress is overlaid from
 * the worker's memory. On PostgreSQL a job that another replica runs shows
 * the progress and phase its runner writes to the row (server/jobs.c). */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "jobs.h"
#include "params.h"
#include "reply.h"

static void overlay_live(ari_request *r, json_t *job)
{
    double progress;
    char phase[160];
    const char *status;
    json_int_t id = json_integer_value(json_object_get(job, "id"));
    if (!ari_jobs_live(r->srv->jobs, id, &progress, phase, sizeof phase, &status)) {
        /* queued in the database (PostgreSQL replicas): the row's phase is
         * still empty; name it as a queue in memory does */
        const char *row_status = json_string_value(json_object_get(job, "status"));
        const char *row_phase = json_string_value(json_object_get(job, "phase"));
        if (row_status && strcmp(row_status, "queued") == 0 && row_phase && !*row_phase)
            json_object_set_new(job, "phase", json_string("queued"));
        return;
    }
    /* A job is finished when its worker lets go of it: the import marks the
     * row finished in its own transaction, and the worker may still be
     * making the upload's ensemble or recording what was skipped. Until
     * then the row's final fields are not shown. */
    json_object_set_new(job, "status", json_string(status));
    json_object_set_new(job, "progress", json_real(progress));
    json_object_set_new(job, "phase", json_string(phase));
    json_object_set_new(job, "finished_at", json_null());
    json_object_set_new(job, "error", json_null());
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
    overlay_live(r, job);
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
    json_array_foreach(jobs, i, job)
        overlay_live(r, job);
    return ari_reply_json(r, 200, json_pack("{s:o, s:I, s:I, s:I}", "jobs", jobs ? jobs : json_array(),
                                            "total", (json_int_t)total, "limit", (json_int_t)limit,
                                            "offset", (json_int_t)offset));
}
