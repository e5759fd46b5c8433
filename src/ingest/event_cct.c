/* event_cct.c: the calling context tree derived from an event trace while
 * it streams (event_cct.h): a tee sink that forwards every call and keeps,
 * per location, the stack of open regions as CCT nodes; a Leave adds the
 * interval's inclusive and exclusive time and one visit to the (node,
 * location) cell. ari_event_cct_write replays the tree into a profile sink.
 */
#include "ingest/event_cct.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strmap.h"
#include "util/vec.h"

#define CCT_MAX_DEPTH  4096
#define CCT_MAX_HANDLE ((int64_t)1 << 24) /* handles of next are small integers */

typedef struct frame {
    int64_t node;
    int64_t region;
    double start;
    double children; /* the inclusive time of the closed children */
} frame;

typedef struct cct_loc {
    int used;
    int proc; /* index into procs (rank, thread) */
    frame *stack;
    size_t depth, cap;
    double last; /* the time of its last event */
} cct_loc;

typedef struct cct_proc {
    int64_t rank, thread;
} cct_proc;

typedef struct cct_node {
    int64_t parent;   /* -1 for a root */
    const char *name; /* owned by names */
} cct_node;

typedef struct cct_cell {
    int64_t node;
    int proc;
    double inc, exc, count;
} cct_cell;

struct ari_event_cct {
    const ari_event_sink *next;
    ari_event_sink sink;
    ari_error err;
    int64_t *proc_rank; /* by process handle; -1 unset */
    size_t cap_proc_rank, nproc_handles;
    cct_loc *locs; /* by location handle */
    size_t cap_locs, nloc_handles;
    const char **regions; /* by region handle: interned name */
    size_t cap_regions, nregion_handles;
    cct_proc *procs;
    size_t nprocs, cap_procs;
    cct_node *nodes;
    size_t nnodes, cap_nodes;
    cct_cell *cells;
    size_t ncells, cap_cells;
    ari_strmap *names;     /* name -> (unused) value; the key copy is the interned name */
    ari_strmap *children;  /* parent id (8 bytes) + name -> node + 1 */
    ari_strmap *cell_ids;  /* node (8 bytes) + proc (4 bytes) -> cell + 1 */
    ari_strmap *proc_ids;  /* rank (8 bytes) + thread (8 bytes) -> proc + 1 */
    ari_strmap *own_procs; /* without next: rank -> handle + 1 */
    ari_strmap *own_locs;  /* without next: process handle + thread -> handle + 1 */
};

static int fail_nomem(ari_event_cct *c)
{
    return ari_error_set(&c->err, ARI_E_NOMEM, "out of memory building the calling context tree");
}

/* Grows a handle-indexed table so that handle h fits (new slots zeroed). */
static int fit_handle(ari_event_cct *c, void **p, size_t *cap, size_t *n, int64_t h, size_t size)
{
    if (h < 0 || h >= CCT_MAX_HANDLE)
        return ari_error_set(&c->err, ARI_E_INVALID_INPUT, "an event-trace handle %" PRId64 " out of range",
                             h);
    if (ari_vec_reserve_zeroed(p, cap, (size_t)h + 1, size) < 0)
        return fail_nomem(c);
    if ((size_t)h + 1 > *n)
        *n = (size_t)h + 1;
    return 0;
}

static const char *intern(ari_event_cct *c, const char *name)
{
    const char *s = name ? name : "";
    size_t len = strlen(s);
    void *v = ari_strmap_get(c->names, s, len);
    if (v)
        return v;
    const char *key = ari_strmap_put(c->names, s, len, (void *)1);
    if (!key)
        return NULL;
    /* store the key copy as its own value, so lookups return it */
    if (!ari_strmap_put(c->names, s, len, (void *)key))
        return NULL;
    return key;
}

/* ---- definitions ---- */

