/* live_hub_views.c: what a hub answers on demand (live_hub.h): the /state
 * snapshot and the communication matrices (/comm, /comm/diff) of any time
 * point, level and group, with each row's cluster label. */
#include "live_hub_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/live_comm.h"

/* ---- state ---- */

static json_t *entities_json(const ari_live_data *ld)
{
    json_t *a = json_array();
    size_t n = ari_live_data_n_entities(ld);
    for (size_t i = 0; a && i < n; i++) {
        int64_t parent = ari_live_data_entity_parent(ld, i);
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:o}", "id", (json_int_t)i, "name",
                                           ari_live_data_entity_name(ld, i), "level",
                                           ari_live_data_entity_level(ld, i), "parent",
                                           parent >= 0 ? json_integer(parent) : json_null()));
    }
    return a;
}

static json_t *number_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* The mean over the leaf-level entities of each metric at each point. */
static json_t *summary_json(const ari_live_data *ld)
{
    json_t *o = json_object();
    const char *leaf = ari_live_data_leaf_level(ld);
    size_t nl = leaf ? ari_live_data_level(ld, leaf, NULL, 0) : 0;
    size_t nt = ari_live_data_n_points(ld), nm = ari_live_data_n_metrics(ld);
    size_t *ids = malloc((nl ? nl : 1) * sizeof *ids);
    double *col = malloc((nl ? nl : 1) * sizeof *col);
    if (!o || !ids || !col) {
        free(ids);
        free(col);
        json_decref(o);
        return NULL;
    }
    if (nl)
        ari_live_data_level(ld, leaf, ids, nl);
    for (size_t m = 0; m < nm; m++) {
        json_t *a = json_array();
        for (size_t t = 0; a && t < nt; t++) {
            ari_live_data_column(ld, m, t, ids, nl, col);
            double sum = 0;
            size_t cnt = 0;
            for (size_t i = 0; i < nl; i++)
                if (!isnan(col[i])) {
                    sum += col[i];
                    cnt++;
                }
            json_array_append_new(a, number_or_null(cnt ? sum / cnt : NAN));
        }
        json_object_set_new(o, ari_live_data_metric_name(ld, m), a ? a : json_null());
    }
    free(ids);
    free(col);
    return o;
}

static json_t *last_message(ari_live_hub *h)
{
    ari_live_msg *m = ari_live_feed_last(h->feed);
    if (!m)
        return json_null();
    const char *data = strstr(m->text, "\ndata: ");
    json_t *j = data ? json_loadb(data + 7, m->len - (size_t)(data + 7 - m->text), 0, NULL) : NULL;
    ari_live_msg_unref(m);
    return j ? j : json_null();
}

json_t *ari_live_hub_state(ari_live_hub *h, const char *name)
{
    json_t *last = last_message(h);
    pthread_mutex_lock(&h->mu);
    const ari_live_data *ld = h->ld;
    ari_live_controls ctl;
    ari_live_controls_resolve(&h->ctl, ld, &ctl);
    json_t *metrics = json_array(), *times = json_array(), *cps = json_array();
    for (size_t m = 0; metrics && m < ari_live_data_n_metrics(ld); m++)
        json_array_append_new(metrics, json_string(ari_live_data_metric_name(ld, m)));
    const double *keys = ari_live_data_keys(ld);
    for (size_t t = 0; times && t < ari_live_data_n_points(ld); t++)
        json_array_append_new(times, json_real(keys[t]));
    for (size_t i = 0; cps && i < h->ncps; i++)
        json_array_append_new(cps, json_integer((json_int_t)h->cps[i]));
    size_t nlev = 0;
    const char *const *lev = ari_live_data_levels(ld, &nlev);
    json_t *levels = json_array();
    for (size_t i = 0; levels && i < nlev; i++)
        json_array_append_new(levels, json_string(lev[i]));
    json_t *doc = json_pack("{s:I, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
                            "trace_id", (json_int_t)h->id, "name", name ? name : "", "state",
                            h->open ? "open" : "closed", "n_points", (json_int_t)ari_live_data_n_points(ld), "seq",
                            (json_int_t)h->last_id, "controls", ari_live_controls_json(&ctl), "levels",
                            levels ? levels : json_null(), "entities", entities_json(ld), "metrics",
                            metrics ? metrics : json_null(), "times", times ? times : json_null(), "summary",
                            summary_json(ld), "change_points", cps ? cps : json_null(), "last", last,
                            "has_comm", ari_live_data_has_comm(ld));
    pthread_mutex_unlock(&h->mu);
    return doc;
}

/* ---- communication ---- */

typedef struct comm_view {
    int32_t *parent;
    const char **names;
    ari_lcomm_tree tree;
    ari_lcomm_view *v;
    char level[ARI_LIVE_NAME];
} comm_view;

static void comm_view_free(comm_view *c)
{
    ari_lcomm_view_free(c->v);
    free(c->parent);
    free(c->names);
}

