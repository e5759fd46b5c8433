/* cmd_event_reader.c: `ariadned event-reader [--max-memory B] [--max-cpu S]
 * [--] otf2|projections|hpctoolkit PATH...`, internal (not in the usage):
 * the child process of an isolated event-trace read (event_read.h). It
 * bounds itself (address space, CPU time, no core file), runs the reader
 * in process and writes every sink call as a frame (event_wire.h) to the
 * stdout it was given; anything else that would go to stdout (a library's
 * printf) goes to stderr instead. Exit 0 after the END frame; 1 after an
 * ERROR frame; 2 on bad arguments; 3 when the parent went away.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "ingest/event_read.h"
#include "ingest/event_wire.h"
#include "ingest/input.h"

/* ARIADNE_TEST_READER_FAULT=segv|abort|hang|alloc makes the child misbehave
 * before reading, as a reader broken by a hostile trace would: the API
 * tests show that the daemon survives each (whoever sets a daemon's
 * environment controls the daemon anyway). */
static void test_fault(void)
{
    const char *f = getenv("ARIADNE_TEST_READER_FAULT");
    if (!f)
        return;
    if (strcmp(f, "segv") == 0) {
        signal(SIGSEGV, SIG_DFL); /* a sanitizer's handler would turn it into an abort */
        raise(SIGSEGV);
    }
    if (strcmp(f, "abort") == 0)
        abort();
    if (strcmp(f, "hang") == 0)
        for (;;)
            pause();
    struct rlimit as;
    if (strcmp(f, "alloc") == 0 && getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        for (size_t n = 0;; n++) { /* until the address-space limit: then abort as libraries do */
            char *p = malloc((size_t)64 << 20);
            if (!p)
                abort();
            memset(p, (int)n, (size_t)64 << 20);
        }
    if (strcmp(f, "alloc") == 0)
        abort(); /* no limit (a sanitizer build): do not take the machine's memory */
}

/* The parent's cap on decompressed bytes (ari_cli_isolate_readers). */
#define MAX_DECODED_ENV "ARIADNE_READER_MAX_DECODED"

static int reader_of(const char *name, ari_event_reader *r)
{
    static const struct { const char *name; ari_event_reader r; } readers[] = {
        {"otf2", ARI_EVREAD_OTF2}, {"projections", ARI_EVREAD_PROJECTIONS}, {"hpctoolkit", ARI_EVREAD_HPCTOOLKIT},
    };
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++)
        if (strcmp(name, readers[i].name) == 0)
            return *r = readers[i].r, 0;
    return -1;
}

/* The pipe moved off fd 1 (to a close-on-exec descriptor), fd 1 onto stderr. */
static int take_stdout(void)
{
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || dup2(2, 1) < 0)
        return -1;
    return fd;
}

int cmd_event_reader(int argc, char **argv)
{
    static const struct option options[] = {
        {"max-memory", required_argument, NULL, 'm'}, {"max-cpu", required_argument, NULL, 'c'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long bytes = 0, seconds = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (ari_cli_parse_bytes(optarg, &bytes) < 0)
                return ari_cli_fail("event-reader", "--max-memory wants a size, got '%s'", optarg), 2;
            break;
        case 'c':
            seconds = strtoull(optarg, &end, 10);
            if (*end || optarg[0] == '-')
                return ari_cli_fail("event-reader", "--max-cpu wants seconds, got '%s'", optarg), 2;
            break;
        default:
            return 2;
        }
    }
    ari_event_reader r;
    if (argc - optind < 2 || reader_of(argv[optind], &r) < 0)
        return ari_cli_fail("event-reader", "usage: ariadned event-reader [--max-memory B] [--max-cpu S] "
                            "otf2|projections|hpctoolkit PATH..."), 2;
    /* killed with the thread that started it: a daemon killed outright
     * leaves no reader behind */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        return 3;
    if (ari_event_read_limit_self(bytes, seconds) < 0)
        return ari_cli_fail("event-reader", "cannot set the resource limits"), 2;
    test_fault();
    const char *cap = getenv(MAX_DECODED_ENV);
    if (cap)
        ari_input_set_max_decoded(strtoull(cap, NULL, 10));
    int fd = take_stdout();
    if (fd < 0)
        return ari_cli_fail("event-reader", "cannot take over stdout"), 2;
    static ari_wire_writer w; /* 64 kB: not on the stack */
    ari_wire_writer_init(&w, fd);
    ari_event_sink k = ari_wire_sink(&w);
    ari_error err = {0};
    const char *const *paths = (const char *const *)argv + optind + 1;
    if (ari_event_read(r, paths, (size_t)(argc - optind - 1), &k, &err) == 0)
        return ari_wire_write_end(&w) == 0 ? 0 : 3;
    if (w.failed)
        return 3;
    return ari_wire_write_error(&w, w.refused ? &w.err : &err) == 0 ? 1 : 3;
}

int ari_cli_isolate_readers(unsigned long long max_bytes, unsigned max_seconds, unsigned long long max_decoded)
{
    char cap[32];
    snprintf(cap, sizeof cap, "%llu", max_decoded);
    setenv(MAX_DECODED_ENV, cap, 1);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || n >= (ssize_t)sizeof exe - 1)
        return -1;
    exe[n] = '\0';
    ari_event_read_isolate(exe, (size_t)max_bytes, max_seconds);
    return 0;
}
