/* trace_sink.c: the store's ari_sink: it turns the Paje-level entities a
 * reader reports into rows of entity_types, containers, names, states,
 * variables, links and events (sql/002_paje.sql), with prepared statements
 * inside the import's transaction. Aliases and names resolve to per-trace
 * integer ids through hash maps, so a row costs one insert. Text is stored
 * as valid UTF-8 (store_text.h) and the maps are keyed by that stored form,
 * so names that the database holds alike share one id. */
#include "store/trace_writer_internal.h"
#include "store/task_writer.h"
#include "store/store_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CANCEL_POLL_MASK 0xffff

/* The id stored under key, 0 if absent or key is NULL; -1 (w->error set)
 * when out of memory. */
static int64_t lookup(ari_trace_writer *w, const ari_strmap *m, const char *key)
{
    ari_text k;
    if (!key)
        return 0;
    if (ari_text_init(&k, key) < 0)
        return ari_error_set(&w->error, ARI_E_NOMEM, "out of memory");
    int64_t id = (int64_t)(intptr_t)ari_strmap_get(m, k.s, k.len);
    ari_text_free(&k);
    return id;
}

static int remember(ari_trace_writer *w, ari_strmap *m, const char *key, int64_t id)
{
    ari_text k;
    if (!key)
        return 0;
    int ok = ari_text_init(&k, key) == 0 && ari_strmap_put(m, k.s, k.len, (void *)(intptr_t)id);
    ari_text_free(&k);
    return ok ? 0 : ari_error_set(&w->error, ARI_E_NOMEM, "out of memory");
}

static int step_done(ari_trace_writer *w, sqlite3_stmt *st, const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, &w->error, what);
    return 0;
}

/* Every sink call passes here: counts calls and polls for cancellation. */
static int tick(ari_trace_writer *w)
{
    if ((++w->calls & CANCEL_POLL_MASK) == 0 && ari_trace_writer_cancelled(w))
        return -1;
    return 0;
}

static void widen_span(ari_trace_writer *w, double start, double end)
{
    if (start < w->t_min)
        w->t_min = start;
    if (end > w->t_max)
        w->t_max = end;
}

/* The id of key in m, or 0 with w->error set. */
static int64_t require(ari_trace_writer *w, const ari_strmap *m, const char *key, const char *what)
{
    int64_t id = lookup(w, m, key);
    if (id < 0)
        return 0;
    if (!id)
        ari_error_set(&w->error, ARI_E_INVALID_INPUT, "unknown %s '%s'", what, key ? key : "(null)");
    return id;
}

/* The id of a state, link or event value in `names`, added on first use;
 * 0 with w->error set on failure. */
static int64_t intern_name(ari_trace_writer *w, const char *name)
{
    int64_t id = lookup(w, w->names, name);
    if (id < 0)
        return 0;
    if (id)
        return id;
    sqlite3_stmt *st = ari_store_stmt(w->store, "INSERT INTO names(trace_id, id, name) VALUES (?1, ?2, ?3)",
                                      &w->error);
    if (!st)
        return 0;
    id = ++w->next_name;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, id);
    ari_store_bind_text(st, 3, name, -1);
    if (step_done(w, st, "insert name") < 0 || remember(w, w->names, name, id) < 0)
        return 0;
    return id;
}

/* ---- user fields as a JSON object ---- */

static int reserve(ari_trace_writer *w, size_t need)
{
    if (need <= w->buf_cap)
        return 0;
    size_t cap = w->buf_cap ? w->buf_cap : 256;
    while (cap < need)
        cap *= 2;
    char *grown = realloc(w->buf, cap);
    if (!grown)
        return ari_error_set(&w->error, ARI_E_NOMEM, "out of memory");
    w->buf = grown;
    w->buf_cap = cap;
    return 0;
}

