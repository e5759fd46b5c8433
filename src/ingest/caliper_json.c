/* caliper_json.c: Caliper json-split and JSON record lists (see
 * caliper_json.h). json_tokens' stream cuts json-split one member (and one
 * "data" row) at a time from ari_input (plain, .gz, .zst; decode cap), so
 * "data" is never held whole; the other members are captured as text and parsed with
 * jansson. */
#include "ingest/caliper_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "ingest/json_tokens.h"
#include "util/free_all.h"
#include "util/vec.h"

#define MAX_CAPTURE ((size_t)1 << 29) /* one non-data member, as text */
#define MAX_COLUMNS 4096

/* ---- tokens: ari_json_stream (json_tokens.h) ---- */

typedef struct jsrc {
    ari_json_stream st;
    ari_input *in;         /* NULL for a memory source */
    const char *name;
    ari_error *err;
    int failed;            /* err is set */
    const ari_profile_sink *k;
} jsrc;

/* "name:line: what", the line of the byte at `at` (in the stream's
 * buffer); the first error sticks. */
static int src_fail_at(jsrc *s, const char *at, const char *what)
{
    if (!s->failed)
        ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s:%llu: %s", s->name,
                      (unsigned long long)ari_json_stream_line(&s->st, at), what);
    s->failed = 1;
    return -1;
}

/* An error at the next unread byte. */
static int src_fail(jsrc *s, const char *what)
{
    return src_fail_at(s, s->st.buf + s->st.start, what);
}

/* The next byte after blanks (not consumed), -1 at the end or on error. */
static int peek(jsrc *s)
{
    int c = ari_json_stream_peek(&s->st, s->err);
    if (c == -2)
        s->failed = 1;
    return c < 0 ? -1 : c;
}

static void consume(jsrc *s)
{
    s->st.start++;
}

static int expect(jsrc *s, int want, const char *what)
{
    if (peek(s) != want) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %s", what);
        return src_fail(s, msg);
    }
    consume(s);
    return 0;
}

/* Cuts the next value: *p and *n (valid until the next call); consume it
 * with s->st.start += n. discard: skip it without keeping it whole. An
 * input that ends first is the error eof_what. */
static int cut(jsrc *s, const char **p, size_t *n, int discard, const char *eof_what)
{
    if (peek(s) < 0)
        return s->failed ? -1 : src_fail(s, eof_what);
    int rc = ari_json_stream_cut(&s->st, n, discard, s->err);
    if (rc < 0)
        s->failed = 1;
    if (rc > 0)
        return src_fail_at(s, s->st.buf + s->st.len, eof_what);
    *p = s->st.buf + s->st.start;
    return rc;
}

/* An object key, decoded into a malloc'd *out. */
static int read_key(jsrc *s, char **out)
{
    const char *p;
    size_t n;
    int plain;
    *out = NULL;
    if (peek(s) != '"')
        return src_fail(s, "expected a string");
    if (cut(s, &p, &n, 0, "unterminated string (truncated file?)") < 0)
        return -1;
    if (ari_json_skip_string(p, p + n, 0, &plain) != p + n)
        return src_fail(s, "bad string (control character, escape or UTF-8)");
    *out = malloc(n);
    if (!*out || ari_json_string_decode(p, n, *out, n) < 0)
        return src_fail(s, "out of memory");
    s->st.start += n;
    return 0;
}

