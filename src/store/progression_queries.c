/* progression_queries.c: the rows the progression analysis needs (tasks
 * with node, type, resource type, worker and times; worker counts), read in one
 * pass each and turned into the index-based arrays of ari_prog_data; on
 * PostgreSQL, the analysis's sums computed by the database instead
 * (ari_progression_sql). */
#include "store/progression_queries.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

/* Names met while reading, numbered in order of appearance. */
typedef struct name_table {
    ari_strmap *map;   /* name -> index + 1 */
    char **names;
    int count;
    size_t cap;
} name_table;

static int name_index(name_table *t, const char *name)
{
    size_t len = strlen(name);
    void *v = ari_strmap_get(t->map, name, len);
    if (v)
        return (int)((intptr_t)v - 1);
    if (ari_vec_reserve((void **)&t->names, &t->cap, (size_t)t->count + 1, sizeof *t->names) < 0)
        return -1;
    const char *key = ari_strmap_put(t->map, name, len, (void *)(intptr_t)(t->count + 1));
    if (!key || !(t->names[t->count] = strdup(name)))
        return -1;
    return t->count++;
}

static void name_table_free(name_table *t)
{
    for (int i = 0; i < t->count; i++)
        free(t->names[i]);
    free(t->names);
    ari_strmap_free(t->map);
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the names; perm[old index] = new index. Hands the names over. */
static int sorted_names(name_table *t, char ***names_out, int **perm_out)
{
    char **sorted = malloc((size_t)(t->count ? t->count : 1) * sizeof *sorted);
    int *perm = malloc((size_t)(t->count ? t->count : 1) * sizeof *perm);
    if (!sorted || !perm) {
        free(sorted);
        free(perm);
        return -1;
    }
    memcpy(sorted, t->names, (size_t)t->count * sizeof *sorted);
    qsort(sorted, (size_t)t->count, sizeof *sorted, by_string);
    for (int i = 0; i < t->count; i++)
        perm[(intptr_t)ari_strmap_get(t->map, sorted[i], strlen(sorted[i])) - 1] = i;
    free(t->names);
    t->names = NULL;
    t->count = 0;
    *names_out = sorted;
    *perm_out = perm;
    return 0;
}

typedef struct loader {
    ari_store *s;
    int64_t id;
    name_table types, restypes;
    ari_prog_task *tasks; /* node holds the raw node number until remapped */
    long ntasks;
    size_t cap;
} loader;

static int push_task(loader *l, const ari_prog_task *t)
{
    if (ari_vec_reserve((void **)&l->tasks, &l->cap, (size_t)l->ntasks + 1, sizeof *l->tasks) < 0)
        return -1;
    l->tasks[l->ntasks++] = *t;
    return 0;
}

static int read_tasks(loader *l, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(l->s,
        "SELECT t.node, t.type, COALESCE(t.resource_type, w.resource_type), t.start, t.end, "
        "COALESCE(t.worker_id, 0) "
        "FROM tasks t LEFT JOIN workers w ON w.trace_id = t.trace_id AND w.container_id = t.worker_id "
        "WHERE t.trace_id = ?1 ORDER BY t.job_id, t.rowid", l->id, err);
    if (!st)
        return -1;
    ari_stream(st); /* PostgreSQL: a row at a time, not the trace's tasks as a whole result too */
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *type = (const char *)ari_col_text(st, 1);
        const char *res = (const char *)ari_col_text(st, 2);
        ari_prog_task t = {.node = ari_col_int(st, 0), .restype = -1,
                           .start = ari_col_double(st, 3), .end = ari_col_double(st, 4),
                           .worker = ari_col_int64(st, 5)};
        t.type = name_index(&l->types, type ? type : "");
        if (res && *res)
            t.restype = name_index(&l->restypes, res);
        if (t.type < 0 || (res && *res && t.restype < 0) || push_task(l, &t) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        }
    }
    return ari_store_rows_end(l->s, st, rc, "read tasks", err);
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct raw node numbers of the tasks, increasing. */
static int distinct_nodes(const loader *l, int **out, int *n_out)
{
    int *v = malloc((size_t)l->ntasks * sizeof *v);
    if (!v)
        return -1;
    for (long i = 0; i < l->ntasks; i++)
        v[i] = l->tasks[i].node;
    qsort(v, (size_t)l->ntasks, sizeof *v, by_int);
    int n = 0;
    for (long i = 0; i < l->ntasks; i++)
        if (n == 0 || v[n - 1] != v[i])
            v[n++] = v[i];
    *out = v;
    *n_out = n;
    return 0;
}

static int node_slot(const int *ids, int n, int node)
{
    const int *p = bsearch(&node, ids, (size_t)n, sizeof *ids, by_int);
    return p ? (int)(p - ids) : -1;
}

/* Keeps the filtered nodes: checks each exists, then drops other tasks. */
static int apply_node_filter(loader *l, int **ids, int *nids, const int *filter, int nfilter,
                             ari_error *err)
{
    for (int i = 0; i < nfilter; i++)
        if (node_slot(*ids, *nids, filter[i]) < 0)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "nodes: the trace has no node %d (its nodes are %d..%d)", filter[i],
                                 (*ids)[0], (*ids)[*nids - 1]);
    int *keep = malloc((size_t)nfilter * sizeof *keep);
    if (!keep)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    memcpy(keep, filter, (size_t)nfilter * sizeof *keep);
    qsort(keep, (size_t)nfilter, sizeof *keep, by_int);
    int nkeep = 0;
    for (int i = 0; i < nfilter; i++)
        if (nkeep == 0 || keep[nkeep - 1] != keep[i])
            keep[nkeep++] = keep[i];
    long n = 0;
    for (long i = 0; i < l->ntasks; i++)
        if (node_slot(keep, nkeep, l->tasks[i].node) >= 0)
            l->tasks[n++] = l->tasks[i];
    l->ntasks = n;
    free(*ids);
    *ids = keep;
    *nids = nkeep;
    return 0;
}

