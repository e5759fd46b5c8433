/* pic.c: the hierarchy (preorder checks, leaf ranges), the seed's gain and
 * loss per node, the one-traversal best partition and the breakpoints of
 * p (see pic.h for the formulas and the argument). */
#include "analysis/pic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

/* ---- the tree ---- */

void ari_pic_tree_free(ari_pic_tree *t)
{
    void *owned[] = {t->parent, t->subtree_end, t->first_leaf, t->nleaf, t->nchildren, t->leaf_node};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(t, 0, sizeof *t);
}

static int tree_alloc(ari_pic_tree *t, int64_t n)
{
    size_t sz = (size_t)n * sizeof(int64_t);
    t->parent = malloc(sz);
    t->subtree_end = malloc(sz);
    t->first_leaf = malloc(sz);
    t->nleaf = calloc((size_t)n, sizeof(int64_t));
    t->nchildren = calloc((size_t)n, sizeof(int64_t));
    return t->parent && t->subtree_end && t->first_leaf && t->nleaf && t->nchildren ? 0 : -1;
}

/* Walks the preorder with the stack of the current path: parent[i] must be
 * on it, and a node leaves it (its subtree ends) when a later node is not
 * its descendant. */
static int check_preorder(ari_pic_tree *t, int64_t *stack, ari_error *err)
{
    int64_t depth = 0;
    for (int64_t i = 0; i < t->n; i++) {
        int64_t p = t->parent[i];
        if (i == 0 ? p != -1 : p < 0 || p >= i)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "hierarchy: node %lld has parent %lld (want a preorder with root 0)",
                                 (long long)i, (long long)p);
        while (depth > 0 && stack[depth - 1] != p)
            t->subtree_end[stack[--depth]] = i;
        if (i > 0 && depth == 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "hierarchy: node %lld comes after its parent's subtree", (long long)i);
        stack[depth++] = i;
        if (p >= 0)
            t->nchildren[p]++;
    }
    while (depth > 0)
        t->subtree_end[stack[--depth]] = t->n;
    return 0;
}

static void number_leaves(ari_pic_tree *t)
{
    int64_t leaves = 0;
    for (int64_t i = 0; i < t->n; i++) {
        t->first_leaf[i] = leaves;
        if (t->nchildren[i] == 0)
            t->leaf_node[leaves++] = i;
    }
    for (int64_t i = 0; i < t->n; i++)
        t->nleaf[i] = (t->subtree_end[i] < t->n ? t->first_leaf[t->subtree_end[i]] : leaves) - t->first_leaf[i];
}

