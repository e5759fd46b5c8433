/* task_queries.c: reading what the task-trace analyses need (see
 * task_queries.h): the trace, its cached metadata, the filtered tasks with
 * their contracted dependencies, means, one worker's tasks in a range,
 * and the scheduler variables. Every statement is prepared once (the
 * store's statement cache) and uses an index of sql/002 or sql/003. */
#include "store/task_queries.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/analysis_cache.h"
#include "store/store_internal.h"
#include "util/free_all.h"
#include "util/natural.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/utf8.h"
#include "util/vec.h"

#define MAX_CONTRACTED_EDGES ((int64_t)1 << 28)

/* ---- small helpers ---- */

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "out of memory");
}

static char *dup_text(ari_stmt *st, int col)
{
    const char *t = (const char *)ari_col_text(st, col);
    return strdup(t ? t : "");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_worker(const void *pa, const void *pb)
{
    const ari_tq_worker *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    int c = strcmp(a->resource_type, b->resource_type);
    if (c)
        return c;
    c = ari_natural_cmp(a->resource, b->resource);
    if (c)
        return c;
    return (a->id > b->id) - (a->id < b->id);
}

int64_t ari_tq_node_of_name(const char *name)
{
    const char *p = name;
    while (isdigit((unsigned char)*p))
        p++;
    if (p > name && p - name < 10 && *p == '_' && isalpha((unsigned char)p[1]))
        return strtoll(name, NULL, 10);
    return 0;
}

/* ---- the trace ---- */

static int memo_has(const char *key);

/* Whether the trace has a task: known when its metadata is remembered
 * (below: only a trace with tasks has some), else asked. The question
 * costs a trace on a shard 15 to 40 ms: postgres_fdw fetches a first
 * batch of fetch_size rows (pg_shards.c) before EXISTS has its answer. */
static int has_tasks(ari_store *s, int64_t id, const char *key, ari_error *err)
{
    if (memo_has(key))
        return 1;
    ari_stmt *st = ari_store_stmt_id(s, "SELECT EXISTS (SELECT 1 FROM tasks WHERE trace_id = ?1)", id, err);
    int64_t any = 0;
    if (!st || ari_store_query_int64(s, st, &any, "read trace", err) < 0)
        return -1;
    return any ? 1 : 0;
}

int ari_tq_trace_get(ari_store *s, int64_t id, ari_tq_trace *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_stmt *st = ari_store_stmt_id(s,
                                     "SELECT name, kind, time_unit, created_at, sha256,"
                                     " json_extract(summary_json, '$.time_origin') FROM traces WHERE id = ?1",
                                     id, err);
    int rc = st ? ari_store_step_row(s, st, "read trace", err) : -1;
    if (rc != 0)
        return rc;
    out->id = id;
    out->name = dup_text(st, 0);
    snprintf(out->kind, sizeof out->kind, "%s", (const char *)ari_col_text(st, 1));
    snprintf(out->time_unit, sizeof out->time_unit, "%s", (const char *)ari_col_text(st, 2));
    snprintf(out->key, sizeof out->key, "%lld/%s/%s", (long long)id,
             (const char *)ari_col_text(st, 3), (const char *)ari_col_text(st, 4));
    out->time_origin = ari_col_type(st, 5) == ARI_NULL ? 0 : ari_col_double(st, 5);
    ari_reset(st);
    if (!out->name)
        return nomem(err);
    if ((out->has_tasks = has_tasks(s, id, out->key, err)) < 0) {
        ari_tq_trace_free(out);
        return -1;
    }
    return 0;
}

void ari_tq_trace_free(ari_tq_trace *t)
{
    free(t->name);
    t->name = NULL;
}

/* ---- metadata ---- */

void ari_tq_meta_free(ari_tq_meta *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->ntypes; i++)
        free(m->types[i]);
    for (int i = 0; i < m->nrestypes; i++)
        free(m->restypes[i]);
    for (int i = 0; i < m->nworkers; i++) {
        void *owned[] = {m->workers[i].name, m->workers[i].resource_type, m->workers[i].resource};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    void *owned[] = {m->types, m->restypes, m->nodes, m->workers, m};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int find_str(char *const *list, int n, const char *name)
{
    if (!name || n == 0)
        return -1;
    char *const *hit = bsearch(&name, list, (size_t)n, sizeof *list, cmp_str);
    return hit ? (int)(hit - list) : -1;
}

int ari_tq_type_id(const ari_tq_meta *m, const char *type)
{
    return find_str(m->types, m->ntypes, type);
}

int ari_tq_restype_id(const ari_tq_meta *m, const char *restype)
{
    return find_str(m->restypes, m->nrestypes, restype);
}

int ari_tq_worker_index(const ari_tq_meta *m, int64_t worker_id)
{
    for (int i = 0; i < m->nworkers; i++)
        if (m->workers[i].id == worker_id)
            return i;
    return -1;
}

/* Adds a string to a sorted-later list if it is new (map: name -> 1). */
static int add_name(ari_strmap *seen, char ***list, int *n, size_t *cap, const char *name)
{
    size_t len = strlen(name);
    if (ari_strmap_get(seen, name, len))
        return 0;
    char *copy = strdup(name);
    if (!copy || ari_vec_reserve((void **)list, cap, (size_t)*n + 1, sizeof **list) < 0 ||
        !ari_strmap_put(seen, name, len, (void *)1)) {
        free(copy);
        return -1;
    }
    (*list)[(*n)++] = copy;
    return 0;
}

static int add_node(int64_t **nodes, int *n, size_t *cap, int64_t node)
{
    for (int i = 0; i < *n; i++)
        if ((*nodes)[i] == node)
            return 0;
    if (ari_vec_reserve((void **)nodes, cap, (size_t)*n + 1, sizeof **nodes) < 0)
        return -1;
    (*nodes)[(*n)++] = node;
    return 0;
}

static int load_workers(ari_store *s, int64_t trace_id, ari_tq_meta *m, ari_strmap *seen,
                        size_t *restype_cap, size_t *node_cap, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT container_id, node, resource_type, resource, name FROM workers WHERE trace_id = ?1"
        " ORDER BY container_id",
        trace_id, err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&m->workers, &cap, (size_t)m->nworkers + 1, sizeof *m->workers) < 0)
            return nomem(err);
        ari_tq_worker *w = &m->workers[m->nworkers];
        memset(w, 0, sizeof *w);
        m->nworkers++;
        w->id = ari_col_int64(st, 0);
        w->node = ari_col_int64(st, 1);
        w->resource_type = dup_text(st, 2);
        w->resource = dup_text(st, 3);
        w->name = dup_text(st, 4);
        if (!w->resource_type || !w->resource || !w->name ||
            add_name(seen, &m->restypes, &m->nrestypes, restype_cap, w->resource_type) < 0 ||
            add_node(&m->nodes, &m->nnodes, node_cap, w->node) < 0) {
            ari_reset(st);
            return nomem(err);
        }
    }
    return ari_store_rows_end(s, st, rc, "read workers", err);
}

