/* jobs.h: the import job queue. Uploads become jobs, run one at a time by
 * a worker thread, with live progress kept in memory and the lasting state
 * in the jobs table. On SQLite the queue is this process's memory; on
 * PostgreSQL it is the jobs table, which every replica's worker claims
 * from (store/job_queue.h), with the uploads in a spool directory that the
 * replicas share. */
#ifndef ARIADNE_JOBS_H
#define ARIADNE_JOBS_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"
#include "upload.h"

typedef struct ari_jobs ari_jobs;

/* Starts the worker on its own connection to db_path; spool is the
 * directory of the uploads (server.h's spool_dir). */
ari_jobs *ari_jobs_start(const char *db_path, const char *spool, uint64_t max_unpacked, ari_error *err);
/* Makes an import job of the upload (a row of the jobs table with params,
 * through db) and queues it: 0 with *id, the upload and its spool
 * directory then owned by the queue; -1 with err set, the caller still
 * owning the upload. params (the row's params_json) may gain fields. */
int ari_jobs_enqueue(ari_jobs *j, ari_store *db, json_t *params, ari_upload *upload, int64_t *id,
                     ari_error *err);
/* Live state of a queued or running job of this process: 1 and its fields
 * if it is live. */
int ari_jobs_live(ari_jobs *j, int64_t id, double *progress, char *phase, size_t phase_size,
                  const char **status);
/* Cancels the running import, fails the queued ones (SQLite; on PostgreSQL
 * they stay queued, and the running one goes back to the queue), joins the
 * thread. */
void ari_jobs_stop(ari_jobs *j);

#endif
