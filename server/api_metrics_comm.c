/* api_metrics_comm.c: POST /api/v1/traces/{id}/comm/segments, the
 * communication view of a sampled-metrics trace (spec_pdes_dmv.md 2.6,
 * 4.1; docs/api.md): per time segment the mean communication matrix (the
 * events each entity sent to each other per sample, zero where a sample
 * has none) at the data level (KP) or aggregated to its parent level (PE:
 * a KP's row split into PE blocks and summed, then averaged over the KPs
 * of the source PE), in one direction (send, recv, sum, max), and the
 * mean of ring metrics per data-level entity, with scales shared by all
 * segments. Computed in the request (sums over the stored triples) and
 * cached. A 200 answer is CSV with ?format=csv (csv_reply.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/segment_comm.h"
#include "handlers.h"
#include "metrics_selection.h"
#include "reply.h"
#include "store/analysis_cache.h"

#define MAX_SEGMENTS 64
#define MAX_CELLS (4u << 20)   /* matrix cells over all segments in one answer */
#define MAX_RINGS 8

typedef struct comm_req {
    ari_segment seg[MAX_SEGMENTS];   /* absolute sample indices [t0, t1) */
    double tseg[MAX_SEGMENTS][2];    /* the times asked */
    int nseg;
    const char *level;               /* data level or its parent */
    const char *mode_name;
    ari_comm_mode mode;
    const char *rings[MAX_RINGS];
    int nrings;
    /* the data-level entities (matrix rows at that level) and their groups */
    int64_t *kp_ids;
    int nkp;
    int *group;                      /* nkp: index into grp_ids, or 0 at the data level */
    int64_t *grp_ids;
    int ngrp;
    int32_t *kp_index;               /* by entity id: row, -1 if not a data-level entity */
} comm_req;

static void comm_req_free(comm_req *c)
{
    free(c->kp_ids);
    free(c->group);
    free(c->grp_ids);
    free(c->kp_index);
}

/* summary.has_comm of the trace. */
static int has_comm(ari_request *r, int64_t id)
{
    char *text = NULL;
    ari_error err = {0};
    if (ari_traces_get(r->db, id, &text, &err) != 0)
        return 0;
    json_t *t = json_loads(text, 0, NULL);
    free(text);
    int yes = json_is_true(json_object_get(json_object_get(t, "summary"), "has_comm"));
    json_decref(t);
    return yes;
}

/* The parent level of the data level, or NULL. */
static const char *parent_level(const ari_mt_info *info)
{
    for (size_t i = 1; i < info->nlevels; i++)
        if (strcmp(info->levels[i], info->data_level) == 0)
            return info->levels[i - 1];
    return NULL;
}

static int read_level(ari_request *r, json_t *body, const ari_selection *sel, comm_req *c)
{
    const char *parent = parent_level(&sel->info);
    const char *choices[3] = {parent ? parent : sel->info.data_level, parent ? sel->info.data_level : NULL, NULL};
    return ari_sel_choice(r, body, "level", choices, &c->level);
}

static int read_rings(ari_request *r, json_t *body, const ari_selection *sel, comm_req *c)
{
    json_t *arr = json_object_get(body, "ring_metrics");
    if (!arr) {
        const char *defaults[] = {"RbTotal", "NetworkSend"};
        for (int i = 0; i < 2; i++)
            if (ari_mt_info_metric(&sel->info, defaults[i]))
                c->rings[c->nrings++] = ari_mt_info_metric(&sel->info, defaults[i])->name;
        return 0;
    }
    if (json_array_size(arr) > MAX_RINGS) {
        ari_reply_error(r, 400, "invalid_parameter", "ring_metrics must list at most %d metric names", MAX_RINGS);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        const ari_mt_metric *m = json_is_string(v) ? ari_mt_info_metric(&sel->info, json_string_value(v)) : NULL;
        if (!m) {
            ari_reply_error(r, 400, "invalid_parameter",
                            "ring_metrics[%zu] must name a metric of trace %lld (see its summary.metrics)", i,
                            (long long)sel->trace_id);
            return -1;
        }
        c->rings[c->nrings++] = m->name;
    }
    return 0;
}

