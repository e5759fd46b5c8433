/* trace_sink.c: the store's ari_sink: it turns the Paje-level entities a
 * reader reports into rows of entity_types, containers, names, states,
 * variables, links and events (sql/002_paje.sql), with prepared statements
 * inside the import's transaction. Aliases and names resolve to per-trace
 * integer ids through hash maps, so a row costs one insert. Text is stored
 * as valid UTF-8 (store_text.h) and the maps are keyed by that stored form,
 * so names that the database holds alike share one id. */
#include "store/event_chunks.h"
#include "store/state_chunks.h"
#include "store/trace_writer_internal.h"
#include "store/task_writer.h"
#include "store/store_text.h"
#include "util/vec.h"

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

int64_t ari_trace_writer_container(ari_trace_writer *w, const char *alias)
{
    return lookup(w, w->containers, alias);
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

/* Runs one statement of a sink callback; a failure goes to w->error. */
static int run(ari_trace_writer *w, const char *sql, const ari_arg *args, int n, const char *what)
{
    return ari_store_run(w->store, sql, args, n, what, &w->error);
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
    id = ++w->next_name;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(id), ari_arg_text(name)};
    if (run(w, "INSERT INTO names(trace_id, id, name) VALUES (?1, ?2, ?3)", args, ARI_NARGS(args),
            "insert name") < 0 ||
        remember(w, w->names, name, id) < 0)
        return 0;
    return id;
}

/* ---- user fields as a JSON object ---- */

/* The fields as a JSON object in w->buf, bound as given (ari_json_quote
 * made it valid), or NULL when there are none; -1 (w->error set) when out
 * of memory. */
static int fields_arg(ari_trace_writer *w, const ari_field *fields, size_t n, ari_arg *out)
{
    *out = ari_arg_null();
    if (n == 0)
        return 0;
    size_t need = 3;
    for (size_t i = 0; i < n; i++)
        need += 6 * (strlen(fields[i].name) + strlen(fields[i].value)) + 8;
    if (ari_vec_reserve((void **)&w->buf, &w->buf_cap, need, 1) < 0)
        return ari_error_set(&w->error, ARI_E_NOMEM, "out of memory");
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
    *out = ari_arg_raw_text(w->buf);
    return 0;
}

static ari_arg id_or_null(int64_t id)
{
    return id ? ari_arg_int(id) : ari_arg_null();
}

/* Inserts a state, variable, link or event row spanning [start, end]. */
static int insert_timed(ari_trace_writer *w, const char *sql, const ari_arg *args, int n, double start,
                        double end, int64_t *count, const char *what)
{
    (*count)++;
    widen_span(w, start, end);
    return run(w, sql, args, n, what);
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
    if (ensure_root(w) < 0 || (unsigned)t->nature > ARI_NATURE_VALUE)
        return -1;
    int64_t parent = lookup(w, w->types, t->parent), start = lookup(w, w->types, t->start_type);
    int64_t end = lookup(w, w->types, t->end_type);
    if (parent < 0 || start < 0 || end < 0)
        return -1;
    int64_t id = ++w->next_type;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(id), ari_arg_text(nature_names[t->nature]),
                      ari_arg_text(t->alias ? t->alias : t->name), ari_arg_text(t->name), id_or_null(parent),
                      id_or_null(start), id_or_null(end), ari_arg_text(t->color)};
    w->counts.types++;
    if (run(w,
            "INSERT INTO entity_types(trace_id, id, nature, alias, name, parent_id, start_type_id,"
            " end_type_id, color) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            args, ARI_NARGS(args), "insert type") < 0)
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
    int64_t parent = type_id ? lookup(w, w->containers, c->parent) : -1;
    if (parent < 0)
        return -1;
    int64_t id = ++w->next_container;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(id), id_or_null(parent), ari_arg_int(type_id),
                      ari_arg_text(c->alias ? c->alias : c->name), ari_arg_text(c->name),
                      ari_arg_real(c->start), ari_arg_real(c->end)};
    w->counts.containers++;
    if (run(w,
            "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            args, ARI_NARGS(args), "insert container") < 0 ||
        remember(w, w->containers, c->name, id) < 0)
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
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(id), ari_arg_real(end)};
    return run(w, "UPDATE containers SET end = ?3 WHERE trace_id = ?1 AND id = ?2", args, ARI_NARGS(args),
               "update container");
}

static int on_state(void *ctx, const ari_state *s)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, s->container, "container");
    int64_t type = container ? require(w, w->types, s->type, "state type") : 0;
    int64_t value = type ? intern_name(w, s->value) : 0;
    if (value && w->packer) { /* packed states keep no fields */
        if (value > INT32_MAX)
            return ari_error_set(&w->error, ARI_E_TOO_LARGE, "more than %d state values", INT32_MAX);
        w->counts.states++;
        widen_span(w, s->start, s->end);
        return ari_state_packer_add(w->packer, container, type, (int)value, s->depth, s->start, s->end, &w->error);
    }
    ari_arg fields;
    if (!value || fields_arg(w, s->fields, s->nfields, &fields) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(container), ari_arg_int(type), ari_arg_int(value),
                      ari_arg_real(s->start), ari_arg_real(s->end), ari_arg_int(s->depth), fields};
    return insert_timed(w,
                        "INSERT INTO states(trace_id, container_id, type_id, value_id, start, end, depth,"
                        " fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        args, ARI_NARGS(args), s->start, s->end, &w->counts.states, "insert state");
}

