/* test_event_read.c: the isolated event-trace read (src/ingest/event_read.c
 * with `ariadned event-reader`, server/cmd_event_reader.c):
 *  - the same sink calls, in the same order, isolated as in process, on an
 *    OTF2 archive of the fixtures, the tiny Projections and HPCToolkit
 *    fixtures and, with ../shared/data, Pipit's ping-pong OTF2, Projections
 *    and HPCToolkit traces;
 *  - a corrupt archive (anchor patched, traces.def cut, the huge Group of
 *    fuzz_otf2) fails with the reader's message, the parent unharmed;
 *  - a child that crashes (a script killing itself with SIGSEGV), writes
 *    garbage, exits early, hangs, spins past its CPU limit, or cannot be
 *    started; a sink that says stop: each a clear error, no child left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ingest/event_read.h"
#include "test_helpers.h"
#include "test_log_sink.h"
#include "util/fs.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* libotf2 leaks a few bytes on some refused archives (see test_otf2.c). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:otf2_file_posix_open\nleak:OTF2_UTILS_IO_JoinPath\nleak:libotf2\n";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static char *path_in(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

static const char *ariadned(void)
{
    const char *exe = getenv("ARIADNED");
    return exe && access(exe, X_OK) == 0 ? exe : NULL;
}

/* Reads into a fresh log: the answer, the log text (malloc'd), the error. */
static int read_log(ari_event_reader r, const char *const *paths, size_t n, char **log, ari_error *err,
                    int64_t fail_at)
{
    tls_sink *t = tls_new();
    t->fail_at = fail_at;
    ari_event_sink k = tls_sink_of(t);
    memset(err, 0, sizeof *err);
    int rc = ari_event_read(r, paths, n, &k, err);
    if (log)
        *log = strdup(tls_text(t));
    tls_free(t);
    return rc;
}

/* In process and isolated: both succeed with the same calls. */
static void same_calls(ari_event_reader r, const char *const *paths, size_t n, size_t min_lines)
{
    char *in, *out;
    ari_error err;
    ari_event_read_isolate(NULL, 0, 0);
    if (read_log(r, paths, n, &in, &err, 0) != 0)
        fail_msg("in process: %s", err.message);
    ari_event_read_isolate(ariadned(), (size_t)1 << 30, 60);
    int rc = read_log(r, paths, n, &out, &err, 0);
    ari_event_read_isolate(NULL, 0, 0);
    if (rc != 0)
        fail_msg("isolated: %s (%s)", err.message, err.code);
    size_t lines = 0;
    for (const char *p = in; *p; p++)
        lines += *p == '\n';
    if (lines < min_lines)
        fail_msg("%s: only %zu calls", paths[0], lines);
    assert_string_equal(out, in);
    free(in), free(out);
}

/* An OTF2 archive from a fixture of tests/fixtures/fuzz/otf2 (its parts
 * joined by the fuzz file mark) in a new directory; returns the directory. */
static char *archive_of(const char *fixture)
{
    static const char *const files[] = {"traces.otf2",  "traces.def",   "traces/0.evt", "traces/0.def",
                                        "traces/1.evt", "traces/1.def", "traces/5.evt", "traces/5.def"};
    static const char mark[] = "\n--ariadne-fuzz-file--\n";
    char *dir = test_tmpdir(), *sub = path_in(dir, "traces"), *src;
    if (asprintf(&src, "%s/tests/fixtures/fuzz/otf2/%s", test_source_dir(), fixture) < 0)
        abort();
    mkdir(sub, 0700);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    char *data = malloc(1 << 20);
    size_t len = fread(data, 1, 1 << 20, f);
    fclose(f);
    const char *p = data, *end = data + len;
    for (size_t i = 0; i < sizeof files / sizeof *files && p; i++) {
        const char *m = memmem(p, (size_t)(end - p), mark, sizeof mark - 1);
        free(test_write_file(dir, files[i], p, (size_t)((m ? m : end) - p)));
        p = m ? m + sizeof mark - 1 : NULL;
    }
    free(data), free(src), free(sub);
    return dir;
}

