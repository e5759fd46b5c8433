/* csv_writer.c: the JSON-to-tidy-CSV flattener described in csv_writer.h
 * (levels walked, paths resolved, fields escaped). It knows no endpoint:
 * the tables are in csv_tables.c. */
#include "csv_writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum level_kind { LEVEL_ARRAY, LEVEL_COLUMNS, LEVEL_MEMBERS } level_kind;

typedef struct level_spec {
    char path[96];
    level_kind kind;
} level_spec;

/* Where the walk is at one level. */
typedef struct level_pos {
    const json_t *elem;    /* the element (NULL for a row of parallel arrays) */
    const json_t *columns; /* LEVEL_COLUMNS: the object of parallel arrays */
    size_t index;
    const char *key; /* LEVEL_MEMBERS: the member's key */
} level_pos;

typedef struct walk {
    const json_t *root;
    const ari_csv_table *t;
    level_spec levels[ARI_CSV_MAX_LEVELS];
    int nlevels;
    level_pos pos[ARI_CSV_MAX_LEVELS + 1]; /* pos[0] is the root */
    const char *time_unit;
    ari_sbuf *out; /* NULL: count only */
    long rows;
} walk;

static int path_level(const struct walk *w, const char *path, const char **rest);

/* Cuts t->rows into levels; -1 if it does not parse. */
static int parse_levels(walk *w)
{
    const char *s = w->t->rows;
    w->nlevels = 0;
    if (strcmp(s, ".") == 0)
        return 0;
    while (*s) {
        size_t n = strcspn(s, "[{*");
        if (w->nlevels == ARI_CSV_MAX_LEVELS || n >= sizeof w->levels[0].path)
            return -1;
        level_spec *l = &w->levels[w->nlevels++];
        size_t keep = n > 0 && s[n - 1] == '.' && s[n] == '*' ? n - 1 : n;
        memcpy(l->path, s, keep);
        l->path[keep] = '\0';
        if (strncmp(s + n, "[]", 2) == 0)
            l->kind = LEVEL_ARRAY;
        else if (strncmp(s + n, "{}", 2) == 0)
            l->kind = LEVEL_COLUMNS;
        else if (s[n] == '*')
            l->kind = LEVEL_MEMBERS;
        else
            return -1;
        s += n + (s[n] == '*' ? 1 : 2);
    }
    return w->nlevels > 0 ? 0 : -1;
}

/* The index of the level named by a path "#" or "@k#", -1 if it is not one. */
static long level_index(const walk *w, const char *path)
{
    const char *rest;
    int k = path_level(w, path, &rest);
    if (k <= 0 || strcmp(rest, "#") != 0)
        return -1;
    return (long)w->pos[k].index;
}

/* Follows ".key" and "[n]" segments from v. */
static const json_t *follow(const json_t *v, const char *p)
{
    while (v && *p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            v = *end == ']' && i >= 0 ? json_array_get(v, (size_t)i) : NULL;
            p = *end ? end + 1 : end;
            continue;
        }
        size_t n = strcspn(p, ".[");
        char key[96];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        v = json_object_get(v, key);
        p += n;
    }
    return v;
}

/* The level a path names ("@k..." or the deepest) and the rest of it. */
static int path_level(const struct walk *w, const char *path, const char **rest)
{
    if (path[0] == '@' && path[1] >= '0' && path[1] <= '9') {
        *rest = path + 2;
        int k = path[1] - '0';
        return k <= w->nlevels ? k : -1;
    }
    *rest = path;
    return w->nlevels;
}

/* The value at path for the current row (borrowed), NULL if absent. */
static const json_t *resolve(const walk *w, const char *path)
{
    const char *rest;
    int k = path_level(w, path, &rest);
    if (k < 0)
        return NULL;
    const level_pos *p = &w->pos[k];
    if (k > 0 && w->levels[k - 1].kind == LEVEL_COLUMNS) {
        while (*rest == '.')
            rest++;
        size_t n = strcspn(rest, ".[");
        char key[96];
        if (n == 0 || n >= sizeof key)
            return NULL;
        memcpy(key, rest, n);
        key[n] = '\0';
        return follow(json_array_get(json_object_get(p->columns, key), p->index), rest + n);
    }
    return follow(p->elem, rest);
}

