/* cali.c: Caliper's native .cali format (see cali.h). Lines are split into
 * key=value fields with backslash escapes; node records fill a table
 * indexed by node id (attribute declarations are nodes whose attribute is
 * cali.attribute.name); snapshots are expanded through their referenced
 * nodes' ancestor chains into a path and entries, then reported. */
#include "ingest/cali.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/caliper_json.h"
#include "ingest/input.h"
#include "util/free_all.h"
#include "util/strmap.h"
#include "util/vec.h"

#define MAX_NODES ((int64_t)1 << 24)
#define MAX_FIELDS 4096
#define ATTR_NAME 8
#define ATTR_TYPE 9
#define ATTR_PROP 10
#define PROP_ASVALUE 1
#define PROP_HIDDEN 128
#define PROP_NESTED 256

enum ctype { T_USR, T_INT, T_UINT, T_STRING, T_ADDR, T_DOUBLE, T_BOOL, T_TYPE, T_INV };

static const char *const type_names[] = {"usr", "int", "uint", "string", "addr", "double", "bool", "type"};

typedef struct cnode {
    int used;
    int64_t attr;
    int64_t parent;      /* -1 none */
    char *data;
    /* when this node declares an attribute: */
    int is_attr;
    int type;
    int64_t props;
    char *alias, *unit;
    int metric;          /* sink index + 1, 0 not yet */
} cnode;

typedef struct entry {
    int64_t attr;
    const char *value;
} entry;

typedef struct cali {
    const ari_profile_sink *k;
    ari_error *err;
    const char *name;
    uint64_t line;
    cnode *nodes;
    size_t cap; /* slots of nodes, by id */
    int64_t defined;
    ari_strmap *paths;   /* joined path -> reader node id + 1 */
    int64_t next_id;
    ari_strmap *attr_by_name; /* attribute name -> node id + 1 */
    entry *entries;
    size_t nentries, entries_cap;
    const char **path;
    size_t npath, path_cap;
    char *joined;
    size_t joined_cap;
    int64_t snapshots;
} cali;

static int fail(cali *c, const char *what, const char *arg)
{
    return ari_error_set(c->err, ARI_E_INVALID_INPUT, "%s:%llu: %s%s", c->name,
                         (unsigned long long)c->line, what, arg ? arg : "");
}

/* An MPI rank: a whole number in [0, ARI_PROFILE_MAX_PROCS). */
static int parse_rank(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < 0 || v >= ARI_PROFILE_MAX_PROCS)
        return -1;
    *out = v;
    return 0;
}

static int refused(cali *c)
{
    if (c->err && c->err->code[0])
        return -1;
    return fail(c, "the profile was refused", NULL);
}

/* ---- node table ---- */

/* Caliper numbers nodes densely: an id far beyond those defined so far is
 * refused rather than allowed to allocate a huge table. */
static cnode *node_at(cali *c, int64_t id)
{
    if (id < 0 || id >= MAX_NODES || id > 16 * c->defined + 65536)
        return NULL;
    if (ari_vec_reserve_zeroed((void **)&c->nodes, &c->cap, (size_t)id + 1, sizeof *c->nodes) < 0)
        return NULL;
    return &c->nodes[id];
}

static int set_node(cali *c, int64_t id, int64_t attr, int64_t parent, const char *data)
{
    cnode *n = node_at(c, id);
    if (!n)
        return id < 0 || id >= MAX_NODES || id > 16 * c->defined + 65536
                   ? fail(c, "node id out of range (Caliper node ids are dense)", NULL)
                   : ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
    if (n->used)
        return fail(c, "node defined twice", NULL);
    n->used = 1;
    c->defined++;
    n->attr = attr;
    n->parent = parent;
    n->data = strdup(data);
    n->type = T_INV;
    return n->data ? 0 : ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
}

static const cnode *get(const cali *c, int64_t id)
{
    return id >= 0 && (size_t)id < c->cap && c->nodes[id].used ? &c->nodes[id] : NULL;
}

static int bootstrap(cali *c)
{
    for (int t = 0; t <= T_TYPE; t++)
        if (set_node(c, t, ATTR_TYPE, -1, type_names[t]) < 0)
            return -1;
    static const struct { int id; const char *name; int type; } meta[] = {
        {ATTR_NAME, "cali.attribute.name", T_STRING},
        {ATTR_TYPE, "cali.attribute.type", T_TYPE},
        {ATTR_PROP, "cali.attribute.prop", T_INT},
    };
    for (int i = 0; i < 3; i++) {
        if (set_node(c, meta[i].id, ATTR_NAME, meta[i].type, meta[i].name) < 0)
            return -1;
        c->nodes[meta[i].id].is_attr = 1;
        c->nodes[meta[i].id].type = meta[i].type;
        c->nodes[meta[i].id].props = 12;
    }
    return 0;
}

