/* test_helpers.h: small helpers shared by the C unit tests: temporary
 * directories and files, and reading a count from the store. */
#ifndef ARIADNE_TEST_HELPERS_H
#define ARIADNE_TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upload.h"

/* A fresh directory under /tmp; remove it with ari_remove_tree. */
static inline char *test_tmpdir(void)
{
    char *dir = strdup("/tmp/ariadne-unit-XXXXXX");
    if (!dir || !mkdtemp(dir))
        abort();
    return dir;
}

/* Writes len bytes to dir/name; returns the malloc'd path. */
static inline char *test_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char *path;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        abort();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        abort();
    return path;
}

/* The directory holding this project's sources (CTest sets it). */
static inline const char *test_source_dir(void)
{
    const char *dir = getenv("ARIADNE_SOURCE_DIR");
    return dir ? dir : ".";
}

#endif
