/* store_jobs.c: the jobs table (imports run as jobs). Live progress of a
 * running job is kept in memory by the server; the table holds each job's
 * lasting state, and which process owns it so orphans can be failed. */
#include "store/import_outcome.h"
#include "store/store_internal.h"
#include "util/proc.h"
#include "util/vec.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define JOB_FIELDS \
    "'id', id, 'kind', kind, 'status', status, 'progress', progress, 'phase', phase," \
    "'created_at', created_at, 'finished_at', finished_at, 'trace_ids', json(trace_ids)," \
    "'warnings', json((SELECT json_group_array(json_object('trace_id', t.id," \
    "  'code', json_extract(w.value, '$.code'), 'message', json_extract(w.value, '$.message')))" \
    "  FROM traces t, json_each(t.warnings_json) w" \
    "  WHERE t.id IN (SELECT CAST(value AS INTEGER) FROM json_each(jobs.trace_ids))))," \
    "'error', CASE WHEN error_code IS NULL THEN NULL" \
    "  ELSE json_object('code', error_code, 'message', error_message) END," \
    "'skipped', json(skipped_json), 'duplicate_of', json(duplicates_json)," \
    "'ensemble_id', CAST(json_extract(params_json, '$.ensemble_id') AS INTEGER)"

static char own_key_text[128];

static void own_key_init(void)
{
    ari_process_key((int64_t)getpid(), own_key_text, sizeof own_key_text);
}

const char *ari_jobs_owner_key(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, own_key_init);
    return own_key_text;
}

/* A job's owner is alive if the process its key names still runs; jobs
 * from before owner keys fall back to the pid. */
static int owner_alive(int64_t pid, const char *key)
{
    if (key && *key) {
        char now[128];
        ari_process_key(pid, now, sizeof now);
        return strcmp(now, key) == 0;
    }
    if (pid <= 0 || pid == (int64_t)getpid())
        return 0; /* our own pid: a job of the process that had it before us */
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int ari_jobs_create(ari_store *s, const char *kind, const char *params_json,
                    int64_t *id_out, ari_error *err)
{
    ari_arg args[] = {ari_arg_raw_text(kind), ari_arg_raw_text(params_json ? params_json : "{}"),
                      ari_arg_int((int64_t)getpid()), ari_arg_raw_text(ari_jobs_owner_key())};
    if (ari_store_run(s, "INSERT INTO jobs(kind, status, params_json, owner_pid, owner_key)"
                         " VALUES (?1, 'queued', ?2, ?3, ?4)",
                      args, ARI_NARGS(args), "create job", err) < 0)
        return -1;
    *id_out = ari_store_last_insert_id(s);
    return 0;
}

int ari_jobs_set_running(ari_store *s, int64_t id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "UPDATE jobs SET status = 'running' WHERE id = ?1", id, err);
    return st ? ari_store_write(s, st, "update job", err) : -1;
}

/* The finish proper. owner: the job's owner_key must still be it (a
 * runner finishing its job), or NULL (the orphans: their owner is gone).
 * A job that another replica took over meanwhile (its runner's connection
 * broke, so its lock went with it) belongs to that replica now: the old
 * runner's finish changes nothing, and says so. */
static int finish(ari_store *s, int64_t id, int succeeded, const char *trace_ids_json, const char *error_code,
                  const char *error_message, const char *owner, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_raw_text(succeeded ? "succeeded" : "failed"),
                      ari_arg_raw_text(trace_ids_json), ari_arg_raw_text(error_code),
                      ari_arg_raw_text(error_message), ari_arg_raw_text(owner)};
    ari_stmt *st = ari_store_bound(s,
        "UPDATE jobs SET status = ?2, progress = CASE WHEN ?2 = 'succeeded' THEN 1 ELSE progress END,"
        " phase = CASE WHEN ?2 = 'succeeded' THEN 'done' ELSE 'failed' END,"
        " finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),"
        " trace_ids = coalesce(?3, '[]'), error_code = ?4, error_message = ?5"
        " WHERE id = ?1 AND (?6 IS NULL OR owner_key = ?6)",
        args, ARI_NARGS(args), err);
    int rc = st ? ari_store_write_changed(s, st, "finish job", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_DB,
                             "job %lld: no such job, or another replica took it over (this one lost its"
                             " database connection): its import is not stored twice", (long long)id);
    return rc;
}

int ari_jobs_finish(ari_store *s, int64_t id, int succeeded, const char *trace_ids_json,
                    const char *error_code, const char *error_message, ari_error *err)
{
    return finish(s, id, succeeded, trace_ids_json, error_code, error_message, ari_jobs_owner_key(), err);
}

int ari_jobs_get(ari_store *s, int64_t id, char **json_out, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT json_object(" JOB_FIELDS ") FROM jobs WHERE id = ?1", id, err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_jobs_list(ari_store *s, int64_t limit, int64_t offset, char **json_out,
                  int64_t *total, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s, "SELECT count(*) FROM jobs", err);
    if (!st || ari_store_query_int64(s, st, total, "count jobs", err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(limit), ari_arg_int(offset)};
    st = ari_store_bound(s,
        "SELECT json_group_array(json(obj)) FROM (SELECT json_object(" JOB_FIELDS ") AS obj"
        " FROM jobs ORDER BY id DESC LIMIT ?1 OFFSET ?2)", args, ARI_NARGS(args), err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

/* The queued or running jobs whose owner process is gone. */
static int orphans(ari_store *s, int64_t **ids, size_t *n, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s,
        "SELECT id, owner_pid, owner_key FROM jobs WHERE status IN ('queued', 'running')", err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (owner_alive(ari_col_int64(st, 1), (const char *)ari_col_text(st, 2)))
            continue;
        if (ari_vec_reserve((void **)ids, &cap, *n + 1, sizeof **ids) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        (*ids)[(*n)++] = ari_col_int64(st, 0);
    }
    return ari_store_rows_end(s, st, rc, "list jobs", err);
}

int ari_jobs_fail_orphans(ari_store *s, int64_t **ids_out, size_t *n_out, ari_error *err)
{
    *ids_out = NULL;
    *n_out = 0;
    if (orphans(s, ids_out, n_out, err) < 0)
        return -1;
    for (size_t i = 0; i < *n_out; i++)
        if (finish(s, (*ids_out)[i], 0, NULL, "interrupted",
                   "the server stopped before this job finished; nothing was imported", NULL, err) < 0)
            return -1;
    return 0;
}

int ari_jobs_add_skipped(ari_store *s, int64_t id, const char *name, const char *reason,
                         ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_text(name), ari_arg_text(reason)};
    return ari_store_run(s,
        "UPDATE jobs SET skipped_json = json_insert(skipped_json, '$[#]',"
        " json_object('name', ?2, 'reason', ?3)) WHERE id = ?1",
        args, ARI_NARGS(args), "record a skipped file", err);
}

int ari_jobs_add_duplicate(ari_store *s, int64_t id, int64_t trace_id, const char *upload,
                           ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(trace_id), ari_arg_text(upload)};
    return ari_store_run(s,
        "UPDATE jobs SET duplicates_json = json_insert(duplicates_json, '$[#]',"
        " json_object('trace_id', ?2, 'name', (SELECT name FROM traces WHERE id = ?2),"
        " 'upload', ?3)) WHERE id = ?1",
        args, ARI_NARGS(args), "record a duplicate", err);
}
