/* format_paje.c: the "paje" import format: any single Paje trace file
 * (SimGrid, poti, StarPU's paje.trace on its own, ...), recognised by its
 * %EventDef header. Old field names are accepted (as pj_dump -n) and links
 * left without an end are dropped (as pj_dump -z): an analyst wants the
 * trace loaded, not a lesson in Paje dialects. A file cut in its last line
 * is loaded without that line, with a warning. The time unit of a single
 * file is decided by src/ingest/paje_dialect.h (StarPU: ms, else s) and
 * stored with how it was decided. */
#include "import/format_paje.h"

#include <stdio.h>
#include <string.h>

#include "ingest/paje.h"
#include "ingest/paje_dialect.h"
#include "store/trace_writer.h"

/* ---- a sink that notes the type names for the dialect, then forwards ---- */

typedef struct watch {
    const ari_sink *inner;
    ari_paje_dialect dialect;
} watch;

static int w_type(void *ctx, const ari_type_def *t)
{
    watch *w = ctx;
    ari_paje_dialect_type(&w->dialect, t);
    return w->inner->on_type ? w->inner->on_type(w->inner->ctx, t) : 0;
}

static int w_container(void *ctx, const ari_container *x)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_container ? in->on_container(in->ctx, x) : 0;
}

static int w_state(void *ctx, const ari_state *x)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_state ? in->on_state(in->ctx, x) : 0;
}

static int w_variable(void *ctx, const ari_variable *x)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_variable ? in->on_variable(in->ctx, x) : 0;
}

static int w_link(void *ctx, const ari_link *x)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_link ? in->on_link(in->ctx, x) : 0;
}

static int w_event(void *ctx, const ari_event *x)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_event ? in->on_event(in->ctx, x) : 0;
}

static int w_container_end(void *ctx, const char *alias, double end)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    return in->on_container_end ? in->on_container_end(in->ctx, alias, end) : 0;
}

static void w_progress(void *ctx, double done, double total)
{
    const ari_sink *in = ((watch *)ctx)->inner;
    if (in->on_progress)
        in->on_progress(in->ctx, done, total);
}

static ari_sink watching(watch *w)
{
    return (ari_sink){w,          w_type, w_container, w_container_end, w_state,
                      w_variable, w_link, w_event,     w_progress};
}

/* ---- reading ---- */

static int claim(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, ari_paje_probe);
}

/* The read's report as trace warnings. */
static int warn_report(ari_trace_writer *w, const ari_import_file *f, const ari_paje_report *rep)
{
    char msg[1400], where[300];
    if (rep->cut_line) {
        const char *why = rep->cut_reason; /* "name:line: reason": the reason alone */
        snprintf(where, sizeof where, "%s:%llu: ", f->name, rep->cut_line);
        if (strncmp(why, where, strlen(where)) == 0)
            why += strlen(where);
        snprintf(msg, sizeof msg,
                 "%s: line %llu is cut (the file ends in the middle of it) and was ignored: %s", f->name,
                 rep->cut_line, why);
        return ari_trace_writer_warn(w, "truncated_line", msg);
    }
    if (rep->unterminated_line) {
        snprintf(msg, sizeof msg,
                 "%s: the file does not end with a newline: its last line (%llu) was read, but "
                 "it may be cut",
                 f->name, rep->unterminated_line);
        return ari_trace_writer_warn(w, "unterminated_line", msg);
    }
    return 0;
}

static int read_into(ari_trace_writer *w, const ari_import_file *f, const char *role, watch *wt,
                     ari_paje_report *rep, ari_error *err)
{
    ari_paje_options opt = {.no_strict = 1, .ignore_incomplete_links = 1, .report = rep};
    if (ari_trace_writer_file(w, f->path, f->name, role, err) < 0)
        return -1;
    ari_sink proxy;
    if (wt) {
        wt->inner = ari_trace_writer_sink(w);
        proxy = watching(wt);
    }
    int rc = ari_paje_read(f->path, f->name, &opt, wt ? &proxy : ari_trace_writer_sink(w), err);
    const ari_error *werr = ari_trace_writer_error(w);
    if (rc != 0 && werr->code[0] && err)
        *err = *werr; /* the store failed (or the import was cancelled) */
    if (rc == 0 && warn_report(w, f, rep) < 0) {
        if (err)
            *err = *ari_trace_writer_error(w);
        rc = -1;
    }
    return rc ? -1 : 0;
}

int ari_format_paje_read(ari_trace_writer *w, const ari_import_file *f, const char *role, ari_error *err)
{
    ari_paje_report rep;
    return read_into(w, f, role, NULL, &rep, err);
}

static int import(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    watch wt = {0};
    ari_paje_report rep;
    if (read_into(w, &files[g->files[0]], "paje", &wt, &rep, err) < 0)
        return -1;
    const char *source;
    const char *unit = ari_paje_dialect_unit(&wt.dialect, rep.first_comment, &source);
    if (ari_trace_writer_set_time_unit_from(w, unit, source) < 0) {
        *err = *ari_trace_writer_error(w);
        return -1;
    }
    return 0;
}

const ari_format ari_format_paje = {"paje", "tasks", claim, import};
