/* pic_spacetime.c: prefix sums per node and slice, the dynamic program over
 * (node, interval) and the breakpoints of p (see pic_spacetime.h). */
#include "analysis/pic_spacetime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* Above this many (node, interval) pairs, gain and w are computed on
 * demand instead of kept (two doubles each). */
#define PRECOMPUTE_MAX ((int64_t)4 << 20)
/* Breakpoint search: lines closer than LEVEL_REL relative plus LEVEL_ABS
 * (the round-off of a sum over blocks) are the same; at most MAX_SOLVES
 * solves. */
#define LEVEL_REL 1e-9
#define LEVEL_ABS 1e-13
#define MAX_SOLVES 20000

enum { CHOICE_AGGREGATE = 0, CHOICE_SPATIAL = 1, CHOICE_CUT = 2 };

static int64_t ntri(int T)
{
    return (int64_t)T * (T + 1) / 2;
}

/* Index of interval [i, j] in a node's triangle. */
static int64_t tri(int T, int i, int j)
{
    return (int64_t)i * T - (int64_t)i * (i - 1) / 2 + (j - i);
}

static double xlog2x(double x)
{
    return x > 0 ? x * log2(x) : 0.0;
}

/* gain and w = v(A) log2 |A| of (node, [t0, t1]); loss = w - gain. */
static void raw_measure(const ari_pic_st *st, int64_t node, int t0, int t1, double *g, double *w)
{
    int T = st->T, K = st->K;
    int64_t cells = st->tree.nleaf[node] * (int64_t)(t1 - t0 + 1);
    if (cells <= 1) {
        *g = *w = 0;
        return;
    }
    const double *a = st->V + ((size_t)node * (T + 1) + (size_t)t0) * K;
    const double *b = st->V + ((size_t)node * (T + 1) + (size_t)t1 + 1) * K;
    double gain = -(st->S[node * (T + 1) + t1 + 1] - st->S[node * (T + 1) + t0]), vt = 0;
    for (int k = 0; k < K; k++) {
        double v = b[k] - a[k];
        gain += xlog2x(v);
        vt += v > 0 ? v : 0;
    }
    *w = vt * log2((double)cells);
    /* an aggregate of proportional cells loses nothing: make its loss
     * exactly 0 so that round-off cannot make it lose (p > 0) or win
     * (p = 0) a tie */
    *g = *w - gain < 1e-12 * *w ? *w : gain;
}

static void get_measure(const ari_pic_st *st, int64_t node, int t0, int t1, double *g, double *w)
{
    if (st->g) {
        int64_t at = node * ntri(st->T) + tri(st->T, t0, t1);
        *g = st->g[at];
        *w = st->w[at];
    } else {
        raw_measure(st, node, t0, t1, g, w);
    }
}

void ari_pic_st_measure(const ari_pic_st *st, int64_t node, int t0, int t1, double *gain, double *loss)
{
    double g, w;
    get_measure(st, node, t0, t1, &g, &w);
    *gain = g;
    *loss = w - g;
}

void ari_pic_st_values(const ari_pic_st *st, int64_t node, int t0, int t1, double *out)
{
    int T = st->T, K = st->K;
    const double *a = st->V + ((size_t)node * (T + 1) + (size_t)t0) * K;
    const double *b = st->V + ((size_t)node * (T + 1) + (size_t)t1 + 1) * K;
    for (int k = 0; k < K; k++)
        out[k] = b[k] - a[k] > 0 ? b[k] - a[k] : 0;
}

void ari_pic_st_free(ari_pic_st *st)
{
    ari_pic_tree_free(&st->tree);
    free(st->V);
    free(st->S);
    free(st->g);
    free(st->w);
    memset(st, 0, sizeof *st);
}

/* Leaves' normalised times and v log2 v, summed up the tree, then prefix
 * sums over slices. */
