/* trace_stacks.c: speedscope's stack reconstruction for one thread of a
 * Chrome trace (see trace_stacks.h): the B/E queues and their matching
 * rules, a call tree built in append order, and the collapsed stacks and
 * frame weights read from it.
 */
#include "analysis/trace_stacks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/vec.h"

/* ---- the profile builder: frames, call-tree nodes, samples --------------------------- */

typedef struct ts_node {
    size_t frame;
    ptrdiff_t parent;     /* -1 for a child of the root */
    ptrdiff_t last_child; /* -1 when none */
    int frozen;
} ts_node;

typedef struct ts_sample {
    ptrdiff_t node; /* -1: nothing open */
    double weight;
} ts_sample;

typedef struct ts_builder {
    ari_trace_stacks *out;
    size_t cap_frames;
    ari_strmap *by_key; /* key -> frame index + 1 */
    ts_node *nodes;
    size_t nnodes, cap_nodes;
    ptrdiff_t root_last_child;
    ts_sample *samples;
    size_t nsamples, cap_samples;
    size_t *stamp; /* per frame: last weighting round that counted it */
    size_t round;
    ari_error *err;
} ts_builder;

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* The index of the frame with this key, added (with this name) if new. */
static ptrdiff_t frame_of(ts_builder *b, const char *key, const char *name)
{
    void *v = ari_strmap_get(b->by_key, key, strlen(key));
    if (v)
        return (ptrdiff_t)((uintptr_t)v - 1);
    ari_trace_stacks *o = b->out;
    if (ari_vec_reserve((void **)&o->frames, &b->cap_frames, o->nframes + 1, sizeof *o->frames) < 0)
        return -1;
    size_t *st = realloc(b->stamp, b->cap_frames * sizeof *st);
    if (!st)
        return -1;
    b->stamp = st;
    ari_trace_frame *f = &o->frames[o->nframes];
    f->key = strdup(key);
    f->name = strdup(name);
    f->self = f->total = 0;
    if (!f->key || !f->name) {
        free(f->key);
        free(f->name);
        return -1;
    }
    b->stamp[o->nframes] = 0;
    if (!ari_strmap_put(b->by_key, key, strlen(key), (void *)(uintptr_t)(o->nframes + 1))) {
        free(f->key);
        free(f->name);
        return -1;
    }
    return (ptrdiff_t)o->nframes++;
}

/* A child of parent (-1: the root) for frame: the last child again if it
 * is the same frame and not frozen, else a new node. */
static ptrdiff_t child_of(ts_builder *b, ptrdiff_t parent, size_t frame)
{
    ptrdiff_t *last = parent < 0 ? &b->root_last_child : &b->nodes[parent].last_child;
    if (*last >= 0 && !b->nodes[*last].frozen && b->nodes[*last].frame == frame)
        return *last;
    if (ari_vec_reserve((void **)&b->nodes, &b->cap_nodes, b->nnodes + 1, sizeof *b->nodes) < 0)
        return -2;
    last = parent < 0 ? &b->root_last_child : &b->nodes[parent].last_child;
    b->nodes[b->nnodes] = (ts_node){frame, parent, -1, 0};
    *last = (ptrdiff_t)b->nnodes;
    return (ptrdiff_t)b->nnodes++;
}

/* Time spent with node on top; consecutive samples of a node merge. */
static int add_sample(ts_builder *b, ptrdiff_t node, double weight)
{
    if (weight <= 0)
        return 0;
    if (b->nsamples && b->samples[b->nsamples - 1].node == node) {
        b->samples[b->nsamples - 1].weight += weight;
        return 0;
    }
    if (ari_vec_reserve((void **)&b->samples, &b->cap_samples, b->nsamples + 1, sizeof *b->samples) < 0)
        return nomem(b->err);
    b->samples[b->nsamples++] = (ts_sample){node, weight};
    return 0;
}

