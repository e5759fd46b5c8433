/* profile_writer.c: the store's ari_profile_sink (see profile_writer.h and
 * sql/005_profiles.sql). Three phases: gather (callbacks fill per-node
 * value arrays indexed by the reader's node ids), shape (depth-first
 * numbering, process order, metric pairing and derivation, on dense
 * per-metric arrays), write (rows and BLOBs, summary, metadata). Names are
 * kept (and compared) as valid UTF-8 from the moment they arrive. */
#include "store/profile_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_text.h"
#include "store/trace_writer_internal.h"
#include "util/free_all.h"
#include "util/vec.h"

typedef struct pw_node {
    int declared;
    int64_t parent;        /* reader id, -1 root */
    char *name, *module, *file, *kind;
    int line;
    int nmetrics;          /* length of vals */
    int cap;               /* processes each vals[m] has room for */
    double **vals;         /* [nmetrics][cap], NaN = absent */
    int64_t new_id;        /* after numbering, -1 if unreached */
} pw_node;

typedef struct pw_metric {
    char *name, *source, *unit, *partner_name;
    int inclusive;
    int partner;           /* resolved at finish */
    int derived;
    double *dense;         /* [nnodes * nprocs] in final order, at finish */
} pw_metric;

struct ari_profile_writer {
    ari_store *store;
    ari_trace_writer *tw;  /* NULL for begin_store */
    int64_t trace_id;
    ari_error error;
    ari_profile_sink sink;

    pw_node **nodes;       /* indexed by reader id, NULL if never named */
    size_t nodes_cap;      /* slots allocated */
    int64_t *decl;         /* reader ids in declaration order */
    int64_t ndecl;
    size_t decl_cap;

    pw_metric *metrics;
    int nmetrics;
    size_t metrics_cap;

    int64_t *rank, *thread;
    int nprocs;
    size_t rank_cap, thread_cap;
    ari_strmap *proc_map;  /* "rank/thread" -> index + 1 */

    ari_json_members meta; /* the metadata object being built */
    int64_t dropped;       /* values of nodes never declared */
    uint64_t calls;

    /* shaped */
    int64_t nnodes;
    int64_t *order;        /* new id -> reader id */
    int64_t *new_parent;   /* new id -> new parent id or -1 */
    int *depth;
    int *proc_perm;        /* final proc -> gathered proc */
};

/* ---- gather ---- */

static int fail(ari_profile_writer *pw, const char *code, const char *fmt, const char *arg)
{
    return ari_error_set(&pw->error, code, fmt, arg);
}

/* A valid UTF-8 copy ("" for NULL), or NULL when out of memory. */
static char *dup_or_empty(const char *s)
{
    return ari_text_dup(s);
}

static int find_metric(const ari_profile_writer *pw, const char *name);

static int on_metric(void *ctx, const ari_profile_metric *m, int *index)
{
    ari_profile_writer *pw = ctx;
    if (!m->name || !*m->name)
        return fail(pw, ARI_E_INVALID_INPUT, "%smetric without a name", "");
    ari_text name;
    if (ari_text_init(&name, m->name) < 0)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    *index = find_metric(pw, name.s);
    ari_text_free(&name);
    if (*index >= 0)
        return 0;
    size_t need = (size_t)pw->nmetrics + 1;
    if (ari_vec_reserve((void **)&pw->metrics, &pw->metrics_cap, need, sizeof *pw->metrics) < 0)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    pw_metric *pm = &pw->metrics[pw->nmetrics];
    memset(pm, 0, sizeof *pm);
    pm->name = dup_or_empty(m->name);
    pm->source = dup_or_empty(m->source ? m->source : m->name);
    pm->unit = dup_or_empty(m->unit);
    pm->partner_name = m->partner ? dup_or_empty(m->partner) : NULL;
    pm->inclusive = m->inclusive ? 1 : 0;
    pm->partner = -1;
    pw->nmetrics++;
    if (!pm->name || !pm->source || !pm->unit || (m->partner && !pm->partner_name))
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    *index = pw->nmetrics - 1;
    return 0;
}

