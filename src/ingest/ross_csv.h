/* ross_csv.h: the CSV files of a ROSS PDES run (kind 'pdes'):
 *  - a metric matrix `<Metric>.csv` or `<run>_<Metric>.csv`: one row per
 *    KP (row k is KP k), one column per GVT sample, the header row holding
 *    the samples' LastGvt values (values may be quoted);
 *  - the per-sample record CSV (`*_kpgid100.csv`): a header naming the
 *    fields of the Damaris sample (EntityId, EventId, LastGvt, Mode,
 *    RealTs, Status, VirtualTs, the SimEngineMetrics fields, CommData,
 *    KpGid, Kpid, Peid) and one row per (KP, sample). CommData is the
 *    quoted list "[c0, c1, ...]" of events the KP sent to each KP.
 * Both stream through ari_input (gzip, zstd, ...) with memory bounded by
 * one line, and report bad cells as invalid_input "name:line:column: why".
 * Entities are named "PE p", "KP k"; KP k's PE is k / kps_per_pe.
 */
#ifndef ARIADNE_ROSS_CSV_H
#define ARIADNE_ROSS_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/metrics_sink.h"
#include "util/error.h"

/* Longest line accepted (a matrix row of many samples, a record's CommData). */
#define ARI_ROSS_MAX_LINE ((size_t)8 << 20) /* the line buffer is allocated at once */
/* Most columns of a matrix, and entries of a CommData list. */
#define ARI_ROSS_MAX_COLUMNS 1000000

/* Non-zero if the head of a file is a ROSS metric matrix: a complete first
 * line of numbers (quoted or not), at least one. */
int ari_ross_matrix_probe(const char *head, size_t n);
/* Non-zero if the head of a file is a ROSS record CSV: a header naming
 * LastGvt and KpGid (or Kpid and Peid). */
int ari_ross_records_probe(const char *head, size_t n);
/* The metric a matrix file is of, from its name: "RbSec.csv" and
 * "ross-df-256kp-500gvt_RbSec.csv.gz" give "RbSec". 0, or -1 when the
 * name has no metric part (letters and digits, starting with a letter). */
int ari_ross_metric_of_name(const char *name, char *out, size_t size);

typedef struct ari_ross_shape {
    int64_t rows, cols;
} ari_ross_shape;

/* Reads a matrix of `metric`; kps_per_pe > 0 puts KP k under "PE
 * k/kps_per_pe", 0 makes KPs roots. */
int ari_ross_matrix_read(const char *path, const char *name, const char *metric, int kps_per_pe,
                         const ari_metrics_sink *k, ari_ross_shape *shape, ari_error *err);

typedef struct ari_ross_records_info {
    int64_t rows;
    int kps_per_pe;          /* from KpGid = Peid * nKP + Kpid where Peid > 0; 0 unknown */
    int64_t comm_length;     /* entries of each CommData list, 0 if none */
    int nonzero[ARI_MT_NDOMAINS]; /* 1 if some record has a non-zero value of that domain */
} ari_ross_records_info;

/* Finds what the hierarchy needs without storing anything: nKP per PE
 * from the records (info->kps_per_pe), so that the matrices of the same
 * run can be read with it. */
int ari_ross_records_scan(const char *path, const char *name, ari_ross_records_info *info, ari_error *err);
/* Reads the records; kps_per_pe places the KPs of CommData lists (and of
 * records without Peid) under their PE (0: no PE level). */
int ari_ross_records_read(const char *path, const char *name, int kps_per_pe, const ari_metrics_sink *k,
                          ari_ross_records_info *info, ari_error *err);

/* ---- shared with metrics_csv.c ---- */

/* Splits a CSV line in place into fields (RFC 4180 quotes, blanks around
 * unquoted fields trimmed). *fields grows as needed (capacity *cap);
 * returns the count, or -1 with err set ("name:line:column: why") for a
 * bad quote or more than ARI_ROSS_MAX_COLUMNS fields, or when out of memory. */
long ari_mt_split(char *line, char ***fields, size_t *cap, const char *name, uint64_t lineno, ari_error *err);
/* A cell as a number: 0 with *v set (NaN for "", "NaN", "NA", "nan"),
 * -1 if it is not a finite number. */
int ari_mt_number(const char *cell, double *v);

#endif
