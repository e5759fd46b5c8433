/* format_starpu.c: the "starpu" bundle format and the StarPU conventions it
 * shares with the StarVZ CSV format (see format_starpu.h).
 *
 * Following StarVZ: an application task is a "Worker State" state with a
 * JobId whose value is not one of StarPU's runtime states; its worker is
 * the state's container; the node is the rank prefix of the container name
 * ("0_CPU3"), 0 on single-node runs; the resource type is the name without
 * digits and '_'. The time origin is the earliest start of an application
 * task (matrix-generation kernels excluded, as StarVZ's colour tables do),
 * taken from tasks.rec and subtracted from every time; it is kept in the
 * summary as time_origin.
 *
 * A bundle is read in this order, so that everything streams: the tree
 * (tasks learn their tree node from it), tasks.rec once for the origin,
 * paje.trace (entities, workers and tasks), tasks.rec again (submit times,
 * priorities, handles, DependsOn), dag.dot, data.rec, tasks_anode.csv,
 * conf.txt. README.txt, manifest.json (ariadne's generator) and the other
 * starpu_fxt_tool outputs are recorded as files of the trace but not read.
 */
#include "import/format_starpu.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/csv.h"
#include "ingest/dot.h"
#include "ingest/input.h"
#include "ingest/paje.h"
#include "ingest/rec.h"
#include "store/task_writer.h"
#include "store/trace_writer.h"
#include "util/alloc.h"
#include "util/free_all.h"
#include "util/strmap.h"
#include "util/vec.h"

/* ---- conventions ---- */

static const char *const runtime_states[] = {
    "Callback", "FetchingInput", "Idle", "Initializing", "Overhead", "PushingOutput", "Scheduling",
    "Submitting task", "Progressing", "Sleeping", "Submiting task", "Waiting all tasks",
    "Building task", "Deinitializing", "execute_on_all_wrapper", "HandleRequests", "Executing", NULL,
};

int ari_starpu_is_runtime_state(const char *value)
{
    for (size_t i = 0; runtime_states[i]; i++)
        if (strcmp(value, runtime_states[i]) == 0)
            return 1;
    return 0;
}

int ari_starpu_is_internal(const char *name)
{
    return strncmp(name, "_starpu_", 8) == 0 || strncmp(name, "starpu_data_", 12) == 0;
}

int ari_starpu_is_generation_kernel(const char *type)
{
    return strstr(type, "plgsy") != NULL || strstr(type, "plrnt") != NULL;
}

int ari_bundle_role(const ari_bundle_file *table, const char *path)
{
    char plain[256];
    ari_starpu_plain_name(path, plain, sizeof plain);
    for (size_t i = 0; table[i].name; i++)
        if (strcmp(plain, table[i].name) == 0)
            return table[i].role;
    return -1;
}

void ari_starpu_plain_name(const char *path, char *out, size_t size)
{
    static const char *const suffixes[] = {".gz", ".zst", ".xz", ".bz2", ".lz4", NULL};
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
    size_t len = strlen(out);
    for (size_t i = 0; suffixes[i]; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && strcmp(out + len - n, suffixes[i]) == 0) {
            out[len - n] = '\0';
            return;
        }
    }
}

int ari_starpu_fail(ari_trace_writer *w, ari_error *err)
{
    const ari_error *werr = ari_trace_writer_error(w);
    if (werr->code[0] && err)
        *err = *werr;
    else if (err && !err->code[0])
        ari_error_set(err, ARI_E_CANCELLED, "import stopped");
    return -1;
}

/* ---- number fields: absent (empty) values are "unset" ---- */

static int parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 1;
}

static double opt_double(const char *s)
{
    double v;
    return parse_double(s, &v) == 1 ? v : NAN;
}

/* An integer, or ARI_UNSET_INT; "0_12" (a rank-prefixed number) gives 12
 * and "3 1" (Iteration) its first number. */
static int64_t opt_int(const char *s)
{
    if (!s || !*s)
        return ARI_UNSET_INT;
    const char *us = strrchr(s, '_');
    if (us)
        s = us + 1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE || (*end && *end != ' '))
        return ARI_UNSET_INT;
    return v;
}

static const char *field(const ari_field *f, size_t n, const char *name)
{
    const char *v = ari_rec_get(f, n, name);
    return v && *v ? v : NULL;
}