/* segments: [[t0, t1], ...] in the domain, each to a contiguous range of
 * sample indices; default one segment over the whole run. */
static int read_segments(ari_request *r, json_t *body, const ari_selection *sel, comm_req *c)
{
    json_t *arr = json_object_get(body, "segments");
    const double *times = sel->info.times[sel->domain];
    size_t T = sel->info.ntimes;
    size_t n = arr ? json_array_size(arr) : 1;
    if (n == 0 || n > MAX_SEGMENTS) {
        ari_reply_error(r, 400, "invalid_parameter", "segments must list 1 to %d pairs [t0, t1]", MAX_SEGMENTS);
        return -1;
    }
    for (size_t s = 0; s < n; s++) {
        json_t *pair = arr ? json_array_get(arr, s) : NULL;
        double a = pair ? json_number_value(json_array_get(pair, 0)) : -INFINITY;
        double b = pair ? json_number_value(json_array_get(pair, 1)) : INFINITY;
        if (arr && (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)) ||
                    !json_is_number(json_array_get(pair, 1)) || b < a)) {
            ari_reply_error(r, 400, "invalid_parameter", "segments[%zu] must be a pair [t0, t1] of numbers, t0 <= t1",
                            s);
            return -1;
        }
        size_t i0 = T, i1 = 0, count = 0;
        for (size_t i = 0; i < T; i++)
            if (!isnan(times[i]) && times[i] >= a && times[i] <= b) {
                i0 = i < i0 ? i : i0;
                i1 = i + 1;
                count++;
            }
        if (count == 0 || count != i1 - i0) {
            ari_reply_error(r, 400, "invalid_parameter", count == 0 ? "segments[%zu] holds no time point of %s"
                                                                    : "segments[%zu] is not one run of samples in %s",
                            s, ari_mt_domain_names[sel->domain]);
            return -1;
        }
        c->seg[s] = (ari_segment){(int)i0, (int)i1};
        c->tseg[s][0] = times[i0];
        c->tseg[s][1] = times[i1 - 1];
    }
    c->nseg = (int)n;
    return 0;
}

