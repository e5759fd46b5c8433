/* format_metrics.h: the import format of sampled-metrics traces (kind
 * 'pdes', format "metrics"):
 *  - a ROSS run: the `<Metric>.csv` / `<run>_<Metric>.csv` matrices of one
 *    directory with the same header (LastGvt values), the record CSVs
 *    beside them (`*_kpgid100.csv`, `records.csv`: CommData, Peid, Kpid,
 *    KpGid), and the optional `ross.json` (run metadata: kps_per_pe, pes,
 *    lps_per_kp, simulated) and `truth.json` (a generated run's injected
 *    phases) make ONE trace; a record CSV alone is a trace too;
 *  - a generic long or wide metric CSV (ingest/metrics_csv.h), one trace
 *    per file.
 * KPs per PE come from the records (KpGid = Peid * nKP + Kpid), else from
 * ross.json, else 16 is assumed (the published sample's layout) and the
 * summary says so (kps_per_pe_source).
 */
#ifndef ARIADNE_FORMAT_METRICS_H
#define ARIADNE_FORMAT_METRICS_H

#include "import/formats.h"

extern const ari_format ari_format_metrics;

#endif
