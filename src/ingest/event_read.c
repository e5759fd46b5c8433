/* event_read.c: the one entry to the event-trace readers (event_read.h):
 * in process, or isolated in a child process `exe event-reader ...`
 * (server/cmd_event_reader.c) whose sink calls come back through a pipe
 * (event_wire.h) and are checked before they reach the caller's sink.
 *
 * The child is started with posix_spawn (the daemon has threads: nothing
 * runs between fork and exec), in its own process group, stdin /dev/null,
 * stdout the pipe, no other descriptor, default signal handling, and
 * RLIMIT_AS, RLIMIT_CPU and no core file set by the parent right after the
 * start (and by the child itself first thing). The parent kills it (and its
 * process group) when its output stalls (idle_limit()), and turns a signal, an exit
 * without the final frame, or garbage on the pipe into an error that names
 * the reader, the file and the limit.
 */
#include "ingest/event_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ingest/event_wire.h"
#include "ingest/hpctoolkit_db.h"
#include "ingest/otf2.h"
#include "ingest/projections.h"

extern char **environ;

/* AddressSanitizer reserves terabytes of address space: no RLIMIT_AS there. */
#if defined(__SANITIZE_ADDRESS__)
#define ARI_NO_RLIMIT_AS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARI_NO_RLIMIT_AS 1
#endif
#endif

#define IDLE_MAX_S 600u   /* longest silence of a child, whatever max_seconds */
#define REAP_GRACE_MS 5000 /* time a child has to exit after its last frame */
#define PIPE_BYTES (1 << 20) /* the pipe's capacity (Linux's default is 64 KiB) */
#define READ_BYTES ((size_t)256 << 10) /* one read from the pipe */

/* Set once at start-up (before threads), read by every read. */
static struct {
    int on;
    char exe[PATH_MAX];
    size_t max_bytes;
    unsigned max_seconds;
} iso;

int ari_event_read_in_process(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                              ari_error *err);

int ari_event_read_in_process(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                              ari_error *err)
{
    if (n < 1)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "no input file for the event-trace reader");
    switch (r) {
    case ARI_EVREAD_OTF2:
        return ari_otf2_read(paths[0], k, err);
    case ARI_EVREAD_PROJECTIONS:
        return ari_projections_read(paths[0], paths + 1, n - 1, k, err);
    case ARI_EVREAD_HPCTOOLKIT:
        return ari_hpctoolkit_db_trace(paths[0], k, err);
    }
    return ari_error_set(err, ARI_E_INVALID_INPUT, "unknown event-trace reader %d", (int)r);
}

void ari_event_read_isolate(const char *exe, size_t max_bytes, unsigned max_seconds)
{
    iso.on = exe && *exe && strlen(exe) < sizeof iso.exe;
    if (iso.on)
        strcpy(iso.exe, exe);
    iso.max_bytes = max_bytes;
    iso.max_seconds = max_seconds;
}

/* ---- the child ---------------------------------------------------------------- */

static const char *const reader_args[] = {"otf2", "projections", "hpctoolkit"};
static const char *const reader_labels[] = {"OTF2 reader", "Projections reader", "HPCToolkit reader"};

typedef struct child {
    pid_t pid;
    int fd;                 /* the pipe's read end */
    const char *label;      /* "OTF2 reader" */
    const char *file;       /* paths[0], as the in-process readers name it (the import renames it) */
} child;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void limit(pid_t pid, int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit l = {soft, hard};
    prlimit(pid, resource, &l, NULL); /* best effort: the child sets them too */
}

int ari_event_read_limit_self(unsigned long long bytes, unsigned long long seconds)
{
    struct rlimit core = {0, 0};
    int rc = setrlimit(RLIMIT_CORE, &core);
#ifndef ARI_NO_RLIMIT_AS
    struct rlimit as = {(rlim_t)bytes, (rlim_t)bytes};
    if (bytes && rc == 0)
        rc = setrlimit(RLIMIT_AS, &as);
#else
    (void)bytes;
#endif
    struct rlimit cpu = {(rlim_t)seconds, (rlim_t)seconds + 5};
    if (seconds && rc == 0)
        rc = setrlimit(RLIMIT_CPU, &cpu);
    return rc;
}

/* The limits, on a child already running (posix_spawn returns after exec). */
static void limit_child(pid_t pid)
{
    limit(pid, RLIMIT_CORE, 0, 0);
#ifndef ARI_NO_RLIMIT_AS
    if (iso.max_bytes)
        limit(pid, RLIMIT_AS, iso.max_bytes, iso.max_bytes);
#endif
    if (iso.max_seconds)
        limit(pid, RLIMIT_CPU, iso.max_seconds, iso.max_seconds + 5);
}

