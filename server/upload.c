/* upload.c: streaming request bodies to the spool directory, and the
 * directories of a process (spool uploads, `ariadned import`'s scratch)
 * that a later run removes if the process was killed. */
#include "upload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/stat.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "ingest/input.h"
#include "params.h"
#include "reply.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/utf8.h"

int ari_make_owned_dir(const char *parent, const char *prefix, char *out, size_t size)
{
    if (snprintf(out, size, "%s/%s%ld-XXXXXX", parent, prefix, (long)getpid()) >= (int)size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(out) ? 0 : -1;
}

/* The pid in "<prefix><pid>-XXXXXX", or 0. */
static pid_t owner_of(const char *name, const char *prefix)
{
    size_t len = strlen(prefix);
    if (strncmp(name, prefix, len) != 0)
        return 0;
    char *end;
    long pid = strtol(name + len, &end, 10);
    return end > name + len && *end == '-' && pid > 0 ? (pid_t)pid : 0;
}

int ari_remove_orphans(const char *parent, const char *prefix)
{
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = owner_of(e->d_name, prefix);
        if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* not ours, or its process lives */
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) {
            ari_remove_tree(path);
            removed++;
        }
    }
    closedir(d);
    return removed;
}

/* Keeps the last path component, with only [A-Za-z0-9._+,=-] and no
 * leading dot, so a name can never escape the spool directory. */
static void sanitise(const char *in, char *out, size_t size)
{
    const char *base = in;
    for (const char *p = in; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    size_t n = 0;
    for (const char *p = base; *p && n + 1 < size && n < 200; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 strchr("._+,=-", c);
        out[n++] = ok ? c : '_';
    }
    out[n] = '\0';
    while (out[0] == '.')
        memmove(out, out + 1, strlen(out));
    if (!out[0])
        snprintf(out, size, "upload");
}

static void fail(ari_upload *u, const char *fmt, const char *arg)
{
    if (!u->error[0])
        snprintf(u->error, sizeof u->error, fmt, arg);
}

static void close_part(ari_upload *u)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
}

/* Opens a new file for a part; a repeated name gets a "-2", "-3" suffix. */
static void open_part(ari_upload *u, const char *client_name)
{
    close_part(u);
    if (u->nfiles == ARI_UPLOAD_MAX_FILES) {
        fail(u, "too many files in one upload (at most %s)", "64");
        return;
    }
    char name[256], unique[300], path[PATH_MAX + 400];
    sanitise(client_name, name, sizeof name);
    snprintf(unique, sizeof unique, "%s", name);
    for (int k = 2; ; k++) {
        snprintf(path, sizeof path, "%s/%s", u->dir, unique);
        u->fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (u->fd >= 0 || errno != EEXIST || k > 1000)
            break;
        snprintf(unique, sizeof unique, "%s-%d", name, k);
    }
    if (u->fd < 0) {
        fail(u, "cannot store the upload: %s", ari_io_reason(errno));
        return;
    }
    char shown[256];
    ari_utf8_copy(shown, sizeof shown, client_name);
    u->names[u->nfiles] = strdup(unique);
    u->client_names[u->nfiles] = strdup(shown);
    u->nfiles++;
    if (!u->names[u->nfiles - 1] || !u->client_names[u->nfiles - 1])
        fail(u, "cannot store the upload: %s", "out of memory");
}

static void write_data(ari_upload *u, const char *data, size_t size)
{
    u->bytes += size;
    if (u->bytes > u->max_bytes) {
        u->too_large = 1;
        close_part(u);
    }
    if (u->too_large || u->error[0] || u->fd < 0 || size == 0)
        return;
    while (size > 0) {
        ssize_t n = write(u->fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail(u, "cannot store the upload: %s", ari_io_reason(errno));
            close_part(u);
            return;
        }
        data += n;
        size -= (size_t)n;
    }
}

/* Appends a chunk of a text field at offset off into buf (size bytes),
 * cutting what does not fit; the text stays NUL-terminated. */