/* One grouped scan of the tasks: types, nodes, per-worker counts, first
 * start, last end and longest task. */
static int scan_task_groups(ari_store *s, int64_t trace_id, ari_tq_meta *m, size_t *node_cap,
                            ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT worker_id, type, node, count(*), min(start), max(end), max(end - start)"
        " FROM tasks WHERE trace_id = ?1 AND worker_id IS NOT NULL GROUP BY worker_id, type, node",
        trace_id, err);
    if (!st)
        return -1;
    ari_strmap *seen = ari_strmap_new();
    if (!seen)
        return nomem(err);
    size_t type_cap = 0;
    int rc, failed = 0;
    while (!failed && (rc = ari_step(st)) == ARI_ROW) {
        int wi = ari_tq_worker_index(m, ari_col_int64(st, 0));
        if (wi < 0)
            continue; /* not a known worker: ignored */
        ari_tq_worker *w = &m->workers[wi];
        const char *type = (const char *)ari_col_text(st, 1);
        int64_t count = ari_col_int64(st, 3);
        double first = ari_col_double(st, 4), last = ari_col_double(st, 5);
        double longest = ari_col_double(st, 6);
        if (add_name(seen, &m->types, &m->ntypes, &type_cap, type ? type : "") < 0 ||
            add_node(&m->nodes, &m->nnodes, node_cap, ari_col_int64(st, 2)) < 0) {
            failed = 1;
            break;
        }
        if (w->ntasks == 0 || first < w->first_start)
            w->first_start = first;
        if (w->ntasks == 0 || last > w->last_end)
            w->last_end = last;
        if (w->ntasks == 0 || longest > w->max_duration)
            w->max_duration = longest;
        w->ntasks += count;
    }
    ari_strmap_free(seen);
    if (failed) {
        ari_reset(st);
        return nomem(err);
    }
    return ari_store_rows_end(s, st, rc, "scan tasks", err);
}

/* Sorts the lists, assigns restype ids and the extent. */
static void meta_finish(ari_tq_meta *m)
{
    if (m->ntypes > 0) /* an empty list may be NULL, which qsort must not get */
        qsort(m->types, (size_t)m->ntypes, sizeof *m->types, cmp_str);
    if (m->nrestypes > 0)
        qsort(m->restypes, (size_t)m->nrestypes, sizeof *m->restypes, cmp_str);
    if (m->nnodes > 0)
        qsort(m->nodes, (size_t)m->nnodes, sizeof *m->nodes, cmp_i64);
    if (m->nworkers > 0)
        qsort(m->workers, (size_t)m->nworkers, sizeof *m->workers, cmp_worker);
    m->ntasks = 0;
    for (int i = 0; i < m->nworkers; i++) {
        ari_tq_worker *w = &m->workers[i];
        w->restype = ari_tq_restype_id(m, w->resource_type);
        if (w->ntasks == 0)
            continue;
        if (m->ntasks == 0 || w->first_start < m->extent_start)
            m->extent_start = w->first_start;
        if (m->ntasks == 0 || w->last_end > m->extent_end)
            m->extent_end = w->last_end;
        m->ntasks += w->ntasks;
    }
}

static int meta_compute(ari_store *s, int64_t trace_id, ari_tq_meta **out, ari_error *err)
{
    ari_tq_meta *m = calloc(1, sizeof *m);
    ari_strmap *seen = ari_strmap_new();
    if (!m || !seen) {
        free(m);
        ari_strmap_free(seen);
        return nomem(err);
    }
    size_t restype_cap = 0, node_cap = 0;
    int rc = load_workers(s, trace_id, m, seen, &restype_cap, &node_cap, err);
    ari_strmap_free(seen);
    if (rc == 0)
        rc = scan_task_groups(s, trace_id, m, &node_cap, err);
    if (rc < 0) {
        ari_tq_meta_free(m);
        return -1;
    }
    meta_finish(m);
    *out = m;
    return 0;
}

/* ---- the cached copy ----
 * The metadata is cached as the JSON text jansson used to write (so a
 * database cached by an older ariadned still reads):
 *   {"types":[..],"restypes":[..],"nodes":[..],"workers":[[id,node,name,
 *    resource_type,resource,ntasks,first_start,last_end,max_duration],..]}
 * written with util/sbuf.h and read back with SQLite's JSON functions. */

/* 0 when every string can be written (jansson refused invalid UTF-8, and
 * then nothing was cached). */
static int meta_strings_valid(const ari_tq_meta *m)
{
    for (int i = 0; i < m->ntypes; i++)
        if (!ari_utf8_valid(m->types[i], strlen(m->types[i])))
            return -1;
    for (int i = 0; i < m->nrestypes; i++)
        if (!ari_utf8_valid(m->restypes[i], strlen(m->restypes[i])))
            return -1;
    for (int i = 0; i < m->nworkers; i++) {
        const ari_tq_worker *w = &m->workers[i];
        if (!ari_utf8_valid(w->name, strlen(w->name)) ||
            !ari_utf8_valid(w->resource_type, strlen(w->resource_type)) ||
            !ari_utf8_valid(w->resource, strlen(w->resource)))
            return -1;
    }
    return 0;
}

static void str_array(ari_sbuf *b, const char *key, char *const *list, int n)
{
    ari_sbuf_printf(b, "\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (i)
            ari_sbuf_add_char(b, ',');
        ari_sbuf_json_string(b, list[i]);
    }
    ari_sbuf_add_char(b, ']');
}