/* argv of the child: exe event-reader --max-memory B --max-cpu S -- READER PATH... */
static char **child_argv(ari_event_reader r, const char *const *paths, size_t n, char *mem, char *cpu)
{
    char **argv = calloc(n + 9, sizeof *argv);
    if (!argv)
        return NULL;
    snprintf(mem, 32, "%zu", iso.max_bytes);
    snprintf(cpu, 32, "%u", iso.max_seconds);
    size_t a = 0;
    argv[a++] = iso.exe;
    argv[a++] = "event-reader";
    argv[a++] = "--max-memory";
    argv[a++] = mem;
    argv[a++] = "--max-cpu";
    argv[a++] = cpu;
    argv[a++] = "--";
    argv[a++] = (char *)reader_args[r];
    for (size_t i = 0; i < n; i++)
        argv[a++] = (char *)paths[i];
    return argv;
}

static int start_child(child *c, ari_event_reader r, const char *const *paths, size_t n, ari_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return ari_error_set(err, ARI_E_IO, "cannot start the %s: pipe: %s", c->label, strerror(errno));
    char mem[32], cpu[32];
    char **argv = child_argv(r, paths, n, mem, cpu);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGXCPU, SIGCHLD};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaddset(&dfl, sigs[i]);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    int rc = argv ? posix_spawn(&c->pid, iso.exe, &fa, &at, argv, environ) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(argv);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return ari_error_set(err, ARI_E_IO, "cannot start the %s (%s event-reader): %s", c->label, iso.exe,
                             strerror(rc));
    }
    limit_child(c->pid);
    fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES); /* fewer switches between child and parent; best effort */
    c->fd = fds[0];
    return 0;
}

/* Waits for the child's end, at most grace_ms before it is killed (then
 * *killed is set). Its CPU time goes to *cpu_s. */
static int reap(pid_t pid, int grace_ms, int *killed, double *cpu_s)
{
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    *killed = 0;
    for (int waited = 0;; waited += 10) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (waited >= grace_ms) {
            kill(-pid, SIGKILL); /* its process group: what it started too */
            kill(pid, SIGKILL);
            *killed = 1;
            while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
                ;
            break;
        }
        struct timespec t = {0, 10 * 1000 * 1000};
        nanosleep(&t, NULL);
    }
    *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
             ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    return status;
}

/* Seconds of silence after which a child is stopped: twice its CPU time
 * (a child that computes may share a busy machine), at least 10 s, at
 * most IDLE_MAX_S. */
static unsigned idle_limit(void)
{
    unsigned s = iso.max_seconds && iso.max_seconds < IDLE_MAX_S ? 2 * iso.max_seconds : IDLE_MAX_S;
    return s < 10 ? 10 : s > IDLE_MAX_S ? IDLE_MAX_S : s;
}

/* ---- what the child's end means ---------------------------------------------- */

typedef struct outcome {
    int feed;      /* the last answer of the decoder */
    int eof;       /* the pipe closed */
    int stalled;   /* killed for silence */
    int io_errno;  /* a read or poll failed */
    ari_error decoded; /* the decoder's error, or the child's ERROR frame */
} outcome;

static int signal_error(const child *c, int sig, double cpu_s, ari_error *err)
{
    if (iso.max_seconds && (sig == SIGXCPU || (sig == SIGKILL && cpu_s >= iso.max_seconds)))
        return ari_error_set(err, ARI_E_TOO_LARGE,
                             "the %s took more than %u s of CPU on %s (signal %d): the trace is corrupt or too "
                             "large for this server's --reader-cpu", c->label, iso.max_seconds, c->file, sig);
    if ((sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGKILL) && iso.max_bytes)
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "the %s crashed on %s (signal %d, %s): the trace is corrupt or not supported, or "
                             "it needed more than the reader's %zu MB of memory (--reader-memory)", c->label,
                             c->file, sig, strsignal(sig), iso.max_bytes >> 20);
    return ari_error_set(err, ARI_E_INVALID_INPUT,
                         "the %s crashed on %s (signal %d, %s): the trace is corrupt or not supported", c->label,
                         c->file, sig, strsignal(sig));
}

/* The error of a failed read from the child's status and what it sent;
 * 0 when it succeeded. */