static void fill_prefix(ari_pic_st *st, const double *v)
{
    const ari_pic_tree *t = &st->tree;
    int T = st->T, K = st->K;
    size_t row = (size_t)(T + 1);
    for (int64_t e = 0; e < t->nleaves; e++) {
        int64_t node = t->leaf_node[e];
        for (int s = 0; s < T; s++)
            for (int k = 0; k < K; k++) {
                double x = st->total > 0 ? v[((size_t)e * T + s) * K + k] / st->total : 0;
                st->V[(node * row + s + 1) * K + k] = x;
                st->S[node * row + s + 1] += xlog2x(x);
            }
    }
    for (int64_t i = t->n - 1; i > 0; i--) {
        int64_t p = t->parent[i];
        for (size_t s = 1; s < row; s++) {
            for (int k = 0; k < K; k++)
                st->V[(p * row + s) * K + k] += st->V[(i * row + s) * K + k];
            st->S[p * row + s] += st->S[i * row + s];
        }
    }
    for (int64_t i = 0; i < t->n; i++)
        for (size_t s = 1; s < row; s++) {
            for (int k = 0; k < K; k++)
                st->V[(i * row + s) * K + k] += st->V[(i * row + s - 1) * K + k];
            st->S[i * row + s] += st->S[i * row + s - 1];
        }
}

static int precompute(ari_pic_st *st)
{
    int64_t per = ntri(st->T);
    if (st->tree.n > PRECOMPUTE_MAX / per)
        return 0;
    st->g = malloc((size_t)(st->tree.n * per) * sizeof *st->g);
    st->w = malloc((size_t)(st->tree.n * per) * sizeof *st->w);
    if (!st->g || !st->w) {
        free(st->g);
        free(st->w);
        st->g = st->w = NULL;
        return 0; /* fall back to computing on demand */
    }
    for (int64_t node = 0; node < st->tree.n; node++)
        for (int i = 0; i < st->T; i++)
            for (int j = i; j < st->T; j++) {
                int64_t at = node * per + tri(st->T, i, j);
                raw_measure(st, node, i, j, &st->g[at], &st->w[at]);
            }
    return 0;
}

int ari_pic_st_init(ari_pic_st *st, int64_t n, const int64_t *parent, int T, int K, const double *v,
                    ari_error *err)
{
    memset(st, 0, sizeof *st);
    if (T < 1 || T > ARI_PIC_ST_MAX_SLICES)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "slices must be in 1..%d", ARI_PIC_ST_MAX_SLICES);
    if (K < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "pic: no state values");
    if (ari_pic_tree_init(&st->tree, n, parent, err) < 0)
        return -1;
    st->T = T;
    st->K = K;
    size_t cells = (size_t)st->tree.nleaves * (size_t)T * (size_t)K;
    for (size_t c = 0; c < cells; c++) {
        if (!isfinite(v[c]) || v[c] < 0) {
            ari_pic_st_free(st);
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "pic: value %zu is %g (want finite, >= 0)", c,
                                 v[c]);
        }
        st->total += v[c];
    }
    size_t row = (size_t)n * (size_t)(T + 1);
    st->V = calloc(row * (size_t)K, sizeof *st->V);
    st->S = calloc(row, sizeof *st->S);
    if (!st->V || !st->S) {
        ari_pic_st_free(st);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld nodes x %d slices", (long long)n, T);
    }
    fill_prefix(st, v);
    return precompute(st);
}

/* ---- the dynamic program ---- */

typedef struct dp {
    const ari_pic_st *st;
    double p;
    unsigned char *choice; /* [n][tri] */
    double **acc;          /* per node: sum of its children's best tables */
    double *root;          /* the root's best table */
} dp;

/* best(node, ., .) from its children's sum (NULL for a leaf). */
static void solve_node(dp *d, int64_t node, const double *spatial, double *best)
{
    const ari_pic_st *st = d->st;
    int T = st->T;
    unsigned char *ch = d->choice + (size_t)node * (size_t)ntri(T);
    for (int len = 1; len <= T; len++) {
        for (int i = 0; i + len - 1 < T; i++) {
            int j = i + len - 1;
            int64_t at = tri(T, i, j);
            double b = spatial ? spatial[at] : -INFINITY;
            int code = CHOICE_SPATIAL;
            for (int m = i; m < j; m++) {
                double c = best[tri(T, i, m)] + best[tri(T, m + 1, j)];
                if (c > b) {
                    b = c;
                    code = CHOICE_CUT + (m - i);
                }
            }
            double g, w;
            get_measure(st, node, i, j, &g, &w);
            double own = g - (1 - d->p) * w;
            if (!(b > -INFINITY) || own > b + ARI_PIC_EPS * (fabs(own) + fabs(b))) {
                b = own;
                code = CHOICE_AGGREGATE;
            }
            best[at] = b;
            ch[at] = (unsigned char)code;
        }
    }
}