static const char *attr_name(const cali *c, int64_t attr)
{
    const cnode *a = get(c, attr);
    return a && a->is_attr ? a->data : NULL;
}

/* A node named by cali.attribute.name declares an attribute: its type,
 * properties, alias and unit come from its ancestors. */
static int declare_attribute(cali *c, int64_t id)
{
    cnode *n = &c->nodes[id];
    n->is_attr = 1;
    n->type = T_INV;
    int guard = 0;
    for (int64_t p = n->parent; p >= 0 && guard < 10000; guard++) {
        const cnode *a = get(c, p);
        if (!a)
            return fail(c, "attribute with an unknown parent node", NULL);
        if (a->attr == ATTR_TYPE) {
            if (n->type == T_INV)
                for (int t = 0; t <= T_TYPE; t++)
                    if (strcmp(a->data, type_names[t]) == 0)
                        n->type = t;
        } else if (a->attr == ATTR_PROP) {
            n->props = strtoll(a->data, NULL, 10);
        } else {
            const char *meta = attr_name(c, a->attr);
            if (meta && strcmp(meta, "attribute.alias") == 0 && !n->alias)
                n->alias = strdup(a->data);
            else if (meta && strcmp(meta, "attribute.unit") == 0 && !n->unit)
                n->unit = strdup(a->data);
        }
        p = a->parent;
    }
    if (guard >= 10000)
        return fail(c, "a cycle among nodes", NULL);
    if (!ari_strmap_put(c->attr_by_name, n->data, strlen(n->data), (void *)(intptr_t)(id + 1)))
        return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
    return 0;
}

/* ---- fields ---- */

/* Splits s in place at unescaped sep, removing escapes; returns the count. */
static size_t split_escaped(char *s, char sep, char **out, size_t max)
{
    size_t n = 0;
    char *w = s;
    out[n++] = w;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && r[1]) {
            *w++ = *++r;
        } else if (*r == sep) {
            *w++ = '\0';
            if (n == max)
                return max + 1;
            out[n++] = w;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return n;
}

/* Splits a record into key/value fields at unescaped ','. Escapes are
 * kept in values (they are split again at '='). */
static size_t split_fields(char *line, char **keys, char **vals, size_t max)
{
    size_t n = 0;
    char *start = line;
    for (char *p = line;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p != ',' && *p != '\0')
            continue;
        int end = *p == '\0';
        *p = '\0';
        char *eq = strchr(start, '=');
        if (n == max)
            return max + 1;
        keys[n] = start;
        vals[n] = eq ? (*eq = '\0', eq + 1) : NULL;
        n++;
        if (end)
            break;
        start = p + 1;
    }
    return n;
}

static int parse_id(const char *s, int64_t *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    long long v = strtoll(s, &end, 10);
    if (*end || v < 0 || v >= MAX_NODES)
        return -1;
    *out = v;
    return 0;
}

static const char *field(char **keys, char **vals, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0) /* no '=': an empty, writable value */
            return vals[i] ? vals[i] : keys[i] + strlen(keys[i]);
    return NULL;
}

/* ---- records ---- */

static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && r[1])
            r++;
        *w++ = *r;
    }
    *w = '\0';
}

static int node_record(cali *c, char **keys, char **vals, size_t n)
{
    int64_t id, attr, parent = -1;
    const char *p = field(keys, vals, n, "parent");
    char *data = (char *)field(keys, vals, n, "data");
    if (parse_id(field(keys, vals, n, "id"), &id) < 0 || parse_id(field(keys, vals, n, "attr"), &attr) < 0 ||
        !data || (p && parse_id(p, &parent) < 0))
        return fail(c, "a node record needs id, attr and data", NULL);
    if (id <= ATTR_PROP)
        return fail(c, "node ids 0-10 are Caliper's bootstrap nodes", NULL);
    if (!get(c, attr) || (parent >= 0 && !get(c, parent)))
        return fail(c, "a node refers to an undefined node", NULL);
    unescape(data);
    if (set_node(c, id, attr, parent, data) < 0)
        return -1;
    if (attr == ATTR_NAME)
        return declare_attribute(c, id);
    if (!attr_name(c, attr))
        return fail(c, "a node's attr is not an attribute", NULL);
    return 0;
}

