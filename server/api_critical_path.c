/* api_critical_path.c: GET /api/v1/traces/{id}/critical-path: the dynamic
 * critical path (analysis/critical_path.h) from the task that ends last,
 * from one task (from=JOB_ID) or merged from every task of a type
 * (type=NAME), with the edges whose wait is at least min_gap. Cached per
 * filter and parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critical_path.h"
#include "analysis_ctx.h"
#include "params.h"
#include "handlers.h"
#include "reply.h"

typedef struct cp_params {
    const char *from;  /* job id, or NULL */
    const char *type;  /* task type, or NULL */
    double min_gap;    /* -INFINITY: every edge */
} cp_params;

static json_t *path_json(const ari_tq_meta *m, const ari_tq_tasks *t, const ari_dcp_merged *path, double length)
{
    json_t *tasks = json_array(), *edges = json_array();
    for (int64_t j = 0; j < path->ntasks_on; j++) {
        int64_t i = path->tasks[j];
        const ari_tq_worker *w = &m->workers[t->worker[i]];
        json_array_append_new(tasks, json_pack("{s:s,s:s,s:I,s:s,s:f,s:f}", "job_id", ari_tq_job_id(t, i), "type",
                                               m->types[t->type[i]], "worker_id", (json_int_t)w->id, "worker",
                                               w->name, "start", t->start[i], "end", t->end[i]));
    }
    for (int64_t e = 0; e < path->nedges; e++) {
        const ari_dcp_edge *edge = &path->edges[e];
        json_array_append_new(edges, json_pack("{s:s,s:s,s:f,s:I}", "from", ari_tq_job_id(t, edge->pred), "to",
                                               ari_tq_job_id(t, edge->succ), "gap", edge->gap, "count",
                                               (json_int_t)edge->multiplicity));
    }
    return json_pack("{s:f,s:I,s:o,s:o}", "length", length, "seeds", (json_int_t)path->nseeds, "tasks", tasks,
                     "edges", edges);
}

static int64_t find_job(const ari_tq_tasks *t, const char *job)
{
    for (int64_t i = 0; i < t->n; i++)
        if (strcmp(ari_tq_job_id(t, i), job) == 0)
            return i;
    return -1;
}

static json_t *compute_path(ari_request *r, const ari_actx *ctx, const ari_task_filter *f, const void *extra,
                            ari_error *err)
{
    const cp_params *p = extra;
    const ari_tq_meta *m = ctx->meta;
    ari_tq_tasks t;
    if (ari_tq_tasks_load(r->db, ctx->trace.id, m, f, 1, &t, err) < 0)
        return NULL;
    ari_dcp_input in = {ari_tq_dag(&t), t.start, t.end};
    ari_dcp_merged path = {0};
    int rc;
    if (p->type) {
        rc = ari_dcp_merge_type(&in, t.type, ari_tq_type_id(m, p->type), p->min_gap, &path, err);
    } else {
        int64_t seed = p->from ? find_job(&t, p->from) : ari_dcp_last_task(&in);
        char safe[ARI_PRINTABLE_SIZE];
        if (p->from && seed < 0)
            rc = ari_error_set(err, ARI_E_INVALID_PARAMETER,
                               "from: no task '%s' among the tasks the filters keep", ari_printable(p->from, safe));
        else
            rc = ari_dcp_merge(&in, &seed, seed >= 0 ? 1 : 0, p->min_gap, &path, err);
    }
    json_t *doc = rc == 0 ? path_json(m, &t, &path, ari_dcp_order_by_start(&path, t.start, t.end)) : NULL;
    if (rc == 0 && !doc)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_dcp_merged_free(&path);
    ari_tq_tasks_free(&t);
    return doc;
}

static int read_params(ari_request *r, const ari_actx *ctx, cp_params *p, char *canon, size_t size)
{
    p->from = ari_param(r, "from");
    p->type = ari_param(r, "type");
    if (ari_param_number(r, "min_gap", -INFINITY, -1e300, 1e300, &p->min_gap) < 0)
        return -1;
    if (p->from && p->type) {
        ari_reply_error(r, 400, "invalid_parameter", "give either from or type, not both");
        return -1;
    }
    if ((p->from && (!*p->from || strlen(p->from) > 200)) || (p->type && !*p->type)) {
        ari_reply_error(r, 400, "invalid_parameter", "%s must be a non-empty name", p->from ? "from" : "type");
        return -1;
    }
    if (p->type && ari_filter_check_type(r, "type", p->type, &ctx->meta, 1) < 0)
        return -1;
    char gap[40] = "";
    if (isfinite(p->min_gap))
        snprintf(gap, sizeof gap, "%.17g", p->min_gap == 0 ? 0.0 : p->min_gap);
    int n = snprintf(canon, size, "from=%s;type=%s;min_gap=%s", p->from ? p->from : "",
                     p->type ? p->type : "", gap);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

enum MHD_Result api_critical_path(ari_request *r)
{
    ari_actx ctx;
    if (ari_actx_open(r, &ctx) < 0)
        return MHD_YES;
    cp_params p;
    char canon[512];
    if (read_params(r, &ctx, &p, canon, sizeof canon) < 0) {
        if (!r->responded)
            ari_reply_error(r, 400, "invalid_parameter", "bad critical-path parameters");
        ari_actx_close(&ctx);
        return MHD_YES;
    }
    ari_error err = {0};
    json_t *doc = ari_analysis_cached(r, &ctx, "critical_path", &ctx.filter, canon, compute_path, &p, &err);
    return ari_actx_reply(r, &ctx, doc, &err);
}