static int on_proc(void *ctx, int64_t rank, int64_t thread, int *index)
{
    ari_profile_writer *pw = ctx;
    char key[48];
    int len = snprintf(key, sizeof key, "%lld/%lld", (long long)rank, (long long)thread);
    void *found = ari_strmap_get(pw->proc_map, key, (size_t)len);
    if (found) {
        *index = (int)(intptr_t)found - 1;
        return 0;
    }
    if (pw->nprocs >= ARI_PROFILE_MAX_PROCS)
        return fail(pw, ARI_E_TOO_LARGE, "more than 4194304 processes%s", "");
    size_t need = (size_t)pw->nprocs + 1;
    if (ari_vec_reserve((void **)&pw->rank, &pw->rank_cap, need, sizeof *pw->rank) < 0 ||
        ari_vec_reserve((void **)&pw->thread, &pw->thread_cap, need, sizeof *pw->thread) < 0)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    pw->rank[pw->nprocs] = rank;
    pw->thread[pw->nprocs] = thread;
    pw->nprocs++;
    if (!ari_strmap_put(pw->proc_map, key, (size_t)len, (void *)(intptr_t)pw->nprocs))
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    *index = pw->nprocs - 1;
    return 0;
}

/* The slot of a reader id, growing the slot array (new slots undeclared). */
static pw_node *slot(ari_profile_writer *pw, int64_t id)
{
    if (id < 0 || id > ARI_PROFILE_MAX_NODE_ID) {
        char msg[32];
        snprintf(msg, sizeof msg, "%lld", (long long)id);
        fail(pw, ARI_E_INVALID_INPUT, "node id %s out of range", msg);
        return NULL;
    }
    size_t old = pw->nodes_cap;
    if (ari_vec_reserve((void **)&pw->nodes, &pw->nodes_cap, (size_t)id + 1, sizeof *pw->nodes) < 0) {
        fail(pw, ARI_E_NOMEM, "out of memory%s", "");
        return NULL;
    }
    memset(pw->nodes + old, 0, (pw->nodes_cap - old) * sizeof *pw->nodes);
    if (!pw->nodes[id] && !(pw->nodes[id] = calloc(1, sizeof(pw_node))))
        fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    return pw->nodes[id];
}

static int on_node(void *ctx, const ari_profile_node *n)
{
    ari_profile_writer *pw = ctx;
    if (n->parent < -1 || n->parent > ARI_PROFILE_MAX_NODE_ID)
        return fail(pw, ARI_E_INVALID_INPUT, "node parent out of range%s", "");
    pw_node *p = slot(pw, n->id);
    if (!p)
        return -1;
    if (p->declared)
        return fail(pw, ARI_E_INVALID_INPUT, "node %s declared twice", n->name ? n->name : "");
    p->declared = 1;
    p->parent = n->parent;
    p->name = dup_or_empty(n->name);
    p->module = dup_or_empty(n->module);
    p->file = dup_or_empty(n->file);
    p->kind = dup_or_empty(n->kind && *n->kind ? n->kind : "function");
    p->line = n->line;
    if (!p->name || !p->module || !p->file || !p->kind)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    if (ari_vec_reserve((void **)&pw->decl, &pw->decl_cap, (size_t)pw->ndecl + 1, sizeof *pw->decl) < 0)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    pw->decl[pw->ndecl++] = n->id;
    return 0;
}

/* Makes room in a node for metric m and process proc. */
static double *cell(ari_profile_writer *pw, pw_node *p, int m, int proc)
{
    if (m >= p->nmetrics) {
        double **grown = realloc(p->vals, (size_t)(m + 1) * sizeof *grown);
        if (!grown)
            return NULL;
        for (int i = p->nmetrics; i <= m; i++)
            grown[i] = NULL;
        p->vals = grown;
        p->nmetrics = m + 1;
    }
    if (proc >= p->cap) {
        int cap = p->cap ? p->cap : (pw->nprocs > 0 ? pw->nprocs : 1);
        while (cap <= proc)
            cap *= 2;
        for (int i = 0; i < p->nmetrics; i++) {
            if (!p->vals[i])
                continue;
            double *grown = realloc(p->vals[i], (size_t)cap * sizeof *grown);
            if (!grown)
                return NULL;
            for (int k = p->cap; k < cap; k++)
                grown[k] = NAN;
            p->vals[i] = grown;
        }
        p->cap = cap;
    }
    if (!p->vals[m]) {
        p->vals[m] = malloc((size_t)p->cap * sizeof(double));
        if (!p->vals[m])
            return NULL;
        for (int k = 0; k < p->cap; k++)
            p->vals[m][k] = NAN;
    }
    return &p->vals[m][proc];
}

