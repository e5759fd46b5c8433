/* event_paje.c: event traces (event_sink.h) into the Paje model (sink.h):
 * the system tree, processes and threads as containers, Enter/Leave pairs as nested states,
 * matched messages as links, instants as events, metric samples as
 * variables. The mapping and its rules are in event_paje.h. */
#include "ingest/event_paje.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

#define ALIAS_SIZE 32

typedef struct frame {
    int64_t region;
    double start;
} frame;

typedef struct location {
    int64_t process;
    char alias[ALIAS_SIZE];
    frame *stack;
    size_t depth, cap;
    double last;          /* the time of its last event */
} location;

typedef struct process {
    int64_t rank;
    int64_t node;         /* its system-tree node (index), -1 under the root */
    char alias[ALIAS_SIZE];
} process;

/* A node of the system tree; a container once a process sits under it. */
typedef struct snode {
    int64_t parent;       /* index, -1 for a root */
    int depth;            /* 0 for a root */
    char *cls, *name;
    char alias[ALIAS_SIZE]; /* "n<i>" once given to the sink, "" before */
    double end;           /* its last process's end */
} snode;

/* One side of a message waiting for its partner. */
typedef struct pending {
    int64_t location;
    double time;
    uint64_t bytes;
} pending;

/* The unmatched sides of one (sender, receiver, tag, communicator): all
 * sends or all receives, oldest first from head. */
typedef struct queue {
    int receives;         /* 1: the items are receives */
    int delivered;        /* by request: a send of this key was received (or it is a broadcast) */
    int broadcast;        /* by request: the key is a broadcast's */
    pending *items;
    size_t head, n, cap;
} queue;

/* The open piece of a (location, metric) variable. */
typedef struct piece {
    int64_t location, metric;
    double start, value;
} piece;

struct ari_event_paje {
    const ari_sink *out;
    ari_event_sink sink;
    ari_error err;
    int types_done;
    int proc_level;           /* depth of the nodes that hold processes, -1: the root */
    snode *nodes;
    size_t nnodes, cap_nodes;
    ari_strmap *proc_nodes;   /* rank -> node index + 1 */
    process *procs;
    size_t nprocs, cap_procs;
    location *locs;
    size_t nlocs, cap_locs;
    char **regions;
    size_t nregions, cap_regions;
    int64_t ncomms;
    char **metrics;       /* variable type "V<i>" */
    size_t nmetrics, cap_metrics;
    ari_strmap *proc_ids;     /* rank -> index + 1 */
    ari_strmap *metric_ids;   /* name -> index + 1 */
    piece *pieces;
    size_t npieces, cap_pieces;
    ari_strmap *piece_ids;    /* "loc:metric" -> index + 1 */
    queue *queues;
    size_t nqueues, cap_queues;
    ari_strmap *queue_ids;    /* (src, dst, tag, comm) as 4 int64 -> index + 1 */
    ari_strmap *region_names; /* distinct region names (value unused) */
    size_t npending;
    uint64_t nlinks;
    ari_event_paje_report rep;
    ari_event_paje_observer obs;
    int by_request;           /* match messages by (sender, request) */
    ari_sbuf notes;           /* "key":value,... */
    ari_sbuf notes_out;       /* {notes} for ari_event_paje_notes */
};

static int fail_nomem(ari_event_paje *ep)
{
    return ari_error_set(&ep->err, ARI_E_NOMEM, "out of memory");
}

/* ---- the Paje types, once ---- */