int ari_starpu_task_from_fields(const char *value, const ari_field *f, size_t n, ari_task *t)
{
    const char *job = field(f, n, "JobId");
    if (!job || !value || ari_starpu_is_runtime_state(value) || ari_starpu_is_internal(value))
        return 0;
    memset(t, 0, sizeof *t);
    t->job_id = job;
    t->type = value;
    t->node = ARI_UNSET_INT;
    t->submit_order = opt_int(field(f, n, "SubmitOrder"));
    t->tag = field(f, n, "Tag");
    t->gflop = opt_double(field(f, n, "GFlop"));
    t->iteration = opt_int(field(f, n, "Iteration"));
    t->subiteration = opt_int(field(f, n, "Subiteration"));
    t->params = field(f, n, "Params");
    t->footprint = field(f, n, "Footprint");
    t->size = opt_int(field(f, n, "Size"));
    t->x = opt_int(field(f, n, "X"));
    t->y = opt_int(field(f, n, "Y"));
    return 1;
}

/* ---- record streams (recfile or CSV with a header) ---- */

struct ari_records {
    ari_rec *rec;
    ari_csv *csv;
    char **header;
    size_t ncols;
    ari_field *fields;
    size_t header_cap, fields_cap; /* allocated slots of header and fields */
    char where[600];
};

ari_records *ari_records_open(const char *path, const char *name, int csv, ari_error *err)
{
    ari_records *r = ari_zalloc(sizeof *r, err);
    if (!r)
        return NULL;
    if (csv)
        r->csv = ari_csv_open(path, name, err);
    else
        r->rec = ari_rec_open(path, name, err);
    if (!r->csv && !r->rec) {
        free(r);
        return NULL;
    }
    return r;
}

