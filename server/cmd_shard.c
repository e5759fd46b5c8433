/* cmd_shard.c: `ariadned shard add|list|remove|sweep|explain|spread`: the shards of a
 * PostgreSQL store, other PostgreSQL databases that hold whole traces'
 * large tables as postgres_fdw foreign partitions (src/store/pg_shards.h,
 * docs/postgresql.md "Sharding by trace"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store/pg_shards.h"
#include "store/store.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned shard add --db COORDINATOR_URL --name NAME --url SHARD_URL\n"
    "       ariadned shard list --db COORDINATOR_URL\n"
    "       ariadned shard remove NAME --db COORDINATOR_URL\n"
    "       ariadned shard sweep --db COORDINATOR_URL\n"
    "       ariadned shard explain --db COORDINATOR_URL --trace ID\n"
    "       ariadned shard spread --db COORDINATOR_URL [--rows N]\n"
    "\n"
    "Shards hold the large per-trace tables (states, tasks, links, ...) of the traces\n"
    "imported from now on, a trace on the shard that holds the fewest; the coordinator\n"
    "(--db) keeps the rest and reaches them with postgres_fdw. add registers a shard\n"
    "(NAME: a-z, 0-9, _) whose URL must be reachable from the coordinator's server and\n"
    "from every daemon; its password goes to a user mapping and is never printed. list\n"
    "prints the shards as JSON (no passwords). remove unregisters a shard that holds no\n"
    "trace. sweep drops the shards' tables that no trace uses (left by a failed import).\n"
    "explain prints EXPLAIN (VERBOSE) of the Gantt's aggregation of a task trace (the whole\n"
    "trace at 1000 pixels): on a shard, its GROUP BY is in the Remote SQL. spread\n"
    "prints (and with --rows sets) the size from which an import spreads a trace over\n"
    "every shard, its rows split by worker, container or metric: N records or more in\n"
    "states, tasks, variables, links, dm_samples and an event trace's calls, events and\n"
    "messages together (default 5000000; 0: never). A spread trace needs every shard up.\n";

static int add(ari_store *s, const char *name, const char *url)
{
    ari_error err = {0};
    if (!name || !url)
        return ari_cli_fail("shard", "add needs --name NAME and --url SHARD_URL");
    if (ari_pg_shards_add(s, name, url, &err) < 0)
        return ari_cli_fail("shard", "%s", err.message);
    fprintf(stderr, "shard %s added: new imports may go there\n", name);
    return 0;
}

static int list(ari_store *s)
{
    ari_error err = {0};
    char *json = NULL;
    if (ari_pg_shards_list(s, &json, &err) < 0)
        return ari_cli_fail("shard", "%s", err.message);
    puts(json);
    free(json);
    return 0;
}

static int remove_shard(ari_store *s, const char *name)
{
    ari_error err = {0};
    int rc = ari_pg_shards_remove(s, name, &err);
    if (rc < 0)
        return ari_cli_fail("shard", "%s", err.message);
    if (rc == 1)
        return ari_cli_fail("shard", "no shard %s", name);
    fprintf(stderr, "shard %s removed\n", name);
    return 0;
}

static int sweep(ari_store *s)
{
    ari_error err = {0};
    int64_t dropped = 0;
    if (ari_pg_shards_sweep(s, &dropped, &err) < 0)
        return ari_cli_fail("shard", "%s", err.message);
    printf("{\"dropped\":%lld}\n", (long long)dropped);
    return 0;
}

static int explain(ari_store *s, const char *trace)
{
    ari_error err = {0};
    char *end = NULL, *plan = NULL;
    long long id = trace ? strtoll(trace, &end, 10) : 0;
    if (!trace || *end || id <= 0)
        return ari_cli_fail("shard", "explain needs --trace ID");
    int rc = ari_pg_shards_explain_gantt(s, id, &plan, &err);
    if (rc < 0)
        return ari_cli_fail("shard", "%s", err.message);
    if (rc == 1)
        return ari_cli_fail("shard", "trace %lld has no task", id);
    fputs(plan, stdout);
    free(plan);
    return 0;
}

static int spread(ari_store *s, const char *rows)
{
    ari_error err = {0};
    if (!ari_store_is_pg(s))
        return ari_cli_fail("shard", "shards need a PostgreSQL store (--db postgresql://...)");
    if (rows) {
        char *end = NULL;
        long long n = strtoll(rows, &end, 10);
        if (!*rows || *end || n < 0)
            return ari_cli_fail("shard", "spread --rows wants a count of rows (0: never spread)");
        if (ari_pg_shards_set_spread(s, n, &err) < 0)
            return ari_cli_fail("shard", "%s", err.message);
    }
    int64_t now = 0;
    if (ari_pg_shards_spread_rows(s, &now, &err) < 0)
        return ari_cli_fail("shard", "%s", err.message);
    printf("{\"spread_rows\":%lld}\n", (long long)now);
    return 0;
}

static int known_action(const char *action)
{
    static const char *const actions[] = {"add", "list", "remove", "sweep", "explain", "spread"};
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(action, actions[i]) == 0)
            return 1;
    return 0;
}

int cmd_shard(int argc, char **argv)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'},
        {"name", required_argument, NULL, 'n'},
        {"url", required_argument, NULL, 'u'},
        {"trace", required_argument, NULL, 't'},
        {"rows", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL, *name = NULL, *url = NULL, *trace = NULL, *rows = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd':
            db = optarg;
            break;
        case 'n':
            name = optarg;
            break;
        case 'u':
            url = optarg;
            break;
        case 't':
            trace = optarg;
            break;
        case 'r':
            rows = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case 'V':
            printf("ariadned %s\n", ARIADNE_VERSION);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    const char *action = argv[optind];
    int is_remove = strcmp(action, "remove") == 0;
    if (!known_action(action))
        return ari_cli_fail("shard", "unknown action '%s' (add, list, remove, sweep, explain or spread)",
                            action);
    if (is_remove ? optind + 2 != argc : optind + 1 != argc)
        return ari_cli_fail("shard", is_remove ? "remove wants exactly one NAME" : "unexpected argument");
    if (!db)
        return ari_cli_fail("shard", "--db COORDINATOR_URL is required (a postgresql:// URL)");
    ari_log_set_level(ARI_LOG_WARN);
    ari_error err = {0};
    ari_store *s = ari_store_open(db, &err);
    if (!s)
        return ari_cli_fail("shard", "%s", err.message);
    int rc = is_remove                        ? remove_shard(s, argv[optind + 1])
             : strcmp(action, "add") == 0     ? add(s, name, url)
             : strcmp(action, "list") == 0    ? list(s)
             : strcmp(action, "explain") == 0 ? explain(s, trace)
             : strcmp(action, "spread") == 0  ? spread(s, rows)
                                              : sweep(s);
    ari_store_close(s);
    return rc;
}
