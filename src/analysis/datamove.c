/* datamove.c: clock sectors, tile pyramid, window shares and variance for
 * data movement traces (see datamove.h). Bytes are apportioned to bins and
 * windows as whole bytes through ari_dm_bytes_before, so every total of
 * whole movements is exact. */
#include "analysis/datamove.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const category_names[ARI_DM_NCAT] = {"data_movement", "gpu_compute", "cpu_compute",
                                                        "runtime_api"};

const char *ari_dm_category_name(int category)
{
    return category >= 0 && category < ARI_DM_NCAT ? category_names[category] : "unknown";
}

int ari_dm_category_parse(const char *name)
{
    for (int c = 0; c < ARI_DM_NCAT; c++)
        if (strcmp(name, category_names[c]) == 0)
            return c;
    return -1;
}

double ari_dm_overlap(double a0, double a1, double b0, double b1)
{
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

double ari_dm_bytes_before(double bytes, double start, double dur, double x)
{
    double offset = x - start;
    if (dur <= 0 || offset >= dur)
        return offset > 0 ? bytes : 0;
    if (offset <= 0)
        return 0;
    return floor(bytes * (offset / dur));
}

double ari_dm_bytes_in(double bytes, double start, double dur, double w0, double w1)
{
    if (!(w1 > w0))
        return 0;
    return ari_dm_bytes_before(bytes, start, dur, w1) - ari_dm_bytes_before(bytes, start, dur, w0);
}

double ari_dm_bin_edge(double t0, double t1, long b, long n)
{
    if (b >= n)
        return t1;
    return t0 + (t1 - t0) * (double)b / (double)n;
}

long ari_dm_bin_of(double t0, double t1, long n, double x)
{
    if (n <= 1 || !(x > t0))
        return 0;
    if (x >= t1)
        return n - 1;
    long b = (long)floor((x - t0) / (t1 - t0) * (double)n);
    if (b < 0)
        b = 0;
    if (b > n - 1)
        b = n - 1;
    /* the division may round across an edge: settle on the edges themselves */
    while (b > 0 && ari_dm_bin_edge(t0, t1, b, n) > x)
        b--;
    while (b + 1 < n && ari_dm_bin_edge(t0, t1, b + 1, n) <= x)
        b++;
    return b;
}

void ari_dm_clock_add(double *sectors, int nsectors, double t0, double width, int category, double start,
                      double dur)
{
    if (dur <= 0 || width <= 0 || category < 0 || category >= ARI_DM_NCAT)
        return;
    double end = start + dur;
    long first = (long)floor((start - t0) / width), last = (long)floor((end - t0) / width);
    if (first < 0)
        first = 0;
    if (last >= nsectors)
        last = nsectors - 1;
    for (long s = first; s <= last; s++) {
        double s0 = t0 + (double)s * width;
        sectors[s * ARI_DM_NCAT + category] += ari_dm_overlap(start, end, s0, s0 + width);
    }
}

double ari_dm_sector_width(double duration, int nsectors)
{
    double w = ceil(duration / (nsectors > 0 ? nsectors : 1));
    return w >= 1 ? w : 1;
}

/* ---- tiles ---------------------------------------------------------------------- */

static size_t level_cells(const ari_dm_tiles *t, int level)
{
    return (size_t)t->ntracks * ARI_DM_NCAT * ((size_t)1 << level);
}

int ari_dm_tiles_init(ari_dm_tiles *t, double t0, double t1, int ntracks)
{
    memset(t, 0, sizeof *t);
    t->t0 = t0;
    t->t1 = t1 > t0 ? t1 : t0 + 1;
    t->ntracks = ntracks > 0 ? ntracks : 1;
    t->levels = ARI_DM_TILE_LEVELS;
    size_t total = 0;
    for (int l = 0; l < t->levels; l++) {
        t->per_level_offset[l] = total;
        total += level_cells(t, l);
    }
    t->busy = calloc(total, sizeof *t->busy);
    t->bytes = calloc(total, sizeof *t->bytes);
    t->count = calloc(total, sizeof *t->count);
    if (!t->busy || !t->bytes || !t->count) {
        ari_dm_tiles_free(t);
        return -1;
    }
    return 0;
}

size_t ari_dm_tiles_cell(const ari_dm_tiles *t, int level, int track, int category, int bin)
{
    size_t nbins = (size_t)1 << level;
    return t->per_level_offset[level] + ((size_t)track * ARI_DM_NCAT + (size_t)category) * nbins + (size_t)bin;
}

void ari_dm_tiles_add(ari_dm_tiles *t, int track, int category, double start, double dur, double bytes)
{
    if (track < 0 || track >= t->ntracks || category < 0 || category >= ARI_DM_NCAT)
        return;
    int level = t->levels - 1;
    long nbins = 1L << level;
    long first = ari_dm_bin_of(t->t0, t->t1, nbins, start);
    t->count[ari_dm_tiles_cell(t, level, track, category, (int)first)]++;
    if (dur <= 0) {
        t->bytes[ari_dm_tiles_cell(t, level, track, category, (int)first)] += bytes;
        return;
    }
    long last = ari_dm_bin_of(t->t0, t->t1, nbins, start + dur);
    for (long b = first; b <= last; b++) {
        /* the first and last bins reach out to infinity: nothing is lost */
        double b0 = b == 0 ? -INFINITY : ari_dm_bin_edge(t->t0, t->t1, b, nbins);
        double b1 = b == nbins - 1 ? INFINITY : ari_dm_bin_edge(t->t0, t->t1, b + 1, nbins);
        size_t cell = ari_dm_tiles_cell(t, level, track, category, (int)b);
        t->busy[cell] += ari_dm_overlap(start, start + dur, b0, b1);
        t->bytes[cell] += ari_dm_bytes_in(bytes, start, dur, b0, b1);
    }
}

void ari_dm_tiles_build(ari_dm_tiles *t)
{
    for (int l = t->levels - 2; l >= 0; l--) {
        int nbins = 1 << l;
        for (int tr = 0; tr < t->ntracks; tr++)
            for (int c = 0; c < ARI_DM_NCAT; c++)
                for (int b = 0; b < nbins; b++) {
                    size_t me = ari_dm_tiles_cell(t, l, tr, c, b);
                    size_t k0 = ari_dm_tiles_cell(t, l + 1, tr, c, 2 * b), k1 = k0 + 1;
                    t->count[me] = t->count[k0] + t->count[k1];
                    t->busy[me] = t->busy[k0] + t->busy[k1];
                    t->bytes[me] = t->bytes[k0] + t->bytes[k1];
                }
    }
}

void ari_dm_tiles_free(ari_dm_tiles *t)
{
    free(t->busy);
    free(t->bytes);
    free(t->count);
    t->busy = t->bytes = NULL;
    t->count = NULL;
}

int ari_dm_pick_level(double t0, double t1, double w0, double w1, int target)
{
    double span = t1 > t0 ? t1 - t0 : 1, win = w1 > w0 ? w1 - w0 : 0;
    if (target < 1)
        target = 1;
    for (int l = 0; l < ARI_DM_TILE_LEVELS; l++)
        if (span / (double)(1L << l) <= win / target)
            return l;
    return ARI_DM_TILE_LEVELS - 1;
}

double ari_dm_variance(const double *v, size_t n)
{
    if (n < 2)
        return 0;
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) { /* Welford */
        double d = v[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (v[i] - mean);
    }
    return m2 / (double)n;
}
