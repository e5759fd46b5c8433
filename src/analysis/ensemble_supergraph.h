/* ensemble_supergraph.h: the ensemble super graph (spec_callflow.md 2.7
 * steps 2-5 and 2.8): the single-run super graph (analysis/supergraph.h)
 * built once on the unified CCT of an ensemble (analysis/ensemble_cct.h),
 * so that supernode and edge ids are identical for every member, with
 * per-member values and the statistics across members.
 *
 * How: the unified CCT is flattened into one ari_cct whose "processes"
 * stand for the members, concatenated in member order (member m owns
 * processes proc_first[m] .. proc_first[m+1]-1); a node a member lacks has
 * NAN there. The unchanged super graph code groups, filters (on the mean
 * over those processes) and splits it; a member's value of a node or edge
 * is then the collapse (mean by default, spec 2.7 step 5) over that
 * member's processes only, which equals what the single-run super graph of
 * that member gives for the same ids.
 *
 * The graph is always built on one stand-in process per member (summaries
 * suffice, cct.h): the member's node sum over its processes (collapse sum)
 * or that sum over its process count (mean, also the stand-in of the other
 * collapses). The super graph's sums are linear and count NAN as 0, so a
 * stand-in's supernode value is the member's collapsed value (up to
 * rounding); the filter and the order weigh every member equally. With
 * params.per_rank (full CCTs), the same graph (same ids) then takes every
 * process of every member (ari_supergraph_revalue): any collapse, and the
 * per-process values of the rank histograms, boxplots and differences, at
 * nodes x all members' processes of memory. Without it, min, max and
 * median (not linear) are refused.
 *
 * Absent (spec 2.7 step 3): a supernode is present in a member when one
 * of its CCT nodes is; an edge S->T when one of T's entry nodes with its
 * parent in S is. Absent values are NAN, never 0, and every statistic
 * across members is over the present members only (NAN when none).
 *
 * Ownership: the unified CCT and its members' CCTs are borrowed and must
 * outlive the result; everything else is owned and released by
 * ari_esg_free (also on a zeroed struct and after an error).
 */
#ifndef ARIADNE_ENSEMBLE_SUPERGRAPH_H
#define ARIADNE_ENSEMBLE_SUPERGRAPH_H

#include <stdint.h>

#include "analysis/cct.h"
#include "analysis/cct_ops.h"
#include "analysis/ensemble_cct.h"
#include "analysis/supergraph.h"
#include "util/error.h"

typedef struct ari_esg_params {
    int metric;            /* unified metric index; its partner (if any) rides along */
    int per_rank;          /* 1: every member's processes (members must be full CCTs);
                            * 0: one stand-in per member (collapse mean or sum only) */
    ari_cct_filter filter; /* on the collapse over all members' processes */
    ari_sg_params sg;      /* grouping, map, splits; sg.collapse also collapses ranks per member */
} ari_esg_params;

typedef struct ari_esg {
    /* the flattened CCT (owned arrays behind it) */
    ari_cct flat;
    int *proc_rank, *proc_thread;
    ari_cct_metric metrics[2];
    double *values[2];
    int *proc_first; /* [nmembers + 1] */
    ari_cct_times t;
    unsigned char *keep;
    int64_t kept;
    ari_supergraph g;
    int nmembers;
    int per_rank;
    /* per member m: [j * nmembers + m] */
    double *inc, *exc; /* [g.nnodes * nmembers], NAN when absent */
    double *weight;    /* [g.nedges * nmembers], NAN when absent */
} ari_esg;

int ari_esg_build(const ari_ecct *e, const ari_esg_params *p, ari_esg *out, ari_error *err);
void ari_esg_free(ari_esg *s);

/* Statistics of n values over the present (not NAN) ones. */
typedef struct ari_esg_range {
    double min, max, mean; /* NAN when none present */
    int npresent;
} ari_esg_range;

void ari_esg_range_of(const double *v, int n, int stride, ari_esg_range *out);

/* The gradient histogram (spec 2.8) of one value per member (v[m *
 * stride], NAN absent): nbins equal-width bins over [min, max] of the
 * present values with numpy's rules (analysis/cct_ops.h ari_histogram);
 * run_bin[m] is member m's bin, -1 when absent. counts[nbins],
 * run_bin[n] are the caller's. */
void ari_esg_gradient(const double *v, int n, int stride, int nbins, int *counts, int *run_bin, double *min,
                      double *max);

#endif
