/* test_store_ensembles.c: the ensembles of the store (store_ensembles.h):
 * creation with parameters read from the profiles' metadata, members of
 * other kinds refused, edits, all-or-nothing writes, and the cascades
 * (a deleted trace leaves its ensembles; a deleted ensemble keeps its
 * traces). Rows are written with plain SQL on a second connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka needs the three above first */
#include <cmocka.h>

#include <sqlite3.h>

#include "store/store_ensembles.h"
#include "test_helpers.h"

typedef test_db fixture;

static void exec_sql(const char *db_path, const char *sql)
{
    sqlite3 *db;
    char *msg = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", sql, msg);
    sqlite3_free(msg);
    sqlite3_close(db);
    assert_int_equal(rc, SQLITE_OK);
}

/* Inserts a trace with metadata meta (JSON text) and nranks processes. */
static int64_t add_trace(const char *db_path, const char *name, const char *kind, const char *meta,
                         int nranks)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO traces(name, kind, format, meta_json) VALUES ('%s', '%s', 'cali', '%s')"
             " RETURNING id",
             name, kind, meta);
    int64_t id = test_query_int(db_path, sql);
    for (int r = 0; r < nranks; r++) {
        snprintf(sql, sizeof sql, "INSERT INTO profile_procs VALUES (%lld, %d, %d, 0)", (long long)id, r, r);
        exec_sql(db_path, sql);
    }
    return id;
}

static const char *param(const ari_ensemble_member *m, const char *key, const char **source)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->param_keys[i], key) == 0) {
            if (source)
                *source = m->param_sources[i];
            return m->param_values[i];
        }
    return NULL;
}

static void test_create_reads_metadata(void **state)
{
    fixture *f = *state;
    int64_t a =
        add_trace(f->db_path, "run-a", "profile",
                  "{\"variant\":\"Base_CUDA\",\"ProblemSizeRunParam\":1048576.000000,\"spot.metrics\":\"x\","
                  "\"cali.channel\":\"spot\",\"omp\":{\"threads\":4},\"libs\":[1,2],\"ok\":true,"
                  "\"metadata\":{\"jobsize\":16}}",
                  2);
    int64_t b = add_trace(f->db_path, "run-b", "profile",
                          "{\"variant\":\"RAJA_CUDA\",\"ProblemSizeRunParam\":0.1}", 0);
    int64_t ids[] = {b, a}, id = 0;
    ari_error err = {0};
    assert_int_equal(ari_ensemble_create(f->s, "sweep", ids, 2, &id, &err), 0);
    ari_ensemble e;
    assert_int_equal(ari_ensemble_get(f->s, id, &e, &err), 0);
    assert_string_equal(e.name, "sweep");
    assert_int_equal(e.nmembers, 2);
    /* member order is the order given, names default to the traces' */
    assert_int_equal(e.members[0].trace_id, b);
    assert_string_equal(e.members[1].name, "run-a");
    const ari_ensemble_member *ma = &e.members[1];
    const char *src = NULL;
    assert_string_equal(param(ma, "ProblemSizeRunParam", &src), "1048576");
    assert_string_equal(src, "metadata");
    assert_string_equal(param(&e.members[0], "ProblemSizeRunParam", NULL), "0.1");
    assert_string_equal(param(ma, "variant", NULL), "Base_CUDA");
    assert_string_equal(param(ma, "omp.threads", NULL), "4");
    assert_string_equal(param(ma, "ok", NULL), "true");
    assert_string_equal(param(ma, "jobsize", NULL),
                        "16"); /* a Hatchet "metadata" object's keys as they are */
    assert_string_equal(param(ma, "ranks", NULL), "2");
    assert_null(param(&e.members[0], "ranks", NULL)); /* no process rows */
    assert_null(param(ma, "spot.metrics", NULL));
    assert_null(param(ma, "cali.channel", NULL));
    assert_null(param(ma, "libs", NULL));
    /* keys sorted */
    for (int i = 1; i < ma->nparams; i++)
        assert_true(strcmp(ma->param_keys[i - 1], ma->param_keys[i]) < 0);
    assert_true(ari_ensemble_param_numeric(&e, "ProblemSizeRunParam"));
    assert_false(ari_ensemble_param_numeric(&e, "variant"));
    assert_true(ari_ensemble_param_numeric(&e, "ranks")); /* members without it do not count */
    assert_false(ari_ensemble_param_numeric(&e, "absent"));
    const char **keys = NULL;
    int nkeys = 0;
    assert_int_equal(ari_ensemble_param_keys(&e, &keys, &nkeys, &err), 0);
    assert_int_equal(nkeys, 6); /* ProblemSizeRunParam, jobsize, ok, omp.threads, ranks, variant */
    free(keys);
    ari_ensemble_free(&e);
}