static void test_same_calls_fixtures(void **state)
{
    (void)state;
    if (!ariadned())
        skip();
    char *dir = archive_of("generated.bin"), *anchor = path_in(dir, "traces.otf2");
    const char *otf2[] = {anchor};
    same_calls(ARI_EVREAD_OTF2, otf2, 1, 40);
    ari_remove_tree(dir);
    free(dir), free(anchor);

    char *sts = path_in(test_source_dir(), "tests/fixtures/projections/tiny.sts");
    char *log0 = path_in(test_source_dir(), "tests/fixtures/projections/tiny.0.log");
    char *log1 = path_in(test_source_dir(), "tests/fixtures/projections/tiny.1.log");
    const char *prj[] = {sts, log0, log1};
    same_calls(ARI_EVREAD_PROJECTIONS, prj, 3, 10);
    free(sts), free(log0), free(log1);

    char *db = path_in(test_source_dir(), "tests/fixtures/hpctoolkit_db/tiny");
    const char *hdb[] = {db};
    same_calls(ARI_EVREAD_HPCTOOLKIT, hdb, 1, 10);
    free(db);
}

static const char *shared_data(void)
{
    const char *d = getenv("ARIADNE_SHARED_DATA");
    return d && *d ? d : "../shared/data";
}

static void test_same_calls_pipit(void **state)
{
    (void)state;
    char *base = path_in(shared_data(), "pipit/pipit/tests/data");
    char *anchor = path_in(base, "ping-pong-otf2/traces.otf2");
    if (!ariadned() || access(anchor, R_OK) != 0) {
        free(base), free(anchor);
        skip();
    }
    const char *otf2[] = {anchor};
    same_calls(ARI_EVREAD_OTF2, otf2, 1, 100);
    char *papi = path_in(base, "ping-pong-otf2-papi/traces.otf2");
    const char *otf2p[] = {papi};
    if (access(papi, R_OK) == 0)
        same_calls(ARI_EVREAD_OTF2, otf2p, 1, 100);
    char *hdir = path_in(base, "ping-pong-hpctoolkit");
    const char *hdb[] = {hdir};
    char *meta = path_in(hdir, "trace.db");
    if (access(meta, R_OK) == 0)
        same_calls(ARI_EVREAD_HPCTOOLKIT, hdb, 1, 100);
    /* Projections: the .sts and every .log of the directory */
    char *pdir = path_in(base, "ping-pong-projections");
    DIR *d = opendir(pdir);
    const char *prj[64];
    char *own[64];
    size_t n = 1, nown = 0;
    prj[0] = NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < 64;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".sts") == 0)
            prj[0] = own[nown++] = path_in(pdir, e->d_name);
        else if (strstr(e->d_name, ".log"))
            prj[n++] = own[nown++] = path_in(pdir, e->d_name);
    }
    if (d)
        closedir(d);
    if (prj[0] && n > 1)
        same_calls(ARI_EVREAD_PROJECTIONS, prj, n, 10);
    for (size_t i = 0; i < nown; i++)
        free(own[i]);
    free(pdir), free(meta), free(hdir), free(papi), free(anchor), free(base);
}

/* ---- corrupt archives: the reader's own error, the parent alive ------------- */

static void isolated_error(const char *anchor, const char *want, size_t max_bytes)
{
    ari_error err;
    const char *otf2[] = {anchor};
    ari_event_read_isolate(ariadned(), max_bytes, 60);
    int rc = read_log(ARI_EVREAD_OTF2, otf2, 1, NULL, &err, 0);
    ari_event_read_isolate(NULL, 0, 0);
    if (rc != -1 || !strstr(err.message, want))
        fail_msg("%s: wanted an error with '%s', got %d: %s", anchor, want, rc, err.message);
    assert_true(err.code[0] != '\0');
}

