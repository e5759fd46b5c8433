/* live_comm.h: communication matrices of a live run by hierarchy level
 * (spec_pdes_dmv.md 4.2 e1-e3, issue 18): the live matrix, the base matrix
 * of any time index and the differences at change points, aggregated to a
 * level of the entity hierarchy, with drill-down into one group.
 *
 * Entities are dense ids 0 .. n-1 with a parent (-1 for a root) and a level
 * (0 for the roots, parent's level + 1 below; e.g. PE 0, KP 1, LP 2). The
 * communication of one time point is a list of sparse triples (src, dst,
 * count) between entities of one level, the "leaf level" of the tree (KPs
 * for ROSS CommData); several triples of one (src, dst) add up.
 *
 * A view is the ordered list of row (= column) entities of a matrix: every
 * entity of a level, or the children of one group (drill-down), in the
 * natural order of their names when the tree has names, else by id (a way back up is the view of the group's
 * parent, or of its level). Each row entity stands for its descendants at
 * the leaf level (itself if it is at the leaf level). The cell of rows a, b
 * is the MEAN of their block of the leaf matrix, as the spec says ("the
 * average of each group block"):
 *     M[a][b] = (sum of count over triples with src under a, dst under b)
 *               / (leaves(a) * leaves(b))
 * so at the leaf level a cell is the count itself; a KP's row aggregated to
 * PEs of 16 KPs is its block sums / 16 (a 1 x 16 block). Triples whose ends
 * are outside the view's rows (drill-down) are ignored. A row entity with no
 * leaf below it gives a zero row and column.
 *
 * Pure functions, no globals: the caller (the live hub) gives the triples of
 * the time point it wants (live = the latest, base = any index, diff = each
 * change point against the base). Bounded: a view has at most
 * ARI_LCOMM_MAX_ROWS rows (the caller allocates m x m doubles).
 */
#ifndef ARIADNE_LIVE_COMM_H
#define ARIADNE_LIVE_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_LCOMM_MAX_ROWS  4096
#define ARI_LCOMM_MAX_DEPTH 64 /* deeper trees (or a parent cycle) are refused */

typedef struct ari_lcomm_triple {
    int32_t src, dst; /* entity ids at the leaf level */
    double count;
} ari_lcomm_triple;

/* The hierarchy (borrowed: must outlive the views built from it). */
typedef struct ari_lcomm_tree {
    size_t n;              /* entities 0 .. n-1 */
    const int32_t *parent; /* n: parent id or -1 */
    int leaf_level;        /* the level of the triples' entities */
    const char *const *names; /* n names, or NULL: rows then go in the names' natural order
                               * ("PE 2" before "PE 10"), else by id */
} ari_lcomm_tree;

typedef struct ari_lcomm_view ari_lcomm_view;

/* The level of entity e (0 for a root), or -1 on a bad id / cycle / depth > max. */
int ari_lcomm_level(const ari_lcomm_tree *tree, int32_t e);

/* group < 0: the rows are every entity at `level`; group >= 0: the children
 * of `group` (level ignored). level must be <= tree->leaf_level. NULL with
 * err: invalid_parameter (bad level or group, a group without children, a
 * leaf-level group, more than ARI_LCOMM_MAX_ROWS rows, a parent cycle), nomem. */
ari_lcomm_view *ari_lcomm_view_new(const ari_lcomm_tree *tree, int level, int32_t group, ari_error *err);
size_t ari_lcomm_view_size(const ari_lcomm_view *v);          /* m */
const int32_t *ari_lcomm_view_ids(const ari_lcomm_view *v);   /* m row entity ids, in row order */
int ari_lcomm_view_level(const ari_lcomm_view *v);            /* level of the rows */
int32_t ari_lcomm_view_group(const ari_lcomm_view *v);        /* the group drilled into, or -1 */
const size_t *ari_lcomm_view_leaves(const ari_lcomm_view *v); /* m: leaf-level descendants of each row */
/* Row of entity e in the view (the row of its ancestor in the view), or -1. */
int ari_lcomm_view_row(const ari_lcomm_view *v, int32_t e);

/* out: m x m row-major (out[a * m + b], a = sender). Triples with an id
 * outside [0, n) or a non-finite count: -1 with err invalid_input (out is
 * then unspecified). */
int ari_lcomm_view_matrix(const ari_lcomm_view *v, const ari_lcomm_triple *tr, size_t ntr, double *out,
                          ari_error *err);

/* Differences at change points: out[c] = matrix(cps[c]) - base, each m x m
 * (out: ncp x m x m). base: m x m from ari_lcomm_view_matrix. */
int ari_lcomm_view_diffs(const ari_lcomm_view *v, const double *base, const ari_lcomm_triple *const *cp_tr,
                         const size_t *cp_ntr, size_t ncp, double *out, ari_error *err);

/* The label of each row (cluster colour strips): labels[e] for every entity
 * id (-1 = none, at most 1024 labels). A row takes its own label if it has
 * one, else the most frequent label among its descendants that have one
 * (give labels at one level; ties to the lowest label; -1 if none). out: m. */
int ari_lcomm_view_labels(const ari_lcomm_view *v, const int *labels, int *out, ari_error *err);

void ari_lcomm_view_free(ari_lcomm_view *v);

#endif
