/* test_paje.c: the Paje reader.
 *
 * (a) Our fixtures (tests/fixtures/paje): exact rows for every event kind,
 *     nesting, variables, links, events, old field names, an unordered
 *     trace, compressed copies, and bad inputs refused with file:line.
 * (b) With $ARIADNE_SHARED_DATA: every pj_dump / pj_dump_csv expectation of
 *     pajeng's .tesh files, compared by value (pajeng HEAD quotes names,
 *     1.3.6 does not; container times print with 6 significant digits;
 *     pajeng parses variable operands as single floats, so variable values
 *     compare with a relative tolerance); the counts of data/README.md
 *     section 3.3; native_paje.trace against `pj_dump -n` on a sorted copy
 *     and the StarPU traces against `pj_dump -u` on a sorted copy when
 *     pj_dump is installed; StarPU task counts against each run's README.
 *
 * Rows are built like pj_dump prints them, with names (not aliases):
 *   Container, parent, type, start, end, duration, name
 *   State, container, type, start, end, duration, imbrication, value
 *   Variable, container, type, start, end, duration, value
 *   Event, container, type, time, value
 *   Link, container, type, start, end, duration, value, from, to, key
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/paje.h"
#include "util/strmap.h"

#define FIX "tests/fixtures/paje/"

/* ---- a sink that collects pj_dump-like rows -------------------------------- */

typedef struct cont {
    char *alias, *name, *type, *parent;
    double start, end;
} cont;

typedef struct rows {
    int user;                 /* append user-defined fields */
    int abort_after;          /* > 0: return 7 from the n-th state */
    ari_strmap *type_names;   /* type alias -> name */
    ari_strmap *conts;        /* container alias -> cont */
    cont **cl;
    size_t ncont;
    char **r;
    size_t n, cap;
    double trace_end;
    size_t count[6];          /* rows per nature; [ARI_NATURE_VALUE]: on_type values */
    size_t ntypes;
    int max_depth;
    double last_done, last_total;
    size_t nprogress;
    char first_state_field[64];
} rows;

static void add_row(rows *rw, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (rw->n == rw->cap) {
        rw->cap = rw->cap ? 2 * rw->cap : 256;
        rw->r = realloc(rw->r, rw->cap * sizeof *rw->r);
    }
    rw->r[rw->n++] = strdup(buf);
}

static void append_fields(rows *rw, const ari_field *f, size_t n)
{
    if (!rw->user || n == 0)
        return;
    char *row = rw->r[rw->n - 1];
    size_t len = strlen(row);
    for (size_t i = 0; i < n; i++)
        len += strlen(f[i].value) + 2;
    row = realloc(row, len + 1);
    for (size_t i = 0; i < n; i++) {
        strcat(row, ", ");
        strcat(row, f[i].value);
    }
    rw->r[rw->n - 1] = row;
}

static const char *tname(rows *rw, const char *alias)
{
    const char *n = ari_strmap_get(rw->type_names, alias, strlen(alias));
    return n ? n : alias;
}

static const char *cname(rows *rw, const char *alias)
{
    cont *c = ari_strmap_get(rw->conts, alias, strlen(alias));
    return c ? c->name : alias;
}

static int on_type(void *ctx, const ari_type_def *t)
{
    rows *rw = ctx;
    rw->ntypes++;
    if (t->nature == ARI_NATURE_VALUE) {
        rw->count[ARI_NATURE_VALUE]++;
        return 0;
    }
    ari_strmap_put(rw->type_names, t->alias, strlen(t->alias), strdup(t->name));
    return 0;
}

static int on_container(void *ctx, const ari_container *c)
{
    rows *rw = ctx;
    cont *k = calloc(1, sizeof *k);
    k->alias = strdup(c->alias);
    k->name = strdup(c->name);
    k->type = strdup(c->type);
    k->parent = strdup(c->parent);
    k->start = c->start;
    k->end = c->end;
    rw->cl = realloc(rw->cl, (rw->ncont + 1) * sizeof *rw->cl);
    rw->cl[rw->ncont++] = k;
    ari_strmap_put(rw->conts, c->alias, strlen(c->alias), k);
    return 0;
}

static int on_container_end(void *ctx, const char *alias, double end)
{
    rows *rw = ctx;
    if (strcmp(alias, "0") == 0) {
        rw->trace_end = end;
        return 0;
    }
    cont *k = ari_strmap_get(rw->conts, alias, strlen(alias));
    assert_non_null(k);
    k->end = end;
    return 0;
}

static int on_state(void *ctx, const ari_state *s)
{
    rows *rw = ctx;
    rw->count[ARI_NATURE_STATE]++;
    if (s->depth > rw->max_depth)
        rw->max_depth = s->depth;
    if (s->nfields > 0 && !rw->first_state_field[0])
        snprintf(rw->first_state_field, sizeof rw->first_state_field, "%s=%s",
                 s->fields[0].name, s->fields[0].value);
    add_row(rw, "State, %s, %s, %f, %f, %f, %f, %s", cname(rw, s->container), tname(rw, s->type),
            s->start, s->end, s->end - s->start, (double)s->depth, s->value);
    append_fields(rw, s->fields, s->nfields);
    if (rw->abort_after && rw->count[ARI_NATURE_STATE] == (size_t)rw->abort_after)
        return 7;
    return 0;
}

