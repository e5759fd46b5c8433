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
 * partitions (store_traces.c).
 *
 * With shards registered (pg_shards.h), a trace's partitions of the
 * sharded tables (placement_open: large ones read a trace at a time, with
 * neither a unique index nor a foreign key on the parent) go to one
 * shard, the one holding the fewest traces: created there as plain tables
 * over a second connection, loaded with COPY, indexed and analysed, and
 * attached on the coordinator as foreign tables. The shards commit first, the coordinator's transaction
 * after (its caller's commit): if that fails, the shards' tables are
 * orphans that the next publication (or `ariadned shard sweep`) drops.
 * A trace too large for one shard (ari_pg_shards_spread_rows) is spread
 * over all of them instead: "spreading a trace" below. */
#include "store/pg_publish.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_copy.h"
#include "store/pg_shards.h"
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

/* Sends the current row of st as one COPY row, and `serial` after its
 * columns when it is positive (a shard's rowid: copy_shard_partition). */
static int copy_row(ari_pg_copy *cp, ari_stmt *st, int ncols, int shift, int64_t offset, int64_t serial)
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
    if (serial > 0)
        ari_pg_copy_int(cp, serial);
    return ari_pg_copy_row_end(cp);
}

/* COPY of the rows of a staged SELECT (positioned on its first row) into
 * `target`; with serial > 0, the rows get serial, serial + 1, ... in one
 * more column (cols names it), or with by_col serial + the SELECT's column
 * ncols (the row's place among its trace's staged rows: a spread trace's
 * rows go to several shards, each numbered as on one server). */
