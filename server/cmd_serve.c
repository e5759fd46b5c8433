/* cmd_serve.c: `ariadned serve`: options, start-up (database, orphaned
 * jobs, spool, job worker, HTTP), and a graceful stop on SIGINT/SIGTERM. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis_runs.h"
#include "auth.h"
#include "cli.h"
#include "dbpool.h"
#include "http.h"
#include "jobs.h"
#include "live_hub.h"
#include "upload.h"
#include "ingest/input.h"
#include "store/store.h"
#include "util/log.h"
#include "version.h"

#define DEFAULT_MAX_UPLOAD (2ULL << 30)
#define GRACE_SECONDS 10.0

static const char usage[] =
    "Usage: ariadned serve [OPTIONS]\n"
    "\n"
    "Serves the dashboard and the REST API (/api/v1/).\n"
    "\n"
    "  --db FILE|URL        SQLite database (default ./ariadne.db; created if missing), or a\n"
    "                       PostgreSQL one: postgresql://USER@HOST:PORT/DB (see docs/postgresql.md)\n"
    "  --spool DIR          where uploads wait for their import (default FILE.spool next to an\n"
    "                       SQLite database; for PostgreSQL a directory under $TMPDIR named for\n"
    "                       the database: give replicas on several machines a shared one)\n"
    "  --listen HOST:PORT   address to listen on (default 127.0.0.1:8080; [::1]:8080 for IPv6)\n"
    "  --static DIR         dashboard files (default: found next to the binary)\n"
    "  --threads N          HTTP worker threads (default 4)\n"
    "  --max-upload BYTES   largest accepted upload, with K/M/G suffixes (default 2G)\n"
    "  --max-unpacked BYTES bytes the archives of one upload may unpack to, archives\n"
    "                       within archives included (default 8 x --max-upload)\n"
    "  --auth               require API tokens even on a loopback address\n"
    "  --no-auth            do not require API tokens on a non-loopback address\n"
    "  --max-connections N  open connections from all clients together (default 4096)\n"
    "  --max-connections-per-client N\n"
    "                       open connections from one client address (default 1024);\n"
    "                       behind a reverse proxy every client is the proxy's address\n"
    "  --header-timeout SECONDS\n"
    "                       time a request's head may take after its first line, however\n"
    "                       slowly it trickles in (default 10)\n"
    "  --idle-timeout SECONDS\n"
    "                       time a connection may wait for a request, after its opening\n"
    "                       or its previous response (default 60)\n"
    "  --allowed-host NAME  also answer requests for this host name (Host header), e.g.\n"
    "                       a reverse proxy's public name; repeatable; '*' accepts any\n"
    "  --busy-timeout MS    how long a write waits for another writer's lock (an\n"
    "                       'ariadned import' or a second daemon) before it answers\n"
    "                       503 busy (default 10000)\n"
    "  --log-level LEVEL    error, warn, info (default) or debug\n"
    "  --reader-memory BYTES\n"
    "                       address space of the child process that reads an uploaded\n"
    "                       OTF2, Projections or HPCToolkit trace (default 4G)\n"
    "  --reader-cpu SECONDS CPU time of that child (default 14400)\n"
    "  --help, --version\n"
    "\n"
    "Auth is off by default on loopback addresses and on elsewhere. Create tokens\n"
    "with 'ariadned token create'. On a loopback address the server answers only\n"
    "requests for localhost, 127.0.0.1, [::1], the listening address and the\n"
    "--allowed-host names; elsewhere any Host unless --allowed-host is given.\n";

static int parse_listen(const char *s, ari_config *cfg)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s)
        return -1;
    const char *host = s;
    size_t len = (size_t)(colon - s);
    if (host[0] == '[' && colon[-1] == ']') {
        host++;
        len -= 2;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535 || len == 0 || len >= sizeof cfg->host)
        return -1;
    memcpy(cfg->host, host, len);
    cfg->host[len] = '\0';
    cfg->port = (uint16_t)port;
    return 0;
}

/* The dashboard next to the binary: <bin>/../share/ariadne/static for an
 * installed daemon, <source>/static for a build directory inside the source. */
static int find_static(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    const char *candidates[] = {"%s/../share/ariadne/static", "%s/../static", "%s/../../static"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, candidates[i], dir);
        strcat(path, "/index.html");
        if (access(path, R_OK) == 0) {
            path[strlen(path) - strlen("/index.html")] = '\0';
            return realpath(path, out) && strlen(out) < size ? 0 : -1;
        }
    }
    return -1;
}