/* Post-order over the preorder (reverse scan): each node's table is added
 * to its parent's sum and freed. */
static int run_dp(dp *d)
{
    const ari_pic_tree *t = &d->st->tree;
    int64_t per = ntri(d->st->T);
    for (int64_t i = t->n - 1; i >= 0; i--) {
        double *best = malloc((size_t)per * sizeof *best);
        if (!best)
            return -1;
        solve_node(d, i, d->acc[i], best);
        free(d->acc[i]);
        d->acc[i] = NULL;
        if (i == 0) {
            d->root = best;
            break;
        }
        int64_t p = t->parent[i];
        if (!d->acc[p] && !(d->acc[p] = calloc((size_t)per, sizeof(double)))) {
            free(best);
            return -1;
        }
        for (int64_t c = 0; c < per; c++)
            d->acc[p][c] += best[c];
        free(best);
    }
    return 0;
}

typedef struct frame {
    int64_t node;
    int t0, t1;
} frame;

static int push_block(ari_pic_partition *out, size_t *cap, ari_pic_block b)
{
    if (ari_vec_reserve((void **)&out->blocks, cap, (size_t)out->n + 1, sizeof b) < 0)
        return -1;
    out->blocks[out->n++] = b;
    out->gain += b.gain;
    out->loss += b.loss;
    return 0;
}

/* Follows the decisions from (root, [0, T-1]) with an explicit stack (at
 * most one frame per cell plus the path). */
static int rebuild(const dp *d, ari_pic_partition *out)
{
    const ari_pic_st *st = d->st;
    const ari_pic_tree *t = &st->tree;
    int64_t top = 0;
    size_t cap = 0, scap = 0;
    frame *stack = NULL;
    if (ari_vec_reserve((void **)&stack, &scap, 1, sizeof *stack) < 0)
        return -1;
    stack[top++] = (frame){0, 0, st->T - 1};
    int rc = 0;
    while (top > 0 && rc == 0) {
        frame f = stack[--top];
        int code = d->choice[(size_t)f.node * (size_t)ntri(st->T) + (size_t)tri(st->T, f.t0, f.t1)];
        int64_t need = top + (code == CHOICE_SPATIAL ? t->nchildren[f.node] : 2);
        if (ari_vec_reserve((void **)&stack, &scap, (size_t)need, sizeof *stack) < 0) {
            rc = -1;
            break;
        }
        if (code == CHOICE_AGGREGATE) {
            ari_pic_block b = {f.node, f.t0, f.t1, 0, 0};
            ari_pic_st_measure(st, f.node, f.t0, f.t1, &b.gain, &b.loss);
            rc = push_block(out, &cap, b);
        } else if (code == CHOICE_SPATIAL) {
            int64_t base = top, k = 0;
            for (int64_t c = f.node + 1; c < t->subtree_end[f.node]; c = t->subtree_end[c], k++)
                stack[base + t->nchildren[f.node] - 1 - k] = (frame){c, f.t0, f.t1};
            top += t->nchildren[f.node];
        } else {
            int m = f.t0 + code - CHOICE_CUT;
            stack[top++] = (frame){f.node, m + 1, f.t1};
            stack[top++] = (frame){f.node, f.t0, m};
        }
    }
    free(stack);
    return rc;
}

void ari_pic_partition_free(ari_pic_partition *part)
{
    free(part->blocks);
    memset(part, 0, sizeof *part);
}

int ari_pic_st_best(const ari_pic_st *st, double p, ari_pic_partition *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(p >= 0 && p <= 1))
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "p must be in [0, 1]");
    dp d = {st, p, NULL, NULL, NULL};
    d.choice = malloc((size_t)st->tree.n * (size_t)ntri(st->T));
    d.acc = calloc((size_t)st->tree.n, sizeof *d.acc);
    int rc = d.choice && d.acc ? run_dp(&d) : -1;
    if (rc == 0)
        rc = rebuild(&d, out);
    if (d.acc)
        for (int64_t i = 0; i < st->tree.n; i++)
            free(d.acc[i]);
    free(d.acc);
    free(d.choice);
    free(d.root);
    if (rc < 0) {
        ari_pic_partition_free(out);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for the space-time pIC of %lld nodes x %d slices",
                             (long long)st->tree.n, st->T);
    }
    return 0;
}

