/* store_copy.c: the copy of a whole database into another, of either
 * backend (store_copy.h).
 *
 * The tables come from the source's catalog (SQLite: sqlite_master;
 * PostgreSQL: the parent tables, not their partitions, minus the schema
 * version's table), ordered so that a table comes after those its foreign
 * keys reference. A table's columns are the source's that the destination
 * also has, by name: a PostgreSQL-only column (links.rowid) takes its
 * default when copying in and is dropped when copying out. Rows are read
 * from SQLite with one statement, from PostgreSQL through a cursor in
 * batches, and written with COPY into PostgreSQL or with a prepared INSERT
 * into SQLite, the whole copy in one destination transaction. */
#include "store/store_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_copy.h"
#include "store/store_internal.h"
#include "util/sbuf.h"

#define FETCH_ROWS "10000" /* rows per FETCH from a PostgreSQL source */
#define CURSOR "ari_copy_rows"
/* reader_open's trace: every row, or the rows of no trace (else an id). */
#define ALL_ROWS (-1)
#define NO_TRACE (-2)

/* ---- a list of names ---- */

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static void list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    *l = (name_list){0};
}

static int list_add(name_list *l, const char *name, ari_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->names, cap * sizeof *grown);
        if (!grown)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        l->names = grown;
        l->cap = cap;
    }
    if (!(l->names[l->n] = strdup(name)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    l->n++;
    return 0;
}

static int list_has(const name_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return 1;
    return 0;
}

/* Appends the first text column of every row of sql (?1 bound to arg when
 * not NULL) to out. */
static int query_names(ari_store *s, const char *sql, const char *arg, name_list *out, const char *what,
                       ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, sql, err);
    if (!st)
        return -1;
    if (arg && ari_bind_text_copy(st, 1, arg, -1) != ARI_OK) {
        ari_stmt_finalize(st);
        return ari_store_fail(s, err, what);
    }
    int rc, step;
    for (rc = 0; rc == 0 && (step = ari_step(st)) == ARI_ROW;) {
        const char *name = (const char *)ari_col_text(st, 0);
        if (name && strchr(name, '"'))
            rc = ari_error_set(err, ARI_E_DB, "%s: unexpected name '%s'", what, name);
        else if (name)
            rc = list_add(out, name, err);
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, what);
    ari_stmt_finalize(st);
    return rc;
}

/* ---- the catalog ---- */

static int source_tables(ari_store *s, name_list *out, ari_error *err)
{
    if (s->pg)
        return query_names(s, "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                              " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
                              " AND NOT c.relispartition AND c.relname <> 'ariadne_schema' ORDER BY c.oid",
                           NULL, out, "list the source's tables", err);
    return query_names(s, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                          " ORDER BY rowid",
                       NULL, out, "list the source's tables", err);
}

/* The columns of a table that a copy can write (none if there is no such
 * table), in their order. */
static int table_columns(ari_store *s, const char *table, name_list *out, ari_error *err)
{
    if (s->pg)
        return query_names(s, "SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass(quote_ident(?1))"
                              " AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
                           table, out, "list a table's columns", err);
    return query_names(s, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", table, out,
                       "list a table's columns", err);
}

/* The tables that table's foreign keys reference. */
static int table_parents(ari_store *s, const char *table, name_list *out, ari_error *err)
{
    if (s->pg)
        return query_names(s, "SELECT DISTINCT r.relname::text FROM pg_constraint k JOIN pg_class r ON r.oid = k.confrelid"
                              " WHERE k.contype = 'f' AND k.conrelid = to_regclass(quote_ident(?1))",
                           table, out, "list a table's foreign keys", err);
    return query_names(s, "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)", table, out,
                       "list a table's foreign keys", err);
}

/* 1 when every table that `table` references is in done (or not copied). */
static int parents_done(const name_list *parents, const char *table, const name_list *all, const name_list *done)
{
    for (size_t i = 0; i < parents->n; i++) {
        const char *p = parents->names[i];
        if (strcmp(p, table) != 0 && list_has(all, p) && !list_has(done, p))
            return 0;
    }
    return 1;
}

/* Reorders tables so that each comes after the tables it references,
 * keeping the catalog's order otherwise (a cycle keeps it too). */
