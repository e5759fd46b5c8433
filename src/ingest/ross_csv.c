/* ross_csv.c: ROSS metric matrices and per-sample record CSVs (see
 * ross_csv.h), and the line splitter and number parser the generic
 * metric CSVs (metrics_csv.c) share. */
#include "ingest/ross_csv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ingest/input.h"
#include "util/vec.h"

const char *const ari_mt_domain_names[ARI_MT_NDOMAINS] = {"LastGvt", "VirtualTs", "RealTs", "time"};

/* ---- splitting and numbers ---------------------------------------------------------- */

static int push_field(char ***fields, size_t *cap, long n, char *f)
{
    if (ari_vec_reserve((void **)fields, cap, (size_t)n + 1, sizeof **fields) < 0)
        return -1;
    (*fields)[n] = f;
    return 0;
}

/* One quoted field starting at p (after the quote): unescapes in place
 * and returns the position after the closing quote, or NULL. */
static char *unquote(char *p, char **end_out)
{
    char *w = p;
    for (;;) {
        if (*p == '\0')
            return NULL;
        if (*p == '"') {
            if (p[1] == '"') {
                *w++ = '"';
                p += 2;
                continue;
            }
            *end_out = w;
            return p + 1;
        }
        *w++ = *p++;
    }
}

long ari_mt_split(char *line, char ***fields, size_t *cap, const char *name, uint64_t lineno, ari_error *err)
{
    long n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *start = p, *end;
        if (*p == '"') {
            p = unquote(p + 1, &end);
            if (!p)
                return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu:%ld: unterminated quote", name,
                                     (unsigned long long)lineno, n + 1);
            start++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p != ',' && *p != '\0')
                return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu:%ld: text after a closing quote", name,
                                     (unsigned long long)lineno, n + 1);
        } else {
            p += strcspn(p, ",");
            end = p;
            while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        }
        char sep = *p;
        *end = '\0';
        if (n >= ARI_ROSS_MAX_COLUMNS)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: more than %d columns", name,
                                 (unsigned long long)lineno, ARI_ROSS_MAX_COLUMNS);
        if (push_field(fields, cap, n, start) < 0)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        n++;
        if (sep != ',')
            return n;
        p++;
    }
}

int ari_mt_number(const char *cell, double *v)
{
    if (!cell[0] || strcasecmp(cell, "nan") == 0 || strcmp(cell, "NA") == 0) {
        *v = NAN;
        return 0;
    }
    char *end;
    double x = strtod(cell, &end);
    if (end == cell || *end != '\0' || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

/* ---- probes ------------------------------------------------------------------------ */

/* The first line of head (cut at its end), copied into buf; 0 if the head
 * holds no complete line or it does not fit. */
static int first_line(const char *head, size_t n, char *buf, size_t size)
{
    const char *nl = memchr(head, '\n', n);
    if (!nl)
        return 0;
    size_t len = (size_t)(nl - head);
    if (len && head[len - 1] == '\r')
        len--;
    if (len == 0 || len >= size)
        return 0;
    memcpy(buf, head, len);
    buf[len] = '\0';
    return 1;
}

/* The head's first line, or when the head ends inside it (a matrix of
 * many samples) the part before its last comma; 0 if none. */
static int first_fields(const char *head, size_t n, char *buf, size_t size)
{
    if (first_line(head, n, buf, size))
        return 1;
    if (n >= size || memchr(head, '\n', n))
        n = size - 1 < n ? size - 1 : n;
    const char *comma = memrchr(head, ',', n);
    if (!comma || memchr(head, '\n', (size_t)(comma - head)))
        return 0;
    memcpy(buf, head, (size_t)(comma - head));
    buf[comma - head] = '\0';
    return 1;
}

/* Splits a probed head line into *fields (the caller frees it): the count,
 * or -1. */
static long head_fields(char *buf, char ***fields)
{
    size_t cap = 0;
    return ari_mt_split(buf, fields, &cap, "", 1, NULL);
}

int ari_ross_matrix_probe(const char *head, size_t n)
{
    char buf[8192];
    if (!first_fields(head, n, buf, sizeof buf))
        return 0;
    char **fields = NULL;
    long nf = head_fields(buf, &fields);
    int ok = nf >= 1;
    for (long i = 0; ok && i < nf; i++) {
        double v;
        ok = fields[i][0] && ari_mt_number(fields[i], &v) == 0 && !isnan(v);
    }
    free(fields);
    return ok;
}

static int has_field(char **fields, long n, const char *name)
{
    for (long i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return 1;
    return 0;
}

int ari_ross_records_probe(const char *head, size_t n)
{
    char buf[8192];
    if (!first_line(head, n, buf, sizeof buf))
        return 0;
    char **fields = NULL;
    long nf = head_fields(buf, &fields);
    int ok = nf > 0 && has_field(fields, nf, "LastGvt") &&
             (has_field(fields, nf, "KpGid") || (has_field(fields, nf, "Kpid") && has_field(fields, nf, "Peid")));
    free(fields);
    return ok;
}

int ari_ross_metric_of_name(const char *name, char *out, size_t size)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strstr(base, ".csv");
    if (!dot)
        return -1;
    const char *us = memrchr(base, '_', (size_t)(dot - base));
    const char *start = us ? us + 1 : base;
    size_t len = (size_t)(dot - start);
    if (len == 0 || len >= size || !isalpha((unsigned char)start[0]))
        return -1;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)start[i]))
            return -1;
    memcpy(out, start, len);
    out[len] = '\0';
    return 0;
}

