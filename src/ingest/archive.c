/* archive.c: safe extraction of archives with libarchive. */
#include "ingest/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct archive *open_archive(const char *path)
{
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_format_zip(a);
    archive_read_support_format_7zip(a);
    if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        archive_read_free(a);
        return NULL;
    }
    return a;
}

int ari_archive_detect(const char *path, ari_error *err)
{
    if (access(path, R_OK) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: %s", path, strerror(errno));
    struct archive *a = open_archive(path);
    if (!a)
        return 0;
    struct archive_entry *entry;
    int is_archive = archive_read_next_header(a, &entry) == ARCHIVE_OK;
    archive_read_free(a);
    return is_archive;
}

/* Accepts "dir/file" made of plain components; refuses "", absolute paths,
 * "." and ".." components. */
static int safe_relative_path(const char *p)
{
    if (!p || !*p || p[0] == '/')
        return 0;
    const char *c = p;
    while (*c) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!slash)
            break;
        c = slash + 1;
    }
    return 1;
}

static int make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

static int write_entry(struct archive *a, const char *dest, uint64_t *written,
                       uint64_t max_bytes, const char *arname, ari_error *err)
{
    int fd = open(dest, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return ari_error_set(err, ARI_E_IO, "%s: cannot create %s: %s", arname, dest, strerror(errno));
    const void *buf;
    size_t size;
    la_int64_t offset;
    int rc;
    while ((rc = archive_read_data_block(a, &buf, &size, &offset)) == ARCHIVE_OK) {
        *written += size;
        if (*written > max_bytes) {
            close(fd);
            return ari_error_set(err, ARI_E_TOO_LARGE, "%s: unpacked content exceeds %llu bytes",
                                 arname, (unsigned long long)max_bytes);
        }
        if (pwrite(fd, buf, size, offset) != (ssize_t)size) {
            close(fd);
            return ari_error_set(err, ARI_E_IO, "%s: write failed: %s", arname, strerror(errno));
        }
    }
    close(fd);
    if (rc != ARCHIVE_EOF)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: corrupt archive: %s", arname,
                             archive_error_string(a));
    return 0;
}

int ari_archive_extract(const char *path, const char *dest_dir, uint64_t max_bytes, ari_error *err)
{
    const char *arname = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    struct archive *a = open_archive(path);
    if (!a)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cannot open as an archive", arname);
    struct archive_entry *entry;
    uint64_t written = 0;
    int rc, result = 0, files = 0;
    while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
        const char *name = archive_entry_pathname(entry);
        if (archive_entry_filetype(entry) != AE_IFREG)
            continue; /* directories are made as needed; links are skipped */
        if (!safe_relative_path(name)) {
            result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: unsafe path in archive: %s",
                                   arname, name ? name : "(none)");
            break;
        }
        char dest[4096];
        if (snprintf(dest, sizeof dest, "%s/%s", dest_dir, name) >= (int)sizeof dest || make_parents(dest) < 0) {
            result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: bad path in archive: %s", arname, name);
            break;
        }
        if ((result = write_entry(a, dest, &written, max_bytes, arname, err)) < 0)
            break;
        files++;
    }
    if (result == 0 && rc != ARCHIVE_EOF)
        result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: corrupt archive: %s", arname,
                               archive_error_string(a));
    if (result == 0 && files == 0)
        result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: the archive holds no files", arname);
    archive_read_free(a);
    return result;
}