/* A bare token (number, true, false, null) of a data row into buf. */
static const char *row_bare(jsrc *s, const char *p, const char *end, char *buf, size_t size)
{
    size_t n = 0;
    while (p < end && (*p == '-' || *p == '+' || *p == '.' || (*p >= '0' && *p <= '9') ||
                       (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
        if (n + 1 >= size) {
            src_fail_at(s, p, "token too long");
            return NULL;
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    if (!n)
        src_fail_at(s, p, "expected a value");
    return n ? p : NULL;
}

/* ---- json-split ---- */

typedef struct column {
    char *name;
    int is_value;
    char *unit;
    int metric;   /* sink metric index, or -1 */
} column;

typedef struct cell {
    int null;
    double v;
} cell;

/* A buffered row of a sampled profile (sourceloc column present). */
typedef struct srow {
    int64_t nid, sloc, module;
    int proc;
    double *vals; /* [ncols] */
} srow;

typedef struct split {
    const ari_profile_sink *k;
    ari_error *err;
    const char *name;
    column *cols;
    int ncols;
    int have_cols, have_meta, set_up;
    json_t *nodes;
    int path_col, rank_col, sloc_col, module_col;
    const char *node_kind;
    int *rank_proc;      /* rank -> proc + 1 */
    size_t nranks_cap;
    cell *row;
    int data_deferred, data_done;
    int64_t rows;
    srow *srows;
    size_t nsrows, srows_cap;
} split;

const char *ari_caliper_metric_name(const char *column, int *inclusive)
{
    *inclusive = strstr(column, "inclusive") != NULL || strstr(column, "(inc)") != NULL;
    if (strcmp(column, "sum#time.duration") == 0 || strcmp(column, "sum#avg#sum#time.duration") == 0 ||
        strcmp(column, "sum#sum#time.duration") == 0)
        return "time";
    if (strcmp(column, "inclusive#sum#time.duration") == 0 ||
        strcmp(column, "sum#avg#inclusive#sum#time.duration") == 0 ||
        strcmp(column, "inclusive#time.duration") == 0)
        return "time (inc)";
    return column;
}

static int sink_fail(split *sp)
{
    if (sp->err && !sp->err->code[0])
        ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: the profile was refused", sp->name);
    return -1;
}

static int is_order_column(const char *name)
{
    return strcmp(name, "Node order") == 0 || strcmp(name, "min#min#aggregate.slot") == 0;
}

static int parse_columns(split *sp, json_t *v)
{
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > MAX_COLUMNS)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: \"columns\" is not a list of names", sp->name);
    sp->ncols = (int)json_array_size(v);
    sp->cols = calloc((size_t)sp->ncols, sizeof *sp->cols);
    sp->row = calloc((size_t)sp->ncols, sizeof *sp->row);
    if (!sp->cols || !sp->row)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    for (int i = 0; i < sp->ncols; i++) {
        const char *name = json_string_value(json_array_get(v, (size_t)i));
        if (!name)
            return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: column %d is not a string", sp->name, i);
        sp->cols[i].name = strdup(name);
        sp->cols[i].metric = -1;
        if (!sp->cols[i].name)
            return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    }
    sp->have_cols = 1;
    return 0;
}

static int parse_column_metadata(split *sp, json_t *v)
{
    if (!json_is_array(v))
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: \"column_metadata\" is not a list", sp->name);
    if (!sp->have_cols || json_array_size(v) != (size_t)sp->ncols)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT,
                             "%s: \"column_metadata\" does not match \"columns\"", sp->name);
    if (sp->have_meta)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: \"column_metadata\" twice", sp->name);
    for (int i = 0; i < sp->ncols; i++) {
        json_t *m = json_array_get(v, (size_t)i);
        sp->cols[i].is_value = json_is_true(json_object_get(m, "is_value"));
        const char *unit = json_string_value(json_object_get(m, "attribute.unit"));
        sp->cols[i].unit = unit ? strdup(unit) : NULL;
    }
    sp->have_meta = 1;
    return 0;
}

static int find_column(const split *sp, const char *name)
{
    for (int i = 0; i < sp->ncols; i++)
        if (strcmp(sp->cols[i].name, name) == 0)
            return i;
    return -1;
}

/* The trace's time unit is what the file declares for its time columns
 * (time.duration and its aliases; column_metadata's attribute.unit), or that
 * it declares none:
 * Caliper's timer measured microseconds in old versions and seconds in new
 * ones, so no unit is guessed here (the dashboard infers one, and says so,
 * in lib/profile_unit.js). Files without a time column keep the default. */
static int report_time_unit(split *sp)
{
    const column *first = NULL;
    for (int i = 0; i < sp->ncols; i++) {
        const column *c = &sp->cols[i];
        if (!c->is_value || c->metric < 0 || (!strstr(c->name, "time") && !strstr(c->name, "duration")))
            continue;
        if (c->unit && c->unit[0]) {
            first = c;
            break;
        }
        first = first ? first : c;
    }
    if (!first || !sp->k->on_time_unit)
        return 0;
    char source[300];
    int declared = first->unit && first->unit[0];
    snprintf(source, sizeof source, "%s (Caliper json-split: %s %.200s)",
             declared ? "declared in the file" : "not declared in the file",
             declared ? "attribute.unit of" : "no attribute.unit on", first->name);
    if (sp->k->on_time_unit(sp->k->ctx, declared ? first->unit : "", source) != 0)
        return sink_fail(sp);
    return 0;
}

