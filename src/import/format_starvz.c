/* format_starvz.c: the "starvz" format: the CSV files of StarVZ's phase 1
 * (pj_dump output split by kind, rec2csv of tasks.rec and data.rec, the
 * DAG and the elimination tree), loaded into the same model as a StarPU
 * bundle (format_starpu.c shares the conventions).
 *
 * Containers come from entities.csv (pj_dump's entity hierarchy: Parent,
 * Name, Type, Nature), and any container a CSV names without it being
 * there is created on the fly (under "<rank>_program" when that exists);
 * types are created as they are met, with their names as aliases. Every
 * task appears twice in paje.worker_state: the zero-length copy without a
 * JobId is dropped, as StarVZ does. The origin is taken from the worker
 * states (StarVZ's own way) and subtracted from every time.
 */
#include "import/format_starvz.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/csv.h"
#include "import/format_starpu.h"
#include "ingest/rec.h"
#include "store/task_writer.h"
#include "store/trace_writer.h"
#include "util/strmap.h"
#include "util/vec.h"

enum role {
    R_WORKER_STATE, R_COMM_STATE, R_MEMORY_STATE, R_OTHER_STATE, R_VARIABLE, R_LINK, R_EVENTS,
    R_TASKS, R_HANDLES, R_DAG, R_ENTITIES, R_ATREE, R_CONF, R_EXTRA, R_COUNT
};

static const ari_bundle_file starvz_files[] = {
    {"paje.worker_state.csv", R_WORKER_STATE}, {"paje.comm_state.csv", R_COMM_STATE},
    {"paje.memory_state.csv", R_MEMORY_STATE}, {"paje.other_state.csv", R_OTHER_STATE},
    {"paje.variable.csv", R_VARIABLE}, {"paje.link.csv", R_LINK}, {"paje.events.csv", R_EVENTS},
    {"rec.tasks.csv", R_TASKS}, {"rec.data_handles.csv", R_HANDLES}, {"dag.csv", R_DAG},
    {"entities.csv", R_ENTITIES}, {"atree.csv", R_ATREE}, {"conf.txt", R_CONF},
    /* phase-1 files that ariadne keeps but does not read */
    {"rec.papi.csv", R_EXTRA}, {"types.csv", R_EXTRA}, {"platform_file.rec", R_EXTRA},
    {"pmtool.csv", R_EXTRA}, {"pmtool_states.csv", R_EXTRA}, {"README.txt", R_EXTRA},
    {NULL, R_EXTRA},
};

static int role_of(const ari_import_file *f)
{
    return ari_bundle_role(starvz_files, f->name);
}

static int claim(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (!files[idx[i]].claimed && role_of(&files[idx[i]]) == R_WORKER_STATE)
            found = 1;
    if (!found)
        return 0;
    g->nfiles = 0;
    for (size_t i = 0; i < n && g->nfiles < sizeof g->files / sizeof g->files[0]; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || role_of(f) < 0)
            continue;
        f->claimed = 1;
        g->files[g->nfiles++] = idx[i];
    }
    return 1;
}

/* ---- Paje entities from CSV rows ---- */

typedef struct vz {
    ari_trace_writer *w;
    const ari_sink *sink;
    const ari_task_sink *ts;
    double origin, t_max;
    ari_strmap *types;      /* nature digit + name -> strdup'd alias */
    ari_strmap *aliases;    /* type aliases in use */
    ari_strmap *containers; /* container name -> strdup'd type alias */
    ari_strmap *workers;    /* worker container names */
    char **names;           /* container names, in creation order */
    size_t nnames, cap;
    int sink_failed;        /* a sink callback failed: the writer has the error */
} vz;

static void free_value(void *ctx, const char *key, void *value)
{
    (void)ctx, (void)key;
    free(value);
}