static int define(ari_event_paje *ep, ari_nature nature, const char *alias, const char *name, const char *parent,
                  const char *start_type, const char *end_type)
{
    ari_type_def t = {nature, alias, name, parent, start_type, end_type, NULL};
    if (ep->out->on_type && ep->out->on_type(ep->out->ctx, &t) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused the type %s", name);
    return 0;
}

/* The type name of system-tree level `depth`: its class capitalised
 * ("machine" -> "Machine"), or "Level <depth>" when the class is unknown or
 * its name is taken by another type. */
static void level_name(const ari_event_paje *ep, int64_t chain[], int depth, char *out, size_t size)
{
    static const char *const taken[] = {"process", "thread", "function", "instant", "message"};
    const char *cls = ep->nodes[chain[depth]].cls;
    int ok = cls && cls[0] && strlen(cls) < size;
    for (size_t i = 0; ok && i < sizeof taken / sizeof *taken; i++)
        ok = strcasecmp(cls, taken[i]) != 0;
    for (int d = 0; ok && d < depth; d++) {
        const char *other = ep->nodes[chain[d]].cls;
        ok = !other || strcasecmp(cls, other) != 0;
    }
    if (!ok) {
        snprintf(out, size, "Level %d", depth);
        return;
    }
    snprintf(out, size, "%s", cls);
    if (out[0] >= 'a' && out[0] <= 'z')
        out[0] = (char)(out[0] - 'a' + 'A');
}

/* The container types of the system tree above the first process (node:
 * its node, -1 none): one per level from the root, "S0" > "S1" > ...;
 * processes then sit at that depth. */
static int define_levels(ari_event_paje *ep, int64_t node, char *parent_type, size_t size)
{
    snprintf(parent_type, size, "0");
    ep->proc_level = node < 0 ? -1 : ep->nodes[node].depth;
    if (node < 0)
        return 0;
    int64_t chain[ARI_EP_MAX_TREE_DEPTH];
    for (int64_t n = node; n >= 0; n = ep->nodes[n].parent)
        chain[ep->nodes[n].depth] = n;
    for (int d = 0; d <= ep->proc_level; d++) {
        char alias[ALIAS_SIZE], name[64];
        snprintf(alias, sizeof alias, "S%d", d);
        level_name(ep, chain, d, name, sizeof name);
        if (define(ep, ARI_NATURE_CONTAINER, alias, name, parent_type, NULL, NULL) < 0)
            return -1;
        snprintf(parent_type, size, "%s", alias);
    }
    return 0;
}

static int define_types(ari_event_paje *ep, int64_t node)
{
    if (ep->types_done)
        return 0;
    ep->types_done = 1;
    char parent[ALIAS_SIZE];
    if (define_levels(ep, node, parent, sizeof parent) < 0)
        return -1;
    if (define(ep, ARI_NATURE_CONTAINER, "P", "Process", parent, NULL, NULL) < 0 ||
        define(ep, ARI_NATURE_CONTAINER, "T", "Thread", "P", NULL, NULL) < 0 ||
        define(ep, ARI_NATURE_STATE, "F", "Function", "T", NULL, NULL) < 0 ||
        define(ep, ARI_NATURE_EVENT, "E", "Instant", "T", NULL, NULL) < 0)
        return -1;
    return define(ep, ARI_NATURE_LINK, "M", "Message", "0", "T", "T");
}

/* ---- the system tree ---- */

static int64_t on_system_node(void *ctx, int64_t parent, const char *cls, const char *name)
{
    ari_event_paje *ep = ctx;
    if (parent < -1 || parent >= (int64_t)ep->nnodes)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "a system-tree node under an unknown node %" PRId64,
                             parent);
    int depth = parent < 0 ? 0 : ep->nodes[parent].depth + 1;
    if (depth >= ARI_EP_MAX_TREE_DEPTH || ep->nnodes >= ARI_EP_MAX_NODES)
        return ari_error_set(&ep->err, ARI_E_TOO_LARGE, "a system tree deeper than %d levels or of more than %zu "
                             "nodes", ARI_EP_MAX_TREE_DEPTH, (size_t)ARI_EP_MAX_NODES);
    if (ari_vec_reserve((void **)&ep->nodes, &ep->cap_nodes, ep->nnodes + 1, sizeof *ep->nodes) < 0)
        return fail_nomem(ep);
    snode *n = &ep->nodes[ep->nnodes];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->depth = depth;
    n->cls = cls ? strdup(cls) : NULL;
    n->name = strdup(name ? name : "");
    if ((cls && !n->cls) || !n->name) {
        free(n->cls), free(n->name);
        return fail_nomem(ep);
    }
    return (int64_t)ep->nnodes++;
}

