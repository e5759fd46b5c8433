/* api_progression.c: GET /api/v1/traces/{id}/progression: per-node
 * progression metrics at time steps, their modal clusters per step, the
 * flows of nodes between clusters, and the per-step and global area bounds
 * (analysis/progression.h; docs/api.md). The tasks are loaded and summed
 * here by ari_progression, but on PostgreSQL for traces of SQL_MIN_TASKS
 * tasks or more: the database sums them (store/progression_queries.h:
 * ari_progression_sql, the same answer bit for bit), so that the daemon
 * holds nothing per task. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "json_arrays.h"
#include "params.h"
#include "reply.h"
#include "time_origin.h"
#include "store/progression_queries.h"
#include "store/task_queries.h"

#define MAX_NODE_FILTER 100000
/* Loading held about 230 bytes per task while it ran (257 MB at 1.1 M
 * tasks), PostgreSQL's whole result included; its rows now stream
 * (ari_stream), which halved the daemon's peak at 176,750 tasks (53 to
 * 25 MB); the database's sums hold nothing per task but take about three
 * times as long (39 s against 12 s at 1.1 M tasks on a loaded 2-core
 * machine). From this many tasks on, the database sums them: a request
 * then never holds more than about half a gigabyte. */
#define SQL_MIN_TASKS 2000000

static const char *const metrics[] = {"weighted", "count", NULL};
static const char *const weight_modes[] = {"starvz", "all_workers", NULL};

typedef struct prog_params {
    ari_prog_options opt;
    int *nodes;   /* the nodes filter, or NULL */
    int nnodes;
    int density;
} prog_params;

/* A number parameter (params.h) in [min, max], or (min, max] with
 * open_min; this endpoint's own 400 wording. def when absent. */
static int param_number(ari_request *r, const char *name, double def, double min, double max,
                        int open_min, double *out)
{
    if (ari_param_number_checked(r, name, def, min, max, open_min, out) == 0)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in %s%g, %g], got '%.64s'", name,
                    open_min ? "(" : "[", min, max, ari_param(r, name));
    return -1;
}

/* nodes=0,3,7: a list of node numbers (params.h). */
static int param_nodes(ari_request *r, prog_params *p)
{
    const char *s = ari_param(r, "nodes");
    if (!s || !*s)
        return 0;
    int64_t *v;
    size_t n;
    ari_list_status st = ari_parse_int_list(s, 0, 1000000000, MAX_NODE_FILTER, &v, &n);
    if (st == ARI_LIST_TOO_LONG)
        ari_reply_error(r, 400, "invalid_parameter", "nodes: at most %d nodes", MAX_NODE_FILTER);
    else if (st == ARI_LIST_NOMEM)
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
    else if (st == ARI_LIST_BAD)
        ari_reply_error(r, 400, "invalid_parameter",
                        "nodes must be comma-separated node numbers (e.g. 0,3), got '%.64s'", s);
    if (st != ARI_LIST_OK)
        return -1;
    p->nodes = malloc(n * sizeof *p->nodes);
    for (size_t i = 0; p->nodes && i < n; i++)
        p->nodes[i] = (int)v[i];
    free(v);
    if (!p->nodes) {
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
        return -1;
    }
    p->nnodes = (int)n;
    return 0;
}

static int read_params(ari_request *r, prog_params *p)
{
    int64_t steps, density;
    const char *metric, *weight;
    if (ari_param_int(r, "steps", ARI_PROG_DEFAULT_STEPS, 1, ARI_PROG_MAX_STEPS, &steps) < 0 ||
        param_number(r, "step_width", 0, 0, 1e300, 1, &p->opt.step_width) < 0 ||
        param_number(r, "bandwidth", ARI_PROG_DEFAULT_BANDWIDTH, 0.0001, 1, 0,
                     &p->opt.bandwidth) < 0 ||
        ari_param_choice(r, "metric", metrics, &metric) < 0 ||
        ari_param_choice(r, "weight", weight_modes, &weight) < 0 ||
        ari_param_int(r, "density", 0, 0, 1, &density) < 0)
        return -1;
    if (ari_param(r, "steps") && ari_param(r, "step_width")) {
        ari_reply_error(r, 400, "invalid_parameter", "give steps or step_width, not both");
        return -1;
    }
    p->opt.steps = (int)steps;
    p->opt.metric = metric && strcmp(metric, "count") == 0 ? ARI_PROG_COUNT : ARI_PROG_WEIGHTED;
    p->opt.weight = weight && strcmp(weight, "all_workers") == 0 ? ARI_PROG_WEIGHT_ALL_WORKERS
                                                                 : ARI_PROG_WEIGHT_STARVZ;
    p->opt.with_bounds = 1;
    p->density = (int)density;
    return param_nodes(r, p);
}