static int on_value(void *ctx, int metric, int64_t node, int proc, double v)
{
    ari_profile_writer *pw = ctx;
    if (metric < 0 || metric >= pw->nmetrics || proc < 0 || proc >= pw->nprocs)
        return fail(pw, ARI_E_INVALID_INPUT, "value for an undeclared metric or process%s", "");
    if ((++pw->calls & 0xfffff) == 0 && pw->tw && ari_trace_writer_cancelled(pw->tw)) {
        pw->error = *ari_trace_writer_error(pw->tw);
        return -1;
    }
    pw_node *p = slot(pw, node);
    if (!p)
        return -1;
    double *c = cell(pw, p, metric, proc);
    if (!c)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    *c = isnan(*c) ? v : *c + v;
    return 0;
}

/* Appends `"key": value` to the metadata object (value is JSON text). */
static int on_meta(void *ctx, const char *key, const char *json_value)
{
    ari_profile_writer *pw = ctx;
    ari_text value;
    if (ari_text_init(&value, json_value) < 0)
        return fail(pw, ARI_E_NOMEM, "out of memory%s", "");
    int rc = ari_json_members_add(&pw->meta, key, value.s, value.len, 0);
    ari_text_free(&value);
    return rc < 0 ? fail(pw, ARI_E_NOMEM, "out of memory%s", "") : 0;
}

/* The reader's word on its time unit: the trace's time_unit and its source. */
static int on_time_unit(void *ctx, const char *unit, const char *source)
{
    ari_profile_writer *pw = ctx;
    ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_text(unit), ari_arg_text(source)};
    return ari_store_run(pw->store, "UPDATE traces SET time_unit = ?2, time_unit_source = ?3 WHERE id = ?1",
                         args, ARI_NARGS(args), "set time unit", &pw->error) < 0 ? -1 : 0;
}

static void on_progress(void *ctx, double fraction)
{
    ari_profile_writer *pw = ctx;
    if (pw->tw)
        ari_trace_writer_report(pw->tw, fraction);
}

