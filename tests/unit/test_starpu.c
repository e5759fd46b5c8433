/* test_starpu.c: task-level imports: StarPU bundles (format_starpu.c) and
 * StarVZ phase-1 CSV sets (format_starvz.c) into the store, their summary,
 * bad inputs (the database must be exactly as before), archives, and the
 * real data of /work/shared/data and the generator when they are there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>

#include <jansson.h>
#include <sqlite3.h>

#include "import/import.h"
#include "store/store.h"
#include "test_helpers.h"

typedef test_db fixture;

/* ---- helpers ---- */

static int64_t import_path(fixture *f, const char *path, ari_error *err)
{
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = f->work};
    ari_import_result res;
    memset(err, 0, sizeof *err);
    if (ari_import(f->s, &req, &res, err) < 0)
        return -1;
    int64_t id = res.ntraces == 1 ? res.traces[0].id : -1;
    ari_import_result_free(&res);
    return id;
}

static double query_double(fixture *f, const char *sql, int64_t id)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    double v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : NAN;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static char *query_text(fixture *f, const char *sql, int64_t id)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    char *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static json_t *summary(fixture *f, int64_t id)
{
    char *text = query_text(f, "SELECT summary_json FROM traces WHERE id = ?1", id);
    assert_non_null(text);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    return j;
}

static json_int_t jint(json_t *obj, const char *path)
{
    /* path: "a" or "a.b" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *dot = strchr(buf, '.');
    if (dot)
        *dot = '\0';
    json_t *v = json_object_get(obj, buf);
    if (dot)
        v = json_object_get(v, dot + 1);
    if (!json_is_integer(v))
        fail_msg("summary.%s is not an integer", path);
    return json_integer_value(v);
}

static double jreal(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        fail_msg("summary.%s is not a number", key);
    return json_number_value(v);
}

/* Row counts of every table: the database "as it is". */
static char *snapshot(fixture *f)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        -1, &st, NULL), SQLITE_OK);
    size_t cap = 4096, used = 0;
    char *out = calloc(1, cap);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char sql[256];
        sqlite3_stmt *count;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", sqlite3_column_text(st, 0));
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &count, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(count), SQLITE_ROW);
        used += (size_t)snprintf(out + used, cap - used, "%s=%lld ", sqlite3_column_text(st, 0),
                                 (long long)sqlite3_column_int64(count, 0));
        sqlite3_finalize(count);
        assert_true(used < cap);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static char *fixture_path(const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/tests/fixtures/starpu/%s", test_source_dir(), name) > 0);
    return p;
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* Copies the fixture directory `name` to dir/name; returns the copy's path. */
static char *copy_fixture(const char *dir, const char *name)
{
    char *src = fixture_path(name), *dst;
    assert_true(asprintf(&dst, "%s/%s", dir, name) > 0);
    assert_int_equal(mkdir(dst, 0700), 0);
    DIR *d = opendir(src);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
        copy_file(from, to);
    }
    closedir(d);
    free(src);
    return dst;
}

static const char *shared_data(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    struct stat st;
    if (!d || stat(d, &st) != 0)
        return NULL;
    return d;
}

/* ---- the hand-made fixtures ---- */

/* Both fixtures describe the same run: 2 nodes, 0_CPU0, 0_CUDA0_0 and
 * 1_CPU0; dplgsy (1..2 ms, does not set the origin), dpotrf (3..5),
 * dtrsm (5.5..8), dgemm (9..12) and dgemm 1_5 (12..12.5, only in tasks.rec
 * for the bundle); origin 3 ms. */
