/* gantt_row_reads.c: the raw tasks and runtime states of several Gantt
 * rows, one statement per kind (gantt_row_reads.h says why). */
#include "store/gantt_row_reads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/sbuf.h"
#include "util/vec.h"

static int nomem(ari_error *err)
{
    return ari_error_set(err, ARI_E_NOMEM, "gantt rows: out of memory");
}

/* The statement `head` + "id,id,..." + ")" + tail for the rows' workers,
 * prepared (owned: ari_stmt_finalize), its parameters bound, its rows
 * streamed. */
static ari_stmt *rows_statement(ari_store *s, const char *head, const char *tail, const ari_tq_meta *meta,
                                const int *rows, int n, const ari_arg *args, int nargs, ari_error *err)
{
    ari_sbuf b = {0};
    ari_sbuf_add_str(&b, head);
    for (int k = 0; k < n; k++)
        ari_sbuf_printf(&b, "%s%lld", k ? "," : "", (long long)meta->workers[rows[k]].id);
    ari_sbuf_add_str(&b, ")");
    ari_sbuf_add_str(&b, tail);
    char *text = ari_sbuf_take(&b);
    if (!text) {
        nomem(err);
        return NULL;
    }
    ari_stmt *st = ari_store_prepare(s, text, err);
    free(text);
    if (st && ari_store_bind_args(s, st, args, nargs, err) < 0) {
        ari_stmt_finalize(st);
        return NULL;
    }
    if (st)
        ari_stream(st);
    return st;
}

/* The index k of the row whose worker has this id: rows sorted by id in
 * by_id ([k] pairs of id and k), a binary search. */
typedef struct row_id {
    int64_t id;
    int k;
} row_id;

static int cmp_row_id(const void *a, const void *b)
{
    const row_id *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static row_id *rows_by_id(const ari_tq_meta *meta, const int *rows, int n)
{
    row_id *by_id = malloc(((size_t)n + 1) * sizeof *by_id);
    if (!by_id)
        return NULL;
    for (int k = 0; k < n; k++)
        by_id[k] = (row_id){meta->workers[rows[k]].id, k};
    qsort(by_id, (size_t)n, sizeof *by_id, cmp_row_id);
    return by_id;
}

static int row_of(const row_id *by_id, int n, int64_t id)
{
    row_id key = {id, 0};
    const row_id *hit = bsearch(&key, by_id, (size_t)n, sizeof *by_id, cmp_row_id);
    return hit ? hit->k : -1;
}

/* ---- tasks ---- */

/* One task as read, with the rowid that orders ties. */
typedef struct read_task {
    double start, end;
    int64_t rowid;
    int type;
} read_task;

typedef struct task_buf {
    read_task *t;
    size_t n, cap;
} task_buf;

static int cmp_task(const void *a, const void *b)
{
    const read_task *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->rowid > y->rowid) - (x->rowid < y->rowid);
}

void ari_row_reads_free(ari_row_tasks *r, int n)
{
    for (int k = 0; r && k < n; k++) {
        free(r[k].start);
        free(r[k].end);
        free(r[k].type);
        memset(&r[k], 0, sizeof r[k]);
    }
}

/* A type name's meta id, remembering the last name (a row's tasks come in
 * runs of one type often enough). */
typedef struct type_memo {
    char name[256];
    int type;
} type_memo;

static int type_id(const ari_tq_meta *meta, type_memo *memo, const char *name)
{
    if (!name)
        return -1;
    if (memo->name[0] && strcmp(name, memo->name) == 0)
        return memo->type;
    memo->type = ari_tq_type_id(meta, name);
    memo->name[0] = '\0';
    if (strlen(name) < sizeof memo->name)
        strcpy(memo->name, name);
    return memo->type;
}

/* Sorts buf's tasks into out (its arrays allocated here). */
static int take_tasks(task_buf *buf, ari_row_tasks *out)
{
    if (buf->n > 1)
        qsort(buf->t, buf->n, sizeof *buf->t, cmp_task);
    size_t n = buf->n ? buf->n : 1;
    out->start = malloc(n * sizeof *out->start);
    out->end = malloc(n * sizeof *out->end);
    out->type = malloc(n * sizeof *out->type);
    if (!out->start || !out->end || !out->type)
        return -1;
    for (size_t i = 0; i < buf->n; i++) {
        out->start[i] = buf->t[i].start;
        out->end[i] = buf->t[i].end;
        out->type[i] = buf->t[i].type;
    }
    out->ntasks = (int64_t)buf->n;
    return 0;
}

