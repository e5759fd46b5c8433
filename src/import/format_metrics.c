/* format_metrics.c: claim and import of ROSS runs and generic metric CSVs
 * (see format_metrics.h). */
#include "import/format_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "ingest/json_tokens.h"
#include "ingest/metrics_csv.h"
#include "ingest/ross_csv.h"
#include "store/metrics_writer.h"
#include "store/trace_writer.h"

#define PROBE_BYTES 8192
#define MAX_META_BYTES (1 << 20)
#define DEFAULT_KPS_PER_PE 16

enum role { R_NONE, R_MATRIX, R_RECORDS, R_META, R_TRUTH, R_LONG, R_WIDE };

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int probe(const ari_import_file *f, int (*fn)(const char *, size_t))
{
    char head[PROBE_BYTES];
    long got = ari_input_head(f->path, head, sizeof head);
    return got > 0 && fn(head, (size_t)got);
}

/* The first line of a file (for comparing matrix headers); "" if none. */
static void header_line(const ari_import_file *f, char *out, size_t size)
{
    long got = ari_input_head(f->path, out, size - 1);
    out[got > 0 ? got : 0] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
}

static int is_json_named(const ari_import_file *f, const char *name)
{
    return strcmp(base_name(f->name), name) == 0;
}

static enum role role_of(const ari_import_file *f)
{
    char metric[64];
    if (f->bytes == 0)
        return R_NONE;
    if (is_json_named(f, "ross.json"))
        return R_META;
    if (is_json_named(f, "truth.json"))
        return R_TRUTH;
    if (probe(f, ari_ross_records_probe))
        return R_RECORDS;
    if (ari_ross_metric_of_name(f->name, metric, sizeof metric) == 0 && probe(f, ari_ross_matrix_probe))
        return R_MATRIX;
    if (probe(f, ari_metrics_long_probe))
        return R_LONG;
    if (probe(f, ari_metrics_wide_probe))
        return R_WIDE;
    return R_NONE;
}

static void take(ari_import_file *files, size_t i, ari_group *g)
{
    files[i].claimed = 1;
    g->files[g->nfiles++] = i;
}

/* The ROSS files of the directory: matrices with the first one's header
 * (up to the group's capacity, keeping two places for the JSON files),
 * records, ross.json and truth.json. */
static int claim_ross(ari_import_file *files, const size_t *idx, size_t n, const enum role *roles, ari_group *g)
{
    char first[PROBE_BYTES], other[PROBE_BYTES];
    int have_header = 0, data = 0;
    size_t cap = sizeof g->files / sizeof g->files[0];
    for (size_t i = 0; i < n && g->nfiles < cap - 2; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || (roles[i] != R_MATRIX && roles[i] != R_RECORDS))
            continue;
        if (roles[i] == R_MATRIX) {
            header_line(f, have_header ? other : first, sizeof first);
            if (have_header && strcmp(first, other) != 0)
                continue; /* another run: another group */
            have_header = 1;
        }
        take(files, idx[i], g);
        data = 1;
    }
    for (size_t i = 0; data && i < n && g->nfiles < cap; i++)
        if (!files[idx[i]].claimed && (roles[i] == R_META || roles[i] == R_TRUTH))
            take(files, idx[i], g);
    return data;
}

static int claim_metrics(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    enum role *roles = calloc(n ? n : 1, sizeof *roles);
    if (!roles)
        return 0;
    for (size_t i = 0; i < n; i++)
        roles[i] = files[idx[i]].claimed ? R_NONE : role_of(&files[idx[i]]);
    int got = claim_ross(files, idx, n, roles, g);
    for (size_t i = 0; !got && i < n; i++)
        if (roles[i] == R_LONG || roles[i] == R_WIDE) {
            take(files, idx[i], g);
            g->name_from_first = 1;
            got = 1;
        }
    free(roles);
    return got;
}

/* ---- import --------------------------------------------------------------------------- */

typedef struct ross_meta {
    char *text;        /* ross.json, validated */
    char *truth;       /* truth.json, validated */
    int kps_per_pe;    /* from ross.json, 0 if absent */
} ross_meta;

static int load_json(const ari_import_file *f, char **out, ari_error *err)
{
    size_t len;
    if (ari_input_load(f->path, f->name, out, &len, err) < 0)
        return -1;
    const char *p = ari_json_skip_ws(*out, *out + len);
    const char *end = p < *out + len && *p == '{' ? ari_json_skip_value(p, *out + len, 0) : NULL;
    if (!end || ari_json_skip_ws(end, *out + len) != *out + len || len > MAX_META_BYTES)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: must be one JSON object (of at most 1 MiB)", f->name);
    return 0;
}

