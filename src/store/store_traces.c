/* store_traces.c: listing, reading, renaming and deleting traces. Trace
 * objects are built as JSON by SQLite itself (json_object), so the server
 * passes them through without copying field by field. */
#include "store/import_outcome.h"
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_shards.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/vec.h"

#define TRACE_FIELDS \
    "'id', id, 'name', name, 'kind', kind, 'format', format, 'created_at', created_at," \
    "'bytes', bytes, 'sha256', sha256, 'time_unit', time_unit, 'description', description," \
    "'counts', json(counts_json)"

/* By name: lower() folds ASCII case and compares bytes, SQLite's NOCASE
 * order, on both backends (PostgreSQL's text columns are COLLATE "C"). */
static const char *order_by(const char *sort)
{
    static const struct { const char *key, *sql; } orders[] = {
        {"created_at", "created_at ASC, id ASC"}, {"-created_at", "created_at DESC, id DESC"},
        {"name", "lower(name) ASC, id ASC"}, {"-name", "lower(name) DESC, id DESC"},
        {"bytes", "bytes ASC, id ASC"}, {"-bytes", "bytes DESC, id DESC"},
    };
    if (!sort)
        sort = "-created_at";
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        if (strcmp(sort, orders[i].key) == 0)
            return orders[i].sql;
    return NULL;
}

#define FILTER_SQL " WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR instr(lower(name), lower(?2)) > 0)"

/* ?1 kind, ?2 name (FILTER_SQL), ?3 limit, ?4 offset. */
static const ari_arg *filter_args(const ari_trace_filter *f, ari_arg args[4])
{
    args[0] = ari_arg_raw_text(f->kind);
    args[1] = ari_arg_raw_text(f->name);
    args[2] = ari_arg_int(f->limit);
    args[3] = ari_arg_int(f->offset);
    return args;
}

static int count_traces(ari_store *s, const ari_trace_filter *f, int64_t *total, ari_error *err)
{
    ari_arg args[4];
    ari_stmt *st =
        ari_store_bound(s, "SELECT count(*) FROM traces" FILTER_SQL, filter_args(f, args), 2, err);
    return st ? ari_store_query_int64(s, st, total, "count traces", err) : -1;
}

int ari_traces_list(ari_store *s, const ari_trace_filter *f, char **json_out,
                    int64_t *total, ari_error *err)
{
    const char *order = order_by(f->sort);
    if (!order)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "unknown sort key '%s'", f->sort);
    if (count_traces(s, f, total, err) < 0)
        return -1;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT json_group_array(json(obj)) FROM (SELECT json_object(" TRACE_FIELDS
             ") AS obj FROM traces" FILTER_SQL " ORDER BY %s LIMIT ?3 OFFSET ?4)", order);
    ari_stmt *st = ari_store_prepare(s, sql, err);
    if (!st)
        return -1;
    ari_arg args[4];
    int rc = ari_store_bind_args(s, st, filter_args(f, args), 4, err);
    if (rc == 0)
        rc = ari_store_query_text(s, st, json_out, err);
    ari_stmt_finalize(st);
    return rc;
}

int ari_traces_get(ari_store *s, int64_t id, char **json_out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT json_object(" TRACE_FIELDS ", 'time_unit_source', CASE WHEN time_unit_source = ''"
        "   THEN 'format: the unit of the ' || format || ' format' ELSE time_unit_source END,"
        " 'warnings', json(warnings_json), 'meta', json(meta_json), 'summary', json(summary_json),"
        " 'files', (SELECT json_group_array(json_object('name', name, 'bytes', bytes,"
        "   'sha256', sha256, 'role', role)) FROM trace_files WHERE trace_id = traces.id))"
        " FROM traces WHERE id = ?1", id, err);
    return st ? ari_store_query_text(s, st, json_out, err) : -1;
}

int ari_traces_update(ari_store *s, int64_t id, const char *name,
                      const char *description, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_raw_text(name), ari_arg_raw_text(description)};
    ari_stmt *st = ari_store_bound(s,
        "UPDATE traces SET name = coalesce(?2, name), description = coalesce(?3, description)"
        " WHERE id = ?1", args, ARI_NARGS(args), err);
    return st ? ari_store_write_changed(s, st, "update trace", err) : -1;
}

