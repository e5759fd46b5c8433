/* csv.c: the CSV reader (see csv.h). Fields are cut in place in the line
 * buffer that ari_input hands out; quoted fields are unescaped in place
 * (the unescaped text is never longer than the quoted one). */
#include "ingest/csv.h"

#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"
#include "util/alloc.h"

struct ari_csv {
    ari_input *in;
    char *fields[ARI_CSV_MAX_FIELDS];
};

ari_csv *ari_csv_open(const char *path, const char *display_name, ari_error *err)
{
    ari_csv *c = ari_zalloc(sizeof *c, err);
    if (!c)
        return NULL;
    c->in = ari_input_open(path, display_name, err);
    if (!c->in) {
        free(c);
        return NULL;
    }
    return c;
}

void ari_csv_close(ari_csv *c)
{
    if (!c)
        return;
    ari_input_close(c->in);
    free(c);
}

static int fail(ari_csv *c, ari_error *err, const char *reason)
{
    return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: %s", ari_input_name(c->in),
                         (unsigned long long)ari_input_lineno(c->in), reason);
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Parses a quoted field starting at *p (on the opening quote); returns the
 * field, or NULL on error. *p ends after the field's separator or at the
 * end of the line. */
static char *quoted_field(char **p, int *more, int *error)
{
    char *src = *p + 1, *dst = *p + 1, *start = dst;
    for (;;) {
        if (*src == '\0') {
            *error = 1; /* unterminated */
            return NULL;
        }
        if (*src == '"') {
            if (src[1] == '"') {
                *dst++ = '"';
                src += 2;
                continue;
            }
            src++;
            break;
        }
        *dst++ = *src++;
    }
    while (is_blank(*src))
        src++;
    if (*src != ',' && *src != '\0') {
        *error = 2; /* text after the closing quote */
        return NULL;
    }
    *dst = '\0';
    *more = *src == ',';
    *p = *src ? src + 1 : src;
    return start;
}

static char *plain_field(char **p, int *more)
{
    char *start = *p, *comma = strchr(start, ',');
    *more = comma != NULL;
    char *end = comma ? comma : start + strlen(start);
    *p = comma ? comma + 1 : end;
    while (end > start && is_blank(end[-1]))
        end--;
    *end = '\0';
    return start;
}

static int split(ari_csv *c, char *line, size_t *n, ari_error *err)
{
    char *p = line;
    *n = 0;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*n == ARI_CSV_MAX_FIELDS)
            return fail(c, err, "more than 1024 fields in one row");
        int error = 0, more = 0;
        char *field;
        if (*p == '"') {
            field = quoted_field(&p, &more, &error);
            if (error == 1)
                return fail(c, err, "unterminated quoted field");
            if (error == 2)
                return fail(c, err, "text after a closing quote");
        } else {
            field = plain_field(&p, &more);
        }
        c->fields[(*n)++] = field;
        if (!more) /* the row ends with a field not followed by a comma */
            return 0;
    }
}

int ari_csv_next(ari_csv *c, char ***fields, size_t *n, ari_error *err)
{
    size_t len;
    char *line;
    while ((line = ari_input_getline(c->in, &len, err)) != NULL) {
        size_t i = 0;
        while (i < len && is_blank(line[i]))
            i++;
        if (i == len)
            continue;
        if (split(c, line, n, err) < 0)
            return -1;
        *fields = c->fields;
        return 1;
    }
    return ari_input_failed(c->in) ? -1 : 0;
}

int ari_csv_column(char **header, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(header[i], name) == 0)
            return (int)i;
    return -1;
}

uint64_t ari_csv_lineno(const ari_csv *c)
{
    return ari_input_lineno(c->in);
}

const char *ari_csv_name(const ari_csv *c)
{
    return ari_input_name(c->in);
}

uint64_t ari_csv_bytes_read(const ari_csv *c)
{
    return ari_input_bytes_read(c->in);
}

uint64_t ari_csv_total_bytes(const ari_csv *c)
{
    return ari_input_total_bytes(c->in);
}
