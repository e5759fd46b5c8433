/* test_hpctoolkit_db.c: the HPCToolkit 4.x database reader
 * (ingest/hpctoolkit_db.c) as a profile and as an event trace: on the
 * tiny database that tests/fixtures/hpctoolkit_db/make_tiny.py writes
 * (values known by construction), on Pipit's ping-pong database when the
 * shared data is there (Pipit's asserted values from its hpctoolkit.py,
 * and totals decoded by hand from profile.db's bytes), and on bad input
 * (truncated files, a wrong magic, offsets past the end: clear errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* clang-format off: cmocka.h needs the three above first */
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cct_ops.h"
#include "analysis/supergraph.h"
#include "import/import.h"
#include "ingest/hpctoolkit_db.h"
#include "store/profile_queries.h"
#include "test_event_sink.h"
#include "test_helpers.h"

#define TINY "tests/fixtures/hpctoolkit_db/tiny"

/* ---- a recording profile sink ---- */

#define PS_MAX 512

typedef struct ps_node {
    int64_t id, parent;
    char name[256], kind[32], file[128];
    int line;
} ps_node;

typedef struct ps_sink {
    char metric[8][64];
    int inclusive[8], nmetrics;
    int64_t rank[16], thread[16];
    int nprocs;
    ps_node nodes[PS_MAX];
    int nnodes;
    double v[8][PS_MAX][16]; /* metric, node id, proc */
    char time_unit[16];
} ps_sink;

static int ps_metric(void *ctx, const ari_profile_metric *m, int *index)
{
    ps_sink *s = ctx;
    for (int i = 0; i < s->nmetrics; i++)
        if (strcmp(s->metric[i], m->name) == 0)
            return *index = i, 0;
    if (s->nmetrics == 8)
        return -1;
    snprintf(s->metric[s->nmetrics], sizeof s->metric[0], "%s", m->name);
    s->inclusive[s->nmetrics] = m->inclusive;
    *index = s->nmetrics++;
    return 0;
}

static int ps_proc(void *ctx, int64_t rank, int64_t thread, int *index)
{
    ps_sink *s = ctx;
    for (int i = 0; i < s->nprocs; i++)
        if (s->rank[i] == rank && s->thread[i] == thread)
            return *index = i, 0;
    if (s->nprocs == 16)
        return -1;
    s->rank[s->nprocs] = rank;
    s->thread[s->nprocs] = thread;
    *index = s->nprocs++;
    return 0;
}

static int ps_node_cb(void *ctx, const ari_profile_node *n)
{
    ps_sink *s = ctx;
    if (s->nnodes == PS_MAX || n->id < 0 || n->id >= PS_MAX)
        return -1;
    ps_node *d = &s->nodes[s->nnodes++];
    d->id = n->id;
    d->parent = n->parent;
    snprintf(d->name, sizeof d->name, "%s", n->name);
    snprintf(d->kind, sizeof d->kind, "%s", n->kind ? n->kind : "function");
    snprintf(d->file, sizeof d->file, "%s", n->file ? n->file : "");
    d->line = n->line;
    return 0;
}

static int ps_value(void *ctx, int metric, int64_t node, int proc, double v)
{
    ps_sink *s = ctx;
    if (metric < 0 || metric >= s->nmetrics || node < 0 || node >= PS_MAX || proc < 0 || proc >= s->nprocs)
        return -1;
    s->v[metric][node][proc] += v;
    return 0;
}

static int ps_meta(void *ctx, const char *key, const char *json_value)
{
    (void)ctx, (void)key, (void)json_value;
    return 0;
}

static int ps_time_unit(void *ctx, const char *unit, const char *source)
{
    ps_sink *s = ctx;
    (void)source;
    snprintf(s->time_unit, sizeof s->time_unit, "%s", unit);
    return 0;
}