static int64_t on_process(void *ctx, int64_t rank, const char *name)
{
    ari_event_cct *c = ctx;
    int64_t h;
    if (c->next) {
        h = c->next->process ? c->next->process(c->next->ctx, rank, name) : -1;
        if (h < 0)
            return -1;
    } else {
        void *v = ari_strmap_get(c->own_procs, (const char *)&rank, sizeof rank);
        if (v)
            return (int64_t)(intptr_t)v - 1;
        h = (int64_t)c->nproc_handles;
        if (!ari_strmap_put(c->own_procs, (const char *)&rank, sizeof rank, (void *)(intptr_t)(h + 1)))
            return fail_nomem(c);
    }
    size_t old = c->nproc_handles;
    if (fit_handle(c, (void **)&c->proc_rank, &c->cap_proc_rank, &c->nproc_handles, h, sizeof *c->proc_rank) <
        0)
        return -1;
    for (size_t i = old; i < c->nproc_handles; i++)
        if (i != (size_t)h)
            c->proc_rank[i] = INT64_MIN;
    c->proc_rank[h] = rank;
    return h;
}

static int proc_index(ari_event_cct *c, int64_t rank, int64_t thread)
{
    int64_t key[2] = {rank, thread};
    void *v = ari_strmap_get(c->proc_ids, (const char *)key, sizeof key);
    if (v)
        return (int)(intptr_t)v - 1;
    if (c->nprocs >= ARI_PROFILE_MAX_PROCS)
        return ari_error_set(&c->err, ARI_E_TOO_LARGE, "more than %d locations", ARI_PROFILE_MAX_PROCS);
    if (ari_vec_reserve((void **)&c->procs, &c->cap_procs, c->nprocs + 1, sizeof *c->procs) < 0 ||
        !ari_strmap_put(c->proc_ids, (const char *)key, sizeof key, (void *)(intptr_t)(c->nprocs + 1)))
        return fail_nomem(c);
    c->procs[c->nprocs] = (cct_proc){rank, thread};
    return (int)c->nprocs++;
}

static int64_t on_location(void *ctx, int64_t process, int64_t thread, const char *name)
{
    ari_event_cct *c = ctx;
    if (process < 0 || (size_t)process >= c->nproc_handles || c->proc_rank[process] == INT64_MIN)
        return ari_error_set(&c->err, ARI_E_INVALID_INPUT, "a location of an unknown process %" PRId64,
                             process);
    int64_t h;
    if (c->next) {
        h = c->next->location ? c->next->location(c->next->ctx, process, thread, name) : -1;
        if (h < 0)
            return -1;
    } else {
        int64_t key[2] = {process, thread};
        void *v = ari_strmap_get(c->own_locs, (const char *)key, sizeof key);
        if (v)
            return (int64_t)(intptr_t)v - 1;
        h = (int64_t)c->nloc_handles;
        if (!ari_strmap_put(c->own_locs, (const char *)key, sizeof key, (void *)(intptr_t)(h + 1)))
            return fail_nomem(c);
    }
    if (fit_handle(c, (void **)&c->locs, &c->cap_locs, &c->nloc_handles, h, sizeof *c->locs) < 0)
        return -1;
    cct_loc *l = &c->locs[h];
    if (!l->used) {
        int p = proc_index(c, c->proc_rank[process], thread);
        if (p < 0)
            return -1;
        l->used = 1;
        l->proc = p;
    }
    return h;
}

static int64_t on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    ari_event_cct *c = ctx;
    int64_t h;
    if (c->next) {
        h = c->next->region ? c->next->region(c->next->ctx, name, file, line, role) : -1;
        if (h < 0)
            return -1;
    } else {
        h = (int64_t)c->nregion_handles;
    }
    if (fit_handle(c, (void **)&c->regions, &c->cap_regions, &c->nregion_handles, h, sizeof *c->regions) < 0)
        return -1;
    if (!(c->regions[h] = intern(c, name)))
        return fail_nomem(c);
    return h;
}