static int copy_rows(ari_store *stage, ari_store *s, ari_stmt *st, const char *target, const char *cols, int ncols,
                     int shift, int64_t offset, int64_t serial, int by_col, ari_error *err)
{
    ari_pg_copy *cp = ari_pg_copy_begin(s->pg, target, cols);
    int step = ARI_ROW, rc = cp ? 0 : -1;
    while (rc == 0 && step == ARI_ROW) {
        int64_t n = serial <= 0 ? 0 : by_col ? serial + ari_col_int64(st, ncols) : serial++;
        rc = copy_row(cp, st, ncols, shift, offset, n) == ARI_OK ? 0 : -1;
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

/* The names a query gives (ari_pg_names). */
static char *name_list(ari_store *s, const char *sql, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, sql, err);
    return st ? ari_pg_names(s, st, "list the tables", err) : NULL;
}

/* The tables partitioned by trace. */
static char *partitioned_tables(ari_store *s, ari_error *err)
{
    return name_list(s, "SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid", err);
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
static int serial_column(ari_store *s, const char *table, const char *cols, char **col, char **seq, ari_error *err);
static int reserve_serial(ari_store *s, const char *seq, int64_t count, int64_t *first, ari_error *err);
static int staged_count(ari_store *stage, const char *table, int64_t staged, int64_t *count, ari_error *err);
static char *spread_select(ari_store *stage, const char *table, const char *cols, int numbered, int64_t staged,
                           int64_t count, const char *where, ari_error *err);

/* The columns a COPY writes: the staged ones, then the numbered column
 * col given explicitly when there is one; malloc'd, NULL when out of
 * memory. */
static char *copy_columns(const char *cols, const char *col)
{
    char *out = NULL;
    int rc = col ? asprintf(&out, "%s, \"%s\"", cols, col) : asprintf(&out, "%s", cols);
    return rc < 0 ? NULL : out;
}

/* The order a table's partition is written in, when not the staged one:
 * a trace's tasks by worker and start, so that a worker's tasks in a
 * window (the Gantt's reads, the index on (trace, worker, start)) lie on
 * a few heap pages instead of one page each (measured at 1.1 M tasks: 4
 * us a task read in staged order). */
static const char *cluster_order(const char *table)
{
    return strcmp(table, "tasks") == 0 ? "\"worker_id\", \"start\"" : NULL;
}

/* The staged SELECT of trace `staged`'s rows of table and the columns it
 * COPYs: in staged order with the bigserial rowid (links, states, tasks)
 * left to its default, which numbers them as SQLite's rowid does; or, for
 * a clustered table, in its order, each row's rowid given (*first + its
 * place among the staged rows, *by_col set), the same numbers. */
static int partition_select(ari_store *stage, ari_store *s, const char *table, const char *cols, int64_t staged,
                            char **sql, char **copy_cols, int64_t *first, int *by_col, ari_error *err)
{
    const char *order = cluster_order(table);
    *sql = *copy_cols = NULL;
    *first = 0;
    *by_col = 0;
    if (!order) {
        /* NOT INDEXED: in rowid (or primary key) order, not in the order
         * of an index on trace_id */
        if (asprintf(sql, "SELECT %s FROM \"%s\" NOT INDEXED WHERE trace_id = %lld", cols, table, (long long)staged) <
                0 ||
            !(*copy_cols = strdup(cols)))
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return 0;
    }
    int64_t count = 0;
    char *col = NULL, *seq = NULL, *base = NULL;
    int rc = -1;
    if (staged_count(stage, table, staged, &count, err) == 0 && serial_column(s, table, cols, &col, &seq, err) == 0 &&
        (!col || count == 0 || reserve_serial(s, seq, count, first, err) == 0) &&
        (base = spread_select(stage, table, cols, col != NULL, staged, count, "1", err)) != NULL) {
        if (asprintf(sql, "%s ORDER BY %s", base, order) < 0 ||
            !(*copy_cols = copy_columns(cols, col)))
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        else
            rc = 0;
        *by_col = col != NULL;
    }
    free(col);
    free(seq);
    free(base);
    return rc;
}

static int copy_partition(ari_store *stage, ari_store *s, const char *table, const char *cols, int ncols, int shift,
                          int64_t staged, int64_t offset, attach_list *attach, ari_error *err)
{
    int64_t id = staged + offset, first = 0;
    char *sql = NULL, *create = NULL, *part = NULL, *copy_cols = NULL;
    ari_stmt *st = NULL;
    int rc = -1, by_col = 0;
    if (asprintf(&part, "%s_t%lld", table, (long long)id) < 0 ||
        asprintf(&create, "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING DEFAULTS INCLUDING CONSTRAINTS,"
                          " CHECK (trace_id = %lld))", part, table, (long long)id) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if (partition_select(stage, s, table, cols, staged, &sql, &copy_cols, &first, &by_col, err) == 0 &&
               (st = ari_store_prepare(stage, sql, err)) != NULL) {
        int step = ari_step(st);
        if (step == ARI_DONE) {
            rc = 0; /* no rows: the trace's rows, if any come later, go to the default partition */
        } else if (step != ARI_ROW) {
            rc = ari_store_fail(stage, err, "read the staged rows");
        } else if (ari_store_exec(s, create, err) == 0 &&
                   copy_rows(stage, s, st, part, copy_cols, ncols, shift, offset, first, by_col, err) == 0) {
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
    free(copy_cols);
    free(create);
    free(part);
    return rc;
}

/* ---- placement on shards ---- */

/* Where an import's traces go: the shards, the tables that can be sharded
 * (PostgreSQL attaches no foreign table under a unique index or a foreign
 * key), and each staged trace's shard, picked at its first sharded table
 * (a trace without rows there, a profile say, takes no shard). */
typedef struct placement {
    ari_pg_shards shards;
    char *shardable;
    int64_t spread_rows;  /* a trace with this many rows to spread is spread (0: never) */
    int64_t *staged;
    ari_pg_shard **to;
    size_t n, cap;
    int64_t *spread_ids;  /* the staged traces decided on, and whether each is spread */
    unsigned char *spread;
    size_t nspread, spread_cap;
} placement;

static ari_pg_shard *shard_of(placement *pl, int64_t staged, ari_error *err)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->staged[i] == staged)
            return pl->to[i];
    size_t cap = pl->cap;
    if (ari_vec_reserve((void **)&pl->staged, &cap, pl->n + 1, sizeof *pl->staged) < 0 ||
        ari_vec_reserve((void **)&pl->to, &pl->cap, pl->n + 1, sizeof *pl->to) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    pl->staged[pl->n] = staged;
    pl->to[pl->n] = ari_pg_shards_pick(&pl->shards);
    return pl->to[pl->n++];
}

static void placement_free(placement *pl)
{
    ari_pg_shards_close(&pl->shards);
    free(pl->shardable);
    free(pl->staged);
    free(pl->to);
    free(pl->spread_ids);
    free(pl->spread);
}

/* One text from the coordinator's catalogue for ?1 = a (and ?2 = b):
 * malloc'd, or NULL with err set. */
static char *catalog_text(ari_store *s, const char *sql, const char *a, const char *b, const char *what,
                          ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, sql, err);
    char *out = NULL;
    if (!st)
        return NULL;
    ari_bind_text_static(st, 1, a, -1);
    if (b)
        ari_bind_text_static(st, 2, b, -1);
    int rc = ari_store_query_string(s, st, "", &out, what, err);
    ari_stmt_finalize(st);
    if (rc == 1)
        ari_error_set(err, ARI_E_DB, "%s: no row", what);
    return rc == 0 ? out : NULL;
}

/* The parent's columns as a table definition ("a" bigint NOT NULL, ...),
 * for the shard's table and the coordinator's foreign table. */
static char *column_defs(ari_store *s, const char *table, ari_error *err)
{
    return catalog_text(s,
        "SELECT string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod)"
        " || CASE WHEN a.attcollation <> 0 THEN ' COLLATE ' || quote_ident(co.collname) ELSE '' END"
        " || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END, ', ' ORDER BY a.attnum)"
        " FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation"
        " WHERE a.attrelid = to_regclass(quote_ident(?1)) AND a.attnum > 0 AND NOT a.attisdropped",
        table, NULL, "column definitions", err);
}

/* The parent's column numbered by a sequence that the staged columns do
 * not have (a rowid: the local path lets the default number it), and its
 * sequence; *col NULL if none. 0, or -1 with err set. */
static int serial_column(ari_store *s, const char *table, const char *cols, char **col, char **seq, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s,
        "SELECT a.attname, pg_get_serial_sequence(quote_ident(?1), a.attname) FROM pg_attribute a"
        " WHERE a.attrelid = to_regclass(quote_ident(?1)) AND a.attnum > 0 AND NOT a.attisdropped"
        " AND pg_get_serial_sequence(quote_ident(?1), a.attname) IS NOT NULL", err);
    if (!st)
        return -1;
    ari_bind_text_static(st, 1, table, -1);
    *col = *seq = NULL;
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW) {
        char quoted[160];
        snprintf(quoted, sizeof quoted, "\"%s\"", (const char *)ari_col_text(st, 0));
        if (strstr(cols, quoted))
            continue;
        if (*col)
            rc = ari_error_set(err, ARI_E_DB, "table %s has two numbered columns: it cannot go to a shard", table);
        else if (!(*col = strdup((const char *)ari_col_text(st, 0))) ||
                 !(*seq = strdup((const char *)ari_col_text(st, 1))))
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, "numbered columns");
    ari_stmt_finalize(st);
    return rc;
}

/* count numbers of seq for this import (under the publication's lock):
 * the first in *first. */
static int reserve_serial(ari_store *s, const char *seq, int64_t count, int64_t *first, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s, "SELECT nextval(to_regclass(?1))", err);
    if (!st)
        return -1;
    ari_bind_text_static(st, 1, seq, -1);
    int rc = ari_store_query_int64(s, st, first, "reserve row numbers", err);
    ari_stmt_finalize(st);
    if (rc != 0 || count < 2)
        return rc == 0 ? 0 : -1;
    if (!(st = ari_store_prepare(s, "SELECT setval(to_regclass(?1), ?2)", err)))
        return -1;
    ari_bind_text_static(st, 1, seq, -1);
    ari_bind_int64(st, 2, *first + count - 1);
    int64_t last;
    rc = ari_store_query_int64(s, st, &last, "reserve row numbers", err);
    ari_stmt_finalize(st);
    return rc == 0 ? 0 : -1;
}