static void check_fixture_model(fixture *f, int64_t id)
{
    json_t *s = summary(f, id);
    assert_int_equal(jint(s, "tasks"), 5);
    assert_int_equal(jint(s, "task_types.dgemm"), 2);
    assert_int_equal(jint(s, "task_types.dplgsy"), 1);
    assert_int_equal(jint(s, "task_types.dpotrf"), 1);
    assert_int_equal(jint(s, "task_types.dtrsm"), 1);
    assert_int_equal(jint(s, "nodes"), 2);
    assert_int_equal(jint(s, "workers.CPU"), 2);
    assert_int_equal(jint(s, "workers.CUDA"), 1);
    assert_int_equal(jint(s, "tasks_by_resource_type.CUDA"), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(s, "tasks_by_node"),
                                                                        "1"), "dgemm")), 2);
    assert_true(fabs(jreal(s, "time_origin") - 3.0) < 1e-9);
    assert_true(fabs(jreal(s, "makespan") - 9.5) < 1e-9);
    assert_true(fabs(jreal(s, "first_task_start") + 2.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(s, "time_unit")), "ms");
    assert_int_equal(jint(s, "dependencies"), 4);
    assert_int_equal(jint(s, "data_handles"), 2);
    assert_int_equal(jint(s, "atree_nodes"), 3);
    assert_int_equal(jint(s, "atree_depth"), 1);
    json_decref(s);
    /* one task in detail: tasks.rec completed what Paje showed */
    assert_true(fabs(query_double(f, "SELECT start FROM tasks WHERE trace_id = ?1 AND job_id = '0_3'", id) - 2.5) < 1e-9);
    assert_true(fabs(query_double(f, "SELECT submit_time FROM tasks WHERE trace_id = ?1 AND job_id = '0_3'", id) + 2.04) < 1e-9);
    assert_true(query_double(f, "SELECT priority FROM tasks WHERE trace_id = ?1 AND job_id = '0_3'", id) == 2);
    char *rt = query_text(f, "SELECT resource_type FROM tasks WHERE trace_id = ?1 AND job_id = '0_3'", id);
    assert_string_equal(rt, "CUDA");
    free(rt);
    char *dep = query_text(f, "SELECT group_concat(job_id || '<' || depends_on, ' ') FROM"
                              " (SELECT * FROM deps WHERE trace_id = ?1 ORDER BY job_id)", id);
    assert_string_equal(dep, "0_2<0_1 0_3<0_2 1_4<0_3 1_5<1_4");
    free(dep);
    /* runtime states are kept as states, shifted like the tasks */
    assert_true(query_double(f, "SELECT count(*) FROM states s JOIN names n ON n.trace_id = s.trace_id"
                                " AND n.id = s.value_id WHERE s.trace_id = ?1 AND n.name = 'Idle'", id) >= 3);
    assert_true(fabs(query_double(f, "SELECT min(s.start) FROM states s JOIN names n ON n.trace_id = s.trace_id"
                                     " AND n.id = s.value_id WHERE s.trace_id = ?1 AND n.name = 'FetchingInput'",
                                  id) - 5.5) < 1e-9);
    assert_int_equal(query_double(f, "SELECT count(*) FROM links WHERE trace_id = ?1", id), 1);
    assert_true(fabs(query_double(f, "SELECT min(start) FROM links WHERE trace_id = ?1", id) - 5.0) < 1e-9);
    assert_true(query_double(f, "SELECT count(*) FROM variables WHERE trace_id = ?1", id) >= 2);
}

static void test_bundle_fixture(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("bundle");
    ari_error err;
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    char *format = query_text(f, "SELECT format || '/' || kind FROM traces WHERE id = ?1", id);
    assert_string_equal(format, "starpu/tasks");
    free(format);
    check_fixture_model(f, id);
    json_t *s = summary(f, id);
    assert_string_equal(json_string_value(json_object_get(json_object_get(s, "config"), "qrm_mb")), "4");
    json_decref(s);
    /* every file of the bundle is recorded, README.txt included */
    assert_int_equal(query_double(f, "SELECT count(*) FROM trace_files WHERE trace_id = ?1", id), 7);
    free(path);
}

static void test_starvz_fixture(void **state)
{
    fixture *f = *state;
    char *path = fixture_path("starvz");
    ari_error err;
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    char *format = query_text(f, "SELECT format FROM traces WHERE id = ?1", id);
    assert_string_equal(format, "starvz");
    free(format);
    check_fixture_model(f, id);
    free(path);
}

