/* format_paje.c: the "paje" import format: any single Paje trace file
 * (SimGrid, poti, StarPU's paje.trace on its own, ...), recognised by its
 * %EventDef header. Old field names are accepted (as pj_dump -n) and links
 * left without an end are dropped (as pj_dump -z): an analyst wants the
 * trace loaded, not a lesson in Paje dialects. */
#include "import/format_paje.h"

#include "ingest/paje.h"
#include "store/trace_writer.h"

static int claim(ari_import_file *files, const size_t *idx, size_t n, ari_group *g)
{
    return ari_claim_single(files, idx, n, g, ari_paje_probe);
}

int ari_format_paje_read(ari_trace_writer *w, const ari_import_file *f, const char *role, ari_error *err)
{
    ari_paje_options opt = {.no_strict = 1, .ignore_incomplete_links = 1};
    if (ari_trace_writer_file(w, f->path, f->name, role, err) < 0)
        return -1;
    int rc = ari_paje_read(f->path, f->name, &opt, ari_trace_writer_sink(w), err);
    const ari_error *werr = ari_trace_writer_error(w);
    if (rc != 0 && werr->code[0] && err)
        *err = *werr; /* the store failed (or the import was cancelled) */
    return rc ? -1 : 0;
}

static int import(ari_trace_writer *w, ari_import_file *files, const ari_group *g, ari_error *err)
{
    return ari_format_paje_read(w, &files[g->files[0]], "paje", err);
}

const ari_format ari_format_paje = {"paje", "tasks", claim, import};
