/* cmd_copy.c: `ariadned copy`: moves a whole database to another, of either
 * backend (a team's SQLite file into PostgreSQL, and back), with its ids
 * kept, into an empty destination in one transaction (store_copy.h). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "store/store.h"
#include "store/store_copy.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned copy --from FILE|URL --to FILE|URL [--quiet]\n"
    "\n"
    "Copies every table of one ariadne database into another: an SQLite file or a\n"
    "PostgreSQL URL (postgresql://user@host:port/dbname) on either side. Both are\n"
    "migrated to this binary's schema first. The destination must be empty (no trace,\n"
    "job, token or ensemble; a missing SQLite file is created): ids are kept, so\n"
    "links and tokens stay valid. The copy is one transaction on the destination:\n"
    "all or nothing. Prints {\"from\":..,\"to\":..,\"tables\":N,\"rows\":N} at the end.\n"
    "\n"
    "  --from FILE|URL  the database to copy (read only; one consistent snapshot)\n"
    "  --to FILE|URL    the empty database to fill\n"
    "  --quiet          no line per table on stderr\n";

typedef struct copy_tally {
    int quiet;
    int tables;
    long long rows;
    double last; /* when the previous table ended (s, monotonic) */
} copy_tally;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_table(const char *table, int64_t rows, void *ctx)
{
    copy_tally *t = ctx;
    double end = now_s(), took = end - t->last;
    t->last = end;
    if (rows < 0) {
        if (!t->quiet)
            fprintf(stderr, "copy: %s: skipped (empty, and not in the destination)\n", table);
        return;
    }
    t->tables++;
    t->rows += rows;
    if (!t->quiet)
        fprintf(stderr, "copy: %s: %lld rows (%.1f s)\n", table, (long long)rows, took);
}

static int report(ari_store *from, ari_store *to, const copy_tally *t)
{
    json_t *out = json_pack("{s:s, s:s, s:i, s:I}", "from", ari_store_path(from), "to", ari_store_path(to),
                            "tables", t->tables, "rows", (json_int_t)t->rows);
    char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(out);
    if (!text)
        return ari_cli_fail("copy", "out of memory");
    puts(text);
    free(text);
    return 0;
}

static int run_copy(const char *from_db, const char *to_db, int quiet)
{
    ari_error err = {0};
    ari_store *from = ari_store_open(from_db, &err);
    if (!from)
        return ari_cli_fail("copy", "--from %s", err.message);
    ari_store *to = ari_store_open(to_db, &err);
    if (!to) {
        ari_store_close(from);
        return ari_cli_fail("copy", "--to %s", err.message);
    }
    copy_tally tally = {.quiet = quiet, .last = now_s()};
    int rc;
    if (ari_store_copy(from, to, on_table, &tally, &err) < 0)
        rc = ari_cli_fail("copy", "%s into %s: %s (nothing was copied)", ari_store_path(from), ari_store_path(to),
                          err.message);
    else
        rc = report(from, to, &tally);
    ari_store_close(to);
    ari_store_close(from);
    return rc;
}

int cmd_copy(int argc, char **argv)
{
    static const struct option options[] = {
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},    {NULL, 0, NULL, 0},
    };
    const char *from = NULL, *to = NULL;
    int quiet = 0, c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': printf("ariadned %s\n", ARIADNE_VERSION); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc)
        return ari_cli_fail("copy", "unexpected argument '%s'", argv[optind]);
    if (!from || !*from || !to || !*to)
        return ari_cli_fail("copy", "needs --from FILE|URL and --to FILE|URL");
    if (strcmp(from, to) == 0)
        return ari_cli_fail("copy", "--from and --to name the same database (%s)", from);
    ari_log_set_level(ARI_LOG_WARN);
    return run_copy(from, to, quiet);
}
