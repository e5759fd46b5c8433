/* stream_records.c: parsing the records sent to a live run (see
 * stream_records.h): NDJSON lines or length-prefixed frames, each one JSON
 * object (jansson, bounded by ARI_STREAM_MAX_RECORD), into a batch of
 * entities, metrics, values and communication rows. */
#include "ingest/stream_records.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/strpool.h"
#include "util/vec.h"

struct ari_stream_batch_maps {
    ari_strmap *entities; /* "level\x1fname" -> index + 1 */
    ari_strmap *metrics;  /* name -> index + 1 */
    ari_strpool *pool;
};

/* What one record is being parsed as, for messages. */
typedef struct rec_ctx {
    ari_stream_batch *b;
    uint64_t number;
    int frames;
    ari_error *err;
    size_t rec;           /* index of the record being filled */
} rec_ctx;

static int fail(rec_ctx *c, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(rec_ctx *c, const char *code, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ari_error_set(c->err, code, "%s %llu: %s", c->frames ? "frame" : "line", (unsigned long long)c->number, msg);
}

static int oom(rec_ctx *c)
{
    return ari_error_set(c->err, ARI_E_NOMEM, "out of memory");
}

/* ---- the batch ----------------------------------------------------------------------- */

int ari_stream_batch_init(ari_stream_batch *b, int kps_per_pe, ari_error *err)
{
    memset(b, 0, sizeof *b);
    b->kps_per_pe = kps_per_pe > 0 ? kps_per_pe : 0;
    b->maps = calloc(1, sizeof *b->maps);
    if (b->maps) {
        b->maps->entities = ari_strmap_new();
        b->maps->metrics = ari_strmap_new();
        b->maps->pool = ari_strpool_new();
    }
    if (!b->maps || !b->maps->entities || !b->maps->metrics || !b->maps->pool) {
        ari_stream_batch_free(b);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

void ari_stream_batch_free(ari_stream_batch *b)
{
    if (!b)
        return;
    if (b->maps) {
        ari_strmap_free(b->maps->entities);
        ari_strmap_free(b->maps->metrics);
        ari_strpool_free(b->maps->pool);
        free(b->maps);
    }
    free(b->records);
    free(b->entities);
    free(b->metrics);
    free(b->values);
    free(b->rows);
    free(b->comm);
    memset(b, 0, sizeof *b);
}

static size_t entity_key(char *key, size_t size, const char *level, const char *name)
{
    int n = snprintf(key, size, "%s\x1f%s", level, name);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

int64_t ari_stream_batch_entity(const ari_stream_batch *b, const char *level, const char *name)
{
    char key[600];
    size_t n = entity_key(key, sizeof key, level, name);
    intptr_t v = (intptr_t)ari_strmap_get(b->maps->entities, key, n);
    return v ? (int64_t)v - 1 : -1;
}

int64_t ari_stream_batch_metric(const ari_stream_batch *b, const char *name)
{
    intptr_t v = (intptr_t)ari_strmap_get(b->maps->metrics, name, strlen(name));
    return v ? (int64_t)v - 1 : -1;
}

/* The batch index of (level, name) under parent, added on first use. */
static int64_t add_entity(rec_ctx *c, const char *level, const char *name, int64_t parent)
{
    ari_stream_batch *b = c->b;
    if (strlen(name) > 500)
        return fail(c, ARI_E_INVALID_INPUT, "an entity name is longer than 500 bytes");
    char key[600];
    size_t n = entity_key(key, sizeof key, level, name);
    intptr_t v = (intptr_t)ari_strmap_get(b->maps->entities, key, n);
    if (v) {
        const ari_stream_entity *e = &b->entities[v - 1];
        if (e->parent != parent)
            return fail(c, ARI_E_INVALID_INPUT, "%s%s%s is under %s here and under %s in an earlier record",
                        strncmp(name, level, strlen(level)) ? level : "", strncmp(name, level, strlen(level)) ? " " : "",
                        name,
                        parent >= 0 ? b->entities[parent].name : "nothing",
                        e->parent >= 0 ? b->entities[e->parent].name : "nothing");
        return (int64_t)v - 1;
    }
    if (b->nentities >= ARI_STREAM_MAX_ENTITIES)
        return fail(c, ARI_E_TOO_LARGE, "more than %d entities in one request", ARI_STREAM_MAX_ENTITIES);
    if (ari_vec_reserve((void **)&b->entities, &b->cap_entities, b->nentities + 1, sizeof *b->entities) < 0)
        return oom(c);
    const char *lv = ari_strpool_intern(b->maps->pool, level, strlen(level));
    const char *nm = ari_strpool_copy(b->maps->pool, name, strlen(name));
    if (!lv || !nm || !ari_strmap_put(b->maps->entities, key, n, (void *)(intptr_t)(b->nentities + 1)))
        return oom(c);
    b->entities[b->nentities] = (ari_stream_entity){lv, nm, (int32_t)parent};
    return (int64_t)b->nentities++;
}

static int is_attribute(const char *name)
{
    static const char *const names[] = {"EntityId", "EventId", "Mode", "Status", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static int64_t add_metric(rec_ctx *c, const char *name)
{
    ari_stream_batch *b = c->b;
    size_t len = strlen(name);
    intptr_t v = (intptr_t)ari_strmap_get(b->maps->metrics, name, len);
    if (v)
        return (int64_t)v - 1;
    if (len == 0 || len > 200)
        return fail(c, ARI_E_INVALID_INPUT, "a metric name must have 1 to 200 bytes");
    if (b->nmetrics >= ARI_STREAM_MAX_METRICS)
        return fail(c, ARI_E_TOO_LARGE, "more than %d metrics", ARI_STREAM_MAX_METRICS);
    if (ari_vec_reserve((void **)&b->metrics, &b->cap_metrics, b->nmetrics + 1, sizeof *b->metrics) < 0)
        return oom(c);
    const char *nm = ari_strpool_copy(b->maps->pool, name, len);
    if (!nm || !ari_strmap_put(b->maps->metrics, name, len, (void *)(intptr_t)(b->nmetrics + 1)))
        return oom(c);
    b->metrics[b->nmetrics] = (ari_stream_metric){nm, is_attribute(name)};
    return (int64_t)b->nmetrics++;
}

static int add_value(rec_ctx *c, int64_t entity, const char *metric, const json_t *v)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return fail(c, ARI_E_INVALID_INPUT, "the value of %s must be a number or null", metric);
    double x = json_number_value(v);
    if (!isfinite(x))
        return fail(c, ARI_E_INVALID_INPUT, "the value of %s is not finite", metric);
    int64_t m = add_metric(c, metric);
    if (m < 0)
        return -1;
    ari_stream_batch *b = c->b;
    if (b->nvalues >= ARI_STREAM_MAX_VALUES)
        return fail(c, ARI_E_TOO_LARGE, "more than %zu values in one request", ARI_STREAM_MAX_VALUES);
    if (ari_vec_reserve((void **)&b->values, &b->cap_values, b->nvalues + 1, sizeof *b->values) < 0)
        return oom(c);
    b->values[b->nvalues++] = (ari_stream_value){(uint32_t)entity, (uint32_t)m, x};
    b->records[c->rec].nvalues++;
    return 0;
}

/* Starts a communication row of src; entries follow with add_entry. */
static int add_row(rec_ctx *c, int64_t src)
{
    ari_stream_batch *b = c->b;
    if (ari_vec_reserve((void **)&b->rows, &b->cap_rows, b->nrows + 1, sizeof *b->rows) < 0)
        return oom(c);
    b->rows[b->nrows++] = (ari_stream_comm_row){(uint32_t)src, b->ncomm, 0};
    b->records[c->rec].nrows++;
    return 0;
}

static int add_entry(rec_ctx *c, int64_t dst, double count)
{
    ari_stream_batch *b = c->b;
    if (b->ncomm >= ARI_STREAM_MAX_COMM)
        return fail(c, ARI_E_TOO_LARGE, "more than %zu communication entries in one request", ARI_STREAM_MAX_COMM);
    if (ari_vec_reserve((void **)&b->comm, &b->cap_comm, b->ncomm + 1, sizeof *b->comm) < 0)
        return oom(c);
    b->comm[b->ncomm++] = (ari_stream_comm){(uint32_t)dst, count};
    b->rows[b->nrows - 1].nentries++;
    return 0;
}

/* ---- ROSS form ------------------------------------------------------------------------ */

/* A member that is a whole number in [0, 2^31): 0 and *out, 1 if absent (or null), -1. */
static int whole_member(rec_ctx *c, const json_t *item, const char *key, const char *where, int64_t *out)
{
    const json_t *v = json_object_get(item, key);
    *out = -1;
    if (!v || json_is_null(v))
        return 1;
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || x < 0 || x >= 2147483648.0 || x != floor(x))
        return fail(c, ARI_E_INVALID_INPUT, "%s: %s must be a whole number from 0 to 2^31-1", where, key);
    *out = (int64_t)x;
    return 0;
}

static const char *const special_names[] = {"Peid", "Kpid", "KpGid", "Lpid", "LpGid", "CommData", "Data",
                                            "LastGvt", "VirtualTs", "RealTs", NULL};

static int is_special(const char *key)
{
    for (int i = 0; special_names[i]; i++)
        if (strcmp(key, special_names[i]) == 0)
            return 1;
    return 0;
}

/* The metric members of an item (and of its "Data" object). */
static int item_metrics(rec_ctx *c, const json_t *item, int64_t entity, const char *where)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)item, key, v) {
        if (is_special(key))
            continue;
        if (add_value(c, entity, key, v) < 0)
            return -1;
    }
    const json_t *data = json_object_get(item, "Data");
    if (data && !json_is_object(data) && !json_is_null(data))
        return fail(c, ARI_E_INVALID_INPUT, "%s: Data must be an object of metrics", where);
    json_object_foreach((json_t *)data, key, v) {
        if (add_value(c, entity, key, v) < 0)
            return -1;
    }
    return 0;
}

static int64_t pe_entity(rec_ctx *c, int64_t pe)
{
    char name[48];
    snprintf(name, sizeof name, "PE %lld", (long long)pe);
    return add_entity(c, "PE", name, -1);
}

/* "KP gid" under "PE pe" (pe < 0: a root), as ross_csv.c names them. */
static int64_t kp_entity(rec_ctx *c, int64_t gid, int64_t pe)
{
    int64_t parent = -1;
    if (pe >= 0 && (parent = pe_entity(c, pe)) < 0)
        return -1;
    char name[48];
    snprintf(name, sizeof name, "KP %lld", (long long)gid);
    return add_entity(c, "KP", name, parent);
}

/* nKP where an item shows it (Peid > 0, Kpid and KpGid), checked
 * against what the run or earlier items gave. */
static int derive_kps(rec_ctx *c, const json_t *item, const char *where, int64_t *pe, int64_t *kp, int64_t *gid)
{
    if (whole_member(c, item, "Peid", where, pe) < 0 || whole_member(c, item, "Kpid", where, kp) < 0 ||
        whole_member(c, item, "KpGid", where, gid) < 0)
        return -1;
    ari_stream_batch *b = c->b;
    if (*pe > 0 && *kp >= 0 && *gid >= 0) {
        int64_t span = *gid - *kp;
        if (span <= 0 || span % *pe != 0 || span / *pe <= *kp)
            return fail(c, ARI_E_INVALID_INPUT, "%s: KpGid %lld is not Peid * nKP + Kpid for Peid %lld, Kpid %lld",
                        where, (long long)*gid, (long long)*pe, (long long)*kp);
        int64_t n = span / *pe;
        if (b->kps_per_pe && b->kps_per_pe != n)
            return fail(c, ARI_E_INVALID_INPUT, "%s: Peid, Kpid and KpGid give %lld KPs per PE where the run has %d",
                        where, (long long)n, b->kps_per_pe);
        if (n > 1000000)
            return fail(c, ARI_E_INVALID_INPUT, "%s: more than 10^6 KPs per PE", where);
        b->kps_per_pe = (int)n;
    }
    return 0;
}

/* The KP of an item from Peid, Kpid and KpGid (ross_csv.c's rules). */
static int64_t item_kp(rec_ctx *c, const json_t *item, const char *where)
{
    int64_t pe, kp, gid;
    if (derive_kps(c, item, where, &pe, &kp, &gid) < 0)
        return -1;
    ari_stream_batch *b = c->b;
    if (gid < 0) {
        if (kp < 0)
            return fail(c, ARI_E_INVALID_INPUT, "%s: a KP needs KpGid (or Peid and Kpid)", where);
        if (pe < 0 || b->kps_per_pe <= 0)
            return fail(c, ARI_E_INVALID_INPUT, "%s: no KpGid, and the KPs per PE are unknown", where);
        gid = pe * b->kps_per_pe + kp;
    }
    if (pe < 0 && b->kps_per_pe > 0)
        pe = gid / b->kps_per_pe;
    return kp_entity(c, gid, pe);
}

/* CommData [c_0, ...]: a row of the KP's non-zero counts to KP j. */
static int item_comm(rec_ctx *c, const json_t *list, int64_t src, const char *where)
{
    if (!json_is_array(list))
        return fail(c, ARI_E_INVALID_INPUT, "%s: CommData must be a list of counts", where);
    if (json_array_size(list) > 1000000)
        return fail(c, ARI_E_INVALID_INPUT, "%s: CommData has more than 10^6 entries", where);
    int kps = c->b->kps_per_pe;
    if (kps <= 0 && c->b->entities[src].parent >= 0 && json_array_size(list) > 0)
        /* KPs under PEs, but the destinations' PEs unknown: a KP placed
         * under no PE here would conflict with its own record later */
        return fail(c, ARI_E_INVALID_INPUT, "%s: CommData needs the number of KPs per PE, which this run "
                    "does not know yet: give \"kps_per_pe\" when opening the run (POST /api/v1/streams), "
                    "or send KpGid = Peid * nKP + Kpid with a Peid above 0 in the same record", where);
    if (add_row(c, src) < 0)
        return -1;
    size_t j;
    const json_t *v;
    json_array_foreach((json_t *)list, j, v) {
        double x = json_is_number(v) ? json_number_value(v) : -1;
        if (!json_is_number(v) || !isfinite(x) || x < 0)
            return fail(c, ARI_E_INVALID_INPUT, "%s: CommData entries must be counts (finite, >= 0)", where);
        if (x == 0)
            continue;
        int64_t dst = kp_entity(c, (int64_t)j, kps > 0 ? (int64_t)j / kps : -1);
        if (dst < 0 || add_entry(c, dst, x) < 0)
            return -1;
    }
    return 0;
}

static int item_array(rec_ctx *c, const json_t *rec, const char *key, const json_t **out)
{
    *out = json_object_get(rec, key);
    if (*out && !json_is_array(*out) && !json_is_null(*out))
        return fail(c, ARI_E_INVALID_INPUT, "%s must be a list of objects", key);
    return 0;
}

static int pe_items(rec_ctx *c, const json_t *list)
{
    size_t i;
    const json_t *item;
    json_array_foreach((json_t *)list, i, item) {
        char where[48];
        snprintf(where, sizeof where, "PeData[%zu]", i);
        int64_t pe;
        if (!json_is_object(item))
            return fail(c, ARI_E_INVALID_INPUT, "%s must be an object", where);
        int r = whole_member(c, item, "Peid", where, &pe);
        if (r != 0)
            return r < 0 ? -1 : fail(c, ARI_E_INVALID_INPUT, "%s: Peid is needed", where);
        int64_t e = pe_entity(c, pe);
        if (e < 0 || item_metrics(c, item, e, where) < 0)
            return -1;
    }
    return 0;
}

static int kp_items(rec_ctx *c, const json_t *list)
{
    size_t i;
    const json_t *item;
    json_array_foreach((json_t *)list, i, item) {
        char where[48];
        snprintf(where, sizeof where, "KpData[%zu]", i);
        if (!json_is_object(item))
            return fail(c, ARI_E_INVALID_INPUT, "%s must be an object", where);
        int64_t e = item_kp(c, item, where);
        if (e < 0 || item_metrics(c, item, e, where) < 0)
            return -1;
        const json_t *comm = json_object_get(item, "CommData");
        if (comm && !json_is_null(comm) && item_comm(c, comm, e, where) < 0)
            return -1;
    }
    return 0;
}

static int lp_items(rec_ctx *c, const json_t *list)
{
    size_t i;
    const json_t *item;
    json_array_foreach((json_t *)list, i, item) {
        char where[48], name[48];
        snprintf(where, sizeof where, "LpData[%zu]", i);
        if (!json_is_object(item))
            return fail(c, ARI_E_INVALID_INPUT, "%s must be an object", where);
        int64_t lp, lpgid;
        if (whole_member(c, item, "Lpid", where, &lp) < 0 || whole_member(c, item, "LpGid", where, &lpgid) < 0)
            return -1;
        if (lpgid < 0 && lp < 0)
            return fail(c, ARI_E_INVALID_INPUT, "%s: an LP needs LpGid or Lpid", where);
        int64_t kp = item_kp(c, item, where);
        if (kp < 0)
            return -1;
        snprintf(name, sizeof name, "LP %lld", (long long)(lpgid >= 0 ? lpgid : lp));
        int64_t e = add_entity(c, "LP", name, kp);
        if (e < 0 || item_metrics(c, item, e, where) < 0)
            return -1;
    }
    return 0;
}

static int domain_member(rec_ctx *c, const json_t *rec, const char *key, int d, int needed)
{
    const json_t *v = json_object_get(rec, key);
    if (!v || json_is_null(v))
        return needed ? fail(c, ARI_E_INVALID_INPUT, "%s is needed", key) : 0;
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return fail(c, ARI_E_INVALID_INPUT, "%s must be a finite number", key);
    double x = json_number_value(v);
    c->b->records[c->rec].other[d] = x == 0 ? 0 : x; /* -0 and 0 are one time */
    return 0;
}

static int ross_record(rec_ctx *c, const json_t *rec)
{
    ari_stream_record *r = &c->b->records[c->rec];
    r->domain = ARI_MT_LASTGVT;
    if (domain_member(c, rec, "LastGvt", ARI_MT_LASTGVT, 1) < 0 || domain_member(c, rec, "VirtualTs", ARI_MT_VIRTUALTS, 0) < 0 ||
        domain_member(c, rec, "RealTs", ARI_MT_REALTS, 0) < 0)
        return -1;
    r = &c->b->records[c->rec];
    r->key = r->other[ARI_MT_LASTGVT];
    const json_t *pe, *kp, *lp;
    if (item_array(c, rec, "PeData", &pe) < 0 || item_array(c, rec, "KpData", &kp) < 0 ||
        item_array(c, rec, "LpData", &lp) < 0)
        return -1;
    size_t i;
    const json_t *item;
    json_array_foreach((json_t *)kp, i, item) { /* nKP first, so CommData places every KP */
        int64_t p, k, g;
        if (json_is_object(item) && derive_kps(c, item, "KpData", &p, &k, &g) < 0)
            return -1;
    }
    return pe_items(c, pe) < 0 || kp_items(c, kp) < 0 || lp_items(c, lp) < 0 ? -1 : 0;
}

/* ---- generic form ------------------------------------------------------------------- */

/* An entity of the generic form: level "entity", under the group its
 * record's "groups" names (level "group", a root), as metrics_csv.c names
 * the generic CSVs' entities. */
static int64_t generic_entity(rec_ctx *c, const char *name, const json_t *groups)
{
    const json_t *g = groups ? json_object_get(groups, name) : NULL;
    int64_t parent = -1;
    if (g && !json_is_null(g)) {
        if (!json_is_string(g) || !json_string_value(g)[0])
            return fail(c, ARI_E_INVALID_INPUT, "groups: the group of %.100s must be a name", name);
        if ((parent = add_entity(c, "group", json_string_value(g), -1)) < 0)
            return -1;
    }
    return add_entity(c, "entity", name, parent);
}

static int generic_values(rec_ctx *c, const json_t *values, const json_t *groups)
{
    if (!values || json_is_null(values))
        return 0;
    if (!json_is_object(values))
        return fail(c, ARI_E_INVALID_INPUT, "values must be an object {entity: {metric: value}}");
    const char *ename;
    const json_t *metrics;
    json_object_foreach((json_t *)values, ename, metrics) {
        if (!json_is_object(metrics))
            return fail(c, ARI_E_INVALID_INPUT, "values of %.100s must be an object {metric: value}", ename);
        if (!ename[0])
            return fail(c, ARI_E_INVALID_INPUT, "an entity name is empty");
        int64_t e = generic_entity(c, ename, groups);
        const char *mname;
        const json_t *v;
        if (e < 0)
            return -1;
        json_object_foreach((json_t *)metrics, mname, v) {
            if (add_value(c, e, mname, v) < 0)
                return -1;
        }
    }
    return 0;
}

typedef struct triple {
    int64_t src, dst;
    double count;
    size_t order;
} triple;

static int by_src(const void *a, const void *b)
{
    const triple *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* [[src, dst, count], ...]: one row per source entity. */
static int generic_comm(rec_ctx *c, const json_t *comm, const json_t *groups)
{
    if (!comm || json_is_null(comm))
        return 0;
    if (!json_is_array(comm))
        return fail(c, ARI_E_INVALID_INPUT, "comm must be a list of [source, destination, count]");
    size_t n = json_array_size(comm);
    if (n > ARI_STREAM_MAX_COMM)
        return fail(c, ARI_E_TOO_LARGE, "comm has more than %zu entries", ARI_STREAM_MAX_COMM);
    triple *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return oom(c);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const json_t *e = json_array_get(comm, i);
        const char *s = json_string_value(json_array_get(e, 0)), *d = json_string_value(json_array_get(e, 1));
        const json_t *k = json_array_get(e, 2);
        double x = json_is_number(k) ? json_number_value(k) : -1;
        if (!json_is_array(e) || json_array_size(e) != 3 || !s || !d || !s[0] || !d[0] || !json_is_number(k) ||
            !isfinite(x) || x < 0) {
            rc = fail(c, ARI_E_INVALID_INPUT, "comm[%zu] must be [source name, destination name, count >= 0]", i);
            break;
        }
        t[i] = (triple){generic_entity(c, s, groups), generic_entity(c, d, groups), x, i};
        if (t[i].src < 0 || t[i].dst < 0)
            rc = -1;
    }
    if (rc == 0)
        qsort(t, n, sizeof *t, by_src);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if ((i == 0 || t[i].src != t[i - 1].src) && add_row(c, t[i].src) < 0)
            rc = -1;
        else if (t[i].count != 0 && add_entry(c, t[i].dst, t[i].count) < 0)
            rc = -1;
    }
    free(t);
    return rc;
}