/* A whole number in [min, max], or -1. */
static long parse_count(const char *s, long min, long max)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= min && v <= max ? v : -1;
}

/* optarg as a count in [min, max] (in `unit`, "" or " seconds") into *out.
 * Returns 0, or an exit status after saying what the option wants. */
static int count_option(const char *option, long min, long max, const char *unit, unsigned *out)
{
    long v = parse_count(optarg, min, max);
    if (v < 0)
        return ari_cli_fail("serve", "%s wants %ld..%ld%s, got '%s'", option, min, max, unit, optarg);
    *out = (unsigned)v;
    return 0;
}

/* The options on connections and Host names (http.h). Returns 0, or an
 * exit status after an error. */
static int parse_http_option(int c, ari_http_options *http)
{
    char name[256];
    switch (c) {
    case 'C':
        return count_option("--max-connections", 16, 1000000, "", &http->max_connections);
    case 'P':
        return count_option("--max-connections-per-client", 1, 1000000, "", &http->max_per_client);
    case 'T':
        return count_option("--header-timeout", 1, 3600, " seconds", &http->header_timeout);
    case 'I':
        return count_option("--idle-timeout", 1, 86400, " seconds", &http->idle_timeout);
    case 'H':
        if (http->n_allowed_hosts == ARI_MAX_ALLOWED_HOSTS)
            return ari_cli_fail("serve", "at most %d --allowed-host names", ARI_MAX_ALLOWED_HOSTS);
        if (strcmp(optarg, "*") != 0 && ari_http_host_name(optarg, name, sizeof name) < 0)
            return ari_cli_fail("serve", "--allowed-host wants a host name such as ariadne.example.org, "
                                "got '%s'", optarg);
        http->allowed_hosts[http->n_allowed_hosts++] = optarg;
        return 0;
    default:
        fputs(usage, stderr);
        return 2;
    }
}

/* The limits of the event-trace reader's child (--reader-memory, --reader-cpu). */
static unsigned long long reader_memory = ARI_READER_DEFAULT_MEMORY;
static unsigned reader_cpu = ARI_READER_DEFAULT_CPU;

static int parse_options(int argc, char **argv, ari_config *cfg, ari_http_options *http)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"listen", required_argument, NULL, 'l'},
        {"static", required_argument, NULL, 's'}, {"threads", required_argument, NULL, 't'},
        {"max-upload", required_argument, NULL, 'm'}, {"auth", no_argument, NULL, 'a'},
        {"no-auth", no_argument, NULL, 'n'}, {"log-level", required_argument, NULL, 'v'},
        {"max-connections", required_argument, NULL, 'C'},
        {"max-connections-per-client", required_argument, NULL, 'P'},
        {"header-timeout", required_argument, NULL, 'T'}, {"allowed-host", required_argument, NULL, 'H'},
        {"busy-timeout", required_argument, NULL, 'B'}, {"idle-timeout", required_argument, NULL, 'I'}, {"max-unpacked", required_argument, NULL, 'U'},
        {"reader-memory", required_argument, NULL, 'M'}, {"reader-cpu", required_argument, NULL, 'X'},
        {"spool", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    int force_auth = 0, no_auth = 0, c, rc;
    long busy;
    unsigned long long bytes;
    ari_log_level level;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd': cfg->db_path = optarg; break;
        case 'S': cfg->spool = optarg; break;
        case 'l':
            if (parse_listen(optarg, cfg) < 0)
                return ari_cli_fail("serve", "--listen wants HOST:PORT, got '%s'", optarg);
            break;
        case 's': cfg->static_dir = optarg; break;
        case 't':
            cfg->threads = (unsigned)atoi(optarg);
            if (cfg->threads < 1 || cfg->threads > 256)
                return ari_cli_fail("serve", "--threads wants 1..256, got '%s'", optarg);
            break;
        case 'm':
            if (ari_cli_parse_bytes(optarg, &bytes) < 0 || bytes == 0)
                return ari_cli_fail("serve", "--max-upload wants a size such as 500M, got '%s'", optarg);
            cfg->max_upload = bytes;
            break;
        case 'U':
            if (ari_cli_parse_bytes(optarg, &bytes) < 0 || bytes == 0)
                return ari_cli_fail("serve", "--max-unpacked wants a size such as 4G, got '%s'", optarg);
            cfg->max_unpacked = bytes;
            break;
        case 'M':
            if (ari_cli_parse_bytes(optarg, &bytes) < 0 || bytes < (64ULL << 20))
                return ari_cli_fail("serve", "--reader-memory wants a size of at least 64M, got '%s'", optarg);
            reader_memory = bytes;
            break;
        case 'X':
            if ((busy = parse_count(optarg, 1, 1000000)) < 0)
                return ari_cli_fail("serve", "--reader-cpu wants 1..1000000 seconds, got '%s'", optarg);
            reader_cpu = (unsigned)busy;
            break;
        case 'B':
            if ((busy = parse_count(optarg, 0, 3600000)) < 0)
                return ari_cli_fail("serve", "--busy-timeout wants 0..3600000 ms, got '%s'", optarg);
            ari_store_set_default_busy_timeout((int)busy);
            break;
        case 'a': force_auth = 1; break;
        case 'n': no_auth = 1; break;
        case 'v':
            if (ari_log_parse_level(optarg, &level) < 0)
                return ari_cli_fail("serve", "--log-level wants error, warn, info or debug");
            ari_log_set_level(level);
            break;
        case 'h': fputs(usage, stdout); exit(0);
        case 'V': printf("ariadned %s\n", ARIADNE_VERSION); exit(0);
        case '?': fputs(usage, stderr); return 2;
        default:
            if ((rc = parse_http_option(c, http)) != 0)
                return rc;
        }
    }
    if (optind < argc)
        return ari_cli_fail("serve", "unexpected argument '%s'", argv[optind]);
    if (force_auth && no_auth)
        return ari_cli_fail("serve", "--auth and --no-auth contradict each other");
    if (http->max_per_client >= http->max_connections)
        return ari_cli_fail("serve", "--max-connections-per-client (%u) must be below --max-connections (%u), "
                            "or one client could take every connection", http->max_per_client,
                            http->max_connections);
    cfg->auth = force_auth || (!no_auth && !ari_auth_is_loopback(cfg->host));
    return 0;
}

