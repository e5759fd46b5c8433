/* gantt_rows.c: the packed Gantt rows of a task trace, written at import
 * and read by the row cache (see gantt_rows.h, sql/010_gantt_rows.sql). */
#include "store/gantt_rows.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/log.h"
#include "util/strmap.h"
#include "util/vec.h"

/* How long a lazy save may wait for an import's write lock. */
#define SAVE_TIMEOUT_MS 200

/* ---- writing ---- */

static int insert_row(ari_store *s, int64_t trace_id, const ari_row_tasks *row, ari_error *err)
{
    size_t n = (size_t)row->ntasks;
    int32_t *types = malloc((n + 1) * sizeof *types);
    if (!types)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        types[i] = row->type[i];
    ari_arg args[] = {ari_arg_int(trace_id),
                      ari_arg_int(row->worker_id),
                      ari_arg_int(row->ntasks),
                      ari_arg_blob(row->start ? (const void *)row->start : "", (int64_t)(n * sizeof(double))),
                      ari_arg_blob(row->end ? (const void *)row->end : "", (int64_t)(n * sizeof(double))),
                      ari_arg_blob(types, (int64_t)(n * sizeof *types))};
    int rc =
        ari_store_run(s,
                      "INSERT INTO gantt_rows(trace_id, worker_id, ntasks, starts, ends, types)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (trace_id, worker_id) DO UPDATE SET"
                      " ntasks = excluded.ntasks, starts = excluded.starts, ends = excluded.ends,"
                      " types = excluded.types",
                      args, ARI_NARGS(args), "store gantt row", err);
    free(types);
    return rc;
}

static int insert_type(ari_store *s, int64_t trace_id, int type_no, const char *name, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(type_no), ari_arg_raw_text(name)};
    return ari_store_run(
        s, "INSERT INTO gantt_row_types(trace_id, type_no, name) VALUES (?1, ?2, ?3)"
           " ON CONFLICT (trace_id, type_no) DO UPDATE SET name = excluded.name", args,
        ARI_NARGS(args), "store gantt row type", err);
}

/* The import's pass: one worker's tasks accumulate in `row` until the next
 * worker's first task, then are written. */
typedef struct build_state {
    ari_row_tasks row;
    size_t cap[3];
    ari_strmap *types; /* name -> type_no + 1 */
    int ntypes;
} build_state;

