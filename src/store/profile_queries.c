/* profile_queries.c: reading profiles back (see profile_queries.h): the
 * whole CCT for the analyses, and the JSON or text documents of the
 * profile endpoints, which read only the rows and BLOBs they need. */
#include "store/profile_queries.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

/* ---- helpers ---- */

static int prepare(ari_store *s, const char *sql, sqlite3_stmt **st, ari_error *err)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return ari_store_fail(s, err, "prepare profile query");
    }
    return 0;
}

/* 0 if the trace is a profile, 1 absent, 2 another kind, -1 error. */
static int check_profile(ari_store *s, int64_t trace_id, ari_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT kind FROM traces WHERE id = ?1", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    int rc = sqlite3_step(st);
    int out;
    if (rc == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);
        out = kind && strcmp(kind, "profile") == 0 ? 0 : 2;
        if (out == 2)
            ari_error_set(err, ARI_E_NOT_A_PROFILE, "trace %lld is of kind '%s', not a profile",
                          (long long)trace_id, kind ? kind : "");
    } else if (rc == SQLITE_DONE) {
        out = 1;
        ari_error_set(err, ARI_E_NOT_FOUND, "no trace %lld", (long long)trace_id);
    } else {
        out = ari_store_fail(s, err, "trace kind");
    }
    sqlite3_finalize(st);
    return out;
}