ari_profile_writer *ari_profile_writer_begin_store(ari_store *s, int64_t trace_id, ari_error *err)
{
    ari_profile_writer *pw = calloc(1, sizeof *pw);
    if (!pw || !(pw->proc_map = ari_strmap_new())) {
        free(pw);
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    pw->store = s;
    pw->trace_id = trace_id;
    pw->sink = (ari_profile_sink){
        .ctx = pw,
        .on_metric = on_metric,
        .on_proc = on_proc,
        .on_node = on_node,
        .on_value = on_value,
        .on_meta = on_meta,
        .on_progress = on_progress,
        .on_time_unit = on_time_unit,
    };
    return pw;
}

ari_profile_writer *ari_profile_writer_begin(ari_trace_writer *w, ari_error *err)
{
    ari_profile_writer *pw = ari_profile_writer_begin_store(w->store, w->id, err);
    if (pw)
        pw->tw = w;
    return pw;
}

const ari_profile_sink *ari_profile_writer_sink(ari_profile_writer *pw)
{
    return &pw->sink;
}

const ari_error *ari_profile_writer_error(const ari_profile_writer *pw)
{
    return &pw->error;
}

/* ---- shape ---- */

/* Depth-first numbering from the roots, children in declaration order.
 * Every declared node must be reached: an unknown parent or a cycle is an
 * error. */
static int number_nodes(ari_profile_writer *pw, ari_error *err)
{
    int64_t n = pw->ndecl;
    if (n == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "the profile has no call-tree nodes");
    /* children lists as (first child, next sibling) over declaration index */
    int64_t *first = malloc((size_t)n * sizeof *first), *last = malloc((size_t)n * sizeof *last);
    int64_t *next = malloc((size_t)n * sizeof *next), *stack = malloc((size_t)n * sizeof *stack);
    int64_t *decl_index = malloc((size_t)pw->nodes_cap * sizeof *decl_index);
    pw->order = malloc((size_t)n * sizeof *pw->order);
    pw->new_parent = malloc((size_t)n * sizeof *pw->new_parent);
    pw->depth = malloc((size_t)n * sizeof *pw->depth);
    int rc = 0;
    if (!first || !last || !next || !stack || !decl_index || !pw->order || !pw->new_parent || !pw->depth) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        first[i] = last[i] = next[i] = -1;
        decl_index[pw->decl[i]] = i;
        pw->nodes[pw->decl[i]]->new_id = -1;
    }
    int64_t nroots = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        pw_node *p = pw->nodes[pw->decl[i]];
        if (p->parent < 0) {
            nroots++;
            continue;
        }
        if ((size_t)p->parent >= pw->nodes_cap || !pw->nodes[p->parent] || !pw->nodes[p->parent]->declared) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "node '%s' has an unknown parent %lld",
                               p->name, (long long)p->parent);
            break;
        }
        int64_t pi = decl_index[p->parent];
        if (last[pi] < 0)
            first[pi] = i;
        else
            next[last[pi]] = i;
        last[pi] = i;
    }
    if (rc == 0 && nroots == 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "the call tree has no root (a cycle)");
    int64_t count = 0;
    for (int64_t r = 0; r < n && rc == 0; r++) {
        if (pw->nodes[pw->decl[r]]->parent >= 0)
            continue;
        /* iterative preorder: the stack holds declaration indices */
        int64_t top = 0;
        stack[top++] = r;
        while (top > 0) {
            int64_t i = stack[--top];
            pw_node *p = pw->nodes[pw->decl[i]];
            p->new_id = count;
            pw->order[count] = pw->decl[i];
            pw->new_parent[count] = p->parent < 0 ? -1 : pw->nodes[p->parent]->new_id;
            pw->depth[count] = p->parent < 0 ? 0 : pw->depth[pw->new_parent[count]] + 1;
            count++;
            /* push children in reverse so the first is visited first */
            int64_t nchild = 0;
            for (int64_t c = first[i]; c >= 0; c = next[c])
                nchild++;
            int64_t k = top + nchild;
            for (int64_t c = first[i]; c >= 0; c = next[c])
                stack[--k] = c;
            top += nchild;
        }
    }
    if (rc == 0 && count != n)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT,
                           "the call tree has a cycle (%lld nodes unreachable from a root)",
                           (long long)(n - count));
    pw->nnodes = count;
done:
    free(first);
    free(last);
    free(next);
    free(stack);
    free(decl_index);
    return rc;
}

static const int64_t *sort_rank, *sort_thread;

static int compare_procs(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (sort_rank[x] != sort_rank[y])
        return sort_rank[x] < sort_rank[y] ? -1 : 1;
    if (sort_thread[x] != sort_thread[y])
        return sort_thread[x] < sort_thread[y] ? -1 : 1;
    return 0;
}

static int order_procs(ari_profile_writer *pw, ari_error *err)
{
    if (pw->nprocs == 0) /* a profile without values: one process */
        if (on_proc(pw, 0, 0, &(int){0}) < 0)
            return ari_error_set(err, pw->error.code, "%s", pw->error.message);
    pw->proc_perm = malloc((size_t)pw->nprocs * sizeof *pw->proc_perm);
    if (!pw->proc_perm)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (int i = 0; i < pw->nprocs; i++)
        pw->proc_perm[i] = i;
    sort_rank = pw->rank;
    sort_thread = pw->thread;
    qsort(pw->proc_perm, (size_t)pw->nprocs, sizeof *pw->proc_perm, compare_procs);
    return 0;
}

/* Moves metric m's values into one dense array in final order, freeing the
 * per-node arrays as it goes. */
static int densify(ari_profile_writer *pw, int m, ari_error *err)
{
    int64_t np = pw->nprocs;
    double *d = malloc((size_t)(pw->nnodes * np) * sizeof *d);
    if (!d)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory for %lld values",
                             (long long)(pw->nnodes * np));
    for (int64_t i = 0; i < pw->nnodes; i++) {
        pw_node *p = pw->nodes[pw->order[i]];
        double *row = d + i * np;
        const double *src = m < p->nmetrics ? p->vals[m] : NULL;
        for (int64_t k = 0; k < np; k++) {
            int g = pw->proc_perm[k];
            row[k] = src && g < p->cap ? src[g] : NAN;
        }
        if (src) {
            free(p->vals[m]);
            p->vals[m] = NULL;
        }
    }
    pw->metrics[m].dense = d;
    return 0;
}