/* Adds weight to the frames of a stack of nodes (leaf last): self to the
 * leaf's frame, total once to each distinct frame. */
static void weigh_frames(ts_builder *b, const ptrdiff_t *stack, size_t depth, double weight)
{
    if (weight <= 0 || depth == 0)
        return;
    b->round++;
    for (size_t i = 0; i < depth; i++) {
        size_t f = b->nodes[stack[i]].frame;
        if (b->stamp[f] != b->round) {
            b->stamp[f] = b->round;
            b->out->frames[f].total += weight;
        }
    }
    b->out->frames[b->nodes[stack[depth - 1]].frame].self += weight;
}

static void builder_free(ts_builder *b)
{
    ari_strmap_free(b->by_key);
    free(b->nodes);
    free(b->samples);
    free(b->stamp);
}

/* ---- collapsed stacks from the samples --------------------------------------------- */

static char *path_text(const ts_builder *b, ptrdiff_t node)
{
    size_t len = 0, depth = 0;
    for (ptrdiff_t n = node; n >= 0; n = b->nodes[n].parent, depth++)
        len += strlen(b->out->frames[b->nodes[n].frame].name) + 1;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    size_t pos = len ? len - 1 : 0;
    s[pos] = '\0';
    for (ptrdiff_t n = node; n >= 0; n = b->nodes[n].parent) {
        const char *name = b->out->frames[b->nodes[n].frame].name;
        size_t k = strlen(name);
        pos -= k;
        memcpy(s + pos, name, k);
        if (pos) {
            pos--;
            s[pos] = ';';
        }
    }
    return s;
}

/* One entry per run of samples of the same node. Like speedscope's dump,
 * time with nothing open after the last call is not listed. */
static int collapse(ts_builder *b)
{
    size_t n = b->nsamples;
    while (n && b->samples[n - 1].node < 0)
        n--;
    ari_trace_stacks *o = b->out;
    o->stacks = calloc(n ? n : 1, sizeof *o->stacks);
    if (!o->stacks)
        return nomem(b->err);
    for (size_t i = 0; i < n; i++) {
        o->stacks[i].stack = path_text(b, b->samples[i].node);
        o->stacks[i].weight = b->samples[i].weight;
        if (!o->stacks[i].stack)
            return nomem(b->err);
        o->nstacks++;
    }
    return 0;
}

/* ---- B/E/X events: the two queues ------------------------------------------------- */

typedef struct ts_qev {
    double ts;
    const char *name; /* NULL when absent */
    char *key;
    size_t seq;       /* position before the stable sort */
} ts_qev;