static void vz_free(vz *v)
{
    ari_strmap *maps[] = {v->types, v->containers};
    for (size_t i = 0; i < 2; i++)
        if (maps[i]) {
            ari_strmap_foreach(maps[i], free_value, NULL);
            ari_strmap_free(maps[i]);
        }
    ari_strmap_free(v->aliases);
    ari_strmap_free(v->workers);
    for (size_t i = 0; i < v->nnames; i++)
        free(v->names[i]);
    free(v->names);
}

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static int sink_failed(vz *v)
{
    v->sink_failed = 1;
    return -1;
}

static const char *type_alias(vz *v, ari_nature nature, const char *name, const char *parent,
                              const char *start_type, const char *end_type, ari_error *err)
{
    char key[600];
    snprintf(key, sizeof key, "%d%.590s", (int)nature, name);
    const char *alias = ari_strmap_get(v->types, key, strlen(key));
    if (alias)
        return alias;
    char buf[640];
    snprintf(buf, sizeof buf, "%s", name);
    for (int i = 2; ari_strmap_get(v->aliases, buf, strlen(buf)) || strcmp(buf, "0") == 0; i++)
        snprintf(buf, sizeof buf, "%.590s (%d)", name, i); /* same name, other nature */
    char *copy = strdup(buf);
    if (!copy || !ari_strmap_put(v->types, key, strlen(key), copy) ||
        !ari_strmap_put(v->aliases, buf, strlen(buf), (void *)1)) {
        free(copy);
        nomem(err);
        return NULL;
    }
    ari_type_def def = {nature, copy, name, parent, start_type, end_type, NULL};
    if (v->sink->on_type(v->sink->ctx, &def)) {
        sink_failed(v);
        return NULL;
    }
    return copy;
}

static const char *container_type(vz *v, const char *name)
{
    if (strcmp(name, "0") == 0)
        return "0";
    return ari_strmap_get(v->containers, name, strlen(name));
}

/* "1_CPU3" -> "1_program" when that container exists, else the root. */
static const char *guess_parent(vz *v, const char *name)
{
    static char parent[64];
    const char *us = strchr(name, '_');
    if (us && us > name && us - name < 20) {
        snprintf(parent, sizeof parent, "%.*s_program", (int)(us - name), name);
        if (container_type(v, parent))
            return parent;
    }
    return container_type(v, "program") ? "program" : "0";
}

static int remember_name(vz *v, const char *name, ari_error *err)
{
    if (ari_vec_reserve((void **)&v->names, &v->cap, v->nnames + 1, sizeof *v->names) < 0)
        return nomem(err);
    if (!(v->names[v->nnames] = strdup(name)))
        return nomem(err);
    v->nnames++;
    return 0;
}

/* Returns the container's type alias, creating the container if needed. */
static const char *ensure_container(vz *v, const char *name, const char *type_name,
                                    const char *parent, int depth, ari_error *err)
{
    const char *known = container_type(v, name);
    if (known)
        return known;
    if (depth > 64) {
        ari_error_set(err, ARI_E_INVALID_INPUT, "container '%.100s': hierarchy too deep", name);
        return NULL;
    }
    if (!parent || !*parent)
        parent = guess_parent(v, name);
    char parent_copy[256];
    snprintf(parent_copy, sizeof parent_copy, "%s", parent);
    const char *parent_type = ensure_container(v, parent_copy, "Container", "0", depth + 1, err);
    if (!parent_type)
        return NULL;
    const char *alias = type_alias(v, ARI_NATURE_CONTAINER, type_name, parent_type, NULL, NULL, err);
    if (!alias)
        return NULL;
    char *copy = strdup(alias);
    if (!copy || !ari_strmap_put(v->containers, name, strlen(name), copy)) {
        free(copy);
        nomem(err);
        return NULL;
    }
    if (remember_name(v, name, err) < 0)
        return NULL;
    ari_container c = {name, name, alias, parent_copy, -v->origin, -v->origin};
    if (v->sink->on_container(v->sink->ctx, &c)) {
        sink_failed(v);
        return NULL;
    }
    return copy;
}

static void widen(vz *v, double end)
{
    if (end > v->t_max)
        v->t_max = end;
}

