/* input.c: streaming line reader over plain or compressed files.
 *
 * libarchive does the decompression: every filter is enabled and the "raw"
 * format hands the decoded bytes through unchanged ("empty" covers a file
 * of zero bytes, which "raw" refuses). Decoded bytes land in one buffer of
 * max_line + CHUNK bytes; lines are cut in place, and the unread tail is
 * moved to the front before each refill. A compressed stream that stops
 * early is reported as such ("x.gz: truncated gzip stream"), a full disk
 * as a full disk.
 */
#include "ingest/input.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/free_all.h"
#include "util/vec.h"

#define CHUNK ((size_t)256 * 1024)

struct ari_input {
    struct archive *a;
    char *name;
    char *buf;
    size_t cap;        /* bytes allocated in buf */
    size_t pos;        /* start of the unread data */
    size_t scan;       /* where the search for '\n' resumes (>= pos) */
    size_t end;        /* end of the valid data */
    uint64_t base;     /* decompressed offset of buf[0] */
    uint64_t line_off; /* decompressed offset of the last line returned */
    uint64_t lineno;
    uint64_t total;
    size_t max_line;
    FILE *tee;
    int eof;
    int failed;
    int compressed;
    const char *kind;  /* compression the file's first bytes announce, or NULL */
};

static int fail(ari_input *in, ari_error *err, const char *code, const char *fmt, const char *what)
{
    in->failed = 1;
    return ari_error_set(err, code, fmt, in->name, (unsigned long long)in->lineno + 1, what);
}

static uint64_t max_decoded; /* 0: no cap; set before any reader runs */

void ari_input_set_max_decoded(uint64_t bytes)
{
    max_decoded = bytes;
}

int ari_input_check_decoded(void *archive, const char *name, ari_error *err)
{
    struct archive *a = archive;
    la_int64_t decoded = archive_filter_bytes(a, 0), raw = archive_filter_bytes(a, -1);
    if (!max_decoded || decoded <= raw || (uint64_t)decoded <= max_decoded)
        return 0;
    return ari_error_set(err, ARI_E_TOO_LARGE, "%s: decompresses to more than %llu bytes; raise --max-unpacked",
                         name, (unsigned long long)max_decoded);
}

const char *ari_io_reason(int errnum)
{
    if (errnum == ENOSPC || errnum == EDQUOT)
        return "the server's disk is full";
    return strerror(errnum);
}

/* libarchive's words for a compressed stream that stops early: "truncated
 * gzip input", "Truncated zstd input", "truncated bzip2 input", xz's "No
 * progress is possible", and no message at all for a gzip stream that
 * lacks its trailer. */
static int is_truncation(const char *msg)
{
    return !msg || strcasestr(msg, "truncated") || strstr(msg, "No progress is possible") ||
           strstr(msg, "Premature end");
}

/* The first bytes of the well-known compressed formats. */
static const char *compression_of(const unsigned char *head, size_t n)
{
    if (n >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8)
        return "gzip";
    if (n >= 4 && memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0)
        return "zstd";
    if (n >= 4 && memcmp(head, "\xfd" "7zXZ\0", n < 6 ? n : 6) == 0)
        return "xz";
    if (n >= 4 && memcmp(head, "BZh", 3) == 0 && head[3] >= '1' && head[3] <= '9')
        return "bzip2";
    return NULL;
}

/* Sets err for a decoding failure of in: a truncated stream, or other
 * corrupt data. `where` is "" or " after line N". */
static int decode_error(const ari_input *in, const char *where, ari_error *err)
{
    const char *msg = archive_error_string(in->a), *name = in->name;
    const char *filter = archive_filter_count(in->a) > 1 ? archive_filter_name(in->a, 0) : in->kind;
    if (filter && is_truncation(msg))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: truncated %s stream%s", name, filter, where);
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cannot decode%s: %s", name, where,
                         msg ? msg : "corrupt data");
}

/* The compression that the file's first bytes announce, or NULL. */
static const char *announced_compression(const char *path)
{
    unsigned char head[8];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, head, sizeof head) : -1;
    if (fd >= 0)
        close(fd);
    return n > 0 ? compression_of(head, (size_t)n) : NULL;
}

void *ari_libarchive_new(int as_archive)
{
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    archive_read_support_filter_all(a);
    if (as_archive) {
        archive_read_support_format_tar(a);
        archive_read_support_format_gnutar(a);
        archive_read_support_format_zip(a);
        archive_read_support_format_7zip(a);
    } else {
        archive_read_support_format_raw(a);
        archive_read_support_format_empty(a);
    }
    return a;
}