static ari_profile_sink ps_of(ps_sink *s)
{
    return (ari_profile_sink){s, ps_metric, ps_proc, ps_node_cb, ps_value, ps_meta, NULL, ps_time_unit};
}

static int ps_find_metric(const ps_sink *s, const char *name)
{
    for (int i = 0; i < s->nmetrics; i++)
        if (strcmp(s->metric[i], name) == 0)
            return i;
    return -1;
}

static int ps_find_proc(const ps_sink *s, int64_t rank, int64_t thread)
{
    for (int i = 0; i < s->nprocs; i++)
        if (s->rank[i] == rank && s->thread[i] == thread)
            return i;
    return -1;
}

static const ps_node *ps_find_node(const ps_sink *s, const char *name)
{
    for (int i = 0; i < s->nnodes; i++)
        if (strcmp(s->nodes[i].name, name) == 0)
            return &s->nodes[i];
    return NULL;
}

/* The exclusive value of a node as the profile writer derives it: its
 * inclusive value less its children's. */
static double ps_exclusive(const ps_sink *s, int inc, int64_t id, int proc)
{
    double v = s->v[inc][id][proc];
    for (int j = 0; j < s->nnodes; j++)
        if (s->nodes[j].parent == id)
            v -= s->v[inc][s->nodes[j].id][proc];
    return v;
}

/* The derived exclusive values of a proc: their sum; *min gets the least. */
static double ps_total(const ps_sink *s, int inc, int proc, double *min)
{
    double t = 0;
    *min = INFINITY;
    for (int i = 0; i < s->nnodes; i++) {
        double e = ps_exclusive(s, inc, s->nodes[i].id, proc);
        t += e;
        *min = e < *min ? e : *min;
    }
    return t;
}

static ps_sink *read_profile(const char *dir, ari_error *err, int *rc)
{
    char meta[4096], prof[4096];
    snprintf(meta, sizeof meta, "%s/meta.db", dir);
    snprintf(prof, sizeof prof, "%s/profile.db", dir);
    ps_sink *s = calloc(1, sizeof *s);
    assert_non_null(s);
    ari_profile_sink k = ps_of(s);
    *rc = ari_hpctoolkit_db_read(meta, "meta.db", prof, "profile.db", &k, err);
    return s;
}

/* ---- files in memory ---- */

typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

static blob slurp(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    blob b = {malloc(1 << 20), 0};
    assert_non_null(b.p);
    b.n = fread(b.p, 1, 1 << 20, f);
    fclose(f);
    return b;
}

static const char *pingpong_dir(void)
{
    static char dir[4096];
    const char *d = getenv("ARIADNE_SHARED_DATA");
    snprintf(dir, sizeof dir, "%s/pipit/pipit/tests/data/ping-pong-hpctoolkit", d ? d : "../shared/data");
    FILE *f = fopen(strcat(strcpy((char[4200]){0}, dir), "/trace.db"), "rb");
    if (!f)
        return NULL;
    fclose(f);
    return dir;
}

/* ---- the tiny database ---- */

