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

#include "store/store_text.h"
#include "store/trace_writer_internal.h"

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
    char *config;         /* JSON object text of on_config pairs */
    size_t config_len, config_cap;
};

/* ---- helpers ---- */

/* The trace sink's id of a container (its map is keyed by the stored,
 * valid UTF-8 form of the alias), 0 if unknown, -1 when out of memory. */
static int64_t container_id(ari_trace_writer *w, const char *alias)
{
    ari_text k;
    if (!alias)
        return 0;
    if (ari_text_init(&k, alias) < 0)
        return ari_error_set(&w->error, ARI_E_NOMEM, "out of memory");
    int64_t id = (int64_t)(intptr_t)ari_strmap_get(w->containers, k.s, k.len);
    ari_text_free(&k);
    return id;
}

/* Text or, for NULL and "", NULL. */
static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
    if (s && *s)
        ari_store_bind_text(st, col, s, -1);
    else
        sqlite3_bind_null(st, col);
}

static void bind_int(sqlite3_stmt *st, int col, int64_t v)
{
    if (v == ARI_UNSET_INT)
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_int64(st, col, v);
}

static void bind_real(sqlite3_stmt *st, int col, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_double(st, col, v);
}

static int step_done(ari_trace_writer *w, sqlite3_stmt *st, const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, &w->error, what);
    return 0;
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
    if ((size_t)id < t->nworkers_cap)
        return 0;
    size_t cap = t->nworkers_cap ? t->nworkers_cap : 64;
    while (cap <= (size_t)id)
        cap *= 2;
    worker_info *grown = realloc(t->workers, cap * sizeof *grown);
    if (!grown)
        return ari_error_set(&t->w->error, ARI_E_NOMEM, "out of memory");
    memset(grown + t->nworkers_cap, 0, (cap - t->nworkers_cap) * sizeof *grown);
    t->workers = grown;
    t->nworkers_cap = cap;
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
    int64_t id = container_id(w, alias);
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
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT OR IGNORE INTO workers(trace_id, container_id, node, resource_type, resource, name)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_int64(st, 3, info->node);
    ari_store_bind_text(st, 4, info->resource_type, -1);
    ari_store_bind_text(st, 5, resource, -1);
    ari_store_bind_text(st, 6, name, -1);
    return step_done(w, st, "insert worker");
}

static int on_task(void *ctx, const ari_task *task)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    if (!task->job_id || !*task->job_id || !task->type)
        return ari_error_set(&w->error, ARI_E_INVALID_INPUT, "task without a JobId or a type");
    if ((++t->tasks & 0xffff) == 0 && ari_trace_writer_cancelled(w))
        return -1;
    int64_t worker = container_id(w, task->worker);
    if (worker < 0)
        return -1;
    worker_info *info = worker_slot(t, worker);
    int64_t node = task->node != ARI_UNSET_INT ? task->node : info && info->is_worker ? info->node : 0;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO tasks(trace_id, job_id, type, worker_id, node, resource_type, start, end,"
        " submit_order, tag, gflop, iteration, subiteration, params, footprint, size, x, y, anode)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
        &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    ari_store_bind_text(st, 2, task->job_id, -1);
    ari_store_bind_text(st, 3, task->type, -1);
    bind_int(st, 4, worker ? worker : ARI_UNSET_INT);
    sqlite3_bind_int64(st, 5, node);
    bind_text(st, 6, info && info->is_worker ? info->resource_type : NULL);
    sqlite3_bind_double(st, 7, task->start);
    sqlite3_bind_double(st, 8, task->end);
    bind_int(st, 9, task->submit_order);
    bind_text(st, 10, task->tag);
    bind_real(st, 11, task->gflop);
    bind_int(st, 12, task->iteration);
    bind_int(st, 13, task->subiteration);
    bind_text(st, 14, task->params);
    bind_text(st, 15, task->footprint);
    bind_int(st, 16, task->size);
    bind_int(st, 17, task->x);
    bind_int(st, 18, task->y);
    bind_int(st, 19, t->has_tree ? anode_of_tag(task->tag) : ARI_UNSET_INT);
    return step_done(w, st, "insert task");
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
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "UPDATE tasks SET submit_time = ?3, priority = ?4, memory_node = ?5, worker_rank = ?6,"
        " model = ?7, handles = ?8, modes = ?9, tag = coalesce(tag, ?10),"
        " params = coalesce(params, ?11), footprint = coalesce(footprint, ?12),"
        " gflop = " JOINED_GFLOP("?13") " WHERE trace_id = ?1 AND job_id = ?2", &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    ari_store_bind_text(st, 2, info->job_id, -1);
    bind_real(st, 3, info->submit_time);
    bind_int(st, 4, info->priority);
    bind_int(st, 5, info->memory_node);
    bind_int(st, 6, info->worker_rank);
    bind_text(st, 7, info->model);
    bind_text(st, 8, info->handles);
    bind_text(st, 9, info->modes);
    bind_text(st, 10, info->tag);
    bind_text(st, 11, info->params);
    bind_text(st, 12, info->footprint);
    bind_real(st, 13, info->gflop);
    if (step_done(w, st, "update task") < 0)
        return -1;
    *matched = sqlite3_changes(w->store->db) > 0;
    return 0;
}

