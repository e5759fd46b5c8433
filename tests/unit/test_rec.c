/* test_rec.c: the text readers of task-based traces: the GNU recfile
 * reader (rec.c), the CSV reader (csv.c) and the DOT reader (dot.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ingest/csv.h"
#include "ingest/dot.h"
#include "ingest/rec.h"
#include "test_helpers.h"

static char *write_tmp(char **dir, const char *name, const char *text, size_t len)
{
    *dir = test_tmpdir();
    return test_write_file(*dir, name, text, len);
}

static void cleanup(char *dir, char *path)
{
    ari_remove_tree(dir);
    free(dir);
    free(path);
}

static void test_rec_records(void **state)
{
    (void)state;
    static const char text[] =
        "# a comment\n"
        "%rec: worker_count\n"
        "\n"
        "Name: dgemm\n"
        "JobId: 0_4\n"
        "Handles: 5600aa000000\n"
        "+ 5600aa000100\n"
        "Empty:\n"
        "\n\n"
        "Control: WontUse\r\n"
        "JobId:   7";
    char *dir, *path = write_tmp(&dir, "tasks.rec", text, sizeof text - 1);
    ari_error err = {0};
    ari_rec *r = ari_rec_open(path, "tasks.rec", &err);
    assert_non_null(r);
    const ari_field *f;
    size_t n;
    assert_int_equal(ari_rec_next(r, &f, &n, &err), 1); /* the %rec descriptor is skipped */
    assert_int_equal(n, 4);
    assert_string_equal(f[0].name, "Name");
    assert_string_equal(f[0].value, "dgemm");
    assert_string_equal(ari_rec_get(f, n, "Handles"), "5600aa000000\n5600aa000100");
    assert_string_equal(ari_rec_get(f, n, "Empty"), "");
    assert_null(ari_rec_get(f, n, "Missing"));
    assert_int_equal(ari_rec_lineno(r), 4);
    assert_int_equal(ari_rec_next(r, &f, &n, &err), 1);
    assert_int_equal(n, 2);
    assert_string_equal(ari_rec_get(f, n, "Control"), "WontUse");
    assert_string_equal(ari_rec_get(f, n, "JobId"), "7");
    assert_int_equal(ari_rec_next(r, &f, &n, &err), 0);
    ari_rec_close(r);
    cleanup(dir, path);
}

