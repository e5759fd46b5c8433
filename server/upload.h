/* upload.h: receiving POST /traces bodies. A multipart/form-data body is
 * split into its file parts (and the optional `name` field); any other body
 * is one file. Files stream into a fresh spool directory, never into
 * memory, and the total size is capped. */
#ifndef ARIADNE_UPLOAD_H
#define ARIADNE_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

#define ARI_UPLOAD_MAX_FILES 64

struct ari_upload {
    char dir[PATH_MAX + 32];
    struct MHD_PostProcessor *pp;  /* NULL for a raw body */
    int fd;                        /* file being written, or -1 */
    char part_key[128];            /* the part being received */
    char part_file[256];
    char *names[ARI_UPLOAD_MAX_FILES]; /* as sent by the client (sanitised) */
    size_t nfiles;
    char trace_name[256];
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
/* rm -rf of a spool directory. */
void ari_remove_tree(const char *path);

#endif