static int64_t on_communicator(void *ctx, const char *name, int64_t size)
{
    ari_event_cct *c = ctx;
    if (c->next)
        return c->next->communicator ? c->next->communicator(c->next->ctx, name, size) : -1;
    return 0;
}

/* ---- the tree ---- */

static cct_loc *loc_at(ari_event_cct *c, int64_t loc, double time)
{
    if (loc < 0 || (size_t)loc >= c->nloc_handles || !c->locs[loc].used) {
        ari_error_set(&c->err, ARI_E_INVALID_INPUT, "an event of an unknown location %" PRId64, loc);
        return NULL;
    }
    cct_loc *l = &c->locs[loc];
    if (time > l->last)
        l->last = time;
    return l;
}

/* The child of parent named name, added when absent. */
static int64_t child_of(ari_event_cct *c, int64_t parent, const char *name)
{
    size_t len = strlen(name);
    char stackbuf[256];
    char *key = len + 8 <= sizeof stackbuf ? stackbuf : malloc(len + 8);
    if (!key)
        return fail_nomem(c);
    memcpy(key, &parent, 8);
    memcpy(key + 8, name, len);
    int64_t id = (int64_t)(intptr_t)ari_strmap_get(c->children, key, len + 8) - 1;
    if (id < 0) {
        if ((int64_t)c->nnodes > ARI_PROFILE_MAX_NODE_ID) {
            id = ari_error_set(&c->err, ARI_E_TOO_LARGE, "more than %" PRId64 " distinct call paths",
                               ARI_PROFILE_MAX_NODE_ID);
        } else if (ari_vec_reserve((void **)&c->nodes, &c->cap_nodes, c->nnodes + 1, sizeof *c->nodes) < 0 ||
                   !ari_strmap_put(c->children, key, len + 8, (void *)(intptr_t)(c->nnodes + 1))) {
            id = fail_nomem(c);
        } else {
            c->nodes[c->nnodes] = (cct_node){parent, name};
            id = (int64_t)c->nnodes++;
        }
    }
    if (key != stackbuf)
        free(key);
    return id;
}

static int add_cell(ari_event_cct *c, int64_t node, int proc, double inc, double exc)
{
    char key[12];
    memcpy(key, &node, 8);
    memcpy(key + 8, &proc, 4);
    intptr_t v = (intptr_t)ari_strmap_get(c->cell_ids, key, sizeof key);
    if (!v) {
        if (ari_vec_reserve((void **)&c->cells, &c->cap_cells, c->ncells + 1, sizeof *c->cells) < 0 ||
            !ari_strmap_put(c->cell_ids, key, sizeof key, (void *)(intptr_t)(c->ncells + 1)))
            return fail_nomem(c);
        c->cells[c->ncells] = (cct_cell){node, proc, 0, 0, 0};
        v = (intptr_t)++c->ncells;
    }
    cct_cell *cell = &c->cells[v - 1];
    cell->inc += inc;
    cell->exc += exc;
    cell->count += 1;
    return 0;
}

static int open_region(ari_event_cct *c, cct_loc *l, int64_t region, double time)
{
    if (region < 0 || (size_t)region >= c->nregion_handles || !c->regions[region])
        return ari_error_set(&c->err, ARI_E_INVALID_INPUT, "an Enter of an unknown region %" PRId64, region);
    if (l->depth >= CCT_MAX_DEPTH)
        return ari_error_set(&c->err, ARI_E_TOO_LARGE, "more than %d regions open at once on one location",
                             CCT_MAX_DEPTH);
    int64_t parent = l->depth ? l->stack[l->depth - 1].node : -1;
    int64_t node = child_of(c, parent, c->regions[region]);
    if (node < 0)
        return -1;
    if (ari_vec_reserve((void **)&l->stack, &l->cap, l->depth + 1, sizeof *l->stack) < 0)
        return fail_nomem(c);
    l->stack[l->depth++] = (frame){node, region, time, 0};
    return 0;
}