static int on_variable(void *ctx, const ari_variable *v)
{
    rows *rw = ctx;
    rw->count[ARI_NATURE_VARIABLE]++;
    add_row(rw, "Variable, %s, %s, %f, %f, %f, %f", cname(rw, v->container), tname(rw, v->type),
            v->start, v->end, v->end - v->start, v->value);
    return 0;
}

static int on_link(void *ctx, const ari_link *l)
{
    rows *rw = ctx;
    rw->count[ARI_NATURE_LINK]++;
    add_row(rw, "Link, %s, %s, %f, %f, %f, %s, %s, %s, %s", cname(rw, l->container),
            tname(rw, l->type), l->start, l->end, l->end - l->start, l->value,
            cname(rw, l->start_container), cname(rw, l->end_container), l->key);
    append_fields(rw, l->fields, l->nfields);
    return 0;
}

static int on_event(void *ctx, const ari_event *e)
{
    rows *rw = ctx;
    rw->count[ARI_NATURE_EVENT]++;
    add_row(rw, "Event, %s, %s, %f, %s", cname(rw, e->container), tname(rw, e->type), e->time,
            e->value);
    append_fields(rw, e->fields, e->nfields);
    return 0;
}

static void on_progress(void *ctx, double done, double total)
{
    rows *rw = ctx;
    assert_true(done >= rw->last_done - 1e-9);
    assert_true(done <= total + 1e-9);
    rw->last_done = done;
    rw->last_total = total;
    rw->nprogress++;
}

static void free_value(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    free(value);
}

static void rows_free(rows *rw)
{
    for (size_t i = 0; i < rw->n; i++)
        free(rw->r[i]);
    free(rw->r);
    for (size_t i = 0; i < rw->ncont; i++) {
        free(rw->cl[i]->alias);
        free(rw->cl[i]->name);
        free(rw->cl[i]->type);
        free(rw->cl[i]->parent);
        free(rw->cl[i]);
    }
    free(rw->cl);
    ari_strmap_foreach(rw->type_names, free_value, NULL);
    ari_strmap_free(rw->type_names);
    ari_strmap_free(rw->conts);
    memset(rw, 0, sizeof *rw);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads path into rw (rows sorted, containers appended); returns the
 * reader's result. */
static int read_rows(const char *path, int no_strict, int ignore_links, int user, rows *rw,
                     ari_error *err)
{
    int keep_abort = rw->abort_after;
    memset(rw, 0, sizeof *rw);
    rw->abort_after = keep_abort;
    rw->user = user;
    rw->type_names = ari_strmap_new();
    rw->conts = ari_strmap_new();
    ari_paje_options opt = {.no_strict = no_strict, .ignore_incomplete_links = ignore_links};
    ari_sink sink = {rw,          on_type, on_container, on_container_end, on_state,
                     on_variable, on_link, on_event,     on_progress};
    int rc = ari_paje_read(path, NULL, &opt, &sink, err);
    if (rc == 0) {
        add_row(rw, "Container, 0, 0, 0, %g, %g, 0", rw->trace_end, rw->trace_end);
        for (size_t i = 0; i < rw->ncont; i++) {
            cont *c = rw->cl[i];
            add_row(rw, "Container, %s, %s, %g, %g, %g, %s", cname(rw, c->parent),
                    tname(rw, c->type), c->start, c->end, c->end - c->start, c->name);
        }
        rw->count[ARI_NATURE_CONTAINER] = rw->ncont + 1;
    }
    if (rw->n > 1)
        qsort(rw->r, rw->n, sizeof *rw->r, cmp_str);
    return rc;
}

static void expect_rows(rows *rw, const char *const *want, size_t n)
{
    char **sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, want, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str);
    for (size_t i = 0; i < n && i < rw->n; i++)
        if (strcmp(sorted[i], rw->r[i]) != 0)
            fail_msg("row %zu: want '%s', got '%s'", i, sorted[i], rw->r[i]);
    assert_int_equal(rw->n, n);
    free(sorted);
}

/* ---- (a) fixtures ---------------------------------------------------------- */