/* The data-level entities in id order, and their parents' index. */
static int build_entities(ari_request *r, const ari_selection *sel, comm_req *c)
{
    const ari_mt_info *info = &sel->info;
    size_t n = info->nentities;
    c->kp_ids = malloc((n ? n : 1) * sizeof *c->kp_ids);
    c->group = malloc((n ? n : 1) * sizeof *c->group);
    c->grp_ids = malloc((n ? n : 1) * sizeof *c->grp_ids);
    c->kp_index = malloc((n ? n : 1) * sizeof *c->kp_index);
    int32_t *grp_index = malloc((n ? n : 1) * sizeof *grp_index);
    if (!c->kp_ids || !c->group || !c->grp_ids || !c->kp_index || !grp_index) {
        free(grp_index);
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    int grouped = strcmp(c->level, info->data_level) != 0;
    for (size_t e = 0; e < n; e++) {
        c->kp_index[e] = -1;
        grp_index[e] = -1;
    }
    for (size_t e = 0; e < n; e++) {
        if (strcmp(info->entities[e].level, info->data_level) != 0)
            continue;
        int64_t parent = info->entities[e].parent;
        int g = 0;
        if (grouped && parent >= 0) {
            if (grp_index[parent] < 0) {
                grp_index[parent] = c->ngrp;
                c->grp_ids[c->ngrp++] = parent;
            }
            g = grp_index[parent];
        }
        c->kp_index[e] = c->nkp;
        c->group[c->nkp] = g;
        c->kp_ids[c->nkp++] = (int64_t)e;
    }
    free(grp_index);
    int m = grouped ? c->ngrp : c->nkp;
    if ((double)m * m * c->nseg > MAX_CELLS) {
        ari_reply_error(r, 413, ARI_E_TOO_LARGE, "%d segments of %d x %d matrices: at most %u cells%s", c->nseg, m, m,
                        MAX_CELLS, grouped ? "" : " (ask for a coarser level)");
        return -1;
    }
    return 0;
}

/* The segments' matrices at the asked level and direction: nseg x m x m. */
static double *segment_matrices(ari_request *r, const ari_selection *sel, const comm_req *c, int *m_out)
{
    int lo = c->seg[0].t0, hi = c->seg[0].t1;
    for (int s = 1; s < c->nseg; s++) {
        lo = c->seg[s].t0 < lo ? c->seg[s].t0 : lo;
        hi = c->seg[s].t1 > hi ? c->seg[s].t1 : hi;
    }
    ari_mt_comm raw;
    ari_error err = {0};
    if (ari_mt_comm_load(r->db, sel->trace_id, (size_t)lo, (size_t)hi, &raw, &err) < 0) {
        ari_reply_from_error(r, &err);
        return NULL;
    }
    ari_comm_triple *tr = malloc((raw.n ? raw.n : 1) * sizeof *tr);
    ari_segment seg[MAX_SEGMENTS];
    int grouped = strcmp(c->level, sel->info.data_level) != 0, m = grouped ? c->ngrp : c->nkp;
    size_t cells = (size_t)m * m, ntr = 0;
    double *send = malloc(cells * c->nseg * sizeof *send), *out = malloc(cells * c->nseg * sizeof *out);
    int rc = tr && send && out ? 0 : ari_error_set(&err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < raw.n; i++) {
        int64_t a = raw.src[i], b = raw.dst[i];
        if (a < 0 || b < 0 || (size_t)a >= sel->info.nentities || (size_t)b >= sel->info.nentities ||
            c->kp_index[a] < 0 || c->kp_index[b] < 0)
            continue; /* not between data-level entities: not drawn */
        tr[ntr++] = (ari_comm_triple){(int)raw.time_idx[i] - lo, c->kp_index[a], c->kp_index[b], raw.count[i]};
    }
    for (int s = 0; s < c->nseg; s++)
        seg[s] = (ari_segment){c->seg[s].t0 - lo, c->seg[s].t1 - lo};
    if (rc == 0)
        rc = grouped ? ari_segment_comm_grouped(tr, ntr, c->nkp, hi - lo, c->group, c->ngrp, seg, c->nseg, send, &err)
                     : ari_segment_comm(tr, ntr, c->nkp, hi - lo, seg, c->nseg, send, &err);
    for (int s = 0; rc == 0 && s < c->nseg; s++)
        ari_comm_direction(send + cells * s, m, c->mode, out + cells * s);
    ari_mt_comm_free(&raw);
    free(tr);
    free(send);
    if (rc < 0) {
        free(out);
        ari_reply_from_error(r, &err);
        return NULL;
    }
    *m_out = m;
    return out;
}

/* rings[k]: nseg x nkp means of ring metric k. */
static double *ring_means(ari_request *r, const ari_selection *sel, const comm_req *c)
{
    size_t T = sel->info.ntimes, nkp = (size_t)c->nkp, per = (size_t)c->nseg * nkp;
    size_t total = per * (size_t)c->nrings;
    double *out = malloc((total ? total : 1) * sizeof *out);
    if (!out) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    if (c->nrings == 0)
        return out;
    ari_mt_request req = {c->rings, (size_t)c->nrings, sel->info.key_domain, NAN, NAN, sel->info.data_level,
                          c->kp_ids, nkp, 0};
    ari_mt_matrix mm;
    ari_error err = {0};
    int rc = ari_mt_matrix_load(r->db, &sel->info, &req, &mm, &err);
    if (rc == 0 && mm.l != T)
        rc = ari_error_set(&err, "internal", "the key domain has %zu of %zu time points", mm.l, T);
    for (int k = 0; rc == 0 && k < c->nrings; k++)
        rc = ari_segment_means(mm.values + (size_t)k * nkp * T, (int)nkp, (int)T, c->seg, c->nseg, out + k * per,
                               &err);
    if (rc == 0 || mm.values)
        ari_mt_matrix_free(&mm);
    if (rc < 0) {
        free(out);
        ari_reply_from_error(r, &err);
        return NULL;
    }
    return out;
}

static json_t *matrix_json(const double *v, int m)
{
    json_t *rows = json_array();
    for (int i = 0; rows && i < m; i++) {
        json_t *row = json_array();
        for (int j = 0; row && j < m; j++)
            json_array_append_new(row, json_real(v[(size_t)i * m + j]));
        json_array_append_new(rows, row);
    }
    return rows;
}

static json_t *entity_json(const ari_mt_info *info, int64_t id)
{
    return json_pack("{s:I,s:s}", "id", (json_int_t)id, "name", info->entities[id].name);
}

static char *comm_document(const ari_selection *sel, const comm_req *c, const double *mat, int m, const double *rings)
{
    const ari_mt_info *info = &sel->info;
    int grouped = strcmp(c->level, info->data_level) != 0;
    size_t cells = (size_t)m * m, per = (size_t)c->nseg * c->nkp;
    json_t *doc = json_object(), *ents = json_array(), *hier = json_object(), *ring_ents = json_array(),
           *segs = json_array(), *scales = json_object();
    for (int i = 0; i < m; i++)
        json_array_append_new(ents, entity_json(info, grouped ? c->grp_ids[i] : c->kp_ids[i]));
    for (int g = 0; grouped && g < c->ngrp; g++) {
        json_t *kids = json_array();
        for (int k = 0; k < c->nkp; k++)
            if (c->group[k] == g)
                json_array_append_new(kids, json_integer(c->kp_ids[k]));
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)c->grp_ids[g]);
        json_object_set_new(hier, key, kids);
    }
    for (int k = 0; k < c->nkp; k++)
        json_array_append_new(ring_ents, json_integer(c->kp_ids[k]));
    double lo, hi;
    for (int s = 0; s < c->nseg; s++) {
        json_t *rj = json_object();
        for (int k = 0; k < c->nrings; k++)
            json_object_set_new(rj, c->rings[k], json_array());
        for (int k = 0; k < c->nrings; k++)
            for (int e = 0; e < c->nkp; e++) {
                double v = rings[k * per + (size_t)s * c->nkp + e];
                json_array_append_new(json_object_get(rj, c->rings[k]), isnan(v) ? json_null() : json_real(v));
            }
        json_array_append_new(segs, json_pack("{s:f,s:f,s:i,s:i,s:i,s:o,s:o}", "t0", c->tseg[s][0], "t1",
                                              c->tseg[s][1], "i0", c->seg[s].t0, "i1", c->seg[s].t1, "samples",
                                              c->seg[s].t1 - c->seg[s].t0, "matrix", matrix_json(mat + cells * s, m),
                                              "rings", rj));
    }
    for (int k = 0; k < c->nrings; k++) {
        ari_segment_scale(rings + k * per, per, &lo, &hi);
        json_object_set_new(scales, c->rings[k], isnan(lo) ? json_null() : json_pack("[f,f]", lo, hi));
    }
    ari_segment_scale(mat, cells * c->nseg, &lo, &hi);
    json_object_set_new(doc, "trace_id", json_integer(sel->trace_id));
    json_object_set_new(doc, "level", json_string(c->level));
    json_object_set_new(doc, "comm_metric", json_string(c->mode_name));
    json_object_set_new(doc, "agg", json_string("mean"));
    json_object_set_new(doc, "time_domain", json_string(ari_mt_domain_names[sel->domain]));
    json_object_set_new(doc, "entities", ents);
    json_object_set_new(doc, "hierarchy", hier);
    json_object_set_new(doc, "ring_level", json_string(info->data_level));
    json_object_set_new(doc, "ring_entities", ring_ents);
    json_object_set_new(doc, "segments", segs);
    json_object_set_new(doc, "scales", scales);
    json_object_set_new(doc, "matrix_scale", isnan(lo) ? json_null() : json_pack("[f,f]", lo, hi));
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    return text;
}

