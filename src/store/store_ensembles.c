/* store_ensembles.c: the ensembles of profile traces (sql/012_ensembles.sql):
 * their rows, their members and the members' execution parameters, read
 * into the structs of store_ensembles.h. Every write is one transaction. */
#include "store/store_ensembles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/vec.h"

/* ---- transactions and checks ---- */

typedef int (*tx_body)(ari_store *s, const void *ctx, ari_error *err);

/* Runs body inside BEGIN IMMEDIATE ... COMMIT; rolls back on any failure. */
static int in_transaction(ari_store *s, tx_body body, const void *ctx, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    if (body(s, ctx, err) == 0 && ari_store_commit(s, err) == 0)
        return 0;
    ari_store_rollback(s);
    return -1;
}

static int check_text(const char *what, const char *text, size_t max, ari_error *err)
{
    if (!text || !*text)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%s must not be empty", what);
    if (strlen(text) > max)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%s is longer than %zu bytes", what, max);
    return 0;
}

/* 0 if ensemble id exists, else -1 with ARI_E_NOT_FOUND "no ensemble N". */
static int ensemble_exists(ari_store *s, int64_t id, ari_error *err)
{
    int64_t one = 0;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT 1 FROM ensembles WHERE id = ?1", id, err);
    int rc = st ? ari_store_query_int64(s, st, &one, "find ensemble", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_NOT_FOUND, "no ensemble %lld", (long long)id);
    return rc;
}

/* 0 if trace_id is a member of ensemble id, 1 if not, -1 on error. */
static int is_member(ari_store *s, int64_t id, int64_t trace_id, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(trace_id)};
    int64_t one = 0;
    ari_stmt *st = ari_store_bound(
        s, "SELECT 1 FROM ensemble_members WHERE ensemble_id = ?1 AND trace_id = ?2", args, 2, err);
    return st ? ari_store_query_int64(s, st, &one, "find member", err) : -1;
}

/* A trace that may join: it exists, is a profile and is not a member yet. */
static int check_joinable(ari_store *s, int64_t id, int64_t trace_id, ari_error *err)
{
    char *kind = NULL;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT kind FROM traces WHERE id = ?1", trace_id, err);
    int rc = st ? ari_store_query_string(s, st, "", &kind, "read trace kind", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "no trace %lld: list the traces with GET "
                             "/api/v1/traces?kind=profile",
                             (long long)trace_id);
    if (rc == 0 && strcmp(kind, "profile") != 0 && strcmp(kind, "events") != 0)
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                           "trace %lld is a %s trace, not a profile: only "
                           "call-graph profiles and event traces (their derived calling context tree) "
                           "can be members of an ensemble",
                           (long long)trace_id, kind);
    free(kind);
    if (rc == 0 && (rc = is_member(s, id, trace_id, err)) == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld is already a member of ensemble %lld",
                             (long long)trace_id, (long long)id);
    return rc == 1 ? 0 : -1;
}

/* ---- members and their metadata ---- */

/* Scalars of meta_json and of its objects one level down, as text. */
#define META_SCALARS                                                                                         \
    "SELECT e.key AS k, e.type AS ty, e.value AS val FROM traces t,"                                         \
    " json_each(CASE WHEN json_valid(t.meta_json) THEN t.meta_json ELSE '{}' END) e"                         \
    " WHERE t.id = ?2 AND e.type NOT IN ('object', 'array', 'null')"                                         \
    " UNION ALL SELECT CASE WHEN e.key = 'metadata' THEN f.key ELSE e.key || '.' || f.key END, f.type, "     \
    "f.value"                                                                                                \
    " FROM traces t,"                                                                                        \
    " json_each(CASE WHEN json_valid(t.meta_json) THEN t.meta_json ELSE '{}' END) e, json_each(e.value) f"   \
    " WHERE t.id = ?2 AND e.type = 'object' AND f.type NOT IN ('object', 'array', 'null')"

#define META_TEXT                                                                                            \
    "CASE ty WHEN 'real' THEN (CASE WHEN CAST(printf('%.15g', val) AS REAL) = val"                           \
    " THEN printf('%.15g', val) ELSE printf('%.17g', val) END)"                                              \
    " WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(val AS TEXT) END"

