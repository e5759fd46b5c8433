/* task_writer.c: the store's ari_task_sink (sql/003_tasks.sql). Tasks are
 * inserted as the Paje reader (or the StarVZ worker_state CSV) reports
 * them, then completed from tasks.rec by job id; dependencies, data
 * handles and the elimination tree are plain inserts. All statements are
 * prepared once (the store's statement cache) and run inside the import's
 * transaction. Memory: one small record per container (which ones are
 * workers, their node and resource type), nothing per task. Text is stored
 * as valid UTF-8 (store_text.h). */
#include "store/task_writer.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/gantt_rows.h"
#include "store/gantt_summaries.h"
#include "store/store_text.h"
#include "store/task_queries.h"
#include "store/trace_writer_internal.h"
#include "util/alloc.h"
#include "util/vec.h"

typedef struct worker_info {
    int is_worker;
    int64_t node;
    char resource_type[24];
} worker_info;

struct ari_task_writer {
    ari_trace_writer *w;
    ari_task_sink sink;
    double origin;
    int has_tree;
    worker_info *workers; /* indexed by container id */
    size_t nworkers_cap;
    int64_t tasks;
    ari_json_members config; /* on_config pairs */
};

/* ---- helpers ---- */

/* Text or, for NULL and "", NULL. */
static ari_arg opt_text(const char *s)
{
    return s && *s ? ari_arg_text(s) : ari_arg_null();
}

static ari_arg opt_int(int64_t v)
{
    return v == ARI_UNSET_INT ? ari_arg_null() : ari_arg_int(v);
}

static ari_arg opt_real(double v)
{
    return isnan(v) ? ari_arg_null() : ari_arg_real(v);
}

/* Runs one statement of a sink callback; a failure goes to the writer's error. */
static int run(struct ari_task_writer *t, const char *sql, const ari_arg *args, int n, const char *what)
{
    return ari_store_run(t->w->store, sql, args, n, what, &t->w->error);
}

/* "0_CPU3" -> node 0, resource "CPU3"; "CPU3" -> node 0 (single node). */
static const char *split_node(const char *name, int64_t *node)
{
    const char *p = name;
    while (isdigit((unsigned char)*p))
        p++;
    if (p > name && *p == '_' && isalpha((unsigned char)p[1])) {
        *node = strtoll(name, NULL, 10);
        return p + 1;
    }
    *node = 0;
    return name;
}

/* StarVZ: the resource name without digits and '_' ("CUDA0_0" -> "CUDA"). */
static void resource_type_of(const char *resource, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = resource; *p && n + 1 < size; p++)
        if (!isdigit((unsigned char)*p) && *p != '_')
            out[n++] = *p;
    out[n] = '\0';
}

static worker_info *worker_slot(struct ari_task_writer *t, int64_t id)
{
    if (id <= 0 || (size_t)id >= t->nworkers_cap)
        return NULL;
    return &t->workers[id];
}

static int grow_workers(struct ari_task_writer *t, int64_t id)
{
    size_t old = t->nworkers_cap;
    if (ari_vec_reserve((void **)&t->workers, &t->nworkers_cap, (size_t)id + 1, sizeof *t->workers) < 0)
        return ari_error_set(&t->w->error, ARI_E_NOMEM, "out of memory");
    memset(t->workers + old, 0, (t->nworkers_cap - old) * sizeof *t->workers);
    return 0;
}

/* qr_mumps (as StarVZ decodes it): the tree node is the low 32 bits of a
 * 16-hex-digit Tag. */
static int64_t anode_of_tag(const char *tag)
{
    if (!tag || strlen(tag) != 16)
        return ARI_UNSET_INT;
    for (const char *p = tag; *p; p++)
        if (!isxdigit((unsigned char)*p))
            return ARI_UNSET_INT;
    return (int64_t)strtoull(tag + 8, NULL, 16);
}

/* ---- callbacks ---- */

static int on_origin(void *ctx, double origin)
{
    struct ari_task_writer *t = ctx;
    t->origin = origin;
    return 0;
}

static int on_has_tree(void *ctx)
{
    struct ari_task_writer *t = ctx;
    t->has_tree = 1;
    return 0;
}