/* Returns the fields as JSON in w->buf, or NULL when there are none. */
static const char *fields_json(ari_trace_writer *w, const ari_field *fields, size_t n, int *failed)
{
    *failed = 0;
    if (n == 0)
        return NULL;
    size_t need = 3;
    for (size_t i = 0; i < n; i++)
        need += 6 * (strlen(fields[i].name) + strlen(fields[i].value)) + 8;
    if (reserve(w, need) < 0) {
        *failed = 1;
        return NULL;
    }
    size_t len = 0;
    w->buf[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            w->buf[len++] = ',';
        len += ari_json_quote(w->buf + len, fields[i].name);
        w->buf[len++] = ':';
        len += ari_json_quote(w->buf + len, fields[i].value);
    }
    w->buf[len++] = '}';
    w->buf[len] = '\0';
    return w->buf;
}

static void bind_fields(sqlite3_stmt *st, int col, const char *json)
{
    if (json)
        sqlite3_bind_text(st, col, json, -1, SQLITE_TRANSIENT); /* valid: ari_json_quote */
    else
        sqlite3_bind_null(st, col);
}

static void bind_id_or_null(sqlite3_stmt *st, int col, int64_t id)
{
    if (id)
        sqlite3_bind_int64(st, col, id);
    else
        sqlite3_bind_null(st, col);
}

/* ---- callbacks ---- */

static int add_root(ari_trace_writer *w, ari_error *err);

/* The root container "0" exists as soon as the trace has Paje entities;
 * traces of other kinds (profiles) have none. */
static int ensure_root(ari_trace_writer *w)
{
    return w->root_added ? 0 : add_root(w, &w->error);
}

static const char *nature_names[] = {"container", "state", "variable", "link", "event", "value"};

static int on_type(void *ctx, const ari_type_def *t)
{
    ari_trace_writer *w = ctx;
    if (ensure_root(w) < 0)
        return -1;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO entity_types(trace_id, id, nature, alias, name, parent_id, start_type_id,"
        " end_type_id, color) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &w->error);
    if (!st || (unsigned)t->nature > ARI_NATURE_VALUE)
        return -1;
    int64_t parent = lookup(w, w->types, t->parent), start = lookup(w, w->types, t->start_type);
    int64_t end = lookup(w, w->types, t->end_type);
    if (parent < 0 || start < 0 || end < 0)
        return -1;
    int64_t id = ++w->next_type;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_text(st, 3, nature_names[t->nature], -1, SQLITE_STATIC);
    ari_store_bind_text(st, 4, t->alias ? t->alias : t->name, -1);
    ari_store_bind_text(st, 5, t->name, -1);
    bind_id_or_null(st, 6, parent);
    bind_id_or_null(st, 7, start);
    bind_id_or_null(st, 8, end);
    if (t->color)
        ari_store_bind_text(st, 9, t->color, -1);
    w->counts.types++;
    if (step_done(w, st, "insert type") < 0)
        return -1;
    /* Values are looked up through names, not types: their aliases may
     * repeat across types. */
    if (t->nature == ARI_NATURE_VALUE)
        return 0;
    if (remember(w, w->types, t->name, id) < 0)
        return -1;
    return t->alias ? remember(w, w->types, t->alias, id) : 0;
}

static int on_container(void *ctx, const ari_container *c)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0 || ensure_root(w) < 0)
        return -1;
    int64_t type_id = require(w, w->types, c->type, "container type");
    if (!type_id)
        return -1;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &w->error);
    int64_t parent = st ? lookup(w, w->containers, c->parent) : -1;
    if (parent < 0)
        return -1;
    int64_t id = ++w->next_container;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, id);
    bind_id_or_null(st, 3, parent);
    sqlite3_bind_int64(st, 4, type_id);
    ari_store_bind_text(st, 5, c->alias ? c->alias : c->name, -1);
    ari_store_bind_text(st, 6, c->name, -1);
    sqlite3_bind_double(st, 7, c->start);
    sqlite3_bind_double(st, 8, c->end);
    w->counts.containers++;
    if (step_done(w, st, "insert container") < 0 || remember(w, w->containers, c->name, id) < 0)
        return -1;
    return c->alias ? remember(w, w->containers, c->alias, id) : 0;
}

