/* test_input.c: the streaming line reader (plain, gzip, zstd, empty, long
 * lines, binary data, offsets and the decompressed copy). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ingest/input.h"

#define FIX "tests/fixtures/paje/"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/test_input.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void write_gzip(const char *path, const char *data, size_t len)
{
    gzFile g = gzopen(path, "wb9");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, data, (unsigned)len), (int)len);
    gzclose(g);
}

/* Reads every line of path into one string, lines joined by '|'. */
static char *slurp_lines(const char *path, size_t *nlines)
{
    ari_error err;
    ari_input *in = ari_input_open(path, NULL, &err);
    assert_non_null(in);
    size_t cap = 1024, used = 0, len;
    char *all = malloc(cap), *line;
    all[0] = '\0';
    *nlines = 0;
    while ((line = ari_input_getline(in, &len, &err)) != NULL) {
        assert_int_equal(strlen(line), len);
        while (used + len + 2 > cap)
            all = realloc(all, cap *= 2);
        if (*nlines)
            all[used++] = '|';
        memcpy(all + used, line, len + 1);
        used += len;
        (*nlines)++;
        assert_int_equal(ari_input_lineno(in), *nlines);
    }
    assert_false(ari_input_failed(in));
    assert_int_equal(ari_input_bytes_read(in), ari_input_total_bytes(in));
    ari_input_close(in);
    return all;
}

static void test_plain(void **state)
{
    (void)state;
    const char *p = tmp_path("plain.txt");
    const char *text = "first line\nsecond\r\n\nlast without newline";
    write_file(p, text, strlen(text));
    size_t n;
    char *all = slurp_lines(p, &n);
    assert_int_equal(n, 4);
    assert_string_equal(all, "first line|second||last without newline");
    free(all);

    ari_error err;
    ari_input *in = ari_input_open(p, "shown.txt", &err);
    assert_non_null(in);
    assert_false(ari_input_is_compressed(in));
    assert_int_equal(ari_input_total_bytes(in), 40);
    assert_string_equal(ari_input_name(in), "shown.txt");
    size_t len;
    assert_string_equal(ari_input_getline(in, &len, &err), "first line");
    assert_int_equal(ari_input_line_offset(in), 0);
    assert_string_equal(ari_input_getline(in, &len, &err), "second");
    assert_int_equal(ari_input_line_offset(in), 11);
    ari_input_getline(in, &len, &err);
    assert_int_equal(ari_input_line_offset(in), 19);
    ari_input_getline(in, &len, &err);
    assert_int_equal(ari_input_line_offset(in), 20);
    assert_null(ari_input_getline(in, &len, &err));
    assert_null(ari_input_getline(in, &len, &err)); /* stays at the end */
    assert_false(ari_input_failed(in));
    ari_input_close(in);
}

