/* datamove.h: the analyses of data movement traces (DMVis, thesis ch. 7),
 * on plain arrays so they can be tested without a store:
 *  - the clock: a run cut into 12 (or n) equal sectors, each event's time
 *    split across the sectors it overlaps in proportion to the overlap,
 *    per category; an ensemble uses one sector width for all runs,
 *    ceil(longest duration / n), so runs compare on one scale;
 *  - the tile pyramid behind the windowed timeline: per level L, 2^L bins
 *    over the run; per bin, events that start in it, busy time and bytes
 *    (both split by overlap); a window holding more than a limit of events
 *    is answered with groups from the level whose bins fit it;
 *  - the whole bytes of a movement inside a window or bin, for the
 *    component-by-component byte matrix, the pair bins and the tiles (see
 *    ari_dm_bytes_before: totals stay exact integers however a run is cut);
 *  - the variance used to sort metric series.
 */
#ifndef ARIADNE_DATAMOVE_H
#define ARIADNE_DATAMOVE_H

#include <stddef.h>
#include <stdint.h>

enum { ARI_DM_MOVE = 0, ARI_DM_GPU = 1, ARI_DM_CPU = 2, ARI_DM_RUNTIME = 3, ARI_DM_NCAT = 4 };

#define ARI_DM_CLOCK_SECTORS 12
#define ARI_DM_PAIR_BINS 4096     /* bins of dm_pair_bins over [t0, t1], edges ari_dm_bin_edge */
#define ARI_DM_TILE_LEVELS 13     /* levels 0..12: up to 4,096 bins */
#define ARI_DM_GROUP_LIMIT 1000   /* more events than this in a window: groups */

const char *ari_dm_category_name(int category);
/* "data_movement" -> 0, ...; -1 if unknown. */
int ari_dm_category_parse(const char *name);

/* Length of [a0, a1) ∩ [b0, b1), 0 if they do not meet. */
double ari_dm_overlap(double a0, double a1, double b0, double b1);

/* Bytes of a movement of `bytes` over [start, start + dur) moved before
 * time x at a uniform rate, rounded down to a whole byte: 0 up to its
 * start, all of them from its end on (a point movement, dur <= 0, moves
 * them all at start: before(x) = bytes iff x > start). The offset x - start
 * is taken first, so epoch-µs times keep their precision. Monotone in x. */
double ari_dm_bytes_before(double bytes, double start, double dur, double x);
/* Bytes of a movement inside [w0, w1): before(w1) - before(w0). Whole and
 * non-negative; over windows that tile the time line the parts sum to
 * exactly `bytes`, and a window holding the whole movement gets all of it. */
double ari_dm_bytes_in(double bytes, double start, double dur, double w0, double w1);
/* Edge b of n equal bins over [t0, t1]: t0 + (t1 - t0) * b / n, computed
 * from the run's origin in one way for the writer and the queries, so a
 * bin's bytes and a window's raw edges meet at the same instants. Edge n
 * is t1. */
double ari_dm_bin_edge(double t0, double t1, long b, long n);
/* The bin of n over [t0, t1] holding time x: the largest b in [0, n) with
 * edge(b) <= x (0 before t0, n - 1 from t1 on). */
long ari_dm_bin_of(double t0, double t1, long n, double x);

/* Adds an event's time to sectors[nsectors][ARI_DM_NCAT] (sector i covers
 * [t0 + i*width, t0 + (i+1)*width)), split by overlap. Time outside all
 * sectors is dropped. */
void ari_dm_clock_add(double *sectors, int nsectors, double t0, double width, int category, double start,
                      double dur);
/* Sector width for a run of this duration, or for an ensemble whose
 * longest run lasts this long: ceil(duration / nsectors), at least 1. */
double ari_dm_sector_width(double duration, int nsectors);

/* The tile pyramid, built in memory over [t0, t1] for ntracks tracks. */
typedef struct ari_dm_tiles {
    double t0, t1;
    int ntracks;
    int levels;
    /* [level][track][category][bin]: offsets into the arrays below */
    double *busy, *bytes;
    int64_t *count;
    size_t per_level_offset[ARI_DM_TILE_LEVELS];
} ari_dm_tiles;


int ari_dm_tiles_init(ari_dm_tiles *t, double t0, double t1, int ntracks);
/* Adds an event at the finest level. */
void ari_dm_tiles_add(ari_dm_tiles *t, int track, int category, double start, double dur, double bytes);
/* Sums the finest level into the coarser ones. */
void ari_dm_tiles_build(ari_dm_tiles *t);
/* Index of a cell, for reading count/busy/bytes. */
size_t ari_dm_tiles_cell(const ari_dm_tiles *t, int level, int track, int category, int bin);
void ari_dm_tiles_free(ari_dm_tiles *t);

/* The level whose bin width is the largest not above (w1 - w0) / target
 * bins, so a window shows about `target` bins or more; the finest level
 * when even its bins are too wide. */
int ari_dm_pick_level(double t0, double t1, double w0, double w1, int target);

/* Population variance of v[0..n), 0 when n < 2. */
double ari_dm_variance(const double *v, size_t n);

#endif