static int on_process_node(void *ctx, int64_t rank, int64_t node)
{
    ari_event_paje *ep = ctx;
    if (node < 0 || node >= (int64_t)ep->nnodes)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "rank %" PRId64 " placed under an unknown system-tree "
                             "node %" PRId64, rank, node);
    char key[24];
    int n = snprintf(key, sizeof key, "%" PRId64, rank);
    if (ari_strmap_get(ep->proc_ids, key, (size_t)n))
        return 0; /* its process is made: the first placement stands */
    if (!ari_strmap_put(ep->proc_nodes, key, (size_t)n, (void *)(intptr_t)(node + 1)))
        return fail_nomem(ep);
    return 0;
}

/* Gives node i (and its ancestors first) to the sink as containers. */
static int emit_node(ari_event_paje *ep, int64_t i)
{
    snode *n = &ep->nodes[i];
    if (n->alias[0])
        return 0;
    if (n->parent >= 0 && emit_node(ep, n->parent) < 0)
        return -1;
    snprintf(n->alias, sizeof n->alias, "n%" PRId64, i);
    char type[ALIAS_SIZE];
    snprintf(type, sizeof type, "S%d", n->depth);
    ari_container c = {n->alias, n->name, type, n->parent >= 0 ? ep->nodes[n->parent].alias : "0", 0, 0};
    if (ep->out->on_container && ep->out->on_container(ep->out->ctx, &c) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused the system-tree node %s",
                             c.name);
    return 0;
}

/* The node a process of that rank sits under: its own node, or that
 * node's ancestor at the processes' level; -1 for the root. */
static int64_t node_of(ari_event_paje *ep, int64_t rank, const char *key, size_t n)
{
    int64_t node = (int64_t)(intptr_t)ari_strmap_get(ep->proc_nodes, key, n) - 1;
    if (define_types(ep, node) < 0)
        return -2;
    if (ep->proc_level < 0)
        return -1;
    if (node < 0 || ep->nodes[node].depth < ep->proc_level) {
        ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "rank %" PRId64 " is not at the depth of the first rank in "
                      "the system tree (%d)", rank, ep->proc_level);
        return -2;
    }
    while (ep->nodes[node].depth > ep->proc_level)
        node = ep->nodes[node].parent;
    return emit_node(ep, node) < 0 ? -2 : node;
}

/* ---- processes, locations, regions, communicators ---- */