static void test_refusals_change_nothing(void **state)
{
    fixture *f = *state;
    int64_t p = add_trace(f->db_path, "p", "profile", "{}", 1);
    int64_t t = add_trace(f->db_path, "t", "tasks", "{}", 0);
    int64_t ids[] = {p, t}, id = 0;
    ari_error err = {0};
    assert_int_equal(ari_ensemble_create(f->s, "mixed", ids, 2, &id, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_non_null(strstr(err.message, "not a profile"));
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM ensembles"), 0);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM ensemble_members"), 0);
    int64_t missing[] = {p, 999};
    assert_int_equal(ari_ensemble_create(f->s, "missing", missing, 2, &id, &err), -1);
    assert_non_null(strstr(err.message, "no trace 999"));
    assert_int_equal(ari_ensemble_create(f->s, "", ids, 1, &id, &err), -1);
    assert_int_equal(ari_ensemble_create(f->s, "ok", ids, 1, &id, &err), 0);
    /* twice the same member: refused, and the first add is rolled back too */
    int64_t again[] = {p};
    assert_int_equal(ari_ensemble_add_members(f->s, id, again, 1, &err), -1);
    assert_non_null(strstr(err.message, "already a member"));
    assert_int_equal(ari_ensemble_add_members(f->s, 4242, again, 1, &err), -1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    assert_string_equal(err.message, "no ensemble 4242");
    ari_ensemble e;
    assert_int_equal(ari_ensemble_get(f->s, 4242, &e, &err), -1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    assert_int_equal(ari_ensemble_rename(f->s, 4242, "x", &err), -1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    assert_int_equal(ari_ensemble_delete(f->s, 4242, &err), 1);
}

static void test_edit_members_and_params(void **state)
{
    fixture *f = *state;
    int64_t a = add_trace(f->db_path, "a", "profile", "{\"size\":8}", 1);
    int64_t b = add_trace(f->db_path, "b", "profile", "{\"size\":16}", 1);
    int64_t ids[] = {a}, id = 0;
    ari_error err = {0};
    assert_int_equal(ari_ensemble_create(f->s, "e", ids, 1, &id, &err), 0);
    assert_int_equal(ari_ensemble_add_members(f->s, id, &b, 1, &err), 0);
    ari_ensemble_param_set sets[] = {{a, "size", "10"}, {b, "size", NULL}, {b, "compiler", "gcc"}};
    int64_t name_ids[] = {b};
    const char *names[] = {"second"};
    ari_ensemble_patch u = {.member_ids = name_ids,
                            .member_names = names,
                            .nnames = 1,
                            .sets = sets,
                            .nsets = 3,
                            .source = "user"};
    assert_int_equal(ari_ensemble_update(f->s, id, &u, &err), 0);
    /* a bad set in the middle rolls back the good ones and the rename before it */
    ari_ensemble_param_set bad[] = {{a, "size", "11"}, {999, "size", "1"}};
    ari_ensemble_patch ub = {.name = "never", .sets = bad, .nsets = 2, .source = "csv"};
    assert_int_equal(ari_ensemble_update(f->s, id, &ub, &err), -1);
    assert_non_null(strstr(err.message, "not a member"));
    ari_ensemble_patch bad_source = {.source = "metadata"};
    assert_int_equal(ari_ensemble_update(f->s, id, &bad_source, &err), -1);
    ari_ensemble e;
    assert_int_equal(ari_ensemble_get(f->s, id, &e, &err), 0);
    const char *src = NULL;
    assert_string_equal(param(&e.members[0], "size", &src), "10");
    assert_string_equal(src, "user");
    assert_null(param(&e.members[1], "size", NULL));
    assert_string_equal(param(&e.members[1], "compiler", NULL), "gcc");
    assert_string_equal(e.members[1].name, "second");
    assert_string_equal(e.name, "e");
    ari_ensemble_free(&e);
    assert_int_equal(ari_ensemble_rename(f->s, id, "renamed", &err), 0);
    assert_int_equal(ari_ensemble_remove_member(f->s, id, a, &err), 0);
    assert_int_equal(ari_ensemble_remove_member(f->s, id, a, &err), -1);
    assert_string_equal(err.code, ARI_E_NOT_FOUND);
    assert_int_equal(ari_ensemble_get(f->s, id, &e, &err), 0);
    assert_string_equal(e.name, "renamed");
    assert_int_equal(e.nmembers, 1);
    assert_int_equal(e.members[0].trace_id, b);
    ari_ensemble_free(&e);
    /* the removed trace is still there, with no parameters left behind */
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM traces"), 2);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM ensemble_params WHERE trace_id = %lld", (long long)a);
    assert_int_equal(test_query_int(f->db_path, sql), 0);
}

static void test_cascades(void **state)
{
    fixture *f = *state;
    int64_t a = add_trace(f->db_path, "a", "profile", "{\"n\":1}", 1);
    int64_t b = add_trace(f->db_path, "b", "profile", "{\"n\":2}", 1);
    int64_t ids[] = {a, b}, e1 = 0, e2 = 0;
    ari_error err = {0};
    assert_int_equal(ari_ensemble_create(f->s, "one", ids, 2, &e1, &err), 0);
    assert_int_equal(ari_ensemble_create(f->s, "two", ids, 2, &e2, &err), 0);
    assert_int_equal(ari_traces_delete(f->s, a, &err), 0);
    ari_ensemble_info *infos = NULL;
    size_t n = 0;
    assert_int_equal(ari_ensembles_list(f->s, &infos, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(infos[0].id, e2); /* newest first */
    assert_int_equal(infos[0].nmembers, 1);
    assert_int_equal(infos[1].nmembers, 1);
    ari_ensemble_infos_free(infos, n);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM ensemble_params WHERE trace_id = 1"),
                     0);
    assert_int_equal(ari_ensemble_delete(f->s, e1, &err), 0);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM traces"), 1);
    assert_int_equal(test_query_int(f->db_path, "SELECT count(*) FROM ensemble_members"), 1);
    /* a member added later goes after the others; a repeated name is told apart */
    int64_t c = add_trace(f->db_path, "c", "profile", "{}", 1);
    exec_sql(f->db_path, "UPDATE traces SET name = 'b'");
    assert_int_equal(ari_ensemble_add_members(f->s, e2, &c, 1, &err), 0);
    ari_ensemble e;
    assert_int_equal(ari_ensemble_get(f->s, e2, &e, &err), 0);
    assert_int_equal(e.nmembers, 2);
    assert_int_equal(e.members[1].trace_id, c);
    assert_string_equal(e.members[0].name, "b");
    char expect[64];
    snprintf(expect, sizeof expect, "b (trace %lld)", (long long)c);
    assert_string_equal(e.members[1].name, expect);
    ari_ensemble_free(&e);
}

/* A member's parameter as a number: whole text, finite, absent apart. */
static void test_member_number(void **state)
{
    (void)state;
    char *keys[] = {"bad", "empty", "inf", "n", "tail"}, *values[] = {"x1", "", "inf", "2.5e3", "12abc"};
    ari_ensemble_member m = {.nparams = 5, .param_keys = keys, .param_values = values};
    double x = -1;
    const char *text = NULL;
    assert_int_equal(ari_ensemble_member_number(&m, "n", &x, &text), 0);
    assert_true(x == 2500.0);
    assert_string_equal(text, "2.5e3");
    assert_int_equal(ari_ensemble_member_number(&m, "absent", &x, &text), 1);
    assert_string_equal(text, "2.5e3"); /* untouched when absent */
    assert_int_equal(ari_ensemble_member_number(&m, "bad", &x, NULL), -1);
    assert_int_equal(ari_ensemble_member_number(&m, "empty", &x, NULL), -1);
    assert_int_equal(ari_ensemble_member_number(&m, "inf", &x, NULL), -1);
    assert_int_equal(ari_ensemble_member_number(&m, "tail", &x, &text), -1);
    assert_string_equal(text, "12abc");
    assert_true(x == 2500.0); /* untouched when not a number */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_reads_metadata, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_refusals_change_nothing, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_edit_members_and_params, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_cascades, test_db_setup, test_db_teardown),
        cmocka_unit_test(test_member_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
