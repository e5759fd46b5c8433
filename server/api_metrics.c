/* api_metrics.c: the sampled-metrics (pdes) endpoints (docs/api.md):
 *   GET /api/v1/traces/{id}/series?metric=&t0=&t1=&entities=&granularity=&time_domain=&max_points=&format=
 *       the dense entity x time matrix of one metric: little-endian
 *       Float32, row-major (rows = entities, columns = time points) as
 *       application/octet-stream with X-Shape: n,l (default); format=json
 *       adds the values to the axes, format=axes gives the axes alone
 *       (entity ids and names, time values) for a binary answer;
 *   GET /api/v1/traces/{id}/overview?metric=&stat=max|mean|std&time_domain=&granularity=
 *       {time[], value[]}: the statistic over the entities at each time,
 *       kept in the result cache (store/analysis_cache.h).
 * Another kind of trace answers 409 not_pdes; parameters 400. Matrices
 * come from store/metrics_queries.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "metrics_selection.h"
#include "params.h"
#include "reply.h"
#include "store/analysis_cache.h"
#include "store/metrics_queries.h"
#include "util/sbuf.h"

#define MAX_ENTITIES_PARAM 100000

static enum MHD_Result reply_load_error(ari_request *r, int64_t id, int rc, const ari_error *err)
{
    if (rc == 1)
        return ari_reply_error(r, 404, "not_found", "no trace %lld", (long long)id);
    if (rc == 2)
        return ari_reply_error(r, 409, "not_pdes", "%s", err->message);
    return ari_reply_from_error(r, err);
}

/* t0 / t1: numbers in the time domain, NaN when absent. */
static int read_range(ari_request *r, double *t0, double *t1)
{
    const char *names[2] = {"t0", "t1"};
    double *outs[2] = {t0, t1};
    for (int i = 0; i < 2; i++) {
        const char *s = ari_param(r, names[i]);
        *outs[i] = NAN;
        if (s && *s && ari_parse_number(s, outs[i]) < 0) {
            char shown[ARI_PRINTABLE_SIZE];
            ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in the time domain, got '%s'", names[i],
                            ari_printable(s, shown));
            return -1;
        }
    }
    if (!isnan(*t0) && !isnan(*t1) && *t1 < *t0) {
        ari_reply_error(r, 400, "invalid_parameter", "t1 must not be before t0");
        return -1;
    }
    return 0;
}

static int read_domain(ari_request *r, const ari_mt_info *info, int *domain)
{
    const char *s = ari_param(r, "time_domain");
    *domain = -1;
    if (!s || !*s)
        return 0;
    if ((*domain = ari_mt_info_domain(info, s)) >= 0)
        return 0;
    char list[128] = "", shown[ARI_PRINTABLE_SIZE];
    size_t used = 0;
    for (int d = 0; d < ARI_MT_NDOMAINS && used < sizeof list; d++)
        if (info->times[d])
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", ari_mt_domain_names[d]);
    ari_reply_error(r, 400, "invalid_parameter", "time_domain must be one of %s (the domains trace %lld has), got '%s'",
                    list, (long long)info->trace_id, ari_printable(s, shown));
    return -1;
}

static int read_metric(ari_request *r, const char **metric)
{
    *metric = ari_param(r, "metric");
    if (*metric && **metric)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "metric is required, e.g. metric=RbTotal (see the trace's summary.metrics)");
    return -1;
}

static int read_entities(ari_request *r, int64_t **ids, size_t *n)
{
    const char *s = ari_param(r, "entities");
    *ids = NULL;
    *n = 0;
    if (!s || !*s)
        return 0;
    ari_list_status st = ari_parse_int_list(s, 0, INT32_MAX, MAX_ENTITIES_PARAM, ids, n);
    if (st == ARI_LIST_OK)
        return 0;
    char shown[ARI_PRINTABLE_SIZE];
    if (st == ARI_LIST_NOMEM)
        ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    else
        ari_reply_error(r, 400, "invalid_parameter", "entities must list at most %d entity ids (integers >= 0), got '%s'",
                        MAX_ENTITIES_PARAM, ari_printable(s, shown));
    return -1;
}