/* ---- reading the CSV files ---- */

static const char *get(const ari_field *f, size_t n, const char *name)
{
    const char *s = ari_rec_get(f, n, name);
    return s && *s ? s : NULL;
}

static int need(ari_records *r, const char *value, const char *column, ari_error *err)
{
    if (value)
        return 0;
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: no %s", ari_records_where(r), column);
}

static int need_number(ari_records *r, const ari_field *f, size_t n, const char *column, double *out,
                       ari_error *err)
{
    const char *s = get(f, n, column);
    if (need(r, s, column, err) < 0)
        return -1;
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*out))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: bad %s '%.40s'", ari_records_where(r),
                             column, s);
    return 0;
}

/* The fields of a row that are not among the standard columns. */
static size_t user_fields(const ari_field *f, size_t n, ari_field *out, const char *const *standard)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int skip = 0;
        for (size_t j = 0; standard[j] && !skip; j++)
            skip = strcmp(f[i].name, standard[j]) == 0;
        if (!skip)
            out[k++] = f[i];
    }
    return k;
}

static const char *const state_columns[] = {"Nature", "ResourceId", "Type", "Start", "End", "Duration",
                                            "Depth", "Value", NULL};

typedef int (*row_fn)(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err);

static int each_row(vz *v, const ari_import_file *file, row_fn fn, void *arg, ari_error *err)
{
    ari_records *r = ari_records_open(file->path, file->name, 1, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1)
        if (fn(v, r, f, n, arg, err) < 0) {
            rc = -1;
            break;
        }
    ari_records_close(r);
    if (rc < 0 && v->sink_failed)
        ari_starpu_fail(v->w, err);
    return rc < 0 ? -1 : 0;
}

static int is_task_value(const char *value)
{
    return !ari_starpu_is_runtime_state(value) && !ari_starpu_is_internal(value);
}

typedef struct origin_scan {
    double all, compute;
} origin_scan;

static int origin_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    origin_scan *o = arg;
    const char *value = get(f, n, "Value");
    double start;
    (void)v;
    if (!value || !get(f, n, "JobId") || !is_task_value(value))
        return 0;
    if (need_number(r, f, n, "Start", &start, err) < 0)
        return -1;
    if (start < o->all)
        o->all = start;
    if (start < o->compute && !ari_starpu_is_generation_kernel(value))
        o->compute = start;
    return 0;
}

typedef struct state_file {
    const char *container_type;
    int workers;
} state_file;

/* A state's Depth (pj_dump's imbrication level): absent, empty or NA is 0,
 * else a whole number in [0, INT_MAX], checked before the cast to int. */
static int state_depth(ari_records *r, const char *d, int *depth, ari_error *err)
{
    *depth = 0;
    if (!d || !d[0] || strcmp(d, "NA") == 0)
        return 0;
    char *end;
    double x = strtod(d, &end);
    if (end == d || *end || !(x >= 0 && x <= INT_MAX) || x != floor(x))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: bad Depth '%.40s' (a whole number from 0 up)",
                             ari_records_where(r), d);
    *depth = (int)x;
    return 0;
}