static void test_gzip(void **state)
{
    (void)state;
    const char *text = "alpha\nbeta\ngamma\n";
    const char *p = tmp_path("text.gz");
    write_gzip(p, text, strlen(text));
    ari_error err;
    ari_input *in = ari_input_open(p, NULL, &err);
    assert_non_null(in);
    assert_true(ari_input_is_compressed(in));
    ari_input_close(in);
    size_t n;
    char *all = slurp_lines(p, &n);
    assert_int_equal(n, 3);
    assert_string_equal(all, "alpha|beta|gamma");
    free(all);

    /* A larger fixture: the same lines as the plain file. */
    size_t n1, n2;
    char *a = slurp_lines(FIX "unordered.trace", &n1);
    char *b = slurp_lines(FIX "unordered.trace.gz", &n2);
    assert_true(n1 > 100);
    assert_int_equal(n1, n2);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void test_zstd(void **state)
{
    (void)state;
    size_t n1, n2;
    char *a = slurp_lines(FIX "basic.trace", &n1);
    char *b = slurp_lines(FIX "basic.trace.zst", &n2);
    assert_true(n1 > 100);
    assert_int_equal(n1, n2);
    assert_string_equal(a, b);
    free(a);
    free(b);
    ari_error err;
    ari_input *in = ari_input_open(FIX "basic.trace.zst", NULL, &err);
    assert_non_null(in);
    assert_true(ari_input_is_compressed(in));
    ari_input_close(in);
}

static void test_empty(void **state)
{
    (void)state;
    const char *p = tmp_path("empty");
    write_file(p, "", 0);
    ari_error err;
    ari_input *in = ari_input_open(p, NULL, &err);
    assert_non_null(in);
    size_t len = 99;
    assert_null(ari_input_getline(in, &len, &err));
    assert_int_equal(len, 0);
    assert_false(ari_input_failed(in));
    assert_int_equal(ari_input_lineno(in), 0);
    ari_input_close(in);

    /* A gzip of nothing is empty too. */
    p = tmp_path("empty.gz");
    write_gzip(p, "", 0);
    in = ari_input_open(p, NULL, &err);
    assert_non_null(in);
    assert_null(ari_input_getline(in, &len, &err));
    assert_false(ari_input_failed(in));
    ari_input_close(in);
}

static void check_long_line(const char *p, int gz)
{
    size_t big = ARI_INPUT_MAX_LINE + 10;
    char *data = malloc(big + 16);
    memcpy(data, "short\n", 6);
    memset(data + 6, 'x', big);
    memcpy(data + 6 + big, "\nend\n", 5);
    if (gz)
        write_gzip(p, data, big + 11);
    else
        write_file(p, data, big + 11);
    free(data);
    ari_error err;
    ari_input *in = ari_input_open(p, "long.txt", &err);
    assert_non_null(in);
    size_t len;
    assert_string_equal(ari_input_getline(in, &len, &err), "short");
    assert_null(ari_input_getline(in, &len, &err));
    assert_true(ari_input_failed(in));
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "long.txt:2: line longer than 1048576 bytes"));
    ari_input_close(in);
}

static void test_long_line(void **state)
{
    (void)state;
    check_long_line(tmp_path("long.txt"), 0);
    check_long_line(tmp_path("long.gz"), 1);

    /* A line of exactly the limit is fine; one more byte is not. */
    const char *p = tmp_path("limit.txt");
    write_file(p, "12345678\n123456789\n", 19);
    ari_error err;
    ari_input *in = ari_input_open(p, NULL, &err);
    ari_input_set_max_line(in, 8);
    size_t len;
    assert_string_equal(ari_input_getline(in, &len, &err), "12345678");
    assert_null(ari_input_getline(in, &len, &err));
    assert_non_null(strstr(err.message, ":2: line longer than 8 bytes"));
    ari_input_close(in);
}

static void test_binary(void **state)
{
    (void)state;
    const char *p = tmp_path("bin.txt");
    write_file(p, "text\nbin\0ary\n", 13);
    ari_error err;
    ari_input *in = ari_input_open(p, "bin.txt", &err);
    size_t len;
    assert_non_null(ari_input_getline(in, &len, &err));
    assert_null(ari_input_getline(in, &len, &err));
    assert_true(ari_input_failed(in));
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "bin.txt:2: binary data (NUL byte)"));
    ari_input_close(in);
}

static void test_open_errors(void **state)
{
    (void)state;
    ari_error err;
    assert_null(ari_input_open(tmp_path("missing"), "missing.trace", &err));
    assert_string_equal(err.code, ARI_E_IO);
    assert_non_null(strstr(err.message, "missing.trace: No such file"));
    assert_null(ari_input_open(tmpdir, NULL, &err));
    assert_string_equal(err.code, ARI_E_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
}

static void test_truncated_gzip(void **state)
{
    (void)state;
    /* A gzip stream cut in the middle: an error, never a silent short read. */
    char text[20000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (i % 50 == 49) ? '\n' : (char)('a' + (i * 7919) % 26);
    const char *p = tmp_path("cut.gz");
    write_gzip(p, text, sizeof text);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(truncate(p, st.st_size / 2), 0);
    ari_error err;
    ari_input *in = ari_input_open(p, "cut.gz", &err);
    if (in) { /* libarchive may notice at open or while reading */
        size_t len;
        while (ari_input_getline(in, &len, &err))
            ;
        assert_true(ari_input_failed(in));
        ari_input_close(in);
    }
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "cut.gz: truncated gzip stream"));
}