/* The view of level (NULL: the granularity) or of group's children. Hub locked. */
static int comm_view_open(ari_live_hub *h, const char *level, int64_t group, comm_view *c, ari_error *err)
{
    memset(c, 0, sizeof *c);
    ari_live_data *ld = h->ld;
    if (!ari_live_data_has_comm(ld))
        return ari_error_set(err, ARI_E_NOT_FOUND, "this run has no communication data");
    size_t ne = ari_live_data_n_entities(ld);
    if (group >= (int64_t)ne)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "group %lld is not an entity of this run",
                             (long long)group);
    ari_live_controls ctl;
    ari_live_controls_resolve(&h->ctl, ld, &ctl);
    const char *name = level ? level : ctl.granularity;
    int depth = ari_live_level_depth(ld, name);
    if (depth < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "level '%.60s' is not a level of this run", name);
    c->parent = malloc((ne ? ne : 1) * sizeof *c->parent);
    c->names = malloc((ne ? ne : 1) * sizeof *c->names);
    if (!c->parent || !c->names) {
        comm_view_free(c);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ne; i++) {
        c->parent[i] = (int32_t)ari_live_data_entity_parent(ld, i);
        c->names[i] = ari_live_data_entity_name(ld, i);
    }
    c->tree = (ari_lcomm_tree){.n = ne, .parent = c->parent, .names = c->names,
                               .leaf_level = ari_live_comm_depth(h->ld)};
    if (depth > c->tree.leaf_level)
        depth = c->tree.leaf_level;
    if (!(c->v = ari_lcomm_view_new(&c->tree, depth, (int32_t)group, err))) {
        comm_view_free(c);
        return -1;
    }
    size_t m = ari_lcomm_view_size(c->v);
    if (m > ARI_LIVE_MAX_COMM_VIEW) {
        comm_view_free(c);
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "the matrix would have %zu rows (at most %d): choose a coarser level, or a group", m,
                             ARI_LIVE_MAX_COMM_VIEW);
    }
    size_t nlev = 0;
    const char *const *lev = ari_live_data_levels(ld, &nlev);
    int vl = ari_lcomm_view_level(c->v);
    snprintf(c->level, sizeof c->level, "%s", vl >= 0 && (size_t)vl < nlev ? lev[vl] : name);
    return 0;
}

/* The view's matrix at time index t into out (m x m). Hub locked. */
static int comm_matrix(ari_live_hub *h, comm_view *c, size_t t, double *out, ari_error *err)
{
    const int32_t *src, *dst;
    const double *count;
    size_t nt = ari_live_data_comm(h->ld, t, &src, &dst, &count);
    ari_lcomm_triple *tr = malloc((nt ? nt : 1) * sizeof *tr);
    if (!tr)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++)
        tr[i] = (ari_lcomm_triple){src[i], dst[i], count[i]};
    int rc = ari_lcomm_view_matrix(c->v, tr, nt, out, err);
    free(tr);
    return rc;
}

static json_t *matrix_json(const double *v, size_t m)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows && i < m; i++) {
        json_t *row = json_array();
        for (size_t j = 0; row && j < m; j++)
            json_array_append_new(row, number_or_null(v[i * m + j]));
        json_array_append_new(rows, row ? row : json_null());
    }
    return rows;
}

/* ids, names, labels and level of the view into doc. Hub locked. */
static void view_members(ari_live_hub *h, comm_view *c, json_t *doc)
{
    size_t m = ari_lcomm_view_size(c->v);
    const int32_t *ids = ari_lcomm_view_ids(c->v);
    json_t *jids = json_array(), *names = json_array(), *labels = json_array();
    int *lab = malloc((m ? m : 1) * sizeof *lab);
    int *all = malloc((c->tree.n ? c->tree.n : 1) * sizeof *all);
    ari_error err = {0};
    if (all) {
        for (size_t i = 0; i < c->tree.n; i++)
            all[i] = i < h->nlabels && h->labels ? h->labels[i] : -1;
    }
    int have = lab && all && ari_lcomm_view_labels(c->v, all, lab, &err) == 0;
    for (size_t i = 0; i < m; i++) {
        json_array_append_new(jids, json_integer(ids[i]));
        json_array_append_new(names, json_string(ari_live_data_entity_name(h->ld, (size_t)ids[i])));
        json_array_append_new(labels, have && lab[i] >= 0 ? json_integer(lab[i]) : json_null());
    }
    free(lab);
    free(all);
    int32_t g = ari_lcomm_view_group(c->v);
    json_object_set_new(doc, "level", json_string(c->level));
    json_object_set_new(doc, "group", g >= 0 ? json_integer(g) : json_null());
    json_object_set_new(doc, "ids", jids);
    json_object_set_new(doc, "names", names);
    json_object_set_new(doc, "labels", labels);
}