void ari_csv_field(ari_sbuf *out, const char *text, int is_string)
{
    int formula = is_string && text[0] && strchr("=+-@\t\r", text[0]);
    int quote = strpbrk(text, ",\"\r\n") != NULL;
    if (quote)
        ari_sbuf_add_char(out, '"');
    if (formula)
        ari_sbuf_add_char(out, '\'');
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            ari_sbuf_add_char(out, '"');
        ari_sbuf_add_char(out, *c);
    }
    if (quote)
        ari_sbuf_add_char(out, '"');
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v: the JSON's
 * value without its binary noise (0.1, not 0.10000000000000001). */
static void write_real(ari_sbuf *out, double v)
{
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    ari_sbuf_add_str(out, buf);
}

static void write_json(ari_sbuf *out, const json_t *v)
{
    if (!v || json_is_null(v))
        return;
    if (json_is_string(v)) {
        ari_csv_field(out, json_string_value(v), 1);
    } else if (json_is_integer(v)) {
        ari_sbuf_printf(out, "%" PRId64, (int64_t)json_integer_value(v));
    } else if (json_is_real(v)) {
        write_real(out, json_real_value(v));
    } else if (json_is_boolean(v)) {
        ari_sbuf_add_str(out, json_is_true(v) ? "true" : "false");
    } else {
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (text)
            ari_csv_field(out, text, 0);
        free(text);
    }
}

/* "#": the index (or member key) of the path's level. */
static int write_index(const walk *w, const char *path)
{
    const char *rest;
    int k = path_level(w, path, &rest);
    if (k <= 0 || strcmp(rest, "#") != 0)
        return 0;
    if (w->levels[k - 1].kind == LEVEL_MEMBERS)
        ari_csv_field(w->out, w->pos[k].key, 1);
    else
        ari_sbuf_printf(w->out, "%zu", w->pos[k].index);
    return 1;
}

static void write_diff(const walk *w, const ari_csv_column *c)
{
    const json_t *a = resolve(w, c->path), *b = resolve(w, c->arg);
    if (json_is_number(a) && json_is_number(b))
        ari_sbuf_printf(w->out, "%.15g", json_number_value(a) - json_number_value(b)); /* no noise */
}

static void write_lookup(const walk *w, const ari_csv_column *c)
{
    long i = level_index(w, c->path);
    const json_t *v = i >= 0 ? NULL : resolve(w, c->path);
    if (i < 0 && !json_is_integer(v)) {
        write_json(w->out, v);
        return;
    }
    if (i < 0)
        i = (long)json_integer_value(v);
    const json_t *e = json_array_get(resolve(w, c->arg), (size_t)i);
    write_json(w->out, c->sub ? follow(e, c->sub) : e);
}

static void write_parallel(const walk *w, const ari_csv_column *c)
{
    const json_t *v = resolve(w, c->arg);
    for (int k = 1; k <= w->nlevels && v; k++)
        v = json_array_get(v, w->pos[k].index);
    write_json(w->out, v);
}

static void write_column(const walk *w, const ari_csv_column *c)
{
    if (c->op == ARI_CSV_DIFF)
        write_diff(w, c);
    else if (c->op == ARI_CSV_LOOKUP)
        write_lookup(w, c);
    else if (c->op == ARI_CSV_PARALLEL)
        write_parallel(w, c);
    else if (!write_index(w, c->path))
        write_json(w->out, strcmp(c->path, ".") == 0 ? w->pos[w->nlevels].elem : resolve(w, c->path));
}

static int row_kept(const walk *w)
{
    if (!w->t->where)
        return 1;
    const json_t *v = resolve(w, w->t->where);
    return json_is_string(v) && strcmp(json_string_value(v), w->t->equals) == 0;
}

static void write_row(walk *w)
{
    if (!row_kept(w))
        return;
    w->rows++;
    if (!w->out)
        return;
    for (int i = 0; i < ARI_CSV_MAX_COLUMNS && w->t->columns[i].name; i++) {
        if (i)
            ari_sbuf_add_char(w->out, ',');
        write_column(w, &w->t->columns[i]);
    }
    ari_sbuf_add_str(w->out, "\r\n");
}

