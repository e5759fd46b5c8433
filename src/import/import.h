/* import.h: turning files on disk into traces in the store.
 *
 * An import takes files, directories and archives, unpacks archives, finds
 * which reader each file (or bundle of files) belongs to, and runs the
 * readers into the store inside ONE transaction: either every trace of the
 * import is stored, or nothing is. It is shared by `ariadned import` and the
 * server's import jobs.
 */
#ifndef ARIADNE_IMPORT_H
#define ARIADNE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

/* Limits that no upload can get around (see import.c). The default cap on
 * unpacked bytes is the server's: 8 x its default --max-upload of 2 GiB. */
#define ARI_IMPORT_DEFAULT_MAX_UNPACKED (16ULL << 30)
#define ARI_IMPORT_MAX_ENTRIES 100000 /* files and directories in one import */
#define ARI_IMPORT_MAX_NESTING 4      /* archives within archives */

typedef struct ari_import_input {
    const char *path; /* a file, directory or archive on disk */
    const char *name; /* the name its user knows (an upload's filename); NULL: path's basename */
} ari_import_input;

typedef struct ari_import_request {
    const ari_import_input *inputs;
    size_t ninputs;
    const char *trace_name;   /* NULL: derived from the inputs */
    int64_t job_id;           /* > 0: the job is marked succeeded in the same transaction */
    const char *work_dir;     /* an existing directory where the import makes (and always
                                 removes) its own scratch directory to unpack archives */
    uint64_t max_unpacked;    /* cap on the bytes unpacked from all the archives of the
                                 import, nested ones included; 0: no cap */
    uint64_t max_entries;     /* cap on its files and directories; 0: ARI_IMPORT_MAX_ENTRIES */
    void (*progress)(void *ctx, double fraction, const char *phase);
    void *progress_ctx;
    const volatile int *cancel; /* polled; non-zero aborts the import */
    const char *time_unit;      /* NULL, or one of ari_time_units: the unit of every task trace
                                 of the import, "set by the user" (a label: nothing is
                                 rescaled); an import with another kind of trace fails */
} ari_import_request;

/* The time units a task trace may be labelled with, NULL-terminated. */
extern const char *const ari_time_units[];
/* 1 if unit is one of them. */
int ari_time_unit_known(const char *unit);

typedef struct ari_imported {
    int64_t id;
    char name[256];
    char kind[16];
    char format[32];
    char *warnings; /* NULL, or "message (code)" lines: what the user should know (a cut
                       line...); freed by ari_import_result_free */
} ari_imported;

typedef struct ari_import_result {
    ari_imported *traces;
    size_t ntraces;
} ari_import_result;

int ari_import(ari_store *s, const ari_import_request *req, ari_import_result *res, ari_error *err);
void ari_import_result_free(ari_import_result *res);

/* The formats this build can read, e.g. "paje"; NULL-terminated. */
const char *const *ari_import_formats(void);

#endif