static int on_variable(void *ctx, const ari_variable *v)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, v->container, "container");
    int64_t type = container ? require(w, w->types, v->type, "variable type") : 0;
    if (!type)
        return -1;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(container), ari_arg_int(type), ari_arg_real(v->start),
                      ari_arg_real(v->end), ari_arg_real(v->value)};
    return insert_timed(w,
                        "INSERT INTO variables(trace_id, container_id, type_id, start, end, value)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        args, ARI_NARGS(args), v->start, v->end, &w->counts.variables, "insert variable");
}

static int on_link(void *ctx, const ari_link *l)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0)
        return -1;
    if (w->skip_links) {
        w->counts.links++;
        widen_span(w, l->start, l->end);
        return 0;
    }
    int64_t container = require(w, w->containers, l->container, "container");
    int64_t from = container ? require(w, w->containers, l->start_container, "container") : 0;
    int64_t to = from ? require(w, w->containers, l->end_container, "container") : 0;
    int64_t type = to ? require(w, w->types, l->type, "link type") : 0;
    int64_t value = type ? intern_name(w, l->value ? l->value : "") : 0;
    ari_arg fields;
    if (!value || fields_arg(w, l->fields, l->nfields, &fields) < 0)
        return -1;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(container), ari_arg_int(type), ari_arg_int(value),
                      ari_arg_int(from), ari_arg_int(to), ari_arg_text(l->key ? l->key : ""),
                      ari_arg_real(l->start), ari_arg_real(l->end), fields};
    return insert_timed(w,
                        "INSERT INTO links(trace_id, container_id, type_id, value_id, start_container_id,"
                        " end_container_id, key, start, end, fields)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        args, ARI_NARGS(args), l->start, l->end, &w->counts.links, "insert link");
}

/* An event into the writer's event chunks (ari_trace_writer_pack_events)
 * instead of a row: the same numbers, its fields' JSON text. */
static int pack_event(ari_trace_writer *w, int64_t container, int64_t type, int64_t value, double time,
                      const ari_arg *fields)
{
    if (value > INT32_MAX || type > INT32_MAX)
        return ari_error_set(&w->error, ARI_E_TOO_LARGE, "more than %d event values or types", INT32_MAX);
    const char *text = fields->type == ARI_NULL ? NULL : w->buf;
    ari_packed_event pe = {w->counts.events, container, (int32_t)type, (int32_t)value, time, text,
                           text ? strlen(text) : 0};
    w->counts.events++;
    widen_span(w, time, time);
    return ari_event_packer_add(w->event_packer, &pe, &w->error);
}

static int on_event(void *ctx, const ari_event *e)
{
    ari_trace_writer *w = ctx;
    if (tick(w) < 0)
        return -1;
    int64_t container = require(w, w->containers, e->container, "container");
    int64_t type = container ? require(w, w->types, e->type, "event type") : 0;
    int64_t value = type ? intern_name(w, e->value ? e->value : "") : 0;
    ari_arg fields;
    if (!value || fields_arg(w, e->fields, e->nfields, &fields) < 0)
        return -1;
    if (w->event_packer)
        return pack_event(w, container, type, value, e->time, &fields);
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(container), ari_arg_int(type), ari_arg_int(value),
                      ari_arg_real(e->time), fields, ari_arg_int(w->counts.events)};
    return insert_timed(w,
                        "INSERT INTO events(trace_id, container_id, type_id, value_id, time, fields, seq)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        args, ARI_NARGS(args), e->time, e->time, &w->counts.events, "insert event");
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
    ari_stmt *st = ari_store_stmt_id(w->store,
        "INSERT INTO containers(trace_id, id, parent_id, type_id, alias, name, start, end)"
        " VALUES (?1, 1, NULL, NULL, '0', '0', 0, 0)", w->id, err);
    if (!st || ari_store_write(w->store, st, "insert root container", err) < 0)
        return -1;
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
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(c->types), ari_arg_int(c->containers),
                      ari_arg_int(c->states), ari_arg_int(c->variables), ari_arg_int(c->links),
                      ari_arg_int(c->events), ari_arg_real(timed ? w->t_min : 0),
                      ari_arg_real(timed ? w->t_max : 0)};
    return ari_store_run(w->store,
        "UPDATE traces SET counts_json = json_patch(counts_json, json_object('types', ?2,"
        "  'containers', ?3, 'states', ?4, 'variables', ?5, 'links', ?6, 'events', ?7)),"
        " summary_json = json_patch(summary_json, json_object('start', ?8, 'end', ?9,"
        "  'duration', ?9 - ?8, 'containers', ?3, 'time_unit', time_unit))"
        " WHERE id = ?1", args, ARI_NARGS(args), "update trace counts", err);
}

int ari_trace_writer_pack_states(ari_trace_writer *w, ari_error *err)
{
    if (!w->packer && !(w->packer = ari_state_packer_new(w->store, w->id, err)))
        return -1;
    return 0;
}

int ari_trace_writer_pack_events(ari_trace_writer *w, ari_error *err)
{
    if (!w->event_packer && !(w->event_packer = ari_event_packer_new(w->store, w->id, err)))
        return -1;
    return 0;
}

void ari_trace_writer_skip_links(ari_trace_writer *w)
{
    w->skip_links = 1;
}

int ari_trace_sink_finish(ari_trace_writer *w, ari_error *err)
{
    if (w->packer && ari_state_packer_finish(w->packer, err) < 0)
        return -1;
    if (w->event_packer && ari_event_packer_finish(w->event_packer, err) < 0)
        return -1;
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
    ari_state_packer_free(w->packer);
    w->packer = NULL;
    ari_event_packer_free(w->event_packer);
    w->event_packer = NULL;
    ari_task_writer_free(w);
}
