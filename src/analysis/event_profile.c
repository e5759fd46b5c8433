/* event_profile.c: the function analyses of an event trace (flat profile,
 * time profile, load imbalance, idle time, caller-callee) from its Function
 * states, one location at a time with a stack of the open calls. The
 * definitions follow Pipit's Trace; see event_profile.h. */
#include "analysis/event_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/vec.h"

/* ---- a map from a 64-bit key to an index (open addressing) ---- */

typedef struct keymap {
    uint64_t *keys; /* key + 1; 0 = empty */
    uint32_t *vals;
    size_t cap, n; /* cap: a power of two */
} keymap;

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
}

static int keymap_grow(keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = mix(m->keys[i]) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* The slot of key: *found 1 when present. -1 when out of memory. */
static int64_t keymap_slot(keymap *m, uint64_t key, int *found)
{
    if ((m->n + 1) * 4 > m->cap * 3 && keymap_grow(m) < 0)
        return -1;
    size_t j = mix(key + 1) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key + 1)
        j = (j + 1) & (m->cap - 1);
    *found = m->keys[j] != 0;
    return (int64_t)j;
}

static void keymap_free(keymap *m)
{
    free(m->keys);
    free(m->vals);
}

static uint64_t pair_key(int32_t a, int32_t b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

/* ---- state ---- */

typedef struct frame {
    int32_t name;
    double start, end;
    double children; /* inclusive time of the closed children */
    int has_children;
} frame;

struct ari_evp {
    int32_t nlocs, nnames;
    int64_t *loc_rank;
    uint8_t *idle;
    uint8_t *seen; /* per location: its states began */
    int32_t cur;   /* the location being read, -1 none */
    frame *stack;
    size_t depth, cap_stack;
    double cursor; /* where the top frame's exclusive piece starts */
    ari_evp_cell *cells;
    size_t ncells, cap_cells;
    keymap cell_ids;
    ari_evp_pair *pairs;
    size_t npairs, cap_pairs;
    keymap pair_ids;
    int64_t with_parent, with_children;
    ari_evp_loc *locs;
    int bins;
    double t0, t1, width;
    double *edges; /* bins + 1 */
    double **tp;   /* per name: bins values or NULL */
    double *idle_bins;
    size_t tp_cells; /* values allocated in tp */
    int finished;
};

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory in the event-trace function profile");
}

ari_evp *ari_evp_new(int32_t nlocs, int32_t nnames, const ari_evp_options *o, ari_error *err)
{
    if (nlocs < 0 || nnames < 0 || (o && (o->bins < 0 || o->bins > ARI_EVP_MAX_BINS))) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "bad event profile sizes (%d locations, %d functions)",
                      (int)nlocs, (int)nnames);
        return NULL;
    }
    if (o && o->bins > 0 && !(o->t1 > o->t0 && isfinite(o->t0) && isfinite(o->t1))) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "the time profile needs an end after its start");
        return NULL;
    }
    ari_evp *p = ari_zalloc(sizeof *p, err);
    if (!p)
        return NULL;
    p->nlocs = nlocs;
    p->nnames = nnames;
    p->cur = -1;
    size_t nl = nlocs ? (size_t)nlocs : 1, nn = nnames ? (size_t)nnames : 1;
    p->loc_rank = malloc(nl * sizeof *p->loc_rank);
    p->idle = calloc(nn, 1);
    p->seen = calloc(nl, 1);
    p->locs = calloc(nl, sizeof *p->locs);
    p->tp = calloc(nn, sizeof *p->tp);
    if (!p->loc_rank || !p->idle || !p->seen || !p->locs || !p->tp)
        goto oom;
    for (int32_t i = 0; i < nlocs; i++)
        p->loc_rank[i] = o && o->loc_rank ? o->loc_rank[i] : i;
    if (o && o->idle)
        memcpy(p->idle, o->idle, (size_t)nnames);
    if (o && o->bins > 0) {
        p->bins = o->bins;
        p->t0 = o->t0;
        p->t1 = o->t1;
        p->width = (o->t1 - o->t0) / o->bins;
        p->edges = malloc(((size_t)o->bins + 1) * sizeof *p->edges);
        p->idle_bins = calloc((size_t)o->bins, sizeof *p->idle_bins);
        if (!p->edges || !p->idle_bins)
            goto oom;
        /* as numpy.linspace: start + i * step, the last edge exactly t1 */
        for (int i = 0; i < o->bins; i++)
            p->edges[i] = o->t0 + i * p->width;
        p->edges[o->bins] = o->t1;
    }
    return p;