static void worker_text(ari_sbuf *b, const ari_tq_worker *w)
{
    ari_sbuf_printf(b, "[%lld,%lld,", (long long)w->id, (long long)w->node);
    ari_sbuf_json_string(b, w->name);
    ari_sbuf_add_char(b, ',');
    ari_sbuf_json_string(b, w->resource_type);
    ari_sbuf_add_char(b, ',');
    ari_sbuf_json_string(b, w->resource);
    ari_sbuf_printf(b, ",%lld,", (long long)w->ntasks);
    ari_sbuf_json_real(b, w->first_start);
    ari_sbuf_add_char(b, ',');
    ari_sbuf_json_real(b, w->last_end);
    ari_sbuf_add_char(b, ',');
    ari_sbuf_json_real(b, w->max_duration);
    ari_sbuf_add_char(b, ']');
}

/* The cached text (malloc'd), or NULL when it cannot be written. */
static char *meta_to_text(const ari_tq_meta *m)
{
    if (meta_strings_valid(m) < 0)
        return NULL;
    ari_sbuf b = {0};
    ari_sbuf_add_char(&b, '{');
    str_array(&b, "types", m->types, m->ntypes);
    ari_sbuf_add_char(&b, ',');
    str_array(&b, "restypes", m->restypes, m->nrestypes);
    ari_sbuf_add_str(&b, ",\"nodes\":[");
    for (int i = 0; i < m->nnodes; i++)
        ari_sbuf_printf(&b, i ? ",%lld" : "%lld", (long long)m->nodes[i]);
    ari_sbuf_add_str(&b, "],\"workers\":[");
    for (int i = 0; i < m->nworkers; i++) {
        if (i)
            ari_sbuf_add_char(&b, ',');
        worker_text(&b, &m->workers[i]);
    }
    ari_sbuf_add_str(&b, "]}");
    return ari_sbuf_take(&b);
}

/* 0 when the text is an object whose four members are arrays. */
static int meta_text_shape(ari_store *s, const char *text)
{
    ari_error err = {0};
    ari_arg arg = ari_arg_raw_text(text);
    ari_stmt *st =
        ari_store_bound(s,
                        "SELECT json_type(?1, '$.types') = 'array' AND json_type(?1, '$.restypes') = 'array'"
                        " AND json_type(?1, '$.nodes') = 'array' AND json_type(?1, '$.workers') = 'array'",
                        &arg, 1, &err);
    int64_t ok = 0;
    return st && ari_store_query_int64(s, st, &ok, "cached metadata", &err) == 0 && ok == 1 ? 0 : -1;
}

/* The strings of one array member (path "$.types" or "$.restypes"). The
 * elements come in order of json_each's id (SQLite's key is an integer,
 * PostgreSQL's json_each of functions.sql gives it as text). */
