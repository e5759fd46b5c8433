/* state_queries.c: the rows, states, value names and links of a trace's
 * timeline (see state_queries.h). The (container, state type) pairs that
 * hold states come from one pass over the trace's states, kept in the
 * analysis cache (they never change after the import). */
#include "store/state_queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/analysis_cache.h"
#include "store/message_chunks.h"
#include "store/state_chunks.h"
#include "store/store_internal.h"
#include "util/vec.h"

#define PAIRS_ANALYSIS "state_rows.pairs@1"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static int trace_exists(ari_store *s, int64_t id, ari_error *err)
{
    int64_t one = 0;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT 1 FROM traces WHERE id = ?1", id, err);
    if (!st)
        return -1;
    return ari_store_query_int64(s, st, &one, "reading the trace", err);
}

/* ---- the container tree ---- */

typedef struct cont {
    int64_t id, parent, type;
    char *name;
} cont;

typedef struct ctree {
    cont *c; /* by id */
    size_t n, cap;
    size_t *order; /* preorder, indices into c */
    int *level;    /* [n] */
    char **path;   /* [n] */
} ctree;

static void ctree_free(ctree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->c[i].name);
        if (t->path)
            free(t->path[i]);
    }
    free(t->c);
    free(t->order);
    free(t->level);
    free(t->path);
}

static int64_t find_ix(const ctree *t, int64_t id)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->c[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->c[lo].id == id ? (int64_t)lo : -1;
}

static int load_containers(ari_store *s, int64_t id, ctree *t, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT id, coalesce(parent_id, -1), coalesce(type_id, -1), name FROM containers"
                          " WHERE trace_id = ?1 ORDER BY id",
                          id, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *name = (const char *)ari_col_text(st, 3);
        if (ari_vec_reserve((void **)&t->c, &t->cap, t->n + 1, sizeof *t->c) < 0 ||
            !(t->c[t->n].name = strdup(name ? name : ""))) {
            ari_reset(st);
            return nomem(err);
        }
        t->c[t->n].id = ari_col_int64(st, 0);
        t->c[t->n].parent = ari_col_int64(st, 1);
        t->c[t->n].type = ari_col_int64(st, 2);
        t->n++;
    }
    return ari_store_rows_end(s, st, rc, "reading containers", err);
}

/* The path of container i: its parent's path (none for the root and its
 * children's parent "0") and its name. */
static char *make_path(const ctree *t, int64_t parent_ix, const char *name)
{
    const char *head = parent_ix >= 0 && t->level[parent_ix] > 0 ? t->path[parent_ix] : NULL;
    size_t len = (head ? strlen(head) + 3 : 0) + strlen(name) + 1;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s%s", head ? head : "", head ? " / " : "", name);
    return p;
}

/* Children of each container in CSR form (first[i] .. first[i + 1] in
 * child), in id order; roots (no parent in the tree) in *roots. */