/* Why a trace's unit cannot be set: it is absent (1) or not a task trace. */
static int not_settable(ari_store *s, int64_t id, ari_error *err)
{
    char *kind = NULL;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT kind FROM traces WHERE id = ?1", id, err);
    int rc = st ? ari_store_query_string(s, st, "", &kind, "read trace", err) : -1;
    if (rc == 0)
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                           "time_unit can only be set on task traces; trace %lld is a %s trace, "
                           "whose times are in its format's unit",
                           (long long)id, kind);
    free(kind);
    return rc;
}

static int set_time_unit(ari_store *s, int64_t id, const char *unit, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_text(unit)};
    ari_stmt *st = ari_store_bound(
        s,
        "UPDATE traces SET time_unit = ?2, time_unit_source = 'set by the user',"
        " summary_json = CASE WHEN json_type(summary_json, '$.time_unit') IS NULL THEN summary_json"
        "   ELSE json_set(summary_json, '$.time_unit', ?2) END"
        " WHERE id = ?1 AND kind = 'tasks'",
        args, ARI_NARGS(args), err);
    int rc = st ? ari_store_write_changed(s, st, "set time unit", err) : -1;
    if (rc == 1)
        return not_settable(s, id, err);
    if (rc == 0)
        rc = ari_store_run(s, "DELETE FROM analysis_cache WHERE trace_id = ?1", args, 1,
                           "drop cached analyses", err);
    return rc;
}

int ari_traces_set_time_unit(ari_store *s, int64_t id, const char *unit, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    int rc = set_time_unit(s, id, unit, err);
    if (rc == 0)
        return ari_store_commit(s, err);
    ari_store_rollback(s);
    return rc;
}

/* A sharded trace's partitions: foreign tables of the coordinator, each
 * naming a table of the same name on its shard (pg_shards.h). */
typedef struct shard_tables {
    char **servers, **names;
    size_t n, cap;
} shard_tables;

static int shard_tables_add(shard_tables *t, const char *server, const char *name)
{
    size_t cap = t->cap;
    char *sv = strdup(server), *nm = strdup(name);
    if (!sv || !nm || ari_vec_reserve((void **)&t->servers, &cap, t->n + 1, sizeof *t->servers) < 0 ||
        ari_vec_reserve((void **)&t->names, &t->cap, t->n + 1, sizeof *t->names) < 0) {
        free(sv);
        free(nm);
        return -1;
    }
    t->servers[t->n] = sv;
    t->names[t->n++] = nm;
    return 0;
}

static void shard_tables_free(shard_tables *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->servers[i]);
        free(t->names[i]);
    }
    free(t->servers);
    free(t->names);
}

/* After the coordinator's commit: the shards' tables dropped, a server at
 * a time. A shard that cannot be reached keeps them as orphans for the
 * next sweep (ari_pg_shards_sweep): a warning, not a failed deletion. */
static void drop_shard_tables(ari_store *s, const shard_tables *t)
{
    char **same = malloc(t->n * sizeof *same);
    char *done = calloc(t->n, 1);
    for (size_t i = 0; same && done && i < t->n; i++) {
        if (done[i])
            continue;
        size_t m = 0;
        for (size_t j = i; j < t->n; j++)
            if (!done[j] && strcmp(t->servers[j], t->servers[i]) == 0) {
                same[m++] = t->names[j];
                done[j] = 1;
            }
        ari_error err = {0};
        if (ari_pg_shard_drop_tables(s, t->servers[i], same, m, &err) < 0)
            ari_log(ARI_LOG_WARN, "%s: tables left for the next sweep: %s", t->servers[i], err.message);
    }
    if (t->n && (!same || !done))
        ari_log(ARI_LOG_WARN, "shard tables left for the next sweep: out of memory");
    free(same);
    free(done);
}

/* PostgreSQL: a trace's partitions (pg_publish.c: "<table>_t<id>") are
 * dropped rather than emptied row by row; ON DELETE CASCADE then removes
 * what the default partitions hold. Foreign partitions (a shard's) are
 * noted in *remote, whose tables the caller drops after its commit. */