/* Once columns are known: the hierarchy column, rank and metrics. */
static int setup_columns(split *sp)
{
    if (!sp->have_meta) /* no metadata: value columns are the non-hierarchy ones */
        for (int i = 0; i < sp->ncols; i++)
            sp->cols[i].is_value = strcmp(sp->cols[i].name, "path") != 0 && !strchr(sp->cols[i].name, '#');
    sp->path_col = find_column(sp, "source.function#callpath.address");
    sp->node_kind = "function";
    if (sp->path_col < 0) {
        sp->path_col = find_column(sp, "path");
        sp->node_kind = "region";
    }
    if (sp->path_col < 0)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT,
                             "%s: no hierarchy column (\"path\" or \"source.function#callpath.address\")", sp->name);
    sp->cols[sp->path_col].is_value = 0;
    sp->rank_col = find_column(sp, "mpi.rank");
    sp->sloc_col = find_column(sp, "sourceloc#cali.sampler.pc");
    sp->module_col = find_column(sp, "module#cali.sampler.pc");
    for (int i = 0; i < sp->ncols; i++) {
        column *c = &sp->cols[i];
        if (!c->is_value || i == sp->rank_col || is_order_column(c->name))
            continue;
        int inclusive;
        const char *mname = ari_caliper_metric_name(c->name, &inclusive);
        ari_profile_metric m = {mname, c->name, c->unit, inclusive, NULL};
        if (sp->k->on_metric(sp->k->ctx, &m, &c->metric) != 0)
            return sink_fail(sp);
    }
    return report_time_unit(sp);
}

/* A JSON number that stands for an integer (source location, module id):
 * whole and within int64_t, checked before the cast, which is undefined
 * otherwise. */
static int whole_int64(double v, int64_t *out)
{
    if (!(v >= -9.2e18 && v <= 9.2e18) || v != floor(v))
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int proc_of_rank(split *sp, double rank, int *proc)
{
    if (isnan(rank) || rank < 0 || rank >= ARI_PROFILE_MAX_PROCS || rank != floor(rank))
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: bad mpi.rank %g", sp->name, rank);
    int64_t r = (int64_t)rank;
    if (ari_vec_reserve_zeroed((void **)&sp->rank_proc, &sp->nranks_cap, (size_t)r + 1,
                               sizeof *sp->rank_proc) < 0)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    if (!sp->rank_proc[r]) {
        int p;
        if (sp->k->on_proc(sp->k->ctx, r, 0, &p) != 0)
            return sink_fail(sp);
        sp->rank_proc[r] = p + 1;
    }
    *proc = sp->rank_proc[r] - 1;
    return 0;
}

static int buffer_row(split *sp, int64_t nid, int proc)
{
    if (ari_vec_reserve((void **)&sp->srows, &sp->srows_cap, sp->nsrows + 1, sizeof *sp->srows) < 0)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    srow *r = &sp->srows[sp->nsrows];
    r->nid = nid;
    r->proc = proc;
    r->sloc = r->module = -1;
    r->vals = NULL;
    if ((!sp->row[sp->sloc_col].null && whole_int64(sp->row[sp->sloc_col].v, &r->sloc) < 0) ||
        (sp->module_col >= 0 && !sp->row[sp->module_col].null && whole_int64(sp->row[sp->module_col].v, &r->module) < 0))
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: row %lld: bad source location or module index",
                             sp->name, (long long)sp->rows);
    r->vals = malloc((size_t)sp->ncols * sizeof *r->vals);
    if (!r->vals)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    for (int i = 0; i < sp->ncols; i++)
        r->vals[i] = sp->row[i].null ? NAN : sp->row[i].v;
    sp->nsrows++;
    return 0;
}

static int emit_row(split *sp)
{
    const cell *path = &sp->row[sp->path_col];
    if (path->null)
        return 0; /* Hatchet drops rows without a path */
    if (path->v < 0 || path->v != floor(path->v) || path->v > (double)ARI_PROFILE_MAX_NODE_ID)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: row %lld: bad node index %g", sp->name,
                             (long long)sp->rows, path->v);
    int proc = 0;
    if (sp->rank_col >= 0 && !sp->row[sp->rank_col].null) {
        if (proc_of_rank(sp, sp->row[sp->rank_col].v, &proc) < 0)
            return -1;
    } else if (proc_of_rank(sp, 0, &proc) < 0) {
        return -1;
    }
    int64_t nid = (int64_t)path->v;
    if (sp->sloc_col >= 0)
        return buffer_row(sp, nid, proc);
    for (int i = 0; i < sp->ncols; i++) {
        if (sp->cols[i].metric < 0 || sp->row[i].null)
            continue;
        if (sp->k->on_value(sp->k->ctx, sp->cols[i].metric, nid, proc, sp->row[i].v) != 0)
            return sink_fail(sp);
    }
    return 0;
}

