/* panels_memory.c: the memory-manager panels of GET /traces/{id}/panels
 * (see panels_memory.h; StarVZ's panel_memory_state and the data-handle
 * presence of R/phase2_memory.R, and panel_gpubandwidth drawn from the
 * links). The queries are store/memory_queries.h and
 * store/datamove_queries.h; the arithmetic analysis/gflops_rate.h (a
 * quantity spread uniformly over each interval, summed per step),
 * analysis/handle_presence.h and analysis/step_buckets.h. */
#include "panels_memory.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gflops_rate.h"
#include "analysis/handle_presence.h"
#include "analysis/step_buckets.h"
#include "store/datamove_queries.h"
#include "store/memory_queries.h"

#define BYTES_PER_MB 1048576.0 /* StarPU's "Used (MB)" counts MiB */

static double seconds_per_unit(const char *unit)
{
    return strcmp(unit, "s") == 0    ? 1
           : strcmp(unit, "us") == 0 ? 1e-6
           : strcmp(unit, "ns") == 0 ? 1e-9
                                     : 1e-3;
}

static void describe(json_t *panel, const char *unit, const char *aggregation, json_t *columns)
{
    json_object_set_new(panel, "unit", json_string(unit));
    json_object_set_new(panel, "aggregation", json_string(aggregation));
    json_object_set_new(panel, "columns", columns);
}

/* ---- memory-manager states ---- */

/* Per group: rows overlapping the window and their time inside it. */
static void state_totals(const ari_mq_states *st, double t0, double t1, int64_t *count, double *time)
{
    for (size_t i = 0; i < st->n; i++) {
        double w = fmin(st->end[i], t1) - fmax(st->start[i], t0);
        count[st->group[i]]++;
        time[st->group[i]] += w > 0 ? w : 0;
    }
}

static json_t *state_series(const ari_mq_states *st, int g, const double *share, int64_t count, double time,
                            double t0, double t1, int width)
{
    json_t *points = json_array();
    double dt = (t1 - t0) / width;
    for (int k = 0; k < width; k++)
        if (share[k] > 0)
            json_array_append_new(points, json_pack("[f,f]", t0 + k * dt, share[k]));
    return json_pack("{s:o,s:s,s:I,s:s,s:s?,s:I,s:f,s:f,s:o}", "name",
                     json_sprintf("%s %s", st->container[g], st->value[g]), "container", st->container[g],
                     "node", (json_int_t)st->node[g], "state", st->value[g], "color",
                     st->color[g][0] ? st->color[g] : NULL, "count", (json_int_t)count, "time", time, "share",
                     time / (t1 - t0), "points", points);
}

static int states_json(const ari_actx *ctx, const ari_mq_states *st, double t0, double t1, int width,
                       json_t *list, ari_error *err)
{
    size_t ng = (size_t)st->ngroups;
    double *q = malloc((st->n + 1) * sizeof *q), *share = malloc((ng * (size_t)width + 1) * sizeof *share);
    double *time = calloc(ng + 1, sizeof *time);
    int64_t *count = calloc(ng + 1, sizeof *count);
    int rc = q && share && time && count ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < st->n; i++)
        q[i] = st->end[i] - st->start[i]; /* rate 1 while in the state: the step's share */
    if (rc == 0)
        rc = ari_gflops_rate(st->n, st->start, st->end, q, st->group, st->ngroups, t0, t1, width, 1, share,
                             err);
    if (rc == 0)
        state_totals(st, t0, t1, count, time);
    for (int g = 0; rc == 0 && g < st->ngroups; g++)
        if (ari_task_filter_node(&ctx->filter, st->node[g]))
            json_array_append_new(list, state_series(st, g, share + (size_t)g * (size_t)width, count[g],
                                                     time[g], t0, t1, width));
    free(q);
    free(share);
    free(time);
    free(count);
    return rc;
}

int ari_panel_memory_states(ari_request *r, const ari_actx *ctx, double t0, double t1, int width,
                            json_t *panel, ari_error *err)
{
    ari_mq_states st;
    int rc = ari_mq_states_load(r->db, ctx->trace.id, t0, t1, &st, err);
    json_t *list = json_array();
    if (rc == 0)
        rc = states_json(ctx, &st, t0, t1, width, list, err);
    ari_mq_states_free(&st);
    describe(panel, "share of time",
             "share of each step the memory manager spends in the state (StarPU's Memory Node State; "
             "Nothing left out); count and time: its states overlapping the window and their time inside it",
             json_pack("[s,s]", "t", "share"));
    json_object_set_new(panel, "series", list);
    return rc;
}

