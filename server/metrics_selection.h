/* metrics_selection.h: what the analysis endpoints of sampled-metrics
 * traces share (api_metrics_analysis.c, api_metrics_comm.c): the selection
 * of a POST body {metrics, t0, t1, time_domain, granularity, entities},
 * interpreted as GET /series does, loaded into an analysis matrix; the
 * canonical parameters (the cache key); the answer of a request (200 from
 * the cache or computed at once when cheap, else 202 and a background run
 * of analysis_runs.h).
 *
 * metrics defaults to RbTotal when the trace has it, else its first
 * metric that is not a record attribute.
 *
 * The analysis matrix (spec_pdes_dmv.md 2.1): a missing sample (NaN) is
 * filled by linear interpolation between the entity's neighbouring
 * samples (the nearest one at the ends); then each metric is min-max
 * scaled to [0, 1] over the whole selection (all its entities and time
 * points: one min and one max per metric, a constant metric becomes 0);
 * then row i is entity i's d metric blocks of l samples, concatenated.
 */
#ifndef ARIADNE_METRICS_SELECTION_H
#define ARIADNE_METRICS_SELECTION_H

#include <jansson.h>
#include <stdint.h>

#include "analysis_runs.h"
#include "params.h"
#include "server.h"
#include "store/metrics_queries.h"

#define ARI_SEL_MAX_METRICS 16

typedef struct ari_selection {
    int64_t trace_id;
    char trace_key[160];
    ari_mt_info info;
    int info_loaded;
    ari_mt_matrix m;           /* raw values, d x n x l */
    int matrix_loaded;
    const char *metrics[ARI_SEL_MAX_METRICS]; /* names in info */
    size_t nmetrics;
    double t0, t1;             /* NaN: open */
    int domain;
    char level[16];
    int64_t *entities;         /* NULL: all of the level */
    size_t nentities;
    double *x;                 /* n x (d l), filled and scaled */
    double (*scales)[2];       /* d: [min, max] before scaling */
    size_t filled;             /* missing samples filled */
    json_t *params;            /* canonical parameters, the endpoint adds its own */
} ari_selection;

/* 409 live_run for a live run still open (store/stream_store.h): its
 * offline analyses open once it is closed. 0, or -1 after answering. */
int ari_sel_refuse_live(ari_request *r, int64_t trace_id);
/* Checks the body against the selection's fields (with_selection; else
 * only time_domain and granularity are read, and own must list them) plus
 * `own` (ended by {NULL}); a null field counts as absent. Then opens the trace of the path (404, 409 not_pdes) and reads
 * the selection (400 naming the field) into sel->params. Returns 0, or -1
 * after answering; free with ari_sel_free in both cases. */
int ari_sel_open(ari_request *r, json_t *body, const ari_body_field *own, int with_selection, ari_selection *sel);
/* Loads the matrix and builds x (400 for bad names, entities or an empty
 * selection). 0, or -1 after answering. */
int ari_sel_load(ari_request *r, ari_selection *sel);
/* Answers 200 from the memory or database cache when the result of these
 * parameters is there: 1 (answered), else 0. */
int ari_sel_try_cached(ari_request *r, const ari_selection *sel, const char *cache_name);
void ari_sel_free(ari_selection *sel);

/* Field readers answering 400 "NAME must be ..." (def when absent). */
int ari_sel_int(ari_request *r, json_t *obj, const char *name, int64_t def, int64_t lo, int64_t hi, int64_t *out);
int ari_sel_number(ari_request *r, json_t *obj, const char *name, double def, double lo, double hi, int open_lo,
                   double *out);
int ari_sel_choice(ari_request *r, json_t *obj, const char *name, const char *const *choices, const char **out);

/* The selection's fields of a result: trace_id, metrics, granularity,
 * time_domain, t0, t1 (the first and last time selected), entities (ids)
 * and scales ({metric: [min, max]}). */
json_t *ari_sel_result_head(const ari_selection *sel);

/* Answers the analysis: from the memory or database cache (200), computed
 * now when work <= ARI_SEL_INLINE_WORK (200, and cached), else queued (202
 * {"analysis": ...} with Location). The input is the computation's; it is
 * freed in every case. cache_name: "pdes_<kind>@<version>". */
#define ARI_SEL_INLINE_WORK 3e7
enum MHD_Result ari_sel_answer(ari_request *r, const ari_selection *sel, const char *kind, const char *cache_name,
                               double work, ari_run_fn fn, void *input, ari_run_free_fn free_input);

/* The canonical text of the parameters (sorted keys, 17 digits; a SHA-256
 * digest when long). Caller frees. */
char *ari_sel_params_text(const json_t *params);

#endif