static int generic_record(rec_ctx *c, const json_t *rec)
{
    c->b->records[c->rec].domain = ARI_MT_TIME;
    if (domain_member(c, rec, "time", ARI_MT_TIME, 1) < 0)
        return -1;
    ari_stream_record *r = &c->b->records[c->rec];
    r->key = r->other[ARI_MT_TIME];
    const json_t *groups = json_object_get(rec, "groups");
    if (groups && !json_is_object(groups) && !json_is_null(groups))
        return fail(c, ARI_E_INVALID_INPUT, "groups must be an object {entity: group}");
    return generic_values(c, json_object_get(rec, "values"), groups) < 0 ||
                   generic_comm(c, json_object_get(rec, "comm"), groups) < 0
               ? -1
               : 0;
}

/* ---- records ------------------------------------------------------------------------ */

int ari_stream_parse_record(ari_stream_batch *b, const char *text, size_t len, uint64_t number, int frames,
                            ari_error *err)
{
    rec_ctx c = {b, number, frames, err, b->nrecords};
    if (len > ARI_STREAM_MAX_RECORD)
        return fail(&c, ARI_E_TOO_LARGE, "a record is longer than %zu bytes", ARI_STREAM_MAX_RECORD);
    if (b->nrecords >= ARI_STREAM_MAX_RECORDS)
        return fail(&c, ARI_E_TOO_LARGE, "more than %zu records in one request", ARI_STREAM_MAX_RECORDS);
    json_error_t jerr;
    json_t *rec = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!rec)
        return fail(&c, ARI_E_INVALID_INPUT, "not JSON: %s (column %d)", jerr.text, jerr.column);
    int rc = 0;
    if (!json_is_object(rec))
        rc = fail(&c, ARI_E_INVALID_INPUT, "a record must be a JSON object");
    if (rc == 0 && ari_vec_reserve((void **)&b->records, &b->cap_records, b->nrecords + 1, sizeof *b->records) < 0)
        rc = oom(&c);
    if (rc == 0) {
        ari_stream_record *r = &b->records[b->nrecords];
        memset(r, 0, sizeof *r);
        for (int d = 0; d < ARI_MT_NDOMAINS; d++)
            r->other[d] = NAN;
        r->value0 = b->nvalues;
        r->row0 = b->nrows;
        r->line = number;
        if (json_object_get(rec, "LastGvt"))
            rc = ross_record(&c, rec);
        else if (json_object_get(rec, "time"))
            rc = generic_record(&c, rec);
        else
            rc = fail(&c, ARI_E_INVALID_INPUT,
                      "a record needs LastGvt (ROSS form) or time (generic form: {\"time\", \"values\", \"comm\"})");
    }
    if (rc == 0)
        b->nrecords++;
    json_decref(rec);
    return rc;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One frame's payload: a JSON record (FlatBuffers payloads are refused). */
