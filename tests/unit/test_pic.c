/* test_pic.c: the pIC aggregation (src/analysis/pic.c, pic_spacetime.c).
 *
 * - On random small hierarchies, the best partition equals the best of an
 *   exhaustive enumeration of every tiling of the cells (leaf x slice) by
 *   aggregates (node, interval), scored with the seed's formulas computed
 *   directly on the cells, for many p, in space (T = 1) and space-time.
 * - The sum property, p = 0 (every leaf) and p = 1 (the root).
 * - Breakpoints: at the midpoint of every level the partition has the
 *   level's count, gain and loss, and consecutive levels differ; the
 *   one-pass space-time levels equal the re-solving reference's.
 * - A generated platform of 10 sites, 100 clusters, 1,000 machines and
 *   1,000,000 processes with anomalies in a few machines (space) and in a
 *   few machines during a few intervals (space-time over the machines):
 *   at the p that summarises the normal part, every anomaly is its own
 *   aggregate(s), mixed with no normal cell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pic.h"
#include "analysis/pic_spacetime.h"
#include "test_rng.h"

static int rng_int(int n)
{
    return (int)(rng_uniform() * n) % n;
}

/* ---- random small hierarchies ---- */

#define MAXN 32

typedef struct small {
    int64_t n;
    int64_t parent[MAXN];
    int nleaves, T, K;
    double v[MAXN * 4 * 3]; /* [leaf][T][K] */
} small;

static void gen_node(small *s, int64_t parent, int depth, int max_leaves)
{
    int64_t me = s->n++;
    s->parent[me] = parent;
    int kids = depth < 3 && s->nleaves < max_leaves - 1 ? rng_int(4) : 0;
    if (depth == 0 && kids < 2)
        kids = 2;
    if (kids == 0) {
        s->nleaves++;
        return;
    }
    for (int c = 0; c < kids && s->n < MAXN - 4; c++)
        gen_node(s, me, depth + 1, max_leaves);
}

static void gen_small(small *s, int max_leaves, int T, int K)
{
    memset(s, 0, sizeof *s);
    gen_node(s, -1, 0, max_leaves);
    s->T = T;
    s->K = K;
    /* leaves count in preorder may differ from s->nleaves if the MAXN cap
     * cut a subtree: recount */
    int64_t kids[MAXN] = {0};
    for (int64_t i = 1; i < s->n; i++)
        kids[s->parent[i]]++;
    s->nleaves = 0;
    for (int64_t i = 0; i < s->n; i++)
        s->nleaves += kids[i] == 0;
    for (int c = 0; c < s->nleaves * T * K; c++) {
        double u = rng_uniform();
        s->v[c] = u < 0.15 ? 0.0 : u < 0.3 ? 1.0 : 10 * rng_uniform();
    }
}

/* ---- exhaustive tilings ---- */

typedef struct rect {
    int64_t node;
    int t0, t1;
} rect;

typedef struct brute {
    const small *s;
    const ari_pic_tree *tree;
    double total, p;
    unsigned char cover[MAXN][4];
    rect cur[MAXN * 4], best[MAXN * 4];
    int ncur, nbest;
    double best_value, second_value; /* best and the best of a different tiling value */
    long tilings;
} brute;

/* The seed's measures computed on the rectangle's cells. */
static void rect_measures(const brute *b, rect r, double *g, double *l)
{
    const small *s = b->s;
    double vals[MAXN * 4 * 3];
    int64_t count = 0;
    for (int64_t e = b->tree->first_leaf[r.node]; e < b->tree->first_leaf[r.node] + b->tree->nleaf[r.node]; e++)
        for (int t = r.t0; t <= r.t1; t++, count++)
            for (int k = 0; k < s->K; k++)
                vals[count * s->K + k] = b->total > 0 ? s->v[(e * s->T + t) * s->K + k] / b->total : 0;
    ari_pic_measures(vals, count, s->K, g, l);
}

static double tiling_value(const brute *b, const rect *rs, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double g, l;
        rect_measures(b, rs[i], &g, &l);
        sum += b->p * g - (1 - b->p) * l;
    }
    return sum;
}

static int rect_free(const brute *b, rect r)
{
    for (int64_t e = b->tree->first_leaf[r.node]; e < b->tree->first_leaf[r.node] + b->tree->nleaf[r.node]; e++)
        for (int t = r.t0; t <= r.t1; t++)
            if (b->cover[e][t])
                return 0;
    return 1;
}

