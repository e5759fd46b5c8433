/* api_profiles.c: the call-graph profile endpoints of a trace of kind
 * "profile": the calling context tree with per-node statistics (/cct),
 * the per-process values of one node with a histogram (/nodes/{node}/
 * ranks), the correlation of two metrics over processes (/scatter) and
 * Hatchet's text tree (/tree). The documents are built by
 * store/profile_queries.c; this file reads parameters and maps errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "params.h"
#include "reply.h"
#include "store/profile_queries.h"

/* Maps a query's return code: 1 absent (404), 2 not a profile (409). */
static enum MHD_Result reply_query(ari_request *r, int rc, char *json, const ari_error *err)
{
    if (rc == 0) {
        enum MHD_Result res = ari_reply_text_json(r, 200, json);
        free(json);
        return res;
    }
    if (rc == 2)
        return ari_reply_error(r, 409, ARI_E_NOT_A_PROFILE, "%s", err->message);
    return ari_reply_from_error(r, err);
}

/* An optional number in [min, max]; 400 otherwise. */
static int param_double(ari_request *r, const char *name, double def, double min, double max, double *out)
{
    const char *v = ari_param(r, name);
    *out = def;
    if (!v)
        return 0;
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x) || x < min || x > max) {
        ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in [%g, %g]", name, min, max);
        return -1;
    }
    *out = x;
    return 0;
}

enum MHD_Result api_profiles_cct(ari_request *r)
{
    int64_t id, depth;
    double filter;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "depth", -1, -1, 1 << 30, &depth) < 0 ||
        param_double(r, "filter", 0, 0, 1, &filter) < 0)
        return MHD_YES;
    char *json = NULL;
    ari_error err = {0};
    int rc = ari_profile_cct_json(r->db, id, ari_param(r, "metric"), (int)depth, filter, &json, &err);
    return reply_query(r, rc, json, &err);
}

enum MHD_Result api_profiles_node_ranks(ari_request *r)
{
    int64_t id, bins;
    char *end;
    const char *node_text = r->params[1];
    long long node = strtoll(node_text, &end, 10);
    if (ari_path_id(r, 0, &id) < 0)
        return MHD_YES;
    if (!*node_text || *end || node < 0)
        return ari_reply_error(r, 400, "invalid_parameter", "node must be a node id (0, 1, ...)");
    if (ari_param_int(r, "bins", 20, 1, 1000, &bins) < 0)
        return MHD_YES;
    char *json = NULL;
    ari_error err = {0};
    int rc = ari_profile_node_ranks_json(r->db, id, node, ari_param(r, "metric"), (int)bins, &json, &err);
    return reply_query(r, rc, json, &err);
}

enum MHD_Result api_profiles_scatter(ari_request *r)
{
    int64_t id, node;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "node", -1, -1, INT64_MAX, &node) < 0)
        return MHD_YES;
    const char *x = ari_param(r, "x"), *y = ari_param(r, "y");
    if (!x || !*x || !y || !*y)
        return ari_reply_error(r, 400, "invalid_parameter", "x and y (metric names) are required");
    char *json = NULL;
    ari_error err = {0};
    int rc = ari_profile_scatter_json(r->db, id, node, x, y, &json, &err);
    return reply_query(r, rc, json, &err);
}

static const char *const tree_formats[] = {"text", "json", NULL};

enum MHD_Result api_profiles_tree(ari_request *r)
{
    int64_t id, precision, rank, thread;
    const char *format;
    if (ari_path_id(r, 0, &id) < 0 || ari_param_int(r, "precision", 3, 0, 17, &precision) < 0 ||
        ari_param_int(r, "rank", 0, 0, INT64_MAX, &rank) < 0 ||
        ari_param_int(r, "thread", 0, 0, INT64_MAX, &thread) < 0 ||
        ari_param_choice(r, "format", tree_formats, &format) < 0)
        return MHD_YES;
    char *text = NULL;
    ari_error err = {0};
    int rc = ari_profile_tree_text(r->db, id, ari_param(r, "metric"), (int)precision, rank, thread, &text, &err);
    if (rc != 0)
        return reply_query(r, rc, NULL, &err);
    if (format && strcmp(format, "json") == 0) {
        json_t *doc = json_pack("{s:I, s:s?, s:I, s:I, s:I, s:s}", "trace_id", (json_int_t)id,
                                "metric", ari_param(r, "metric"), "precision", (json_int_t)precision,
                                "rank", (json_int_t)rank, "thread", (json_int_t)thread, "text", text);
        free(text);
        return ari_reply_json(r, 200, doc);
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return ari_reply_error(r, 500, "internal", "out of memory");
    }
    MHD_add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return ari_queue(r, 200, resp);
}
