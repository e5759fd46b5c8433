/* cli.h: the subcommands of ariadned and what they share. */
#ifndef ARIADNE_CLI_H
#define ARIADNE_CLI_H

#define ARI_DEFAULT_DB "./ariadne.db"

int cmd_serve(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_generate(int argc, char **argv); /* cmd_generate.c */
int cmd_replay(int argc, char **argv);   /* cmd_replay.c */

/* Prints "ariadned <cmd>: error: <message>" to stderr; returns 1 (the exit
 * status of a failed command). */
int ari_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a byte count with an optional K, M, G suffix (powers of 1024). */
int ari_cli_parse_bytes(const char *s, unsigned long long *out);

#endif
