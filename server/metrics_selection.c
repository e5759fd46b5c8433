/* metrics_selection.c: the selection of the sampled-metrics analyses, its
 * analysis matrix, canonical parameters and the answer of a request (the
 * contract is in metrics_selection.h). */
#include "metrics_selection.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reply.h"
#include "store/analysis_cache.h"
#include "store/stream_store.h"
#include "store/task_queries.h"
#include "util/sha256.h"

#define MAX_FIELDS 32
#define MAX_ENTITIES 100000
#define PARAMS_TEXT_MAX 1024

static const ari_body_field selection_fields[] = {
    {"metrics", ARI_BODY_ARRAY, 0, "an array of metric names (see the trace's summary.metrics)"},
    {"t0", ARI_BODY_NUMBER, 0, "a number in the time domain"},
    {"t1", ARI_BODY_NUMBER, 0, "a number in the time domain"},
    {"time_domain", ARI_BODY_STRING, 0, "the name of a time domain of the trace"},
    {"granularity", ARI_BODY_STRING, 0, "a level of the trace's hierarchy (PE, KP, ...)"},
    {"entities", ARI_BODY_ARRAY, 0, "an array of entity ids of the granularity"},
};

/* ---- small readers ---- */

int ari_sel_int(ari_request *r, json_t *obj, const char *name, int64_t def, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
        *out = json_integer_value(v);
        return 0;
    }
    ari_reply_error(r, 400, "invalid_parameter", "%s must be an integer in %lld..%lld", name, (long long)lo,
                    (long long)hi);
    return -1;
}