static int on_dep(void *ctx, const char *job_id, const char *depends_on, const char *label)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO deps(trace_id, job_id, depends_on, label) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(trace_id, job_id, depends_on) DO UPDATE SET label = coalesce(label, excluded.label)",
        &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    ari_store_bind_text(st, 2, job_id, -1);
    ari_store_bind_text(st, 3, depends_on, -1);
    bind_text(st, 4, label);
    return step_done(w, st, "insert dependency");
}

static int on_handle(void *ctx, const ari_data_handle *h)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO data_handles(trace_id, handle, home_node, mpi_rank, name, size, description,"
        " coordinates, mpi_owner, mpi_tag) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    ari_store_bind_text(st, 2, h->handle, -1);
    bind_int(st, 3, h->home_node);
    bind_int(st, 4, h->mpi_rank);
    bind_text(st, 5, h->name);
    bind_int(st, 6, h->size);
    bind_text(st, 7, h->description);
    bind_text(st, 8, h->coordinates);
    bind_int(st, 9, h->mpi_owner);
    bind_int(st, 10, h->mpi_tag);
    return step_done(w, st, "insert data handle");
}

static int on_tree_node(void *ctx, int64_t node, int64_t parent, const char *label)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO atree(trace_id, node, parent, label) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(trace_id, node) DO UPDATE SET parent = coalesce(excluded.parent, parent),"
        " label = coalesce(excluded.label, label)", &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, node);
    bind_int(st, 3, parent);
    bind_text(st, 4, label);
    t->has_tree = 1;
    return step_done(w, st, "insert tree node");
}

static int on_task_anode(void *ctx, const char *job_id, int64_t anode, double gflop)
{
    struct ari_task_writer *t = ctx;
    ari_trace_writer *w = t->w;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "UPDATE tasks SET anode = ?3, gflop = " JOINED_GFLOP("?4") " WHERE trace_id = ?1 AND job_id = ?2",
        &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    ari_store_bind_text(st, 2, job_id, -1);
    bind_int(st, 3, anode);
    bind_real(st, 4, gflop);
    return step_done(w, st, "update task tree node");
}

/* Appends "key":"value" to the config object, JSON-escaped. */
static int on_config(void *ctx, const char *key, const char *value)
{
    struct ari_task_writer *t = ctx;
    size_t need = t->config_len + 6 * (strlen(key) + strlen(value)) + 8;
    if (need > t->config_cap) {
        size_t cap = t->config_cap ? t->config_cap : 256;
        while (cap < need)
            cap *= 2;
        char *grown = realloc(t->config, cap);
        if (!grown)
            return ari_error_set(&t->w->error, ARI_E_NOMEM, "out of memory");
        t->config = grown;
        t->config_cap = cap;
    }
    char open = t->config_len ? ',' : '{';
    t->config[t->config_len++] = open;
    t->config_len += ari_json_quote(t->config + t->config_len, key);
    t->config[t->config_len++] = ':';
    t->config_len += ari_json_quote(t->config + t->config_len, value);
    t->config[t->config_len] = '\0';
    return 0;
}

/* ---- life cycle ---- */

const ari_task_sink *ari_trace_writer_task_sink(ari_trace_writer *w, ari_error *err)
{
    if (w->task_writer)
        return &w->task_writer->sink;
    struct ari_task_writer *t = calloc(1, sizeof *t);
    if (!t) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
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
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "WITH RECURSIVE d(node, depth) AS ("
        "  SELECT node, 0 FROM atree WHERE trace_id = ?1 AND parent IS NULL"
        "  UNION ALL SELECT a.node, d.depth + 1 FROM atree a JOIN d ON a.parent = d.node"
        "  WHERE a.trace_id = ?1 AND d.depth < 1000000)"
        " UPDATE atree SET depth = d.depth FROM d WHERE atree.trace_id = ?1 AND atree.node = d.node",
        err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, err, "tree depths");
    return 0;
}

static int finish_summary(ari_trace_writer *w, struct ari_task_writer *t, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(w->store,
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
        " 'config', json(?3))) WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_double(st, 2, t->origin);
    if (t->config_len) { /* on_config left room for the closing brace */
        t->config[t->config_len] = '}';
        t->config[t->config_len + 1] = '\0';
        ari_store_bind_text(st, 3, t->config, -1);
    } else {
        sqlite3_bind_text(st, 3, "{}", -1, SQLITE_STATIC);
    }
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, err, "task summary");
    /* The trace list shows counts: add the task-level ones. */
    st = ari_store_stmt(w->store,
        "UPDATE traces SET counts_json = json_patch(counts_json, json_object("
        " 'tasks', json_extract(summary_json, '$.tasks'),"
        " 'dependencies', json_extract(summary_json, '$.dependencies'))) WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, err, "task counts");
    return 0;
}

int ari_task_writer_finish(ari_trace_writer *w, ari_error *err)
{
    struct ari_task_writer *t = w->task_writer;
    if (!t)
        return 0;
    if (t->has_tree && finish_tree(w, err) < 0)
        return -1;
    return finish_summary(w, t, err);
}

void ari_task_writer_free(ari_trace_writer *w)
{
    struct ari_task_writer *t = w->task_writer;
    if (!t)
        return;
    free(t->workers);
    free(t->config);
    free(t);
    w->task_writer = NULL;
}
