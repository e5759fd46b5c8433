/* job_queue.c: the import job queue in a PostgreSQL database, shared by
 * replicas (job_queue.h): claiming a job, its advisory lock, its progress
 * in the row, taking over the jobs of a replica that died, and the
 * LISTEN/NOTIFY wake-up. Statements are PostgreSQL's own (they are never
 * run on SQLite). */
#include "store/job_queue.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/pg_notify.h"
#include "store/store_internal.h"
#include "util/vec.h"

/* The advisory lock of job ?1: the two-key form (class 20, the job id's
 * low 31 bits), apart from the one-key locks the store takes elsewhere
 * (the migrations' lock). */
#define JOB_LOCK "20, (?1 & 2147483647)::int"

int ari_jobq_shared(const ari_store *s)
{
    return ari_store_is_pg(s);
}

static int need_pg(ari_store *s, ari_error *err)
{
    if (s->pg)
        return 0;
    return ari_error_set(err, ARI_E_DB, "job_queue: the shared job queue needs a PostgreSQL store");
}

static int pg_result(ari_store *s, int rc, const char *what, ari_error *err)
{
    if (rc == ARI_OK)
        return 0;
    return ari_error_set(err, rc == ARI_BUSY ? ARI_E_BUSY : ARI_E_DB, "%s: %s", what, ari_pg_errmsg(s->pg));
}

int ari_jobq_listen(ari_store *s, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    return pg_result(s, ari_pg_listen(s->pg, ARI_JOBQ_CHANNEL), "listen for jobs", err);
}

int ari_jobq_notify(ari_store *s, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    return pg_result(s, ari_pg_notify(s->pg, ARI_JOBQ_CHANNEL), "notify the job workers", err);
}

int ari_jobq_wait(ari_store *s, int timeout_ms, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    int rc = ari_pg_wait_notify(s->pg, timeout_ms);
    if (rc < 0)
        return ari_error_set(err, ARI_E_DB, "wait for jobs: %s", ari_pg_errmsg(s->pg));
    return rc;
}

/* Runs a statement yielding one integer (the lock calls). */
static int lock_call(ari_store *s, const char *sql, int64_t id, int64_t *out, const char *what,
                     ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, sql, id, err);
    if (!st)
        return -1;
    int64_t v = 0;
    int rc = ari_store_query_int64(s, st, &v, what, err);
    if (rc == 1)
        return ari_error_set(err, ARI_E_DB, "%s: no row", what);
    if (out)
        *out = v;
    return rc;
}

/* The claim proper, inside the caller's transaction: 0 with the row, 1 if
 * none is queued, -1. */
static int claim_row(ari_store *s, const char *kind, int64_t *id, char **params_json, ari_error *err)
{
    ari_arg args[] = {ari_arg_raw_text(kind), ari_arg_int((int64_t)getpid()), ari_arg_raw_text(ari_jobs_owner_key())};
    ari_stmt *st = ari_store_bound(s,
        "UPDATE jobs SET status = 'running', progress = 0, phase = 'starting', owner_pid = ?2, owner_key = ?3"
        " WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND kind = ?1 ORDER BY id LIMIT 1"
        " FOR UPDATE SKIP LOCKED) RETURNING id, params_json",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "claim a job", err);
    if (rc != 0)
        return rc;
    *id = ari_col_int64(st, 0);
    const char *text = (const char *)ari_col_text(st, 1);
    *params_json = strdup(text ? text : "{}");
    ari_reset(st);
    if (!*params_json)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    /* Taken before the claim commits: no replica sees the job running
     * without its lock held. */
    if (lock_call(s, "SELECT count(*) FROM pg_advisory_lock(" JOB_LOCK ")", *id, NULL,
                  "lock the claimed job", err) < 0) {
        free(*params_json);
        *params_json = NULL;
        return -1;
    }
    return 0;
}

int ari_jobq_claim(ari_store *s, const char *kind, int64_t *id, char **params_json, ari_error *err)
{
    *params_json = NULL;
    if (need_pg(s, err) < 0 || ari_store_begin(s, err) < 0)
        return -1;
    int rc = claim_row(s, kind, id, params_json, err);
    if (rc < 0) {
        ari_store_rollback(s);
        return -1;
    }
    if (ari_store_commit(s, err) < 0) {
        if (rc == 0) { /* the lock outlives the rolled-back claim: let it go */
            ari_error ignored = {0};
            ari_jobq_release(s, *id, &ignored);
            free(*params_json);
            *params_json = NULL;
        }
        return -1;
    }
    return rc;
}