int ari_sel_number(ari_request *r, json_t *obj, const char *name, double def, double lo, double hi, int open_lo,
                   double *out)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    double x = json_number_value(v);
    if (json_is_number(v) && isfinite(x) && (open_lo ? x > lo : x >= lo) && x <= hi) {
        *out = x;
        return 0;
    }
    ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in %s%g, %g]", name, open_lo ? "(" : "[", lo, hi);
    return -1;
}

int ari_sel_choice(ari_request *r, json_t *obj, const char *name, const char *const *choices, const char **out)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    *out = choices[0];
    if (!v || json_is_null(v))
        return 0;
    for (int i = 0; choices[i] && json_is_string(v); i++)
        if (strcmp(json_string_value(v), choices[i]) == 0) {
            *out = choices[i];
            return 0;
        }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; choices[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    char shown[ARI_PRINTABLE_SIZE];
    ari_reply_error(r, 400, "invalid_parameter", "%s must be one of %s, got '%s'", name, list,
                    json_is_string(v) ? ari_printable(json_string_value(v), shown) : "(not a string)");
    return -1;
}

/* ---- opening ---- */

/* A null field counts as absent (k: null), then the table's check. */
static int check_fields(ari_request *r, json_t *body, const ari_body_field *own, int with_selection)
{
    const char *key;
    json_t *value;
    void *tmp;
    json_object_foreach_safe(body, tmp, key, value)
        if (json_is_null(value))
            json_object_del(body, key);
    ari_body_field all[MAX_FIELDS + 1];
    size_t n = 0;
    for (size_t i = 0; with_selection && i < sizeof selection_fields / sizeof selection_fields[0]; i++)
        all[n++] = selection_fields[i];
    for (size_t i = 0; own && own[i].name && n < MAX_FIELDS; i++)
        all[n++] = own[i];
    all[n] = (ari_body_field){NULL, ARI_BODY_STRING, 0, NULL};
    return ari_body_check(r, body, all);
}

int ari_sel_refuse_live(ari_request *r, int64_t trace_id)
{
    ari_error err = {0};
    int open = ari_stream_is_open(r->db, trace_id, &err);
    if (open < 0)
        return ari_reply_from_error(r, &err), -1;
    if (open)
        return ari_reply_error(r, 409, "live_run",
                               "this run is live: watch it at #/live/%lld; offline analyses open when it is closed",
                               (long long)trace_id), -1;
    return 0;
}

static int open_trace(ari_request *r, ari_selection *sel)
{
    ari_error err = {0};
    if (ari_sel_refuse_live(r, sel->trace_id) < 0)
        return -1;
    int rc = ari_mt_info_load(r->db, sel->trace_id, &sel->info, &err);
    if (rc == 1) {
        ari_reply_error(r, 404, "not_found", "no trace %lld", (long long)sel->trace_id);
        return -1;
    }
    if (rc == 2) {
        ari_reply_error(r, 409, "not_pdes", "%s", err.message);
        return -1;
    }
    if (rc < 0) {
        ari_reply_from_error(r, &err);
        return -1;
    }
    sel->info_loaded = 1;
    ari_tq_trace t;
    if ((rc = ari_tq_trace_get(r->db, sel->trace_id, &t, &err)) != 0) {
        ari_reply_lookup_failed(r, rc, &err, "trace", sel->trace_id);
        return -1;
    }
    snprintf(sel->trace_key, sizeof sel->trace_key, "%s", t.key);
    ari_tq_trace_free(&t);
    return 0;
}

static int read_metrics(ari_request *r, json_t *body, ari_selection *sel)
{
    json_t *arr = json_object_get(body, "metrics");
    size_t n = arr ? json_array_size(arr) : 0;
    if (n == 0) {
        const ari_mt_metric *rb = ari_mt_info_metric(&sel->info, "RbTotal");
        if (rb)
            sel->metrics[sel->nmetrics++] = rb->name;
        for (size_t i = 0; i < sel->info.nmetrics && !sel->nmetrics; i++)
            if (!sel->info.metrics[i].attribute)
                sel->metrics[sel->nmetrics++] = sel->info.metrics[i].name;
        if (sel->nmetrics)
            return 0;
        ari_reply_error(r, 400, "invalid_parameter", "trace %lld has no metric", (long long)sel->trace_id);
        return -1;
    }
    if (n > ARI_SEL_MAX_METRICS) {
        ari_reply_error(r, 400, "invalid_parameter", "metrics must list 1 to %d metric names, got %zu",
                        ARI_SEL_MAX_METRICS, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        const ari_mt_metric *m = json_is_string(v) ? ari_mt_info_metric(&sel->info, json_string_value(v)) : NULL;
        char list[512] = "", shown[ARI_PRINTABLE_SIZE];
        if (!m) {
            size_t used = 0;
            for (size_t k = 0; k < sel->info.nmetrics && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                         sel->info.metrics[k].name);
            ari_reply_error(r, 400, "invalid_parameter", "metrics[%zu] must be one of %s, got '%s'", i, list,
                            json_is_string(v) ? ari_printable(json_string_value(v), shown) : "(not a string)");
            return -1;
        }
        for (size_t k = 0; k < sel->nmetrics; k++)
            if (strcmp(sel->metrics[k], m->name) == 0) {
                ari_reply_error(r, 400, "invalid_parameter", "metric %s is listed twice", m->name);
                return -1;
            }
        sel->metrics[sel->nmetrics++] = m->name;
    }
    return 0;
}

static int read_domain_level(ari_request *r, json_t *body, ari_selection *sel)
{
    json_t *dv = json_object_get(body, "time_domain"), *lv = json_object_get(body, "granularity");
    char list[256] = "", shown[ARI_PRINTABLE_SIZE];
    size_t used = 0;
    sel->domain = sel->info.key_domain;
    if (dv && (sel->domain = ari_mt_info_domain(&sel->info, json_string_value(dv))) < 0) {
        for (int d = 0; d < ARI_MT_NDOMAINS && used < sizeof list; d++)
            if (sel->info.times[d])
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                         ari_mt_domain_names[d]);
        ari_reply_error(r, 400, "invalid_parameter", "time_domain must be one of %s, got '%s'", list,
                        ari_printable(json_string_value(dv), shown));
        return -1;
    }
    snprintf(sel->level, sizeof sel->level, "%s", lv ? json_string_value(lv) : sel->info.data_level);
    if (lv && !ari_mt_info_has_level(&sel->info, sel->level)) {
        for (size_t i = 0; i < sel->info.nlevels && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", sel->info.levels[i]);
        ari_reply_error(r, 400, "invalid_parameter", "granularity must be one of %s, got '%s'", list,
                        ari_printable(json_string_value(lv), shown));
        return -1;
    }
    return 0;
}

static int read_range(ari_request *r, json_t *body, ari_selection *sel)
{
    json_t *a = json_object_get(body, "t0"), *b = json_object_get(body, "t1");
    sel->t0 = a ? json_number_value(a) : NAN;
    sel->t1 = b ? json_number_value(b) : NAN;
    if (!isnan(sel->t0) && !isnan(sel->t1) && sel->t1 < sel->t0) {
        ari_reply_error(r, 400, "invalid_parameter", "t1 must not be before t0");
        return -1;
    }
    return 0;
}

static int read_entities(ari_request *r, json_t *body, ari_selection *sel)
{
    json_t *arr = json_object_get(body, "entities");
    size_t n = arr ? json_array_size(arr) : 0;
    if (!arr)
        return 0;
    if (n == 0 || n > MAX_ENTITIES) {
        ari_reply_error(r, 400, "invalid_parameter", "entities must list 1 to %d entity ids (or be left out: all)",
                        MAX_ENTITIES);
        return -1;
    }
    if (!(sel->entities = malloc(n * sizeof *sel->entities))) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        int64_t id = json_is_integer(v) ? json_integer_value(v) : -1;
        if (id < 0 || (size_t)id >= sel->info.nentities || strcmp(sel->info.entities[id].level, sel->level) != 0) {
            ari_reply_error(r, 400, "invalid_parameter", "entities[%zu] must be the id of a %s of trace %lld", i,
                            sel->level, (long long)sel->trace_id);
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (sel->entities[k] == id) {
                ari_reply_error(r, 400, "invalid_parameter", "entity %lld is listed twice", (long long)id);
                return -1;
            }
        sel->entities[sel->nentities++] = id;
    }
    return 0;
}

/* The canonical selection: resolved names, the range as given. */
static int base_params(ari_request *r, ari_selection *sel)
{
    json_t *p = json_object(), *metrics = json_array(), *ents = sel->entities ? json_array() : json_null();
    for (size_t i = 0; metrics && i < sel->nmetrics; i++)
        json_array_append_new(metrics, json_string(sel->metrics[i]));
    for (size_t i = 0; sel->entities && ents && i < sel->nentities; i++)
        json_array_append_new(ents, json_integer(sel->entities[i]));
    if (!p || !metrics || !ents) {
        json_decref(p);
        json_decref(metrics);
        json_decref(ents);
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    json_object_set_new(p, "metrics", metrics);
    json_object_set_new(p, "entities", ents);
    json_object_set_new(p, "t0", isnan(sel->t0) ? json_null() : json_real(sel->t0));
    json_object_set_new(p, "t1", isnan(sel->t1) ? json_null() : json_real(sel->t1));
    json_object_set_new(p, "time_domain", json_string(ari_mt_domain_names[sel->domain]));
    json_object_set_new(p, "granularity", json_string(sel->level));
    sel->params = p;
    return 0;
}

int ari_sel_open(ari_request *r, json_t *body, const ari_body_field *own, int with_selection, ari_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    if (ari_path_id(r, 0, &sel->trace_id) < 0 || check_fields(r, body, own, with_selection) < 0 ||
        open_trace(r, sel) < 0)
        return -1;
    if ((with_selection && read_metrics(r, body, sel) < 0) || read_domain_level(r, body, sel) < 0 || read_range(r, body, sel) < 0 ||
        read_entities(r, body, sel) < 0)
        return -1;
    return base_params(r, sel);
}

void ari_sel_free(ari_selection *sel)
{
    if (sel->matrix_loaded)
        ari_mt_matrix_free(&sel->m);
    if (sel->info_loaded)
        ari_mt_info_free(&sel->info);
    free(sel->entities);
    free(sel->x);
    free(sel->scales);
    json_decref(sel->params);
    memset(sel, 0, sizeof *sel);
}

/* ---- the analysis matrix ---- */

/* Fills the NaNs of v (l values) by linear interpolation; -1 when all are NaN. */
static int fill_row(double *v, size_t l, size_t *filled)
{
    size_t prev = l; /* the last finite index seen, l: none */
    for (size_t j = 0; j < l; j++) {
        if (isnan(v[j]))
            continue;
        if (prev == l) {
            for (size_t k = 0; k < j; k++)
                v[k] = v[j];
            *filled += j;
        } else {
            for (size_t k = prev + 1; k < j; k++)
                v[k] = v[prev] + (v[j] - v[prev]) * (double)(k - prev) / (double)(j - prev);
            *filled += j - prev - 1;
        }
        prev = j;
    }
    if (prev == l)
        return -1;
    for (size_t k = prev + 1; k < l; k++)
        v[k] = v[prev];
    *filled += l - 1 - prev;
    return 0;
}

static int build_x(ari_request *r, ari_selection *sel)
{
    const ari_mt_matrix *m = &sel->m;
    size_t n = m->n, l = m->l, d = m->d, p = d * l;
    sel->x = malloc(n * p * sizeof *sel->x);
    sel->scales = malloc(d * sizeof *sel->scales);
    if (!sel->x || !sel->scales) {
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < d; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double *row = sel->x + i * p + k * l;
            memcpy(row, m->values + (k * n + i) * l, l * sizeof *row);
            if (fill_row(row, l, &sel->filled) < 0) {
                ari_reply_error(r, 400, "invalid_parameter", "%s has no sample of %s in the selection",
                                sel->info.entities[m->entity_ids[i]].name, sel->metrics[k]);
                return -1;
            }
            for (size_t j = 0; j < l; j++) {
                lo = fmin(lo, row[j]);
                hi = fmax(hi, row[j]);
            }
        }
        sel->scales[k][0] = lo;
        sel->scales[k][1] = hi;
        double span = hi - lo;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < l; j++) {
                double *v = sel->x + i * p + k * l + j;
                *v = span > 0 ? (*v - lo) / span : 0;
            }
    }
    return 0;
}

int ari_sel_load(ari_request *r, ari_selection *sel)
{
    ari_mt_request req = {sel->metrics, sel->nmetrics, sel->domain, sel->t0, sel->t1, sel->level, sel->entities,
                          sel->nentities, 0};
    ari_error err = {0};
    if (ari_mt_matrix_load(r->db, &sel->info, &req, &sel->m, &err) < 0) {
        ari_reply_from_error(r, &err);
        return -1;
    }
    sel->matrix_loaded = 1;
    if (sel->m.n == 0 || sel->m.l == 0) {
        ari_reply_error(r, 400, "invalid_parameter", "the selection is empty: %zu entities x %zu time points in [t0, t1]",
                        sel->m.n, sel->m.l);
        return -1;
    }
    if ((double)sel->m.n * (double)sel->m.l * (double)sel->m.d > 4e8) {
        ari_reply_error(r, 413, ARI_E_TOO_LARGE, "the selection has %zu x %zu x %zu values: at most 4e8", sel->m.n,
                        sel->m.l, sel->m.d);
        return -1;
    }
    return build_x(r, sel);
}

json_t *ari_sel_result_head(const ari_selection *sel)
{
    const ari_mt_matrix *m = &sel->m;
    json_t *doc = json_object(), *metrics = json_array(), *ents = json_array(), *scales = json_object();
    if (!doc || !metrics || !ents || !scales) {
        json_decref(doc);
        json_decref(metrics);
        json_decref(ents);
        json_decref(scales);
        return NULL;
    }
    for (size_t k = 0; k < sel->nmetrics; k++) {
        json_array_append_new(metrics, json_string(sel->metrics[k]));
        if (sel->scales)
            json_object_set_new(scales, sel->metrics[k], json_pack("[f,f]", sel->scales[k][0], sel->scales[k][1]));
    }
    for (size_t i = 0; i < m->n; i++)
        json_array_append_new(ents, json_integer(m->entity_ids[i]));
    json_object_set_new(doc, "trace_id", json_integer(sel->trace_id));
    json_object_set_new(doc, "metrics", metrics);
    json_object_set_new(doc, "granularity", json_string(m->level));
    json_object_set_new(doc, "time_domain", json_string(ari_mt_domain_names[m->domain]));
    json_object_set_new(doc, "t0", m->l ? json_real(m->time[0]) : json_null());
    json_object_set_new(doc, "t1", m->l ? json_real(m->time[m->l - 1]) : json_null());
    json_object_set_new(doc, "time_points", json_integer((json_int_t)m->l));
    json_object_set_new(doc, "entities", ents);
    json_object_set_new(doc, "scales", scales);
    json_object_set_new(doc, "filled", json_integer((json_int_t)sel->filled));
    return doc;
}

/* ---- the answer ---- */

char *ari_sel_params_text(const json_t *params)
{
    char *text = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (!text || strlen(text) <= PARAMS_TEXT_MAX)
        return text;
    char hex[ARI_SHA256_HEX];
    ari_sha256_hex(text, strlen(text), hex);
    free(text);
    size_t size = strlen(hex) + 8;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "sha256:%s", hex);
    return out;
}