static const char insert_meta_sql[] =
    "INSERT OR IGNORE INTO ensemble_params (ensemble_id, trace_id, key, value, source)"
    " SELECT ?1, ?2, k, v, 'metadata' FROM (SELECT k, " META_TEXT " AS v FROM (" META_SCALARS "))"
    " WHERE k NOT LIKE 'spot.%' AND k NOT LIKE 'cali.%' AND length(k) BETWEEN 1 AND 128"
    " AND length(CAST(v AS BLOB)) <= 512";

/* PostgreSQL: json_each's values are text (functions.sql) and it has no
 * printf; ari_real_text gives "%.15g" when exact, as META_TEXT does. */
#define META_TEXT_PG                                                                                         \
    "CASE ty WHEN 'real' THEN ari_real_text(CAST(val AS REAL))"                                               \
    " WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(val AS TEXT) END"

static const char insert_meta_sql_pg[] =
    "INSERT OR IGNORE INTO ensemble_params (ensemble_id, trace_id, key, value, source)"
    " SELECT ?1, ?2, k, v, 'metadata' FROM (SELECT k, " META_TEXT_PG " AS v FROM (" META_SCALARS "))"
    " WHERE k NOT LIKE 'spot.%' AND k NOT LIKE 'cali.%' AND length(k) BETWEEN 1 AND 128"
    " AND length(CAST(v AS BLOB)) <= 512";

static const char insert_ranks_sql[] =
    "INSERT OR IGNORE INTO ensemble_params (ensemble_id, trace_id, key, value, source)"
    " SELECT ?1, ?2, 'ranks', CAST(count(DISTINCT rank) AS TEXT), 'metadata' FROM profile_procs"
    " WHERE trace_id = ?2 HAVING count(*) > 0";

static int add_member(ari_store *s, int64_t id, int64_t trace_id, ari_error *err)
{
    if (check_joinable(s, id, trace_id, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(trace_id)};
    if (ari_store_run(s,
                      "INSERT INTO ensemble_members (ensemble_id, trace_id, position, name)"
                      " SELECT ?1, ?2, (SELECT coalesce(max(position) + 1, 0) FROM ensemble_members"
                      " WHERE ensemble_id = ?1), CASE WHEN EXISTS (SELECT 1 FROM ensemble_members WHERE "
                      "ensemble_id = ?1"
                      " AND name = t.name) THEN t.name || ' (trace ' || t.id || ')' ELSE t.name END"
                      " FROM traces t WHERE t.id = ?2",
                      args, 2, "add member", err) < 0)
        return -1;
    const char *meta_sql = s->pg ? insert_meta_sql_pg : insert_meta_sql;
    if (ari_store_run(s, meta_sql, args, 2, "read member metadata", err) < 0)
        return -1;
    return ari_store_run(s, insert_ranks_sql, args, 2, "count member ranks", err);
}

typedef struct members_ctx {
    int64_t id;
    const int64_t *trace_ids;
    size_t n;
    const char *name; /* create only */
    int64_t *id_out;  /* create only */
} members_ctx;

static int add_members_body(ari_store *s, const void *ctx, ari_error *err)
{
    const members_ctx *c = ctx;
    if (ensemble_exists(s, c->id, err) < 0)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        if (add_member(s, c->id, c->trace_ids[i], err) < 0)
            return -1;
    return 0;
}

static int check_count(size_t n, ari_error *err)
{
    if (n > ARI_ENSEMBLE_MAX_MEMBERS)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "at most %d members at once, got %zu",
                             ARI_ENSEMBLE_MAX_MEMBERS, n);
    return 0;
}

int ari_ensemble_add_members(ari_store *s, int64_t id, const int64_t *trace_ids, size_t n, ari_error *err)
{
    members_ctx c = {.id = id, .trace_ids = trace_ids, .n = n};
    if (check_count(n, err) < 0)
        return -1;
    return in_transaction(s, add_members_body, &c, err);
}

static int create_body(ari_store *s, const void *ctx, ari_error *err)
{
    const members_ctx *c = ctx;
    ari_arg name = ari_arg_text(c->name);
    if (ari_store_run(s, "INSERT INTO ensembles (name) VALUES (?1)", &name, 1, "create ensemble", err) < 0)
        return -1;
    members_ctx with_id = *c;
    with_id.id = ari_store_last_insert_id(s);
    *c->id_out = with_id.id;
    return add_members_body(s, &with_id, err);
}

