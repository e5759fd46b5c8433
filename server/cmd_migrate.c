/* cmd_migrate.c: `ariadned migrate`: brings a database (an SQLite file or a
 * postgresql:// URL) to this binary's schema and says which version it is
 * at, so that an operator migrates once before starting the replicas. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "store/store.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned migrate [--db FILE|URL]\n"
    "\n"
    "Opens the database (created if missing) and applies its pending migrations, then\n"
    "prints {\"database\":..,\"schema_version\":N} and exits 0. A database that cannot be\n"
    "reached or whose schema is newer than this binary's fails with exit status 1.\n"
    "\n"
    "  --db FILE|URL  an SQLite file (default ./ariadne.db) or a PostgreSQL URL\n"
    "                 (postgresql://user@host:port/dbname; a password is better given\n"
    "                 in $PGPASSWORD or ~/.pgpass than in the URL)\n";

int cmd_migrate(int argc, char **argv)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    const char *db = ARI_DEFAULT_DB;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': printf("ariadned %s\n", ARIADNE_VERSION); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc)
        return ari_cli_fail("migrate", "unexpected argument '%s'", argv[optind]);
    ari_log_set_level(ARI_LOG_WARN);
    ari_error err = {0};
    ari_store *s = ari_store_open(db, &err);
    if (!s)
        return ari_cli_fail("migrate", "%s", err.message);
    int version = ari_store_schema_version(s);
    int rc = 0;
    if (version != ari_store_latest_schema_version()) {
        rc = ari_cli_fail("migrate", "%s is at schema version %d, this binary's is %d", ari_store_path(s), version,
                          ari_store_latest_schema_version());
    } else {
        json_t *out = json_pack("{s:s, s:i}", "database", ari_store_path(s), "schema_version", version);
        char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
        if (!text)
            rc = ari_cli_fail("migrate", "out of memory");
        else
            puts(text);
        free(text);
        json_decref(out);
    }
    ari_store_close(s);
    return rc;
}