static void set_cover(brute *b, rect r, unsigned char on)
{
    for (int64_t e = b->tree->first_leaf[r.node]; e < b->tree->first_leaf[r.node] + b->tree->nleaf[r.node]; e++)
        for (int t = r.t0; t <= r.t1; t++)
            b->cover[e][t] = on;
}

static void enumerate(brute *b)
{
    int fe = -1, fs = -1;
    for (int e = 0; e < b->s->nleaves && fe < 0; e++)
        for (int t = 0; t < b->s->T; t++)
            if (!b->cover[e][t]) {
                fe = e;
                fs = t;
                break;
            }
    if (fe < 0) {
        double v = tiling_value(b, b->cur, b->ncur);
        b->tilings++;
        if (v > b->best_value) {
            b->second_value = b->best_value;
            b->best_value = v;
            memcpy(b->best, b->cur, (size_t)b->ncur * sizeof *b->cur);
            b->nbest = b->ncur;
        } else if (v > b->second_value) {
            b->second_value = v;
        }
        return;
    }
    /* every node whose first leaf is fe (the leaf and the ancestors that
     * start with it), every interval starting at fs */
    for (int64_t node = b->tree->leaf_node[fe]; node >= 0; node = b->tree->parent[node]) {
        if (b->tree->first_leaf[node] != fe)
            break;
        for (int t1 = fs; t1 < b->s->T; t1++) {
            rect r = {node, fs, t1};
            if (!rect_free(b, r))
                break;
            set_cover(b, r, 1);
            b->cur[b->ncur++] = r;
            enumerate(b);
            b->ncur--;
            set_cover(b, r, 0);
        }
    }
}

/* A tiling as a cell -> block-id map (first cell of its block), so that
 * equal partitions compare equal whatever the node names. */
static void cell_map(const ari_pic_tree *tree, const rect *rs, int n, int T, int *map)
{
    for (int i = 0; i < n; i++) {
        int first = (int)(tree->first_leaf[rs[i].node] * T + rs[i].t0);
        for (int64_t e = tree->first_leaf[rs[i].node]; e < tree->first_leaf[rs[i].node] + tree->nleaf[rs[i].node]; e++)
            for (int t = rs[i].t0; t <= rs[i].t1; t++)
                map[e * T + t] = first;
    }
}

static double small_total(const small *s)
{
    double t = 0;
    for (int c = 0; c < s->nleaves * s->T * s->K; c++)
        t += s->v[c];
    return t;
}

/* Checks one solved partition against the exhaustive best at p. */
static void check_against_brute(const small *s, const ari_pic_tree *tree, double p, const rect *got, int ngot,
                                double got_gain, double got_loss)
{
    brute b = {.s = s, .tree = tree, .total = small_total(s), .p = p, .best_value = -INFINITY,
               .second_value = -INFINITY};
    enumerate(&b);
    assert_true(b.tilings > 0);
    double value = tiling_value(&b, got, ngot);
    assert_true(fabs(value - b.best_value) < 1e-9);
    /* the sum property: the module's totals are the sums over blocks */
    double g = 0, l = 0;
    for (int i = 0; i < ngot; i++) {
        double gi, li;
        rect_measures(&b, got[i], &gi, &li);
        g += gi;
        l += li;
    }
    assert_true(fabs(g - got_gain) < 1e-9 && fabs(l - got_loss) < 1e-9);
    /* when the best value is clearly unique the partitions are the same */
    if (b.best_value - b.second_value > 1e-6) {
        int m1[MAXN * 4], m2[MAXN * 4];
        cell_map(tree, got, ngot, s->T, m1);
        cell_map(tree, b.best, b.nbest, s->T, m2);
        assert_memory_equal(m1, m2, (size_t)(s->nleaves * s->T) * sizeof(int));
    }
}

static int space_partition(const ari_pic *pic, double p, rect *out, double *g, double *l)
{
    int64_t blocks[MAXN];
    int64_t n = ari_pic_best(pic, p, blocks, g, l);
    assert_true(n > 0);
    for (int64_t i = 0; i < n; i++)
        out[i] = (rect){blocks[i], 0, 0};
    return (int)n;
}

