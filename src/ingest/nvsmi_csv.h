/* nvsmi_csv.h: nvidia-smi metric samples in CSV, as DMTracker and DMVis
 * write them (`timestamp(ns), temperature_gpu, power_draw_w, ...`) and as
 * `nvidia-smi --query-gpu=... --format=csv` prints them (`timestamp,
 * index, utilization.gpu [%], ...` with "2022/11/24 01:06:27.738" times
 * and units in the cells).
 *
 * Each numeric column becomes a metric series; an `index` (or `gpu`)
 * column names the GPU a row is for, else GPU 0. Times are reported in µs
 * since the epoch (nanosecond integers are divided by 1,000; date times
 * are read as UTC). Cells that are not numbers ("[N/A]") are skipped.
 * Summary tables without a timestamp column (nvprof's metric_summary.csv,
 * runtime_metrics.csv) are refused with a clear error.
 */
#ifndef ARIADNE_NVSMI_CSV_H
#define ARIADNE_NVSMI_CSV_H

#include <stddef.h>

#include "util/error.h"

typedef struct ari_nvsmi_sink {
    void *ctx;
    /* One sample of column `metric` for GPU `gpu` at ts (µs). */
    int (*sample)(void *ctx, const char *metric, int gpu, double ts, double value);
} ari_nvsmi_sink;

/* Non-zero if a file head looks like an nvidia-smi sample CSV. */
int ari_nvsmi_probe(const char *head, size_t n);
int ari_nvsmi_read(const char *path, const char *name, const ari_nvsmi_sink *k, ari_error *err);

#endif