/* One value of a data row into ce: a label (kept as absent), null, true,
 * false or a number. Returns the byte after it, NULL on error. */
static const char *row_cell(jsrc *s, const char *p, const char *end, cell *ce)
{
    if (*p == '"') { /* a label where an index is expected: keep as absent */
        int plain;
        const char *q = ari_json_skip_string(p, end, 0, &plain);
        if (!q)
            src_fail_at(s, p, "bad string in a data row");
        p = q;
        ce->null = 1;
        return p;
    }
    char tok[128], *stop;
    if (!(p = row_bare(s, p, end, tok, sizeof tok)))
        return NULL;
    ce->null = 0;
    if (strcmp(tok, "null") == 0) {
        ce->null = 1;
    } else if (strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0) {
        ce->v = tok[0] == 't';
    } else {
        ce->v = strtod(tok, &stop);
        if (*stop) {
            src_fail_at(s, p, "a data value is not a number");
            return NULL;
        }
    }
    return p;
}

/* Parses the row text row[0..n) ("[v, v, ...]") into sp->row. */
static int parse_row(jsrc *s, split *sp, const char *row, size_t n)
{
    const char *end = row + n, *p = ari_json_skip_ws(row + 1, end);
    int k = 0;
    if (p < end && *p == ']')
        return sp->ncols == 0 ? 0 : src_fail_at(s, p, "a data row has fewer values than there are columns");
    for (;;) {
        if (k >= sp->ncols)
            return src_fail_at(s, p, "a data row has more values than there are columns");
        if (!(p = row_cell(s, p, end, &sp->row[k++])))
            return -1;
        p = ari_json_skip_ws(p, end);
        if (p < end && *p == ']')
            break;
        if (p >= end || *p != ',')
            return src_fail_at(s, p, "expected ',' or ']' in a data row");
        p = ari_json_skip_ws(p + 1, end);
    }
    return k == sp->ncols ? 0 : src_fail_at(s, p, "a data row has fewer values than there are columns");
}

static void row_progress(jsrc *s, const split *sp)
{
    uint64_t total = ari_json_stream_total(&s->st);
    if (s->k && s->k->on_progress && total && (sp->rows & 0xffff) == 0)
        s->k->on_progress(s->k->ctx, (double)ari_json_stream_done(&s->st) / (double)total);
}

/* Streams the rows of "data" (the '[' not yet read), one cut at a time. */
static int stream_data(jsrc *s, split *sp)
{
    if (expect(s, '[', "'[' to open \"data\"") < 0)
        return -1;
    if (peek(s) == ']') {
        consume(s);
        return 0;
    }
    for (;;) {
        const char *row;
        size_t n;
        if (peek(s) != '[')
            return s->failed ? -1 : src_fail(s, "expected '[' to open a data row");
        if (cut(s, &row, &n, 0, "unexpected end of file in a data row (truncated?)") < 0 ||
            parse_row(s, sp, row, n) < 0)
            return -1;
        s->st.start += n;
        sp->rows++;
        if (emit_row(sp) < 0)
            return -1;
        row_progress(s, sp);
        int c = peek(s);
        if (c == ']') {
            consume(s);
            return 0;
        }
        if (c != ',')
            return src_fail(s, c < 0 ? "unexpected end of file in \"data\" (truncated?)"
                                     : "expected ',' or ']' after a data row");
        consume(s);
    }
}

/* The next value, parsed with jansson (the members other than "data"). */
static int capture(jsrc *s, json_t **out)
{
    const char *p;
    size_t n;
    *out = NULL;
    if (cut(s, &p, &n, 0, "unexpected end of file (truncated?)") < 0)
        return -1;
    json_error_t jerr;
    *out = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!*out)
        return src_fail_at(s, p + n, jerr.text);
    s->st.start += n;
    return 0;
}

/* Skips the next value. */
static int skip_member(jsrc *s)
{
    const char *p;
    size_t n;
    if (cut(s, &p, &n, 1, "unexpected end of file (truncated?)") < 0)
        return -1;
    s->st.start += n;
    return 0;
}

