/* input.c: streaming line reader over plain or compressed files.
 *
 * libarchive does the decompression: every filter is enabled and the "raw"
 * format hands the decoded bytes through unchanged ("empty" covers a file
 * of zero bytes, which "raw" refuses). Decoded bytes land in one buffer of
 * max_line + CHUNK bytes; lines are cut in place, and the unread tail is
 * moved to the front before each refill.
 */
#include "ingest/input.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
};

static int fail(ari_input *in, ari_error *err, const char *code, const char *fmt, const char *what)
{
    in->failed = 1;
    return ari_error_set(err, code, fmt, in->name, (unsigned long long)in->lineno + 1, what);
}

/* Opens path, or fd when path is NULL. */
static ari_input *open_input(const char *path, int fd, const char *display_name, ari_error *err)
{
    struct stat st;
    if ((path ? stat(path, &st) : fstat(fd, &st)) != 0) {
        ari_error_set(err, ARI_E_IO, "%s: %s", display_name, strerror(errno));
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
    in->max_line = ARI_INPUT_MAX_LINE;
    in->a = archive_read_new();
    if (!in->a) {
        ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", display_name);
        ari_input_close(in);
        return NULL;
    }
    archive_read_support_filter_all(in->a);
    archive_read_support_format_raw(in->a);
    archive_read_support_format_empty(in->a);
    int r = path ? archive_read_open_filename(in->a, path, 65536)
                 : archive_read_open_fd(in->a, fd, 65536);
    if (r != ARCHIVE_OK) {
        /* A system errno is an I/O problem; anything else is bad content
         * (e.g. "truncated gzip input", found while sniffing the filter). */
        int e = archive_errno(in->a);
        int bad = e == 0 || e == -1 || e == EILSEQ; /* libarchive: MISC, FILE_FORMAT */
        ari_error_set(err, bad ? ARI_E_INVALID_INPUT : ARI_E_IO, "%s: %s", display_name,
                      archive_error_string(in->a));
        ari_input_close(in);
        return NULL;
    }
    struct archive_entry *entry;
    r = archive_read_next_header(in->a, &entry);
    if (r == ARCHIVE_EOF) {
        in->eof = 1; /* empty file */
    } else if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cannot decode: %s", display_name,
                      archive_error_string(in->a));
        ari_input_close(in);
        return NULL;
    }
    in->compressed = archive_filter_count(in->a) > 1 &&
                     archive_filter_code(in->a, 0) != ARCHIVE_FILTER_NONE;
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
    if (n < 0)
        return fail(in, err, ARI_E_INVALID_INPUT, "%s:%llu: cannot decode: %s",
                    archive_error_string(in->a));
    if (n == 0) {
        in->eof = 1;
        return 0;
    }
    if (in->tee && fwrite(in->buf + in->end, 1, (size_t)n, in->tee) != (size_t)n)
        return fail(in, err, ARI_E_IO, "%s:%llu: cannot write a temporary copy: %s",
                    strerror(errno));
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

void ari_input_close(ari_input *in)
{
    if (!in)
        return;
    if (in->a)
        archive_read_free(in->a);
    free(in->buf);
    free(in->name);
    free(in);
}
