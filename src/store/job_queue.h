/* job_queue.h: the import job queue in the database, shared by the
 * replicas of one PostgreSQL store (issue 20 "stateless replicas").
 *
 * A queued job's row carries what a worker needs (its params_json names
 * the upload's directory in the shared spool and its options). A worker
 * claims the oldest queued job (FOR UPDATE SKIP LOCKED: exactly one
 * replica gets it) and holds a session advisory lock on the job while it
 * runs it, on the connection it claimed with. When a replica dies, its
 * connection closes and the lock goes: another replica that can take the
 * lock of a 'running' job knows its runner is gone and puts it back in
 * the queue. Workers LISTEN on a channel that job creation NOTIFYs, and
 * poll besides.
 *
 * On SQLite (one daemon, one writer) the server keeps its in-memory queue
 * (server/jobs.c); these calls are for a PostgreSQL store only and answer
 * an error on SQLite. */
#ifndef ARIADNE_JOB_QUEUE_H
#define ARIADNE_JOB_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The channel that job creation notifies. */
#define ARI_JOBQ_CHANNEL "ariadne_jobs"

/* 1 when the store's job queue is shared by replicas (PostgreSQL). */
int ari_jobq_shared(const ari_store *s);

/* LISTEN on the channel, on this connection. */
int ari_jobq_listen(ari_store *s, ari_error *err);
/* NOTIFY the channel (after a job was queued). */
int ari_jobq_notify(ari_store *s, ari_error *err);
/* Waits up to timeout_ms for a notification: 1 woken, 0 timed out, -1 with
 * err set (the connection failed). */
int ari_jobq_wait(ari_store *s, int timeout_ms, ari_error *err);

/* Claims the oldest queued job of `kind`: marks it running (owned by this
 * process) and takes its advisory lock on this connection. 0 with *id and
 * *params_json (malloc'd), 1 if none is queued, -1 with err set. */
int ari_jobq_claim(ari_store *s, const char *kind, int64_t *id, char **params_json, ari_error *err);
/* Lets go of a claimed job's advisory lock (after the job's row says how
 * it ended, or after ari_jobq_requeue). */
int ari_jobq_release(ari_store *s, int64_t id, ari_error *err);
/* Puts a claimed, running job back in the queue (its runner stops before
 * it finished: another replica, or this one's next start, runs it). */
int ari_jobq_requeue(ari_store *s, int64_t id, ari_error *err);

/* Writes a running job's progress and phase to its row, so that every
 * replica shows them. Skips the write (0) if the row is locked by a
 * transaction (the import's own), never waiting for it. */
int ari_jobq_progress(ari_store *s, int64_t id, double progress, const char *phase, ari_error *err);

/* Puts back in the queue every running job whose runner is gone (its
 * advisory lock is free). Must be called on a connection that holds no
 * job's lock (a worker between jobs): session locks are re-entrant.
 * *ids_out (malloc'd) lists them. 0, or -1 with err set. */
int ari_jobq_take_over(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err);

/* The jobs that a replica's worker holds (their advisory locks), as the
 * low 31 bits of their ids, sorted, in *ids_out (malloc'd): 0, or -1 with
 * err set. A job's row says how it ended before its worker lets go of it
 * (the worker may still be making the upload's ensemble). */
int ari_jobq_held(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err);

/* Whether a queued or running job's params_json names `spool` (a
 * directory of the shared spool) as its upload's: 1, 0, or -1 with err set. */
int ari_jobq_spool_in_use(ari_store *s, const char *spool, ari_error *err);

#endif