static int judge(const child *c, const outcome *o, int status, double cpu_s, ari_error *err)
{
    if (o->stalled)
        return ari_error_set(err, ARI_E_TOO_LARGE,
                             "the %s sent nothing for %u s on %s and was stopped: the trace is corrupt or the "
                             "reader hangs", c->label, idle_limit(), c->file);
    if (o->feed == ARI_WIRE_SINK_STOP)
        return -1; /* the sink's own error stands */
    if (WIFSIGNALED(status) && o->feed != ARI_WIRE_FAILED)
        return signal_error(c, WTERMSIG(status), cpu_s, err);
    if (o->feed == ARI_WIRE_FAILED) {
        if (strcmp(o->decoded.code, ARI_E_NOMEM) == 0 && iso.max_bytes)
            return ari_error_set(err, ARI_E_TOO_LARGE,
                                 "the %s needed more than %zu MB of memory on %s (%s): the trace is corrupt or "
                                 "too large for this server's --reader-memory", c->label, iso.max_bytes >> 20,
                                 c->file, o->decoded.message);
        *err = o->decoded;
        return -1;
    }
    if (o->feed == ARI_WIRE_CORRUPT) {
        *err = o->decoded;
        return -1;
    }
    if (o->io_errno)
        return ari_error_set(err, ARI_E_IO, "reading from the %s: %s", c->label, strerror(o->io_errno));
    if (o->feed == ARI_WIRE_DONE && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (o->feed == ARI_WIRE_DONE)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "the %s finished %s but exited with status %d", c->label,
                             c->file, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return ari_error_set(err, ARI_E_INVALID_INPUT,
                         "the %s stopped on %s (exit status %d) before the end of its output: the trace is "
                         "corrupt or not supported", c->label, c->file, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Reads the child's frames into the decoder until the stream ends, fails,
 * stalls or the sink says stop. */
static void pump(child *c, ari_wire_reader *dec, unsigned char *buf, outcome *o)
{
    double last = now_s();
    unsigned idle = idle_limit();
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    while (o->feed == ARI_WIRE_MORE) {
        int pr = poll(&p, 1, 1000);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0) {
            o->io_errno = errno;
            return;
        }
        if (pr == 0) {
            if (now_s() - last > idle) {
                o->stalled = 1;
                return;
            }
            continue;
        }
        ssize_t got = read(c->fd, buf, READ_BYTES);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0) {
            o->io_errno = errno;
            return;
        }
        if (got == 0) {
            o->eof = 1;
            return;
        }
        last = now_s();
        o->feed = ari_wire_reader_feed(dec, buf, (size_t)got, &o->decoded);
    }
}

static int read_isolated(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                         ari_error *err)
{
    if (n < 1)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "no input file for the event-trace reader");
    if ((unsigned)r > ARI_EVREAD_HPCTOOLKIT)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "unknown event-trace reader %d", (int)r);
    child c = {.pid = -1, .fd = -1, .label = reader_labels[r], .file = paths[0]};
    ari_wire_reader *dec = ari_wire_reader_new(k);
    unsigned char *buf = malloc(READ_BYTES);
    if (!dec || !buf) {
        ari_wire_reader_free(dec);
        free(buf);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory starting the %s", c.label);
    }
    int rc = start_child(&c, r, paths, n, err);
    if (rc == 0) {
        outcome o = {0};
        pump(&c, dec, buf, &o);
        if (o.feed == ARI_WIRE_MORE && o.eof && ari_wire_reader_pending(dec) > 0)
            ari_error_set(&o.decoded, ARI_E_INVALID_INPUT, "the %s's output on %s is cut in a frame", c.label,
                          c.file);
        /* a child that ended its stream or closed the pipe gets time to
         * exit (a crash writing garbage is then seen as the crash); one
         * that stalled or whose sink said stop is killed at once */
        int grace = o.stalled || o.io_errno || o.feed == ARI_WIRE_SINK_STOP ? 0
                    : o.feed == ARI_WIRE_CORRUPT ? 200 : REAP_GRACE_MS;
        close(c.fd);
        int killed;
        double cpu_s;
        int status = reap(c.pid, grace, &killed, &cpu_s);
        if (o.feed == ARI_WIRE_MORE && o.decoded.message[0])
            o.feed = ARI_WIRE_CORRUPT;
        if (killed)
            status = 0; /* our kill, not the child's crash */
        rc = judge(&c, &o, status, cpu_s, err);
    }
    ari_wire_reader_free(dec);
    free(buf);
    return rc;
}

int ari_event_read(ari_event_reader r, const char *const *paths, size_t n, const ari_event_sink *k,
                   ari_error *err)
{
    if (iso.on)
        return read_isolated(r, paths, n, k, err);
    return ari_event_read_in_process(r, paths, n, k, err);
}