void ari_records_close(ari_records *r)
{
    if (!r)
        return;
    ari_rec_close(r->rec);
    ari_csv_close(r->csv);
    for (size_t i = 0; i < r->ncols; i++)
        free(r->header[i]);
    void *owned[] = {r->header, r->fields, r};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int read_header(ari_records *r, ari_error *err)
{
    char **cells;
    size_t n;
    int rc = ari_csv_next(r->csv, &cells, &n, err);
    if (rc <= 0)
        return rc;
    r->header = calloc(n, sizeof *r->header);
    r->fields = calloc(n, sizeof *r->fields);
    if (!r->header || !r->fields)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    r->header_cap = r->fields_cap = n;
    for (size_t i = 0; i < n; i++) {
        if (!(r->header[i] = strdup(cells[i])))
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        r->ncols++;
    }
    return 1;
}

/* pj_dump rows may carry more user fields than its header names: they
 * are called "column<N>" (1-based). */
static int extend_header(ari_records *r, size_t ncells, ari_error *err)
{
    if (ari_vec_reserve((void **)&r->header, &r->header_cap, ncells, sizeof *r->header) < 0 ||
        ari_vec_reserve((void **)&r->fields, &r->fields_cap, ncells, sizeof *r->fields) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (; r->ncols < ncells; r->ncols++) {
        char name[32];
        snprintf(name, sizeof name, "column%zu", r->ncols + 1);
        if (!(r->header[r->ncols] = strdup(name)))
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

int ari_records_next(ari_records *r, const ari_field **fields, size_t *n, ari_error *err)
{
    if (r->rec) {
        int rc = ari_rec_next(r->rec, fields, n, err);
        snprintf(r->where, sizeof r->where, "%s:%llu", ari_rec_name(r->rec),
                 (unsigned long long)ari_rec_lineno(r->rec));
        return rc;
    }
    if (!r->header) {
        int rc = read_header(r, err);
        if (rc <= 0)
            return rc;
    }
    char **cells;
    size_t ncells;
    int rc = ari_csv_next(r->csv, &cells, &ncells, err);
    snprintf(r->where, sizeof r->where, "%s:%llu", ari_csv_name(r->csv),
             (unsigned long long)ari_csv_lineno(r->csv));
    if (rc <= 0)
        return rc;
    if (ncells > r->ncols && extend_header(r, ncells, err) < 0)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < ncells; i++)
        if (cells[i][0])
            r->fields[k++] = (ari_field){r->header[i], cells[i]};
    *fields = r->fields;
    *n = k;
    return 1;
}

const char *ari_records_where(ari_records *r)
{
    return r->where;
}

/* ---- task records (tasks.rec, rec.tasks.csv) ---- */

/* tasks.rec lists every task StarPU saw: the application's are those that
 * ran on a worker, are not runtime-internal, and are not WontUse records. */
static int record_is_application(const ari_field *f, size_t n)
{
    const char *control = field(f, n, "Control");
    const char *name = field(f, n, "Name");
    if (control && strcmp(control, "WontUse") == 0)
        return 0;
    if (!name || ari_starpu_is_internal(name))
        return 0;
    return field(f, n, "StartTime") && field(f, n, "WorkerId") && field(f, n, "JobId");
}

static int record_time(ari_records *r, const ari_field *f, size_t n, const char *name, double *out,
                       ari_error *err)
{
    const char *s = field(f, n, name);
    int rc = parse_double(s, out);
    if (rc == 1)
        return 0;
    if (rc == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: task record without %s",
                             ari_records_where(r), name);
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: bad %s '%.40s'", ari_records_where(r), name, s);
}

int ari_starpu_records_origin(const char *path, const char *name, int csv, double *origin,
                              ari_error *err)
{
    ari_records *r = ari_records_open(path, name, csv, err);
    if (!r)
        return -1;
    double all = INFINITY, compute = INFINITY;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        if (!record_is_application(f, n))
            continue;
        double start;
        if (record_time(r, f, n, "StartTime", &start, err) < 0) {
            rc = -1;
            break;
        }
        if (start < all)
            all = start;
        if (start < compute && !ari_starpu_is_generation_kernel(field(f, n, "Name")))
            compute = start;
    }
    ari_records_close(r);
    if (rc < 0)
        return -1;
    if (isinf(all))
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s: no application task (no record that ran on a worker)", name);
    *origin = isinf(compute) ? all : compute;
    return 0;
}

/* Stores a task that Paje did not show, from its record alone. */
static int task_from_record(ari_records *r, const ari_task_sink *ts, const ari_field *f, size_t n,
                            double origin, ari_error *err)
{
    ari_task t;
    memset(&t, 0, sizeof t);
    double start, end;
    if (record_time(r, f, n, "StartTime", &start, err) < 0 || record_time(r, f, n, "EndTime", &end, err) < 0)
        return -1;
    int64_t rank = opt_int(field(f, n, "MPIRank"));
    char worker[64];
    if (rank != ARI_UNSET_INT && rank >= 0)
        snprintf(worker, sizeof worker, "%lld_w%.20s", (long long)rank, field(f, n, "WorkerId"));
    else
        snprintf(worker, sizeof worker, "w%.20s", field(f, n, "WorkerId"));
    t.job_id = field(f, n, "JobId");
    t.type = field(f, n, "Name");
    t.worker = worker;
    t.node = rank != ARI_UNSET_INT && rank >= 0 ? rank : ARI_UNSET_INT;
    t.start = start - origin;
    t.end = end - origin;
    t.submit_order = opt_int(field(f, n, "SubmitOrder"));
    t.tag = field(f, n, "Tag");
    t.gflop = opt_double(field(f, n, "GFlop"));
    t.iteration = opt_int(field(f, n, "Iteration"));
    t.subiteration = ARI_UNSET_INT;
    t.params = field(f, n, "Parameters");
    t.footprint = field(f, n, "Footprint");
    t.size = t.x = t.y = ARI_UNSET_INT;
    return ts->on_task(ts->ctx, &t);
}

/* DependsOn "a b c" with DepLabels "task ghost task". */
static int record_deps(const ari_task_sink *ts, const char *job, const char *deps, const char *labels)
{
    char dep[256], label[64];
    while (deps && *deps) {
        while (*deps == ' ')
            deps++;
        size_t len = strcspn(deps, " ");
        if (len == 0)
            break;
        snprintf(dep, sizeof dep, "%.*s", (int)len, deps);
        deps += len;
        label[0] = '\0';
        if (labels) {
            while (*labels == ' ')
                labels++;
            size_t l = strcspn(labels, " ");
            snprintf(label, sizeof label, "%.*s", (int)l, labels);
            labels += l;
        }
        if (ts->on_dep(ts->ctx, job, dep, label[0] ? label : NULL))
            return -1;
    }
    return 0;
}

static int task_record(ari_records *r, const ari_task_sink *ts, const ari_field *f, size_t n,
                       double origin, ari_error *err)
{
    ari_task_info info;
    memset(&info, 0, sizeof info);
    info.job_id = field(f, n, "JobId");
    info.submit_time = opt_double(field(f, n, "SubmitTime")) - origin;
    info.priority = opt_int(field(f, n, "Priority"));
    info.memory_node = opt_int(field(f, n, "MemoryNode"));
    info.worker_rank = opt_int(field(f, n, "WorkerId"));
    info.model = field(f, n, "Model");
    info.handles = field(f, n, "Handles");
    info.modes = field(f, n, "Modes");
    info.tag = field(f, n, "Tag");
    info.params = field(f, n, "Parameters");
    info.footprint = field(f, n, "Footprint");
    info.gflop = opt_double(field(f, n, "GFlop"));
    int matched = 0;
    if (ts->on_task_info(ts->ctx, &info, &matched))
        return -1;
    if (!matched) {
        if (task_from_record(r, ts, f, n, origin, err) < 0)
            return -1;
        if (ts->on_task_info(ts->ctx, &info, &matched))
            return -1;
    }
    return record_deps(ts, info.job_id, field(f, n, "DependsOn"), field(f, n, "DepLabels"));
}

int ari_starpu_read_task_records(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                                 const char *name, int csv, double origin, ari_error *err)
{
    ari_records *r = ari_records_open(path, name, csv, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        if (!record_is_application(f, n))
            continue;
        ari_error local = {"", ""};
        if (task_record(r, ts, f, n, origin, &local) < 0) {
            if (local.code[0] && err)
                *err = local; /* the record was bad */
            rc = local.code[0] ? -1 : ari_starpu_fail(w, err);
            break;
        }
    }
    ari_records_close(r);
    return rc < 0 ? -1 : 0;
}

/* ---- data handles ---- */

int ari_starpu_read_handles(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                            const char *name, int csv, ari_error *err)
{
    ari_records *r = ari_records_open(path, name, csv, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        ari_data_handle h = {
            .handle = field(f, n, "Handle"),
            .home_node = opt_int(field(f, n, "HomeNode")),
            .mpi_rank = opt_int(field(f, n, "MPIRank")),
            .name = field(f, n, "Name"),
            .size = opt_int(field(f, n, "Size")),
            .description = field(f, n, "Description"),
            .coordinates = field(f, n, "Coordinates"),
            .mpi_owner = opt_int(field(f, n, "MPIOwner")),
            .mpi_tag = opt_int(field(f, n, "MPITag")),
        };
        if (!h.handle) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: data record without Handle",
                               ari_records_where(r));
            break;
        }
        if (ts->on_handle(ts->ctx, &h)) {
            rc = ari_starpu_fail(w, err);
            break;
        }
    }
    ari_records_close(r);
    return rc < 0 ? -1 : 0;
}

