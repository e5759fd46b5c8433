/* metrics_csv.c: the generic long and wide metric CSVs (see metrics_csv.h),
 * streamed a line at a time through ari_input and split with ross_csv.c's
 * ari_mt_split. */
#include "ingest/metrics_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ingest/input.h"
#include "ingest/ross_csv.h"

typedef struct csv_lines {
    ari_input *in;
    char **fields;
    size_t cap;
    const char *name;
} csv_lines;

static int lines_open(csv_lines *c, const char *path, const char *name, ari_error *err)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    if (!(c->in = ari_input_open(path, name, err)))
        return -1;
    ari_input_set_max_line(c->in, ARI_ROSS_MAX_LINE);
    return 0;
}

static long lines_next(csv_lines *c, ari_error *err)
{
    for (;;) {
        size_t len;
        char *line = ari_input_getline(c->in, &len, err);
        if (!line)
            return ari_input_failed(c->in) ? -1 : 0;
        if (len && strspn(line, " \t") != len)
            return ari_mt_split(line, &c->fields, &c->cap, c->name, ari_input_lineno(c->in), err);
    }
}

static void lines_close(csv_lines *c)
{
    ari_input_close(c->in);
    free(c->fields);
}

static void lines_report(const ari_metrics_sink *k, csv_lines *c)
{
    uint64_t total = ari_input_total_bytes(c->in);
    if (k->progress && total && (ari_input_lineno(c->in) & 255) == 0)
        k->progress(k->ctx, (double)ari_input_bytes_read(c->in) / (double)total);
}

static int bad(ari_error *err, csv_lines *c, long col, const char *what, const char *cell)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu:%ld: %s, got '%.40s'", c->name,
                         (unsigned long long)ari_input_lineno(c->in), col, what, cell);
}

/* ---- probes ------------------------------------------------------------------------- */

/* The first line of head split into fields (in buf); the count, or 0. */
static long head_fields(const char *head, size_t n, char *buf, size_t size, char ***fields, size_t *cap)
{
    const char *nl = memchr(head, '\n', n);
    size_t len = nl ? (size_t)(nl - head) : 0;
    if (len && head[len - 1] == '\r')
        len--;
    if (!nl || len == 0 || len >= size)
        return 0;
    memcpy(buf, head, len);
    buf[len] = '\0';
    long nf = ari_mt_split(buf, fields, cap, "", 1, NULL);
    return nf < 0 ? 0 : nf;
}

static long column(char **fields, long n, const char *name)
{
    for (long i = 0; i < n; i++)
        if (strcasecmp(fields[i], name) == 0)
            return i;
    return -1;
}

int ari_metrics_long_probe(const char *head, size_t n)
{
    char buf[8192];
    char **f = NULL;
    size_t cap = 0;
    long nf = head_fields(head, n, buf, sizeof buf, &f, &cap);
    int ok = nf >= 4 && column(f, nf, "entity") >= 0 && column(f, nf, "time") >= 0 && column(f, nf, "metric") >= 0 &&
             column(f, nf, "value") >= 0;
    free(f);
    return ok;
}

int ari_metrics_wide_probe(const char *head, size_t n)
{
    char buf[8192];
    char **f = NULL;
    size_t cap = 0;
    long nf = head_fields(head, n, buf, sizeof buf, &f, &cap);
    int ok = nf >= 2 && (strcasecmp(f[0], "time") == 0 || strcasecmp(f[0], "entity") == 0) &&
             column(f, nf, "metric") < 0;
    free(f);
    return ok;
}

/* ---- long --------------------------------------------------------------------------- */

enum { L_ENTITY, L_TIME, L_METRIC, L_VALUE, L_PARENT, L_N };

typedef struct long_state {
    long col[L_N];
    char *last_metric;      /* the previous row's metric and entity, to skip lookups */
    int64_t last_metric_id;
    char *last_entity, *last_parent;
    int64_t last_entity_id;
} long_state;

static int remember(char **slot, const char *s, ari_error *err)
{
    free(*slot);
    if (!(*slot = strdup(s)))
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return 0;
}

