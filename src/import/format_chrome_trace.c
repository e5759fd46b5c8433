/* format_chrome_trace.c: claim and import of Chrome traces with their
 * companions, and of lone hwloc topologies (see format_chrome_trace.h). */
#include "import/format_chrome_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/chrome_slices.h"
#include "ingest/chrome_trace.h"
#include "ingest/hwloc_xml.h"
#include "ingest/input.h"
#include "ingest/nvsmi_csv.h"
#include "store/datamove_writer.h"
#include "store/task_writer.h"
#include "store/trace_writer.h"

#define PROBE_BYTES 65536
#define MAX_GROUP 16

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *extension(const char *name)
{
    const char *dot = strrchr(base_name(name), '.');
    return dot ? dot + 1 : "";
}

/* Same name up to the extension: "run/k-1.json" and "run/k-1.csv". */
static int same_stem(const char *a, const char *b)
{
    const char *da = strrchr(base_name(a), '.'), *db = strrchr(base_name(b), '.');
    size_t la = da ? (size_t)(da - a) : strlen(a), lb = db ? (size_t)(db - b) : strlen(b);
    return la == lb && strncmp(a, b, la) == 0;
}

static int probe_file(const ari_import_file *f, int (*probe)(const char *, size_t))
{
    static char head[PROBE_BYTES];
    long got = ari_input_head(f->path, head, sizeof head);
    return got > 0 && probe(head, (size_t)got);
}

static int is_shared_topology(const ari_import_file *f)
{
    const char *b = base_name(f->name), *ext = extension(f->name);
    if (strncmp(b, "topology", 8) != 0)
        return 0;
    return strcmp(ext, "svg") == 0 || (strcmp(ext, "xml") == 0 && probe_file(f, ari_hwloc_probe));
}

static int is_companion(const ari_import_file *trace, const ari_import_file *f)
{
    if (f == trace || !same_stem(trace->name, f->name))
        return 0;
    const char *ext = extension(f->name);
    if (strcmp(ext, "svg") == 0)
        return 1;
    if (strcmp(ext, "csv") == 0)
        return probe_file(f, ari_nvsmi_probe);
    if (strcmp(ext, "xml") == 0)
        return probe_file(f, ari_hwloc_probe);
    return 0;
}

static void add(ari_group *g, ari_import_file *files, size_t i)
{
    if (g->nfiles < MAX_GROUP) {
        g->files[g->nfiles++] = i;
        files[i].claimed = 1;
    }
}

static int claim_chrome(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || f->bytes == 0 || !probe_file(f, ari_chrome_probe))
            continue;
        g->nfiles = 0;
        g->name_from_first = 1; /* "fill-1.json" and its companions: the run "fill-1" */
        add(g, files, idx[i]);
        for (size_t j = 0; j < n; j++)
            if (!files[idx[j]].claimed && is_companion(f, &files[idx[j]]))
                add(g, files, idx[j]);
        for (size_t j = 0; j < n; j++) /* shared: given to every run */
            if (j != i && is_shared_topology(&files[idx[j]]) && !is_companion(f, &files[idx[j]]))
                add(g, files, idx[j]);
        return 1;
    }
    return 0;
}

/* A Chrome trace with no GPU / data-movement content (the rule of
 * chrome_slices.h: the file is read once here, up to its first such event)
 * and no same-stem companion: a timeline of slices. A trace that cannot be
 * read is left to claim_chrome, which reports why as before. */
static int claim_slices(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || f->bytes == 0 || !probe_file(f, ari_chrome_probe))
            continue;
        int companions = 0;
        for (size_t j = 0; j < n && !companions; j++)
            companions = !files[idx[j]].claimed && is_companion(f, &files[idx[j]]);
        ari_error err = {0};
        if (companions || ari_chrome_has_device_content(f->path, f->name, &err) != 0)
            continue;
        g->nfiles = 0;
        g->name_from_first = 1;
        add(g, files, idx[i]);
        return 1;
    }
    return 0;
}

static int claim_hwloc(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    for (size_t i = 0; i < n; i++) {
        ari_import_file *f = &files[idx[i]];
        if (f->claimed || f->bytes == 0 || !probe_file(f, ari_hwloc_probe))
            continue;
        g->nfiles = 0;
        add(g, files, idx[i]);
        return 1;
    }
    return 0;
}

/* ---- import ------------------------------------------------------------------- */

static int read_topology(ari_datamove_writer *dw, const ari_import_file *f, ari_error *err)
{
    ari_topology t;
    if (ari_topology_from_xml(f->path, f->name, &t, err) < 0)
        return -1;
    int rc = ari_datamove_writer_topology(dw, &t, err);
    ari_topology_free(&t);
    return rc;
}

static int sink_error(ari_datamove_writer *dw, int rc, ari_error *err)
{
    const ari_error *we = ari_datamove_writer_error(dw);
    if (rc != 0 && we->code[0] && err)
        *err = *we;
    return rc ? -1 : 0;
}