/* ---- dependencies ---- */

/* Edges through "mpi_*" nodes (a send, then a receive) are joined: the
 * sender of each mpi node is kept, receivers wait in a list until the end
 * if their sender comes later. */
typedef struct dag_state {
    const ari_task_sink *ts;
    ari_strmap *senders; /* mpi node -> strdup'd predecessor job id */
    char **pending;      /* pairs: mpi node, successor job id */
    size_t npending, cap;
    int failed_nomem;
} dag_state;

static const char *job_of(const char *id)
{
    return strncmp(id, "task_", 5) == 0 ? id + 5 : id;
}

static int is_mpi_node(const char *id)
{
    return strncmp(id, "mpi_", 4) == 0;
}

static int push_pending(dag_state *d, const char *mpi, const char *job)
{
    if (ari_vec_reserve((void **)&d->pending, &d->cap, d->npending + 2, sizeof *d->pending) < 0)
        return d->failed_nomem = 1, -1;
    d->pending[d->npending] = strdup(mpi);
    d->pending[d->npending + 1] = strdup(job);
    d->npending += 2;
    if (!d->pending[d->npending - 2] || !d->pending[d->npending - 1])
        return d->failed_nomem = 1, -1;
    return 0;
}

static int dag_edge(void *ctx, const char *from_id, const char *to_id, const char *label)
{
    dag_state *d = ctx;
    const char *from = job_of(from_id), *to = job_of(to_id);
    int from_mpi = is_mpi_node(from), to_mpi = is_mpi_node(to);
    if (from_mpi && to_mpi)
        return 0;
    if (!from_mpi && !to_mpi)
        return d->ts->on_dep(d->ts->ctx, to, from, label);
    if (to_mpi) {
        if (ari_strmap_get(d->senders, to, strlen(to)))
            return 0;
        char *copy = strdup(from);
        if (!copy || !ari_strmap_put(d->senders, to, strlen(to), copy)) {
            free(copy);
            return d->failed_nomem = 1, -1;
        }
        return 0;
    }
    const char *sender = ari_strmap_get(d->senders, from, strlen(from));
    if (sender)
        return d->ts->on_dep(d->ts->ctx, to, sender, "mpi");
    return push_pending(d, from, to);
}

