/* ensemble_diff.h: the target-target difference of two ensemble members
 * (spec_callflow.md 2.9 [D]):
 *   delta(S) = mean_r x_A,r(S) - mean_r x_B,r(S)
 * for baseline A and comparison B, x the selected metric (exclusive by
 * default). Negative: B is slower (drawn red); positive: B is faster
 * (green). A node absent from one member counts 0 there; absent from both
 * gives NAN (null). The per-rank difference d_r = x_A,r - x_B,r is over
 * the union of both members' processes matched by (rank, thread), a
 * process missing from one side counting 0 there, so its histogram sums
 * to the number of processes in the union.
 */
#ifndef ARIADNE_ENSEMBLE_DIFF_H
#define ARIADNE_ENSEMBLE_DIFF_H

#include "util/error.h"

/* The union of A's and B's processes, sorted by (rank, thread); a[k] / b[k]
 * the process index in A / B, or -1. Owned; ari_ediff_match_free. */
typedef struct ari_ediff_match {
    int n;
    int *a, *b;
    int *rank, *thread;
} ari_ediff_match;

int ari_ediff_match_build(const int *rank_a, const int *thread_a, int na, const int *rank_b,
                          const int *thread_b, int nb, ari_ediff_match *out, ari_error *err);
void ari_ediff_match_free(ari_ediff_match *m);

/* d[k] = xa[a[k]] - xb[b[k]] over the match (missing or NAN count 0);
 * xa or xb NULL: that member lacks the node (all 0). */
void ari_ediff_ranks(const ari_ediff_match *m, const double *xa, const double *xb, double *d);

/* mean_a - mean_b, NAN counting 0 unless both are NAN (then NAN). */
double ari_ediff_delta(double mean_a, double mean_b);

#endif