static void test_space_brute_force(void **state)
{
    (void)state;
    for (int round = 0; round < 60; round++) {
        small s;
        gen_small(&s, 8, 1, 1 + round % 3);
        ari_pic pic;
        ari_error err = {0};
        assert_int_equal(ari_pic_init(&pic, s.n, s.parent, s.K, s.v, &err), 0);
        for (int j = 0; j <= 20; j++) {
            double p = j / 20.0;
            rect got[MAXN];
            double g, l;
            int n = space_partition(&pic, p, got, &g, &l);
            check_against_brute(&s, &pic.tree, p, got, n, g, l);
            /* the thresholds give the same partition */
            int64_t b1[MAXN], b2[MAXN];
            int64_t n1 = ari_pic_best(&pic, p, b1, NULL, NULL), n2 = ari_pic_from_thresholds(&pic, p, b2);
            assert_int_equal(n1, n2);
            assert_memory_equal(b1, b2, (size_t)n1 * sizeof *b1);
        }
        ari_pic_free(&pic);
    }
}

static int st_partition(const ari_pic_st *st, double p, rect *out, double *g, double *l)
{
    ari_pic_partition part;
    ari_error err = {0};
    assert_int_equal(ari_pic_st_best(st, p, &part, &err), 0);
    for (int64_t i = 0; i < part.n; i++)
        out[i] = (rect){part.blocks[i].node, part.blocks[i].t0, part.blocks[i].t1};
    *g = part.gain;
    *l = part.loss;
    int n = (int)part.n;
    ari_pic_partition_free(&part);
    return n;
}

static void test_spacetime_brute_force(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        small s;
        gen_small(&s, 4, 1 + round % 4, 1 + round % 2);
        if (s.nleaves * s.T > 12)
            s.T = 12 / s.nleaves > 0 ? 12 / s.nleaves : 1;
        ari_pic_st st;
        ari_error err = {0};
        assert_int_equal(ari_pic_st_init(&st, s.n, s.parent, s.T, s.K, s.v, &err), 0);
        for (int j = 0; j <= 12; j++) {
            double p = j / 12.0;
            rect got[MAXN * 4];
            double g, l;
            int n = st_partition(&st, p, got, &g, &l);
            check_against_brute(&s, &st.tree, p, got, n, g, l);
        }
        ari_pic_st_free(&st);
    }
}

/* With T = 1 the space-time program gives the space partition. */
static void test_spacetime_one_slice(void **state)
{
    (void)state;
    for (int round = 0; round < 30; round++) {
        small s;
        gen_small(&s, 10, 1, 2);
        ari_pic pic;
        ari_pic_st st;
        ari_error err = {0};
        assert_int_equal(ari_pic_init(&pic, s.n, s.parent, s.K, s.v, &err), 0);
        assert_int_equal(ari_pic_st_init(&st, s.n, s.parent, 1, s.K, s.v, &err), 0);
        for (int j = 0; j <= 10; j++) {
            double p = j / 10.0, g1, l1, g2, l2;
            rect a[MAXN], b[MAXN * 4];
            int na = space_partition(&pic, p, a, &g1, &l1), nb = st_partition(&st, p, b, &g2, &l2);
            assert_int_equal(na, nb);
            assert_true(fabs(g1 - g2) < 1e-9 && fabs(l1 - l2) < 1e-9);
        }
        ari_pic_free(&pic);
        ari_pic_st_free(&st);
    }
}

/* p = 0: every leaf, gain = loss = 0; p = 1: the root alone, with the
 * whole gain; the sum property on the root's children. */