static int meta_entry(split *sp, const char *key, json_t *v)
{
    char *dump = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!dump)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    int rc = sp->k->on_meta ? sp->k->on_meta(sp->k->ctx, key, dump) : 0;
    free(dump);
    return rc ? sink_fail(sp) : 0;
}

/* One member's value: "data" streamed (or deferred), others captured. */
static int read_member(jsrc *s, split *sp, const char *k, int rows_only)
{
    int is_data = strcmp(k, "data") == 0;
    if (is_data && !sp->data_done && (rows_only || (sp->have_cols && sp->have_meta))) {
        if (!sp->set_up && setup_columns(sp) < 0)
            return -1;
        sp->set_up = 1;
        sp->data_done = 1;
        return stream_data(s, sp);
    }
    if (is_data || rows_only) {
        sp->data_deferred |= is_data;
        return skip_member(s);
    }
    json_t *v = NULL;
    int rc = capture(s, &v);
    if (rc < 0)
        return -1;
    if (strcmp(k, "columns") == 0)
        rc = sp->have_cols ? src_fail(s, "\"columns\" twice") : parse_columns(sp, v);
    else if (strcmp(k, "column_metadata") == 0)
        rc = sp->have_cols ? parse_column_metadata(sp, v)
                           : ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: \"column_metadata\" before \"columns\"",
                                           sp->name);
    else if (strcmp(k, "nodes") == 0)
        rc = json_is_array(v) ? (json_decref(sp->nodes), sp->nodes = json_incref(v), 0)
                              : ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: \"nodes\" is not a list", sp->name);
    else
        rc = meta_entry(sp, k, v);
    json_decref(v);
    return rc;
}

/* One pass over the top-level object. In the second pass (rows_only) only
 * "data" is read. */
static int read_object(jsrc *s, split *sp, int rows_only)
{
    int c = peek(s);
    if (c < 0)
        return s->failed ? -1 : src_fail(s, "empty file: no JSON object");
    if (c != '{')
        return src_fail(s, "not a Caliper json-split object (expected '{')");
    consume(s);
    if (peek(s) == '}')
        return src_fail(s, "empty object: no \"data\", \"columns\" or \"nodes\"");
    for (;;) {
        char *key;
        if (read_key(s, &key) < 0 || expect(s, ':', "':' after a key") < 0) {
            free(key);
            return -1;
        }
        int rc = read_member(s, sp, key, rows_only);
        free(key);
        if (rc < 0)
            return -1;
        c = peek(s);
        if (c == '}') {
            consume(s);
            break;
        }
        if (c != ',')
            return src_fail(s, c < 0 ? "unexpected end of file (truncated?)" : "expected ',' or '}'");
        consume(s);
    }
    if (peek(s) >= 0 || s->failed)
        return src_fail(s, "data after the end of the JSON object");
    return 0;
}

/* "file.c:12" -> file "file.c", line 12. */
static void split_sourceloc(const char *label, char *file, size_t size, int *line)
{
    const char *colon = strrchr(label, ':');
    *line = 0;
    if (colon && colon[1]) {
        char *end;
        long l = strtol(colon + 1, &end, 10);
        if (!*end) {
            *line = (int)l;
            snprintf(file, size, "%.*s", (int)(colon - label), label);
            return;
        }
    }
    snprintf(file, size, "%s", label);
}

static const char *node_label(const split *sp, int64_t idx)
{
    if (idx < 0 || (size_t)idx >= json_array_size(sp->nodes))
        return NULL;
    return json_string_value(json_object_get(json_array_get(sp->nodes, (size_t)idx), "label"));
}

static int cmp_srow(const void *a, const void *b)
{
    const srow *x = a, *y = b;
    if (x->nid != y->nid)
        return x->nid < y->nid ? -1 : 1;
    return 0;
}

typedef struct node_extra {
    const char *module;
    char file[512];
    int line;
} node_extra;

/* Sampled profiles: a node whose rows name several source lines gets one
 * statement child per line (Hatchet's split), holding those rows. */
