/* formats.h: the registry of trace formats that imports recognise.
 *
 * Each format claims files among those of one directory (a bundle format
 * such as StarPU takes several; a single-file format takes one) and imports
 * a claimed group into a trace writer. Adding a format is adding one entry
 * to the table in formats.c and its reader file.
 */
#ifndef ARIADNE_FORMATS_H
#define ARIADNE_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct ari_import_file {
    char *path;     /* on disk */
    char *name;     /* as the user knows it, e.g. "run1/paje.trace" */
    char *dir;      /* grouping key: the directory it came from */
    uint64_t bytes;
    int claimed;
} ari_import_file;

typedef struct ari_group {
    const struct ari_format *format;
    size_t files[16];  /* indices into the import's file list */
    size_t nfiles;
    int name_from_first; /* name the trace after files[0], not its directory */
} ari_group;

struct ari_trace_writer;

typedef struct ari_format {
    const char *name; /* "paje" */
    const char *kind; /* "tasks" */
    /* Looks at the unclaimed files among files[idx[0..n)] (all from one
     * directory) and fills one group; returns 1 if it formed one, else 0. */
    int (*claim)(ari_import_file *files, const size_t *idx, size_t n, ari_group *g);
    /* Reads the group's files into the writer. */
    int (*import)(struct ari_trace_writer *w, ari_import_file *files, const ari_group *g,
                  ari_error *err);
} ari_format;

extern const ari_format *const ari_formats[]; /* NULL-terminated, bundles first */

/* For single-file formats: claims the first unclaimed, non-empty file whose
 * first ARI_PROBE_BYTES (decompressed, ari_input_head) `probe` accepts;
 * returns 1 if one was. */
#define ARI_PROBE_BYTES 8192
int ari_claim_single(ari_import_file *files, const size_t *idx, size_t n, ari_group *g,
                     int (*probe)(const char *head, size_t len));

#endif