static int on_container_end(void *ctx, const char *alias, double end)
{
    ari_trace_writer *w = ctx;
    if (alias && strcmp(alias, "0") == 0)
        widen_span(w, end, end); /* the root's end is the trace's end */
    int64_t id = require(w, w->containers, alias, "container");
    if (!id)
        return -1;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "UPDATE containers SET end = ?3 WHERE trace_id = ?1 AND id = ?2", &w->error);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_double(st, 3, end);
    return step_done(w, st, "update container");
}

static int on_state(void *ctx, const ari_state *s)
{
    ari_trace_writer *w = ctx;
    int failed;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, s->container, "container");
    int64_t type = container ? require(w, w->types, s->type, "state type") : 0;
    int64_t value = type ? intern_name(w, s->value) : 0;
    const char *fields = fields_json(w, s->fields, s->nfields, &failed);
    sqlite3_stmt *st = value && !failed ? ari_store_stmt(w->store,
        "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth, fields)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &w->error) : NULL;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, container);
    sqlite3_bind_int64(st, 3, type);
    sqlite3_bind_int64(st, 4, value);
    sqlite3_bind_double(st, 5, s->start);
    sqlite3_bind_double(st, 6, s->end);
    sqlite3_bind_int(st, 7, s->depth);
    bind_fields(st, 8, fields);
    w->counts.states++;
    widen_span(w, s->start, s->end);
    return step_done(w, st, "insert state");
}

static int on_variable(void *ctx, const ari_variable *v)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, v->container, "container");
    int64_t type = container ? require(w, w->types, v->type, "variable type") : 0;
    sqlite3_stmt *st = type ? ari_store_stmt(w->store,
        "INSERT INTO variables(trace_id, container_id, type_id, start, end, value)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &w->error) : NULL;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, container);
    sqlite3_bind_int64(st, 3, type);
    sqlite3_bind_double(st, 4, v->start);
    sqlite3_bind_double(st, 5, v->end);
    sqlite3_bind_double(st, 6, v->value);
    w->counts.variables++;
    widen_span(w, v->start, v->end);
    return step_done(w, st, "insert variable");
}

static int on_link(void *ctx, const ari_link *l)
{
    ari_trace_writer *w = ctx;
    int failed;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, l->container, "container");
    int64_t from = container ? require(w, w->containers, l->start_container, "container") : 0;
    int64_t to = from ? require(w, w->containers, l->end_container, "container") : 0;
    int64_t type = to ? require(w, w->types, l->type, "link type") : 0;
    int64_t value = type ? intern_name(w, l->value ? l->value : "") : 0;
    const char *fields = fields_json(w, l->fields, l->nfields, &failed);
    sqlite3_stmt *st = value && !failed ? ari_store_stmt(w->store,
        "INSERT INTO links(trace_id, container_id, type_id, value_id, start_container_id,"
        " end_container_id, key, start, end, fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        &w->error) : NULL;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, container);
    sqlite3_bind_int64(st, 3, type);
    sqlite3_bind_int64(st, 4, value);
    sqlite3_bind_int64(st, 5, from);
    sqlite3_bind_int64(st, 6, to);
    ari_store_bind_text(st, 7, l->key ? l->key : "", -1);
    sqlite3_bind_double(st, 8, l->start);
    sqlite3_bind_double(st, 9, l->end);
    bind_fields(st, 10, fields);
    w->counts.links++;
    widen_span(w, l->start, l->end);
    return step_done(w, st, "insert link");
}