static int state_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    const state_file *sf = arg;
    const char *res = get(f, n, "ResourceId"), *type = get(f, n, "Type"), *value = get(f, n, "Value");
    double start, end;
    if (need(r, res, "ResourceId", err) < 0 || need(r, type, "Type", err) < 0 ||
        need(r, value, "Value", err) < 0 || need_number(r, f, n, "Start", &start, err) < 0 ||
        need_number(r, f, n, "End", &end, err) < 0)
        return -1;
    int task = sf->workers && is_task_value(value);
    if (task && !get(f, n, "JobId"))
        return 0; /* StarPU's duplicate zero-length line of a task */
    const char *ctype = ensure_container(v, res, sf->container_type, NULL, 0, err);
    const char *stype = ctype ? type_alias(v, ARI_NATURE_STATE, type, ctype, NULL, NULL, err) : NULL;
    if (!stype)
        return -1;
    ari_field extra[ARI_CSV_MAX_FIELDS];
    int depth = 0;
    if (state_depth(r, get(f, n, "Depth"), &depth, err) < 0)
        return -1;
    ari_state s = {res, stype, value, start - v->origin, end - v->origin, depth, extra,
                   user_fields(f, n, extra, state_columns)};
    if (v->sink->on_state(v->sink->ctx, &s))
        return sink_failed(v);
    widen(v, s.end);
    if (!sf->workers)
        return 0;
    if (!ari_strmap_get(v->workers, res, strlen(res))) {
        if (!ari_strmap_put(v->workers, res, strlen(res), (void *)1))
            return nomem(err);
        if (v->ts->on_worker(v->ts->ctx, res, res))
            return sink_failed(v);
    }
    ari_task t;
    if (!task || !ari_starpu_task_from_fields(value, f, n, &t))
        return 0;
    t.worker = res;
    t.start = s.start;
    t.end = s.end;
    return v->ts->on_task(v->ts->ctx, &t) ? sink_failed(v) : 0;
}

static int variable_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    const char *res = get(f, n, "ResourceId"), *type = get(f, n, "Type");
    double start, end, value;
    (void)arg;
    if (need(r, res, "ResourceId", err) < 0 || need(r, type, "Type", err) < 0 ||
        need_number(r, f, n, "Start", &start, err) < 0 || need_number(r, f, n, "End", &end, err) < 0 ||
        need_number(r, f, n, "Value", &value, err) < 0)
        return -1;
    const char *ctype = ensure_container(v, res, "Container", NULL, 0, err);
    const char *vtype = ctype ? type_alias(v, ARI_NATURE_VARIABLE, type, ctype, NULL, NULL, err) : NULL;
    if (!vtype)
        return -1;
    ari_variable var = {res, vtype, start - v->origin, end - v->origin, value};
    if (v->sink->on_variable(v->sink->ctx, &var))
        return sink_failed(v);
    widen(v, var.end);
    return 0;
}

static const char *const link_columns[] = {"Nature", "Container", "Type", "Start", "End", "Duration",
                                           "Origin", "Dest", "Key", "Value", NULL};

static int link_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    const char *cont = get(f, n, "Container"), *type = get(f, n, "Type");
    const char *from = get(f, n, "Origin"), *to = get(f, n, "Dest");
    double start, end;
    (void)arg;
    if (need(r, cont, "Container", err) < 0 || need(r, type, "Type", err) < 0 ||
        need(r, from, "Origin", err) < 0 || need(r, to, "Dest", err) < 0 ||
        need_number(r, f, n, "Start", &start, err) < 0 || need_number(r, f, n, "End", &end, err) < 0)
        return -1;
    const char *ctype = ensure_container(v, cont, "Container", NULL, 0, err);
    const char *ftype = ctype ? ensure_container(v, from, "Container", NULL, 0, err) : NULL;
    const char *ttype = ftype ? ensure_container(v, to, "Container", NULL, 0, err) : NULL;
    const char *ltype = ttype ? type_alias(v, ARI_NATURE_LINK, type, ctype, ftype, ttype, err) : NULL;
    if (!ltype)
        return -1;
    ari_field extra[ARI_CSV_MAX_FIELDS];
    const char *value = get(f, n, "Value");
    ari_link l = {cont, ltype, value ? value : "", from, to, get(f, n, "Key"), start - v->origin,
                  end - v->origin, extra, user_fields(f, n, extra, link_columns)};
    if (v->sink->on_link(v->sink->ctx, &l))
        return sink_failed(v);
    widen(v, l.end);
    return 0;
}

static const char *const event_columns[] = {"Nature", "Container", "Type", "Start", "Value", NULL};