static int push_entry(cali *c, int64_t attr, const char *value)
{
    if (ari_vec_reserve((void **)&c->entries, &c->entries_cap, c->nentries + 1, sizeof *c->entries) < 0)
        return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
    c->entries[c->nentries++] = (entry){attr, value};
    return 0;
}

static int push_path(cali *c, const char *label)
{
    if (ari_vec_reserve((void **)&c->path, &c->path_cap, c->npath + 1, sizeof *c->path) < 0)
        return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
    c->path[c->npath++] = label;
    return 0;
}

/* Expands the referenced nodes: nested values into the path (root first),
 * the others into entries. */
static int expand_refs(cali *c, char *refs)
{
    char *ids[MAX_FIELDS];
    size_t n = split_escaped(refs, '=', ids, MAX_FIELDS);
    if (n > MAX_FIELDS)
        return fail(c, "too many references", NULL);
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        if (parse_id(ids[i], &id) < 0 || !get(c, id))
            return fail(c, "a reference to an undefined node: ", ids[i]);
        size_t start = c->npath;
        int guard = 0;
        for (const cnode *nd = get(c, id); nd && guard < 100000; nd = get(c, nd->parent), guard++) {
            const cnode *a = get(c, nd->attr);
            if (a && (a->props & PROP_NESTED)) {
                if (push_path(c, nd->data) < 0)
                    return -1;
            } else if (push_entry(c, nd->attr, nd->data) < 0) {
                return -1;
            }
            if (nd->parent < 0)
                break;
        }
        if (guard >= 100000)
            return fail(c, "a cycle among nodes", NULL);
        for (size_t a = start, b = c->npath; a + 1 < b; a++, b--) { /* root first */
            const char *t = c->path[a];
            c->path[a] = c->path[b - 1];
            c->path[b - 1] = t;
        }
    }
    return 0;
}

