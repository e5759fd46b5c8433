/* archive.c: safe extraction of archives with libarchive, within the
 * import's unpacking budget (archive.h). Two passes: the headers first
 * (cheap, nothing written), to refuse an archive bomb before it costs any
 * disk, then the content, counting every byte written. */
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

#include "ingest/input.h"

static struct archive *open_archive(const char *path)
{
    struct archive *a = ari_libarchive_new(1);
    if (!a)
        return NULL;
    if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        archive_read_free(a);
        return NULL;
    }
    return a;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int ari_archive_detect(const char *path, ari_error *err)
{
    if (access(path, R_OK) != 0)
        return ari_error_set(err, ARI_E_IO, "%s: %s", base_name(path), ari_io_reason(errno));
    struct archive *a = open_archive(path);
    if (!a)
        return 0;
    struct archive_entry *entry;
    int is_archive = archive_read_next_header(a, &entry) == ARCHIVE_OK;
    archive_read_free(a);
    return is_archive;
}

/* "512 MiB" for messages. */
static void human_bytes(uint64_t n, char *out, size_t size)
{
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)n;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, size, u ? "%.4g %s" : "%.0f %s", v, units[u]);
}

int ari_archive_too_large(const ari_unpack_budget *budget, const char *name, ari_error *err)
{
    char limit[32];
    human_bytes(budget->max_bytes, limit, sizeof limit);
    return ari_error_set(err, ARI_E_TOO_LARGE,
                         "%s: archive unpacks to more than %llu bytes (limit %s for one import, "
                         "archives within archives included); raise --max-unpacked",
                         name, (unsigned long long)budget->max_bytes, limit);
}

int ari_archive_too_many(const ari_unpack_budget *budget, const char *name, ari_error *err)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT,
                         "%s: more than %llu files and directories in one import (the limit)",
                         name, (unsigned long long)budget->max_entries);
}

static int cancelled(const ari_unpack_budget *budget, ari_error *err)
{
    if (budget->cancel && *budget->cancel)
        return ari_error_set(err, ARI_E_CANCELLED, "import cancelled");
    return 0;
}

/* Accepts "dir/file" made of plain components, at most
 * ARI_ARCHIVE_MAX_PATH_DEPTH of them; refuses "", absolute paths, "." and
 * ".." components. */
static int safe_relative_path(const char *p)
{
    if (!p || !*p || p[0] == '/')
        return 0;
    const char *c = p;
    for (int depth = 1; *c; depth++) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.') ||
            depth > ARI_ARCHIVE_MAX_PATH_DEPTH)
            return 0;
        if (!slash)
            break;
        c = slash + 1;
    }
    return 1;
}

/* Pass 1: counts the entries and the bytes the archive declares, and
 * refuses it if they exceed what the budget has left. */
static int check_headers(const char *path, const char *name, const ari_unpack_budget *budget,
                         ari_error *err)
{
    struct archive *a = open_archive(path);
    if (!a)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cannot open as an archive", name);
    struct archive_entry *entry;
    uint64_t entries = 0, bytes = 0;
    int rc, result = 0;
    while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
        if (++entries + budget->entries > budget->max_entries) {
            result = ari_archive_too_many(budget, name, err);
            break;
        }
        if (archive_entry_filetype(entry) == AE_IFREG && archive_entry_size_is_set(entry)) {
            bytes += (uint64_t)archive_entry_size(entry);
            if (bytes > budget->bytes_left) {
                result = ari_archive_too_large(budget, name, err);
                break;
            }
        }
        if ((entries & 1023) == 0 && (result = cancelled(budget, err)) < 0)
            break;
    }
    if (result == 0 && rc != ARCHIVE_EOF)
        result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: corrupt archive: %s", name,
                               archive_error_string(a) ? archive_error_string(a) : "unreadable");
    archive_read_free(a);
    return result;
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

static int write_all(int fd, const char *buf, size_t size, off_t offset)
{
    while (size > 0) {
        ssize_t n = pwrite(fd, buf, size, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            return -1;
        }
        buf += n;
        size -= (size_t)n;
        offset += n;
    }
    return 0;
}

/* Pass 2, one regular file: its blocks, each charged to the budget before
 * it is written. */
static int write_entry(struct archive *a, const char *dest, const char *entry_name,
                       ari_unpack_budget *budget, const char *name, ari_error *err)
{
    int fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: %s appears twice in the archive", name,
                             entry_name);
    if (fd < 0)
        return ari_error_set(err, ARI_E_IO, "%s: cannot unpack %s: %s", name, entry_name,
                             ari_io_reason(errno));
    const void *buf;
    size_t size;
    la_int64_t offset;
    int rc, result = 0;
    while ((rc = archive_read_data_block(a, &buf, &size, &offset)) == ARCHIVE_OK) {
        if (size > budget->bytes_left) {
            result = ari_archive_too_large(budget, name, err);
            break;
        }
        budget->bytes_left -= size;
        if (write_all(fd, buf, size, (off_t)offset) < 0) {
            result = ari_error_set(err, ARI_E_IO, "%s: cannot unpack %s: %s", name, entry_name,
                                   ari_io_reason(errno));
            break;
        }
        if ((result = cancelled(budget, err)) < 0)
            break;
    }
    close(fd);
    if (result == 0 && rc != ARCHIVE_EOF)
        result = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: corrupt archive: %s", name,
                               archive_error_string(a) ? archive_error_string(a) : "unreadable");
    return result;
}

static int extract_entries(struct archive *a, const char *name, const char *dest_dir,
                           ari_unpack_budget *budget, ari_error *err)
{
    struct archive_entry *entry;
    int rc, files = 0;
    while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
        const char *entry_name = archive_entry_pathname(entry);
        if (archive_entry_filetype(entry) != AE_IFREG)
            continue; /* directories are made as needed; links are skipped */
        if (!safe_relative_path(entry_name))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: unsafe path in archive: %s", name,
                                 entry_name ? entry_name : "(none)");
        char dest[4096];
        if (snprintf(dest, sizeof dest, "%s/%s", dest_dir, entry_name) >= (int)sizeof dest)
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: path too long in archive: %.200s...",
                                 name, entry_name);
        if (make_parents(dest) < 0)
            return ari_error_set(err, ARI_E_IO, "%s: cannot unpack %s: %s", name, entry_name,
                                 ari_io_reason(errno));
        if (write_entry(a, dest, entry_name, budget, name, err) < 0)
            return -1;
        files++;
    }
    if (rc != ARCHIVE_EOF)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: corrupt archive: %s", name,
                             archive_error_string(a) ? archive_error_string(a) : "unreadable");
    if (files == 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: the archive holds no files", name);
    return 0;
}

int ari_archive_unpack(const char *path, const char *name, const char *dest_dir,
                       ari_unpack_budget *budget, ari_error *err)
{
    if (check_headers(path, name, budget, err) < 0)
        return -1;
    struct archive *a = open_archive(path);
    if (!a)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cannot open as an archive", name);
    int rc = extract_entries(a, name, dest_dir, budget, err);
    archive_read_free(a);
    return rc;
}

int ari_archive_extract(const char *path, const char *dest_dir, uint64_t max_bytes, ari_error *err)
{
    ari_unpack_budget budget = {max_bytes, max_bytes, 100000, 0, NULL};
    return ari_archive_unpack(path, base_name(path), dest_dir, &budget, err);
}