static int strings_from_text(ari_store *s, const char *text, const char *path, char ***list, int *n)
{
    ari_error err = {0};
    ari_arg args[] = {ari_arg_raw_text(text), ari_arg_raw_text(path)};
    ari_stmt *st =
        ari_store_bound(s, "SELECT type, value FROM json_each(?1, ?2) ORDER BY id", args, 2, &err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc, ok = 1;
    while (ok && (rc = ari_step(st)) == ARI_ROW) {
        const char *type = (const char *)ari_col_text(st, 0);
        char *v = type && strcmp(type, "text") == 0 ? dup_text(st, 1) : NULL;
        ok = v && ari_vec_reserve((void **)list, &cap, (size_t)*n + 2, sizeof **list) == 0;
        if (ok)
            (*list)[(*n)++] = v;
        else
            free(v);
    }
    ari_reset(st);
    return ok && rc == ARI_DONE ? 0 : -1;
}

static int nodes_from_text(ari_store *s, const char *text, ari_tq_meta *m)
{
    ari_error err = {0};
    ari_arg arg = ari_arg_raw_text(text);
    ari_stmt *st =
        ari_store_bound(s, "SELECT type, value FROM json_each(?1, '$.nodes') ORDER BY id", &arg, 1, &err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc, ok = 1;
    while (ok && (rc = ari_step(st)) == ARI_ROW) {
        const char *type = (const char *)ari_col_text(st, 0);
        ok = type && strcmp(type, "integer") == 0 &&
             ari_vec_reserve((void **)&m->nodes, &cap, (size_t)m->nnodes + 2, sizeof *m->nodes) == 0;
        if (ok)
            m->nodes[m->nnodes++] = ari_col_int64(st, 1);
    }
    ari_reset(st);
    return ok && rc == ARI_DONE ? 0 : -1;
}

/* A number of the cached text, from its JSON token (SQLite's "->" keeps
 * the token as written) converted by strtod as jansson did. */
static int real_token(ari_stmt *st, int col, double *out)
{
    const char *t = (const char *)ari_col_text(st, col);
    char *end;
    if (!t || !*t)
        return -1;
    *out = strtod(t, &end);
    return *end ? -1 : 0;
}

/* Columns: 0 the worker's JSON type, 1 ok (types of its nine items), 2..10
 * the items. */
#define WORKERS_FROM_TEXT                                                                              \
    "SELECT type, type = 'array' AND json_type(value, '$[0]') = 'integer'"                           \
    " AND json_type(value, '$[1]') = 'integer' AND json_type(value, '$[2]') = 'text'"                \
    " AND json_type(value, '$[3]') = 'text' AND json_type(value, '$[4]') = 'text'"                   \
    " AND json_type(value, '$[5]') = 'integer' AND json_type(value, '$[6]') IN ('integer', 'real')"  \
    " AND json_type(value, '$[7]') IN ('integer', 'real') AND json_type(value, '$[8]') IN ('integer', 'real'),"   \
    " value ->> '$[0]', value ->> '$[1]', value ->> '$[2]', value ->> '$[3]', value ->> '$[4]',"     \
    " value ->> '$[5]', value -> '$[6]', value -> '$[7]', value -> '$[8]'"                           \
    " FROM json_each(?1, '$.workers') ORDER BY id"

static int worker_from_row(ari_stmt *st, ari_tq_worker *w)
{
    if (ari_col_int(st, 1) != 1)
        return -1;
    w->id = ari_col_int64(st, 2);
    w->node = ari_col_int64(st, 3);
    w->name = dup_text(st, 4);
    w->resource_type = dup_text(st, 5);
    w->resource = dup_text(st, 6);
    w->ntasks = ari_col_int64(st, 7);
    if (!w->name || !w->resource_type || !w->resource)
        return -1;
    if (real_token(st, 8, &w->first_start) < 0 || real_token(st, 9, &w->last_end) < 0 ||
        real_token(st, 10, &w->max_duration) < 0)
        return -1;
    return 0;
}

static int workers_from_text(ari_store *s, const char *text, ari_tq_meta *m)
{
    ari_error err = {0};
    ari_arg arg = ari_arg_raw_text(text);
    ari_stmt *st = ari_store_bound(s, WORKERS_FROM_TEXT, &arg, 1, &err);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc, ok = 1;
    while (ok && (rc = ari_step(st)) == ARI_ROW) {
        ok = ari_vec_reserve((void **)&m->workers, &cap, (size_t)m->nworkers + 2, sizeof *m->workers) == 0;
        if (!ok)
            break;
        ari_tq_worker *w = &m->workers[m->nworkers++];
        memset(w, 0, sizeof *w);
        ok = worker_from_row(st, w) == 0;
    }
    ari_reset(st);
    return ok && rc == ARI_DONE ? 0 : -1;
}

/* Parses the cached text; NULL when it is not what meta_to_text wrote. */
static ari_tq_meta *meta_from_text(ari_store *s, const char *text)
{
    ari_tq_meta *m = calloc(1, sizeof *m);
    int ok = m && meta_text_shape(s, text) == 0 &&
             strings_from_text(s, text, "$.types", &m->types, &m->ntypes) == 0 &&
             strings_from_text(s, text, "$.restypes", &m->restypes, &m->nrestypes) == 0 &&
             nodes_from_text(s, text, m) == 0 && workers_from_text(s, text, m) == 0;
    if (!ok) {
        ari_tq_meta_free(m);
        return NULL;
    }
    meta_finish(m);
    return m;
}

int ari_tq_meta_get(ari_store *s, int64_t trace_id, ari_tq_meta **out, ari_error *err)
{
    char *cached = NULL;
    int rc = ari_cache_get(s, trace_id, "meta", "", &cached, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        *out = meta_from_text(s, cached);
        free(cached);
        if (*out)
            return 0;
    }
    if (meta_compute(s, trace_id, out, err) < 0)
        return -1;
    char *text = meta_to_text(*out);
    if (text)
        ari_cache_put(s, trace_id, "meta", "", text);
    free(text);
    return 0;
}

/* ---- the metadata of recent traces, in memory ----
 *
 * A trace's metadata never changes (its content key names it), and parsing
 * the cached text costs each request a few statements: on PostgreSQL, whose
 * json functions (sql/pg/functions.sql) parse the text once per call, 12
 * to 50 ms for a trace of 38 workers. So the parsed metadata of the last
 * META_MEMO traces asked for is kept per process, and each request gets
 * its own copy. */
#define META_MEMO 16

static struct {
    char key[160];
    ari_tq_meta *meta;
    uint64_t used;
} memo[META_MEMO];
static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t memo_clock;

static char **clone_strings(char *const *list, int n)
{
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++)
        if (!(out[i] = strdup(list[i]))) {
            for (int j = 0; j < i; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
    return out;
}

static ari_tq_meta *meta_clone(const ari_tq_meta *m)
{
    ari_tq_meta *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *m;
    c->types = clone_strings(m->types, m->ntypes);
    c->restypes = clone_strings(m->restypes, m->nrestypes);
    c->nodes = malloc(((size_t)m->nnodes + 1) * sizeof *c->nodes);
    c->workers = calloc((size_t)m->nworkers + 1, sizeof *c->workers);
    int ok = c->types && c->restypes && c->nodes && c->workers;
    if (c->nodes && m->nnodes > 0)
        memcpy(c->nodes, m->nodes, (size_t)m->nnodes * sizeof *c->nodes);
    for (int i = 0; ok && i < m->nworkers; i++) {
        ari_tq_worker *w = &c->workers[i];
        *w = m->workers[i];
        w->name = strdup(m->workers[i].name);
        w->resource_type = strdup(m->workers[i].resource_type);
        w->resource = strdup(m->workers[i].resource);
        ok = w->name && w->resource_type && w->resource;
    }
    if (!ok) {
        if (!c->types)
            c->ntypes = 0;
        if (!c->restypes)
            c->nrestypes = 0;
        if (!c->workers)
            c->nworkers = 0;
        ari_tq_meta_free(c);
        return NULL;
    }
    return c;
}

/* The slot that remembers key's metadata, or -1; memo_mu held. */
static int memo_slot(const char *key)
{
    for (int i = 0; i < META_MEMO; i++)
        if (memo[i].meta && strcmp(memo[i].key, key) == 0)
            return i;
    return -1;
}

/* A copy of the remembered metadata of key, or NULL. */
static ari_tq_meta *memo_find(const char *key)
{
    ari_tq_meta *copy = NULL;
    pthread_mutex_lock(&memo_mu);
    int i = memo_slot(key);
    if (i >= 0) {
        memo[i].used = ++memo_clock;
        copy = meta_clone(memo[i].meta);
    }
    pthread_mutex_unlock(&memo_mu);
    return copy;
}

/* Whether key's metadata is remembered. */
static int memo_has(const char *key)
{
    pthread_mutex_lock(&memo_mu);
    int found = memo_slot(key) >= 0;
    pthread_mutex_unlock(&memo_mu);
    return found;
}

/* Remembers a copy of m under key, in the least recently used slot. */
static void memo_keep(const char *key, const ari_tq_meta *m)
{
    ari_tq_meta *copy = meta_clone(m);
    if (!copy)
        return;
    pthread_mutex_lock(&memo_mu);
    int slot = memo_slot(key); /* another request kept it meanwhile */
    for (int i = 0; slot < 0 && i < META_MEMO; i++)
        if (!memo[i].meta)
            slot = i;
    if (slot < 0) {
        slot = 0;
        for (int i = 1; i < META_MEMO; i++)
            if (memo[i].used < memo[slot].used)
                slot = i;
    }
    ari_tq_meta *old = memo[slot].meta;
    snprintf(memo[slot].key, sizeof memo[slot].key, "%s", key);
    memo[slot].meta = copy;
    memo[slot].used = ++memo_clock;
    pthread_mutex_unlock(&memo_mu);
    ari_tq_meta_free(old);
}

int ari_tq_meta_get_keyed(ari_store *s, int64_t trace_id, const char *key, ari_tq_meta **out, ari_error *err)
{
    if (!key || !*key || strtoll(key, NULL, 10) != trace_id)
        return ari_tq_meta_get(s, trace_id, out, err);
    if ((*out = memo_find(key)) != NULL)
        return 0;
    if (ari_tq_meta_get(s, trace_id, out, err) < 0)
        return -1;
    memo_keep(key, *out);
    return 0;
}

/* ---- filters ---- */

int ari_overlaps(double start, double end, double t0, double t1)
{
    if (end > start)
        return start < t1 && end > t0;
    return start >= t0 && start < t1;
}

static int listed(char *const *list, size_t n, const char *name)
{
    if (!list)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

int ari_task_filter_node(const ari_task_filter *f, int64_t node)
{
    if (!f->nodes)
        return 1;
    for (size_t i = 0; i < f->nnodes; i++)
        if (f->nodes[i] == node)
            return 1;
    return 0;
}

int ari_task_filter_row(const ari_task_filter *f, const ari_tq_worker *w)
{
    return !f || (listed(f->resources, f->nresources, w->resource_type) && ari_task_filter_node(f, w->node));
}

int ari_task_filter_pass(const ari_task_filter *f, const char *type, const char *restype,
                         int64_t node, double start, double end)
{
    if (!f)
        return 1;
    if (!listed(f->types, f->ntypes, type) || !listed(f->resources, f->nresources, restype) ||
        !ari_task_filter_node(f, node))
        return 0;
    if (!isnan(f->min_duration) && !(end - start >= f->min_duration))
        return 0;
    if (!isnan(f->start) || !isnan(f->end)) {
        double t0 = isnan(f->start) ? -INFINITY : f->start;
        double t1 = isnan(f->end) ? INFINITY : f->end;
        if (!ari_overlaps(start, end, t0, t1))
            return 0;
    }
    return 1;
}

/* ---- tasks ---- */

void ari_tq_tasks_free(ari_tq_tasks *t)
{
    void *owned[] = {t->type,  t->restype,   t->worker, t->node,   t->start,       t->end,
                     t->gflop, t->iteration, t->ids,    t->id_off, t->pred_offset, t->pred};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    memset(t, 0, sizeof *t);
}

const char *ari_tq_job_id(const ari_tq_tasks *t, int64_t i)
{
    return t->ids + t->id_off[i];
}

ari_dag ari_tq_dag(const ari_tq_tasks *t)
{
    ari_dag d = {t->n, t->pred_offset, t->pred};
    return d;
}

typedef struct worker_key {
    int64_t id;
    int index;
} worker_key;

static int cmp_worker_key(const void *a, const void *b)
{
    int64_t x = ((const worker_key *)a)->id, y = ((const worker_key *)b)->id;
    return (x > y) - (x < y);
}

/* Load state: the output arrays with their capacity, and for the
 * dependencies a map job id -> (index + 1), or EXCLUDED for tasks the
 * filter left out. */
#define EXCLUDED ((void *)(intptr_t)-1)

typedef struct loader {
    ari_tq_tasks *t;
    size_t cap, ids_cap, ids_len;
    ari_strmap *map;
    worker_key *wkeys;
    int nworkers;
    int dag_only; /* keep type, node and iteration only (ari_tq_dag_load) */
} loader;

/* Reallocates the DAG's columns (type, node, iteration) to hold cap tasks. */
static int grow_dag_columns(ari_tq_tasks *t, size_t cap)
{
    void **cols[] = {(void **)&t->type, (void **)&t->node, (void **)&t->iteration};
    size_t sizes[] = {sizeof *t->type, sizeof *t->node, sizeof *t->iteration};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        void *q = realloc(*cols[c], cap * sizes[c]);
        if (!q)
            return -1;
        *cols[c] = q;
    }
    return 0;
}

/* Reallocates every column to hold cap tasks. */
static int grow_columns(ari_tq_tasks *t, size_t cap)
{
    void **cols[] = {(void **)&t->type, (void **)&t->restype, (void **)&t->worker, (void **)&t->node,
                     (void **)&t->start, (void **)&t->end, (void **)&t->gflop, (void **)&t->iteration,
                     (void **)&t->id_off};
    size_t sizes[] = {sizeof *t->type, sizeof *t->restype, sizeof *t->worker, sizeof *t->node,
                      sizeof *t->start, sizeof *t->end, sizeof *t->gflop, sizeof *t->iteration,
                      sizeof *t->id_off};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        void *q = realloc(*cols[c], cap * sizes[c]);
        if (!q)
            return -1;
        *cols[c] = q;
    }
    return 0;
}

/* A task of ari_tq_dag_load: its type, node and iteration, and its job
 * id in the map only. */
static int append_dag_task(loader *L, ari_stmt *st, int type)
{
    ari_tq_tasks *t = L->t;
    if ((size_t)t->n + 1 > L->cap) {
        size_t cap = L->cap ? L->cap * 2 : 1024;
        if (grow_dag_columns(t, cap) < 0)
            return -1;
        L->cap = cap;
    }
    const char *job = (const char *)ari_col_text(st, 0);
    int64_t i = t->n++;
    t->type[i] = type;
    t->node[i] = ari_col_int64(st, 3);
    t->iteration[i] = ari_col_type(st, 7) == ARI_NULL ? ARI_TQ_NO_ITERATION : ari_col_int64(st, 7);
    return ari_strmap_put(L->map, job ? job : "", strlen(job ? job : ""), (void *)(intptr_t)(i + 1)) ? 0 : -1;
}

static int append_task(loader *L, ari_stmt *st, int type, int wi, const ari_tq_meta *m)
{
    ari_tq_tasks *t = L->t;
    if (L->dag_only)
        return append_dag_task(L, st, type);
    if ((size_t)t->n + 1 > L->cap) {
        size_t cap = L->cap ? L->cap * 2 : 1024;
        if (grow_columns(t, cap) < 0)
            return -1;
        L->cap = cap;
    }
    const char *job = (const char *)ari_col_text(st, 0);
    size_t len = strlen(job ? job : "");
    if (ari_vec_reserve((void **)&t->ids, &L->ids_cap, L->ids_len + len + 1, 1) < 0)
        return -1;
    int64_t i = t->n;
    memcpy(t->ids + L->ids_len, job ? job : "", len + 1);
    t->id_off[i] = L->ids_len;
    L->ids_len += len + 1;
    t->type[i] = type;
    t->worker[i] = wi;
    t->restype[i] = m->workers[wi].restype;
    t->node[i] = ari_col_int64(st, 3);
    t->start[i] = ari_col_double(st, 4);
    t->end[i] = ari_col_double(st, 5);
    t->gflop[i] = ari_col_type(st, 6) == ARI_NULL ? NAN : ari_col_double(st, 6);
    t->iteration[i] = ari_col_type(st, 7) == ARI_NULL ? ARI_TQ_NO_ITERATION
                                                                : ari_col_int64(st, 7);
    t->n++;
    if (L->map && !ari_strmap_put(L->map, job ? job : "", len, (void *)(intptr_t)(i + 1)))
        return -1;
    return 0;
}

static int worker_of(const loader *L, int64_t id)
{
    worker_key key = {id, 0};
    const worker_key *hit = bsearch(&key, L->wkeys, (size_t)L->nworkers, sizeof key, cmp_worker_key);
    return hit ? hit->index : -1;
}

static int scan_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *m,
                      const ari_task_filter *f, loader *L, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s,
        "SELECT job_id, type, worker_id, node, start, end, gflop, iteration FROM tasks WHERE trace_id = ?1"
        " ORDER BY job_id, rowid", /* tasks_by_job's order: the same on both backends */
        trace_id, err);
    if (!st)
        return -1;
    ari_stream(st); /* PostgreSQL: a row at a time, not the trace's tasks twice (as rows, then as arrays) */
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int wi = ari_col_type(st, 2) == ARI_NULL ? -1 : worker_of(L, ari_col_int64(st, 2));
        const char *type_name = (const char *)ari_col_text(st, 1);
        int type = ari_tq_type_id(m, type_name);
        int keep = wi >= 0 && type >= 0 &&
                   ari_task_filter_pass(f, type_name, m->workers[wi].resource_type,
                                        ari_col_int64(st, 3), ari_col_double(st, 4),
                                        ari_col_double(st, 5));
        if (keep) {
            if (append_task(L, st, type, wi, m) < 0) {
                ari_reset(st);
                return nomem(err);
            }
        } else if (L->map) {
            const char *job = (const char *)ari_col_text(st, 0);
            if (job && !ari_strmap_get(L->map, job, strlen(job)) &&
                !ari_strmap_put(L->map, job, strlen(job), EXCLUDED)) {
                ari_reset(st);
                return nomem(err);
            }
        }
    }
    return ari_store_rows_end(s, st, rc, "read tasks", err);
}

