/* metrics_cache.h: the stored values of sampled-metrics (pdes) traces kept
 * in process memory, so that the views' repeated requests on a large run
 * (16,384 entities x 1,000 samples: 131 MB of float64 per metric, about
 * 1-2 s to read from SQLite) cost a copy instead of a read.
 *
 * An entry is one metric of one trace: every entity's row of float64 over
 * the trace's time points (NaN where the entity has no stored row or no
 * sample), as mt_values holds them. Keyed by trace id, the trace's stamp
 * (created_at and sha256: a deleted trace's reused id never matches) and
 * metric id. Entries are shared read-only and reference counted (acquire,
 * read, release, from any thread); the least recently used unheld ones are
 * dropped beyond the budget (default 512 MiB); an entry larger than the
 * budget is not kept (the caller reads the rows itself). */
#ifndef ARIADNE_METRICS_CACHE_H
#define ARIADNE_METRICS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

typedef struct ari_mt_rows ari_mt_rows;

/* The rows of metric_id of trace_id (nentities x ntimes, as the trace's
 * description says), loaded when absent; NULL with err set on failure, or
 * NULL with err clear when the metric is larger than the budget. */
ari_mt_rows *ari_mt_rows_acquire(ari_store *s, int64_t trace_id, const char *stamp, int64_t metric_id,
                                 size_t nentities, size_t ntimes, ari_error *err);
/* values[e * ntimes + t]. */
const double *ari_mt_rows_values(const ari_mt_rows *r);
void ari_mt_rows_release(ari_mt_rows *r);
/* Every stored row of a metric (mt_values), one call of fn(ctx, entity,
 * row) each: row is ntimes float64, maybe unaligned; a row of another
 * length is corrupt (ARI_E_DB). fn returns 0, or -1 with err set, which
 * stops the scan. 0, or -1 with err. The one reader of those rows: the
 * cache's and, for a metric too large to keep, the matrix loader's. */
typedef int (*ari_mt_row_fn)(void *ctx, int64_t entity, const double *row, ari_error *err);
int ari_mt_rows_scan(ari_store *s, int64_t trace_id, int64_t metric_id, size_t ntimes, ari_mt_row_fn fn, void *ctx,
                     ari_error *err);
/* The budget in bytes; 0 keeps nothing. */
void ari_mt_rows_set_budget(size_t bytes);

#endif