/* The matrix of one metric for the request's parameters; a reply when not 0. */
static int load_matrix(ari_request *r, int64_t *id, ari_mt_info *info, ari_mt_matrix *m, size_t max_points)
{
    const char *metric, *level = ari_param(r, "granularity");
    double t0, t1;
    int domain;
    int64_t *ents = NULL;
    size_t nents = 0;
    if (ari_path_id(r, 0, id) < 0 || read_metric(r, &metric) < 0 || read_range(r, &t0, &t1) < 0)
        return -1;
    if (ari_sel_refuse_live(r, *id) < 0)
        return -1;
    ari_error err = {0};
    int rc = ari_mt_info_load(r->db, *id, info, &err);
    if (rc != 0) {
        reply_load_error(r, *id, rc, &err);
        return -1;
    }
    if (read_domain(r, info, &domain) < 0 || read_entities(r, &ents, &nents) < 0) {
        ari_mt_info_free(info);
        return -1;
    }
    const char *metrics[1] = {metric};
    ari_mt_request req = {metrics, 1, domain, t0, t1, level && *level ? level : NULL, ents, nents, max_points};
    rc = ari_mt_matrix_load(r->db, info, &req, m, &err);
    free(ents);
    if (rc != 0) {
        ari_mt_info_free(info);
        ari_reply_from_error(r, &err);
        return -1;
    }
    return 0;
}