static double read_le_double(const unsigned char *p)
{
    uint64_t bits = 0;
    for (int b = 7; b >= 0; b--)
        bits = (bits << 8) | p[b];
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Decodes a values BLOB of n doubles into out; -1 if its size is wrong. */
static int decode_blob(const void *blob, int bytes, int64_t n, double *out)
{
    if (bytes != n * 8)
        return -1;
    if (host_is_little_endian()) {
        memcpy(out, blob, (size_t)n * 8);
        return 0;
    }
    for (int64_t k = 0; k < n; k++)
        out[k] = read_le_double((const unsigned char *)blob + 8 * k);
    return 0;
}

static char *dup_column(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    return strdup(t ? t : "");
}

static int64_t count_rows(ari_store *s, const char *sql, int64_t trace_id, ari_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, sql, &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    if (n < 0)
        ari_store_fail(s, err, "count");
    sqlite3_finalize(st);
    return n;
}

/* ---- loading the whole CCT ---- */

/* The loader's view of ari_cct with writable pointers. */
typedef struct cct_build {
    int64_t *parent;
    char **name, **module, **file, **kind;
    int *line;
    int *rank, *thread;
    ari_cct_metric *metrics;
    double **values;
} cct_build;

static int load_nodes(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t n = count_rows(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    size_t cnt = n ? (size_t)n : 1;
    b->parent = malloc(cnt * sizeof *b->parent);
    b->name = calloc(cnt, sizeof *b->name);
    b->module = calloc(cnt, sizeof *b->module);
    b->file = calloc(cnt, sizeof *b->file);
    b->kind = calloc(cnt, sizeof *b->kind);
    b->line = malloc(cnt * sizeof *b->line);
    c->nnodes = n;
    if (!b->parent || !b->name || !b->module || !b->file || !b->kind || !b->line)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    sqlite3_stmt *st;
    if (prepare(s, "SELECT node_id, parent_id, name, module, file, line, kind FROM cct_nodes"
                   " WHERE trace_id = ?1 ORDER BY node_id", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    int64_t i = 0;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW && i < n) {
        int64_t parent = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        if (sqlite3_column_int64(st, 0) != i || parent >= i) {
            rc = ari_error_set(err, ARI_E_DB, "cct_nodes of trace %lld are not in parent order",
                               (long long)trace_id);
            break;
        }
        b->parent[i] = parent;
        b->name[i] = dup_column(st, 2);
        b->module[i] = dup_column(st, 3);
        b->file[i] = dup_column(st, 4);
        b->line[i] = sqlite3_column_int(st, 5);
        b->kind[i] = dup_column(st, 6);
        if (!b->name[i] || !b->module[i] || !b->file[i] || !b->kind[i]) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        i++;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = ari_store_fail(s, err, "read cct nodes");
    sqlite3_finalize(st);
    return rc;
}

static int load_procs(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t n = count_rows(s, "SELECT count(*) FROM profile_procs WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    b->rank = malloc((n ? (size_t)n : 1) * sizeof *b->rank);
    b->thread = malloc((n ? (size_t)n : 1) * sizeof *b->thread);
    if (!b->rank || !b->thread)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    c->nprocs = (int)n;
    sqlite3_stmt *st;
    if (prepare(s, "SELECT rank, thread FROM profile_procs WHERE trace_id = ?1 ORDER BY proc", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    int64_t k = 0;
    while (k < n && sqlite3_step(st) == SQLITE_ROW) {
        b->rank[k] = sqlite3_column_int(st, 0);
        b->thread[k] = sqlite3_column_int(st, 1);
        k++;
    }
    sqlite3_finalize(st);
    return k == n ? 0 : ari_store_fail(s, err, "read profile processes");
}

static int load_metrics(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t n = count_rows(s, "SELECT count(*) FROM profile_metrics WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    b->metrics = calloc(n ? (size_t)n : 1, sizeof *b->metrics);
    b->values = calloc(n ? (size_t)n : 1, sizeof *b->values);
    if (!b->metrics || !b->values)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    c->nmetrics = (int)n;
    sqlite3_stmt *st;
    if (prepare(s, "SELECT name, unit, inclusive, coalesce(partner, -1) FROM profile_metrics"
                   " WHERE trace_id = ?1 ORDER BY metric_id", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    int64_t m = 0;
    int rc = 0;
    while (m < n && sqlite3_step(st) == SQLITE_ROW) {
        b->metrics[m].name = dup_column(st, 0);
        b->metrics[m].unit = dup_column(st, 1);
        b->metrics[m].inclusive = sqlite3_column_int(st, 2);
        b->metrics[m].partner = sqlite3_column_int(st, 3);
        if (!b->metrics[m].name || !b->metrics[m].unit) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        m++;
    }
    sqlite3_finalize(st);
    if (rc == 0 && m != n)
        rc = ari_store_fail(s, err, "read profile metrics");
    return rc;
}

static int load_values(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t np = c->nprocs, total = c->nnodes * np;
    sqlite3_stmt *st;
    if (prepare(s, "SELECT node_id, vals FROM profile_values WHERE trace_id = ?1 AND metric_id = ?2"
                   " ORDER BY node_id", &st, err) < 0)
        return -1;
    int rc = 0;
    for (int m = 0; m < c->nmetrics && rc == 0; m++) {
        double *v = malloc((total ? (size_t)total : 1) * sizeof *v);
        if (!v) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld values", (long long)total);
            break;
        }
        b->values[m] = v;
        for (int64_t k = 0; k < total; k++)
            v[k] = NAN;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, trace_id);
        sqlite3_bind_int(st, 2, m);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t node = sqlite3_column_int64(st, 0);
            const void *blob = sqlite3_column_blob(st, 1);
            int bytes = sqlite3_column_bytes(st, 1);
            if (node < 0 || node >= c->nnodes || decode_blob(blob, bytes, np, v + node * np) < 0) {
                rc = ari_error_set(err, ARI_E_DB, "profile values of trace %lld: bad row for node %lld",
                                   (long long)trace_id, (long long)node);
                break;
            }
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = ari_store_fail(s, err, "read profile values");
    }
    sqlite3_finalize(st);
    return rc;
}

static void publish(ari_cct *c, cct_build *b)
{
    c->parent = b->parent;
    c->name = (const char *const *)b->name;
    c->module = (const char *const *)b->module;
    c->file = (const char *const *)b->file;
    c->kind = (const char *const *)b->kind;
    c->line = b->line;
    c->proc_rank = b->rank;
    c->proc_thread = b->thread;
    c->metrics = b->metrics;
    c->values = (const double *const *)b->values;
}

int ari_profile_load(ari_store *s, int64_t trace_id, ari_cct *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    cct_build b;
    memset(&b, 0, sizeof b);
    rc = load_nodes(s, trace_id, out, &b, err);
    if (rc == 0)
        rc = load_procs(s, trace_id, out, &b, err);
    if (rc == 0)
        rc = load_metrics(s, trace_id, out, &b, err);
    if (rc == 0)
        rc = load_values(s, trace_id, out, &b, err);
    publish(out, &b); /* so that ari_cct_free releases partial work too */
    if (rc != 0) {
        ari_cct_free(out);
        return -1;
    }
    return 0;
}

void ari_cct_free(ari_cct *c)
{
    if (!c)
        return;
    for (int64_t i = 0; i < c->nnodes; i++) {
        if (c->name)
            free((char *)c->name[i]);
        if (c->module)
            free((char *)c->module[i]);
        if (c->file)
            free((char *)c->file[i]);
        if (c->kind)
            free((char *)c->kind[i]);
    }
    free((void *)c->parent);
    free((void *)c->name);
    free((void *)c->module);
    free((void *)c->file);
    free((void *)c->kind);
    free((void *)c->line);
    free((void *)c->proc_rank);
    free((void *)c->proc_thread);
    for (int m = 0; m < c->nmetrics; m++) {
        if (c->metrics) {
            free((char *)c->metrics[m].name);
            free((char *)c->metrics[m].unit);
        }
        if (c->values)
            free((double *)c->values[m]);
    }
    free((void *)c->metrics);
    free((void *)c->values);
    memset(c, 0, sizeof *c);
}

int ari_cct_metric_index(const ari_cct *c, const char *name)
{
    for (int m = 0; m < c->nmetrics; m++)
        if (strcmp(c->metrics[m].name, name) == 0)
            return m;
    return -1;
}

/* ---- endpoint documents ---- */

typedef struct meta_metric {
    char *name;
    int inclusive;
} meta_metric;

/* The metric id of `name`; NULL picks the profile's inclusive time
 * ("time (inc)", else the first inclusive, else metric 0). */
static int resolve_metric(ari_store *s, int64_t trace_id, const char *name, int *metric, ari_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, name ? "SELECT metric_id FROM profile_metrics WHERE trace_id = ?1 AND name = ?2"
                        : "SELECT metric_id FROM profile_metrics WHERE trace_id = ?1"
                          " ORDER BY name = 'time (inc)' DESC, inclusive DESC, metric_id LIMIT 1",
                &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    if (name)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *metric = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return name ? ari_error_set(err, ARI_E_INVALID_PARAMETER, "no metric '%s' in trace %lld", name,
                                    (long long)trace_id)
                    : ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld has no metrics", (long long)trace_id);
    return ari_store_fail(s, err, "metric");
}

static int metric_name(ari_store *s, int64_t trace_id, int metric, char *out, size_t size, ari_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT name FROM profile_metrics WHERE trace_id = ?1 AND metric_id = ?2", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int(st, 2, metric);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc == 0)
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
    else
        ari_store_fail(s, err, "metric name");
    sqlite3_finalize(st);
    return rc;
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *column_real(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? json_null() : json_real(sqlite3_column_double(st, col));
}

static int dump(json_t *doc, char **json_out, ari_error *err)
{
    *json_out = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(15));
    json_decref(doc);
    return *json_out ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static json_t *metrics_list(ari_store *s, int64_t trace_id, ari_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT metric_id, name, unit, inclusive, partner, derived, source FROM profile_metrics"
                   " WHERE trace_id = ?1 ORDER BY metric_id", &st, err) < 0)
        return NULL;
    sqlite3_bind_int64(st, 1, trace_id);
    json_t *list = json_array();
    while (sqlite3_step(st) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:b, s:o, s:b, s:s}",
            "id", sqlite3_column_int(st, 0), "name", (const char *)sqlite3_column_text(st, 1),
            "unit", (const char *)sqlite3_column_text(st, 2), "inclusive", sqlite3_column_int(st, 3),
            "partner", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int(st, 4)),
            "derived", sqlite3_column_int(st, 5), "source", (const char *)sqlite3_column_text(st, 6)));
    sqlite3_finalize(st);
    return list;
}

int ari_profile_cct_json(ari_store *s, int64_t trace_id, const char *metric, int depth,
                         double filter, char **json_out, ari_error *err)
{
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    int only = -1, inc;
    if (metric && resolve_metric(s, trace_id, metric, &only, err) < 0)
        return -1;
    if (resolve_metric(s, trace_id, NULL, &inc, err) < 0)
        return -1;
    int64_t n = count_rows(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    /* the filter: inclusive mean against the roots' */
    double *incmean = calloc(n ? (size_t)n : 1, sizeof *incmean);
    int64_t *parent = malloc((n ? (size_t)n : 1) * sizeof *parent);
    char *keep = calloc(n ? (size_t)n : 1, 1);
    if (!incmean || !parent || !keep) {
        free(incmean), free(parent), free(keep);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    sqlite3_stmt *st;
    rc = prepare(s, "SELECT n.node_id, coalesce(n.parent_id, -1), coalesce(v.vmean, 0) FROM cct_nodes n"
                    " LEFT JOIN profile_values v ON v.trace_id = n.trace_id AND v.node_id = n.node_id"
                    " AND v.metric_id = ?2 WHERE n.trace_id = ?1 ORDER BY n.node_id", &st, err);
    double root_total = 0;
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, trace_id);
        sqlite3_bind_int(st, 2, inc);
        for (int64_t i = 0; i < n && sqlite3_step(st) == SQLITE_ROW; i++) {
            parent[i] = sqlite3_column_int64(st, 1);
            incmean[i] = sqlite3_column_double(st, 2);
            if (parent[i] < 0)
                root_total += incmean[i];
        }
        sqlite3_finalize(st);
    }
    int64_t kept = 0;
    for (int64_t i = n - 1; i >= 0 && rc == 0; i--) {
        if (filter <= 0 || incmean[i] >= filter * root_total || keep[i])
            keep[i] = 1;
        if (keep[i] && parent[i] >= 0 && parent[i] < i)
            keep[parent[i]] = 1; /* ancestors stay, so the tree stays connected */
    }
    json_t *tree = json_array(), *doc = NULL;
    json_t **by_node = calloc(n ? (size_t)n : 1, sizeof *by_node);
    if (rc == 0 && !by_node)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = prepare(s, "SELECT node_id, parent_id, name, module, file, line, kind, depth FROM cct_nodes"
                        " WHERE trace_id = ?1 ORDER BY node_id", &st, err);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, trace_id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            int d = sqlite3_column_int(st, 7);
            if (id < 0 || id >= n || !keep[id] || (depth >= 0 && d > depth))
                continue;
            json_t *node = json_pack("{s:I, s:o, s:s, s:s, s:s, s:i, s:s, s:i, s:{}}", "id", (json_int_t)id,
                "parent", sqlite3_column_type(st, 1) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 1)),
                "name", (const char *)sqlite3_column_text(st, 2), "module", (const char *)sqlite3_column_text(st, 3),
                "file", (const char *)sqlite3_column_text(st, 4), "line", sqlite3_column_int(st, 5),
                "kind", (const char *)sqlite3_column_text(st, 6), "depth", d, "metrics");
            by_node[id] = node;
            json_array_append_new(tree, node);
            kept++;
        }
        sqlite3_finalize(st);
        rc = prepare(s, "SELECT v.node_id, m.name, v.vmean, v.vmin, v.vmax FROM profile_values v"
                        " JOIN profile_metrics m ON m.trace_id = v.trace_id AND m.metric_id = v.metric_id"
                        " WHERE v.trace_id = ?1 AND (?2 < 0 OR v.metric_id = ?2) ORDER BY v.metric_id, v.node_id",
                     &st, err);
    }
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, trace_id);
        sqlite3_bind_int(st, 2, only);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            if (id < 0 || id >= n || !by_node[id])
                continue;
            json_object_set_new(json_object_get(by_node[id], "metrics"), (const char *)sqlite3_column_text(st, 1),
                                json_pack("{s:o, s:o, s:o}", "mean", column_real(st, 2), "min", column_real(st, 3),
                                          "max", column_real(st, 4)));
        }
        sqlite3_finalize(st);
        char inc_name[512];
        json_t *metrics = metrics_list(s, trace_id, err);
        if (!metrics || metric_name(s, trace_id, inc, inc_name, sizeof inc_name, err) < 0) {
            json_decref(metrics);
            rc = -1;
        } else {
            doc = json_pack("{s:I, s:I, s:I, s:I, s:o, s:s, s:f, s:o, s:o, s:o}", "trace_id", (json_int_t)trace_id,
                "nodes", (json_int_t)n, "shown", (json_int_t)kept,
                "processes", (json_int_t)count_rows(s, "SELECT count(*) FROM profile_procs WHERE trace_id = ?1", trace_id, err),
                "metrics", metrics, "inclusive_metric", inc_name, "root_inclusive", root_total,
                "filter", filter > 0 ? json_real(filter) : json_null(),
                "depth", depth >= 0 ? json_integer(depth) : json_null(), "tree", json_incref(tree));
        }
    }
    json_decref(tree);
    free(by_node);
    free(incmean);
    free(parent);
    free(keep);
    if (rc != 0 || !doc) {
        json_decref(doc);
        return rc ? rc : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return dump(doc, json_out, err);
}