static void free_value(void *ctx, const char *key, void *value)
{
    (void)ctx, (void)key;
    free(value);
}

static int dag_finish(dag_state *d)
{
    int rc = 0;
    for (size_t i = 0; i + 1 < d->npending && rc == 0; i += 2) {
        const char *sender = ari_strmap_get(d->senders, d->pending[i], strlen(d->pending[i]));
        if (sender)
            rc = d->ts->on_dep(d->ts->ctx, d->pending[i + 1], sender, "mpi");
    }
    return rc;
}

static void dag_free(dag_state *d)
{
    for (size_t i = 0; i < d->npending; i++)
        free(d->pending[i]);
    free(d->pending);
    if (d->senders) {
        ari_strmap_foreach(d->senders, free_value, NULL);
        ari_strmap_free(d->senders);
    }
}

static int dag_csv(dag_state *d, const char *path, const char *name, ari_error *err)
{
    ari_records *r = ari_records_open(path, name, 1, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        const char *from = field(f, n, "Dependent"), *to = field(f, n, "JobId");
        if (!from || !to) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: expected Dependent,JobId",
                               ari_records_where(r));
            break;
        }
        if (dag_edge(d, from, to, field(f, n, "Label"))) {
            rc = -2;
            break;
        }
    }
    ari_records_close(r);
    return rc;
}

int ari_starpu_read_dag(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                        const char *name, int csv, ari_error *err)
{
    dag_state d = {ts, ari_strmap_new(), NULL, 0, 0, 0};
    int rc;
    if (!d.senders)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (csv) {
        rc = dag_csv(&d, path, name, err);
    } else {
        ari_dot_callbacks cb = {&d, dag_edge, NULL};
        rc = ari_dot_read(path, name, &cb, err);
        if (rc > 0)
            rc = -2;
    }
    if (rc >= 0 && dag_finish(&d))
        rc = -2;
    dag_free(&d);
    if (rc == -2)
        return d.failed_nomem ? ari_error_set(err, ARI_E_NOMEM, "out of memory") : ari_starpu_fail(w, err);
    return rc < 0 ? -1 : 0;
}

/* ---- elimination tree ---- */