static int read_workers(loader *l, ari_prog_data *d, int **counts, ari_error *err)
{
    /* Worker rows are few: count per (node, resource type) into a table
     * sized after the names, growing it when a new resource type appears. */
    ari_stmt *st = ari_store_stmt_id(l->s,
        "SELECT node, resource_type, count(*) FROM workers WHERE trace_id = ? GROUP BY 1, 2", l->id, err);
    if (!st)
        return -1;
    int rc, cap = l->restypes.count + 4;
    int *c = calloc((size_t)d->nnodes * cap, sizeof *c);
    if (!c) {
        ari_reset(st);
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    while ((rc = ari_step(st)) == ARI_ROW) {
        int node = node_slot(d->node_ids, d->nnodes, ari_col_int(st, 0));
        const char *res = (const char *)ari_col_text(st, 1);
        if (node < 0 || !res || !*res)
            continue;
        int r = name_index(&l->restypes, res);
        if (r >= cap) {
            int *g = calloc((size_t)d->nnodes * (cap + 4), sizeof *g);
            if (g)
                for (int n = 0; n < d->nnodes; n++)
                    memcpy(g + (size_t)n * (cap + 4), c + (size_t)n * cap, (size_t)cap * sizeof *g);
            free(c);
            c = g;
            cap += 4;
        }
        if (r < 0 || !c) {
            free(c);
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        }
        c[(size_t)node * cap + r] += ari_col_int(st, 2);
    }
    if (ari_store_rows_end(l->s, st, rc, "read workers", err) < 0) {
        free(c);
        return -1;
    }
    *counts = c;
    d->nrestypes = cap; /* the stride for now; finish() narrows it */
    return 0;
}

/* Sorted names, remapped indices, and the worker table in final layout. */
static int finish(loader *l, ari_prog_data *d, const int *counts, int stride)
{
    int *tperm = NULL, *rperm = NULL;
    d->ntypes = l->types.count;
    d->nrestypes = l->restypes.count;
    if (sorted_names(&l->types, &d->type_names, &tperm) < 0 ||
        sorted_names(&l->restypes, &d->restype_names, &rperm) < 0) {
        free(tperm);
        return -1;
    }
    d->workers = calloc((size_t)d->nnodes * (d->nrestypes ? d->nrestypes : 1), sizeof *d->workers);
    if (!d->workers) {
        free(tperm);
        free(rperm);
        return -1;
    }
    for (int n = 0; n < d->nnodes; n++)
        for (int r = 0; r < d->nrestypes; r++)
            d->workers[(size_t)n * d->nrestypes + rperm[r]] = counts[(size_t)n * stride + r];
    for (long i = 0; i < l->ntasks; i++) {
        ari_prog_task *t = &l->tasks[i];
        t->node = node_slot(d->node_ids, d->nnodes, t->node);
        t->type = tperm[t->type];
        t->restype = t->restype >= 0 ? rperm[t->restype] : -1;
    }
    d->tasks = l->tasks;
    d->ntasks = l->ntasks;
    l->tasks = NULL;
    free(tperm);
    free(rperm);
    return 0;
}

/* The common end of both loaders: the node filter, the worker counts and
 * the names sorted (finish). */
static int filter_and_finish(loader *l, const int *filter, int nfilter, ari_prog_data *out, ari_error *err)
{
    if (nfilter > 0 && apply_node_filter(l, &out->node_ids, &out->nnodes, filter, nfilter, err) < 0)
        return -1;
    int *counts = NULL;
    if (read_workers(l, out, &counts, err) < 0)
        return -1;
    int rc = finish(l, out, counts, out->nrestypes);
    free(counts);
    return rc < 0 ? ari_error_set(err, ARI_E_NOMEM, "progression: out of memory") : 0;
}

static int read_time_unit(ari_store *s, int64_t id, char **time_unit, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(s, "SELECT time_unit FROM traces WHERE id = ?", id, err);
    int rc = st ? ari_store_query_string(s, st, "", time_unit, "read trace", err) : -1;
    return rc == 1 ? ARI_PROG_LOAD_NO_TRACE : rc;
}

static int load(loader *l, const int *filter, int nfilter, ari_prog_data *out, ari_error *err)
{
    if (read_tasks(l, err) < 0)
        return -1;
    if (l->ntasks == 0)
        return ARI_PROG_LOAD_NO_TASKS;
    if (distinct_nodes(l, &out->node_ids, &out->nnodes) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    return filter_and_finish(l, filter, nfilter, out, err);
}

int ari_progression_load(ari_store *s, int64_t id, const int *nodes_filter, int nnodes_filter,
                         ari_prog_data *out, char **time_unit, ari_error *err)
{
    memset(out, 0, sizeof *out);
    *time_unit = NULL;
    int rc = read_time_unit(s, id, time_unit, err);
    if (rc != 0)
        return rc;
    loader l = {.s = s, .id = id, .types = {.map = ari_strmap_new()},
                .restypes = {.map = ari_strmap_new()}};
    if (!l.types.map || !l.restypes.map)
        rc = ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    else
        rc = load(&l, nodes_filter, nnodes_filter, out, err);
    name_table_free(&l.types);
    name_table_free(&l.restypes);
    free(l.tasks);
    if (rc != 0) {
        ari_prog_data_free(out);
        free(*time_unit);
        *time_unit = NULL;
    }
    return rc;
}

/* ---- PostgreSQL: the analysis's sums computed by the database ---------------- */

/* The shape without the tasks: every task type, the resource types of
 * the tasks and of the kept nodes' workers, the task nodes (filtered), the
 * worker counts; the names sorted as finish() sorts them. */
static int read_names(loader *l, const char *sql, name_table *t, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(l->s, sql, l->id, err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *name = (const char *)ari_col_text(st, 0);
        if ((t == &l->types || (name && *name)) && name_index(t, name ? name : "") < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        }
    }
    return ari_store_rows_end(l->s, st, rc, "read names", err);
}

static int read_nodes(loader *l, ari_prog_data *d, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(l->s, "SELECT DISTINCT node FROM tasks WHERE trace_id = ?1 ORDER BY 1",
                                     l->id, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&d->node_ids, &cap, (size_t)d->nnodes + 1, sizeof *d->node_ids) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        }
        d->node_ids[d->nnodes++] = ari_col_int(st, 0);
    }
    return ari_store_rows_end(l->s, st, rc, "read nodes", err);
}

