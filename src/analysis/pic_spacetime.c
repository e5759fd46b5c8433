/* pic_spacetime.c: prefix sums per node and slice, the dynamic program over
 * (node, interval) and the breakpoints of p (see pic_spacetime.h). */
#include "analysis/pic_spacetime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static int push_block(ari_pic_partition *out, int64_t *cap, ari_pic_block b)
{
    if (out->n == *cap) {
        int64_t nc = *cap ? *cap * 2 : 64;
        ari_pic_block *nb = realloc(out->blocks, (size_t)nc * sizeof *nb);
        if (!nb)
            return -1;
        out->blocks = nb;
        *cap = nc;
    }
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
    int64_t cap = 0, top = 0, scap = 64;
    frame *stack = malloc((size_t)scap * sizeof *stack);
    if (!stack)
        return -1;
    stack[top++] = (frame){0, 0, st->T - 1};
    int rc = 0;
    while (top > 0 && rc == 0) {
        frame f = stack[--top];
        int code = d->choice[(size_t)f.node * (size_t)ntri(st->T) + (size_t)tri(st->T, f.t0, f.t1)];
        int64_t need = top + (code == CHOICE_SPATIAL ? t->nchildren[f.node] : 2);
        if (need > scap) {
            scap = need * 2;
            frame *ns = realloc(stack, (size_t)scap * sizeof *ns);
            if (!ns) {
                rc = -1;
                break;
            }
            stack = ns;
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

/* ---- breakpoints ---- */

typedef struct line {
    double p;           /* where it was solved */
    int64_t count;
    double gain, loss;
} line;

typedef struct search {
    const ari_pic_st *st;
    ari_pic_level *bp;
    int64_t nbp, cap;
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
    if (s->nbp == s->cap) {
        int64_t nc = s->cap ? s->cap * 2 : 16;
        ari_pic_level *nb = realloc(s->bp, (size_t)nc * sizeof *nb);
        if (!nb)
            return ari_error_set(s->err, ARI_E_NOMEM, "out of memory");
        s->bp = nb;
        s->cap = nc;
    }
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

int ari_pic_st_levels(const ari_pic_st *st, ari_pic_level **out, int64_t *n, ari_error *err)
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