static void patch(const char *path, long at, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, at, SEEK_SET);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static void test_corrupt_archives(void **state)
{
    (void)state;
    if (!ariadned())
        skip();
    char *dir = archive_of("generated.bin"), *anchor = path_in(dir, "traces.otf2");
    /* a chunk size of 2^56: refused before libotf2 allocates it */
    patch(anchor, 19, "\x01", 1);
    isolated_error(anchor, "traces.otf2: chunk sizes", (size_t)1 << 30);
    ari_remove_tree(dir);
    free(dir), free(anchor);

    dir = archive_of("generated.bin"), anchor = path_in(dir, "traces.otf2");
    char *def = path_in(dir, "traces.def");
    assert_int_equal(truncate(def, 100), 0);
    isolated_error(anchor, "traces.def", (size_t)1 << 30);
    ari_remove_tree(dir);
    free(dir), free(anchor), free(def);

    /* libotf2 mallocs 32 GB for this Group: otf2.c refuses it first, in
     * process as isolated */
    dir = archive_of("def-huge-group.bin"), anchor = path_in(dir, "traces.otf2");
    const char *huge = "traces.def: a Group record at byte 369 claims 4294967295 members in 11 bytes (corrupt)";
    isolated_error(anchor, huge, (size_t)512 << 20);
    const char *otf2[] = {anchor};
    ari_error err;
    assert_int_equal(read_log(ARI_EVREAD_OTF2, otf2, 1, NULL, &err, 0), -1);
    assert_string_equal(err.message, huge);
    ari_remove_tree(dir);
    free(dir), free(anchor);
}

/* The shared ping-pong archive copied and its traces.def cut or patched. */
static void test_corrupt_pingpong(void **state)
{
    (void)state;
    char *src = path_in(shared_data(), "pipit/pipit/tests/data/ping-pong-otf2");
    char *src_anchor = path_in(src, "traces.otf2");
    if (!ariadned() || access(src_anchor, R_OK) != 0) {
        free(src), free(src_anchor);
        skip();
    }
    char *dir = test_tmpdir(), *cmd;
    if (asprintf(&cmd, "cp -r '%s'/traces '%s'/traces.otf2 '%s'/traces.def '%s'/", src, src, src, dir) < 0)
        abort();
    assert_int_equal(system(cmd), 0);
    char *anchor = path_in(dir, "traces.otf2"), *def = path_in(dir, "traces.def");
    struct stat st;
    assert_int_equal(stat(def, &st), 0);
    /* every byte of the definitions flipped in turn would be slow; a few
     * cuts and patches, each a clean error or a clean read */
    long cuts[] = {st.st_size / 2, st.st_size - 3, 40};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        char *copy;
        if (asprintf(&copy, "cp '%s'/traces.def '%s'/traces.def", src, dir) < 0)
            abort();
        assert_int_equal(system(copy), 0);
        free(copy);
        assert_int_equal(truncate(def, cuts[i]), 0);
        isolated_error(anchor, "traces.def", (size_t)1 << 30);
    }
    /* the anchor's magic broken */
    patch(anchor, 2, "XXXX", 4);
    isolated_error(anchor, "traces.otf2: not an OTF2 anchor file", (size_t)1 << 30);
    ari_remove_tree(dir);
    free(dir), free(cmd), free(anchor), free(def), free(src), free(src_anchor);
}

/* ---- children that misbehave ----------------------------------------------- */

