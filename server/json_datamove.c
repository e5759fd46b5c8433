/* json_datamove.c: encoding the data movement endpoints' structs as the
 * JSON of docs/api.md (json_datamove.h). Reals are written with 17
 * significant digits; NAN bandwidths and NULL columns are null. Every
 * time is answered relative to the trace's origin: the struct's stored
 * time minus its `shift` (a datamove trace's first event; 0 for task
 * traces, stored relative already), and each document says the origin in
 * `time_origin` (in the file's clock: absolute µs for datamove traces). */
#include "json_datamove.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/datamove.h"

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *int_or_null(int64_t v)
{
    return v == ARI_DM_NULL ? json_null() : json_integer(v);
}

/* Adds time_origin to a document (NULL stays NULL). */
static json_t *with_origin(json_t *doc, double time_origin)
{
    if (doc)
        json_object_set_new(doc, "time_origin", json_real(time_origin));
    return doc;
}

char *ari_dm_json_text(json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    return text;
}

/* ---- movements ---- */

static json_t *movement_json(int links, const ari_dm_movement *m, double shift)
{
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:o, s:o}", "event", (json_int_t)m->event, "src",
                          m->src, "dst", m->dst, "kind", m->kind, "bytes", m->bytes, "start", m->start - shift, "dur", m->dur,
                          "bandwidth", real_or_null(m->bandwidth), "trace_bandwidth", real_or_null(m->trace_bandwidth));
    if (o && links) {
        json_object_set_new(o, "key", m->key ? json_string(m->key) : json_null());
        json_object_set_new(o, "handle", m->handle ? json_string(m->handle) : json_null());
        json_object_set_new(o, "handle_name", m->handle_name ? json_string(m->handle_name) : json_null());
    }
    return o;
}

json_t *ari_dm_movements_json(const ari_dm_movements *m, int64_t limit)
{
    json_t *list = json_array();
    for (size_t i = 0; i < m->n; i++)
        json_array_append_new(list, movement_json(m->links, &m->items[i], m->shift));
    return with_origin(json_pack("{s:f, s:f, s:s, s:I, s:b, s:f, s:f, s:o}", "start", m->start - m->shift, "end",
                                 m->end - m->shift, "time_unit", m->time_unit, "total", (json_int_t)m->tally.total,
                                 "truncated", m->tally.total > limit, "bytes", m->tally.bytes, "bytes_in_window",
                                 m->tally.bytes_in_window, "movements", list),
                       m->time_origin);
}

/* ---- matrix ---- */

json_t *ari_dm_matrix_json(const ari_dm_window_matrix *w)
{
    const ari_dm_matrix *m = w->m;
    json_t *keys = json_array(), *bytes = json_array(), *bw = json_array();
    for (int i = 0; i < m->n; i++) {
        json_t *row = json_array(), *brow = json_array();
        json_array_append_new(keys, json_string(m->keys[i]));
        for (int j = 0; j < m->n; j++) {
            json_array_append_new(row, json_real(m->bytes[i][j]));
            json_array_append_new(brow, real_or_null(ari_dm_matrix_bandwidth(m, i, j, w->unit_s)));
        }
        json_array_append_new(bytes, row);
        json_array_append_new(bw, brow);
    }
    double total, max;
    ari_dm_matrix_totals(m, &total, &max);
    return with_origin(json_pack("{s:f, s:f, s:s, s:o, s:o, s:o, s:f, s:f}", "start", w->start - w->shift, "end",
                                 w->end - w->shift, "time_unit", w->time_unit, "components", keys, "bytes", bytes,
                                 "bandwidth", bw, "total_bytes", total, "max_bytes", max),
                       w->time_origin);
}

/* ---- clock ---- */

