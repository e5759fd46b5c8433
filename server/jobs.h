/* jobs.h: the import job queue. Uploads become jobs; one worker thread
 * runs them in order (SQLite has one writer anyway), with live progress
 * kept in memory and the lasting state in the jobs table. */
#ifndef ARIADNE_JOBS_H
#define ARIADNE_JOBS_H

#include <stdint.h>

#include "store/store.h"
#include "upload.h"

typedef struct ari_jobs ari_jobs;

ari_jobs *ari_jobs_start(const char *db_path, uint64_t max_unpacked, ari_error *err);
/* Queues an import of the upload's files as job `id` (already in the jobs
 * table); takes ownership of the upload and its spool directory. */
int ari_jobs_submit(ari_jobs *j, int64_t id, ari_upload *upload, ari_error *err);
/* Live state of a queued or running job: 1 and its fields if it is live. */
int ari_jobs_live(ari_jobs *j, int64_t id, double *progress, char *phase, size_t phase_size,
                  const char **status);
/* Cancels the running import, fails the queued ones, joins the thread. */
void ari_jobs_stop(ari_jobs *j);

#endif
