/* store_tokens.c: API tokens. A secret is "ari_" + 64 random hex digits; only
 * its SHA-256 is stored, so a stolen database reveals no usable token. A
 * token created through the API while auth was off is marked so
 * (created_without_auth, sql/007_token_origin.sql). */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "util/sha256.h"

#define TOKEN_FIELDS \
    "'id', id, 'name', name, 'scope', scope, 'created_at', created_at," \
    "'last_used_at', last_used_at, 'revoked', json(CASE WHEN revoked_at IS NULL THEN 'false' ELSE 'true' END)," \
    "'created_without_auth', json(CASE WHEN created_without_auth <> 0 THEN 'true' ELSE 'false' END)"

static const char *scope_names[] = {"none", "read", "write", "admin"};

const char *ari_scope_name(ari_scope scope)
{
    return scope_names[scope];
}

int ari_scope_parse(const char *name, ari_scope *out)
{
    for (int i = ARI_SCOPE_READ; i <= ARI_SCOPE_ADMIN; i++) {
        if (strcmp(name, scope_names[i]) == 0) {
            *out = (ari_scope)i;
            return 0;
        }
    }
    return -1;
}

static int random_secret(char out[ARI_TOKEN_SECRET_MAX], ari_error *err)
{
    unsigned char bytes[32];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0)
            return ari_error_set(err, ARI_E_IO, "getrandom failed");
        got += (size_t)n;
    }
    strcpy(out, "ari_");
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(out + 4 + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

static int create_token(ari_store *s, const char *name, ari_scope scope, int without_auth,
                        char secret_out[ARI_TOKEN_SECRET_MAX], int64_t *id_out, ari_error *err)
{
    char hash[ARI_SHA256_HEX];
    if (random_secret(secret_out, err) < 0)
        return -1;
    ari_sha256_hex(secret_out, strlen(secret_out), hash);
    ari_arg args[] = {ari_arg_raw_text(name), ari_arg_raw_text(ari_scope_name(scope)), ari_arg_raw_text(hash),
                      ari_arg_int(without_auth)};
    if (ari_store_run(s,
                      "INSERT INTO tokens(name, scope, hash, created_without_auth) VALUES (?1, ?2, ?3, ?4)", args, ARI_NARGS(args), "create token", err) < 0)
        return -1;
    *id_out = ari_store_last_insert_id(s);
    return 0;
}

int ari_tokens_create(ari_store *s, const char *name, ari_scope scope,
                      char secret_out[ARI_TOKEN_SECRET_MAX], int64_t *id_out, ari_error *err)
{
    return create_token(s, name, scope, 0, secret_out, id_out, err);
}

int ari_tokens_create_unauthenticated(ari_store *s, const char *name, ari_scope scope,
                                      char secret_out[ARI_TOKEN_SECRET_MAX], int64_t *id_out,
                                      ari_error *err)
{
    return create_token(s, name, scope, 1, secret_out, id_out, err);
}

int ari_tokens_lookup(ari_store *s, const char *secret, ari_scope *scope_out,
                      int64_t *id_out, ari_error *err)
{
    int without_auth;
    return ari_tokens_lookup_origin(s, secret, scope_out, id_out, &without_auth, err);
}

int ari_tokens_lookup_origin(ari_store *s, const char *secret, ari_scope *scope_out, int64_t *id_out,
                             int *without_auth_out, ari_error *err)
{
    char hash[ARI_SHA256_HEX];
    ari_sha256_hex(secret, strlen(secret), hash);
    ari_arg arg = ari_arg_raw_text(hash);
    ari_stmt *st = ari_store_bound(s,
        "SELECT id, scope, created_without_auth FROM tokens WHERE hash = ?1 AND revoked_at IS NULL", &arg, 1,
        err);
    int rc = st ? ari_store_step_row(s, st, "look up token", err) : -1;
    if (rc != 0)
        return rc;
    *id_out = ari_col_int64(st, 0);
    *without_auth_out = ari_col_int(st, 2) != 0;
    int parsed = ari_scope_parse((const char *)ari_col_text(st, 1), scope_out);
    ari_reset(st);
    return parsed < 0 ? 1 : 0;
}

/* Records use at most once a minute, and never waits for the write lock:
 * a busy database (an import committing) must not delay requests. */
int ari_tokens_touch(ari_store *s, int64_t id)
{
    ari_store_set_busy_timeout(s, 0);
    ari_stmt *st = ari_store_stmt_id(s,
        "UPDATE tokens SET last_used_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1"
        " AND (last_used_at IS NULL OR last_used_at < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-60 seconds'))",
        id, NULL);
    int rc = st ? ari_store_write(s, st, "record token use", NULL) : -1;
    ari_store_set_busy_timeout(s, -1);
    return rc;
}

int ari_tokens_list(ari_store *s, char **json_out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s,
        "SELECT json_group_array(json(obj)) FROM (SELECT json_object(" TOKEN_FIELDS ") AS obj"
        " FROM tokens ORDER BY id)", err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_tokens_get(ari_store *s, int64_t id, char **json_out, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT json_object(" TOKEN_FIELDS ") FROM tokens WHERE id = ?1", id, err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_tokens_revoke(ari_store *s, int64_t id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "UPDATE tokens SET revoked_at = coalesce(revoked_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"
        " WHERE id = ?1", id, err);
    return st ? ari_store_write_changed(s, st, "revoke token", err) : -1;
}