static int drop_partitions(ari_store *s, int64_t id, shard_tables *remote, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT c.relname, coalesce(v.srvname, '') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " JOIN pg_class p ON p.oid = i.inhparent LEFT JOIN pg_foreign_table f ON f.ftrelid = c.oid"
        " LEFT JOIN pg_foreign_server v ON v.oid = f.ftserver"
        " WHERE c.relname = p.relname || '_t' || CAST(?1 AS TEXT)"
        /* a spread trace's sub-partitions, one per shard (pg_shards.h),
         * dropped before their parent so that the shards' tables are known */
        " OR c.relname ~ ('^' || p.relname || '_s[0-9]+$') AND p.relname ~ ('_t' || CAST(?1 AS TEXT) || '$')"
        " ORDER BY c.relkind = 'p'",
        id, err);
    if (!st)
        return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        char *name = strdup((const char *)ari_col_text(st, 0));
        const char *server = (const char *)ari_col_text(st, 1);
        if (!name || ari_vec_reserve((void **)&names, &cap, n + 1, sizeof *names) < 0 ||
            (*server && shard_tables_add(remote, server, name) < 0)) {
            free(name);
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        } else {
            names[n++] = name;
        }
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, "trace partitions");
    ari_reset(st);
    for (size_t i = 0; i < n; i++) {
        char sql[200];
        int foreign = 0;
        for (size_t j = 0; j < remote->n; j++)
            foreign |= strcmp(remote->names[j], names[i]) == 0;
        snprintf(sql, sizeof sql, "DROP %sTABLE \"%s\"", foreign ? "FOREIGN " : "", names[i]);
        if (rc == 0)
            rc = ari_store_exec(s, sql, err);
        free(names[i]);
    }
    free(names);
    return rc;
}

int ari_traces_delete(ari_store *s, int64_t id, ari_error *err)
{
    if (ari_store_is_pg(s)) {
        if (ari_store_begin(s, err) < 0)
            return -1;
        ari_stmt *st = NULL;
        shard_tables remote = {0};
        int rc = drop_partitions(s, id, &remote, err);
        if (rc == 0 && !(st = ari_store_stmt_id(s, "DELETE FROM traces WHERE id = ?1", id, err)))
            rc = -1;
        if (rc == 0)
            rc = ari_store_write_changed(s, st, "delete trace", err);
        if (rc >= 0 && ari_store_commit(s, err) < 0)
            rc = -1;
        ari_store_rollback(s);
        if (rc == 0)
            drop_shard_tables(s, &remote);
        shard_tables_free(&remote);
        return rc;
    }
    ari_stmt *st = ari_store_stmt_id(s, "DELETE FROM traces WHERE id = ?1", id, err);
    return st ? ari_store_write_changed(s, st, "delete trace", err) : -1;
}

int ari_traces_digest(ari_store *s, int64_t id, char out[65], ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT sha256 FROM traces WHERE id = ?1", id, err);
    int rc = st ? ari_store_step_row(s, st, "read trace digest", err) : -1;
    if (rc != 0)
        return rc;
    const char *text = (const char *)ari_col_text(st, 0);
    snprintf(out, 65, "%s", text ? text : "");
    ari_reset(st);
    return 0;
}

int ari_traces_find_digest(ari_store *s, const char *digest, int64_t *id, char *name,
                           size_t name_size, ari_error *err)
{
    ari_arg args[] = {ari_arg_text(digest)};
    ari_stmt *st = ari_store_bound(s,
        "SELECT id, name FROM traces WHERE sha256 = ?1 AND sha256 <> '' ORDER BY id LIMIT 1",
        args, ARI_NARGS(args), err);
    int rc = st ? ari_store_step_row(s, st, "find trace by digest", err) : -1;
    if (rc != 0)
        return rc;
    *id = ari_col_int64(st, 0);
    const char *text = (const char *)ari_col_text(st, 1);
    ari_utf8_copy(name, name_size, text ? text : "");
    ari_reset(st);
    return 0;
}