static void test_extremes(void **state)
{
    (void)state;
    /* root > {a > {l0, l1}, b > {l2, l3, l4}} */
    int64_t parent[] = {-1, 0, 1, 1, 0, 4, 4, 4};
    double v[] = {5, 1, 4, 2, 0, 6, 3, 3, 1, 1};
    ari_pic pic;
    ari_error err = {0};
    assert_int_equal(ari_pic_init(&pic, 8, parent, 2, v, &err), 0);
    assert_int_equal(pic.tree.nleaves, 5);
    int64_t blocks[5];
    double g, l;
    assert_int_equal(ari_pic_best(&pic, 0, blocks, &g, &l), 5);
    assert_true(g == 0 && l == 0);
    assert_int_equal(ari_pic_best(&pic, 1, blocks, &g, &l), 1);
    assert_int_equal(blocks[0], 0);
    double eg, el, norm[10];
    for (int i = 0; i < 10; i++)
        norm[i] = v[i] / 26.0;
    ari_pic_measures(norm, 5, 2, &eg, &el);
    assert_true(fabs(g - eg) < 1e-12 && fabs(l - el) < 1e-12);
    /* gain by hand for value 0: v = (5,4,0,3,1)/26 */
    double x[] = {5 / 26.0, 4 / 26.0, 0, 3 / 26.0, 1 / 26.0}, y[] = {1 / 26.0, 2 / 26.0, 6 / 26.0, 3 / 26.0, 1 / 26.0};
    double g0 = (13 / 26.0) * log2(13 / 26.0), g1 = (13 / 26.0) * log2(13 / 26.0);
    double l0 = 0, l1 = 0;
    for (int i = 0; i < 5; i++) {
        if (x[i] > 0) {
            g0 -= x[i] * log2(x[i]);
            l0 += x[i] * log2(x[i] / (13 / 26.0) * 5);
        }
        g1 -= y[i] * log2(y[i]);
        l1 += y[i] * log2(y[i] / (13 / 26.0) * 5);
    }
    assert_true(fabs(pic.gain[0] - (g0 + g1)) < 1e-12 && fabs(pic.loss[0] - (l0 + l1)) < 1e-12);
    /* gain is superadditive: the root's gain is at least its children's */
    assert_true(pic.gain[0] >= pic.gain[1] + pic.gain[4]);
    ari_pic_free(&pic);

    ari_pic_st st;
    assert_int_equal(ari_pic_st_init(&st, 8, parent, 2, 1, v, &err), 0);
    ari_pic_partition part;
    assert_int_equal(ari_pic_st_best(&st, 1, &part, &err), 0);
    assert_int_equal(part.n, 1);
    assert_true(part.blocks[0].node == 0 && part.blocks[0].t0 == 0 && part.blocks[0].t1 == 1);
    ari_pic_partition_free(&part);
    assert_int_equal(ari_pic_st_best(&st, 0, &part, &err), 0);
    assert_int_equal(part.n, 10);
    assert_true(part.gain == 0 && part.loss == 0);
    ari_pic_partition_free(&part);
    ari_pic_st_free(&st);
}

static void test_bad_input(void **state)
{
    (void)state;
    ari_pic pic;
    ari_pic_st st;
    ari_error err = {0};
    int64_t bad_root[] = {0, 0};
    int64_t bad_order[] = {-1, 0, 1, 0, 2}; /* node 4 under 2 after 3 closed it */
    int64_t ok[] = {-1, 0, 0};
    double v[] = {1, 2, 3, 4, 5, 6};
    double neg[] = {1, -2};
    assert_int_equal(ari_pic_init(&pic, 2, bad_root, 1, v, &err), -1);
    assert_string_equal(err.code, ARI_E_INVALID_PARAMETER);
    assert_int_equal(ari_pic_init(&pic, 5, bad_order, 1, v, &err), -1);
    assert_int_equal(ari_pic_init(&pic, 3, ok, 1, neg, &err), -1);
    assert_int_equal(ari_pic_init(&pic, 3, ok, 0, v, &err), -1);
    assert_int_equal(ari_pic_st_init(&st, 3, ok, 0, 1, v, &err), -1);
    assert_int_equal(ari_pic_st_init(&st, 3, ok, ARI_PIC_ST_MAX_SLICES + 1, 1, v, &err), -1);
    /* all zero: nothing to aggregate, every leaf stays */
    double zero[2] = {0, 0};
    int64_t blocks[2];
    assert_int_equal(ari_pic_init(&pic, 3, ok, 1, zero, &err), 0);
    assert_int_equal(ari_pic_best(&pic, 1, blocks, NULL, NULL), 2);
    assert_int_equal(pic.nlevels, 1);
    ari_pic_free(&pic);
}

/* ---- breakpoints ---- */