/* The length of a level's collection (0 when it is not one). */
static size_t level_length(const json_t *coll, level_kind kind)
{
    if (kind == LEVEL_ARRAY)
        return json_is_array(coll) ? json_array_size(coll) : 0;
    if (kind == LEVEL_MEMBERS)
        return json_is_object(coll) ? json_object_size(coll) : 0;
    const char *key;
    const json_t *member;
    json_object_foreach((json_t *)coll, key,
                        member) if (json_is_array(member)) return json_array_size(member);
    return 0;
}

static void walk_level(walk *w, int k);

/* A path relative to level k's element. */
static const json_t *resolve_from(const walk *w, int k, const char *path)
{
    char full[128];
    snprintf(full, sizeof full, "@%d.%s", k, path);
    return resolve(w, full);
}

static void walk_members(walk *w, int k, const json_t *coll)
{
    const char *key;
    json_t *member;
    size_t i = 0;
    json_object_foreach((json_t *)coll, key, member)
    {
        w->pos[k + 1] = (level_pos){member, NULL, i++, key};
        walk_level(w, k + 1);
    }
}

/* Walks level k + 1 from the element at level k. */
static void walk_level(walk *w, int k)
{
    if (k >= w->nlevels || k >= ARI_CSV_MAX_LEVELS) {
        write_row(w);
        return;
    }
    const level_spec *l = &w->levels[k];
    const json_t *coll = l->path[0] ? resolve_from(w, k, l->path) : w->pos[k].elem;
    if (l->kind == LEVEL_MEMBERS && json_is_object(coll)) {
        walk_members(w, k, coll);
        return;
    }
    size_t n = level_length(coll, l->kind);
    for (size_t i = 0; i < n; i++) {
        if (l->kind == LEVEL_ARRAY)
            w->pos[k + 1] = (level_pos){json_array_get(coll, i), NULL, i, NULL};
        else
            w->pos[k + 1] = (level_pos){NULL, coll, i, NULL};
        walk_level(w, k + 1);
    }
}

static void write_header(walk *w)
{
    for (int i = 0; i < ARI_CSV_MAX_COLUMNS && w->t->columns[i].name; i++) {
        const ari_csv_column *c = &w->t->columns[i];
        const char *unit = c->unit && strcmp(c->unit, ARI_CSV_TIME) == 0 ? w->time_unit : c->unit;
        if (i)
            ari_sbuf_add_char(w->out, ',');
        ari_csv_field(w->out, c->name, 0);
        if (unit && unit[0]) {
            ari_sbuf_add_char(w->out, '_');
            ari_csv_field(w->out, unit, 0);
        }
    }
    ari_sbuf_add_str(w->out, "\r\n");
}

static int walk_begin(walk *w, const json_t *root, const ari_csv_table *t, ari_sbuf *out)
{
    memset(w, 0, sizeof *w);
    w->root = root;
    w->t = t;
    w->out = out;
    w->pos[0].elem = root;
    const json_t *unit = json_object_get(root, "time_unit");
    w->time_unit = json_is_string(unit) ? json_string_value(unit) : t->time_default;
    return parse_levels(w);
}

long ari_csv_write(const json_t *root, const ari_csv_table *t, ari_sbuf *out, ari_error *err)
{
    walk w;
    if (walk_begin(&w, root, t, out) < 0) {
        ari_error_set(err, ARI_E_INVALID_INPUT, "the CSV table '%s' has bad rows '%s'", t->name, t->rows);
        return -1;
    }
    write_header(&w);
    walk_level(&w, 0);
    if (ari_sbuf_failed(out)) {
        ari_error_set(err, ARI_E_NOMEM, "the CSV text of table '%s' could not be built", t->name);
        return -1;
    }
    return w.rows;
}

long ari_csv_count(const json_t *root, const ari_csv_table *t)
{
    walk w;
    if (walk_begin(&w, root, t, NULL) < 0)
        return 0;
    walk_level(&w, 0);
    return w.rows;
}