static int parse_frame(ari_stream_batch *b, const char *p, size_t n, uint64_t number, ari_error *err)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i == n || p[i] != '{') {
        rec_ctx c = {b, number, 1, err, b->nrecords};
        return fail(&c, ARI_E_INVALID_INPUT,
                    "the payload is not a JSON record (FlatBuffers DamarisDataSample payloads are not accepted: "
                    "send the record as JSON)");
    }
    return ari_stream_parse_record(b, p, n, number, 1, err);
}

static int frame_header_error(ari_stream_batch *b, uint64_t number, uint32_t size, int truncated, ari_error *err)
{
    rec_ctx c = {b, number, 1, err, b->nrecords};
    if (truncated)
        return fail(&c, ARI_E_INVALID_INPUT, "truncated: the body ends inside a frame");
    if (size == 0)
        return fail(&c, ARI_E_INVALID_INPUT, "an empty frame");
    return fail(&c, ARI_E_TOO_LARGE, "a frame of %lu bytes: at most %zu", (unsigned long)size, ARI_STREAM_MAX_RECORD);
}

int ari_stream_parse_buffer(ari_stream_batch *b, const char *buf, size_t n, int frames, ari_error *err)
{
    uint64_t number = 0;
    for (size_t i = 0; i < n;) {
        number++;
        if (frames) {
            if (n - i < 4)
                return frame_header_error(b, number, 0, 1, err);
            uint32_t size = le32((const unsigned char *)buf + i);
            if (size == 0 || size > ARI_STREAM_MAX_RECORD)
                return frame_header_error(b, number, size, 0, err);
            if (n - i - 4 < size)
                return frame_header_error(b, number, size, 1, err);
            if (parse_frame(b, buf + i + 4, size, number, err) < 0)
                return -1;
            i += 4 + (size_t)size;
            continue;
        }
        const char *nl = memchr(buf + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (buf + i)) : n - i;
        if (!blank(buf + i, len) && ari_stream_parse_record(b, buf + i, len, number, 0, err) < 0)
            return -1;
        i += len + (nl != NULL);
    }
    return 0;
}