static int load_shape(loader *l, const int *filter, int nfilter, ari_prog_data *out, ari_error *err)
{
    if (read_names(l, "SELECT DISTINCT type FROM tasks WHERE trace_id = ?1", &l->types, err) < 0 ||
        read_names(l,
                   "SELECT DISTINCT COALESCE(t.resource_type, w.resource_type) FROM tasks t LEFT JOIN workers w"
                   " ON w.trace_id = t.trace_id AND w.container_id = t.worker_id WHERE t.trace_id = ?1",
                   &l->restypes, err) < 0 ||
        read_nodes(l, out, err) < 0)
        return -1;
    if (out->nnodes == 0)
        return ARI_PROG_LOAD_NO_TASKS;
    return filter_and_finish(l, filter, nfilter, out, err);
}

/* The kept nodes as a PostgreSQL array literal, and the types as one of
 * quoted texts ("\\" and "\"" escaped). */
static char *node_array(const ari_prog_data *d)
{
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '{');
    for (int n = 0; n < d->nnodes; n++)
        ari_sbuf_printf(&b, "%s%d", n ? "," : "", d->node_ids[n]);
    ari_sbuf_add_char(&b, '}');
    return ari_sbuf_failed(&b) ? (ari_sbuf_free(&b), NULL) : ari_sbuf_take(&b);
}