/* Opens path, or fd when path is NULL. */
static ari_input *open_input(const char *path, int fd, const char *display_name, ari_error *err)
{
    struct stat st;
    if ((path ? stat(path, &st) : fstat(fd, &st)) != 0) {
        ari_error_set(err, ARI_E_IO, "%s: %s", display_name, ari_io_reason(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        ari_error_set(err, ARI_E_IO, "%s: not a regular file", display_name);
        return NULL;
    }
    ari_input *in = calloc(1, sizeof *in);
    if (!in || !(in->name = strdup(display_name))) {
        free(in);
        ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", display_name);
        return NULL;
    }
    in->total = (uint64_t)st.st_size;
    in->kind = path ? announced_compression(path) : NULL;
    in->max_line = ARI_INPUT_MAX_LINE;
    in->a = ari_libarchive_new(0);
    if (!in->a) {
        ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", display_name);
        ari_input_close(in);
        return NULL;
    }
    int r = path ? archive_read_open_filename(in->a, path, 65536)
                 : archive_read_open_fd(in->a, fd, 65536);
    if (r != ARCHIVE_OK) {
        /* A system errno is an I/O problem; anything else is bad content
         * (e.g. "truncated gzip input", found while sniffing the filter). */
        int e = archive_errno(in->a);
        int bad = e == 0 || e == -1 || e == EILSEQ; /* libarchive: MISC, FILE_FORMAT */
        if (bad)
            decode_error(in, "", err);
        else
            ari_error_set(err, ARI_E_IO, "%s: %s", display_name, ari_io_reason(e));
        ari_input_close(in);
        return NULL;
    }
    struct archive_entry *entry;
    r = archive_read_next_header(in->a, &entry);
    if (r == ARCHIVE_EOF) {
        in->eof = 1; /* empty file */
    } else if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        decode_error(in, "", err);
        ari_input_close(in);
        return NULL;
    }
    in->compressed = archive_filter_count(in->a) > 1 &&
                     archive_filter_code(in->a, 0) != ARCHIVE_FILTER_NONE;
    if (!in->compressed && in->kind) { /* read as plain: too short to decode */
        ari_error_set(err, ARI_E_INVALID_INPUT, "%s: truncated %s stream", display_name, in->kind);
        ari_input_close(in);
        return NULL;
    }
    return in;
}

ari_input *ari_input_open(const char *path, const char *display_name, ari_error *err)
{
    return open_input(path, -1, display_name ? display_name : path, err);
}

ari_input *ari_input_open_fd(int fd, const char *display_name, ari_error *err)
{
    return open_input(NULL, fd, display_name ? display_name : "(input)", err);
}

void ari_input_set_max_line(ari_input *in, size_t max_line)
{
    if (in && !in->buf && max_line > 0)
        in->max_line = max_line;
}

void ari_input_set_tee(ari_input *in, FILE *f)
{
    in->tee = f;
}

/* Moves the unread data to the front and reads one more chunk. Returns the
 * number of bytes added (0 at the end of the input) or -1 on error. */
static long refill(ari_input *in, ari_error *err)
{
    if (!in->buf) {
        in->cap = in->max_line + CHUNK + 2;
        in->buf = malloc(in->cap);
        if (!in->buf)
            return fail(in, err, ARI_E_NOMEM, "%s:%llu: %s", "out of memory");
    }
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->end - in->pos);
        in->base += in->pos;
        in->end -= in->pos;
        in->scan -= in->pos;
        in->pos = 0;
    }
    la_ssize_t n = archive_read_data(in->a, in->buf + in->end, in->cap - 1 - in->end);
    if (n < 0) {
        char where[48];
        snprintf(where, sizeof where, " after line %llu", (unsigned long long)in->lineno);
        in->failed = 1;
        return decode_error(in, where, err);
    }
    if (n == 0) {
        in->eof = 1;
        return 0;
    }
    if (ari_input_check_decoded(in->a, in->name, err) < 0) {
        in->failed = 1;
        return -1;
    }
    if (in->tee && fwrite(in->buf + in->end, 1, (size_t)n, in->tee) != (size_t)n)
        return fail(in, err, ARI_E_IO, "%s:%llu: cannot write a temporary copy: %s",
                    ari_io_reason(errno));
    in->end += (size_t)n;
    return (long)n;
}

/* Cuts the line buf[pos..stop) out, NUL-terminates it and checks it. */
static char *take_line(ari_input *in, size_t stop, size_t next, size_t *len, ari_error *err)
{
    char *line = in->buf + in->pos;
    size_t n = stop - in->pos;
    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (n > in->max_line) {
        char what[64];
        snprintf(what, sizeof what, "line longer than %zu bytes", in->max_line);
        fail(in, err, ARI_E_INVALID_INPUT, "%s:%llu: %s", what);
        return NULL;
    }
    if (memchr(line, '\0', n)) {
        fail(in, err, ARI_E_INVALID_INPUT, "%s:%llu: %s",
             "binary data (NUL byte) in a text file");
        return NULL;
    }
    line[n] = '\0';
    in->line_off = in->base + in->pos;
    in->lineno++;
    in->pos = next;
    in->scan = next;
    if (len)
        *len = n;
    return line;
}