int ari_sel_try_cached(ari_request *r, const ari_selection *sel, const char *cache_name)
{
    char *params = ari_sel_params_text(sel->params);
    if (!params)
        return 0;
    char *text = ari_runs_result_of(sel->trace_key, cache_name, params);
    if (!text) {
        ari_error err = {0};
        if (ari_cache_get(r->db, sel->trace_id, cache_name, params, &text, &err) != 0)
            text = NULL;
    }
    free(params);
    if (!text)
        return 0;
    ari_reply_text_json(r, 200, text);
    free(text);
    return 1;
}

static enum MHD_Result answer_queued(ari_request *r, int64_t id)
{
    int nomem = 0;
    char *doc = ari_runs_document(id, &nomem);
    if (!doc)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    char location[64];
    snprintf(location, sizeof location, "/api/v1/analyses/%lld", (long long)id);
    ari_reply_header(r, "Location", location);
    enum MHD_Result res = ari_reply_text_json(r, 202, doc);
    free(doc);
    return res;
}

enum MHD_Result ari_sel_answer(ari_request *r, const ari_selection *sel, const char *kind, const char *cache_name,
                               double work, ari_run_fn fn, void *input, ari_run_free_fn free_input)
{
    char *params = ari_sel_params_text(sel->params);
    if (!params) {
        free_input(input);
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    }
    ari_error err = {0};
    enum MHD_Result res;
    if (work <= ARI_SEL_INLINE_WORK) {
        char *text = fn(input, NULL, &err);
        free_input(input);
        if (text) {
            ari_cache_put(r->db, sel->trace_id, cache_name, params, text);
            res = ari_reply_text_json(r, 200, text);
            free(text);
        } else {
            res = ari_reply_from_error(r, &err);
        }
        free(params);
        return res;
    }
    ari_run_spec spec = {sel->trace_id, sel->trace_key, kind, cache_name, params, r->srv->cfg.db_path,
                         fn, input, free_input};
    int64_t id;
    if (ari_runs_submit(&spec, &id, &err) < 0)
        res = ari_reply_from_error(r, &err);
    else
        res = answer_queued(r, id);
    free(params);
    return res;
}
