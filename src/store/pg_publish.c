/* pg_publish.c: an import staged in SQLite published into PostgreSQL
 * (pg_publish.h), in one transaction.
 *
 * Trace ids are given after the largest ever given, under a lock that
 * other publications wait for (readers do not). Every staged table is then sent
 * with COPY (pg_copy.c), traces first. A table partitioned by trace
 * (sql/pg/: states, tasks, links, ...) gets one partition per imported
 * trace, "<table>_t<id>": created as a standalone table, loaded, and
 * attached only at the end, just before the caller commits: creating a
 * partition takes a lock that stops every reader of the table, attaching
 * one does not (measured in issue 20). Its CHECK (trace_id = id) spares
 * the attach a scan of the rows. Deleting a trace then drops its
 * partitions (store_traces.c). */
#include "store/pg_publish.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_copy.h"
#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/vec.h"

/* The staged columns of a table as a COPY column list ("a", "b"), their
 * count, and the index of the column whose ids move (-1: none). */
static char *staged_columns(ari_store *stage, const char *table, int *ncols, int *shift, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(stage, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", err);
    if (!st)
        return NULL;
    ari_bind_text_static(st, 1, table, -1);
    ari_sbuf cols = {0};
    *ncols = 0;
    *shift = -1;
    const char *moved = strcmp(table, "traces") == 0 ? "id" : "trace_id";
    while (ari_step(st) == ARI_ROW) {
        const char *c = (const char *)ari_col_text(st, 0);
        if (strcmp(c, moved) == 0)
            *shift = *ncols;
        ari_sbuf_printf(&cols, "%s\"%s\"", cols.len ? ", " : "", c);
        ++*ncols;
    }
    ari_stmt_finalize(st);
    if (ari_sbuf_failed(&cols)) {
        ari_sbuf_free(&cols);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return ari_sbuf_take(&cols);
}

/* Sends the current row of st as one COPY row. */
static int copy_row(ari_pg_copy *cp, ari_stmt *st, int ncols, int shift, int64_t offset)
{
    for (int i = 0; i < ncols; i++) {
        switch (ari_col_type(st, i)) {
        case ARI_INTEGER:
            ari_pg_copy_int(cp, ari_col_int64(st, i) + (i == shift ? offset : 0));
            break;
        case ARI_FLOAT:
            ari_pg_copy_real(cp, ari_col_double(st, i));
            break;
        case ARI_TEXT: {
            const char *text = (const char *)ari_col_text(st, i);
            ari_pg_copy_text(cp, text, (size_t)ari_col_bytes(st, i));
            break;
        }
        case ARI_BLOB: {
            const void *p = ari_col_blob(st, i);
            ari_pg_copy_blob(cp, p, (size_t)ari_col_bytes(st, i));
            break;
        }
        default:
            ari_pg_copy_null(cp);
        }
    }
    return ari_pg_copy_row_end(cp);
}

/* COPY of the rows of a staged SELECT (positioned on its first row) into
 * `target`. */
static int copy_rows(ari_store *stage, ari_store *s, ari_stmt *st, const char *target, const char *cols, int ncols,
                     int shift, int64_t offset, ari_error *err)
{
    ari_pg_copy *cp = ari_pg_copy_begin(s->pg, target, cols);
    int step = ARI_ROW, rc = cp ? 0 : -1;
    while (rc == 0 && step == ARI_ROW) {
        rc = copy_row(cp, st, ncols, shift, offset) == ARI_OK ? 0 : -1;
        step = ari_step(st);
    }
    if (cp && ari_pg_copy_end(cp, rc == 0 && step == ARI_DONE, NULL) != ARI_OK)
        rc = -1;
    if (rc == 0 && step == ARI_DONE)
        return 0;
    char what[128];
    snprintf(what, sizeof what, "publish the import (%s)", target);
    return step != ARI_DONE ? ari_store_fail(stage, err, what) : ari_store_fail(s, err, what);
}

/* The names of the tables partitioned by trace, one per line between
 * newlines ("\nstates\ntasks\n"), to look a name up with strstr. */
static char *partitioned_tables(ari_store *s, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, "SELECT c.relname FROM pg_partitioned_table p"
                                        " JOIN pg_class c ON c.oid = p.partrelid", err);
    if (!st)
        return NULL;
    ari_sbuf names = {0};
    ari_sbuf_add_char(&names, '\n');
    int step;
    while ((step = ari_step(st)) == ARI_ROW)
        ari_sbuf_printf(&names, "%s\n", (const char *)ari_col_text(st, 0));
    int rc = step == ARI_DONE ? 0 : ari_store_fail(s, err, "partitioned tables");
    ari_stmt_finalize(st);
    if (rc == 0 && ari_sbuf_failed(&names))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc < 0) {
        ari_sbuf_free(&names);
        return NULL;
    }
    return ari_sbuf_take(&names);
}