static void add_params(json_t *p, const comm_req *c)
{
    json_t *segs = json_array(), *rings = json_array();
    for (int s = 0; s < c->nseg; s++)
        json_array_append_new(segs, json_pack("[i,i]", c->seg[s].t0, c->seg[s].t1));
    for (int k = 0; k < c->nrings; k++)
        json_array_append_new(rings, json_string(c->rings[k]));
    json_object_set_new(p, "segments", segs);
    json_object_set_new(p, "level", json_string(c->level));
    json_object_set_new(p, "comm_metric", json_string(c->mode_name));
    json_object_set_new(p, "ring_metrics", rings);
}

enum MHD_Result api_metrics_comm_segments(ari_request *r)
{
    static const char *const modes[] = {"send", "recv", "sum", "max", NULL};
    static const char *const aggs[] = {"mean", NULL};
    static const ari_body_field own[] = {
        {"segments", ARI_BODY_ARRAY, 0, "an array of pairs [t0, t1] in the time domain"},
        {"level", ARI_BODY_STRING, 0, "the data level or its parent (PE or KP)"},
        {"comm_metric", ARI_BODY_STRING, 0, "one of send, recv, sum, max"},
        {"ring_metrics", ARI_BODY_ARRAY, 0, "an array of metric names"},
        {"agg", ARI_BODY_STRING, 0, "mean"},
        {"time_domain", ARI_BODY_STRING, 0, "the name of a time domain of the trace"},
        {NULL, ARI_BODY_STRING, 0, NULL}};
    json_t *body = ari_body_object(r);
    if (!body)
        return MHD_YES;
    ari_selection sel;
    comm_req c;
    memset(&c, 0, sizeof c);
    const char *agg;
    if (ari_sel_open(r, body, own, 0, &sel) < 0)
        goto done;
    if (!has_comm(r, sel.trace_id)) {
        ari_reply_error(r, 409, "no_comm", "this trace has no communication data (trace %lld)",
                        (long long)sel.trace_id);
        goto done;
    }
    if (read_level(r, body, &sel, &c) < 0 || ari_sel_choice(r, body, "comm_metric", modes, &c.mode_name) < 0 ||
        ari_sel_choice(r, body, "agg", aggs, &agg) < 0 || read_rings(r, body, &sel, &c) < 0 ||
        read_segments(r, body, &sel, &c) < 0)
        goto done;
    c.mode = strcmp(c.mode_name, "send") == 0 ? ARI_COMM_SEND : strcmp(c.mode_name, "recv") == 0 ? ARI_COMM_RECV
             : strcmp(c.mode_name, "sum") == 0 ? ARI_COMM_SUM : ARI_COMM_MAX;
    json_object_del(sel.params, "metrics");
    json_object_del(sel.params, "entities");
    json_object_del(sel.params, "t0");
    json_object_del(sel.params, "t1");
    json_object_del(sel.params, "granularity");
    add_params(sel.params, &c);
    if (ari_sel_try_cached(r, &sel, "pdes_comm_segments@1") || build_entities(r, &sel, &c) < 0)
        goto done;
    int m = 0;
    double *mat = segment_matrices(r, &sel, &c, &m);
    double *rings = mat ? ring_means(r, &sel, &c) : NULL;
    char *text = rings ? comm_document(&sel, &c, mat, m, rings) : NULL;
    if (text) {
        char *params = ari_sel_params_text(sel.params);
        if (params)
            ari_cache_put(r->db, sel.trace_id, "pdes_comm_segments@1", params, text);
        free(params);
        ari_reply_text_json(r, 200, text);
    } else if (rings) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    }
    free(text);
    free(mat);
    free(rings);
done:
    comm_req_free(&c);
    ari_sel_free(&sel);
    json_decref(body);
    return MHD_YES;
}