static char *type_array(const ari_prog_data *d)
{
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '{');
    for (int t = 0; t < d->ntypes; t++) {
        ari_sbuf_add_str(&b, t ? ",\"" : "\"");
        for (const char *p = d->type_names[t]; *p; p++) {
            if (*p == '"' || *p == '\\')
                ari_sbuf_add_char(&b, '\\');
            ari_sbuf_add_char(&b, *p);
        }
        ari_sbuf_add_char(&b, '"');
    }
    ari_sbuf_add_char(&b, '}');
    return ari_sbuf_failed(&b) ? (ari_sbuf_free(&b), NULL) : ari_sbuf_take(&b);
}

/* A double precision[] literal of v[n] (reversed and negated when neg),
 * each number with 17 digits: float8in reads back the same double. */
static char *real_array(const double *v, int n, int neg)
{
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '{');
    for (int i = 0; i < n; i++) {
        double x = neg ? -v[n - 1 - i] : v[i];
        if (i)
            ari_sbuf_add_char(&b, ',');
        if (isnan(x))
            ari_sbuf_add_str(&b, "NaN");
        else if (isinf(x))
            ari_sbuf_add_str(&b, x > 0 ? "Infinity" : "-Infinity");
        else
            ari_sbuf_printf(&b, "%.17g", x);
    }
    ari_sbuf_add_char(&b, '}');
    return ari_sbuf_failed(&b) ? (ari_sbuf_free(&b), NULL) : ari_sbuf_take(&b);
}

/* The totals: per node (kind 0: tasks, first start, last end, tasks with
 * a time that is not finite), per (node, type, worker) (1), per (node,
 * type, resource type) (2) and per (resource type, type) over the nodes
 * (3, known resource types); each sum adds the durations in the loader's
 * order (job_id, rowid), as progression.c adds them. */