static int is_partitioned(const char *names, const char *table)
{
    char key[160];
    snprintf(key, sizeof key, "\n%s\n", table);
    return strstr(names, key) != NULL;
}

/* The partitions made so far, attached at the end: "ALTER TABLE ..." texts. */
typedef struct attach_list {
    char **sql;
    size_t n, cap;
} attach_list;

/* Rows of trace `staged` of a partitioned table into a new standalone
 * table that will be the trace's partition. */
static int copy_partition(ari_store *stage, ari_store *s, const char *table, const char *cols, int ncols, int shift,
                          int64_t staged, int64_t offset, attach_list *attach, ari_error *err)
{
    int64_t id = staged + offset;
    char *sql = NULL, *create = NULL, *part = NULL;
    ari_stmt *st = NULL;
    int rc = -1;
    if (asprintf(&part, "%s_t%lld", table, (long long)id) < 0 ||
        asprintf(&create, "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING DEFAULTS INCLUDING CONSTRAINTS,"
                          " CHECK (trace_id = %lld))", part, table, (long long)id) < 0 ||
        /* NOT INDEXED: the staged rows in rowid (or primary key) order, not
         * in the order of an index on trace_id, so that a bigserial rowid
         * (links, states, tasks) numbers them as SQLite's rowid does. */
        asprintf(&sql, "SELECT %s FROM \"%s\" NOT INDEXED WHERE trace_id = %lld", cols, table,
                 (long long)staged) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if ((st = ari_store_prepare(stage, sql, err)) != NULL) {
        int step = ari_step(st);
        if (step == ARI_DONE) {
            rc = 0; /* no rows: the trace's rows, if any come later, go to the default partition */
        } else if (step != ARI_ROW) {
            rc = ari_store_fail(stage, err, "read the staged rows");
        } else if (ari_store_exec(s, create, err) == 0 &&
                   copy_rows(stage, s, st, part, cols, ncols, shift, offset, err) == 0) {
            char *alter = NULL;
            if (asprintf(&alter, "ALTER TABLE \"%s\" ATTACH PARTITION \"%s\" FOR VALUES IN (%lld)", table, part,
                         (long long)id) < 0 ||
                ari_vec_reserve((void **)&attach->sql, &attach->cap, attach->n + 1, sizeof *attach->sql) < 0) {
                free(alter);
                rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            } else {
                attach->sql[attach->n++] = alter;
                rc = 0;
            }
        }
    }
    ari_stmt_finalize(st);
    free(sql);
    free(create);
    free(part);
    return rc;
}

/* The staged trace ids (1, 2, ... in a staging database). */
static int staged_traces(ari_store *stage, int64_t **ids, size_t *n, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(stage, "SELECT id FROM traces ORDER BY id", err);
    if (!st)
        return -1;
    size_t cap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)ids, &cap, *n + 1, sizeof **ids) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        else
            (*ids)[(*n)++] = ari_col_int64(st, 0);
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(stage, err, "staged traces");
    ari_stmt_finalize(st);
    return rc;
}