static int expand_immediates(cali *c, char *attrs, char *data)
{
    if (!attrs && !data)
        return 0;
    if (!attrs || !data)
        return fail(c, "attr without data (or data without attr)", NULL);
    char *a[MAX_FIELDS], *d[MAX_FIELDS];
    size_t na = split_escaped(attrs, '=', a, MAX_FIELDS), nd = split_escaped(data, '=', d, MAX_FIELDS);
    if (na > MAX_FIELDS || na != nd)
        return fail(c, "attr and data lists differ in length", NULL);
    for (size_t i = 0; i < na; i++) {
        int64_t id;
        if (parse_id(a[i], &id) < 0 || !attr_name(c, id))
            return fail(c, "an immediate of an undefined attribute: ", a[i]);
        if (push_entry(c, id, d[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *entry_value(const cali *c, const char *name)
{
    for (size_t i = 0; i < c->nentries; i++) {
        const char *n = attr_name(c, c->entries[i].attr);
        if (n && strcmp(n, name) == 0)
            return c->entries[i].value;
    }
    return NULL;
}

static int is_numeric(int type)
{
    return type == T_INT || type == T_UINT || type == T_DOUBLE || type == T_ADDR;
}

static int globals_record(cali *c)
{
    for (size_t i = 0; i < c->nentries; i++) {
        const cnode *a = get(c, c->entries[i].attr);
        if (!a || !c->k->on_meta)
            continue;
        char *end;
        const char *v = c->entries[i].value;
        double x = strtod(v, &end);
        char buf[4096];
        if (is_numeric(a->type) && *v && !*end && isfinite(x)) {
            snprintf(buf, sizeof buf, "%s", v);
        } else { /* a JSON string */
            size_t o = 0;
            buf[o++] = '"';
            for (const unsigned char *p = (const unsigned char *)v; *p && o < sizeof buf - 8; p++) {
                if (*p == '"' || *p == '\\') {
                    buf[o++] = '\\';
                    buf[o++] = (char)*p;
                } else if (*p < 0x20) {
                    o += (size_t)snprintf(buf + o, sizeof buf - o, "\\u%04x", *p);
                } else {
                    buf[o++] = (char)*p;
                }
            }
            buf[o++] = '"';
            buf[o] = '\0';
        }
        if (c->k->on_meta(c->k->ctx, a->data, buf) != 0)
            return refused(c);
    }
    return 0;
}

/* The reader id of a path prefix of length len, declaring it if new. */
static int path_node(cali *c, size_t len, const char *kind, int64_t *id)
{
    size_t need = 1;
    for (size_t i = 0; i < len; i++)
        need += strlen(c->path[i]) + 1;
    if (need > c->joined_cap) {
        char *grown = realloc(c->joined, need);
        if (!grown)
            return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
        c->joined = grown;
        c->joined_cap = need;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        size_t l = strlen(c->path[i]);
        memcpy(c->joined + o, c->path[i], l);
        o += l;
        c->joined[o++] = '\x1f';
    }
    void *known = ari_strmap_get(c->paths, c->joined, o);
    if (known) {
        *id = (int64_t)(intptr_t)known - 1;
        return 0;
    }
    int64_t parent = -1;
    if (len > 1 && path_node(c, len - 1, "function", &parent) < 0)
        return -1;
    ari_profile_node n = {c->next_id, parent, c->path[len - 1], NULL, NULL, 0, kind};
    if (c->k->on_node(c->k->ctx, &n) != 0)
        return refused(c);
    /* rebuild the key: the recursive call reused the buffer */
    o = 0;
    for (size_t i = 0; i < len; i++) {
        size_t l = strlen(c->path[i]);
        memcpy(c->joined + o, c->path[i], l);
        o += l;
        c->joined[o++] = '\x1f';
    }
    if (!ari_strmap_put(c->paths, c->joined, o, (void *)(intptr_t)(c->next_id + 1)))
        return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
    *id = c->next_id++;
    return 0;
}

static int metric_of(cali *c, int64_t attr, int *index)
{
    cnode *a = &c->nodes[attr];
    if (a->metric) {
        *index = a->metric - 1;
        return 0;
    }
    int inclusive;
    const char *name = ari_caliper_metric_name(a->data, &inclusive);
    if (a->alias && name == a->data)
        name = a->alias;
    ari_profile_metric m = {name, a->data, a->unit, inclusive, NULL};
    if (c->k->on_metric(c->k->ctx, &m, index) != 0)
        return refused(c);
    a->metric = *index + 1;
    return 0;
}

static int is_metric_attr(const cali *c, int64_t attr)
{
    const cnode *a = get(c, attr);
    if (!a || !is_numeric(a->type) || !(a->props & PROP_ASVALUE) || (a->props & PROP_HIDDEN))
        return 0;
    return strcmp(a->data, "mpi.rank") != 0 && strcmp(a->data, "min#min#aggregate.slot") != 0 &&
           !(a->alias && strcmp(a->alias, "Node order") == 0);
}

static int snapshot(cali *c)
{
    if (c->npath == 0)
        return 0; /* not part of the tree */
    if (c->npath > 4096)
        return fail(c, "a region path deeper than 4096", NULL);
    const char *channel = entry_value(c, "spot.channel");
    if (channel && strcmp(channel, "regionprofile") != 0)
        return 0;
    const char *kind = "function", *extra = NULL;
    const char *activity = entry_value(c, "cupti.activity.kind");
    if (activity && strcmp(activity, "kernel") == 0) {
        extra = entry_value(c, "cupti.kernel.name");
        kind = "kernel";
    } else if (activity && strcmp(activity, "memcpy") == 0) {
        extra = "memcpy";
        kind = "memcpy";
    } else if (entry_value(c, "module#cali.sampler.pc")) {
        const char *fn = entry_value(c, "source.function#cali.sampler.pc");
        if (fn)
            c->path[c->npath - 1] = fn;
    }
    if (extra && push_path(c, extra) < 0)
        return -1;
    int64_t node = -1;
    if (path_node(c, c->npath, kind, &node) < 0)
        return -1;
    const char *rank = entry_value(c, "mpi.rank");
    int64_t r = 0;
    if (rank && parse_rank(rank, &r) < 0)
        return fail(c, "bad mpi.rank (a whole number from 0 up is expected): ", rank);
    int proc;
    if (c->k->on_proc(c->k->ctx, r, 0, &proc) != 0)
        return refused(c);
    for (size_t i = 0; i < c->nentries; i++) {
        if (!is_metric_attr(c, c->entries[i].attr))
            continue;
        char *end;
        double v = strtod(c->entries[i].value, &end);
        if (end == c->entries[i].value || *end)
            return fail(c, "not a number: ", c->entries[i].value);
        int m;
        if (metric_of(c, c->entries[i].attr, &m) < 0 || c->k->on_value(c->k->ctx, m, node, proc, v) != 0)
            return refused(c);
    }
    c->snapshots++;
    return 0;
}

static int parse_line(cali *c, char *line)
{
    if (!*line)
        return 0;
    char *keys[MAX_FIELDS], *vals[MAX_FIELDS];
    size_t n = split_fields(line, keys, vals, MAX_FIELDS);
    if (n > MAX_FIELDS || n == 0 || strcmp(keys[0], "__rec") != 0 || !vals[0])
        return fail(c, "not a Caliper record (expected __rec=...)", NULL);
    const char *rec = vals[0];
    if (strcmp(rec, "node") == 0)
        return node_record(c, keys, vals, n);
    if (strcmp(rec, "ctx") != 0 && strcmp(rec, "globals") != 0)
        return 0; /* other record kinds carry nothing for a profile */
    c->nentries = 0;
    c->npath = 0;
    char *ref = (char *)field(keys, vals, n, "ref");
    if (ref && expand_refs(c, ref) < 0)
        return -1;
    if (expand_immediates(c, (char *)field(keys, vals, n, "attr"), (char *)field(keys, vals, n, "data")) < 0)
        return -1;
    return strcmp(rec, "globals") == 0 ? globals_record(c) : snapshot(c);
}

static void cali_free(cali *c)
{
    for (size_t i = 0; i < c->cap; i++) {
        void *owned[] = {c->nodes[i].data, c->nodes[i].alias, c->nodes[i].unit};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(c->nodes);
    ari_strmap_free(c->paths);
    ari_strmap_free(c->attr_by_name);
    void *owned[] = {c->entries, c->path, c->joined};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int cali_init(cali *c, const char *name, const ari_profile_sink *k, ari_error *err)
{
    memset(c, 0, sizeof *c);
    c->k = k;
    c->err = err;
    c->name = name;
    c->paths = ari_strmap_new();
    c->attr_by_name = ari_strmap_new();
    if (!c->paths || !c->attr_by_name)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return bootstrap(c);
}

static int cali_end(cali *c)
{
    if (c->snapshots == 0)
        return ari_error_set(c->err, ARI_E_INVALID_INPUT, "%s: no snapshot with a region path: not a profile",
                             c->name);
    if (c->k->on_progress)
        c->k->on_progress(c->k->ctx, 1.0);
    return 0;
}

int ari_cali_read(const char *path, const char *name, const ari_profile_sink *k, ari_error *err)
{
    cali c;
    int rc = cali_init(&c, name, k, err);
    ari_input *in = rc == 0 ? ari_input_open(path, name, err) : NULL;
    if (!in)
        rc = -1;
    char *line;
    size_t len;
    while (rc == 0 && (line = ari_input_getline(in, &len, err)) != NULL) {
        c.line = ari_input_lineno(in);
        if (memchr(line, '\0', len))
            rc = fail(&c, "a NUL byte: binary data", NULL);
        else
            rc = parse_line(&c, line);
        if (rc == 0 && k->on_progress && (c.line & 4095) == 0 && ari_input_total_bytes(in))
            k->on_progress(k->ctx, (double)ari_input_bytes_read(in) / (double)ari_input_total_bytes(in));
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    if (in)
        ari_input_close(in);
    if (rc == 0)
        rc = cali_end(&c);
    cali_free(&c);
    return rc;
}

int ari_cali_read_mem(const char *data, size_t len, const char *name, const ari_profile_sink *k,
                      ari_error *err)
{
    cali c;
    int rc = cali_init(&c, name, k, err);
    char *copy = malloc(len + 1);
    if (rc == 0 && !copy)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (copy) {
        memcpy(copy, data, len);
        copy[len] = '\0';
    }
    size_t pos = 0;
    while (rc == 0 && pos < len) {
        char *nl = memchr(copy + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - copy) : len;
        c.line++;
        if (memchr(copy + pos, '\0', end - pos))
            rc = fail(&c, "a NUL byte: binary data", NULL);
        copy[end] = '\0';
        if (end > pos && copy[end - 1] == '\r')
            copy[end - 1] = '\0';
        if (rc == 0)
            rc = parse_line(&c, copy + pos);
        pos = end + 1;
    }
    free(copy);
    if (rc == 0)
        rc = cali_end(&c);
    cali_free(&c);
    return rc;
}

int ari_cali_probe(const char *head, size_t n)
{
    return n >= 6 && memcmp(head, "__rec=", 6) == 0 && !memchr(head, '\0', n);
}