static int same(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

static int64_t long_entity(const ari_metrics_sink *k, csv_lines *c, long_state *st, ari_error *err)
{
    const char *name = c->fields[st->col[L_ENTITY]];
    const char *parent = st->col[L_PARENT] >= 0 ? c->fields[st->col[L_PARENT]] : "";
    if (same(st->last_entity, name) && same(st->last_parent, parent))
        return st->last_entity_id;
    if (!name[0])
        return bad(err, c, st->col[L_ENTITY] + 1, "an entity name is needed", name);
    int64_t p = -1;
    if (parent[0] && (p = k->entity(k->ctx, "group", parent, -1)) < 0)
        return -1;
    int64_t e = k->entity(k->ctx, "entity", name, p);
    if (e < 0 || remember(&st->last_entity, name, err) < 0 || remember(&st->last_parent, parent, err) < 0)
        return -1;
    return st->last_entity_id = e;
}

static int64_t long_metric(const ari_metrics_sink *k, csv_lines *c, long_state *st, ari_error *err)
{
    const char *name = c->fields[st->col[L_METRIC]];
    if (same(st->last_metric, name))
        return st->last_metric_id;
    if (!name[0])
        return bad(err, c, st->col[L_METRIC] + 1, "a metric name is needed", name);
    int64_t m = k->metric(k->ctx, name, 0);
    if (m < 0 || remember(&st->last_metric, name, err) < 0)
        return -1;
    return st->last_metric_id = m;
}

static int long_row(const ari_metrics_sink *k, csv_lines *c, long_state *st, ari_error *err)
{
    double t, v;
    const char *tc = c->fields[st->col[L_TIME]], *vc = c->fields[st->col[L_VALUE]];
    if (ari_mt_number(tc, &t) < 0 || isnan(t))
        return bad(err, c, st->col[L_TIME] + 1, "the time must be a number", tc);
    if (ari_mt_number(vc, &v) < 0)
        return bad(err, c, st->col[L_VALUE] + 1, "the value must be a number (or empty, NA, NaN)", vc);
    int64_t e = long_entity(k, c, st, err), m = e < 0 ? -1 : long_metric(k, c, st, err);
    int64_t ti = m < 0 ? -1 : k->time(k->ctx, ARI_MT_TIME, t, NULL);
    if (ti < 0)
        return -1;
    return isnan(v) ? 0 : k->value(k->ctx, m, e, ti, v);
}

int ari_metrics_long_read(const char *path, const char *name, const ari_metrics_sink *k, ari_error *err)
{
    csv_lines c;
    if (lines_open(&c, path, name, err) < 0)
        return -1;
    long_state st = {.last_metric = NULL};
    static const char *const names[L_N] = {"entity", "time", "metric", "value", "parent"};
    long nf = lines_next(&c, err), ncols = nf;
    int rc = nf < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && i < L_N; i++)
        if ((st.col[i] = column(c.fields, nf, names[i])) < 0 && i != L_PARENT)
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:1: a long metric CSV needs a column '%s' (header: entity,time,metric,value[,parent])",
                               name, names[i]);
    while (rc == 0 && (nf = lines_next(&c, err)) > 0) {
        if (nf != ncols) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %ld fields where the header has %ld", name,
                               (unsigned long long)ari_input_lineno(c.in), nf, ncols);
            break;
        }
        rc = long_row(k, &c, &st, err);
        lines_report(k, &c);
    }
    if (nf < 0)
        rc = -1;
    free(st.last_metric);
    free(st.last_entity);
    free(st.last_parent);
    lines_close(&c);
    return rc;
}

/* ---- wide --------------------------------------------------------------------------- */

/* The header's other cells: entities (by time rows) or times (by entity rows). */
static int wide_header(const ari_metrics_sink *k, csv_lines *c, long nf, int by_time, int64_t *ids, ari_error *err)
{
    for (long i = 1; i < nf; i++) {
        const char *cell = c->fields[i];
        double t;
        if (by_time) {
            if (!cell[0])
                return bad(err, c, i + 1, "an entity name is needed", cell);
            ids[i] = k->entity(k->ctx, "entity", cell, -1);
        } else {
            if (ari_mt_number(cell, &t) < 0 || isnan(t))
                return bad(err, c, i + 1, "the header gives the time of each column: a number is needed", cell);
            ids[i] = k->time(k->ctx, ARI_MT_TIME, t, NULL);
        }
        if (ids[i] < 0)
            return -1;
    }
    return 0;
}

static int wide_row(const ari_metrics_sink *k, csv_lines *c, long nf, int by_time, const int64_t *ids, int64_t m,
                    ari_error *err)
{
    const char *first = c->fields[0];
    int64_t row;
    double t;
    if (by_time) {
        if (ari_mt_number(first, &t) < 0 || isnan(t))
            return bad(err, c, 1, "the time must be a number", first);
        row = k->time(k->ctx, ARI_MT_TIME, t, NULL);
    } else {
        if (!first[0])
            return bad(err, c, 1, "an entity name is needed", first);
        row = k->entity(k->ctx, "entity", first, -1);
    }
    if (row < 0)
        return -1;
    for (long i = 1; i < nf; i++) {
        double v;
        if (ari_mt_number(c->fields[i], &v) < 0)
            return bad(err, c, i + 1, "not a number", c->fields[i]);
        if (!isnan(v) && k->value(k->ctx, m, by_time ? ids[i] : row, by_time ? row : ids[i], v) < 0)
            return -1;
    }
    return 0;
}

int ari_metrics_wide_read(const char *path, const char *name, const char *metric, const ari_metrics_sink *k,
                          ari_error *err)
{
    csv_lines c;
    if (lines_open(&c, path, name, err) < 0)
        return -1;
    int64_t *ids = NULL, m = -1;
    long nf = lines_next(&c, err), ncols = nf;
    int rc = nf < 0 ? -1 : 0, by_time = nf > 0 && strcasecmp(c.fields[0], "time") == 0;
    if (rc == 0 && (nf < 2 || (!by_time && strcasecmp(c.fields[0], "entity") != 0)))
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:1: a wide metric CSV starts with a header 'time,<entity>,...' or 'entity,<time>,...'", name);
    if (rc == 0 && !(ids = malloc((size_t)nf * sizeof *ids)))
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = wide_header(k, &c, nf, by_time, ids, err);
    if (rc == 0 && (m = k->metric(k->ctx, metric, 0)) < 0)
        rc = -1;
    while (rc == 0 && (nf = lines_next(&c, err)) > 0) {
        if (nf != ncols) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %ld fields where the header has %ld", name,
                               (unsigned long long)ari_input_lineno(c.in), nf, ncols);
            break;
        }
        rc = wide_row(k, &c, nf, by_time, ids, m, err);
        lines_report(k, &c);
    }
    if (nf < 0)
        rc = -1;
    free(ids);
    lines_close(&c);
    return rc;
}