static int find_metric(const ari_profile_writer *pw, const char *name)
{
    for (int i = 0; i < pw->nmetrics; i++)
        if (strcmp(pw->metrics[i].name, name) == 0)
            return i;
    return -1;
}

/* The default partner name: "X" <-> "X (inc)"; an inclusive metric not
 * named "... (inc)" pairs with "... (exc)". */
static void partner_name(const pw_metric *pm, char *out, size_t size)
{
    size_t len = strlen(pm->name);
    if (pm->partner_name)
        snprintf(out, size, "%s", pm->partner_name);
    else if (!pm->inclusive)
        snprintf(out, size, "%s (inc)", pm->name);
    else if (len > 6 && strcmp(pm->name + len - 6, " (inc)") == 0)
        snprintf(out, size, "%.*s", (int)(len - 6), pm->name);
    else
        snprintf(out, size, "%s (exc)", pm->name);
}

/* inclusive = exclusive + sum of the children's inclusive (NaN counts as
 * 0 unless nothing in the subtree was measured). */
static void derive_inclusive(ari_profile_writer *pw, const double *exc, double *inc)
{
    int64_t np = pw->nprocs;
    memcpy(inc, exc, (size_t)(pw->nnodes * np) * sizeof *inc);
    for (int64_t i = pw->nnodes - 1; i >= 0; i--) {
        int64_t parent = pw->new_parent[i];
        if (parent < 0)
            continue;
        double *pr = inc + parent * np;
        const double *cr = inc + i * np;
        for (int64_t k = 0; k < np; k++)
            if (!isnan(cr[k]))
                pr[k] = isnan(pr[k]) ? cr[k] : pr[k] + cr[k];
    }
}

/* exclusive = inclusive - sum of the children's inclusive. */
static void derive_exclusive(ari_profile_writer *pw, const double *inc, double *exc)
{
    int64_t np = pw->nprocs;
    memcpy(exc, inc, (size_t)(pw->nnodes * np) * sizeof *exc);
    for (int64_t i = 1; i < pw->nnodes; i++) {
        int64_t parent = pw->new_parent[i];
        if (parent < 0)
            continue;
        double *pr = exc + parent * np;
        const double *cr = inc + i * np;
        for (int64_t k = 0; k < np; k++)
            if (!isnan(cr[k]) && !isnan(pr[k]))
                pr[k] -= cr[k];
    }
}

/* Whether a metric adds up along the tree (a time, a count), so that its
 * other variant can be derived: not a min, max or average. */
static int summable(const pw_metric *pm)
{
    static const char *const prefixes[] = {"min#", "max#", "avg#", "Min ", "Max ", "Avg ", NULL};
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(pm->source, prefixes[i], 4) == 0 || strncmp(pm->name, prefixes[i], 4) == 0)
            return 0;
    return 1;
}

static int pair_metrics(ari_profile_writer *pw, ari_error *err)
{
    int n = pw->nmetrics; /* derived ones are appended past n */
    for (int m = 0; m < n; m++) {
        pw_metric *pm = &pw->metrics[m];
        if (pm->partner >= 0)
            continue;
        char want[512];
        partner_name(pm, want, sizeof want);
        int other = find_metric(pw, want);
        if (other >= 0 && other != m && pw->metrics[other].inclusive != pm->inclusive &&
            pw->metrics[other].partner < 0) {
            pm->partner = other;
            pw->metrics[other].partner = m;
            continue;
        }
        if (other >= 0 || !summable(pm))
            continue; /* a name clash, or a statistic that does not add up */
        ari_profile_metric dm = {want, pm->source, pm->unit, !pm->inclusive, pm->name};
        int d;
        if (on_metric(pw, &dm, &d) < 0)
            return ari_error_set(err, pw->error.code, "%s", pw->error.message);
        pm = &pw->metrics[m]; /* the array may have moved */
        pw_metric *dmet = &pw->metrics[d];
        dmet->derived = 1;
        dmet->partner = m;
        pm->partner = d;
        dmet->dense = malloc((size_t)(pw->nnodes * pw->nprocs) * sizeof(double));
        if (!dmet->dense)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory deriving %s", want);
        if (dmet->inclusive)
            derive_inclusive(pw, pm->dense, dmet->dense);
        else
            derive_exclusive(pw, pm->dense, dmet->dense);
    }
    return 0;
}