int ari_pic_tree_init(ari_pic_tree *t, int64_t n, const int64_t *parent, ari_error *err)
{
    memset(t, 0, sizeof *t);
    if (n < 1 || n > (int64_t)1 << 40)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "hierarchy: %lld nodes", (long long)n);
    t->n = n;
    int64_t *stack = malloc((size_t)n * sizeof *stack);
    if (!stack || tree_alloc(t, n) < 0) {
        free(stack);
        ari_pic_tree_free(t);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for a hierarchy of %lld nodes", (long long)n);
    }
    memcpy(t->parent, parent, (size_t)n * sizeof *parent);
    int rc = check_preorder(t, stack, err);
    free(stack);
    if (rc < 0) {
        ari_pic_tree_free(t);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        t->nleaves += t->nchildren[i] == 0;
    t->leaf_node = malloc((size_t)t->nleaves * sizeof *t->leaf_node);
    if (!t->leaf_node) {
        ari_pic_tree_free(t);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    number_leaves(t);
    return 0;
}

int64_t ari_pic_tree_top(const ari_pic_tree *t, int64_t node)
{
    while (node > 0 && t->nchildren[t->parent[node]] == 1)
        node = t->parent[node];
    return node;
}

/* ---- measures ---- */

static double xlog2x(double x)
{
    return x > 0 ? x * log2(x) : 0.0;
}

void ari_pic_measures(const double *vals, int64_t count, int nvalues, double *gain, double *loss)
{
    double g = 0, l = 0;
    for (int k = 0; k < nvalues; k++) {
        double vA = 0, s = 0;
        for (int64_t e = 0; e < count; e++) {
            vA += vals[e * nvalues + k];
            s += xlog2x(vals[e * nvalues + k]);
        }
        g += xlog2x(vA) - s;
        for (int64_t e = 0; e < count; e++) {
            double v = vals[e * nvalues + k];
            if (v > 0)
                l += v * log2(v / vA * (double)count);
        }
    }
    *gain = g;
    *loss = l;
}

/* Per node: the value sums, then gain = sum_k v_k log2 v_k - sum_e,k v log2 v
 * and loss = v(A) log2 |A| - gain (the seed's loss expanded). */
static int node_measures(ari_pic *pic, const double *v)
{
    const ari_pic_tree *t = &pic->tree;
    int K = pic->nvalues;
    double *s = calloc((size_t)t->n, sizeof *s);
    if (!s)
        return -1;
    for (int64_t e = 0; e < t->nleaves; e++) {
        int64_t node = t->leaf_node[e];
        for (int k = 0; k < K; k++) {
            double x = pic->total > 0 ? v[e * K + k] / pic->total : 0;
            pic->value[node * K + k] = x;
            s[node] += xlog2x(x);
        }
    }
    for (int64_t i = t->n - 1; i > 0; i--) {
        int64_t p = t->parent[i];
        for (int k = 0; k < K; k++)
            pic->value[p * K + k] += pic->value[i * K + k];
        s[p] += s[i];
    }
    for (int64_t i = 0; i < t->n; i++) {
        double g = -s[i], vt = 0;
        for (int k = 0; k < K; k++) {
            g += xlog2x(pic->value[i * K + k]);
            vt += pic->value[i * K + k];
        }
        pic->gain[i] = t->nchildren[i] ? g : 0.0;
        pic->loss[i] = t->nchildren[i] ? vt * log2((double)t->nleaf[i]) - g : 0.0;
    }
    free(s);
    return 0;
}

double ari_pic_value(const ari_pic *pic, int64_t node, double p)
{
    return p * pic->gain[node] - (1 - p) * pic->loss[node];
}

/* ---- best partition ---- */

/* Writes the aggregates (nodes marked in agg, or leaves) in preorder. */
static int64_t emit_blocks(const ari_pic *pic, const unsigned char *agg, int64_t *blocks, double *gain,
                           double *loss)
{
    const ari_pic_tree *t = &pic->tree;
    int64_t nb = 0;
    double g = 0, l = 0;
    for (int64_t i = 0; i < t->n;) {
        if (agg[i] || t->nchildren[i] == 0) {
            blocks[nb++] = i;
            g += pic->gain[i];
            l += pic->loss[i];
            i = t->subtree_end[i];
        } else {
            i++;
        }
    }
    if (gain)
        *gain = g;
    if (loss)
        *loss = l;
    return nb;
}

int64_t ari_pic_best(const ari_pic *pic, double p, int64_t *blocks, double *gain, double *loss)
{
    const ari_pic_tree *t = &pic->tree;
    double *childsum = calloc((size_t)t->n, sizeof *childsum);
    unsigned char *agg = calloc((size_t)t->n, 1);
    if (!childsum || !agg) {
        free(childsum);
        free(agg);
        return -1;
    }
    /* FINDBESTAGGREGATION in post-order: children come after their parent
     * in preorder, so a reverse scan sees every child first. */
    for (int64_t i = t->n - 1; i >= 0; i--) {
        double best = 0;
        if (t->nchildren[i]) {
            double own = ari_pic_value(pic, i, p);
            agg[i] = own > childsum[i] + ARI_PIC_EPS;
            best = agg[i] ? own : childsum[i];
        }
        if (i > 0)
            childsum[t->parent[i]] += best;
    }
    int64_t nb = emit_blocks(pic, agg, blocks, gain, loss);
    free(childsum);
    free(agg);
    return nb;
}

int64_t ari_pic_from_thresholds(const ari_pic *pic, double p, int64_t *blocks)
{
    const ari_pic_tree *t = &pic->tree;
    unsigned char *agg = calloc((size_t)t->n, 1);
    if (!agg)
        return -1;
    for (int64_t i = 0; i < t->n; i++)
        agg[i] = p > pic->threshold[i];
    int64_t nb = emit_blocks(pic, agg, blocks, NULL, NULL);
    free(agg);
    return nb;
}

/* ---- thresholds and levels ---- */

/* A threshold still visible from a node: above p, the node's best partition
 * changes by dcount aggregates, dgain and dloss. */
typedef struct entry {
    double p;
    int64_t dcount;
    double dgain, dloss;
} entry;

typedef struct elist {
    entry *e;
    int64_t n;
} elist;

static int by_p(const void *a, const void *b)
{
    double x = ((const entry *)a)->p, y = ((const entry *)b)->p;
    return (x > y) - (x < y);
}

/* The smallest p in [0, 1] with d(p) = pIC(A) - G(p) > ARI_PIC_EPS, where G
 * is the best value of the children: G(p) = sum over the entries below p of
 * p (dgain + dloss) - dloss. d is concave, so the first crossing is the one.
 * Also returns in *upto the number of entries below it. */
static double find_threshold(double g, double l, const elist *G, int64_t *upto)
{
    double sgl = 0, sl = 0, lo = 0;
    for (int64_t j = 0; j <= G->n; j++) {
        double hi = j < G->n ? G->e[j].p : 1.0;
        double a = g + l - sgl, b = l - sl + ARI_PIC_EPS; /* d(p) - eps = a p - b */
        if (a * lo - b > 0 || (a > 0 && b / a < hi)) {
            *upto = j;
            return a * lo - b > 0 ? lo : b / a;
        }
        if (j < G->n) {
            sgl += G->e[j].dgain + G->e[j].dloss;
            sl += G->e[j].dloss;
            lo = hi;
        }
    }
    *upto = G->n;
    return INFINITY;
}

/* Merges the children's lists of node i into one sorted list. */
static int gather(const ari_pic_tree *t, int64_t i, elist *lists, elist *out)
{
    int64_t total = 0;
    for (int64_t c = i + 1; c < t->subtree_end[i]; c = t->subtree_end[c])
        total += lists[c].n;
    out->n = 0;
    out->e = malloc((size_t)(total + 1) * sizeof *out->e);
    if (!out->e)
        return -1;
    for (int64_t c = i + 1; c < t->subtree_end[i]; c = t->subtree_end[c]) {
        if (lists[c].n)
            memcpy(out->e + out->n, lists[c].e, (size_t)lists[c].n * sizeof *out->e);
        out->n += lists[c].n;
        free(lists[c].e);
        lists[c].e = NULL;
    }
    qsort(out->e, (size_t)out->n, sizeof *out->e, by_p);
    return 0;
}

/* Node i's threshold, and its list: the children's entries below the
 * threshold, then its own (which replaces the ones above). */
static void node_threshold(ari_pic *pic, int64_t i, elist *L)
{
    const ari_pic_tree *t = &pic->tree;
    int64_t upto;
    double th = find_threshold(pic->gain[i], pic->loss[i], L, &upto);
    pic->threshold[i] = th;
    if (isinf(th))
        return;
    entry own = {th, 1 - t->nleaf[i], pic->gain[i], pic->loss[i]};
    for (int64_t j = 0; j < upto; j++) {
        own.dcount -= L->e[j].dcount;
        own.dgain -= L->e[j].dgain;
        own.dloss -= L->e[j].dloss;
    }
    L->e[upto] = own;
    L->n = upto + 1;
}

static int make_levels(ari_pic *pic, const elist *root)
{
    pic->levels = malloc((size_t)(root->n + 1) * sizeof *pic->levels);
    if (!pic->levels)
        return -1;
    ari_pic_level cur = {0, pic->tree.nleaves, 0, 0};
    pic->levels[0] = cur;
    pic->nlevels = 1;
    for (int64_t j = 0; j < root->n; j++) {
        cur.p = root->e[j].p;
        cur.count += root->e[j].dcount;
        cur.gain += root->e[j].dgain;
        cur.loss += root->e[j].dloss;
        ari_pic_level *last = &pic->levels[pic->nlevels - 1];
        if (pic->nlevels > 1 && cur.p - last->p <= ARI_PIC_EPS)
            *last = (ari_pic_level){last->p, cur.count, cur.gain, cur.loss};
        else
            pic->levels[pic->nlevels++] = cur;
    }
    return 0;
}

static int thresholds(ari_pic *pic)
{
    const ari_pic_tree *t = &pic->tree;
    elist *lists = calloc((size_t)t->n, sizeof *lists);
    if (!lists)
        return -1;
    int rc = 0;
    for (int64_t i = t->n - 1; i >= 0 && rc == 0; i--) {
        pic->threshold[i] = INFINITY;
        if (t->nchildren[i] == 0)
            continue;
        rc = gather(t, i, lists, &lists[i]);
        if (rc == 0)
            node_threshold(pic, i, &lists[i]);
    }
    if (rc == 0)
        rc = make_levels(pic, &lists[0]);
    for (int64_t i = 0; i < t->n; i++)
        free(lists[i].e);
    free(lists);
    return rc;
}

void ari_pic_free(ari_pic *pic)
{
    ari_pic_tree_free(&pic->tree);
    void *owned[] = {pic->gain, pic->loss, pic->value, pic->threshold, pic->levels};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(pic, 0, sizeof *pic);
}

static int check_values(int64_t count, const double *v, double *total, ari_error *err)
{
    double sum = 0;
    for (int64_t i = 0; i < count; i++) {
        if (!isfinite(v[i]) || v[i] < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "pic: value %lld is %g (want finite, >= 0)",
                                 (long long)i, v[i]);
        sum += v[i];
    }
    *total = sum;
    return 0;
}

int ari_pic_init(ari_pic *pic, int64_t n, const int64_t *parent, int nvalues, const double *v,
                 ari_error *err)
{
    memset(pic, 0, sizeof *pic);
    if (nvalues < 1)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "pic: no state values");
    if (ari_pic_tree_init(&pic->tree, n, parent, err) < 0)
        return -1;
    pic->nvalues = nvalues;
    if (check_values(pic->tree.nleaves * nvalues, v, &pic->total, err) < 0) {
        ari_pic_free(pic);
        return -1;
    }
    pic->gain = malloc((size_t)n * sizeof *pic->gain);
    pic->loss = malloc((size_t)n * sizeof *pic->loss);
    pic->value = calloc((size_t)n * (size_t)nvalues, sizeof *pic->value);
    pic->threshold = malloc((size_t)n * sizeof *pic->threshold);
    if (!pic->gain || !pic->loss || !pic->value || !pic->threshold || node_measures(pic, v) < 0 ||
        thresholds(pic) < 0) {
        ari_pic_free(pic);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for the pIC of %lld nodes", (long long)n);
    }
    return 0;
}
