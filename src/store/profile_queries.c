/* profile_queries.c: reading profiles back (see profile_queries.h): the
 * whole CCT for the analyses, and the rows of the profile endpoints as
 * structs, reading only the rows and BLOBs they need. */
#include "store/profile_queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/free_all.h"
#include "util/le.h"
#include "util/strpool.h"

/* ---- helpers ---- */

/* Whether an event trace holds the calling context tree derived from it
 * (ingest/event_cct.h): 0 yes, 2 no (err set), -1 error. */
static int check_derived_cct(ari_store *s, int64_t trace_id, ari_error *err)
{
    int64_t one = 0;
    ari_stmt *st =
        ari_store_stmt_id(s, "SELECT 1 FROM profile_metrics WHERE trace_id = ?1 LIMIT 1", trace_id, err);
    int rc = st ? ari_store_query_int64(s, st, &one, "derived calling context tree", err) : -1;
    if (rc == 1)
        ari_error_set(err, ARI_E_NOT_A_PROFILE,
                      "trace %lld is an event trace without a derived calling context tree (import it again)",
                      (long long)trace_id);
    return rc == 1 ? 2 : rc;
}

/* 0 if the trace is a profile (or an event trace with its derived CCT,
 * issue 19), 1 absent, 2 another kind, -1 error. */
static int check_profile(ari_store *s, int64_t trace_id, ari_error *err)
{
    char *kind = NULL;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT kind FROM traces WHERE id = ?1", trace_id, err);
    int rc = st ? ari_store_query_string(s, st, "", &kind, "trace kind", err) : -1;
    if (rc == 1)
        ari_error_set(err, ARI_E_NOT_FOUND, "no trace %lld", (long long)trace_id);
    if (rc == 0 && strcmp(kind, "events") == 0) {
        free(kind);
        return check_derived_cct(s, trace_id, err);
    }
    if (rc == 0 && strcmp(kind, "profile") != 0) {
        ari_error_set(err, ARI_E_NOT_A_PROFILE, "trace %lld is of kind '%s', not a profile",
                      (long long)trace_id, kind);
        rc = 2;
    }
    free(kind);
    return rc;
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
        out[k] = ari_le_get_f64((const unsigned char *)blob + 8 * k);
    return 0;
}

static char *dup_column(ari_stmt *st, int col)
{
    const char *t = (const char *)ari_col_text(st, col);
    return strdup(t ? t : "");
}

/* The one integer a query of the trace yields (a count, a node id), or
 * -1 with err set. */
static int64_t query_int(ari_store *s, const char *sql, int64_t trace_id, ari_error *err)
{
    int64_t n = -1;
    ari_stmt *st = ari_store_stmt_id(s, sql, trace_id, err);
    if (st && ari_store_query_int64(s, st, &n, "count", err) == 1)
        ari_store_fail(s, err, "count");
    return n;
}