static const char totals_sql[] =
    "WITH f AS (SELECT t.node AS node, t.type AS type, COALESCE(t.resource_type, w.resource_type) AS restype,"
    " COALESCE(t.worker_id, 0) AS worker, t.start AS start, t.end AS fin,"
    " CASE WHEN t.end > t.start THEN t.end - t.start ELSE 0 END AS d, t.job_id AS job_id, t.rowid AS seq"
    " FROM tasks t LEFT JOIN workers w ON w.trace_id = t.trace_id AND w.container_id = t.worker_id"
    " WHERE t.trace_id = ?1 AND t.node IN (SELECT unnest(CAST(?2 AS bigint[]))))"
    " SELECT 0 AS kind, node, NULL AS type, NULL AS restype, 0 AS worker, count(*) AS n,"
    " count(*) FILTER (WHERE start - start <> 0 OR fin - fin <> 0) AS s, min(start) AS a, max(fin) AS b"
    " FROM f GROUP BY node"
    " UNION ALL SELECT 1, node, type, NULL, worker, count(*), sum(d ORDER BY job_id, seq), NULL, NULL"
    " FROM f GROUP BY node, type, worker"
    " UNION ALL SELECT 2, node, type, restype, 0, count(*), sum(d ORDER BY job_id, seq), NULL, NULL"
    " FROM f GROUP BY node, type, restype"
    " UNION ALL SELECT 3, 0, type, restype, 0, count(*), sum(d ORDER BY job_id, seq), NULL, NULL"
    " FROM f WHERE restype <> '' GROUP BY type, restype"
    " ORDER BY 1, 2, 3, 5";

static int by_name(const void *key, const void *item)
{
    return strcmp((const char *)key, *(char *const *)item);
}

static int index_of_name(char *const *names, int n, const char *name)
{
    char *const *p = bsearch(name ? name : "", names, (size_t)n, sizeof *names, by_name);
    return p ? (int)(p - names) : -1;
}

typedef struct totals_reader {
    const ari_prog_data *d;
    ari_prog_totals *t;
    size_t group_cap;
    long invalid;
    int first;
} totals_reader;

static int totals_row(totals_reader *R, ari_stmt *st)
{
    const ari_prog_data *d = R->d;
    ari_prog_totals *t = R->t;
    int kind = ari_col_int(st, 0), n = kind == 3 ? 0 : node_slot(d->node_ids, d->nnodes, ari_col_int(st, 1));
    int k = kind == 0 ? 0 : index_of_name(d->type_names, d->ntypes, (const char *)ari_col_text(st, 2));
    const char *res = (const char *)ari_col_text(st, 3);
    int r = res && *res ? index_of_name(d->restype_names, d->nrestypes, res) : d->nrestypes;
    long count = (long)ari_col_int64(st, 5);
    if (n < 0 || k < 0 || r < 0)
        return 1; /* cannot happen: the shape lists them all */
    if (kind == 0) {
        double a = ari_col_double(st, 7), b = ari_col_double(st, 8);
        t->node_tasks[n] = count;
        t->last_end[n] = b;
        R->invalid += (long)ari_col_double(st, 6); /* a count, in the union's double column */
        if (R->first || a < t->start)
            t->start = a;
        if (R->first || b > t->end)
            t->end = b;
        R->first = 0;
    } else if (kind == 1) {
        if (ari_vec_reserve((void **)&t->groups, &R->group_cap, (size_t)t->ngroups + 1, sizeof *t->groups) < 0)
            return -1;
        t->groups[t->ngroups++] = (ari_prog_group){n, k, ari_col_int64(st, 4), count, ari_col_double(st, 6)};
    } else if (kind == 2) {
        size_t c = ((size_t)n * (size_t)d->ntypes + (size_t)k) * (size_t)(d->nrestypes + 1) + (size_t)r;
        t->rsum[c] = ari_col_double(st, 6);
        t->rcount[c] = count;
    } else if (r < d->nrestypes) {
        t->bsum[(size_t)r * (size_t)d->ntypes + (size_t)k] = ari_col_double(st, 6);
        t->bcount[(size_t)r * (size_t)d->ntypes + (size_t)k] = count;
    }
    return 0;
}

/* qsort comparator: groups by (node, type, worker), as progression.c
 * walks them (the SQL's order by name is the same; this makes it sure). */