static int stream_tasks(ari_store *s, ari_stmt *st, const ari_tq_meta *meta, const row_id *by_id,
                        const double *lo, int n, task_buf *bufs, ari_error *err)
{
    type_memo memo = {{0}, -1};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = row_of(by_id, n, ari_col_int64(st, 0));
        double start = ari_col_double(st, 2);
        int type = type_id(meta, &memo, (const char *)ari_col_text(st, 1));
        if (k < 0 || type < 0 || start < lo[k])
            continue;
        task_buf *b = &bufs[k];
        if (ari_vec_reserve((void **)&b->t, &b->cap, b->n + 1, sizeof *b->t) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        b->t[b->n++] = (read_task){start, ari_col_double(st, 3), ari_col_int64(st, 4), type};
    }
    return ari_store_rows_end(s, st, rc, "read the tasks of the rows", err);
}

static double lowest(const double *lo, int n)
{
    double m = INFINITY;
    for (int k = 0; k < n; k++)
        if (lo[k] < m)
            m = lo[k];
    return m;
}

int ari_gantt_read_tasks(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                         const double *lo, int n, double hi, ari_row_tasks *out, ari_error *err)
{
    memset(out, 0, (size_t)n * sizeof *out);
    if (n <= 0)
        return 0;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(lowest(lo, n)), ari_arg_real(hi)};
    row_id *by_id = rows_by_id(meta, rows, n);
    task_buf *bufs = calloc((size_t)n, sizeof *bufs);
    ari_stmt *st = by_id && bufs ? rows_statement(s,
                                                  "SELECT worker_id, type, start, end, rowid FROM tasks"
                                                  " WHERE trace_id = ?1 AND start >= ?2 AND start < ?3"
                                                  " AND worker_id IN (",
                                                  "", meta, rows, n, args, ARI_NARGS(args), err)
                                 : NULL;
    int rc = st ? stream_tasks(s, st, meta, by_id, lo, n, bufs, err) : by_id && bufs ? -1 : nomem(err);
    for (int k = 0; k < n; k++) {
        out[k].worker_id = meta->workers[rows[k]].id;
        if (rc == 0 && take_tasks(&bufs[k], &out[k]) < 0)
            rc = nomem(err);
        free(bufs[k].t);
    }
    ari_stmt_finalize(st);
    free(bufs);
    free(by_id);
    if (rc < 0)
        ari_row_reads_free(out, n);
    return rc;
}

/* ---- tasks with their details ---- */

static int stream_details(ari_store *s, ari_stmt *st, const ari_tq_meta *meta, const row_id *by_id,
                          const double *lo, int n, ari_tq_detail_fn fn, void *const *ctx, ari_error *err)
{
    type_memo memo = {{0}, -1};
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = row_of(by_id, n, ari_col_int64(st, 0));
        double start = ari_col_double(st, 3);
        int type = type_id(meta, &memo, (const char *)ari_col_text(st, 2));
        if (k < 0 || type < 0 || start < lo[k])
            continue;
        const char *job = (const char *)ari_col_text(st, 1);
        double gflop = ari_col_type(st, 5) == ARI_NULL ? NAN : ari_col_double(st, 5);
        int64_t it = ari_col_type(st, 6) == ARI_NULL ? ARI_TQ_NO_ITERATION : ari_col_int64(st, 6);
        if (fn(ctx[k], job ? job : "", type, start, ari_col_double(st, 4), gflop, it) != 0) {
            ari_reset(st);
            return nomem(err);
        }
    }
    return ari_store_rows_end(s, st, rc, "read the tasks of the rows", err);
}

int ari_gantt_read_details(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                           const double *lo, int n, double hi, ari_tq_detail_fn fn, void *const *ctx,
                           ari_error *err)
{
    if (n <= 0)
        return 0;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(lowest(lo, n)), ari_arg_real(hi)};
    row_id *by_id = rows_by_id(meta, rows, n);
    if (!by_id)
        return nomem(err);
    /* each worker's tasks in the per-row reads' order (ari_tq_worker_tasks) */
    ari_stmt *st = rows_statement(s,
                                  "SELECT worker_id, job_id, type, start, end, gflop, iteration FROM tasks"
                                  " WHERE trace_id = ?1 AND start >= ?2 AND start < ?3 AND worker_id IN (",
                                  " ORDER BY worker_id, start, end, rowid", meta, rows, n, args, ARI_NARGS(args),
                                  err);
    int rc = st ? stream_details(s, st, meta, by_id, lo, n, fn, ctx, err) : -1;
    ari_stmt_finalize(st);
    free(by_id);
    return rc;
}

/* ---- runtime states ---- */

/* One state as read: value is the row's dense id (state_buf's ids), the
 * rowid orders ties. 32 bytes; compacted to the 24 of ari_gantt_state in
 * place once sorted, so a row's states are held once. */