static int64_t on_process(void *ctx, int64_t rank, const char *name)
{
    ari_event_paje *ep = ctx;
    char key[24];
    int n = snprintf(key, sizeof key, "%" PRId64, rank);
    intptr_t v = (intptr_t)ari_strmap_get(ep->proc_ids, key, (size_t)n);
    if (v)
        return v - 1;
    int64_t node = node_of(ep, rank, key, (size_t)n);
    if (node < -1)
        return -1;
    if (ari_vec_reserve((void **)&ep->procs, &ep->cap_procs, ep->nprocs + 1, sizeof *ep->procs) < 0 ||
        !ari_strmap_put(ep->proc_ids, key, (size_t)n, (void *)(intptr_t)(ep->nprocs + 1)))
        return fail_nomem(ep);
    process *p = &ep->procs[ep->nprocs];
    p->rank = rank;
    p->node = node;
    snprintf(p->alias, sizeof p->alias, "p%zu", ep->nprocs);
    char label[64];
    if (!name)
        snprintf(label, sizeof label, "rank %" PRId64, rank);
    ari_container c = {p->alias, name ? name : label, "P", node >= 0 ? ep->nodes[node].alias : "0", 0, 0};
    if (ep->out->on_container && ep->out->on_container(ep->out->ctx, &c) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused the process %s", c.name);
    return (int64_t)ep->nprocs++;
}

static int64_t on_location(void *ctx, int64_t proc, int64_t thread, const char *name)
{
    ari_event_paje *ep = ctx;
    if (proc < 0 || (size_t)proc >= ep->nprocs)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "a location of an unknown process %" PRId64, proc);
    if (ari_vec_reserve((void **)&ep->locs, &ep->cap_locs, ep->nlocs + 1, sizeof *ep->locs) < 0)
        return fail_nomem(ep);
    location *l = &ep->locs[ep->nlocs];
    memset(l, 0, sizeof *l);
    l->process = proc;
    snprintf(l->alias, sizeof l->alias, "l%zu", ep->nlocs);
    char label[64];
    if (!name)
        snprintf(label, sizeof label, "thread %" PRId64, thread);
    ari_container c = {l->alias, name ? name : label, "T", ep->procs[proc].alias, 0, 0};
    if (ep->out->on_container && ep->out->on_container(ep->out->ctx, &c) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused the location %s", c.name);
    if (ep->obs.location &&
        ep->obs.location(ep->obs.ctx, l->alias, ep->procs[proc].alias, ep->procs[proc].rank, thread) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused the location %s", c.name);
    return (int64_t)ep->nlocs++;
}

static int64_t on_region(void *ctx, const char *name, const char *file, int line, const char *role)
{
    (void)file;
    (void)line;
    (void)role;
    ari_event_paje *ep = ctx;
    if (ari_vec_reserve((void **)&ep->regions, &ep->cap_regions, ep->nregions + 1, sizeof *ep->regions) < 0 ||
        !(ep->regions[ep->nregions] = strdup(name ? name : "")))
        return fail_nomem(ep);
    const char *r = ep->regions[ep->nregions];
    if (!ari_strmap_get(ep->region_names, r, strlen(r))) {
        if (!ari_strmap_put(ep->region_names, r, strlen(r), (void *)(intptr_t)1))
            return fail_nomem(ep);
        ep->rep.functions++;
    }
    return (int64_t)ep->nregions++;
}

static int64_t on_communicator(void *ctx, const char *name, int64_t size)
{
    (void)name;
    (void)size;
    ari_event_paje *ep = ctx;
    return ep->ncomms++;
}

/* ---- enter, leave, instants ---- */

static int on_broadcast(ari_event_paje *ep, int64_t root, uint64_t request);

static location *loc_at(ari_event_paje *ep, int64_t loc, double time)
{
    if (loc < 0 || (size_t)loc >= ep->nlocs) {
        ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "an event of an unknown location %" PRId64, loc);
        return NULL;
    }
    location *l = &ep->locs[loc];
    if (time > l->last)
        l->last = time;
    return l;
}

static int on_enter(void *ctx, int64_t loc, double time, int64_t region)
{
    ari_event_paje *ep = ctx;
    location *l = loc_at(ep, loc, time);
    if (!l)
        return -1;
    if (region < 0 || (size_t)region >= ep->nregions)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "an Enter of an unknown region %" PRId64, region);
    ep->rep.enters++;
    if (l->depth >= ARI_EP_MAX_DEPTH)
        return ari_error_set(&ep->err, ARI_E_TOO_LARGE, "more than %d regions open at once on one location",
                             ARI_EP_MAX_DEPTH);
    if (ari_vec_reserve((void **)&l->stack, &l->cap, l->depth + 1, sizeof *l->stack) < 0)
        return fail_nomem(ep);
    l->stack[l->depth++] = (frame){region, time};
    return 0;
}

static int emit_state(ari_event_paje *ep, location *l, double end)
{
    frame f = l->stack[--l->depth];
    ari_state s = {l->alias, "F", ep->regions[f.region], f.start, end, (int)l->depth, NULL, 0};
    if (ep->out->on_state && ep->out->on_state(ep->out->ctx, &s) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused a state");
    ep->rep.states++;
    return 0;
}

static int on_leave(void *ctx, int64_t loc, double time, int64_t region)
{
    ari_event_paje *ep = ctx;
    location *l = loc_at(ep, loc, time);
    if (!l)
        return -1;
    ep->rep.leaves++;
    if (l->depth == 0 || l->stack[l->depth - 1].region != region) {
        const char *name = region >= 0 && (size_t)region < ep->nregions ? ep->regions[region] : "?";
        if (l->depth == 0)
            return ari_error_set(&ep->err, ARI_E_INVALID_INPUT,
                                 "a Leave of '%.200s' at %.17g ns on location %" PRId64 " without its Enter", name,
                                 time, loc);
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT,
                             "a Leave of '%.200s' at %.17g ns on location %" PRId64 " while '%.200s' is open", name,
                             time, loc, ep->regions[l->stack[l->depth - 1].region]);
    }
    return emit_state(ep, l, time);
}