int ari_jobq_release(ari_store *s, int64_t id, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    return lock_call(s, "SELECT count(*) FROM pg_advisory_unlock(" JOB_LOCK ")", id, NULL,
                     "unlock a job", err);
}

int ari_jobq_requeue(ari_store *s, int64_t id, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    /* not a job another replica took over (its owner_key is that replica's) */
    ari_arg args[] = {ari_arg_int(id), ari_arg_raw_text(ari_jobs_owner_key())};
    return ari_store_run(s,
        "UPDATE jobs SET status = 'queued', progress = 0, phase = 'queued', owner_pid = 0, owner_key = ''"
        " WHERE id = ?1 AND status = 'running' AND owner_key = ?2", args, ARI_NARGS(args), "requeue a job", err);
}

int ari_jobq_progress(ari_store *s, int64_t id, double progress, const char *phase, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    if (ari_pg_in_transaction(s->pg))
        return 0; /* would join (and wait for) the import's own transaction */
    ari_arg args[] = {ari_arg_int(id), ari_arg_real(progress), ari_arg_text(phase ? phase : ""),
                      ari_arg_raw_text(ari_jobs_owner_key())};
    return ari_store_run(s,
        "UPDATE jobs SET progress = ?2, phase = ?3 WHERE id = (SELECT id FROM jobs"
        " WHERE id = ?1 AND status = 'running' AND owner_key = ?4 FOR UPDATE SKIP LOCKED)",
        args, ARI_NARGS(args), "record a job's progress", err);
}

/* The ids of the running jobs. */
/* The integers of a one-column query's rows, appended to *ids. */
static int query_ids(ari_store *s, const char *sql, int64_t **ids, size_t *n, const char *what, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s, sql, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)ids, &cap, *n + 1, sizeof **ids) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        (*ids)[(*n)++] = ari_col_int64(st, 0);
    }
    return ari_store_rows_end(s, st, rc, what, err);
}

static int running_jobs(ari_store *s, int64_t **ids, size_t *n, ari_error *err)
{
    return query_ids(s, "SELECT id FROM jobs WHERE status = 'running' ORDER BY id", ids, n, "list running jobs",
                     err);
}

/* 1 if job id's runner is gone and the job went back to the queue, 0 if
 * its runner holds it (or it ended meanwhile), -1. */
static int take_over_one(ari_store *s, int64_t id, ari_error *err)
{
    int64_t got = 0;
    if (lock_call(s, "SELECT (CASE WHEN pg_try_advisory_lock(" JOB_LOCK ") THEN 1 ELSE 0 END)::bigint",
                  id, &got, "try a job's lock", err) < 0)
        return -1;
    if (!got)
        return 0; /* its runner lives */
    ari_stmt *st = ari_store_stmt_id(s,
        "UPDATE jobs SET status = 'queued', progress = 0, phase = 'queued', owner_pid = 0, owner_key = ''"
        " WHERE id = ?1 AND status = 'running'", id, err);
    int rc = st ? ari_store_write_changed(s, st, "take over a job", err) : -1;
    ari_error ignored = {0};
    if (ari_jobq_release(s, id, rc < 0 ? &ignored : err) < 0 && rc >= 0)
        return -1;
    return rc < 0 ? -1 : rc == 0;
}

int ari_jobq_take_over(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err)
{
    *ids_out = NULL;
    *n_out = 0;
    int64_t *running = NULL;
    size_t n = 0;
    if (need_pg(s, err) < 0 || running_jobs(s, &running, &n, err) < 0) {
        free(running);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = take_over_one(s, running[i], err);
        if (rc < 0) {
            free(running);
            return -1;
        }
        if (rc == 1)
            running[(*n_out)++] = running[i]; /* compacts in place: *n_out <= i */
    }
    *ids_out = running;
    return 0;
}

int ari_jobq_held(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err)
{
    *ids_out = NULL;
    *n_out = 0;
    int rc = need_pg(s, err) < 0 ? -1
             : query_ids(s, "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted"
                            " AND classid = 20 AND objsubid = 2"
                            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                            " ORDER BY 1", ids_out, n_out, "look for the jobs' runners", err);
    if (rc < 0) {
        free(*ids_out);
        *ids_out = NULL;
        *n_out = 0;
    }
    return rc;
}

int ari_jobq_spool_in_use(ari_store *s, const char *spool, ari_error *err)
{
    if (need_pg(s, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_raw_text(spool)};
    ari_stmt *st = ari_store_bound(s,
        "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')"
        " AND (params_json::json ->> 'spool') = ?1", args, ARI_NARGS(args), err);
    int64_t n = 0;
    if (!st || ari_store_query_int64(s, st, &n, "look for a job's upload", err) < 0)
        return -1;
    return n > 0;
}
