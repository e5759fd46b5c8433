/* test_tau.c: the TAU text profile reader (src/ingest/tau.c) against a
 * recording sink: the tree of call paths (parents made on first sight, one
 * tree over all ranks), frame names, files and lines as Hatchet's
 * tau_reader.py parses them, exclusive and inclusive values per process,
 * clean errors on cut or foreign files; and, with ../shared/data, Hatchet's
 * own oracle for tau-cpi-mpi (tests/test_tau.py there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/tau.h"
#include "test_helpers.h"

#define MAX_NODES 64

typedef struct recorded {
    int nnodes;
    int64_t parent[MAX_NODES];
    char name[MAX_NODES][128], file[MAX_NODES][64];
    int line[MAX_NODES];
    double exc[MAX_NODES][4], inc[MAX_NODES][4]; /* [node][proc] */
    int nprocs;
    long long rank[4];
    char metric[2][32];
} recorded;

static int on_metric(void *ctx, const ari_profile_metric *m, int *index)
{
    recorded *r = ctx;
    *index = m->inclusive;
    snprintf(r->metric[m->inclusive], sizeof r->metric[0], "%s", m->name);
    return 0;
}

static int on_proc(void *ctx, int64_t rank, int64_t thread, int *index)
{
    recorded *r = ctx;
    (void)thread;
    r->rank[r->nprocs] = rank;
    *index = r->nprocs++;
    return 0;
}

static int on_node(void *ctx, const ari_profile_node *n)
{
    recorded *r = ctx;
    assert_int_equal(n->id, r->nnodes); /* dense, in declaration order */
    r->parent[n->id] = n->parent;
    snprintf(r->name[n->id], sizeof r->name[0], "%s", n->name);
    snprintf(r->file[n->id], sizeof r->file[0], "%s", n->file ? n->file : "");
    r->line[n->id] = n->line;
    r->nnodes++;
    return 0;
}

static int on_value(void *ctx, int metric, int64_t node, int proc, double v)
{
    recorded *r = ctx;
    (metric ? r->inc : r->exc)[node][proc] += v;
    return 0;
}

static int find(const recorded *r, const char *name)
{
    for (int i = 0; i < r->nnodes; i++)
        if (strcmp(r->name[i], name) == 0)
            return i;
    fail_msg("no node %s", name);
    return -1;
}

static int read_dir(const char *dir, const char *const *files, int n, recorded *r, ari_error *err)
{
    char paths[4][1024];
    const char *p[4], *names[4];
    for (int i = 0; i < n; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, files[i]);
        p[i] = paths[i];
        names[i] = files[i];
    }
    memset(r, 0, sizeof *r);
    ari_profile_sink k = {r, on_metric, on_proc, on_node, on_value, NULL, NULL, NULL};
    return ari_tau_read(p, names, (size_t)n, &k, err);
}

static void test_small_tree(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/profiles/tau-small", test_source_dir());
    const char *files[] = {"profile.0.0.0", "profile.1.0.0"};
    recorded r;
    ari_error err = {0};
    assert_int_equal(read_dir(dir, files, 2, &r, &err), 0);
    assert_string_equal(r.metric[0], "time");
    assert_string_equal(r.metric[1], "time (inc)");
    /* root, main, solve, init() (made as a parent), MPI_Init() */
    assert_int_equal(r.nnodes, 5);
    int root = find(&r, ".TAU application"), main_ = find(&r, "main"), solve = find(&r, "solve");
    int init = find(&r, "init()"), mpi = find(&r, "MPI_Init()");
    assert_int_equal(r.parent[root], -1);
    assert_int_equal(r.parent[main_], root);
    assert_int_equal(r.parent[solve], main_);
    assert_int_equal(r.parent[init], root);
    assert_int_equal(r.parent[mpi], init);
    assert_string_equal(r.file[main_], "app.c");
    assert_int_equal(r.line[main_], 10);
    assert_string_equal(r.file[solve], "solver.c");
    assert_int_equal(r.line[solve], 7);
    /* values: the call-path lines only (flat totals are not nodes) */
    assert_int_equal(r.nprocs, 2);
    assert_int_equal(r.rank[1], 1);
    assert_true(r.exc[root][0] == 100 && r.inc[root][0] == 1000 && r.exc[root][1] == 80);
    assert_true(r.exc[main_][0] == 300 && r.exc[main_][1] == 200);
    assert_true(r.exc[solve][0] == 600 && r.exc[solve][1] == 600);
    assert_true(r.exc[mpi][0] == 50 && r.exc[mpi][1] == 0);
    assert_true(r.exc[init][0] == 0 && r.inc[init][0] == 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_errors(void **state)
{
    (void)state;
    char dir[] = "/tmp/ariadne-tau-XXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    const char *files[] = {"profile.0.0.0"};
    recorded r;
    ari_error err = {0};
    snprintf(path, sizeof path, "%s/profile.0.0.0", dir);
    write_file(path, "3 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
                     "\".TAU application\" 1 0 5 5 0 GROUP=\"TAU_DEFAULT\"\n");
    assert_int_equal(read_dir(dir, files, 1, &r, &err), -1);
    assert_string_equal(err.code, "invalid_input");
    assert_non_null(strstr(err.message, "ends before its last function line"));
    write_file(path, "hello\n");
    memset(&err, 0, sizeof err);
    assert_int_equal(read_dir(dir, files, 1, &r, &err), -1);
    assert_non_null(strstr(err.message, "not a TAU profile"));
    write_file(path, "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
                     "\".TAU application\" one two\n");
    memset(&err, 0, sizeof err);
    assert_int_equal(read_dir(dir, files, 1, &r, &err), -1);
    assert_non_null(strstr(err.message, ":3:"));
    unlink(path);
    rmdir(dir);
    long long rank, thread;
    assert_true(ari_tau_profile_name("profile.12.0.3", &rank, &thread) && rank == 12 && thread == 3);
    assert_false(ari_tau_profile_name("profile.1.0", &rank, &thread));
    assert_false(ari_tau_profile_name("profile.1.0.0.gz", &rank, &thread));
}

/* Hatchet's tests/test_tau.py on tau-cpi-mpi: rank 0 .TAU application 449,
 * MPI_Finalize() 4458, MPI_Bcast() 218; rank 1 419, 4894, 333 (exclusive
 * time); one root whose children are the seven MPI calls. */
static void test_hatchet_oracle(void **state)
{
    (void)state;
    const char *base = getenv("ARIADNE_SHARED_DATA");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/hatchet/hatchet/tests/data/tau-cpi-mpi", base ? base : "../shared/data");
    if (access(dir, R_OK) != 0) {
        print_message("ARIADNE_SHARED_DATA/hatchet tau-cpi-mpi absent: skipped\n");
        skip();
    }
    const char *files[] = {"profile.0.0.0", "profile.1.0.0", "profile.2.0.0", "profile.3.0.0"};
    recorded r;
    ari_error err = {0};
    assert_int_equal(read_dir(dir, files, 4, &r, &err), 0);
    int root = find(&r, ".TAU application"), fin = find(&r, "MPI_Finalize()"), bcast = find(&r, "MPI_Bcast()");
    assert_true(r.exc[root][0] == 449 && r.exc[fin][0] == 4458 && r.exc[bcast][0] == 218);
    assert_true(r.exc[root][1] == 419 && r.exc[fin][1] == 4894 && r.exc[bcast][1] == 333);
    int children = 0;
    for (int i = 0; i < r.nnodes; i++)
        children += r.parent[i] == root;
    assert_int_equal(children, 7);
    assert_int_equal(r.nnodes, 1 + 7 + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_tree),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_hatchet_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