/* The dependency graph over every name of the deps table: loaded tasks are
 * nodes 0..n-1, names that are not tasks get n, n+1, ...; edges touching
 * an excluded task are dropped. Edges are (succ, pred) pairs. */
typedef struct raw_graph {
    int64_t nnodes;
    int64_t nedges;
    size_t succ_cap, pred_cap;
    int64_t *succ, *pred;
} raw_graph;

static int64_t node_of(loader *L, raw_graph *g, const char *name)
{
    size_t len = strlen(name);
    void *v = ari_strmap_get(L->map, name, len);
    if (v == EXCLUDED)
        return -1;
    if (v)
        return (int64_t)(intptr_t)v - 1;
    int64_t id = g->nnodes++;
    if (!ari_strmap_put(L->map, name, len, (void *)(intptr_t)(id + 1)))
        return -2;
    return id;
}

static int read_edges(ari_store *s, int64_t trace_id, loader *L, raw_graph *g, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(
        s, "SELECT job_id, depends_on FROM deps WHERE trace_id = ?1 ORDER BY job_id, depends_on", trace_id, err);
    if (!st)
        return -1;
    ari_stream(st);
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *a = (const char *)ari_col_text(st, 0);
        const char *b = (const char *)ari_col_text(st, 1);
        int64_t succ = node_of(L, g, a ? a : ""), pred = node_of(L, g, b ? b : "");
        if (succ == -2 || pred == -2) {
            ari_reset(st);
            return nomem(err);
        }
        if (succ < 0 || pred < 0 || succ == pred)
            continue;
        if (ari_vec_reserve((void **)&g->succ, &g->succ_cap, (size_t)g->nedges + 1, sizeof *g->succ) < 0 ||
            ari_vec_reserve((void **)&g->pred, &g->pred_cap, (size_t)g->nedges + 1, sizeof *g->pred) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        g->succ[g->nedges] = succ;
        g->pred[g->nedges] = pred;
        g->nedges++;
    }
    return ari_store_rows_end(s, st, rc, "read dependencies", err);
}