/* A shell script as the "ariadned" of the read; returns its path. */
static char *script(const char *dir, const char *body)
{
    char *text;
    if (asprintf(&text, "#!/bin/sh\n%s\n", body) < 0)
        abort();
    char *path = test_write_file(dir, "fake-ariadned", text, strlen(text));
    chmod(path, 0700);
    free(text);
    return path;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs the script as the child: wants -1 with `want` in the message, and
 * no child left behind. */
static void child_error(const char *body, unsigned max_seconds, const char *want, const char *code)
{
    char *dir = test_tmpdir(), *exe = script(dir, body);
    const char *paths[] = {"/some/where/traces.otf2"};
    ari_error err;
    ari_event_read_isolate(exe, (size_t)1 << 30, max_seconds);
    double t0 = now_s();
    int rc = read_log(ARI_EVREAD_OTF2, paths, 1, NULL, &err, 0);
    double took = now_s() - t0;
    ari_event_read_isolate(NULL, 0, 0);
    if (rc != -1 || !strstr(err.message, want) || strcmp(err.code, code) != 0)
        fail_msg("'%s': wanted '%s' (%s), got %d: %s (%s)", body, want, code, rc, err.message, err.code);
    assert_true(took < 30);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child of ours left */
    assert_int_equal(errno, ECHILD);
    ari_remove_tree(dir);
    free(dir), free(exe);
}

static void test_child_crash(void **state)
{
    (void)state;
    child_error("kill -SEGV $$", 60,
                "the OTF2 reader crashed on /some/where/traces.otf2 (signal 11, Segmentation fault): the trace is corrupt "
                "or not supported", ARI_E_INVALID_INPUT);
    child_error("kill -ABRT $$", 60, "(signal 6, Aborted)", ARI_E_INVALID_INPUT);
    /* a crash after some garbage: the crash is what is told */
    child_error("printf 'zzzzzzzzzzzz'; kill -SEGV $$", 60, "crashed on /some/where/traces.otf2 (signal 11",
                ARI_E_INVALID_INPUT);
}

static void test_child_garbage(void **state)
{
    (void)state;
    child_error("printf 'zzzzzzzzzzzz'", 60, "the event reader's output is corrupt: a bad frame type or length (frame 1, byte 0)",
                ARI_E_INVALID_INPUT);
    child_error("exit 0", 60, "the OTF2 reader stopped on /some/where/traces.otf2 (exit status 0) before the end of its output",
                ARI_E_INVALID_INPUT);
    child_error("exit 7", 60, "(exit status 7)", ARI_E_INVALID_INPUT);
    /* a frame cut in its middle: a process frame of 20 bytes, 3 given */
    child_error("printf '\\001\\024\\000\\000\\000abc'", 60, "is cut in a frame", ARI_E_INVALID_INPUT);
    /* the ERROR frame of a child that exits 1 after it: its own message */
    child_error("printf '\\015\\027\\000\\000\\000\\004\\000\\000\\000io_\\000\\013\\000\\000\\000x.def: bad\\000';"
                " exit 1", 60, "x.def: bad", "io_");
}

static void test_child_limits(void **state)
{
    (void)state;
    /* silent: stopped after 10 s (the floor of the silence limit) */
    child_error("exec sleep 60", 1, "sent nothing for 10 s on /some/where/traces.otf2", ARI_E_TOO_LARGE);
    /* spinning: its CPU limit */
    child_error("while :; do :; done", 1, "took more than 1 s of CPU on /some/where/traces.otf2", ARI_E_TOO_LARGE);
}

static void test_no_executable(void **state)
{
    (void)state;
    const char *paths[] = {"traces.otf2"};
    ari_error err;
    ari_event_read_isolate("/nonexistent/ariadned", 0, 0);
    int rc = read_log(ARI_EVREAD_OTF2, paths, 1, NULL, &err, 0);
    ari_event_read_isolate(NULL, 0, 0);
    assert_int_equal(rc, -1);
    assert_string_equal(err.code, ARI_E_IO);
    assert_non_null(strstr(err.message, "cannot start the OTF2 reader (/nonexistent/ariadned event-reader)"));
}

/* The sink says stop after n calls: -1, its error untouched, the child gone. */
static void test_sink_stop(void **state)
{
    (void)state;
    if (!ariadned())
        skip();
    char *dir = archive_of("generated.bin"), *anchor = path_in(dir, "traces.otf2");
    const char *otf2[] = {anchor};
    ari_error err;
    ari_event_read_isolate(ariadned(), (size_t)1 << 30, 60);
    for (int64_t at = 1; at < 40; at += 7) {
        assert_int_equal(read_log(ARI_EVREAD_OTF2, otf2, 1, NULL, &err, at), -1);
        assert_string_equal(err.code, "");
        assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    }
    ari_event_read_isolate(NULL, 0, 0);
    ari_remove_tree(dir);
    free(dir), free(anchor);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_calls_fixtures), cmocka_unit_test(test_same_calls_pipit),
        cmocka_unit_test(test_corrupt_archives),    cmocka_unit_test(test_corrupt_pingpong),
        cmocka_unit_test(test_child_crash),         cmocka_unit_test(test_child_garbage),
        cmocka_unit_test(test_child_limits),        cmocka_unit_test(test_no_executable),
        cmocka_unit_test(test_sink_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
