/* memory_queries.h: what the memory panels under the Gantt read about
 * StarPU's memory managers (api /traces/{id}/panels, issue 14), as plain
 * arrays:
 *
 *   states    the Paje states of type "Memory Node State" (StarPU's `MS`:
 *             Allocating, AllocatingReuse, Freeing, WritingBack,
 *             DriverCopy, ...; "Nothing" left out) overlapping a window,
 *             grouped by (container, state value), as StarVZ's
 *             Memory_state table (R/starvz_data.R) that panel_memory_state
 *             draws per memory manager;
 *   presence  the data-state events of the memory managers ("data state
 *             owner" / "shared" / "invalid", StarPU's SO/SS/SI, whose value
 *             is a data handle) with the handle's size from data.rec
 *             (table data_handles, matched on the handle and, for MPI runs,
 *             on the container's rank prefix), as StarVZ's
 *             handles_presence_states (R/phase2_memory.R) reads them.
 *
 * Times are the stored ones (on the trace's origin, the Gantt's axis).
 * Every loader returns 0 or -1 (err set); free with the _free (also after
 * an error, and on a zeroed struct). */
#ifndef ARIADNE_MEMORY_QUERIES_H
#define ARIADNE_MEMORY_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

/* Groups are (container, value) in container then value order; row i
 * belongs to group[i]. */
typedef struct ari_mq_states {
    int ngroups;
    char **container, **value; /* [ngroups] */
    char **color;              /* [ngroups]: the Paje colour of the value ("r g b" in [0, 1]), or "" */
    int64_t *node;             /* [ngroups]: the container name's "N_" rank prefix, else 0 */
    size_t n;
    int *group;
    double *start, *end;
} ari_mq_states;

/* 1 when the trace has any "Memory Node State" state (other than
 * Nothing), 0 if not, -1 on error. */
int ari_mq_have_states(ari_store *s, int64_t trace_id, ari_error *err);
/* The states overlapping [t0, t1]. */
int ari_mq_states_load(ari_store *s, int64_t trace_id, double t0, double t1, ari_mq_states *out,
                       ari_error *err);
void ari_mq_states_free(ari_mq_states *st);

/* The data-state events of the whole trace, sorted by container, handle,
 * time (then file order). handle[i] is a sequence number that changes
 * with the (container, handle) pair; size[i] is NAN when data.rec does
 * not give the handle's size. */
typedef struct ari_mq_presence {
    int ncontainers;
    char **containers; /* [ncontainers] */
    int64_t *node;     /* [ncontainers] */
    size_t n;
    int *container;
    int64_t *handle;
    double *time, *size;
    unsigned char *present; /* 1: owner or shared, 0: invalid */
    size_t sized;           /* events whose handle has a size */
} ari_mq_presence;

/* 1 when the trace has data-state events on memory managers and data.rec
 * sizes for their handles, 0 if not, -1 on error. */
int ari_mq_have_presence(ari_store *s, int64_t trace_id, ari_error *err);
int ari_mq_presence_load(ari_store *s, int64_t trace_id, ari_mq_presence *out, ari_error *err);
void ari_mq_presence_free(ari_mq_presence *p);

/* 1 when the trace has a link from or to a memory node other than 0 (a
 * GPU's memory: containers "[<rank>_]MEMMANAGER<k>" or "MEMNODE<k>",
 * k > 0), 0 if not, -1 on error. The GPU bandwidth panel draws them when
 * the trace has no "Bandwidth Out (MB/s)" variable of a GPU. */
int ari_mq_have_gpu_links(ari_store *s, int64_t trace_id, ari_error *err);

#endif