static void check_space_levels(const ari_pic *pic)
{
    int64_t *blocks = malloc((size_t)pic->tree.nleaves * sizeof *blocks);
    int64_t *prev = malloc((size_t)pic->tree.nleaves * sizeof *prev);
    int64_t nprev = -1;
    assert_true(pic->levels[0].p == 0 && pic->levels[0].count == pic->tree.nleaves);
    for (int64_t j = 0; j < pic->nlevels; j++) {
        double hi = j + 1 < pic->nlevels ? pic->levels[j + 1].p : 1.0;
        double mid = j == 0 && pic->nlevels > 1 ? hi / 2 : (pic->levels[j].p + hi) / 2;
        double g, l;
        int64_t n = ari_pic_best(pic, mid, blocks, &g, &l);
        assert_int_equal(n, pic->levels[j].count);
        assert_true(fabs(g - pic->levels[j].gain) < 1e-9 && fabs(l - pic->levels[j].loss) < 1e-9);
        if (j > 0)
            assert_true(n != nprev || memcmp(blocks, prev, (size_t)n * sizeof *blocks) != 0);
        /* constant between breakpoints: a quarter and three quarters agree */
        if (j > 0) {
            double lo = pic->levels[j].p;
            assert_int_equal(ari_pic_best(pic, lo + (hi - lo) * 0.01 + 1e-9, prev, NULL, NULL), n);
            assert_int_equal(ari_pic_best(pic, hi - (hi - lo) * 0.01, prev, NULL, NULL), n);
        }
        memcpy(prev, blocks, (size_t)n * sizeof *blocks);
        nprev = n;
    }
    free(blocks);
    free(prev);
}

static void test_space_breakpoints(void **state)
{
    (void)state;
    for (int round = 0; round < 80; round++) {
        small s;
        gen_small(&s, 12, 1, 1 + round % 3);
        ari_pic pic;
        ari_error err = {0};
        assert_int_equal(ari_pic_init(&pic, s.n, s.parent, s.K, s.v, &err), 0);
        check_space_levels(&pic);
        /* the generic search over the space-time program (T = 1) finds
         * the same breakpoints */
        ari_pic_st st;
        ari_pic_level *lv;
        int64_t nlv;
        assert_int_equal(ari_pic_st_init(&st, s.n, s.parent, 1, s.K, s.v, &err), 0);
        assert_int_equal(ari_pic_st_levels(&st, &lv, &nlv, &err), 0);
        assert_int_equal(nlv, pic.nlevels);
        for (int64_t j = 0; j < nlv; j++) {
            assert_true(fabs(lv[j].p - pic.levels[j].p) < 1e-6);
            assert_int_equal(lv[j].count, pic.levels[j].count);
        }
        free(lv);
        ari_pic_st_free(&st);
        ari_pic_free(&pic);
    }
}

static void test_spacetime_breakpoints(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        small s;
        gen_small(&s, 6, 2 + round % 3, 2);
        ari_pic_st st;
        ari_error err = {0};
        assert_int_equal(ari_pic_st_init(&st, s.n, s.parent, s.T, s.K, s.v, &err), 0);
        ari_pic_level *lv;
        int64_t nlv;
        assert_int_equal(ari_pic_st_levels(&st, &lv, &nlv, &err), 0);
        assert_true(nlv >= 1 && lv[0].count == s.nleaves * s.T);
        double prev_g = -1, prev_l = -1;
        for (int64_t j = 0; j < nlv; j++) {
            double hi = j + 1 < nlv ? lv[j + 1].p : 1.0;
            assert_true(hi > lv[j].p);
            double mid = (lv[j].p + hi) / 2, g, l;
            rect got[MAXN * 4];
            int n = st_partition(&st, mid, got, &g, &l);
            assert_int_equal(n, lv[j].count);
            assert_true(fabs(g - lv[j].gain) < 1e-9 && fabs(l - lv[j].loss) < 1e-9);
            assert_true(fabs(g - prev_g) > 1e-9 || fabs(l - prev_l) > 1e-9);
            prev_g = g;
            prev_l = l;
        }
        free(lv);
        ari_pic_st_free(&st);
    }
}

/* The one-pass envelopes give the levels of the re-solving reference. */
static void test_spacetime_levels_vs_resolve(void **state)
{
    (void)state;
    for (int round = 0; round < 120; round++) {
        small s;
        gen_small(&s, 8, 1 + round % 4, 1 + round % 3);
        ari_pic_st st;
        ari_error err = {0};
        assert_int_equal(ari_pic_st_init(&st, s.n, s.parent, s.T, s.K, s.v, &err), 0);
        ari_pic_level *a, *b;
        int64_t na, nb;
        assert_int_equal(ari_pic_st_levels(&st, &a, &na, &err), 0);
        assert_int_equal(ari_pic_st_levels_resolve(&st, &b, &nb, &err), 0);
        assert_int_equal(na, nb);
        for (int64_t j = 0; j < na; j++) {
            assert_true(fabs(a[j].p - b[j].p) < 1e-9);
            assert_int_equal(a[j].count, b[j].count);
            assert_true(fabs(a[j].gain - b[j].gain) < 1e-9 && fabs(a[j].loss - b[j].loss) < 1e-9);
        }
        free(a);
        free(b);
        ari_pic_st_free(&st);
    }
}