/* ---- files ------------------------------------------------------------------------- */

static int read_error(ari_stream_batch *b, uint64_t number, int frames, ari_error *err)
{
    rec_ctx c = {b, number, frames, err, b->nrecords};
    return fail(&c, ARI_E_IO, "cannot read the request body");
}

static int file_frames(ari_stream_batch *b, FILE *f, ari_error *err)
{
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (uint64_t number = 1;; number++) {
        unsigned char head[4];
        size_t got = fread(head, 1, 4, f);
        if (got == 0 && !ferror(f))
            break;
        if (got < 4) {
            rc = ferror(f) ? read_error(b, number, 1, err) : frame_header_error(b, number, 0, 1, err);
            break;
        }
        uint32_t size = le32(head);
        if (size == 0 || size > ARI_STREAM_MAX_RECORD) {
            rc = frame_header_error(b, number, size, 0, err);
            break;
        }
        if (ari_vec_reserve((void **)&buf, &cap, size, 1) < 0) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        if (fread(buf, 1, size, f) != size) {
            rc = ferror(f) ? read_error(b, number, 1, err) : frame_header_error(b, number, size, 1, err);
            break;
        }
        if ((rc = parse_frame(b, buf, size, number, err)) < 0)
            break;
    }
    free(buf);
    return rc;
}