static const char *const basic_rows[] = {
    "Container, 0, 0, 0, 7, 7, 0",
    "Container, 0, Node, 0, 7, 7, node 0",
    "Container, node 0, Worker, 0, 7, 7, CPU0",
    "Container, node 0, Worker, 0.5, 6, 5.5, CPU1",
    "Event, CPU0, Worker event, 3.250000, hello world, some info",
    "Event, CPU0, Worker event, 7.000000, bye, x",
    "Link, node 0, Transfer, 3.000000, 3.000000, 0.000000, copy, CPU1, CPU0, k1, tagA, 100",
    "Link, node 0, Transfer, 3.000000, 3.500000, 0.500000, copy, CPU0, CPU1, k2, 200, tagB",
    "State, CPU0, Worker State, 1.000000, 4.000000, 3.000000, 0.000000, Idle",
    "State, CPU0, Worker State, 1.500000, 4.000000, 2.500000, 1.000000, Executing task, 42",
    "State, CPU0, Worker State, 2.000000, 2.500000, 0.500000, 2.000000, Sub task, 43",
    "State, CPU0, Worker State, 4.000000, 5.000000, 1.000000, 0.000000, Idle",
    "State, CPU0, Worker State, 5.500000, 7.000000, 1.500000, 0.000000, Executing task, 44",
    "State, CPU1, Worker State, 1.000000, 6.000000, 5.000000, 0.000000, Idle",
    "Variable, node 0, Memory (MB), 0.000000, 1.000000, 1.000000, 10.000000",
    "Variable, node 0, Memory (MB), 1.000000, 2.500000, 1.500000, 13.000000",
    "Variable, node 0, Memory (MB), 2.500000, 3.000000, 0.500000, 7.000000",
    "Variable, node 0, Memory (MB), 3.000000, 7.000000, 4.000000, 7.000000",
};

static void test_basic(void **state)
{
    (void)state;
    rows rw = {0};
    ari_error err;
    assert_int_equal(read_rows(FIX "basic.trace", 0, 0, 1, &rw, &err), 0);
    expect_rows(&rw, basic_rows, sizeof basic_rows / sizeof *basic_rows);
    assert_int_equal(rw.max_depth, 2);
    /* Types: 2 container, 1 state, 1 variable, 1 link, 1 event; 2 defined
     * values + "Sub task", "copy", "hello world", "bye" created on use. */
    assert_int_equal(rw.count[ARI_NATURE_VALUE], 6);
    assert_int_equal(rw.ntypes, 12);
    /* User fields keep their names; File and Line are not user fields. */
    assert_string_equal(rw.first_state_field, "JobId=43");
    assert_true(rw.nprogress >= 1);
    assert_true(rw.last_total > 0 && rw.last_done == rw.last_total);
    rows_free(&rw);

    /* The zstd copy gives the same rows. */
    assert_int_equal(read_rows(FIX "basic.trace.zst", 0, 0, 1, &rw, &err), 0);
    expect_rows(&rw, basic_rows, sizeof basic_rows / sizeof *basic_rows);
    rows_free(&rw);
}

static const char *const unordered_rows[] = {
    "Container, 0, 0, 0, 14, 14, 0",
    "Container, 0, Program, 0, 14, 14, program",
    "Container, program, Scheduler, 0, 14, 14, scheduler",
    "Container, program, Worker, 5, 14, 9, CPU0",
    "Container, program, Worker, 5, 14, 9, CPU1",
    "Link, program, Data transfer, 11.500000, 11.000000, -0.500000, copy, CPU0, CPU1, k1",
    "State, CPU0, Worker State, 10.000000, 12.000000, 2.000000, 0.000000, dgemm, 1, 0.5",
    "State, CPU0, Worker State, 12.000000, 14.000000, 2.000000, 0.000000, Idle",
    "State, CPU0, Worker State, 8.000000, 10.000000, 2.000000, 0.000000, Idle",
    "State, CPU1, Worker State, 12.500000, 14.000000, 1.500000, 0.000000, Idle",
    "State, CPU1, Worker State, 6.000000, 9.000000, 3.000000, 0.000000, Idle",
    "State, CPU1, Worker State, 9.000000, 12.500000, 3.500000, 0.000000, dpotrf, 2, 0.1",
    "State, CPU1, Worker State, 9.000000, 9.000000, 0.000000, 1.000000, Overhead",
    "Variable, scheduler, Number of Ready Tasks, 10.000000, 14.000000, 4.000000, 0.000000",
    "Variable, scheduler, Number of Ready Tasks, 7.000000, 9.500000, 2.500000, 2.000000",
    "Variable, scheduler, Number of Ready Tasks, 9.500000, 10.000000, 0.500000, 1.000000",
};

static void test_unordered(void **state)
{
    (void)state;
    static const char *const files[] = {FIX "unordered.trace", FIX "unordered.trace.gz",
                                        FIX "unordered.trace.zst"};
    for (size_t i = 0; i < 3; i++) {
        rows rw = {0};
        ari_error err;
        assert_int_equal(read_rows(files[i], 0, 0, 1, &rw, &err), 0);
        expect_rows(&rw, unordered_rows, sizeof unordered_rows / sizeof *unordered_rows);
        rows_free(&rw);
    }
}