static int read_meta(const ari_import_file *f, ross_meta *m, ari_error *err)
{
    if (load_json(f, &m->text, err) < 0)
        return -1;
    const char *v;
    size_t vlen;
    int64_t k;
    if (ari_json_member_get(m->text, strlen(m->text), "kps_per_pe", &v, &vlen)) {
        if (!ari_json_integer(v, vlen, &k) || k < 1 || k > 1000000)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: kps_per_pe must be a whole number from 1 to 1000000",
                                 f->name);
        m->kps_per_pe = (int)k;
    }
    return 0;
}

static int reader_error(ari_metrics_writer *mw, ari_error *err)
{
    const ari_error *we = ari_metrics_writer_error(mw);
    if (we->code[0] && err)
        *err = *we;
    return -1;
}

static const char *role_name(enum role r)
{
    static const char *const names[] = {"", "ross-matrix", "ross-records", "ross-metadata", "truth",
                                        "metrics-long", "metrics-wide"};
    return names[r];
}

/* The matrices of a run must all have the same shape. */
static int check_shape(const ari_import_file *f, const ari_ross_shape *s, ari_ross_shape *first, ari_error *err)
{
    if (first->cols == 0) {
        *first = *s;
        return 0;
    }
    if (s->rows != first->rows || s->cols != first->cols)
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s: %lld KPs x %lld samples, where the run's other matrices have %lld x %lld", f->name,
                             (long long)s->rows, (long long)s->cols, (long long)first->rows, (long long)first->cols);
    return 0;
}

typedef struct ross_run {
    ari_import_file *files;
    const ari_group *g;
    enum role roles[16];
    ross_meta meta;
    int kps_per_pe;
    const char *kpp_source;
    ari_ross_shape shape;
    int64_t records;
    int64_t comm_length;
} ross_run;

/* KPs per PE: the records', else ross.json's, else the assumed 16. */
static int settle_kps_per_pe(ross_run *run, ari_error *err)
{
    run->kps_per_pe = run->meta.kps_per_pe;
    run->kpp_source = run->kps_per_pe ? "metadata (ross.json)" : "assumed (16, as the published sample)";
    for (size_t i = 0; i < run->g->nfiles; i++) {
        const ari_import_file *f = &run->files[run->g->files[i]];
        ari_ross_records_info info;
        if (run->roles[i] != R_RECORDS)
            continue;
        if (ari_ross_records_scan(f->path, f->name, &info, err) < 0)
            return -1;
        if (info.kps_per_pe && run->meta.kps_per_pe && info.kps_per_pe != run->meta.kps_per_pe)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: the records give %d KPs per PE, ross.json says %d",
                                 f->name, info.kps_per_pe, run->meta.kps_per_pe);
        if (info.kps_per_pe) {
            run->kps_per_pe = info.kps_per_pe;
            run->kpp_source = "records (KpGid = Peid * nKP + Kpid)";
        }
    }
    if (!run->kps_per_pe)
        run->kps_per_pe = DEFAULT_KPS_PER_PE;
    return 0;
}

static int read_ross_file(ari_trace_writer *w, ari_metrics_writer *mw, ross_run *run, size_t i, ari_error *err)
{
    const ari_import_file *f = &run->files[run->g->files[i]];
    const ari_metrics_sink *k = ari_metrics_writer_sink(mw);
    if (ari_trace_writer_file(w, f->path, f->name, role_name(run->roles[i]), err) < 0)
        return -1;
    if (run->roles[i] == R_RECORDS) {
        ari_ross_records_info info;
        if (ari_ross_records_read(f->path, f->name, run->kps_per_pe, k, &info, err) < 0)
            return reader_error(mw, err);
        run->records += info.rows;
        if (info.comm_length > run->comm_length)
            run->comm_length = info.comm_length;
        return 0;
    }
    if (run->roles[i] == R_MATRIX) {
        char metric[64];
        ari_ross_shape s;
        ari_ross_metric_of_name(f->name, metric, sizeof metric);
        if (ari_ross_matrix_read(f->path, f->name, metric, run->kps_per_pe, k, &s, err) < 0)
            return reader_error(mw, err);
        return check_shape(f, &s, &run->shape, err);
    }
    return 0;
}

