/* test_gen.c: the simulated Cholesky trace generator (`ariadned generate`).
 *
 * Generates small runs into temporary directories and re-reads the files
 * with simple parsers written here (not the project's readers): task counts
 * against the Cholesky formula, dependency and worker-overlap consistency,
 * manifest.json against the files, determinism per seed, time order with
 * and without --sorted, pj_dump acceptance when pajeng is installed, and
 * rejection of bad options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_generate.h"
#include "gen/cholesky_sim.h"

/* ---- helpers -------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static char *make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/ariadne_gen_XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

/* Runs `ariadned generate --out DIR <args...>` (NULL-terminated). */
static int generate(const char *dir, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "generate";
    if (dir) {
        argv[argc++] = "--out";
        argv[argc++] = (char *)dir;
    }
    va_list ap;
    va_start(ap, dir);
    for (char *a = va_arg(ap, char *); a && argc < 63; a = va_arg(ap, char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stdout);
    return cmd_generate(argc, argv);
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

static json_t *load_manifest(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    if (!m)
        fail_msg("manifest.json: %s", je.text);
    return m;
}

static long long jint(json_t *root, const char *a, const char *b)
{
    json_t *v = json_object_get(root, a);
    if (b)
        v = json_object_get(v, b);
    if (!json_is_integer(v))
        fail_msg("manifest: %s.%s is not an integer", a, b ? b : "");
    return json_integer_value(v);
}

/* ---- tasks.rec ------------------------------------------------------------------ */

typedef struct trec {
    char jobid[32];
    char name[16];
    char deps[128];
    int rank, worker, memnode;
    double start, end;
} trec;

typedef struct tset {
    trec *v;
    size_t n;
} tset;

static void load_tasks(const char *dir, tset *ts)
{
    char *text = slurp(dir, "tasks.rec", NULL);
    assert_non_null(text);
    size_t cap = 1024;
    ts->v = calloc(cap, sizeof *ts->v);
    ts->n = 0;
    trec cur;
    memset(&cur, 0, sizeof cur);
    int in_rec = 0;
    char *save = NULL;
    /* records are separated by blank lines: strtok_r skips them, so detect
     * a new record by its first field, Name */
    for (char *line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        if (!line || strncmp(line, "Name: ", 6) == 0) {
            if (in_rec) {
                if (ts->n == cap) {
                    cap *= 2;
                    ts->v = realloc(ts->v, cap * sizeof *ts->v);
                    assert_non_null(ts->v);
                }
                ts->v[ts->n++] = cur;
            }
            if (!line)
                break;
            memset(&cur, 0, sizeof cur);
            in_rec = 1;
            snprintf(cur.name, sizeof cur.name, "%s", line + 6);
        } else if (strncmp(line, "JobId: ", 7) == 0) {
            snprintf(cur.jobid, sizeof cur.jobid, "%s", line + 7);
        } else if (strncmp(line, "DependsOn: ", 11) == 0) {
            snprintf(cur.deps, sizeof cur.deps, "%s", line + 11);
        } else if (strncmp(line, "MPIRank: ", 9) == 0) {
            cur.rank = atoi(line + 9);
        } else if (strncmp(line, "WorkerId: ", 10) == 0) {
            cur.worker = atoi(line + 10);
        } else if (strncmp(line, "MemoryNode: ", 12) == 0) {
            cur.memnode = atoi(line + 12);
        } else if (strncmp(line, "StartTime: ", 11) == 0) {
            cur.start = strtod(line + 11, NULL);
        } else if (strncmp(line, "EndTime: ", 9) == 0) {
            cur.end = strtod(line + 9, NULL);
        }
    }
    free(text);
}

static int cmp_jobid(const void *a, const void *b)
{
    return strcmp(((const trec *)a)->jobid, ((const trec *)b)->jobid);
}

static const trec *find_job(const tset *ts, const char *id)
{
    trec key;
    snprintf(key.jobid, sizeof key.jobid, "%s", id);
    return bsearch(&key, ts->v, ts->n, sizeof *ts->v, cmp_jobid);
}

static size_t count_name(const tset *ts, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < ts->n; i++)
        c += strcmp(ts->v[i].name, name) == 0;
    return c;
}

/* Rank encoded in a JobId ("<rank>_<n>"), or -1 without prefix. */
static int job_rank(const char *id)
{
    const char *u = strchr(id, '_');
    return u ? atoi(id) : -1;
}

static size_t count_substr(const char *text, const char *needle)
{
    size_t c = 0, n = strlen(needle);
    for (const char *p = strstr(text, needle); p; p = strstr(p + n, needle))
        c++;
    return c;
}

/* Counts paje.trace lines whose first field is `id`. */
static size_t count_paje(const char *text, const char *id)
{
    size_t c = 0, n = strlen(id);
    for (const char *p = text; *p;) {
        if (strncmp(p, id, n) == 0 && p[n] == '\t')
            c++;
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return c;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_task_count_formula(void **state)
{
    (void)state;
    assert_int_equal(chol_task_count(1), 2);
    assert_int_equal(chol_task_count(4), 10 + 4 + 6 + 6 + 4);
    uint64_t T = 180;
    assert_int_equal(chol_task_count(180), T * (T + 1) / 2 + T + T * (T - 1) + T * (T - 1) * (T - 2) / 6);
}

static void check_counts(const char *dir, int T, int nodes)
{
    tset ts;
    load_tasks(dir, &ts);
    size_t t = (size_t)T;
    assert_int_equal(count_name(&ts, "dplgsy"), t * (t + 1) / 2);
    assert_int_equal(count_name(&ts, "dpotrf"), t);
    assert_int_equal(count_name(&ts, "dtrsm"), t * (t - 1) / 2);
    assert_int_equal(count_name(&ts, "dsyrk"), t * (t - 1) / 2);
    assert_int_equal(count_name(&ts, "dgemm"), t * (t - 1) * (t - 2) / 6);
    assert_int_equal(ts.n, chol_task_count(T));
    /* JobIds are 1..n once each; the prefix is the rank in multi-node runs */
    char *seen = calloc(ts.n + 1, 1);
    for (size_t i = 0; i < ts.n; i++) {
        const char *id = ts.v[i].jobid;
        const char *u = strchr(id, '_');
        if (nodes > 1) {
            assert_non_null(u);
            assert_int_equal(job_rank(id), ts.v[i].rank);
            assert_true(ts.v[i].rank >= 0 && ts.v[i].rank < nodes);
        } else {
            assert_null(u);
            assert_int_equal(ts.v[i].rank, -1);
        }
        long n = atol(u ? u + 1 : id);
        assert_true(n >= 1 && (size_t)n <= ts.n);
        assert_int_equal(seen[n], 0);
        seen[n] = 1;
    }
    free(seen);
    free(ts.v);
}

static void test_counts(void **state)
{
    (void)state;
    char *d1 = make_tmpdir(), *d2 = make_tmpdir();
    assert_int_equal(generate(d1, "--tiles", "6", "--nodes", "1", "--cpus", "3", NULL), 0);
    check_counts(d1, 6, 1);
    assert_int_equal(generate(d2, "--tiles", "9", "--nodes", "4", "--gpus", "2", NULL), 0);
    check_counts(d2, 9, 4);
    rm_rf(d1);
    rm_rf(d2);
    free(d1);
    free(d2);
}

static int cmp_worker_start(const void *a, const void *b)
{
    const trec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->worker != y->worker)
        return x->worker - y->worker;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Every dependency ends before its successor starts; no worker runs two
 * tasks at once. Returns the number of dependencies seen. */
static size_t check_schedule(const char *dir, size_t *cross)
{
    tset ts;
    load_tasks(dir, &ts);
    qsort(ts.v, ts.n, sizeof *ts.v, cmp_jobid);
    size_t ndeps = 0;
    *cross = 0;
    for (size_t i = 0; i < ts.n; i++) {
        const trec *t = &ts.v[i];
        assert_true(t->end > t->start);
        char deps[128];
        snprintf(deps, sizeof deps, "%s", t->deps);
        char *save = NULL;
        for (char *d = strtok_r(deps, " ", &save); d; d = strtok_r(NULL, " ", &save)) {
            const trec *p = find_job(&ts, d);
            if (!p)
                fail_msg("%s depends on unknown %s", t->jobid, d);
            if (t->start < p->end)
                fail_msg("%s starts at %f before %s ends at %f", t->jobid, t->start, d, p->end);
            ndeps++;
            *cross += job_rank(d) != job_rank(t->jobid);
        }
    }
    qsort(ts.v, ts.n, sizeof *ts.v, cmp_worker_start);
    for (size_t i = 1; i < ts.n; i++) {
        const trec *a = &ts.v[i - 1], *b = &ts.v[i];
        if (a->rank == b->rank && a->worker == b->worker && b->start < a->end)
            fail_msg("worker %d_%d runs %s and %s at once", a->rank, a->worker, a->jobid, b->jobid);
    }
    free(ts.v);
    return ndeps;
}

static void test_schedule_consistency(void **state)
{
    (void)state;
    char *d = make_tmpdir();
    assert_int_equal(generate(d, "--tiles", "10", "--nodes", "6", "--cpus", "3", "--gpus", "1",
                              "--fewer-workers", "2:1:0,5:0:1", "--slow-nodes", "1,3:1.5", NULL),
                     0);
    size_t cross;
    size_t ndeps = check_schedule(d, &cross);
    /* potrf 1 + trsm 2 + syrk 2 + gemm 3 predecessors each */
    size_t T = 10;
    assert_int_equal(ndeps, T + 4 * (T * (T - 1) / 2) + 3 * (T * (T - 1) * (T - 2) / 6));
    assert_true(cross > 0);
    /* node 5 has only a GPU, node 2 only one CPU: all its tasks on worker 0 */
    tset ts;
    load_tasks(d, &ts);
    size_t on5 = 0;
    for (size_t i = 0; i < ts.n; i++) {
        if (ts.v[i].rank == 2 || ts.v[i].rank == 5)
            assert_int_equal(ts.v[i].worker, 0);
        if (ts.v[i].rank == 5) {
            assert_int_equal(ts.v[i].memnode, 1);
            on5++;
        }
    }
    assert_true(on5 > 0);
    free(ts.v);
    rm_rf(d);
    free(d);
}

static void test_manifest_matches_files(void **state)
{
    (void)state;
    char *d = make_tmpdir();
    assert_int_equal(generate(d, "--tiles", "8", "--nodes", "3", "--gpus", "1", "--seed", "7", NULL), 0);
    json_t *m = load_manifest(d);
    assert_true(json_is_true(json_object_get(m, "simulated")));
    assert_string_equal(json_string_value(json_object_get(m, "time_unit")), "ms");
    tset ts;
    load_tasks(d, &ts);
    assert_int_equal(jint(m, "tasks", "total"), (long long)ts.n);
    json_t *tasks = json_object_get(m, "tasks");
    const char *kinds[] = {"dplgsy", "dpotrf", "dtrsm", "dsyrk", "dgemm"};
    for (int k = 0; k < 5; k++)
        assert_int_equal(jint(tasks, "by_type", kinds[k]), (long long)count_name(&ts, kinds[k]));
    json_t *by_node = json_object_get(tasks, "by_node");
    assert_int_equal(json_array_size(by_node), 3);
    long long per_node[3] = {0, 0, 0}, gpu = 0, cpu = 0;
    double first = 1e300, last = -1;
    for (size_t i = 0; i < ts.n; i++) {
        per_node[ts.v[i].rank]++;
        if (ts.v[i].memnode > 0)
            gpu++;
        else
            cpu++;
        if (ts.v[i].start < first)
            first = ts.v[i].start;
        if (ts.v[i].end > last)
            last = ts.v[i].end;
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(json_integer_value(json_array_get(by_node, (size_t)i)), per_node[i]);
    assert_int_equal(jint(tasks, "by_resource", "CPU"), cpu);
    assert_int_equal(jint(tasks, "by_resource", "CUDA"), gpu);
    assert_true(gpu > 0 && cpu > 0);
    double makespan = json_real_value(json_object_get(m, "makespan_ms"));
    assert_true(fabs(makespan - (last - first)) < 2.5e-6);
    assert_true(fabs(json_real_value(json_object_get(m, "last_end_ms")) - last) < 1e-9);

    size_t cross;
    size_t ndeps = check_schedule(d, &cross);
    assert_int_equal(jint(m, "dependencies", "total"), (long long)ndeps);
    assert_int_equal(jint(m, "dependencies", "cross_node"), (long long)cross);

    char *dag = slurp(d, "dag.dot", NULL);
    char *comms = slurp(d, "comms.rec", NULL);
    assert_non_null(dag);
    assert_non_null(comms);
    assert_true(strncmp(dag, "digraph G {", 11) == 0);
    size_t task_task = 0, mpi_in = 0, task_mpi = 0;
    for (const char *p = strstr(dag, "\t \""); p; p = strstr(p + 1, "\t \"")) {
        if (strncmp(p, "\t \"task_", 8) == 0 && strstr(p, "\"->\"task_") &&
            strstr(p, "\"->\"task_") < strchr(p, '\n'))
            task_task++;
        else if (strncmp(p, "\t \"mpi_", 7) == 0)
            mpi_in++;
        else if (strstr(p, "\"->\"mpi_") && strstr(p, "\"->\"mpi_") < strchr(p, '\n'))
            task_mpi++;
    }
    assert_int_equal(task_task, (size_t)jint(m, "dependencies", "intra_node"));
    assert_int_equal(mpi_in, cross);
    assert_int_equal(task_mpi, count_substr(comms, "\nSrc: ") + (strncmp(comms, "Src: ", 5) == 0));
    assert_int_equal(task_mpi, (size_t)jint(m, "transfers", "mpi"));
    assert_int_equal(count_substr(dag, "[ style=filled"), ts.n);

    size_t plen;
    char *paje = slurp(d, "paje.trace", &plen);
    assert_non_null(paje);
    size_t lines = 0;
    for (size_t i = 0; i < plen; i++)
        lines += paje[i] == '\n';
    assert_int_equal(jint(m, "paje", "lines"), (long long)lines);
    assert_int_equal(jint(m, "paje", "states"),
                     (long long)(count_paje(paje, "10") + count_paje(paje, "11") + count_paje(paje, "20")));
    assert_int_equal(jint(m, "paje", "variable_updates"), (long long)count_paje(paje, "13"));
    assert_int_equal(jint(m, "paje", "links"), (long long)count_paje(paje, "19"));
    assert_int_equal(count_paje(paje, "18") + count_paje(paje, "23") + count_paje(paje, "24"),
                     count_paje(paje, "19"));
    assert_int_equal(count_paje(paje, "23"), task_mpi);
    assert_int_equal(count_paje(paje, "24"), (size_t)jint(m, "transfers", "intra_node"));
    assert_int_equal(jint(m, "paje", "events"), (long long)count_paje(paje, "9"));
    assert_int_equal(jint(m, "paje", "containers"), (long long)count_paje(paje, "7"));
    /* one executing state with StarPU's user fields per task */
    assert_int_equal(count_paje(paje, "20"), ts.n);
    assert_non_null(strstr(paje, "# ariadne simulated trace:"));
    assert_non_null(strstr(paje, "%EventDef PajeSetState 20\n"));
    assert_non_null(strstr(paje, "%\tJobId\tstring\n%\tSubmitOrder\tstring\n%\tGFlop\tstring\n"));
    assert_non_null(strstr(paje, "\t0_CPU0\n"));
    assert_non_null(strstr(paje, "\t2_CUDA0_0\n"));
    assert_non_null(strstr(paje, "\t1_MEMNODE1\n"));
    char *readme = slurp(d, "README.txt", NULL);
    assert_non_null(readme);
    assert_non_null(strstr(readme, "SIMULATED"));
    char *data = slurp(d, "data.rec", NULL);
    assert_non_null(data);
    /* every tile is registered on its owner, with its MPI tag */
    assert_true(count_substr(data, "HomeNode: 0\n") == 8 * 9 / 2);
    free(readme);
    free(data);
    free(paje);
    free(dag);
    free(comms);
    free(ts.v);
    json_decref(m);
    rm_rf(d);
    free(d);
}

static int same_file(const char *a, const char *b, const char *name)
{
    size_t la, lb;
    char *x = slurp(a, name, &la), *y = slurp(b, name, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static void test_determinism(void **state)
{
    (void)state;
    char *a = make_tmpdir(), *b = make_tmpdir(), *c = make_tmpdir();
    assert_int_equal(generate(a, "--tiles", "9", "--nodes", "2", "--seed", "42", NULL), 0);
    assert_int_equal(generate(b, "--tiles", "9", "--nodes", "2", "--seed", "42", NULL), 0);
    assert_int_equal(generate(c, "--tiles", "9", "--nodes", "2", "--seed", "43", NULL), 0);
    const char *files[] = {"paje.trace", "tasks.rec", "dag.dot", "data.rec", "comms.rec"};
    for (int i = 0; i < 5; i++)
        assert_true(same_file(a, b, files[i]));
    assert_false(same_file(a, c, "paje.trace"));
    assert_false(same_file(a, c, "tasks.rec"));
    rm_rf(a);
    rm_rf(b);
    rm_rf(c);
    free(a);
    free(b);
    free(c);
}

/* Number of times the body time goes backwards (lines with a Time field). */
static size_t backsteps(const char *text)
{
    static const char *timed[] = {"7", "8", "9", "10", "11", "12", "13", "19", "20", "23", "24"};
    double last = -1;
    size_t back = 0;
    for (const char *p = text; *p;) {
        const char *tab = strchr(p, '\t');
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        if (tab && tab < nl && *p != '%' && *p != '#') {
            for (size_t i = 0; i < sizeof timed / sizeof *timed; i++) {
                size_t n = strlen(timed[i]);
                if ((size_t)(tab - p) == n && strncmp(p, timed[i], n) == 0) {
                    double t = strtod(tab + 1, NULL);
                    if (t < last)
                        back++;
                    if (t > last)
                        last = t;
                    break;
                }
            }
        }
        p = nl + 1;
    }
    return back;
}

static void test_time_order(void **state)
{
    (void)state;
    char *u = make_tmpdir(), *s = make_tmpdir();
    assert_int_equal(generate(u, "--tiles", "10", "--nodes", "2", NULL), 0);
    assert_int_equal(generate(s, "--tiles", "10", "--nodes", "2", "--sorted", NULL), 0);
    char *pu = slurp(u, "paje.trace", NULL), *ps = slurp(s, "paje.trace", NULL);
    assert_true(backsteps(pu) > 0);
    assert_int_equal(backsteps(ps), 0);
    /* same simulation, same records */
    assert_true(same_file(u, s, "tasks.rec"));
    assert_int_equal(count_paje(pu, "20"), count_paje(ps, "20"));
    free(pu);
    free(ps);
    rm_rf(u);
    rm_rf(s);
    free(u);
    free(s);
}

static int run_shell(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static size_t count_dump_rows(const char *dir, const char *name, const char *nature)
{
    char *dump = slurp(dir, name, NULL);
    assert_non_null(dump);
    char needle[32];
    snprintf(needle, sizeof needle, "\n%s,", nature);
    size_t c = count_substr(dump, needle) + (strncmp(dump, needle + 1, strlen(needle + 1)) == 0);
    free(dump);
    return c;
}

static void test_pj_dump(void **state)
{
    (void)state;
    if (access("/usr/bin/pj_dump", X_OK) != 0) {
        skip();
        return;
    }
    char *u = make_tmpdir(), *s = make_tmpdir();
    assert_int_equal(generate(u, "--tiles", "7", "--nodes", "3", "--gpus", "2", NULL), 0);
    assert_int_equal(generate(s, "--tiles", "7", "--nodes", "3", "--gpus", "2", "--sorted", NULL), 0);
    char cmd[4096];
    /* as starpu_paje_sort: definitions and creations first, then the rest
     * sorted with sort -s -V -k2,2 */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { grep -E '^(%%|(1|2|3|4|5|6|7|14)[[:space:]])' paje.trace; "
             "grep -v -E '^(%%|(1|2|3|4|5|6|7|14)[[:space:]])' paje.trace | sort -s -V -k2,2; } "
             "> sorted.trace && pj_dump -u sorted.trace > dump.csv 2> dump.err",
             u);
    assert_int_equal(run_shell(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && pj_dump -u paje.trace > dump.csv 2> dump.err", s);
    assert_int_equal(run_shell(cmd), 0);
    /* the unsorted file itself is refused, as real StarPU traces are */
    snprintf(cmd, sizeof cmd, "cd '%s' && pj_dump paje.trace > /dev/null 2>&1", u);
    assert_int_not_equal(run_shell(cmd), 0);
    json_t *mu = load_manifest(u), *ms = load_manifest(s);
    assert_int_equal(count_dump_rows(u, "dump.csv", "State"), (size_t)jint(mu, "paje", "states"));
    assert_int_equal(count_dump_rows(s, "dump.csv", "State"), (size_t)jint(ms, "paje", "states"));
    assert_int_equal(count_dump_rows(u, "dump.csv", "Link"), (size_t)jint(mu, "paje", "links"));
    assert_int_equal(count_dump_rows(s, "dump.csv", "Event"), (size_t)jint(ms, "paje", "events"));
    json_decref(mu);
    json_decref(ms);
    rm_rf(u);
    rm_rf(s);
    free(u);
    free(s);
}

static void test_bad_options(void **state)
{
    (void)state;
    char *d = make_tmpdir();
    assert_int_equal(generate(NULL, "--tiles", "4", NULL), 2);
    assert_int_equal(generate(d, "--tiles", "0", NULL), 2);
    assert_int_equal(generate(d, "--tiles", "abc", NULL), 2);
    assert_int_equal(generate(d, "--tiles", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "-3", NULL), 2);
    assert_int_equal(generate(d, "--bogus", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "2", "--fewer-workers", "5:1", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "2", "--fewer-workers", "1", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "2", "--fewer-workers", "1:0:0", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "2", "--slow-nodes", "1:0", NULL), 2);
    assert_int_equal(generate(d, "--nodes", "2", "--slow-nodes", ",", NULL), 2);
    assert_int_equal(generate(d, "--seed", "-1", NULL), 2);
    assert_int_equal(generate(NULL, "--help", NULL), 0);
    /* an output path that is a file */
    char file[1024];
    snprintf(file, sizeof file, "%s/plain", d);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(generate(file, "--tiles", "3", NULL), 1);
    /* nested directories are created */
    char nested[1024];
    snprintf(nested, sizeof nested, "%s/a/b", d);
    assert_int_equal(generate(nested, "--tiles", "3", "--nodes", "1", "--gpus", "0", "--block-size=64", NULL), 0);
    check_counts(nested, 3, 1);
    rm_rf(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_count_formula),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_schedule_consistency),
        cmocka_unit_test(test_manifest_matches_files),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_time_order),
        cmocka_unit_test(test_pj_dump),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