static void test_archive(void **state)
{
    fixture *f = *state;
    char *src = fixture_path(""), *tgz, *cmd;
    assert_true(asprintf(&tgz, "%s/bundle.tar.gz", f->dir) > 0);
    assert_true(asprintf(&cmd, "tar czf '%s' -C '%s' bundle", tgz, src) > 0);
    assert_int_equal(system(cmd), 0);
    ari_error err;
    int64_t id = import_path(f, tgz, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    check_fixture_model(f, id);
    free(src);
    free(tgz);
    free(cmd);
}

/* ---- bad inputs ---- */

typedef struct bad_case {
    const char *fixture;
    const char *file;     /* file to replace (NULL: remove `remove`) */
    const char *content;  /* new content; NULL with len 0: remove the file */
    size_t len;
    const char *code;
    const char *message;  /* expected in the error message */
} bad_case;

static void run_bad_case(fixture *f, const bad_case *c, int n)
{
    char *dir;
    assert_true(asprintf(&dir, "%s/bad%d", f->dir, n) > 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    char *copy = copy_fixture(dir, c->fixture);
    char *target;
    assert_true(asprintf(&target, "%s/%s", copy, c->file) > 0);
    if (c->content) {
        FILE *out = fopen(target, "wb");
        assert_non_null(out);
        assert_int_equal(fwrite(c->content, 1, c->len, out), c->len);
        fclose(out);
    } else {
        assert_int_equal(unlink(target), 0);
    }
    char *before = snapshot(f);
    ari_error err;
    assert_int_equal(import_path(f, copy, &err), -1);
    if (strcmp(err.code, c->code) != 0 || !strstr(err.message, c->message))
        fail_msg("case %d: got %s '%s', want %s '%s'", n, err.code, err.message, c->code, c->message);
    char *after = snapshot(f);
    assert_string_equal(before, after);
    free(before);
    free(after);
    free(target);
    free(copy);
    free(dir);
}

static void test_bad_inputs(void **state)
{
    fixture *f = *state;
    ari_error err;
    char *good = fixture_path("bundle");
    assert_true(import_path(f, good, &err) > 0); /* so that "as before" is not empty */
    free(good);
    static const char binary[] = "Name: dgemm\nJobId: \0\1\2\3\n";
    static const char truncated[] = "Name: dgemm\nJobId: 0_2\nStartTi";
    static const char wrong[] = "Control,JobId,StartTime\n,0_1,1.0\n";
    static const char bad_time[] = "Name: dgemm\nJobId: 0_2\nWorkerId: 0\nStartTime: soon\nEndTime: 2\n";
    static const char cut_dot[] = "digraph G {\n\t \"task_0_1\"->\"task_0_2\" [label=\"task\"]\n";
    static const char bad_ws[] = "Nature, ResourceId, Type, Start, End, Duration, Depth, Value, JobId\n"
                                 "State, 0_CPU0, Worker State, , 2.0, 1.0, 0, dgemm, 0_1\n";
    size_t huge_len = ((size_t)1 << 20) + 64;
    char *huge = malloc(huge_len);
    memcpy(huge, "%EventDef PajeDefineContainerType 1\n# ", 38);
    memset(huge + 38, 'x', huge_len - 39);
    huge[huge_len - 1] = '\n';
    const bad_case cases[] = {
        {"bundle", "tasks.rec", "", 0, ARI_E_INVALID_INPUT, "tasks.rec: empty file"},
        {"bundle", "tasks.rec", truncated, sizeof truncated - 1, ARI_E_INVALID_INPUT, "tasks.rec:3:"},
        {"bundle", "tasks.rec", binary, sizeof binary - 1, ARI_E_INVALID_INPUT, "tasks.rec:2:"},
        {"bundle", "tasks.rec", wrong, sizeof wrong - 1, ARI_E_INVALID_INPUT,
         "tasks.rec:1: expected a 'Field: value' line"},
        {"bundle", "tasks.rec", bad_time, sizeof bad_time - 1, ARI_E_INVALID_INPUT, "bad StartTime 'soon'"},
        {"bundle", "tasks.rec", NULL, 0, ARI_E_INVALID_INPUT, "tasks.rec is missing"},
        {"bundle", "paje.trace", huge, huge_len, ARI_E_INVALID_INPUT, "paje.trace:"},
        {"bundle", "paje.trace", wrong, sizeof wrong - 1, ARI_E_INVALID_INPUT, "paje.trace"},
        {"bundle", "dag.dot", cut_dot, sizeof cut_dot - 1, ARI_E_INVALID_INPUT, "unexpected end of file"},
        {"starvz", "paje.worker_state.csv.gz", bad_ws, sizeof bad_ws - 1, ARI_E_INVALID_INPUT, "no Start"},
        {"starvz", "rec.tasks.csv", binary, sizeof binary - 1, ARI_E_INVALID_INPUT, "rec.tasks.csv:2:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_bad_case(f, &cases[i], (int)i);
    free(huge);
}

/* ---- real data, when present ---- */

static void test_starvz_lu_oracle(void **state)
{
    fixture *f = *state;
    const char *data = shared_data();
    if (!data)
        skip();
    char *path;
    assert_true(asprintf(&path, "%s/starvz/inst/extdata/lu_trace", data) > 0);
    ari_error err;
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    json_t *s = summary(f, id);
    /* StarVZ's own values (data/starvz_sample_lu.rda) */
    assert_int_equal(jint(s, "tasks"), 268);
    assert_int_equal(jint(s, "task_types.dgemm"), 140);
    assert_int_equal(jint(s, "task_types.dtrsm"), 56);
    assert_int_equal(jint(s, "task_types.dgetrf_nopiv"), 8);
    assert_int_equal(jint(s, "task_types.dplrnt"), 64);
    static const int per_node[2][4] = {{62, 28, 4, 32}, {78, 28, 4, 32}};
    static const char *const types[4] = {"dgemm", "dtrsm", "dgetrf_nopiv", "dplrnt"};
    json_t *by_node = json_object_get(s, "tasks_by_node");
    for (int node = 0; node < 2; node++)
        for (int t = 0; t < 4; t++) {
            char key[8];
            snprintf(key, sizeof key, "%d", node);
            assert_int_equal(json_integer_value(json_object_get(json_object_get(by_node, key), types[t])),
                             per_node[node][t]);
        }
    assert_int_equal(jint(s, "workers.CPU"), 38);
    assert_int_equal(jint(s, "nodes"), 2);
    assert_true(fabs(jreal(s, "makespan") - 1350.060401) < 1e-6);
    assert_true(fabs(jreal(s, "time_origin") - 11.79733) < 1e-5);
    json_decref(s);
    /* the first dgetrf_nopiv starts at 0 and dplrnt before it */
    assert_true(fabs(query_double(f, "SELECT min(start) FROM tasks WHERE trace_id = ?1 AND type = 'dgetrf_nopiv'", id)) < 1e-9);
    assert_true(query_double(f, "SELECT max(start) FROM tasks WHERE trace_id = ?1 AND type = 'dplrnt'", id) < 0);
    free(path);
}

static void test_starvz_qr_tree(void **state)
{
    fixture *f = *state;
    const char *data = shared_data();
    if (!data)
        skip();
    char *path, *csv;
    assert_true(asprintf(&path, "%s/starvz/extra_data/qr_trace", data) > 0);
    assert_true(asprintf(&csv, "%s/atree.csv", path) > 0);
    /* what atree.csv says: distinct node ids, and one parent per edge row */
    FILE *in = fopen(csv, "r");
    assert_non_null(in);
    char line[256];
    long rows = 0, seen_max = 0;
    static unsigned char seen[1 << 20];
    memset(seen, 0, sizeof seen);
    long distinct = 0;
    assert_non_null(fgets(line, sizeof line, in)); /* header */
    while (fgets(line, sizeof line, in)) {
        long a, b;
        if (sscanf(line, "%ld,%ld", &a, &b) != 2)
            continue;
        rows++;
        long ids[2] = {a, b};
        for (int i = 0; i < 2; i++)
            if (ids[i] >= 0 && ids[i] < (long)sizeof seen && !seen[ids[i]]) {
                seen[ids[i]] = 1;
                distinct++;
                if (ids[i] > seen_max)
                    seen_max = ids[i];
            }
    }
    fclose(in);
    ari_error err;
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    assert_int_equal(query_double(f, "SELECT count(*) FROM atree WHERE trace_id = ?1", id), distinct);
    assert_int_equal(query_double(f, "SELECT count(parent) FROM atree WHERE trace_id = ?1", id), rows);
    assert_int_equal(query_double(f, "SELECT count(*) FROM atree WHERE trace_id = ?1 AND parent IS NULL", id),
                     distinct - rows);
    assert_true(query_double(f, "SELECT count(*) FROM tasks t JOIN atree a ON a.trace_id = t.trace_id"
                                " AND a.node = t.anode WHERE t.trace_id = ?1", id) > 0);
    assert_true(query_double(f, "SELECT max(depth) FROM atree WHERE trace_id = ?1", id) > 0);
    (void)seen_max;
    free(csv);
    free(path);
}

static void test_real_bundles(void **state)
{
    fixture *f = *state;
    const char *data = shared_data();
    if (!data)
        skip();
    char *path;
    assert_true(asprintf(&path, "%s/starpu/mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2", data) > 0);
    ari_error err;
    int64_t id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    /* README.txt: 2600 tasks, 650/572/650/728 per rank */
    static const int per_rank[4] = {650, 572, 650, 728};
    for (int r = 0; r < 4; r++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM tasks WHERE trace_id = ?1 AND node = %d", r);
        assert_int_equal(query_double(f, sql, id), per_rank[r]);
    }
    json_t *s = summary(f, id);
    assert_int_equal(jint(s, "tasks"), 2600);
    assert_int_equal(jint(s, "nodes"), 4);
    assert_true(fabs(jreal(s, "makespan") - 9390.9) < 0.05); /* "makespan of the task phase 9390.9 ms" */
    json_decref(s);
    free(path);
    assert_true(asprintf(&path, "%s/starpu/chol_implicit_dmdas_N11520_nb24", data) > 0);
    id = import_path(f, path, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    s = summary(f, id);
    assert_int_equal(jint(s, "tasks"), 2600);
    assert_int_equal(jint(s, "task_types.GEMM"), 2024);
    assert_int_equal(jint(s, "task_types.POTRF"), 24);
    assert_int_equal(jint(s, "workers.CPU"), 2);
    assert_true(fabs(jreal(s, "time_origin") - 675.017) < 0.001); /* "First task start 675.017 ms" */
    assert_true(fabs(jreal(s, "makespan") - 2630.8) < 0.05);
    json_decref(s);
    free(path);
}

/* The generator's manifest.json against what was imported. The manifest's
 * makespan runs from the first task (dplgsy included) while StarVZ's origin
 * skips the generation kernels, so it equals makespan - first_task_start. */
static void test_generated_round_trip(void **state)
{
    fixture *f = *state;
    const char *ariadned = getenv("ARIADNED");
    if (!ariadned)
        skip();
    char *out, *cmd, *manifest;
    assert_true(asprintf(&out, "%s/gen", f->dir) > 0);
    assert_true(asprintf(&cmd, "'%s' generate --out '%s' --tiles 8 --nodes 2 > /dev/null", ariadned, out) > 0);
    assert_int_equal(system(cmd), 0);
    assert_true(asprintf(&manifest, "%s/manifest.json", out) > 0);
    json_t *m = json_load_file(manifest, 0, NULL);
    assert_non_null(m);
    ari_error err;
    int64_t id = import_path(f, out, &err);
    if (id < 0)
        fail_msg("%s: %s", err.code, err.message);
    json_t *s = summary(f, id);
    json_t *mt = json_object_get(m, "tasks");
    assert_int_equal(jint(s, "tasks"), json_integer_value(json_object_get(mt, "total")));
    const char *type;
    json_t *count;
    json_object_foreach(json_object_get(mt, "by_type"), type, count) {
        char key[128];
        snprintf(key, sizeof key, "task_types.%s", type);
        assert_int_equal(jint(s, key), json_integer_value(count));
    }
    size_t node;
    json_t *n;
    json_array_foreach(json_object_get(mt, "by_node"), node, n) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM tasks WHERE trace_id = ?1 AND node = %zu", node);
        assert_int_equal(query_double(f, sql, id), json_integer_value(n));
    }
    json_object_foreach(json_object_get(mt, "by_resource"), type, count) {
        char key[128];
        snprintf(key, sizeof key, "tasks_by_resource_type.%s", type);
        assert_int_equal(jint(s, key), json_integer_value(count));
    }
    assert_int_equal(jint(s, "dependencies"),
                     json_integer_value(json_object_get(json_object_get(m, "dependencies"), "total")));
    double makespan = json_number_value(json_object_get(m, "makespan_ms"));
    double first = json_number_value(json_object_get(m, "first_start_ms"));
    double last = json_number_value(json_object_get(m, "last_end_ms"));
    /* the manifest prints 6 decimals (truncated), paje.trace 9 */
    assert_true(fabs(jreal(s, "makespan") - jreal(s, "first_task_start") - makespan) < 2e-6);
    assert_true(fabs(jreal(s, "time_origin") + jreal(s, "first_task_start") - first) < 2e-6);
    assert_true(fabs(jreal(s, "time_origin") + jreal(s, "makespan") - last) < 2e-6);
    json_decref(s);
    json_decref(m);
    free(manifest);
    free(cmd);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bundle_fixture, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_starvz_fixture, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_archive, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_bad_inputs, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_starvz_lu_oracle, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_starvz_qr_tree, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_real_bundles, test_db_setup, test_db_teardown),
        cmocka_unit_test_setup_teardown(test_generated_round_trip, test_db_setup, test_db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
