/* hatchet_json.c: Hatchet's graph+dataframe JSON and literal formats (see
 * hatchet_json.h), parsed whole with jansson: these files are written by
 * Python from an in-memory GraphFrame, so they fit in memory. The bytes
 * come through ari_input (plain, .gz, .zst; decode cap). */
#include "ingest/hatchet_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"

typedef struct hj {
    const ari_profile_sink *k;
    ari_error *err;
    const char *name;
    int64_t next_id;
} hj;

/* A rank or thread: absent (0), or a whole number in [0, ARI_PROFILE_MAX_PROCS),
 * checked before the cast (a huge double cast to int64_t is undefined). */
static int whole_index(json_t *v, int64_t *out)
{
    double d = json_is_number(v) ? json_number_value(v) : 0;
    if (!(d >= 0 && d < ARI_PROFILE_MAX_PROCS) || d != floor(d))
        return -1;
    *out = (int64_t)d;
    return 0;
}

static int refused(hj *h, const char *what)
{
    if (h->err && h->err->code[0])
        return -1;
    return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: %s refused", h->name, what);
}

static int ends_with_inc(const char *name)
{
    size_t len = strlen(name);
    return len >= 5 && strcmp(name + len - 5, "(inc)") == 0;
}

static int declare_metric(hj *h, const char *name, int inclusive, int *index)
{
    ari_profile_metric m = {name, name, NULL, inclusive, NULL};
    return h->k->on_metric(h->k->ctx, &m, index) != 0 ? refused(h, "metric") : 0;
}

static const char *kind_of(json_t *type)
{
    const char *t = json_string_value(type);
    return t && *t && strcmp(t, "None") != 0 ? t : "function";
}

static int line_of(json_t *line)
{
    if (json_is_integer(line))
        return (int)json_integer_value(line);
    if (json_is_string(line))
        return atoi(json_string_value(line));
    return 0;
}

/* ---- literal ---- */

static int literal_metrics(hj *h, json_t *metrics, int64_t id)
{
    const char *key;
    json_t *v;
    json_object_foreach(metrics, key, v) {
        int m;
        if (declare_metric(h, key, ends_with_inc(key), &m) < 0)
            return -1;
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t r = 0; r < n; r++) {
            json_t *x = json_is_array(v) ? json_array_get(v, r) : v;
            if (json_is_null(x))
                continue;
            if (!json_is_number(x))
                return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: metric '%s' is not a number", h->name, key);
            int proc;
            if (h->k->on_proc(h->k->ctx, (int64_t)r, 0, &proc) != 0 ||
                h->k->on_value(h->k->ctx, m, id, proc, json_number_value(x)) != 0)
                return refused(h, "value");
        }
    }
    return 0;
}

static int literal_node(hj *h, json_t *node, int64_t parent, int depth)
{
    if (depth > 10000)
        return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: tree too deep", h->name);
    json_t *frame = json_object_get(node, "frame");
    const char *name = json_string_value(json_object_get(frame, "name"));
    if (!json_is_object(node) || !name)
        return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: a literal node without frame.name", h->name);
    int64_t id = h->next_id++;
    ari_profile_node n = {id, parent, name, json_string_value(json_object_get(frame, "module")),
                          json_string_value(json_object_get(frame, "file")),
                          line_of(json_object_get(frame, "line")), kind_of(json_object_get(frame, "type"))};
    if (h->k->on_node(h->k->ctx, &n) != 0)
        return refused(h, "node");
    json_t *metrics = json_object_get(node, "metrics");
    if (metrics && !json_is_object(metrics))
        return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: \"metrics\" of %s is not an object", h->name, name);
    if (metrics && literal_metrics(h, metrics, id) < 0)
        return -1;
    json_t *children = json_object_get(node, "children");
    size_t i;
    json_t *child;
    json_array_foreach(children, i, child)
        if (literal_node(h, child, id, depth + 1) < 0)
            return -1;
    return 0;
}

static int read_literal(hj *h, json_t *root)
{
    if (json_array_size(root) == 0)
        return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: an empty list: no tree", h->name);
    size_t i;
    json_t *node;
    json_array_foreach(root, i, node)
        if (literal_node(h, node, -1, 0) < 0)
            return -1;
    return 0;
}

/* ---- graph + dataframe ---- */

static int parse_id(const char *key, int64_t *id)
{
    char *end;
    long long v = strtoll(key, &end, 10);
    if (*end || end == key || v < 0 || v > ARI_PROFILE_MAX_NODE_ID)
        return -1;
    *id = v;
    return 0;
}

