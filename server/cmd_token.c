/* cmd_token.c: `ariadned token create|list|revoke`: API tokens, managed on
 * the command line by whoever can write the database file. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store/store.h"
#include "util/log.h"
#include "version.h"

static const char usage[] =
    "Usage: ariadned token create --name NAME [--scope read|write|admin] [--db FILE]\n"
    "       ariadned token list [--db FILE]\n"
    "       ariadned token revoke ID [--db FILE]\n"
    "\n"
    "API tokens for 'Authorization: Bearer <secret>'. Scopes nest: admin > write > read.\n"
    "create prints {\"id\":..,\"name\":..,\"scope\":..,\"secret\":\"ari_...\"}: the secret is shown\n"
    "only once (the database keeps its SHA-256). list prints the tokens as JSON.\n";

static int create(ari_store *s, const char *name, const char *scope_name)
{
    ari_scope scope;
    ari_error err = {0};
    char secret[ARI_TOKEN_SECRET_MAX];
    int64_t id;
    if (!name || !*name)
        return ari_cli_fail("token", "create needs --name NAME");
    if (ari_scope_parse(scope_name, &scope) < 0)
        return ari_cli_fail("token", "--scope must be read, write or admin, got '%s'", scope_name);
    if (ari_tokens_create(s, name, scope, secret, &id, &err) < 0)
        return ari_cli_fail("token", "%s", err.message);
    json_t *out = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)id, "name", name,
                            "scope", scope_name, "secret", secret);
    char *text = json_dumps(out, JSON_COMPACT);
    puts(text);
    free(text);
    json_decref(out);
    fprintf(stderr, "Keep the secret now: it cannot be shown again.\n");
    return 0;
}

static int list(ari_store *s)
{
    char *text = NULL;
    ari_error err = {0};
    if (ari_tokens_list(s, &text, &err) < 0)
        return ari_cli_fail("token", "%s", err.message);
    puts(text);
    free(text);
    return 0;
}

static int revoke(ari_store *s, const char *id_text)
{
    char *end;
    long long id = strtoll(id_text, &end, 10);
    ari_error err = {0};
    if (*end || id <= 0)
        return ari_cli_fail("token", "revoke wants a token id, got '%s'", id_text);
    int rc = ari_tokens_revoke(s, id, &err);
    if (rc < 0)
        return ari_cli_fail("token", "%s", err.message);
    if (rc == 1)
        return ari_cli_fail("token", "no token %lld", id);
    fprintf(stderr, "token %lld revoked\n", id);
    return 0;
}

int cmd_token(int argc, char **argv)
{
    static const struct option options[] = {
        {"db", required_argument, NULL, 'd'}, {"name", required_argument, NULL, 'n'},
        {"scope", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    const char *db = ARI_DEFAULT_DB, *name = NULL, *scope = "read";
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'n': name = optarg; break;
        case 's': scope = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': printf("ariadned %s\n", ARIADNE_VERSION); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    const char *action = argv[optind];
    int is_revoke = strcmp(action, "revoke") == 0;
    if (strcmp(action, "create") != 0 && strcmp(action, "list") != 0 && !is_revoke)
        return ari_cli_fail("token", "unknown action '%s' (create, list or revoke)", action);
    if (is_revoke ? optind + 2 != argc : optind + 1 != argc)
        return ari_cli_fail("token", is_revoke ? "revoke wants exactly one ID" : "unexpected argument");
    ari_log_set_level(ARI_LOG_WARN);
    ari_error err = {0};
    ari_store *s = ari_store_open(db, &err);
    if (!s)
        return ari_cli_fail("token", "%s", err.message);
    int rc = is_revoke ? revoke(s, argv[optind + 1])
           : strcmp(action, "list") == 0 ? list(s) : create(s, name, scope);
    ari_store_close(s);
    return rc;
}