oom:
    nomem(err);
    ari_evp_free(p);
    return NULL;
}

void ari_evp_free(ari_evp *p)
{
    if (!p)
        return;
    if (p->tp)
        for (int32_t i = 0; i < p->nnames; i++)
            free(p->tp[i]);
    free(p->tp);
    free(p->loc_rank);
    free(p->idle);
    free(p->seen);
    free(p->stack);
    free(p->cells);
    keymap_free(&p->cell_ids);
    free(p->pairs);
    keymap_free(&p->pair_ids);
    free(p->locs);
    free(p->edges);
    free(p->idle_bins);
    free(p);
}

/* ---- the time profile: a function's exclusive piece [a, b] ---- */

static int tp_piece(ari_evp *p, int32_t name, double a, double b, ari_error *err)
{
    if (!p->bins)
        return 0;
    if (a < p->t0)
        a = p->t0;
    if (b > p->t1)
        b = p->t1;
    if (!(b > a))
        return 0;
    if (!p->tp[name]) {
        if (p->tp_cells + (size_t)p->bins > ARI_EVP_MAX_TP_CELLS)
            return ari_error_set(err, ARI_E_TOO_LARGE,
                                 "the time profile would hold more than %d values: ask for fewer bins",
                                 ARI_EVP_MAX_TP_CELLS);
        if (!(p->tp[name] = calloc((size_t)p->bins, sizeof(double))))
            return nomem(err);
        p->tp_cells += (size_t)p->bins;
    }
    double *v = p->tp[name];
    double x = floor((a - p->t0) / p->width);
    int i = x < 0 ? 0 : x > p->bins - 1 ? p->bins - 1 : (int)x;
    /* the edges as computed, so that rounding does not move time across */
    while (i > 0 && a < p->edges[i])
        i--;
    while (i < p->bins - 1 && a >= p->edges[i + 1])
        i++;
    for (; i < p->bins && p->edges[i] < b; i++) {
        double lo = a > p->edges[i] ? a : p->edges[i];
        double hi = b < p->edges[i + 1] ? b : p->edges[i + 1];
        if (hi > lo)
            v[i] += hi - lo;
    }
    return 0;
}

/* ---- cells, pairs ---- */

static int add_cell(ari_evp *p, int32_t loc, int32_t name, double inc, double exc, ari_error *err)
{
    int found;
    int64_t j = keymap_slot(&p->cell_ids, pair_key(loc, name), &found);
    if (j < 0)
        return nomem(err);
    if (!found) {
        if (p->ncells >= UINT32_MAX ||
            ari_vec_reserve((void **)&p->cells, &p->cap_cells, p->ncells + 1, sizeof *p->cells) < 0)
            return nomem(err);
        p->cell_ids.keys[j] = pair_key(loc, name) + 1;
        p->cell_ids.vals[j] = (uint32_t)p->ncells;
        p->cell_ids.n++;
        p->cells[p->ncells++] = (ari_evp_cell){loc, name, 0, 0, 0};
    }
    ari_evp_cell *c = &p->cells[p->cell_ids.vals[j]];
    c->inclusive += inc;
    c->exclusive += exc;
    c->count++;
    return 0;
}

static int add_pair(ari_evp *p, int32_t caller, int32_t callee, double inc, ari_error *err)
{
    int found;
    int64_t j = keymap_slot(&p->pair_ids, pair_key(caller, callee), &found);
    if (j < 0)
        return nomem(err);
    if (!found) {
        if (p->npairs >= UINT32_MAX ||
            ari_vec_reserve((void **)&p->pairs, &p->cap_pairs, p->npairs + 1, sizeof *p->pairs) < 0)
            return nomem(err);
        p->pair_ids.keys[j] = pair_key(caller, callee) + 1;
        p->pair_ids.vals[j] = (uint32_t)p->npairs;
        p->pair_ids.n++;
        p->pairs[p->npairs++] = (ari_evp_pair){caller, callee, 0, 0};
    }
    ari_evp_pair *q = &p->pairs[p->pair_ids.vals[j]];
    q->count++;
    q->inclusive += inc;
    return 0;
}