/* CSR of predecessors over all g->nnodes nodes. */
static int raw_csr(const raw_graph *g, int64_t **off_out, int64_t **adj_out)
{
    int64_t *off = calloc((size_t)g->nnodes + 1, sizeof *off);
    int64_t *adj = malloc(((size_t)g->nedges + 1) * sizeof *adj);
    if (!off || !adj) {
        free(off);
        free(adj);
        return -1;
    }
    for (int64_t e = 0; e < g->nedges; e++)
        off[g->succ[e] + 1]++;
    for (int64_t v = 0; v < g->nnodes; v++)
        off[v + 1] += off[v];
    int64_t *fill = malloc(((size_t)g->nnodes + 1) * sizeof *fill);
    if (!fill) {
        free(off);
        free(adj);
        return -1;
    }
    memcpy(fill, off, (size_t)g->nnodes * sizeof *fill);
    for (int64_t e = 0; e < g->nedges; e++)
        adj[fill[g->succ[e]]++] = g->pred[e];
    free(fill);
    *off_out = off;
    *adj_out = adj;
    return 0;
}

/* Pushes the predecessors of u on the stack. */
static int push_preds(const int64_t *off, const int64_t *adj, int64_t u, int64_t **stack,
                      size_t *depth, size_t *cap)
{
    size_t k = (size_t)(off[u + 1] - off[u]);
    if (ari_vec_reserve((void **)stack, cap, *depth + k + 1, sizeof **stack) < 0)
        return -1;
    for (int64_t e = off[u]; e < off[u + 1]; e++)
        (*stack)[(*depth)++] = adj[e];
    return 0;
}