static int same_name(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static char *key_of(const ari_trace_event *e)
{
    const char *name = e->name && e->name[0] ? e->name : "(unnamed)";
    char *k;
    int rc = e->args ? asprintf(&k, "%s %s", name, e->args) : asprintf(&k, "%s", name);
    return rc < 0 ? NULL : k;
}

static double x_dur(const ari_trace_event *e)
{
    return e->dur;
}

static int compare_x(const void *pa, const void *pb)
{
    const ari_trace_event *a = *(const ari_trace_event *const *)pa, *b = *(const ari_trace_event *const *)pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (x_dur(a) != x_dur(b))
        return x_dur(a) > x_dur(b) ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: file order */
}

static int compare_qev(const void *pa, const void *pb)
{
    const ts_qev *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct ts_queues {
    ts_qev *b, *e;
    size_t nb, ne;
} ts_queues;

static int push_q(ts_qev *q, size_t *n, double ts, const ari_trace_event *ev)
{
    char *key = key_of(ev);
    if (!key)
        return -1;
    q[*n] = (ts_qev){ts, ev->name, key, *n};
    (*n)++;
    return 0;
}

/* The queues of a thread, timestamps rebased on the earliest event. */
static int build_queues(const ari_trace_event *ev, size_t n, ts_queues *q, ari_error *err)
{
    double first = 0;
    size_t nx = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || ev[i].ts < first)
            first = ev[i].ts;
        if (ev[i].phase != 'B' && ev[i].phase != 'E' && ev[i].phase != 'X')
            return ari_error_set(err, ARI_E_INVALID_INPUT, "event %zu: phase '%c' is not B, E or X", i,
                                 ev[i].phase);
        nx += ev[i].phase == 'X';
    }
    q->b = calloc(n ? n : 1, sizeof *q->b);
    q->e = calloc(n ? n : 1, sizeof *q->e);
    const ari_trace_event **xs = calloc(nx ? nx : 1, sizeof *xs);
    int rc = q->b && q->e && xs ? 0 : -1;
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (ev[i].phase == 'B')
            rc = push_q(q->b, &q->nb, ev[i].ts - first, &ev[i]);
        else if (ev[i].phase == 'E')
            rc = push_q(q->e, &q->ne, ev[i].ts - first, &ev[i]);
        else
            xs[k++] = &ev[i];
    }
    if (rc == 0)
        qsort(xs, nx, sizeof *xs, compare_x);
    for (size_t i = 0; rc == 0 && i < nx; i++) {
        rc = push_q(q->b, &q->nb, xs[i]->ts - first, xs[i]);
        if (rc == 0)
            rc = push_q(q->e, &q->ne, xs[i]->ts - first + x_dur(xs[i]), xs[i]);
    }
    free(xs);
    if (rc < 0)
        return nomem(err);
    qsort(q->b, q->nb, sizeof *q->b, compare_qev);
    qsort(q->e, q->ne, sizeof *q->e, compare_qev);
    return 0;
}

static void queues_free(ts_queues *q)
{
    for (size_t i = 0; q->b && i < q->nb; i++)
        free(q->b[i].key);
    for (size_t i = 0; q->e && i < q->ne; i++)
        free(q->e[i].key);
    free(q->b);
    free(q->e);
}

/* ---- B/E/X events: the main loop -------------------------------------------------- */

typedef struct ts_open {
    ptrdiff_t node;
    const ts_qev *begin;
} ts_open;

typedef struct ts_run {
    ts_builder b;
    ts_open *stack;
    ptrdiff_t *nodes; /* the open nodes, for weigh_frames */
    size_t depth, cap;
    double last, total;
    int name_only;
} ts_run;

/* Time since the last event goes to the current top (or to "nothing"). */
static int advance(ts_run *r, double value)
{
    double delta = value - r->last;
    if (delta > 0) {
        int rc = add_sample(&r->b, r->depth ? r->stack[r->depth - 1].node : -1, delta);
        if (rc)
            return rc;
        weigh_frames(&r->b, r->nodes, r->depth, delta);
    }
    r->last = value;
    if (value > r->total)
        r->total = value;
    return 0;
}

static int enter(ts_run *r, const ts_qev *bq)
{
    const char *name = r->name_only ? (bq->name && bq->name[0] ? bq->name : "(unnamed)") : bq->key;
    ptrdiff_t f = frame_of(&r->b, bq->key, name);
    if (f < 0)
        return nomem(r->b.err);
    int rc = advance(r, bq->ts);
    if (rc)
        return rc;
    ptrdiff_t node = child_of(&r->b, r->depth ? r->stack[r->depth - 1].node : -1, (size_t)f);
    if (node < 0 || ari_vec_reserve((void **)&r->stack, &r->cap, r->depth + 1, sizeof *r->stack) < 0)
        return nomem(r->b.err);
    ptrdiff_t *nodes = realloc(r->nodes, r->cap * sizeof *nodes);
    if (!nodes)
        return nomem(r->b.err);
    r->nodes = nodes;
    r->stack[r->depth] = (ts_open){node, bq};
    r->nodes[r->depth++] = node;
    return 0;
}

static int leave(ts_run *r, double value)
{
    int rc = advance(r, value);
    if (rc)
        return rc;
    r->b.nodes[r->stack[r->depth - 1].node].frozen = 1;
    r->depth--;
    return 0;
}

