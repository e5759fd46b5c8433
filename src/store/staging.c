/* staging.c: the staging database of an import and its publication into
 * the shared database (see staging.h). The copy is generic: every staged
 * table that has a trace_id column is copied with its trace ids moved past
 * the shared database's largest, so a new table needs no change here.
 *
 * The staging database is always an SQLite file: every writer of the
 * store writes there. Into an SQLite database it is attached and copied
 * with INSERT ... SELECT; into PostgreSQL its rows are sent with COPY in
 * the publishing transaction (pg_publish.c), the file then lying in
 * $TMPDIR (named "ariadne.staging-...") rather than next to a database. */
#include "store/staging.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/pg_publish.h"
#include "store/store_internal.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/sbuf.h"

#define STAGING_TAG ".staging-"

struct ari_staging {
    char *path;
    ari_store *store;    /* the staging connection until publication */
    int attached;        /* attached to the shared connection as "staging" */
    int fk_off;          /* foreign keys turned off on the shared connection */
};

static atomic_uint staging_seq;

static void remove_files(const char *path)
{
    static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
    char name[8300];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        if (unlink(name) != 0 && errno != ENOENT)
            ari_log(ARI_LOG_WARN, "cannot remove %s: %s", name, strerror(errno));
    }
}

/* Where the staging files of a PostgreSQL database's imports lie: a path
 * prefix ("/tmp/ariadne"). */
static const char *pg_staging_base(char *buf, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/ariadne", tmp && *tmp ? tmp : "/tmp");
    return buf;
}

ari_staging *ari_staging_open(ari_store *shared, ari_error *err)
{
    char base[4096];
    const char *near = shared->pg ? pg_staging_base(base, sizeof base) : ari_store_path(shared);
    ari_staging *g = calloc(1, sizeof *g);
    if (!g || asprintf(&g->path, "%s" STAGING_TAG "%ld-%lld-%u", near, (long)getpid(),
                       (long long)ari_process_start(getpid()), atomic_fetch_add(&staging_seq, 1)) < 0) {
        free(g);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    remove_files(g->path); /* a leftover of an earlier process with our pid */
    if (!(g->store = ari_store_open_scratch(g->path, err))) {
        ari_staging_close(g);
        return NULL;
    }
    return g;
}

ari_store *ari_staging_store(ari_staging *g)
{
    return g->store;
}

/* "INSERT INTO main.T(a, b) SELECT a + ?1, b FROM staging.T" for a table
 * whose column `shift` (trace_id, or id in traces) is moved by ?1; NULL if
 * the table has no such column. Caller frees. */
static char *copy_sql(ari_store *s, const char *table, const char *shift, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, "SELECT name FROM pragma_table_info(?1, 'staging') ORDER BY cid", err);
    if (!st)
        return NULL;
    ari_bind_text_static(st, 1, table, -1);
    ari_sbuf cols = {0}, sel = {0}, sql = {0};
    int shifted = 0;
    while (ari_step(st) == ARI_ROW) {
        const char *c = (const char *)ari_col_text(st, 0);
        int is_shift = strcmp(c, shift) == 0;
        shifted |= is_shift;
        ari_sbuf_printf(&cols, "%s\"%s\"", cols.len ? ", " : "", c);
        ari_sbuf_printf(&sel, "%s\"%s\"%s", sel.len ? ", " : "", c, is_shift ? " + ?1" : "");
    }
    ari_stmt_finalize(st);
    ari_sbuf_printf(&sql, "INSERT INTO main.\"%s\"(%s) SELECT %s FROM staging.\"%s\"", table,
                    ari_sbuf_text(&cols), ari_sbuf_text(&sel), table);
    int failed = ari_sbuf_failed(&cols) || ari_sbuf_failed(&sel) || ari_sbuf_failed(&sql);
    char *out = failed || !shifted ? NULL : ari_sbuf_take(&sql); /* not a per-trace table: NULL, no error */
    if (failed)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_sbuf_free(&cols);
    ari_sbuf_free(&sel);
    ari_sbuf_free(&sql);
    return out;
}

static int staged_rows(ari_store *s, const char *table)
{
    char *sql = NULL;
    ari_stmt *st = NULL;
    int any = 0;
    if (asprintf(&sql, "SELECT 1 FROM staging.\"%s\" LIMIT 1", table) >= 0 && (st = ari_store_prepare(s, sql, NULL)))
        any = ari_step(st) == ARI_ROW;
    ari_stmt_finalize(st);
    free(sql);
    return any;
}

static int run_bound(ari_store *s, const char *sql, int64_t offset, const char *what, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, sql, err);
    if (!st)
        return -1;
    if (strstr(sql, "?1"))
        ari_bind_int64(st, 1, offset);
    int rc = ari_store_write(s, st, what, err);
    ari_stmt_finalize(st);
    return rc;
}

/* Copies one staged table. Tables without trace ids (jobs, tokens,
 * ensembles) are never written by an import: finding rows there is a bug. */