/* ---- write ---- */

static ari_arg real_or_null(double v)
{
    return isnan(v) ? ari_arg_null() : ari_arg_real(v);
}

static int write_nodes(ari_profile_writer *pw, ari_error *err)
{
    int rc = 0;
    for (int64_t i = 0; i < pw->nnodes && rc == 0; i++) {
        const pw_node *p = pw->nodes[pw->order[i]];
        ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(i),
                          pw->new_parent[i] < 0 ? ari_arg_null() : ari_arg_int(pw->new_parent[i]),
                          ari_arg_text(p->name), ari_arg_text(p->module), ari_arg_text(p->file),
                          ari_arg_int(p->line), ari_arg_text(p->kind), ari_arg_int(pw->depth[i])};
        rc = ari_store_run(pw->store,
                           "INSERT INTO cct_nodes(trace_id, node_id, parent_id, name, module, file, line,"
                           " kind, depth) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                           args, ARI_NARGS(args), "insert cct node", err);
    }
    return rc;
}

static int write_procs(ari_profile_writer *pw, ari_error *err)
{
    int rc = 0;
    for (int k = 0; k < pw->nprocs && rc == 0; k++) {
        ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(k), ari_arg_int(pw->rank[pw->proc_perm[k]]),
                          ari_arg_int(pw->thread[pw->proc_perm[k]])};
        rc = ari_store_run(pw->store,
                           "INSERT INTO profile_procs(trace_id, proc, rank, thread) VALUES (?1, ?2, ?3, ?4)", args, ARI_NARGS(args), "insert profile process", err);
    }
    return rc;
}

static int write_metrics(ari_profile_writer *pw, ari_error *err)
{
    int rc = 0;
    for (int m = 0; m < pw->nmetrics && rc == 0; m++) {
        const pw_metric *pm = &pw->metrics[m];
        ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(m), ari_arg_text(pm->name),
                          ari_arg_text(pm->unit), ari_arg_int(pm->inclusive),
                          pm->partner < 0 ? ari_arg_null() : ari_arg_int(pm->partner),
                          ari_arg_int(pm->derived), ari_arg_text(pm->source)};
        rc = ari_store_run(pw->store,
                           "INSERT INTO profile_metrics(trace_id, metric_id, name, unit, inclusive, partner,"
                           " derived, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           args, ARI_NARGS(args), "insert profile metric", err);
    }
    return rc;
}

static void to_little_endian(const double *in, unsigned char *out, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        uint64_t bits;
        memcpy(&bits, &in[k], 8);
        for (int b = 0; b < 8; b++)
            out[8 * k + b] = (unsigned char)(bits >> (8 * b));
    }
}

/* Min, max, mean and sum of the measured (not NaN) values of a row; all
 * NaN when none is. */
static void row_stats(const double *row, int64_t n, double stats[4])
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t count = 0;
    for (int64_t k = 0; k < n; k++) {
        if (isnan(row[k]))
            continue;
        lo = row[k] < lo ? row[k] : lo;
        hi = row[k] > hi ? row[k] : hi;
        sum += row[k];
        count++;
    }
    stats[0] = count ? lo : NAN;
    stats[1] = count ? hi : NAN;
    stats[2] = count ? sum / (double)count : NAN;
    stats[3] = count ? sum : NAN;
}

/* The metric's per-node sums and means in one row of profile_node_sums
 * (sql/013): what an ensemble reads instead of the per-rank rows. */
static int write_node_sums(ari_profile_writer *pw, int m, const double *sums, const double *means,
                           ari_error *err)
{
    int64_t n = pw->nnodes;
    unsigned char *bs = malloc((size_t)(n ? n : 1) * 8), *bm = malloc((size_t)(n ? n : 1) * 8);
    int rc = -1;
    if (!bs || !bm) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        to_little_endian(sums, bs, n);
        to_little_endian(means, bm, n);
        ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(m), ari_arg_blob(bs, n * 8),
                          ari_arg_blob(bm, n * 8)};
        rc = ari_store_run(pw->store,
                           "INSERT INTO profile_node_sums(trace_id, metric_id, sums, means) VALUES (?1, ?2, ?3, ?4)",
                           args, ARI_NARGS(args), "insert profile node sums", err);
    }
    free(bs);
    free(bm);
    return rc;
}