int ari_profile_size(ari_store *s, int64_t trace_id, int64_t *nnodes, int64_t *nprocs, ari_error *err)
{
    *nnodes = query_int(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    *nprocs = *nnodes < 0 ? -1 : query_int(s, "SELECT count(*) FROM profile_procs WHERE trace_id = ?1", trace_id, err);
    return *nnodes < 0 || *nprocs < 0 ? -1 : 0;
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
    double **node_sum, **node_mean; /* summaries only */
    ari_strpool *pool;              /* summaries only: the node strings */
} cct_build;

/* Column col as a string: malloc'd, or the pool's when the build has one
 * (interned when `shared`: modules, files and kinds repeat; names rarely). */
static char *column_string(cct_build *b, ari_stmt *st, int col, int shared)
{
    if (!b->pool)
        return dup_column(st, col);
    const char *t = (const char *)ari_col_text(st, col);
    size_t len = t ? (size_t)ari_col_bytes(st, col) : 0;
    return shared ? ari_strpool_intern(b->pool, t ? t : "", len) : ari_strpool_copy(b->pool, t ? t : "", len);
}

static int load_nodes(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    /* ids are 0..n-1 (checked below): max + 1 is the count, from the key alone */
    int64_t n = query_int(s, "SELECT coalesce(max(node_id) + 1, 0) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
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
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT node_id, parent_id, name, module, file, line, kind FROM cct_nodes"
                          " WHERE trace_id = ?1 ORDER BY node_id",
                          trace_id, err);
    if (!st)
        return -1;
    int64_t i = 0;
    int rc = 0, step;
    while ((step = ari_step(st)) == ARI_ROW && i < n) {
        int64_t parent = ari_col_type(st, 1) == ARI_NULL ? -1 : ari_col_int64(st, 1);
        if (ari_col_int64(st, 0) != i || parent >= i) {
            rc = ari_error_set(err, ARI_E_DB, "cct_nodes of trace %lld are not in parent order",
                               (long long)trace_id);
            break;
        }
        b->parent[i] = parent;
        b->name[i] = column_string(b, st, 2, 0);
        b->module[i] = column_string(b, st, 3, 1);
        b->file[i] = column_string(b, st, 4, 1);
        b->line[i] = ari_col_int(st, 5);
        b->kind[i] = column_string(b, st, 6, 1);
        if (!b->name[i] || !b->module[i] || !b->file[i] || !b->kind[i]) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        i++;
    }
    if (rc == 0 && step != ARI_DONE && step != ARI_ROW)
        rc = ari_store_fail(s, err, "read cct nodes");
    ari_reset(st);
    return rc;
}

/* The processes' rank and thread by proc: *n of them, in two malloc'd
 * arrays (left to the caller's _free on failure too). */
static int read_procs(ari_store *s, int64_t trace_id, int **rank, int **thread, int64_t *n, ari_error *err)
{
    *n = query_int(s, "SELECT count(*) FROM profile_procs WHERE trace_id = ?1", trace_id, err);
    if (*n < 0)
        return -1;
    *rank = malloc((*n ? (size_t)*n : 1) * sizeof **rank);
    *thread = malloc((*n ? (size_t)*n : 1) * sizeof **thread);
    if (!*rank || !*thread)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT rank, thread FROM profile_procs WHERE trace_id = ?1 ORDER BY proc", trace_id, err);
    if (!st)
        return -1;
    int64_t k = 0;
    while (k < *n && ari_step(st) == ARI_ROW) {
        (*rank)[k] = ari_col_int(st, 0);
        (*thread)[k] = ari_col_int(st, 1);
        k++;
    }
    ari_reset(st);
    return k == *n ? 0 : ari_store_fail(s, err, "read profile processes");
}

static int load_procs(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t n = 0;
    int rc = read_procs(s, trace_id, &b->rank, &b->thread, &n, err);
    c->nprocs = n > 0 ? (int)n : 0;
    return rc;
}

static int load_metrics(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t n = query_int(s, "SELECT count(*) FROM profile_metrics WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    b->metrics = calloc(n ? (size_t)n : 1, sizeof *b->metrics);
    b->values = calloc(n ? (size_t)n : 1, sizeof *b->values);
    if (!b->metrics || !b->values)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    c->nmetrics = (int)n;
    ari_stmt *st =
        ari_store_stmt_id(s,
                          "SELECT name, unit, inclusive, coalesce(partner, -1) FROM profile_metrics"
                          " WHERE trace_id = ?1 ORDER BY metric_id",
                          trace_id, err);
    if (!st)
        return -1;
    int64_t m = 0;
    int rc = 0;
    while (m < n && ari_step(st) == ARI_ROW) {
        b->metrics[m].name = dup_column(st, 0);
        b->metrics[m].unit = dup_column(st, 1);
        b->metrics[m].inclusive = ari_col_int(st, 2);
        b->metrics[m].partner = ari_col_int(st, 3);
        if (!b->metrics[m].name || !b->metrics[m].unit) {
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
            break;
        }
        m++;
    }
    ari_reset(st);
    if (rc == 0 && m != n)
        rc = ari_store_fail(s, err, "read profile metrics");
    return rc;
}

/* Decodes the rows (node, values BLOB) of one metric into v[node * np]. */
static int metric_values(ari_store *s, ari_stmt *st, int64_t trace_id, int64_t nnodes, int64_t np,
                         double *v, ari_error *err)
{
    int step;
    while ((step = ari_step(st)) == ARI_ROW) {
        int64_t node = ari_col_int64(st, 0);
        const void *blob = ari_col_blob(st, 1);
        int bytes = ari_col_bytes(st, 1);
        if (node < 0 || node >= nnodes || decode_blob(blob, bytes, np, v + node * np) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "profile values of trace %lld: bad row for node %lld",
                                 (long long)trace_id, (long long)node);
        }
    }
    return ari_store_rows_end(s, st, step, "read profile values", err);
}

static int load_values(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    int64_t np = c->nprocs, total = c->nnodes * np;
    int rc = 0;
    for (int m = 0; m < c->nmetrics && rc == 0; m++) {
        double *v = malloc((total ? (size_t)total : 1) * sizeof *v);
        if (!v)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld values", (long long)total);
        b->values[m] = v;
        for (int64_t k = 0; k < total; k++)
            v[k] = NAN;
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(m)};
        ari_stmt *st = ari_store_bound(s,
                                           "SELECT node_id, vals FROM profile_values WHERE trace_id = ?1 AND "
                                           "metric_id = ?2 ORDER BY node_id",
                                           args, ARI_NARGS(args), err);
        rc = st ? metric_values(s, st, trace_id, c->nnodes, np, v, err) : -1;
    }
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
    c->node_sum = (const double *const *)b->node_sum;
    c->node_mean = (const double *const *)b->node_mean;
    c->string_pool = b->pool;
}