/* NDJSON lines of at most ARI_STREAM_MAX_RECORD bytes, read in blocks. */
static int file_lines(ari_stream_batch *b, FILE *f, ari_error *err)
{
    char block[65536], *line = NULL;
    size_t len = 0, cap = 0, got;
    uint64_t number = 1;
    int rc = 0;
    while (rc == 0 && (got = fread(block, 1, sizeof block, f)) > 0) {
        for (size_t i = 0; rc == 0 && i < got;) {
            const char *nl = memchr(block + i, '\n', got - i);
            size_t n = nl ? (size_t)(nl - (block + i)) : got - i;
            if (len + n > ARI_STREAM_MAX_RECORD) {
                rec_ctx c = {b, number, 0, err, b->nrecords};
                rc = fail(&c, ARI_E_TOO_LARGE, "a record is longer than %zu bytes", ARI_STREAM_MAX_RECORD);
                break;
            }
            if (ari_vec_reserve((void **)&line, &cap, len + n + 1, 1) < 0) {
                rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
                break;
            }
            memcpy(line + len, block + i, n);
            len += n;
            i += n;
            if (!nl)
                break;
            i++; /* the newline */
            if (!blank(line, len) && (rc = ari_stream_parse_record(b, line, len, number, 0, err)) < 0)
                break;
            number++;
            len = 0;
        }
    }
    if (rc == 0 && ferror(f))
        rc = read_error(b, number, 0, err);
    if (rc == 0 && len && !blank(line, len))
        rc = ari_stream_parse_record(b, line, len, number, 0, err);
    free(line);
    return rc;
}

int ari_stream_parse_file(ari_stream_batch *b, FILE *f, int frames, ari_error *err)
{
    return frames ? file_frames(b, f, err) : file_lines(b, f, err);
}