static int copy_table(ari_store *s, const char *table, int64_t offset, ari_error *err)
{
    ari_error local = {0};
    char *sql = copy_sql(s, table, strcmp(table, "traces") == 0 ? "id" : "trace_id", &local);
    if (!sql) {
        if (local.code[0])
            return ari_error_set(err, local.code, "%s", local.message);
        if (staged_rows(s, table))
            return ari_error_set(err, ARI_E_DB, "internal error: an import wrote to table %s", table);
        return 0;
    }
    char what[96];
    snprintf(what, sizeof what, "publish the import (%s)", table);
    int rc = run_bound(s, sql, offset, what, err);
    free(sql);
    return rc;
}

static int copy_tables(ari_store *s, int64_t offset, ari_error *err)
{
    /* creation order: traces first, then the tables that refer to it */
    ari_stmt *st = ari_store_prepare(s, "SELECT name FROM staging.sqlite_master WHERE type = 'table'"
                                        " AND name NOT LIKE 'sqlite_%' ORDER BY rowid", err);
    if (!st)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        char *table = strdup((const char *)ari_col_text(st, 0));
        rc = table ? copy_table(s, table, offset, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(table);
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, "staged tables");
    ari_stmt_finalize(st);
    return rc;
}

static int attach(ari_staging *g, ari_store *s, ari_error *err)
{
    ari_arg path = ari_arg_raw_text(g->path);
    g->attached =
        ari_store_run(s, "ATTACH DATABASE ?1 AS staging", &path, 1, "attach the staged import", err) == 0;
    return g->attached ? 0 : -1;
}

static void detach(ari_staging *g, ari_store *s)
{
    ari_error ignored = {0};
    if (g->attached && ari_store_exec(s, "DETACH DATABASE staging", &ignored) < 0)
        ari_log(ARI_LOG_WARN, "detach %s: %s", g->path, ignored.message);
    g->attached = 0;
    if (g->fk_off)
        ari_store_exec(s, "PRAGMA foreign_keys = ON", &ignored);
    g->fk_off = 0;
}

static int max_trace_id(ari_store *s, int64_t *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s, "SELECT coalesce(max(id), 0) FROM traces", err);
    return st && ari_store_query_int64(s, st, out, "largest trace id", err) == 0 ? 0 : -1;
}

int ari_staging_publish(ari_staging *g, ari_store *s, int64_t *offset_out, ari_error *err)
{
    if (s->pg)
        return ari_pg_publish(g->store, s, offset_out, err);
    ari_store_close(g->store);
    g->store = NULL;
    if (attach(g, s, err) < 0)
        return -1;
    /* The staged rows were checked against their foreign keys when they
     * were written; checking each again here would only slow the copy. */
    if (ari_store_exec(s, "PRAGMA foreign_keys = OFF", err) < 0) {
        detach(g, s);
        return -1;
    }
    g->fk_off = 1;
    if (ari_store_begin(s, err) < 0) {
        detach(g, s);
        return -1;
    }
    if (max_trace_id(s, offset_out, err) < 0 || copy_tables(s, *offset_out, err) < 0) {
        ari_store_rollback(s);
        detach(g, s);
        return -1;
    }
    return 0;
}

int ari_staging_end(ari_staging *g, ari_store *s, int commit, ari_error *err)
{
    int rc = 0;
    if (commit && ari_store_commit(s, err) < 0)
        rc = -1;
    ari_store_rollback(s); /* no-op after a commit */
    detach(g, s);
    return rc;
}

void ari_staging_close(ari_staging *g)
{
    if (!g)
        return;
    ari_store_close(g->store);
    remove_files(g->path);
    free(g->path);
    free(g);
}

/* Whether `name` is "<base>.staging-<pid>-<start>-<n>" of a process that
 * is gone: no such pid, or a pid now used by a process started later. */
static int stale_staging(const char *name, const char *base)
{
    size_t lb = strlen(base), lt = strlen(STAGING_TAG);
    if (strncmp(name, base, lb) != 0 || strncmp(name + lb, STAGING_TAG, lt) != 0)
        return 0;
    const char *p = name + lb + lt;
    char *end;
    long long pid = strtoll(p, &end, 10);
    if (end == p || *end != '-')
        return 0;
    long long start = strtoll(end + 1, &end, 10);
    if (*end != '-' || strchr(end, '.'))
        return 0;
    const char *suffix = strchr(end + 1, '-'); /* -journal, -wal, -shm: removed with the database */
    return !suffix && ari_process_start(pid) != start;
}

int ari_staging_sweep(const char *db_path)
{
    char dir[4096];
    const char *slash = strrchr(db_path, '/');
    const char *base = slash ? slash + 1 : db_path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - db_path) : 1, slash ? db_path : ".");
    DIR *d = opendir(dir[0] ? dir : "/");
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!stale_staging(e->d_name, base))
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir[0] ? dir : "", e->d_name);
        remove_files(path);
        removed++;
    }
    closedir(d);
    return removed;
}

int ari_staging_sweep_tmp(void)
{
    char base[4096];
    return ari_staging_sweep(pg_staging_base(base, sizeof base));
}