/* An aggregate (`count(*)`, `sum(n)`) of the staged trace's rows of
 * table: 0 for none. */
static int staged_aggregate(ari_store *stage, const char *aggregate, const char *table, int64_t staged,
                            int64_t *out, ari_error *err)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT coalesce(%s, 0) FROM \"%s\" WHERE trace_id = %lld", aggregate, table,
             (long long)staged);
    ari_stmt *st = ari_store_prepare(stage, sql, err);
    int rc = st ? ari_store_query_int64(stage, st, out, "count the staged rows", err) : -1;
    ari_stmt_finalize(st);
    return rc == 0 ? 0 : -1;
}

static int staged_count(ari_store *stage, const char *table, int64_t staged, int64_t *count, ari_error *err)
{
    return staged_aggregate(stage, "count(*)", table, staged, count, err);
}

/* The parent's indexes made on the shard's table, which is then analysed
 * (the coordinator's plans ask the shard for estimates). */
static int index_shard_table(ari_store *s, ari_store *shard, const char *table, const char *part, ari_error *err)
{
    ari_stmt *st = ari_store_prepare(s,
        "SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \\S+ ON (ONLY )?\\S+ ',"
        " 'CREATE \\1INDEX ON ' || quote_ident(?2) || ' ')"
        " FROM pg_index i WHERE i.indrelid = to_regclass(quote_ident(?1))", err);
    if (!st)
        return -1;
    ari_bind_text_static(st, 1, table, -1);
    ari_bind_text_static(st, 2, part, -1);
    int step, rc = 0;
    while (rc == 0 && (step = ari_step(st)) == ARI_ROW)
        rc = ari_store_exec(shard, (const char *)ari_col_text(st, 0), err);
    if (rc == 0 && step != ARI_DONE)
        rc = ari_store_fail(s, err, "the indexes of a shard's table");
    ari_stmt_finalize(st);
    char sql[200];
    snprintf(sql, sizeof sql, "ANALYZE \"%s\"", part);
    return rc == 0 ? ari_store_exec(shard, sql, err) : -1;
}

