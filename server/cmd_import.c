/* cmd_import.c: `ariadned import`: imports files, directories and archives
 * into the database without a server, in one transaction, and prints one
 * JSON line per trace. Archives unpack into a scratch directory under
 * $TMPDIR named after the process ("ariadne-import-<pid>-XXXXXX"): it is
 * removed at the end, on an error and on SIGINT/SIGTERM/SIGHUP (which
 * cancel the import), and a run removes those of killed runs. With
 * --ensemble NAME the imported profiles become an ensemble in the same run
 * (store_ensembles.h); when that fails, the import is undone. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "import/import.h"
#include "ingest/input.h"
#include "stall_hook.h"
#include "store/store_ensembles.h"
#include "upload.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned import [--db FILE] [--name NAME] [--time-unit UNIT] [--max-unpacked BYTES]\n"
    "                       [--allow-duplicate] [--ensemble NAME] [--quiet] PATH...\n"
    "\n"
    "Imports traces into the database (created if missing) without a server.\n"
    "A PATH is a trace file (possibly .gz or .zst), a directory (a StarPU bundle:\n"
    "paje.trace, tasks.rec, dag.dot, ...) or an archive (.tar, .tar.gz, .zip).\n"
    "Everything given in one call is imported in one transaction: all or nothing.\n"
    "Prints one JSON line per trace: {\"id\":..,\"name\":..,\"kind\":..,\"format\":..}.\n"
    "Warnings (a file cut in its last line...) go to stderr; the trace is imported.\n"
    "Files no reader recognises (logs, *.out, ... next to a StarPU bundle) are skipped\n"
    "and listed on stderr; the import fails only if it recognises no file at all.\n"
    "\n"
    "  --db FILE    database (default ./ariadne.db)\n"
    "  --name NAME  trace name (default: from the file or directory name)\n"
    "  --time-unit UNIT\n"
    "               the time unit of the task traces: s, ms, us or ns (default: decided\n"
    "               by the format; a single Paje file is ms if StarPU wrote it, else s).\n"
    "               A label: no time is rescaled\n"
    "  --max-unpacked BYTES\n"
    "               cap on the bytes unpacked from archives, nested ones included,\n"
    "               with K/M/G suffixes; 0 for none (default 16G)\n"
    "  --allow-duplicate\n"
    "               import a trace even if the database holds one with identical files\n"
    "               (same SHA-256); without it such an import fails and names that trace\n"
    "  --ensemble NAME\n"
    "               make the imported profiles an ensemble called NAME (traces of other\n"
    "               kinds are imported but left out, with a note on stderr); prints\n"
    "               {\"ensemble\":{\"id\":..,\"name\":..,\"member_count\":..}} last. If the\n"
    "               ensemble cannot be made, the imported traces are deleted again\n"
    "  --quiet      no progress on stderr\n"
    "  --reader-memory BYTES, --reader-cpu SECONDS\n"
    "               limits of the child process that reads OTF2, Projections and\n"
    "               HPCToolkit traces (default 4G and 14400)\n"
    "\n"
    "Archives unpack under $TMPDIR (default /tmp); at most 100000 files and\n"
    "directories per import.\n";

static volatile int cancel_import;

static void on_stop_signal(int sig)
{
    (void)sig;
    cancel_import = 1; /* polled by the import, which cleans up and fails */
}

/* The first SIGINT, SIGTERM or SIGHUP cancels the import; a second one
 * kills as usual. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* One JSON line per trace (names are valid UTF-8: the import made them so). */
static void print_warnings(const ari_imported *t)
{
    const char *p = t->warnings;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "ariadned import: warning: %s: %.*s\n", t->name, n, p);
        p += n + (nl != NULL);
    }
}

static void print_trace(const ari_imported *t)
{
    print_warnings(t);
    json_t *line = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)t->id, "name", t->name,
                             "kind", t->kind, "format", t->format);
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text)
        puts(text);
    else
        printf("{\"id\":%lld}\n", (long long)t->id);
    free(text);
    json_decref(line);
}