/* ---- entities ---------------------------------------------------------------------- */

/* The handle of "KP kp" (under "PE kp / kps_per_pe" when that is known). */
static int64_t kp_entity(const ari_metrics_sink *k, int64_t kp, int64_t pe)
{
    char name[48];
    int64_t parent = -1;
    if (pe >= 0) {
        snprintf(name, sizeof name, "PE %lld", (long long)pe);
        if ((parent = k->entity(k->ctx, "PE", name, -1)) < 0)
            return -1;
    }
    snprintf(name, sizeof name, "KP %lld", (long long)kp);
    return k->entity(k->ctx, "KP", name, parent);
}

/* ---- matrices ---------------------------------------------------------------------- */

typedef struct line_reader {
    ari_input *in;
    char **fields;
    size_t cap;
    const char *name;
} line_reader;

static int open_lines(line_reader *lr, const char *path, const char *name, ari_error *err)
{
    memset(lr, 0, sizeof *lr);
    lr->name = name;
    lr->in = ari_input_open(path, name, err);
    if (!lr->in)
        return -1;
    ari_input_set_max_line(lr->in, ARI_ROSS_MAX_LINE);
    return 0;
}

/* The next non-blank line split into fields: the count, 0 at the end, -1. */
static long next_fields(line_reader *lr, ari_error *err)
{
    for (;;) {
        size_t len;
        char *line = ari_input_getline(lr->in, &len, err);
        if (!line)
            return ari_input_failed(lr->in) ? -1 : 0;
        if (len == 0 || strspn(line, " \t") == len)
            continue;
        return ari_mt_split(line, &lr->fields, &lr->cap, lr->name, ari_input_lineno(lr->in), err);
    }
}

static void close_lines(line_reader *lr)
{
    ari_input_close(lr->in);
    free(lr->fields);
}

static void report(const ari_metrics_sink *k, line_reader *lr)
{
    uint64_t total = ari_input_total_bytes(lr->in);
    if (k->progress && total && (ari_input_lineno(lr->in) & 63) == 0)
        k->progress(k->ctx, (double)ari_input_bytes_read(lr->in) / (double)total);
}

static int bad_cell(ari_error *err, line_reader *lr, long col, const char *what, const char *cell)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu:%ld: %s, got '%.40s'", lr->name,
                         (unsigned long long)ari_input_lineno(lr->in), col, what, cell);
}

/* The header: the LastGvt of each column, as time handles. */
static int matrix_header(const ari_metrics_sink *k, line_reader *lr, long nf, int64_t **times, ari_error *err)
{
    *times = malloc((size_t)nf * sizeof **times);
    if (!*times)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (long c = 0; c < nf; c++) {
        double g;
        if (ari_mt_number(lr->fields[c], &g) < 0 || isnan(g))
            return bad_cell(err, lr, c + 1, "the header row holds the samples' LastGvt values: a number is needed",
                            lr->fields[c]);
        if (((*times)[c] = k->time(k->ctx, ARI_MT_LASTGVT, g, NULL)) < 0)
            return -1;
    }
    return 0;
}