/* For each loaded task, its task predecessors, walking through non-task
 * nodes (depth-first, each node once per task). */
static int contract(ari_tq_tasks *t, const raw_graph *g, ari_error *err)
{
    int64_t *off = NULL, *adj = NULL;
    if (raw_csr(g, &off, &adj) < 0)
        return nomem(err);
    int64_t n = t->n, np = 0;
    int64_t *stamp = calloc((size_t)g->nnodes + 1, sizeof *stamp);
    int64_t *stack = NULL;
    size_t stack_cap = 0, pred_cap = 0;
    t->pred_offset = calloc((size_t)n + 1, sizeof *t->pred_offset);
    int failed = !stamp || !t->pred_offset, too_many = 0;
    for (int64_t v = 0; v < n && !failed; v++) {
        size_t depth = 0;
        stamp[v] = v + 1;
        failed = push_preds(off, adj, v, &stack, &depth, &stack_cap) < 0;
        while (depth > 0 && !failed) {
            int64_t u = stack[--depth];
            if (stamp[u] == v + 1)
                continue;
            stamp[u] = v + 1;
            if (u >= n) {
                failed = push_preds(off, adj, u, &stack, &depth, &stack_cap) < 0;
                continue;
            }
            too_many = np >= MAX_CONTRACTED_EDGES;
            if (too_many ||
                ari_vec_reserve((void **)&t->pred, &pred_cap, (size_t)np + 1, sizeof *t->pred) < 0)
                failed = 1;
            else
                t->pred[np++] = u;
        }
        t->pred_offset[v + 1] = np;
    }
    free(stamp);
    free(stack);
    free(off);
    free(adj);
    if (too_many)
        return ari_error_set(err, ARI_E_TOO_LARGE, "more than %lld dependencies after contraction",
                             (long long)MAX_CONTRACTED_EDGES);
    if (failed || (!t->pred && !(t->pred = malloc(sizeof *t->pred))))
        return nomem(err);
    return 0;
}

static int load_deps(ari_store *s, int64_t trace_id, loader *L, ari_error *err)
{
    raw_graph g = {.nnodes = L->t->n};
    int rc = read_edges(s, trace_id, L, &g, err);
    if (rc == 0)
        rc = contract(L->t, &g, err);
    free(g.succ);
    free(g.pred);
    return rc;
}

static int load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_task_filter *f,
                int with_deps, int dag_only, ari_tq_tasks *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    loader L = {.t = out, .nworkers = meta->nworkers, .dag_only = dag_only};
    L.wkeys = malloc(((size_t)meta->nworkers + 1) * sizeof *L.wkeys);
    if (with_deps)
        L.map = ari_strmap_new();
    int rc = 0;
    if (!L.wkeys || (with_deps && !L.map)) {
        rc = nomem(err);
    } else {
        for (int i = 0; i < meta->nworkers; i++)
            L.wkeys[i] = (worker_key){meta->workers[i].id, i};
        qsort(L.wkeys, (size_t)meta->nworkers, sizeof *L.wkeys, cmp_worker_key);
        rc = scan_tasks(s, trace_id, meta, f, &L, err);
        if (rc == 0 && !dag_only && !out->ids && !(out->ids = calloc(1, 1)))
            rc = nomem(err);
        if (rc == 0 && with_deps)
            rc = load_deps(s, trace_id, &L, err);
    }
    free(L.wkeys);
    ari_strmap_free(L.map);
    if (rc < 0)
        ari_tq_tasks_free(out);
    return rc;
}

int ari_tq_tasks_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta,
                      const ari_task_filter *f, int with_deps, ari_tq_tasks *out, ari_error *err)
{
    return load(s, trace_id, meta, f, with_deps, 0, out, err);
}

int ari_tq_dag_load(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const ari_task_filter *f,
                    ari_tq_tasks *out, ari_error *err)
{
    return load(s, trace_id, meta, f, 1, 1, out, err);
}

double ari_tq_duration(double start, double end)
{
    double d = end - start;
    if (!(d > 0) || !isfinite(d))
        return 0;
    double scale = pow(10, 9 - floor(log10(d)));
    double rounded = round(d * scale) / scale;
    return isfinite(rounded) ? rounded : d;
}

/* ---- one worker's tasks ---- */

int ari_tq_worker_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                        double lo, double hi, ari_tq_detail_fn fn, void *ctx, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id), ari_arg_real(lo), ari_arg_real(hi)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT job_id, type, start, end, gflop, iteration FROM tasks"
        " WHERE trace_id = ?1 AND worker_id = ?2 AND start >= ?3 AND start < ?4 ORDER BY start, end, rowid",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *job = (const char *)ari_col_text(st, 0);
        int type = ari_tq_type_id(meta, (const char *)ari_col_text(st, 1));
        double gflop = ari_col_type(st, 4) == ARI_NULL ? NAN : ari_col_double(st, 4);
        int64_t it = ari_col_type(st, 5) == ARI_NULL ? ARI_TQ_NO_ITERATION
                                                               : ari_col_int64(st, 5);
        if (type < 0)
            continue;
        if (fn(ctx, job ? job : "", type, ari_col_double(st, 2), ari_col_double(st, 3),
               gflop, it) != 0) {
            ari_reset(st);
            return nomem(err);
        }
    }
    return ari_store_rows_end(s, st, rc, "read worker tasks", err);
}

/* ---- runtime states of a worker ---- */

void ari_tq_states_free(ari_tq_states *st)
{
    if (!st)
        return;
    free(st->states);
    for (int v = 0; v < st->nvalues; v++)
        free(st->names[v]);
    free(st->names);
    free(st->is_task);
    memset(st, 0, sizeof *st);
}

/* The dense id of names.id `value` in *ids (appended when new). */
static int state_value_id(int64_t **ids, int *n, int *cap, int64_t value)
{
    for (int v = *n - 1; v >= 0; v--)
        if ((*ids)[v] == value)
            return v;
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 16;
        int64_t *grown = realloc(*ids, (size_t)c * sizeof *grown);
        if (!grown)
            return -1;
        *ids = grown;
        *cap = c;
    }
    (*ids)[*n] = value;
    return (*n)++;
}

