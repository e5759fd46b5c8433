/* store_traces.c: listing, reading, renaming and deleting traces. Trace
 * objects are built as JSON by SQLite itself (json_object), so the server
 * passes them through without copying field by field. */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

#define TRACE_FIELDS \
    "'id', id, 'name', name, 'kind', kind, 'format', format, 'created_at', created_at," \
    "'bytes', bytes, 'sha256', sha256, 'time_unit', time_unit, 'description', description," \
    "'counts', json(counts_json)"

static const char *order_by(const char *sort)
{
    static const struct { const char *key, *sql; } orders[] = {
        {"created_at", "created_at ASC, id ASC"}, {"-created_at", "created_at DESC, id DESC"},
        {"name", "name COLLATE NOCASE ASC, id ASC"}, {"-name", "name COLLATE NOCASE DESC, id DESC"},
        {"bytes", "bytes ASC, id ASC"}, {"-bytes", "bytes DESC, id DESC"},
    };
    if (!sort)
        sort = "-created_at";
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        if (strcmp(sort, orders[i].key) == 0)
            return orders[i].sql;
    return NULL;
}

static void bind_filter(sqlite3_stmt *st, const ari_trace_filter *f)
{
    if (f->kind)
        sqlite3_bind_text(st, 1, f->kind, -1, SQLITE_TRANSIENT);
    if (f->name)
        sqlite3_bind_text(st, 2, f->name, -1, SQLITE_TRANSIENT);
}

#define FILTER_SQL " WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR instr(lower(name), lower(?2)) > 0)"

static int count_traces(ari_store *s, const ari_trace_filter *f, int64_t *total, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s, "SELECT count(*) FROM traces" FILTER_SQL, err);
    if (!st)
        return -1;
    bind_filter(st, f);
    if (sqlite3_step(st) != SQLITE_ROW) {
        ari_store_fail(s, err, "count traces");
        sqlite3_reset(st);
        return -1;
    }
    *total = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return 0;
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
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return ari_store_fail(s, err, "list traces");
    bind_filter(st, f);
    sqlite3_bind_int64(st, 3, f->limit);
    sqlite3_bind_int64(st, 4, f->offset);
    int rc = ari_store_query_text(s, st, json_out, err);
    sqlite3_finalize(st);
    return rc;
}

int ari_traces_get(ari_store *s, int64_t id, char **json_out, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "SELECT json_object(" TRACE_FIELDS ", 'meta', json(meta_json), 'summary', json(summary_json),"
        " 'files', (SELECT json_group_array(json_object('name', name, 'bytes', bytes,"
        "   'sha256', sha256, 'role', role)) FROM trace_files WHERE trace_id = traces.id))"
        " FROM traces WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    return ari_store_query_text(s, st, json_out, err);
}

int ari_traces_update(ari_store *s, int64_t id, const char *name,
                      const char *description, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s,
        "UPDATE traces SET name = coalesce(?2, name), description = coalesce(?3, description)"
        " WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (name)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    if (description)
        sqlite3_bind_text(st, 3, description, -1, SQLITE_TRANSIENT);
    if (ari_store_write(s, st, "update trace", err) < 0)
        return -1;
    return sqlite3_changes(s->db) ? 0 : 1;
}

int ari_traces_delete(ari_store *s, int64_t id, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(s, "DELETE FROM traces WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (ari_store_write(s, st, "delete trace", err) < 0)
        return -1;
    return sqlite3_changes(s->db) ? 0 : 1;
}