static int flush_sampled(split *sp, node_extra *extra, int64_t nnodes)
{
    qsort(sp->srows, sp->nsrows, sizeof *sp->srows, cmp_srow); /* stable enough: by node */
    int64_t next_id = nnodes;
    for (size_t i = 0; i < sp->nsrows;) {
        size_t j = i;
        int64_t nid = sp->srows[i].nid;
        int distinct = 0;
        int lines[64];
        char file[512];
        int line;
        for (; j < sp->nsrows && sp->srows[j].nid == nid; j++) {
            const char *l = node_label(sp, sp->srows[j].sloc);
            split_sourceloc(l ? l : "", file, sizeof file, &line);
            int seen = 0;
            for (int d = 0; d < distinct; d++)
                seen |= lines[d] == line;
            if (!seen && distinct < 64)
                lines[distinct++] = line;
        }
        if (nid < nnodes && extra[nid].file[0] == '\0') {
            const char *l = node_label(sp, sp->srows[i].sloc);
            split_sourceloc(l ? l : "", extra[nid].file, sizeof extra[nid].file, &extra[nid].line);
            extra[nid].module = node_label(sp, sp->srows[i].module);
        }
        /* one statement child per distinct line when there are several */
        for (int d = 0; d < distinct; d++) {
            int64_t target = nid;
            if (distinct > 1) {
                target = next_id++;
                char fname[512], sname[600];
                for (size_t r = i; r < j; r++) {
                    const char *l = node_label(sp, sp->srows[r].sloc);
                    split_sourceloc(l ? l : "", file, sizeof file, &line);
                    if (line == lines[d])
                        break;
                }
                snprintf(fname, sizeof fname, "%s", file);
                const char *base = strrchr(fname, '/');
                snprintf(sname, sizeof sname, "%s:%d", base ? base + 1 : fname, lines[d]);
                ari_profile_node n = {target, nid, sname, NULL, fname, lines[d], "statement"};
                if (sp->k->on_node(sp->k->ctx, &n) != 0)
                    return sink_fail(sp);
            }
            for (size_t r = i; r < j; r++) {
                const char *l = node_label(sp, sp->srows[r].sloc);
                split_sourceloc(l ? l : "", file, sizeof file, &line);
                if (line != lines[d] && distinct > 1)
                    continue;
                for (int c = 0; c < sp->ncols; c++) {
                    if (sp->cols[c].metric < 0 || isnan(sp->srows[r].vals[c]))
                        continue;
                    if (sp->k->on_value(sp->k->ctx, sp->cols[c].metric, target, sp->srows[r].proc,
                                        sp->srows[r].vals[c]) != 0)
                        return sink_fail(sp);
                }
            }
        }
        i = j;
    }
    return 0;
}

static int declare_nodes(split *sp)
{
    if (!sp->nodes)
        return ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: no \"nodes\" member", sp->name);
    int64_t n = (int64_t)json_array_size(sp->nodes);
    if (n > ARI_PROFILE_MAX_NODE_ID)
        return ari_error_set(sp->err, ARI_E_TOO_LARGE, "%s: too many nodes", sp->name);
    node_extra *extra = calloc(n ? (size_t)n : 1, sizeof *extra);
    if (!extra)
        return ari_error_set(sp->err, ARI_E_NOMEM, "out of memory");
    int rc = 0;
    const char *path_name = sp->cols[sp->path_col].name;
    if (sp->sloc_col >= 0) { /* node attributes come from the buffered rows */
        for (size_t i = 0; i < sp->nsrows; i++)
            if (sp->srows[i].nid >= n)
                rc = ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: a row names node %lld of %lld",
                                   sp->name, (long long)sp->srows[i].nid, (long long)n);
    }
    int unknown = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        json_t *node = json_array_get(sp->nodes, (size_t)i);
        const char *column = json_string_value(json_object_get(node, "column"));
        const char *label = json_string_value(json_object_get(node, "label"));
        if (!json_is_object(node) || !column)
            rc = ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: node %lld has no \"column\"", sp->name,
                               (long long)i);
        if (rc || strcmp(column, path_name) != 0)
            continue;
        json_t *parent = json_object_get(node, "parent");
        if (parent && !json_is_integer(parent)) {
            rc = ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: node %lld: bad parent", sp->name, (long long)i);
            break;
        }
        char unknown_label[32];
        if (!label || !*label) {
            snprintf(unknown_label, sizeof unknown_label, "UNKNOWN %d", unknown++);
            label = unknown_label;
        }
        ari_profile_node pn = {i, parent ? json_integer_value(parent) : -1, label, NULL, NULL, 0, sp->node_kind};
        if (pn.parent < -1 || pn.parent >= n) {
            rc = ari_error_set(sp->err, ARI_E_INVALID_INPUT, "%s: node %lld: parent out of range", sp->name,
                               (long long)i);
            break;
        }
        if (sp->sloc_col >= 0) { /* attributes are only known after the rows */
            continue;
        }
        if (sp->k->on_node(sp->k->ctx, &pn) != 0)
            rc = sink_fail(sp);
    }
    if (rc == 0 && sp->sloc_col >= 0) {
        /* first the file/line/module of each node, then nodes, then splits */
        for (size_t i = 0; i < sp->nsrows; i++) {
            node_extra *e = &extra[sp->srows[i].nid];
            if (e->file[0])
                continue;
            const char *l = node_label(sp, sp->srows[i].sloc);
            split_sourceloc(l ? l : "", e->file, sizeof e->file, &e->line);
            e->module = node_label(sp, sp->srows[i].module);
        }
        unknown = 0;
        for (int64_t i = 0; i < n && rc == 0; i++) {
            json_t *node = json_array_get(sp->nodes, (size_t)i);
            if (strcmp(json_string_value(json_object_get(node, "column")), path_name) != 0)
                continue;
            const char *label = json_string_value(json_object_get(node, "label"));
            char unknown_label[32];
            if (!label || !*label) {
                snprintf(unknown_label, sizeof unknown_label, "UNKNOWN %d", unknown++);
                label = unknown_label;
            }
            json_t *parent = json_object_get(node, "parent");
            ari_profile_node pn = {i, parent ? json_integer_value(parent) : -1, label, extra[i].module,
                                   extra[i].file, extra[i].line, sp->node_kind};
            if (sp->k->on_node(sp->k->ctx, &pn) != 0)
                rc = sink_fail(sp);
        }
        if (rc == 0)
            rc = flush_sampled(sp, extra, n);
    }
    free(extra);
    return rc;
}