char *ari_input_getline(ari_input *in, size_t *len, ari_error *err)
{
    if (len)
        *len = 0;
    if (!in || in->failed)
        return NULL;
    for (;;) {
        if (in->buf && in->scan < in->end) {
            char *nl = memchr(in->buf + in->scan, '\n', in->end - in->scan);
            if (nl) {
                size_t stop = (size_t)(nl - in->buf);
                return take_line(in, stop, stop + 1, len, err);
            }
            in->scan = in->end;
        }
        if (in->buf && in->end - in->pos > in->max_line + 1) {
            char what[64];
            snprintf(what, sizeof what, "line longer than %zu bytes", in->max_line);
            fail(in, err, ARI_E_INVALID_INPUT, "%s:%llu: %s", what);
            return NULL;
        }
        if (in->eof) {
            if (in->buf && in->pos < in->end)
                return take_line(in, in->end, in->end, len, err);
            return NULL;
        }
        if (refill(in, err) < 0)
            return NULL;
    }
}

int ari_input_failed(const ari_input *in)
{
    return in ? in->failed : 1;
}

uint64_t ari_input_lineno(const ari_input *in)
{
    return in->lineno;
}

uint64_t ari_input_line_offset(const ari_input *in)
{
    return in->line_off;
}

uint64_t ari_input_bytes_read(const ari_input *in)
{
    la_int64_t n = archive_filter_bytes(in->a, -1);
    return n > 0 ? (uint64_t)n : 0;
}

uint64_t ari_input_total_bytes(const ari_input *in)
{
    return in->total;
}

int ari_input_is_compressed(const ari_input *in)
{
    return in->compressed;
}

const char *ari_input_name(const ari_input *in)
{
    return in->name;
}

int ari_input_check_head(const char *path, const char *name, size_t bytes, ari_error *err)
{
    ari_error e = {0};
    ari_input *in = ari_input_open(path, name, &e);
    int rc = in || strcmp(e.code, ARI_E_INVALID_INPUT) != 0 ? 0 : -1;
    char buf[4096];
    for (size_t got = 0; in && got < bytes && !in->eof;) {
        la_ssize_t n = archive_read_data(in->a, buf, sizeof buf);
        if (n < 0)
            rc = decode_error(in, "", &e);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    ari_input_close(in);
    if (rc < 0 && err)
        *err = e;
    return rc;
}

long ari_input_read(ari_input *in, char *buf, size_t n, ari_error *err)
{
    if (!in || in->failed)
        return ari_error_set(err, ARI_E_IO, "%s: read after an error", in ? in->name : "(input)");
    if (in->buf && in->pos < in->end) { /* what a getline left over */
        size_t k = in->end - in->pos < n ? in->end - in->pos : n;
        memcpy(buf, in->buf + in->pos, k);
        in->pos += k;
        if (in->scan < in->pos)
            in->scan = in->pos;
        return (long)k;
    }
    if (in->eof || n == 0)
        return 0;
    la_ssize_t got = archive_read_data(in->a, buf, n);
    if (got < 0) {
        in->failed = 1;
        return decode_error(in, "", err);
    }
    if (got == 0) {
        in->eof = 1;
        return 0;
    }
    if (ari_input_check_decoded(in->a, in->name, err) < 0) {
        in->failed = 1;
        return -1;
    }
    if (in->tee && fwrite(buf, 1, (size_t)got, in->tee) != (size_t)got) {
        in->failed = 1;
        return ari_error_set(err, ARI_E_IO, "%s: cannot write a temporary copy: %s", in->name,
                             ari_io_reason(errno));
    }
    return (long)got;
}

int ari_input_read_all(ari_input *in, size_t max, char **data, size_t *len, ari_error *err)
{
    char *p = NULL;
    size_t n = 0, cap = 0;
    long got = 0;
    *data = NULL;
    *len = 0;
    do {
        if (ari_vec_reserve((void **)&p, &cap, n + CHUNK + 1, 1) < 0) {
            free(p);
            return ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", ari_input_name(in));
        }
        got = ari_input_read(in, p + n, cap - 1 - n, err);
        n += got > 0 ? (size_t)got : 0;
        if (max && n > max)
            got = ari_error_set(err, ARI_E_TOO_LARGE, "%s: larger than %zu bytes", ari_input_name(in), max);
    } while (got > 0);
    if (got < 0) {
        free(p);
        return -1;
    }
    p[n] = '\0';
    *data = p;
    *len = n;
    return 0;
}

int ari_input_load(const char *path, const char *display_name, char **data, size_t *len, ari_error *err)
{
    *data = NULL;
    *len = 0;
    ari_input *in = ari_input_open(path, display_name, err);
    if (!in)
        return -1;
    int rc = ari_input_read_all(in, 0, data, len, err);
    ari_input_close(in);
    return rc;
}

long ari_input_head(const char *path, char *buf, size_t n)
{
    ari_error e = {0};
    ari_input *in = ari_input_open(path, NULL, &e);
    if (!in)
        return -1;
    long got = 0, r = 1;
    while ((size_t)got < n && (r = ari_input_read(in, buf + got, n - (size_t)got, &e)) > 0)
        got += r;
    ari_input_close(in);
    return got > 0 ? got : r < 0 ? -1 : 0;
}

void ari_input_close(ari_input *in)
{
    if (!in)
        return;
    if (in->a)
        archive_read_free(in->a);
    void *owned[] = {in->buf, in->name, in};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}
