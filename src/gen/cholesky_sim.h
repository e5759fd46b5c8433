/* cholesky_sim.h: a simulated StarPU(-MPI) run of a tiled Cholesky
 * factorisation, written as starpu_fxt_tool would write it.
 *
 * The DAG (dplgsy init, then dpotrf/dtrsm/dsyrk/dgemm for each step k) is
 * never materialised: dependencies follow from tile indices, and the only
 * state is per tile (O(tiles^2 x nodes x memory nodes)), so millions of
 * tasks stream out in seconds. Tiles are distributed 2D block-cyclically
 * over the nodes; each task runs on the node owning the tile it writes.
 * Each node runs a list scheduler over its CPU and GPU workers (priority
 * order, each task on the resource type that would finish it first);
 * durations come from a per-kernel, per-resource model with seeded jitter
 * and rare outliers, scaled by a per-node slowdown. Inter-node transfers
 * (latency + bandwidth, serialised per NIC) and host<->GPU transfers
 * (serialised per PCIe bus) appear as Paje links.
 *
 * Output directory: paje.trace, tasks.rec, dag.dot, data.rec, comms.rec
 * (multi-node only), README.txt, manifest.json. Same options and seed give
 * byte-identical files. Times are milliseconds.
 */
#ifndef ARIADNE_GEN_CHOLESKY_SIM_H
#define ARIADNE_GEN_CHOLESKY_SIM_H

#include <stdint.h>

#include "util/error.h"

#define CHOL_MAX_TILES 1024 /* ~180 million tasks */
#define CHOL_MAX_NODES 1024
#define CHOL_MAX_CPUS 256
#define CHOL_MAX_GPUS 16

/* Per-node configuration (filled from the defaults and the overrides). */
typedef struct chol_node_cfg {
    int cpus;
    int gpus;
    double slowdown; /* durations are multiplied by this (>= 0.1) */
} chol_node_cfg;

typedef struct chol_options {
    const char *out_dir;  /* must exist or be creatable */
    int tiles;            /* T: the matrix is T x T tiles */
    int block_size;       /* tile size in elements (nb) */
    int nodes;
    uint64_t seed;
    int sorted;           /* write paje.trace time-ordered */
    chol_node_cfg *node_cfg; /* `nodes` entries */
    const char *command_line; /* recorded in README.txt/manifest; may be NULL */
} chol_options;

/* What was written, as recorded in manifest.json. */
typedef struct chol_summary {
    uint64_t tasks;
    uint64_t tasks_by_kind[5]; /* dplgsy, dpotrf, dtrsm, dsyrk, dgemm */
    uint64_t tasks_cpu, tasks_gpu;
    uint64_t deps_intra, deps_cross;
    uint64_t mpi_transfers, node_transfers;
    uint64_t paje_lines, paje_states, paje_variables, paje_links, paje_events,
        paje_containers;
    int64_t first_start_ps, last_end_ps;
} chol_summary;

/* Number of tasks for T tiles (init tasks included). */
uint64_t chol_task_count(int tiles);

/* Runs the simulation and writes the output directory. Returns 0, or -1
 * with `err` set. `sum` may be NULL. */
int chol_sim_run(const chol_options *opt, chol_summary *sum, ari_error *err);

#endif