static void split_free(split *sp)
{
    for (int i = 0; i < sp->ncols; i++) {
        free(sp->cols[i].name);
        free(sp->cols[i].unit);
    }
    void *owned[] = {sp->cols, sp->row, sp->rank_proc};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    for (size_t i = 0; i < sp->nsrows; i++)
        free(sp->srows[i].vals);
    free(sp->srows);
    json_decref(sp->nodes);
}

static int split_read(const char *path, const char *data, size_t len, const char *name,
                      const ari_profile_sink *k, ari_error *err)
{
    split sp;
    memset(&sp, 0, sizeof sp);
    sp.k = k;
    sp.err = err;
    sp.name = name;
    jsrc src, *s = &src;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        memset(s, 0, sizeof *s);
        s->name = name;
        s->err = err;
        s->k = k;
        if (path && !(s->in = ari_input_open(path, name, err))) {
            rc = -1;
            break;
        }
        ari_json_stream_init(&s->st, s->in, data, len, name, MAX_CAPTURE);
        s->st.count_lines = 1;
        rc = read_object(s, &sp, pass == 1);
        ari_json_stream_free(&s->st);
        ari_input_close(s->in);
        if (rc < 0)
            break;
        if (pass == 0 && !sp.have_cols)
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: no \"columns\" member", name);
        if (pass == 0 && !sp.data_deferred && !sp.data_done)
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: no \"data\" member", name);
        if (rc == 0 && sp.data_done)
            break; /* rows already streamed: no second pass */
    }
    if (rc == 0 && !sp.set_up)
        rc = setup_columns(&sp); /* an empty "data": columns still declare metrics */
    if (rc == 0)
        rc = declare_nodes(&sp);
    if (rc == 0 && k->on_progress)
        k->on_progress(k->ctx, 1.0);
    split_free(&sp);
    return rc;
}

int ari_caliper_json_split_read(const char *path, const char *name, const ari_profile_sink *k,
                                ari_error *err)
{
    return split_read(path, NULL, 0, name, k, err);
}

int ari_caliper_json_split_read_mem(const char *data, size_t len, const char *name,
                                    const ari_profile_sink *k, ari_error *err)
{
    return split_read(NULL, data, len, name, k, err);
}

/* ---- probes ---- */

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

int ari_caliper_json_split_probe(const char *head, size_t n)
{
    const char *end = head + n, *p = skip_blank(head, end);
    if (p == end || *p != '{' || memchr(head, '\0', n))
        return 0;
    return (memmem(head, n, "\"data\"", 6) || memmem(head, n, "\"columns\"", 9)) &&
           !memmem(head, n, "\"graph\"", 7) && !memmem(head, n, "\"traceEvents\"", 13);
}

