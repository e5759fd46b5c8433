/* cli.h: the subcommands of ariadned and what they share. */
#ifndef ARIADNE_CLI_H
#define ARIADNE_CLI_H

#define ARI_DEFAULT_DB "./ariadne.db"

int cmd_serve(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_migrate(int argc, char **argv); /* cmd_migrate.c */
int cmd_copy(int argc, char **argv);    /* cmd_copy.c */
int cmd_shard(int argc, char **argv);   /* cmd_shard.c */
int cmd_generate(int argc, char **argv); /* cmd_generate.c */
int cmd_replay(int argc, char **argv);   /* cmd_replay.c */
int cmd_event_reader(int argc, char **argv); /* cmd_event_reader.c: internal, not in the usage */
/* Event-trace readers run from now on in `ariadned event-reader` children of
 * this executable (/proc/self/exe) with these limits (event_read.h), and
 * max_decoded as their cap on decompressed bytes (ingest/input.h; passed in
 * the environment); 0, or -1 when the executable cannot be found (they stay
 * in process). Call before any thread starts. */
int ari_cli_isolate_readers(unsigned long long max_bytes, unsigned max_seconds, unsigned long long max_decoded);
#define ARI_READER_DEFAULT_MEMORY (4ULL << 30)
#define ARI_READER_DEFAULT_CPU 14400u

/* Prints "ariadned <cmd>: error: <message>" to stderr; returns 1 (the exit
 * status of a failed command). */
int ari_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a byte count with an optional K, M, G suffix (powers of 1024). */
int ari_cli_parse_bytes(const char *s, unsigned long long *out);

#endif