/* ---- breakpoints by re-solving (the reference) ---- */

typedef struct line {
    double p;           /* where it was solved */
    int64_t count;
    double gain, loss;
} line;

typedef struct search {
    const ari_pic_st *st;
    ari_pic_level *bp;
    int64_t nbp;
    size_t cap;
    int solves;
    ari_error *err;
} search;

static int solve_line(search *s, double p, line *out)
{
    ari_pic_partition part;
    if (++s->solves > MAX_SOLVES)
        return ari_error_set(s->err, ARI_E_TOO_LARGE, "pic: more than %d solves for the breakpoints", MAX_SOLVES);
    if (ari_pic_st_best(s->st, p, &part, s->err) < 0)
        return -1;
    *out = (line){p, part.n, part.gain, part.loss};
    ari_pic_partition_free(&part);
    return 0;
}

static int add_breakpoint(search *s, double p, const line *right)
{
    if (ari_vec_reserve((void **)&s->bp, &s->cap, (size_t)s->nbp + 1, sizeof *s->bp) < 0)
        return ari_error_set(s->err, ARI_E_NOMEM, "out of memory");
    s->bp[s->nbp++] = (ari_pic_level){p, right->count, right->gain, right->loss};
    return 0;
}

static double line_at(const line *l, double p)
{
    return p * (l->gain + l->loss) - l->loss;
}

/* Eisner-Severance between two solved lines a (left) and b (right). */
static int between(search *s, const line *a, const line *b, int depth)
{
    double sa = a->gain + a->loss, sb = b->gain + b->loss;
    if (fabs(a->gain - b->gain) <= LEVEL_REL * (a->gain + b->gain) + LEVEL_ABS &&
        fabs(a->loss - b->loss) <= LEVEL_REL * (a->loss + b->loss) + LEVEL_ABS)
        return 0;
    if (sb - sa <= LEVEL_REL * (sa + sb) + LEVEL_ABS || depth > 200)
        return add_breakpoint(s, b->p, b); /* parallel: b wins from b->p on */
    double x = (b->loss - a->loss) / (sb - sa);
    x = x < a->p ? a->p : x > b->p ? b->p : x;
    line m;
    if (solve_line(s, x, &m) < 0)
        return -1;
    if (line_at(&m, x) <= line_at(a, x) + LEVEL_REL * fabs(line_at(a, x)) + LEVEL_ABS)
        return add_breakpoint(s, x, b);
    if (between(s, a, &m, depth + 1) < 0)
        return -1;
    return between(s, &m, b, depth + 1);
}

int ari_pic_st_levels_resolve(const ari_pic_st *st, ari_pic_level **out, int64_t *n, ari_error *err)
{
    search s = {st, NULL, 0, 0, 0, err};
    line lo, hi;
    *out = NULL;
    *n = 0;
    if (solve_line(&s, 0, &lo) < 0 || solve_line(&s, 1, &hi) < 0)
        return -1;
    if (add_breakpoint(&s, 0, &lo) < 0 || between(&s, &lo, &hi, 0) < 0) {
        free(s.bp);
        return -1;
    }
    *out = s.bp;
    *n = s.nbp;
    return 0;
}

/* ---- breakpoints in one pass: envelopes ----
 *
 * best(n, i, j) as a function of p is convex piecewise linear; it is kept
 * as its pieces sorted by p, each the line p gain - (1 - p) loss of one
 * partition (with its aggregate count) from its start x to the next
 * piece's. The program of ari_pic_st_best is run on these functions: the
 * spatial choice is the sum of the children's (merged breakpoints), a time
 * cut the sum of two halves, and the choice the pointwise max with the
 * same preferences as the program (the earlier candidate keeps ties, the
 * aggregate must win by ARI_PIC_EPS relative). */

/* A candidate beats the incumbent at p when above by this much: the
 * round-off of sums over blocks (the program's strict > on floats). */
#define TIE_REL 1e-13
#define TIE_ABS 1e-15
/* Pieces narrower than this in p are dropped. */
#define X_EPS 1e-12
/* At most this many pieces kept at once (32 bytes each: 512 MB), and this
 * many pieces read by sums and maxima (4-6 ns each: under a minute). */