static int ctree_children(const ctree *t, size_t **first, size_t **child, size_t *nroots)
{
    size_t n = t->n;
    int64_t *pix = malloc((n + 1) * sizeof *pix);
    *first = calloc(n + 2, sizeof **first);
    *child = malloc((n + 1) * sizeof **child);
    if (!pix || !*first || !*child) {
        free(pix);
        return -1;
    }
    *nroots = 0;
    for (size_t i = 0; i < n; i++) {
        pix[i] = t->c[i].parent >= 0 ? find_ix(t, t->c[i].parent) : -1;
        if (pix[i] == (int64_t)i)
            pix[i] = -1;
        (*first)[(pix[i] >= 0 ? (size_t)pix[i] : n) + 1]++;
    }
    for (size_t i = 0; i <= n; i++)
        (*first)[i + 1] += (*first)[i];
    size_t *fill = malloc((n + 1) * sizeof *fill);
    if (!fill) {
        free(pix);
        return -1;
    }
    memcpy(fill, *first, (n + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++) /* slot n holds the roots */
        (*child)[fill[pix[i] >= 0 ? (size_t)pix[i] : n]++] = i;
    *nroots = (*first)[n + 1] - (*first)[n];
    free(fill);
    free(pix);
    return 0;
}

/* Preorder (children in id order), levels and paths. Returns the number
 * of containers reached (a cycle leaves some out), or -1. */
static int64_t ctree_order(ctree *t, ari_error *err)
{
    size_t n = t->n, k = 0, top = 0, nroots;
    size_t *first = NULL, *child = NULL, *stack = malloc((n + 1) * sizeof *stack);
    t->order = malloc((n + 1) * sizeof *t->order);
    t->level = calloc(n + 1, sizeof *t->level);
    t->path = calloc(n + 1, sizeof *t->path);
    int64_t *parent_of = malloc((n + 1) * sizeof *parent_of);
    if (!stack || !t->order || !t->level || !t->path || !parent_of ||
        ctree_children(t, &first, &child, &nroots) < 0) {
        free(stack), free(first), free(child), free(parent_of);
        return nomem(err);
    }
    for (size_t r = first[n + 1]; r-- > first[n];) {
        stack[top++] = child[r];
        parent_of[child[r]] = -1;
    }
    while (top > 0) {
        size_t i = stack[--top];
        int64_t p = parent_of[i];
        t->level[i] = p >= 0 ? t->level[p] + 1 : 0;
        if (!(t->path[i] = make_path(t, p, t->c[i].name))) {
            free(stack), free(first), free(child), free(parent_of);
            return nomem(err);
        }
        t->order[k++] = i;
        for (size_t j = first[i + 1]; j-- > first[i] && top < n;) {
            stack[top++] = child[j];
            parent_of[child[j]] = (int64_t)i;
        }
    }
    free(stack), free(first), free(child), free(parent_of);
    return (int64_t)k;
}

/* ---- the (container, state type) pairs that hold states ---- */

typedef struct pair {
    int64_t container, type;
} pair;

static int by_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->container != y->container)
        return x->container < y->container ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

/* The pairs as a JSON array of [container, type], from the cache or from
 * one pass over the trace's states and state chunks (then cached). */
static int pairs_text(ari_store *s, int64_t id, char **out, ari_error *err)
{
    int rc = ari_cache_get(s, id, PAIRS_ANALYSIS, "", out, err);
    if (rc <= 0)
        return rc;
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT json_group_array(json_array(container_id, type_id)) FROM"
        " (SELECT container_id, type_id FROM states WHERE trace_id = ?1 GROUP BY container_id, type_id"
        "  UNION SELECT container_id, type_id FROM state_chunks WHERE trace_id = ?1)",
        id, err);
    if (!st || ari_store_query_text(s, st, out, err) != 0)
        return -1;
    ari_cache_put(s, id, PAIRS_ANALYSIS, "", *out);
    return 0;
}

static int load_pairs(ari_store *s, int64_t id, pair **out, size_t *n, ari_error *err)
{
    char *text = NULL;
    if (pairs_text(s, id, &text, err) < 0)
        return -1;
    ari_arg args[] = {ari_arg_raw_text(text)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)", args, 1,
        err);
    free(text);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    *n = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)out, &cap, *n + 1, sizeof **out) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        (*out)[(*n)++] = (pair){ari_col_int64(st, 0), ari_col_int64(st, 1)};
    }
    if (ari_store_rows_end(s, st, rc, "reading the state rows", err) < 0)
        return -1;
    if (*n > 1)
        qsort(*out, *n, sizeof **out, by_pair);
    return 0;
}

/* ---- rows ---- */