static int graph_nodes(hj *h, json_t *graph)
{
    /* parents from the children lists, then the nodes */
    json_t *parents = json_object();
    size_t gi;
    json_t *part;
    const char *key;
    json_t *entry;
    int rc = json_is_array(graph) ? 0 : ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: \"graph\" is not a list", h->name);
    json_array_foreach(graph, gi, part) {
        json_object_foreach(part, key, entry) {
            size_t ci;
            json_t *c;
            json_array_foreach(json_object_get(entry, "children"), ci, c) {
                char cid[32];
                snprintf(cid, sizeof cid, "%lld", (long long)json_integer_value(c));
                json_object_set_new(parents, cid, json_string(key));
            }
        }
    }
    json_array_foreach(graph, gi, part) {
        if (rc < 0)
            break;
        json_object_foreach(part, key, entry) {
            int64_t id, parent = -1;
            json_t *data = json_object_get(entry, "data");
            const char *name = json_string_value(json_object_get(data, "name"));
            const char *p = json_string_value(json_object_get(parents, key));
            if (parse_id(key, &id) < 0 || !name || (p && parse_id(p, &parent) < 0)) {
                rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: bad graph node '%s'", h->name, key);
                break;
            }
            ari_profile_node n = {id, parent, name, json_string_value(json_object_get(data, "module")),
                                  json_string_value(json_object_get(data, "file")),
                                  line_of(json_object_get(data, "line")), kind_of(json_object_get(data, "type"))};
            if (h->k->on_node(h->k->ctx, &n) != 0) {
                rc = refused(h, "node");
                break;
            }
        }
    }
    json_decref(parents);
    return rc;
}

static int is_metric_column(json_t *root, const char *key, json_t *v)
{
    json_t *inc = json_object_get(root, "inclusive_metrics"), *exc = json_object_get(root, "exclusive_metrics");
    if (inc || exc) {
        size_t i;
        json_t *m;
        json_array_foreach(inc, i, m) if (json_string_value(m) && strcmp(json_string_value(m), key) == 0) return 1;
        json_array_foreach(exc, i, m) if (json_string_value(m) && strcmp(json_string_value(m), key) == 0) return 1;
        return 0;
    }
    return json_is_number(v) && strcmp(key, "node") != 0 && strcmp(key, "rank") != 0 &&
           strcmp(key, "thread") != 0 && strcmp(key, "nid") != 0 && strcmp(key, "line") != 0;
}

static int is_inclusive(json_t *root, const char *key)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(root, "inclusive_metrics"), i, m)
        if (json_string_value(m) && strcmp(json_string_value(m), key) == 0)
            return 1;
    return ends_with_inc(key);
}

static int dataframe_rows(hj *h, json_t *root)
{
    json_t *df = json_object_get(root, "dataframe");
    if (!json_is_array(df))
        return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: no \"dataframe\" list", h->name);
    size_t i;
    json_t *row;
    json_array_foreach(df, i, row) {
        json_t *node = json_object_get(row, "node");
        if (!json_is_integer(node))
            return ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: dataframe row %zu has no integer \"node\"", h->name, i);
        int64_t rank, thread;
        if (whole_index(json_object_get(row, "rank"), &rank) < 0 || whole_index(json_object_get(row, "thread"), &thread) < 0)
            return ari_error_set(h->err, ARI_E_INVALID_INPUT,
                                 "%s: dataframe row %zu: rank or thread is not a whole number from 0 up", h->name, i);
        int proc;
        if (h->k->on_proc(h->k->ctx, rank, thread, &proc) != 0)
            return refused(h, "process");
        const char *key;
        json_t *v;
        json_object_foreach(row, key, v) {
            if (!is_metric_column(root, key, v) || !json_is_number(v))
                continue;
            int m;
            if (declare_metric(h, key, is_inclusive(root, key), &m) < 0)
                return -1;
            if (h->k->on_value(h->k->ctx, m, json_integer_value(node), proc, json_number_value(v)) != 0)
                return refused(h, "value");
        }
    }
    return 0;
}

static int read_root(hj *h, json_t *root)
{
    if (json_is_array(root))
        return read_literal(h, root);
    if (!json_is_object(root) || !json_object_get(root, "graph"))
        return ari_error_set(h->err, ARI_E_INVALID_INPUT,
                             "%s: not a Hatchet JSON profile (no \"graph\", not a literal list)", h->name);
    if (graph_nodes(h, json_object_get(root, "graph")) < 0 || dataframe_rows(h, root) < 0)
        return -1;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "graph") == 0 || strcmp(key, "dataframe") == 0 || !h->k->on_meta)
            continue;
        char *dump = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc = dump ? h->k->on_meta(h->k->ctx, key, dump) : -1;
        free(dump);
        if (rc != 0)
            return refused(h, "metadata");
    }
    return 0;
}

int ari_hatchet_json_read_mem(const char *data, size_t len, const char *name, const ari_profile_sink *k,
                              ari_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (!root)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%d: %s", name, jerr.line, jerr.text);
    hj h = {k, err, name, 0};
    int rc = read_root(&h, root);
    json_decref(root);
    return rc;
}

int ari_hatchet_json_read(const char *path, const char *name, const ari_profile_sink *k, ari_error *err)
{
    char *data;
    size_t len;
    if (ari_input_load(path, name, &data, &len, err) < 0)
        return -1;
    int rc = ari_hatchet_json_read_mem(data, len, name, k, err);
    free(data);
    if (rc == 0 && k->on_progress)
        k->on_progress(k->ctx, 1.0);
    return rc;
}

int ari_hatchet_json_probe(const char *head, size_t n)
{
    size_t i = 0;
    if (!head || n == 0 || memchr(head, '\0', n))
        return 0;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\t' || head[i] == '\r'))
        i++;
    if (i < n && head[i] == '{')
        return memmem(head, n, "\"graph\"", 7) && memmem(head, n, "\"data\"", 6) ? 1 : 0;
    if (i < n && head[i] == '[')
        return memmem(head, n, "\"frame\"", 7) != NULL ? 2 : 0;
    return 0;
}
