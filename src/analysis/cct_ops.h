/* cct_ops.h: operations on a calling context tree (analysis/cct.h) that
 * every profile analysis shares: picking the inclusive and exclusive
 * variants of a metric (deriving the missing one from the tree), collapsing
 * a node's per-process values into one number (mean, sum, min, max,
 * median), per-node statistics, equal-width histograms, and the filter by
 * share of the root's inclusive time (CallFlow, spec_callflow.md 2.3).
 *
 * A filter is a view: it fills a keep-mask over the nodes and never touches
 * the CCT, so lowering the threshold "repopulates" the filtered nodes.
 *
 * Missing values (NAN: the node was not measured on that process) count as
 * zero time in sums and collapses: a process that never entered a context
 * spent no time in it. This keeps inc = exc + sum of the children's inc, and
 * so the super graph's flow conservation, true for every process subset.
 */
#ifndef ARIADNE_CCT_OPS_H
#define ARIADNE_CCT_OPS_H

#include <stdint.h>

#include "analysis/cct.h"
#include "util/error.h"

typedef enum ari_collapse {
    ARI_COLLAPSE_MEAN = 0,
    ARI_COLLAPSE_SUM,
    ARI_COLLAPSE_MIN,
    ARI_COLLAPSE_MAX,
    ARI_COLLAPSE_MEDIAN
} ari_collapse;

/* "mean", "sum", "min", "max", "median"; -1 if unknown. */
int ari_collapse_parse(const char *name, ari_collapse *out);
const char *ari_collapse_name(ari_collapse how);

/* Index of the metric called `name`; the aliases "inc" and "exc" pick the
 * first inclusive / exclusive metric, NULL or "" picks "time (inc)" if there
 * is one, else metric 0. Returns -1 when there is no such metric. */
int ari_cct_metric_find(const ari_cct *c, const char *name);

/* The inclusive and exclusive per-process values of one quantity. Values
 * the CCT has are borrowed; a missing variant is derived and owned:
 * inc(v) = exc(v) + sum inc(children), exc(v) = inc(v) - sum inc(children). */
typedef struct ari_cct_times {
    int64_t nnodes;
    int nprocs;
    int inc_metric;          /* index in the CCT, or -1 when derived */
    int exc_metric;          /* index in the CCT, or -1 when derived */
    const double *inc;       /* [nnodes * nprocs] */
    const double *exc;       /* [nnodes * nprocs] */
    double *owned;           /* the derived array, if any */
} ari_cct_times;

int ari_cct_times_init(ari_cct_times *t, const ari_cct *c, int metric, ari_error *err);
void ari_cct_times_free(ari_cct_times *t);

/* One number for row[0..nprocs) over the processes with proc_mask[p] != 0
 * (NULL: all). NAN counts as 0. `scratch` (nprocs doubles) is needed only
 * for the median; 0 when the mask selects no process. */
double ari_collapse_row(const double *row, int nprocs, const unsigned char *proc_mask,
                        ari_collapse how, double *scratch);

/* out[i] = collapse of node i's row of `values`, for every node. */
int ari_cct_collapse(const ari_cct *c, const double *values, const unsigned char *proc_mask,
                     ari_collapse how, double *out, ari_error *err);

/* Statistics of one node over the processes (NAN counts as 0; `measured`
 * is how many processes had a value). */
typedef struct ari_node_stats {
    double mean, min, max, median, sum;
    int n;          /* processes counted */
    int measured;   /* of which had a value (not NAN) */
} ari_node_stats;

int ari_node_stats_compute(const double *row, int nprocs, const unsigned char *proc_mask,
                           ari_node_stats *out);

/* Equal-width histogram of v[0..n) (NAN counts as 0) with numpy's rules:
 * bins over [min, max], the last bin closed on the right; when max == min
 * every value goes to the middle bin. counts has nbins entries. */
void ari_histogram(const double *v, int n, const unsigned char *mask, int nbins, int *counts,
                   double *min_out, double *max_out);
/* The bin of value x for a histogram over [min, max] (same rules, and
 * numpy's correction at the edges: the bin whose edges hold x). */
int ari_histogram_bin(double x, double min, double max, int nbins);

/* The filter of spec 2.3. For each function name f, T(f) = sum of the
 * collapsed inclusive value over f's instances that have no ancestor of the
 * same name (no double counting of recursion), or the sum of the exclusive
 * value over all instances when by_exclusive. A node passes when
 * T(name) >= fraction * (collapsed inclusive of all roots); it is kept when
 * it passes or a descendant is kept (ancestors of kept nodes stay, so the
 * tree stays connected). fraction <= 0 keeps every node.
 * keep[nnodes] receives 1/0; *kept_out (may be NULL) the number kept. */
typedef struct ari_cct_filter {
    double fraction;     /* of the root's inclusive time; CallFlow's default 0.001 */
    int by_exclusive;    /* 0: inclusive (default), 1: exclusive */
    ari_collapse collapse;
} ari_cct_filter;

int ari_cct_filter_mask(const ari_cct *c, const ari_cct_times *t, const ari_cct_filter *f,
                        unsigned char *keep, int64_t *kept_out, ari_error *err);
/* The same filter from the collapsed values already made (inc[nnodes] and
 * exc[nnodes], f->collapse of t->inc and t->exc over all processes; unread
 * when fraction <= 0): what a store that collapses in SQL calls (store/
 * supergraph_queries.h). The CCT's values are not read. */
int ari_cct_filter_mask_collapsed(const ari_cct *c, const double *inc, const double *exc,
                                  const ari_cct_filter *f, unsigned char *keep, int64_t *kept_out,
                                  ari_error *err);

/* Interns n strings (NULL counts as ""): ids[i] in 0..*nunique, equal
 * strings getting equal ids, numbered by first occurrence. 0 or -1 (memory). */
int ari_intern_strings(const char *const *s, int64_t n, int64_t *ids, int64_t *nunique);

/* Checks the structural promises of cct.h (parents before children, arrays
 * present, values arrays for every metric). 0 or -1 with invalid_input. */
int ari_cct_validate(const ari_cct *c, ari_error *err);
/* The same checks without the values (a summary, cct.h). */
int ari_cct_validate_tree(const ari_cct *c, ari_error *err);

#endif