/* ---- the stack of the current location ---- */

static int pop(ari_evp *p, ari_error *err)
{
    frame f = p->stack[--p->depth];
    if (tp_piece(p, f.name, p->cursor, f.end, err) < 0)
        return -1;
    if (f.end > p->cursor)
        p->cursor = f.end;
    double inc = f.end - f.start;
    if (p->depth)
        p->stack[p->depth - 1].children += inc;
    else
        p->locs[p->cur].total += inc;
    if (p->idle[f.name])
        p->locs[p->cur].idle += inc;
    return add_cell(p, p->cur, f.name, inc, inc - f.children, err);
}

static int close_location(ari_evp *p, ari_error *err)
{
    while (p->depth)
        if (pop(p, err) < 0)
            return -1;
    p->cur = -1;
    return 0;
}

int ari_evp_add(ari_evp *p, const ari_evp_state *s, ari_error *err)
{
    if (p->finished)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "a state after the event profile finished");
    if (s->loc < 0 || s->loc >= p->nlocs || s->name < 0 || s->name >= p->nnames || s->depth < 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "a state of an unknown location %d or function %d",
                             (int)s->loc, (int)s->name);
    if (!(s->end >= s->start))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "a state ending before it starts (%.17g, %.17g)",
                             s->start, s->end);
    if (s->loc != p->cur) {
        if (close_location(p, err) < 0)
            return -1;
        if (p->seen[s->loc])
            return ari_error_set(err, ARI_E_INVALID_INPUT, "the states of location %d do not come together",
                                 (int)s->loc);
        p->seen[s->loc] = 1;
        p->cur = s->loc;
        p->cursor = s->start;
    } else if (p->depth && s->start < p->stack[p->depth - 1].start) {
        return ari_error_set(err, ARI_E_INVALID_INPUT, "the states of location %d are not by start time",
                             (int)s->loc);
    }
    /* close the calls this one is not inside: deeper or already over */
    while (p->depth && (p->depth > (size_t)s->depth || p->stack[p->depth - 1].end < s->start))
        if (pop(p, err) < 0)
            return -1;
    if (p->depth >= ARI_EVP_MAX_DEPTH)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %d nested functions on location %d",
                             ARI_EVP_MAX_DEPTH, (int)s->loc);
    if (p->depth) {
        frame *top = &p->stack[p->depth - 1];
        if (tp_piece(p, top->name, p->cursor, s->start, err) < 0)
            return -1;
        p->with_parent++;
        if (!top->has_children) {
            top->has_children = 1;
            p->with_children++;
        }
        if (add_pair(p, top->name, s->name, s->end - s->start, err) < 0)
            return -1;
    }
    p->cursor = s->start;
    if (ari_vec_reserve((void **)&p->stack, &p->cap_stack, p->depth + 1, sizeof *p->stack) < 0)
        return nomem(err);
    p->stack[p->depth++] = (frame){s->name, s->start, s->end, 0, 0};
    return 0;
}

/* ---- finishing ---- */