static int on_worker(void *ctx, const char *alias, const char *name)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    int64_t id = ari_trace_writer_container(w, alias);
    if (id < 0)
        return -1;
    if (!id)
        return ari_error_set(&w->error, ARI_E_INVALID_INPUT, "unknown worker container '%s'", alias);
    if (grow_workers(t, id) < 0)
        return -1;
    worker_info *info = &t->workers[id];
    if (info->is_worker)
        return 0;
    const char *resource = split_node(name, &info->node);
    resource_type_of(resource, info->resource_type, sizeof info->resource_type);
    info->is_worker = 1;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(id), ari_arg_int(info->node),
                      ari_arg_text(info->resource_type), ari_arg_text(resource), ari_arg_text(name)};
    return run(t,
               "INSERT OR IGNORE INTO workers(trace_id, container_id, node, resource_type, resource, name)"
               " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
               args, ARI_NARGS(args), "insert worker");
}

static int on_task(void *ctx, const ari_task *task)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    if (!task->job_id || !*task->job_id || !task->type)
        return ari_error_set(&w->error, ARI_E_INVALID_INPUT, "task without a JobId or a type");
    if ((++t->tasks & 0xffff) == 0 && ari_trace_writer_cancelled(w))
        return -1;
    int64_t worker = ari_trace_writer_container(w, task->worker);
    if (worker < 0)
        return -1;
    worker_info *info = worker_slot(t, worker);
    int64_t node = task->node != ARI_UNSET_INT ? task->node : info && info->is_worker ? info->node : 0;
    const char *resource_type = info && info->is_worker ? info->resource_type : NULL;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(task->job_id), ari_arg_text(task->type),
                      opt_int(worker ? worker : ARI_UNSET_INT), ari_arg_int(node), opt_text(resource_type),
                      ari_arg_real(task->start), ari_arg_real(task->end), opt_int(task->submit_order),
                      opt_text(task->tag), opt_real(task->gflop), opt_int(task->iteration),
                      opt_int(task->subiteration), opt_text(task->params), opt_text(task->footprint),
                      opt_int(task->size), opt_int(task->x), opt_int(task->y),
                      opt_int(t->has_tree ? anode_of_tag(task->tag) : ARI_UNSET_INT)};
    return run(t,
               "INSERT INTO tasks(trace_id, job_id, type, worker_id, node, resource_type, start, end,"
               " submit_order, tag, gflop, iteration, subiteration, params, footprint, size, x, y, anode)"
               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
               " ?19)",
               args, ARI_NARGS(args), "insert task");
}

/* The GFlop of a task after joining a side file (tasks.rec,
 * tasks_anode.csv) whose value is bound as `param`: a positive joined value
 * replaces a 0 or missing one from the trace (qr_mumps 2.0 writes GFlop 0
 * into paje.trace and the real cost into tasks_anode.csv); otherwise the
 * trace's value is kept, and a missing one takes the joined value. */
#define JOINED_GFLOP(param) \
    "CASE WHEN " param " > 0 AND NOT coalesce(gflop, 0) > 0 THEN " param " ELSE coalesce(gflop, " param ") END"

static int on_task_info(void *ctx, const ari_task_info *info, int *matched)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(info->job_id), opt_real(info->submit_time),
                      opt_int(info->priority), opt_int(info->memory_node), opt_int(info->worker_rank),
                      opt_text(info->model), opt_text(info->handles), opt_text(info->modes),
                      opt_text(info->tag), opt_text(info->params), opt_text(info->footprint),
                      opt_real(info->gflop)};
    if (run(t,
            "UPDATE tasks SET submit_time = ?3, priority = ?4, memory_node = ?5, worker_rank = ?6,"
            " model = ?7, handles = ?8, modes = ?9, tag = coalesce(tag, ?10),"
            " params = coalesce(params, ?11), footprint = coalesce(footprint, ?12),"
            " gflop = " JOINED_GFLOP("?13") " WHERE trace_id = ?1 AND job_id = ?2",
            args, ARI_NARGS(args), "update task") < 0)
        return -1;
    *matched = ari_store_changes(w->store) > 0;
    return 0;
}

static int on_dep(void *ctx, const char *job_id, const char *depends_on, const char *label)
{
    struct ari_task_writer *t = ctx;
    ari_arg args[] = {ari_arg_int(t->w->id), ari_arg_text(job_id), ari_arg_text(depends_on), opt_text(label)};
    return run(t,
               "INSERT INTO deps(trace_id, job_id, depends_on, label) VALUES (?1, ?2, ?3, ?4)"
               " ON CONFLICT(trace_id, job_id, depends_on)"
               " DO UPDATE SET label = coalesce(deps.label, excluded.label)",
               args, ARI_NARGS(args), "insert dependency");
}