static void field_append(char *buf, size_t bufsize, uint64_t off, const char *data, size_t size)
{
    size_t have = off < bufsize ? (size_t)off : bufsize - 1;
    size_t room = bufsize - 1 - have;
    size_t n = size < room ? size : room;
    memcpy(buf + have, data, n);
    buf[have + n] = '\0';
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *filename, const char *content_type,
                               const char *transfer_encoding, const char *data,
                               uint64_t off, size_t size)
{
    (void)kind;
    (void)content_type;
    (void)transfer_encoding;
    ari_upload *u = cls;
    if (!key)
        key = "";
    if (filename) {
        int new_part = off == 0 || strcmp(u->part_key, key) != 0 || strcmp(u->part_file, filename) != 0;
        if (new_part) {
            snprintf(u->part_key, sizeof u->part_key, "%s", key);
            snprintf(u->part_file, sizeof u->part_file, "%s", filename);
            if (!u->too_large)
                open_part(u, filename);
        }
        write_data(u, data, size);
    } else if (strcmp(key, "name") == 0) {
        field_append(u->trace_name, sizeof u->trace_name, off, data, size);
    } else if (strcmp(key, "ensemble") == 0) {
        field_append(u->ensemble_name, sizeof u->ensemble_name, off, data, size);
    }
    return MHD_YES;
}

static int is_multipart(const char *type)
{
    return type && strncasecmp(type, "multipart/form-data", 19) == 0;
}

ari_upload *ari_upload_begin(ari_request *r, ari_error *err)
{
    ari_upload *u = calloc(1, sizeof *u);
    if (!u) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    u->fd = -1;
    u->max_bytes = r->srv->cfg.max_upload;
    if (ari_make_owned_dir(r->srv->spool_dir, "upload-", u->dir, sizeof u->dir) < 0) {
        ari_error_set(err, ARI_E_IO, "cannot create a spool directory: %s", ari_io_reason(errno));
        free(u);
        return NULL;
    }
    const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Type");
    if (is_multipart(type)) {
        u->pp = MHD_create_post_processor(r->conn, 64 * 1024, on_part, u);
        if (!u->pp) {
            ari_error_set(err, "invalid_upload", "bad multipart/form-data body (missing boundary?)");
            ari_upload_free(u, 0);
            return NULL;
        }
    } else {
        const char *filename = ari_param(r, "filename");
        open_part(u, filename && *filename ? filename : "upload");
    }
    const char *name = ari_param(r, "name");
    if (name)
        snprintf(u->trace_name, sizeof u->trace_name, "%s", name);
    const char *ensemble = ari_param(r, "ensemble");
    if (ensemble)
        snprintf(u->ensemble_name, sizeof u->ensemble_name, "%s", ensemble);
    return u;
}

void ari_upload_feed(ari_upload *u, const char *data, size_t size)
{
    if (!u->pp) {
        write_data(u, data, size);
        return;
    }
    if (u->too_large || u->error[0]) {
        u->bytes += size; /* drain what the client still sends */
        return;
    }
    if (MHD_post_process(u->pp, data, size) != MHD_YES)
        fail(u, "%s", "bad multipart/form-data body");
}

void ari_upload_end(ari_upload *u)
{
    if (u->pp) {
        /* MHD_NO: the body ended inside a part (no closing boundary). */
        if (MHD_destroy_post_processor(u->pp) != MHD_YES && !u->too_large)
            fail(u, "%s", "the multipart/form-data body is truncated (no closing boundary)");
        u->pp = NULL;
    }
    close_part(u);
    char raw[sizeof u->trace_name]; /* as sent: maybe not UTF-8, maybe cut in a character */
    memcpy(raw, u->trace_name, sizeof raw);
    ari_utf8_copy(u->trace_name, sizeof u->trace_name, raw);
    memcpy(raw, u->ensemble_name, sizeof raw);
    ari_utf8_copy(u->ensemble_name, sizeof u->ensemble_name, raw);
}

void ari_upload_free(ari_upload *u, int keep_files)
{
    if (!u)
        return;
    ari_upload_end(u);
    if (!keep_files)
        ari_remove_tree(u->dir);
    for (size_t i = 0; i < u->nfiles; i++) {
        free(u->names[i]);
        free(u->client_names[i]);
    }
    free(u);
}

void ari_spool_sweep(const char *dir, const char *prefix, long min_age_s, ari_spool_in_use in_use, void *ctx,
                     const char *why)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[PATH_MAX + 300];
        struct stat st;
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || now - st.st_mtime <= min_age_s)
            continue;
        int used = in_use ? in_use(ctx, e->d_name) : 0;
        if (used < 0)
            break;
        if (!used) {
            ari_log(ARI_LOG_INFO, "removing %s: %s", path, why);
            ari_remove_tree(path);
        }
    }
    closedir(d);
}