/* ---- memory used from the data handles present ---- */

static json_t *presence_series(const ari_mq_presence *p, int c, const ari_presence_series *ps, double t0,
                               double t1, int width, ari_step_bucket *b, ari_error *err)
{
    for (size_t i = 0; i < ps->n; i++)
        ps->bytes[i] /= BYTES_PER_MB;
    if (ari_step_buckets(ps->start, ps->end, ps->bytes, ps->n, t0, t1, width, b, err) < 0)
        return NULL;
    json_t *points = json_array();
    double dt = (t1 - t0) / width;
    for (int k = 0; k < width; k++)
        if (b[k].covered > 0)
            json_array_append_new(points, json_pack("[f,f,f,f]", t0 + k * dt, b[k].mean, b[k].min, b[k].max));
    return json_pack("{s:s,s:s,s:I,s:f,s:o}", "name", p->containers[c], "container", p->containers[c], "node",
                     (json_int_t)p->node[c], "peak", ps->peak / BYTES_PER_MB, "points", points);
}

static int presence_json(const ari_actx *ctx, const ari_mq_presence *p, double t0, double t1, int width,
                         json_t *list, ari_error *err)
{
    ari_presence_series *ps = calloc((size_t)p->ncontainers + 1, sizeof *ps);
    ari_step_bucket *b = malloc((size_t)width * sizeof *b);
    int rc = ps && b ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    double end_time = fmax(t1, ctx->meta->extent_end);
    if (rc == 0)
        rc = ari_handle_presence(p->n, p->container, p->handle, p->time, p->present, p->size, p->ncontainers,
                                 end_time, ps, err);
    for (int c = 0; rc == 0 && c < p->ncontainers; c++) {
        if (!ari_task_filter_node(&ctx->filter, p->node[c]) || ps[c].n == 0)
            continue;
        json_t *one = presence_series(p, c, &ps[c], t0, t1, width, b, err);
        rc = one ? json_array_append_new(list, one) : -1;
    }
    if (ps)
        ari_presence_series_free(ps, p->ncontainers);
    free(ps);
    free(b);
    return rc;
}

int ari_panel_memory_handles(ari_request *r, const ari_actx *ctx, double t0, double t1, int width,
                             json_t *panel, ari_error *err)
{
    ari_mq_presence p;
    int rc = ari_mq_presence_load(r->db, ctx->trace.id, &p, err);
    json_t *list = json_array();
    if (rc == 0)
        rc = presence_json(ctx, &p, t0, t1, width, list, err);
    if (rc == 0)
        json_object_set_new(panel, "events",
                            json_pack("{s:I,s:I}", "total", (json_int_t)p.n, "sized", (json_int_t)p.sized));
    ari_mq_presence_free(&p);
    describe(panel, "MB",
             "sum of the data.rec sizes (MiB) of the handles present on the memory node (from a 'data state "
             "owner' or 'shared' event to the next 'invalid'), time-weighted mean over each step",
             json_pack("[s,s,s,s]", "t", "mean", "min", "max"));
    json_object_set_new(panel, "series", list);
    return rc;
}

/* ---- GPU bandwidth from the links ---- */

/* "node0.MEMNODE2" -> 2; -1 for anything else. */
static int memnode_of(const char *key)
{
    const char *p = strstr(key, ".MEMNODE");
    return p ? atoi(p + 8) : -1;
}

/* Group of a movement: (GPU memory node end, direction), or -1. */
static int link_group(const ari_dm_movement *m, char names[][48], int *ngroups, int max)
{
    int out = memnode_of(m->src) > 0, in = memnode_of(m->dst) > 0;
    if (!out && !in)
        return -1;
    char name[48];
    snprintf(name, sizeof name, "%s %s", in ? m->dst : m->src, in ? "in" : "out");
    for (int g = 0; g < *ngroups; g++)
        if (strcmp(names[g], name) == 0)
            return g;
    if (*ngroups >= max)
        return -1;
    memcpy(names[*ngroups], name, sizeof name);
    return (*ngroups)++;
}

#define MAX_LINK_GROUPS 64