static int on_handle(void *ctx, const ari_data_handle *h)
{
    struct ari_task_writer *t = ctx;
    ari_arg args[] = {ari_arg_int(t->w->id), ari_arg_text(h->handle), opt_int(h->home_node),
                      opt_int(h->mpi_rank), opt_text(h->name), opt_int(h->size), opt_text(h->description),
                      opt_text(h->coordinates), opt_int(h->mpi_owner), opt_int(h->mpi_tag)};
    return run(t,
               "INSERT INTO data_handles(trace_id, handle, home_node, mpi_rank, name, size, description,"
               " coordinates, mpi_owner, mpi_tag) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
               args, ARI_NARGS(args), "insert data handle");
}

static int on_tree_node(void *ctx, int64_t node, int64_t parent, const char *label)
{
    struct ari_task_writer *t = ctx;
    ari_arg args[] = {ari_arg_int(t->w->id), ari_arg_int(node), opt_int(parent), opt_text(label)};
    t->has_tree = 1;
    return run(t,
               "INSERT INTO atree(trace_id, node, parent, label) VALUES (?1, ?2, ?3, ?4)"
               " ON CONFLICT(trace_id, node) DO UPDATE SET parent = coalesce(excluded.parent, atree.parent),"
               " label = coalesce(excluded.label, atree.label)",
               args, ARI_NARGS(args), "insert tree node");
}

static int on_task_anode(void *ctx, const char *job_id, int64_t anode, double gflop)
{
    struct ari_task_writer *t = ctx;
    ari_arg args[] = {ari_arg_int(t->w->id), ari_arg_text(job_id), opt_int(anode), opt_real(gflop)};
    return run(t,
               "UPDATE tasks SET anode = ?3, gflop = " JOINED_GFLOP("?4")
               " WHERE trace_id = ?1 AND job_id = ?2",
               args, ARI_NARGS(args), "update task tree node");
}

/* Appends "key":"value" to the config object, JSON-escaped. */
static int on_config(void *ctx, const char *key, const char *value)
{
    struct ari_task_writer *t = ctx;
    if (ari_json_members_add(&t->config, key, value, strlen(value), 1) < 0)
        return ari_error_set(&t->w->error, ARI_E_NOMEM, "out of memory");
    return 0;
}

/* ---- life cycle ---- */

const ari_task_sink *ari_trace_writer_task_sink(ari_trace_writer *w, ari_error *err)
{
    if (w->task_writer)
        return &w->task_writer->sink;
    struct ari_task_writer *t = ari_zalloc(sizeof *t, err);
    if (!t)
        return NULL;
    t->w = w;
    t->sink = (ari_task_sink){
        .ctx = t,
        .on_origin = on_origin,
        .on_has_tree = on_has_tree,
        .on_worker = on_worker,
        .on_task = on_task,
        .on_task_info = on_task_info,
        .on_dep = on_dep,
        .on_handle = on_handle,
        .on_tree_node = on_tree_node,
        .on_task_anode = on_task_anode,
        .on_config = on_config,
    };
    w->task_writer = t;
    return &t->sink;
}

/* Depth of every tree node (roots 0), bounded so that a cyclic tree ends. */
static int finish_tree(ari_trace_writer *w, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(w->store,
        "WITH RECURSIVE d(node, depth) AS ("
        "  SELECT node, 0 FROM atree WHERE trace_id = ?1 AND parent IS NULL"
        "  UNION ALL SELECT a.node, d.depth + 1 FROM atree a JOIN d ON a.parent = d.node"
        "  WHERE a.trace_id = ?1 AND d.depth < 1000000)"
        " UPDATE atree SET depth = d.depth FROM d WHERE atree.trace_id = ?1 AND atree.node = d.node",
        w->id, err);
    return st ? ari_store_write(w->store, st, "tree depths", err) : -1;
}