/* Cut anywhere, a gzip, zstd, bzip2 or xz stream is "truncated", named by
 * its filter, whether libarchive notices at open, while reading, or not at
 * all (a stream too short to be recognised, read as plain data). */
static void test_truncated_everywhere(void **state)
{
    (void)state;
    static const char *tools[] = {"gzip", "zstd -q", "bzip2", "xz"};
    static const char *names[] = {"gzip", "zstd", "bzip2", "xz"};
    char text[30000], cmd[1024], whole[256], plain[256], cut[256];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (i % 60 == 59) ? '\n' : (char)('a' + (i * 7919) % 26);
    snprintf(plain, sizeof plain, "%s", tmp_path("plain"));
    snprintf(whole, sizeof whole, "%s", tmp_path("whole"));
    snprintf(cut, sizeof cut, "%s", tmp_path("cut"));
    write_file(plain, text, sizeof text);
    for (int t = 0; t < 4; t++) {
        snprintf(cmd, sizeof cmd, "%s -c '%s' > '%s'", tools[t], plain, whole);
        assert_int_equal(system(cmd), 0);
        struct stat st;
        assert_int_equal(stat(whole, &st), 0);
        long cuts[] = {4, 7, 12, 40, (long)st.st_size / 2, (long)st.st_size - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            snprintf(cmd, sizeof cmd, "head -c %ld '%s' > '%s'", cuts[c], whole, cut);
            assert_int_equal(system(cmd), 0);
            ari_error err = {0};
            ari_input *in = ari_input_open(cut, "run1/x.trace", &err);
            size_t len;
            while (in && ari_input_getline(in, &len, &err))
                ;
            int failed = !in || ari_input_failed(in);
            ari_input_close(in);
            if (!failed)
                fail_msg("%s cut at %ld: read without an error", names[t], cuts[c]);
            char want[64];
            snprintf(want, sizeof want, "run1/x.trace: truncated %s stream", names[t]);
            if (strncmp(err.message, want, strlen(want)) != 0)
                fail_msg("%s cut at %ld: %s (%s)", names[t], cuts[c], err.message, err.code);
            assert_string_equal(err.code, ARI_E_INVALID_INPUT);
            ari_error head = {0};
            if (cuts[c] < 2000) /* within the head a reader probes */
                assert_int_equal(ari_input_check_head(cut, "run1/x.trace", 8192, &head), -1);
        }
        assert_int_equal(ari_input_check_head(whole, "x", 8192, NULL), 0);
    }
    assert_int_equal(ari_input_check_head(plain, "x", 8192, NULL), 0);
}

/* A full disk says so (ENOSPC, EDQUOT), other errors keep strerror. */
static void test_io_reason(void **state)
{
    (void)state;
    assert_string_equal(ari_io_reason(ENOSPC), "the server's disk is full");
    assert_string_equal(ari_io_reason(EDQUOT), "the server's disk is full");
    assert_string_equal(ari_io_reason(EACCES), strerror(EACCES));
}

/* A small .gz that decodes past the cap fails with too_large instead of
 * being decoded to its end (a plain file of the same size is not capped). */
static void test_decode_cap(void **state)
{
    (void)state;
    size_t n = 4 << 20;
    char *zeros = malloc(n);
    memset(zeros, '\n', n);
    const char *p = tmp_path("newlines.gz");
    write_gzip(p, zeros, n);
    ari_input_set_max_decoded(1 << 20);
    ari_error err = {0};
    ari_input *in = ari_input_open(p, "newlines.gz", &err);
    assert_non_null(in);
    size_t len;
    uint64_t lines = 0;
    while (ari_input_getline(in, &len, &err) != NULL)
        lines++;
    assert_true(ari_input_failed(in));
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    assert_non_null(strstr(err.message, "newlines.gz: decompresses to more than 1048576 bytes"));
    assert_true(lines < (2u << 20));
    ari_input_close(in);

    const char *plain = tmp_path("newlines.txt");
    write_file(plain, zeros, n);
    in = ari_input_open(plain, NULL, &err);
    lines = 0;
    while (ari_input_getline(in, &len, &err) != NULL)
        lines++;
    assert_false(ari_input_failed(in));
    ari_input_close(in);
    ari_input_set_max_decoded(0);
    free(zeros);
}