static json_t *link_series(const char *name, const double *rate, double bytes, int64_t n, double t0,
                           double t1, int width)
{
    json_t *points = json_array();
    double dt = (t1 - t0) / width;
    for (int k = 0; k < width; k++)
        json_array_append_new(points, json_pack("[f,f]", t0 + k * dt, rate[k]));
    const char *node = strstr(name, "node");
    return json_pack("{s:s,s:I,s:I,s:f,s:o}", "name", name, "node", (json_int_t)(node ? atoll(node + 4) : 0),
                     "movements", (json_int_t)n, "bytes", bytes, "points", points);
}

typedef struct link_rows {
    int *group;
    double *start, *end, *mb, *bytes;
    int64_t *count;
} link_rows;

static int link_panel_rows(const ari_dm_movements *m, link_rows *lr, char names[][48], int *ng)
{
    size_t n = m->n + 1;
    lr->group = malloc(n * sizeof *lr->group);
    lr->start = malloc(n * sizeof *lr->start);
    lr->end = malloc(n * sizeof *lr->end);
    lr->mb = malloc(n * sizeof *lr->mb);
    lr->bytes = calloc(MAX_LINK_GROUPS, sizeof *lr->bytes);
    lr->count = calloc(MAX_LINK_GROUPS, sizeof *lr->count);
    if (!lr->group || !lr->start || !lr->end || !lr->mb || !lr->bytes || !lr->count)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        const ari_dm_movement *x = &m->items[i];
        lr->group[i] = link_group(x, names, ng, MAX_LINK_GROUPS);
        lr->start[i] = x->start - m->shift;
        lr->end[i] = lr->start[i] + x->dur;
        lr->mb[i] = x->bytes / 1e6;
        if (lr->group[i] >= 0) {
            lr->bytes[lr->group[i]] += x->bytes;
            lr->count[lr->group[i]]++;
        }
    }
    return 0;
}

static void link_rows_free(link_rows *lr)
{
    free(lr->group);
    free(lr->start);
    free(lr->end);
    free(lr->mb);
    free(lr->bytes);
    free(lr->count);
}

static int links_json(const ari_actx *ctx, const ari_dm_movements *m, double t0, double t1, int width,
                      json_t *list, ari_error *err)
{
    char names[MAX_LINK_GROUPS][48];
    int ng = 0;
    link_rows lr = {0};
    double *rate = NULL;
    int rc = link_panel_rows(m, &lr, names, &ng);
    if (rc == 0)
        rate = malloc(((size_t)ng * (size_t)width + 1) * sizeof *rate);
    rc = rc == 0 && rate ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = ari_gflops_rate(m->n, lr.start, lr.end, lr.mb, lr.group, ng, t0, t1, width,
                             seconds_per_unit(ctx->trace.time_unit), rate, err);
    for (int g = 0; rc == 0 && g < ng; g++) {
        json_t *one =
            link_series(names[g], rate + (size_t)g * (size_t)width, lr.bytes[g], lr.count[g], t0, t1, width);
        if (ari_task_filter_node(&ctx->filter, json_integer_value(json_object_get(one, "node"))))
            json_array_append_new(list, one);
        else
            json_decref(one);
    }
    free(rate);
    link_rows_free(&lr);
    return rc;
}

int ari_panel_gpu_links(ari_request *r, const ari_actx *ctx, double t0, double t1, int width, json_t *panel,
                        ari_error *err)
{
    ari_dm_movements m;
    memset(&m, 0, sizeof m);
    int rc = ari_dm_movements_load(r->db, ctx->trace.id, t0, t1, INT64_MAX, &m, err);
    if (rc == 1)
        rc = ari_error_set(err, "not_found", "trace %lld not found", (long long)ctx->trace.id);
    else if (rc > 1)
        rc = -1; /* err says why */
    json_t *list = json_array();
    if (rc == 0)
        rc = links_json(ctx, &m, t0, t1, width, list, err);
    ari_dm_movements_free(&m);
    describe(
        panel, "MB/s",
        "bytes of the transfers from or to each GPU memory node (the trace's links; no bandwidth variable), "
        "each spread uniformly over its duration, summed per step / the step's length; MB = 10^6 B",
        json_pack("[s,s]", "t", "bandwidth"));
    json_object_set_new(panel, "title",
                        json_string("GPU transfer bandwidth in and out, per GPU memory node (links)"));
    json_object_set_new(panel, "source", json_string("links"));
    json_object_set_new(panel, "series", list);
    return rc;
}