json_t *ari_dm_clock_json(const ari_dm_clock *c)
{
    json_t *rows = json_array(), *cats = json_array();
    for (int k = 0; k < ARI_DM_NCAT; k++)
        json_array_append_new(cats, json_string(ari_dm_category_name(k)));
    for (int i = 0; i < c->nsectors; i++) {
        json_t *row = json_array();
        for (int k = 0; k < ARI_DM_NCAT; k++)
            json_array_append_new(row, json_real(c->sectors[i * ARI_DM_NCAT + k]));
        json_array_append_new(rows, row);
    }
    return with_origin(json_pack("{s:f, s:f, s:f, s:f, s:i, s:o, s:o, s:f}", "start", c->start - c->shift, "end",
                                 c->end - c->shift, "duration", c->end - c->start, "sector_width", c->sector_width,
                                 "sectors", c->nsectors, "categories", cats, "values", rows, "max_sector",
                                 ari_dm_clock_max(c->sectors, c->nsectors, ARI_DM_NCAT)),
                       c->time_origin);
}

/* ---- topology ---- */

/* The utilization of component `key`: a real when it was busy, 0 when it
 * was not, null without a key. */
static json_t *utilization_json(const ari_dm_topology *t, const int *comp_of, const double *frac, int ncomps,
                                const char *key)
{
    if (!key[0])
        return json_null();
    for (int c = 0; c < ncomps; c++)
        if (strcmp(t->track_comp[comp_of[c]], key) == 0)
            return json_real(frac[c]);
    return json_real(0);
}

static json_t *components_json(const ari_dm_topology *t, const int *comp_of, const double *frac, int ncomps)
{
    json_t *comps = json_array();
    for (size_t i = 0; i < t->ncomps; i++) {
        const ari_dm_component_row *c = &t->comps[i];
        json_t *attrs = json_loads(c->attrs_json, 0, NULL);
        json_array_append_new(comps, json_pack("{s:I, s:o, s:s, s:s, s:o, s:o, s:s, s:o, s:f, s:o}",
            "id", (json_int_t)c->id, "parent", int_or_null(c->parent), "kind", c->kind, "name", c->name,
            "os_index", int_or_null(c->os_index), "logical_index", int_or_null(c->logical_index),
            "key", c->key, "attrs", attrs ? attrs : json_object(), "bytes", ari_dm_matrix_moved(t->m, c->key),
            "utilization", utilization_json(t, comp_of, frac, ncomps, c->key)));
    }
    return comps;
}

static json_t *links_json(const ari_dm_matrix *m)
{
    json_t *links = json_array();
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++)
            if (m->bytes[i][j] > 0)
                json_array_append_new(links, json_pack("{s:s, s:s, s:f, s:o}", "src", m->keys[i], "dst", m->keys[j],
                    "bytes", m->bytes[i][j], "bandwidth", real_or_null(ari_dm_matrix_bandwidth_us(m, i, j))));
    return links;
}

json_t *ari_dm_topology_json(const ari_dm_topology *t)
{
    size_t room = t->ntracks > 0 ? (size_t)t->ntracks : 1;
    int *comp_of = malloc(room * sizeof *comp_of), ncomps = 0;
    double *frac = malloc(room * sizeof *frac);
    json_t *doc = NULL;
    if (comp_of && frac) {
        ari_dm_utilization((const char(*)[ARI_DM_KEY_SIZE])t->track_comp, t->track_busy, t->ntracks, t->start,
                           t->end, comp_of, frac, &ncomps);
        doc = with_origin(json_pack("{s:f, s:f, s:o, s:o}", "start", t->start - t->shift, "end", t->end - t->shift,
                                    "components", components_json(t, comp_of, frac, ncomps), "links",
                                    links_json(t->m)),
                          t->time_origin);
    }
    free(comp_of);
    free(frac);
    return doc;
}

/* ---- timeline ---- */

static json_t *tracks_json(const ari_dm_timeline *t)
{
    json_t *a = json_array();
    for (size_t i = 0; i < t->ntracks; i++) {
        const ari_dm_track_row *k = &t->tracks[i];
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:s, s:o}", "id", (json_int_t)k->id, "pid", k->pid,
                                           "tid", k->tid, "label", k->label, "device", int_or_null(k->device)));
    }
    return a;
}

