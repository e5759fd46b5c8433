/* test_paje_cut.c: a Paje file cut in its last line, and the time unit of
 * a single Paje file (src/ingest/paje.h report, src/ingest/paje_dialect.h).
 *
 * The cut cases are checked against a brute force: the same file with its
 * last line removed (or ended by a newline) read by the strict reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// clang-format off: cmocka.h needs the headers above first
#include <cmocka.h>
// clang-format on

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/paje.h"
#include "ingest/paje_dialect.h"

#define FIX "tests/fixtures/paje/"

/* ---- a sink that counts, and feeds the dialect ---- */

typedef struct tally {
    size_t states, containers, types;
    double state_end_sum, trace_end;
    ari_paje_dialect dialect;
} tally;

static int on_type(void *ctx, const ari_type_def *t)
{
    tally *c = ctx;
    c->types++;
    ari_paje_dialect_type(&c->dialect, t);
    return 0;
}

static int on_container(void *ctx, const ari_container *k)
{
    (void)k;
    ((tally *)ctx)->containers++;
    return 0;
}

static int on_container_end(void *ctx, const char *alias, double end)
{
    if (strcmp(alias, "0") == 0)
        ((tally *)ctx)->trace_end = end;
    return 0;
}

static int on_state(void *ctx, const ari_state *s)
{
    tally *c = ctx;
    c->states++;
    c->state_end_sum += s->end;
    return 0;
}

static int read_file(const char *path, ari_paje_report *rep, tally *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    ari_sink sink = {.ctx = t,
                     .on_type = on_type,
                     .on_container = on_container,
                     .on_container_end = on_container_end,
                     .on_state = on_state};
    ari_paje_options opt = {.no_strict = 1, .ignore_incomplete_links = 1, .report = rep};
    return ari_paje_read(path, NULL, &opt, &sink, err);
}

