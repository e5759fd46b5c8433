/* kmeans.h: a small deterministic k-means (spec_callflow.md 2.10 [D]: "a
 * tiny k-means seeded deterministically").
 *
 * Method: k-means++ seeding (Arthur & Vassilvitskii 2007: the first
 * centre uniform, each next one drawn with probability proportional to
 * the squared distance to the nearest chosen centre) from a splitmix64
 * generator started at `seed`, then Lloyd's iterations (assign each point
 * to its nearest centre, ties to the lowest index; move each centre to
 * its points' mean; a centre left empty stays where it is) until no
 * assignment changes or 300 iterations. This is repeated ARI_KMEANS_RESTARTS
 * times from the one generator and the partition with the least
 * within-cluster sum of squares is kept (the first on a tie). The same
 * input and seed always give the same answer.
 *
 * Labels are renumbered by first appearance: point 0 is in cluster 0, the
 * first point not in cluster 0 is in cluster 1, and so on. k is clamped
 * to the number of distinct points (*k_used says how many clusters there
 * are); n = 0 gives k_used 0.
 *
 * x: n x d row-major, finite. labels: n (caller-allocated). Returns 0, or
 * -1 with err (nomem).
 */
#ifndef ARIADNE_KMEANS_H
#define ARIADNE_KMEANS_H

#include <stdint.h>

#include "util/error.h"

#define ARI_KMEANS_RESTARTS 10
#define ARI_KMEANS_MAX_ITER 300

typedef struct ari_kmeans_result {
    int k_used;
    double wcss;    /* within-cluster sum of squared distances */
    int iterations; /* Lloyd iterations of the kept restart */
} ari_kmeans_result;

int ari_kmeans(const double *x, int n, int d, int k, uint64_t seed, int *labels, ari_kmeans_result *out,
               ari_error *err);

#endif
