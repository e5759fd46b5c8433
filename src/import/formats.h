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
    /* Set by a claim whose group also takes the directory beside files[0]
     * named like it without its extension, and everything below it (an
     * OTF2 anchor traces.otf2 and its traces/): the driver adds those files
     * to the group (ari_group_add) and marks them claimed. */
    int companion_dir;
    /* Files past the 16 of files[] (ari_group_add); freed by the driver. */
    size_t *more;
    size_t nmore, cap_more;
} ari_group;

/* Adds the file of index i to the group (files[], then more). 0, or -1
 * when out of memory: a claim then returns -1 and the import fails. */
int ari_group_add(ari_group *g, size_t i);
/* The number of files of the group, and the k-th of them (files[] first). */
size_t ari_group_size(const ari_group *g);
size_t ari_group_file(const ari_group *g, size_t k);

struct ari_trace_writer;

typedef struct ari_format {
    const char *name; /* "paje" */
    const char *kind; /* "tasks" */
    /* Looks at the unclaimed files among files[idx[0..n)] (all from one
     * directory) and fills one group; returns 1 if it formed one, else 0
     * (-1: out of memory in ari_group_add). */
    int (*claim)(ari_import_file *files, const size_t *idx, size_t n, ari_group *g);
    /* Reads the group's files into the writer. */
    int (*import)(struct ari_trace_writer *w, ari_import_file *files, const ari_group *g,
                  ari_error *err);
} ari_format;

extern const ari_format *const ari_formats[]; /* NULL-terminated, bundles first */
/* The formats whose groups take a companion subdirectory (OTF2): offered
 * every directory of an import before any format is offered any, so that
 * no other format takes a file of that subdirectory first. They are in
 * ari_formats too. NULL-terminated. */
extern const ari_format *const ari_formats_first[];

/* For single-file formats: claims the first unclaimed, non-empty file whose
 * first ARI_PROBE_BYTES (decompressed, ari_input_head) `probe` accepts;
 * returns 1 if one was. */
#define ARI_PROBE_BYTES 8192
int ari_claim_single(ari_import_file *files, const size_t *idx, size_t n, ari_group *g,
                     int (*probe)(const char *head, size_t len));

#endif