static int emit_event(ari_event_paje *ep, location *l, double time, const char *value, const ari_field *fields,
                      size_t nfields)
{
    ari_event e = {l->alias, "E", value, time, fields, nfields};
    if (ep->out->on_event && ep->out->on_event(ep->out->ctx, &e) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused an event");
    ep->rep.events++;
    return 0;
}

/* v in decimal into buf (at least 21 bytes), NUL-ended: what "%" PRIu64
 * prints, without printf's cost per message. */
static void decimal_u64(char *buf, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
}

/* The same for "%" PRId64 (buf at least 21 bytes). */
static void decimal_i64(char *buf, int64_t v)
{
    if (v < 0) {
        *buf++ = '-';
        decimal_u64(buf, 0 - (uint64_t)v);
    } else {
        decimal_u64(buf, (uint64_t)v);
    }
}

static int on_instant(void *ctx, int64_t loc, double time, const char *name)
{
    ari_event_paje *ep = ctx;
    location *l = loc_at(ep, loc, time);
    ep->rep.instants++;
    return l ? emit_event(ep, l, time, name ? name : "", NULL, 0) : -1;
}

static int on_collective(void *ctx, const ari_event_collective *c)
{
    ari_event_paje *ep = ctx;
    location *l = loc_at(ep, c->location, c->end);
    if (!l)
        return -1;
    ep->rep.collectives++;
    char sent[24], recv[24], root[24];
    decimal_u64(sent, c->bytes_sent);
    decimal_u64(recv, c->bytes_received);
    decimal_i64(root, c->root);
    ari_field f[] = {{"bytes_sent", sent}, {"bytes_received", recv}, {"root", root}};
    if (emit_event(ep, l, c->begin, c->op ? c->op : "collective", f, c->root >= 0 ? 3 : 2) < 0)
        return -1;
    return ep->by_request && c->has_request ? on_broadcast(ep, ep->procs[l->process].rank, c->request) : 0;
}

/* ---- messages ---- */

static int is_send(ari_msg_kind k)
{
    return k == ARI_MSG_SEND || k == ARI_MSG_ISEND;
}

static int is_receive(ari_msg_kind k)
{
    return k == ARI_MSG_RECV || k == ARI_MSG_IRECV;
}

static queue *queue_of(ari_event_paje *ep, int64_t src, int64_t dst, int64_t tag, int64_t comm)
{
    int64_t k[4] = {src, dst, tag, comm}; /* the key: these 32 bytes */
    const char *key = (const char *)k;
    size_t n = sizeof k;
    intptr_t v = (intptr_t)ari_strmap_get(ep->queue_ids, key, n);
    if (v)
        return &ep->queues[v - 1];
    if (ari_vec_reserve((void **)&ep->queues, &ep->cap_queues, ep->nqueues + 1, sizeof *ep->queues) < 0 ||
        !ari_strmap_put(ep->queue_ids, key, n, (void *)(intptr_t)(ep->nqueues + 1))) {
        fail_nomem(ep);
        return NULL;
    }
    queue *q = &ep->queues[ep->nqueues++];
    memset(q, 0, sizeof *q);
    return q;
}

static int emit_link(ari_event_paje *ep, const pending *send, const pending *recv, int64_t tag, int64_t comm)
{
    char key[32], bytes[24], tags[24], comms[24];
    key[0] = 'm';
    decimal_u64(key + 1, ep->nlinks++);
    decimal_u64(bytes, send->bytes);
    decimal_i64(tags, tag);
    decimal_i64(comms, comm);
    ari_field f[] = {{"bytes", bytes}, {"tag", tags}, {"communicator", comms}};
    const location *src = &ep->locs[send->location], *dst = &ep->locs[recv->location];
    ari_link k = {"0", "M", "message", src->alias, dst->alias, key, send->time, recv->time, f, 3};
    if (ep->out->on_link && ep->out->on_link(ep->out->ctx, &k) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused a message");
    ep->rep.links++;
    ari_event_paje_message m = {src->alias,      dst->alias, ep->procs[src->process].rank,
                                ep->procs[dst->process].rank, tag, comm, send->bytes, send->time, recv->time};
    if (ep->obs.message && ep->obs.message(ep->obs.ctx, &m) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused a message");
    return 0;
}

/* By request, a broadcast: every receive of its key (root, request),
 * waiting or to come, is one of its deliveries. */
static int on_broadcast(ari_event_paje *ep, int64_t root, uint64_t request)
{
    queue *q = queue_of(ep, root, INT64_MIN, (int64_t)request, INT64_MIN);
    if (!q)
        return -1;
    q->delivered = q->broadcast = 1;
    if (q->receives && q->head < q->n) {
        ep->rep.redelivered += q->n - q->head;
        ep->npending -= q->n - q->head;
        q->head = q->n = 0;
    }
    return 0;
}

static int on_message(void *ctx, const ari_event_msg *m)
{
    ari_event_paje *ep = ctx;
    location *l = loc_at(ep, m->location, m->time);
    if (!l)
        return -1;
    ep->rep.message_events++;
    int receive = is_receive(m->kind);
    if (!receive && !is_send(m->kind))
        return 0; /* request posts and completions: the data moved at the other events */
    int64_t own = ep->procs[l->process].rank;
    queue *q;
    if (ep->by_request) /* the key (sender, INT64_MIN, request, INT64_MIN) is no FIFO key */
        q = queue_of(ep, receive ? m->peer : own, INT64_MIN, (int64_t)m->request, INT64_MIN);
    else
        q = receive ? queue_of(ep, m->peer, own, m->tag, m->communicator)
                    : queue_of(ep, own, m->peer, m->tag, m->communicator);
    if (!q)
        return -1;
    pending me = {m->location, m->time, m->bytes};
    if (q->head < q->n && q->receives != receive) { /* the oldest partner waiting */
        pending other = q->items[q->head++];
        ep->npending--;
        if (q->head == q->n)
            q->head = q->n = 0;
        q->delivered = 1;
        return receive ? emit_link(ep, &other, &me, m->tag, m->communicator)
                       : emit_link(ep, &me, &other, m->tag, m->communicator);
    }
    if (receive && ep->by_request && (q->broadcast || (q->delivered && q->head == q->n))) {
        ep->rep.redelivered++; /* the same message begun again, or a broadcast's copy */
        return 0;
    }
    if (ep->npending >= ARI_EP_MAX_PENDING)
        return ari_error_set(&ep->err, ARI_E_TOO_LARGE, "more than %zu message sides wait for their partner",
                             ARI_EP_MAX_PENDING);
    if (ari_vec_reserve((void **)&q->items, &q->cap, q->n + 1, sizeof *q->items) < 0)
        return fail_nomem(ep);
    q->receives = receive;
    q->items[q->n++] = me;
    ep->npending++;
    return 0;
}

/* ---- metric samples ---- */

static int64_t metric_id(ari_event_paje *ep, const char *name)
{
    intptr_t v = (intptr_t)ari_strmap_get(ep->metric_ids, name, strlen(name));
    if (v)
        return v - 1;
    char alias[ALIAS_SIZE];
    snprintf(alias, sizeof alias, "V%zu", ep->nmetrics);
    if (ari_vec_reserve((void **)&ep->metrics, &ep->cap_metrics, ep->nmetrics + 1, sizeof *ep->metrics) < 0 ||
        !(ep->metrics[ep->nmetrics] = strdup(alias)) ||
        !ari_strmap_put(ep->metric_ids, name, strlen(name), (void *)(intptr_t)(ep->nmetrics + 1)))
        return fail_nomem(ep);
    if (define(ep, ARI_NATURE_VARIABLE, alias, name, "T", NULL, NULL) < 0)
        return -1;
    return (int64_t)ep->nmetrics++;
}

static int emit_piece(ari_event_paje *ep, const piece *p, double end)
{
    ari_variable v = {ep->locs[p->location].alias, ep->metrics[p->metric], p->start, end, p->value};
    if (ep->out->on_variable && ep->out->on_variable(ep->out->ctx, &v) != 0)
        return ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused a metric sample");
    ep->rep.variables++;
    return 0;
}

static int on_metric(void *ctx, int64_t loc, double time, const char *metric, const char *unit, double value)
{
    (void)unit;
    ari_event_paje *ep = ctx;
    if (!loc_at(ep, loc, time))
        return -1;
    ep->rep.metric_samples++;
    int64_t id = metric_id(ep, metric ? metric : "metric");
    if (id < 0)
        return -1;
    char key[48];
    int n = snprintf(key, sizeof key, "%" PRId64 ":%" PRId64, loc, id);
    intptr_t v = (intptr_t)ari_strmap_get(ep->piece_ids, key, (size_t)n);
    if (v) {
        piece *p = &ep->pieces[v - 1];
        if (emit_piece(ep, p, time) < 0)
            return -1;
        p->start = time;
        p->value = value;
        return 0;
    }
    if (ari_vec_reserve((void **)&ep->pieces, &ep->cap_pieces, ep->npieces + 1, sizeof *ep->pieces) < 0 ||
        !ari_strmap_put(ep->piece_ids, key, (size_t)n, (void *)(intptr_t)(ep->npieces + 1)))
        return fail_nomem(ep);
    ep->pieces[ep->npieces++] = (piece){loc, id, time, value};
    return 0;
}

/* Kept while they fit in ARI_EP_MAX_NOTES bytes; a note's value is the
 * reader's JSON text. */
static int on_note(void *ctx, const char *key, const char *json_value)
{
    ari_event_paje *ep = ctx;
    if (!key || !json_value || ep->notes.len + strlen(key) + strlen(json_value) + 8 > ARI_EP_MAX_NOTES)
        return 0;
    if (ep->notes.len)
        ari_sbuf_add_char(&ep->notes, ',');
    ari_sbuf_json_string(&ep->notes, key);
    ari_sbuf_add_char(&ep->notes, ':');
    ari_sbuf_add_str(&ep->notes, json_value);
    return ari_sbuf_failed(&ep->notes) ? fail_nomem(ep) : 0;
}

static void on_progress(void *ctx, double fraction)
{
    ari_event_paje *ep = ctx;
    if (ep->out->on_progress)
        ep->out->on_progress(ep->out->ctx, fraction, 1.0);
}

/* ---- life ---- */

ari_event_paje *ari_event_paje_new(const ari_sink *out, ari_error *err)
{
    ari_event_paje *ep = ari_zalloc(sizeof *ep, err);
    if (!ep)
        return NULL;
    ep->out = out;
    ep->proc_ids = ari_strmap_new();
    ep->metric_ids = ari_strmap_new();
    ep->piece_ids = ari_strmap_new();
    ep->queue_ids = ari_strmap_new();
    ep->region_names = ari_strmap_new();
    ep->proc_nodes = ari_strmap_new();
    ep->proc_level = -1;
    if (!ep->proc_nodes || !ep->proc_ids || !ep->metric_ids || !ep->piece_ids || !ep->queue_ids || !ep->region_names) {
        ari_event_paje_free(ep);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    ep->sink = (ari_event_sink){ep,         on_process, on_location, on_region,   on_communicator,
                                on_enter,   on_leave,   on_instant,  on_message,  on_collective,
                                on_metric,  on_note,    on_progress, on_system_node, on_process_node};
    return ep;
}

void ari_event_paje_observe(ari_event_paje *ep, const ari_event_paje_observer *o)
{
    if (o)
        ep->obs = *o;
    else
        memset(&ep->obs, 0, sizeof ep->obs);
}

void ari_event_paje_match_by_request(ari_event_paje *ep)
{
    ep->by_request = 1;
}

const char *ari_event_paje_notes(ari_event_paje *ep)
{
    ari_sbuf_reset(&ep->notes_out);
    ari_sbuf_add_char(&ep->notes_out, '{');
    ari_sbuf_add(&ep->notes_out, ari_sbuf_text(&ep->notes), ep->notes.len);
    ari_sbuf_add_char(&ep->notes_out, '}');
    return ari_sbuf_failed(&ep->notes_out) ? NULL : ari_sbuf_text(&ep->notes_out);
}

const ari_event_sink *ari_event_paje_sink(ari_event_paje *ep)
{
    return &ep->sink;
}

const ari_error *ari_event_paje_error(const ari_event_paje *ep)
{
    return &ep->err;
}

static int close_locations(ari_event_paje *ep)
{
    for (size_t i = 0; i < ep->nlocs; i++) {
        location *l = &ep->locs[i];
        while (l->depth > 0) {
            ep->rep.unclosed++;
            if (emit_state(ep, l, l->last) < 0)
                return -1;
        }
    }
    for (size_t i = 0; i < ep->npieces; i++)
        if (emit_piece(ep, &ep->pieces[i], ep->locs[ep->pieces[i].location].last) < 0)
            return -1;
    return 0;
}

static int end_containers(ari_event_paje *ep)
{
    if (!ep->out->on_container_end)
        return 0;
    double *proc_end = calloc(ep->nprocs ? ep->nprocs : 1, sizeof *proc_end);
    if (!proc_end)
        return fail_nomem(ep);
    int rc = 0;
    for (size_t i = 0; i < ep->nlocs && rc == 0; i++) {
        location *l = &ep->locs[i];
        if (l->last > proc_end[l->process])
            proc_end[l->process] = l->last;
        if (ep->out->on_container_end(ep->out->ctx, l->alias, l->last) != 0)
            rc = -1;
    }
    for (size_t i = 0; i < ep->nprocs && rc == 0; i++) {
        for (int64_t n = ep->procs[i].node; n >= 0; n = ep->nodes[n].parent)
            if (proc_end[i] > ep->nodes[n].end)
                ep->nodes[n].end = proc_end[i];
        if (ep->out->on_container_end(ep->out->ctx, ep->procs[i].alias, proc_end[i]) != 0)
            rc = -1;
    }
    for (size_t i = ep->nnodes; i-- > 0 && rc == 0;) /* children (higher indexes) first */
        if (ep->nodes[i].alias[0] && ep->out->on_container_end(ep->out->ctx, ep->nodes[i].alias, ep->nodes[i].end) != 0)
            rc = -1;
    free(proc_end);
    return rc < 0 ? ari_error_set(&ep->err, ARI_E_INVALID_INPUT, "the trace store refused a container's end") : 0;
}

int ari_event_paje_finish(ari_event_paje *ep, ari_event_paje_report *rep, ari_error *err)
{
    if (close_locations(ep) < 0 || end_containers(ep) < 0) {
        if (err)
            *err = ep->err;
        return -1;
    }
    for (size_t i = 0; i < ep->nqueues; i++) {
        queue *q = &ep->queues[i];
        if (q->receives && q->delivered && ep->by_request) /* its send was received first elsewhere */
            ep->rep.redelivered += q->n - q->head;
        else if (q->receives)
            ep->rep.unmatched_receives += q->n - q->head;
        else
            ep->rep.unmatched_sends += q->n - q->head;
    }
    if (ep->rep.redelivered) { /* into the notes, so the summary tells them from unmatched ones */
        char v[24];
        snprintf(v, sizeof v, "%" PRIu64, ep->rep.redelivered);
        if (on_note(ep, "redelivered_receives", v) < 0) {
            if (err)
                *err = ep->err;
            return -1;
        }
    }
    ep->rep.processes = ep->nprocs;
    ep->rep.locations = ep->nlocs;
    ep->rep.regions = ep->nregions;
    if (rep)
        *rep = ep->rep;
    return 0;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void ari_event_paje_free(ari_event_paje *ep)
{
    if (!ep)
        return;
    for (size_t i = 0; i < ep->nlocs; i++)
        free(ep->locs[i].stack);
    for (size_t i = 0; i < ep->nqueues; i++)
        free(ep->queues[i].items);
    for (size_t i = 0; i < ep->nnodes; i++)
        free(ep->nodes[i].cls), free(ep->nodes[i].name);
    free(ep->nodes);
    ari_strmap_free(ep->proc_nodes);
    free(ep->procs);
    free(ep->locs);
    free(ep->queues);
    free(ep->pieces);
    free_strings(ep->regions, ep->nregions);
    free_strings(ep->metrics, ep->nmetrics);
    ari_strmap_free(ep->proc_ids);
    ari_strmap_free(ep->metric_ids);
    ari_strmap_free(ep->piece_ids);
    ari_strmap_free(ep->queue_ids);
    ari_strmap_free(ep->region_names);
    ari_sbuf_free(&ep->notes);
    ari_sbuf_free(&ep->notes_out);
    free(ep);
}
