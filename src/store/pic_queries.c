/* pic_queries.c: the hierarchy and per-slice state times of a trace for the
 * pIC aggregation (see pic_queries.h). */
#include "store/pic_queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/state_chunks.h"
#include "store/store_internal.h"
#include "util/free_all.h"
#include "util/vec.h"

#define MAX_DEPTH 64
#define MAX_TYPES 8

/* ---- building the node list ---- */

typedef struct builder {
    ari_pq_data *d;
    size_t parent_cap, nodes_cap;
    int64_t *leaf_container; /* [nleaves] */
    size_t leaf_cap;
} builder;

static int add_node(builder *b, int64_t parent, const char *name, const char *kind, int64_t container,
                    int64_t mpi_node, const char *restype)
{
    ari_pq_data *d = b->d;
    if (ari_vec_reserve((void **)&d->parent, &b->parent_cap, (size_t)d->n + 1, sizeof *d->parent) < 0 ||
        ari_vec_reserve((void **)&d->nodes, &b->nodes_cap, (size_t)d->n + 1, sizeof *d->nodes) < 0)
        return -1;
    ari_pq_node *n = &d->nodes[d->n];
    n->name = strdup(name ? name : "");
    n->kind = kind;
    n->container_id = container;
    n->mpi_node = mpi_node;
    n->resource_type = restype ? strdup(restype) : NULL;
    d->parent[d->n] = parent;
    if (!n->name || (restype && !n->resource_type))
        return -1;
    d->n++;
    return 0;
}

static int add_leaf(builder *b, int64_t parent, const char *name, const char *kind, int64_t container,
                    int64_t mpi_node, const char *restype)
{
    size_t need = (size_t)b->d->nleaves + 1;
    if (ari_vec_reserve((void **)&b->leaf_container, &b->leaf_cap, need, sizeof *b->leaf_container) < 0)
        return -1;
    b->leaf_container[b->d->nleaves++] = container;
    return add_node(b, parent, name, kind, container, mpi_node, restype);
}

/* ---- task traces: root > node > resource type > worker ---- */

static int task_hierarchy(ari_store *s, int64_t id, const char *trace_name, builder *b, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s,
        "SELECT container_id, node, resource_type, name FROM workers WHERE trace_id = ?1"
        " ORDER BY node, resource_type, length(resource), resource", id, err);
    if (!st)
        return -1;
    if (add_node(b, -1, trace_name, "trace", -1, -1, NULL) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int64_t node_at = -1, rt_at = -1, cur_node = INT64_MIN;
    char cur_rt[64] = "";
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t node = ari_col_int64(st, 1);
        const char *rt = (const char *)ari_col_text(st, 2);
        const char *name = (const char *)ari_col_text(st, 3);
        rt = rt ? rt : "";
        char label[64];
        int fail = 0;
        if (node != cur_node) {
            snprintf(label, sizeof label, "node %lld", (long long)node);
            node_at = b->d->n;
            fail |= add_node(b, 0, label, "node", -1, node, NULL);
            cur_node = node;
            cur_rt[0] = '\0';
            rt_at = -1;
        }
        if (rt_at < 0 || strcmp(rt, cur_rt) != 0) {
            snprintf(cur_rt, sizeof cur_rt, "%s", rt);
            rt_at = b->d->n;
            fail |= add_node(b, node_at, rt, "resource_type", -1, node, rt);
        }
        fail |= add_leaf(b, rt_at, name, "worker", ari_col_int64(st, 0), node, rt);
        if (fail) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    return ari_store_rows_end(s, st, rc, "reading workers", err);
}

/* ---- Paje traces: the container tree ---- */

/* A container; parent as an index into the tree, -1 for none. */
typedef struct cnode {
    int64_t id, parent_ix;
    char *name;
    unsigned char has_states, keep;
} cnode;

typedef struct ctree {
    int64_t n;
    cnode *node;                  /* by id */
    int64_t *child_start, *child; /* CSR children */
} ctree;

