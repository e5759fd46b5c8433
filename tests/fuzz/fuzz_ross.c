/* fuzz_ross.c: libFuzzer target for the sampled-metrics readers: the ROSS
 * metric matrix and record CSV (ross_csv.c) and the generic long and wide
 * CSVs (metrics_csv.c). Each input is written to a private temporary file
 * (the readers take paths); its first byte picks the reader, the rest is
 * the file. The probes see the same bytes. The sink checks what the
 * readers promise (known handles, finite values and times, a parent made
 * before its child) and counts; a clean error is fine; a crash, leak, hang
 * or sanitizer report is a bug.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_files.h"
#include "ingest/metrics_csv.h"
#include "ingest/ross_csv.h"

static int64_t ntimes, nentities, nmetrics, nvalues;

static int64_t on_time(void *ctx, int domain, double key, const double *other)
{
    (void)ctx;
    if (domain < 0 || domain >= ARI_MT_NDOMAINS || !isfinite(key))
        abort();
    for (int d = 0; other && d < ARI_MT_NDOMAINS; d++)
        if (isinf(other[d]))
            abort();
    return ntimes < 1000 ? ntimes++ : 0;
}

static int64_t on_entity(void *ctx, const char *level, const char *name, int64_t parent)
{
    (void)ctx;
    if (!level[0] || !name[0] || parent >= nentities)
        abort();
    return nentities++;
}

static int64_t on_metric(void *ctx, const char *name, int attribute)
{
    (void)ctx, (void)attribute;
    if (!name[0])
        abort();
    return nmetrics++;
}

static int on_value(void *ctx, int64_t m, int64_t e, int64_t t, double v)
{
    (void)ctx;
    if (m < 0 || m >= nmetrics || e < 0 || e >= nentities || t < 0 || t >= ntimes || !isfinite(v))
        abort();
    nvalues++;
    return 0;
}

static int on_comm(void *ctx, int64_t t, int64_t src, const int64_t *dst, const double *count, size_t n)
{
    (void)ctx;
    if (t < 0 || t >= ntimes || src < 0 || src >= nentities)
        abort();
    for (size_t i = 0; i < n; i++)
        if (dst[i] < 0 || dst[i] >= nentities || !(count[i] > 0) || !isfinite(count[i]))
            abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] & 3;
    char path[4096];
    ari_ross_matrix_probe((const char *)data + 1, size - 1);
    ari_ross_records_probe((const char *)data + 1, size - 1);
    ari_metrics_long_probe((const char *)data + 1, size - 1);
    ari_metrics_wide_probe((const char *)data + 1, size - 1);
    if (fuzz_write("x_RbSec.csv", data + 1, size - 1, path, sizeof path) == 0) {
        ari_metrics_sink k = {NULL, on_time, on_entity, on_metric, on_value, on_comm, NULL};
        ari_error err;
        ari_ross_shape shape;
        ari_ross_records_info info;
        ntimes = nentities = nmetrics = 0;
        if (which == 0)
            ari_ross_matrix_read(path, "x_RbSec.csv", "RbSec", 4, &k, &shape, &err);
        else if (which == 1 && ari_ross_records_scan(path, "r.csv", &info, &err) == 0)
            ari_ross_records_read(path, "r.csv", info.kps_per_pe ? info.kps_per_pe : 16, &k, &info, &err);
        else if (which == 2)
            ari_metrics_long_read(path, "l.csv", &k, &err);
        else
            ari_metrics_wide_read(path, "w.csv", "w", &k, &err);
    }
    fuzz_empty(fuzz_dir());
    return 0;
}