#define MAX_PIECES ((int64_t)1 << 24)
#define MAX_PIECE_WORK ((int64_t)1 << 33)

typedef struct piece {
    double x;       /* start in p */
    double g, l;    /* the partition's gain and loss */
    int64_t count;  /* its aggregates */
} piece;

typedef struct env {
    piece *pc;
    int64_t n;
} env;

/* A growable piece buffer. */
typedef struct pbuf {
    piece *pc;
    int64_t n;
    size_t cap;
} pbuf;

static int pbuf_reserve(pbuf *b, int64_t need)
{
    return ari_vec_reserve((void **)&b->pc, &b->cap, (size_t)need, sizeof *b->pc);
}

static double piece_at(const piece *q, double p)
{
    return p * (q->g + q->l) - q->l;
}

static int same_line(const piece *a, const piece *b)
{
    return a->g == b->g && a->l == b->l && a->count == b->count;
}

/* Appends a piece from x on (capacity reserved by the caller): a piece
 * narrower than X_EPS is replaced (lines that cross at one p in exact
 * arithmetic cross a round-off apart), and one equal to the last is
 * dropped. */
static void emit(pbuf *b, double x, double g, double l, int64_t count)
{
    piece q = {x, g, l, count};
    if (b->n > 0 && b->pc[b->n - 1].x >= x - X_EPS)
        b->n--;
    if (b->n == 0)
        q.x = 0;
    if (b->n > 0 && same_line(&b->pc[b->n - 1], &q))
        return;
    b->pc[b->n++] = q;
}

/* The end of piece k of e (1 for the last). */
static double piece_end(const env *e, int64_t k)
{
    return k + 1 < e->n ? e->pc[k + 1].x : 1.0;
}

/* Steps a walk over two envelopes past the nearer piece end (both on a
 * tie); 0 once both walks are at their last piece (which ends at 1). */
static int next_pieces(double ea, double eb, int64_t *ia, int64_t *ib)
{
    if (ea >= 1 && eb >= 1)
        return 0;
    if (ea <= eb)
        (*ia)++;
    if (eb <= ea)
        (*ib)++;
    return 1;
}

/* out = a + b. */
static int env_sum(const env *a, const env *b, pbuf *out)
{
    out->n = 0;
    if (pbuf_reserve(out, a->n + b->n) < 0)
        return -1;
    int64_t ia = 0, ib = 0;
    for (;;) {
        const piece *qa = &a->pc[ia], *qb = &b->pc[ib];
        emit(out, qa->x > qb->x ? qa->x : qb->x, qa->g + qb->g, qa->l + qb->l, qa->count + qb->count);
        double ea = piece_end(a, ia), eb = piece_end(b, ib);
        if (!next_pieces(ea, eb, &ia, &ib))
            break;
    }
    return 0;
}

/* Does cand beat inc at p (by the relative margin rel)? */
static int beats(const piece *cand, const piece *inc, double p, double rel)
{
    double c = piece_at(cand, p), i = piece_at(inc, p);
    return c - i > rel * (fabs(c) + fabs(i)) + (rel > TIE_REL ? 0 : TIE_ABS);
}

/* out = max(inc, cand): cand only where it beats inc. */
static int env_max(const env *inc, const env *cand, double rel, pbuf *out)
{
    out->n = 0;
    if (pbuf_reserve(out, 2 * (inc->n + cand->n)) < 0)
        return -1;
    int64_t ia = 0, ib = 0;
    double lo = 0;
    for (;;) {
        const piece *qa = &inc->pc[ia], *qb = &cand->pc[ib];
        double ea = piece_end(inc, ia), eb = piece_end(cand, ib), hi = ea < eb ? ea : eb;
        int w0 = beats(qb, qa, lo, rel), w1 = beats(qb, qa, hi, rel);
        if (w0 == w1) {
            const piece *q = w0 ? qb : qa;
            emit(out, lo, q->g, q->l, q->count);
        } else {
            /* the lines cross inside: d(p) = p (sb - sa) - (lb - la) */
            double ds = (qb->g + qb->l) - (qa->g + qa->l), x = ds != 0 ? (qb->l - qa->l) / ds : lo;
            x = x < lo ? lo : x > hi ? hi : x;
            const piece *first = w0 ? qb : qa, *second = w0 ? qa : qb;
            emit(out, lo, first->g, first->l, first->count);
            emit(out, x, second->g, second->l, second->count);
        }
        if (!next_pieces(ea, eb, &ia, &ib))
            break;
        lo = hi;
    }
    return 0;
}

