/* test_job_queue.c: the job queue that PostgreSQL replicas share
 * (store/job_queue.h), against a throwaway database on the cluster that
 * ARIADNE_TEST_PG names (postgresql://USER@HOST:PORT/DB; skipped when it is
 * not set): a claim gives each queued job to exactly one connection; a
 * replica's running job stays its own while its connection lives and goes
 * back to the queue once it closes; a progress write never waits for the
 * row's lock; a queued or running job keeps its spool directory in use;
 * NOTIFY wakes a listening worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/job_queue.h"
#include "store/store_internal.h"
#include "test_helpers.h"
#include "util/fs.h"

typedef struct pg_fixture {
    test_pg_db db;
    ari_store *a, *b;
} pg_fixture;

static int setup(void **state)
{
    pg_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    if (!test_pg_db_create(&f->db, "ariadne_jobq")) {
        free(f);
        *state = NULL;
        return 0;
    }
    ari_error err = {0};
    f->a = ari_store_open(f->db.url, &err);
    if (!f->a)
        fail_msg("%s", err.message);
    f->b = ari_store_open(f->db.url, &err);
    if (!f->b)
        fail_msg("%s", err.message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    pg_fixture *f = *state;
    if (!f)
        return 0;
    ari_store_close(f->a);
    ari_store_close(f->b);
    test_pg_db_drop(&f->db);
    free(f);
    return 0;
}

static pg_fixture *fixture(void **state)
{
    if (!*state)
        skip(); /* no ARIADNE_TEST_PG(_FILE): no PostgreSQL to test against */
    return *state;
}

static int64_t new_job(ari_store *s, const char *params)
{
    ari_error err = {0};
    int64_t id = 0;
    if (ari_jobs_create(s, "import", params, &id, &err) < 0)
        fail_msg("%s", err.message);
    return id;
}

static char *job_field(ari_store *s, int64_t id, const char *sql)
{
    ari_error err = {0};
    ari_stmt *st = ari_store_stmt_id(s, sql, id, &err);
    char *text = NULL;
    assert_non_null(st);
    assert_int_equal(ari_store_query_string(s, st, "", &text, "read a job", &err), 0);
    return text;
}

static void assert_status(ari_store *s, int64_t id, const char *want)
{
    char *status = job_field(s, id, "SELECT status FROM jobs WHERE id = ?1");
    assert_string_equal(status, want);
    free(status);
}

static void test_each_job_claimed_once(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    int64_t j1 = new_job(f->a, "{\"n\":1}"), j2 = new_job(f->a, "{\"n\":2}"), id = 0;
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    assert_int_equal(id, j1);
    assert_string_equal(params, "{\"n\":1}");
    free(params);
    assert_int_equal(ari_jobq_claim(f->b, "import", &id, &params, &err), 0);
    assert_int_equal(id, j2);
    free(params);
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 1); /* none left */
    assert_null(params);
    assert_int_equal(ari_jobq_claim(f->b, "other", &id, &params, &err), 1);
    assert_status(f->a, j1, "running");
    assert_status(f->a, j2, "running");
    char *owner = job_field(f->b, j1, "SELECT owner_pid::text FROM jobs WHERE id = ?1");
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    assert_string_equal(owner, pid);
    free(owner);
}

static void test_take_over_after_the_runner_dies(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    int64_t j1 = new_job(f->a, "{}"), j2 = new_job(f->a, "{}"), id = 0, *ids = NULL;
    size_t n = 0;
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    free(params);
    assert_int_equal(ari_jobq_claim(f->b, "import", &id, &params, &err), 0);
    free(params);
    assert_int_equal(id, j2);
    /* a ends its job and lets go; b's job is alive: nothing to take over */
    assert_int_equal(ari_jobs_finish(f->a, j1, 1, "[]", NULL, NULL, &err), 0);
    assert_int_equal(ari_jobq_release(f->a, j1, &err), 0);
    assert_int_equal(ari_jobq_take_over(f->a, &ids, &n, &err), 0);
    assert_int_equal(n, 0);
    free(ids);
    assert_status(f->a, j2, "running");
    /* b's replica dies: its connection closes, its lock goes */
    ari_store_close(f->b);
    f->b = NULL;
    assert_int_equal(ari_jobq_take_over(f->a, &ids, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], j2);
    free(ids);
    assert_status(f->a, j2, "queued");
    assert_status(f->a, j1, "succeeded"); /* an ended job is never taken over */
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    assert_int_equal(id, j2);
    free(params);
    f->b = ari_store_open(f->db.url, &err);
    assert_non_null(f->b);
}