static int matrix_row(const ari_metrics_sink *k, line_reader *lr, long nf, int64_t row, int64_t metric,
                      int kps_per_pe, const int64_t *times, ari_error *err)
{
    int64_t e = kp_entity(k, row, kps_per_pe > 0 ? row / kps_per_pe : -1);
    if (e < 0)
        return -1;
    for (long c = 0; c < nf; c++) {
        double v;
        if (ari_mt_number(lr->fields[c], &v) < 0)
            return bad_cell(err, lr, c + 1, "not a number", lr->fields[c]);
        if (!isnan(v) && k->value(k->ctx, metric, e, times[c], v) < 0)
            return -1;
    }
    return 0;
}

int ari_ross_matrix_read(const char *path, const char *name, const char *metric, int kps_per_pe,
                         const ari_metrics_sink *k, ari_ross_shape *shape, ari_error *err)
{
    line_reader lr;
    shape->rows = shape->cols = 0;
    if (open_lines(&lr, path, name, err) < 0)
        return -1;
    int64_t *times = NULL, m = -1;
    long nf = next_fields(&lr, err), cols = nf;
    int rc = nf < 0 ? -1 : 0;
    if (nf == 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file: a ROSS matrix needs a header of LastGvt values",
                           name);
    if (rc == 0)
        rc = matrix_header(k, &lr, nf, &times, err);
    if (rc == 0 && (m = k->metric(k->ctx, metric, 0)) < 0)
        rc = -1;
    while (rc == 0 && (nf = next_fields(&lr, err)) > 0) {
        if (nf != cols) {
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %ld values where the header has %ld", name,
                               (unsigned long long)ari_input_lineno(lr.in), nf, cols);
            break;
        }
        rc = matrix_row(k, &lr, nf, shape->rows++, m, kps_per_pe, times, err);
        report(k, &lr);
    }
    if (nf < 0)
        rc = -1;
    shape->cols = cols;
    free(times);
    close_lines(&lr);
    return rc;
}

/* ---- records ----------------------------------------------------------------------- */

enum { C_LASTGVT, C_VIRTUALTS, C_REALTS, C_PEID, C_KPID, C_KPGID, C_COMM, C_NSPECIAL };
static const char *const special_names[C_NSPECIAL] = {"LastGvt", "VirtualTs", "RealTs", "Peid",
                                                      "Kpid",    "KpGid",     "CommData"};
static const char *const attribute_names[] = {"EntityId", "EventId", "Mode", "Status", NULL};

typedef struct rec_columns {
    long special[C_NSPECIAL]; /* column index or -1 */
    long ncols;
    int64_t *metric;          /* per column: metric handle, -1 if not a metric */
} rec_columns;

static int is_attribute(const char *name)
{
    for (int i = 0; attribute_names[i]; i++)
        if (strcmp(name, attribute_names[i]) == 0)
            return 1;
    return 0;
}

/* Maps the header; with k (not a scan) declares the metrics. */
static int rec_header(line_reader *lr, long nf, const ari_metrics_sink *k, rec_columns *rc, ari_error *err)
{
    rc->ncols = nf;
    for (int s = 0; s < C_NSPECIAL; s++)
        rc->special[s] = -1;
    rc->metric = malloc((size_t)nf * sizeof *rc->metric);
    if (!rc->metric)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    for (long c = 0; c < nf; c++) {
        rc->metric[c] = -1;
        int s = 0;
        while (s < C_NSPECIAL && strcmp(lr->fields[c], special_names[s]) != 0)
            s++;
        if (s < C_NSPECIAL) {
            rc->special[s] = c;
            continue;
        }
        if (!lr->fields[c][0])
            return bad_cell(err, lr, c + 1, "a column has no name", "");
        if (k && (rc->metric[c] = k->metric(k->ctx, lr->fields[c], is_attribute(lr->fields[c]))) < 0)
            return -1;
    }
    if (rc->special[C_LASTGVT] < 0 || (rc->special[C_KPGID] < 0 && (rc->special[C_KPID] < 0 || rc->special[C_PEID] < 0)))
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s:1: a ROSS record CSV needs the columns LastGvt and KpGid (or Peid and Kpid)", lr->name);
    return 0;
}