static int import_file(ari_trace_writer *w, ari_datamove_writer *dw, const ari_import_file *f, int first,
                       ari_error *err)
{
    const char *ext = extension(f->name);
    const char *role = first ? "chrome-trace" : strcmp(ext, "csv") == 0 ? "nvidia-smi"
                     : strcmp(ext, "xml") == 0 ? "hwloc-topology" : "topology-svg";
    if (ari_trace_writer_file(w, f->path, f->name, role, err) < 0)
        return -1;
    if (first)
        return sink_error(dw, ari_chrome_read(f->path, f->name, ari_datamove_writer_chrome_sink(dw), NULL, err), err);
    if (strcmp(role, "nvidia-smi") == 0)
        return sink_error(dw, ari_nvsmi_read(f->path, f->name, ari_datamove_writer_nvsmi_sink(dw), err), err);
    if (strcmp(role, "hwloc-topology") == 0)
        return read_topology(dw, f, err);
    return 0; /* an lstopo picture: recorded as a source file */
}

static int import_chrome(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    ari_datamove_writer *dw = ari_datamove_writer_begin(w, err);
    if (!dw)
        return -1;
    int rc = ari_trace_writer_set_time_unit(w, "us");
    /* topologies first (a run-specific one after the shared ones), then the trace */
    for (int pass = 0; pass < 2 && rc == 0; pass++)
        for (size_t i = g->nfiles; i-- > 0 && rc == 0;) {
            int first = i == 0;
            if ((pass == 0) == first)
                continue;
            rc = import_file(w, dw, &files[g->files[i]], first, err);
        }
    if (rc == 0)
        rc = ari_datamove_writer_finish(dw, err);
    ari_datamove_writer_free(dw);
    return rc;
}

/* The reader's report as trace warnings: a cut file, unmatched B/E. */
static int warn_slices(ari_trace_writer *w, const ari_import_file *f, const ari_chrome_stats *st)
{
    char msg[1200];
    if (st->truncated) {
        snprintf(msg, sizeof msg,
                 "%s: the traceEvents array has no closing ']' (the file was cut, as when a traced run dies): "
                 "its complete events were read",
                 f->name);
        if (ari_trace_writer_warn(w, "truncated_file", msg) < 0)
            return -1;
    }
    if (st->unclosed > 0) {
        snprintf(msg, sizeof msg, "%s: %lld B (begin) events have no E (end): each ends at its thread's last timestamp",
                 f->name, (long long)st->unclosed);
        if (ari_trace_writer_warn(w, "unclosed_slices", msg) < 0)
            return -1;
    }
    if (st->unmatched_end > 0) {
        snprintf(msg, sizeof msg, "%s: %lld E (end) events close no open slice of their thread and were ignored",
                 f->name, (long long)st->unmatched_end);
        if (ari_trace_writer_warn(w, "unmatched_end", msg) < 0)
            return -1;
    }
    return 0;
}

/* The slice timeline (chrome_slices.h) through the Paje sink; the origin
 * (the first event, in the file's clock) goes to the summary as
 * time_origin through the task sink, as task traces record theirs. */
static int import_slices(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *f = &files[g->files[0]];
    if (ari_trace_writer_file(w, f->path, f->name, "chrome-slices", err) < 0)
        return -1;
    ari_chrome_slices_info info;
    int rc = ari_chrome_slices_read(f->path, f->name, ari_trace_writer_sink(w), &info, err);
    const ari_error *werr = ari_trace_writer_error(w);
    if (rc != 0) {
        if (werr->code[0] && err)
            *err = *werr; /* the store failed (or the import was cancelled) */
        return -1;
    }
    const char *source = strcmp(info.unit, "us") == 0
                             ? "format: Chrome trace timestamps are microseconds"
                             : strcmp(info.unit, "ns") == 0
                                   ? "detected: the trace's displayTimeUnit \"ns\" (microsecond timestamps x 1000)"
                                   : "detected: the trace's displayTimeUnit \"ms\" (microsecond timestamps / 1000)";
    const ari_task_sink *ts = NULL;
    if (ari_trace_writer_set_time_unit_from(w, info.unit, source) != 0 || warn_slices(w, f, &info.stats) != 0 ||
        !(ts = ari_trace_writer_task_sink(w, err)) || ts->on_origin(ts->ctx, info.origin) != 0) {
        if (werr->code[0] && err)
            *err = *werr;
        return -1;
    }
    return 0;
}

static int import_hwloc(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    const ari_import_file *f = &files[g->files[0]];
    if (ari_trace_writer_file(w, f->path, f->name, "hwloc-topology", err) < 0)
        return -1;
    ari_datamove_writer *dw = ari_datamove_writer_begin(w, err);
    if (!dw)
        return -1;
    int rc = ari_trace_writer_set_time_unit(w, "us");
    if (rc == 0)
        rc = read_topology(dw, f, err);
    if (rc == 0)
        rc = ari_datamove_writer_finish(dw, err);
    ari_datamove_writer_free(dw);
    return rc;
}

/* Listed before chrome_trace (formats.c): it takes the generic traces and
 * leaves the others. Same format name: what was read is a Chrome trace;
 * the kind (and the source file role "chrome-slices") say how. */
const ari_format ari_format_chrome_slices = {"chrome_trace", "tasks", claim_slices, import_slices};
const ari_format ari_format_chrome_trace = {"chrome_trace", "datamove", claim_chrome, import_chrome};
const ari_format ari_format_hwloc_xml = {"hwloc_xml", "datamove", claim_hwloc, import_hwloc};