static int by_group(const void *a, const void *b)
{
    const ari_prog_group *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

static int read_totals(ari_store *s, int64_t id, const ari_prog_data *d, const char *nodes, ari_prog_totals *t,
                       ari_error *err)
{
    size_t K = (size_t)d->ntypes, R1 = (size_t)d->nrestypes + 1, cells = (size_t)d->nnodes * K * R1;
    t->node_tasks = calloc((size_t)d->nnodes, sizeof *t->node_tasks);
    t->last_end = calloc((size_t)d->nnodes, sizeof *t->last_end);
    t->rsum = calloc(cells, sizeof *t->rsum);
    t->rcount = calloc(cells, sizeof *t->rcount);
    t->bsum = calloc(R1 * K, sizeof *t->bsum);
    t->bcount = calloc(R1 * K, sizeof *t->bcount);
    if (!t->node_tasks || !t->last_end || !t->rsum || !t->rcount || !t->bsum || !t->bcount)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    ari_arg args[] = {ari_arg_int(id), ari_arg_text(nodes)};
    ari_stmt *st = ari_store_bound(s, totals_sql, args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    totals_reader R = {d, t, 0, 0, 1};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (totals_row(&R, st) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
        }
    if (ari_store_rows_end(s, st, rc, "read the progression's totals", err) < 0)
        return -1;
    if (R.invalid > 0) /* ari_progression refuses them too */
        t->start = NAN;
    if (t->ngroups > 0)
        qsort(t->groups, (size_t)t->ngroups, sizeof *t->groups, by_group);
    return 0;
}

/* The sweep: each task's node and type index, its step (the first s
 * with end <= times[s]: nsteps minus the number of times >= end, counted
 * by width_bucket over the negated times) and its weight; per (node,
 * step) the count and the node's running sum of weights (by end, then the
 * loader's order) at its last task of the step (kind 0); per (step, type)
 * the count (1); per node the sum of weights in the loader's order (2).
 * The arrays come from the parameters' text once (p), not once per row.
 * The running sum at a step's last task is the step's largest: the
 * weights are >= 0 (or +inf), and adding one never makes a sum smaller
 * (rounding is monotonic), so max(run) needs no second sort. */
static const char sweep_sql[] =
    "WITH p AS MATERIALIZED (SELECT CAST(?5 AS double precision[]) AS weights,"
    " CAST(?6 AS double precision[]) AS neg),"
    " g AS (SELECT nn.i AS ni, tt.i AS ti, t.end AS fin, t.job_id AS job_id, t.rowid AS seq,"
    " ?7 - width_bucket(-t.end, p.neg) AS step, p.weights[(nn.i - 1) * ?8 + tt.i] AS w"
    " FROM p CROSS JOIN tasks t JOIN unnest(CAST(?3 AS bigint[])) WITH ORDINALITY AS nn(node, i) ON nn.node = t.node"
    " JOIN unnest(CAST(?4 AS text[])) WITH ORDINALITY AS tt(type, i) ON tt.type = t.type"
    " WHERE t.trace_id = ?1 AND t.node IN (SELECT unnest(CAST(?2 AS bigint[])))),"
    " r AS (SELECT ni, step, sum(w) OVER (PARTITION BY ni ORDER BY fin, job_id, seq ROWS UNBOUNDED PRECEDING)"
    " AS run FROM g)"
    " SELECT 0 AS kind, ni, step, 0 AS ti, count(*) AS n, max(run) AS v FROM r GROUP BY ni, step"
    " UNION ALL SELECT 1, 0, step, ti, count(*), NULL FROM g GROUP BY step, ti"
    " UNION ALL SELECT 2, ni, 0, 0, count(*), sum(w ORDER BY job_id, seq) FROM g GROUP BY ni";

typedef struct sweep_ctx {
    ari_store *s;
    int64_t id;
    const ari_prog_data *d;
    const char *nodes;
} sweep_ctx;

static int sweep_row(const ari_prog_data *d, int nsteps, ari_stmt *st, ari_prog_sweep *out)
{
    int kind = ari_col_int(st, 0);
    int64_t n = ari_col_int64(st, 1) - 1, s = ari_col_int64(st, 2), k = ari_col_int64(st, 3) - 1;
    long count = (long)ari_col_int64(st, 4);
    if (kind != 2 && (s < 0 || s >= nsteps))
        return -1;
    if (kind == 0 && n >= 0 && n < d->nnodes) {
        out->count[(size_t)s * (size_t)d->nnodes + (size_t)n] = count;
        out->running[(size_t)s * (size_t)d->nnodes + (size_t)n] = ari_col_double(st, 5);
    } else if (kind == 1 && k >= 0 && k < d->ntypes) {
        out->type_count[(size_t)s * (size_t)d->ntypes + (size_t)k] = count;
    } else if (kind == 2 && n >= 0 && n < d->nnodes) {
        out->total[n] = ari_col_double(st, 5);
    } else {
        return -1;
    }
    return 0;
}

/* ari_prog_sweep_fn in SQL (ctx: a sweep_ctx). */
static int sweep_sql_fn(void *ctx, const double *times, int nsteps, const double *weights, ari_prog_sweep *out,
                        ari_error *err)
{
    const sweep_ctx *c = ctx;
    const ari_prog_data *d = c->d;
    char *types = type_array(d), *w = real_array(weights, d->nnodes * d->ntypes, 0);
    char *neg = real_array(times, nsteps, 1);
    ari_stmt *st = NULL;
    if (types && w && neg) {
        ari_arg args[] = {ari_arg_int(c->id), ari_arg_text(c->nodes), ari_arg_text(c->nodes), ari_arg_text(types),
                          ari_arg_text(w),    ari_arg_text(neg),      ari_arg_int(nsteps),    ari_arg_int(d->ntypes)};
        st = ari_store_bound(c->s, sweep_sql, args, ARI_NARGS(args), err);
    } else {
        ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    }
    free(types), free(w), free(neg);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW)
        if (sweep_row(d, nsteps, st, out) < 0) {
            ari_reset(st);
            return ari_error_set(err, ARI_E_DB, "progression: the sweep returned a row out of range");
        }
    return ari_store_rows_end(c->s, st, rc, "sweep the progression's steps", err);
}

int ari_progression_sql(ari_store *s, int64_t id, const int *nodes_filter, int nnodes_filter,
                        const ari_prog_options *opt, ari_prog_data *shape, ari_prog_result *res, char **time_unit,
                        ari_error *err)
{
    memset(shape, 0, sizeof *shape);
    memset(res, 0, sizeof *res);
    *time_unit = NULL;
    int rc = read_time_unit(s, id, time_unit, err);
    if (rc != 0)
        return rc;
    loader l = {.s = s, .id = id, .types = {.map = ari_strmap_new()}, .restypes = {.map = ari_strmap_new()}};
    ari_prog_totals tot = {0};
    char *nodes = NULL;
    if (!l.types.map || !l.restypes.map)
        rc = ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    else
        rc = load_shape(&l, nodes_filter, nnodes_filter, shape, err);
    if (rc == 0 && !(nodes = node_array(shape)))
        rc = ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    if (rc == 0)
        rc = read_totals(s, id, shape, nodes, &tot, err);
    for (int n = 0; rc == 0 && n < shape->nnodes; n++)
        shape->ntasks += tot.node_tasks[n];
    if (rc == 0) {
        sweep_ctx c = {s, id, shape, nodes};
        rc = ari_progression_sums(shape, &tot, sweep_sql_fn, &c, opt, res, err);
    }
    name_table_free(&l.types);
    name_table_free(&l.restypes);
    ari_prog_totals_free(&tot);
    free(nodes);
    if (rc != 0) {
        ari_prog_data_free(shape);
        free(*time_unit);
        *time_unit = NULL;
    }
    return rc;
}
