/* supergraph_params.c: the super graph's request parameters (metric,
 * group_by, map, filter, filter_by, collapse, bins, split, split_by,
 * ranks, detail), shared by the single-run super graph
 * (api_supergraph.c) and the ensemble super graph
 * (api_ensemble_supergraph.c). Moved here unchanged from api_supergraph.c. */
#include "supergraph_params.h"

#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "reply.h"

void sg_request_free(sg_request *q)
{
    for (int i = 0; i < q->nsplits; i++)
        free(q->split_ids[i]);
}

const char *sg_split_by_name(ari_split_by by)
{
    return by == ARI_SPLIT_CALLER ? "caller" : by == ARI_SPLIT_CALLSITE ? "callsite" : "entry";
}

/* ---- parameters ---------------------------------------------------------------------- */

static int add_split(ari_request *r, sg_request *q, const char *id, size_t len, ari_split_by by)
{
    if (len == 0) {
        ari_reply_error(r, 400, "invalid_parameter", "split: empty supernode id");
        return -1;
    }
    if (q->nsplits == MAX_SPLITS) {
        ari_reply_error(r, 400, "invalid_parameter", "split: at most %d operations", MAX_SPLITS);
        return -1;
    }
    char *copy = strndup(id, len);
    if (!copy) {
        ari_reply_error(r, 500, "out_of_memory", "out of memory");
        return -1;
    }
    q->split_ids[q->nsplits] = copy;
    q->splits[q->nsplits] = (ari_sg_split){copy, by};
    q->nsplits++;
    return 0;
}

/* split= is a JSON array of ids or {"id", "by"} objects, or a comma
 * separated list of ids; split_by= is the default operation. */
static int parse_splits(ari_request *r, sg_request *q)
{
    const char *text = ari_param(r, "split");
    const char *by_text = ari_param(r, "split_by");
    ari_split_by by = ARI_SPLIT_ENTRY;
    if (by_text && ari_split_by_parse(by_text, &by) < 0) {
        ari_reply_error(r, 400, "invalid_parameter", "split_by must be entry, caller or callsite");
        return -1;
    }
    if (!text || !*text)
        return 0;
    if (text[0] != '[') {
        for (const char *s = text;;) {
            size_t len = strcspn(s, ",");
            if (add_split(r, q, s, len, by) < 0)
                return -1;
            if (!s[len])
                return 0;
            s += len + 1;
        }
    }
    json_error_t jerr;
    json_t *arr = json_loads(text, 0, &jerr);
    if (!json_is_array(arr)) {
        json_decref(arr);
        ari_reply_error(r, 400, "invalid_parameter", "split: not a JSON array (%s)", jerr.text);
        return -1;
    }
    size_t i;
    json_t *item;
    int rc = 0;
    json_array_foreach(arr, i, item) {
        ari_split_by item_by = by;
        json_t *id = item;
        if (json_is_object(item)) {
            id = json_object_get(item, "id");
            json_t *b = json_object_get(item, "by");
            if (b && (!json_is_string(b) || ari_split_by_parse(json_string_value(b), &item_by) < 0)) {
                ari_reply_error(r, 400, "invalid_parameter", "split[%zu].by must be entry, caller or callsite", i);
                rc = -1;
                break;
            }
        }
        if (!json_is_string(id)) {
            ari_reply_error(r, 400, "invalid_parameter", "split[%zu] must be an id or {\"id\", \"by\"}", i);
            rc = -1;
            break;
        }
        if ((rc = add_split(r, q, json_string_value(id), strlen(json_string_value(id)), item_by)) < 0)
            break;
    }
    json_decref(arr);
    return rc;
}

/* A number parameter (params.h) in [lo, hi]; this endpoint's own 400
 * wording. def when absent. */
static int parse_double(ari_request *r, const char *name, double def, double lo, double hi, double *out)
{
    if (ari_param_number_checked(r, name, def, lo, hi, 0, out) == 0)
        return 0;
    ari_reply_error(r, 400, "invalid_parameter", "%s must be a number in [%g, %g]", name, lo, hi);
    return -1;
}

int sg_request_parse(ari_request *r, sg_request *q)
{
    memset(q, 0, sizeof *q);
    static const char *const groups[] = {"module", "name", "file", "map", NULL};
    static const char *const collapses[] = {"mean", "sum", "min", "max", "median", NULL};
    static const char *const filter_by[] = {"inc", "exc", NULL};
    const char *g = NULL, *c = NULL, *fb = NULL;
    int64_t bins;
    if (ari_param_choice(r, "group_by", groups, &g) < 0 ||
        ari_param_choice(r, "collapse", collapses, &c) < 0 ||
        ari_param_choice(r, "filter_by", filter_by, &fb) < 0 ||
        ari_param_int(r, "bins", 20, 1, 200, &bins) < 0 ||
        parse_double(r, "filter", 0.1, 0, 100, &q->filter_percent) < 0)
        return -1;
    q->map_text = ari_param(r, "map");
    if (q->map_text && !*q->map_text)
        q->map_text = NULL;
    q->group_by_name = g ? g : q->map_text ? "map" : "module";
    ari_group_by_parse(q->group_by_name, &q->group_by);
    if (q->group_by == ARI_GROUP_MAP && !q->map_text) {
        ari_reply_error(r, 400, "invalid_parameter",
                        "group_by=map needs map=<JSON: {\"module\": [\"regex\", ...]}>");
        return -1;
    }
    ari_collapse_parse(c ? c : "mean", &q->collapse);
    q->filter_exclusive = fb && strcmp(fb, "exc") == 0;
    q->bins = (int)bins;
    q->metric = ari_param(r, "metric");
    q->detail = ari_param(r, "detail");
    if (q->detail && !*q->detail)
        q->detail = NULL;
    q->ranks_text = ari_param(r, "ranks");
    if (q->ranks_text && !*q->ranks_text)
        q->ranks_text = NULL;
    return parse_splits(r, q);
}
