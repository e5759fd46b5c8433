/* pic_spacetime.h: the pIC aggregation of pic.h over the hierarchy crossed
 * with time (Dosimont, Lamarche-Perrin, Schnorr, Huard, Vincent, "A
 * spatiotemporal data aggregation technique for performance analysis of
 * large-scale execution traces", Cluster 2014).
 *
 * The window is cut into T equal slices; the elements are the cells (leaf,
 * slice) with v_k(leaf, slice) the time the leaf spent in value k during the
 * slice. An aggregate is a tree node during a contiguous interval of slices
 * [t0, t1] ("these machines during this interval"): it covers nleaf(node) *
 * (t1 - t0 + 1) cells, and its gain and loss are pic.h's formulas over those
 * cells (so the sum property holds: a partition's gain and loss are the sums
 * over its aggregates). Times are normalised by the total of all cells.
 *
 * Every partition of the cells into such aggregates can be cut, at each
 * (node, interval), either as one aggregate, or into the node's children
 * over the same interval, or into two intervals (an aggregate whose node
 * is the node spans every row, so a time cut passes beside it; otherwise
 * every aggregate lies under one child). The dynamic program
 *
 *   best(n, i, j) = max( pIC(n, i, j),
 *                        sum over children c of best(c, i, j),
 *                        max over i <= m < j of best(n, i, m) + best(n, m+1, j) )
 *
 * therefore finds the best partition: O(N T^3 + N T^2 K) time for N nodes,
 * T slices and K values, with a byte of decision per (node, interval).
 * Ties keep the finer partition (an aggregate must win by ARI_PIC_EPS
 * relative, so that an aggregate without loss wins at every p > 0).
 * With T = 1 it is pic.h's partition.
 *
 * Breakpoints: best(n, i, j) is a convex piecewise-linear function of p
 * (a max of lines p (gain + loss) - loss, one per partition). The same
 * program run on these functions, kept as their pieces sorted by p (a sum
 * merges the breakpoints, a max keeps the upper envelope with the program's
 * tie rules), gives every breakpoint of the root in one pass:
 * O(N T^3 P) for P pieces per table entry. The reference intersects the
 * lines of the best partitions at two p and solves there again
 * (Eisner-Severance): 2 B + 2 solves for B breakpoints.
 */
#ifndef ARIADNE_ANALYSIS_PIC_SPACETIME_H
#define ARIADNE_ANALYSIS_PIC_SPACETIME_H

#include <stdint.h>

#include "analysis/pic.h"
#include "util/error.h"

#define ARI_PIC_ST_MAX_SLICES 250

typedef struct ari_pic_st {
    ari_pic_tree tree;
    int T;            /* slices */
    int K;            /* values */
    double total;     /* total time before normalisation */
    double *V;        /* [n][T+1][K] prefix sums over slices of the node's normalised times */
    double *S;        /* [n][T+1] prefix sums of sum_k,leaves v log2 v */
    double *g, *w;    /* [n][T(T+1)/2] gain and v(A) log2 |A| per interval, or NULL (computed on demand) */
} ari_pic_st;

/* One aggregate: node during slices [t0, t1]. */
typedef struct ari_pic_block {
    int64_t node;
    int t0, t1;
    double gain, loss;
} ari_pic_block;

typedef struct ari_pic_partition {
    ari_pic_block *blocks;
    int64_t n;
    double gain, loss;
} ari_pic_partition;

/* v: [nleaves][T][K], finite, >= 0. Fails with invalid_parameter when T is
 * outside 1..ARI_PIC_ST_MAX_SLICES. */
int ari_pic_st_init(ari_pic_st *st, int64_t n, const int64_t *parent, int T, int K, const double *v,
                    ari_error *err);
void ari_pic_st_free(ari_pic_st *st);
/* Gain and loss of the aggregate (node, [t0, t1]). */
void ari_pic_st_measure(const ari_pic_st *st, int64_t node, int t0, int t1, double *gain, double *loss);
/* The normalised time per value of an aggregate, into out[K]. */
void ari_pic_st_values(const ari_pic_st *st, int64_t node, int t0, int t1, double *out);
/* The best partition for p (blocks in (node preorder, time) order of the
 * recursion); free with ari_pic_partition_free. */
int ari_pic_st_best(const ari_pic_st *st, double p, ari_pic_partition *out, ari_error *err);
void ari_pic_partition_free(ari_pic_partition *part);
/* The levels (pic.h's ari_pic_level): level 0 at p = 0 (every cell), then
 * one per breakpoint, sorted. *out is malloc'd. Fails with too_large when
 * the pieces exceed the limits of pic_spacetime.c (2^24 kept, 2^33 read). */
int ari_pic_st_levels(const ari_pic_st *st, ari_pic_level **out, int64_t *n, ari_error *err);
/* The same levels by re-solving at the crossings of lines (slow: two
 * solves per breakpoint); kept to cross-check the one-pass version. */
int ari_pic_st_levels_resolve(const ari_pic_st *st, ari_pic_level **out, int64_t *n, ari_error *err);

#endif