static int listed(const int64_t *ids, size_t n, int64_t id)
{
    if (!ids || n == 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

static char *type_name(ari_store *s, int64_t id, int64_t type, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(type)};
    ari_stmt *st = ari_store_bound(s, "SELECT name FROM entity_types WHERE trace_id = ?1 AND id = ?2",
                                       args, ARI_NARGS(args), err);
    char *name = NULL;
    if (!st || ari_store_query_string(s, st, "", &name, "reading a state type", err) < 0)
        return NULL;
    return name ? name : strdup("");
}

static int add_row(ari_store *s, int64_t id, const ctree *t, size_t i, int64_t type, ari_sq_rows *out,
                   size_t *cap, ari_error *err)
{
    if (ari_vec_reserve((void **)&out->rows, cap, (size_t)out->n + 1, sizeof *out->rows) < 0)
        return nomem(err);
    ari_sq_row *r = &out->rows[out->n];
    memset(r, 0, sizeof *r);
    r->container_id = t->c[i].id;
    r->type_id = type;
    r->level = t->level[i];
    r->name = strdup(t->c[i].name);
    r->path = strdup(t->path[i]);
    r->type_name = type_name(s, id, type, err);
    out->n++;
    if (!r->name || !r->path)
        return nomem(err);
    return r->type_name ? 0 : -1;
}

static int extent(ari_store *s, int64_t id, ari_sq_rows *out, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT min(start), max(end) FROM containers WHERE trace_id = ?1 AND parent_id IS NOT NULL", id,
        err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "reading the extent", err);
    if (rc < 0)
        return -1;
    out->start = rc == 0 && ari_col_type(st, 0) != ARI_NULL ? ari_col_double(st, 0) : NAN;
    out->end = rc == 0 && ari_col_type(st, 1) != ARI_NULL ? ari_col_double(st, 1) : NAN;
    if (rc == 0)
        ari_reset(st);
    return 0;
}