static void ctree_free(ctree *c)
{
    for (int64_t i = 0; i < c->n; i++)
        free(c->node[i].name);
    void *owned[] = {c->node, c->child_start, c->child};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int64_t find_ix(const ctree *c, int64_t id)
{
    int64_t lo = 0, hi = c->n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (c->node[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->node[lo].id == id ? lo : -1;
}

static int load_containers(ari_store *s, int64_t trace, ctree *c, ari_error *err)
{
    int64_t n = 0;
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT count(*) FROM containers WHERE trace_id = ?1", trace, err);
    if (!st || ari_store_query_int64(s, st, &n, "reading containers", err) < 0)
        return -1;
    c->node = calloc((size_t)(n + 1), sizeof *c->node);
    if (!c->node)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld containers", (long long)n);
    st = ari_store_stmt_id(s, "SELECT id, parent_id, name FROM containers WHERE trace_id = ?1 ORDER BY id",
                           trace, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW && c->n < n) {
        cnode *x = &c->node[c->n++];
        x->id = ari_col_int64(st, 0);
        x->parent_ix = ari_col_type(st, 1) == ARI_NULL ? -1 : ari_col_int64(st, 1);
        const char *name = (const char *)ari_col_text(st, 2);
        x->name = strdup(name ? name : "");
    }
    ari_reset(st);
    for (int64_t i = 0; i < c->n; i++) /* parent ids to indices */
        c->node[i].parent_ix = c->node[i].parent_ix < 0 ? -1 : find_ix(c, c->node[i].parent_ix);
    return rc == ARI_ROW || rc == ARI_DONE ? 0 : ari_store_fail(s, err, "reading containers");
}

static int mark_states(ari_store *s, int64_t trace, ctree *c, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT DISTINCT container_id FROM states WHERE trace_id = ?1"
                          " UNION SELECT container_id FROM state_chunks WHERE trace_id = ?1",
                          trace, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t ix = find_ix(c, ari_col_int64(st, 0));
        if (ix >= 0)
            c->node[ix].has_states = 1;
    }
    return ari_store_rows_end(s, st, rc, "reading states", err);
}

/* Children in CSR form; a container whose parent is unknown is a root. */
static int build_children(ctree *c)
{
    c->child_start = calloc((size_t)c->n + 2, sizeof *c->child_start);
    c->child = malloc(((size_t)c->n + 1) * sizeof *c->child);
    if (!c->child_start || !c->child)
        return -1;
    for (int64_t i = 0; i < c->n; i++)
        if (c->node[i].parent_ix >= 0)
            c->child_start[c->node[i].parent_ix + 2]++;
    for (int64_t i = 0; i < c->n; i++)
        c->child_start[i + 2] += c->child_start[i + 1];
    for (int64_t i = 0; i < c->n; i++)
        if (c->node[i].parent_ix >= 0)
            c->child[c->child_start[c->node[i].parent_ix + 1]++] = i;
    return 0;
}

/* keep = has states in the subtree; walks from every root with an explicit
 * stack (post-order by a second visit), so a cycle is never entered. */
static int mark_keep(ctree *c, int64_t *stack)
{
    unsigned char *seen = calloc((size_t)c->n + 1, 1);
    if (!seen)
        return -1;
    for (int64_t r = 0; r < c->n; r++) {
        if (c->node[r].parent_ix >= 0)
            continue;
        int64_t top = 0;
        stack[top++] = r;
        while (top > 0) {
            int64_t x = stack[top - 1];
            if (!seen[x]) {
                seen[x] = 1;
                for (int64_t k = c->child_start[x + 1] - 1; k >= c->child_start[x]; k--)
                    if (!seen[c->child[k]] && top < c->n)
                        stack[top++] = c->child[k];
                continue;
            }
            top--;
            c->node[x].keep |= c->node[x].has_states;
            if (c->node[x].keep && c->node[x].parent_ix >= 0)
                c->node[c->node[x].parent_ix].keep = 1;
        }
    }
    free(seen);
    return 0;
}

static int kept_children(const ctree *c, int64_t x)
{
    int k = 0;
    for (int64_t j = c->child_start[x]; j < c->child_start[x + 1]; j++)
        k += c->node[c->child[j]].keep;
    return k;
}

/* Emits the kept containers in preorder under `parent`. */
static int emit_tree(const ctree *c, builder *b, int64_t root, int64_t parent, int64_t *stack, int64_t *at)
{
    int64_t top = 0;
    stack[top] = root;
    at[top++] = parent;
    while (top > 0) {
        top--;
        int64_t x = stack[top], p = at[top];
        int kids = kept_children(c, x);
        int64_t me = b->d->n;
        if (kids == 0) {
            if (add_leaf(b, p, c->node[x].name, "container", c->node[x].id, -1, NULL) < 0)
                return -1;
            continue;
        }
        if (add_node(b, p, c->node[x].name, "container", c->node[x].id, -1, NULL) < 0)
            return -1;
        if (c->node[x].has_states) {
            char self[300];
            snprintf(self, sizeof self, "%.280s (self)", c->node[x].name);
            if (add_leaf(b, me, self, "container", c->node[x].id, -1, NULL) < 0)
                return -1;
        }
        for (int64_t k = c->child_start[x + 1] - 1; k >= c->child_start[x]; k--)
            if (c->node[c->child[k]].keep && top < c->n) {
                stack[top] = c->child[k];
                at[top++] = me;
            }
    }
    return 0;
}

static int paje_hierarchy(ari_store *s, int64_t id, const char *trace_name, builder *b, ari_error *err)
{
    ctree c = {0};
    int rc = load_containers(s, id, &c, err);
    if (rc == 0)
        rc = mark_states(s, id, &c, err);
    int64_t *stack = rc == 0 ? malloc(((size_t)c.n + 1) * sizeof *stack) : NULL;
    int64_t *at = stack ? malloc(((size_t)c.n + 1) * sizeof *at) : NULL;
    if (rc == 0 && (!at || build_children(&c) < 0 || mark_keep(&c, stack) < 0))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int64_t roots = 0, root = -1;
    for (int64_t i = 0; rc == 0 && i < c.n; i++)
        if (c.node[i].parent_ix < 0 && c.node[i].keep) {
            roots++;
            root = i;
        }
    if (rc == 0 && roots == 1 && kept_children(&c, root) > 0) {
        rc = emit_tree(&c, b, root, -1, stack, at);
    } else if (rc == 0 && roots > 0) {
        rc = add_node(b, -1, trace_name, "trace", -1, -1, NULL);
        for (int64_t i = 0; rc == 0 && i < c.n; i++)
            if (c.node[i].parent_ix < 0 && c.node[i].keep)
                rc = emit_tree(&c, b, i, 0, stack, at);
    }
    if (rc < 0 && !err->code[0])
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    free(stack);
    free(at);
    ctree_free(&c);
    return rc;
}

/* ---- values ---- */

typedef struct vals {
    int64_t max_id;
    int *map;        /* names.id -> value index, -1 if not a value */
    char **name;
    int n;
} vals;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, int64_t n)
{
    for (int64_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* The value ids and names of the leaves' states as read, unsorted. */
typedef struct raw_values {
    int64_t *id;
    char **name;
    int n;
    size_t id_cap, name_cap;
} raw_values;

static int add_raw_value(vals *v, raw_values *r, int64_t id, const char *name)
{
    if (id < 0 || id > v->max_id || v->map[id] >= 0)
        return 0;
    if (ari_vec_reserve((void **)&r->id, &r->id_cap, (size_t)r->n + 1, sizeof *r->id) < 0 ||
        ari_vec_reserve((void **)&r->name, &r->name_cap, (size_t)r->n + 1, sizeof *r->name) < 0)
        return -1;
    r->id[r->n] = id;
    if (!(r->name[r->n] = strdup(name ? name : "")))
        return -1;
    v->map[id] = r->n++; /* raw index for now */
    return 0;
}

/* The values of the states packed in chunks (event traces keep their
 * calls only there): one pass over the chunks marks the ids. */
static int read_packed_values(ari_store *s, int64_t trace, vals *v, raw_values *r, ari_error *err)
{
    int any = ari_state_chunks_present(s, trace, err);
    if (any <= 0)
        return any;
    unsigned char *seen = calloc((size_t)v->max_id + 1, 1);
    if (!seen)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = ari_state_chunks_values(s, trace, seen, v->max_id + 1, err);
    ari_stmt *st = rc < 0 ? NULL : ari_store_stmt_id(s, "SELECT id, name FROM names WHERE trace_id = ?1", trace, err);
    if (!st) {
        free(seen);
        return -1;
    }
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t id = ari_col_int64(st, 0);
        if (id >= 0 && id <= v->max_id && seen[id] &&
            add_raw_value(v, r, id, (const char *)ari_col_text(st, 1)) < 0) {
            ari_reset(st);
            free(seen);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    free(seen);
    return ari_store_rows_end(s, st, rc, "reading state values", err);
}

static int read_values(ari_store *s, int64_t trace, int tasks, vals *v, raw_values *r, ari_error *err)
{
    ari_stmt *st;
    if (tasks) /* the workers' states only */
        st = ari_store_stmt_id(s,
            "SELECT DISTINCT s.value_id, n.name FROM states s JOIN names n"
            " ON n.trace_id = s.trace_id AND n.id = s.value_id WHERE s.trace_id = ?1"
            " AND s.container_id IN (SELECT container_id FROM workers WHERE trace_id = ?1)", trace, err);
    else
        st = ari_store_stmt_id(s,
            "SELECT DISTINCT s.value_id, n.name FROM states s JOIN names n"
            " ON n.trace_id = s.trace_id AND n.id = s.value_id WHERE s.trace_id = ?1", trace, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (add_raw_value(v, r, ari_col_int64(st, 0), (const char *)ari_col_text(st, 1)) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    if (ari_store_rows_end(s, st, rc, "reading state values", err) < 0)
        return -1;
    return tasks ? 0 : read_packed_values(s, trace, v, r, err);
}

/* The sorted, deduplicated names into v, and map[id] to their index. */
static int sort_values(vals *v, const raw_values *r)
{
    v->name = malloc(((size_t)r->n + 1) * sizeof *v->name);
    char **sorted = malloc(((size_t)r->n + 1) * sizeof *sorted);
    if (!v->name || !sorted) {
        free(sorted);
        return -1;
    }
    memcpy(sorted, r->name, (size_t)r->n * sizeof *sorted);
    qsort(sorted, (size_t)r->n, sizeof *sorted, by_name);
    for (int i = 0; i < r->n; i++)
        if (v->n == 0 || strcmp(v->name[v->n - 1], sorted[i]) != 0)
            v->name[v->n++] = strdup(sorted[i]);
    for (int i = 0; i < r->n; i++) {
        char **hit = bsearch(&r->name[i], v->name, (size_t)v->n, sizeof *v->name, by_name);
        v->map[r->id[i]] = hit ? (int)(hit - v->name) : -1;
    }
    free(sorted);
    return 0;
}

/* The distinct value names of the leaves' states, sorted; map[id] is each
 * value id's index (ids of the same name share one). */
static int load_values(ari_store *s, int64_t trace, int tasks, vals *v, ari_error *err)
{
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT coalesce(max(id), 0) FROM names WHERE trace_id = ?1", trace, err);
    if (!st || ari_store_query_int64(s, st, &v->max_id, "reading state values", err) < 0)
        return -1;
    v->map = malloc(((size_t)v->max_id + 1) * sizeof *v->map);
    if (!v->map)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int64_t i = 0; i <= v->max_id; i++)
        v->map[i] = -1;
    raw_values r = {0};
    int rc = read_values(s, trace, tasks, v, &r, err);
    if (rc == 0 && sort_values(v, &r) < 0)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    free_names(r.name, r.n);
    free(r.id);
    return rc;
}

/* ---- times per slice ---- */

typedef struct acc {
    double start, end, width;
    int T, K;
} acc;

/* Adds sign * |[a, b] within slice s| to row[s][k] for every slice. */
static void add_time(const acc *w, double *row, int k, double a, double b, double sign)
{
    if (a < w->start)
        a = w->start;
    if (b > w->end)
        b = w->end;
    if (!(b > a) || k < 0)
        return;
    int s = (int)((a - w->start) / w->width);
    s = s < 0 ? 0 : s >= w->T ? w->T - 1 : s;
    for (; s < w->T; s++) {
        double lo = w->start + s * w->width, hi = s == w->T - 1 ? w->end : w->start + (s + 1) * w->width;
        double x = (b < hi ? b : hi) - (a > lo ? a : lo);
        if (x > 0)
            row[(size_t)s * w->K + k] += sign * x;
        if (hi >= b)
            break;
    }
}

typedef struct open_state {
    int value;
    double start, end;
} open_state;

/* A leaf's states in (start, depth) order, per type: each adds its time
 * and takes it from its parent's (exclusive times). */
typedef struct leaf_walk {
    const vals *v;
    const acc *w;
    double *row;
    open_state open[MAX_TYPES][MAX_DEPTH];
    int64_t types[MAX_TYPES];
    int ntypes;
} leaf_walk;

static void leaf_state(leaf_walk *lw, int64_t type, int64_t vid, double a, double b, int64_t depth)
{
    const vals *v = lw->v;
    int k = vid >= 0 && vid <= v->max_id ? v->map[vid] : -1;
    if (k < 0 || !(b > a))
        return;
    add_time(lw->w, lw->row, k, a, b, 1);
    int slot = 0;
    while (slot < lw->ntypes && lw->types[slot] != type)
        slot++;
    if (slot == lw->ntypes && lw->ntypes < MAX_TYPES) {
        lw->types[lw->ntypes++] = type;
        for (int d = 0; d < MAX_DEPTH; d++)
            lw->open[slot][d] = (open_state){-1, 0, 0};
    }
    if (slot == lw->ntypes || depth < 0 || depth >= MAX_DEPTH)
        return;
    if (depth > 0) {
        open_state *p = &lw->open[slot][depth - 1];
        if (p->value >= 0 && p->start <= a && p->end >= b)
            add_time(lw->w, lw->row, p->value, a, b, -1);
    }
    lw->open[slot][depth] = (open_state){k, a, b};
}

typedef struct packed_walk {
    leaf_walk *lw;
    int64_t type;
} packed_walk;

static int packed_state(void *ctx, const ari_gantt_state *st, ari_error *err)
{
    (void)err;
    packed_walk *pw = ctx;
    leaf_state(pw->lw, pw->type, st->value, st->start, st->end, st->depth);
    return 0;
}

/* One leaf's `states` rows, exclusive of the states nested in them. */
static int leaf_rows(ari_store *s, int64_t trace, int64_t container, leaf_walk *lw, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace), ari_arg_int(container), ari_arg_real(lw->w->start),
                      ari_arg_real(lw->w->end)};
    ari_stmt *st = ari_store_bound(s,
        "SELECT type_id, value_id, start, end, depth FROM states WHERE trace_id = ?1"
        " AND container_id = ?2 AND start <= ?4 AND end >= ?3 ORDER BY start, depth",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        leaf_state(lw, ari_col_int64(st, 0), ari_col_int64(st, 1), ari_col_double(st, 2),
                   ari_col_double(st, 3), ari_col_int64(st, 4));
    return ari_store_rows_end(s, st, rc, "reading states", err);
}

/* The leaves' packed states (state_chunks.h), type by type, each type's
 * for all leaves in a few statements (ari_state_chunks_batch; a leaf's
 * own statements were round trips on a shard). A leaf's states of one
 * type are walked on their own (the walk's slots are per type), so a
 * leaf may have any number of types. At most PACKED_SLICE states are in
 * memory at once. */
#define PACKED_SLICE ((int64_t)1 << 21)

typedef struct packed_leaves {
    ari_store *s;
    int64_t trace, type;
    const int64_t *containers;
    const vals *v;
    const acc *w;
    double *rows;
    size_t row;
    leaf_walk *lw;
} packed_leaves;

static int packed_leaf(void *ctx, size_t e, int what, ari_gantt_state *st, int64_t n, int max_value,
                       ari_error *err)
{
    (void)max_value;
    packed_leaves *pl = ctx;
    leaf_walk *lw = pl->lw;
    lw->v = pl->v, lw->w = pl->w, lw->row = pl->rows + e * pl->row;
    lw->ntypes = 0;
    int rc = 0;
    if (what == ARI_CHUNKS_READ) {
        for (int64_t k = 0; k < n; k++)
            leaf_state(lw, pl->type, st[k].value, st[k].start, st[k].end, st[k].depth);
    } else if (what == ARI_CHUNKS_LARGE) {
        packed_walk pw = {lw, pl->type};
        rc = ari_state_chunks_each(pl->s, pl->trace, pl->containers[e], pl->type, pl->w->start, pl->w->end,
                                   PACKED_SLICE, packed_state, &pw, err) < 0
                 ? -1
                 : 0;
    }
    free(st);
    return rc;
}

static int type_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    *(int64_t *)item = ari_col_int64(st, 0);
    return 0;
}

/* The packed state types of the trace, ascending. */
static int packed_types(ari_store *s, int64_t trace, int64_t **types, size_t *n, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT DISTINCT type_id FROM state_chunks WHERE trace_id = ?1 ORDER BY 1",
                                     trace, err);
    *types = NULL;
    *n = 0;
    return st ? ari_store_read_rows(s, st, (void **)types, n, sizeof **types, type_read, NULL,
                                    "reading packed state types", err)
              : -1;
}

/* Every leaf's states, exclusive of the states nested in them, into its
 * row of d->v: `states` rows leaf by leaf (when the trace has any), then
 * the packed states. */
static int leaves_times(ari_store *s, int64_t trace, const int64_t *containers, int64_t nleaves, const vals *v,
                        const acc *w, double *rows, size_t row, ari_error *err)
{
    leaf_walk *lw = calloc(1, sizeof *lw);
    if (!lw)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_stmt_id(s, "SELECT EXISTS (SELECT 1 FROM states WHERE trace_id = ?1)", trace, err);
    int64_t has_rows = 0;
    int rc = st ? ari_store_query_int64(s, st, &has_rows, "finding states", err) : -1;
    for (int64_t e = 0; rc == 0 && has_rows && e < nleaves; e++) {
        *lw = (leaf_walk){.v = v, .w = w, .row = rows + (size_t)e * row};
        rc = leaf_rows(s, trace, containers[e], lw, err);
    }
    int64_t *types = NULL;
    size_t ntypes = 0;
    if (rc == 0)
        rc = packed_types(s, trace, &types, &ntypes, err);
    for (size_t i = 0; rc == 0 && i < ntypes; i++) {
        packed_leaves pl = {s, trace, types[i], containers, v, w, rows, row, lw};
        rc = ari_state_chunks_batch(s, trace, types[i], containers, (size_t)nleaves, w->start, w->end, 1,
                                    PACKED_SLICE, packed_leaf, &pl, err);
    }
    free(types);
    free(lw);
    return rc;
}

static int window(ari_store *s, int64_t trace, int tasks, double *start, double *end, ari_error *err)
{
    ari_stmt *st;
    if (tasks)
        st = ari_store_stmt_id(s,
            "SELECT min(start), max(end) FROM states WHERE trace_id = ?1 AND"
            " container_id IN (SELECT container_id FROM workers WHERE trace_id = ?1)", trace, err);
    else
        st = ari_store_stmt_id(s,
                               "SELECT min(a), max(b) FROM (SELECT min(start) AS a, max(end) AS b FROM states"
                               " WHERE trace_id = ?1 UNION ALL SELECT min(min_start), max(max_end) FROM state_chunks"
                               " WHERE trace_id = ?1)",
                               trace, err);
    int rc = st ? ari_store_step_row(s, st, "reading the extent of the states", err) : -1;
    if (rc == 0 && ari_col_type(st, 0) != ARI_NULL) {
        if (isnan(*start))
            *start = ari_col_double(st, 0);
        if (isnan(*end))
            *end = ari_col_double(st, 1);
    }
    if (rc == 0)
        ari_reset(st);
    return rc < 0 ? -1 : 0;
}

/* Drops the values with no time, keeping the order. */
static void compact_values(ari_pq_data *d, vals *v)
{
    size_t cells = (size_t)d->nleaves * (size_t)d->slices;
    int K = v->n, kept = 0;
    int *keep = calloc((size_t)K + 1, sizeof *keep);
    if (!keep)
        return;
    for (size_t c = 0; c < cells; c++)
        for (int k = 0; k < K; k++) {
            if (d->v[c * K + k] < 0)
                d->v[c * K + k] = 0; /* badly nested states */
            keep[k] |= d->v[c * K + k] > 0;
        }
    for (int k = 0; k < K; k++)
        kept += keep[k];
    for (size_t c = 0; c < cells; c++) {
        int j = 0;
        for (int k = 0; k < K; k++)
            if (keep[k])
                d->v[c * kept + j++] = d->v[c * K + k];
    }
    d->values = malloc(((size_t)kept + 1) * sizeof *d->values);
    for (int k = 0, j = 0; k < K; k++) {
        if (keep[k] && d->values)
            d->values[j++] = v->name[k];
        else
            free(v->name[k]);
    }
    free(v->name);
    v->name = NULL;
    d->nvalues = kept;
    free(keep);
}

void ari_pq_free(ari_pq_data *d)
{
    for (int64_t i = 0; i < d->n; i++) {
        free(d->nodes[i].name);
        free(d->nodes[i].resource_type);
    }
    free_names(d->values, d->nvalues);
    void *owned[] = {d->nodes, d->parent, d->v};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(d, 0, sizeof *d);
}

/* The trace's name, and whether it is a task trace (it has workers).
 * Returns 0, 1 when there is no such trace, -1. */
static int trace_head(ari_store *s, int64_t id, char **name, int *tasks, ari_error *err)
{
    int64_t has_workers = 0;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT name FROM traces WHERE id = ?1", id, err);
    int rc = st ? ari_store_query_string(s, st, "trace", name, "reading the trace", err) : -1;
    if (rc != 0)
        return rc;
    st = ari_store_stmt_id(s, "SELECT EXISTS (SELECT 1 FROM workers WHERE trace_id = ?1)", id, err);
    if (!st || ari_store_query_int64(s, st, &has_workers, "reading the trace", err) < 0) {
        free(*name);
        *name = NULL;
        return -1;
    }
    *tasks = has_workers != 0;
    return 0;
}

static int load_times(ari_store *s, int64_t id, builder *b, vals *v, ari_error *err)
{
    ari_pq_data *d = b->d;
    acc w = {d->start, d->end, (d->end - d->start) / d->slices, d->slices, v->n};
    size_t row = (size_t)d->slices * (size_t)v->n;
    d->v = calloc((size_t)d->nleaves * row + 1, sizeof *d->v);
    if (!d->v)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld leaves x %d slices x %d values",
                             (long long)d->nleaves, d->slices, v->n);
    if (leaves_times(s, id, b->leaf_container, d->nleaves, v, &w, d->v, row, err) < 0)
        return -1;
    compact_values(d, v);
    return d->values ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

int ari_pq_load(ari_store *s, int64_t id, double start, double end, int slices, ari_pq_data *out,
                ari_error *err)
{
    memset(out, 0, sizeof *out);
    char *name = NULL;
    int tasks = 0;
    int rc = trace_head(s, id, &name, &tasks, err);
    if (rc != 0)
        return rc;
    builder b = {.d = out};
    vals v = {0};
    out->tasks = tasks;
    out->slices = slices;
    out->start = start;
    out->end = end;
    rc = tasks ? task_hierarchy(s, id, name, &b, err) : paje_hierarchy(s, id, name, &b, err);
    if (rc == 0 && out->nleaves == 0)
        rc = 2;
    if (rc == 0)
        rc = window(s, id, tasks, &out->start, &out->end, err);
    if (rc == 0 && (isnan(out->start) || isnan(out->end)))
        rc = 2;
    if (rc == 0 && !(out->end > out->start))
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "the window [%g, %g] is empty", out->start, out->end);
    if (rc == 0)
        rc = load_values(s, id, tasks, &v, err);
    if (rc == 0 && v.n == 0)
        rc = 2;
    if (rc == 0)
        rc = load_times(s, id, &b, &v, err);
    if (rc == 0 && out->nvalues == 0)
        rc = 2;
    free_names(v.name, v.n);
    void *owned[] = {v.map, b.leaf_container, name};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    if (rc != 0)
        ari_pq_free(out);
    return rc;
}