/* Pops the top frame, closing it at end. */
static int close_region(ari_event_cct *c, cct_loc *l, double end)
{
    frame f = l->stack[--l->depth];
    double inc = end - f.start;
    if (inc < 0)
        inc = 0;
    if (l->depth)
        l->stack[l->depth - 1].children += inc;
    return add_cell(c, f.node, l->proc, inc, inc - f.children);
}

static int on_enter(void *ctx, int64_t loc, double time, int64_t region)
{
    ari_event_cct *c = ctx;
    cct_loc *l = loc_at(c, loc, time);
    if (!l || open_region(c, l, region, time) < 0)
        return -1;
    return c->next && c->next->enter ? c->next->enter(c->next->ctx, loc, time, region) : 0;
}

static int on_leave(void *ctx, int64_t loc, double time, int64_t region)
{
    ari_event_cct *c = ctx;
    cct_loc *l = loc_at(c, loc, time);
    if (!l)
        return -1;
    const char *name =
        region >= 0 && (size_t)region < c->nregion_handles && c->regions[region] ? c->regions[region] : "?";
    if (l->depth == 0)
        return ari_error_set(&c->err, ARI_E_INVALID_INPUT,
                             "a Leave of '%.200s' at %.17g ns on location %" PRId64 " without its Enter",
                             name, time, loc);
    if (l->stack[l->depth - 1].region != region)
        return ari_error_set(&c->err, ARI_E_INVALID_INPUT,
                             "a Leave of '%.200s' at %.17g ns on location %" PRId64 " while '%.200s' is open",
                             name, time, loc, c->nodes[l->stack[l->depth - 1].node].name);
    if (close_region(c, l, time) < 0)
        return -1;
    return c->next && c->next->leave ? c->next->leave(c->next->ctx, loc, time, region) : 0;
}

/* ---- the rest: note the location's time, forward ---- */

static int on_instant(void *ctx, int64_t loc, double time, const char *name)
{
    ari_event_cct *c = ctx;
    if (!loc_at(c, loc, time))
        return -1;
    return c->next && c->next->instant ? c->next->instant(c->next->ctx, loc, time, name) : 0;
}

static int on_message(void *ctx, const ari_event_msg *m)
{
    ari_event_cct *c = ctx;
    if (!loc_at(c, m->location, m->time))
        return -1;
    return c->next && c->next->message ? c->next->message(c->next->ctx, m) : 0;
}

static int on_collective(void *ctx, const ari_event_collective *co)
{
    ari_event_cct *c = ctx;
    if (!loc_at(c, co->location, co->end))
        return -1;
    return c->next && c->next->collective ? c->next->collective(c->next->ctx, co) : 0;
}

static int on_metric(void *ctx, int64_t loc, double time, const char *metric, const char *unit, double value)
{
    ari_event_cct *c = ctx;
    if (!loc_at(c, loc, time))
        return -1;
    return c->next && c->next->metric ? c->next->metric(c->next->ctx, loc, time, metric, unit, value) : 0;
}

static int on_note(void *ctx, const char *key, const char *json_value)
{
    ari_event_cct *c = ctx;
    return c->next && c->next->note ? c->next->note(c->next->ctx, key, json_value) : 0;
}

static void on_progress(void *ctx, double fraction)
{
    ari_event_cct *c = ctx;
    if (c->next && c->next->progress)
        c->next->progress(c->next->ctx, fraction);
}

/* ---- public ---- */

ari_event_cct *ari_event_cct_new(ari_error *err)
{
    ari_event_cct *c = ari_zalloc(sizeof *c, err);
    if (!c)
        return NULL;
    c->names = ari_strmap_new();
    c->children = ari_strmap_new();
    c->cell_ids = ari_strmap_new();
    c->proc_ids = ari_strmap_new();
    c->own_procs = ari_strmap_new();
    c->own_locs = ari_strmap_new();
    if (!c->names || !c->children || !c->cell_ids || !c->proc_ids || !c->own_procs || !c->own_locs) {
        ari_event_cct_free(c);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    return c;
}

/* The system tree is the next sink's alone: passed on untouched. */
static int64_t on_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    ari_event_cct *c = ctx;
    return c->next->system_node(c->next->ctx, parent, cls, name);
}