static void test_tiny_profile(void **state)
{
    (void)state;
    ari_error err = {0};
    int rc;
    ps_sink *s = read_profile(TINY, &err, &rc);
    assert_int_equal(rc, 0);
    /* 7 contexts, the instruction folded into work */
    assert_int_equal(s->nnodes, 6);
    const char *names[] = {"main thread", "main", "Loop@app.c:12", "app.c:13", "work", "app.c:21"};
    const char *kinds[] = {"entry", "function", "loop", "statement", "function", "statement"};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(s->nodes[i].name, names[i]);
        assert_string_equal(s->nodes[i].kind, kinds[i]);
        assert_int_equal(s->nodes[i].parent, i == 0 ? -1 : s->nodes[i - 1].id);
    }
    assert_int_equal(ps_find_node(s, "main")->line, 10); /* from the function */
    assert_string_equal(s->time_unit, "s");
    /* only the inclusive metric: the writer derives "time" */
    assert_int_equal(s->nmetrics, 1);
    int inc = ps_find_metric(s, "time (inc)");
    assert_true(inc >= 0);
    assert_true(s->inclusive[inc]);
    assert_int_equal(s->nprocs, 2);
    int r0 = ps_find_proc(s, 0, 0), r1 = ps_find_proc(s, 1, 0);
    assert_true(r0 >= 0 && r1 >= 0);
    int64_t work = ps_find_node(s, "work")->id;
    assert_true(fabs(s->v[inc][work][r0] - 4.0) < 1e-12); /* the instruction's value is not added again */
    assert_true(fabs(ps_exclusive(s, inc, work, r0) - 1.0) < 1e-12);
    double min;
    assert_true(fabs(ps_total(s, inc, r0, &min) - 4.75) < 1e-12);
    assert_true(min >= 0);
    assert_true(fabs(ps_total(s, inc, r1, &min) - 2.0) < 1e-12);
    assert_true(min >= 0);
    free(s);
}

static const char *region_name(const tes_sink *s, const tes_event *e)
{
    (void)s;
    return e->name;
}

static void test_tiny_trace(void **state)
{
    (void)state;
    tes_sink s;
    tes_init(&s);
    ari_event_sink k = tes_sink_of(&s);
    ari_error err = {0};
    assert_int_equal(ari_hpctoolkit_db_trace(TINY, &k, &err), 0);
    assert_int_equal(s.backwards, 0);
    assert_int_equal(s.bad_handles, 0);
    assert_int_equal(s.n_procs, 2);
    /* rank 0: enter main thread, main @0; loop, work @100; leave all @300;
     * enter main thread, main, loop @400; leave them @1000 */
    static const struct {
        double t;
        tes_type type;
        const char *name;
    } want[] = {{0, TES_ENTER, "main thread"},     {0, TES_ENTER, "main"},
                {100, TES_ENTER, "Loop@app.c:12"}, {100, TES_ENTER, "work"},
                {300, TES_LEAVE, "work"},          {300, TES_LEAVE, "Loop@app.c:12"},
                {300, TES_LEAVE, "main"},          {300, TES_LEAVE, "main thread"},
                {400, TES_ENTER, "main thread"},   {400, TES_ENTER, "main"},
                {400, TES_ENTER, "Loop@app.c:12"}, {1000, TES_LEAVE, "Loop@app.c:12"},
                {1000, TES_LEAVE, "main"},         {1000, TES_LEAVE, "main thread"}};
    size_t n0 = 0;
    for (size_t i = 0; i < s.n_events; i++) {
        const tes_event *e = &s.events[i];
        if (e->process != 0)
            continue;
        assert_true(n0 < sizeof want / sizeof want[0]);
        assert_true(fabs(e->time - want[n0].t) < 1e-9);
        assert_int_equal(e->type, want[n0].type);
        assert_string_equal(region_name(&s, e), want[n0].name);
        n0++;
    }
    assert_int_equal(n0, sizeof want / sizeof want[0]);
    assert_int_equal(tes_count_process(&s, 1), 4); /* main thread, main @500 .. @1000 */
    assert_string_equal(tes_note_value(&s, "hpctoolkit_min_timestamp_ns"), "1000");
    tes_free(&s);
}

/* The reader stops when the sink refuses. */
static void test_tiny_trace_sink_stops(void **state)
{
    (void)state;
    for (int at = 1; at <= 12; at++) {
        tes_sink s;
        tes_init(&s);
        s.fail_at = at;
        ari_event_sink k = tes_sink_of(&s);
        ari_error err = {0};
        assert_int_equal(ari_hpctoolkit_db_trace(TINY, &k, &err), -1);
        assert_true(err.message[0] != '\0');
        tes_free(&s);
    }
}

/* ---- bad input ---- */

