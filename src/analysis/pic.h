/* pic.h: information-theoretic aggregation of a hierarchy (seed 002,
 * Lamarche-Perrin, Schnorr, Vincent, Demazeau): which nodes of the platform
 * hierarchy (site, cluster, machine, process; or node, resource type,
 * worker) to show as one aggregate so that little information is lost.
 *
 * Input: a tree whose leaves carry, for each state value k, the time v_k(e)
 * the leaf spent in k over a window. For an aggregate A (the leaves of one
 * tree node), per value k, with v_k(A) = sum over the leaves e of A:
 *
 *   gain_k(A) = v_k(A) log2 v_k(A) - sum_e v_k(e) log2 v_k(e)
 *   loss_k(A) = sum_e v_k(e) log2( v_k(e) / v_k(A) * |A| )
 *
 * (0 log 0 = 0), and gain(A), loss(A) are the sums over k. Times are first
 * divided by the total time of all leaves, so measures are in bits per unit
 * of total time and do not depend on the time unit. A partition's gain and
 * loss are the sums over its aggregates (a single leaf has 0 and 0), and
 *
 *   pIC(A) = p * gain(A) - (1 - p) * loss(A),  p in [0, 1].
 *
 * ari_pic_best is the seed's FINDBESTAGGREGATION: one post-order traversal
 * keeping, at each node, the node itself when its pIC beats the best
 * partition of its children by more than ARI_PIC_EPS (ties keep the
 * detail), O(n). At p = 0 the result is every leaf (no loss); at p = 1 it is
 * the root (gain is superadditive) unless the gain ties.
 *
 * Breakpoints: for a node A, d(p) = pIC(A) - (best of its children) is
 * concave (a line minus a max of lines), d(0) = -loss(A) <= 0 and d(1) >= 0,
 * so A beats its children exactly for p above one threshold p*(A), and the
 * best partition only coarsens as p grows. Bottom-up, each node keeps the
 * piecewise-linear best value of its subtree as the list of thresholds still
 * visible from it (with the change of aggregate count, gain and loss at
 * each); its own threshold is the root of d on that list. The root's list is
 * the finite set of p where the best partition changes: O(n + I log I) for I
 * internal nodes.
 */
#ifndef ARIADNE_ANALYSIS_PIC_H
#define ARIADNE_ANALYSIS_PIC_H

#include <stdint.h>

#include "util/error.h"

/* Decisions need pIC(A) to beat the alternative by more than this (in bits
 * per unit of total time) so that round-off never splits a tie. */
#define ARI_PIC_EPS 1e-12

/* A hierarchy: nodes 0..n-1 in depth-first preorder (node 0 is the root,
 * every parent comes before its children and a subtree is a contiguous
 * range), parent[0] = -1. Leaves are the nodes without children, numbered
 * 0..nleaves-1 in that order, so a node covers a contiguous range of leaves. */
typedef struct ari_pic_tree {
    int64_t n;
    int64_t nleaves;
    int64_t *parent;
    int64_t *subtree_end; /* one past the node's last descendant */
    int64_t *first_leaf;  /* the node's leaves: [first_leaf, first_leaf + nleaf) */
    int64_t *nleaf;
    int64_t *nchildren;
    int64_t *leaf_node;   /* [nleaves] the node of each leaf */
} ari_pic_tree;

/* Checks parent[] (preorder, one root, no cycle) and fills *t. */
int ari_pic_tree_init(ari_pic_tree *t, int64_t n, const int64_t *parent, ari_error *err);
void ari_pic_tree_free(ari_pic_tree *t);
/* The highest node with the same leaves as `node` (climbs single-child
 * chains): the name to show for an aggregate. */
int64_t ari_pic_tree_top(const ari_pic_tree *t, int64_t node);

/* One level of the breakpoint list: the best partition for p in
 * (p, next level's p) has `count` aggregates, and that gain and loss. */
typedef struct ari_pic_level {
    double p;
    int64_t count;
    double gain, loss;
} ari_pic_level;

/* The space-only analysis. */
typedef struct ari_pic {
    ari_pic_tree tree;
    int nvalues;
    double total;     /* the total time before normalisation */
    double *gain;     /* [n] per node */
    double *loss;     /* [n] */
    double *value;    /* [n * nvalues] the node's normalised time per value */
    double *threshold;/* [n] p*(node): beats its children iff p > p*; INFINITY: never */
    ari_pic_level *levels;
    int64_t nlevels;
} ari_pic;

/* v: [nleaves * nvalues], the time of leaf i in value k at v[i*nvalues+k],
 * finite and >= 0. Computes the measures of every node, the thresholds and
 * the levels. */
int ari_pic_init(ari_pic *pic, int64_t n, const int64_t *parent, int nvalues, const double *v,
                 ari_error *err);
void ari_pic_free(ari_pic *pic);

/* The seed's one-traversal best partition for p: writes the nodes of the
 * aggregates (in leaf order) to blocks (capacity nleaves) and returns their
 * number; *gain and *loss (may be NULL) get the partition's totals. */
int64_t ari_pic_best(const ari_pic *pic, double p, int64_t *blocks, double *gain, double *loss);
/* The same partition read from the thresholds (a node is an aggregate when
 * p > its threshold and no ancestor is one). Used to cross-check. */
int64_t ari_pic_from_thresholds(const ari_pic *pic, double p, int64_t *blocks);
/* pIC of a node. */
double ari_pic_value(const ari_pic *pic, int64_t node, double p);

/* Measures of an aggregate from its leaves' values (the seed's formulas,
 * computed directly: used by the tests and by pic_spacetime.c). vals holds
 * `count` rows of nvalues; the result is summed over the values. */
void ari_pic_measures(const double *vals, int64_t count, int nvalues, double *gain, double *loss);

#endif
