/* archive.h: unpacking uploaded archives (tar, tar.gz, tar.zst, zip, 7z)
 * into a directory, safely: regular files only, no absolute paths, no "..",
 * no links, and a cap on the bytes written. */
#ifndef ARIADNE_ARCHIVE_H
#define ARIADNE_ARCHIVE_H

#include <stdint.h>

#include "util/error.h"

/* 1 if the file is an archive of several files (as opposed to a single,
 * possibly compressed, file), 0 if not, -1 if it cannot be read. */
int ari_archive_detect(const char *path, ari_error *err);
/* Extracts into dest_dir (which must exist). Fails with ARI_E_TOO_LARGE past
 * max_bytes of content, ARI_E_INVALID_INPUT on a corrupt archive. */
int ari_archive_extract(const char *path, const char *dest_dir, uint64_t max_bytes, ari_error *err);

#endif