/* ---- summaries (ensembles) ---- */

static double column_or_nan(ari_stmt *st, int col);

/* One metric's node sums and means from its profile_node_sums row; 1 when
 * the profile has none (imported before sql/013). */
static int stored_sums(ari_store *s, int64_t trace_id, int m, int64_t n, double *sum, double *mean,
                       ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(m)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT sums, means FROM profile_node_sums WHERE trace_id = ?1 AND metric_id = ?2", args,
        ARI_NARGS(args), err);
    if (!st)
        return -1;
    int step = ari_step(st), rc = 1;
    if (step == ARI_ROW) {
        rc = decode_blob(ari_col_blob(st, 0), ari_col_bytes(st, 0), n, sum) < 0 ||
                     decode_blob(ari_col_blob(st, 1), ari_col_bytes(st, 1), n, mean) < 0
                 ? ari_error_set(err, ARI_E_DB, "node sums of trace %lld metric %d: wrong size",
                                 (long long)trace_id, m)
                 : 0;
        step = ari_step(st);
    }
    int end = ari_store_rows_end(s, st, step, "read profile node sums", err);
    return end < 0 ? -1 : rc;
}

/* The same from the per-row vsum and vmean of profile_values. */
static int row_sums(ari_store *s, int64_t trace_id, int m, int64_t n, double *sum, double *mean, ari_error *err)
{
    for (int64_t i = 0; i < n; i++)
        sum[i] = mean[i] = NAN;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(m)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT node_id, vsum, vmean FROM profile_values WHERE trace_id = ?1 AND metric_id = ?2", args,
        ARI_NARGS(args), err);
    if (!st)
        return -1;
    int step;
    while ((step = ari_step(st)) == ARI_ROW) {
        int64_t i = ari_col_int64(st, 0);
        if (i < 0 || i >= n)
            continue;
        sum[i] = column_or_nan(st, 1);
        mean[i] = column_or_nan(st, 2);
    }
    return ari_store_rows_end(s, st, step, "read profile values", err);
}

