/* fuzz_files.h: what the fuzz targets over files on disk share. Readers
 * that take a path (or a set of files, like HPCToolkit's experiment.xml
 * with its metric-db files or StarVZ's CSVs) get each input written into a
 * private temporary directory, which is emptied after every input.
 *
 * An input for a set of files is split on FUZZ_FILE_MARK: the n-th part
 * becomes the n-th file of the target's list. Seeds are made by joining
 * real files with the mark (see README.md).
 */
#ifndef ARIADNE_FUZZ_FILES_H
#define ARIADNE_FUZZ_FILES_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_FILE_MARK "\n--ariadne-fuzz-file--\n"
#define FUZZ_MAX_FILES 16

typedef struct fuzz_part {
    const uint8_t *data;
    size_t size;
} fuzz_part;

/* The private directory of this process, created on first use. */
static inline const char *fuzz_dir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/ariadne-fuzz-files-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

/* Splits data on FUZZ_FILE_MARK into at most max parts; returns the count. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, fuzz_part *parts, size_t max)
{
    size_t mark = strlen(FUZZ_FILE_MARK), n = 0;
    const uint8_t *p = data, *end = data + size;
    while (n < max) {
        const uint8_t *m = memmem(p, (size_t)(end - p), FUZZ_FILE_MARK, mark);
        if (!m || n + 1 == max) {
            parts[n++] = (fuzz_part){p, (size_t)(end - p)};
            break;
        }
        parts[n++] = (fuzz_part){p, (size_t)(m - p)};
        p = m + mark;
    }
    return n;
}

/* Writes bytes to dir/name (name may hold one level of subdirectory);
 * fills path. Returns 0, or -1 if the file cannot be written. */
static inline int fuzz_write(const char *name, const uint8_t *data, size_t size, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
    char *slash = strrchr(path, '/');
    if (slash > path + strlen(fuzz_dir())) {
        *slash = '\0';
        mkdir(path, 0700);
        *slash = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && put == size ? 0 : -1;
}

/* Removes everything under dir (not dir itself), recursively. */
static inline void fuzz_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            fuzz_empty(path);
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
}

#endif