static int write_values(ari_profile_writer *pw, int m, unsigned char *buf, ari_error *err)
{
    int64_t np = pw->nprocs, n1 = pw->nnodes ? pw->nnodes : 1;
    double *sums = malloc((size_t)n1 * sizeof *sums), *means = malloc((size_t)n1 * sizeof *means);
    if (!sums || !means) {
        free(sums);
        free(means);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (int64_t i = 0; i < pw->nnodes && rc == 0; i++) {
        const double *row = pw->metrics[m].dense + i * np;
        double st[4];
        row_stats(row, np, st);
        means[i] = st[2];
        sums[i] = st[3];
        to_little_endian(row, buf, np);
        ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(m), ari_arg_int(i),
                          ari_arg_blob(buf, np * 8), real_or_null(st[0]), real_or_null(st[1]),
                          real_or_null(st[2]), real_or_null(st[3])};
        rc = ari_store_run(pw->store,
                           "INSERT INTO profile_values(trace_id, metric_id, node_id, vals, vmin, vmax, vmean,"
                           " vsum) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           args, ARI_NARGS(args), "insert profile values", err);
        if (rc == 0 && pw->tw && (i & 0x3ff) == 0 && ari_trace_writer_cancelled(pw->tw))
            rc = ari_error_set(err, ARI_E_CANCELLED, "import cancelled");
    }
    if (rc == 0)
        rc = write_node_sums(pw, m, sums, means, err);
    free(sums);
    free(means);
    return rc;
}

/* The metric the summary reports: "time (inc)", else the first inclusive. */
static int summary_metric(const ari_profile_writer *pw)
{
    int m = find_metric(pw, "time (inc)");
    for (int i = 0; i < pw->nmetrics && m < 0; i++)
        if (pw->metrics[i].inclusive)
            m = i;
    return m;
}

/* Mean, min and max over the processes of metric m summed over the roots
 * (a process with no measured root is left out); NaN when none is. */
static void root_inclusive(const ari_profile_writer *pw, int m, double out[3])
{
    int64_t np = pw->nprocs, count = 0;
    double lo = NAN, hi = NAN, sum = 0;
    for (int64_t k = 0; k < np; k++) {
        double v = 0;
        int seen = 0;
        for (int64_t i = 0; i < pw->nnodes; i++) {
            if (pw->new_parent[i] >= 0)
                continue;
            double x = pw->metrics[m].dense[i * np + k];
            if (!isnan(x)) {
                v += x;
                seen = 1;
            }
        }
        if (!seen)
            continue;
        lo = count == 0 || v < lo ? v : lo;
        hi = count == 0 || v > hi ? v : hi;
        sum += v;
        count++;
    }
    out[0] = count ? sum / (double)count : NAN;
    out[1] = lo;
    out[2] = hi;
}

static int write_summary(ari_profile_writer *pw, ari_error *err)
{
    int m = summary_metric(pw);
    int64_t roots = 0;
    double v[3] = {NAN, NAN, NAN};
    for (int64_t i = 0; i < pw->nnodes; i++)
        roots += pw->new_parent[i] < 0;
    if (m >= 0)
        root_inclusive(pw, m, v);
    ari_arg args[] = {ari_arg_int(pw->trace_id), ari_arg_int(pw->nnodes), ari_arg_int(roots),
                      ari_arg_int(pw->nprocs), ari_arg_text(m >= 0 ? pw->metrics[m].name : NULL),
                      real_or_null(v[0]), real_or_null(v[1]), real_or_null(v[2]), ari_arg_int(pw->dropped),
                      ari_arg_text(ari_json_members_close(&pw->meta))};
    return ari_store_run(pw->store,
        "UPDATE traces SET summary_json = json_patch(summary_json, json_object("
        " 'nodes', ?2, 'roots', ?3, 'processes', ?4,"
        " 'ranks', (SELECT count(DISTINCT rank) FROM profile_procs WHERE trace_id = ?1),"
        " 'threads', (SELECT count(DISTINCT thread) FROM profile_procs WHERE trace_id = ?1),"
        " 'metrics', (SELECT json_group_array(name) FROM (SELECT name FROM profile_metrics"
        "   WHERE trace_id = ?1 ORDER BY metric_id)),"
        " 'max_depth', (SELECT max(depth) FROM cct_nodes WHERE trace_id = ?1),"
        " 'modules', (SELECT count(DISTINCT module) FROM cct_nodes WHERE trace_id = ?1 AND module <> ''),"
        " 'files', (SELECT count(DISTINCT file) FROM cct_nodes WHERE trace_id = ?1 AND file <> ''),"
        " 'names', (SELECT count(DISTINCT name) FROM cct_nodes WHERE trace_id = ?1),"
        " 'inclusive_metric', ?5,"
        " 'root_inclusive', json_object('mean', ?6, 'min', ?7, 'max', ?8),"
        " 'values_without_node', ?9)),"
        " counts_json = json_patch(counts_json, json_object('cct_nodes', ?2, 'processes', ?4,"
        "   'metrics', (SELECT count(*) FROM profile_metrics WHERE trace_id = ?1))),"
        " meta_json = json_patch(meta_json, json(?10))"
        " WHERE id = ?1", args, ARI_NARGS(args), "profile summary", err);
}

static void count_dropped(ari_profile_writer *pw)
{
    for (size_t id = 0; id < pw->nodes_cap; id++) {
        pw_node *p = pw->nodes[id];
        if (!p || p->declared)
            continue;
        for (int m = 0; m < p->nmetrics; m++)
            for (int k = 0; p->vals[m] && k < p->cap; k++)
                pw->dropped += !isnan(p->vals[m][k]);
    }
}

int ari_profile_writer_finish(ari_profile_writer *pw, ari_error *err)
{
    if (pw->error.code[0])
        return ari_error_set(err, pw->error.code, "%s", pw->error.message);
    if (number_nodes(pw, err) < 0 || order_procs(pw, err) < 0)
        return -1;
    count_dropped(pw);
    int given = pw->nmetrics;
    for (int m = 0; m < given; m++)
        if (densify(pw, m, err) < 0)
            return -1;
    if (pair_metrics(pw, err) < 0)
        return -1;
    if (write_nodes(pw, err) < 0 || write_procs(pw, err) < 0 || write_metrics(pw, err) < 0)
        return -1;
    unsigned char *buf = malloc((size_t)pw->nprocs * 8);
    if (!buf)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    for (int m = 0; m < pw->nmetrics && rc == 0; m++)
        rc = write_values(pw, m, buf, err);
    free(buf);
    if (rc == 0)
        rc = write_summary(pw, err);
    return rc;
}

static void node_free(pw_node *p)
{
    for (int m = 0; m < p->nmetrics; m++)
        free(p->vals[m]);
    void *owned[] = {p->name, p->module, p->file, p->kind, p->vals, p};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static void metric_free(pw_metric *pm)
{
    void *owned[] = {pm->name, pm->source, pm->unit, pm->partner_name, pm->dense};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

/* What the callbacks gathered: nodes, declarations, metrics, processes,
 * metadata. */
static void free_gathered(ari_profile_writer *pw)
{
    for (size_t id = 0; id < pw->nodes_cap; id++)
        if (pw->nodes[id])
            node_free(pw->nodes[id]);
    free(pw->nodes);
    free(pw->decl);
    for (int m = 0; m < pw->nmetrics; m++)
        metric_free(&pw->metrics[m]);
    void *owned[] = {pw->metrics, pw->rank, pw->thread};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    ari_strmap_free(pw->proc_map);
    ari_json_members_free(&pw->meta);
}

/* What shaping added: the numbering and the order of the processes. */
static void free_shaped(ari_profile_writer *pw)
{
    void *owned[] = {pw->order, pw->new_parent, pw->depth, pw->proc_perm};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

void ari_profile_writer_free(ari_profile_writer *pw)
{
    if (!pw)
        return;
    free_gathered(pw);
    free_shaped(pw);
    free(pw);
}