static int cmp_cells(const void *a, const void *b)
{
    const ari_evp_cell *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    if (x->exclusive != y->exclusive)
        return x->exclusive > y->exclusive ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_pairs(const void *a, const void *b)
{
    const ari_evp_pair *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Pipit: idle = bin duration x locations - the functions' sum; then values
 * under 0.01 read as 0. */
static void tp_finish(ari_evp *p)
{
    double total = p->width * p->nlocs;
    for (int i = 0; i < p->bins; i++) {
        double sum = 0;
        for (int32_t n = 0; n < p->nnames; n++)
            if (p->tp[n])
                sum += p->tp[n][i];
        p->idle_bins[i] = total - sum;
        if (p->idle_bins[i] < 0.01)
            p->idle_bins[i] = 0;
    }
    for (int32_t n = 0; n < p->nnames; n++)
        for (int i = 0; p->tp[n] && i < p->bins; i++)
            if (p->tp[n][i] < 0.01)
                p->tp[n][i] = 0;
}

int ari_evp_finish(ari_evp *p, ari_error *err)
{
    if (p->finished)
        return 0;
    if (close_location(p, err) < 0)
        return -1;
    p->finished = 1;
    if (p->ncells)
        qsort(p->cells, p->ncells, sizeof *p->cells, cmp_cells);
    if (p->npairs)
        qsort(p->pairs, p->npairs, sizeof *p->pairs, cmp_pairs);
    keymap_free(&p->cell_ids);
    keymap_free(&p->pair_ids);
    memset(&p->cell_ids, 0, sizeof p->cell_ids);
    memset(&p->pair_ids, 0, sizeof p->pair_ids);
    if (p->bins)
        tp_finish(p);
    return 0;
}

const ari_evp_cell *ari_evp_cells(const ari_evp *p, size_t *n)
{
    *n = p->ncells;
    return p->cells;
}

const ari_evp_pair *ari_evp_pairs(const ari_evp *p, size_t *n, int64_t *with_parent, int64_t *with_children)
{
    *n = p->npairs;
    if (with_parent)
        *with_parent = p->with_parent;
    if (with_children)
        *with_children = p->with_children;
    return p->pairs;
}

const ari_evp_loc *ari_evp_locs(const ari_evp *p)
{
    return p->locs;
}

const double *ari_evp_tp_values(const ari_evp *p, int32_t name)
{
    return name >= 0 && name < p->nnames && p->bins ? p->tp[name] : NULL;
}

const double *ari_evp_tp_idle(const ari_evp *p)
{
    return p->idle_bins;
}

const double *ari_evp_tp_edges(const ari_evp *p)
{
    return p->edges;
}

double ari_evp_tp_bin_duration(const ari_evp *p)
{
    return p->width;
}

/* ---- per (rank, function) sums: what Pipit groups by (Name, Process) ---- */

typedef struct rank_cell {
    int32_t name;
    int64_t rank;
    double inclusive, exclusive;
    int64_t count;
} rank_cell;

static int cmp_rank_cells(const void *a, const void *b)
{
    const rank_cell *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The cells summed per (function, rank), by function then rank. */
static int rank_cells(const ari_evp *p, rank_cell **out, size_t *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    rank_cell *v = malloc((p->ncells ? p->ncells : 1) * sizeof *v);
    if (!v)
        return nomem(err);
    for (size_t i = 0; i < p->ncells; i++)
        v[i] = (rank_cell){p->cells[i].name, p->loc_rank[p->cells[i].loc], p->cells[i].inclusive,
                           p->cells[i].exclusive, p->cells[i].count};
    qsort(v, p->ncells, sizeof *v, cmp_rank_cells);
    size_t k = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        if (k && v[k - 1].name == v[i].name && v[k - 1].rank == v[i].rank) {
            v[k - 1].inclusive += v[i].inclusive;
            v[k - 1].exclusive += v[i].exclusive;
            v[k - 1].count += v[i].count;
        } else {
            v[k++] = v[i];
        }
    }
    *out = v;
    *n = k;
    return 0;
}

static int cmp_funcs(const void *a, const void *b)
{
    const ari_evp_func *x = a, *y = b;
    if (x->exclusive != y->exclusive)
        return x->exclusive > y->exclusive ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

int ari_evp_functions(const ari_evp *p, ari_evp_func **out, size_t *n, ari_error *err)
{
    rank_cell *rc;
    size_t nrc;
    *out = NULL;
    *n = 0;
    if (rank_cells(p, &rc, &nrc, err) < 0)
        return -1;
    ari_evp_func *f = malloc((nrc ? nrc : 1) * sizeof *f);
    if (!f) {
        free(rc);
        return nomem(err);
    }
    size_t k = 0;
    for (size_t i = 0; i < nrc; i++) {
        if (!k || f[k - 1].name != rc[i].name)
            f[k++] = (ari_evp_func){rc[i].name, 0, 0, 0, 0, 0, 0};
        ari_evp_func *g = &f[k - 1];
        g->inclusive += rc[i].inclusive;
        g->exclusive += rc[i].exclusive;
        g->count += rc[i].count;
        g->processes++;
    }
    for (size_t i = 0; i < k; i++) {
        f[i].mean_inclusive = f[i].inclusive / (double)f[i].processes;
        f[i].mean_exclusive = f[i].exclusive / (double)f[i].processes;
    }
    free(rc);
    if (k)
        qsort(f, k, sizeof *f, cmp_funcs);
    *out = f;
    *n = k;
    return 0;
}

void ari_evp_imbalance_free(ari_evp_imb *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].top_ranks);
        free(v[i].top_values);
    }
    free(v);
}