/* A whole number in [0, 2^31) from a cell; -1 when absent. */
static int whole_cell(line_reader *lr, long col, int64_t *out, ari_error *err)
{
    *out = -1;
    if (col < 0)
        return 0;
    double v;
    if (ari_mt_number(lr->fields[col], &v) < 0 || isnan(v) || v < 0 || v >= 2147483648.0 || v != floor(v))
        return bad_cell(err, lr, col + 1, "a whole number from 0 to 2^31-1 is needed", lr->fields[col]);
    *out = (int64_t)v;
    return 0;
}

typedef struct rec_ids {
    int64_t pe, kp, gid;
} rec_ids;

/* Peid, Kpid and KpGid of the current row, and nKP where they show it. */
static int rec_ids_of(line_reader *lr, const rec_columns *rc, int kps_per_pe, rec_ids *id, int *derived,
                      ari_error *err)
{
    if (whole_cell(lr, rc->special[C_PEID], &id->pe, err) < 0 || whole_cell(lr, rc->special[C_KPID], &id->kp, err) < 0 ||
        whole_cell(lr, rc->special[C_KPGID], &id->gid, err) < 0)
        return -1;
    if (id->pe > 0 && id->kp >= 0 && id->gid >= 0) {
        int64_t span = id->gid - id->kp;
        if (span <= 0 || span % id->pe != 0 || span / id->pe <= id->kp)
            return ari_error_set(err, ARI_E_INVALID_INPUT,
                                 "%s:%llu: KpGid %lld is not Peid * nKP + Kpid for Peid %lld, Kpid %lld", lr->name,
                                 (unsigned long long)ari_input_lineno(lr->in), (long long)id->gid, (long long)id->pe,
                                 (long long)id->kp);
        int n = (int)(span / id->pe);
        if (*derived && *derived != n)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: Peid %lld, Kpid %lld, KpGid %lld give %d KPs per PE where earlier rows gave %d",
                                 lr->name, (unsigned long long)ari_input_lineno(lr->in), (long long)id->pe,
                                 (long long)id->kp, (long long)id->gid, n, *derived);
        *derived = n;
    }
    if (id->gid < 0) {
        int n = *derived ? *derived : kps_per_pe;
        if (n <= 0)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: no KpGid, and the KPs per PE are unknown",
                                 lr->name, (unsigned long long)ari_input_lineno(lr->in));
        id->gid = id->pe * n + id->kp;
    }
    if (id->pe < 0 && kps_per_pe > 0)
        id->pe = id->gid / kps_per_pe;
    return 0;
}

/* The time of the current row, with VirtualTs and RealTs. */
static int64_t rec_time(const ari_metrics_sink *k, line_reader *lr, const rec_columns *rc, ari_ross_records_info *info,
                        ari_error *err)
{
    double d[ARI_MT_NDOMAINS] = {NAN, NAN, NAN, NAN};
    for (int s = C_LASTGVT; s <= C_REALTS; s++) {
        long col = rc->special[s];
        if (col < 0)
            continue;
        if (ari_mt_number(lr->fields[col], &d[s]) < 0 || (s == C_LASTGVT && isnan(d[s])))
            return bad_cell(err, lr, col + 1, "a number is needed", lr->fields[col]);
        if (!isnan(d[s]) && d[s] != 0)
            info->nonzero[s] = 1;
    }
    return k ? k->time(k->ctx, ARI_MT_LASTGVT, d[C_LASTGVT], d) : 0;
}

typedef struct comm_buf {
    int64_t *dst;
    double *count;
    size_t n, cap_dst, cap_count;
} comm_buf;

/* Parses "[c0, c1, ...]" into the non-zero (dst, count) pairs; *len gets the list's length. */
static int parse_comm(line_reader *lr, long col, comm_buf *cb, int64_t *len, ari_error *err)
{
    const char *p = lr->fields[col];
    cb->n = 0;
    *len = 0;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return bad_cell(err, lr, col + 1, "CommData must be a list \"[c0, c1, ...]\"", lr->fields[col]);
    for (int64_t j = 0;; j++) {
        while (*p == ' ')
            p++;
        if (*p == ']' && j == 0)
            break;
        char *end;
        double c = strtod(p, &end);
        if (end == p || !isfinite(c) || c < 0 || j >= ARI_ROSS_MAX_COLUMNS)
            return bad_cell(err, lr, col + 1, "CommData entries must be counts (finite, >= 0)", p);
        if (c != 0) {
            if (ari_vec_reserve((void **)&cb->dst, &cb->cap_dst, cb->n + 1, sizeof *cb->dst) < 0 ||
                ari_vec_reserve((void **)&cb->count, &cb->cap_count, cb->n + 1, sizeof *cb->count) < 0)
                return ari_error_set(err, ARI_E_NOMEM, "out of memory");
            cb->dst[cb->n] = j;
            cb->count[cb->n++] = c;
        }
        *len = j + 1;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ']')
            break;
        if (*p++ != ',')
            return bad_cell(err, lr, col + 1, "CommData entries are separated by commas", p - 1);
    }
    return 0;
}