static int check_t(ari_live_hub *h, int64_t t, const char *what, ari_error *err)
{
    size_t n = ari_live_data_n_points(h->ld);
    if (n == 0)
        return ari_error_set(err, ARI_E_NOT_FOUND, "the run has no time point yet");
    if (t >= (int64_t)n)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "%s=%lld is past the last time index (%zu)", what,
                             (long long)t, n - 1);
    return 0;
}

json_t *ari_live_hub_comm(ari_live_hub *h, int64_t t, const char *level, int64_t group, ari_error *err)
{
    comm_view c;
    json_t *doc = NULL;
    pthread_mutex_lock(&h->mu);
    if (t < 0 && ari_live_data_n_points(h->ld) > 0)
        t = (int64_t)ari_live_data_n_points(h->ld) - 1;
    if (check_t(h, t, "t", err) < 0 || comm_view_open(h, level, group, &c, err) < 0)
        goto out;
    size_t m = ari_lcomm_view_size(c.v);
    double *mat = malloc((m > 0 ? m * m : 1) * sizeof *mat);
    if (!mat) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else if (comm_matrix(h, &c, (size_t)t, mat, err) == 0 && (doc = json_object())) {
        json_object_set_new(doc, "t_idx", json_integer(t));
        json_object_set_new(doc, "time", number_or_null(ari_live_data_keys(h->ld)[t]));
        view_members(h, &c, doc);
        json_object_set_new(doc, "matrix", matrix_json(mat, m));
    }
    free(mat);
    comm_view_free(&c);
out:
    pthread_mutex_unlock(&h->mu);
    return doc;
}

/* The change points asked for: "all" / NULL (every one the hub found) or
 * "a,b,c" (time indices below n). */
static int parse_cps(ari_live_hub *h, const char *cps, size_t n, size_t **out, size_t *nout, ari_error *err)
{
    *out = NULL;
    *nout = 0;
    if (!cps || strcmp(cps, "all") == 0) {
        if (h->ncps && !(*out = malloc(h->ncps * sizeof **out)))
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        if (h->ncps)
            memcpy(*out, h->cps, h->ncps * sizeof **out);
        *nout = h->ncps;
        return 0;
    }
    size_t cap = strlen(cps) / 2 + 1;
    if (cap > 1024)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "cps: at most 1024 change points");
    if (!(*out = malloc(cap * sizeof **out)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    const char *p = cps;
    while (*p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || (size_t)v >= n || (*end && *end != ',') || *nout == cap) {
            free(*out);
            *out = NULL;
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "cps wants 'all' or time indices in [0, %zu) separated by commas", n);
        }
        (*out)[(*nout)++] = (size_t)v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

json_t *ari_live_hub_comm_diff(ari_live_hub *h, int64_t base, const char *cps, const char *level, int64_t group,
                               ari_error *err)
{
    comm_view c;
    json_t *doc = NULL;
    size_t *list = NULL, nl = 0;
    double *mb = NULL, *mc = NULL;
    pthread_mutex_lock(&h->mu);
    size_t n = ari_live_data_n_points(h->ld);
    if (check_t(h, base, "base", err) < 0 || parse_cps(h, cps, n, &list, &nl, err) < 0)
        goto out;
    if (comm_view_open(h, level, group, &c, err) < 0)
        goto out;
    size_t m = ari_lcomm_view_size(c.v), mm = m > 0 ? m * m : 1;
    if ((double)nl * (double)mm > (double)(1 << 22)) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "%zu matrices of %zu x %zu cells are too many (at most 4,194,304 "
                      "cells): ask for fewer change points (cps=a,b) or a coarser level", nl, m, m);
        goto close;
    }
    json_t *diffs = json_array();
    if (!(mb = malloc(mm * sizeof *mb)) || !(mc = malloc(mm * sizeof *mc)) || !diffs) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        json_decref(diffs);
        goto close;
    }
    if (comm_matrix(h, &c, (size_t)base, mb, err) < 0) {
        json_decref(diffs);
        goto close;
    }
    for (size_t i = 0; i < nl; i++) {
        if (comm_matrix(h, &c, list[i], mc, err) < 0) {
            json_decref(diffs);
            goto close;
        }
        for (size_t k = 0; k < m * m; k++)
            mc[k] -= mb[k];
        json_array_append_new(diffs, json_pack("{s:I, s:o, s:o}", "t_idx", (json_int_t)list[i], "time",
                                               number_or_null(ari_live_data_keys(h->ld)[list[i]]), "matrix",
                                               matrix_json(mc, m)));
    }
    if ((doc = json_object())) {
        json_object_set_new(doc, "base", json_integer(base));
        view_members(h, &c, doc);
        json_object_set_new(doc, "base_matrix", matrix_json(mb, m));
        json_object_set_new(doc, "diffs", diffs);
    } else {
        json_decref(diffs);
    }
close:
    comm_view_free(&c);
out:
    pthread_mutex_unlock(&h->mu);
    free(list);
    free(mb);
    free(mc);
    return doc;
}