static void test_old_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "Container, 0, 0, 0, 4, 4, 0",
        "Container, 0, Program, 0, 4, 4, program",
        "Container, program, Worker, 0, 4, 4, CPU0",
        "Container, program, Worker, 0, 4, 4, CPU1",
        "Link, program, MPI link, 2.500000, 3.000000, 0.500000, msg, CPU0, CPU1, m1",
        "State, CPU0, Worker State, 1.000000, 4.000000, 3.000000, 0.000000, Executing",
        "State, CPU0, Worker State, 4.000000, 4.000000, 0.000000, 0.000000, Executing",
        "State, CPU1, Worker State, 2.000000, 4.000000, 2.000000, 0.000000, Executing",
    };
    rows rw = {0};
    ari_error err;
    assert_int_equal(read_rows(FIX "old_names.trace", 1, 0, 0, &rw, &err), 0);
    expect_rows(&rw, want, sizeof want / sizeof *want);
    rows_free(&rw);
    assert_int_not_equal(read_rows(FIX "old_names.trace", 0, 0, 0, &rw, &err), 0);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "old_names.trace:8: invalid definition of event 1"));
    assert_non_null(strstr(err.message, "obligatory field Type is missing"));
    rows_free(&rw);
}

static void test_quirks(void **state)
{
    (void)state;
    static const char *const want[] = {
        "Container, 0, 0, 0, 6, 6, 0",
        "Container, 0, Process, 0, 4, 4, proc 1",
        "Container, 0, Process, 0, 6, 6, proc 2",
        "Container, proc 1, Thread, 1, 4, 3, thread 1",
        "Event, 0, Global event, 2.500000, mark, ",
        "Event, 0, Global event, 5.000000, end, the end",
        "State, proc 1, State, 1.000000, 4.000000, 3.000000, 0.000000, never defined",
        "State, thread 1, Thread State, 2.000000, 4.000000, 2.000000, 0.000000, busy",
        "Variable, proc 2, Var, 3.000000, 6.000000, 3.000000, 4.000000",
    };
    rows rw = {0};
    ari_error err;
    assert_int_equal(read_rows(FIX "quirks.trace", 0, 0, 1, &rw, &err), 0);
    expect_rows(&rw, want, sizeof want / sizeof *want);
    rows_free(&rw);
}

static void test_incomplete_link(void **state)
{
    (void)state;
    rows rw = {0};
    ari_error err;
    assert_int_not_equal(read_rows(FIX "incomplete_link.trace", 0, 0, 0, &rw, &err), 0);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "incomplete_link.trace:70: link has a start but no end"));
    rows_free(&rw);
    assert_int_equal(read_rows(FIX "incomplete_link.trace", 0, 1, 0, &rw, &err), 0);
    assert_int_equal(rw.count[ARI_NATURE_LINK], 1);
    assert_int_equal(rw.count[ARI_NATURE_STATE], 1);
    rows_free(&rw);
}

static void expect_error(const char *file, const char *code, const char *where, const char *why)
{
    rows rw = {0};
    ari_error err;
    char path[256];
    snprintf(path, sizeof path, FIX "%s", file);
    if (read_rows(path, 0, 0, 0, &rw, &err) == 0)
        fail_msg("%s: read without error", file);
    assert_string_equal(err.code, code);
    if (!strstr(err.message, where) || !strstr(err.message, why))
        fail_msg("%s: message '%s' lacks '%s' or '%s'", file, err.message, where, why);
    rows_free(&rw);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    const char *inv = ARI_E_INVALID_INPUT;
    expect_error("empty.trace", inv, "empty.trace: ", "empty file");
    expect_error("bad_no_header.trace", inv, "bad_no_header.trace: ", "no %EventDef header");
    expect_error("bad_truncated_def.trace", inv, "bad_truncated_def.trace:70:", "not closed");
    expect_error("bad_truncated_line.trace", inv, "bad_truncated_line.trace:71:",
                 "has 2 fields, its definition has 4");
    expect_error("bad_binary.trace", inv, "bad_binary.trace:70:", "binary data");
    expect_error("bad_unknown_id.trace", inv, "bad_unknown_id.trace:71:", "unknown event id '42'");
    expect_error("bad_pop_empty.trace", inv, "bad_pop_empty.trace:72:", "stack is empty");
    expect_error("bad_unknown_container.trace", inv, "bad_unknown_container.trace:70:",
                 "unknown container 'p9'");
    expect_error("bad_number.trace", inv, "bad_number.trace:70:", "bad number '1.5x'");
    expect_error("bad_time.trace", inv, "bad_time.trace:70:", "bad time '1,5'");
    expect_error("bad_fields.trace", inv, "bad_fields.trace:70:",
                 "has 5 fields, its definition has 4");
    expect_error("bad_quote.trace", inv, "bad_quote.trace:70:", "unterminated quote");
    expect_error("bad_kind.trace", inv, "bad_kind.trace:70:", "is a variable type, not a state");
    expect_error("no_such_file.trace", ARI_E_IO, "no_such_file.trace", "No such file");
}

/* Writes the mini header of the bad fixtures followed by body to path. */
static void write_with_header(const char *path, const char *body, size_t len)
{
    FILE *in = fopen(FIX "bad_unknown_container.trace", "rb");
    FILE *out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char line[512];
    for (int i = 0; i < 69 && fgets(line, sizeof line, in); i++)
        fputs(line, out);
    fwrite(body, 1, len, out);
    fclose(in);
    fclose(out);
}

