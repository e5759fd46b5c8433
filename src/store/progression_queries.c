/* progression_queries.c: the rows the progression analysis needs (tasks
 * with node, type, resource type, worker and times; worker counts), read in one
 * pass each and turned into the index-based arrays of ari_prog_data. */
#include "store/progression_queries.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
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
    if (nfilter > 0 && apply_node_filter(l, &out->node_ids, &out->nnodes, filter, nfilter, err) < 0)
        return -1;
    int *counts = NULL;
    if (read_workers(l, out, &counts, err) < 0)
        return -1;
    int rc = finish(l, out, counts, out->nrestypes);
    free(counts);
    if (rc < 0)
        return ari_error_set(err, ARI_E_NOMEM, "progression: out of memory");
    return 0;
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