/* ---- the generated platform ---- */

#define SITES 10
#define CLUSTERS_PER_SITE 10
#define MACHINES_PER_CLUSTER 10
#define PROCS_PER_MACHINE 1000
#define NMACHINES (SITES * CLUSTERS_PER_SITE * MACHINES_PER_CLUSTER)
#define NANOM 5

static const int anomalous_machine[NANOM] = {17, 242, 503, 777, 998};

/* Preorder of site > cluster > machine [> process]. Returns the node
 * count; machine_node[m] gets the node of machine m. */
static int64_t build_platform(int64_t *parent, int procs, int64_t *machine_node)
{
    int64_t n = 0;
    parent[n++] = -1;
    int m = 0;
    for (int s = 0; s < SITES; s++) {
        int64_t site = n;
        parent[n++] = 0;
        for (int c = 0; c < CLUSTERS_PER_SITE; c++) {
            int64_t cluster = n;
            parent[n++] = site;
            for (int k = 0; k < MACHINES_PER_CLUSTER; k++, m++) {
                int64_t machine = n;
                machine_node[m] = machine;
                parent[n++] = cluster;
                for (int p = 0; p < procs; p++)
                    parent[n++] = machine;
            }
        }
    }
    return n;
}

static int is_anomalous(int m)
{
    for (int a = 0; a < NANOM; a++)
        if (anomalous_machine[a] == m)
            return 1;
    return 0;
}

/* Run/steal shares: normal processes run 80 % +- 3 %, those of the
 * anomalous machines 35 %. */
static void test_million_processes(void **state)
{
    (void)state;
    int64_t nmax = 1 + SITES + SITES * CLUSTERS_PER_SITE + NMACHINES + (int64_t)NMACHINES * PROCS_PER_MACHINE;
    int64_t *parent = malloc((size_t)nmax * sizeof *parent);
    int64_t machine_node[NMACHINES];
    int64_t n = build_platform(parent, PROCS_PER_MACHINE, machine_node);
    assert_int_equal(n, nmax);
    int64_t nleaves = (int64_t)NMACHINES * PROCS_PER_MACHINE;
    double *v = malloc((size_t)nleaves * 2 * sizeof *v);
    for (int64_t e = 0; e < nleaves; e++) {
        double run = is_anomalous((int)(e / PROCS_PER_MACHINE)) ? 0.35 : 0.8;
        run += 0.06 * (rng_uniform() - 0.5);
        v[2 * e] = run;
        v[2 * e + 1] = 1 - run;
    }
    ari_pic pic;
    ari_error err = {0};
    assert_int_equal(ari_pic_init(&pic, n, parent, 2, v, &err), 0);
    assert_int_equal(pic.tree.nleaves, nleaves);
    assert_true(pic.nlevels > 3);
    /* the p that summarises the rest: the first level at which every
     * normal machine lies inside an aggregate of a machine or more */
    int64_t *blocks = malloc((size_t)nleaves * sizeof *blocks);
    double p_sum = -1;
    int64_t count = 0;
    for (int64_t j = 0; j < pic.nlevels && p_sum < 0; j++) {
        double hi = j + 1 < pic.nlevels ? pic.levels[j + 1].p : 1.0, mid = (pic.levels[j].p + hi) / 2;
        count = ari_pic_best(&pic, mid, blocks, NULL, NULL);
        int ok = 1;
        for (int64_t b = 0; b < count && ok; b++) {
            int64_t node = blocks[b];
            int m = (int)(pic.tree.first_leaf[node] / PROCS_PER_MACHINE);
            if (pic.tree.nleaf[node] < PROCS_PER_MACHINE && !is_anomalous(m))
                ok = 0;
        }
        if (ok)
            p_sum = mid;
    }
    assert_true(p_sum > 0);
    print_message("million processes: %lld levels, summarised at p = %.6f with %lld aggregates\n",
                  (long long)pic.nlevels, p_sum, (long long)count);
    assert_true(count < 1000); /* a summary: fewer aggregates than machines */
    /* every anomalous machine is covered by aggregates of its own leaves */
    for (int64_t b = 0; b < count; b++) {
        int64_t node = blocks[b], lo = pic.tree.first_leaf[node], hi = lo + pic.tree.nleaf[node];
        int anomal = 0, normal = 0;
        for (int64_t m = lo / PROCS_PER_MACHINE; m * PROCS_PER_MACHINE < hi; m++)
            is_anomalous((int)m) ? anomal++ : normal++;
        assert_false(anomal && normal);
    }
    free(blocks);
    ari_pic_free(&pic);
    free(v);
    free(parent);
}

