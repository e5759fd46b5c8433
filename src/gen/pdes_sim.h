/* pdes_sim.h: a SIMULATED ROSS PDES run, written as the files ariadne
 * reads (format "metrics", kind 'pdes'), for tests and benchmarks:
 *  - `<Metric>.csv` for RbSec, RbTotal, NetworkSend, NetworkRecv,
 *    NeventProcessed, NeventRb and VirtualTimeDiff: one row per KP, one
 *    column per GVT sample, the header holding the samples' LastGvt
 *    (the published sample's layout);
 *  - `records.csv` (unless records == 0): one row per (sample, KP) with
 *    every field of the Damaris sample record (EntityId, EventId, LastGvt,
 *    Mode, RealTs, Status, VirtualTs, the 24 SimEngineMetrics fields,
 *    CommData as the KP's row of the KP x KP event matrix, KpGid, Kpid,
 *    Peid);
 *  - `ross.json` (pes, kps_per_pe, lps_per_kp, samples, seed, simulated:
 *    true) and `truth.json`: the injected phases (2 to 4 segments, each of
 *    at least max(5, samples / 8) samples: `boundaries` are the first
 *    sample index of each new phase, with its LastGvt) and the anomalous
 *    KPs.
 * The model works per LP (events processed, rollbacks, remote sends) and
 * sums LPs into their KP. Per phase every metric's level changes; an
 * anomalous KP rolls back about 4x more and runs far ahead of GVT.
 * Same options, same bytes. 16,384 LPs x 1,000 samples take seconds.
 */
#ifndef ARIADNE_PDES_SIM_H
#define ARIADNE_PDES_SIM_H

#include <stdint.h>

#include "util/error.h"

#define PDES_MAX_PES 4096
#define PDES_MAX_KPS 4096       /* per PE */
#define PDES_MAX_LPS 65536      /* per KP */
#define PDES_MAX_TOTAL_KPS 16384
#define PDES_MAX_TOTAL_LPS (1 << 22)
#define PDES_MAX_SAMPLES 100000
#define PDES_MAX_SEGMENTS 4

typedef struct pdes_options {
    const char *out_dir;
    int pes, kps, lps;          /* PEs, KPs per PE, LPs per KP */
    int samples;                /* GVT samples */
    uint64_t seed;
    int records;                /* 1: write records.csv */
    int segments;               /* 0: 2..4 from the seed (as many as the samples allow) */
} pdes_options;

typedef struct pdes_summary {
    int segments;
    int boundaries[PDES_MAX_SEGMENTS - 1]; /* first sample of phases 2.. */
    int anomalous;              /* KPs */
    int64_t kps, lps;
    double last_gvt;
} pdes_summary;

/* Writes the run; invalid_parameter for options out of range, io_error. */
int pdes_sim_run(const pdes_options *o, pdes_summary *sum, ari_error *err);

#endif