int ari_sq_rows_load(ari_store *s, int64_t id, const int64_t *containers, size_t ncontainers,
                     const int64_t *types, size_t ntypes, ari_sq_rows *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = trace_exists(s, id, err);
    if (rc != 0)
        return rc;
    ctree t = {0};
    pair *pairs = NULL;
    size_t npairs = 0, cap = 0;
    int64_t reached = -1;
    if (extent(s, id, out, err) < 0 || load_containers(s, id, &t, err) < 0 ||
        load_pairs(s, id, &pairs, &npairs, err) < 0 || (reached = ctree_order(&t, err)) < 0)
        goto fail;
    for (int64_t k = 0; k < reached; k++) {
        size_t i = t.order[k];
        if (!listed(containers, ncontainers, t.c[i].id))
            continue;
        pair key = {t.c[i].id, INT64_MIN};
        size_t lo = 0, hi = npairs;
        while (lo < hi) { /* first pair of this container */
            size_t mid = (lo + hi) / 2;
            if (by_pair(&pairs[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < npairs && pairs[lo].container == t.c[i].id; lo++)
            if (listed(types, ntypes, pairs[lo].type) &&
                add_row(s, id, &t, i, pairs[lo].type, out, &cap, err) < 0)
                goto fail;
    }
    free(pairs);
    ctree_free(&t);
    return 0;
fail:
    free(pairs);
    ctree_free(&t);
    ari_sq_rows_free(out);
    return -1;
}

void ari_sq_rows_free(ari_sq_rows *r)
{
    for (int64_t i = 0; r->rows && i < r->n; i++) {
        free(r->rows[i].name);
        free(r->rows[i].path);
        free(r->rows[i].type_name);
    }
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

/* ---- the rows' states ---- */

/* One row's states from `states` (a trace without state chunks). */
static int row_state_rows(ari_store *s, int64_t id, const ari_sq_row *row, double t0, double t1,
                          ari_gantt_state **out, int64_t *n, int *max_value, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(row->container_id), ari_arg_int(row->type_id),
                      ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT value_id, depth, start, end FROM states WHERE trace_id = ?1 AND container_id = ?2"
        " AND start <= ?5 AND end >= ?4 AND type_id = ?3 ORDER BY start, depth, rowid",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t v = ari_col_int64(st, 0);
        if (ari_vec_reserve((void **)out, &cap, (size_t)*n + 1, sizeof **out) < 0 || v < 0 || v > INT32_MAX) {
            ari_reset(st);
            free(*out);
            *out = NULL;
            return v < 0 || v > INT32_MAX
                       ? ari_error_set(err, ARI_E_DB, "state value id %lld out of range", (long long)v)
                       : nomem(err);
        }
        (*out)[(*n)++] = (ari_gantt_state){(int)v, ari_col_int(st, 1), ari_col_double(st, 2),
                                           ari_col_double(st, 3)};
        if ((int)v > *max_value)
            *max_value = (int)v;
    }
    if (ari_store_rows_end(s, st, rc, "reading states", err) < 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* Rows are read READER_ROWS at a time (those of one state type in a row),
 * their state chunks in a few statements (ari_state_chunks_batch) rather
 * than two or three per row, which on a shard are round trips; at most
 * READER_STATES states are held beyond the row asked for. */
#define READER_ROWS   64
#define READER_STATES ((int64_t)1 << 20)

typedef struct held_row {
    int what; /* ARI_CHUNKS_* */
    ari_gantt_state *st;
    int64_t n;
    int max_value;
} held_row;

struct ari_sq_reader {
    ari_store *s;
    int64_t id;
    const ari_sq_row *rows;
    int64_t nrows;
    double t0, t1;
    int64_t first, end; /* the rows held: [first, end) */
    int64_t held_states, max_held; /* max_held: READER_STATES */
    held_row held[READER_ROWS];
    int64_t containers[READER_ROWS];
};

ari_sq_reader *ari_sq_reader_new(ari_store *s, int64_t id, const ari_sq_row *rows, int64_t n, double t0, double t1,
                                 ari_error *err)
{
    ari_sq_reader *r = calloc(1, sizeof *r);
    if (!r) {
        nomem(err);
        return NULL;
    }
    *r = (ari_sq_reader){.s = s, .id = id, .rows = rows, .nrows = n, .t0 = t0, .t1 = t1, .max_held = READER_STATES};
    return r;
}

void ari_sq_reader_limit(ari_sq_reader *r, int64_t states)
{
    r->max_held = states;
}

static void release(ari_sq_reader *r)
{
    for (int64_t k = 0; k < r->end - r->first; k++)
        free(r->held[k].st);
    r->first = r->end = 0;
    r->held_states = 0;
}

void ari_sq_reader_free(ari_sq_reader *r)
{
    if (r)
        release(r);
    free(r);
}

/* ari_state_chunks_batch's callback: keeps a row, or stops before one
 * that would hold more than READER_STATES in all. */
static int hold(void *ctx, size_t i, int what, ari_gantt_state *st, int64_t n, int max_value, ari_error *err)
{
    (void)err;
    ari_sq_reader *r = ctx;
    if (i > 0 && r->held_states + n > r->max_held) {
        free(st);
        r->end = r->first + (int64_t)i;
        return 1;
    }
    r->held[i] = (held_row){what, st, n, max_value};
    r->held_states += n;
    return 0;
}

/* Reads rows from i on, of i's state type. */
static int load(ari_sq_reader *r, int64_t i, ari_error *err)
{
    release(r);
    int64_t type = r->rows[i].type_id, j = i;
    for (; j < r->nrows && j - i < READER_ROWS && r->rows[j].type_id == type; j++) {
        r->containers[j - i] = r->rows[j].container_id;
        r->held[j - i] = (held_row){0};
    }
    r->first = i;
    r->end = j;
    if (ari_state_chunks_batch(r->s, r->id, type, r->containers, (size_t)(j - i), r->t0, r->t1, 0, r->max_held,
                               hold, r, err) < 0) {
        release(r);
        return -1;
    }
    return 0;
}

int ari_sq_reader_row(ari_sq_reader *r, int64_t i, ari_gantt_state **out, int64_t *n, int *max_value,
                      ari_error *err)
{
    *out = NULL;
    *n = 0;
    *max_value = 0;
    if (i < 0 || i >= r->nrows)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "internal error: row %lld of %lld", (long long)i,
                             (long long)r->nrows);
    if ((i < r->first || i >= r->end) && load(r, i, err) < 0)
        return -1;
    held_row *h = &r->held[i - r->first];
    const ari_sq_row *row = &r->rows[i];
    switch (h->what) {
    case ARI_CHUNKS_READ: /* handed over: asked again, the row is read alone */
        *out = h->st, *n = h->n, *max_value = h->max_value;
        *h = (held_row){.what = ARI_CHUNKS_LARGE};
        return 0;
    case ARI_CHUNKS_LARGE: /* unsorted: the row's rendering sorts the window's states itself */
        return ari_state_chunks_read(r->s, r->id, row->container_id, row->type_id, r->t0, r->t1, 0, out, n,
                                     max_value, err) < 0
                   ? -1
                   : 0;
    default:
        return row_state_rows(r->s, r->id, row, r->t0, r->t1, out, n, max_value, err);
    }
}

int ari_sq_value(ari_store *s, int64_t id, int64_t value_id, char **name, char **color, ari_error *err)
{
    *name = *color = NULL;
    ari_arg args[] = {ari_arg_int(id), ari_arg_int(value_id)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT n.name, (SELECT e.color FROM entity_types e WHERE e.trace_id = ?1 AND e.nature = 'value'"
        "   AND (e.name = n.name OR e.alias = n.name) AND e.color IS NOT NULL ORDER BY e.id LIMIT 1)"
        " FROM names n WHERE n.trace_id = ?1 AND n.id = ?2",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "reading a state value", err);
    if (rc != 0)
        return rc;
    const char *nm = (const char *)ari_col_text(st, 0), *c = (const char *)ari_col_text(st, 1);
    *name = strdup(nm ? nm : "");
    *color = c ? strdup(c) : NULL;
    ari_reset(st);
    if (!*name || (c && !*color)) {
        free(*name), free(*color);
        *name = *color = NULL;
        return nomem(err);
    }
    return 0;
}

int ari_sq_time_origin(ari_store *s, int64_t id, double *origin, ari_error *err)
{
    *origin = 0;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT json_extract(summary_json, '$.time_origin') FROM traces WHERE id = ?1", id, err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "reading the time origin", err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (ari_col_type(st, 0) != ARI_NULL)
            *origin = ari_col_double(st, 0);
        ari_reset(st);
    }
    return 0;
}

/* ---- links ---- */

static int link_end(ari_stmt *st, int col, ari_sq_end *e)
{
    const char *name = (const char *)ari_col_text(st, col + 1);
    e->container_id = ari_col_int64(st, col);
    e->name = strdup(name ? name : "");
    e->worker_id = ari_col_type(st, col + 2) == ARI_NULL ? -1 : ari_col_int64(st, col + 2);
    e->node = ari_col_type(st, col + 3) == ARI_NULL ? -1 : ari_col_int64(st, col + 3);
    return e->name ? 0 : -1;
}

static int read_link(ari_stmt *st, ari_sq_link *l)
{
    const char *type = (const char *)ari_col_text(st, 2),
               *value = (const char *)ari_col_text(st, 3),
               *key = (const char *)ari_col_text(st, 4);
    memset(l, 0, sizeof *l);
    l->start = ari_col_double(st, 0);
    l->end = ari_col_double(st, 1);
    l->type = strdup(type ? type : "");
    l->value = strdup(value ? value : "");
    l->key = strdup(key ? key : "");
    int a = link_end(st, 5, &l->from), b = link_end(st, 9, &l->to);
    return l->type && l->value && l->key && a == 0 && b == 0 ? 0 : -1;
}

static void link_free(ari_sq_link *l)
{
    free(l->type), free(l->value), free(l->key), free(l->from.name), free(l->to.name);
}

#define LINK_WHERE " WHERE l.trace_id = ?1 AND (?3 IS NULL OR l.start < ?3) AND (?2 IS NULL OR l.end >= ?2)"

#define PAJE_LINKS                                                                                                \
    "SELECT l.start, l.end, t.name, n.name, l.key,"                                                               \
    " a.id, a.name, wa.container_id, wa.node, b.id, b.name, wb.container_id, wb.node"                             \
    " FROM links l"                                                                                               \
    " LEFT JOIN entity_types t ON t.trace_id = l.trace_id AND t.id = l.type_id"                                   \
    " LEFT JOIN names n ON n.trace_id = l.trace_id AND n.id = l.value_id"                                         \
    " LEFT JOIN containers a ON a.trace_id = l.trace_id AND a.id = l.start_container_id"                         \
    " LEFT JOIN workers wa ON wa.trace_id = l.trace_id AND wa.container_id = l.start_container_id"               \
    " LEFT JOIN containers b ON b.trace_id = l.trace_id AND b.id = l.end_container_id"                           \
    " LEFT JOIN workers wb ON wb.trace_id = l.trace_id AND wb.container_id = l.end_container_id" LINK_WHERE      \
    " ORDER BY l.start, l.rowid LIMIT ?4" /* links_by_start's order, on both backends */

/* 1 when the trace is an event trace (its links are its messages), 0, -1. */
static int has_messages(ari_store *s, int64_t id, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT EXISTS (SELECT 1 FROM ev_locations WHERE trace_id = ?1)", id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "checking the trace's messages", err) < 0)
        return -1;
    return any != 0;
}

/* An event trace's links are its matched messages (message_chunks.h; the
 * import stores no `links` rows for them), shaped as the Paje link of
 * type "Message" that event_paje describes: key "m<seq>", its ends the
 * Thread containers (id 0 and no name if one is missing). */
typedef struct named {
    int64_t id;
    char *name;
} named;

typedef struct message_links {
    ari_store *s;
    int64_t id, limit;
    const char *type; /* the link type's name */
    ari_sq_links *out;
    size_t cap;
    int full;
    ari_error *err;
    named *locations; /* the trace's locations' containers, by id */
    size_t nlocations;
} message_links;

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static void locations_free(message_links *m)
{
    for (size_t i = 0; i < m->nlocations; i++)
        free(m->locations[i].name);
    free(m->locations);
    m->locations = NULL;
    m->nlocations = 0;
}

static int location_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    named *x = item;
    const char *name = (const char *)ari_col_text(st, 1);
    x->id = ari_col_int64(st, 0);
    x->name = strdup(name ? name : "");
    return x->name ? 0 : -1;
}

/* The names of the trace's locations (the messages' ends), read once
 * rather than twice per message. */
static int locations_load(message_links *m)
{
    ari_stmt *st = ari_store_stmt_id(m->s,
                                     "SELECT c.id, c.name FROM ev_locations l JOIN containers c"
                                     " ON c.trace_id = l.trace_id AND c.id = l.container_id WHERE l.trace_id = ?1",
                                     m->id, m->err);
    if (!st || ari_store_read_rows(m->s, st, (void **)&m->locations, &m->nlocations, sizeof *m->locations,
                                   location_read, NULL, "reading the trace's locations", m->err) < 0) {
        locations_free(m);
        return -1;
    }
    if (m->nlocations > 1)
        qsort(m->locations, m->nlocations, sizeof *m->locations, cmp_named);
    return 0;
}

static int message_end(message_links *m, int64_t container, ari_sq_end *e)
{
    named key = {container, NULL};
    const named *loc = m->nlocations ? bsearch(&key, m->locations, m->nlocations, sizeof key, cmp_named) : NULL;
    if (loc) {
        *e = (ari_sq_end){.container_id = loc->id, .worker_id = -1, .node = -1, .name = strdup(loc->name)};
        return e->name ? 0 : nomem(m->err);
    }
    ari_arg args[] = {ari_arg_int(m->id), ari_arg_int(container)};
    ari_stmt *st = ari_store_bound(m->s, "SELECT id, name FROM containers WHERE trace_id = ?1 AND id = ?2", args,
                                       ARI_NARGS(args), m->err);
    int rc = st ? ari_store_step_row(m->s, st, "reading a link's container", m->err) : -1;
    if (rc < 0)
        return -1;
    const char *name = rc == 0 ? (const char *)ari_col_text(st, 1) : NULL;
    e->container_id = rc == 0 ? ari_col_int64(st, 0) : 0;
    e->name = strdup(name ? name : "");
    e->worker_id = e->node = -1;
    if (rc == 0)
        ari_reset(st);
    return e->name ? 0 : nomem(m->err);
}

static int message_link(void *ctx, int64_t seq, const ari_ec_message *msg)
{
    message_links *m = ctx;
    if (m->limit >= 0 && m->out->n >= m->limit) {
        m->full = 1;
        return 1;
    }
    if (ari_vec_reserve((void **)&m->out->links, &m->cap, (size_t)m->out->n + 1, sizeof *m->out->links) < 0)
        return nomem(m->err);
    ari_sq_link *l = &m->out->links[m->out->n++];
    char key[32];
    snprintf(key, sizeof key, "m%lld", (long long)seq);
    *l = (ari_sq_link){.start = msg->send_time, .end = msg->recv_time};
    l->type = strdup(m->type);
    l->value = strdup("message");
    l->key = strdup(key);
    if (!l->type || !l->value || !l->key)
        return nomem(m->err);
    return message_end(m, msg->src_container, &l->from) < 0 || message_end(m, msg->dst_container, &l->to) < 0
               ? -1
               : 0;
}

static int count_link(void *ctx, int64_t seq, const ari_ec_message *m)
{
    (void)seq, (void)m;
    ++*(int64_t *)ctx;
    return 0;
}

static int message_links_load(ari_store *s, int64_t id, double t0, double t1, int64_t limit, ari_sq_links *out,
                              ari_error *err)
{
    /* send_time < t1 (open when NAN) and recv_time >= t0 */
    ari_mc_filter f = {-HUGE_VAL, isnan(t1) ? HUGE_VAL : nextafter(t1, -HUGE_VAL), isnan(t0) ? -HUGE_VAL : t0};
    if (ari_message_chunks_each(s, id, &f, 0, 0, count_link, &out->total, err) < 0)
        return -1;
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT name FROM entity_types WHERE trace_id = ?1 AND nature = 'link' AND alias = 'M'", id, err);
    char *type = NULL;
    if (!st || ari_store_query_string(s, st, "", &type, "reading the message type", err) < 0)
        return -1;
    message_links m = {s, id, limit, type ? type : "", out, 0, 0, err, NULL, 0};
    int rc = limit == 0                 ? 0
             : locations_load(&m) < 0 ? -1
                                      : ari_message_chunks_each(s, id, &f, 1, ARI_MESSAGE_SORT_CAP, message_link, &m, err);
    locations_free(&m);
    free(type);
    if (rc != 0 && !m.full) {
        ari_sq_links_free(out);
        return -1;
    }
    return 0;
}

int ari_sq_links_load(ari_store *s, int64_t id, double t0, double t1, int64_t limit, ari_sq_links *out,
                      ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = trace_exists(s, id, err);
    if (rc != 0)
        return rc;
    int events = has_messages(s, id, err);
    if (events < 0)
        return -1;
    if (events)
        return message_links_load(s, id, t0, t1, limit, out, err);
    ari_arg args[] = {ari_arg_int(id), isnan(t0) ? ari_arg_null() : ari_arg_real(t0),
                      isnan(t1) ? ari_arg_null() : ari_arg_real(t1), ari_arg_int(limit)};
    ari_stmt *st = ari_store_bound(s, "SELECT count(*) FROM links l" LINK_WHERE, args, 3, err);
    if (!st || ari_store_query_int64(s, st, &out->total, "counting links", err) < 0)
        return -1;
    st = ari_store_bound(s, PAJE_LINKS, args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&out->links, &cap, (size_t)out->n + 1, sizeof *out->links) < 0 ||
            read_link(st, &out->links[out->n++]) < 0) {
            ari_reset(st);
            ari_sq_links_free(out);
            return nomem(err);
        }
    }
    if (ari_store_rows_end(s, st, rc, "reading links", err) < 0) {
        ari_sq_links_free(out);
        return -1;
    }
    return 0;
}

void ari_sq_links_free(ari_sq_links *l)
{
    for (int64_t i = 0; l->links && i < l->n; i++)
        link_free(&l->links[i]);
    free(l->links);
    l->links = NULL;
    l->n = 0;
}
