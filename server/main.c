/* main.c: ariadned's entry point: dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "handlers.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned COMMAND [OPTIONS]\n"
    "\n"
    "ariadne: a performance-analysis server for HPC traces and profiles.\n"
    "\n"
    "Commands:\n"
    "  serve      run the HTTP server (dashboard and REST API)\n"
    "  import     import traces into the database without a server\n"
    "  token      create, list or revoke API tokens\n"
    "  migrate    apply pending migrations to a database (a file or a postgresql:// URL)\n"
    "  copy       copy a whole database into an empty one (SQLite <-> PostgreSQL)\n"
    "  shard      add, list, remove, sweep or explain the shards of a PostgreSQL store\n"
    "  generate   write a simulated StarPU Cholesky trace (example data)\n"
    "  replay     stream a metrics trace to a server as a live run\n"
    "\n"
    "Run 'ariadned COMMAND --help' for a command's options.\n"
    "Options: --help, --version\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    api_gantt_prepare_at_import();
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("ariadned %s\n", ARIADNE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (strcmp(cmd, "token") == 0)
        return cmd_token(argc - 1, argv + 1);
    if (strcmp(cmd, "migrate") == 0)
        return cmd_migrate(argc - 1, argv + 1);
    if (strcmp(cmd, "copy") == 0)
        return cmd_copy(argc - 1, argv + 1);
    if (strcmp(cmd, "shard") == 0)
        return cmd_shard(argc - 1, argv + 1);
    if (strcmp(cmd, "generate") == 0)
        return cmd_generate(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "event-reader") == 0) /* internal: the child of an isolated event-trace read */
        return cmd_event_reader(argc - 1, argv + 1);
    fprintf(stderr, "ariadned: unknown command '%s'\n\n%s", cmd, usage);
    return 2;
}