static int on_event(void *ctx, const ari_event *e)
{
    ari_trace_writer *w = ctx;
    int failed;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, e->container, "container");
    int64_t type = container ? require(w, w->types, e->type, "event type") : 0;
    int64_t value = type ? intern_name(w, e->value ? e->value : "") : 0;
    const char *fields = fields_json(w, e->fields, e->nfields, &failed);
    sqlite3_stmt *st = value && !failed ? ari_store_stmt(w->store,
        "INSERT INTO events(trace_id, container_id, type_id, value_id, time, fields)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &w->error) : NULL;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, container);
    sqlite3_bind_int64(st, 3, type);
    sqlite3_bind_int64(st, 4, value);
    sqlite3_bind_double(st, 5, e->time);
    bind_fields(st, 6, fields);
    w->counts.events++;
    widen_span(w, e->time, e->time);
    return step_done(w, st, "insert event");
}

static void on_progress(void *ctx, double done, double total)
{
    if (total > 0)
        ari_trace_writer_report(ctx, done / total);
}

/* ---- life cycle ---- */

/* The root container "0", which pj_dump lists first and where links and
 * variables of the whole platform may live. */
static int add_root(ari_trace_writer *w, ari_error *err)
{
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
        " VALUES (?1, 1, NULL, NULL, '0', '0', 0, 0)", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, err, "insert root container");
    w->next_container = 1;
    w->counts.containers = 1;
    w->root_added = 1;
    return remember(w, w->containers, "0", 1) < 0 ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : 0;
}

int ari_trace_sink_init(ari_trace_writer *w, ari_error *err)
{
    w->types = ari_strmap_new();
    w->containers = ari_strmap_new();
    w->names = ari_strmap_new();
    if (!w->types || !w->containers || !w->names)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    w->t_min = 1e300;
    w->t_max = -1e300;
    w->sink = (ari_sink){
        .ctx = w,
        .on_type = on_type,
        .on_container = on_container,
        .on_container_end = on_container_end,
        .on_state = on_state,
        .on_variable = on_variable,
        .on_link = on_link,
        .on_event = on_event,
        .on_progress = on_progress,
    };
    return 0;
}

const ari_sink *ari_trace_writer_sink(ari_trace_writer *w)
{
    return &w->sink;
}

/* Counts and summary of the Paje entities, for traces that have some. */
static int finish_paje(ari_trace_writer *w, ari_error *err)
{
    const ari_entity_counts *c = &w->counts;
    int timed = w->t_min <= w->t_max;
    sqlite3_stmt *st = ari_store_stmt(w->store,
        "UPDATE traces SET counts_json = json_patch(counts_json, json_object('types', ?2,"
        "  'containers', ?3, 'states', ?4, 'variables', ?5, 'links', ?6, 'events', ?7)),"
        " summary_json = json_patch(summary_json, json_object('start', ?8, 'end', ?9,"
        "  'duration', ?9 - ?8, 'containers', ?3, 'time_unit', time_unit))"
        " WHERE id = ?1", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, w->id);
    sqlite3_bind_int64(st, 2, c->types);
    sqlite3_bind_int64(st, 3, c->containers);
    sqlite3_bind_int64(st, 4, c->states);
    sqlite3_bind_int64(st, 5, c->variables);
    sqlite3_bind_int64(st, 6, c->links);
    sqlite3_bind_int64(st, 7, c->events);
    sqlite3_bind_double(st, 8, timed ? w->t_min : 0);
    sqlite3_bind_double(st, 9, timed ? w->t_max : 0);
    if (sqlite3_step(st) != SQLITE_DONE)
        return ari_store_fail(w->store, err, "update trace counts");
    return 0;
}

int ari_trace_sink_finish(ari_trace_writer *w, ari_error *err)
{
    if (w->root_added && finish_paje(w, err) < 0)
        return -1;
    return ari_task_writer_finish(w, err);
}

void ari_trace_sink_free(ari_trace_writer *w)
{
    ari_strmap_free(w->types);
    ari_strmap_free(w->containers);
    ari_strmap_free(w->names);
    free(w->buf);
    ari_task_writer_free(w);
}
