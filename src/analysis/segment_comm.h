/* segment_comm.h: per-segment summaries of sampled entity metrics and of
 * the communication between entities, for the communication view
 * (spec_pdes_dmv.md 2.6, 4.1).
 *
 * A segment is a half-open range [t0, t1) of sample indices (0 <= t0 <
 * t1 <= T); segments may overlap or leave gaps (the user edits them).
 * - Metric means: for each segment and entity, the mean of the entity's
 *   finite samples in the segment (NAN samples are missing; NAN when all
 *   are).
 * - Communication: sparse triples (t, src, dst, count): count events sent
 *   from entity src to entity dst in sample t (several triples of one
 *   (t, src, dst) add up). The segment's matrix is the mean over its
 *   t1 - t0 samples (a sample without a triple counts as 0): M[src][dst].
 * - Aggregation to groups (KP -> PE; rank -> node), as the authors' code:
 *   split a KP's row into the PE blocks and sum each block, then average
 *   those sums over the KPs of the source PE:
 *     G[a][b] = (1 / |a|) sum_{k in a} sum_{j in b} M[k][j]
 *   where |a| counts every KP of group a (group[k] = a), whether it sent
 *   or not. For ROSS, group[k] = k / nKP (KpGid = Peid * nKP + Kpid).
 *   ari_segment_comm_grouped gives G straight from the triples in
 *   O(triples x segments), without the n x n matrix.
 * - Direction (the view's comm_metric): send = M, recv = M' (what each
 *   row received), sum = M + M', max = max(M, M').
 * - Shared scale: of one metric, the min and max over every entity of
 *   every segment (NANs ignored), so that all the segments' rings use one
 *   scale (spec 4.1 `scales: {metric: [min, max]}`).
 */
#ifndef ARIADNE_SEGMENT_COMM_H
#define ARIADNE_SEGMENT_COMM_H

#include <stddef.h>

#include "util/error.h"

typedef struct ari_segment {
    int t0, t1; /* samples [t0, t1) */
} ari_segment;

typedef struct ari_comm_triple {
    int t, src, dst;
    double count;
} ari_comm_triple;

typedef enum ari_comm_mode {
    ARI_COMM_SEND,
    ARI_COMM_RECV,
    ARI_COMM_SUM,
    ARI_COMM_MAX
} ari_comm_mode;

/* x: n x T entity-major (each entity's series contiguous). out: nseg x n.
 * 0, or -1 with err (invalid_parameter for a segment outside [0, T)). */
int ari_segment_means(const double *x, int n, int T, const ari_segment *seg, int nseg, double *out,
                      ari_error *err);

/* out: nseg x n x n (row-major per segment: out[(g * n + src) * n + dst]).
 * 0, or -1 with err (invalid_parameter; invalid_input for a triple outside
 * [0, T) x [0, n)^2 or a non-finite count). */
int ari_segment_comm(const ari_comm_triple *tr, size_t ntr, int n, int T, const ari_segment *seg, int nseg,
                     double *out, ari_error *err);

/* m: n x n; group: n entries in [0, ngroups); out: ngroups x ngroups (a
 * group without members gives a zero row). 0, or -1 with err. */
int ari_comm_aggregate(const double *m, int n, const int *group, int ngroups, double *out, ari_error *err);

/* The grouped mean matrices of the segments straight from the triples:
 * out: nseg x ngroups x ngroups, equal to ari_comm_aggregate of each
 * ari_segment_comm matrix. */
int ari_segment_comm_grouped(const ari_comm_triple *tr, size_t ntr, int n, int T, const int *group, int ngroups,
                             const ari_segment *seg, int nseg, double *out, ari_error *err);

/* out (m x m) from a send matrix m_in (m x m); out != m_in. */
void ari_comm_direction(const double *m_in, int m, ari_comm_mode mode, double *out);

/* *lo, *hi over the count values (both NAN when every value is NAN). */
void ari_segment_scale(const double *means, size_t count, double *lo, double *hi);

#endif