static int event_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    const char *cont = get(f, n, "Container"), *type = get(f, n, "Type");
    double time;
    (void)arg;
    if (need(r, cont, "Container", err) < 0 || need(r, type, "Type", err) < 0 ||
        need_number(r, f, n, "Start", &time, err) < 0)
        return -1;
    const char *ctype = ensure_container(v, cont, "Container", NULL, 0, err);
    const char *etype = ctype ? type_alias(v, ARI_NATURE_EVENT, type, ctype, NULL, NULL, err) : NULL;
    if (!etype)
        return -1;
    ari_field extra[ARI_CSV_MAX_FIELDS];
    const char *value = get(f, n, "Value");
    ari_event e = {cont, etype, value ? value : "", time - v->origin, extra,
                   user_fields(f, n, extra, event_columns)};
    if (v->sink->on_event(v->sink->ctx, &e))
        return sink_failed(v);
    widen(v, e.time);
    return 0;
}

/* entities.csv: Parent, Name, Type, Nature (pj_dump --entity-hierarchy). */
static int entity_row(vz *v, ari_records *r, const ari_field *f, size_t n, void *arg, ari_error *err)
{
    const char *parent = get(f, n, "Parent"), *name = get(f, n, "Name");
    const char *type = get(f, n, "Type"), *nature = get(f, n, "Nature");
    (void)arg;
    if (need(r, parent, "Parent", err) < 0 || need(r, name, "Name", err) < 0 ||
        need(r, type, "Type", err) < 0 || need(r, nature, "Nature", err) < 0)
        return -1;
    if (strcmp(nature, "Container") == 0) {
        if (strcmp(name, "0") == 0)
            return 0;
        return ensure_container(v, name, type, parent, 0, err) ? 0 : -1;
    }
    static const struct {
        const char *name;
        ari_nature nature;
    } natures[] = {{"State", ARI_NATURE_STATE}, {"Variable", ARI_NATURE_VARIABLE},
                   {"Link", ARI_NATURE_LINK}, {"Event", ARI_NATURE_EVENT}};
    for (size_t i = 0; i < sizeof natures / sizeof natures[0]; i++)
        if (strcmp(nature, natures[i].name) == 0) {
            const char *ptype = ensure_container(v, parent, "Container", NULL, 0, err);
            return ptype && type_alias(v, natures[i].nature, name, ptype, NULL, NULL, err) ? 0 : -1;
        }
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: unknown nature '%.40s'", ari_records_where(r),
                         nature);
}

/* ---- import ---- */

static const ari_import_file *find_role(ari_import_file *files, const ari_group *g, enum role role)
{
    for (size_t i = 0; i < g->nfiles; i++)
        if (role_of(&files[g->files[i]]) == (int)role)
            return &files[g->files[i]];
    return NULL;
}

static int origin_of(vz *v, const ari_import_file *ws, ari_error *err)
{
    origin_scan o = {INFINITY, INFINITY};
    if (each_row(v, ws, origin_row, &o, err) < 0)
        return -1;
    if (isinf(o.all))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: no application task (no state with a JobId)",
                             ws->name);
    v->origin = isinf(o.compute) ? o.all : o.compute;
    return 0;
}

static int read_entities(vz *v, ari_import_file *files, const ari_group *g, ari_error *err)
{
    static const struct {
        enum role role;
        const char *file_role;
        row_fn fn;
        state_file sf;
    } steps[] = {
        {R_ENTITIES, "entities", entity_row, {NULL, 0}},
        {R_WORKER_STATE, "worker_state", state_row, {"Worker", 1}},
        {R_COMM_STATE, "comm_state", state_row, {"Container", 0}},
        {R_MEMORY_STATE, "memory_state", state_row, {"Container", 0}},
        {R_OTHER_STATE, "other_state", state_row, {"Container", 0}},
        {R_VARIABLE, "variable", variable_row, {NULL, 0}},
        {R_LINK, "link", link_row, {NULL, 0}},
        {R_EVENTS, "events", event_row, {NULL, 0}},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const ari_import_file *f = find_role(files, g, steps[i].role);
        if (!f)
            continue;
        if (ari_trace_writer_file(v->w, f->path, f->name, steps[i].file_role, err) < 0 ||
            each_row(v, f, steps[i].fn, (void *)&steps[i].sf, err) < 0)
            return -1;
    }
    return 0;
}