static void test_requeue_and_progress(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    int64_t j = new_job(f->a, "{}"), id = 0;
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    free(params);
    assert_int_equal(ari_jobq_progress(f->a, j, 0.25, "reading", &err), 0);
    char *seen = job_field(f->b, j, "SELECT progress::text || ' ' || phase FROM jobs WHERE id = ?1");
    assert_string_equal(seen, "0.25 reading");
    free(seen);
    /* another transaction holds the row: the write is skipped, not waited for */
    assert_int_equal(ari_store_begin(f->b, &err), 0);
    assert_int_equal(ari_store_exec(f->b, "SELECT id FROM jobs FOR UPDATE", &err), 0);
    assert_int_equal(ari_jobq_progress(f->a, j, 0.5, "later", &err), 0);
    ari_store_rollback(f->b);
    seen = job_field(f->b, j, "SELECT progress::text || ' ' || phase FROM jobs WHERE id = ?1");
    assert_string_equal(seen, "0.25 reading");
    free(seen);
    /* a graceful stop puts it back in the queue, for anyone */
    assert_int_equal(ari_jobq_requeue(f->a, j, &err), 0);
    assert_int_equal(ari_jobq_release(f->a, j, &err), 0);
    assert_status(f->b, j, "queued");
    assert_int_equal(ari_jobq_claim(f->b, "import", &id, &params, &err), 0);
    assert_int_equal(id, j);
    free(params);
}

/* A runner whose connection broke lost its lock with it: another replica
 * took the job over and claimed it (owner_key is now that replica's). The
 * old runner's finish, progress and requeue then change nothing. */
static void test_old_runner_cannot_touch_a_taken_over_job(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    int64_t j = new_job(f->a, "{}"), id = 0;
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    free(params);
    assert_int_equal(ari_jobq_release(f->a, j, &err), 0);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE jobs SET owner_key = 'another-replica', phase = 'theirs' WHERE id = %lld",
             (long long)j);
    assert_int_equal(ari_store_exec(f->b, sql, &err), 0);
    assert_int_equal(ari_jobs_finish(f->a, j, 0, NULL, "internal", "connection lost", &err), -1);
    assert_non_null(strstr(err.message, "took it over"));
    assert_int_equal(ari_jobq_progress(f->a, j, 0.5, "mine", &err), 0);
    assert_int_equal(ari_jobq_requeue(f->a, j, &err), 0);
    assert_status(f->b, j, "running");
    char *seen = job_field(f->b, j, "SELECT phase || ' ' || owner_key FROM jobs WHERE id = ?1");
    assert_string_equal(seen, "theirs another-replica");
    free(seen);
}

static void test_spool_in_use(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    int64_t j = new_job(f->a, "{\"spool\":\"queued-abc123\",\"spool_files\":[\"x\"]}"), id = 0;
    new_job(f->a, "{}");
    assert_int_equal(ari_jobq_spool_in_use(f->b, "queued-abc123", &err), 1);
    assert_int_equal(ari_jobq_spool_in_use(f->b, "queued-zzz", &err), 0);
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(f->a, "import", &id, &params, &err), 0);
    free(params);
    assert_int_equal(ari_jobq_spool_in_use(f->b, "queued-abc123", &err), 1); /* running */
    assert_int_equal(ari_jobs_finish(f->a, j, 0, NULL, "x", "y", &err), 0);
    assert_int_equal(ari_jobq_spool_in_use(f->b, "queued-abc123", &err), 0); /* ended */
}

static void test_notify_wakes_a_listener(void **state)
{
    pg_fixture *f = fixture(state);
    ari_error err = {0};
    assert_int_equal(ari_jobq_listen(f->a, &err), 0);
    assert_int_equal(ari_jobq_wait(f->a, 50, &err), 0); /* nothing yet */
    assert_int_equal(ari_jobq_notify(f->b, &err), 0);
    assert_int_equal(ari_jobq_wait(f->a, 5000, &err), 1);
    assert_int_equal(ari_jobq_wait(f->a, 50, &err), 0); /* consumed */
}

static void test_sqlite_has_no_shared_queue(void **state)
{
    (void)state;
    char dir[] = "/tmp/ariadne-jobq-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
    ari_error err = {0};
    ari_store *s = ari_store_open(path, &err);
    assert_non_null(s);
    assert_int_equal(ari_jobq_shared(s), 0);
    int64_t id;
    char *params = NULL;
    assert_int_equal(ari_jobq_claim(s, "import", &id, &params, &err), -1);
    assert_non_null(strstr(err.message, "PostgreSQL"));
    ari_store_close(s);
    ari_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_each_job_claimed_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_take_over_after_the_runner_dies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_requeue_and_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_old_runner_cannot_touch_a_taken_over_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spool_in_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notify_wakes_a_listener, setup, teardown),
        cmocka_unit_test(test_sqlite_has_no_shared_queue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
