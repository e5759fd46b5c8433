/* test_helpers.h: small helpers shared by the C unit tests: temporary
 * directories and files, reading a count from the store, importing a
 * generated trace, throwaway PostgreSQL databases and stores, and a
 * deterministic generator. */
#ifndef ARIADNE_TEST_HELPERS_H
#define ARIADNE_TEST_HELPERS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "import/import.h"
#include "store/store.h"
#include "upload.h"

/* A fresh directory under /tmp; remove it with ari_remove_tree. */
static inline char *test_tmpdir(void)
{
    char *dir = strdup("/tmp/ariadne-unit-XXXXXX");
    if (!dir || !mkdtemp(dir))
        abort();
    return dir;
}

/* Imports the trace at path (a file or directory; duplicates allowed) into
 * s, working in work: the first trace's id, or -1 with err set. */
static inline int64_t test_import_trace(ari_store *s, const char *path, const char *work, ari_error *err)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = work, .allow_duplicate = 1};
    ari_import_result res;
    if (ari_import(s, &req, &res, err) < 0)
        return -1;
    int64_t id = res.traces[0].id;
    ari_import_result_free(&res);
    return id;
}

/* Writes len bytes to dir/name; returns the malloc'd path. */
static inline char *test_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char *path;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        abort();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        abort();
    return path;
}

/* The directory holding this project's sources (CTest sets it). */
static inline const char *test_source_dir(void)
{
    const char *dir = getenv("ARIADNE_SOURCE_DIR");
    return dir ? dir : ".";
}

/* Runs one SQL statement on a second connection to the database at
 * db_path and returns the integer of its first row (aborts without one). */
static inline int64_t test_query_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open(db_path, &db) != SQLITE_OK || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "test_query_int(%s): %s\n", sql, sqlite3_errmsg(db));
        abort();
    }
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The PostgreSQL cluster the tests may use: $ARIADNE_TEST_PG, or the URL in
 * the file $ARIADNE_TEST_PG_FILE names (CTest's fixture `pg`); NULL when
 * neither is given (the PostgreSQL tests then skip). Kept in buf. */
static inline const char *test_pg_base(char *buf, size_t size)
{
    const char *url = getenv("ARIADNE_TEST_PG");
    if (url && *url) {
        snprintf(buf, size, "%s", url);
        return buf;
    }
    const char *file = getenv("ARIADNE_TEST_PG_FILE");
    FILE *f = file ? fopen(file, "r") : NULL;
    if (!f)
        return NULL;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    return ok && *buf ? buf : NULL;
}

/* A throwaway database on the test cluster (test_pg_base). */
typedef struct test_pg_db {
    char base[512]; /* the cluster's maintenance database */
    char name[64];  /* <prefix>_<pid> */
    char url[640];  /* base with its database replaced by name */
} test_pg_db;

/* Runs SQL commands (one per -c) on the maintenance database with psql:
 * psql's exit status. */
static inline int test_pg_admin(const char *base, const char *sql)
{
    char *cmd;
    if (asprintf(&cmd, "psql -X -q -v ON_ERROR_STOP=1 -d '%s' %s >/dev/null", base, sql) < 0)
        abort();
    int rc = system(cmd);
    free(cmd);
    return rc;
}

/* Creates <prefix>_<pid> (dropping one a crashed run left): 1, or 0
 * without a cluster (the caller skips its tests). Aborts when the cluster
 * refuses. */
static inline int test_pg_db_create(test_pg_db *db, const char *prefix)
{
    if (!test_pg_base(db->base, sizeof db->base))
        return 0;
    snprintf(db->name, sizeof db->name, "%s_%ld", prefix, (long)getpid());
    const char *scheme = strstr(db->base, "://");
    const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
    int keep = slash ? (int)(slash - db->base) : (int)strlen(db->base);
    snprintf(db->url, sizeof db->url, "%.*s/%s", keep, db->base, db->name);
    char sql[192];
    snprintf(sql, sizeof sql, "-c 'DROP DATABASE IF EXISTS %s' -c 'CREATE DATABASE %s'", db->name, db->name);
    if (test_pg_admin(db->base, sql) != 0) {
        fprintf(stderr, "cannot create the database %s on %s\n", db->name, db->base);
        abort();
    }
    return 1;
}

static inline void test_pg_db_drop(const test_pg_db *db)
{
    char sql[128];
    snprintf(sql, sizeof sql, "-c 'DROP DATABASE IF EXISTS %s WITH (FORCE)'", db->name);
    test_pg_admin(db->base, sql);
}

/* test_pg_db_create, then a store opened (migrated) on it: NULL without
 * a cluster (the caller skips its PostgreSQL part); aborts when the store
 * cannot be opened. Close with test_pg_store_close. */
static inline ari_store *test_pg_store_open(test_pg_db *db, const char *prefix)
{
    if (!test_pg_db_create(db, prefix))
        return NULL;
    ari_error err = {0};
    ari_store *s = ari_store_open(db->url, &err);
    if (!s) {
        fprintf(stderr, "open %s: %s\n", db->url, err.message);
        abort();
    }
    return s;
}

static inline void test_pg_store_close(ari_store *s, const test_pg_db *db)
{
    if (!s)
        return;
    ari_store_close(s);
    test_pg_db_drop(db);
}

/* A deterministic generator (xorshift64) in [0, 1), so that a failure
 * repeats: *state non-zero, restarted by the caller for each run. */
static inline double test_uniform(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* A fresh database in a fresh directory (with a "work" subdirectory for
 * imports), for cmocka setup/teardown: *state becomes a test_db. */
typedef struct test_db {
    char *dir, *db_path, *work;
    ari_store *s;
} test_db;

static inline int test_db_setup(void **state)
{
    test_db *f = calloc(1, sizeof *f);
    ari_error err = {0};
    if (!f || !(f->dir = test_tmpdir()) || asprintf(&f->db_path, "%s/t.db", f->dir) < 0 ||
        asprintf(&f->work, "%s/work", f->dir) < 0 || mkdir(f->work, 0700) != 0 ||
        !(f->s = ari_store_open(f->db_path, &err)))
        abort();
    *state = f;
    return 0;
}

static inline int test_db_teardown(void **state)
{
    test_db *f = *state;
    ari_store_close(f->s);
    ari_remove_tree(f->dir);
    free(f->db_path);
    free(f->work);
    free(f->dir);
    free(f);
    return 0;
}

/* R, the independent reference of the numerical tests (Debian's r-base-core). */
#define TEST_RSCRIPT "/usr/bin/Rscript"

/* Writes the R program `script` as dir/name, runs it as
 * "Rscript --vanilla dir/name IN OUT" and opens OUT for reading: the
 * stream, or NULL when R failed or wrote nothing. */
static inline FILE *test_run_r(const char *dir, const char *name, const char *script, const char *in,
                               const char *out)
{
    char *path = test_write_file(dir, name, script, strlen(script));
    char *cmd;
    if (asprintf(&cmd, TEST_RSCRIPT " --vanilla '%s' '%s' '%s'", path, in, out) < 0)
        abort();
    int rc = system(cmd);
    free(cmd);
    free(path);
    return rc == 0 ? fopen(out, "r") : NULL;
}

#endif