/* max_points=N (1..100000): at most N time columns (ari_mt_matrix_downsample). */
static int read_max_points(ari_request *r, size_t *max_points)
{
    int64_t v;
    *max_points = 0;
    if (ari_param_int(r, "max_points", 0, 1, 100000, &v) < 0)
        return -1;
    *max_points = (size_t)v;
    return 0;
}

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* {trace_id, metric, granularity, time_domain, shape, entities, time[, values]} */
static json_t *series_json(const ari_mt_info *info, const ari_mt_matrix *m, const char *metric, int with_values)
{
    json_t *doc = json_object(), *ents = json_array(), *time = json_array(), *vals = with_values ? json_array() : NULL;
    if (!doc || !ents || !time || (with_values && !vals)) {
        json_decref(doc);
        json_decref(ents);
        json_decref(time);
        json_decref(vals);
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        json_array_append_new(ents, json_pack("{s:I,s:s}", "id", (json_int_t)m->entity_ids[i], "name",
                                              info->entities[m->entity_ids[i]].name));
    for (size_t j = 0; j < m->l; j++)
        json_array_append_new(time, json_real(m->time[j]));
    for (size_t i = 0; vals && i < m->n; i++) {
        json_t *row = json_array();
        for (size_t j = 0; row && j < m->l; j++)
            json_array_append_new(row, real_or_null(m->values[i * m->l + j]));
        json_array_append_new(vals, row);
    }
    json_object_set_new(doc, "trace_id", json_integer(info->trace_id));
    json_object_set_new(doc, "metric", json_string(metric));
    json_object_set_new(doc, "granularity", json_string(m->level));
    json_object_set_new(doc, "aggregation", json_string(strcmp(m->level, info->data_level) == 0 ? "none" : "mean"));
    json_object_set_new(doc, "time_domain", json_string(ari_mt_domain_names[m->domain]));
    json_object_set_new(doc, "shape", json_pack("[I,I]", (json_int_t)m->n, (json_int_t)m->l));
    json_object_set_new(doc, "entities", ents);
    json_object_set_new(doc, "time", time);
    if (vals)
        json_object_set_new(doc, "values", vals);
    return doc;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* values as little-endian Float32 into buf (cells x 4 bytes). */
static void to_float32_le(const double *values, size_t cells, unsigned char *buf)
{
    if (host_is_little_endian()) { /* a plain conversion loop the compiler vectorises */
        float *out = (float *)(void *)buf;
        for (size_t i = 0; i < cells; i++)
            out[i] = (float)values[i];
        return;
    }
    for (size_t i = 0; i < cells; i++) {
        float f = (float)values[i];
        uint32_t u;
        memcpy(&u, &f, 4);
        buf[4 * i] = (unsigned char)u;
        buf[4 * i + 1] = (unsigned char)(u >> 8);
        buf[4 * i + 2] = (unsigned char)(u >> 16);
        buf[4 * i + 3] = (unsigned char)(u >> 24);
    }
}

/* Little-endian Float32, row-major; NaN stays NaN. */
static enum MHD_Result reply_binary(ari_request *r, const ari_mt_matrix *m)
{
    size_t cells = m->n * m->l;
    unsigned char *buf = malloc(cells ? cells * 4 : 1); /* malloc's alignment suits floats */
    if (!buf)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    to_float32_le(m->values, cells, buf);
    char shape[64], range[96];
    snprintf(shape, sizeof shape, "%zu,%zu", m->n, m->l);
    if (m->l)
        snprintf(range, sizeof range, "%.17g,%.17g", m->time[0], m->time[m->l - 1]);
    else
        range[0] = '\0';
    ari_reply_header(r, "X-Shape", shape);
    ari_reply_header(r, "X-Time-Domain", ari_mt_domain_names[m->domain]);
    ari_reply_header(r, "X-Granularity", m->level);
    ari_reply_header(r, "X-Time-Range", range);
    struct MHD_Response *resp = MHD_create_response_from_buffer(cells * 4, buf, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(buf);
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    }
    MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
    return ari_queue(r, 200, resp);
}

enum MHD_Result api_metrics_series(ari_request *r)
{
    static const char *const formats[] = {"binary", "json", "axes", NULL};
    const char *format;
    size_t max_points;
    if (ari_param_choice(r, "format", formats, &format) < 0 || read_max_points(r, &max_points) < 0)
        return MHD_YES;
    int64_t id;
    ari_mt_info info;
    ari_mt_matrix m;
    if (load_matrix(r, &id, &info, &m, max_points) < 0)
        return MHD_YES;
    enum MHD_Result res;
    if (!format || strcmp(format, "binary") == 0)
        res = reply_binary(r, &m);
    else
        res = ari_reply_doc(r, series_json(&info, &m, ari_param(r, "metric"), strcmp(format, "json") == 0), 17);
    ari_mt_matrix_free(&m);
    ari_mt_info_free(&info);
    return res;
}

/* The overview's key in the result cache (store/analysis_cache.h): the
 * parameters as sent; NULL when out of memory or when CSV is asked (the
 * CSV layer converts the document, not cached text). */
static char *overview_key(ari_request *r)
{
    static const char *const names[] = {"metric", "stat", "time_domain", "granularity", "entities", "t0", "t1"};
    const char *format = ari_param(r, "format");
    if (format && *format)
        return NULL;
    ari_sbuf b = {0};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *v = ari_param(r, names[k]);
        ari_sbuf_printf(&b, "%s%s=", k ? "&" : "", names[k]);
        ari_sbuf_add_str(&b, v ? v : "");
    }
    return ari_sbuf_take(&b);
}

static enum MHD_Result overview_compute(ari_request *r, const char *stat, const char *key);

/* The whole matrix is read once per (metric, statistic, range, level):
 * the answer is kept in the result cache, so the view's later requests
 * (16,384 entities x 1,000 samples: about 1 s to compute) answer at once. */
enum MHD_Result api_metrics_overview(ari_request *r)
{
    static const char *const stats[] = {"max", "mean", "std", NULL};
    const char *stat;
    int64_t id;
    if (ari_param_choice(r, "stat", stats, &stat) < 0 || ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    char *key = overview_key(r), *cached = NULL;
    ari_error err = {0};
    if (key && ari_cache_get(r->db, id, "metrics_overview", key, &cached, &err) == 0) {
        enum MHD_Result res = ari_reply_text_json(r, 200, cached);
        free(cached);
        free(key);
        return res;
    }
    enum MHD_Result res = overview_compute(r, stat, key);
    free(key);
    return res;
}

/* The answer as a document, or as text stored under key when there is one. */
static enum MHD_Result reply_and_keep(ari_request *r, int64_t id, json_t *doc, const char *key)
{
    if (!doc || !key)
        return ari_reply_doc(r, doc, 17);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!text)
        return ari_reply_error(r, 500, ARI_E_NOMEM, "out of memory");
    ari_cache_put(r->db, id, "metrics_overview", key, text);
    enum MHD_Result res = ari_reply_text_json(r, 200, text);
    free(text);
    return res;
}

static enum MHD_Result overview_compute(ari_request *r, const char *stat, const char *key)
{
    int64_t id;
    ari_mt_info info;
    ari_mt_matrix m;
    if (load_matrix(r, &id, &info, &m, 0) < 0)
        return MHD_YES;
    ari_mt_stat st = !stat || strcmp(stat, "max") == 0 ? ARI_MT_STAT_MAX
                     : strcmp(stat, "mean") == 0      ? ARI_MT_STAT_MEAN : ARI_MT_STAT_STD;
    double *out = malloc((m.l ? m.l : 1) * sizeof *out);
    json_t *doc = out ? json_object() : NULL, *time = json_array(), *value = json_array();
    if (doc && time && value) {
        ari_mt_overview(&m, 0, st, out);
        for (size_t j = 0; j < m.l; j++) {
            json_array_append_new(time, json_real(m.time[j]));
            json_array_append_new(value, real_or_null(out[j]));
        }
        json_object_set_new(doc, "trace_id", json_integer(id));
        json_object_set_new(doc, "metric", json_string(ari_param(r, "metric")));
        json_object_set_new(doc, "stat", json_string(stat ? stat : "max"));
        json_object_set_new(doc, "granularity", json_string(m.level));
        json_object_set_new(doc, "entities", json_integer((json_int_t)m.n));
        json_object_set_new(doc, "time_domain", json_string(ari_mt_domain_names[m.domain]));
        json_object_set_new(doc, "time", time);
        json_object_set_new(doc, "value", value);
        time = value = NULL;
    } else {
        json_decref(doc);
        doc = NULL;
    }
    json_decref(time);
    json_decref(value);
    free(out);
    ari_mt_matrix_free(&m);
    ari_mt_info_free(&info);
    return reply_and_keep(r, id, doc, key);
}