static int dependency_order(ari_store *s, name_list *tables, ari_error *err)
{
    name_list *parents = calloc(tables->n ? tables->n : 1, sizeof *parents);
    name_list done = {0};
    char *placed = calloc(tables->n ? tables->n : 1, 1);
    int rc = parents && placed ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < tables->n; i++)
        rc = table_parents(s, tables->names[i], &parents[i], err);
    while (rc == 0 && done.n < tables->n) {
        size_t before = done.n;
        for (size_t i = 0; rc == 0 && i < tables->n; i++)
            if (!placed[i] && parents_done(&parents[i], tables->names[i], tables, &done) &&
                (rc = list_add(&done, tables->names[i], err)) == 0)
                placed[i] = 1;
        for (size_t i = 0; rc == 0 && done.n == before && i < tables->n; i++) /* a cycle */
            if (!placed[i] && (rc = list_add(&done, tables->names[i], err)) == 0)
                placed[i] = 1;
    }
    for (size_t i = 0; parents && i < tables->n; i++)
        list_free(&parents[i]);
    free(parents);
    free(placed);
    if (rc == 0) {
        list_free(tables);
        *tables = done;
    } else {
        list_free(&done);
    }
    return rc;
}

/* ---- reading a table's rows ---- */

typedef struct reader {
    ari_store *s;
    ari_stmt *st;
    int cursor;    /* PostgreSQL: a cursor is open */
    int64_t batch; /* rows of the current FETCH */
} reader;

