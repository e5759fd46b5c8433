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
    int allow_duplicate;        /* 0: a trace whose files are identical (same SHA-256) to a
                                 stored trace's fails the import ("duplicate_trace");
                                 1: it is imported anyway (and still listed) */
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

/* A file that no format took: the import goes on without it. */
typedef struct ari_skipped {
    char name[512];   /* as the user knows it, e.g. "run1/starpu.log" */
    char reason[256]; /* "no reader recognises this file", "empty file", ... */
} ari_skipped;

/* A trace of the import whose files are identical to a stored trace's. */
typedef struct ari_duplicate {
    int64_t trace_id; /* the stored trace */
    char name[256];   /* its name */
    char upload[256]; /* the name the new trace has (or would have had) */
} ari_duplicate;

#define ARI_IMPORT_MAX_LISTED 64 /* skipped files listed; the others are only counted */
#define ARI_IMPORT_MAX_DUPLICATES 16

typedef struct ari_import_result {
    ari_imported *traces;
    size_t ntraces;
    /* Kept when the import fails too, to tell the user; no allocation. */
    ari_skipped skipped[ARI_IMPORT_MAX_LISTED];
    size_t nskipped;     /* listed in skipped[] */
    size_t skipped_more; /* skipped but not listed */
    ari_duplicate duplicates[ARI_IMPORT_MAX_DUPLICATES];
    size_t nduplicates;
} ari_import_result;

/* Imports what the formats recognise; a file none takes is skipped (listed
 * in res->skipped), and the import fails only when no file is recognised.
 * Fails with "duplicate_trace" (res->duplicates says which) when a trace's
 * files are identical to a stored trace's, unless req->allow_duplicate.
 * On failure res->traces is empty (and freed); the lists stay. */
int ari_import(ari_store *s, const ari_import_request *req, ari_import_result *res, ari_error *err);
void ari_import_result_free(ari_import_result *res);

#define ARI_E_DUPLICATE "duplicate_trace"

/* Records res's skipped files and duplicates in job job_id (sql/011). */
int ari_import_record_outcome(ari_store *s, int64_t job_id, const ari_import_result *res,
                              ari_error *err);

/* The formats this build can read, e.g. "paje"; NULL-terminated. */
const char *const *ari_import_formats(void);

#endif