/* The KP handles of a CommData row's destinations, in place. */
static int comm_destinations(const ari_metrics_sink *k, comm_buf *cb, int kps_per_pe)
{
    for (size_t i = 0; i < cb->n; i++)
        if ((cb->dst[i] = kp_entity(k, cb->dst[i], kps_per_pe > 0 ? cb->dst[i] / kps_per_pe : -1)) < 0)
            return -1;
    return 0;
}

static int rec_row(const ari_metrics_sink *k, line_reader *lr, const rec_columns *rc, int kps_per_pe,
                   ari_ross_records_info *info, comm_buf *cb, ari_error *err)
{
    rec_ids id;
    int derived = info->kps_per_pe;
    if (rec_ids_of(lr, rc, kps_per_pe, &id, &derived, err) < 0)
        return -1;
    info->kps_per_pe = derived;
    int64_t t = rec_time(k, lr, rc, info, err);
    int64_t len = 0;
    if (t < 0 || (rc->special[C_COMM] >= 0 && parse_comm(lr, rc->special[C_COMM], cb, &len, err) < 0))
        return -1;
    if (rc->special[C_COMM] >= 0) {
        if (info->comm_length && len != info->comm_length)
            return bad_cell(err, lr, rc->special[C_COMM] + 1, "every CommData list must have the same length", "");
        info->comm_length = len;
    }
    if (!k)
        return 0;
    int64_t e = kp_entity(k, id.gid, id.pe);
    if (e < 0)
        return -1;
    for (long c = 0; c < rc->ncols; c++) {
        double v;
        if (rc->metric[c] < 0)
            continue;
        if (ari_mt_number(lr->fields[c], &v) < 0)
            return bad_cell(err, lr, c + 1, "not a number", lr->fields[c]);
        if (!isnan(v) && k->value(k->ctx, rc->metric[c], e, t, v) < 0)
            return -1;
    }
    if (rc->special[C_COMM] >= 0 && (comm_destinations(k, cb, kps_per_pe) < 0 ||
                                     k->comm_row(k->ctx, t, e, cb->dst, cb->count, cb->n) < 0))
        return -1;
    return 0;
}

static int records_pass(const char *path, const char *name, int kps_per_pe, const ari_metrics_sink *k,
                        ari_ross_records_info *info, ari_error *err)
{
    line_reader lr;
    memset(info, 0, sizeof *info);
    if (open_lines(&lr, path, name, err) < 0)
        return -1;
    rec_columns rc = {.metric = NULL};
    comm_buf cb = {0};
    long nf = next_fields(&lr, err);
    int rcode = nf < 0 ? -1 : 0;
    if (nf == 0)
        rcode = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty file: a ROSS record CSV needs a header", name);
    if (rcode == 0)
        rcode = rec_header(&lr, nf, k, &rc, err);
    while (rcode == 0 && (nf = next_fields(&lr, err)) > 0) {
        if (nf != rc.ncols) {
            rcode = ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %ld fields where the header has %ld", name,
                                  (unsigned long long)ari_input_lineno(lr.in), nf, rc.ncols);
            break;
        }
        rcode = rec_row(k, &lr, &rc, kps_per_pe, info, &cb, err);
        info->rows++;
        if (k)
            report(k, &lr);
    }
    if (nf < 0)
        rcode = -1;
    free(rc.metric);
    free(cb.dst);
    free(cb.count);
    close_lines(&lr);
    return rcode;
}

int ari_ross_records_scan(const char *path, const char *name, ari_ross_records_info *info, ari_error *err)
{
    return records_pass(path, name, 0, NULL, info, err);
}

int ari_ross_records_read(const char *path, const char *name, int kps_per_pe, const ari_metrics_sink *k,
                          ari_ross_records_info *info, ari_error *err)
{
    return records_pass(path, name, kps_per_pe, k, info, err);
}
