/* hclust.h: complete-linkage agglomerative clustering on a distance matrix
 * with R's hclust(method = "complete") conventions: merge matrix, heights,
 * dendrogram order, and cutting the tree at k clusters as cutree(tree, k)
 * (spec_pdes_dmv.md 2.3, issue 17).
 *
 * Algorithm (R's hclust.f, F. Murtagh's nearest-neighbour list): keep, for
 * every cluster i, its nearest cluster to the right and that distance;
 * merge the pair of least distance (the lowest i on a tie; within a row the
 * first minimum), the merged cluster keeping the lower index; the distance
 * of the merged cluster to any other is the larger of the two (complete
 * linkage: the largest pairwise distance); refresh the nearest neighbours
 * that pointed at either. Same ties as R, hence the same tree on the same
 * numbers.
 *
 * merge[2s], merge[2s+1] (step s = 0..n-2) are R's merge row s+1: -(i+1)
 * for point i (0-based), t+1 for the cluster formed at step t; a point
 * comes before a cluster, two points or two clusters in increasing order.
 * height[s] is the distance at which step s merged (non-decreasing for
 * complete linkage). order is the points left to right in the dendrogram
 * (R's order, 0-based).
 *
 * dist: n x n row-major, symmetric (the upper triangle is read), finite.
 * Memory: n(n-1)/2 doubles and O(n) more; time O(n^2) per merge in the
 * worst case, about O(n^2) overall on ordinary data.
 */
#ifndef ARIADNE_HCLUST_H
#define ARIADNE_HCLUST_H

#include "util/error.h"

#define ARI_HCLUST_MAX_POINTS 65536

typedef struct ari_hclust_result {
    int n;
    int *merge;     /* 2 (n-1), see above */
    double *height; /* n - 1 */
    int *order;     /* n */
} ari_hclust_result;

/* Returns the tree (free with ari_hclust_free), or NULL with err:
 * invalid_parameter (n < 1 or above ARI_HCLUST_MAX_POINTS, a non-finite
 * distance), nomem. */
ari_hclust_result *ari_hclust_complete(const double *dist, int n, ari_error *err);
/* ari_hclust_complete with a cancel flag (NULL: none): a non-zero value
 * there (read atomically; analysis_runs.h) stops before the next merge,
 * and it returns NULL with ARI_E_CANCELLED. A flag never set gives
 * ari_hclust_complete's tree. */
ari_hclust_result *ari_hclust_complete_cancellable(const double *dist, int n, const int *cancel,
                                                   ari_error *err);
void ari_hclust_free(ari_hclust_result *h);

/* labels (n): the clusters after the first n - k merges, numbered 0.. by
 * first appearance in point order (cutree's numbering, minus one).
 * 1 <= k <= n. Returns 0 or -1 with err (invalid_parameter, nomem). */
int ari_hclust_cut(const ari_hclust_result *h, int k, int *labels, ari_error *err);

#endif