int ari_ensemble_create(ari_store *s, const char *name, const int64_t *trace_ids, size_t n, int64_t *id_out,
                        ari_error *err)
{
    if (check_text("the ensemble's name", name, ARI_ENSEMBLE_NAME_MAX, err) < 0 || check_count(n, err) < 0)
        return -1;
    members_ctx c = {.trace_ids = trace_ids, .n = n, .name = name, .id_out = id_out};
    return in_transaction(s, create_body, &c, err);
}

typedef struct job_ctx {
    members_ctx create;
    int64_t job_id;
} job_ctx;

static int create_for_job_body(ari_store *s, const void *ctx, ari_error *err)
{
    const job_ctx *c = ctx;
    if (create_body(s, &c->create, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(c->job_id), ari_arg_int(*c->create.id_out)};
    return ari_store_run(s, "UPDATE jobs SET params_json = json_set(params_json, '$.ensemble_id', ?2) WHERE id = ?1",
                         args, 2, "record the job's ensemble", err);
}

int ari_ensemble_create_for_job(ari_store *s, int64_t job_id, const char *name, const int64_t *trace_ids, size_t n,
                                int64_t *id_out, ari_error *err)
{
    if (check_text("the ensemble's name", name, ARI_ENSEMBLE_NAME_MAX, err) < 0 || check_count(n, err) < 0)
        return -1;
    job_ctx c = {{.trace_ids = trace_ids, .n = n, .name = name, .id_out = id_out}, job_id};
    return in_transaction(s, create_for_job_body, &c, err);
}

int ari_ensemble_rename(ari_store *s, int64_t id, const char *name, ari_error *err)
{
    if (check_text("the ensemble's name", name, ARI_ENSEMBLE_NAME_MAX, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(id), ari_arg_text(name)};
    ari_stmt *st = ari_store_bound(s, "UPDATE ensembles SET name = ?2 WHERE id = ?1", args, 2, err);
    int rc = st ? ari_store_write_changed(s, st, "rename ensemble", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_NOT_FOUND, "no ensemble %lld", (long long)id);
    return rc;
}

int ari_ensemble_delete(ari_store *s, int64_t id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "DELETE FROM ensembles WHERE id = ?1", id, err);
    return st ? ari_store_write_changed(s, st, "delete ensemble", err) : -1;
}

static int remove_body(ari_store *s, const void *ctx, ari_error *err)
{
    const members_ctx *c = ctx;
    if (ensemble_exists(s, c->id, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(c->id), ari_arg_int(c->trace_ids[0])};
    ari_stmt *st = ari_store_bound(
        s, "DELETE FROM ensemble_members WHERE ensemble_id = ?1 AND trace_id = ?2", args, 2, err);
    int rc = st ? ari_store_write_changed(s, st, "remove member", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_NOT_FOUND, "trace %lld is not a member of ensemble %lld",
                             (long long)c->trace_ids[0], (long long)c->id);
    return rc;
}

int ari_ensemble_remove_member(ari_store *s, int64_t id, int64_t trace_id, ari_error *err)
{
    members_ctx c = {.id = id, .trace_ids = &trace_id, .n = 1};
    return in_transaction(s, remove_body, &c, err);
}

/* ---- parameters and member names ---- */

static int check_member(ari_store *s, int64_t id, int64_t trace_id, ari_error *err)
{
    int rc = is_member(s, id, trace_id, err);
    if (rc == 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld is not a member of ensemble %lld",
                             (long long)trace_id, (long long)id);
    return rc;
}

static int apply_set(ari_store *s, int64_t id, const char *source, const ari_ensemble_param_set *p,
                     ari_error *err)
{
    if (check_member(s, id, p->trace_id, err) < 0 ||
        check_text("a parameter's name", p->key, ARI_ENSEMBLE_KEY_MAX, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(p->trace_id), ari_arg_text(p->key), ari_arg_text(p->value),
                      ari_arg_text(source)};
    if (!p->value)
        return ari_store_run(s,
                             "DELETE FROM ensemble_params WHERE ensemble_id = ?1 AND trace_id = ?2"
                             " AND key = ?3",
                             args, 3, "remove parameter", err);
    if (strlen(p->value) > ARI_ENSEMBLE_VALUE_MAX)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "the value of parameter '%.64s' is longer than "
                             "%d bytes",
                             p->key, ARI_ENSEMBLE_VALUE_MAX);
    return ari_store_run(s,
                         "INSERT INTO ensemble_params (ensemble_id, trace_id, key, value, source)"
                         " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (ensemble_id, trace_id, key)"
                         " DO UPDATE SET value = excluded.value, source = excluded.source",
                         args, ARI_NARGS(args), "set parameter", err);
}

static int rename_member(ari_store *s, int64_t id, int64_t trace_id, const char *name, ari_error *err)
{
    if (check_member(s, id, trace_id, err) < 0 ||
        check_text("a member's name", name, ARI_ENSEMBLE_NAME_MAX, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(trace_id), ari_arg_text(name)};
    return ari_store_run(s, "UPDATE ensemble_members SET name = ?3 WHERE ensemble_id = ?1 AND trace_id = ?2",
                         args, 3, "rename member", err);
}

typedef struct update_ctx {
    int64_t id;
    const ari_ensemble_patch *u;
} update_ctx;

static int update_body(ari_store *s, const void *ctx, ari_error *err)
{
    const update_ctx *c = ctx;
    const ari_ensemble_patch *u = c->u;
    if (ensemble_exists(s, c->id, err) < 0)
        return -1;
    if (u->name && ari_ensemble_rename(s, c->id, u->name, err) < 0)
        return -1;
    for (size_t i = 0; i < u->nnames; i++)
        if (rename_member(s, c->id, u->member_ids[i], u->member_names[i], err) < 0)
            return -1;
    for (size_t i = 0; i < u->nsets; i++)
        if (apply_set(s, c->id, u->source, &u->sets[i], err) < 0)
            return -1;
    return 0;
}

int ari_ensemble_update(ari_store *s, int64_t id, const ari_ensemble_patch *u, ari_error *err)
{
    const char *source = u->source ? u->source : "user";
    if (strcmp(source, "user") != 0 && strcmp(source, "csv") != 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a parameter's source must be user or csv");
    ari_ensemble_patch with_source = *u;
    with_source.source = source;
    update_ctx c = {id, &with_source};
    return in_transaction(s, update_body, &c, err);
}

/* ---- reading ---- */

static char *column_dup(ari_stmt *st, int i)
{
    const char *t = (const char *)ari_col_text(st, i);
    return strdup(t ? t : "");
}

static int read_header(ari_store *s, int64_t id, ari_ensemble *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT name, created_at FROM ensembles WHERE id = ?1", id, err);
    int rc = st ? ari_store_step_row(s, st, "read ensemble", err) : -1;
    if (rc == 1)
        return ari_error_set(err, ARI_E_NOT_FOUND, "no ensemble %lld", (long long)id);
    if (rc < 0)
        return -1;
    out->id = id;
    out->name = column_dup(st, 0);
    out->created_at = column_dup(st, 1);
    ari_reset(st);
    return out->name && out->created_at ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static int read_member(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_ensemble_member *m = item;
    m->trace_id = ari_col_int64(st, 0);
    m->position = ari_col_int64(st, 2);
    m->name = column_dup(st, 1);
    const char *stamp = (const char *)ari_col_text(st, 3);
    snprintf(m->trace_stamp, sizeof m->trace_stamp, "%s", stamp ? stamp : "");
    return m->name ? 0 : -1;
}

static int read_members(ari_store *s, int64_t id, ari_ensemble *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT m.trace_id, m.name, m.position, t.created_at || ' ' ||"
                                         " coalesce(t.sha256, '') FROM ensemble_members m JOIN traces t"
                                         " ON t.id = m.trace_id WHERE m.ensemble_id = ?1 ORDER BY m.position",
                                         id, err);
    size_t n = 0;
    void *items = NULL;
    int rc = st ? ari_store_read_rows(s, st, &items, &n, sizeof(ari_ensemble_member), read_member, NULL,
                                      "read members", err)
                : -1;
    out->members = items;
    out->nmembers = (int)n;
    return rc;
}

/* Appends one parameter to m (arrays grown one at a time: few per member). */
static int push_param(ari_ensemble_member *m, ari_stmt *st)
{
    size_t k = (size_t)m->nparams + 1;
    char **keys = realloc(m->param_keys, k * sizeof *keys);
    if (keys)
        m->param_keys = keys;
    char **values = keys ? realloc(m->param_values, k * sizeof *values) : NULL;
    if (values)
        m->param_values = values;
    char **sources = values ? realloc(m->param_sources, k * sizeof *sources) : NULL;
    if (!sources)
        return -1;
    m->param_sources = sources;
    keys[k - 1] = column_dup(st, 1);
    values[k - 1] = column_dup(st, 2);
    sources[k - 1] = column_dup(st, 3);
    m->nparams++;
    return keys[k - 1] && values[k - 1] && sources[k - 1] ? 0 : -1;
}

static ari_ensemble_member *member_of(ari_ensemble *e, int64_t trace_id, int *hint)
{
    for (int i = 0; i < e->nmembers; i++) {
        int j = (*hint + i) % e->nmembers;
        if (e->members[j].trace_id == trace_id) {
            *hint = j;
            return &e->members[j];
        }
    }
    return NULL;
}

static int read_params(ari_store *s, int64_t id, ari_ensemble *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
                                         "SELECT trace_id, key, value, source FROM ensemble_params"
                                         " WHERE ensemble_id = ?1 ORDER BY trace_id, key",
                                         id, err);
    if (!st)
        return -1;
    int rc, hint = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        ari_ensemble_member *m = member_of(out, ari_col_int64(st, 0), &hint);
        if (m && push_param(m, st) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    return ari_store_rows_end(s, st, rc, "read parameters", err);
}

int ari_ensemble_get(ari_store *s, int64_t id, ari_ensemble *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (read_header(s, id, out, err) == 0 && read_members(s, id, out, err) == 0 &&
        read_params(s, id, out, err) == 0)
        return 0;
    ari_ensemble_free(out);
    return -1;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void ari_ensemble_free(ari_ensemble *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nmembers; i++) {
        ari_ensemble_member *m = &e->members[i];
        free(m->name);
        free_strings(m->param_keys, m->nparams);
        free_strings(m->param_values, m->nparams);
        free_strings(m->param_sources, m->nparams);
    }
    free(e->members);
    free(e->name);
    free(e->created_at);
    memset(e, 0, sizeof *e);
}

/* ---- parameters across members ---- */

static const char *member_value(const ari_ensemble_member *m, const char *key)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->param_keys[i], key) == 0)
            return m->param_values[i];
    return NULL;
}

int ari_ensemble_member_number(const ari_ensemble_member *m, const char *key, double *out, const char **text)
{
    const char *v = member_value(m, key);
    if (!v)
        return 1;
    if (text)
        *text = v;
    char *end = NULL;
    double x = strtod(v, &end);
    if (!*v || !end || *end != '\0' || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

int ari_ensemble_param_numeric(const ari_ensemble *e, const char *key)
{
    int seen = 0;
    for (int i = 0; i < e->nmembers; i++) {
        double x;
        int rc = ari_ensemble_member_number(&e->members[i], key, &x, NULL);
        if (rc < 0)
            return 0;
        seen |= rc == 0;
    }
    return seen;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ari_ensemble_param_keys(const ari_ensemble *e, const char ***keys, int *n, ari_error *err)
{
    size_t total = 0, cap = 0, k = 0;
    for (int i = 0; i < e->nmembers; i++)
        total += (size_t)e->members[i].nparams;
    const char **all = NULL;
    if (total && ari_vec_reserve((void **)&all, &cap, total, sizeof *all) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int i = 0; i < e->nmembers; i++)
        for (int j = 0; j < e->members[i].nparams; j++)
            all[k++] = e->members[i].param_keys[j];
    if (k)
        qsort(all, k, sizeof *all, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(all[u - 1], all[i]) != 0)
            all[u++] = all[i];
    *keys = all;
    *n = (int)u;
    return 0;
}

/* ---- listing ---- */

static int read_info(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_ensemble_info *e = item;
    e->id = ari_col_int64(st, 0);
    e->nmembers = ari_col_int64(st, 3);
    e->name = column_dup(st, 1);
    e->created_at = column_dup(st, 2);
    return e->name && e->created_at ? 0 : -1;
}

int ari_ensembles_list(ari_store *s, ari_ensemble_info **out, size_t *n, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s,
                                      "SELECT e.id, e.name, e.created_at, (SELECT count(*) FROM"
                                      " ensemble_members m WHERE m.ensemble_id = e.id)"
                                      " FROM ensembles e ORDER BY e.id DESC",
                                      err);
    void *items = NULL;
    *n = 0;
    int rc = st ? ari_store_read_rows(s, st, &items, n, sizeof(ari_ensemble_info), read_info, NULL,
                                      "list ensembles", err)
                : -1;
    *out = items;
    if (rc < 0) {
        ari_ensemble_infos_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void ari_ensemble_infos_free(ari_ensemble_info *infos, size_t n)
{
    for (size_t i = 0; infos && i < n; i++) {
        free(infos[i].name);
        free(infos[i].created_at);
    }
    free(infos);
}