typedef struct read_state {
    ari_gantt_state st;
    int64_t rowid;
} read_state;

typedef struct state_buf {
    read_state *s;
    size_t n, cap;
    int64_t *ids; /* dense id -> names.id */
    int nvalues;
    size_t ids_cap;
} state_buf;

static int cmp_state(const void *a, const void *b)
{
    const read_state *x = a, *y = b;
    if (x->st.start != y->st.start)
        return x->st.start < y->st.start ? -1 : 1;
    if (x->st.depth != y->st.depth)
        return x->st.depth < y->st.depth ? -1 : 1;
    return (x->rowid > y->rowid) - (x->rowid < y->rowid);
}

/* The dense id of names.id `value` in b's ids, appended when new. */
static int dense_value(state_buf *b, int64_t value)
{
    for (int v = b->nvalues - 1; v >= 0; v--)
        if (b->ids[v] == value)
            return v;
    if (ari_vec_reserve((void **)&b->ids, &b->ids_cap, (size_t)b->nvalues + 1, sizeof *b->ids) < 0)
        return -1;
    b->ids[b->nvalues] = value;
    return b->nvalues++;
}

static int stream_states(ari_store *s, ari_stmt *st, const row_id *by_id, const double *lo, int n,
                         state_buf *bufs, ari_error *err)
{
    int rc;
    while ((rc = ari_step(st)) == ARI_ROW) {
        int k = row_of(by_id, n, ari_col_int64(st, 0));
        double start = ari_col_double(st, 2);
        if (k < 0 || start < lo[k])
            continue;
        state_buf *b = &bufs[k];
        int v = dense_value(b, ari_col_int64(st, 1));
        if (v < 0 || ari_vec_reserve((void **)&b->s, &b->cap, b->n + 1, sizeof *b->s) < 0) {
            ari_reset(st);
            return nomem(err);
        }
        b->s[b->n++] = (read_state){{.value = v, .depth = ari_col_int(st, 4), .start = start,
                                     .end = ari_col_double(st, 3)},
                                    ari_col_int64(st, 5)};
    }
    return ari_store_rows_end(s, st, rc, "read the states of the rows", err);
}

/* Sorts buf's states and hands them to out, compacted in place (each
 * state moves to a lower address), with their names. */
static int take_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, state_buf *buf,
                       ari_tq_states *out, ari_error *err)
{
    if (buf->n > 1)
        qsort(buf->s, buf->n, sizeof *buf->s, cmp_state);
    ari_gantt_state *states = (ari_gantt_state *)buf->s;
    for (size_t i = 0; i < buf->n; i++)
        memmove(&states[i], &buf->s[i].st, sizeof *states);
    out->states = buf->n ? realloc(buf->s, buf->n * sizeof *states) : malloc(sizeof *states);
    if (!out->states) {
        out->states = states; /* still the buffer: freed with out */
        buf->s = NULL;
        return nomem(err);
    }
    if (buf->n == 0)
        free(buf->s);
    buf->s = NULL;
    out->n = (int64_t)buf->n;
    out->nvalues = buf->nvalues;
    return ari_tq_states_names(s, trace_id, meta, buf->ids, out, err);
}

int ari_gantt_read_states(ari_store *s, int64_t trace_id, const ari_tq_meta *meta, const int *rows,
                          const double *lo, int n, double t0, double t1, ari_tq_states *out, ari_error *err)
{
    memset(out, 0, (size_t)n * sizeof *out);
    if (n <= 0)
        return 0;
    ari_arg args[] = {ari_arg_int(trace_id), ari_arg_real(lowest(lo, n)), ari_arg_real(t1), ari_arg_real(t0)};
    const char *head = "SELECT container_id, value_id, start, end, depth, rowid FROM states"
                       " WHERE trace_id = ?1 AND start >= ?2 AND start < ?3 AND end > ?4 AND container_id IN (";
    row_id *by_id = rows_by_id(meta, rows, n);
    state_buf *bufs = calloc((size_t)n, sizeof *bufs);
    ari_stmt *st = by_id && bufs ? rows_statement(s, head, "", meta, rows, n, args, ARI_NARGS(args), err) : NULL;
    int rc = st ? stream_states(s, st, by_id, lo, n, bufs, err) : by_id && bufs ? -1 : nomem(err);
    ari_stmt_finalize(st);
    for (int k = 0; k < n; k++) {
        if (rc == 0)
            rc = take_states(s, trace_id, meta, &bufs[k], &out[k], err);
        free(bufs[k].s);
        free(bufs[k].ids);
    }
    free(bufs);
    free(by_id);
    for (int k = 0; rc < 0 && k < n; k++)
        ari_tq_states_free(&out[k]);
    return rc;
}