static int on_process_node(void *ctx, int64_t rank, int64_t node)
{
    ari_event_cct *c = ctx;
    return c->next->process_node(c->next->ctx, rank, node);
}

const ari_event_sink *ari_event_cct_tee(ari_event_cct *c, const ari_event_sink *next)
{
    int tree = next && next->system_node && next->process_node;
    c->next = next;
    c->sink = (ari_event_sink){
        .ctx = c,
        .process = on_process,
        .location = on_location,
        .region = on_region,
        .communicator = on_communicator,
        .enter = on_enter,
        .leave = on_leave,
        .instant = on_instant,
        .message = on_message,
        .collective = on_collective,
        .metric = on_metric,
        .note = on_note,
        .progress = on_progress,
        .system_node = tree ? on_system_node : NULL,
        .process_node = tree ? on_process_node : NULL,
    };
    return &c->sink;
}

const ari_error *ari_event_cct_error(const ari_event_cct *c)
{
    return &c->err;
}

static int refused(ari_error *err, const char *what)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "the profile store refused the derived CCT's %s", what);
}

int ari_event_cct_write(ari_event_cct *c, const ari_profile_sink *out, ari_error *err)
{
    for (size_t i = 0; i < c->nloc_handles; i++) {
        cct_loc *l = &c->locs[i];
        while (l->used && l->depth)
            if (close_region(c, l, l->last) < 0)
                return ari_error_set(err, c->err.code, "%s", c->err.message);
    }
    static const ari_profile_metric metrics[] = {
        {"time (inc)", "Leave - Enter", "ns", 1, "time"},
        {"time", "inclusive minus the children's", "ns", 0, "time (inc)"},
        {"count", "visits", "", 0, NULL},
    };
    int idx[3];
    for (int m = 0; m < 3; m++)
        if (out->on_metric(out->ctx, &metrics[m], &idx[m]) != 0)
            return refused(err, "metrics");
    int *pidx = malloc((c->nprocs ? c->nprocs : 1) * sizeof *pidx);
    if (!pidx)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t p = 0; p < c->nprocs && rc == 0; p++)
        if (out->on_proc(out->ctx, c->procs[p].rank, c->procs[p].thread, &pidx[p]) != 0)
            rc = refused(err, "processes");
    for (size_t n = 0; n < c->nnodes && rc == 0; n++) {
        ari_profile_node node = {(int64_t)n, c->nodes[n].parent, c->nodes[n].name, NULL, NULL, 0, "function"};
        if (out->on_node(out->ctx, &node) != 0)
            rc = refused(err, "nodes");
    }
    for (size_t k = 0; k < c->ncells && rc == 0; k++) {
        const cct_cell *cell = &c->cells[k];
        int p = pidx[cell->proc];
        if (out->on_value(out->ctx, idx[0], cell->node, p, cell->inc) != 0 ||
            out->on_value(out->ctx, idx[1], cell->node, p, cell->exc) != 0 ||
            out->on_value(out->ctx, idx[2], cell->node, p, cell->count) != 0)
            rc = refused(err, "values");
    }
    free(pidx);
    return rc;
}

void ari_event_cct_free(ari_event_cct *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nloc_handles; i++)
        free(c->locs[i].stack);
    free(c->locs);
    free(c->proc_rank);
    free(c->regions);
    free(c->procs);
    free(c->nodes);
    free(c->cells);
    ari_strmap_free(c->names);
    ari_strmap_free(c->children);
    ari_strmap_free(c->cell_ids);
    ari_strmap_free(c->proc_ids);
    ari_strmap_free(c->own_procs);
    ari_strmap_free(c->own_locs);
    free(c);
}