static int read_mem(const blob *m, const blob *p, const blob *t, ari_error *err)
{
    ps_sink *s = calloc(1, sizeof *s);
    assert_non_null(s);
    ari_profile_sink k = ps_of(s);
    tes_sink ts;
    tes_init(&ts);
    ari_event_sink ek = tes_sink_of(&ts);
    int rc = ari_hpctoolkit_db_read_mem(m->p, m->n, p->p, p->n, t ? t->p : NULL, t ? t->n : 0, &k,
                                        t ? &ek : NULL, err);
    tes_free(&ts);
    free(s);
    return rc;
}

static void expect_error(const blob *m, const blob *p, const blob *t, const char *file, const char *words)
{
    ari_error err = {0};
    assert_int_equal(read_mem(m, p, t, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    if (strncmp(err.message, file, strlen(file)) != 0 || (words && !strstr(err.message, words)))
        fail_msg("unexpected message: %s", err.message);
}

static void test_bad_input(void **state)
{
    (void)state;
    blob m = slurp(TINY, "meta.db"), p = slurp(TINY, "profile.db"), t = slurp(TINY, "trace.db");
    ari_error err = {0};
    assert_int_equal(read_mem(&m, &p, &t, &err), 0);
    /* every truncation of each file: an error, never a crash */
    for (size_t cut = 0; cut < m.n - 8; cut++) {
        blob c = {m.p, cut};
        memset(&err, 0, sizeof err);
        assert_int_equal(read_mem(&c, &p, &t, &err), -1);
        assert_true(strncmp(err.message, "meta.db: ", 9) == 0);
    }
    for (size_t cut = 0; cut < p.n - 8; cut++) {
        blob c = {p.p, cut};
        assert_int_equal(read_mem(&m, &c, &t, &err), -1);
    }
    for (size_t cut = 0; cut < t.n - 8; cut++) {
        blob c = {t.p, cut};
        assert_int_equal(read_mem(&m, &p, &c, &err), -1);
    }
    expect_error(&(blob){m.p, 100}, &p, &t, "meta.db", "truncated header");
    /* wrong magic, wrong format */
    m.p[0] = 'X';
    expect_error(&m, &p, &t, "meta.db", "wrong magic");
    m.p[0] = 'H';
    expect_error(&p, &p, &t, "meta.db", "format \"prof\"");
    /* a section pointer past the end */
    unsigned char save[8];
    memcpy(save, m.p + 0x48, 8); /* the context tree's pointer */
    memset(m.p + 0x48, 0x7f, 8);
    expect_error(&m, &p, &t, "meta.db", "runs past the end");
    memcpy(m.p + 0x48, save, 8);
    /* a trace line past the end */
    uint64_t tp;
    memcpy(&tp, t.p + 0x18, 8); /* the trace headers section */
    uint64_t th;
    memcpy(&th, t.p + tp, 8);
    memcpy(save, t.p + th + 0x10, 8);
    memset(t.p + th + 0x10, 0x7f, 8);
    expect_error(&m, &p, &t, "trace.db", NULL);
    memcpy(t.p + th + 0x10, save, 8);
    /* a sample naming a context meta.db does not have */
    uint64_t start;
    memcpy(&start, t.p + th + 8, 8);
    t.p[start + 8] = 99;
    expect_error(&m, &p, &t, "trace.db", "context 99");
    free(m.p);
    free(p.p);
    free(t.p);
}

/* The fuzz seeds and finds (u32 meta length, u32 profile length, meta.db,
 * profile.db, trace.db) read without a crash; the whole tiny one cleanly. */
static void test_fuzz_inputs(void **state)
{
    (void)state;
    const char *dir = "tests/fixtures/fuzz/hpctoolkit_db";
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        blob b = slurp(dir, e->d_name);
        assert_true(b.n >= 8);
        size_t mn = b.p[0] | (size_t)b.p[1] << 8 | (size_t)b.p[2] << 16 | (size_t)b.p[3] << 24;
        size_t pn = b.p[4] | (size_t)b.p[5] << 8 | (size_t)b.p[6] << 16 | (size_t)b.p[7] << 24;
        size_t left = b.n - 8;
        mn = mn > left ? left : mn;
        pn = pn > left - mn ? left - mn : pn;
        blob m = {b.p + 8, mn}, p = {b.p + 8 + mn, pn}, t = {b.p + 8 + mn + pn, left - mn - pn};
        ari_error err = {0};
        int rc = read_mem(&m, &p, &t, &err);
        if (strcmp(e->d_name, "tiny") == 0)
            assert_int_equal(rc, 0);
        else if (rc != 0)
            assert_true(err.message[0] != '\0');
        free(b.p);
        n++;
    }
    closedir(d);
    assert_true(n >= 3);
}

/* The files' own names in messages; a missing file is an I/O error. */
static void test_missing_file(void **state)
{
    (void)state;
    tes_sink s;
    tes_init(&s);
    ari_event_sink k = tes_sink_of(&s);
    ari_error err = {0};
    assert_int_equal(ari_hpctoolkit_db_trace("tests/fixtures/hpctoolkit_db", &k, &err), -1);
    assert_string_equal(err.code, ARI_E_IO);
    assert_non_null(strstr(err.message, "meta.db"));
    tes_free(&s);
    ps_sink *ps = calloc(1, sizeof *ps);
    ari_profile_sink pk = ps_of(ps);
    assert_int_equal(ari_hpctoolkit_db_read(TINY "/profile.db", "run/profile.db", TINY "/profile.db",
                                            "run/profile.db", &pk, &err),
                     -1);
    assert_non_null(strstr(err.message, "run/profile.db: format"));
    free(ps);
}

/* ---- Pipit's ping-pong database ---- */

static void test_pingpong_profile(void **state)
{
    (void)state;
    const char *dir = pingpong_dir();
    if (!dir) {
        fprintf(stderr, "ping-pong-hpctoolkit not found: skipped\n");
        skip();
    }
    ari_error err = {0};
    int rc;
    ps_sink *s = read_profile(dir, &err, &rc);
    if (rc != 0)
        fail_msg("%s", err.message);
    /* 117 contexts in meta.db's tree (1 entry point, 44 functions, 15 loops,
     * 57 lines, no instructions), counted by hand from the bytes */
    assert_int_equal(s->nnodes, 117);
    assert_int_equal(s->nprocs, 2);
    assert_non_null(ps_find_node(s, "main"));
    assert_non_null(ps_find_node(s, "main thread"));
    assert_non_null(ps_find_node(s, "PMPI_Send [libmpi.so.12.1.1]"));
    assert_non_null(ps_find_node(s, "PMPI_Recv [libmpi.so.12.1.1]"));
    int inc = ps_find_metric(s, "time (inc)");
    assert_true(inc >= 0);
    /* profile.db's global context (id 0) holds each profile's execution
     * total: 0.131009 s for rank 0, 0.131061 s for rank 1 (decoded by hand);
     * the tree's exclusive values add up to it, none negative */
    int r0 = ps_find_proc(s, 0, 0), r1 = ps_find_proc(s, 1, 0);
    assert_true(r0 >= 0 && r1 >= 0);
    double min;
    assert_true(fabs(ps_total(s, inc, r0, &min) - 0.131009) < 1e-9);
    assert_true(min > -1e-12);
    assert_true(fabs(ps_total(s, inc, r1, &min) - 0.131061) < 1e-9);
    assert_true(min > -1e-12);
    const ps_node *root = ps_find_node(s, "main thread");
    assert_true(fabs(s->v[inc][root->id][r0] - 0.131009) < 1e-9);
    double send = 0;
    for (int i = 0; i < s->nnodes; i++)
        if (strcmp(s->nodes[i].name, "PMPI_Send [libmpi.so.12.1.1]") == 0)
            send += s->v[inc][s->nodes[i].id][r0];
    /* PMPI_Send's contexts (ids 44 and 92) on rank 0 (profile 2), metric id
     * 3 ("execution"), decoded by hand from profile.db: 0.052212 s */
    assert_true(fabs(send - 0.052212) < 1e-9);
    free(s);
}

static int is_loop(const tes_sink *s, const tes_event *e)
{
    return e->region >= 0 && s->regions[e->region].role && strcmp(s->regions[e->region].role, "loop") == 0;
}

static size_t count_enter(const tes_sink *s, int64_t rank, tes_type type, const char *contains)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++) {
        const tes_event *e = &s->events[i];
        if (e->process == rank && e->type == type && !is_loop(s, e) &&
            (!contains || strstr(e->name, contains)))
            n++;
    }
    return n;
}