static int type_no_of(ari_store *s, int64_t trace_id, build_state *b, const char *name, ari_error *err)
{
    size_t len = strlen(name);
    intptr_t v = (intptr_t)ari_strmap_get(b->types, name, len);
    if (v > 0)
        return (int)v - 1;
    if (!ari_strmap_put(b->types, name, len, (void *)(intptr_t)(b->ntypes + 1)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (insert_type(s, trace_id, b->ntypes, name, err) < 0)
        return -1;
    return b->ntypes++;
}

static int push(build_state *b, double start, double end, int type)
{
    size_t n = (size_t)b->row.ntasks;
    if (ari_vec_reserve((void **)&b->row.start, &b->cap[0], n + 1, sizeof *b->row.start) < 0 ||
        ari_vec_reserve((void **)&b->row.end, &b->cap[1], n + 1, sizeof *b->row.end) < 0 ||
        ari_vec_reserve((void **)&b->row.type, &b->cap[2], n + 1, sizeof *b->row.type) < 0)
        return -1;
    b->row.start[n] = start;
    b->row.end[n] = end;
    b->row.type[n] = type;
    b->row.ntasks++;
    return 0;
}

/* Writes the accumulated row (if any) and starts worker `next`. */
static int flush(ari_store *s, int64_t trace_id, build_state *b, int64_t next, ari_error *err)
{
    if (b->row.ntasks > 0 && insert_row(s, trace_id, &b->row, err) < 0)
        return -1;
    b->row.ntasks = 0;
    b->row.worker_id = next;
    return 0;
}

static int build_pass(ari_store *s, int64_t trace_id, ari_stmt *st, build_state *b, ari_error *err)
{
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t worker = ari_col_int64(st, 0);
        const char *type = (const char *)ari_col_text(st, 3);
        int no = type_no_of(s, trace_id, b, type ? type : "", err);
        if (no < 0 || (worker != b->row.worker_id && flush(s, trace_id, b, worker, err) < 0)) {
            ari_reset(st);
            return -1;
        }
        if (push(b, ari_col_double(st, 1), ari_col_double(st, 2), no) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    if (ari_store_rows_end(s, st, rc, "read tasks for the gantt rows", err) < 0)
        return -1;
    return flush(s, trace_id, b, -1, err);
}

int ari_gantt_rows_build(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT worker_id, start, end, type FROM tasks WHERE trace_id = ?1 AND worker_id IS NOT NULL"
        " ORDER BY worker_id, start, end, type",
        trace_id, err);
    if (!st)
        return -1;
    build_state b = {.row = {.worker_id = -1}, .types = ari_strmap_new()};
    int rc =
        b.types ? build_pass(s, trace_id, st, &b, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (!b.types)
        ari_reset(st);
    ari_strmap_free(b.types);
    free(b.row.start);
    free(b.row.end);
    free(b.row.type);
    return rc;
}

void ari_gantt_rows_save(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_row_tasks *rows)
{
    ari_error err = {0};
    ari_store_set_busy_timeout(s, SAVE_TIMEOUT_MS);
    int rc = ari_store_begin(s, &err);
    for (int k = 0; rc == 0 && k < meta->ntypes; k++)
        rc = insert_type(s, trace_id, k, meta->types[k], &err);
    for (int i = 0; rc == 0 && i < meta->nworkers; i++)
        if (rows[i].ntasks > 0)
            rc = insert_row(s, trace_id, &rows[i], &err);
    if (rc == 0)
        rc = ari_store_commit(s, &err);
    else
        ari_store_rollback(s);
    ari_store_set_busy_timeout(s, -1);
    if (rc < 0)
        ari_log(ARI_LOG_INFO, "gantt rows of trace %lld not stored: %s", (long long)trace_id, err.message);
}

/* ---- reading ---- */

/* map[type_no] = meta's type id or -1; *n numbers. Returns 0, 1 when none
 * is stored, -1 on error. */
static int read_type_map(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int **map, size_t *n,
                         ari_error *err)
{
    *map = NULL;
    *n = 0;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT type_no, name FROM gantt_row_types WHERE trace_id = ?1 ORDER BY type_no", trace_id, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        size_t no = (size_t)ari_col_int64(st, 0);
        if (ari_vec_reserve_zeroed((void **)map, &cap, no + 1, sizeof **map) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
        for (size_t k = *n; k < no; k++)
            (*map)[k] = -1;
        (*map)[no] = ari_tq_type_id(meta, (const char *)ari_col_text(st, 1));
        *n = no + 1;
    }
    if (ari_store_rows_end(s, st, rc, "read gantt row types", err) < 0)
        return -1;
    return *n ? 0 : 1;
}

/* Copies one stored row, mapping its types (unknown ones dropped). */
static int unpack_row(ari_stmt *st, const int *map, size_t nmap, ari_row_tasks *row, ari_error *err)
{
    int64_t n = ari_col_int64(st, 0);
    const double *starts = ari_col_blob(st, 1), *ends = ari_col_blob(st, 2);
    const int32_t *types = ari_col_blob(st, 3);
    if (n < 0 || ari_col_bytes(st, 1) != n * 8 || ari_col_bytes(st, 2) != n * 8 ||
        ari_col_bytes(st, 3) != n * 4)
        return ari_error_set(err, ARI_E_DB, "a stored gantt row is damaged");
    row->start = malloc((size_t)n * sizeof *row->start + 1);
    row->end = malloc((size_t)n * sizeof *row->end + 1);
    row->type = malloc((size_t)n * sizeof *row->type + 1);
    if (!row->start || !row->end || !row->type)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        int id = types[i] >= 0 && (size_t)types[i] < nmap ? map[types[i]] : -1;
        if (id < 0)
            continue;
        row->start[k] = starts[i];
        row->end[k] = ends[i];
        row->type[k++] = id;
    }
    row->ntasks = k;
    return 0;
}

static int read_row(ari_store *s, int64_t trace_id, const int *map, size_t nmap, ari_row_tasks *row,
                    ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(row->worker_id)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT ntasks, starts, ends, types FROM gantt_rows WHERE trace_id = ?1 AND worker_id = ?2", args,
        ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_step(st);
    int out = rc == ARI_ROW ? unpack_row(st, map, nmap, row, err) : 0;
    if (rc != ARI_ROW && rc != ARI_DONE)
        out = ari_store_fail(s, err, "read gantt row");
    ari_reset(st);
    return out;
}

int ari_gantt_rows_read(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, ari_row_tasks *rows,
                        ari_error *err)
{
    int *map;
    size_t nmap;
    int rc = read_type_map(s, trace_id, meta, &map, &nmap, err);
    for (int i = 0; rc == 0 && i < meta->nworkers; i++)
        rc = read_row(s, trace_id, map, nmap, &rows[i], err);
    free(map);
    return rc;
}

/* ---- the server's import step ---- */

static _Atomic(ari_gantt_import_step) import_step;

void ari_gantt_set_import_step(ari_gantt_import_step step)
{
    import_step = step;
}

int ari_gantt_run_import_step(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_gantt_import_step step = import_step;
    return step ? step(s, trace_id, err) : 0;
}