/* What the import skipped, and the stored traces it duplicates, on stderr. */
static void print_outcome(const ari_import_result *res, int allowed)
{
    for (size_t i = 0; i < res->nskipped; i++)
        fprintf(stderr, "ariadned import: skipped %s: %s\n", res->skipped[i].name, res->skipped[i].reason);
    if (res->skipped_more)
        fprintf(stderr, "ariadned import: skipped %zu more files\n", res->skipped_more);
    for (size_t i = 0; allowed && i < res->nduplicates; i++)
        fprintf(stderr, "ariadned import: note: %s is identical to trace %lld (%s), imported anyway\n",
                res->duplicates[i].upload, (long long)res->duplicates[i].trace_id, res->duplicates[i].name);
}

static void show_progress(void *ctx, double fraction, const char *phase)
{
    static int last = -1;
    ari_stall_hook(fraction, &cancel_import);
    if (!ctx)
        return; /* --quiet or no terminal */
    int percent = (int)(fraction * 100);
    if (percent != last) {
        fprintf(stderr, "\r%3d%% %-60.60s", percent, phase ? phase : "");
        last = percent;
    }
}

enum { QUIET = 1, ALLOW_DUPLICATE = 2 };

/* Deletes the traces of a successful import whose ensemble failed. */
static void undo_import(ari_store *s, const ari_import_result *res)
{
    ari_error err = {0};
    for (size_t i = 0; i < res->ntraces; i++)
        if (ari_traces_delete(s, res->traces[i].id, &err) < 0)
            fprintf(stderr, "ariadned import: could not delete trace %lld: %s\n", (long long)res->traces[i].id,
                    err.message);
}

/* The ensemble `name` of the imported profiles, printed as one JSON line.
 * 0, or -1 with err set (the caller undoes the import). */
static int make_ensemble(ari_store *s, const char *name, const ari_import_result *res, ari_error *err)
{
    int64_t *ids = calloc(res->ntraces + 1, sizeof *ids), id = 0;
    size_t n = 0;
    if (!ids)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < res->ntraces; i++) {
        if (strcmp(res->traces[i].kind, "profile") == 0 || strcmp(res->traces[i].kind, "events") == 0)
            ids[n++] = res->traces[i].id; /* an event trace joins with its derived CCT */
        else
            fprintf(stderr, "ariadned import: note: %s is a %s trace, not a profile: left out of the ensemble\n",
                    res->traces[i].name, res->traces[i].kind);
    }
    int rc = n ? ari_ensemble_create(s, name, ids, n, &id, err)
               : ari_error_set(err, ARI_E_INVALID_INPUT, "the import holds no profile to make the ensemble of");
    free(ids);
    json_t *line = rc == 0 ? json_pack("{s:{s:I, s:s, s:I}}", "ensemble", "id", (json_int_t)id, "name", name,
                                       "member_count", (json_int_t)n) : NULL;
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text)
        puts(text);
    free(text);
    json_decref(line);
    return rc;
}

static int import_paths(const char *db_path, const char *name, const char *ensemble, const char *time_unit,
                        uint64_t max_unpacked, int flags, char **paths, int n)
{
    ari_error err = {0};
    ari_store *s = ari_store_open(db_path, &err);
    if (!s)
        return ari_cli_fail("import", "%s", err.message);
    const char *tmp = getenv("TMPDIR");
    char work_dir[PATH_MAX];
    tmp = tmp && *tmp ? tmp : "/tmp";
    ari_remove_orphans(tmp, "ariadne-import-");
    if (ari_make_owned_dir(tmp, "ariadne-import-", work_dir, sizeof work_dir) < 0) {
        ari_store_close(s);
        return ari_cli_fail("import", "cannot create a work directory in %s: %s", tmp,
                            ari_io_reason(errno));
    }
    catch_stop_signals();
    ari_import_input *inputs = calloc((size_t)n, sizeof *inputs);
    for (int i = 0; inputs && i < n; i++)
        inputs[i].path = paths[i];
    ari_import_request req = {
        .inputs = inputs, .ninputs = inputs ? (size_t)n : 0, .trace_name = name,
        .work_dir = work_dir, .max_unpacked = max_unpacked,
        .progress = show_progress, .progress_ctx = (flags & QUIET) || !isatty(2) ? NULL : stderr,
        .cancel = &cancel_import, .time_unit = time_unit,
        .allow_duplicate = (flags & ALLOW_DUPLICATE) != 0,
    };
    ari_import_result res = {0};
    int rc = ari_import(s, &req, &res, &err);
    if (req.progress_ctx)
        fputc('\n', stderr);
    print_outcome(&res, req.allow_duplicate);
    for (size_t i = 0; rc == 0 && i < res.ntraces; i++)
        print_trace(&res.traces[i]);
    int undone = 0;
    if (rc == 0 && ensemble && make_ensemble(s, ensemble, &res, &err) < 0) {
        undo_import(s, &res);
        rc = undone = -1;
    }
    ari_import_result_free(&res);
    ari_store_close(s);
    ari_remove_tree(work_dir);
    free(inputs);
    if (undone)
        return ari_cli_fail("import", "ensemble '%s': %s (%s); the imported traces were deleted again",
                            ensemble, err.message, err.code);
    if (rc < 0)
        return ari_cli_fail("import", "%s (%s); nothing was imported", err.message, err.code);
    return 0;
}