static json_t *events_json(const ari_dm_timeline *t)
{
    json_t *a = json_array();
    for (size_t i = 0; i < t->nevents; i++) {
        const ari_dm_event_row *e = &t->events[i];
        json_array_append_new(a, json_pack("{s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:s, s:o}", "id", (json_int_t)e->id,
            "track", (json_int_t)e->track, "category", ari_dm_category_name(e->category), "name", e->name,
            "cat", e->cat, "start", e->start - t->shift, "dur", e->dur, "type", e->point ? "point" : "range",
            "correlation", int_or_null(e->correlation)));
    }
    return a;
}

static json_t *groups_json(const ari_dm_timeline *t)
{
    json_t *a = json_array();
    for (size_t i = 0; i < t->ngroups; i++) {
        const ari_dm_group_row *g = &t->groups[i];
        json_array_append_new(a, json_pack("{s:I, s:s, s:f, s:f, s:I, s:f, s:f}", "track", (json_int_t)g->track,
            "category", ari_dm_category_name(g->category), "start", g->start - t->shift, "end", g->end - t->shift,
            "count", (json_int_t)g->count, "busy", g->busy, "bytes", g->bytes));
    }
    return a;
}

json_t *ari_dm_timeline_json(const ari_dm_timeline *t)
{
    json_t *doc = json_pack("{s:f, s:f, s:f, s:f, s:o, s:s}", "start", t->start - t->shift, "end",
                            t->end - t->shift, "run_start", t->run_start - t->shift, "run_end",
                            t->run_end - t->shift, "tracks", tracks_json(t), "mode", t->grouped ? "groups" : "events");
    if (!doc)
        return NULL;
    json_object_set_new(doc, t->grouped ? "groups" : "events", t->grouped ? groups_json(t) : events_json(t));
    json_object_set_new(doc, "estimated_events", json_integer(t->estimated_events));
    return with_origin(doc, t->time_origin);
}

/* ---- metric series ---- */

static json_t *series_json(const ari_dm_series *x, const ari_dm_series_stats *st, double shift)
{
    json_t *m = json_pack("{s:I, s:s, s:s, s:s, s:I}", "id", (json_int_t)x->id, "metric", x->metric, "component",
                          x->component, "source", x->source, "n", (json_int_t)x->n);
    json_t *ts = json_array(), *vs = json_array();
    for (size_t k = 0; k < x->nsamples; k++)
        if ((int64_t)k % st->stride == 0) {
            json_array_append_new(ts, json_real(x->ts[k] - shift));
            json_array_append_new(vs, json_real(x->values[k]));
        }
    json_object_set_new(m, "variance", json_real(st->variance));
    json_object_set_new(m, "min", x->nsamples ? json_real(st->min) : json_null());
    json_object_set_new(m, "max", x->nsamples ? json_real(st->max) : json_null());
    json_object_set_new(m, "ts", ts);
    json_object_set_new(m, "values", vs);
    return m;
}

json_t *ari_dm_metrics_json(const ari_dm_metric_series *m, int max_points)
{
    size_t room = m->n ? m->n : 1;
    ari_dm_series_stats *st = malloc(room * sizeof *st);
    double *variance = malloc(room * sizeof *variance);
    size_t *order = malloc(room * sizeof *order);
    json_t *doc = NULL;
    if (st && variance && order) {
        for (size_t i = 0; i < m->n; i++) {
            ari_dm_series_summary(m->series[i].values, m->series[i].nsamples, m->series[i].n, max_points, &st[i]);
            variance[i] = st[i].variance;
        }
        ari_dm_series_order(variance, m->n, order);
        json_t *series = json_array();
        for (size_t i = 0; i < m->n; i++)
            json_array_append_new(series, series_json(&m->series[order[i]], &st[order[i]], m->shift));
        doc = with_origin(
            json_pack("{s:f, s:f, s:o}", "start", m->start - m->shift, "end", m->end - m->shift, "series", series),
            m->time_origin);
    }
    free(st);
    free(variance);
    free(order);
    return doc;
}
