/* archive.h: unpacking uploaded archives (tar, tar.gz, tar.zst, zip, 7z)
 * into a directory, safely: regular files only, no absolute paths, no "..",
 * no links, paths at most ARI_ARCHIVE_MAX_PATH_DEPTH components deep, and
 * within a budget that one import shares across all its archives, nested
 * ones included: bytes written, and entries (files, directories, links). */
#ifndef ARIADNE_ARCHIVE_H
#define ARIADNE_ARCHIVE_H

#include <stdint.h>

#include "util/error.h"

#define ARI_ARCHIVE_MAX_PATH_DEPTH 32

typedef struct ari_unpack_budget {
    uint64_t max_bytes;    /* cap on the bytes unpacked by the import (UINT64_MAX: none) */
    uint64_t bytes_left;   /* decremented by every byte written */
    uint64_t max_entries;  /* cap on the files and directories of the import */
    uint64_t entries;      /* counted so far (by the import's walk, see import.c) */
    const volatile int *cancel; /* polled; non-zero aborts with ARI_E_CANCELLED */
} ari_unpack_budget;

/* 1 if the file is an archive of several files (as opposed to a single,
 * possibly compressed, file), 0 if not, -1 if it cannot be read (the
 * message names the file by its base name). */
int ari_archive_detect(const char *path, ari_error *err);

/* Extracts into dest_dir (which must exist), within the budget, which it
 * charges; `name` is what messages call the archive (the user's name for
 * it, never a server path). A first pass reads the headers only: an
 * archive that declares more entries than the budget has left, or more
 * bytes, is refused before anything is written. Fails with
 * ARI_E_TOO_LARGE past the budget's bytes, ARI_E_INVALID_INPUT for too many
 * entries or a corrupt or unsafe archive, ARI_E_CANCELLED, ARI_E_IO. */
int ari_archive_unpack(const char *path, const char *name, const char *dest_dir,
                       ari_unpack_budget *budget, ari_error *err);

/* ari_archive_unpack of one archive on its own: at most max_bytes and
 * 100,000 entries, named by its base name. */
int ari_archive_extract(const char *path, const char *dest_dir, uint64_t max_bytes, ari_error *err);

/* Sets err for a budget exceeded by `name`: ARI_E_TOO_LARGE for bytes. */
int ari_archive_too_large(const ari_unpack_budget *budget, const char *name, ari_error *err);
/* ARI_E_INVALID_INPUT for entries. */
int ari_archive_too_many(const ari_unpack_budget *budget, const char *name, ari_error *err);

#endif
