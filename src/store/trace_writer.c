/* trace_writer.c: one trace being written during an import: its row in
 * `traces`, its source files, progress and cancellation, and the final
 * counts. The sink callbacks that store entities are in trace_sink.c.
 * Names (of the trace, of its files) are stored as valid UTF-8. */
#include "store/trace_writer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_text.h"
#include "util/alloc.h"
#include "util/sha256.h"
#include "util/utf8.h"

ari_trace_writer *ari_trace_writer_begin(ari_store *s, const char *name, const char *kind,
                                         const char *format, const char *time_unit,
                                         const ari_writer_progress *progress,
                                         uint64_t bytes_before, ari_error *err)
{
    ari_trace_writer *w = ari_zalloc(sizeof *w, err);
    if (!w)
        return NULL;
    w->store = s;
    w->progress = *progress;
    w->bytes_before = bytes_before;
    w->bytes_done = bytes_before;
    ari_arg args[] = {ari_arg_text(name), ari_arg_text(kind), ari_arg_text(format), ari_arg_text(time_unit)};
    if (ari_store_run(s, "INSERT INTO traces(name, kind, format, time_unit) VALUES (?1, ?2, ?3, ?4)", args,
                      ARI_NARGS(args), "insert trace", err) < 0) {
        free(w);
        return NULL;
    }
    w->id = ari_store_last_insert_id(s);
    if (ari_trace_sink_init(w, err) < 0) {
        ari_trace_writer_free(w);
        return NULL;
    }
    return w;
}

int64_t ari_trace_writer_id(const ari_trace_writer *w)
{
    return w->id;
}

const ari_error *ari_trace_writer_error(const ari_trace_writer *w)
{
    return &w->error;
}

uint64_t ari_trace_writer_bytes_done(const ari_trace_writer *w)
{
    return w->bytes_done;
}

void ari_trace_writer_report(ari_trace_writer *w, double file_fraction)
{
    if (file_fraction < 0)
        file_fraction = 0;
    if (file_fraction > 1)
        file_fraction = 1;
    w->bytes_done = w->file_base + (uint64_t)(file_fraction * (double)w->file_bytes);
    if (w->progress.fn && w->progress.total_bytes)
        w->progress.fn(w->progress.ctx, (double)w->bytes_done / (double)w->progress.total_bytes,
                       w->phase);
}

int ari_trace_writer_cancelled(ari_trace_writer *w)
{
    if (w->progress.cancel && *w->progress.cancel) {
        ari_error_set(&w->error, ARI_E_CANCELLED, "import cancelled");
        return 1;
    }
    return 0;
}

int ari_trace_writer_file(ari_trace_writer *w, const char *path, const char *name,
                          const char *role, ari_error *err)
{
    char digest[ARI_SHA256_HEX];
    uint64_t bytes = 0;
    if (ari_sha256_file(path, digest, &bytes) < 0)
        return ari_error_set(err, ARI_E_IO, "%s: cannot read", name);
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(name), ari_arg_int((int64_t)bytes),
                      ari_arg_text(digest), ari_arg_text(role ? role : "")};
    if (ari_store_run(w->store,
                      "INSERT INTO trace_files(trace_id, name, bytes, sha256, role)"
                      " VALUES (?1, ?2, ?3, ?4, ?5)",
                      args, ARI_NARGS(args), "insert trace file", err) < 0)
        return -1;
    w->file_base = w->bytes_done;
    w->file_bytes = bytes;
    w->total_file_bytes += bytes;
    char shown[sizeof w->phase - 8]; /* a job's phase is shown as JSON: valid, cut between characters */
    snprintf(w->phase, sizeof w->phase, "reading %s", ari_utf8_copy(shown, sizeof shown, name));
    ari_trace_writer_report(w, 0);
    return 0;
}

int ari_trace_writer_set_time_unit(ari_trace_writer *w, const char *unit)
{
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(unit)};
    return ari_store_run(w->store, "UPDATE traces SET time_unit = ?2 WHERE id = ?1", args, ARI_NARGS(args),
                         "set time unit", &w->error);
}

int ari_trace_writer_set_time_unit_from(ari_trace_writer *w, const char *unit, const char *source)
{
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(unit), ari_arg_text(source)};
    return ari_store_run(w->store, "UPDATE traces SET time_unit = ?2, time_unit_source = ?3 WHERE id = ?1",
                         args, ARI_NARGS(args), "set time unit", &w->error);
}

int ari_trace_writer_warn(ari_trace_writer *w, const char *code, const char *message)
{
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(code), ari_arg_text(message)};
    if (ari_store_run(w->store,
                      "UPDATE traces SET warnings_json = json_insert(warnings_json, '$[#]',"
                      " json_object('code', ?2, 'message', ?3)) WHERE id = ?1",
                      args, ARI_NARGS(args), "record a warning", &w->error) < 0)
        return -1;
    ari_sbuf_printf(&w->warnings, "%s (%s)\n", message, code);
    return 0;
}

const char *ari_trace_writer_warnings(const ari_trace_writer *w)
{
    return ari_sbuf_text(&w->warnings);
}

/* The trace's size and digest: its single file's digest, or for a bundle
 * the SHA-256 of its files' digests in sorted order. */
static int finish_files(ari_trace_writer *w, ari_error *err)
{
    ari_stmt *st = ari_store_stmt_id(w->store,
        "SELECT count(*), coalesce(sum(bytes), 0), coalesce(group_concat(sha256, ''), '')"
        " FROM (SELECT bytes, sha256 FROM trace_files WHERE trace_id = ?1 ORDER BY sha256)", w->id, err);
    if (!st || ari_store_step_row(w->store, st, "trace files", err) != 0)
        return -1;
    int64_t nfiles = ari_col_int64(st, 0), bytes = ari_col_int64(st, 1);
    const char *digests = (const char *)ari_col_text(st, 2);
    char digest[ARI_SHA256_HEX];
    if (nfiles == 1)
        snprintf(digest, sizeof digest, "%s", digests);
    else
        ari_sha256_hex(digests, strlen(digests), digest);
    ari_reset(st);
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_int(bytes), ari_arg_text(digest)};
    return ari_store_run(w->store, "UPDATE traces SET bytes = ?2, sha256 = ?3 WHERE id = ?1", args,
                         ARI_NARGS(args), "update trace", err);
}

int ari_trace_writer_finish(ari_trace_writer *w, const char *meta_json, ari_error *err)
{
    if (finish_files(w, err) < 0 || ari_trace_sink_finish(w, err) < 0)
        return -1;
    if (!meta_json)
        return 0;
    ari_arg args[] = {ari_arg_int(w->id), ari_arg_text(meta_json)};
    return ari_store_run(w->store, "UPDATE traces SET meta_json = json(?2) WHERE id = ?1", args,
                         ARI_NARGS(args), "update trace meta", err);
}

void ari_trace_writer_free(ari_trace_writer *w)
{
    if (!w)
        return;
    ari_trace_sink_free(w);
    ari_sbuf_free(&w->warnings);
    free(w);
}
