/* datamove_views.h: what the data movement endpoints compute from the
 * rows the store reads (store/datamove_queries.h), on plain arrays:
 *  - the tally of the movements of a window (count, bytes, bytes inside);
 *  - the component x component matrix (bytes and busy time per pair, up to
 *    ARI_DM_MATRIX_MAX components) with its totals and bandwidths, and
 *    the bytes each component moved;
 *  - the utilization of each component from its tracks' busy time;
 *  - the largest clock sector;
 *  - the summary of a metric series (variance, range, decimation stride)
 *    and the order of the series by variance.
 * The arithmetic is the endpoints' own, operation for operation, so their
 * answers stay the same to the last bit.
 */
#ifndef ARIADNE_DATAMOVE_VIEWS_H
#define ARIADNE_DATAMOVE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#define ARI_DM_MATRIX_MAX 64
#define ARI_DM_KEY_SIZE 24

/* ---- movements ---- */

typedef struct ari_dm_tally {
    int64_t total;          /* movements */
    double bytes;           /* their bytes */
    double bytes_in_window; /* the part of them inside the window (ari_dm_bytes_in) */
} ari_dm_tally;

/* Counts one movement of the window [w0, w1). */
void ari_dm_tally_add(ari_dm_tally *t, double bytes, double start, double dur, double w0, double w1);

/* ---- matrix ---- */

typedef struct ari_dm_matrix {
    char keys[ARI_DM_MATRIX_MAX][ARI_DM_KEY_SIZE];
    int n;
    double bytes[ARI_DM_MATRIX_MAX][ARI_DM_MATRIX_MAX]; /* [src][dst] */
    double busy[ARI_DM_MATRIX_MAX][ARI_DM_MATRIX_MAX];  /* time units with a movement in flight */
} ari_dm_matrix;

/* The index of a component, added if new (keys are cut to 23 bytes); -1
 * when the matrix is full. */
int ari_dm_matrix_key(ari_dm_matrix *m, const char *key);
/* Adds bytes and busy time to the pair (src, dst), adding the keys; a
 * pair past a full matrix is dropped. */
void ari_dm_matrix_add(ari_dm_matrix *m, const char *src, const char *dst, double bytes, double busy);
/* Adds the part of one movement inside [w0, w1) to its pair. */
void ari_dm_matrix_add_movement(ari_dm_matrix *m, const char *src, const char *dst, double bytes, double start,
                                double dur, double w0, double w1);
/* The sum and the largest of the cells (row by row). */
void ari_dm_matrix_totals(const ari_dm_matrix *m, double *total, double *max);
/* GB/s of cell (i, j) with time units of unit_s seconds; NAN when the
 * cell was never busy. */
double ari_dm_matrix_bandwidth(const ari_dm_matrix *m, int i, int j, double unit_s);
/* The same for times in µs, as the topology's links give it. */
double ari_dm_matrix_bandwidth_us(const ari_dm_matrix *m, int i, int j);
/* Bytes the component moved: its row and its column (the diagonal once);
 * 0 for "" or a key not in the matrix. */
double ari_dm_matrix_moved(const ari_dm_matrix *m, const char *key);

/* ---- utilization ---- */

/* Busy fraction of each component over [w0, w1): the busy time of its
 * busy tracks (busy > 0) over (w1 - w0) times their number, at most 1.
 * comp[t] names track t's component. Components come in the order of
 * their first busy track: *ncomps of them into comp_of (track indices
 * naming each one) and frac; both need room for ntracks. */
void ari_dm_utilization(const char (*comp)[ARI_DM_KEY_SIZE], const double *busy, int ntracks, double w0,
                        double w1, int *comp_of, double *frac, int *ncomps);

/* ---- clock ---- */

/* The largest sum over the categories of one sector (0 if none). */
double ari_dm_clock_max(const double *sectors, int nsectors, int ncat);

/* ---- metric series ---- */

typedef struct ari_dm_series_stats {
    double variance;     /* ari_dm_variance */
    double min, max;     /* of the values; +inf and -inf without values */
    int64_t stride;      /* every stride-th sample is drawn */
} ari_dm_series_stats;

/* n: the series' sample count in the window (for the stride, at most
 * max_points drawn), v: its k values read. */
void ari_dm_series_summary(const double *v, size_t k, int64_t n, int max_points, ari_dm_series_stats *out);
/* order[0..n): series indices, highest variance first, ties in their
 * order (an insertion sort); a non-finite variance ranks as 0 (the
 * encoder leaves it out, and it always compared as 0). */
void ari_dm_series_order(const double *variance, size_t n, size_t *order);

#endif