static void expect_rec_error(const char *text, size_t len, const char *needle)
{
    char *dir, *path = write_tmp(&dir, "bad.rec", text, len);
    ari_error err = {0};
    ari_rec *r = ari_rec_open(path, "bad.rec", &err);
    assert_non_null(r);
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_rec_next(r, &f, &n, &err)) == 1)
        ;
    assert_int_equal(rc, -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    if (!strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
    ari_rec_close(r);
    cleanup(dir, path);
}

static void test_rec_errors(void **state)
{
    (void)state;
    static const char not_field[] = "Name: a\nthis is not a field\n";
    expect_rec_error(not_field, sizeof not_field - 1, "bad.rec:2: expected a 'Field: value' line");
    static const char plus_first[] = "+ orphan\n";
    expect_rec_error(plus_first, sizeof plus_first - 1, "bad.rec:1: continuation line");
    static const char binary[] = "Name: a\nJob\0Id: 1\n";
    expect_rec_error(binary, sizeof binary - 1, "bad.rec:2");
    static const char truncated[] = "Name: dgemm\nStartTi";
    expect_rec_error(truncated, sizeof truncated - 1, "bad.rec:2");
    /* a line longer than the line reader's limit */
    size_t big = ((size_t)1 << 20) + 100;
    char *huge = malloc(big);
    memcpy(huge, "Name: ", 6);
    memset(huge + 6, 'x', big - 7);
    huge[big - 1] = '\n';
    expect_rec_error(huge, big, "bad.rec:1");
    free(huge);
}

static void test_rec_probe(void **state)
{
    (void)state;
    static const char rec[] = "# c\nName: a\nJobId: 1\n\nName: b\nJo";
    assert_int_equal(ari_rec_probe(rec, sizeof rec - 1), 1);
    static const char paje[] = "%EventDef PajeDefineContainerType 1\n";
    assert_int_equal(ari_rec_probe(paje, sizeof paje - 1), 0);
    assert_int_equal(ari_rec_probe("a,b,c\n1,2,3\n", 12), 0);
}

static void test_csv_rows(void **state)
{
    (void)state;
    static const char text[] =
        "Nature, ResourceId, Value\n"
        "State, 0_CPU0 , \"dgemm, \"\"fast\"\"\"\n"
        "\n"
        "a,,\"\"\n";
    char *dir, *path = write_tmp(&dir, "t.csv", text, sizeof text - 1);
    ari_error err = {0};
    ari_csv *c = ari_csv_open(path, "t.csv", &err);
    assert_non_null(c);
    char **f;
    size_t n;
    assert_int_equal(ari_csv_next(c, &f, &n, &err), 1);
    assert_int_equal(n, 3);
    assert_int_equal(ari_csv_column(f, n, "ResourceId"), 1);
    assert_int_equal(ari_csv_column(f, n, "Nope"), -1);
    assert_int_equal(ari_csv_next(c, &f, &n, &err), 1);
    assert_string_equal(f[1], "0_CPU0");
    assert_string_equal(f[2], "dgemm, \"fast\"");
    assert_int_equal(ari_csv_next(c, &f, &n, &err), 1); /* blank line skipped */
    assert_int_equal(n, 3);
    assert_string_equal(f[1], "");
    assert_string_equal(f[2], "");
    assert_int_equal(ari_csv_next(c, &f, &n, &err), 0);
    ari_csv_close(c);
    cleanup(dir, path);

    static const char bad[] = "a,b\n\"open,b\n";
    path = write_tmp(&dir, "bad.csv", bad, sizeof bad - 1);
    c = ari_csv_open(path, "bad.csv", &err);
    assert_int_equal(ari_csv_next(c, &f, &n, &err), 1);
    assert_int_equal(ari_csv_next(c, &f, &n, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "bad.csv:2: unterminated quoted field"));
    ari_csv_close(c);
    cleanup(dir, path);
}

typedef struct edges {
    char text[512];
} edges;

static int on_edge(void *ctx, const char *from, const char *to, const char *label)
{
    edges *e = ctx;
    size_t used = strlen(e->text);
    snprintf(e->text + used, sizeof e->text - used, "%s>%s[%s];", from, to, label ? label : "");
    return 0;
}

static int on_node(void *ctx, const char *id, const char *label)
{
    edges *e = ctx;
    size_t used = strlen(e->text);
    snprintf(e->text + used, sizeof e->text - used, "%s(%s);", id, label ? label : "");
    return 0;
}

static void test_dot(void **state)
{
    (void)state;
    static const char dag[] =
        "digraph G {\n\tcolor=white\nsubgraph cluster_0 {\n"
        "\t \"task_1\" [ style=filled, label=\"POTRF\", fillcolor=\"#aaaaaa\"]\n}\n"
        "\t \"task_1\"->\"task_2\" [label=\"task\"]\n"
        "\t \"task_2\"->\"mpi_0_1\"\n"
        "node [color=black,\nfillcolor=white\n];\n"
        "node000017 -- node000001\n"
        "node000001[fillcolor=gray , label=\" node:     1\\n m: 6\"];\n"
        "}\n";
    char *dir, *path = write_tmp(&dir, "dag.dot", dag, sizeof dag - 1);
    ari_error err = {0};
    edges e = {""};
    ari_dot_callbacks cb = {&e, on_edge, on_node};
    assert_int_equal(ari_dot_read(path, "dag.dot", &cb, &err), 0);
    assert_string_equal(e.text, "task_1(POTRF);task_1>task_2[task];task_2>mpi_0_1[];"
                                "node000017>node000001[];node000001( node:     1\\n m: 6);");
    cleanup(dir, path);

    static const char truncated[] = "digraph G {\n\"task_1\"->\"task_2\"\n";
    path = write_tmp(&dir, "cut.dot", truncated, sizeof truncated - 1);
    assert_int_equal(ari_dot_read(path, "cut.dot", &cb, &err), -1);
    assert_non_null(strstr(err.message, "cut.dot: unexpected end of file"));
    cleanup(dir, path);

    static const char wrong[] = "Name: a\n";
    path = write_tmp(&dir, "wrong.dot", wrong, sizeof wrong - 1);
    assert_int_equal(ari_dot_read(path, "wrong.dot", &cb, &err), -1);
    assert_non_null(strstr(err.message, "wrong.dot:1: not a DOT graph"));
    cleanup(dir, path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rec_records),
        cmocka_unit_test(test_rec_errors),
        cmocka_unit_test(test_rec_probe),
        cmocka_unit_test(test_csv_rows),
        cmocka_unit_test(test_dot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