static int env_set(env *e, const pbuf *b)
{
    e->pc = malloc((size_t)b->n * sizeof *e->pc);
    if (!e->pc)
        return -1;
    memcpy(e->pc, b->pc, (size_t)b->n * sizeof *e->pc);
    e->n = b->n;
    return 0;
}

static void table_free(env *tab, int64_t per)
{
    if (!tab)
        return;
    for (int64_t k = 0; k < per; k++)
        free(tab[k].pc);
    free(tab);
}

typedef struct envdp {
    const ari_pic_st *st;
    env **tab;           /* per node: its table of envelopes until its parent used it */
    int64_t live;        /* pieces in the tables */
    int64_t work;        /* pieces read so far */
    pbuf cur, tmp, sum;  /* scratch */
} envdp;

/* One round of pairwise sums: out[i] = in[2i] + in[2i+1] (an odd last one
 * is copied). The inputs are not freed. */
static int sum_round(envdp *d, const env *in, int64_t k, env *out)
{
    for (int64_t i = 0; i < k; i += 2) {
        int rc;
        if (i + 1 < k)
            rc = env_sum(&in[i], &in[i + 1], &d->sum);
        else
            rc = pbuf_reserve(&d->sum, in[i].n);
        if (rc < 0)
            return -1;
        if (i + 1 == k) {
            memcpy(d->sum.pc, in[i].pc, (size_t)in[i].n * sizeof *in[i].pc);
            d->sum.n = in[i].n;
        }
        if (env_set(&out[i / 2], &d->sum) < 0)
            return -1;
    }
    return 0;
}

static void parts_free(env *parts, int64_t k)
{
    for (int64_t i = 0; i < k; i++)
        free(parts[i].pc);
    free(parts);
}

/* cur = the sum of node's children's envelopes for interval at, in
 * rounds of pairs (each piece's totals summed in a balanced order). */
static int spatial_sum(envdp *d, int64_t node, int64_t at)
{
    const ari_pic_tree *t = &d->st->tree;
    int64_t k = t->nchildren[node], c = node + 1;
    env *parts = malloc((size_t)k * sizeof *parts);
    if (!parts)
        return -1;
    for (int64_t i = 0; i < k; i++, c = t->subtree_end[c])
        parts[i] = d->tab[c][at];
    int owned = 0; /* parts[] are the children's until the first round */
    while (k > 1) {
        env *next = calloc((size_t)(k + 1) / 2, sizeof *next);
        int rc = next ? sum_round(d, parts, k, next) : -1;
        if (owned)
            parts_free(parts, k);
        else
            free(parts);
        parts = next;
        k = (k + 1) / 2;
        owned = 1;
        if (rc < 0) {
            if (next)
                parts_free(next, k);
            return -1;
        }
    }
    int rc = pbuf_reserve(&d->cur, parts[0].n);
    if (rc == 0) {
        memcpy(d->cur.pc, parts[0].pc, (size_t)parts[0].n * sizeof *parts[0].pc);
        d->cur.n = parts[0].n;
    }
    if (owned)
        parts_free(parts, k);
    else
        free(parts);
    return rc;
}

static int max_into_cur(envdp *d, const pbuf *cand, double rel)
{
    env inc = {d->cur.pc, d->cur.n}, c = {cand->pc, cand->n};
    if (env_max(&inc, &c, rel, &d->tmp) < 0)
        return -1;
    pbuf swap = d->cur;
    d->cur = d->tmp;
    d->tmp = swap;
    return 0;
}