static int finish_summary(ari_trace_writer *w, struct ari_task_writer *t, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_real(t->origin),
                      ari_arg_text(ari_json_members_close(&t->config))};
    int rc = ari_store_run(w->store,
        "UPDATE traces SET summary_json = json_patch(summary_json, json_object("
        " 'tasks', (SELECT count(*) FROM tasks WHERE trace_id = ?1),"
        " 'task_types', (SELECT json(coalesce(json_group_object(type, n), '{}')) FROM"
        "   (SELECT type, count(*) AS n FROM tasks WHERE trace_id = ?1 GROUP BY type ORDER BY type)),"
        " 'nodes', (SELECT count(*) FROM (SELECT node FROM workers WHERE trace_id = ?1"
        "   UNION SELECT DISTINCT node FROM tasks WHERE trace_id = ?1)),"
        " 'workers', (SELECT json(coalesce(json_group_object(resource_type, n), '{}')) FROM"
        "   (SELECT resource_type, count(*) AS n FROM workers WHERE trace_id = ?1"
        "    GROUP BY resource_type ORDER BY resource_type)),"
        " 'workers_total', (SELECT count(*) FROM workers WHERE trace_id = ?1),"
        " 'tasks_by_node', (SELECT json(coalesce(json_group_object(node, json(types)), '{}')) FROM"
        "   (SELECT node, json_group_object(type, n) AS types FROM"
        "     (SELECT node, type, count(*) AS n FROM tasks WHERE trace_id = ?1 GROUP BY node, type"
        "      ORDER BY node, type) GROUP BY node ORDER BY node)),"
        " 'tasks_by_resource_type', (SELECT json(coalesce(json_group_object(rt, n), '{}')) FROM"
        "   (SELECT coalesce(resource_type, 'unknown') AS rt, count(*) AS n FROM tasks"
        "    WHERE trace_id = ?1 GROUP BY rt ORDER BY rt)),"
        " 'makespan', (SELECT max(end) FROM tasks WHERE trace_id = ?1),"
        " 'first_task_start', (SELECT min(start) FROM tasks WHERE trace_id = ?1),"
        " 'time_origin', ?2,"
        " 'time_unit', (SELECT time_unit FROM traces WHERE id = ?1),"
        " 'dependencies', (SELECT count(*) FROM deps WHERE trace_id = ?1),"
        " 'gflop_tasks', (SELECT count(*) FROM tasks WHERE trace_id = ?1 AND gflop > 0),"
        " 'data_handles', (SELECT count(*) FROM data_handles WHERE trace_id = ?1),"
        " 'atree_nodes', (SELECT count(*) FROM atree WHERE trace_id = ?1),"
        " 'atree_depth', (SELECT max(depth) FROM atree WHERE trace_id = ?1),"
        " 'config', json(?3))) WHERE id = ?1", args, ARI_NARGS(args), "task summary", err);
    if (rc < 0)
        return -1;
    /* The trace list shows counts: add the task-level ones. */
    ari_stmt *st = ari_store_stmt_id(w->store,
        "UPDATE traces SET counts_json = json_patch(counts_json, json_object("
        " 'tasks', CAST(json_extract(summary_json, '$.tasks') AS INTEGER),"
        " 'dependencies', CAST(json_extract(summary_json, '$.dependencies') AS INTEGER))) WHERE id = ?1", w->id, err);
    return st ? ari_store_write(w->store, st, "task counts", err) : -1;
}

/* What the first Gantt chart needs, so that it does not wait for a scan of
 * the tasks (issue 15): the metadata (cached as a request would cache it),
 * every worker's packed rows, their summaries (gantt_summaries.h) and the
 * server's step (the marks; gantt_rows.h). */
static int finish_gantt(ari_trace_writer *w, ari_error *err)
{
    ari_tq_meta *meta = NULL;
    if (ari_tq_meta_get(w->store, w->id, &meta, err) < 0)
        return -1;
    ari_tq_meta_free(meta);
    if (ari_gantt_rows_build(w->store, w->id, err) < 0 || ari_gantt_summaries_build(w->store, w->id, err) < 0)
        return -1;
    return ari_gantt_run_import_step(w->store, w->id, err);
}

int ari_task_writer_finish(ari_trace_writer *w, ari_error *err)
{
    struct ari_task_writer *t = w->task_writer;
    if (!t)
        return 0;
    if (t->has_tree && finish_tree(w, err) < 0)
        return -1;
    if (finish_summary(w, t, err) < 0)
        return -1;
    return finish_gantt(w, err);
}

void ari_task_writer_free(ari_trace_writer *w)
{
    struct ari_task_writer *t = w->task_writer;
    if (!t)
        return;
    free(t->workers);
    ari_json_members_free(&t->config);
    free(t);
    w->task_writer = NULL;
}