static void test_tee(void **state)
{
    (void)state;
    FILE *copy = tmpfile();
    assert_non_null(copy);
    ari_error err;
    ari_input *in = ari_input_open(FIX "unordered.trace.gz", NULL, &err);
    ari_input_set_tee(in, copy);
    size_t len;
    while (ari_input_getline(in, &len, &err))
        ;
    assert_false(ari_input_failed(in));
    ari_input_close(in);
    fflush(copy);
    long n = ftell(copy);
    FILE *orig = fopen(FIX "unordered.trace", "rb");
    assert_non_null(orig);
    char *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
    rewind(copy);
    assert_int_equal(fread(a, 1, (size_t)n + 1, copy), n);
    assert_int_equal(fread(b, 1, (size_t)n + 1, orig), n);
    assert_memory_equal(a, b, (size_t)n);
    free(a);
    free(b);
    fclose(orig);
    fclose(copy);
}

/* The byte interface: ari_input_read after a getline hands out what the
 * line buffer holds first, then the rest; read_all and head decode too. */
static void test_bytes(void **state)
{
    (void)state;
    const char *text = "first line\n{\"json\": [1, 2, 3]}\n";
    const char *p = tmp_path("bytes.gz");
    write_gzip(p, text, strlen(text));
    ari_error err = {0};
    ari_input *in = ari_input_open(p, "bytes.gz", &err);
    assert_non_null(in);
    size_t len;
    assert_string_equal(ari_input_getline(in, &len, &err), "first line");
    char buf[8], all[128] = "";
    long n;
    while ((n = ari_input_read(in, buf, sizeof buf, &err)) > 0)
        strncat(all, buf, (size_t)n);
    assert_int_equal(n, 0);
    assert_string_equal(all, "{\"json\": [1, 2, 3]}\n");
    ari_input_close(in);

    char *data;
    assert_int_equal(ari_input_load(p, "bytes.gz", &data, &len, &err), 0);
    assert_int_equal(len, strlen(text));
    assert_string_equal(data, text);
    free(data);

    char head[5];
    assert_int_equal(ari_input_head(p, head, sizeof head), 5);
    assert_memory_equal(head, "first", 5);
    assert_int_equal(ari_input_head(tmp_path("missing"), head, sizeof head), -1);
    write_file(tmp_path("empty"), "", 0);
    assert_int_equal(ari_input_head(tmp_path("empty"), head, sizeof head), 0);

    in = ari_input_open(tmp_path("bytes.gz"), "bytes.gz", &err); /* a cap on read_all */
    assert_non_null(in);
    assert_int_equal(ari_input_read_all(in, 10, &data, &len, &err), -1);
    assert_string_equal(err.code, ARI_E_TOO_LARGE);
    ari_input_close(in);
}

/* A truncated gzip is an error for byte reads too, never a short read. */
static void test_bytes_truncated(void **state)
{
    (void)state;
    size_t n = 200000;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + (i * 7919) % 26);
    const char *p = tmp_path("cut.json.gz");
    write_gzip(p, data, n);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(truncate(p, st.st_size / 2), 0);
    ari_error err = {0};
    char *all;
    size_t len;
    assert_int_equal(ari_input_load(p, "cut.json.gz", &all, &len, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_INPUT);
    assert_non_null(strstr(err.message, "cut.json.gz: truncated gzip stream"));
    free(data);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),       cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_zstd),        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_long_line),   cmocka_unit_test(test_binary),
        cmocka_unit_test(test_open_errors), cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_tee),         cmocka_unit_test(test_decode_cap),
        cmocka_unit_test(test_bytes),       cmocka_unit_test(test_bytes_truncated),
        cmocka_unit_test(test_truncated_everywhere), cmocka_unit_test(test_io_reason),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
