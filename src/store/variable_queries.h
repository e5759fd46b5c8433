/* variable_queries.h: the Paje variables of a StarPU trace that the time
 * panels under the Gantt draw (sql/002_paje.sql `variables`), as plain
 * arrays, one series per (container, variable type):
 *
 *   memory          "Used (MB)" of every memory manager (StarPU's `use`,
 *                   per memory node: "0_MEMMANAGER0" is node 0 of rank 0);
 *   gpu_bandwidth   "Bandwidth Out (MB/s)" of the memory managers other
 *                   than memory node 0 (main RAM), i.e. the GPUs' (`bwo_mm`);
 *   mpi_bandwidth   "Bandwidth Out (MB/s)" of the MPI communication threads
 *                   ("0_mpict", `bwo_mpi`).
 *
 * The choice follows StarVZ (R/phase2_var_panels.R: panel_usedmemory,
 * panel_gpubandwidth, panel_mpibandwidth select the variables by these
 * names). Times are the stored ones, already on the trace's origin (the
 * Gantt's axis). Values are as the trace writes them (StarPU 1.4.7 writes
 * some negative MPI bandwidths; they are kept). */
#ifndef ARIADNE_VARIABLE_QUERIES_H
#define ARIADNE_VARIABLE_QUERIES_H

#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

typedef enum { ARI_VQ_MEMORY = 0, ARI_VQ_GPU_BANDWIDTH = 1, ARI_VQ_MPI_BANDWIDTH = 2 } ari_vq_kind;

typedef struct ari_vq_series {
    int64_t container_id, type_id;
    char *container; /* "0_MEMMANAGER0" */
    char *variable;  /* "Used (MB)" */
    int64_t node;    /* from the container name's "N_" prefix, else 0 */
    int64_t nrows;   /* the container's rows of that variable, in the whole trace */
    /* after ari_vq_series_rows: the rows overlapping the window, by start */
    int64_t n;
    double *start, *end, *value;
} ari_vq_series;

/* The series of one kind, by container id, without their rows (n 0).
 * *out is malloc'd [*n] (free with ari_vq_series_free). Returns 0 or -1. */
int ari_vq_series_find(ari_store *s, int64_t trace_id, ari_vq_kind kind, ari_vq_series **out, int *n,
                       ari_error *err);
/* Loads the rows of one series that overlap [t0, t1] (start < t1 and
 * end > t0). Returns 0 or -1. */
int ari_vq_series_rows(ari_store *s, int64_t trace_id, ari_vq_series *series, double t0, double t1,
                       ari_error *err);
void ari_vq_series_free(ari_vq_series *series, int n);

/* Whether any task of the trace has a GFlop count above 0 (the GFlop/s
 * panel needs one): 1 or 0, -1 on error. */
int ari_vq_tasks_have_gflop(ari_store *s, int64_t trace_id, ari_error *err);

#endif