int cmd_import(int argc, char **argv)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"name", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'}, {"max-unpacked", required_argument, NULL, 'm'},
        {"time-unit", required_argument, NULL, 'u'},
        {"allow-duplicate", no_argument, NULL, 'a'},
        {"ensemble", required_argument, NULL, 'e'},
        {"reader-memory", required_argument, NULL, 'M'}, {"reader-cpu", required_argument, NULL, 'X'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    const char *db = ARI_DEFAULT_DB, *name = NULL, *time_unit = NULL, *ensemble = NULL;
    unsigned long long max_unpacked = ARI_IMPORT_DEFAULT_MAX_UNPACKED;
    unsigned long long reader_memory = ARI_READER_DEFAULT_MEMORY, reader_cpu = ARI_READER_DEFAULT_CPU;
    int flags = 0, c;
    char *end;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'n': name = optarg; break;
        case 'q': flags |= QUIET; break;
        case 'a': flags |= ALLOW_DUPLICATE; break;
        case 'e':
            if (!*optarg || strlen(optarg) > ARI_ENSEMBLE_NAME_MAX)
                return ari_cli_fail("import", "--ensemble wants a name of 1 to %d bytes", ARI_ENSEMBLE_NAME_MAX);
            ensemble = optarg;
            break;
        case 'u':
            if (!ari_time_unit_known(optarg))
                return ari_cli_fail("import", "--time-unit must be one of s, ms, us, ns; got '%s'", optarg);
            time_unit = optarg;
            break;
        case 'm':
            if (ari_cli_parse_bytes(optarg, &max_unpacked) < 0)
                return ari_cli_fail("import", "--max-unpacked wants a size such as 4G, got '%s'", optarg);
            break;
        case 'M':
            if (ari_cli_parse_bytes(optarg, &reader_memory) < 0 || reader_memory < (64ULL << 20))
                return ari_cli_fail("import", "--reader-memory wants a size of at least 64M, got '%s'", optarg);
            break;
        case 'X':
            reader_cpu = strtoull(optarg, &end, 10);
            if (*end || optarg[0] == '-' || reader_cpu < 1 || reader_cpu > 1000000)
                return ari_cli_fail("import", "--reader-cpu wants 1..1000000 seconds, got '%s'", optarg);
            break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': printf("ariadned %s\n", ARIADNE_VERSION); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind >= argc) {
        fputs(usage, stderr);
        return ari_cli_fail("import", "no PATH given");
    }
    ari_log_set_level(ARI_LOG_WARN);
    ari_input_set_max_decoded(max_unpacked);
    if (ari_cli_isolate_readers(reader_memory, (unsigned)reader_cpu, max_unpacked) < 0)
        fprintf(stderr, "ariadned import: warning: cannot find this executable: event traces are read in process\n");
    return import_paths(db, name, ensemble, time_unit, max_unpacked, flags, argv + optind, argc - optind);
}