static void test_pingpong_trace(void **state)
{
    (void)state;
    const char *dir = pingpong_dir();
    if (!dir) {
        fprintf(stderr, "ping-pong-hpctoolkit not found: skipped\n");
        skip();
    }
    tes_sink s;
    tes_init(&s);
    ari_event_sink k = tes_sink_of(&s);
    ari_error err = {0};
    if (ari_hpctoolkit_db_trace(dir, &k, &err) != 0)
        fail_msg("%s", err.message);
    tes_sort(&s);
    assert_int_equal(s.backwards, 0);
    assert_int_equal(s.bad_handles, 0);
    /* Pipit's hpctoolkit.py: processes {0, 1}; 117 and 88 Enter events
     * (loops are "Loop Enter" there); as many Leave; 7 PMPI_Send and 7
     * PMPI_Recv Enters per process; the 22 names ("loop" for loops) */
    assert_int_equal(s.n_procs, 2);
    assert_int_equal(count_enter(&s, 0, TES_ENTER, NULL), 117);
    assert_int_equal(count_enter(&s, 1, TES_ENTER, NULL), 88);
    assert_int_equal(count_enter(&s, 0, TES_LEAVE, NULL), 117);
    assert_int_equal(count_enter(&s, 1, TES_LEAVE, NULL), 88);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(count_enter(&s, r, TES_ENTER, "PMPI_Send"), 7);
        assert_int_equal(count_enter(&s, r, TES_ENTER, "PMPI_Recv"), 7);
    }
    static const char *const names[] = {"<unknown procedure> 0x24680 [libpsm2.so.2.2]",
                                        "MPID_Finalize [libmpi.so.12.1.1]",
                                        "MPID_Recv [libmpi.so.12.1.1]",
                                        "MPI_Finalize",
                                        "PMPI_Finalize [libmpi.so.12.1.1]",
                                        "PMPI_Recv [libmpi.so.12.1.1]",
                                        "PMPI_Send [libmpi.so.12.1.1]",
                                        "__GI___munmap [libc-2.17.so]",
                                        "__GI___unlink [libc-2.17.so]",
                                        "__GI_process_vm_readv [libc-2.17.so]",
                                        "loop",
                                        "main",
                                        "main thread",
                                        "psm2_ep_close [libpsm2.so.2.2]",
                                        "psm2_mq_ipeek2 [libpsm2.so.2.2]",
                                        "psm2_mq_irecv2 [libpsm2.so.2.2]",
                                        "psm_dofinalize [libmpi.so.12.1.1]",
                                        "psm_progress_wait [libmpi.so.12.1.1]",
                                        "psm_recv [libmpi.so.12.1.1]",
                                        "psm_try_complete [libmpi.so.12.1.1]",
                                        "shm_unlink [librt-2.17.so]",
                                        "targ5030 [libpsm2.so.2.2]"};
    size_t nnames = sizeof names / sizeof names[0];
    int seen[32] = {0};
    for (size_t i = 0; i < s.n_events; i++) {
        const char *name = is_loop(&s, &s.events[i]) ? "loop" : s.events[i].name;
        size_t j = 0;
        while (j < nnames && strcmp(names[j], name) != 0)
            j++;
        if (j == nnames)
            fail_msg("unexpected name %s", name);
        seen[j] = 1;
    }
    for (size_t j = 0; j < nnames; j++)
        if (!seen[j])
            fail_msg("name %s missing", names[j]);
    /* times from trace.db's smallest timestamp; the last Leave at its
     * largest (311978000 ns later, from the header's two u64s) */
    assert_true(s.events[0].time >= 0);
    assert_true(fabs(s.events[s.n_events - 1].time - 311978000.0) < 1e-3);
    tes_free(&s);
}

