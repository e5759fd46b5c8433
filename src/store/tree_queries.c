/* tree_queries.c: loading the atree and the tasks of the tree panels and
 * the regression models (see tree_queries.h). */
#include "tree_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "util/free_all.h"
#include "util/vec.h"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

int64_t ari_tree_count(ari_store *s, int64_t trace_id, ari_error *err)
{
    int64_t n = 0;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT count(*) FROM atree WHERE trace_id = ?1", trace_id, err);
    return st && ari_store_query_int64(s, st, &n, "count the tree nodes", err) >= 0 ? n : -1;
}

static int load_nodes(ari_store *s, int64_t trace_id, ari_tree_data *d, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT node, parent FROM atree WHERE trace_id = ?1 ORDER BY node",
                                         trace_id, err);
    if (!st)
        return -1;
    size_t cap1 = 0, cap2 = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&d->node, &cap1, d->nnodes + 1, sizeof *d->node) < 0 ||
            ari_vec_reserve((void **)&d->parent, &cap2, d->nnodes + 1, sizeof *d->parent) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        d->node[d->nnodes] = ari_col_int64(st, 0);
        d->parent[d->nnodes] = ari_col_type(st, 1) == ARI_NULL ? -1 : ari_col_int64(st, 1);
        d->nnodes++;
    }
    return ari_store_rows_end(s, st, rc, "read the elimination tree", err);
}

typedef struct task_loader {
    size_t cap_tasks, cap_restype, cap_off, cap_ids, ids_len;
    unsigned char *seen_worker; /* [nworkers] */
} task_loader;

static int append_task(ari_tree_data *d, task_loader *L, ari_stmt *st, int type, int restype)
{
    size_t n = d->ntasks;
    const char *job = (const char *)ari_col_text(st, 0);
    size_t len = job ? strlen(job) : 0;
    if (ari_vec_reserve((void **)&d->tasks, &L->cap_tasks, n + 1, sizeof *d->tasks) < 0 ||
        ari_vec_reserve((void **)&d->restype, &L->cap_restype, n + 1, sizeof *d->restype) < 0 ||
        ari_vec_reserve((void **)&d->id_off, &L->cap_off, n + 1, sizeof *d->id_off) < 0 ||
        ari_vec_reserve((void **)&d->ids, &L->cap_ids, L->ids_len + len + 1, 1) < 0)
        return -1;
    memcpy(d->ids + L->ids_len, job ? job : "", len + 1);
    d->id_off[n] = L->ids_len;
    L->ids_len += len + 1;
    const char *type_name = (const char *)ari_col_text(st, 1);
    d->tasks[n] = (ari_et_task){
        .anode = ari_col_type(st, 7) == ARI_NULL ? -1 : ari_col_int64(st, 7),
        .kind = (int)ari_et_kind_of(type_name),
        .type = type,
        .start = ari_col_double(st, 4),
        .end = ari_col_double(st, 5),
        .gflop = ari_col_type(st, 6) == ARI_NULL ? NAN : ari_col_double(st, 6),
        .submit_order = ari_col_type(st, 8) == ARI_NULL ? ARI_ET_NO_ORDER : ari_col_int64(st, 8),
    };
    d->restype[n] = restype;
    d->ntasks++;
    return 0;
}

static int load_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *m, const ari_task_filter *f,
                      ari_tree_data *d, ari_error *err)
{
    task_loader L = {0};
    L.seen_worker = calloc((size_t)m->nworkers + 1, 1);
    if (!L.seen_worker)
        return nomem(err);
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT job_id, type, worker_id, node, start, end, gflop, anode, submit_order FROM tasks"
        " WHERE trace_id = ?1 ORDER BY job_id, rowid", trace_id, err);
    if (!st) {
        free(L.seen_worker);
        return -1;
    }
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int wi = ari_col_type(st, 2) == ARI_NULL ? -1 : ari_tq_worker_index(m, ari_col_int64(st, 2));
        const char *type_name = (const char *)ari_col_text(st, 1);
        int type = ari_tq_type_id(m, type_name);
        if (wi < 0 || type < 0 ||
            !ari_task_filter_pass(f, type_name, m->workers[wi].resource_type, ari_col_int64(st, 3),
                                  ari_col_double(st, 4), ari_col_double(st, 5)))
            continue;
        if (append_task(d, &L, st, type, m->workers[wi].restype) < 0) {
            ari_reset(st);
            free(L.seen_worker);
            return nomem(err);
        }
        if (!L.seen_worker[wi]) {
            L.seen_worker[wi] = 1;
            d->workers++;
            const char *rt = m->workers[wi].resource_type;
            d->workers_depth += strcmp(rt, "CPU") == 0 || strcmp(rt, "CUDA") == 0;
        }
    }
    free(L.seen_worker);
    if (ari_store_rows_end(s, st, rc, "read tasks", err) < 0)
        return -1;
    if (!d->ids && !(d->ids = calloc(1, 1)))
        return nomem(err);
    return 0;
}

int ari_tree_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_task_filter *f,
                  ari_tree_data *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (load_nodes(s, trace_id, out, err) < 0 || load_tasks(s, trace_id, meta, f, out, err) < 0) {
        ari_tree_data_free(out);
        return -1;
    }
    if (out->workers_depth == 0)
        out->workers_depth = out->workers;
    return 0;
}

void ari_tree_data_free(ari_tree_data *d)
{
    void *owned[] = {d->node, d->parent, d->tasks, d->restype, d->ids, d->id_off};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(d, 0, sizeof *d);
}

ari_et_input ari_tree_input(const ari_tree_data *d)
{
    ari_et_input in = {d->nnodes, d->node, d->parent, d->ntasks, d->tasks, d->workers, d->workers_depth};
    return in;
}