static int close_containers(vz *v, ari_error *err)
{
    if (isinf(v->t_max))
        v->t_max = 0;
    for (size_t i = 0; i < v->nnames; i++)
        if (v->sink->on_container_end(v->sink->ctx, v->names[i], v->t_max))
            return ari_starpu_fail(v->w, err);
    if (v->sink->on_container_end(v->sink->ctx, "0", v->t_max))
        return ari_starpu_fail(v->w, err);
    return 0;
}

static int read_task_files(vz *v, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *tasks = find_role(files, g, R_TASKS), *dag = find_role(files, g, R_DAG);
    const ari_import_file *handles = find_role(files, g, R_HANDLES), *conf = find_role(files, g, R_CONF);
    if (tasks && (ari_trace_writer_file(v->w, tasks->path, tasks->name, "tasks", err) < 0 ||
                  ari_starpu_read_task_records(v->w, v->ts, tasks->path, tasks->name, 1, v->origin, err) < 0))
        return -1;
    if (dag && (ari_trace_writer_file(v->w, dag->path, dag->name, "dag", err) < 0 ||
                ari_starpu_read_dag(v->w, v->ts, dag->path, dag->name, 1, err) < 0))
        return -1;
    if (handles && (ari_trace_writer_file(v->w, handles->path, handles->name, "data", err) < 0 ||
                    ari_starpu_read_handles(v->w, v->ts, handles->path, handles->name, 1, err) < 0))
        return -1;
    if (conf && (ari_trace_writer_file(v->w, conf->path, conf->name, "conf", err) < 0 ||
                 ari_starpu_read_conf(v->w, v->ts, conf->path, conf->name, err) < 0))
        return -1;
    for (size_t i = 0; i < g->nfiles; i++) {
        const ari_import_file *f = &files[g->files[i]];
        if (role_of(f) == R_EXTRA && ari_trace_writer_file(v->w, f->path, f->name, "extra", err) < 0)
            return -1;
    }
    return 0;
}

static int import_set(vz *v, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *ws = find_role(files, g, R_WORKER_STATE);
    const ari_import_file *atree = find_role(files, g, R_ATREE);
    for (size_t i = 0; i < g->nfiles; i++) {
        const ari_import_file *f = &files[g->files[i]];
        if (f->bytes == 0 && role_of(f) != R_EXTRA)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file", f->name);
    }
    if (ari_trace_writer_set_time_unit(v->w, "ms") < 0)
        return ari_starpu_fail(v->w, err);
    if (atree && (ari_trace_writer_file(v->w, atree->path, atree->name, "atree", err) < 0 ||
                  ari_starpu_read_tree(v->w, v->ts, atree->path, atree->name, 1, err) < 0))
        return -1;
    if (origin_of(v, ws, err) < 0)
        return -1;
    if (v->ts->on_origin(v->ts->ctx, v->origin))
        return ari_starpu_fail(v->w, err);
    v->t_max = -INFINITY;
    if (read_entities(v, files, g, err) < 0)
        return -1;
    if (close_containers(v, err) < 0)
        return -1;
    return read_task_files(v, files, g, err);
}

static int import(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    vz v;
    memset(&v, 0, sizeof v);
    v.w = w;
    v.sink = ari_trace_writer_sink(w);
    v.ts = ari_trace_writer_task_sink(w, err);
    if (!v.ts)
        return -1;
    v.types = ari_strmap_new();
    v.aliases = ari_strmap_new();
    v.containers = ari_strmap_new();
    v.workers = ari_strmap_new();
    int rc;
    if (!v.types || !v.aliases || !v.containers || !v.workers)
        rc = nomem(err);
    else
        rc = import_set(&v, files, g, err);
    vz_free(&v);
    return rc;
}

const ari_format ari_format_starvz = {"starvz", "tasks", claim, import};