static void test_huge_line_and_abort(void **state)
{
    (void)state;
    char path[] = "/tmp/test_paje.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    size_t big = (size_t)3 << 20;
    char *body = malloc(big + 64);
    strcpy(body, "4 1 p1 S \"");
    size_t n = strlen(body);
    memset(body + n, 'v', big);
    strcpy(body + n + big, "\"\n");
    write_with_header(path, body, n + big + 2);
    free(body);
    rows rw = {0};
    ari_error err;
    assert_int_not_equal(read_rows(path, 0, 0, 0, &rw, &err), 0);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, ":70: line longer than"));
    rows_free(&rw);

    /* A sink that stops the read: its code comes back, err says cancelled. */
    const char *stop = "4 1 p1 S a\n4 2 p1 S b\n4 3 p1 S c\n";
    write_with_header(path, stop, strlen(stop));
    rw.abort_after = 2;
    assert_int_equal(read_rows(path, 0, 0, 0, &rw, &err), 7);
    assert_string_equal(err.code, ARI_E_CANCELLED);
    assert_int_equal(rw.count[ARI_NATURE_STATE], 2);
    rows_free(&rw);

    /* PajeTraceFile (split traces) is refused as unsupported. */
    const char *split =
        "%EventDef PajeTraceFile 40\n% Container string\n% Type string\n% Filename string\n"
        "%EndEventDef\n40 p1 P other.trace\n";
    write_with_header(path, split, strlen(split));
    assert_int_not_equal(read_rows(path, 0, 0, 0, &rw, &err), 0);
    assert_string_equal(err.code, ARI_E_UNSUPPORTED);
    rows_free(&rw);
    unlink(path);
}

static void test_probe(void **state)
{
    (void)state;
    const char *yes = "#comment\n  \n%EventDef PajeDefineContainerType 0\n";
    const char *yes2 = "%\tEventDef X 1";
    const char *no = "Name: foo\nJobId: 1\n";
    assert_int_equal(ari_paje_probe(yes, strlen(yes)), 1);
    assert_int_equal(ari_paje_probe(yes2, strlen(yes2)), 1);
    assert_int_equal(ari_paje_probe(no, strlen(no)), 0);
    assert_int_equal(ari_paje_probe("", 0), 0);
}

/* ---- (b) shared data: pajeng oracles --------------------------------------- */

static const char *shared_dir(void)
{
    static char dir[1024];
    const char *base = getenv("ARIADNE_SHARED_DATA");
    if (!base)
        return NULL;
    snprintf(dir, sizeof dir, "%s/pajeng", base);
    struct stat st;
    return stat(dir, &st) == 0 ? dir : NULL;
}

/* A row split into fields (quotes stripped) with its numbers parsed. */
typedef struct norm {
    char key[2048];    /* nature and the fields compared exactly */
    double approx[4];  /* fields compared with a tolerance */
    int napprox;
} norm;

static int is_number(const char *s, double *v)
{
    char *end;
    if (!*s)
        return 0;
    *v = strtod(s, &end);
    return *end == '\0';
}

static void normalize(const char *row, norm *out)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", row);
    char *fields[64];
    int n = 0;
    char *p = buf;
    for (;;) {
        char *sep = strstr(p, ", ");
        if (n < 64)
            fields[n++] = p;
        if (!sep)
            break;
        *sep = '\0';
        p = sep + 2;
    }
    out->key[0] = '\0';
    out->napprox = 0;
    int is_cont = strcmp(fields[0], "Container") == 0;
    int is_var = strcmp(fields[0], "Variable") == 0;
    for (int i = 0; i < n; i++) {
        char *f = fields[i];
        size_t len = strlen(f);
        if (len >= 2 && f[0] == '"' && f[len - 1] == '"') {
            f[len - 1] = '\0';
            f++;
        }
        double v;
        char piece[600];
        if (((is_cont && i >= 3 && i <= 5) || (is_var && i == 6)) && is_number(f, &v)) {
            out->approx[out->napprox++] = v;
            continue;
        }
        if (is_number(f, &v))
            snprintf(piece, sizeof piece, "|%.6f", v);
        else
            snprintf(piece, sizeof piece, "|%s", f);
        strncat(out->key, piece, sizeof out->key - strlen(out->key) - 1);
    }
}

static int cmp_norm(const void *a, const void *b)
{
    const norm *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    for (int i = 0; c == 0 && i < x->napprox && i < y->napprox; i++)
        c = (x->approx[i] > y->approx[i]) - (x->approx[i] < y->approx[i]);
    return c;
}