/* ---- JSON ---------------------------------------------------------------------- */

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *node_list(const ari_prog_data *d, const int *idx, int count)
{
    json_t *a = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(a, json_integer(d->node_ids[idx[i]]));
    return a;
}

static json_t *nodes_json(const ari_prog_data *d, const ari_prog_result *res)
{
    json_t *a = json_array();
    for (int n = 0; n < res->nnodes; n++) {
        json_t *values = json_array(), *weights = json_array();
        for (int s = 0; s < res->nsteps; s++)
            json_array_append_new(values, json_real(res->values[(size_t)s * res->nnodes + n]));
        for (int t = 0; t < res->ntypes; t++)
            json_array_append_new(weights, number(res->weights[(size_t)n * res->ntypes + t]));
        json_array_append_new(a, json_pack("{s:i, s:I, s:f, s:o, s:o}", "node", d->node_ids[n],
                                           "tasks", (json_int_t)res->node_tasks[n], "last_end",
                                           res->last_end[n], "values", values, "weights", weights));
    }
    return a;
}

static json_t *step_json(const ari_prog_data *d, const ari_prog_step *st, int s, int density)
{
    json_t *clusters = json_array();
    for (int c = 0; c < st->modal.nclusters; c++) {
        const ari_prog_cluster *cl = &st->clusters[c];
        json_array_append_new(clusters, json_pack("{s:i, s:f, s:f, s:f, s:i, s:o}", "id", c, "mean",
                                                  cl->mean, "min", cl->min, "max", cl->max, "size",
                                                  cl->count, "nodes",
                                                  node_list(d, cl->nodes, cl->count)));
    }
    json_t *o = json_pack("{s:i, s:f, s:f, s:I, s:f, s:o, s:o, s:o, s:o}", "step", s + 1, "start", st->start,
                          "time", st->time, "completed", (json_int_t)st->completed, "mean", st->mean_value,
                          "abe", number(st->abe), "cumulative_abe", number(st->cumulative_abe), "clusters",
                          clusters, "minima", ari_json_reals(st->modal.minima, st->modal.nminima));
    if (density)
        json_object_set_new(o, "density",
                            json_pack("{s:o, s:o}", "x",
                                      ari_json_reals(st->modal.density.x, st->modal.density.n), "y",
                                      ari_json_reals(st->modal.density.y, st->modal.density.n)));
    return o;
}

static json_t *flows_json(const ari_prog_data *d, const ari_prog_result *res)
{
    json_t *a = json_array();
    for (int f = 0; f < res->nflows; f++) {
        const ari_prog_flow *fl = &res->flows[f];
        json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:o, s:b}", "step", fl->step + 1,
                                           "from", fl->from, "to", fl->to, "count", fl->count,
                                           "nodes", node_list(d, fl->nodes, fl->count), "minority",
                                           fl->minority));
    }
    return a;
}

/* The cumulative per-step ABE as points (t0 + cumulative bound, mean metric). */
static json_t *abe_json(const ari_prog_result *res)
{
    json_t *points = json_array();
    for (int s = 0; s < res->nsteps; s++) {
        const ari_prog_step *st = &res->steps[s];
        if (!isfinite(st->cumulative_abe))
            continue;
        json_array_append_new(points, json_pack("{s:i, s:f, s:f, s:f}", "step", s + 1, "bound",
                                                st->cumulative_abe, "time",
                                                res->t0 + st->cumulative_abe, "value",
                                                st->mean_value));
    }
    return json_pack("{s:o, s:o, s:o}", "global", number(res->global_abe), "global_time",
                     number(res->t0 + res->global_abe), "cumulative", points);
}