static int append_state(ari_tq_states *out, size_t *cap, ari_gantt_state st)
{
    if ((size_t)out->n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        ari_gantt_state *grown = realloc(out->states, c * sizeof *grown);
        if (!grown)
            return -1;
        out->states = grown;
        *cap = c;
    }
    out->states[out->n++] = st;
    return 0;
}

int ari_tq_states_names(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int64_t *ids,
                       ari_tq_states *out, ari_error *err)
{
    out->names = calloc((size_t)out->nvalues + 1, sizeof *out->names);
    out->is_task = calloc((size_t)out->nvalues + 1, 1);
    if (!out->names || !out->is_task)
        return nomem(err);
    for (int v = 0; v < out->nvalues; v++) {
        ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(ids[v])};
        ari_stmt *st = ari_store_bound(s, "SELECT name FROM names WHERE trace_id = ?1 AND id = ?2", args,
                                           ARI_NARGS(args), err);
        int rc = st ? ari_store_query_string(s, st, "", &out->names[v], "read state names", err) : -1;
        if (rc < 0)
            return -1;
        if (rc == 1 && !(out->names[v] = strdup("")))
            return nomem(err);
        out->is_task[v] = ari_tq_type_id(meta, out->names[v]) >= 0;
    }
    return 0;
}

int ari_tq_worker_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, int64_t worker_id,
                         double t0, double t1, ari_tq_states *out, ari_error *err)
{
    memset(out, 0, sizeof *out);
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(worker_id), ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT value_id, start, end, depth FROM states"
        " WHERE trace_id = ?1 AND container_id = ?2 AND start < ?4 AND end > ?3 ORDER BY start, depth, rowid",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    int64_t *ids = NULL;
    int cap_ids = 0, rc;
    size_t cap = 0;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int v = state_value_id(&ids, &out->nvalues, &cap_ids, ari_col_int64(st, 0));
        ari_gantt_state state = {.value = v, .depth = ari_col_int(st, 3),
                                 .start = ari_col_double(st, 1), .end = ari_col_double(st, 2)};
        if (v < 0 || append_state(out, &cap, state) < 0) {
            ari_reset(st);
            free(ids);
            ari_tq_states_free(out);
            return nomem(err);
        }
    }
    if (ari_store_rows_end(s, st, rc, "read worker states", err) < 0) {
        free(ids);
        ari_tq_states_free(out);
        return -1;
    }
    rc = ari_tq_states_names(s, trace_id, meta, ids, out, err);
    free(ids);
    if (rc < 0)
        ari_tq_states_free(out);
    return rc;
}

/* ---- scheduler variables ---- */

void ari_tq_series_free(ari_tq_series *series, int n)
{
    for (int i = 0; series && i < n; i++) {
        free(series[i].times);
        free(series[i].values);
    }
    free(series);
}

static int series_points(ari_store *s, int64_t trace_id, int64_t type_id, double t0, double t1,
                         ari_tq_series *out, ari_error *err)
{
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_int(out->container_id), ari_arg_int(type_id),
                      ari_arg_real(t0), ari_arg_real(t1)};
    ari_stmt *st = ari_store_bound(
        s,
        "SELECT start, value FROM variables WHERE trace_id = ?1 AND container_id = ?2 AND type_id = ?3"
        " AND start >= coalesce((SELECT max(start) FROM variables WHERE trace_id = ?1"
        "   AND container_id = ?2 AND type_id = ?3 AND start <= ?4), ?4)"
        " AND start < ?5 ORDER BY start",
        args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0, cap2 = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        if (ari_vec_reserve((void **)&out->times, &cap, (size_t)out->n + 1, sizeof *out->times) < 0 ||
            ari_vec_reserve((void **)&out->values, &cap2, (size_t)out->n + 1, sizeof *out->values) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        out->times[out->n] = ari_col_double(st, 0);
        out->values[out->n] = ari_col_double(st, 1);
        out->n++;
    }
    return ari_store_rows_end(s, st, rc, "read variables", err);
}

/* The variable types carrying the series and the containers having them. */
static int series_containers(ari_store *s, int64_t trace_id, ari_tq_variable which,
                             const ari_task_filter *f, ari_tq_series **out, int *n,
                             int64_t **types_out, ari_error *err)
{
    static const char *const names[2][3] = {
        {"Number of Ready Tasks", "Ready", "nready"},
        {"Number of Submitted Uncompleted Tasks", "Submitted", "nsubmitted"},
    };
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_raw_text(names[which][0]),
                      ari_arg_raw_text(names[which][1]), ari_arg_raw_text(names[which][2])};
    ari_stmt *st = ari_store_bound(s,
                                       "SELECT c.id, c.name, v.id FROM entity_types v JOIN containers c"
                                       " ON c.trace_id = v.trace_id AND c.type_id = v.parent_id"
                                       " WHERE v.trace_id = ?1 AND v.nature = 'variable'"
                                       " AND (v.name IN (?2, ?3) OR v.alias = ?4) ORDER BY c.id",
                                       args, ARI_NARGS(args), err);
    if (!st)
        return -1;
    size_t cap = 0, cap2 = 0;
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        const char *name = (const char *)ari_col_text(st, 1);
        int64_t node = ari_tq_node_of_name(name ? name : "");
        if (!ari_task_filter_node(f, node))
            continue;
        if (ari_vec_reserve((void **)out, &cap, (size_t)*n + 1, sizeof **out) < 0 ||
            ari_vec_reserve((void **)types_out, &cap2, (size_t)*n + 1, sizeof **types_out) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        memset(&(*out)[*n], 0, sizeof **out);
        (*out)[*n].container_id = ari_col_int64(st, 0);
        (*out)[*n].node = node;
        (*types_out)[*n] = ari_col_int64(st, 2);
        (*n)++;
    }
    return ari_store_rows_end(s, st, rc, "find variables", err);
}

int ari_tq_series_load(ari_store *s, int64_t trace_id, ari_tq_variable which,
                       const ari_task_filter *f, double t0, double t1, ari_tq_series **out,
                       int *n, ari_error *err)
{
    *out = NULL;
    *n = 0;
    int64_t *types = NULL;
    int rc = series_containers(s, trace_id, which, f, out, n, &types, err);
    for (int i = 0; rc == 0 && i < *n; i++)
        rc = series_points(s, trace_id, types[i], t0, t1, &(*out)[i], err);
    free(types);
    if (rc < 0) {
        ari_tq_series_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
