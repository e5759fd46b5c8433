/* cmd_import.c: `ariadned import`: imports files, directories and archives
 * into the database without a server, in one transaction, and prints one
 * JSON line per trace. */
#include <getopt.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ingest/import.h"
#include "upload.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned import [--db FILE] [--name NAME] [--quiet] PATH...\n"
    "\n"
    "Imports traces into the database (created if missing) without a server.\n"
    "A PATH is a trace file (possibly .gz or .zst), a directory (a StarPU bundle:\n"
    "paje.trace, tasks.rec, dag.dot, ...) or an archive (.tar, .tar.gz, .zip).\n"
    "Everything given in one call is imported in one transaction: all or nothing.\n"
    "Prints one JSON line per trace: {\"id\":..,\"name\":..,\"kind\":..,\"format\":..}.\n"
    "\n"
    "  --db FILE    database (default ./ariadne.db)\n"
    "  --name NAME  trace name (default: from the file or directory name)\n"
    "  --quiet      no progress on stderr\n";

static void show_progress(void *ctx, double fraction, const char *phase)
{
    static int last = -1;
    (void)ctx;
    int percent = (int)(fraction * 100);
    if (percent != last) {
        fprintf(stderr, "\r%3d%% %-60.60s", percent, phase ? phase : "");
        last = percent;
    }
}

static int import_paths(const char *db_path, const char *name, int quiet, char **paths, int n)
{
    ari_error err = {0};
    ari_store *s = ari_store_open(db_path, &err);
    if (!s)
        return ari_cli_fail("import", "%s", err.message);
    const char *tmp = getenv("TMPDIR");
    char work_dir[PATH_MAX];
    snprintf(work_dir, sizeof work_dir, "%s/ariadne-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work_dir)) {
        ari_store_close(s);
        return ari_cli_fail("import", "cannot create a work directory %s", work_dir);
    }
    ari_import_input *inputs = calloc((size_t)n, sizeof *inputs);
    for (int i = 0; inputs && i < n; i++)
        inputs[i].path = paths[i];
    ari_import_request req = {
        .inputs = inputs, .ninputs = inputs ? (size_t)n : 0, .trace_name = name,
        .work_dir = work_dir, .progress = quiet || !isatty(2) ? NULL : show_progress,
    };
    ari_import_result res = {0};
    int rc = ari_import(s, &req, &res, &err);
    if (req.progress)
        fputc('\n', stderr);
    for (size_t i = 0; rc == 0 && i < res.ntraces; i++) {
        json_t *line = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)res.traces[i].id,
                                 "name", res.traces[i].name, "kind", res.traces[i].kind,
                                 "format", res.traces[i].format);
        char *text = json_dumps(line, JSON_COMPACT);
        puts(text);
        free(text);
        json_decref(line);
    }
    ari_import_result_free(&res);
    ari_store_close(s);
    ari_remove_tree(work_dir);
    free(inputs);
    if (rc < 0)
        return ari_cli_fail("import", "%s (%s); nothing was imported", err.message, err.code);
    return 0;
}

int cmd_import(int argc, char **argv)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"name", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    const char *db = ARI_DEFAULT_DB, *name = NULL;
    int quiet = 0, c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'n': name = optarg; break;
        case 'q': quiet = 1; break;
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
    return import_paths(db, name, quiet, argv + optind, argc - optind);
}