static int reader_open(reader *r, ari_store *s, const char *table, const char *cols, int by_rowid, int64_t trace,
                       ari_error *err)
{
    char *sql = NULL, where[64] = "";
    *r = (reader){.s = s};
    if (trace >= 0)
        snprintf(where, sizeof where, " WHERE trace_id = %lld", (long long)trace);
    else if (trace == NO_TRACE)
        snprintf(where, sizeof where, " WHERE trace_id NOT IN (SELECT id FROM traces)");
    if (asprintf(&sql, "%s SELECT %s FROM \"%s\"%s%s", s->pg ? "DECLARE " CURSOR " NO SCROLL CURSOR FOR" : "", cols,
                 table, where, by_rowid ? " ORDER BY \"rowid\"" : "") < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    if (s->pg) {
        rc = ari_store_exec(s, sql, err);
        r->cursor = rc == 0;
        if (rc == 0 && !(r->st = ari_store_prepare(s, "FETCH FORWARD " FETCH_ROWS " FROM " CURSOR, err)))
            rc = -1;
    } else if (!(r->st = ari_store_prepare(s, sql, err))) {
        rc = -1;
    }
    free(sql);
    return rc;
}

/* ARI_ROW with a row in r->st, ARI_DONE, or an error code. */
static int reader_step(reader *r)
{
    for (;;) {
        int rc = ari_step(r->st);
        if (rc == ARI_ROW) {
            r->batch++;
            return rc;
        }
        if (rc != ARI_DONE || !r->cursor || r->batch == 0)
            return rc;
        r->batch = 0; /* that FETCH is read: the next one */
        ari_reset(r->st);
    }
}

static void reader_close(reader *r)
{
    ari_stmt_finalize(r->st);
    if (r->cursor)
        ari_store_exec(r->s, "CLOSE " CURSOR, NULL);
    *r = (reader){0};
}

/* ---- writing a table's rows ---- */

typedef struct writer {
    ari_store *s;
    ari_pg_copy *cp; /* into PostgreSQL */
    ari_stmt *ins;   /* into SQLite */
    int ncols;
} writer;

static int writer_open(writer *w, ari_store *s, const char *table, const char *cols, int ncols, ari_error *err)
{
    *w = (writer){.s = s, .ncols = ncols};
    if (s->pg) {
        w->cp = ari_pg_copy_begin(s->pg, table, cols);
        return w->cp ? 0 : ari_store_fail(s, err, "start the copy");
    }
    ari_sbuf sql = {0};
    ari_sbuf_printf(&sql, "INSERT INTO \"%s\" (%s) VALUES (", table, cols);
    for (int i = 1; i <= ncols; i++)
        ari_sbuf_printf(&sql, "%s?%d", i > 1 ? ", " : "", i);
    ari_sbuf_add_char(&sql, ')');
    if (ari_sbuf_failed(&sql)) {
        ari_sbuf_free(&sql);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    w->ins = ari_store_prepare(s, ari_sbuf_text(&sql), err);
    ari_sbuf_free(&sql);
    return w->ins ? 0 : -1;
}

static void copy_value(ari_pg_copy *cp, ari_stmt *from, int i)
{
    switch (ari_col_type(from, i)) {
    case ARI_INTEGER:
        ari_pg_copy_int(cp, ari_col_int64(from, i));
        break;
    case ARI_FLOAT:
        ari_pg_copy_real(cp, ari_col_double(from, i));
        break;
    case ARI_TEXT: {
        const char *text = (const char *)ari_col_text(from, i);
        ari_pg_copy_text(cp, text, (size_t)ari_col_bytes(from, i));
        break;
    }
    case ARI_BLOB: {
        const void *p = ari_col_blob(from, i);
        ari_pg_copy_blob(cp, p, (size_t)ari_col_bytes(from, i));
        break;
    }
    default:
        ari_pg_copy_null(cp);
    }
}

static int bind_value(ari_stmt *ins, ari_stmt *from, int i)
{
    switch (ari_col_type(from, i)) {
    case ARI_INTEGER:
        return ari_bind_int64(ins, i + 1, ari_col_int64(from, i));
    case ARI_FLOAT:
        return ari_bind_double(ins, i + 1, ari_col_double(from, i));
    case ARI_TEXT: {
        const char *text = (const char *)ari_col_text(from, i);
        return ari_bind_text_static(ins, i + 1, text, ari_col_bytes(from, i));
    }
    case ARI_BLOB: {
        const void *p = ari_col_blob(from, i);
        return ari_bind_blob(ins, i + 1, p ? p : "", ari_col_bytes(from, i));
    }
    default:
        return ari_bind_null(ins, i + 1);
    }
}

/* Writes the current row of from (its columns in the writer's order). */
static int writer_row(writer *w, ari_stmt *from, ari_error *err)
{
    if (w->cp) {
        for (int i = 0; i < w->ncols; i++)
            copy_value(w->cp, from, i);
        return ari_pg_copy_row_end(w->cp) == ARI_OK ? 0 : ari_store_fail(w->s, err, "copy a row");
    }
    for (int i = 0; i < w->ncols; i++)
        if (bind_value(w->ins, from, i) != ARI_OK)
            return ari_store_fail(w->s, err, "bind a value");
    int rc = ari_step(w->ins);
    ari_reset(w->ins);
    return rc == ARI_DONE ? 0 : ari_store_fail(w->s, err, "insert a row");
}

/* Ends the writer: with ok, the rows written are kept (COPY completed). */
static int writer_close(writer *w, int ok, ari_error *err)
{
    int rc = 0;
    if (w->cp && ari_pg_copy_end(w->cp, ok, NULL) != ARI_OK && ok)
        rc = ari_store_fail(w->s, err, "end the copy");
    ari_stmt_finalize(w->ins);
    *w = (writer){0};
    return rc;
}

/* ---- one table ---- */

/* 1 when table has a row in s, 0 if not, -1 with err set. */
static int has_rows(ari_store *s, const char *table, ari_error *err)
{
    char *sql = NULL;
    if (asprintf(&sql, "SELECT 1 FROM \"%s\" LIMIT 1", table) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_prepare(s, sql, err);
    free(sql);
    if (!st)
        return -1;
    int step = ari_step(st);
    int rc = step == ARI_ROW ? 1 : step == ARI_DONE ? 0 : ari_store_fail(s, err, table);
    ari_stmt_finalize(st);
    return rc;
}

/* The columns of both sides as a quoted list, in the source's order. */
static char *common_columns(const name_list *from, const name_list *to, int *ncols, ari_error *err)
{
    ari_sbuf cols = {0};
    *ncols = 0;
    for (size_t i = 0; i < from->n; i++) {
        if (!list_has(to, from->names[i]))
            continue;
        ari_sbuf_printf(&cols, "%s\"%s\"", *ncols ? ", " : "", from->names[i]);
        ++*ncols;
    }
    if (ari_sbuf_failed(&cols) || !*ncols) {
        ari_sbuf_free(&cols);
        ari_error_set(err, *ncols ? ARI_E_NOMEM : ARI_E_DB, *ncols ? "out of memory" : "no column in common");
        return NULL;
    }
    return ari_sbuf_take(&cols);
}

/* The rows of table in src (of one trace when trace >= 0; else ALL_ROWS
 * or NO_TRACE) into target in dst. */
static int stream_rows(ari_store *src, ari_store *dst, const char *table, const char *target, const char *cols,
                       int ncols, int by_rowid, int64_t trace, int64_t *rows, ari_error *err)
{
    reader r;
    writer w = {0};
    int rc = reader_open(&r, src, table, cols, by_rowid, trace, err);
    if (rc == 0)
        rc = writer_open(&w, dst, target, cols, ncols, err);
    int step = ARI_DONE;
    while (rc == 0 && (step = reader_step(&r)) == ARI_ROW) {
        rc = writer_row(&w, r.st, err);
        ++*rows;
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(src, err, "read the source");
    if (writer_close(&w, rc == 0, err) < 0)
        rc = -1;
    reader_close(&r);
    return rc;
}

/* ---- PostgreSQL: one partition per trace ---- */

/* The ids of the source's traces, as imports give them partitions. */
typedef struct id_list {
    int64_t *ids;
    size_t n;
} id_list;

static int source_trace_ids(ari_store *src, id_list *out, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(src, "SELECT id FROM traces ORDER BY id", err);
    if (!st)
        return -1;
    size_t cap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            int64_t *grown = realloc(out->ids, cap * sizeof *grown);
            if (!grown) {
                rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
                break;
            }
            out->ids = grown;
        }
        out->ids[out->n++] = ari_col_int64(st, 0);
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(src, err, "list the source's traces");
    ari_stmt_finalize(st);
    return rc;
}

/* 1 when table is partitioned in s (by trace: it has a trace_id). */
static int partitioned_by_trace(ari_store *s, const char *table, ari_error *err)
{
    int64_t n = 0;
    ari_stmt *st = ari_store_prepare(s, "SELECT count(*) FROM pg_partitioned_table p JOIN pg_attribute a"
                                        " ON a.attrelid = p.partrelid AND a.attname = 'trace_id'"
                                        " WHERE p.partrelid = to_regclass(quote_ident(?1))", err);
    if (!st)
        return -1;
    int rc = ari_bind_text_copy(st, 1, table, -1) == ARI_OK
                 ? ari_store_query_int64(s, st, &n, "partitioned tables", err)
                 : ari_store_fail(s, err, "partitioned tables");
    ari_stmt_finalize(st);
    return rc < 0 ? -1 : n > 0;
}

/* 1 when the source's table holds rows of trace id. */
static int trace_has_rows(ari_store *src, const char *table, int64_t id, ari_error *err)
{
    char *sql = NULL;
    if (asprintf(&sql, "SELECT 1 FROM \"%s\" WHERE trace_id = ?1 LIMIT 1", table) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_prepare(src, sql, err);
    free(sql);
    if (!st)
        return -1;
    int step = ari_bind_int64(st, 1, id) == ARI_OK ? ari_step(st) : ARI_ERROR;
    int rc = step == ARI_ROW ? 1 : step == ARI_DONE ? 0 : ari_store_fail(src, err, table);
    ari_stmt_finalize(st);
    return rc;
}

/* The per-copy state: the source's traces, and the partitions made so
 * far ("ALTER TABLE ... ATTACH PARTITION" texts, run once every table is
 * loaded). */
typedef struct copy_run {
    ari_store *src, *dst;
    id_list traces;
    name_list attach;
} copy_run;

/* A table partitioned by trace in a PostgreSQL destination: as imports do
 * (pg_publish.c), each trace with rows gets its partition "<table>_t<id>"
 * (which deleting the trace drops), made as a standalone table, loaded,
 * and attached at the end: its indexes are then built and its foreign keys
 * checked once, not row by row. */
static int copy_partitions(copy_run *run, const char *table, const char *cols, int ncols, int by_rowid,
                           int64_t *rows, ari_error *err)
{
    for (size_t i = 0; i < run->traces.n; i++) {
        int64_t id = run->traces.ids[i];
        int has = trace_has_rows(run->src, table, id, err);
        if (has <= 0) {
            if (has < 0)
                return -1;
            continue;
        }
        char part[160], sql[512];
        snprintf(part, sizeof part, "%s_t%lld", table, (long long)id);
        snprintf(sql, sizeof sql, "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING DEFAULTS INCLUDING CONSTRAINTS,"
                                  " CHECK (trace_id = %lld))", part, table, (long long)id);
        if (ari_store_exec(run->dst, sql, err) < 0 ||
            stream_rows(run->src, run->dst, table, part, cols, ncols, by_rowid, id, rows, err) < 0)
            return -1;
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" ATTACH PARTITION \"%s\" FOR VALUES IN (%lld)", table, part,
                 (long long)id);
        if (list_add(&run->attach, sql, err) < 0)
            return -1;
    }
    /* Rows of no trace (none, with the foreign keys): into the default partition. */
    int64_t total = 0;
    char *count = NULL;
    if (asprintf(&count, "SELECT count(*) FROM \"%s\"", table) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_prepare(run->src, count, err);
    free(count);
    int rc = st ? ari_store_query_int64(run->src, st, &total, "count the source's rows", err) : -1;
    ari_stmt_finalize(st);
    if (rc == 0 && total != *rows)
        rc = stream_rows(run->src, run->dst, table, table, cols, ncols, by_rowid, NO_TRACE, rows, err);
    return rc;
}

/* Copies one table: 0 and *rows (-1 when the destination has no such
 * table and the source's is empty: skipped), or -1 with err set. */
static int copy_table(copy_run *run, const char *table, int64_t *rows, ari_error *err)
{
    ari_store *src = run->src, *dst = run->dst;
    name_list from = {0}, to = {0};
    char *cols = NULL;
    int ncols = 0;
    *rows = 0;
    int rc = table_columns(src, table, &from, err);
    if (rc == 0)
        rc = table_columns(dst, table, &to, err);
    if (rc == 0 && to.n == 0) {
        int full = has_rows(src, table, err);
        rc = full < 0 ? -1
           : full ? ari_error_set(err, ARI_E_DB, "the destination has no table %s (another schema version?)", table)
                  : 0;
        *rows = -1;
    } else if (rc == 0 && !(cols = common_columns(&from, &to, &ncols, err))) {
        rc = -1;
    } else if (rc == 0) {
        int by_rowid = src->pg && list_has(&from, "rowid");
        int parted = dst->pg && list_has(&from, "trace_id") ? partitioned_by_trace(dst, table, err) : 0;
        rc = parted < 0 ? -1
           : parted ? copy_partitions(run, table, cols, ncols, by_rowid, rows, err)
                    : stream_rows(src, dst, table, table, cols, ncols, by_rowid, ALL_ROWS, rows, err);
    }
    free(cols);
    list_free(&from);
    list_free(&to);
    if (rc < 0 && err && !strstr(err->message, table)) {
        char code[sizeof err->code], msg[sizeof err->message];
        memcpy(code, err->code, sizeof code);
        memcpy(msg, err->message, sizeof msg);
        ari_error_set(err, code, "table %s: %.900s", table, msg);
    }
    return rc;
}

/* The last value given by the source's sequence of table.col (PostgreSQL:
 * ids of deleted rows are past the largest row left), 0 when it has none
 * (SQLite, whose tables reuse the largest rowid + 1, or a fresh sequence). */
static int source_high_water(ari_store *src, const char *table, const char *col, int64_t *out, ari_error *err)
{
    *out = 0;
    if (!src->pg)
        return 0;
    char *sql = NULL;
    if (asprintf(&sql, "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('\"%s\"', '%s')), 0)", table,
                 col) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_prepare(src, sql, err);
    free(sql);
    int rc = st ? ari_store_query_int64(src, st, out, "the source's sequence", err) : -1;
    ari_stmt_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* PostgreSQL: moves the sequence of each identity (or serial) column of
 * table past its largest value, and past the source's own sequence: a
 * copy gives no new row the id of a row deleted before it. */
static int move_sequences(ari_store *src, ari_store *s, const char *table, ari_error *err)
{
    name_list cols = {0};
    int rc = query_names(s, "SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass(quote_ident(?1))"
                            " AND attnum > 0 AND NOT attisdropped"
                            " AND pg_get_serial_sequence(quote_ident(?1), attname::text) IS NOT NULL ORDER BY attnum",
                         table, &cols, "list a table's sequences", err);
    for (size_t i = 0; rc == 0 && i < cols.n; i++) {
        const char *c = cols.names[i];
        int64_t high = 0;
        char *sql = NULL;
        rc = source_high_water(src, table, c, &high, err);
        if (rc == 0 && asprintf(&sql, "SELECT setval(pg_get_serial_sequence('\"%s\"', '%s'),"
                                      " greatest(max(\"%s\"), %lld)) FROM \"%s\""
                                      " HAVING greatest(max(\"%s\"), %lld) > 0",
                                table, c, c, (long long)high, table, c, (long long)high) < 0)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        else if (rc == 0)
            rc = ari_store_exec(s, sql, err);
        free(sql);
    }
    list_free(&cols);
    return rc;
}

/* ---- the whole copy ---- */

int ari_store_copy_check_empty(ari_store *dst, char **what_out, ari_error *err)
{
    static const char *const owners[][2] = {
        {"traces", "trace"}, {"jobs", "job"}, {"tokens", "token"}, {"ensembles", "ensemble"}};
    ari_sbuf what = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof owners / sizeof owners[0]; i++) {
        char sql[64];
        int64_t n = 0;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", owners[i][0]);
        ari_stmt *st = ari_store_prepare(dst, sql, err);
        rc = st ? ari_store_query_int64(dst, st, &n, "count the destination's rows", err) : -1;
        ari_stmt_finalize(st);
        if (rc == 0 && n > 0)
            ari_sbuf_printf(&what, "%s%lld %s", what.len ? ", " : "", (long long)n, n == 1 ? owners[i][1] : owners[i][0]);
    }
    if (rc == 0 && ari_sbuf_failed(&what))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc < 0 || what.len == 0) {
        ari_sbuf_free(&what);
        return rc < 0 ? -1 : 0;
    }
    *what_out = ari_sbuf_take(&what);
    return 1;
}

/* Inside dst's transaction: refuses a destination that holds data. */
static int require_empty(ari_store *dst, ari_error *err)
{
    char *what = NULL;
    int rc = ari_store_copy_check_empty(dst, &what, err);
    if (rc == 1) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "the destination is not empty: it holds %s", what);
        free(what);
        return -1;
    }
    return rc;
}

static int copy_tables(ari_store *src, ari_store *dst, const name_list *tables, ari_copy_progress progress,
                       void *ctx, ari_error *err)
{
    copy_run run = {.src = src, .dst = dst};
    int rc = dst->pg ? source_trace_ids(src, &run.traces, err) : 0;
    for (size_t i = 0; rc == 0 && i < tables->n; i++) {
        int64_t rows;
        rc = copy_table(&run, tables->names[i], &rows, err);
        if (rc == 0 && progress)
            progress(tables->names[i], rows, ctx);
    }
    for (size_t i = 0; rc == 0 && i < run.attach.n; i++)
        rc = ari_store_exec(dst, run.attach.names[i], err);
    for (size_t i = 0; rc == 0 && dst->pg && i < tables->n; i++)
        rc = move_sequences(src, dst, tables->names[i], err);
    free(run.traces.ids);
    list_free(&run.attach);
    return rc;
}

int ari_store_copy(ari_store *src, ari_store *dst, ari_copy_progress progress, void *ctx, ari_error *err)
{
    name_list tables = {0};
    if (source_tables(src, &tables, err) < 0 || dependency_order(src, &tables, err) < 0) {
        list_free(&tables);
        return -1;
    }
    /* One snapshot of the source for the whole copy. */
    int rc = ari_store_exec(src, src->pg ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", err);
    if (rc == 0 && (rc = ari_store_begin(dst, err)) == 0) {
        /* SQLite checks the foreign keys at the commit, PostgreSQL at each
         * table (whose parents are copied before it). */
        if (!dst->pg)
            rc = ari_store_exec(dst, "PRAGMA defer_foreign_keys = ON", err);
        if (rc == 0)
            rc = require_empty(dst, err);
        if (rc == 0)
            rc = copy_tables(src, dst, &tables, progress, ctx, err);
        if (rc == 0)
            rc = ari_store_commit(dst, err);
        ari_store_rollback(dst); /* no-op after a commit */
    }
    ari_store_rollback(src);
    list_free(&tables);
    return rc;
}