static int load_sums(ari_store *s, int64_t trace_id, ari_cct *c, cct_build *b, ari_error *err)
{
    size_t nm = c->nmetrics ? (size_t)c->nmetrics : 1, nn = c->nnodes ? (size_t)c->nnodes : 1;
    b->node_sum = calloc(nm, sizeof *b->node_sum);
    b->node_mean = calloc(nm, sizeof *b->node_mean);
    if (!b->node_sum || !b->node_mean)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int m = 0; m < c->nmetrics; m++) {
        b->node_sum[m] = malloc(nn * sizeof(double));
        b->node_mean[m] = malloc(nn * sizeof(double));
        if (!b->node_sum[m] || !b->node_mean[m])
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        int rc = stored_sums(s, trace_id, m, c->nnodes, b->node_sum[m], b->node_mean[m], err);
        if (rc == 1)
            rc = row_sums(s, trace_id, m, c->nnodes, b->node_sum[m], b->node_mean[m], err);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The whole CCT, or its summary: nodes (their strings pooled), processes,
 * metrics and the per-node sums and means instead of every process's
 * values. */
static int load_profile(ari_store *s, int64_t trace_id, int summary, ari_cct *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    cct_build b;
    memset(&b, 0, sizeof b);
    if (summary && !(b.pool = ari_strpool_new()))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    rc = load_nodes(s, trace_id, out, &b, err);
    if (rc == 0)
        rc = load_procs(s, trace_id, out, &b, err);
    if (rc == 0)
        rc = load_metrics(s, trace_id, out, &b, err);
    if (summary) {
        free(b.values); /* a summary has no per-process values (cct.h) */
        b.values = NULL;
    }
    if (rc == 0)
        rc = summary ? load_sums(s, trace_id, out, &b, err) : load_values(s, trace_id, out, &b, err);
    publish(out, &b); /* so that ari_cct_free releases partial work too */
    if (rc != 0) {
        ari_cct_free(out);
        return -1;
    }
    return 0;
}

int ari_profile_load(ari_store *s, int64_t trace_id, ari_cct *out, ari_error *err)
{
    return load_profile(s, trace_id, 0, out, err);
}

int ari_profile_load_summary(ari_store *s, int64_t trace_id, ari_cct *out, ari_error *err)
{
    return load_profile(s, trace_id, 1, out, err);
}

void ari_cct_free(ari_cct *c)
{
    if (!c)
        return;
    for (int64_t i = 0; !c->string_pool && i < c->nnodes; i++) {
        if (c->name)
            free((char *)c->name[i]);
        if (c->module)
            free((char *)c->module[i]);
        if (c->file)
            free((char *)c->file[i]);
        if (c->kind)
            free((char *)c->kind[i]);
    }
    ari_strpool_free(c->string_pool);
    void *owned[] = {(void *)c->parent, (void *)c->name, (void *)c->module,    (void *)c->file,
                     (void *)c->kind,   (void *)c->line, (void *)c->proc_rank, (void *)c->proc_thread};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    for (int m = 0; m < c->nmetrics; m++) {
        if (c->metrics) {
            free((char *)c->metrics[m].name);
            free((char *)c->metrics[m].unit);
        }
        if (c->values)
            free((double *)c->values[m]);
        if (c->node_sum)
            free((double *)c->node_sum[m]);
        if (c->node_mean)
            free((double *)c->node_mean[m]);
    }
    free((void *)c->metrics);
    free((void *)c->values);
    free((void *)c->node_sum);
    free((void *)c->node_mean);
    memset(c, 0, sizeof *c);
}

int ari_cct_metric_index(const ari_cct *c, const char *name)
{
    for (int m = 0; m < c->nmetrics; m++)
        if (strcmp(c->metrics[m].name, name) == 0)
            return m;
    return -1;
}

/* ---- endpoint rows ---- */

/* The metric id of `name`; NULL picks the profile's inclusive time
 * ("time (inc)", else the first inclusive, else metric 0). */
static int resolve_metric(ari_store *s, int64_t trace_id, const char *name, int *metric, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_raw_text(name)};
    ari_stmt *st =
        ari_store_bound(s,
                        name ? "SELECT metric_id FROM profile_metrics WHERE trace_id = ?1 AND name = ?2"
                             : "SELECT metric_id FROM profile_metrics WHERE trace_id = ?1"
                               " ORDER BY name = 'time (inc)' DESC, inclusive DESC, metric_id LIMIT 1",
                        args, name ? 2 : 1, err);
    int64_t id = 0;
    int rc = st ? ari_store_query_int64(s, st, &id, "metric", err) : -1;
    *metric = (int)id;
    if (rc == 1)
        return name ? ari_error_set(err, ARI_E_INVALID_PARAMETER, "no metric '%s' in trace %lld", name,
                                    (long long)trace_id)
                    : ari_error_set(err, ARI_E_INVALID_PARAMETER, "trace %lld has no metrics", (long long)trace_id);
    return rc;
}