/* Space-time over the machines (each the sum of its 1,000 processes) by 20
 * slices, anomalies in a few machines during a few intervals. */
#define SLICES 20
typedef struct anomaly {
    int machine, t0, t1;
} anomaly;
static const anomaly st_anomalies[] = {{17, 3, 6}, {242, 10, 11}, {503, 0, 19}, {777, 15, 15}, {998, 8, 13}};

static int cell_anomaly(int m, int t)
{
    for (size_t a = 0; a < sizeof st_anomalies / sizeof *st_anomalies; a++)
        if (st_anomalies[a].machine == m && t >= st_anomalies[a].t0 && t <= st_anomalies[a].t1)
            return 1;
    return 0;
}

static void test_spacetime_anomalies(void **state)
{
    (void)state;
    int64_t parent[1 + SITES + SITES * CLUSTERS_PER_SITE + NMACHINES];
    int64_t machine_node[NMACHINES];
    int64_t n = build_platform(parent, 0, machine_node);
    double *v = malloc((size_t)NMACHINES * SLICES * 2 * sizeof *v);
    for (int m = 0; m < NMACHINES; m++)
        for (int t = 0; t < SLICES; t++) {
            double run = 0;
            for (int p = 0; p < PROCS_PER_MACHINE; p++)
                run += (cell_anomaly(m, t) ? 0.35 : 0.8) + 0.06 * (rng_uniform() - 0.5);
            v[(m * SLICES + t) * 2] = run;
            v[(m * SLICES + t) * 2 + 1] = PROCS_PER_MACHINE - run;
        }
    ari_pic_st st;
    ari_error err = {0};
    assert_int_equal(ari_pic_st_init(&st, n, parent, SLICES, 2, v, &err), 0);
    ari_pic_level *lv;
    int64_t nlv;
    assert_int_equal(ari_pic_st_levels(&st, &lv, &nlv, &err), 0);
    assert_true(nlv > 3);
    /* the p that summarises the rest: the first level with at least 100
     * normal cells per aggregate on average */
    ari_pic_partition part = {0};
    double p_sum = -1;
    for (int64_t j = 0; j < nlv && p_sum < 0; j++) {
        double hi = j + 1 < nlv ? lv[j + 1].p : 1.0;
        if (lv[j].count * 100 <= (int64_t)NMACHINES * SLICES) {
            p_sum = (lv[j].p + hi) / 2;
            assert_int_equal(ari_pic_st_best(&st, p_sum, &part, &err), 0);
        }
    }
    assert_true(p_sum > 0);
    print_message("space-time: %lld levels, summarised at p = %.6f with %lld aggregates\n", (long long)nlv, p_sum,
                  (long long)part.n);
    /* no aggregate mixes anomalous and normal cells */
    for (int64_t b = 0; b < part.n; b++) {
        const ari_pic_block *blk = &part.blocks[b];
        int anomal = 0, normal = 0;
        for (int64_t e = st.tree.first_leaf[blk->node]; e < st.tree.first_leaf[blk->node] + st.tree.nleaf[blk->node];
             e++)
            for (int t = blk->t0; t <= blk->t1; t++)
                cell_anomaly((int)e, t) ? anomal++ : normal++;
        assert_false(anomal && normal);
    }
    ari_pic_partition_free(&part);
    free(lv);
    ari_pic_st_free(&st);
    free(v);
}

int main(void)
{
    rng_state = 0x9E3779B97F4A7C15ULL; /* the seed the expectations were made with */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_space_brute_force),
        cmocka_unit_test(test_spacetime_brute_force),
        cmocka_unit_test(test_spacetime_one_slice),
        cmocka_unit_test(test_space_breakpoints),
        cmocka_unit_test(test_spacetime_breakpoints),
        cmocka_unit_test(test_spacetime_levels_vs_resolve),
        cmocka_unit_test(test_million_processes),
        cmocka_unit_test(test_spacetime_anomalies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