static int ross_notes(ari_metrics_writer *mw, ross_run *run, ari_error *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%d", run->kps_per_pe);
    int rc = ari_metrics_writer_note(mw, 1, "source", "\"ross\"");
    rc |= ari_metrics_writer_note(mw, 1, "kps_per_pe", buf);
    snprintf(buf, sizeof buf, "\"%s\"", run->kpp_source);
    rc |= ari_metrics_writer_note(mw, 1, "kps_per_pe_source", buf);
    snprintf(buf, sizeof buf, "{\"rows\":%lld,\"cols\":%lld}", (long long)run->shape.rows, (long long)run->shape.cols);
    rc |= ari_metrics_writer_note(mw, 1, "matrix_shape", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)run->records);
    rc |= ari_metrics_writer_note(mw, 1, "records", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)run->comm_length);
    rc |= ari_metrics_writer_note(mw, 1, "comm_length", buf);
    const char *v;
    size_t vlen;
    int simulated = run->meta.text && ari_json_member_get(run->meta.text, strlen(run->meta.text), "simulated", &v, &vlen) &&
                    vlen == 4 && memcmp(v, "true", 4) == 0;
    rc |= ari_metrics_writer_note(mw, 1, "simulated", simulated ? "true" : "false");
    if (run->meta.text)
        rc |= ari_metrics_writer_note(mw, 0, "ross", run->meta.text);
    if (run->meta.truth)
        rc |= ari_metrics_writer_note(mw, 0, "truth", run->meta.truth);
    if (simulated)
        rc |= ari_metrics_writer_note(mw, 0, "simulated", "true");
    return rc ? reader_error(mw, err) : 0;
}

static int import_ross(ari_trace_writer *w, ari_metrics_writer *mw, ross_run *run, ari_error *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < run->g->nfiles; i++) {
        const ari_import_file *f = &run->files[run->g->files[i]];
        run->roles[i] = role_of(f);
        if (run->roles[i] == R_META || run->roles[i] == R_TRUTH)
            rc = ari_trace_writer_file(w, f->path, f->name, role_name(run->roles[i]), err);
        if (rc == 0 && run->roles[i] == R_META)
            rc = read_meta(f, &run->meta, err);
        if (rc == 0 && run->roles[i] == R_TRUTH)
            rc = load_json(f, &run->meta.truth, err);
    }
    if (rc == 0)
        rc = settle_kps_per_pe(run, err);
    for (int pass = 0; pass < 2; pass++) /* records first: they say which KP is on which PE */
        for (size_t i = 0; rc == 0 && i < run->g->nfiles; i++)
            if ((run->roles[i] == R_RECORDS) == (pass == 0))
                rc = read_ross_file(w, mw, run, i, err);
    return rc == 0 ? ross_notes(mw, run, err) : -1;
}

static int import_generic(ari_trace_writer *w, ari_metrics_writer *mw, const ari_import_file *f, enum role r,
                          ari_error *err)
{
    if (ari_trace_writer_file(w, f->path, f->name, role_name(r), err) < 0)
        return -1;
    const ari_metrics_sink *k = ari_metrics_writer_sink(mw);
    int rc;
    if (r == R_LONG) {
        rc = ari_metrics_long_read(f->path, f->name, k, err);
    } else {
        char metric[128];
        const char *b = base_name(f->name);
        snprintf(metric, sizeof metric, "%.*s", (int)strcspn(b, "."), b);
        rc = ari_metrics_wide_read(f->path, f->name, metric[0] ? metric : "value", k, err);
    }
    if (rc < 0)
        return reader_error(mw, err);
    return ari_metrics_writer_note(mw, 1, "source", r == R_LONG ? "\"long-csv\"" : "\"wide-csv\"") < 0
               ? reader_error(mw, err) : 0;
}

static int import_metrics(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    ari_metrics_writer *mw = ari_metrics_writer_begin(w, err);
    if (!mw)
        return -1;
    enum role first = role_of(&files[g->files[0]]);
    int rc;
    if (g->nfiles == 1 && (first == R_LONG || first == R_WIDE)) {
        rc = import_generic(w, mw, &files[g->files[0]], first, err);
    } else {
        ross_run run;
        memset(&run, 0, sizeof run);
        run.files = files;
        run.g = g;
        rc = import_ross(w, mw, &run, err);
        free(run.meta.text);
        free(run.meta.truth);
    }
    if (rc == 0)
        rc = ari_metrics_writer_finish(mw, err);
    ari_metrics_writer_free(mw);
    return rc;
}

const ari_format ari_format_metrics = {"metrics", "pdes", claim_metrics, import_metrics};
