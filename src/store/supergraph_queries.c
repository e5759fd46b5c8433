/* supergraph_queries.c: the super graph's per-process sums and the nodes'
 * collapses as PostgreSQL statements over profile_values
 * (supergraph_queries.h): the decoding of a stored double, the terms of
 * fill_metrics, and reading the answers back. */
#include "store/supergraph_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_backend.h"
#include "store/store_internal.h"
#include "util/sbuf.h"

/* The row's BLOB v.vals as w.b, detoasted once: a BLOB of 2 kB or more
 * is stored compressed or out of line, and every get_byte on it would
 * detoast it whole again (O(processes^2) per row). */
#define DETOASTED " CROSS JOIN LATERAL (SELECT v.vals || ''::bytea AS b OFFSET 0) AS w"
/* The double at process k.k of the row's BLOB w.b (profile_values.vals:
 * nprocs little-endian float64), decoded exactly from its bits in the
 * lateral `b` that DECODE_BITS makes: sign, biased exponent e, mantissa
 * m; a normal number is (2^52 + m) 2^(e - 1075), a subnormal m 2^-1074,
 * both products exact (a 53-bit integer times a power of two that
 * power(2, n) gives exactly), e = 2047 an infinity or NaN. */
#define DECODE_BITS                                                                                          \
    " CROSS JOIN LATERAL (SELECT get_byte(w.b, 8 * k.k + 7) >= 128 AS neg,"                                  \
    " ((get_byte(w.b, 8 * k.k + 7) & 127) << 4) | (get_byte(w.b, 8 * k.k + 6) >> 4) AS e,"                   \
    " ((get_byte(w.b, 8 * k.k + 6) & 15)::bigint << 48) | (get_byte(w.b, 8 * k.k + 5)::bigint << 40)"        \
    " | (get_byte(w.b, 8 * k.k + 4)::bigint << 32) | (get_byte(w.b, 8 * k.k + 3)::bigint << 24)"             \
    " | (get_byte(w.b, 8 * k.k + 2)::bigint << 16) | (get_byte(w.b, 8 * k.k + 1)::bigint << 8)"              \
    " | get_byte(w.b, 8 * k.k)::bigint AS m) AS b"
#define DECODED                                                                                              \
    "(CASE WHEN b.e = 2047 THEN CASE WHEN b.m <> 0 THEN 'NaN'::float8"                                       \
    " WHEN b.neg THEN '-Infinity'::float8 ELSE 'Infinity'::float8 END"                                       \
    " WHEN b.neg THEN -((CASE WHEN b.e = 0 THEN b.m ELSE b.m + 4503599627370496 END)::float8"                \
    " * power(2::float8, CASE WHEN b.e = 0 THEN -1074 ELSE b.e - 1075 END))"                                 \
    " ELSE (CASE WHEN b.e = 0 THEN b.m ELSE b.m + 4503599627370496 END)::float8"                             \
    " * power(2::float8, CASE WHEN b.e = 0 THEN -1074 ELSE b.e - 1075 END) END)"
/* Per metric and node, the processes' values with NaN as 0 (zero_nan:
 * nullif evaluates the decoding once). */
#define ZEROED_OF_TWO                                                                                        \
    "(SELECT v.metric_id, v.node_id, coalesce(nullif(" DECODED ", 'NaN'::float8), 0::float8) AS x"           \
    " FROM profile_values v" DETOASTED                                                                       \
    " CROSS JOIN LATERAL generate_series(0, length(w.b) / 8 - 1) AS k(k)" DECODE_BITS                        \
    " WHERE v.trace_id = ?1 AND v.metric_id IN (?2, ?3)) AS q"

/* Per metric (?2, ?3) and node: min and max over the processes
 * (ari_collapse_row's MIN and MAX). */
static const char minmax_sql[] = "SELECT q.metric_id, q.node_id, min(q.x), max(q.x) FROM " ZEROED_OF_TWO
                                 " GROUP BY q.metric_id, q.node_id";

/* Per metric and node: the median over the processes as quantile.c's
 * type 7 at p = 0.5 computes it: the middle value, or (1 - 0.5) lo +
 * 0.5 hi between two different ones. */
static const char median_sql[] =
    "SELECT metric_id, node_id, CASE WHEN n % 2 = 0 AND a[n / 2 + 1] <> a[(n - 1) / 2 + 1]"
    " THEN 0.5::float8 * a[(n - 1) / 2 + 1] + 0.5::float8 * a[n / 2 + 1] ELSE a[(n - 1) / 2 + 1] END"
    " FROM (SELECT q.metric_id, q.node_id, array_agg(q.x ORDER BY q.x) AS a, count(*) AS n "
    "FROM " ZEROED_OF_TWO " GROUP BY q.metric_id, q.node_id) AS r";