/* ---- through the import, into the store and the super graph ---- */

/* Imports a database directory as ariadned import does; checks the kind,
 * format and node count, and that the super graph (grouped by module and
 * by name, filtered or not) conserves flow. */
static void check_import(const char *path, int64_t nodes)
{
    char *dir = test_tmpdir();
    char db[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    ari_error err = {0};
    ari_store *s = ari_store_open(db, &err);
    assert_non_null(s);
    ari_import_input in = {path, NULL};
    ari_import_request req = {.inputs = &in, .ninputs = 1, .work_dir = dir};
    ari_import_result res;
    if (ari_import(s, &req, &res, &err) != 0)
        fail_msg("%s: %s", path, err.message);
    /* the profile, and the events of trace.db (format hpctoolkit_trace) */
    assert_int_equal(res.ntraces, 2);
    size_t pi = strcmp(res.traces[0].kind, "profile") == 0 ? 0 : 1;
    assert_string_equal(res.traces[pi].kind, "profile");
    assert_string_equal(res.traces[pi].format, "hpctoolkit");
    assert_string_equal(res.traces[1 - pi].format, "hpctoolkit_trace");
    ari_cct c;
    assert_int_equal(ari_profile_load(s, res.traces[pi].id, &c, &err), 0);
    assert_int_equal(c.nnodes, nodes);
    ari_cct_times t;
    assert_int_equal(ari_cct_times_init(&t, &c, ari_cct_metric_find(&c, NULL), &err), 0);
    unsigned char *keep = malloc((size_t)c.nnodes + 1);
    assert_non_null(keep);
    for (int fi = 0; fi < 2; fi++) {
        ari_cct_filter f = {.fraction = fi ? 0.001 : 0};
        assert_int_equal(ari_cct_filter_mask(&c, &t, &f, keep, NULL, &err), 0);
        for (int gb = 0; gb < 2; gb++) {
            ari_sg_params p = {.group_by = gb ? ARI_GROUP_NAME : ARI_GROUP_MODULE};
            ari_supergraph g;
            assert_int_equal(ari_supergraph_build(&c, &t, keep, &p, &g, &err), 0);
            ari_sg_view v;
            assert_int_equal(ari_sg_view_compute(&g, NULL, ARI_COLLAPSE_MEAN, 20, &v, &err), 0);
            char msg[512];
            if (ari_sg_check_flow(&g, &v, 1e-9, msg, sizeof msg) != 0)
                fail_msg("%s (filter %d, group %d): %s", path, fi, gb, msg);
            ari_sg_view_free(&v);
            ari_supergraph_free(&g);
        }
    }
    free(keep);
    ari_cct_times_free(&t);
    ari_cct_free(&c);
    ari_import_result_free(&res);
    ari_store_close(s);
    ari_remove_tree(dir);
    free(dir);
}

static void test_import(void **state)
{
    (void)state;
    check_import(TINY, 6);
    const char *dir = pingpong_dir();
    if (dir)
        check_import(dir, 117);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_profile),
        cmocka_unit_test(test_tiny_trace),
        cmocka_unit_test(test_tiny_trace_sink_stops),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_fuzz_inputs),
        cmocka_unit_test(test_pingpong_profile),
        cmocka_unit_test(test_pingpong_trace),
        cmocka_unit_test(test_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