/* ---- files made from a fixture ---- */

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    buf[size] = '\0';
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* Writes head (n bytes) then tail into a new temporary file. */
static void make_file(char *path, const char *head, size_t n, const char *tail)
{
    strcpy(path, "/tmp/ariadne-test-paje-cut-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(head, 1, n, f);
    fputs(tail, f);
    fclose(f);
}

/* The fixture up to its last (cut) line: "... 4 1 p1 S run\n". */
static char *prefix(size_t *n)
{
    char *text = slurp(FIX "bad_truncated_line.trace", n);
    while (*n > 0 && text[*n - 1] != '\n')
        (*n)--;
    return text;
}

static void expect_same(const tally *a, const tally *b)
{
    assert_int_equal(a->states, b->states);
    assert_int_equal(a->containers, b->containers);
    assert_int_equal(a->types, b->types);
    assert_true(a->state_end_sum == b->state_end_sum);
    assert_true(a->trace_end == b->trace_end);
}

/* A last line with too few fields: ignored and reported; the rest reads as
 * the file without that line. Without a report it stays an error. */
static void test_cut_fields(void **state)
{
    (void)state;
    size_t n;
    char *text = prefix(&n), whole[64];
    make_file(whole, text, n, "");
    ari_paje_report rep;
    ari_error err = {0};
    tally got, want;
    assert_int_equal(read_file(FIX "bad_truncated_line.trace", &rep, &got, &err), 0);
    assert_int_equal(rep.cut_line, 71);
    assert_non_null(strstr(rep.cut_reason, "bad_truncated_line.trace:71:"));
    assert_int_equal(rep.unterminated_line, 0);
    assert_int_equal(read_file(whole, NULL, &want, &err), 0);
    expect_same(&got, &want);
    assert_true(got.states > 0);
    assert_int_not_equal(read_file(FIX "bad_truncated_line.trace", NULL, &got, &err), 0);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    unlink(whole);
    free(text);
}

/* A last line that splits into the right fields but names a container cut
 * short ("p" for "p1"): it fails in the replay, is ignored and reported,
 * and the trace end is not moved by its time. */
static void test_cut_in_replay(void **state)
{
    (void)state;
    size_t n;
    char *text = prefix(&n), cut[64], whole[64];
    make_file(cut, text, n, "4 9 p S run");
    make_file(whole, text, n, "");
    ari_paje_report rep;
    ari_error err = {0};
    tally got, want;
    assert_int_equal(read_file(cut, &rep, &got, &err), 0);
    assert_int_equal(rep.cut_line, 71);
    assert_non_null(strstr(rep.cut_reason, "p"));
    assert_int_equal(read_file(whole, NULL, &want, &err), 0);
    expect_same(&got, &want);
    unlink(cut);
    unlink(whole);
    free(text);
}

/* A last line without a newline that reads: kept (as with the newline) and
 * reported as unterminated. */
static void test_unterminated(void **state)
{
    (void)state;
    size_t n;
    char *text = prefix(&n), open_end[64], closed[64];
    make_file(open_end, text, n, "4 2 p1 S run");
    make_file(closed, text, n, "4 2 p1 S run\n");
    ari_paje_report rep;
    ari_error err = {0};
    tally got, want;
    assert_int_equal(read_file(open_end, &rep, &got, &err), 0);
    assert_int_equal(rep.cut_line, 0);
    assert_int_equal(rep.unterminated_line, 71);
    assert_int_equal(read_file(closed, &rep, &want, &err), 0);
    assert_int_equal(rep.unterminated_line, 0);
    expect_same(&got, &want);
    unlink(open_end);
    unlink(closed);
    free(text);
}

/* A bad line that ends with a newline, or that other lines follow, is
 * still an error with a report. */
static void test_bad_line_not_cut(void **state)
{
    (void)state;
    size_t n;
    char *text = prefix(&n), ended[64], followed[64];
    make_file(ended, text, n, "4 2 p1\n");
    make_file(followed, text, n, "4 2 p1\n4 3 p1 S run");
    ari_paje_report rep;
    ari_error err = {0};
    tally got;
    assert_int_not_equal(read_file(ended, &rep, &got, &err), 0);
    assert_non_null(strstr(err.message, ":71:"));
    assert_int_not_equal(read_file(followed, &rep, &got, &err), 0);
    assert_non_null(strstr(err.message, ":71:"));
    unlink(ended);
    unlink(followed);
    free(text);
}

/* A well-formed file reads the same with or without a report, which stays
 * empty but for the first comment. */
static void test_well_formed(void **state)
{
    (void)state;
    const char *files[] = {FIX "basic.trace", FIX "unordered.trace", FIX "unordered.trace.gz"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        ari_paje_report rep;
        ari_error err = {0};
        tally with, without;
        assert_int_equal(read_file(files[i], &rep, &with, &err), 0);
        assert_int_equal(read_file(files[i], NULL, &without, &err), 0);
        expect_same(&with, &without);
        assert_int_equal(rep.cut_line, 0);
        assert_int_equal(rep.unterminated_line, 0);
    }
    ari_paje_report rep;
    ari_error err = {0};
    tally t;
    assert_int_equal(read_file(FIX "basic.trace", &rep, &t, &err), 0);
    assert_string_equal(
        rep.first_comment,
        "ariadne fixture: every standard Paje event, in time order (pj_dump reads it as is).");
}

/* ---- the time unit of a single Paje file ---- */

static const char *unit_of(const char *path, const char **source)
{
    ari_paje_report rep;
    ari_error err = {0};
    tally t;
    assert_int_equal(read_file(path, &rep, &t, &err), 0);
    return ari_paje_dialect_unit(&t.dialect, rep.first_comment, source);
}

static void test_unit_rule(void **state)
{
    (void)state;
    const char *source;
    /* StarPU's names (the bundle fixture's paje.trace is starpu_fxt_tool's) */
    assert_string_equal(unit_of("tests/fixtures/starpu/bundle/paje.trace", &source), "ms");
    assert_non_null(strstr(source, "detected: a StarPU paje.trace"));
    assert_string_equal(unit_of(FIX "basic.trace", &source), "s");
    assert_non_null(strstr(source, "default:"));
    /* the rule on its own: every StarPU name is needed */
    ari_paje_dialect d = {1, 1, 0};
    assert_string_equal(ari_paje_dialect_unit(&d, NULL, &source), "s");
    d.worker_state = 1;
    assert_string_equal(ari_paje_dialect_unit(&d, "This file was generated using SimGrid-3.36.1", &source),
                        "ms");
    ari_paje_dialect none = {0, 0, 0};
    assert_string_equal(ari_paje_dialect_unit(&none, "This file was generated using SimGrid-3.36.1", &source),
                        "s");
    assert_non_null(strstr(source, "SimGrid"));
    assert_string_equal(ari_paje_dialect_unit(&none, "POTI_GIT_VERSION 933df0b", &source), "s");
    assert_non_null(strstr(source, "poti"));
}

/* The real traces (skipped without the shared data): the StarPU runs are
 * ms, SimGrid's and poti's s, pajeng's StarPU sample ms. */
static void test_unit_real(void **state)
{
    (void)state;
    const char *root = getenv("ARIADNE_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/pajeng/traces/simgrid-fg126.trace", root ? root : "");
    if (!root || access(path, R_OK) != 0)
        skip();
    static const struct {
        const char *file, *unit, *word;
    } cases[] = {
        {"starpu/chol_implicit_dmdas_N11520_nb24/paje.trace", "ms", "StarPU"},
        {"pajeng/traces/native_paje.trace", "ms", "StarPU"},
        {"pajeng/traces/simgrid-fg126.trace", "s", "SimGrid"},
        {"pajeng/traces/states.trace", "s", "poti"},
        {"pajeng/traces/simu-mardi.trace", "s", "default"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *source;
        snprintf(path, sizeof path, "%s/%s", root, cases[i].file);
        assert_string_equal(unit_of(path, &source), cases[i].unit);
        assert_non_null(strstr(source, cases[i].word));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_fields),   cmocka_unit_test(test_cut_in_replay),
        cmocka_unit_test(test_unterminated), cmocka_unit_test(test_bad_line_not_cut),
        cmocka_unit_test(test_well_formed),  cmocka_unit_test(test_unit_rule),
        cmocka_unit_test(test_unit_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