/* One staged table: into its parent with COPY, or partition by partition. */
static int copy_table(ari_store *stage, ari_store *s, const char *table, const char *partitioned,
                      const int64_t *ids, size_t nids, int64_t offset, attach_list *attach, ari_error *err)
{
    int ncols, shift;
    char *cols = staged_columns(stage, table, &ncols, &shift, err);
    if (!cols)
        return -1;
    int rc = 0;
    if (shift >= 0 && strcmp(table, "traces") != 0 && is_partitioned(partitioned, table)) {
        for (size_t i = 0; rc == 0 && i < nids; i++)
            rc = copy_partition(stage, s, table, cols, ncols, shift, ids[i], offset, attach, err);
        free(cols);
        return rc;
    }
    char *sql = NULL;
    ari_stmt *st = NULL;
    if (asprintf(&sql, "SELECT %s FROM \"%s\"", cols, table) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if (!(st = ari_store_prepare(stage, sql, err))) {
        rc = -1;
    } else {
        int step = ari_step(st);
        if (step == ARI_ROW && shift < 0)
            rc = ari_error_set(err, ARI_E_DB, "internal error: an import wrote to table %s", table);
        else if (step == ARI_ROW)
            rc = copy_rows(stage, s, st, table, cols, ncols, shift, offset, err);
        else if (step != ARI_DONE)
            rc = ari_store_fail(stage, err, "read the staged rows");
    }
    ari_stmt_finalize(st);
    free(sql);
    free(cols);
    return rc;
}

static int copy_tables(ari_store *stage, ari_store *s, int64_t offset, attach_list *attach, ari_error *err)
{
    char *partitioned = partitioned_tables(s, err);
    int64_t *ids = NULL;
    size_t nids = 0;
    ari_stmt *st = NULL;
    int rc = partitioned && staged_traces(stage, &ids, &nids, err) == 0 ? 0 : -1;
    /* creation order: traces first, then the tables that refer to it */
    if (rc == 0 && !(st = ari_store_prepare(stage, "SELECT name FROM sqlite_master WHERE type = 'table'"
                                                   " AND name NOT LIKE 'sqlite_%' ORDER BY rowid", err)))
        rc = -1;
    int step = ARI_DONE;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        char *table = strdup((const char *)ari_col_text(st, 0));
        rc = table ? copy_table(stage, s, table, partitioned, ids, nids, offset, attach, err)
                   : ari_error_set(err, ARI_E_NOMEM, "out of memory");
        free(table);
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(stage, err, "staged tables");
    ari_stmt_finalize(st);
    free(ids);
    free(partitioned);
    return rc;
}

/* The largest trace id ever given: the ids sequence's last value, or a
 * larger id copied in (ariadned copy). A deleted trace's id is never
 * given again, so a replica's caches, keyed by id and stamp, never
 * mistake a new trace for an old one. */
static int last_trace_id(ari_store *s, int64_t *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt(s,
        "SELECT greatest((SELECT coalesce(max(id), 0) FROM traces),"
        " coalesce(pg_sequence_last_value(pg_get_serial_sequence('traces', 'id')::regclass), 0))", err);
    return st && ari_store_query_int64(s, st, out, "largest trace id", err) == 0 ? 0 : -1;
}

int ari_pg_publish(ari_store *stage, ari_store *s, int64_t *offset_out, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    attach_list attach = {0};
    int rc = ari_store_exec(s, "LOCK TABLE traces IN SHARE ROW EXCLUSIVE MODE", err);
    if (rc == 0)
        rc = last_trace_id(s, offset_out, err);
    if (rc == 0)
        rc = copy_tables(stage, s, *offset_out, &attach, err);
    for (size_t i = 0; rc == 0 && i < attach.n; i++)
        rc = ari_store_exec(s, attach.sql[i], err);
    if (rc == 0)
        rc = ari_store_exec(s, "SELECT setval(pg_get_serial_sequence('traces', 'id'), max(id)) FROM traces"
                               " HAVING max(id) > coalesce(pg_sequence_last_value("
                               "pg_get_serial_sequence('traces', 'id')::regclass), 0)", err);
    for (size_t i = 0; i < attach.n; i++)
        free(attach.sql[i]);
    free(attach.sql);
    if (rc < 0)
        ari_store_rollback(s);
    return rc;
}