/* best(node, i, j) as envelopes, in the program's order of candidates. */
static int envelope_node(envdp *d, int64_t node, env *best)
{
    const ari_pic_st *st = d->st;
    int T = st->T;
    int spatial = st->tree.nchildren[node] > 0;
    for (int len = 1; len <= T; len++) {
        for (int i = 0; i + len - 1 < T; i++) {
            int j = i + len - 1;
            int64_t at = tri(T, i, j);
            int have = spatial;
            if (spatial && spatial_sum(d, node, at) < 0)
                return -1;
            for (int m = i; m < j; m++) {
                const env *a = &best[tri(T, i, m)], *b = &best[tri(T, m + 1, j)];
                if ((d->work += 2 * (a->n + b->n) + d->cur.n) > MAX_PIECE_WORK)
                    return -2;
                if (env_sum(a, b, &d->sum) < 0)
                    return -1;
                if (!have) {
                    pbuf swap = d->cur;
                    d->cur = d->sum;
                    d->sum = swap;
                    have = 1;
                } else if (max_into_cur(d, &d->sum, TIE_REL) < 0) {
                    return -1;
                }
            }
            double g, w;
            get_measure(st, node, i, j, &g, &w);
            piece own = {0, g, w - g, 1};
            pbuf one = {&own, 1, 1};
            if (!have) {
                if (pbuf_reserve(&d->cur, 1) < 0)
                    return -1;
                d->cur.pc[0] = own;
                d->cur.n = 1;
            } else if (max_into_cur(d, &one, ARI_PIC_EPS) < 0) {
                return -1;
            }
            if ((d->live += d->cur.n) > MAX_PIECES)
                return -2;
            if (env_set(&best[at], &d->cur) < 0)
                return -1;
        }
    }
    return 0;
}

/* Reverse preorder: a node's children's tables are freed once it has its
 * own. Returns the root's table in *root; -1 out of memory, -2 more than
 * MAX_PIECES pieces. */
static int run_envelopes(envdp *d, env **root)
{
    const ari_pic_tree *t = &d->st->tree;
    int64_t per = ntri(d->st->T);
    for (int64_t i = t->n - 1; i >= 0; i--) {
        env *best = calloc((size_t)per, sizeof *best);
        if (!best)
            return -1;
        d->tab[i] = best;
        int rc = envelope_node(d, i, best);
        if (rc < 0)
            return rc;
        for (int64_t c = i + 1; c < t->subtree_end[i]; c = t->subtree_end[c]) {
            for (int64_t k = 0; k < per; k++)
                d->live -= d->tab[c][k].n;
            table_free(d->tab[c], per);
            d->tab[c] = NULL;
        }
    }
    *root = d->tab[0];
    return 0;
}

static int same_level(const ari_pic_level *a, const piece *b)
{
    return fabs(a->gain - b->g) <= LEVEL_REL * (a->gain + b->g) + LEVEL_ABS &&
           fabs(a->loss - b->l) <= LEVEL_REL * (a->loss + b->l) + LEVEL_ABS;
}

/* Level 0 is the partition at p = 0 (every cell), then one level per
 * change of line of the root's envelope. */
static int envelope_levels(const ari_pic_st *st, const env *e, ari_pic_level **out, int64_t *n)
{
    ari_pic_level *lv = malloc((size_t)(e->n + 1) * sizeof *lv);
    if (!lv)
        return -1;
    int64_t k = 0;
    lv[k++] = (ari_pic_level){0, st->tree.nleaves * (int64_t)st->T, 0, 0};
    for (int64_t j = 0; j < e->n; j++) {
        const piece *q = &e->pc[j];
        if (q->x < 1 && !same_level(&lv[k - 1], q))
            lv[k++] = (ari_pic_level){q->x, q->count, q->g, q->l};
    }
    *out = lv;
    *n = k;
    return 0;
}

int ari_pic_st_levels(const ari_pic_st *st, ari_pic_level **out, int64_t *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    envdp d = {st, NULL, 0, 0, {0}, {0}, {0}};
    env *root = NULL;
    int64_t per = ntri(st->T);
    d.tab = calloc((size_t)st->tree.n, sizeof *d.tab);
    int rc = d.tab ? run_envelopes(&d, &root) : -1;
    if (rc == 0)
        rc = envelope_levels(st, &root[tri(st->T, 0, st->T - 1)], out, n);
    if (d.tab)
        for (int64_t i = 0; i < st->tree.n; i++)
            table_free(d.tab[i], per);
    free(d.tab);
    free(d.cur.pc);
    free(d.tmp.pc);
    free(d.sum.pc);
    if (rc == -2)
        return ari_error_set(err, ARI_E_TOO_LARGE, "pic: too many pieces for the breakpoints of %lld nodes x %d slices",
                             (long long)st->tree.n, st->T);
    if (rc < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for the breakpoints of %lld nodes x %d slices",
                             (long long)st->tree.n, st->T);
    return 0;
}
