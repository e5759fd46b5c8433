/* upload.h: receiving POST /traces bodies. A multipart/form-data body is
 * split into its file parts (and the optional `name` and `ensemble` fields); any other body
 * is one file. Files stream into a fresh spool directory, never into
 * memory, and the total size is capped. The names that the client gave
 * (file names, the `name` field) are kept apart from the spool's file
 * names, as valid UTF-8: they name the traces and appear in errors. */
#ifndef ARIADNE_UPLOAD_H
#define ARIADNE_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "util/fs.h"

#define ARI_UPLOAD_MAX_FILES 64

struct ari_upload {
    char dir[PATH_MAX + 32];
    struct MHD_PostProcessor *pp;  /* NULL for a raw body */
    int fd;                        /* file being written, or -1 */
    char part_key[128];            /* the part being received */
    char part_file[256];
    char *names[ARI_UPLOAD_MAX_FILES];        /* the files in dir (sanitised) */
    char *client_names[ARI_UPLOAD_MAX_FILES]; /* as the client named them, valid UTF-8 */
    size_t nfiles;
    char trace_name[256];          /* the `name` field; valid UTF-8 once ended */
    char ensemble_name[256];       /* the `ensemble` field or query parameter: make the imported
                                      profiles an ensemble of that name; "" for none; valid UTF-8
                                      once ended */
    char time_unit[8];             /* the `time_unit` query parameter (checked), "" if none */
    int allow_duplicate;           /* the `allow_duplicate` query parameter (default false) */
    uint64_t bytes, max_bytes;
    int too_large;
    char error[256];               /* set when the body cannot be stored */
};

/* Creates the spool directory and prepares to receive. NULL with err set
 * on failure (e.g. a multipart type without a boundary). */
ari_upload *ari_upload_begin(ari_request *r, ari_error *err);
void ari_upload_feed(ari_upload *u, const char *data, size_t size);
/* Call once the body is complete. */
void ari_upload_end(ari_upload *u);
/* Frees the upload; removes its spool directory unless keep_files. */
void ari_upload_free(ari_upload *u, int keep_files);

/* Makes a fresh directory "<parent>/<prefix><pid>-XXXXXX" into out, named
 * after this process so that a later run can tell the leftover of a
 * killed one. Returns 0, or -1 with errno set. */
int ari_make_owned_dir(const char *parent, const char *prefix, char *out, size_t size);

/* Removes the directories "<parent>/<prefix><pid>-*" whose process no
 * longer exists (left by a run that was killed); returns how many. */
int ari_remove_orphans(const char *parent, const char *prefix);

/* Says whether the stale entry `name` of a spool is still in use: 1 keep
 * it, 0 remove it, -1 stop the sweep. */
typedef int (*ari_spool_in_use)(void *ctx, const char *name);

/* Removes the entries "<dir>/<prefix>*" last changed more than min_age_s
 * seconds ago that `in_use` (NULL: none is) does not claim, each with a
 * log line saying why (`why`). */
void ari_spool_sweep(const char *dir, const char *prefix, long min_age_s, ari_spool_in_use in_use, void *ctx,
                     const char *why);

#endif
