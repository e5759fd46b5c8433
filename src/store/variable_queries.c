/* variable_queries.c: the memory and bandwidth variables of the time
 * panels (see variable_queries.h). */
#include "store/variable_queries.h"

#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "store/task_queries.h"
#include "util/vec.h"

/* Variable type name, container name, container names left out (LIKE). */
static const char *const patterns[3][3] = {
    [ARI_VQ_MEMORY] = {"Used%", "%", ""},
    [ARI_VQ_GPU_BANDWIDTH] = {"Bandwidth Out%", "%MEMMANAGER%", "%MEMMANAGER0"},
    [ARI_VQ_MPI_BANDWIDTH] = {"Bandwidth Out%", "%mpict%", ""},
};

void ari_vq_series_free(ari_vq_series *series, int n)
{
    for (int i = 0; series && i < n; i++) {
        free(series[i].container);
        free(series[i].variable);
        free(series[i].start);
        free(series[i].end);
        free(series[i].value);
    }
    free(series);
}

static char *dup_text(ari_stmt *st, int i)
{
    const char *t = (const char *)ari_col_text(st, i);
    return strdup(t ? t : "");
}

static int read_series(ari_stmt *st, ari_vq_series *one)
{
    memset(one, 0, sizeof *one);
    one->container_id = ari_col_int64(st, 0);
    one->container = dup_text(st, 1);
    one->type_id = ari_col_int64(st, 2);
    one->variable = dup_text(st, 3);
    one->nrows = ari_col_int64(st, 4);
    one->node = ari_tq_node_of_name(one->container ? one->container : "");
    return one->container && one->variable ? 0 : -1;
}

int ari_vq_series_find(ari_store *s, int64_t trace_id, ari_vq_kind kind, ari_vq_series **out, int *n,
                       ari_error *err)
{
    *out = NULL;
    *n = 0;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_text(patterns[kind][0]), ari_arg_text(patterns[kind][1]),
                      ari_arg_text(patterns[kind][2])};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT c.id, c.name, v.id, v.name, x.n"
        " FROM entity_types v JOIN containers c ON c.trace_id = v.trace_id AND c.type_id = v.parent_id"
        " JOIN (SELECT container_id, type_id, count(*) AS n FROM variables WHERE trace_id = ?1"
        "       GROUP BY container_id, type_id) x ON x.container_id = c.id AND x.type_id = v.id"
        " WHERE v.trace_id = ?1 AND v.nature = 'variable' AND v.name LIKE ?2 AND c.name LIKE ?3"
        " AND NOT c.name LIKE ?4 ORDER BY 1, 3",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)out, &cap, (size_t)*n + 1, sizeof **out) < 0 ||
            read_series(st, &(*out)[(*n)++]) < 0) {
            ari_reset(st);
            ari_vq_series_free(*out, *n);
            *out = NULL;
            *n = 0;
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    if (ari_store_rows_end(s, st, rc, "find variables", err) < 0) {
        ari_vq_series_free(*out, *n);
        *out = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

static int push_row(ari_vq_series *one, size_t *cap, ari_stmt *st)
{
    size_t need = (size_t)one->n + 1, c1 = *cap, c2 = *cap;
    if (ari_vec_reserve((void **)&one->start, &c1, need, sizeof *one->start) < 0 ||
        ari_vec_reserve((void **)&one->end, &c2, need, sizeof *one->end) < 0 ||
        ari_vec_reserve((void **)&one->value, cap, need, sizeof *one->value) < 0)
        return -1;
    one->start[one->n] = ari_col_double(st, 0);
    one->end[one->n] = ari_col_double(st, 1);
    one->value[one->n] = ari_col_double(st, 2);
    one->n++;
    return 0;
}

int ari_vq_series_rows(ari_store *s, int64_t trace_id, ari_vq_series *one, double t0, double t1,
                       ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(one->container_id), ari_arg_int(one->type_id),
                      ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT start, end, value FROM variables WHERE trace_id = ?1 AND container_id = ?2 AND type_id = ?3"
        " AND start < ?5 AND end > ?4 ORDER BY start",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (push_row(one, &cap, st) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    return ari_store_rows_end(s, st, rc, "read variables", err);
}

int ari_vq_tasks_have_gflop(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT EXISTS (SELECT 1 FROM tasks WHERE trace_id = ?1 AND gflop > 0)", trace_id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "find task GFlop", err) < 0)
        return -1;
    return any ? 1 : 0;
}