static json_t *result_json(const ari_prog_data *d, const ari_prog_result *res,
                           const prog_params *p, const char *time_unit)
{
    json_t *steps = json_array(), *types = json_array();
    for (int s = 0; s < res->nsteps; s++)
        json_array_append_new(steps, step_json(d, &res->steps[s], s, p->density));
    for (int t = 0; t < d->ntypes; t++)
        json_array_append_new(types, json_string(d->type_names[t]));
    return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:o}",
                     "time_unit", time_unit, "metric",
                     p->opt.metric == ARI_PROG_COUNT ? "count" : "weighted", "weight",
                     p->opt.weight == ARI_PROG_WEIGHT_ALL_WORKERS ? "all_workers" : "starvz",
                     "bandwidth",
                     p->opt.bandwidth, "start", res->t0, "end", res->t1, "step_width",
                     res->step_width, "step_count", res->nsteps, "node_count", res->nnodes,
                     "single_node", res->nnodes == 1, "types", types, "nodes", nodes_json(d, res),
                     "steps", steps, "flows", flows_json(d, res), "abe", abe_json(res));
}

/* ---- handler ----------------------------------------------------------------------- */

/* PostgreSQL, a trace of SQL_MIN_TASKS tasks or more: its progression is
 * summed by the database. Any error answers no: the load reports it. */
static int sums_in_sql(ari_request *r, int64_t id)
{
    if (!ari_store_is_pg(r->db))
        return 0;
    ari_tq_trace t;
    ari_error ignored = {0};
    if (ari_tq_trace_get(r->db, id, &t, &ignored) != 0)
        return 0;
    ari_tq_meta *m = NULL;
    int large = t.has_tasks && ari_tq_meta_get_keyed(r->db, id, t.key, &m, &ignored) == 0 &&
                m->ntasks >= SQL_MIN_TASKS;
    ari_tq_meta_free(m);
    ari_tq_trace_free(&t);
    return large;
}

static enum MHD_Result reply_result(ari_request *r, const prog_params *p, int64_t id)
{
    ari_prog_data data;
    ari_prog_result res;
    char *time_unit = NULL;
    ari_error err = {0};
    int in_sql = sums_in_sql(r, id);
    int rc = in_sql ? ari_progression_sql(r->db, id, p->nodes, p->nnodes, &p->opt, &data, &res, &time_unit, &err)
                : ari_progression_load(r->db, id, p->nodes, p->nnodes, &data, &time_unit, &err);
    if (rc < 0)
        return ari_reply_from_error(r, &err);
    if (rc == ARI_PROG_LOAD_NO_TRACE)
        return ari_reply_error(r, 404, "not_found", "no trace %lld", (long long)id);
    if (rc == ARI_PROG_LOAD_NO_TASKS)
        return ari_reply_error(r, 409, "no_tasks",
                               "trace %lld has no application tasks (progression needs a task trace)",
                               (long long)id);
    if (!in_sql && ari_progression(&data, &p->opt, &res, &err) < 0) {
        ari_prog_data_free(&data);
        free(time_unit);
        return ari_reply_from_error(r, &err);
    }
    json_t *body = result_json(&data, &res, p, time_unit);
    ari_prog_result_free(&res);
    ari_prog_data_free(&data);
    free(time_unit);
    if (!body)
        return ari_reply_error(r, 500, "internal", "cannot encode the progression");
    return ari_reply_json(r, 200, ari_with_time_origin(r, id, body));
}

enum MHD_Result api_progression(ari_request *r)
{
    int64_t id;
    prog_params p = {0};
    if (ari_path_id(r, 0, &id) < 0 || read_params(r, &p) < 0) {
        free(p.nodes);
        return MHD_YES;
    }
    enum MHD_Result rc = reply_result(r, &p, id);
    free(p.nodes);
    return rc;
}