int ari_caliper_json_records_probe(const char *head, size_t n)
{
    const char *end = head + n, *p = skip_blank(head, end);
    if (p == end || *p != '[' || memchr(head, '\0', n))
        return 0;
    p = skip_blank(p + 1, end);
    if (p == end || *p != '{')
        return 0;
    return memmem(head, n, "\"path\"", 6) != NULL ||
           memmem(head, n, "\"source.function#callpath.address\"", 34) != NULL;
}

/* ---- record lists ---- */

typedef struct records {
    const ari_profile_sink *k;
    ari_error *err;
    const char *name;
    json_t *paths;   /* full path -> node id */
    int64_t next_id;
} records;

/* The node of "a/b/c" (declaring its missing ancestors). */
static int path_node(records *rs, const char *path, int64_t *id)
{
    size_t len = strlen(path);
    int64_t parent = -1;
    for (size_t start = 0; start <= len;) {
        const char *slash = strchr(path + start, '/');
        size_t stop = slash ? (size_t)(slash - path) : len;
        char *prefix = strndup(path, stop);
        if (!prefix)
            return ari_error_set(rs->err, ARI_E_NOMEM, "out of memory");
        json_t *known = json_object_get(rs->paths, prefix);
        if (known) {
            parent = json_integer_value(known);
        } else {
            char *label = strndup(path + start, stop - start);
            ari_profile_node n = {rs->next_id, parent, label ? label : "", NULL, NULL, 0, "region"};
            int rc = label ? rs->k->on_node(rs->k->ctx, &n) : -1;
            free(label);
            if (rc != 0) {
                free(prefix);
                return rs->err && rs->err->code[0] ? -1
                       : ari_error_set(rs->err, ARI_E_INVALID_INPUT, "%s: the profile was refused", rs->name);
            }
            json_object_set_new(rs->paths, prefix, json_integer(rs->next_id));
            parent = rs->next_id++;
        }
        free(prefix);
        start = stop + 1;
    }
    *id = parent;
    return 0;
}

static int record_values(records *rs, json_t *rec, int64_t node)
{
    int proc = 0;
    json_t *rank = json_object_get(rec, "mpi.rank");
    double r = json_is_number(rank) ? json_number_value(rank) : 0;
    if (!(r >= 0 && r < ARI_PROFILE_MAX_PROCS) || r != floor(r))
        return ari_error_set(rs->err, ARI_E_INVALID_INPUT, "%s: bad mpi.rank %g (a whole number from 0 up)", rs->name, r);
    if (rs->k->on_proc(rs->k->ctx, (int64_t)r, 0, &proc) != 0)
        return -1;
    const char *key;
    json_t *v;
    json_object_foreach(rec, key, v) {
        if (!json_is_number(v) || strcmp(key, "mpi.rank") == 0 || is_order_column(key))
            continue;
        int inclusive, m;
        const char *mname = ari_caliper_metric_name(key, &inclusive);
        ari_profile_metric pm = {mname, key, NULL, inclusive, NULL};
        if (rs->k->on_metric(rs->k->ctx, &pm, &m) != 0 ||
            rs->k->on_value(rs->k->ctx, m, node, proc, json_number_value(v)) != 0)
            return -1;
    }
    return 0;
}

int ari_caliper_json_records_read(const char *path, const char *name, const ari_profile_sink *k,
                                  ari_error *err)
{
    json_error_t jerr;
    char *data;
    size_t len;
    if (ari_input_load(path, name, &data, &len, err) < 0)
        return -1;
    json_t *root = json_loadb(data, len, JSON_DECODE_ANY, &jerr);
    free(data);
    if (!root)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%d: %s", name, jerr.line, jerr.text);
    records rs = {k, err, name, json_object(), 0};
    int rc = json_is_array(root) ? 0
             : ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not a list of Caliper records", name);
    size_t i;
    json_t *rec;
    json_array_foreach(root, i, rec) {
        if (rc < 0)
            break;
        const char *p = json_string_value(json_object_get(rec, "source.function#callpath.address"));
        if (!p)
            p = json_string_value(json_object_get(rec, "path"));
        if (!json_is_object(rec) || !p || !*p)
            continue; /* records without a path are not part of the tree */
        int64_t node = -1;
        rc = path_node(&rs, p, &node);
        if (rc == 0 && record_values(&rs, rec, node) != 0)
            rc = err && err->code[0] ? -1 : ari_error_set(err, ARI_E_INVALID_INPUT, "%s: record %zu refused", name, i);
    }
    if (rc == 0 && rs.next_id == 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: no record has a path", name);
    json_decref(rs.paths);
    json_decref(root);
    return rc;
}