/* "node000017" or "17" -> 17. */
static int tree_id(const char *s, int64_t *out)
{
    while (*s && !isdigit((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

typedef struct tree_state {
    const ari_task_sink *ts;
    ari_error *err;
    const char *name;
} tree_state;

static int tree_edge(void *ctx, const char *parent_id, const char *child_id, const char *label)
{
    tree_state *t = ctx;
    int64_t parent, child;
    (void)label;
    if (tree_id(parent_id, &parent) < 0 || tree_id(child_id, &child) < 0) {
        ari_error_set(t->err, ARI_E_INVALID_INPUT, "%s: bad tree node in edge '%.40s' -- '%.40s'",
                      t->name, parent_id, child_id);
        return 1;
    }
    if (t->ts->on_tree_node(t->ts->ctx, parent, ARI_UNSET_INT, NULL))
        return 2;
    return t->ts->on_tree_node(t->ts->ctx, child, parent, NULL) ? 2 : 0;
}

static int tree_node(void *ctx, const char *id, const char *label)
{
    tree_state *t = ctx;
    int64_t node;
    if (tree_id(id, &node) < 0)
        return 0; /* not a tree node (e.g. a default attribute statement) */
    return t->ts->on_tree_node(t->ts->ctx, node, ARI_UNSET_INT, label) ? 2 : 0;
}

int ari_starpu_read_tree(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                         const char *name, int csv, ari_error *err)
{
    tree_state t = {ts, err, name};
    if (ts->on_has_tree(ts->ctx))
        return ari_starpu_fail(w, err);
    if (!csv) {
        ari_dot_callbacks cb = {&t, tree_edge, tree_node};
        int rc = ari_dot_read(path, name, &cb, err);
        if (rc == 2)
            return ari_starpu_fail(w, err);
        return rc ? -1 : 0;
    }
    ari_records *r = ari_records_open(path, name, 1, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        const char *parent = field(f, n, "Node"), *child = field(f, n, "DependsOn");
        if (!parent || !child) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: expected Node,DependsOn", ari_records_where(r));
            break;
        }
        int e = tree_edge(&t, parent, child, NULL);
        if (e) {
            rc = e == 2 ? ari_starpu_fail(w, err) : -1;
            break;
        }
    }
    ari_records_close(r);
    return rc < 0 ? -1 : 0;
}

int ari_starpu_read_anodes(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                           const char *name, ari_error *err)
{
    ari_records *r = ari_records_open(path, name, 1, err);
    if (!r)
        return -1;
    const ari_field *f;
    size_t n;
    int rc;
    while ((rc = ari_records_next(r, &f, &n, err)) == 1) {
        const char *job = field(f, n, "JobId");
        int64_t anode = opt_int(field(f, n, "ANode"));
        if (!job || anode == ARI_UNSET_INT)
            continue;
        if (ts->on_task_anode(ts->ctx, job, anode, opt_double(field(f, n, "GFlop")))) {
            rc = ari_starpu_fail(w, err);
            break;
        }
    }
    ari_records_close(r);
    return rc < 0 ? -1 : 0;
}

int ari_starpu_read_conf(ari_trace_writer *w, const ari_task_sink *ts, const char *path,
                         const char *name, ari_error *err)
{
    ari_input *in = ari_input_open(path, name, err);
    if (!in)
        return -1;
    size_t len;
    char *line;
    int rc = 0, entries = 0;
    while (rc == 0 && (line = ari_input_getline(in, &len, err)) != NULL) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (!*line || *line == '#')
            continue;
        if (strcmp(line, "end") == 0)
            break;
        if (++entries > 1000) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: more than 1000 parameters", name);
            break;
        }
        char *value = line + strcspn(line, " \t");
        if (*value)
            *value++ = '\0';
        while (*value == ' ' || *value == '\t')
            value++;
        size_t vlen = strlen(value);
        while (vlen && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
            value[--vlen] = '\0';
        if (ts->on_config(ts->ctx, line, value))
            rc = ari_starpu_fail(w, err);
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    ari_input_close(in);
    return rc;
}

/* ---- paje.trace through a shifting sink ---- */

/* Forwards every Paje entity to the writer's sink with times shifted by
 * the origin, and reports workers and application tasks to the task sink. */
typedef struct shift_sink {
    ari_sink sink;
    const ari_sink *inner;
    const ari_task_sink *ts;
    double origin;
    ari_strmap *worker_types; /* container type aliases named "Worker" */
    ari_strmap *task_types;   /* state type aliases named "Worker State" */
    ari_strmap *workers;      /* worker container aliases */
} shift_sink;

static int has(const ari_strmap *m, const char *key)
{
    return key && ari_strmap_get(m, key, strlen(key)) != NULL;
}

static int mark(ari_strmap *m, const char *key)
{
    return ari_strmap_put(m, key, strlen(key), (void *)1) ? 0 : -1;
}

static int shift_type(void *ctx, const ari_type_def *t)
{
    shift_sink *s = ctx;
    if (t->nature == ARI_NATURE_CONTAINER && strcmp(t->name, "Worker") == 0 && mark(s->worker_types, t->alias))
        return -1;
    if (t->nature == ARI_NATURE_STATE && strcmp(t->name, "Worker State") == 0 && mark(s->task_types, t->alias))
        return -1;
    return s->inner->on_type(s->inner->ctx, t);
}

static int shift_container(void *ctx, const ari_container *c)
{
    shift_sink *s = ctx;
    ari_container copy = *c;
    copy.start -= s->origin;
    copy.end -= s->origin;
    int rc = s->inner->on_container(s->inner->ctx, &copy);
    if (rc || !has(s->worker_types, c->type))
        return rc;
    if (mark(s->workers, c->alias))
        return -1;
    return s->ts->on_worker(s->ts->ctx, c->alias, c->name);
}

static int shift_container_end(void *ctx, const char *alias, double end)
{
    shift_sink *s = ctx;
    return s->inner->on_container_end(s->inner->ctx, alias, end - s->origin);
}

static int shift_state(void *ctx, const ari_state *st)
{
    shift_sink *s = ctx;
    ari_state copy = *st;
    copy.start -= s->origin;
    copy.end -= s->origin;
    int rc = s->inner->on_state(s->inner->ctx, &copy);
    if (rc || !has(s->task_types, st->type) || !has(s->workers, st->container))
        return rc;
    ari_task t;
    if (!ari_starpu_task_from_fields(st->value, st->fields, st->nfields, &t))
        return 0;
    t.worker = st->container;
    t.start = copy.start;
    t.end = copy.end;
    return s->ts->on_task(s->ts->ctx, &t);
}

static int shift_variable(void *ctx, const ari_variable *v)
{
    shift_sink *s = ctx;
    ari_variable copy = *v;
    copy.start -= s->origin;
    copy.end -= s->origin;
    return s->inner->on_variable(s->inner->ctx, &copy);
}

static int shift_link(void *ctx, const ari_link *l)
{
    shift_sink *s = ctx;
    ari_link copy = *l;
    copy.start -= s->origin;
    copy.end -= s->origin;
    return s->inner->on_link(s->inner->ctx, &copy);
}

static int shift_event(void *ctx, const ari_event *e)
{
    shift_sink *s = ctx;
    ari_event copy = *e;
    copy.time -= s->origin;
    return s->inner->on_event(s->inner->ctx, &copy);
}

static void shift_progress(void *ctx, double done, double total)
{
    shift_sink *s = ctx;
    if (s->inner->on_progress)
        s->inner->on_progress(s->inner->ctx, done, total);
}

static int read_paje(ari_trace_writer *w, const ari_task_sink *ts, const ari_import_file *f,
                     double origin, ari_error *err)
{
    shift_sink s = {
        .sink = {.on_type = shift_type, .on_container = shift_container,
                 .on_container_end = shift_container_end, .on_state = shift_state,
                 .on_variable = shift_variable, .on_link = shift_link, .on_event = shift_event,
                 .on_progress = shift_progress},
        .inner = ari_trace_writer_sink(w),
        .ts = ts,
        .origin = origin,
        .worker_types = ari_strmap_new(),
        .task_types = ari_strmap_new(),
        .workers = ari_strmap_new(),
    };
    s.sink.ctx = &s;
    int rc;
    if (!s.worker_types || !s.task_types || !s.workers) {
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    } else {
        ari_paje_options opt = {.no_strict = 1, .ignore_incomplete_links = 1};
        rc = ari_paje_read(f->path, f->name, &opt, &s.sink, err);
        if (rc != 0 && ari_trace_writer_error(w)->code[0])
            ari_starpu_fail(w, err);
        rc = rc ? -1 : 0;
    }
    ari_strmap_free(s.worker_types);
    ari_strmap_free(s.task_types);
    ari_strmap_free(s.workers);
    return rc;
}

/* ---- the bundle format ---- */

enum role {
    R_PAJE, R_TASKS, R_DAG, R_DATA, R_ATREE_CSV, R_ATREE_DOT, R_ANODE, R_CONF, R_EXTRA, R_COUNT
};

static const ari_bundle_file bundle_files[] = {
    {"paje.trace", R_PAJE}, {"tasks.rec", R_TASKS}, {"dag.dot", R_DAG}, {"data.rec", R_DATA},
    {"atree.csv", R_ATREE_CSV}, {"atree.dot", R_ATREE_DOT}, {"tasks_anode.csv", R_ANODE},
    {"conf.txt", R_CONF},
    /* other starpu_fxt_tool outputs and the generator's notes: kept as files, not read */
    {"comms.rec", R_EXTRA}, {"README.txt", R_EXTRA}, {"manifest.json", R_EXTRA},
    {"papi.rec", R_EXTRA}, {"trace.rec", R_EXTRA}, {"sched_tasks.rec", R_EXTRA},
    {"activity.data", R_EXTRA}, {"distrib.data", R_EXTRA}, {"trace.html", R_EXTRA},
    {"platform_file.rec", R_EXTRA}, {NULL, R_EXTRA},
};

static int role_of(const ari_import_file *f)
{
    return ari_bundle_role(bundle_files, f->name);
}

/* A directory is a StarPU bundle when it holds paje.trace or tasks.rec
 * and at least one other of paje.trace, tasks.rec, dag.dot, data.rec: the
 * import then reports a missing paje.trace or tasks.rec clearly. */
static int claim(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    int seen[R_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        int role = files[idx[i]].claimed ? -1 : role_of(&files[idx[i]]);
        if (role >= 0)
            seen[role]++;
    }
    int core = !!seen[R_PAJE] + !!seen[R_TASKS] + !!seen[R_DAG] + !!seen[R_DATA];
    if (!(seen[R_PAJE] || seen[R_TASKS]) || core < 2)
        return 0;
    g->nfiles = 0;
    for (size_t i = 0; i < n && g->nfiles < sizeof g->files / sizeof g->files[0]; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || role_of(f) < 0)
            continue;
        f->claimed = 1;
        g->files[g->nfiles++] = idx[i];
    }
    return 1;
}

static const ari_import_file *find_role(ari_import_file *files, const ari_group *g, enum role role)
{
    for (size_t i = 0; i < g->nfiles; i++)
        if (role_of(&files[g->files[i]]) == (int)role)
            return &files[g->files[i]];
    return NULL;
}

static int add_file(ari_trace_writer *w, const ari_import_file *f, const char *role, ari_error *err)
{
    return f ? ari_trace_writer_file(w, f->path, f->name, role, err) : 0;
}

static int import(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *paje = find_role(files, g, R_PAJE), *tasks = find_role(files, g, R_TASKS);
    const ari_import_file *dag = find_role(files, g, R_DAG), *data = find_role(files, g, R_DATA);
    const ari_import_file *atree_csv = find_role(files, g, R_ATREE_CSV);
    const ari_import_file *atree_dot = find_role(files, g, R_ATREE_DOT);
    const ari_import_file *anode = find_role(files, g, R_ANODE), *conf = find_role(files, g, R_CONF);
    if (!paje || !tasks)
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s: a StarPU bundle needs paje.trace and tasks.rec; %s is missing",
                             files[g->files[0]].dir[0] ? files[g->files[0]].dir : "input",
                             paje ? "tasks.rec" : "paje.trace");
    for (size_t i = 0; i < g->nfiles; i++) {
        const ari_import_file *f = &files[g->files[i]];
        if (f->bytes == 0 && role_of(f) != R_EXTRA) /* an empty comms.rec is normal */
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file", f->name);
    }
    const ari_task_sink *ts = ari_trace_writer_task_sink(w, err);
    if (!ts || ari_trace_writer_set_time_unit(w, "ms") < 0)
        return ts ? ari_starpu_fail(w, err) : -1;
    const ari_import_file *tree = atree_csv ? atree_csv : atree_dot;
    if (tree && (add_file(w, tree, "atree", err) < 0 ||
                 ari_starpu_read_tree(w, ts, tree->path, tree->name, tree == atree_csv, err) < 0))
        return -1;
    if (atree_csv && atree_dot && add_file(w, atree_dot, "atree", err) < 0)
        return -1;
    double origin;
    if (add_file(w, tasks, "tasks", err) < 0 ||
        ari_starpu_records_origin(tasks->path, tasks->name, 0, &origin, err) < 0)
        return -1;
    if (ts->on_origin(ts->ctx, origin))
        return ari_starpu_fail(w, err);
    if (add_file(w, paje, "paje", err) < 0 || read_paje(w, ts, paje, origin, err) < 0)
        return -1;
    if (ari_starpu_read_task_records(w, ts, tasks->path, tasks->name, 0, origin, err) < 0)
        return -1;
    if (dag && (add_file(w, dag, "dag", err) < 0 ||
                ari_starpu_read_dag(w, ts, dag->path, dag->name, 0, err) < 0))
        return -1;
    if (data && (add_file(w, data, "data", err) < 0 ||
                 ari_starpu_read_handles(w, ts, data->path, data->name, 0, err) < 0))
        return -1;
    if (anode && (add_file(w, anode, "tasks_anode", err) < 0 ||
                  ari_starpu_read_anodes(w, ts, anode->path, anode->name, err) < 0))
        return -1;
    if (conf && (add_file(w, conf, "conf", err) < 0 ||
                 ari_starpu_read_conf(w, ts, conf->path, conf->name, err) < 0))
        return -1;
    for (size_t i = 0; i < g->nfiles; i++)
        if (role_of(&files[g->files[i]]) == R_EXTRA && add_file(w, &files[g->files[i]], "extra", err) < 0)
            return -1;
    return 0;
}

const ari_format ari_format_starpu = {"starpu", "tasks", claim, import};