/* Among the E events at the front's time, moves one matching the stack
 * top (by key, else by name) to the front. */
static void prefer_matching_end(const ts_run *r, ts_qev *e, size_t ne)
{
    if (r->depth == 0)
        return;
    const ts_qev *top = r->stack[r->depth - 1].begin;
    for (int by_name = 0; by_name < 2; by_name++)
        for (size_t i = 1; i < ne && e[i].ts <= e[0].ts; i++) {
            int match = by_name ? same_name(e[i].name, top->name) : strcmp(e[i].key, top->key) == 0;
            if (match) {
                ts_qev t = e[0];
                e[0] = e[i];
                e[i] = t;
                return;
            }
        }
}

static int take_end(ts_run *r, const ts_qev *e)
{
    if (r->depth == 0 || !same_name(e->name, r->stack[r->depth - 1].begin->name)) {
        r->b.out->ignored_ends++;
        return 0;
    }
    return leave(r, e->ts);
}

static int run_queues(ts_run *r, ts_queues *q)
{
    size_t ib = 0, ie = 0;
    int rc = 0;
    while (rc == 0 && (ib < q->nb || ie < q->ne)) {
        int take_b;
        if (ie == q->ne)
            take_b = 1;
        else if (ib == q->nb)
            take_b = 0;
        else if (q->b[ib].ts != q->e[ie].ts)
            take_b = q->b[ib].ts < q->e[ie].ts;
        else /* same time: B first only for a zero-length event (same key) */
            take_b = strcmp(q->b[ib].key, q->e[ie].key) == 0;
        if (take_b) {
            rc = enter(r, &q->b[ib++]);
        } else {
            prefer_matching_end(r, q->e + ie, q->ne - ie);
            rc = take_end(r, &q->e[ie++]);
        }
    }
    while (rc == 0 && r->depth) {
        r->b.out->closed_at_end++;
        rc = leave(r, r->total);
    }
    return rc;
}

static int builder_init(ts_builder *b, ari_trace_stacks *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    memset(b, 0, sizeof *b);
    b->out = out;
    b->err = err;
    b->root_last_child = -1;
    b->by_key = ari_strmap_new();
    return b->by_key ? 0 : nomem(err);
}

int ari_trace_stacks_from_events(const ari_trace_event *ev, size_t n, int name_only, ari_trace_stacks *out,
                                 ari_error *err)
{
    ts_run r;
    memset(&r, 0, sizeof r);
    r.name_only = name_only;
    ts_queues q = {0};
    int rc = builder_init(&r.b, out, err);
    if (rc == 0 && n && !ev)
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "no events given");
    if (rc == 0)
        rc = build_queues(ev, n, &q, err);
    if (rc == 0)
        rc = run_queues(&r, &q);
    if (rc == 0)
        rc = collapse(&r.b);
    queues_free(&q);
    free(r.stack);
    free(r.nodes);
    builder_free(&r.b);
    return rc;
}

/* ---- sampled stacks ----------------------------------------------------------------- */

static const ari_trace_stack_frame *find_frame(const ari_strmap *ids, const ari_trace_stack_frame *frames,
                                               const char *id)
{
    void *v = ari_strmap_get(ids, id, strlen(id));
    return v ? &frames[(uintptr_t)v - 1] : NULL;
}

static int is_root_id(const char *id)
{
    return !id || !id[0] || strcmp(id, "0") == 0;
}

/* The frames of a sample, leaf first, into chain[]; returns the depth or -1. */
static ptrdiff_t sample_chain(const ari_strmap *ids, const ari_trace_stack_frame *frames, size_t nframes,
                              const char *sf, const ari_trace_stack_frame **chain, ari_error *err)
{
    size_t depth = 0;
    for (const char *id = sf; !is_root_id(id);) {
        const ari_trace_stack_frame *f = find_frame(ids, frames, id);
        if (!f)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "sample refers to unknown stack frame \"%s\"", id);
        if (depth == nframes)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "stack frame \"%s\": parent chain has a cycle", sf);
        chain[depth++] = f;
        id = f->parent;
    }
    return (ptrdiff_t)depth;
}