static int push_attach(attach_list *attach, const char *table, const char *part, int64_t id, ari_error *err)
{
    char *alter = NULL;
    if (asprintf(&alter, "ALTER TABLE \"%s\" ATTACH PARTITION \"%s\" FOR VALUES IN (%lld)", table, part,
                 (long long)id) < 0 ||
        ari_vec_reserve((void **)&attach->sql, &attach->cap, attach->n + 1, sizeof *attach->sql) < 0) {
        free(alter);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    attach->sql[attach->n++] = alter;
    return 0;
}

/* ---- spreading a trace over every shard ----
 *
 * A trace with pl->spread_rows staged rows or more in the tables below
 * (ari_pg_shards_spread_rows), when there are two shards or more, has its
 * partition "<table>_t<id>" of each table below made on the coordinator
 * as a table partitioned by LIST of the table's row key, and one foreign
 * sub-partition "<table>_t<id>_s<k>" per shard k that gets keys. The keys
 * are dealt from the staged per-key row counts: the largest first, each to
 * the shard with the fewest rows so far; a NULL key is a key like the
 * others (LIST (..., NULL)). Each shard's rows are read from the staging
 * database with WHERE key IN (its keys), so no hash function has to agree
 * between SQLite, the import and PostgreSQL. A rowid is numbered as on one
 * server: the coordinator's sequence reserves the trace's count, and a row
 * gets first + its place among the trace's staged rows. */
static const char *spread_key(const char *table)
{
    static const char *const keys[][2] = {
        {"tasks", "worker_id"},          {"states", "container_id"},       {"variables", "container_id"},
        {"links", "container_id"},       {"dm_samples", "metric_id"},      {"events", "container_id"},
        {"state_chunks", "container_id"}, {"event_chunks", "container_id"}, {"ev_messages", "src_container"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(table, keys[i][0]) == 0)
            return keys[i][1];
    return NULL;
}

/* 1 if staged trace `staged` is spread, 0 if not, -1 with err set:
 * decided on its first sharded table, from its records in the tables
 * that can be spread (states and tasks for a task trace, dm_samples for
 * a data-movement one, the calls and events packed in chunks for an
 * event trace) and in its messages. */
static int is_spread(ari_store *stage, placement *pl, int64_t staged, ari_error *err)
{
    for (size_t i = 0; i < pl->nspread; i++)
        if (pl->spread_ids[i] == staged)
            return pl->spread[i];
    /* a table, and its records in a row: one, or (chunk tables) column n */
    static const char *const tables[][2] = {
        {"states", "count(*)"},      {"tasks", "count(*)"},       {"variables", "count(*)"},
        {"links", "count(*)"},       {"dm_samples", "count(*)"},  {"events", "count(*)"},
        {"ev_messages", "count(*)"}, {"state_chunks", "sum(n)"}, {"event_chunks", "sum(n)"},
        {"message_chunks", "sum(n)"},
    };
    int64_t rows = 0;
    int spread = 0;
    for (size_t i = 0; pl->spread_rows > 0 && pl->shards.n >= 2 && i < sizeof tables / sizeof tables[0]; i++) {
        int64_t n = 0;
        if (staged_aggregate(stage, tables[i][1], tables[i][0], staged, &n, err) < 0)
            return -1;
        rows += n;
        spread = rows >= pl->spread_rows;
    }
    size_t cap = pl->spread_cap;
    if (ari_vec_reserve((void **)&pl->spread_ids, &cap, pl->nspread + 1, sizeof *pl->spread_ids) < 0 ||
        ari_vec_reserve((void **)&pl->spread, &pl->spread_cap, pl->nspread + 1, sizeof *pl->spread) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    pl->spread_ids[pl->nspread] = staged;
    pl->spread[pl->nspread++] = (unsigned char)spread;
    if (spread) /* it is on every shard now */
        for (size_t k = 0; k < pl->shards.n; k++)
            pl->shards.v[k].traces++;
    return spread;
}

/* The keys dealt to each shard k: bounds[k], its sub-partition's list
 * ("1,5,NULL"; empty: no rows for k), and where[k], the staging query's
 * condition on the key ("(key IN (1,5) OR key IS NULL)"). */
typedef struct deal {
    size_t n;
    ari_sbuf *bounds, *in, *where;
    unsigned char *has_null;
    int64_t *rows;
} deal;

static void deal_free(deal *d)
{
    for (size_t k = 0; k < d->n; k++) {
        ari_sbuf_free(&d->bounds[k]);
        ari_sbuf_free(&d->in[k]);
        ari_sbuf_free(&d->where[k]);
    }
    free(d->bounds);
    free(d->in);
    free(d->where);
    free(d->has_null);
    free(d->rows);
}

/* The key (column 0, count in column 1) of st's row to the emptiest shard. */
static void deal_one(deal *d, ari_stmt *st)
{
    size_t best = 0;
    for (size_t k = 1; k < d->n; k++)
        if (d->rows[k] < d->rows[best])
            best = k;
    d->rows[best] += ari_col_int64(st, 1);
    ari_sbuf *b = &d->bounds[best];
    if (ari_col_type(st, 0) == ARI_NULL) {
        ari_sbuf_printf(b, "%sNULL", b->len ? "," : "");
        d->has_null[best] = 1;
        return;
    }
    long long key = (long long)ari_col_int64(st, 0);
    ari_sbuf_printf(b, "%s%lld", b->len ? "," : "", key);
    ari_sbuf_printf(&d->in[best], "%s%lld", d->in[best].len ? "," : "", key);
}

/* Deals the staged trace's keys of `table` over n shards, the largest
 * first. */
static int deal_keys(ari_store *stage, const char *table, const char *key, int64_t staged, size_t n, deal *d,
                     ari_error *err)
{
    d->n = n;
    d->bounds = calloc(n, sizeof *d->bounds);
    d->in = calloc(n, sizeof *d->in);
    d->where = calloc(n, sizeof *d->where);
    d->has_null = calloc(n, 1);
    d->rows = calloc(n, sizeof *d->rows);
    if (!d->bounds || !d->in || !d->where || !d->has_null || !d->rows)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT \"%s\", count(*) FROM \"%s\" WHERE trace_id = %lld GROUP BY 1 ORDER BY 2 DESC, 1", key, table,
             (long long)staged);
    ari_stmt *st = ari_store_prepare(stage, sql, err);
    if (!st)
        return -1;
    int step;
    while ((step = ari_step(st)) == ARI_ROW)
        deal_one(d, st);
    int rc = step == ARI_DONE ? 0 : ari_store_fail(stage, err, "the staged rows per key");
    ari_stmt_finalize(st);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const char *in = ari_sbuf_text(&d->in[k]);
        if (d->in[k].len && d->has_null[k])
            ari_sbuf_printf(&d->where[k], "(\"%s\" IN (%s) OR \"%s\" IS NULL)", key, in, key);
        else if (d->in[k].len)
            ari_sbuf_printf(&d->where[k], "\"%s\" IN (%s)", key, in);
        else if (d->has_null[k])
            ari_sbuf_printf(&d->where[k], "\"%s\" IS NULL", key);
        if (ari_sbuf_failed(&d->bounds[k]) || ari_sbuf_failed(&d->in[k]) || ari_sbuf_failed(&d->where[k]))
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return rc;
}

/* The staged SELECT of the rows `where` selects (a shard's, or all: "1"):
 * the columns, then (with a rowid to
 * number) the row's place among the trace's staged rows, in staged order:
 * rowid - the first rowid when the trace's rows are contiguous, else a
 * row_number(). */
static char *spread_select(ari_store *stage, const char *table, const char *cols, int numbered, int64_t staged,
                           int64_t count, const char *where, ari_error *err)
{
    char *sql = NULL;
    int64_t lo = 0, hi = -1;
    if (numbered) {
        char q[200];
        snprintf(q, sizeof q, "SELECT min(rowid), max(rowid) FROM \"%s\" WHERE trace_id = %lld", table,
                 (long long)staged);
        ari_stmt *st = ari_store_prepare(stage, q, err);
        if (!st || ari_store_step_row(stage, st, "the staged rowids", err) < 0) {
            ari_stmt_finalize(st);
            return NULL;
        }
        lo = ari_col_int64(st, 0);
        hi = ari_col_int64(st, 1);
        ari_stmt_finalize(st);
    }
    int rc;
    if (!numbered)
        rc = asprintf(&sql, "SELECT %s FROM \"%s\" NOT INDEXED WHERE trace_id = %lld AND %s", cols, table,
                      (long long)staged, where);
    else if (hi - lo + 1 == count)
        rc = asprintf(&sql, "SELECT %s, rowid - %lld FROM \"%s\" NOT INDEXED WHERE trace_id = %lld AND %s", cols,
                      (long long)lo, table, (long long)staged, where);
    else
        rc = asprintf(&sql,
                      "SELECT * FROM (SELECT %s, row_number() OVER (ORDER BY rowid) - 1 AS ariadne_n"
                      " FROM \"%s\" NOT INDEXED WHERE trace_id = %lld) WHERE %s",
                      cols, table, (long long)staged, where);
    if (rc < 0) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return sql;
}

/* Rows of spread trace `staged` of `table`: the coordinator's partition
 * partitioned by the row key, a table on each shard that gets keys and its
 * foreign sub-partition; the partition is attached at the end. */
static int copy_spread_partition(ari_store *stage, ari_store *s, placement *pl, const char *table,
                                 const char *key, const char *cols, int ncols, int shift, int64_t staged,
                                 int64_t offset, attach_list *attach, ari_error *err)
{
    int64_t id = staged + offset, count = 0, first = 0;
    if (staged_count(stage, table, staged, &count, err) < 0)
        return -1;
    if (count == 0)
        return 0; /* as on one server: no partition */
    char part[160];
    snprintf(part, sizeof part, "%s_t%lld", table, (long long)id);
    char *defs = NULL, *col = NULL, *seq = NULL, *copy_cols = NULL, *create = NULL;
    deal d = {0};
    int rc = -1;
    if (!(defs = column_defs(s, table, err)) || serial_column(s, table, cols, &col, &seq, err) < 0 ||
        (col && reserve_serial(s, seq, count, &first, err) < 0) ||
        deal_keys(stage, table, key, staged, pl->shards.n, &d, err) < 0)
        goto done;
    if (!(copy_cols = copy_columns(cols, col)) ||
        asprintf(&create,
                 "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING DEFAULTS INCLUDING CONSTRAINTS,"
                 " CHECK (trace_id = %lld)) PARTITION BY LIST (\"%s\")",
                 part, table, (long long)id, key) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    if (ari_store_exec(s, create, err) < 0)
        goto done;
    rc = 0;
    for (size_t k = 0; rc == 0 && k < pl->shards.n; k++) {
        if (!d.bounds[k].len)
            continue;
        ari_pg_shard *sh = &pl->shards.v[k];
        char sub[200];
        snprintf(sub, sizeof sub, "%s_s%zu", part, k);
        char *shard_create = NULL, *foreign = NULL, *sql = NULL;
        ari_store *shard = NULL;
        ari_stmt *st = NULL;
        rc = -1;
        if (asprintf(&shard_create, "CREATE TABLE \"%s\" (%s, CHECK (trace_id = %lld))", sub, defs, (long long)id) <
                0 ||
            asprintf(&foreign,
                     "CREATE FOREIGN TABLE \"%s\" PARTITION OF \"%s\" FOR VALUES IN (%s) SERVER %s"
                     " OPTIONS (table_name '%s')",
                     sub, part, ari_sbuf_text(&d.bounds[k]), sh->server, sub) < 0) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        } else if ((sql = spread_select(stage, table, cols, col != NULL, staged, count, ari_sbuf_text(&d.where[k]),
                                        err)) != NULL &&
                   (shard = ari_pg_shard_conn(s, sh, err)) != NULL && ari_store_exec(shard, shard_create, err) == 0 &&
                   (st = ari_store_prepare(stage, sql, err)) != NULL) {
            if (ari_step(st) != ARI_ROW)
                rc = ari_store_fail(stage, err, "read the staged rows");
            else if (copy_rows(stage, shard, st, sub, copy_cols, ncols, shift, offset, col ? first : 0, 1, err) == 0 &&
                     index_shard_table(s, shard, table, sub, err) == 0)
                rc = ari_store_exec(s, foreign, err);
        }
        ari_stmt_finalize(st);
        free(shard_create);
        free(foreign);
        free(sql);
    }
    if (rc == 0)
        rc = push_attach(attach, table, part, id, err);
done:
    deal_free(&d);
    free(defs);
    free(col);
    free(seq);
    free(copy_cols);
    free(create);
    return rc;
}

/* Rows of trace `staged` of a sharded table into a new table on shard sh,
 * and its foreign table on the coordinator, attached at the end. */
static int copy_shard_partition(ari_store *stage, ari_store *s, ari_pg_shard *sh, const char *table,
                                const char *cols, int ncols, int shift, int64_t staged, int64_t offset,
                                attach_list *attach, ari_error *err)
{
    int64_t id = staged + offset, count = 0, first = 0;
    char part[160];
    snprintf(part, sizeof part, "%s_t%lld", table, (long long)id);
    char *defs = NULL, *col = NULL, *seq = NULL, *sql = NULL, *copy_cols = NULL, *create = NULL, *foreign = NULL;
    ari_store *shard = NULL;
    ari_stmt *st = NULL;
    if (staged_count(stage, table, staged, &count, err) < 0)
        return -1;
    if (count == 0)
        return 0; /* as on one server: no partition */
    int rc = -1;
    if (!(defs = column_defs(s, table, err)) || serial_column(s, table, cols, &col, &seq, err) < 0 ||
        (col && reserve_serial(s, seq, count, &first, err) < 0) || !(shard = ari_pg_shard_conn(s, sh, err)))
        goto done;
    if (asprintf(&create, "CREATE TABLE \"%s\" (%s, CHECK (trace_id = %lld))", part, defs, (long long)id) < 0 ||
        asprintf(&foreign, "CREATE FOREIGN TABLE \"%s\" (%s) SERVER %s OPTIONS (table_name '%s')", part, defs,
                 sh->server, part) < 0 ||
        !(copy_cols = copy_columns(cols, col)) ||
        asprintf(&sql, "SELECT %s FROM \"%s\" NOT INDEXED WHERE trace_id = %lld", cols, table, (long long)staged) < 0) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    if (ari_store_exec(shard, create, err) < 0 || !(st = ari_store_prepare(stage, sql, err)))
        goto done;
    if (ari_step(st) != ARI_ROW) {
        rc = ari_store_fail(stage, err, "read the staged rows");
        goto done;
    }
    if (copy_rows(stage, shard, st, part, copy_cols, ncols, shift, offset, col ? first : 0, 0, err) == 0 &&
        index_shard_table(s, shard, table, part, err) == 0 && ari_store_exec(s, foreign, err) == 0)
        rc = push_attach(attach, table, part, id, err);
done:
    ari_stmt_finalize(st);
    free(defs);
    free(col);
    free(seq);
    free(sql);
    free(copy_cols);
    free(create);
    free(foreign);
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
                      const int64_t *ids, size_t nids, int64_t offset, attach_list *attach, placement *pl,
                      ari_error *err)
{
    int ncols, shift;
    char *cols = staged_columns(stage, table, &ncols, &shift, err);
    if (!cols)
        return -1;
    int rc = 0;
    if (shift >= 0 && strcmp(table, "traces") != 0 && is_partitioned(partitioned, table)) {
        int sharded = pl && is_partitioned(pl->shardable, table);
        const char *key = sharded ? spread_key(table) : NULL;
        for (size_t i = 0; rc == 0 && i < nids; i++) {
            int spread = key ? is_spread(stage, pl, ids[i], err) : 0;
            ari_pg_shard *sh = sharded && spread == 0 ? shard_of(pl, ids[i], err) : NULL;
            if (spread < 0 || (sharded && spread == 0 && !sh))
                rc = -1;
            else if (spread)
                rc = copy_spread_partition(stage, s, pl, table, key, cols, ncols, shift, ids[i], offset, attach, err);
            else if (sh)
                rc = copy_shard_partition(stage, s, sh, table, cols, ncols, shift, ids[i], offset, attach, err);
            else
                rc = copy_partition(stage, s, table, cols, ncols, shift, ids[i], offset, attach, err);
        }
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
            rc = copy_rows(stage, s, st, table, cols, ncols, shift, offset, 0, 0, err);
        else if (step != ARI_DONE)
            rc = ari_store_fail(stage, err, "read the staged rows");
    }
    ari_stmt_finalize(st);
    free(sql);
    free(cols);
    return rc;
}

static int copy_tables(ari_store *stage, ari_store *s, int64_t offset, attach_list *attach, placement *pl,
                       ari_error *err)
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
        rc = table ? copy_table(stage, s, table, partitioned, ids, nids, offset, attach, pl, err)
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

/* The registered shards (their orphans dropped) and the tables that go
 * there; pl->shards.n is 0 without shards. The large tables that queries
 * read a trace at a time, not row by row: a table that a correlated
 * subquery looks up once per row of another (data_handles, per link)
 * stays local, where that costs no round trip to a shard. Of them, those
 * PostgreSQL can attach a foreign table to: no unique index, and no
 * foreign key on the parent (pg_shards.c moves it to the default
 * partition). */
static int placement_open(ari_store *s, placement *pl, ari_error *err)
{
    if (ari_pg_shards_open(s, &pl->shards, err) < 0)
        return -1;
    if (pl->shards.n == 0)
        return 0;
    if (ari_pg_shards_spread_rows(s, &pl->spread_rows, err) < 0)
        return -1;
    pl->shardable = name_list(s,
        "SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid"
        " WHERE c.relname IN ('states', 'tasks', 'variables', 'links', 'events', 'ev_messages', 'profile_values',"
        " 'mt_values', 'dm_samples', 'dm_events', 'dm_movements', 'mt_stream_points', 'state_chunks',"
        " 'message_chunks', 'event_chunks')"
        " AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique)"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f')", err);
    return pl->shardable ? 0 : -1;
}

int ari_pg_publish(ari_store *stage, ari_store *s, int64_t *offset_out, ari_error *err)
{
    if (ari_store_begin(s, err) < 0)
        return -1;
    attach_list attach = {0};
    placement pl = {0};
    int rc = ari_store_exec(s, "LOCK TABLE traces IN SHARE ROW EXCLUSIVE MODE", err);
    if (rc == 0)
        rc = last_trace_id(s, offset_out, err);
    if (rc == 0)
        rc = placement_open(s, &pl, err);
    if (rc == 0)
        rc = copy_tables(stage, s, *offset_out, &attach, pl.shards.n ? &pl : NULL, err);
    for (size_t i = 0; rc == 0 && i < attach.n; i++)
        rc = ari_store_exec(s, attach.sql[i], err);
    if (rc == 0)
        rc = ari_store_exec(s, "SELECT setval(pg_get_serial_sequence('traces', 'id'), max(id)) FROM traces"
                               " HAVING max(id) > coalesce(pg_sequence_last_value("
                               "pg_get_serial_sequence('traces', 'id')::regclass), 0)", err);
    /* the shards commit first: the coordinator's failure after leaves
     * orphans, which the next sweep drops */
    if (rc == 0)
        rc = ari_pg_shards_commit(&pl.shards, err);
    placement_free(&pl);
    for (size_t i = 0; i < attach.n; i++)
        free(attach.sql[i]);
    free(attach.sql);
    if (rc < 0)
        ari_store_rollback(s);
    return rc;
}