/* The name of a metric id (malloc'd into *out). */
static int metric_name(ari_store *s, int64_t trace_id, int metric, char **out, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(metric)};
    ari_stmt *st =
        ari_store_bound(s, "SELECT name FROM profile_metrics WHERE trace_id = ?1 AND metric_id = ?2", args,
                        ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_store_query_string(s, st, "", out, "metric name", err);
    return rc == 1 ? ari_store_fail(s, err, "metric name") : rc;
}

static double column_or_nan(ari_stmt *st, int col)
{
    return ari_col_type(st, col) == ARI_NULL ? NAN : ari_col_double(st, col);
}

static void node_row_free(ari_profile_node_row *r)
{
    void *owned[] = {r->name, r->module, r->file, r->kind};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* Columns from `col`: name, module, file, line, kind. */
static int node_row_read(ari_stmt *st, int col, ari_profile_node_row *r, ari_error *err)
{
    r->name = dup_column(st, col);
    r->module = dup_column(st, col + 1);
    r->file = dup_column(st, col + 2);
    r->line = ari_col_int(st, col + 3);
    r->kind = dup_column(st, col + 4);
    return r->name && r->module && r->file && r->kind ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

/* ---- /cct ---- */

static int summary_metrics(ari_store *s, int64_t trace_id, ari_profile_summary *p, ari_error *err)
{
    int64_t n = query_int(s, "SELECT count(*) FROM profile_metrics WHERE trace_id = ?1", trace_id, err);
    if (n < 0)
        return -1;
    if (!(p->metrics = calloc(n ? (size_t)n : 1, sizeof *p->metrics)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT metric_id, name, unit, inclusive, partner, derived, source FROM profile_metrics"
        " WHERE trace_id = ?1 ORDER BY metric_id",
        trace_id, err);
    if (!st)
        return -1;
    int rc = 0;
    while (rc == 0 && p->nmetrics < n && ari_step(st) == ARI_ROW) {
        ari_profile_metric_info *m = &p->metrics[p->nmetrics++];
        m->id = ari_col_int(st, 0);
        m->name = dup_column(st, 1);
        m->unit = dup_column(st, 2);
        m->inclusive = ari_col_int(st, 3);
        m->partner = ari_col_type(st, 4) == ARI_NULL ? -1 : ari_col_int(st, 4);
        m->derived = ari_col_int(st, 5);
        m->source = dup_column(st, 6);
        if (!m->name || !m->unit || !m->source)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_reset(st);
    return rc;
}

/* The nodes and each one's inclusive mean (0 where absent). */
static int summary_nodes(ari_store *s, int64_t trace_id, ari_profile_summary *p, ari_error *err)
{
    int64_t n = p->nnodes;
    p->nodes = calloc(n ? (size_t)n : 1, sizeof *p->nodes);
    p->incmean = calloc(n ? (size_t)n : 1, sizeof *p->incmean);
    if (!p->nodes || !p->incmean)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(p->inclusive)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT n.node_id, coalesce(n.parent_id, -1), n.name, n.module, n.file, n.line, n.kind,"
        " n.depth, coalesce(v.vmean, 0) FROM cct_nodes n LEFT JOIN profile_values v"
        " ON v.trace_id = n.trace_id AND v.node_id = n.node_id AND v.metric_id = ?2"
        " WHERE n.trace_id = ?1 ORDER BY n.node_id",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = 0;
    for (int64_t i = 0; rc == 0 && i < n && ari_step(st) == ARI_ROW; i++) {
        ari_profile_node_row *r = &p->nodes[i];
        r->id = ari_col_int64(st, 0);
        r->parent = ari_col_int64(st, 1);
        r->depth = ari_col_int(st, 7);
        p->incmean[i] = ari_col_double(st, 8);
        rc = node_row_read(st, 2, r, err);
    }
    ari_reset(st);
    return rc;
}

static int stat_read(ari_stmt *st, void *item, const void *ctx)
{
    (void)ctx;
    ari_profile_stat_row *r = item;
    r->node = ari_col_int64(st, 0);
    r->metric = ari_col_int(st, 1);
    r->mean = column_or_nan(st, 2);
    r->min = column_or_nan(st, 3);
    r->max = column_or_nan(st, 4);
    return 0;
}

/* The summaries of metric `only` (< 0: all), by metric then node. */
static int summary_stats(ari_store *s, int64_t trace_id, int only, ari_profile_summary *p, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(only)};
    ari_stmt *st =
        ari_store_bound(s,
                        "SELECT node_id, metric_id, vmean, vmin, vmax FROM profile_values"
                        " WHERE trace_id = ?1 AND (?2 < 0 OR metric_id = ?2) ORDER BY metric_id, node_id",
                        args, ARI_NARGS(args), err);
    return st ? ari_store_read_rows(s, st, (void **)&p->stats, &p->nstats, sizeof *p->stats, stat_read, NULL,
                                    "profile summaries", err)
              : -1;
}

int ari_profile_summary_load(ari_store *s, int64_t trace_id, const char *metric, ari_profile_summary *out,
                             ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    int only = -1;
    if (metric && resolve_metric(s, trace_id, metric, &only, err) < 0)
        return -1;
    if (resolve_metric(s, trace_id, NULL, &out->inclusive, err) < 0)
        return -1;
    if (ari_profile_size(s, trace_id, &out->nnodes, &out->nprocs, err) < 0)
        rc = -1;
    if (rc == 0)
        rc = summary_nodes(s, trace_id, out, err);
    if (rc == 0)
        rc = summary_stats(s, trace_id, only, out, err);
    if (rc == 0)
        rc = summary_metrics(s, trace_id, out, err);
    if (rc == 0 && !ari_profile_summary_metric(out, out->inclusive))
        rc = ari_error_set(err, ARI_E_DB, "metric %d of trace %lld is missing", out->inclusive, (long long)trace_id);
    if (rc != 0) {
        ari_profile_summary_free(out);
        return -1;
    }
    return 0;
}

void ari_profile_summary_free(ari_profile_summary *p)
{
    for (int64_t i = 0; p->nodes && i < p->nnodes; i++)
        node_row_free(&p->nodes[i]);
    for (int m = 0; m < p->nmetrics; m++) {
        void *owned[] = {p->metrics[m].name, p->metrics[m].unit, p->metrics[m].source};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    void *owned[] = {p->nodes, p->incmean, p->metrics, p->stats};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(p, 0, sizeof *p);
}

const ari_profile_metric_info *ari_profile_summary_metric(const ari_profile_summary *p, int id)
{
    for (int m = 0; m < p->nmetrics; m++)
        if (p->metrics[m].id == id)
            return &p->metrics[m];
    return NULL;
}

/* ---- one node's values ---- */

static int node_info(ari_store *s, int64_t trace_id, int64_t node, ari_profile_node_info *out, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(node)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT name, module, file, line, kind FROM cct_nodes WHERE trace_id = ?1 AND node_id = ?2", args,
        ARI_NARGS(args), err);
    if (!st)
        return -1;
    out->row.id = node;
    out->row.parent = -1;
    int rc = ari_store_step_row(s, st, "node", err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    out->found = 1;
    rc = node_row_read(st, 0, &out->row, err);
    ari_reset(st);
    return rc;
}

static int node_procs(ari_store *s, int64_t trace_id, ari_profile_node_values *v, ari_error *err)
{
    int64_t n = 0;
    int rc = read_procs(s, trace_id, &v->rank, &v->thread, &n, err);
    v->nprocs = n > 0 ? n : 0;
    return rc;
}

/* The values of one (metric, node) BLOB over n processes into *vals
 * (malloc'd); NAN for a node without values for this metric. */
static int node_blob(ari_store *s, int64_t trace_id, int metric, int64_t node, int64_t n, double **vals,
                     ari_error *err)
{
    if (!(*vals = malloc((n ? (size_t)n : 1) * sizeof **vals)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(metric), ari_arg_int(node)};
    ari_stmt *st = ari_store_bound(
        s, "SELECT vals FROM profile_values WHERE trace_id = ?1 AND metric_id = ?2 AND node_id = ?3", args,
        ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = ari_store_step_row(s, st, "profile values", err);
    if (rc == 0) {
        rc = decode_blob(ari_col_blob(st, 0), ari_col_bytes(st, 0), n, *vals) < 0
                 ? ari_error_set(err, ARI_E_DB, "profile values of node %lld: bad size", (long long)node) : 0;
        ari_reset(st);
        return rc;
    }
    if (rc < 0)
        return -1;
    int64_t nodes = query_int(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    if (!(node >= 0 && node < nodes))
        return ari_error_set(err, ARI_E_NOT_FOUND, "no node %lld in trace %lld", (long long)node,
                             (long long)trace_id);
    for (int64_t k = 0; k < n; k++) /* a node without values for this metric */
        (*vals)[k] = NAN;
    return 0;
}

/* (node, position) pairs by node: the order of one scan of the rows. */
typedef struct node_slot {
    int64_t node, pos;
} node_slot;

static int cmp_slot(const void *x, const void *y)
{
    const node_slot *a = x, *b = y;
    return (a->node > b->node) - (a->node < b->node);
}

/* Decodes the scanned rows (node ascending) into the slots' positions. */
static int scan_rows(ari_store *s, ari_stmt *st, const node_slot *slot, int64_t ns, int nprocs, double *out,
                     ari_error *err)
{
    int64_t k = 0;
    int step;
    while ((step = ari_step(st)) == ARI_ROW) {
        int64_t node = ari_col_int64(st, 0);
        while (k < ns && slot[k].node < node)
            k++;
        for (; k < ns && slot[k].node == node; k++)
            if (decode_blob(ari_col_blob(st, 1), ari_col_bytes(st, 1), nprocs,
                            out + slot[k].pos * nprocs) < 0) {
                ari_reset(st);
                return ari_error_set(err, ARI_E_DB, "profile values of node %lld: bad size", (long long)node);
            }
    }
    return ari_store_rows_end(s, st, step, "read profile values", err);
}

int ari_profile_node_rows(ari_store *s, int64_t trace_id, int metric, const int64_t *nodes, int64_t n,
                          int nprocs, double *out, ari_error *err)
{
    for (int64_t k = 0; k < n * nprocs; k++)
        out[k] = NAN;
    node_slot *slot = malloc(((size_t)n + 1) * sizeof *slot);
    if (!slot)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int64_t ns = 0;
    for (int64_t k = 0; k < n; k++)
        if (nodes[k] >= 0)
            slot[ns++] = (node_slot){nodes[k], k};
    qsort(slot, (size_t)ns, sizeof *slot, cmp_slot);
    int rc = 0;
    if (ns > 0) {
        /* one scan of the rows between the first and the last node: the
         * rows of a profile are stored in node order */
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(metric), ari_arg_int(slot[0].node),
                          ari_arg_int(slot[ns - 1].node)};
        ari_stmt *st = ari_store_bound(s,
                                           "SELECT node_id, vals FROM profile_values WHERE trace_id = ?1 AND "
                                           "metric_id = ?2 AND node_id BETWEEN ?3 AND ?4 ORDER BY node_id",
                                           args, ARI_NARGS(args), err);
        rc = st ? scan_rows(s, st, slot, ns, nprocs, out, err) : -1;
    }
    free(slot);
    return rc;
}

int ari_profile_node_values_load(ari_store *s, int64_t trace_id, int64_t node, const char *metric,
                                 ari_profile_node_values *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    int m;
    if (resolve_metric(s, trace_id, metric, &m, err) < 0 || metric_name(s, trace_id, m, &out->metric, err) < 0 ||
        node_procs(s, trace_id, out, err) < 0 || node_blob(s, trace_id, m, node, out->nprocs, &out->values, err) < 0 ||
        node_info(s, trace_id, node, &out->node, err) < 0) {
        ari_profile_node_values_free(out);
        return -1;
    }
    return 0;
}

int ari_profile_scatter_load(ari_store *s, int64_t trace_id, int64_t node, const char *x, const char *y,
                             ari_profile_node_values *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    if (!x || !y)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "x and y (metric names) are required");
    int mx, my;
    if (resolve_metric(s, trace_id, x, &mx, err) < 0 || resolve_metric(s, trace_id, y, &my, err) < 0)
        return -1;
    if (node < 0 &&
        (node = query_int(
             s, "SELECT coalesce(min(node_id), 0) FROM cct_nodes WHERE trace_id = ?1 AND parent_id IS NULL",
             trace_id, err)) < 0) /* the first root */
        return -1;
    if (node_procs(s, trace_id, out, err) < 0 || node_blob(s, trace_id, mx, node, out->nprocs, &out->values, err) < 0 ||
        node_blob(s, trace_id, my, node, out->nprocs, &out->y, err) < 0 ||
        metric_name(s, trace_id, mx, &out->metric, err) < 0 || metric_name(s, trace_id, my, &out->metric_y, err) < 0 ||
        node_info(s, trace_id, node, &out->node, err) < 0) {
        ari_profile_node_values_free(out);
        return -1;
    }
    return 0;
}

void ari_profile_node_values_free(ari_profile_node_values *v)
{
    node_row_free(&v->node.row);
    void *owned[] = {v->metric, v->metric_y, v->rank, v->thread, v->values, v->y};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(v, 0, sizeof *v);
}

/* ---- /tree ---- */

static int tree_proc(ari_store *s, int64_t trace_id, int64_t rank, int64_t thread, int *proc, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(rank), ari_arg_int(thread)};
    ari_stmt *st =
        ari_store_bound(s, "SELECT proc FROM profile_procs WHERE trace_id = ?1 AND rank = ?2 AND thread = ?3",
                        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int64_t v = -1;
    if (ari_store_query_int64(s, st, &v, "process", err) < 0)
        return -1;
    *proc = (int)v;
    if (v < 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER, "no process with rank %lld thread %lld",
                             (long long)rank, (long long)thread);
    return 0;
}

static int tree_nodes(ari_store *s, int64_t trace_id, int m, int proc, ari_profile_tree_rows *t, ari_error *err)
{
    int64_t n = t->n;
    t->nodes = calloc(n ? (size_t)n : 1, sizeof *t->nodes);
    t->value = malloc((n ? (size_t)n : 1) * sizeof *t->value);
    if (!t->nodes || !t->value)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(m), ari_arg_int(proc)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT n.node_id, coalesce(n.parent_id, -1), n.name, n.file, substr(v.vals, ?3 * 8 + 1, 8),"
        " n.depth FROM cct_nodes n LEFT JOIN profile_values v ON v.trace_id = n.trace_id"
        " AND v.node_id = n.node_id AND v.metric_id = ?2 WHERE n.trace_id = ?1 ORDER BY n.node_id",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc = 0;
    for (int64_t i = 0; rc == 0 && i < n; i++) {
        ari_profile_node_row *r = &t->nodes[i];
        r->id = i;
        r->parent = -1;
        t->value[i] = NAN;
        if (ari_step(st) != ARI_ROW)
            continue; /* rows missing: empty lines, as before */
        r->parent = ari_col_int64(st, 1);
        r->depth = ari_col_int(st, 5);
        if (ari_col_bytes(st, 4) == 8)
            t->value[i] = ari_le_get_f64(ari_col_blob(st, 4));
        r->name = dup_column(st, 2);
        r->file = dup_column(st, 3);
        if (!r->name || !r->file)
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    ari_reset(st);
    return rc;
}

int ari_profile_tree_rows_load(ari_store *s, int64_t trace_id, const char *metric, int64_t rank,
                               int64_t thread, ari_profile_tree_rows *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_profile(s, trace_id, err);
    if (rc != 0)
        return rc;
    int m, proc;
    if (resolve_metric(s, trace_id, metric, &m, err) < 0 || tree_proc(s, trace_id, rank, thread, &proc, err) < 0)
        return -1;
    out->n = query_int(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1", trace_id, err);
    out->has_files =
        query_int(s, "SELECT count(*) FROM cct_nodes WHERE trace_id = ?1 AND file <> ''", trace_id, err) > 0;
    if (out->n < 0) {
        out->n = 0;
        return -1;
    }
    if (tree_nodes(s, trace_id, m, proc, out, err) < 0) {
        ari_profile_tree_rows_free(out);
        return -1;
    }
    return 0;
}

void ari_profile_tree_rows_free(ari_profile_tree_rows *t)
{
    for (int64_t i = 0; t->nodes && i < t->n; i++)
        node_row_free(&t->nodes[i]);
    free(t->nodes);
    free(t->value);
    memset(t, 0, sizeof *t);
}