/* Appends one sample in append order (speedscope's StackListProfileBuilder). */
static int append_sample(ts_builder *b, const ari_trace_stack_frame **chain, size_t depth, double weight,
                         ptrdiff_t *nodes)
{
    ptrdiff_t node = -1;
    for (size_t i = 0; i < depth; i++) {
        const ari_trace_stack_frame *f = chain[depth - 1 - i];
        char *key;
        if (asprintf(&key, "%s:%s", f->name ? f->name : "undefined", f->category ? f->category : "undefined") < 0)
            return nomem(b->err);
        ptrdiff_t fi = frame_of(b, key, f->name ? f->name : "undefined");
        free(key);
        if (fi < 0 || (node = child_of(b, node, (size_t)fi)) < 0)
            return nomem(b->err);
        nodes[i] = node;
    }
    /* The leaf's children are done: only its last one could be reused. */
    ptrdiff_t last = node < 0 ? b->root_last_child : b->nodes[node].last_child;
    if (last >= 0)
        b->nodes[last].frozen = 1;
    weigh_frames(b, nodes, depth, weight);
    return add_sample(b, node, weight);
}

static int run_samples(ts_builder *b, const ari_trace_sample *s, size_t n, const ari_trace_stack_frame *frames,
                       size_t nframes)
{
    ari_strmap *ids = ari_strmap_new();
    const ari_trace_stack_frame **chain = calloc(nframes + 1, sizeof *chain);
    ptrdiff_t *nodes = calloc(nframes + 1, sizeof *nodes);
    int rc = ids && chain && nodes ? 0 : nomem(b->err);
    for (size_t i = 0; rc == 0 && i < nframes; i++)
        if (!frames[i].id || !ari_strmap_put(ids, frames[i].id, strlen(frames[i].id), (void *)(uintptr_t)(i + 1)))
            rc = frames[i].id ? nomem(b->err) : ari_error_set(b->err, ARI_E_INVALID_INPUT, "stack frame without id");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double weight = i + 1 < n ? s[i + 1].ts - s[i].ts : 0;
        if (weight < 0) {
            rc = ari_error_set(b->err, ARI_E_INVALID_INPUT, "sample %zu goes back in time", i + 1);
            break;
        }
        if (weight == 0)
            continue; /* no effect, as in speedscope */
        ptrdiff_t depth = sample_chain(ids, frames, nframes, s[i].sf, chain, b->err);
        rc = depth < 0 ? -1 : append_sample(b, chain, (size_t)depth, weight, nodes);
    }
    ari_strmap_free(ids);
    free(chain);
    free(nodes);
    return rc;
}

int ari_trace_stacks_from_samples(const ari_trace_sample *samples, size_t n, const ari_trace_stack_frame *frames,
                                  size_t nframes, ari_trace_stacks *out, ari_error *err)
{
    ts_builder b;
    int rc = builder_init(&b, out, err);
    if (rc == 0 && ((n && !samples) || (nframes && !frames)))
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "no samples or frames given");
    if (rc == 0)
        rc = run_samples(&b, samples, n, frames, nframes);
    if (rc == 0)
        rc = collapse(&b);
    builder_free(&b);
    return rc;
}

void ari_trace_stacks_free(ari_trace_stacks *out)
{
    if (!out)
        return;
    for (size_t i = 0; i < out->nstacks; i++)
        free(out->stacks[i].stack);
    for (size_t i = 0; i < out->nframes; i++) {
        free(out->frames[i].key);
        free(out->frames[i].name);
    }
    free(out->stacks);
    free(out->frames);
    memset(out, 0, sizeof *out);
}