/* The values of one (metric, node) BLOB with the processes' rank and
 * thread; *np gets their number. */
static int node_values(ari_store *s, int64_t trace_id, int metric, int64_t node, double **vals, int **rank,
                       int **thread, int64_t *np, ari_error *err)
{
    *vals = NULL;
    *rank = *thread = NULL;
    int64_t n = count_rows(s, "SELECT count(*) FROM profile_procs WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    *np = n;
    *vals = malloc((n ? (size_t)n : 1) * sizeof **vals);
    *rank = malloc((n ? (size_t)n : 1) * sizeof **rank);
    *thread = malloc((n ? (size_t)n : 1) * sizeof **thread);
    if (!*vals || !*rank || !*thread)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    sqlite3_stmt *st;
    if (prepare(s, "SELECT rank, thread FROM profile_procs WHERE trace_id = ?1 ORDER BY proc", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    for (int64_t k = 0; k < n && sqlite3_step(st) == SQLITE_ROW; k++) {
        (*rank)[k] = sqlite3_column_int(st, 0);
        (*thread)[k] = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (prepare(s, "SELECT vals FROM profile_values WHERE trace_id = ?1 AND metric_id = ?2 AND node_id = ?3",
                &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int(st, 2, metric);
    sqlite3_bind_int64(st, 3, node);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        rc = decode_blob(sqlite3_column_blob(st, 0), sqlite3_column_bytes(st, 0), n, *vals) < 0
                 ? ari_error_set(err, ARI_E_DB, "profile values of node %lld: bad size", (long long)node) : 0;
    } else if (rc == SQLITE_DONE) {
        int64_t nodes = count_rows(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
        if (node >= 0 && node < nodes) { /* a node without values for this metric */
            for (int64_t k = 0; k < n; k++)
                (*vals)[k] = NAN;
            rc = 0;
        } else {
            rc = ari_error_set(err, ARI_E_NOT_FOUND, "no node %lld in trace %lld", (long long)node,
                               (long long)trace_id);
        }
    } else {
        rc = ari_store_fail(s, err, "profile values");
    }
    sqlite3_finalize(st);
    return rc;
}

static json_t *node_info(ari_store *s, int64_t trace_id, int64_t node)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT name, module, file, line, kind FROM cct_nodes WHERE trace_id = ?1 AND node_id = ?2",
                &st, NULL) < 0)
        return json_null();
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int64(st, 2, node);
    json_t *out = sqlite3_step(st) == SQLITE_ROW
        ? json_pack("{s:I, s:s, s:s, s:s, s:i, s:s}", "id", (json_int_t)node, "name", sqlite3_column_text(st, 0),
                    "module", sqlite3_column_text(st, 1), "file", sqlite3_column_text(st, 2),
                    "line", sqlite3_column_int(st, 3), "kind", sqlite3_column_text(st, 4))
        : json_null();
    sqlite3_finalize(st);
    return out;
}

int ari_profile_node_ranks_json(ari_store *s, int64_t trace_id, int64_t node, const char *metric,
                                int bins, char **json_out, ari_error *err)
{
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    if (bins < 1 || bins > 1000)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "bins must be in 1..1000");
    int m;
    char mname[512];
    if (resolve_metric(s, trace_id, metric, &m, err) < 0 || metric_name(s, trace_id, m, mname, sizeof mname, err) < 0)
        return -1;
    double *v;
    int *rank, *thread;
    int64_t np;
    rc = node_values(s, trace_id, m, node, &v, &rank, &thread, &np, err);
    if (rc == 0) {
        double lo = INFINITY, hi = -INFINITY, sum = 0, sq = 0;
        int64_t count = 0;
        json_t *ranks = json_array();
        for (int64_t k = 0; k < np; k++) {
            json_array_append_new(ranks, json_pack("{s:i, s:i, s:o}", "rank", rank[k], "thread", thread[k],
                                                   "value", real_or_null(v[k])));
            if (isnan(v[k]))
                continue;
            lo = fmin(lo, v[k]);
            hi = fmax(hi, v[k]);
            sum += v[k];
            sq += v[k] * v[k];
            count++;
        }
        double mean = count ? sum / (double)count : NAN;
        double var = count ? fmax(0, sq / (double)count - mean * mean) : NAN;
        json_t *hist = json_array();
        json_t **members = calloc((size_t)bins, sizeof *members);
        int64_t *counts = calloc((size_t)bins, sizeof *counts);
        for (int b = 0; members && b < bins; b++)
            members[b] = json_array();
        for (int64_t k = 0; members && counts && k < np; k++) {
            if (isnan(v[k]))
                continue;
            int b = hi > lo ? (int)((v[k] - lo) / (hi - lo) * bins) : bins / 2;
            if (b >= bins)
                b = bins - 1; /* the last bin is closed */
            counts[b]++;
            json_array_append_new(members[b], json_integer(rank[k]));
        }
        for (int b = 0; members && counts && b < bins; b++) {
            double x0 = count && hi > lo ? lo + (hi - lo) * b / bins : (count ? lo : NAN);
            double x1 = count && hi > lo ? lo + (hi - lo) * (b + 1) / bins : (count ? hi : NAN);
            json_array_append_new(hist, json_pack("{s:o, s:o, s:I, s:o}", "lo", real_or_null(x0), "hi", real_or_null(x1),
                                                  "count", (json_int_t)counts[b], "ranks", members[b]));
        }
        free(members);
        free(counts);
        json_t *doc = json_pack("{s:I, s:o, s:s, s:I, s:{s:I, s:o, s:o, s:o, s:o, s:o, s:o}, s:i, s:o, s:o}",
            "trace_id", (json_int_t)trace_id, "node", node_info(s, trace_id, node), "metric", mname,
            "processes", (json_int_t)np, "stats", "count", (json_int_t)count, "min", real_or_null(count ? lo : NAN),
            "max", real_or_null(count ? hi : NAN), "mean", real_or_null(mean), "sum", real_or_null(count ? sum : NAN),
            "stddev", real_or_null(sqrt(var)),
            "imbalance", real_or_null(count && mean != 0 ? (hi - mean) / mean : NAN),
            "bins", bins, "histogram", hist, "ranks", ranks);
        rc = doc ? dump(doc, json_out, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    free(v);
    free(rank);
    free(thread);
    return rc;
}

int ari_profile_scatter_json(ari_store *s, int64_t trace_id, int64_t node, const char *x,
                             const char *y, char **json_out, ari_error *err)
{
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    if (!x || !y)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "x and y (metric names) are required");
    int mx, my;
    if (resolve_metric(s, trace_id, x, &mx, err) < 0 || resolve_metric(s, trace_id, y, &my, err) < 0)
        return -1;
    if (node < 0) {
        sqlite3_stmt *st;
        if (prepare(s, "SELECT min(node_id) FROM cct_nodes WHERE trace_id = ?1 AND parent_id IS NULL", &st, err) < 0)
            return -1;
        sqlite3_bind_int64(st, 1, trace_id);
        node = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
    }
    double *vx = NULL, *vy = NULL;
    int *rank = NULL, *thread = NULL, *rank2 = NULL, *thread2 = NULL;
    int64_t np = 0, np2 = 0;
    rc = node_values(s, trace_id, mx, node, &vx, &rank, &thread, &np, err);
    if (rc == 0)
        rc = node_values(s, trace_id, my, node, &vy, &rank2, &thread2, &np2, err);
    if (rc == 0) {
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        int64_t n = 0;
        json_t *points = json_array();
        for (int64_t k = 0; k < np; k++) {
            if (isnan(vx[k]) || isnan(vy[k]))
                continue;
            json_array_append_new(points, json_pack("{s:i, s:i, s:f, s:f}", "rank", rank[k], "thread", thread[k],
                                                    "x", vx[k], "y", vy[k]));
            n++;
            sx += vx[k];
            sy += vy[k];
        }
        double mxv = n ? sx / (double)n : NAN, myv = n ? sy / (double)n : NAN;
        for (int64_t k = 0; k < np; k++) { /* centred sums, for accuracy */
            if (isnan(vx[k]) || isnan(vy[k]))
                continue;
            double dx = vx[k] - mxv, dy = vy[k] - myv;
            sxx += dx * dx;
            syy += dy * dy;
            sxy += dx * dy;
        }
        double slope = n >= 2 && sxx > 0 ? sxy / sxx : NAN;
        double intercept = isnan(slope) ? NAN : myv - slope * mxv;
        double r = n >= 2 && sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
        char xn[512], yn[512];
        metric_name(s, trace_id, mx, xn, sizeof xn, err);
        metric_name(s, trace_id, my, yn, sizeof yn, err);
        json_t *doc = json_pack("{s:I, s:o, s:s, s:s, s:I, s:o, s:{s:o, s:o, s:o, s:o}}", "trace_id", (json_int_t)trace_id,
            "node", node_info(s, trace_id, node), "x", xn, "y", yn, "n", (json_int_t)n, "points", points,
            "fit", "slope", real_or_null(slope), "intercept", real_or_null(intercept),
            "r", real_or_null(r), "r2", real_or_null(r * r));
        rc = doc ? dump(doc, json_out, err) : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    free(vx);
    free(vy);
    free(rank);
    free(thread);
    free(rank2);
    free(thread2);
    return rc;
}

/* ---- text tree ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_add(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

int ari_profile_tree_text(ari_store *s, int64_t trace_id, const char *metric, int precision,
                          int64_t rank, int64_t thread, char **text_out, ari_error *err)
{
    *text_out = NULL;
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    if (precision < 0 || precision > 17)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "precision must be in 0..17");
    int m;
    if (resolve_metric(s, trace_id, metric, &m, err) < 0)
        return -1;
    sqlite3_stmt *st;
    if (prepare(s, "SELECT proc FROM profile_procs WHERE trace_id = ?1 AND rank = ?2 AND thread = ?3", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int64(st, 2, rank);
    sqlite3_bind_int64(st, 3, thread);
    int proc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (proc < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no process with rank %lld thread %lld",
                             (long long)rank, (long long)thread);
    int64_t n = count_rows(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    int has_files = (int)count_rows(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1 AND file <> ''",
                                    trace_id, err) > 0;
    if (n < 0)
        return -1;
    /* nodes come depth first: a node's ancestors are the path of "last
     * child" flags on a stack indexed by depth */
    int64_t *parent = malloc((n ? (size_t)n : 1) * sizeof *parent);
    int64_t *last_child = malloc((n ? (size_t)n : 1) * sizeof *last_child);
    int *depth = malloc((n ? (size_t)n : 1) * sizeof *depth);
    char *last_at = malloc((n ? (size_t)n : 1) + 1);
    char **lines = calloc(n ? (size_t)n : 1, sizeof *lines);
    if (!parent || !last_child || !depth || !last_at || !lines) {
        free(parent), free(last_child), free(depth), free(last_at), free(lines);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    rc = prepare(s, "SELECT n.node_id, coalesce(n.parent_id, -1), n.name, n.file, substr(v.vals, ?3 * 8 + 1, 8),"
                    " n.depth FROM cct_nodes n LEFT JOIN profile_values v ON v.trace_id = n.trace_id"
                    " AND v.node_id = n.node_id AND v.metric_id = ?2 WHERE n.trace_id = ?1 ORDER BY n.node_id",
                 &st, err);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, trace_id);
        sqlite3_bind_int(st, 2, m);
        sqlite3_bind_int(st, 3, proc);
        for (int64_t i = 0; i < n && sqlite3_step(st) == SQLITE_ROW; i++) {
            parent[i] = sqlite3_column_int64(st, 1);
            depth[i] = sqlite3_column_int(st, 5);
            last_child[i] = -1;
            if (parent[i] >= 0 && parent[i] < i)
                last_child[parent[i]] = i;
            double v = NAN;
            if (sqlite3_column_bytes(st, 4) == 8)
                v = read_le_double(sqlite3_column_blob(st, 4));
            const char *name = (const char *)sqlite3_column_text(st, 2), *file = (const char *)sqlite3_column_text(st, 3);
            if (asprintf(&lines[i], "%.*f %s%s%s", precision, v, name, has_files ? " " : "", has_files ? file : "") < 0)
                lines[i] = NULL;
        }
        sqlite3_finalize(st);
    }
    sbuf out = {0};
    for (int64_t i = 0; i < n && rc == 0; i++) {
        int d = depth[i] >= 0 && depth[i] < n ? depth[i] : 0;
        last_at[d] = parent[i] < 0 || last_child[parent[i]] == i;
        for (int a = 1; a < d; a++) /* the ancestors' continuation bars */
            sb_add(&out, last_at[a] ? "   " : "\xe2\x94\x82  ");
        if (d > 0)
            sb_add(&out, last_at[d] ? "\xe2\x94\x94\xe2\x94\x80 " : "\xe2\x94\x9c\xe2\x94\x80 ");
        sb_add(&out, lines[i] ? lines[i] : "");
        sb_add(&out, "\n");
        if (out.len > ((size_t)1 << 28))
            rc = ari_error_set(err, ARI_E_TOO_LARGE, "the tree text would exceed 256 MiB: ask for a subtree");
    }
    if (rc == 0 && !out.p && !out.failed)
        out.p = strdup("");
    if (rc == 0 && (out.failed || !out.p))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(parent);
    free(last_child);
    free(depth);
    free(last_at);
    if (rc != 0) {
        free(out.p);
        return rc;
    }
    *text_out = out.p;
    return 0;
}