static int close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* Compares our rows with expected ones by value; returns the mismatches. */
static size_t compare_rows(const char *what, char **got, size_t ngot, char **want, size_t nwant)
{
    norm *g = calloc(ngot + 1, sizeof *g), *w = calloc(nwant + 1, sizeof *w);
    for (size_t i = 0; i < ngot; i++)
        normalize(got[i], &g[i]);
    for (size_t i = 0; i < nwant; i++)
        normalize(want[i], &w[i]);
    qsort(g, ngot, sizeof *g, cmp_norm);
    qsort(w, nwant, sizeof *w, cmp_norm);
    size_t bad = 0;
    if (ngot != nwant) {
        print_message("%s: %zu rows, expected %zu\n", what, ngot, nwant);
        bad++;
    }
    for (size_t i = 0; i < ngot && i < nwant; i++) {
        int same = strcmp(g[i].key, w[i].key) == 0 && g[i].napprox == w[i].napprox;
        for (int k = 0; same && k < g[i].napprox; k++)
            same = close_enough(g[i].approx[k], w[i].approx[k]);
        if (!same && bad++ < 5)
            print_message("%s: got %s (%g), expected %s (%g)\n", what, g[i].key,
                          g[i].napprox ? g[i].approx[0] : 0, w[i].key,
                          w[i].napprox ? w[i].approx[0] : 0);
    }
    free(g);
    free(w);
    return bad;
}

typedef struct block {
    char trace[1024];
    int no_strict;
    int expect_failure;
    char **lines;
    size_t n, cap;
} block;

static void block_add(block *b, const char *line)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->lines = realloc(b->lines, b->cap * sizeof *b->lines);
    }
    b->lines[b->n++] = strdup(line);
}

static void block_free(block *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->lines[i]);
    free(b->lines);
    memset(b, 0, sizeof *b);
}

/* Checks one expectation block; returns the number of mismatches. */
static size_t check_block(const char *dir, block *b, size_t *checked)
{
    if (!b->trace[0])
        return 0;
    char path[2048], what[2200];
    snprintf(path, sizeof path, "%s/traces/%s", dir, b->trace);
    snprintf(what, sizeof what, "%s%s", b->trace, b->no_strict ? " (-n)" : "");
    rows rw = {0};
    ari_error err;
    int rc = read_rows(path, b->no_strict, 0, 0, &rw, &err);
    size_t bad = 0;
    if (b->expect_failure && !b->no_strict) {
        /* pj_dump refuses it; so must we (pj_dump -n fails on the time
         * order, which we repair: that case is checked against a sorted copy). */
        if (rc == 0) {
            print_message("%s: read, but pj_dump refuses it\n", what);
            bad++;
        }
    } else if (!b->expect_failure) {
        if (rc != 0) {
            print_message("%s: %s\n", what, err.message);
            bad++;
        } else {
            bad += compare_rows(what, rw.r, rw.n, b->lines, b->n);
        }
    }
    (*checked)++;
    rows_free(&rw);
    return bad;
}

/* Parses a .tesh file: `$ ./pj_dump [-n] ../traces/X` followed by `> `
 * lines, or `$ ./pj_dump_csv --prefix out ../traces/X` followed by `cat
 * out.*.csv` blocks. Other commands (hierarchies, --dot, -q, pj_equals,
 * --no-imbrication) are skipped. */
static size_t check_tesh(const char *dir, const char *file, size_t *checked)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/%s", dir, file);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    block b = {0};
    size_t bad = 0;
    int collecting = 0, expect_failure = 0;
    char line[65536];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "! expect return", 15) == 0) {
            expect_failure = 1;
            continue;
        }
        if (strncmp(line, "$ ", 2) == 0) {
            const char *cmd = line + 2;
            if (strncmp(cmd, "cat out.", 8) == 0 && b.trace[0]) {
                collecting = 1; /* more rows of the same pj_dump_csv run */
                continue;
            }
            bad += check_block(dir, &b, checked);
            block_free(&b);
            collecting = 0;
            const char *t = strstr(cmd, "../traces/");
            int csv = strncmp(cmd, "./pj_dump_csv --prefix out ", 27) == 0;
            int plain = strncmp(cmd, "./pj_dump ", 10) == 0 && !strstr(cmd, " -q") &&
                        !strstr(cmd, "--dot") && !strstr(cmd, "--no-imbrication") &&
                        !strstr(cmd, " -f");
            if (t && (csv || plain)) {
                snprintf(b.trace, sizeof b.trace, "%s", t + 10);
                b.no_strict = strstr(cmd, " -n ") != NULL;
                b.expect_failure = expect_failure;
                collecting = 1;
            }
            expect_failure = 0;
            continue;
        }
        if (collecting && line[0] == '>') {
            const char *row = line[1] == ' ' ? line + 2 : line + 1;
            /* pj_dump_csv headers: "Container, Parent, ...", "State, Container, ..." */
            if (strstr(row, ", Parent, Type,") || strstr(row, ", Container, Type,"))
                continue;
            if (!b.expect_failure)
                block_add(&b, row);
        }
    }
    bad += check_block(dir, &b, checked);
    block_free(&b);
    fclose(f);
    return bad;
}

