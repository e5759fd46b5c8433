/* rec.c: the streaming GNU recfile reader (see rec.h). One record at a
 * time: its names and values are copied into an arena, then exposed as an
 * array of ari_field once the record is complete. */
#include "ingest/rec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "util/alloc.h"
#include "util/free_all.h"
#include "util/vec.h"

#define MAX_RECORD_BYTES ((size_t)64 << 20)

struct ari_rec {
    ari_input *in;
    char *arena;      /* name\0value\0 pairs of the current record */
    size_t used, cap;
    size_t *offsets;  /* 2 per field: name, value */
    ari_field *fields;
    size_t nfields, cap_fields;
    uint64_t record_line;
};

ari_rec *ari_rec_open(const char *path, const char *display_name, ari_error *err)
{
    ari_rec *r = ari_zalloc(sizeof *r, err);
    if (!r)
        return NULL;
    r->in = ari_input_open(path, display_name, err);
    if (!r->in) {
        free(r);
        return NULL;
    }
    return r;
}

void ari_rec_close(ari_rec *r)
{
    if (!r)
        return;
    ari_input_close(r->in);
    void *owned[] = {r->arena, r->offsets, r->fields, r};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int fail(ari_rec *r, ari_error *err, const char *reason)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %s", ari_input_name(r->in),
                         (unsigned long long)ari_input_lineno(r->in), reason);
}

static int reserve(ari_rec *r, size_t more, ari_error *err)
{
    if (r->used + more <= r->cap)
        return 0;
    if (r->used + more > MAX_RECORD_BYTES)
        return fail(r, err, "record larger than 64 MiB");
    if (ari_vec_reserve((void **)&r->arena, &r->cap, r->used + more, 1) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return 0;
}

static int push_text(ari_rec *r, const char *s, size_t len, ari_error *err)
{
    if (reserve(r, len + 1, err) < 0)
        return -1;
    memcpy(r->arena + r->used, s, len);
    r->used += len;
    r->arena[r->used++] = '\0';
    return 0;
}

static int add_field(ari_rec *r, const char *name, size_t name_len, const char *value,
                     size_t value_len, ari_error *err)
{
    if (r->nfields == ARI_REC_MAX_FIELDS)
        return fail(r, err, "more than 4096 fields in one record");
    if (r->nfields == r->cap_fields) {
        size_t cap = r->cap_fields ? 2 * r->cap_fields : 32;
        size_t *off = realloc(r->offsets, 2 * cap * sizeof *off);
        if (!off)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        r->offsets = off;
        ari_field *f = realloc(r->fields, cap * sizeof *f);
        if (!f)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        r->fields = f;
        r->cap_fields = cap;
    }
    r->offsets[2 * r->nfields] = r->used;
    if (push_text(r, name, name_len, err) < 0)
        return -1;
    r->offsets[2 * r->nfields + 1] = r->used;
    if (push_text(r, value, value_len, err) < 0)
        return -1;
    r->nfields++;
    return 0;
}

/* "+ text": appends "\n" + text to the last value (the arena's tail). */
static int continue_field(ari_rec *r, const char *line, size_t len, ari_error *err)
{
    if (r->nfields == 0)
        return fail(r, err, "continuation line ('+') without a field before it");
    line++, len--;
    if (len && *line == ' ')
        line++, len--;
    if (reserve(r, len + 1, err) < 0)
        return -1;
    r->arena[r->used - 1] = '\n'; /* replaces the value's NUL */
    memcpy(r->arena + r->used, line, len);
    r->used += len;
    r->arena[r->used++] = '\0';
    return 0;
}

static int parse_field(ari_rec *r, const char *line, size_t len, ari_error *err)
{
    size_t i = 0;
    if (!(isalpha((unsigned char)line[0]) || line[0] == '%'))
        return fail(r, err, "expected a 'Field: value' line");
    for (i = 1; i < len && (isalnum((unsigned char)line[i]) || line[i] == '_'); i++)
        ;
    if (i == len || line[i] != ':')
        return fail(r, err, "expected a 'Field: value' line");
    size_t v = i + 1;
    while (v < len && (line[v] == ' ' || line[v] == '\t'))
        v++;
    return add_field(r, line, i, line + v, len - v, err);
}

static void expose_fields(ari_rec *r)
{
    for (size_t i = 0; i < r->nfields; i++) {
        r->fields[i].name = r->arena + r->offsets[2 * i];
        r->fields[i].value = r->arena + r->offsets[2 * i + 1];
    }
}

static int is_blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return 0;
    return 1;
}

/* Returns 1 when a record ends (blank line or end of file with fields). */
static int end_record(ari_rec *r, const ari_field **fields, size_t *n)
{
    expose_fields(r);
    if (r->arena[r->offsets[0]] == '%') { /* a record descriptor: skip it */
        r->nfields = 0;
        r->used = 0;
        return 0;
    }
    *fields = r->fields;
    *n = r->nfields;
    return 1;
}

int ari_rec_next(ari_rec *r, const ari_field **fields, size_t *n, ari_error *err)
{
    size_t len;
    char *line;
    r->nfields = 0;
    r->used = 0;
    *fields = NULL;
    *n = 0;
    while ((line = ari_input_getline(r->in, &len, err)) != NULL) {
        if (len && line[0] == '#')
            continue;
        if (is_blank(line, len)) {
            if (r->nfields && end_record(r, fields, n))
                return 1;
            continue;
        }
        if (r->nfields == 0)
            r->record_line = ari_input_lineno(r->in);
        int rc = line[0] == '+' ? continue_field(r, line, len, err) : parse_field(r, line, len, err);
        if (rc < 0)
            return -1;
    }
    if (ari_input_failed(r->in))
        return -1;
    if (r->nfields && end_record(r, fields, n))
        return 1;
    return 0;
}

const char *ari_rec_name(const ari_rec *r)
{
    return ari_input_name(r->in);
}

uint64_t ari_rec_lineno(const ari_rec *r)
{
    return r->record_line;
}

uint64_t ari_rec_bytes_read(const ari_rec *r)
{
    return ari_input_bytes_read(r->in);
}

uint64_t ari_rec_total_bytes(const ari_rec *r)
{
    return ari_input_total_bytes(r->in);
}

const char *ari_rec_get(const ari_field *fields, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fields[i].name, name) == 0)
            return fields[i].value;
    return NULL;
}

int ari_rec_probe(const char *head, size_t len)
{
    size_t i = 0, fields = 0;
    while (i < len) {
        const char *nl = memchr(head + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - head) : len;
        const char *line = head + i;
        size_t n = end - i;
        if (!nl && fields)
            break; /* a cut last line proves nothing */
        if (n && line[0] != '#' && line[0] != '+' && !is_blank(line, n)) {
            size_t k = 0;
            if (!(isalpha((unsigned char)line[0]) || line[0] == '%'))
                return 0;
            while (k < n && (isalnum((unsigned char)line[k]) || line[k] == '_' || line[k] == '%'))
                k++;
            if (k == n || line[k] != ':')
                return 0;
            fields++;
        }
        i = end + 1;
    }
    return fields > 0;
}