/* fill_metrics in SQL. m: the graph's group map (?3, node -> supernode,
 * -1 filtered), parsed once; n: each CCT node with its supernode gi and
 * its parent's gp (-1 for a root or a filtered parent); e: the edges (?4
 * sources, ?5 targets, in the graph's order); t: fill_metrics' terms
 * (kind 0 exc, 1 filtered, 2 inc, 3 root inflow, 4 edge weight; idx the
 * supernode or edge; pos the term's place within its node); d: the
 * processes' values of metric ?2 of each node with a term, decoded once,
 * as one float8[] (NaN as NULL); s: per target, its terms' vectors summed
 * element by element in fill_metrics' order by ari_vsum
 * (sql/pg/functions.sql: from zeros, NULLs skipped, as add_row sums into
 * calloc'd rows); then one row per target, its processes' sums as
 * big-endian float8. One row of nprocs doubles per node goes through the
 * aggregation, not one row per value. */
static const char fill_sql[] =
    "WITH m AS (SELECT u.x - 1 AS node, u.g FROM unnest(?3::bigint[]) WITH ORDINALITY AS u(g, x)),"
    " n AS (SELECT c.node_id AS node, c.parent_id IS NULL AS root, coalesce(mi.g, -1) AS gi,"
    " CASE WHEN c.parent_id IS NULL THEN -1 ELSE coalesce(mp.g, -1) END AS gp"
    " FROM cct_nodes c LEFT JOIN m AS mi ON mi.node = c.node_id LEFT JOIN m AS mp ON mp.node = c.parent_id"
    " WHERE c.trace_id = ?1),"
    " e AS (SELECT u.x - 1 AS idx, u.s, u.t FROM unnest(?4::bigint[], ?5::bigint[]) WITH ORDINALITY AS u(s, "
    "t, x)),"
    " t AS (SELECT node, 0 AS kind, gp AS idx, -1::float8 AS sgn, 0 AS pos FROM n WHERE gp >= 0"
    " UNION ALL SELECT node, 1, gp, 1::float8, 1 FROM n WHERE gp >= 0 AND gi < 0"
    " UNION ALL SELECT node, 0, gi, 1::float8, 2 FROM n WHERE gi >= 0"
    " UNION ALL SELECT node, 2, gi, 1::float8, 3 FROM n WHERE gi >= 0 AND gi <> gp"
    " UNION ALL SELECT node, 3, gi, 1::float8, 4 FROM n WHERE gi >= 0 AND root"
    " UNION ALL SELECT n.node, 4, e.idx, 1::float8, 4 FROM n JOIN e ON e.s = n.gp AND e.t = n.gi"
    " WHERE n.gi >= 0 AND NOT n.root AND n.gp <> n.gi),"
    " d AS MATERIALIZED (SELECT v.node_id AS node, (SELECT array_agg(nullif(" DECODED ", 'NaN'::float8)"
    " ORDER BY k.k) FROM generate_series(0, length(w.b) / 8 - 1) AS k(k)" DECODE_BITS ") AS x"
    " FROM profile_values v" DETOASTED " WHERE v.trace_id = ?1 AND v.metric_id = ?2"
    " AND v.node_id IN (SELECT node FROM t)),"
    " s AS (SELECT t.kind, t.idx, ari_vsum(t.sgn, d.x ORDER BY t.node, t.pos) AS v"
    " FROM t JOIN d ON d.node = t.node GROUP BY t.kind, t.idx)"
    " SELECT s.kind, s.idx, (SELECT string_agg(float8send(u.x), ''::bytea ORDER BY u.k)"
    " FROM unnest(s.v) WITH ORDINALITY AS u(x, k)) FROM s";

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "super graph: out of memory");
}

int ari_sgq_times(const ari_cct *c, int metric, ari_cct_times *t)
{
    memset(t, 0, sizeof *t);
    t->nnodes = c->nnodes;
    t->nprocs = c->nprocs;
    const ari_cct_metric *m = &c->metrics[metric];
    int partner = m->partner;
    if (partner >= 0 && (partner >= c->nmetrics || c->metrics[partner].inclusive == m->inclusive))
        partner = -1; /* ari_cct_times_init's rule: a partner of the same kind is none */
    t->inc_metric = m->inclusive ? metric : partner;
    t->exc_metric = m->inclusive ? partner : metric;
    return t->inc_metric >= 0 && t->exc_metric >= 0 ? 0 : 1;
}

/* Sum and mean from the node sums: ari_collapse_row adds the processes'
 * values in order from 0, NaN as 0, which is how the import summed the
 * measured ones (profile_writer.c row_stats); the mean divides by all. */
static void from_sums(const ari_cct *c, int metric, ari_collapse how, double *out)
{
    const double *sum = c->node_sum[metric];
    for (int64_t i = 0; i < c->nnodes; i++) {
        double v = isnan(sum[i]) ? 0 : sum[i];
        out[i] = c->nprocs == 0 ? 0 : how == ARI_COLLAPSE_SUM ? v : v / c->nprocs;
    }
}

/* min, max or median of every node of both metrics (zero where a node has
 * no row: all its values missing). */