static int cmp_imb(const void *a, const void *b)
{
    const ari_evp_imb *x = a, *y = b;
    if (x->imbalance != y->imbalance)
        return x->imbalance > y->imbalance ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_imb_mean(const void *a, const void *b)
{
    const ari_evp_imb *x = a, *y = b;
    if (x->mean != y->mean)
        return x->mean > y->mean ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

typedef struct rank_value {
    int64_t rank;
    double v;
} rank_value;

/* Largest value first; ties by rank (a stable order). */
static int cmp_rank_values(const void *a, const void *b)
{
    const rank_value *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* One function's ranks [i, j) of rc into e. */
static int imbalance_of(const rank_cell *rc, size_t i, size_t j, int inclusive, int top, rank_value *tmp,
                        ari_evp_imb *e, ari_error *err)
{
    size_t m = j - i;
    double sum = 0;
    for (size_t k = 0; k < m; k++) {
        tmp[k] = (rank_value){rc[i + k].rank, inclusive ? rc[i + k].inclusive : rc[i + k].exclusive};
        sum += tmp[k].v;
    }
    qsort(tmp, m, sizeof *tmp, cmp_rank_values);
    e->name = rc[i].name;
    e->mean = sum / (double)m;
    e->max = tmp[0].v;
    e->imbalance = e->mean != 0 ? e->max / e->mean : (e->max == 0 ? NAN : INFINITY);
    e->ntop = (int)((size_t)top < m ? (size_t)top : m);
    e->top_ranks = malloc(((size_t)e->ntop + 1) * sizeof *e->top_ranks);
    e->top_values = malloc(((size_t)e->ntop + 1) * sizeof *e->top_values);
    if (!e->top_ranks || !e->top_values)
        return nomem(err);
    for (int k = 0; k < e->ntop; k++) {
        e->top_ranks[k] = tmp[k].rank;
        e->top_values[k] = tmp[k].v;
    }
    return 0;
}

int ari_evp_imbalance(const ari_evp *p, int inclusive, int top, int by_mean, ari_evp_imb **out, size_t *n,
                      ari_error *err)
{
    rank_cell *rc;
    size_t nrc;
    *out = NULL;
    *n = 0;
    if (top < 1)
        top = 1;
    if (rank_cells(p, &rc, &nrc, err) < 0)
        return -1;
    ari_evp_imb *v = calloc(nrc ? nrc : 1, sizeof *v);
    rank_value *tmp = malloc((nrc ? nrc : 1) * sizeof *tmp);
    size_t k = 0;
    int rc_ok = v && tmp ? 0 : nomem(err);
    for (size_t i = 0; i < nrc && rc_ok == 0;) {
        size_t j = i;
        while (j < nrc && rc[j].name == rc[i].name)
            j++;
        rc_ok = imbalance_of(rc, i, j, inclusive, top, tmp, &v[k++], err);
        i = j;
    }
    free(rc);
    free(tmp);
    if (rc_ok < 0) {
        ari_evp_imbalance_free(v, k);
        return -1;
    }
    if (k)
        qsort(v, k, sizeof *v, by_mean ? cmp_imb_mean : cmp_imb);
    *out = v;
    *n = k;
    return 0;
}