/* Uploads of jobs that a crash interrupted stay in the spool; remove those
 * older than a day (a live job's upload is minutes old, even when another
 * daemon shares the database and the spool). */
static void clean_spool(const char *spool)
{
    ari_spool_sweep(spool, "upload-", 24 * 3600, NULL, NULL, "a stale upload");
}

/* FILE.spool beside an SQLite database; for a PostgreSQL URL, a directory
 * in $TMPDIR named for its host, port and database, which the replicas of
 * one machine share (characters other than letters and digits as '_'). */
static void spool_default(const char *db, char *out, size_t size)
{
    if (!ari_store_is_url(db)) {
        snprintf(out, size, "%s.spool", db);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    const char *at = strchr(strstr(db, "://") + 3, '@');
    const char *where = at ? at + 1 : strstr(db, "://") + 3;
    int n = snprintf(out, size, "%s/ariadne-", tmp && *tmp ? tmp : "/tmp");
    for (const char *p = where; *p && *p != '?' && n + 8 < (int)size; p++)
        out[n++] = isalnum((unsigned char)*p) ? *p : '_';
    snprintf(out + n, size - (size_t)n, ".spool");
}

static int prepare_dirs(ari_server *srv)
{
    const ari_config *cfg = &srv->cfg;
    if (cfg->spool)
        snprintf(srv->spool_dir, sizeof srv->spool_dir, "%s", cfg->spool);
    else
        spool_default(cfg->db_path, srv->spool_dir, sizeof srv->spool_dir);
    if (mkdir(srv->spool_dir, 0700) != 0 && errno != EEXIST)
        return ari_cli_fail("serve", "cannot create %s: %s", srv->spool_dir, strerror(errno));
    clean_spool(srv->spool_dir);
    /* Uploads being received by daemons that are gone. Not on PostgreSQL:
     * replicas on other machines may share the spool, and a pid says
     * nothing of their processes (clean_spool removes those after a day). */
    if (!ari_store_is_url(cfg->db_path))
        ari_remove_orphans(srv->spool_dir, "upload-");
    if (cfg->static_dir) {
        if (!realpath(cfg->static_dir, srv->static_root))
            return ari_cli_fail("serve", "--static %s: %s", cfg->static_dir, strerror(errno));
    } else if (find_static(srv->static_root, sizeof srv->static_root) < 0) {
        ari_log(ARI_LOG_WARN, "no dashboard found next to the binary; give --static DIR");
        srv->static_root[0] = '\0';
    }
    return 0;
}

/* On SQLite, the queued and running jobs of a daemon that is gone are
 * failed. On PostgreSQL they are not: the replicas' workers take over a
 * dead replica's jobs (store/job_queue.h). */
static void fail_orphans(ari_server *srv)
{
    if (ari_store_is_url(srv->cfg.db_path))
        return;
    ari_store *db = ari_dbpool_acquire(srv->pool);
    int64_t *ids = NULL;
    size_t n = 0;
    ari_error err = {0};
    if (ari_jobs_fail_orphans(db, &ids, &n, &err) < 0)
        ari_log(ARI_LOG_WARN, "cannot check interrupted jobs: %s", err.message);
    for (size_t i = 0; i < n; i++)
        ari_log(ARI_LOG_WARN, "job %lld was interrupted by a stop; marked failed", (long long)ids[i]);
    free(ids);
    ari_dbpool_release(srv->pool, db);
}

/* Blocks the stop signals in every thread (they are created after this)
 * so that the main thread alone receives them, in sigwait. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static int run(ari_server *srv, const ari_http_options *http_options)
{
    srv->cfg.keep_alive_s = http_options->idle_timeout;
    ari_error err = {0};
    sigset_t stop;
    block_signals(&stop);
    if (!(srv->pool = ari_dbpool_open(srv->cfg.db_path, srv->cfg.threads + 2, &err)))
        return ari_cli_fail("serve", "%s", err.message);
    fail_orphans(srv);
    uint64_t max_unpacked = srv->cfg.max_unpacked ? srv->cfg.max_unpacked : srv->cfg.max_upload * 8;
    ari_input_set_max_decoded(max_unpacked);
    if (!(srv->jobs = ari_jobs_start(srv->cfg.db_path, srv->spool_dir, max_unpacked, &err))) {
        ari_dbpool_close(srv->pool);
        return ari_cli_fail("serve", "%s", err.message);
    }
    if (!(srv->live = ari_live_hubs_new(srv))) {
        ari_jobs_stop(srv->jobs);
        ari_dbpool_close(srv->pool);
        return ari_cli_fail("serve", "out of memory");
    }
    ari_http *http = ari_http_start(srv, http_options, &err);
    if (!http) {
        ari_live_hubs_free(srv->live);
        ari_jobs_stop(srv->jobs);
        ari_dbpool_close(srv->pool);
        return ari_cli_fail("serve", "%s", err.message);
    }
    char *shown = ari_store_redacted(srv->cfg.db_path); /* a URL's password is not logged */
    ari_log(ARI_LOG_INFO, "ariadned %s serving http://%s%s%s:%u/ (database %s, auth %s, dashboard %s)",
            ARIADNE_VERSION, strchr(srv->cfg.host, ':') ? "[" : "", srv->cfg.host,
            strchr(srv->cfg.host, ':') ? "]" : "", srv->cfg.port, shown ? shown : "(out of memory)",
            srv->cfg.auth ? "on" : "off", srv->static_root[0] ? srv->static_root : "none");
    free(shown);
    int sig = 0;
    sigwait(&stop, &sig);
    ari_log(ARI_LOG_INFO, "received %s; stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    ari_http_stop(http, GRACE_SECONDS);
    ari_live_hubs_free(srv->live); /* stopped in ari_http_stop */
    srv->live = NULL;
    ari_jobs_stop(srv->jobs);
    ari_runs_stop(); /* the analyses still running (analysis_runs.h) */
    ari_dbpool_close(srv->pool);
    ari_log(ARI_LOG_INFO, "stopped cleanly");
    return 0;
}

int cmd_serve(int argc, char **argv)
{
    static ari_server srv;
    srv.cfg = (ari_config){.db_path = ARI_DEFAULT_DB, .host = "127.0.0.1", .port = 8080,
                           .threads = 4, .max_upload = DEFAULT_MAX_UPLOAD};
    static ari_http_options http = ARI_HTTP_OPTIONS_DEFAULT;
    int rc = parse_options(argc, argv, &srv.cfg, &http);
    if (rc)
        return rc;
    if (!srv.cfg.auth && !ari_auth_is_loopback(srv.cfg.host))
        ari_log(ARI_LOG_WARN, "auth is OFF on a non-loopback address (--no-auth): anyone who can reach "
                              "%s can read, upload and delete traces", srv.cfg.host);
    if (prepare_dirs(&srv))
        return 1;
    if (ari_cli_isolate_readers(reader_memory, reader_cpu,
                                srv.cfg.max_unpacked ? srv.cfg.max_unpacked : srv.cfg.max_upload * 8) < 0)
        ari_log(ARI_LOG_WARN, "cannot find this executable: event traces are read in process, unisolated");
    srv.started = ari_now();
    return run(&srv, &http);
}