static void test_pajeng_tesh(void **state)
{
    (void)state;
    const char *dir = shared_dir();
    if (!dir) {
        print_message("ARIADNE_SHARED_DATA/pajeng absent: skipped\n");
        skip();
    }
    static const char *const files[] = {
        "pj_dump_small.tesh",    "pj_dump_csv_small.tesh", "pj_dump_categories.tesh",
        "pj_dump_ms.tesh",       "pj_dump_g5k.tesh",       "pj_dump_simu-mardi.tesh",
        "pj_dump_shurakai.tesh", "pj_dump_native_paje.tesh"};
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        bad += check_tesh(dir, files[i], &checked);
    print_message("%zu pj_dump expectations checked\n", checked);
    assert_true(checked >= 18);
    assert_int_equal(bad, 0);
}

static void test_pajeng_counts(void **state)
{
    (void)state;
    const char *dir = shared_dir();
    if (!dir)
        skip();
    /* data/README.md section 3.3 (pj_dump 1.3.6 -z); simgrid-fg126 has the
     * 6 links of pajeng HEAD's tesh (1.3.6 loses 3 of them). */
    static const struct {
        const char *trace;
        int no_strict;
        size_t containers, states, variables, links, events;
    } want[] = {
        {"states.trace", 0, 2, 3, 0, 0, 0},
        {"variables.trace", 0, 2, 0, 3, 0, 0},
        {"events.trace", 0, 2, 0, 0, 0, 2},
        {"links.trace", 0, 4, 0, 0, 2, 0},
        {"containers.trace", 0, 11, 0, 0, 0, 0},
        {"simgrid-fg126.trace", 0, 7, 0, 12, 6, 0},
        {"categories.trace", 0, 16, 0, 161, 17, 0},
        {"ms.trace", 0, 16, 0, 384, 17, 2},
        {"g5k.trace", 0, 4798, 0, 7812, 6314, 0},
        {"simu-mardi.trace", 0, 307, 13620, 507, 405, 0},
        {"replay_output_shurakai_extract.trace", 0, 2, 10, 0, 0, 0},
        {"native_sample.trace", 1, 14, 3318, 880, 0, 2},
        {"gattaca.trace", 0, 4, 8, 0, 0, 0},
        {"gattaca2.trace", 0, 4, 8, 0, 0, 0},
        {"gattaca3.trace", 0, 4, 8, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/traces/%s", dir, want[i].trace);
        rows rw = {0};
        ari_error err;
        if (read_rows(path, want[i].no_strict, 1, 0, &rw, &err) != 0)
            fail_msg("%s: %s", want[i].trace, err.message);
        size_t got[5] = {rw.count[ARI_NATURE_CONTAINER], rw.count[ARI_NATURE_STATE],
                         rw.count[ARI_NATURE_VARIABLE], rw.count[ARI_NATURE_LINK],
                         rw.count[ARI_NATURE_EVENT]};
        size_t exp[5] = {want[i].containers, want[i].states, want[i].variables, want[i].links,
                         want[i].events};
        for (int k = 0; k < 5; k++)
            if (got[k] != exp[k])
                fail_msg("%s: count %d is %zu, expected %zu", want[i].trace, k, got[k], exp[k]);
        rows_free(&rw);
    }
    /* With imbrication, states.trace has depths 0, 1, 1. */
    char path[2048];
    snprintf(path, sizeof path, "%s/traces/states.trace", dir);
    rows rw = {0};
    ari_error err;
    assert_int_equal(read_rows(path, 0, 0, 0, &rw, &err), 0);
    assert_int_equal(rw.max_depth, 1);
    rows_free(&rw);
}

/* ---- (b) pj_dump on sorted copies ------------------------------------------ */

static int have_pj_dump(void)
{
    return system("command -v pj_dump >/dev/null 2>&1") == 0;
}

/* Runs a shell command and returns its output lines. */
static char **run_lines(const char *cmd, size_t *n)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1024;
    char **lines = malloc(cap * sizeof *lines);
    *n = 0;
    char *line = NULL;
    size_t len = 0;
    while (getline(&line, &len, p) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (*n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[(*n)++] = strdup(line);
    }
    free(line);
    pclose(p);
    return lines;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* StarVZ's sort (starvz/inst/tools/paje_sort.sh): definitions and container
 * creations (ids 0-7) first, then the other lines by time, stably. With -b:
 * without it, `-k2,2` keeps the blanks before the time in the key, and a
 * StarPU trace that mixes tabs and spaces comes out in two separately sorted
 * groups (which loses the tasks after the end of the first group). */
static size_t compare_with_sorted_pj_dump(const char *trace, const char *flags, int no_strict,
                                          int user)
{
    char tmp[] = "/tmp/test_paje_sorted.XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "{ LC_ALL=C grep -e '^\\(\\(%%\\)\\|\\(\\(0\\|1\\|2\\|3\\|4\\|5\\|6\\|7\\)\\>\\)\\)' "
             "'%s'; LC_ALL=C grep -v -e '^\\(\\(%%\\)\\|\\(\\(0\\|1\\|2\\|3\\|4\\|5\\|6\\|7\\)\\>\\)\\)' "
             "'%s' | LC_ALL=C sort -s -V -b -k2,2; } > '%s'; pj_dump %s '%s' 2>/dev/null",
             trace, trace, tmp, flags, tmp);
    size_t n;
    char **want = run_lines(cmd, &n);
    unlink(tmp);
    rows rw = {0};
    ari_error err;
    size_t bad = 0;
    if (read_rows(trace, no_strict, 0, user, &rw, &err) != 0) {
        print_message("%s: %s\n", trace, err.message);
        bad = 1;
    } else {
        bad = compare_rows(trace, rw.r, rw.n, want, n);
    }
    assert_true(n > 10);
    rows_free(&rw);
    free_lines(want, n);
    return bad;
}

static void test_native_paje_sorted(void **state)
{
    (void)state;
    const char *dir = shared_dir();
    if (!dir || !have_pj_dump()) {
        print_message("pajeng data or pj_dump absent: skipped\n");
        skip();
    }
    char path[2048];
    snprintf(path, sizeof path, "%s/traces/native_paje.trace", dir);
    assert_int_equal(compare_with_sorted_pj_dump(path, "-n -u", 1, 1), 0);
}

static const char *starpu_dir(void)
{
    static char dir[1024];
    const char *base = getenv("ARIADNE_SHARED_DATA");
    if (!base)
        return NULL;
    snprintf(dir, sizeof dir, "%s/starpu", base);
    struct stat st;
    return stat(dir, &st) == 0 ? dir : NULL;
}

static const char *const starpu_runs[] = {
    "chol_implicit_dmdas_N11520_nb24", "chol_implicit_dmdas_N14400_nb30",
    "chol_implicit_eager_N11520_nb24", "chol_implicit_ws_N11520_nb24",
    "mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2", "qrm-grad3d30-lws",
    "qrm-grad3d30-prio", "sgemm3d_dmda_N5760_nb12_iter3"};

static void test_starpu_sorted(void **state)
{
    (void)state;
    const char *dir = starpu_dir();
    if (!dir || !have_pj_dump()) {
        print_message("StarPU data or pj_dump absent: skipped\n");
        skip();
    }
    /* Two runs keep the test short: one with links and MPI ranks. */
    size_t bad = 0;
    for (size_t i = 0; i < sizeof starpu_runs / sizeof *starpu_runs; i++) {
        if (i != 0 && i != 4)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/paje.trace", dir, starpu_runs[i]);
        bad += compare_with_sorted_pj_dump(path, "-u", 0, 1);
    }
    assert_int_equal(bad, 0);
}

/* Counts of tasks (worker states with a JobId) per name against the
 * "  NAME   n= COUNT" lines of each run's README.txt. */
static void test_starpu_task_counts(void **state)
{
    (void)state;
    const char *dir = starpu_dir();
    if (!dir)
        skip();
    size_t checked = 0;
    for (size_t i = 0; i < sizeof starpu_runs / sizeof *starpu_runs; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/README.txt", dir, starpu_runs[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        snprintf(path, sizeof path, "%s/%s/paje.trace", dir, starpu_runs[i]);
        rows rw = {0};
        ari_error err;
        rw.user = 1;
        if (read_rows(path, 0, 0, 1, &rw, &err) != 0)
            fail_msg("%s: %s", starpu_runs[i], err.message);
        char line[1024], name[256];
        unsigned long n;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, " %255s n= %lu", name, &n) != 2)
                continue;
            /* Task rows carry the user fields (JobId, ...): more than 8 fields. */
            char pattern[300];
            snprintf(pattern, sizeof pattern, ", %s, ", name);
            unsigned long got = 0;
            for (size_t k = 0; k < rw.n; k++) {
                const char *row = rw.r[k];
                if (strncmp(row, "State, ", 7) != 0)
                    continue;
                int commas = 0;
                for (const char *p = row; *p; p++)
                    commas += *p == ',';
                const char *at = strstr(row, pattern);
                if (commas > 8 && at) {
                    int before = 0;
                    for (const char *p = row; p < at; p++)
                        before += *p == ',';
                    got += before == 6; /* the comma before is the 7th: the value column */
                }
            }
            if (got != n)
                fail_msg("%s: %lu tasks %s, README says %lu", starpu_runs[i], got, name, n);
            checked++;
        }
        fclose(f);
        rows_free(&rw);
    }
    print_message("%zu task counts checked\n", checked);
    assert_true(checked >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_unordered),
        cmocka_unit_test(test_old_names),
        cmocka_unit_test(test_quirks),
        cmocka_unit_test(test_incomplete_link),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_huge_line_and_abort),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_pajeng_tesh),
        cmocka_unit_test(test_pajeng_counts),
        cmocka_unit_test(test_native_paje_sorted),
        cmocka_unit_test(test_starpu_sorted),
        cmocka_unit_test(test_starpu_task_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
