/* analysis_runs.h: the analyses of sampled-metrics traces that run in the
 * background (issue 17, docs/api.md "Analyses of sampled metrics"): a
 * process-wide registry with a bounded pool of ARI_RUNS_WORKERS threads.
 *
 * A POST handler loads its data, then submits a computation (a function
 * over an input it hands over). A run is queued, running, succeeded,
 * failed or cancelled; while it runs it reports a phase and a progress
 * 0..1 (a span of the progress per phase, filled by a counter that the
 * analysis advances: distance pairs, t-SNE iterations, permutations).
 * Identical requests (same trace content, analysis and canonical
 * parameters) that arrive while one is queued or running share it. A
 * finished run keeps its result text in memory (at most ARI_RUNS_KEEP
 * finished runs and ARI_RUNS_KEEP_BYTES of results: the oldest finished
 * go first) and the worker also stores it in the database result cache
 * (store/analysis_cache.h) through its own connection, so that a repeated
 * request is answered from there at once, after restarts too.
 *
 * Cancel: DELETE sets the run's flag; a queued run never starts, a running
 * one stops at its analysis's next check (distance rows, t-SNE and
 * E-Divisive iterations, between phases). The registry starts its threads
 * at the first submit and stops at exit (atexit): running analyses are
 * cancelled and the threads joined; ari_runs_stop does it earlier.
 */
#ifndef ARIADNE_ANALYSIS_RUNS_H
#define ARIADNE_ANALYSIS_RUNS_H

#include <jansson.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_RUNS_WORKERS 2
#define ARI_RUNS_MAX_PENDING 32          /* queued + running; more is 503 busy */
#define ARI_RUNS_KEEP 64                 /* finished runs kept */
#define ARI_RUNS_KEEP_BYTES (64u << 20)  /* their results' bytes */

/* What a computation sees of its run. */
typedef struct ari_run_ctl ari_run_ctl;

/* Starts a phase covering progress [from, to]; `total` units of work
 * (0: unknown, the progress stays at `from`). Resets the counter. */
void ari_run_phase(ari_run_ctl *c, const char *phase, double from, double to, int64_t total);
/* The counter the analysis advances atomically (e.g. pairs_done). */
int64_t *ari_run_counter(ari_run_ctl *c);
/* Sets the counter (callbacks that report a count done). */
void ari_run_count(ari_run_ctl *c, int64_t done);
/* The cancel flag (read it with __atomic_load_n), and whether it is set. */
const int *ari_run_cancel_flag(ari_run_ctl *c);
int ari_run_cancelled(ari_run_ctl *c);

/* The computation: returns the result JSON text (malloc'ed), or NULL with
 * err set (ARI_E_CANCELLED when it stopped on the flag). ctl is NULL when
 * the caller runs it inline (a cheap request). */
typedef char *(*ari_run_fn)(void *input, ari_run_ctl *ctl, ari_error *err);
typedef void (*ari_run_free_fn)(void *input);

typedef struct ari_run_spec {
    int64_t trace_id;
    const char *trace_key;  /* "id/created_at/sha256": the trace's content */
    const char *kind;       /* "cluster", "projection", "changepoints", "comm_segments" */
    const char *cache_name; /* analysis name in the cache, e.g. "pdes_cluster@1" */
    const char *params;     /* canonical parameters (the cache key) */
    const char *db_path;    /* where the worker stores the result */
    ari_run_fn fn;
    void *input;
    ari_run_free_fn free_input;
} ari_run_spec;

/* Queues the run, or joins an identical queued or running one (the input
 * is then freed at once). Returns 0 and its id, or -1 with err (busy when
 * ARI_RUNS_MAX_PENDING are pending, nomem); the input is freed on error
 * too. */
int ari_runs_submit(const ari_run_spec *spec, int64_t *id, ari_error *err);
/* The result text (malloc'ed) of a finished identical run still in
 * memory, or NULL. */
char *ari_runs_result_of(const char *trace_key, const char *cache_name, const char *params);
/* The run's document {"analysis": {...}, "result"?: ..., "error"?: ...}
 * as JSON text (malloc'ed); NULL when there is no such run (or no memory:
 * *nomem set). */
char *ari_runs_document(int64_t id, int *nomem);
/* 0 when cancelled (or already finished: nothing to do), 1 if no such run. */
int ari_runs_cancel(int64_t id);
/* Cancels everything, joins the workers, frees the registry. */
void ari_runs_stop(void);

#endif