static int from_sql(ari_store *s, int64_t trace_id, const ari_cct *c, const ari_cct_times *t,
                    ari_collapse how, double *vinc, double *vexc, ari_error *err)
{
    memset(vinc, 0, (size_t)c->nnodes * sizeof *vinc);
    memset(vexc, 0, (size_t)c->nnodes * sizeof *vexc);
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(t->inc_metric), ari_arg_int(t->exc_metric)};
    /* (no JIT: the session has it off, pg_backend.c; it compiled this
     * decoding for seconds) */
    ari_stmt *st =
        ari_store_bound(s, how == ARI_COLLAPSE_MEDIAN ? median_sql : minmax_sql, args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int col = how == ARI_COLLAPSE_MAX ? 3 : 2;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t metric = ari_col_int64(st, 0), node = ari_col_int64(st, 1);
        if (node < 0 || node >= c->nnodes)
            continue;
        double v = ari_col_double(st, col);
        if (metric == t->inc_metric)
            vinc[node] = v;
        if (metric == t->exc_metric)
            vexc[node] = v;
    }
    return ari_store_rows_end(s, st, rc, "super graph: collapse the nodes", err);
}

int ari_sgq_collapse(ari_store *s, int64_t trace_id, const ari_cct *c, const ari_cct_times *t,
                     ari_collapse how, double *vinc, double *vexc, ari_error *err)
{
    if (how == ARI_COLLAPSE_SUM || how == ARI_COLLAPSE_MEAN) {
        if (!c->node_sum)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER, "super graph: the profile has no node sums");
        from_sums(c, t->inc_metric, how, vinc);
        from_sums(c, t->exc_metric, how, vexc);
        return 0;
    }
    if (c->nprocs == 0) { /* ari_collapse_row of no process */
        for (int64_t i = 0; i < c->nnodes; i++)
            vinc[i] = vexc[i] = 0;
        return 0;
    }
    return from_sql(s, trace_id, c, t, how, vinc, vexc, err);
}

/* "{a,b,...}": n integers as a PostgreSQL array literal; NULL when out of
 * memory. */
static char *int_array(const int64_t *v, int64_t n)
{
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '{');
    for (int64_t i = 0; i < n; i++) {
        if (i)
            ari_sbuf_add_char(&b, ',');
        ari_sbuf_json_int(&b, v[i]);
    }
    ari_sbuf_add_char(&b, '}');
    if (ari_sbuf_failed(&b)) {
        ari_sbuf_free(&b);
        return NULL;
    }
    return ari_sbuf_take(&b);
}

/* The graph's edges' sources (end 0) or targets (end 1) as an array
 * literal. */
static char *edge_array(const ari_supergraph *g, int end)
{
    int64_t *v = malloc(((size_t)g->nedges + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (int64_t x = 0; x < g->nedges; x++)
        v[x] = end ? g->edges[x].target : g->edges[x].source;
    char *text = int_array(v, g->nedges);
    free(v);
    return text;
}

static double be_double(const unsigned char *p)
{
    uint64_t bits = 0;
    for (int k = 0; k < 8; k++)
        bits = bits << 8 | p[k];
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* The array of g that a row of kind `kind` fills, and its rows. */
static double *target(ari_supergraph *g, int64_t kind, int64_t *rows)
{
    *rows = kind == 4 ? g->nedges : g->nnodes;
    switch (kind) {
    case 0:
        return g->exc;
    case 1:
        return g->filtered;
    case 2:
        return g->inc;
    case 3:
        return g->root_inflow;
    case 4:
        return g->weight;
    default:
        return NULL;
    }
}

static int read_fill(ari_store *s, ari_stmt *st, ari_supergraph *g, ari_error *err)
{
    int np = g->nprocs, rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int64_t rows, idx = ari_col_int64(st, 1);
        double *dst = target(g, ari_col_int64(st, 0), &rows);
        const unsigned char *p = ari_col_blob(st, 2);
        if (!dst || idx < 0 || idx >= rows || !p || ari_col_bytes(st, 2) != 8 * np) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "super graph: a sum of %lld processes has %d bytes",
                                 (long long)np, ari_col_bytes(st, 2));
        }
        for (int k = 0; k < np; k++)
            dst[idx * np + k] = be_double(p + 8 * k);
    }
    return ari_store_rows_end(s, st, rc, "super graph: sum the values", err);
}

int ari_sgq_fill(ari_store *s, int64_t trace_id, int inc_metric, ari_supergraph *g, ari_error *err)
{
    if (g->nprocs == 0 || g->cct_nodes == 0)
        return 0;
    char *groups = int_array(g->group, g->cct_nodes);
    char *sources = edge_array(g, 0), *targets = edge_array(g, 1);
    int rc = -1;
    if (!groups || !sources || !targets) {
        nomem(err);
    } else {
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(inc_metric), ari_arg_raw_text(groups),
                          ari_arg_raw_text(sources), ari_arg_raw_text(targets)};
        ari_stmt *st = ari_store_bound(s, fill_sql, args, ARI_NARGS(args), err);
        rc = st ? read_fill(s, st, g, err) : -1;
    }
    free(groups);
    free(sources);
    free(targets);
    return rc;
}
